"""The mutation tool (tools/mutate.py): it changes the code under test, never the
checks.

A tiny repository in a temporary folder: one snippet file, one page. Each kind of
mutant has a section whose check catches it; a check that cannot fail lets its
mutants survive; a mutant that breaks the code without any check failing is
*crashed*, never caught; a survivor fails the run unless tools/mutants-known.txt
lists it, with why; and nothing on disk changes.
"""

import hashlib
import shutil
import textwrap

import pytest

from ptdocs.snippets import ROOT
from tools import mutate

SNIPPET = """\
# --8<-- [start:analytic]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)
y = x**3
y.backward()
assert_close(x.grad, 3 * x.detach() ** 2)  # d(x³)/dx = 3x²
# --8<-- [end:analytic]

# --8<-- [start:weak]
t = torch.tensor(3.0)
z = t * 2 + 1
assert z > 0  # true for the mutants too: this check cannot fail
# --8<-- [end:weak]

# --8<-- [start:shown]
w = torch.tensor([1.0, 2.0])
print(w * 2 + 1)
# > tensor([3., 5.])
# --8<-- [end:shown]

# --8<-- [start:reset]
g = torch.tensor(1.0, requires_grad=True)
(g * 2).backward()
g.grad = None  # dropped, so the next backward starts from nothing: 3, not 2 + 3
(g * 3).backward()
assert g.grad == 3
# --8<-- [end:reset]

# --8<-- [start:context]
with torch.inference_mode():
    frozen = torch.ones(2)
assert frozen.is_inference()
# --8<-- [end:context]

# --8<-- [start:order]
calls = []
calls.append("warm-up")
calls.append("timed")
assert calls == ["warm-up", "timed"]
# --8<-- [end:order]

# --8<-- [start:identity]
def halve(values):
    return values / 2


assert halve(6) == 3
# --8<-- [end:identity]

# --8<-- [start:tolerance]
assert_close(torch.tensor(1.0004), torch.tensor(1.0), atol=1e-3, rtol=0)
# --8<-- [end:tolerance]

# --8<-- [start:crash]
items = ["only"]
last = len(items) - 1
assert items[last] == "only"
# --8<-- [end:crash]

# --8<-- [start:loop]
n = 0
while n < 3:
    n += 1  # the mutant n -= 1 never ends: the time limit stops it
assert n == 3
# --8<-- [end:loop]

# --8<-- [start:accelerator]
v = torch.ones(2) * 4
# --8<-- [end:accelerator]
"""

SECTIONS = "analytic weak shown reset context order identity tolerance crash".split()
PAGE = (
    "# Demo\n\n"
    + "".join(
        f'```python\n--8<-- "snippets/demo/checks.py:{name}"\n```\n\n'
        for name in SECTIONS
    )
    + """\
<!-- skip: next if(True, reason="needs a second device") -->
```python
--8<-- "snippets/demo/checks.py:accelerator"
```
"""
)


def make_site(folder):
    """A tiny repository: mkdocs.yml's snippet settings, one snippet file, one page."""
    shutil.copy(ROOT / "mkdocs.yml", folder / "mkdocs.yml")
    (folder / "snippets" / "demo").mkdir(parents=True)
    (folder / "snippets" / "demo" / "checks.py").write_text(SNIPPET)
    (folder / "docs" / "en").mkdir(parents=True)
    (folder / "docs" / "en" / "demo.md").write_text(PAGE)
    (folder / "known.txt").write_text("# none yet\n")
    return folder


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


@pytest.fixture(scope="session")
def pages(site_conftest):
    """The Sybil the tests collect pages with (`import conftest` finds
    tests/conftest.py here)."""
    return site_conftest.pages


@pytest.fixture(scope="module")
def result(tmp_path_factory, pages):
    """The demo page mutated once, for the tests that only read the outcome."""
    site = make_site(tmp_path_factory.mktemp("demo"))
    return mutate.mutate_page(site / "docs" / "en" / "demo.md", site, pages=pages)


def outcomes(result, section):
    """{the mutated code, as the report shows it after the arrow: outcome}."""
    [found] = [s for s in result.sections if s.target.endswith(f":{section}")]
    return {o.mutant.change.partition("  ->  ")[2]: o for o in found.outcomes}


def test_the_unmutated_page_passes(result):
    assert result.baseline_failure is None


def test_an_analytical_check_catches_a_changed_operator(result):
    power = outcomes(result, "analytic")["y = x*3"]
    assert (power.status, power.how) == ("caught", "assertion")  # not a crash
    assert "snippets/demo/checks.py, line 8" in power.where


def test_a_check_that_cannot_fail_lets_every_mutant_survive(result):
    weak = outcomes(result, "weak")
    assert {o.status for o in weak.values()} == {"survived"}
    assert "z = t / 2 + 1" in weak


def test_printed_output_catches_the_code_that_computes_it(result):
    assert {(o.status, o.how) for o in outcomes(result, "shown").values()} == {
        ("caught", "output")
    }


def test_a_deleted_statement_is_caught_when_a_check_sees_its_effect(result):
    [found] = [s for s in result.sections if s.target.endswith(":reset")]
    [deleted] = [
        o
        for o in found.outcomes
        if o.mutant.before.startswith("g.grad = None") and o.mutant.after == "pass"
    ]
    assert (deleted.mutant.kind, deleted.status) == ("statement", "caught")  # not 2+3


def test_a_context_manager_is_swapped_and_dropped(result):
    context = outcomes(result, "context")
    swapped = context["with torch.no_grad():"]  # then not an inference tensor
    assert (swapped.mutant.kind, swapped.status) == ("context", "caught")
    assert context["if True:"].status == "caught"


def test_two_statements_that_share_a_name_are_swapped(result):
    order = outcomes(result, "order")
    swapped = order['calls.append("timed") / calls.append("warm-up")']
    assert (swapped.mutant.kind, swapped.status) == ("order", "caught")


def test_a_function_that_returns_its_argument_unchanged_is_caught(result):
    identity = outcomes(result, "identity")["return values"]
    assert (identity.mutant.kind, identity.status) == ("return", "caught")


def test_a_looser_tolerance_survives_unless_something_pins_it(result):
    tolerance = outcomes(result, "tolerance")
    looser = "assert_close(torch.tensor(1.0004), torch.tensor(1.0), atol=0.01, rtol=0)"
    assert tolerance[looser].status == "survived"
    # The one change made inside a check; nothing else in it is touched.
    assert {o.mutant.kind for o in tolerance.values()} == {"tolerance"}


def test_a_crash_is_reported_apart_never_as_caught(result):
    index_error = outcomes(result, "crash")["last = len(items) + 1"]
    assert (index_error.status, index_error.how) == ("crashed", "error: IndexError")
    assert "list index out of range" in index_error.where


def test_a_mutant_that_never_ends_is_stopped_and_counted_as_crashed(site, pages):
    (site / "docs" / "en" / "loop.md").write_text(
        '```python\n--8<-- "snippets/demo/checks.py:loop"\n```\n'
    )
    result = mutate.mutate_page(
        site / "docs" / "en" / "loop.md", site, timeout=0.5, pages=pages
    )
    loop = outcomes(result, "loop")
    assert loop["while n >= 3:"].status == "caught"
    assert (loop["n -= 1"].how, loop["n -= 1"].status) == ("timeout", "crashed")
    assert loop["n = 1"].status == "survived"  # n still ends at 3


def test_a_skipped_example_is_reported_not_mutated_with_its_reason(result):
    [skipped] = [s for s in result.sections if s.target.endswith(":accelerator")]
    assert skipped.skipped == "needs a second device" and not skipped.outcomes


def test_checks_prints_and_output_lines_are_never_mutated():
    source = textwrap.dedent("""\
        import torch
        from torch.testing import assert_close
        x = torch.tensor([1.0, 2.0]) * 2
        assert x.sum() == 6.0 and x[0] < 3
        assert_close(x, torch.tensor([2.0, 4.0]) * 1)
        torch.testing.assert_close(
            x.sum() + 1,
            torch.tensor(7.0), atol=1e-6, rtol=0)
        print(x * 2, f"{x.sum() * 2:.1f}")
        # > tensor([4., 8.]) 12.0
        torch.manual_seed(0)
        if x.sum() > 1:
            raise AssertionError(x - 1)
        y = x - 1
    """)
    mutants = mutate.candidates(source, "demo.py")
    lines = {m.line for m in mutants if m.kind != "tolerance"}
    assert lines == {3, 12, 14}  # never 4-11 or 13
    looser = {m.after.strip() for m in mutants if m.kind == "tolerance"}
    assert looser == {"torch.tensor(7.0), atol=1e-05, rtol=0)"}  # rtol=0 stays 0
    assert not any("# >" in m.before + m.after for m in mutants)
    assert not any("manual_seed" in m.before for m in mutants)


def test_mutants_are_chosen_deterministically_kinds_in_turn():
    source = (
        "import torch\nx = torch.ones(3, requires_grad=True)\n"
        "y = (x * 2).sum()\ny.backward()\n"
    )
    chosen = mutate.choose(mutate.candidates(source, "demo.py"), 3)
    assert chosen == mutate.choose(mutate.candidates(source, "demo.py"), 3)
    # y.backward() deleted: the first binding of a name is never deleted; not the swap
    # of lines 3 and 4: y.backward() before y is bound can only crash; a new line each
    # while there is one.
    assert [(m.kind, m.after) for m in chosen] == [
        ("statement", "pass"),
        ("operator", "y = (x / 2).sum()"),
        ("attribute", "x = torch.zeros(3, requires_grad=True)"),
    ]


def digest(folder):
    return {
        path.relative_to(folder).as_posix(): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mtime_ns,
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run(site, pages, *arguments):
    return mutate.main(
        ["--root", str(site), "--known", str(site / "known.txt"), *arguments],
        pages=pages,
    )


def test_a_survivor_fails_the_run_and_nothing_on_disk_changes(site, pages, capsys):
    before = digest(site)
    assert run(site, pages, "docs/en/demo.md", "--section", "weak") == 1
    assert digest(site) == before
    out = capsys.readouterr().out
    assert "SURVIVED" in out
    summary = "5 tried, 0 caught, 5 survived, 0 crashed: 5 survivor(s) not in "
    assert out.strip().splitlines()[-1].startswith(summary + "mutants-known.txt")


def test_a_survivor_listed_with_why_passes_and_a_listed_one_caught_fails(
    site, pages, capsys
):
    weak = [
        f"snippets/demo/checks.py: {change}  # a demo of a weak check"
        for change in (
            "t = torch.tensor(3.0)  ->  t = torch.tensor(4.0)",
            "z = t * 2 + 1  ->  z = t / 2 + 1",
            "z = t * 2 + 1  ->  z = t * 2 - 1",
            "z = t * 2 + 1  ->  z = t * 3 + 1",
            "z = t * 2 + 1  ->  z = t * 2 + 2",
        )
    ]
    (site / "known.txt").write_text("\n".join(weak) + "\n")
    assert run(site, pages, "docs/en/demo.md", "--section", "weak") == 0
    assert "survived, known: a demo of a weak check" in capsys.readouterr().out
    caught = "snippets/demo/checks.py: y = x**3  ->  y = x*3  # not true: it is caught"
    (site / "known.txt").write_text("\n".join([*weak, caught]) + "\n")
    sections = ("--section", "weak", "--section", "analytic")
    assert run(site, pages, "docs/en/demo.md", *sections) == 1
    assert "LISTED as surviving: take it out" in capsys.readouterr().out
    (site / "known.txt").write_text(weak[0].partition("  # ")[0] + "\n")  # no reason
    with pytest.raises(SystemExit, match="known.txt, line 1"):
        run(site, pages, "docs/en/demo.md")


def test_a_page_that_fails_unmutated_is_reported_and_not_mutated(site, pages, capsys):
    snippet = site / "snippets" / "demo" / "checks.py"
    snippet.write_text(SNIPPET.replace("# > tensor([3., 5.])", "# > tensor([3., 6.])"))
    assert run(site, pages, "docs/en/demo.md") == 2
    assert "the page fails WITHOUT any mutant (output)" in capsys.readouterr().out


def test_a_snippet_that_does_not_parse_is_reported_not_a_traceback(site, pages, capsys):
    """The unmutated run fails on it; the tool must say so, never parse it for
    mutants."""
    snippet = site / "snippets" / "demo" / "checks.py"
    snippet.write_text(SNIPPET.replace("z = t * 2 + 1", "z = t * 2 +"))
    assert run(site, pages, "docs/en/demo.md") == 2
    out = capsys.readouterr().out
    assert "the page fails WITHOUT any mutant" in out
    assert "invalid syntax" in out
    assert "; a page fails without any mutant" in out.strip().splitlines()[-1]


def test_the_time_budget_leaves_mutants_untried_and_says_so(site, pages, capsys):
    assert run(site, pages, "docs/en/demo.md", "--budget", "1e-9") == 3
    assert "the time budget ran out" in capsys.readouterr().out


def test_global_state_a_page_changes_is_restored_after_each_run(site, pages):
    import torch

    (site / "snippets" / "demo" / "state.py").write_text(
        "# --8<-- [start:state]\nimport torch\ntorch.set_default_dtype(torch.float64)\n"
        "torch.set_grad_enabled(False)\n# --8<-- [end:state]\n"
    )
    (site / "docs" / "en" / "state.md").write_text(
        '```python\n--8<-- "snippets/demo/state.py:state"\n```\n'
    )

    def state():
        return (
            torch.get_default_dtype(),
            torch.is_grad_enabled(),
            torch.get_num_threads(),
        )

    before = state()
    mutate.mutate_page(site / "docs" / "en" / "state.md", site, pages=pages)
    assert state() == before


def test_the_known_list_is_well_formed():
    """Every line of tools/mutants-known.txt names a mutant and says why it survives."""
    assert isinstance(mutate.read_known(mutate.KNOWN), dict)
