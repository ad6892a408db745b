"""Output that differs between torch releases: ``# >[torch>=2.14] TEXT``
(ptdocs/pages.py).

On a given release exactly the ``# >`` lines whose condition holds are expected; a
line without a condition is expected everywhere. These tests need no other torch: the
running release is replaced where a test needs another one
(``ptdocs.pages.torch_version``).
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
from helpers import page_failure, tiny_site, write_page
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ptdocs import catalog, pages
from ptdocs.downloads import TEXTS, Site, make_downloads, requirements
from ptdocs.output_check import OutputLine
from ptdocs.pages import output_line, prose_value_pairs, shown_output
from ptdocs.report import ExampleReport, failure_record
from ptdocs.snippets import ROOT

# Prints "old" or "new" as a release would; the test decides which release is running.
VARIANTS = """\
# --8<-- [start:variants]
from ptdocs import pages
print("always")
# > always
print("new" if pages.torch_version() >= pages.Version("2.14") else "old")
# >[torch<2.14] old
# >[torch>=2.14] new
# --8<-- [end:variants]
"""


@pytest.fixture
def site(tmp_path):
    """A tiny repository: mkdocs.yml's snippet settings, the pin, one snippet file."""
    return tiny_site(tmp_path, {"demo/variants.py": VARIANTS})


page = write_page


def running(monkeypatch, release: str) -> None:
    monkeypatch.setattr(pages, "torch_version", lambda: Version(release))


def demo_page(site, snippet="snippets/demo/variants.py:variants"):
    return page(site, "en/demo.md", f'# Demo\n\n```python\n--8<-- "{snippet}"\n```\n')


def snippet(site, name, code):
    (site / "snippets" / "demo" / name).write_text(code)


# ---------------------------------------------------------------- the form of a line


@pytest.mark.parametrize(
    "comment, text, releases",
    [
        ("# > tensor(6.)", "tensor(6.)", None),
        ("# > [1, 2]", "[1, 2]", None),  # output that starts with "["
        ("# >", "", None),
        ("# >  indented", " indented", None),  # one space is the separator
        ("# >[torch>=2.14] 0.0", "0.0", ">=2.14"),
        ("# >[torch >=2.11, <2.14] x", "x", ">=2.11,<2.14"),
        ("# >[torch<2.14]", "", "<2.14"),
        ("# >[torch<2.14]   aligned", "  aligned", "<2.14"),
    ],
)
def test_a_line_holds_everywhere_or_where_its_version_specifier_on_torch_says(
    comment, text, releases
):
    condition = releases and SpecifierSet(releases)
    assert output_line(comment) == OutputLine(text, condition)


@pytest.mark.parametrize(
    "comment, says",
    [
        ("# >[1, 2]", "cannot read the condition [1, 2]"),
        ("# >[numpy>=2.0] x", "may only name torch releases"),
        ("# >[torch] x", "names no releases"),
        ("# >[torch>=2.14]x", "put a space between the condition and the output"),
        ("# >[torch>=2.14 x", "closed by ']'"),
        ("# >[torch>=9] x", "holds for none of the supported torch releases"),
        ("# >[torch>=2.14; python_version>'3'] x", "may only name torch releases"),
        ("# >[torch=>2.14] x", "cannot read the condition [torch=>2.14]"),
    ],
)
def test_a_malformed_condition_is_refused_in_one_line(comment, says):
    with pytest.raises(ValueError) as error:
        output_line(comment)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_malformed_condition_names_the_snippet_file_and_line(site):
    bad = "snippets/demo/bad.py"
    snippet(site, "bad.py", 'print("x")\n# >[torch=>2.14] x\n')
    failure = page_failure(site, demo_page(site, bad))
    assert failure is not None
    line = next(line for line in str(failure).splitlines() if bad in line)
    assert line.startswith(f"{bad}, line 2 (shown on docs/en/demo.md, line 3): ")
    assert "cannot read the condition [torch=>2.14]" in line


def test_condition_lines_are_program_output_never_translated():
    source = "# Shown on each release.\nprint(1)\n# >[torch<2.14] 1\n# > 1\n"
    assert [c.msgid for c in catalog.comments(source)] == ["Shown on each release."]


# ---------------------------------------------------------------- selection by release


OLD, NEW = ["2.13.0", "2.13.0+cpu"], ["2.14.1", "2.15.0+cu132", "2.16.0.dev20261201"]


@pytest.mark.parametrize(
    "release, printed", [(r, "old") for r in OLD] + [(r, "new") for r in NEW]
)
def test_each_release_expects_the_lines_and_prose_values_whose_condition_holds(
    site, monkeypatch, release, printed
):
    running(monkeypatch, release)
    assert page_failure(site, demo_page(site)) is None
    assert shown_output(VARIANTS, release) == ["always", printed]
    assert page_failure(site, page(site, "en/prose.md", PROSE)) is None  # PROSE: below


CALL = '"new" if pages.torch_version() >= pages.Version("2.14") else "old"'


def test_a_line_of_another_release_is_not_accepted(site, monkeypatch):
    """The snippet prints "old" on every release; on 2.14.1 "new" is expected."""
    snippet(site, "variants.py", VARIANTS.replace(CALL, '"old"'))
    running(monkeypatch, "2.13.0")
    assert page_failure(site, demo_page(site)) is None
    running(monkeypatch, "2.14.1")
    failure = str(page_failure(site, demo_page(site)))
    assert (
        "line 5 (shown on docs/en/demo.md, line 3): what this prints differs from the "
        "# > lines below it (those for torch 2.14.1)" in failure
    )
    assert "--- shown on the page\n    new\n+++ printed when run\n    old\n" in failure


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(("# > always", "# > Always"), id="an unconditioned line"),
        pytest.param(("[torch<2.14] old", "[torch<2.14] olde"), id="its variant"),
        pytest.param(("[torch<2.14] old", "[torch<2.13] old"), id="one line too many"),
        pytest.param(("# >[torch<2.14] old\n", ""), id="no variant for it"),
        pytest.param((f"print({CALL})", "None"), id="not printed"),
    ],
)
def test_the_pinned_release_is_checked_as_strictly_as_before(site, monkeypatch, broken):
    running(monkeypatch, requirements(ROOT)["torch"])
    assert page_failure(site, demo_page(site)) is None
    snippet(site, "variants.py", VARIANTS.replace(*broken))
    assert page_failure(site, demo_page(site)) is not None


def test_the_real_examples_run_on_the_pinned_release_and_fail_when_its_line_is_wrong(
    site,
):
    """With the torch installed here (the pin), a wrong variant for this release
    fails, and the other release's variant is not what is checked."""
    assert pages.torch_version().public == requirements(ROOT)["torch"]
    kinks = (ROOT / "snippets" / "autograd" / "kinks.py").read_text()
    here, there = (f"# >[torch{c}] clamp(x, min=0): " for c in ("<2.14", ">=2.14"))
    assert here + "1.0" in kinks
    # The statement whose output is checked: the failure names its line.
    line = kinks.split("\n").index("for name, fn in ways.items():") + 1
    for old, new, fails in [
        ("", "", False),
        (here + "1.0", here + "0.0", True),
        (there + "0.0", there + "9.0", False),
    ]:
        snippet(site, "kinks.py", kinks.replace(old, new) if old else kinks)
        failure = page_failure(site, demo_page(site, "snippets/demo/kinks.py:kinks"))
        assert (failure is not None) == fails, (old, new, failure)
        assert not fails or f"snippets/demo/kinks.py, line {line}" in str(failure)


# ---------------------------------------------------------------- prose values


PROSE = """\
# Demo

```python
--8<-- "snippets/demo/variants.py:variants"
```

<!-- prose-values: [torch<2.14] len("x") -> 1; [torch>=2.14] len("xx") -> 2 -->
Up to torch 2.13 it is 1; from 2.14 on, 2.
"""


def test_a_prose_value_with_a_condition_is_evaluated_only_on_those_releases():
    first, second = prose_value_pairs('[torch<2.14] len("x") -> 1; len("y") -> 1')
    assert first.condition == SpecifierSet("<2.14") and second.condition is None
    assert (first.expression, first.text) == ('len("x")', "1")
    # A list is still an expression: only "[torch" and an operator make a condition.
    assert prose_value_pairs("[1, 2][0] -> 1")[0].expression == "[1, 2][0]"
    with pytest.raises(ValueError, match="holds for none of the supported"):
        prose_value_pairs("[torch>=9] x -> 1")


X, XX = ('len("x") -> 1', 'len("x") -> 3'), ('len("xx") -> 2', 'len("xx") -> 3')
TWO = ("from 2.14 on, 2.", "from 2.14 on, two.")


@pytest.mark.parametrize(
    "release, broken, says",
    [
        # the release's own pair is evaluated: a wrong value fails
        ("2.13.0", X, 'the prose says 3 for len("x"), the code gives 1'),
        ("2.14.1", XX, 'the prose says 3 for len("xx"), the code gives 2'),
        # the other release's pair is not evaluated, but the prose must state its value
        ("2.13.0", TWO, "'2' (len(\"xx\"), on torch >=2.14) does not appear"),
    ],
)
def test_a_wrong_prose_value_fails_on_its_release(
    site, monkeypatch, release, broken, says
):
    running(monkeypatch, release)
    failure = page_failure(site, page(site, "en/prose.md", PROSE.replace(*broken)))
    assert failure is not None and says in str(failure)


# ---------------------------------------------------------------- the downloads


# As a reader's download runs it: no ptdocs, only the installed torch's version.
READER = """\
from importlib.metadata import version

print("always")
# > always
release = tuple(map(int, version("torch").split("+")[0].split(".")[:2]))
print("new" if release >= (2, 14) else "old")
# >[torch<2.14] old
# >[torch>=2.14] new
"""


def test_the_downloads_print_what_the_page_expects_here(site, tmp_path_factory):
    snippet(site, "reader.py", READER)
    path = demo_page(site, "snippets/demo/reader.py")
    assert page_failure(site, path) is None
    downloads = make_downloads(path, Site("", "en", {"en": "Demo"}), site)
    assert TEXTS["en"]["output_versions"] in downloads.notebook.cells[0].source
    assert TEXTS["en"]["output_versions"] in downloads.script
    # The download keeps every variant with its condition, as the page shows it.
    assert "# >[torch<2.14] old\n# >[torch>=2.14] new" in downloads.script
    folder = tmp_path_factory.mktemp("reader")
    (folder / "demo.py").write_text(downloads.script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "demo.py"], cwd=folder, capture_output=True, check=True
    )
    (example,) = downloads.examples
    expected = shown_output(example.code)
    *printed, said = run.stdout.decode().splitlines()
    assert printed == expected
    # ...and the download's check says so.
    assert said.startswith("✓ 2 of 2 outputs match the page")
    release = "old" if pages.torch_version() < Version("2.14") else "new"
    assert expected == ["always", release]


def test_a_page_without_conditions_does_not_explain_them(site):
    snippet(site, "plain.py", 'print("x")\n# > x\n')
    path = demo_page(site, "snippets/demo/plain.py")
    downloads = make_downloads(path, Site("", "en", {"en": "Demo"}), site)
    assert TEXTS["en"]["output_versions"] not in downloads.script


# ---------------------------------------------------------------- the report records

FAILS = "snippets/demo/fails.py"
ANSWER = "<!-- prose-values: n -> 4 -->\nThe answer is 4.\n"


@pytest.mark.parametrize(
    "code, prose, kind, fields",
    [
        ('print("a")\n# > b\n# > c\n', "", "output", {"file": FAILS, "line": 1}),
        ('print("a")\n# > b\n# > c\n', "", "output", {"shown": "b", "printed": "a"}),
        ("x = 1\n# > b\n", "", "output", {"shown": "b", "printed": None}),
        ('raise ValueError("no")\n', "", "exception", {"error": "ValueError: no"}),
        ('raise ValueError("no")\n', "", "exception", {"file": FAILS}),
        ("n = 3\n", ANSWER, "value", {"file": "docs/en/fails.md", "said": "4"}),
        ("n = 3\n", ANSWER, "value", {"expression": "n", "got": "3"}),
    ],
)
def test_the_report_records_each_kind_of_failure_as_the_pages_made_it(
    site, code, prose, kind, fields
):
    """ptdocs.pages makes each failure as data, and the report's own pytest hook
    carries it with the test's report to the file the stamps read; nothing reads it
    back out of the words. Real failures, not copies."""
    snippet(site, "fails.py", code)
    body = f'# Fails\n\n```python\n--8<-- "{FAILS}"\n```\n\n{prose}'
    failure = page_failure(site, page(site, "en/fails.md", body))
    assert failure is not None
    report = SimpleNamespace(user_properties=[])
    hook = ExampleReport(site).pytest_runtest_makereport(
        None, SimpleNamespace(excinfo=SimpleNamespace(value=failure))
    )
    next(hook)
    with pytest.raises(StopIteration):
        hook.send(SimpleNamespace(get_result=lambda: report))
    record = failure_record(report)
    assert record["kind"] == kind, record
    assert {key: record[key] for key in fields} == fields, record
