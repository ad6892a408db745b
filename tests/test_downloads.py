"""Every guide page's notebook and script runs and misses no example, in every language.

The downloads are generated as the build generates them (ptdocs/downloads.py). The
English ones run the way a reader runs a downloaded file: alone in an empty folder,
the notebook with nbclient, the script with ``python``. Both must print exactly the
``# >`` lines the page shows (or ``Skipped: <reason>`` for an example the page skips
here), and the asserts in the code are the page's analytical checks. Each ends with its
own check's line (ptdocs/output_check.py), which must say that every output matched; a
download edited to print something else must say which line differs and fail.

The other languages' downloads are not run again: their code must be the English
twin's, character for character (comments aside, which may be translated; a skip
reason is the page's prose, so only its text may differ), and so must what the page
says they print. Running the English ones therefore checks theirs too.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path
from types import SimpleNamespace

import mkdocs.config
import nbformat
import pytest
from mkdocs.structure.files import File
from nbclient import execute

from ptdocs import catalog, output_check
from ptdocs.downloads import (
    CHECK_TEXTS,
    SETUP_NAMES,
    DownloadError,
    Site,
    _code_only,
    cell_code,
    check_call,
    check_cells,
    guide_pages,
    make_downloads,
    prose_cells,
)
from ptdocs.output_check import shown
from ptdocs.pages import PYTHON, _expected_outputs, torch_version
from ptdocs.pages import shown_output as page_output  # the # > lines that hold here
from ptdocs.snippets import ROOT, expand
from ptdocs.translations import outline

PAGES = guide_pages(ROOT)
RUN_LANGUAGE = "en"  # its downloads run; the other languages' must hold the same code
TIMEOUT = 600  # seconds for one download; the measuring page's benchmarks take longest


def english_twin(page):
    """The same page in the language whose downloads run."""
    _language, *inside = page.relative_to(ROOT / "docs").parts
    return ROOT.joinpath("docs", RUN_LANGUAGE, *inside)


def _id(page) -> str:
    return page.relative_to(ROOT / "docs").as_posix()


# A page without an English twin has nothing to be compared with: its downloads run.
RUN = [p for p in PAGES if english_twin(p) == p or english_twin(p) not in PAGES]
TWINS = [page for page in PAGES if page not in RUN]
_made = {}


@pytest.fixture(scope="module")
def site():
    return Site.from_config(mkdocs.config.load_config(str(ROOT / "mkdocs.yml")))


def downloads_of(page, site):
    if page not in _made:
        _made[page] = make_downloads(page, site, ROOT)
    return _made[page]


def code_cells_of(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def read_notebook(downloads):
    """The notebook as a reader gets it: read back from its text."""
    return nbformat.reads(downloads.notebook_text, as_version=4)


# ---------------------------------------------------------------- what the page holds


def page_include_targets(page) -> list[str]:
    """The include lines of the page's Python blocks, in page order, as markdown-it
    reads them (independently of the Sybil parse the generator uses)."""
    blocks = outline(page.read_text(encoding="utf-8")).blocks
    return [t for b in blocks if b.language in PYTHON for t, _ in b.includes]


def missing_examples(targets, code_cells, language="en") -> list[str]:
    """The targets whose code, with its comments in ``language``, is not in the
    cells, in order (indentation aside: a skipped example is indented under its
    ``else``)."""

    def lines(text):
        return [line.strip() for line in text.splitlines() if line.strip()]

    have = lines("\n".join(code_cells))
    missing, position = [], 0
    for target in targets:
        want = lines("\n".join(expand(target, ROOT, language).shown))
        starts = range(position, len(have) - len(want) + 1)
        found = next((s for s in starts if have[s : s + len(want)] == want), None)
        if found is None:
            missing.append(target)
        else:
            position = found + len(want)
    return missing


def setup_namespace():
    """SETUP_NAMES evaluated as a download evaluates them."""
    scope, namespace = {}, {}
    for name, (imports, expression) in SETUP_NAMES.items():
        exec(imports, scope)
        namespace[name] = eval(expression, scope)
    return namespace


def check_line(downloads, ran: int) -> re.Pattern:
    """A download's last line, in its language, when its ``ran`` outputs all match."""
    pattern = re.escape(CHECK_TEXTS[downloads.language]["match" if ran else "none"])
    fields = dict(ok=str(ran), total=str(ran), torch="[^,()]+", device="[^,()]+")
    for name, value in fields.items():
        pattern = pattern.replace(re.escape("{" + name + "}"), value)
    return re.compile(pattern + r"(; .*)?")


def statements_that_print(example) -> int:
    """How many statements of an example print something here: what the check counts."""
    expected = _expected_outputs(example.code, ast.parse(example.code).body)
    return sum(1 for lines in expected if shown(lines, torch_version()))


def outputs_checked(downloads, printed) -> int:
    """The outputs a download's check compares here: those of examples not skipped."""
    return sum(
        statements_that_print(example)
        for example, lines in zip(downloads.examples, printed, strict=False)
        if not (
            example.skip
            and lines == expected_output(example, lines)
            and lines == [f"Skipped: {example.skip.reason}"]
        )
    )


def expected_output(example, printed: list[str]) -> list[str]:
    """What one example prints here: its ``# >`` lines, or the skip reason."""
    skipped = [f"Skipped: {example.skip.reason}"] if example.skip else None
    if skipped:
        try:
            if eval(example.skip.condition, setup_namespace()):
                return skipped
        # The condition uses a name of the page's code: either may be right.
        except NameError:
            if printed[:1] == skipped:
                return skipped
    return page_output(example.code)


# ---------------------------------------------------------------- the tests


def test_the_guide_pages_are_found_in_every_language():
    languages = {path.name for path in (ROOT / "docs").iterdir() if path.is_dir()}
    assert PAGES, "no page with Python blocks under docs/"
    assert {page.relative_to(ROOT / "docs").parts[0] for page in PAGES} == languages


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_the_downloads_hold_every_example_of_the_page(page, site):
    downloads = downloads_of(page, site)
    targets = page_include_targets(page)
    assert targets, f"{page}: no include in its Python blocks"
    cells = [cell.source for cell in code_cells_of(downloads.notebook)]
    for kind, code in [("notebook", cells), ("script", [downloads.script])]:
        missing = missing_examples(targets, code, downloads.language)
        assert missing == [], f"the {kind} misses examples of the page"
    includes = [i.target for example in downloads.examples for i in example.includes]
    assert includes == targets


def test_a_download_that_misses_an_example_is_noticed(site):
    downloads = downloads_of(PAGES[0], site)
    targets = page_include_targets(PAGES[0])
    cells = [cell.source for cell in code_cells_of(downloads.notebook)]
    # Without the last example's cell, the one before the check's.
    without_last = cells[:-2] + cells[-1:]
    last = targets[-len(downloads.examples[-1].includes) :]
    assert missing_examples(targets, without_last) == last
    gradient = "snippets/home/first_gradient.py:gradient"
    assert missing_examples([gradient], ["import torch"]) == [gradient]


@pytest.mark.parametrize("page", RUN, ids=_id)
def test_the_notebook_runs_alone_and_prints_what_the_page_shows(page, site, tmp_path):
    downloads = downloads_of(page, site)
    notebook = read_notebook(downloads)
    # "immediate" kills the kernel (and its process group) once every cell has replied:
    # the outputs are all in by then, and a graceful stop only waits ~2 s for the
    # interpreter (torch loaded) to exit. The script's run checks a clean exit.
    kernel = {"kernel_name": "python3", "shutdown_kernel": "immediate"}
    execute(notebook, str(tmp_path), timeout=TIMEOUT, startup_timeout=TIMEOUT, **kernel)
    cells = code_cells_of(notebook)
    *example_cells, check = cells[len(cells) - len(downloads.examples) - 1 :]
    printed_by = []
    for example, cell in zip(downloads.examples, example_cells, strict=True):
        printed = "".join(
            output.text
            for output in cell.outputs
            if output.output_type == "stream" and output.name == "stdout"
        ).splitlines()
        printed_by.append(printed)
        assert printed == expected_output(example, printed), (
            f"{page}: the notebook cell of line {example.line} prints something else"
        )
    said = "".join(o.text for o in check.outputs if o.output_type == "stream").strip()
    ran = outputs_checked(downloads, printed_by)
    assert check_line(downloads, ran).fullmatch(said), said


def installed_by(downloads) -> list[str]:
    """What the download's first cell says to install (``pip install ...``)."""
    found = re.search(r"`pip install ([^`]+)`", downloads.notebook.cells[0].source)
    assert found, "the download says what to install"
    return found[1].split()


def test_a_fresh_environment_holds_only_what_is_installed_in_it(fresh_python, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib.util, sys\n"
        "print(sys.prefix != sys.base_prefix, [name for name in "
        "('torch', 'yaml', 'packaging', 'nbformat', 'pytest', 'ptdocs', 'numpy') "
        "if importlib.util.find_spec(name)])\n"
    )
    run = fresh_python(["torch==2.13.0"])(probe, tmp_path, 120)
    assert run.stdout == "True ['torch']\n", run.stderr


@pytest.mark.parametrize("page", RUN, ids=_id)
def test_the_script_runs_alone_and_prints_what_the_page_shows(
    page, site, tmp_path, fresh_python
):
    downloads = downloads_of(page, site)
    script = tmp_path / downloads.script_name
    script.write_text(downloads.script, encoding="utf-8")
    # As `python <script>` in that folder, in a fresh virtual environment that holds
    # only what the download says to install (tests/conftest.py).
    run = fresh_python(installed_by(downloads))(script.name, tmp_path, TIMEOUT)
    assert run.returncode == 0, f"{downloads.script_name} failed:\n{run.stderr[-3000:]}"
    printed, expected, printed_by = run.stdout.splitlines(), [], []
    for example in downloads.examples:
        printed_by.append(expected_output(example, printed[len(expected) :]))
        expected += printed_by[-1]
    *printed, said = printed
    assert printed == expected
    ran = outputs_checked(downloads, printed_by)
    assert check_line(downloads, ran).fullmatch(said), said


# ---------------------------------------------------------------- the other languages


def code_of(source: str) -> str:
    """The code of some Python source: what must not differ between languages.

    Comments are dropped (tokenize finds them, so a ``#`` in a string stays), with the
    spaces before them and the lines they leave blank: a later change translates the
    comments of the Spanish downloads, and those are prose. The ``# >`` lines stay: they
    are the output the English run checks. Everything else stays as written, blank
    lines inside a string included. Lines end at ``\\r`` too, as Python reads them.
    """
    lines = io.StringIO(source, newline=None).readlines()
    comments, in_string = {}, set()  # row -> column of its comment; rows in a string
    for token in tokenize.generate_tokens(iter(lines).__next__):
        if token.type == tokenize.COMMENT and not token.string.startswith("# >"):
            comments[token.start[0]] = token.start[1]
        elif token.start[0] < token.end[0]:
            in_string.update(range(token.start[0] + 1, token.end[0] + 1))
    kept = []
    for row, line in enumerate(lines, start=1):
        if row in comments:
            line = line[: comments[row]].rstrip() + "\n"
        if line.strip() or row in in_string:
            kept.append(line)
    return "".join(kept)


def notebook_code(downloads) -> list[str]:
    return [code_of(cell.source) for cell in code_cells_of(read_notebook(downloads))]


def script_code(downloads) -> str:
    # The script's Markdown (jupytext "# %% [markdown]" cells) is comments: dropped too.
    return code_of(downloads.script)


def shown_output(downloads) -> list:
    """What the page says each example prints: skip (reason aside), ``# >`` lines."""
    return [
        (e.skip and (e.skip.condition, e.skip.names), page_output(e.code))
        for e in downloads.examples
    ]


def in_language_of(other, english):
    """English code -> the same with the other page's skip reasons, which are its prose
    and are printed by the code (``print('Skipped: <reason>')``)."""
    reasons = [
        (repr("Skipped: " + ours.skip.reason), repr("Skipped: " + theirs.skip.reason))
        for ours, theirs in zip(english.examples, other.examples, strict=False)
        if ours.skip and theirs.skip
    ]
    # The check's call: its texts and the report's page and language are the page's own.
    reasons.append(
        tuple(d.check[d.check.rindex("finish(") :] for d in (english, other))
    )

    def translate(code: str) -> str:
        for ours, theirs in reasons:
            code = code.replace(ours, theirs)
        return code

    return translate


@pytest.mark.parametrize("page", TWINS, ids=_id)
def test_the_downloads_show_the_output_of_the_english_ones(page, site):
    """The same output, line for line, but for the lines the catalog translates (the
    project's own text that the code prints, checked in that language by the page's
    tests)."""
    english, other = downloads_of(english_twin(page), site), downloads_of(page, site)
    translated = catalog.line_translations(other.language, "output")
    theirs, ours = shown_output(english), shown_output(other)
    assert [skip for skip, _ in ours] == [skip for skip, _ in theirs]
    for (_, lines_en), (_, lines_other), example in zip(
        theirs, ours, other.examples, strict=True
    ):
        assert len(lines_other) == len(lines_en), f"{page}, line {example.line}"
        pairs = zip(lines_en, lines_other, strict=False)
        stray = [(a, b) for a, b in pairs if a != b and (a, b) not in translated]
        assert not stray, (
            f"{page}, line {example.line}: output the catalog does not translate so"
        )


@pytest.mark.parametrize("page", TWINS, ids=_id)
def test_the_downloads_hold_the_code_of_the_english_ones(page, site):
    english, other = downloads_of(english_twin(page), site), downloads_of(page, site)
    translate = in_language_of(other, english)
    cells = [translate(code) for code in notebook_code(english)]
    assert len(notebook_code(other)) == len(cells)
    strings = catalog.line_translations(other.language, "string")
    for theirs, ours in [
        *zip(cells, notebook_code(other), strict=False),
        (translate(script_code(english)), script_code(other)),
    ]:
        # The code the English run runs, but for the strings the catalog translates.
        assert catalog.code_tokens(ours) == catalog.code_tokens(theirs), (
            f"{page}: the downloads' code is not the English downloads', which are "
            "the ones run"
        )
        assert all(pair in strings for pair in catalog.string_differences(theirs, ours))


def test_code_of_drops_comments_and_nothing_else():
    code = (
        'x = "a  # b"  # why\n\n# one\ns = """\n\n  # kept\n"""\nprint(x)\n# > a  # b\n'
    )
    kept = 'x = "a  # b"\ns = """\n\n  # kept\n"""\nprint(x)\n# > a  # b\n'
    assert code_of(code) == kept
    translated = code.replace("# why", "# por qué").replace("# one", "# uno\n# dos")
    assert code_of(translated) == code_of(code)
    for old, new in [
        ('x = "a', 'x  = "a'),
        ('"a  # b"', '"a # b"'),
        ("print(x)", "print(x) "),
        ("# > a", "# > á"),
        ("\n\n  # kept", "\n  # kept"),
        ("# one\n", "# one\rx = 1\n"),  # Python ends a line at a lone \r too
    ]:
        assert code_of(code.replace(old, new)) != code_of(code), (old, new)


def test_the_check_cells_carry_no_docstring_nor_comment():
    # output_check documents itself (Recorder's docstring begins "Stands in"); the
    # cells a download carries drop all of it.
    assert '"""Stands in' in Path(output_check.__file__).read_text(encoding="utf-8")
    blocks = (ast.Module, ast.ClassDef, ast.FunctionDef)
    for cell in check_cells("finish()"):
        assert "Stands in" not in cell
        for node in ast.walk(ast.parse(cell)):
            if isinstance(node, blocks):
                assert ast.get_docstring(node) is None, ast.unparse(node)[:80]
        tokens = tokenize.generate_tokens(io.StringIO(cell).readline)
        assert not [token for token in tokens if token.type == tokenize.COMMENT]


def test_code_only_keeps_strings_whole_and_statements_in_place():
    code = [
        's = """a:',
        "",
        'b"""  # kept whole',
        "def f():",
        '    """Doc.',
        "",
        '    More."""',
        "",
        "    return 1",
        "",
        "",
        "class Empty:",
        '    """Its docstring only."""',
        "# a comment line",
        "x = 1  # why",
        "",
    ]
    assert _code_only("\n".join(code)).split("\n") == [
        's = """a:',
        "",
        'b"""',
        "def f():",
        "    return 1",
        "",
        "",
        "class Empty:",
        "    pass",
        "x = 1",
        "",
    ]


def test_the_check_call_is_python_for_every_field():
    fields = {"flag": True, "off": False, "missing": None, "name": "página «x»"}
    call = check_call(CHECK_TEXTS["es"], "owner/repository", fields)
    given = {}
    exec(call, {"_recorder": "R", "finish": lambda *a, **kw: given.update(kw, a=a)})
    assert given["a"] == ("R",)
    assert given["fields"] == fields
    assert given["repository"] == "owner/repository"
    assert set(given["texts"]) == set(CHECK_TEXTS["es"])


# ---------------------------------------------------------------- pages to downloads


@pytest.fixture
def repository(tmp_path):
    """A repository of one page per language, from the given Markdown and snippet."""
    (tmp_path / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text("utf-8"))
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\nnumpy==2.4.6\n")

    def make(page_text, snippet, language="en"):
        (tmp_path / "snippets").mkdir(exist_ok=True)
        (tmp_path / "snippets" / "example.py").write_text(snippet, encoding="utf-8")
        page = tmp_path / "docs" / language / "example.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(page_text, encoding="utf-8")
        return page

    make.root = tmp_path
    make.downloads = lambda *a, **kw: make_downloads(make(*a, **kw), SITE, tmp_path)
    return make


NAMES = {"en": "PyTorch explained", "es": "PyTorch explicado"}
SITE = Site("https://example.org/docs/", "en", NAMES)
BLOCK = '```python\n--8<-- "snippets/example.py:{}"\n```\n'
ONE = "# T\n\n" + BLOCK.format("s")  # a page of one example: region s of the snippet


def region(code: str, name="s") -> str:
    return f"# --8<-- [start:{name}]\n{code}# --8<-- [end:{name}]\n"


def run_script(downloads, folder, script_runner):
    script = folder / "run" / downloads.script_name
    script.parent.mkdir()
    script.write_text(downloads.script, encoding="utf-8")
    return script_runner.run(script.name, timeout=120, cwd=script.parent)


def test_a_skipped_example_shows_its_reason_and_runs_elsewhere(
    repository, script_runner
):
    snippet = region('print("ran")\n# > ran\n', "always") + region(
        'text = """a\nb"""\nassert text == "a\\nb"\n'
        'raise SystemExit("only where the condition does not hold")\n',
        "gpu",
    )
    skip = '<!-- skip: next if(True or not HAS_ACCELERATOR, reason="needs a GPU") -->'
    downloads = repository.downloads(
        f"# Title\n\n{BLOCK.format('always')}\n{skip}\n\n{BLOCK.format('gpu')}", snippet
    )
    code = cell_code(downloads.examples[1])
    assert "HAS_ACCELERATOR = torch.accelerator.is_available()" in code
    assert 'text = """a\nb"""' in code  # a multi-line string keeps its lines
    assert "skip:" not in "".join(cell.source for cell in downloads.notebook.cells)
    run = run_script(downloads, repository.root, script_runner)
    assert run.returncode == 0, run.stderr
    *printed, said = run.stdout.splitlines()
    assert printed == ["ran", "Skipped: needs a GPU"]
    assert said.startswith("✓ 1 of 1 outputs match the page (torch ")
    assert said.endswith("; 1 example skipped here: needs a GPU")


def test_a_skipped_range_an_unconditional_skip_and_a_name_from_the_page(
    repository, script_runner
):
    snippet = "".join(region(f"print('{n}')\n# > {n}\n", n) for n in "abcde")
    a, b, c, d, e = (BLOCK.format(n) for n in "abcde")
    downloads = repository.downloads(
        f'# T\n\n<!-- skip: start if(True, reason="r1") -->\n\n{a}\n{b}'
        f'\n<!-- skip: end -->\n\n{c}\n<!-- skip: next "r2" -->\n{d}'
        # `c` is defined by an earlier example: the download evaluates it in the same
        # order.
        f'\n<!-- skip: next if(c is None, reason="r3") -->\n{e}',
        snippet.replace("print('c')", "c = None\nprint('c')"),
    )
    skips = [example.skip and example.skip.reason for example in downloads.examples]
    assert skips == ["r1", "r1", None, "r2", "r3"]
    run = run_script(downloads, repository.root, script_runner)
    *printed, said = run.stdout.splitlines()
    assert printed == ["Skipped: r1", "Skipped: r1", "c", "Skipped: r2", "Skipped: r3"]
    assert said.endswith("; 4 examples skipped here: r1; r2; r3"), said


@pytest.mark.parametrize(
    "directive, why",
    [
        ("<!-- skip: next -->", "a skip without a reason"),
        ('<!-- skip: next "" -->', "a skip without a reason"),
        ("<!-- skip: next if(True, reason=WHY) -->", "a skip reason must be a plain"),
        ("<!-- skip: next if(True, 'a' + 'b') -->", "a skip reason must be a plain"),
        ("<!-- skip: next 3 -->", "a skip reason must be a plain string"),
        (
            "<!-- skip: next if(f(True, reason='r') -->",
            r"cannot read the skip: '\(' was never closed;",
        ),
        ("<!-- skip: next no quotes -->", r"cannot read the skip: invalid syntax;"),
        ("<!-- skip: next if(True, 'r', 'r') -->", "cannot read the skip;"),
        ("<!-- skip: next if(True, why='r') -->", "cannot read the skip;"),
        ("<!-- skip: next if(reason='r') -->", "cannot read the skip;"),
        ("<!-- skip: next iffy -->", "cannot read the skip;"),
    ],
)
def test_a_skip_a_download_cannot_reproduce_is_an_error(repository, directive, why):
    page = ONE.replace("\n\n", f"\n\n{directive}\n")
    with pytest.raises(DownloadError, match=f"line 3: {why}.* write it as .* plain"):
        repository.downloads(page, region("x = 1\n"))


@pytest.mark.parametrize(
    "directive, condition, reason",
    [
        ('<!-- skip: next if(x > 1, reason="r") -->', "x > 1", "r"),
        ('<!-- skip: next if(x > 1, "r") -->', "x > 1", "r"),
        ('<!-- skip: next if(condition=x > 1, reason="r") -->', "x > 1", "r"),
        ("<!-- skip: next if(x > 1) -->", "x > 1", "x > 1"),
        ("<!-- skip: next if(x > 1, reason=None) -->", "x > 1", "x > 1"),
        ("<!-- skip: next 'r' -->", "True", "r"),
    ],
)
def test_a_skip_reads_as_sybil_reads_it(repository, directive, condition, reason):
    page = ONE.replace("\n\n", f"\n\n{directive}\n")
    skip = repository.downloads(page, region("x = 1\n")).examples[0].skip
    assert (skip.condition, skip.reason) == (condition, reason)


def test_setup_names_match_what_the_page_tests_use(site_conftest):
    namespace = {}
    site_conftest._setup(namespace)
    assert namespace == setup_namespace()


def test_prose_sections_and_files_the_examples_read(repository, script_runner):
    (repository.root / "snippets" / "data").mkdir(parents=True)
    (repository.root / "snippets" / "data" / "numbers.txt").write_text("1 2 3\n")
    snippet = region(
        "from pathlib import Path\n"
        "numbers = Path('snippets/data/numbers.txt').read_text().split()\n"
        "assert numbers == ['1', '2', '3']\nprint(len(numbers))\n# > 3\n",
        "read",
    )
    downloads = repository.downloads(
        "---\ndescription: Leer un archivo\n---\n# Leer\n\n"
        "Ver [autograd](autograd.md#hojas), [aquí](#leer) y [el índice][i].\n"
        "Escribe `[x](y.md)` para [enlazar](#leer).\n\n"
        "[i]: index.md\n\nUn [enlace en dos\nlíneas](#leer).\n\n"
        "```text\nUn [ejemplo](de-markdown.md), tal cual.\n```\n\n"
        '!!! note "Nota"\n    Una nota.\n\n    ## Dentro\n\n## Sección { #s }\n\n'
        + BLOCK.format("read"),
        snippet,
        language="es",
    )
    cells = downloads.notebook.cells
    markdown = "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
    for text in [
        "[autograd](https://example.org/docs/es/autograd/#hojas)",
        "[aquí](https://example.org/docs/es/example/#leer)",
        "[i]: https://example.org/docs/es/\n",
        "líneas](https://example.org/docs/es/example/#leer)",
        "Un [ejemplo](de-markdown.md), tal cual.",  # code, not a link
        "`[x](y.md)` para [enlazar](https://example.org/docs/es/example/#leer)",
        "> **Nota**\n>\n> Una nota.\n>\n> ## Dentro\n\n## Sección { #s }",
        "`pip install torch==2.13.0`",
        "python -m pytest docs/es/example.md",
    ]:
        assert text in markdown, text
    assert "description:" not in markdown
    assert "# %% [markdown]\n# # Leer\n" in downloads.script
    assert "# ## Sección\n" in downloads.script and "Dentro" not in downloads.script
    # In a folder without snippets/data/.
    run = run_script(downloads, repository.root, script_runner)
    assert run.returncode == 0, run.stderr
    said = "3\n✓ 1 de 1 salidas coinciden con la página (torch "
    assert run.stdout.startswith(said), run.stdout


A = "https://example.org/docs/guide/a/"  # guide/a.md, as prose_cells links it


@pytest.mark.parametrize(
    "prose, cells",
    [
        (  # a heading's title: its text, a link's text and one line
            "# Head [l](a.md)\n\nText.\n",
            [(f"# Head [l]({A})\n\nText.", (1, "Head l"))],
        ),
        (
            "Line one\nline two\n========\n",
            [("Line one\nline two\n========", (1, "Line one line two"))],
        ),
        (  # no quoted title: the type's first word, as Material shows it
            "!!! note inline end\n    Body.\n",
            [("> **Note**\n>\n> Body.", None)],
        ),
        ('!!! note "a" extra\n    Body.\n', [("> **Note**\n>\n> Body.", None)]),
        (  # targets as markdown-it ends and reads them
            "See [r](rel(1).md), [e](a\\_b.md) and [a](a.md).\n",
            [
                (
                    "See [r](https://example.org/docs/guide/rel(1)/), "
                    f"[e](https://example.org/docs/guide/a\\_b/) and [a]({A}).",
                    None,
                )
            ],
        ),
        (  # a code span with a real link's target stays as written
            "A [a](a.md) and `[b](a.md)`.\n",
            [(f"A [a]({A}) and `[b](a.md)`.", None)],
        ),
        (  # an escaped backtick opens no code span
            "See [a](a.md) \\`[b](a.md)`.\n",
            [(f"See [a]({A}) \\`[b]({A})`.", None)],
        ),
        (  # an admonition inside a block quote: as written, its link made absolute
            '> !!! note "Q"\n>     body [a](a.md)\n',
            [(f'> !!! note "Q"\n>     body [a]({A})', None)],
        ),
    ],
    ids=[
        "heading link",
        "setext heading",
        "admonition classes",
        "admonition extra words",
        "targets",
        "code span",
        "escaped backtick",
        "admonition in a quote",
    ],
)
def test_prose_cells_read_headings_admonitions_and_targets_as_markdown_it(prose, cells):
    found = prose_cells(prose, "en", "guide/p.md", SITE, ROOT)
    assert found == cells


def test_prose_values_comments_are_the_sites_checks_not_the_readers_text(repository):
    downloads = repository.downloads(
        ONE + "\n<!-- prose-values: x -> 3 -->\nHere x is 3.\n", region("x = 3\n")
    )
    text = "".join(cell.source for cell in downloads.notebook.cells) + downloads.script
    assert "Here x is 3." in text and "prose-values" not in text


def test_a_comment_that_looks_like_a_magic_stays_as_written_in_the_script(repository):
    comment = "# cat joins tensors; ls and cd are shell words too\n"
    script = repository.downloads(ONE, region(comment + "x = 3\n")).script
    assert f"\n{comment}" in script and "# # cat" not in script


def test_an_import_that_requirements_do_not_pin_is_an_error(repository):
    with pytest.raises(
        DownloadError, match="'matplotlib', which requirements.txt does not pin"
    ):
        repository.downloads(ONE, region("import matplotlib\n"))


def test_the_hook_links_the_downloads_and_writes_them_next_to_the_page(tmp_path):
    from ptdocs.hooks import downloads as hook

    config = mkdocs.config.load_config(str(ROOT / "mkdocs.yml"))
    config["site_dir"] = str(tmp_path)
    file = File("es/index.md", str(ROOT / "docs"), str(tmp_path), True)
    page = SimpleNamespace(url="es/", file=file)  # es/index.md, built to es/index.html
    markdown = hook.on_page_markdown(
        "# PyTorch explicado\n\nTexto.\n", page, config, None
    )
    for link in [
        '<a class="md-button" href="index.ipynb" download>Descargar notebook</a>',
        '<a class="md-button" href="index.py" download>Descargar script</a>',
        "`python -m pytest docs/es/index.md`",
    ]:
        assert link in markdown, link
    assert markdown.startswith("# PyTorch explicado\n")
    hook.on_post_build(config)
    assert nbformat.read(tmp_path / "es" / "index.ipynb", as_version=4).cells
    assert (tmp_path / "es" / "index.py").read_text().startswith("# %% [markdown]")
    page.url = "es/elsewhere/"
    with pytest.raises(DownloadError, match="the page is at 'es/elsewhere/'"):
        hook.on_page_markdown("# T\n", page, config, None)


def test_torchs_numpy_bridge_is_installed_with_the_download(repository):
    # Tensor.numpy() needs NumPy without any `import numpy`: a reader with torch alone
    # gets "RuntimeError: Numpy is not available" (found by the scripts' fresh
    # environments).
    code = region("import torch\nn = torch.ones(1).numpy()\n")
    first = repository.downloads(ONE, code).notebook.cells[0].source
    assert "`pip install torch==2.13.0 numpy==2.4.6`" in first
