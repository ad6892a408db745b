"""The page examples on every supported torch release: run them, keep what they
showed, say it.

The site is built and tested with the torch that ``requirements.txt`` pins. Readers
have other releases, so the examples also run against each release in
:data:`SUPPORTED`, each in an environment of its own::

    python -m ptdocs.versions run 2.14.1     # .cache/versions/2.14.1/, then pytest
    docs there
    python -m ptdocs.versions merge DIR...   # results downloaded from CI into
    reports/versions/
    python -m ptdocs.versions table          # what the committed results say, page
    by release

A run writes ``reports/versions/<release>.json`` in the form of
``reports/examples.json`` (see :mod:`ptdocs.report`): per page, the examples that
passed, failed (with each failure's first line) and were skipped (with the reasons),
and the fingerprints of the page and its snippets. The stamp under every page title
(``ptdocs/hooks/stamp.py``) and the compatibility page
(``ptdocs/hooks/compatibility.py``) read these files; a result whose fingerprints no
longer match the page is not claimed for it.

No torch is imported here: the build hooks and the tests use this module without one.
Nor, until a page's fingerprints are needed, is anything outside the standard
library: the workflow's matrix jobs run ``run`` with a bare Python, which then
installs what the examples need.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .atomic import write_atomically
from .layout import language

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path("reports") / "versions"  # committed: a reader's site shows them
ENVS = (
    Path(".cache") / "versions"
)  # one virtual environment per release, never committed
REQUIREMENTS = Path("requirements.txt")

# The supported range: the last six minor releases up to the newest on PyPI (2.15.0,
# looked up with `pip index versions torch` on 2026-12-01), each by its latest patch
# release. The publishing workflow runs one job per entry (.github/workflows/site.yml);
# tests/test_versions.py checks that both lists agree. requirements.txt pins one of them
# for the site's own build.
SUPPORTED = ("2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0")

RELEASE = re.compile(r"\d+\.\d+\.\d+")
TORCH_PIN = re.compile(r"^torch==\S+", re.M)
# The environment variable that sends ptdocs.report's file elsewhere: a run here must
# not replace the pinned release's reports/examples.json. Here, as this module needs
# only the standard library.
REPORT_ENV = "PTDOCS_EXAMPLE_REPORT"
# pytest's exit codes that still mean "the examples ran": all passed (0), some failed
# (1).
RAN = {0, 1}


class VersionsError(Exception):
    """Bad input or a failed step, in one line for the person who ran the command."""


# ----------------------------------------------------------------------------------
# releases


def parse_release(text: str) -> str:
    """A release number as pip and PyPI write it (``2.14.1``); anything else is
    refused."""
    text = text.strip()
    if not RELEASE.fullmatch(text):
        raise VersionsError(
            f"{text!r} is not a torch release number such as 2.14.1 "
            f"(supported: {', '.join(SUPPORTED)})"
        )
    return text


def release_key(release: str) -> tuple[int, ...]:
    """Order releases numerically (2.9.1 before 2.10.0); a local tag (+cpu) is
    ignored."""
    return tuple(int(part) for part in release.split("+", 1)[0].split("."))


def public(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: the release, whichever build of it."""
    return version.split("+", 1)[0]


def requirements_for(release: str, root: Path = ROOT) -> str:
    """requirements.txt with its torch pin replaced by this release: everything else
    as pinned."""
    text = (root / REQUIREMENTS).read_text(encoding="utf-8")
    if len(TORCH_PIN.findall(text)) != 1:
        raise VersionsError(
            f"{REQUIREMENTS}: expected exactly one 'torch==...' line to replace"
        )
    return TORCH_PIN.sub(f"torch=={release}", text)


# --------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class Result:
    """The page examples of one run against one release (a
    reports/versions/<release>.json)."""

    release: str
    torch: str  # the build that ran (2.14.1, 2.15.0+cpu)
    device: str
    date: str
    pages: dict[str, dict]  # "en/tensors.md" -> counts, skip_reasons, failures, sources


@dataclass(frozen=True)
class Status:
    """What one release's run says about one page, as it is now."""

    release: str
    state: str  # passed, failed, skipped (none ran), not_run, outdated
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    skip_reasons: tuple[str, ...] = ()  # one per skipped example, repeats kept
    failures: tuple[str, ...] = ()
    changed: tuple[str, ...] = field(
        default=()
    )  # outdated: the files changed since the run

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped


def result_from(data, name: str) -> Result:
    """Check one result file's content; ``name`` is how errors refer to it."""
    if not isinstance(data, dict):
        raise VersionsError(
            f"{name}: not a versions result (a JSON object is expected)"
        )
    missing = [key for key in ("torch", "pages") if key not in data]
    if missing or not isinstance(data["pages"], dict):
        raise VersionsError(
            f"{name}: not a versions result (no {' or '.join(missing) or 'pages'}); "
            "rerun python -m ptdocs.versions run"
        )
    release = data.get("release") or public(str(data["torch"]))
    parse_release(release)
    if public(str(data["torch"])) != release:
        raise VersionsError(
            f"{name}: says release {release} but ran torch {data['torch']}"
        )
    for page, entry in data["pages"].items():
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(key, 0), int)
            for key in ("passed", "failed", "skipped")
        ):
            raise VersionsError(
                f"{name}: page {page!r} has no counts of passed, failed and skipped"
            )
    return Result(
        release,
        str(data["torch"]),
        str(data.get("device", "?")),
        str(data.get("date", "?")),
        data["pages"],
    )


def load_result(path: Path) -> Result:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VersionsError(f"{path}: no such file") from None
    except (OSError, ValueError) as error:
        raise VersionsError(f"{path}: not readable JSON ({error})") from None
    result = result_from(data, str(path))
    if Path(path).stem != result.release:
        raise VersionsError(
            f"{path}: holds torch {result.release}; name it {result.release}.json"
        )
    return result


def load_results(root: Path = ROOT) -> dict[str, Result]:
    """Every committed (or merged) result, oldest release first; none when the folder
    is absent."""
    folder = Path(root) / RESULTS
    if not folder.is_dir():
        return {}
    results = [load_result(path) for path in folder.glob("*.json")]
    return {
        result.release: result
        for result in sorted(results, key=lambda r: release_key(r.release))
    }


def built_language(file, config, known) -> str:
    """The language of a page in a site build: mkdocs-static-i18n's own (the file's
    ``locale``); without that plugin (a test's small site), the page's first folder
    where it is one of the ``known`` languages, else the site's."""
    if getattr(file, "locale", None):
        return file.locale
    first = language(file.src_uri) if "/" in file.src_uri else None
    return first if first in known else config.theme.get("language") or "en"


def changed_sources(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """Paths whose content differs between two fingerprints
    (ptdocs.provenance.page_sources)."""
    return sorted(
        path
        for path in recorded.keys() | current.keys()
        if recorded.get(path) != current.get(path)
    )


def page_status(result: Result, page: str, current_sources: dict[str, str]) -> Status:
    """The release's word on ``page`` ("en/tensors.md"), if the run saw the page as
    it is now."""
    return status_of(result.release, result.pages.get(page), current_sources)


def status_of(
    release: str, entry: dict | None, current_sources: dict[str, str]
) -> Status:
    """What a run's entry for a page (a report's or a release's) says of the page as
    it is now: not_run (no entry), outdated (``changed``: the files changed since;
    none when the run recorded no fingerprints), else failed, passed, or skipped
    (none ran). The stamp and the compatibility page both read this."""
    if entry is None:
        return Status(release, "not_run")
    if "sources" not in entry:
        return Status(release, "outdated")
    changed = changed_sources(entry["sources"], current_sources)
    if changed:
        return Status(release, "outdated", changed=tuple(changed))
    passed, failed, skipped = (
        entry.get(key, 0) for key in ("passed", "failed", "skipped")
    )
    state = "failed" if failed else "passed" if passed else "skipped"
    return Status(
        release,
        state,
        passed,
        failed,
        skipped,
        tuple(entry.get("skip_reasons") or []),
        tuple(entry.get("failures") or []),
    )


# ------------------------------------------------------------------------------
# environments


def shared_skips(statuses) -> set[str]:
    """The skip reasons every passing release of a page shares (no accelerator here):
    the compatibility page does not repeat them per release. A skip only some
    releases show (an API newer than they are) is named with its release."""
    passing = [
        status for status in statuses if status is not None and status.state == "passed"
    ]
    return (
        set.intersection(*(set(status.skip_reasons) for status in passing))
        if passing
        else set()
    )


def installed_torch(python: str | None = None) -> str | None:
    """The torch version installed for this interpreter (or ``python``), without
    importing it."""
    if python is None:
        try:
            return importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            return None
    probe = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def pip_error(release: str, output: str) -> VersionsError:
    """pip's failure to install ``torch==release``, in one line that says what to do."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    joined = "\n".join(lines)
    constraint = [line for line in lines if "(constraint)" in line]
    if constraint:
        return VersionsError(
            f"torch {release}: a pip constraint forbids it ({constraint[-1]}); lift "
            "it for "
            "this command, e.g. PIP_CONFIG_FILE=/dev/null where a pip.conf sets it"
        )
    if re.search(
        r"NewConnectionError|Failed to establish a new connection|Could not resolve "
        r"host|"
        r"Temporary failure in name resolution|Network is unreachable|ConnectTimeout",
        joined,
    ):
        return VersionsError(
            f"torch {release}: the package index cannot be reached (no network?), "
            "and the release is not installed here"
        )
    if re.search(r"No matching distribution found for torch==", joined):
        return VersionsError(
            f"torch {release}: no such release on the package index pip uses "
            "(`pip index versions torch` lists them)"
        )
    errors = [line for line in lines if line.startswith("ERROR:")]
    return VersionsError(
        f"torch {release}: pip could not install the requirements: "
        f"{(errors or lines or ['no output'])[-1]}"
    )


def environment(release: str, root: Path = ROOT, log=print) -> str:
    """The Python that runs the examples with torch ``release``: this one if it has
    that release, otherwise .cache/versions/<release>/, made (or brought up to date)
    from requirements.txt."""
    if public(installed_torch() or "") == release:
        return sys.executable
    folder = Path(root) / ENVS / release
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    wanted = requirements_for(release, root)
    record = (
        folder / "ptdocs-requirements.txt"
    )  # what the environment was last installed from
    if (
        python.is_file()
        and record.is_file()
        and record.read_text(encoding="utf-8") == wanted
    ):
        return str(python)
    if not python.is_file():
        log(f"torch {release}: making {folder.relative_to(root)}")
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(folder)], capture_output=True, text=True
        )
        if made.returncode != 0:
            last = [
                line.strip()
                for line in (made.stdout + made.stderr).splitlines()
                if line.strip()
            ][-1:]
            raise VersionsError(
                f"torch {release}: python -m venv could not make "
                f"{folder.relative_to(root)}: "
                f"{last[0] if last else f'exit {made.returncode}'}"
            )
    requested = folder / "requested-requirements.txt"
    write_atomically(requested, wanted)
    log(
        f"torch {release}: installing requirements.txt with torch=={release} (a first "
        "install "
        "downloads torch, several GB for a CUDA build)"
    )
    install = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-r",
            str(requested),
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )  # its "-e file:." is this project
    if install.returncode != 0:
        raise pip_error(release, install.stdout + install.stderr)
    os.replace(
        requested, record
    )  # installed from it: it becomes the record, atomically
    return str(python)


# --------------------------------------------------------------------------------------
# run


def run(release: str, root: Path = ROOT, log=print) -> Path:
    """Run the page examples with torch ``release``; write and return its result
    file."""
    release = parse_release(release)
    root = Path(root)
    python = environment(release, root, log)
    found = installed_torch(python)
    if public(found or "") != release:
        raise VersionsError(
            f"torch {release}: the environment has torch {found} instead; "
            f"delete {ENVS / release} and run again"
        )
    report = root / ENVS / f"{release}.examples.json"
    report.unlink(missing_ok=True)
    log(f"torch {release}: python -m pytest docs (with {python})")
    tests = subprocess.run(
        [python, "-m", "pytest", "docs", "-q"],
        cwd=root,
        env={**os.environ, REPORT_ENV: str(report)},
        capture_output=True,
        text=True,
    )
    if tests.returncode not in RAN or not report.is_file():
        tail = [
            line for line in (tests.stdout + tests.stderr).splitlines() if line.strip()
        ][-1:]
        raise VersionsError(
            f"torch {release}: pytest did not run the examples "
            f"(exit {tests.returncode}): {tail[0] if tail else 'no output'}"
        )
    data = json.loads(report.read_text(encoding="utf-8"))
    data = {"release": release, **data}
    result_from(data, str(report))  # what the stamps will read must load
    target = root / RESULTS / f"{release}.json"
    write_atomically(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    report.unlink()
    log(summary(result_from(data, str(target))) + f" -> {target.relative_to(root)}")
    return target


def totals(pages: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Passed, failed and skipped per language, of a run's pages (a Result's, a
    report's)."""
    out: dict[str, dict[str, int]] = {}
    for page, entry in sorted(pages.items()):
        counts = out.setdefault(
            language(page), {"passed": 0, "failed": 0, "skipped": 0}
        )
        for key in counts:
            counts[key] += entry.get(key, 0)
    return out


def summary(result: Result) -> str:
    parts = [
        f"docs/{language}: {c['passed']} passed, {c['failed']} failed, {c['skipped']} "
        "skipped"
        for language, c in totals(result.pages).items()
    ]
    return f"torch {result.torch} on {result.device}, {result.date}: " + "; ".join(
        parts
    )


# --------------------------------------------------------------------------------------
# merge


def merge(
    sources: list[Path], root: Path = ROOT, expect: tuple[str, ...] = ()
) -> list[Path]:
    """Copy results (files, or folders of them, as CI downloads them) into
    reports/versions/, each checked first; ``expect``: releases that must be there
    afterwards."""
    files: list[Path] = []
    for source in map(Path, sources):
        if source.is_dir():
            files.extend(sorted(source.rglob("*.json")))
        elif source.is_file():
            files.append(source)
        else:
            raise VersionsError(f"{source}: no such file or folder")
    results: dict[str, tuple[Path, Result]] = {}
    for path in files:
        result = load_result(path)
        if result.release in results:
            raise VersionsError(
                f"{path}: torch {result.release} is also in "
                f"{results[result.release][0]}"
            )
        results[result.release] = (path, result)
    # Checked before anything is written: a failed merge leaves reports/versions/ as it
    # was.
    missing = [
        release
        for release in expect
        if release not in results and release not in load_results(root)
    ]
    if missing:
        raise VersionsError(f"no result for torch {', '.join(missing)} in {RESULTS}")
    written = []
    for release, (path, _) in sorted(
        results.items(), key=lambda item: release_key(item[0])
    ):
        target = Path(root) / RESULTS / f"{release}.json"
        if path.resolve() != target.resolve():
            write_atomically(target, path.read_text(encoding="utf-8"))
        written.append(target)
    return written


# --------------------------------------------------------------------------------------
# table


def table(root: Path = ROOT) -> str:
    """The committed results as plain text: per release, then per page (for people
    and notes)."""
    from .provenance import page_sources

    results = load_results(root)
    if not results:
        return f"no results in {RESULTS}: run python -m ptdocs.versions run RELEASE"
    lines = [summary(result) for result in results.values()]
    pages = sorted({page for result in results.values() for page in result.pages})
    lines.append("")
    lines.append("page".ljust(28) + "".join(release.ljust(12) for release in results))
    for page in pages:
        path = Path(root) / "docs" / page
        current = page_sources(path, root) if path.is_file() else {}
        cells = []
        for result in results.values():
            status = page_status(result, page, current)
            cells.append(
                {
                    "passed": f"ok {status.passed}",
                    "failed": f"FAIL {status.failed}/{status.total}",
                    "skipped": "skipped",
                    "not_run": "-",
                    "outdated": "outdated",
                }[status.state]
            )
        lines.append(page.ljust(28) + "".join(cell.ljust(12) for cell in cells))
    return "\n".join(lines)


# ----------------------------------------------------------------------------------
# command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.versions", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_command = commands.add_parser(
        "run", help="run the page examples with one torch release"
    )
    run_command.add_argument(
        "releases", nargs="+", metavar="RELEASE", help="e.g. 2.14.1"
    )
    merge_command = commands.add_parser(
        "merge", help="bring result files into reports/versions/"
    )
    merge_command.add_argument("sources", nargs="+", type=Path, metavar="PATH")
    merge_command.add_argument(
        "--expect-supported",
        action="store_true",
        help="fail unless every supported release has a result",
    )
    commands.add_parser("table", help="print the results, page by release")
    commands.add_parser("supported", help="print the supported releases, one per line")
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            for release in args.releases:
                parse_release(
                    release
                )  # every release checked before the first (slow) run
            for release in args.releases:
                run(release)
        elif args.command == "merge":
            for path in merge(
                args.sources, expect=SUPPORTED if args.expect_supported else ()
            ):
                print(f"merged {path.relative_to(ROOT)}")
        elif args.command == "table":
            print(table())
        else:
            print("\n".join(SUPPORTED))
    except VersionsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
