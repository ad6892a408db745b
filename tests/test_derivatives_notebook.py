"""The derivatives exercise, in both languages: generated from its source, shipped
without outputs, and, once executed, telling the analytical story its prose tells.

The notebooks run in a Jupyter kernel as on the site; a last cell added here (never
shipped) prints the notebook's own rows as JSON, and every verdict is judged again in
this process by ``torch.testing.assert_close``.
"""

import asyncio
import copy
import json
import math
import re
from itertools import product

import nbformat
import pytest
import torch
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook, new_output
from torch.testing import assert_close
from torch.testing._comparison import default_tolerances  # assert_close's table

from ptdocs import notebook_twins
from ptdocs.snippets import ROOT

SOURCE = ROOT / "notebooks" / "derivatives.py"
LANGUAGES = notebook_twins.LANGUAGES
NOTEBOOKS = {lang: notebook_twins.target(SOURCE, lang) for lang in LANGUAGES}
SHIPPED = sorted((ROOT / "docs").rglob("*.ipynb"))
DTYPES = {name: getattr(torch, name) for name in ("float64", "float32", "bfloat16")}
# Relative, autograd against the closed form, everywhere in the domain: each side rounds
# a few times, each within 2**-53 (libm within 2**-52): 16 units of 2**-52 bound it.
FLOAT64_AGREEMENT = 16 * 2**-52
# Machine epsilon of each dtype, from its significand width (52, 23 and 7 stored bits),
# not from torch.finfo: the notebook's steps must follow from these.
EPSILON = {"float64": 2**-52, "float32": 2**-23, "bfloat16": 2**-7}
# 99 rows, counted by hand: 9 functions of x, f(x, y)'s 2 partials; 3 points; 3 dtypes.
ROWS = (9 * 3 + 1 * 3 * 2) * 3

# Run in the notebook's kernel after its last cell: its state, as JSON.
PROBE = """
import json as _json

def _row(r):
    return {"function": r.function, "wrt": r.wrt, "point": list(r.point),
            "dtype": short(r.dtype), "closed_form": r.closed_form, "autograd": r.autograd,
            "fd": r.fd, "step": r.step, "rtol": r.rtol, "atol": r.atol, "reasons": list(r.reasons),
            "passed": r.passed}

print(_json.dumps({
    "functions": [{"name": f.name, "points": [list(p) for p in f.points],
                   "variables": f.variables, "partials": len(f.partials)} for f in FUNCTIONS],
    "dtypes": [short(d) for d in DTYPES],
    "tolerances": {short(d): list(t) for d, t in TOLERANCES.items()},
    "rows": [_row(r) for r in rows],
    "after": [_row(r) for r in after],
    "my_tolerances": {short(d): list(t) for d, t in my_tolerances.items()},
}))
"""


def read(language):
    return nbformat.read(NOTEBOOKS[language], as_version=4)


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def outputs(notebook, mime: str) -> list[str]:
    """What the notebook's code cells display in one MIME type, in order."""
    return [
        o["data"][mime] for o in every_output(notebook) if mime in o.get("data", {})
    ]


def every_output(notebook):
    return [output for cell in code_cells(notebook) for output in cell.outputs]


@pytest.fixture(scope="module")
def executed():
    """Each language's notebook, executed (both kernels at once), and its probe's state."""
    notebooks = {language: copy.deepcopy(read(language)) for language in LANGUAGES}
    for notebook in notebooks.values():
        notebook.cells.append(new_code_cell(PROBE))

    def client(language, notebook):
        folder = {"metadata": {"path": str(NOTEBOOKS[language].parent)}}
        return NotebookClient(
            notebook, kernel_name="python3", timeout=300, resources=folder
        )

    async def run_all():
        await asyncio.gather(
            *(client(*each).async_execute() for each in notebooks.items())
        )

    asyncio.run(run_all())
    results = {}
    for language, notebook in notebooks.items():
        probe = notebook.cells.pop().outputs
        text = "".join(o["text"] for o in probe if o.output_type == "stream")
        results[language] = (notebook, json.loads(text))
    return results


@pytest.fixture(params=LANGUAGES)
def language(request):
    return request.param


@pytest.fixture
def notebook(executed, language):
    return executed[language][0]


@pytest.fixture
def state(executed, language):
    return executed[language][1]


# ------------------------------------------------------------------ the files committed


def test_the_notebooks_are_generated_from_their_source():
    texts = notebook_twins.twins(SOURCE)
    for language, path in NOTEBOOKS.items():
        assert path.read_text(encoding="utf-8") == texts[language], (
            f"{path.relative_to(ROOT)} differs from {SOURCE.relative_to(ROOT)}: edit "
            "the source, then run python -m ptdocs.notebook_twins"
        )


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_notebook_ships_outputs(path):
    """The site executes notebooks when built: stored outputs would be stale evidence."""
    for number, cell in enumerate(nbformat.read(path, as_version=4).cells, start=1):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.relative_to(ROOT)}, cell {number} has stored outputs"
            )


def test_the_cells_match_and_the_prose_is_translated():
    # That code cells differ in comments at most, tests/test_catalog.py checks for all.
    english, spanish = read("en").cells, read("es").cells
    assert [c.cell_type for c in english] == [c.cell_type for c in spanish]
    pairs = zip(english, spanish, strict=False)
    prose = [(a.source, b.source) for a, b in pairs if a.cell_type == "markdown"]
    untranslated = [a for a, b in prose if a == b]
    assert prose and not untranslated, "a Markdown cell was left untranslated"


# ------------------------------------------------------------------ the story, executed


def test_no_row_is_dropped(state):
    expected = {
        (f["name"], tuple(p), v, dtype)
        for f in state["functions"]
        for p, v, dtype in product(f["points"], f["variables"], state["dtypes"])
    }
    rows = state["rows"]
    got = [(r["function"], tuple(r["point"]), r["wrt"], r["dtype"]) for r in rows]
    assert len(got) == len(set(got)) == len(expected) == ROWS
    assert set(got) == expected
    assert state["dtypes"] == list(DTYPES)


def test_float64_autograd_matches_every_closed_form_in_the_domain(state):
    float64 = [r for r in state["rows"] if r["dtype"] == "float64"]
    in_domain = [r for r in float64 if "domain" not in r["reasons"]]
    assert len(in_domain) == len(float64) - 2  # log 0, 1/0
    for r in in_domain:
        error = abs(r["autograd"] - r["closed_form"]) / max(1.0, abs(r["closed_form"]))
        assert error <= FLOAT64_AGREEMENT and r["passed"], r


def test_the_stated_tolerances_are_assert_close_defaults(state):
    for name, dtype in DTYPES.items():
        assert tuple(state["tolerances"][name]) == default_tolerances(dtype)


def judged(value, row):
    """Whether ``value`` meets the row's stated tolerances around its closed form,
    decided twice, independently of the notebook's code: in plain float arithmetic,
    and by torch's assert_close. This checks that each verdict follows from the row's
    own numbers and criterion (bookkeeping), not that the criterion is the right one;
    the page's prose argues that."""
    closed, rtol, atol = row["closed_form"], row["rtol"], row["atol"]
    by_hand = math.isfinite(value) and abs(value - closed) <= atol + rtol * abs(closed)
    value_, closed_ = (torch.tensor(v, dtype=torch.float64) for v in (value, closed))
    try:
        assert_close(value_, closed_, rtol=rtol, atol=atol)
        by_torch = True
    except AssertionError:
        by_torch = False
    assert by_hand == by_torch, (value, row)
    return by_hand


def test_every_verdict_follows_from_the_rows_own_numbers(state):
    """A row marked failing fails its stated tolerances, for the reason it gives; a
    passing row meets them (decided again by plain arithmetic and by assert_close,
    see judged)."""
    for r in state["rows"] + state["after"]:
        if "domain" in r["reasons"]:
            assert r["reasons"] == ["domain"] and not math.isfinite(r["closed_form"]), r
            assert r["function"] in ("log x", "1/x") and r["point"] == [0.0], r
            continue
        assert judged(r["autograd"], r) == ("precision" not in r["reasons"]), r
        fd_failed = any(reason.startswith("FD step [") for reason in r["reasons"])
        assert judged(r["fd"], r) == (not fd_failed), r
        assert r["passed"] == (not r["reasons"]), r


def test_the_step_is_the_cube_root_of_epsilon(state):
    """The page's rule, h = ε^(1/3)·max(1, |x|), with ε from the dtype's significand."""
    variables = {f["name"]: f["variables"] for f in state["functions"]}
    for r in state["rows"]:
        x = r["point"][variables[r["function"]].index(r["wrt"])]
        assert r["step"] == EPSILON[r["dtype"]] ** (1 / 3) * max(1.0, abs(x)), r


# f, f′ and f‴ worked out by hand, for the functions whose third derivative is plain.
BY_HAND = {
    "x²": lambda x: (x**2, 2 * x, 0.0),
    "x³": lambda x: (x**3, 3 * x**2, 6.0),
    "exp x": lambda x: (math.exp(x), math.exp(x), math.exp(x)),
}


def test_each_fd_failure_names_the_larger_error(state):
    """Rounding ε·(|f| + |x·f′|)/h against truncation h²·|f‴|/6, derived by hand."""
    labels = set()
    for r in state["rows"]:
        failed = [reason for reason in r["reasons"] if reason.startswith("FD step")]
        if r["function"] not in BY_HAND or not failed:
            continue
        (x,), h = r["point"], r["step"]
        value, slope, third = (abs(v) for v in BY_HAND[r["function"]](x))
        rounding = EPSILON[r["dtype"]] * (value + abs(x) * slope) / h
        truncation = h**2 * third / 6
        label = "rounding" if rounding > truncation else "truncation"
        assert failed == [f"FD step [{label}]"], (r, rounding, truncation)
        labels.add(label)
    assert labels == {"rounding", "truncation"}  # both labels are checked


def test_the_summary_tables_count_the_rows(notebook, state):
    """The counts per dtype the notebook displays, recounted from the rows."""
    markdown = outputs(notebook, "text/markdown")
    tables = [text for text in markdown if "| `domain` |" in text]
    assert len(tables) == 2  # before and after the last cell's changes
    for table, rows in zip(tables, (state["rows"], state["after"]), strict=True):
        lines = table.splitlines()[2:]
        shown = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
        recounted = []
        for dtype in DTYPES:
            mine = [r for r in rows if r["dtype"] == dtype]
            reasons = [reason for r in mine for reason in r["reasons"]]
            passed = sum(r["passed"] for r in mine)
            fd = sum(reason.startswith("FD step [") for reason in reasons)
            counts = [reasons.count("domain"), reasons.count("precision"), fd]
            recounted.append([dtype, len(mine), passed, len(mine) - passed, *counts])
        assert shown == [[str(v) for v in line] for line in recounted]


def test_reduced_precision_failures_are_shown(state):
    rows = state["rows"]
    precision = [r for r in rows if "precision" in r["reasons"]]
    # Autograd fails only where the dtype is coarse: bfloat16 at saturated tanh, sigmoid.
    coarse = {(r["function"], r["dtype"]) for r in precision}
    assert coarse == {("tanh x", "bfloat16"), ("σ(x)", "bfloat16")}
    for r in precision:
        closed = r["closed_form"]
        assert abs(r["autograd"] - closed) > 10 * r["rtol"] * abs(closed), r
    # The finite difference fails in both reduced precisions, never in float64.
    fd_fails = {r["dtype"] for r in rows if "FD step" in " ".join(r["reasons"])}
    assert fd_fails == {"float32", "bfloat16"}


def test_the_page_shows_every_row_and_the_figure(notebook, state, language):
    html = outputs(notebook, "text/html")
    tables = [text for text in html if "<table>" in text]
    table = tables[0]  # the full table; the closing cell shows only the rows that moved
    lines = table.split("<tbody>")[1].split("<tr")[1:]
    assert len(lines) == len(state["rows"])
    failing = [r for r in state["rows"] if not r["passed"]]
    assert sum("<b>✗</b>" in line for line in lines) == len(failing) > 0
    for line, row in zip(lines, state["rows"], strict=False):
        assert ("; ".join(row["reasons"]) + "</td>") in line
    # One figure, a PNG with a description in the notebook's language (its alt text).
    alt = r'<img alt="([^"]+)" src="data:image/png;base64,'
    [image] = re.findall(alt, "".join(html))
    described = {"es": "Gráfica log-log del error", "en": "Log-log plot of the error"}
    assert described[language] in image
    produced = every_output(notebook)
    errors = [
        o for o in produced if o.output_type == "error" or o.get("name") == "stderr"
    ]
    assert errors == []


def test_the_closing_cell_moves_rows_between_pass_and_fail(notebook, state, language):
    before, after = state["rows"], state["after"]
    assert len(before) == len(after)
    pairs = zip(before, after, strict=False)
    moved = [(a, b) for a, b in pairs if a["passed"] != b["passed"]]
    assert moved
    # As shipped it tightens float64 to 1e-12: autograd still passes in the domain; only
    # float64 finite differences move.
    assert state["my_tolerances"]["float64"] == [1e-12, 1e-12]
    for _, b in moved:
        assert b["dtype"] == "float64" and b["reasons"][0].startswith("FD step"), b
    assert not any(
        "precision" in r["reasons"] for r in after if r["dtype"] == "float64"
    )
    printed = "".join(o.get("text", "") for o in code_cells(notebook)[-1].outputs)
    assert {
        "en": f"moved:  {len(moved)} to fail, 0 to pass",
        "es": f"movidas: {len(moved)} a fallar, 0 a pasar",
    }[language] in printed


NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|nan|inf")


def shown(notebook):
    """Per cell, the text each stream printed, whole (how the kernel split it into
    output chunks depends on timing and load), then the rich outputs in order."""
    cells = []
    for cell in code_cells(notebook):
        streams, rich = {}, []
        for output in cell.outputs:
            if output.output_type == "stream":
                streams[output.name] = streams.get(output.name, "") + output.text
            else:
                get = output.get("data", {}).get
                rich.append(
                    get("text/markdown") or get("text/html") or get("text/plain")
                )
        cells.append((streams, rich))
    return cells


def numbers(cells):
    """The numbers of each line of each output (a picture's alt text and data aside)."""

    def lines(text):
        text = re.sub(r'alt="[^"]*"|base64,[^"]*', "", text)
        return [NUMBER.findall(line) for line in text.split("\n")]

    return [
        ({name: lines(text) for name, text in streams.items()}, list(map(lines, rich)))
        for streams, rich in cells
    ]


def test_both_languages_print_the_same_results_in_their_own_words(executed):
    """Each language prints its own words (the catalog translates the code's
    strings), and the same results: the same numbers, in the same lines of the same
    outputs, and the same figure."""
    english, spanish = (shown(executed[language][0]) for language in ("en", "es"))
    assert numbers(english) == numbers(spanish)

    # Every output with the project's words (two in a row, tags, data aside) is Spanish.
    def words(output):
        text = re.sub(r"<[^>]*>|base64,[^\"]*", " ", str(output))
        return re.search(r"\b[a-z]{2,} [a-z]{2,}\b", text)

    pairs = list(zip(english, spanish, strict=False))
    same = [a for a, b in pairs if a == b and words(a)]
    assert not same, same
    assert sum(a != b for a, b in pairs) >= 7
    rich = [
        "".join(t for _, texts in cells for t in texts) for cells in (english, spanish)
    ]
    pngs = [re.findall(r"base64,([^\"]+)", text) for text in rich]
    assert pngs[0] == pngs[1] and len(pngs[0]) == 1


def test_output_chunking_is_not_a_difference():
    """The same printed text, split into chunks differently under load, is the same
    output; a different number is a different result."""

    def notebook(*chunks):
        cell = new_code_cell("print('a 1'); print('b 2')")
        cell.outputs = [new_output("stream", name="stdout", text=c) for c in chunks]
        return shown(new_notebook(cells=[cell]))

    whole = notebook("a 1\nb 2\n")
    assert whole == notebook("a 1\n", "b 2\n")
    assert numbers(whole) == numbers(notebook("x 1\n", "y 2\n"))
    assert numbers(whole) != numbers(notebook("a 1\n", "b 3\n"))
