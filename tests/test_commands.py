"""Every command the project ships, given bad input: one line that says what is
wrong, a non-zero exit, no traceback, and nothing slow first (a benchmark refuses a
bad argument before it imports torch). A command that finds nothing to check when it
should (a link check of no page) fails.

One table drives every case: the command, what the case needs set up, the exit status
and the words the last line of its error says.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from ptdocs.snippets import ROOT

PY = sys.executable
# A torch that cannot be imported: a command that reaches it before refusing its
# arguments fails.
NO_TORCH = "raise SystemExit('torch was imported before the arguments were checked')\n"


@dataclass(frozen=True)
class Case:
    command: tuple[str, ...]  # {site}, {docs}, {url}, {tmp} filled in by the test
    status: int  # the exit status expected
    says: str  # words of the last line of stderr, or of stdout's report (in_report)
    setup: str | None = (
        None  # what the case needs: a site, a served folder, a git history
    )
    no_torch: bool = False  # the arguments are refused before torch is imported
    in_report: bool = (
        False  # a status report: what is wrong is said on the page's line of stdout
    )


def case(
    *command, status=2, says, setup=None, no_torch=False, in_report=False, marks=()
):
    return pytest.param(
        Case(command, status, says, setup, no_torch, in_report), marks=marks
    )


CASES = {
    # python -m ptdocs.catalog
    "catalog: unknown action": case(
        PY, "-m", "ptdocs.catalog", "fix", says="invalid choice: 'fix'"
    ),
    "catalog: not the repository": case(
        PY,
        "-m",
        "ptdocs.catalog",
        "check",
        "--root",
        "{tmp}",
        says="not the site's repository",
    ),
    "catalog: damaged PO file": case(
        PY,
        "-m",
        "ptdocs.catalog",
        "update",
        "--root",
        "{site}",
        setup="damaged_po",
        says="nothing was written",
    ),
    # python -m ptdocs.spelling
    "spelling: not the repository": case(
        PY, "-m", "ptdocs.spelling", "--root", "{tmp}", says="no docs/es/"
    ),
    # python -m ptdocs.linkcheck
    "linkcheck: server down": case(
        PY,
        "-m",
        "ptdocs.linkcheck",
        "http://127.0.0.1:{closed}/",
        status=1,
        says="could be checked; is the site served there?",
    ),
    "linkcheck: 404 start page": case(
        PY,
        "-m",
        "ptdocs.linkcheck",
        "{url}",
        "{url}nowhere/",
        status=1,
        setup="served",
        says="could be checked",
    ),
    "linkcheck: start page not HTML": case(
        PY,
        "-m",
        "ptdocs.linkcheck",
        "{url}",
        "{url}notes.txt",
        status=1,
        setup="served",
        says="could be checked",
    ),
    "linkcheck: a folder, not a URL": case(
        PY, "-m", "ptdocs.linkcheck", "site/", says="not an http:// or https://"
    ),
    "linkcheck: start outside the root": case(
        PY,
        "-m",
        "ptdocs.linkcheck",
        "http://127.0.0.1:8000/a/",
        "http://127.0.0.1:8000/b/",
        says="not under the site's root",
    ),
    # python -m ptdocs.site_build
    "site_build: no folder": case(
        PY, "-m", "ptdocs.site_build", says="required: folder"
    ),
    "site_build: no such folder": case(
        PY, "-m", "ptdocs.site_build", "{tmp}/nowhere", says="no such folder"
    ),
    "site_build: unknown option": case(
        PY,
        "-m",
        "ptdocs.site_build",
        "{tmp}",
        "--quick",
        says="unrecognized arguments: --quick",
    ),
    # python -m ptdocs.translations
    "translations: no such docs": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "/nonexistent",
        "status",
        says="no en/ and es/ folders",
    ),
    "translations: mark nothing": case(
        PY,
        "-m",
        "ptdocs.translations",
        "mark",
        says="mark takes Spanish pages (docs/es/...) or --all: one of the two",
    ),
    "translations: mark an English page": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "{docs}",
        "mark",
        "{docs}/en/demo.md",
        status=1,
        setup="outdated",
        says="give a Spanish page",
    ),
    "translations: mark --all with pages": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "{docs}",
        "mark",
        "--all",
        "{docs}/es/demo.md",
        setup="outdated",
        says="or --all: one of the two",
    ),
    "translations: mark --all, an outdated page": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "{docs}",
        "mark",
        "--all",
        status=1,
        setup="outdated",
        says="update it, then mark it by name",
    ),
    "translations: shallow clone": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "{docs}",
        "status",
        status=1,
        setup="shallow",
        in_report=True,
        says="this clone is shallow",
    ),
    "translations: front matter not YAML": case(
        PY,
        "-m",
        "ptdocs.translations",
        "--docs",
        "{docs}",
        "status",
        status=1,
        setup="bad_yaml",
        in_report=True,
        says="docs/es/demo.md, line 3: the front matter (between the --- "
        "lines) is not valid YAML",
    ),
    # python -m tools.mutate
    "mutate: no such page": case(
        PY,
        *"-m tools.mutate docs/en/nope.md".split(),
        says="docs/en/nope.md: not a page under docs/",
    ),
    "mutate: not a page": case(
        PY,
        *"-m tools.mutate README.md".split(),
        says="README.md: not a page under docs/",
    ),
    "mutate: no mutants": case(
        PY,
        *"-m tools.mutate --max-mutants 0 docs/en/autograd.md".split(),
        says="--max-mutants must be above 0",
    ),
    "mutate: no known list": case(
        PY,
        *"-m tools.mutate --known /nonexistent docs/en/autograd.md".split(),
        says="--known /nonexistent: no such file",
    ),
    # python -m ptdocs.notebook_twins, python -m ptdocs.versions
    "notebook_twins: unknown option": case(
        PY, "-m", "ptdocs.notebook_twins", "--fix", says="unrecognized"
    ),
    "versions: not a release": case(
        PY, "-m", "ptdocs.versions", "run", "2.13.0", "latest", says="latest"
    ),
    "versions: no command": case(PY, "-m", "ptdocs.versions", says="required: command"),
    # benchmarks/matmul_agreement.py: before torch
    "matmul_agreement: --n=-5": case(
        PY,
        "benchmarks/matmul_agreement.py",
        "--n=-5",
        no_torch=True,
        says="argument --n: -5 is not above 0",
    ),
    "matmul_agreement: --threads 0": case(
        PY,
        "benchmarks/matmul_agreement.py",
        "--threads",
        "0",
        no_torch=True,
        says="argument --threads: 0 is not above 0",
    ),
    "matmul_agreement: --n abc": case(
        PY,
        "benchmarks/matmul_agreement.py",
        "--n",
        "abc",
        no_torch=True,
        says="'abc' is not a number",
    ),
    "matmul_agreement: --rounds 4": case(
        PY,
        "benchmarks/matmul_agreement.py",
        "--rounds",
        "4",
        no_torch=True,
        says="--rounds must be odd and at least 5",
    ),
    "matmul_agreement: --min-run-time 0": case(
        PY,
        "benchmarks/matmul_agreement.py",
        "--min-run-time",
        "0",
        no_torch=True,
        says="0 is not above 0",
    ),
    # tools/
    "build_times: --repeat 0": case(
        PY, "tools/build_times.py", "--repeat", "0", says="0 is not a positive whole"
    ),
    "build_times: no such source": case(
        PY,
        *"tools/build_times.py --source /nonexistent".split(),
        says="not a checkout of the site",
    ),
    "aa_check: --runs 3": case(
        PY, "-m", "tools.aa_check", "--runs", "3", says="--runs must be 1 or even"
    ),
    # snippets/measuring/benchmark.py and compare.py: arguments checked before torch
    # loads
    "benchmark: unknown preset": case(
        PY,
        "snippets/measuring/benchmark.py",
        "--preset",
        "huge",
        no_torch=True,
        says="invalid choice: 'huge'",
    ),
    "benchmark: --threads 0": case(
        PY,
        "snippets/measuring/benchmark.py",
        "--threads",
        "0",
        no_torch=True,
        says="--threads",
    ),
    "benchmark: output not CSV": case(
        PY,
        "snippets/measuring/benchmark.py",
        "--output",
        "{tmp}/out.txt",
        no_torch=True,
        says=".csv",
    ),
    "compare: no such file": case(
        PY, "snippets/measuring/compare.py", "{tmp}/a.csv", "{tmp}/b.csv", says="a.csv"
    ),
    "compare: --min-change -1": case(
        PY,
        "snippets/measuring/compare.py",
        "--min-change",
        "-1",
        no_torch=True,
        says="--min-change",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_gets_one_line_and_a_non_zero_exit(case, tmp_path, request):
    places = {"tmp": str(tmp_path), "closed": str(_closed_port())}
    if case.setup:
        places.update(SETUPS[case.setup](tmp_path, request))
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    if case.no_torch:
        fake = tmp_path / "no-torch" / "torch"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text(NO_TORCH)
        environment["PYTHONPATH"] = os.pathsep.join([str(fake.parent), str(ROOT)])
    command = [part.format(**places) for part in case.command]
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    assert done.returncode == case.status, f"exit status {done.returncode}:\n{output}"
    if case.in_report:
        assert case.says in done.stdout.splitlines()[0], output
    else:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert lines and case.says in lines[-1], (
            f"the last line of stderr does not say {case.says!r}:\n{output}"
        )
    assert "torch was imported" not in output


def test_site_build_help_builds_nothing(tmp_path):
    """`--help` was once the folder it built into."""
    done = subprocess.run(
        [PY, "-m", "ptdocs.site_build", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0 and "usage:" in done.stdout
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- what the cases need


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[
            1
        ]  # closed again once the socket is: nothing listens there


def _served(tmp_path: Path, request) -> dict[str, str]:
    """A folder served over HTTP: a directory listing at the root, a text file,
    nothing else."""
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a page\n")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    request.addfinalizer(server.shutdown)
    return {"url": f"http://127.0.0.1:{server.server_address[1]}/"}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout


def _outdated(tmp_path: Path, request) -> dict[str, str]:
    """A site in git whose Spanish page was marked, then its English page changed."""
    from ptdocs import translations

    docs = tmp_path / "repo" / "docs"
    for language, text in (
        ("en", "# Demo\n\nOne.\n"),
        ("es", "# Demostración\n\nUno.\n"),
    ):
        (docs / language).mkdir(parents=True)
        (docs / language / "demo.md").write_text(text)
    _git(docs.parent, "init", "-q", "-b", "main")
    translations.mark(docs, docs / "es" / "demo.md")
    _git(docs.parent, "add", ".")
    _git(docs.parent, "commit", "-q", "-m", "first")
    (docs / "en" / "demo.md").write_text("# Demo\n\nOne, and two.\n")
    _git(docs.parent, "commit", "-q", "-am", "second")
    return {"docs": str(docs)}


def _shallow(tmp_path: Path, request) -> dict[str, str]:
    origin = Path(_outdated(tmp_path, request)["docs"]).parent
    _git(tmp_path, "clone", "-q", "--depth", "1", origin.as_uri(), "shallow")
    return {"docs": str(tmp_path / "shallow" / "docs")}


def _bad_yaml(tmp_path: Path, request) -> dict[str, str]:
    docs = Path(_outdated(tmp_path, request)["docs"])
    (docs / "es" / "demo.md").write_text(
        '---\ntranslation_of: "abc\n---\n\n# Demostración\n\nUno.\n'
    )
    return {"docs": str(docs)}


def _damaged_po(tmp_path: Path, request) -> dict[str, str]:
    """The repository's catalog beside a copy of its pages and snippets, one msgstr
    unterminated."""
    site = tmp_path / "site"
    for folder in ("docs", "snippets", "notebooks", "locale"):
        shutil.copytree(ROOT / folder, site / folder)
    for name in (
        "mkdocs.yml",
        "CONTRIBUTING.md",
        "CONTRIBUTING.es.md",
        "README.md",
    ):  # pages include them
        shutil.copy(ROOT / name, site / name)
    po = site / "locale" / "es" / "LC_MESSAGES" / "snippets.po"
    text = po.read_text(encoding="utf-8")
    start = text.index('\nmsgstr "', text.index("\nmsgid ", text.index("\n\n")))
    end = text.index("\n", start + 1)
    po.write_text(
        text[: end - 1] + text[end:], encoding="utf-8"
    )  # its closing quote gone
    return {"site": str(site)}


SETUPS = {
    "served": _served,
    "outdated": _outdated,
    "shallow": _shallow,
    "bad_yaml": _bad_yaml,
    "damaged_po": _damaged_po,
}
