"""The page examples on other torch releases: results, their merge, and what the site
says of them.

No other torch is needed: every result here is a fixture in the form ``python -m
ptdocs.versions run`` writes.
"""

import json
import re
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import pytest
from helpers import mkdocs_build

from ptdocs import versions
from ptdocs.downloads import requirements
from ptdocs.hooks import compatibility, stamp
from ptdocs.provenance import page_sources
from ptdocs.report import FAILURE as CARRIED
from ptdocs.report import ExampleReport, failure_record
from ptdocs.snippets import ROOT
from ptdocs.versions import Status, VersionsError

# A failure as a run records it (ptdocs.report.failure_record), and as each language's
# stamp says it.
ERROR = "AttributeError: module 'torch' has no attribute 'accelerator'"
FAILURE = {"file": "snippets/demo.py", "line": 2, "kind": "exception", "error": ERROR}
SAID = {
    "en": f"`` snippets/demo.py ``, line 2: raises `` {ERROR} ``",
    "es": f"`` snippets/demo.py ``, línea 2: lanza `` {ERROR} ``",
}


@pytest.fixture
def project(tmp_path):
    """A root with one page in each language including one snippet, and
    requirements.txt."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text(
        "# --8<-- [start:one]\nx = 1\n# --8<-- [end:one]\n"
    )
    for language in ("en", "es"):
        (tmp_path / "docs" / language).mkdir(parents=True)
        (tmp_path / "docs" / language / "demo.md").write_text(
            '# Demo\n\n```python\n--8<-- "snippets/demo.py:one"\n```\n'
        )
    (tmp_path / "requirements.txt").write_text(
        "sympy==1.14.0\n    # via torch\ntorch==2.13.0\n    # via -r x\n"
    )
    return tmp_path


def _result(root, release, torch=None, **counts):
    entry = {**dict.fromkeys(versions.COUNTS, 0), "skip_reasons": [], "failures": []}
    pages = {
        f"{lang}/demo.md": {
            **entry,
            **counts,
            "sources": page_sources(root / "docs" / lang / "demo.md", root),
        }
        for lang in ("en", "es")
    }
    facts = {"device": "CPU (x86_64)", "date": "2026-12-01", "pages": pages}
    return {"release": release, "torch": torch or release, **facts}


def _write(root, data, name=None):
    path = root / versions.RESULTS / f"{name or data['release']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


# ---- releases and requirements
# ----------------------------------------------------------------


def test_release_numbers_are_checked_and_ordered_numerically():
    assert versions.parse_release(" 2.14.1 ") == "2.14.1"
    for bad in ("2.14", "latest", "2.14.1; rm -rf /", "torch==2.14.1", ""):
        with pytest.raises(
            VersionsError, match="is not a torch release number such as 2.14.1"
        ):
            versions.parse_release(bad)
    assert sorted(["2.10.0", "2.9.1", "2.13.0+cpu"], key=versions.release_key) == [
        "2.9.1",
        "2.10.0",
        "2.13.0+cpu",
    ]


def test_the_supported_range_is_six_minor_releases_in_order_and_holds_the_pinned_one():
    minors = [tuple(map(int, release.split(".")[:2])) for release in versions.SUPPORTED]
    assert minors == [(2, minor) for minor in range(minors[0][1], minors[0][1] + 6)]
    pinned = requirements(ROOT)["torch"]
    assert pinned in versions.SUPPORTED


def test_an_environment_gets_requirements_txt_with_only_the_torch_pin_replaced(project):
    text = versions.requirements_for("2.15.0", project)
    assert text == "sympy==1.14.0\n    # via torch\ntorch==2.15.0\n    # via -r x\n"
    (project / "requirements.txt").write_text("sympy==1.14.0\n")
    with pytest.raises(VersionsError, match="exactly one 'torch==...' line"):
        versions.requirements_for("2.15.0", project)


@pytest.mark.parametrize(
    "output, says",
    [
        (
            "ERROR: Could not find a version that satisfies the requirement "
            "torch==2.99.0 (from versions: 2.13.0)\n"
            "ERROR: No matching distribution found for torch==2.99.0",
            "no such release on the package index",
        ),
        (
            "WARNING: Retrying ... NewConnectionError('<pip._vendor...>: Failed to "
            "establish a new connection: "
            "[Errno -3] Temporary failure in name resolution')\nERROR: No matching "
            "distribution found for torch==2.15.0",
            "cannot be reached (no network?)",
        ),
        (
            "ERROR: Cannot install torch==2.15.0 because these package versions have "
            "conflicting dependencies.\n"
            "The conflict is caused by:\n    The user requested torch==2.15.0\n"
            "    The user requested (constraint) torch<=2.14.1",
            "a pip constraint forbids it (The user requested "
            "(constraint) torch<=2.14.1)",
        ),
        (
            "ERROR: something else\nERROR: Disk quota exceeded",
            "pip could not install the requirements: ERROR: Disk quota exceeded",
        ),
    ],
)
def test_pips_failures_become_one_line_that_says_what_to_do(output, says):
    error = versions.pip_error("2.15.0", output)
    assert (
        says in str(error)
        and "\n" not in str(error)
        and str(error).startswith("torch 2.15.0: ")
    )


def test_a_failed_install_is_reported_and_the_environment_not_recorded_as_ready(
    project, monkeypatch
):
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command)
        if command[1:3] == ["-m", "venv"]:
            python = project / ".cache" / "versions" / "2.99.0" / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text("")
            return SimpleNamespace(returncode=0)
        return SimpleNamespace(
            returncode=1,
            stdout="",
            stderr="ERROR: No matching distribution found for torch==2.99.0",
        )

    monkeypatch.setattr(versions.subprocess, "run", fake_run)
    monkeypatch.setattr(versions.os, "name", "posix")
    with pytest.raises(VersionsError, match="torch 2.99.0: no such release"):
        versions.environment("2.99.0", project, log=lambda line: None)
    assert calls[1][-2:] == [
        "-r",
        str(project / ".cache" / "versions" / "2.99.0" / "requested-requirements.txt"),
    ]
    assert not (
        project / ".cache" / "versions" / "2.99.0" / "ptdocs-requirements.txt"
    ).exists()


def test_an_environment_never_finished_is_made_anew(project, monkeypatch):
    # A venv cut off while it was made has a python but may have no pip.
    folder = project / ".cache" / "versions" / "2.99.0"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text("")
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command)
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    monkeypatch.setattr(versions.subprocess, "run", fake_run)
    monkeypatch.setattr(versions.os, "name", "posix")
    versions.environment("2.99.0", project, log=lambda line: None)
    assert calls[0][1:] == ["-m", "venv", "--clear", str(folder)]
    assert (folder / "ptdocs-requirements.txt").is_file()  # installed, then recorded


def test_the_command_refuses_bad_input_in_one_line():
    for argv, says in [
        (["run", "2.14"], "'2.14' is not a torch release number"),
        (["merge", "no/such/folder"], "no/such/folder: no such file or folder"),
    ]:
        result = subprocess.run(
            [sys.executable, "-m", "ptdocs.versions", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 2
        assert result.stderr.startswith("error: ") and says in result.stderr
        assert result.stderr.count("\n") == 1, result.stderr


# ---- results
# --------------------------------------------------------------------------------------


def test_a_result_file_is_checked_when_loaded(project):
    good = _write(project, _result(project, "2.14.1", passed=1))
    assert versions.load_result(good).release == "2.14.1"
    path = project / "reports" / "versions" / "2.15.0.json"
    for content, says in [
        ("{", "not readable JSON"),
        ("[]", "not a test run's result"),
        (
            '{"torch": "2.15.0"}',
            r'not a test run\'s result \(it needs "torch" and a "pages" object\); '
            "rerun python -m ptdocs.versions run",
        ),
        ('{"torch": "2.15.0", "pages": "x"}', 'a "pages" object'),
        ('{"pages": {}}', 'it needs "torch"'),
        ('{"torch": "2.15.0", "pages": {"en/a.md": {"passed": "3"}}}', "has no counts"),
        (
            '{"torch": "2.15.0", "pages": {"en/a.md": {"passed": 3}}}',
            r"2\.15\.0\.json: page 'en/a\.md' does not record which version of the "
            r"page ran \(an older run\); rerun python -m ptdocs\.versions run$",
        ),
        (
            '{"torch": "2.15.0", "pages": {"en/a.md": {"failed": 1, "sources": {}, '
            '"failures": ["Line 3: boom"]}}}',
            "page 'en/a.md' has failures as text from an older run; rerun python",
        ),
        ('{"release": "2.15.0", "torch": "2.14.1", "pages": {}}', "ran torch 2.14.1"),
        ('{"torch": "2.14.1+cpu", "pages": {}}', "name it 2.14.1.json"),
    ]:
        path.write_text(content)
        with pytest.raises(VersionsError, match=says):
            versions.load_result(path)


def test_a_result_without_a_release_is_its_torch_release_and_a_number_is_checked():
    # reports/examples.json names none; a release of null or "" names none either.
    for release in (None, ""):
        data = {"torch": "2.14.1+cpu", "release": release, "pages": {}}
        assert versions.result_from(data, "x").release == "2.14.1"
    for release in (2.14, 0):  # a number is checked, 0 included, and the file named
        with pytest.raises(
            VersionsError, match=f"^x: '{release}' is not a torch release"
        ):
            versions.result_from(
                {"torch": "2.14.1", "release": release, "pages": {}}, "x"
            )


def test_results_load_oldest_first_and_a_cpu_build_counts_as_its_release(project):
    _write(project, _result(project, "2.15.0", torch="2.15.0+cpu", passed=1))
    _write(project, _result(project, "2.9.1", passed=1))
    assert list(versions.load_results(project)) == ["2.9.1", "2.15.0"]
    assert versions.load_results(project / "nowhere") == {}


def test_a_result_speaks_for_a_page_only_as_the_page_was_when_it_ran(project):
    result = versions.result_from(
        _result(project, "2.14.1", passed=2, failed=1, failures=[FAILURE]), "x"
    )
    current = page_sources(project / "docs" / "en" / "demo.md", project)
    status = versions.status_of(result, "en/demo.md", current)
    assert (
        status.state,
        status.passed,
        status.failed,
        status.total,
        status.failures,
    ) == ("failed", 2, 1, 3, (FAILURE,))
    assert versions.status_of(result, "en/other.md", current).state == "not_run"
    (project / "snippets" / "demo.py").write_text(
        "# --8<-- [start:one]\nx = 2\n# --8<-- [end:one]\n"
    )
    (changed,) = versions.page_statuses([result], "en/demo.md", project)
    assert (changed.state, changed.changed) == ("outdated", ("snippets/demo.py",))


def test_merge_brings_downloaded_results_in_checked_and_says_what_is_missing(project):
    downloaded = project / "downloaded"
    for release in ("2.14.1", "2.15.0"):
        folder = (
            downloaded / f"versions-{release}"
        )  # as download-artifact lays them out
        folder.mkdir(parents=True)
        (folder / f"{release}.json").write_text(
            json.dumps(_result(project, release, passed=1))
        )
    written = versions.merge([downloaded], project, expect=("2.14.1", "2.15.0"))
    assert [path.name for path in written] == ["2.14.1.json", "2.15.0.json"]
    assert list(versions.load_results(project)) == ["2.14.1", "2.15.0"]
    with pytest.raises(
        VersionsError, match=r"no result for torch 2\.10\.0 in reports/versions"
    ):
        versions.merge([downloaded], project, expect=("2.10.0", "2.14.1"))
    (downloaded / "again.json").write_text(
        json.dumps(_result(project, "2.15.0", passed=1))
    )
    with pytest.raises(VersionsError, match="name it 2.15.0.json"):
        versions.merge([downloaded], project)


def test_a_merge_that_misses_a_release_writes_nothing(project):
    downloaded = project / "downloaded" / "2.14.1.json"
    downloaded.parent.mkdir()
    downloaded.write_text(json.dumps(_result(project, "2.14.1", passed=1)))
    with pytest.raises(VersionsError, match=r"no result for torch 2\.15\.0"):
        versions.merge([downloaded], project, expect=("2.14.1", "2.15.0"))
    assert not (project / versions.RESULTS).exists()


def test_a_failed_venv_is_one_line_not_a_traceback(project, monkeypatch):
    monkeypatch.setattr(versions, "installed_torch", lambda python=None: None)
    failed = SimpleNamespace(
        returncode=1, stdout="", stderr="Error: [Errno 28] No space left on device\n"
    )
    monkeypatch.setattr(versions.subprocess, "run", lambda *args, **kwargs: failed)
    with pytest.raises(
        VersionsError,
        match=r"^torch 2\.14\.1: python -m venv could not make "
        r"\.cache/versions/2\.14\.1: Error: \[Errno 28\] No space",
    ):
        versions.environment("2.14.1", project, log=lambda text: None)


def test_the_table_command_prints_every_page_by_release(project, capsys):
    assert versions.table(project).startswith("no results in reports/versions: run")
    _write(project, _result(project, "2.14.1", passed=3))
    _write(project, _result(project, "2.15.0", passed=2, failed=1))
    (project / "docs" / "es" / "demo.md").write_text("# Demo, editada\n")
    assert versions.table(project).splitlines()[-2:] == [
        "en/demo.md".ljust(28) + "ok 3".ljust(12) + "FAIL 1/3".ljust(12),
        "es/demo.md".ljust(28) + "outdated".ljust(12) * 2,
    ]
    assert versions.main(["table"]) == 0 and "en/" in capsys.readouterr().out


def test_the_committed_results_load_and_cover_only_supported_releases():
    results = versions.load_results(ROOT)
    assert set(results) <= set(versions.SUPPORTED)
    for result in results.values():
        assert result.pages and all(
            page.split("/")[0] in ("en", "es") for page in result.pages
        )


# ---- what a test run records
# -----------------------------------------------------------------------


def test_a_failure_is_recorded_as_the_data_it_travelled_with_clipped_to_a_line():
    """ptdocs.pages makes each failure as data (tests/test_outputs.py runs real
    ones); the report keeps it as it came, each value cut to a stamp's line. A
    failure that is no page example's (a setup error) is kept as its first line."""
    long = "x" * 1000
    carried = SimpleNamespace(user_properties=[(CARRIED, {**FAILURE, "error": long})])
    assert failure_record(carried) == {**FAILURE, "error": "x" * 119 + "…"}
    setup = SimpleNamespace(
        user_properties=[], longrepr=None, longreprtext="fixture 'x' not found\nmore"
    )
    assert failure_record(setup) == {
        "kind": "other",
        "message": "fixture 'x' not found",
    }


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_failure_is_said_in_the_pages_language_with_only_the_codes_own_text_as_code(
    language,
):
    from ptdocs.failures import describe, inline_code

    def code(text):  # the expected sentences below write `x` for inline_code("x")
        return re.sub(r"`([^`]*)`", lambda found: inline_code(found[1]), text)

    said = {
        "en": [
            "`snippets/demo.py`, line 4: prints `tensor([1, 2])` where the page shows "
            "`tensor([1., 2.])`",
            "`snippets/demo.py`, line 4: prints nothing where the page shows `done`",
            f"`snippets/demo.py`, line 2: raises `{ERROR}`",
            "`docs/en/demo.md`, line 9: the prose says `1` for `f(0)`, "
            "the code gives `0`",
        ],
        "es": [
            "`snippets/demo.py`, línea 4: imprime `tensor([1, 2])` donde la página "
            "muestra `tensor([1., 2.])`",
            "`snippets/demo.py`, línea 4: imprime nada donde la página muestra `done`",
            f"`snippets/demo.py`, línea 2: lanza `{ERROR}`",
            "`docs/en/demo.md`, línea 9: el texto dice `1` para `f(0)`, pero "
            "el código da `0`",
        ],
    }[language]
    output = {
        "file": "snippets/demo.py",
        "line": 4,
        "kind": "output",
        "shown": "tensor([1., 2.])",
        "printed": "tensor([1, 2])",
    }
    failures = [
        output,
        {**output, "shown": "done", "printed": None},
        FAILURE,
        {
            "file": "docs/en/demo.md",
            "line": 9,
            "kind": "value",
            "said": "1",
            "expression": "f(0)",
            "got": "0",
        },
    ]
    assert [describe(language, failure) for failure in failures] == list(
        map(code, said)
    )
    # A page its parser could not read: the parser's message, which says where, as code.
    unread = {"kind": "other", "message": "docs/en/x.md, line 3: an empty Python block"}
    assert describe(language, unread) == code(
        "`docs/en/x.md, line 3: an empty Python block`"
    )


def test_a_run_for_another_release_writes_where_it_is_told_with_its_failures(
    project, monkeypatch
):
    target = project / ".cache" / "versions" / "2.15.0.examples.json"
    monkeypatch.setenv(versions.REPORT_ENV, str(target))
    collector = ExampleReport(project)
    page = project / "docs" / "en" / "demo.md"
    failure = {**FAILURE, "error": "ValueError: no"}
    call = {"fspath": str(page), "when": "call", "skipped": False}
    log = collector.pytest_runtest_logreport
    log(SimpleNamespace(**call, nodeid="a", outcome="passed"))
    log(
        SimpleNamespace(
            **call, nodeid="b", outcome="failed", user_properties=[(CARRIED, failure)]
        )
    )
    collector.pytest_sessionfinish(session=None)
    assert not (project / "reports" / "examples.json").exists()
    entry = json.loads(target.read_text())["pages"]["en/demo.md"]
    assert (entry["passed"], entry["failed"], entry["failures"]) == (1, 1, [failure])


# ---- the stamps
# -----------------------------------------------------------------------------------


def _status(release, state, passed=0, failed=0, skipped=0, reasons=(), failures=()):
    counts = (passed, failed, skipped, tuple(reasons), tuple(failures))
    return Status(release, state, *counts, device="CPU (x86_64)")


ACCELERATOR = "needs an accelerator"
STATUSES = [
    _status("2.10.0", "failed", passed=4, failed=2, failures=[FAILURE, "second"]),
    _status(
        "2.11.0",
        "passed",
        passed=5,
        skipped=2,
        reasons=[ACCELERATOR, "needs torch 2.12 or later"],
    ),
    _status("2.12.1", "outdated"),
    _status("2.13.0", "passed", passed=6, skipped=1, reasons=[ACCELERATOR]),
    _status("2.14.1", "passed", passed=6, skipped=1, reasons=[ACCELERATOR]),
    _status("2.15.0", "not_run"),
]


def _line(language, statuses):
    """The stamp of a page without a test report of this build, from release runs
    (dated)."""
    runs = [replace(st, date=f"2026-11-{20 + i}") for i, st in enumerate(statuses)]
    return stamp.report_stamp(language, None, "2.13.0", runs).markdown(
        "../compatibility/"
    )


def test_the_stamp_says_on_which_releases_the_examples_hold_and_where_they_fail():
    # The passing releases, short (2.11 and 2.13–2.14); the date of the newest of their
    # runs; the newest one's count and skips; the failing release with its first
    # failure. Outdated and not-run releases are not claimed (the releases page lists
    # them).
    assert _line("en", STATUSES) == (
        "✓ 6 examples verified with [torch 2.11 and 2.13–2.14](../compatibility/) on "
        "CPU (x86_64), "
        "24 Nov 2026. "
        f"Skipped: 1 example ({ACCELERATOR}). On torch 2.10.0, 2 of 6 fail: "
        f"{SAID['en']}."
    )
    assert _line("es", STATUSES) == (
        "✓ 6 ejemplos verificados con [torch 2.11 y 2.13–2.14](../compatibility/) en "
        "CPU (x86_64), "
        "24 nov 2026. "
        f"Se omitió 1 ejemplo ({ACCELERATOR}). Con torch 2.10.0, fallan 2 de 6: "
        f"{SAID['es']}."
    )


def test_releases_that_fail_alike_share_one_sentence_and_none_passing_is_no_claim():
    alike = [
        _status(release, "failed", passed=4, failed=1, failures=[FAILURE])
        for release in ("2.14.1", "2.15.0")
    ]
    assert _line("es", [STATUSES[3], *alike]) == (
        "✓ 6 ejemplos verificados con [torch 2.13](../compatibility/) en CPU "
        "(x86_64), 20 nov 2026. "
        "Se omitió 1 ejemplo "
        f"({ACCELERATOR}). Con torch 2.14.1 y 2.15.0, falla 1 de 5: {SAID['es']}."
    )
    # No release passed and no report: a neutral note, never a claim.
    note = _line("en", [_status("2.15.0", "not_run"), STATUSES[0]])
    assert (
        note.startswith("Not verified in this build. No test report was found")
        and "✓" not in note
    )
    assert note.endswith(f"On torch 2.10.0, 2 of 6 fail: {SAID['en']}.")


def test_a_built_page_says_on_which_releases_its_examples_hold(project):
    (project / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: docs\ntheme: mkdocs\nnav:\n  - Demo: en/demo.md\n"
        "markdown_extensions:\n  - admonition\n  - tables\n  - pymdownx.snippets:\n   "
        "   base_path: ['.']\n"
        "plugins:\n  - ptdocs:\n      steps: [stamp, compatibility]\n"
    )
    (project / "docs" / "en" / "compatibility.md").write_text(
        "# Releases\n\n<!-- compatibility -->\n"
    )
    _write(project, _result(project, "2.14.1", passed=1))
    _write(project, _result(project, "2.10.0", failed=1, failures=[FAILURE]))
    result = mkdocs_build(project / "mkdocs.yml", project / "out")
    assert result.returncode == 0, result.stderr
    # No test report here: the release runs speak for the page, linked to the releases
    # page.
    said = {
        "en": '✓ 1 example verified with <a href="../compatibility/">torch 2.14</a> '
        "on CPU (x86_64), 1 Dec 2026. On torch 2.10.0, 1 of 1 fails: "
        "<code>snippets/demo.py</code>, line 2: raises <code>AttributeError",
        # Only Python's own exception text stays as it is (this small site has no
        # Spanish releases page to link to).
        "es": "✓ 1 ejemplo verificado con torch 2.14 en CPU (x86_64), 1 dic 2026. Con "
        "torch 2.10.0, falla 1 de 1: <code>snippets/demo.py</code>, línea 2: lanza "
        "<code>AttributeError: module 'torch' has no attribute 'accelerator'</code>.",
    }
    for language, line in said.items():
        assert line in (project / "out" / language / "demo" / "index.html").read_text()
    table = (project / "out" / "en" / "compatibility" / "index.html").read_text()
    assert (
        '<a href="../demo/">Demo</a></td>' in table
        and "1 of 1 fail" in table
        and "1 pass" in table
    )
    _write(project, {"torch": "2.15.0", "pages": "none"}, name="2.15.0")
    broken = mkdocs_build(project / "mkdocs.yml", project / "out")
    assert (
        broken.returncode != 0
        and "2.15.0.json: not a test run's result" in broken.stderr
    )


# ---- the compatibility page
# ------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_compatibility_table_shows_every_page_by_release_in_the_pages_language(
    project, language
):
    results = {
        release: versions.result_from(_result(project, release, **counts), release)
        for release, counts in [
            ("2.10.0", {"passed": 4, "failed": 2, "failures": [FAILURE]}),
            (
                "2.14.1",
                {"passed": 6, "skipped": 1, "skip_reasons": ["needs torch 2.15"]},
            ),
            ("2.15.0", {"passed": 7}),
        ]
    }
    titles = {f"{language}/demo.md": {"en": "Demo", "es": "Demostración"}[language]}
    text = compatibility.section(
        language, f"{language}/compatibility.md", results, titles, project
    )
    s = compatibility.STRINGS[language]
    row = next(
        line
        for line in text.splitlines()
        if line.startswith(f"| [{titles[f'{language}/demo.md']}](demo.md)")
    )
    cells = [cell.strip() for cell in row.strip("|").split("|")][1:]
    by_release = dict(
        zip(
            sorted(set(versions.SUPPORTED) | set(results), key=versions.release_key),
            cells,
            strict=False,
        )
    )
    assert by_release["2.10.0"] == s["cell_failed"].format(failed=2, total=6)
    assert by_release["2.14.1"] == s["cell_skips"](1, passed=6)
    assert by_release["2.15.0"] == s["cell_passed"].format(passed=7)
    assert by_release["2.11.0"] == s["cell_not_run"]
    assert SAID[language] in text and "needs torch 2.15" in text
    assert "| 2.12.1 | " + s["not_run_yet"] in text
    assert "2.13.0" in text.splitlines()[0]  # the pinned release, from requirements.txt
    # The runs table: seven column names, one catalog entry each, in its language.
    lines = text.splitlines()
    head = lines[lines.index(f"## {s['runs_heading']}") + 2]
    assert head == HEADS[language] and lines[lines.index(head) + 1].count("|") == 8


HEADS = {
    "en": "| Release | torch build | Device | Date | Passed | Failed | Skipped |",
    "es": "| Versión | Compilación de torch | Dispositivo | Fecha | Pasan | Fallan "
    "| Se omiten |",
}


def test_a_bar_in_a_title_or_a_failure_is_shown_as_written_on_the_compatibility_page(
    project,
):
    """A | in a table cell is escaped, or it ends the cell; in a note's code it is
    not, or the reader sees the backslash."""
    import markdown

    error = "TypeError: unsupported operand type(s) for |: 'int' and 'str'"
    failure = {**FAILURE, "error": error}
    result = _result(project, "2.14.1", passed=4, failed=1, failures=[failure])
    results = {"2.14.1": versions.result_from(result, "2.14.1")}
    titles = {"en/demo.md": "Sets | unions"}
    text = compatibility.section("en", "en/compatibility.md", results, titles, project)
    html = markdown.markdown(text, extensions=["tables"])
    assert ">Sets | unions</a></td>" in html and f"<code>{error}</code>" in html


def test_the_compatibility_page_without_results_says_how_to_make_them(project):
    text = compatibility.section("es", "es/compatibility.md", {}, {}, project)
    assert "python -m ptdocs.versions run VERSIÓN" in text and "|" not in text


def test_a_run_older_than_the_page_shows_as_outdated_on_the_compatibility_page(project):
    results = {
        "2.14.1": versions.result_from(_result(project, "2.14.1", passed=6), "2.14.1")
    }
    (project / "docs" / "en" / "demo.md").write_text(
        '# Demo, edited\n\n```python\n--8<-- "snippets/demo.py:one"\n```\n'
    )
    text = compatibility.section(
        "en", "en/compatibility.md", results, {"en/demo.md": "Demo"}, project
    )
    row = next(
        line for line in text.splitlines() if line.startswith("| [Demo](demo.md)")
    )
    assert "outdated" in row and "6 pass" not in row
    assert compatibility.STRINGS["en"]["outdated_note"] in text


def test_the_command_needs_only_the_standard_library():
    """The workflow runs `python -m ptdocs.versions run` with a Python that has
    nothing installed (.github/workflows/site.yml): neither the module nor what its
    `run` imports may need a package."""
    refuse = (
        "import sys\nclass Refuse:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] not in sys.stdlib_module_names | "
        "{'ptdocs'}:\n"
        "            raise ImportError(f'not in the standard library: {name}')\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "import inspect, ptdocs.versions as v\n"
        "print(' '.join(line.strip() for line in "
        "inspect.getsource(v.run).splitlines() if 'import ' in line))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", refuse], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"run() imports as it runs: {done.stdout}"
