"""The page examples on every supported torch release: run them, keep what they showed.

``run 2.14.1`` installs requirements.txt with that torch in .cache/versions/2.14.1/,
runs ``pytest docs`` there and writes reports/versions/2.14.1.json in the form of
reports/examples.json; ``merge`` brings in CI's results; ``table`` prints them.
Standard library only: the workflow runs ``run`` with a bare Python.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .atomic import write_atomically
from .layout import language

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path("reports") / "versions"  # committed: a reader's site shows them
ENVS = Path(".cache") / "versions"  # one virtual environment per release
REQUIREMENTS = Path("requirements.txt")

# The last six minor releases up to the newest on PyPI (2.15.0 on 2026-12-01), each at
# its latest patch; tests/test_versions.py holds the workflow's matrix equal to it.
SUPPORTED = ("2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0")

RELEASE = re.compile(r"\d+\.\d+\.\d+")
TORCH_PIN = re.compile(r"^torch==\S+", re.M)
# Where ptdocs.report writes, so a run here leaves reports/examples.json alone.
REPORT_ENV = "PTDOCS_EXAMPLE_REPORT"
RAN = {0, 1}  # pytest's exit codes that still mean "the examples ran"
COUNTS = ("passed", "failed", "skipped")
# pip's output -> why it failed, the first that matches; {0}: the matched line
PIP_FAILURES = (
    (
        r".*\(constraint\).*",
        "a pip constraint forbids it ({0}); lift it for this command, e.g. "
        "PIP_CONFIG_FILE=/dev/null where a pip.conf sets it",
    ),
    (
        r"NewConnectionError|Failed to establish a new connection|Could not resolve "
        r"host|Temporary failure in name resolution|Network is unreachable|"
        r"ConnectTimeout",
        "the package index cannot be reached (no network?), and the release is not "
        "installed here",
    ),
    (
        r"No matching distribution found for torch==",
        "no such release on the package index pip uses (`pip index versions torch` "
        "lists them)",
    ),
)


class VersionsError(Exception):
    """Bad input or a failed step, in one line for the person who ran the command."""


def parse_release(text: str) -> str:
    """A release number as pip writes it (``2.14.1``); anything else is refused."""
    text = text.strip()
    if not RELEASE.fullmatch(text):
        raise VersionsError(
            f"{text!r} is not a torch release number such as 2.14.1 "
            f"(supported: {', '.join(SUPPORTED)})"
        )
    return text


def public(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: the release, whichever build of it."""
    return version.split("+", 1)[0]


def release_key(release: str) -> tuple[int, ...]:
    """Order releases numerically (2.9.1 before 2.10.0), ignoring a local tag."""
    return tuple(int(part) for part in public(release).split("."))


def requirements_for(release: str, root: Path = ROOT) -> str:
    """requirements.txt with only its torch pin replaced by this release."""
    text = (root / REQUIREMENTS).read_text(encoding="utf-8")
    if len(TORCH_PIN.findall(text)) != 1:
        raise VersionsError(
            f"{REQUIREMENTS}: expected exactly one 'torch==...' line to replace"
        )
    return TORCH_PIN.sub(f"torch=={release}", text)


@dataclass(frozen=True)
class Result:
    """A run's file: reports/versions/<release>.json, or reports/examples.json."""

    release: str
    torch: str  # the build that ran (2.14.1, 2.15.0+cpu)
    device: str
    date: str
    pages: dict[str, dict]  # "en/tensors.md" -> counts, skip_reasons, failures, sources


@dataclass(frozen=True)
class Status:
    """What one run says about one page as it is now: the one state model the stamp,
    the releases page and ``table`` format."""

    release: str
    state: str  # passed, failed, skipped (none ran), not_run, outdated
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    skip_reasons: tuple[str, ...] = ()  # one per skipped example, repeats kept
    failures: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()  # outdated: the files changed since the run
    torch: str = ""
    device: str = "?"
    date: str = "?"  # the page's own run: a partial run keeps older pages' days

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    @property
    def fields(self) -> dict:
        """Every field and the total: what the stamp's and releases page's sentences
        are formatted with."""
        return {**vars(self), "total": self.total}


def result_from(
    data, name: str, rerun: str = "python -m ptdocs.versions run"
) -> Result:
    """Check one result's content; ``name`` is how errors refer to it, ``rerun`` the
    command that writes it anew."""
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, dict) or "torch" not in data:
        raise VersionsError(
            f'{name}: not a test run\'s result (it needs "torch" and a "pages" '
            f"object); rerun {rerun}"
        )
    torch = str(data["torch"])
    # reports/examples.json names no release (or an empty one): any build (a nightly
    # too) may have run it
    release = data.get("release")
    try:
        release = (
            public(torch) if release in (None, "") else parse_release(str(release))
        )
    except VersionsError as error:
        raise VersionsError(f"{name}: {error}") from None
    if public(torch) != release:
        raise VersionsError(f"{name}: says release {release} but ran torch {torch}")
    for page, entry in pages.items():
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(key, 0), int) for key in COUNTS
        ):
            raise VersionsError(
                f"{name}: page {page!r} has no counts of passed, failed and skipped"
            )
        # A run records each page's fingerprints and its failures as data
        # (ptdocs.report); an older run's entry is refused in one line, neither read
        # as a changed page nor left to crash whatever describes its failures.
        if not isinstance(entry.get("sources"), dict):
            raise VersionsError(
                f"{name}: page {page!r} does not record which version of the page ran "
                f"(an older run); rerun {rerun}"
            )
        if any(not isinstance(f, dict) for f in entry.get("failures") or ()):
            raise VersionsError(
                f"{name}: page {page!r} has failures as text from an older run; "
                f"rerun {rerun}"
            )
    facts = (str(data.get(key, "?")) for key in ("device", "date"))
    return Result(release, torch, *facts, pages)


def load_result(path: Path, named: bool = True) -> Result:
    """A run's file; ``named``: a release's, which must be named after its release
    (else reports/examples.json, which pytest writes)."""
    rerun = "python -m ptdocs.versions run" if named else "python -m pytest"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VersionsError(f"{path}: no such file") from None
    except (OSError, ValueError) as error:
        raise VersionsError(
            f"{path}: not readable JSON ({error}); rerun {rerun}"
        ) from None
    result = result_from(data, str(path), rerun)
    if named and Path(path).stem != result.release:
        raise VersionsError(
            f"{path}: holds torch {result.release}; name it {result.release}.json"
        )
    return result


def load_results(root: Path = ROOT) -> dict[str, Result]:
    """Every committed (or merged) result, oldest release first."""
    results = map(load_result, (Path(root) / RESULTS).glob("*.json"))
    return {r.release: r for r in sorted(results, key=lambda r: release_key(r.release))}


def built_language(file, config, known) -> str:
    """A built page's language: mkdocs-static-i18n's ``locale``; without that plugin
    (a test's small site), its first folder if a ``known`` language, else the site's."""
    if getattr(file, "locale", None):
        return file.locale
    first = language(file.src_uri) if "/" in file.src_uri else None
    return first if first in known else config.theme.get("language") or "en"


def status_of(result: Result, page: str, current: dict[str, str]) -> Status:
    """What ``result`` says of ``page`` ("en/tensors.md") as it is now (``current``:
    ptdocs.provenance.page_sources)."""
    entry = result.pages.get(page)
    facts = {"torch": result.torch, "device": result.device, "date": result.date}
    if entry is None:
        return Status(result.release, "not_run", **facts)
    facts["date"] = str(entry.get("date", result.date))
    recorded = entry["sources"]  # result_from checked it
    changed = sorted(
        p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p)
    )
    if changed:
        return Status(result.release, "outdated", changed=tuple(changed), **facts)
    passed, failed, skipped = (entry.get(key, 0) for key in COUNTS)
    state = "failed" if failed else "passed" if passed else "skipped"
    reasons, failures = (
        tuple(entry.get(k) or ()) for k in ("skip_reasons", "failures")
    )
    return Status(
        result.release, state, passed, failed, skipped, reasons, failures, **facts
    )


def page_statuses(results, page: str, root: Path = ROOT, path=None) -> list:
    """Each result's Status of ``page`` (None for a None result), its sources read from
    ``path`` (by default docs/``page``): the stamp's, the releases page's and
    ``table``'s one reading."""
    from .provenance import page_sources  # not needed by run(): a bare Python lacks it

    path = Path(path or Path(root) / "docs" / page)
    current = page_sources(path, root) if path.is_file() else {}
    return [result and status_of(result, page, current) for result in results]


def installed_torch(python: str | None = None) -> str | None:
    """The torch version of this interpreter (or ``python``), without importing it."""
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


def _last(output: str, default: str = "no output", start: str = "") -> str:
    """The last non-blank line of ``output`` (of those that begin with ``start``, if
    any do)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return ([ln for ln in lines if ln.startswith(start)] or lines or [default])[-1]


def pip_error(release: str, output: str) -> VersionsError:
    """pip's failure to install ``torch==release``, in one line that says what to do."""
    for pattern, why in PIP_FAILURES:
        if found := re.findall(pattern, output):
            return VersionsError(f"torch {release}: {why.format(found[-1].strip())}")
    last = _last(output, start="ERROR:")
    return VersionsError(
        f"torch {release}: pip could not install the requirements: {last}"
    )


def environment(release: str, root: Path = ROOT, log=print) -> str:
    """The Python that runs the examples with torch ``release``: this one if it has
    it, else .cache/versions/<release>/, made or updated from requirements.txt."""
    if public(installed_torch() or "") == release:
        return sys.executable
    folder = Path(root) / ENVS / release
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    wanted = requirements_for(release, root)
    record = folder / "ptdocs-requirements.txt"  # what it was last installed from
    if python.is_file() and record.is_file() and record.read_text("utf-8") == wanted:
        return str(python)
    if not record.is_file():  # never finished: a venv cut off may lack pip, so anew
        log(f"torch {release}: making {folder.relative_to(root)}")
        venv = [sys.executable, "-m", "venv", "--clear", str(folder)]
        made = subprocess.run(venv, capture_output=True, text=True)
        if made.returncode != 0:
            raise VersionsError(
                f"torch {release}: python -m venv could not make "
                f"{folder.relative_to(root)}: "
                + _last(made.stdout + made.stderr, f"exit {made.returncode}")
            )
    requested = folder / "requested-requirements.txt"
    write_atomically(requested, wanted)
    log(
        f"torch {release}: installing requirements.txt with torch=={release} (a "
        "first install downloads torch, several GB for a CUDA build)"
    )
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    # cwd: requirements.txt's "-e file:." is this project
    install = subprocess.run(
        [*pip, "-r", str(requested)], capture_output=True, text=True, cwd=root
    )
    if install.returncode != 0:
        raise pip_error(release, install.stdout + install.stderr)
    os.replace(requested, record)  # installed from it: now the record, atomically
    return str(python)


def run(release: str, root: Path = ROOT, log=print) -> Path:
    """Run the page examples with torch ``release``; write and return its result."""
    release, root = parse_release(release), Path(root)
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
        raise VersionsError(
            f"torch {release}: pytest did not run the examples "
            f"(exit {tests.returncode}): {_last(tests.stdout + tests.stderr)}"
        )
    data = {"release": release, **json.loads(report.read_text(encoding="utf-8"))}
    result = result_from(data, str(report))  # what the stamps will read must load
    target = root / RESULTS / f"{release}.json"
    write_atomically(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    report.unlink()
    log(f"{summary(result)} -> {target.relative_to(root)}")
    return target


def totals(pages: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Passed, failed and skipped per language, of a run's pages."""
    out: dict[str, dict[str, int]] = {}
    for page, entry in sorted(pages.items()):
        counts = out.setdefault(language(page), dict.fromkeys(COUNTS, 0))
        for key in COUNTS:
            counts[key] += entry.get(key, 0)
    return out


def counted(pages: dict[str, dict]) -> list[str]:
    """A run's counts, a line per language (the test run's summary says them too)."""
    return [
        f"docs/{lang}: {c['passed']} examples passed, {c['failed']} failed, "
        f"{c['skipped']} skipped"
        for lang, c in totals(pages).items()
    ]


def summary(result: Result) -> str:
    head = f"torch {result.torch} on {result.device}, {result.date}: "
    return head + "; ".join(counted(result.pages))


def merge(
    sources: list[Path], root: Path = ROOT, expect: tuple[str, ...] = ()
) -> list[Path]:
    """Copy results (files, or folders of them as CI downloads them) into
    reports/versions/, each checked first; ``expect``: releases that must be there."""
    files: list[Path] = []
    for source in map(Path, sources):
        if not source.exists():
            raise VersionsError(f"{source}: no such file or folder")
        files += sorted(source.rglob("*.json")) if source.is_dir() else [source]
    results: dict[str, Path] = {}
    for path in files:
        release = load_result(path).release
        if release in results:
            raise VersionsError(
                f"{path}: torch {release} is also in {results[release]}"
            )
        results[release] = path
    # Checked before anything is written: a failed merge leaves the folder as it was.
    missing = [r for r in expect if r not in results and r not in load_results(root)]
    if missing:
        raise VersionsError(f"no result for torch {', '.join(missing)} in {RESULTS}")
    written = []
    for release in sorted(results, key=release_key):
        target = Path(root) / RESULTS / f"{release}.json"
        if results[release].resolve() != target.resolve():
            write_atomically(target, results[release].read_text(encoding="utf-8"))
        written.append(target)
    return written


CELLS = {
    "passed": "ok {passed}",
    "failed": "FAIL {failed}/{total}",
    "skipped": "skipped",
    "not_run": "-",
    "outdated": "outdated",
}


def table(root: Path = ROOT) -> str:
    """The committed results as plain text, page by release."""
    results = load_results(root)
    if not results:
        return f"no results in {RESULTS}: run python -m ptdocs.versions run RELEASE"
    lines = [summary(result) for result in results.values()]
    lines += ["", "page".ljust(28) + "".join(r.ljust(12) for r in results)]
    for page in sorted({page for r in results.values() for page in r.pages}):
        cells = (
            CELLS[s.state].format(passed=s.passed, failed=s.failed, total=s.total)
            for s in page_statuses(results.values(), page, root)
        )
        lines.append(page.ljust(28) + "".join(cell.ljust(12) for cell in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.versions", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    runs = commands.add_parser("run", help="run the examples with torch releases")
    runs.add_argument("releases", nargs="+", metavar="RELEASE", help="e.g. 2.14.1")
    merging = commands.add_parser("merge", help="bring results into reports/versions/")
    merging.add_argument("sources", nargs="+", type=Path, metavar="PATH")
    merging.add_argument(
        "--expect-supported",
        action="store_true",
        help="fail unless every supported release has a result",
    )
    commands.add_parser("table", help="print the results, page by release")
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            # Every release checked before the first (slow) run.
            for release in [parse_release(r) for r in args.releases]:
                run(release)
        elif args.command == "merge":
            expect = SUPPORTED if args.expect_supported else ()
            for path in merge(args.sources, expect=expect):
                print(f"merged {path.relative_to(ROOT)}")
        else:
            print(table())
    except VersionsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
