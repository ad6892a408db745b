"""The rules a download carries (ptdocs/output_check.py): the page tests' own, with
nothing but the standard library, and a download that prints something else says
which line and fails."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
import urllib.parse
from types import SimpleNamespace

import mkdocs.config
import nbformat
import pytest
from nbclient import execute
from nbclient.exceptions import CellExecutionError
from packaging.specifiers import SpecifierSet

from ptdocs import output_check, pages
from ptdocs.downloads import CHECK_TEXTS, Site, check_cells, make_downloads
from ptdocs.snippets import ROOT
from ptdocs.versions import SUPPORTED

MODULE = ROOT / "ptdocs" / "output_check.py"

# A reader's builds: local (+cpu), nightly (.dev), pre- and post-releases, short forms.
BUILDS = [
    *SUPPORTED,
    *"2.13 2.13.0+cpu 2.13.0+cu128 2.13.1 2.13.0rc2 2.13.0.post1".split(),
    *"2.13.0.post1.dev2 2.14.0.dev20260101+cu128 2.14.0a0+git1234 2.14.0rc1".split(),
    *"2.14.0 2.14.0.post1 3.0.0.dev1".split(),
]
SPECIFIERS = (
    "<2.14 >=2.14 ==2.13.0 !=2.13.0 >2.13 <=2.13 >=2.11,<2.14 ==2.13 >2.13.0 <2.13"
    " ~=2.13 ~=2.13.0 >=2.12.1 <=2.14.0 >2.14"
).split()


def conditions_in_the_snippets() -> set[str]:
    found = set()
    for snippet in (ROOT / "snippets").rglob("*.py"):
        code = snippet.read_text(encoding="utf-8")
        for (number, _), line in pages.output_comments(code):
            if line.condition is not None:
                # A line no supported release prints would never be checked.
                assert any(map(line.holds, SUPPORTED)), f"{snippet}:{number}"
                found.add(str(line.condition))
    return found


def test_a_release_condition_holds_where_pip_says_it_does():
    specifiers = sorted(set(SPECIFIERS) | conditions_in_the_snippets())
    # The snippets' own conditions are among those checked.
    assert len(specifiers) > len(SPECIFIERS)
    for specifier in specifiers:
        for build in BUILDS:
            pip = SpecifierSet(specifier).contains(build, prereleases=True)
            ours = output_check.release_holds(specifier, build)
            assert ours == pip, (specifier, build)


def test_the_downloads_read_a_condition_as_the_pages_do():
    assert output_check.read_releases("torch >=2.11, <2.14") == ">=2.11,<2.14"
    with pytest.raises(ValueError, match="version comparisons"):
        output_check.read_releases("torch>=2.14.*")
    # A condition packaging reads but the downloads could not is refused on the page.
    only = "a downloaded page checks its output with that form only"
    with pytest.raises(ValueError, match=only):
        pages.output_line("# >[torch===2.13.0] x")


def test_the_module_needs_only_the_standard_library():
    imported = set()
    for node in ast.walk(ast.parse(MODULE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names), imported
    # And it runs so: -S leaves site-packages (torch, packaging, ptdocs) off the path.
    code = f"exec(open({str(MODULE)!r}).read())"
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True)
    assert done.returncode == 0, done.stderr


def test_no_line_of_the_module_reads_as_an_output_line():
    # A download holds this code: an output line in it would be checked as the lesson's.
    assert output_check.output_comments(MODULE.read_text(encoding="utf-8")) == []


def check(source: str, writes: list[tuple[int, str]], release="2.13.0"):
    """``check`` of one run of ``source`` that printed ``writes`` (line, text)."""
    return output_check.check([(source, writes, None)], release)


def test_each_statement_is_compared_with_its_own_lines():
    source = "print(1)\n# > 1\nx = 2\nprint(x)\n# > 2\nprint(3)\n"
    results, skipped = check(source, [(1, "1\n"), (4, "5\n"), (6, "3\n")])
    assert skipped == []
    assert [(r.line, r.code, r.wanted, r.printed, r.ok) for r in results] == [
        (1, "print(1)", ["1"], "1\n", True),
        (4, "print(x)", ["2"], "5\n", False),
        (6, "print(3)", [], "3\n", False),  # the page shows nothing for it
    ]


def test_a_line_holds_on_the_releases_its_condition_names():
    source = "print('x')\n# >[torch<2.14] old\n# >[torch>=2.14] new\n"
    for release, ok in (("2.13.0+cpu", False), ("2.14.1", True)):
        assert check(source, [(1, "new\n")], release)[0][0].ok is ok


def test_a_skipped_example_counts_as_skipped_and_its_else_is_checked_where_it_runs():
    source = "if GONE:\n    print('Skipped: needs a GPU')\nelse:\n"
    source += "    print('a')\n    # > a\n    print('b')\n    # > b\n"
    assert check(source, [(2, "Skipped: needs a GPU\n")]) == ([], ["needs a GPU"])
    results, skipped = check(source, [(4, "a\n"), (6, "c\n")])
    assert skipped == []
    assert [(r.line, r.ok) for r in results] == [(4, True), (6, False)]


SKIPPED = "if a:\n    print('Skipped: r')\nelse:\n    print(2)\n"
OWN_LINE = (
    "put # > output on a line of its own after the whole statement, in line with its "
    "first line, not after code"
)
HEAD = (
    "^put the # > output of a skipped example in its else, under the statement it "
    "shows, not between the if and the else's first statement$"
)


# Each: code, the line refused, what the page's tests say, the cause a download says.
REFUSED = [
    ("for x in y:\n    print(x)\n    # > 1\n", 3, "in line with its first", "indent"),
    ("x = (1,\n# > 2\n 3)\n", 2, "after the whole statement, not inside", "inside"),
    ("for x in y:\n    # > 1\n    print(x)\n", 2, "not inside it", "inside"),
    ("print(1)  # > 1\n", 1, f"^{OWN_LINE}$", "trailing"),
    ("x = (1,  # > 2\n 3)\n", 1, f"^{OWN_LINE}$", "trailing"),
    ("# > a\nprint(1)\n", 1, "before any statement", "before"),
    ("    # > a\nprint(1)\n", 1, "before any statement", "before"),
    (SKIPPED + "# > 2\n", 5, "output of a skipped example inside its else", "skipped"),
    (SKIPPED + "  # > 2\n", 5, "in line with its first line", "indent"),
    # Above the example's statements: by the print saying why it is skipped, or under
    # its else:, at any indentation, after another statement or not.
    (SKIPPED.replace("else", "    # > Skipped: r\nelse"), 3, HEAD, "skip_head"),
    ("x = 1\n" + SKIPPED.replace("else", "# > r\nelse"), 4, HEAD, "skip_head"),
    ("x = 1\n" + SKIPPED.replace("else:", "else:\n    # > 2"), 5, HEAD, "skip_head"),
    (SKIPPED.replace("else:", "else:\n# > 2"), 4, HEAD, "skip_head"),
    ("if a:  # > 2\n" + SKIPPED.partition("\n")[2], 1, OWN_LINE, "trailing"),
    ("print(1)\n# >[torch 2.14] 1\n", 2, "not torch and version", "condition"),
    ("print(1)\n# >[1, 2\n", 2, "closed by ']'", "condition"),
    ("print(1)\n# >[torch>=2.14]1\n", 2, "put a space", "condition"),
]


@pytest.mark.parametrize("source, line, says, kind", REFUSED)
def test_an_output_line_out_of_place_is_refused_at_its_line(source, line, says, kind):
    with pytest.raises(output_check.OutputError, match=says) as error:
        check(source, [])
    assert (error.value.lineno, error.value.kind) == (line, kind)


TEXTS = {
    "match": "✓ {ok} of {total} ({torch}, {device})",
    "none": "✓ none ({torch}, {device})",
    "differ": "✗ {bad} of {total} ({torch}, {device})",
    "skipped": (("; one: {reasons}", "; {n}: {reasons}"), "(n != 1)"),
    "where": "Line {line}: {code}",
    "where_cell": "Cell [{cell}], line {line}: {code}",
    "page": "page:",
    "printed": "here:",
    "nothing": "(nothing)",
}


def test_the_report_ends_with_one_line():
    good = output_check.Checked(1, None, "print(1)", ["1"], "1\n")
    bad = output_check.Checked(4, None, "print(x)", ["2"], "")
    said = output_check.report([good], ["a GPU", "a GPU"], TEXTS, "2.13.0", "CPU")
    assert said == (True, ["✓ 1 of 1 (2.13.0, CPU); 2: a GPU"])
    said = output_check.report([], ["a GPU"], TEXTS, "2.13.0", "CPU")
    assert said == (True, ["✓ none (2.13.0, CPU); one: a GPU"])  # not "0 of 0"
    said = output_check.report([good, bad], [], TEXTS, "2.13.0", "CPU")
    where = ["Line 4: print(x)", "    page:", "        # > 2", "    here:"]
    assert said == (False, [*where, "        (nothing)", "✗ 1 of 2 (2.13.0, CPU)"])


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("source, line, says, kind", REFUSED)
def test_an_output_line_out_of_place_is_reported_with_its_cause_at_its_cell(
    capsys, language, source, line, says, kind
):
    runs = [("x = 1\n", [], 2), (source, [], 3)]
    recorder = SimpleNamespace(stop=lambda: runs, shell=None)
    texts = CHECK_TEXTS[language]
    with pytest.raises(SystemExit):
        output_check.finish(recorder, texts, "https://github.com/o/r", {})
    said = capsys.readouterr().out.splitlines()
    code = source.splitlines()[line - 1].strip()
    at = texts["where_cell"].format(cell=3, line=line, code=code)
    assert said == [at, texts[f"output_{kind}"]]


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_condition_a_download_tells_to_write_is_read(language):
    said = CHECK_TEXTS[language]["output_condition"]
    example = re.search(r"`(# >\[[^`]*)`", said)[1]
    assert output_check.output_line(example).condition == ">=2.14,<2.16"


@pytest.mark.parametrize("language", ["en", "es"])
def test_nothing_to_compare_where_no_line_holds_on_this_release(language):
    """The page shows no output for this release: the check says so, not '0 of 0'."""
    results, skipped = check("print('x')\n# >[torch>=2.14] x\n", [], "2.13.0")
    texts = CHECK_TEXTS[language]
    ok, lines = output_check.report(results, skipped, texts, "2.13.0", "CPU")
    assert ok and lines[-1] == texts["none"].format(torch="2.13.0", device="CPU")


def test_a_report_link_fills_the_forms_fields_and_stays_short():
    url = output_check.issue_url(
        "https://github.com/o/r/", {"page": "p", "saw": "x" * 5000, "commit": ""}
    )
    address, _, query = url.partition("?")
    assert address == "https://github.com/o/r/issues/new"
    fields = dict(urllib.parse.parse_qsl(query))
    assert fields["template"] == output_check.TEMPLATE and fields["page"] == "p"
    assert "commit" not in fields and len(fields["saw"]) == output_check.FIELD_LIMIT
    assert (ROOT / ".github" / "ISSUE_TEMPLATE" / output_check.TEMPLATE).is_file()


# ---------------------------------------------------------------- a reader edits a page


@pytest.fixture(scope="module")
def autograd():
    site = Site.from_config(mkdocs.config.load_config(str(ROOT / "mkdocs.yml")))
    return make_downloads(ROOT / "docs" / "en" / "autograd.md", site, ROOT)


WRONG = ("print(x.grad)\n# > tensor(6.)\n", "print(x.grad + 1)\n# > tensor(6.)\n")


def test_a_script_edited_to_print_a_wrong_value_says_which_line_and_fails(
    autograd, tmp_path, script_runner
):
    script = tmp_path / autograd.script_name
    script.write_text(autograd.script.replace(*WRONG, 1), encoding="utf-8")  # the first
    run = script_runner.run(script.name, timeout=300, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    line = autograd.script.splitlines().index("print(x.grad)") + 1
    at = lines.index(f"Line {line}: print(x.grad + 1)")
    shows = ["    the page shows:", "        # > tensor(6.)"]
    assert lines[at + 1 : at + 5] == [*shows, "    printed here:", "        tensor(7.)"]
    link = lines[-2].removeprefix("Report it, with these differences filled in: ")
    fields = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    assert fields["expected"] == "print(x.grad + 1)\n# > tensor(6.)"
    assert fields["saw"] == "print(x.grad + 1)\ntensor(7.)"
    assert fields["language"] == "en" and fields["page"].endswith("/autograd/")
    assert fields["environment"].startswith("torch 2.13.0")
    assert lines[-1].startswith("✗ 1 of ")
    assert " outputs differ from the page (torch " in lines[-1]


def test_a_notebook_edited_to_print_a_wrong_value_fails_its_last_cell(
    autograd, tmp_path
):
    notebook = nbformat.reads(autograd.notebook_text, as_version=4)
    cell = next(cell for cell in notebook.cells if WRONG[0] in cell.source)
    cell.source = cell.source.replace(*WRONG, 1)
    kernel = {"kernel_name": "python3", "shutdown_kernel": "immediate"}
    with pytest.raises(CellExecutionError) as error:
        execute(notebook, str(tmp_path), timeout=300, **kernel)
    last = [cell for cell in notebook.cells if cell.cell_type == "code"][-1]
    said = "".join(output.get("text", "") for output in last.outputs)
    shows = "line 10: print(x.grad + 1)\n    the page shows:\n        # > tensor(6.)\n"
    assert shows in said
    # The line that sums up is the error's, and said once.
    assert error.value.ename == "OutputsDiffer"
    assert error.value.evalue.startswith("✗ 1 of ") and "✗" not in said


def test_the_cells_a_download_carries_are_code_only_and_fit_88_columns():
    for cell in check_cells("finish()"):
        assert "Recorder(globals())" in cell or cell.endswith("finish()")
        long = [line for line in cell.splitlines() if len(line) > 88]
        assert long == [], long
        # No English prose in a Spanish download: the Markdown cell above explains it.
        tokens = tokenize.generate_tokens(io.StringIO(cell).readline)
        comments = [t.string for t in tokens if t.type == tokenize.COMMENT]
        assert comments == [], comments
        assert not any(
            isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
            for node in ast.walk(ast.parse(cell))
            if isinstance(node, (ast.ClassDef, ast.FunctionDef))
        )
