"""The mutation tool (ptdocs/mutate.py): it changes the code under test, never the checks.

A tiny repository in a temporary folder: one snippet file, one page. A section whose
check is analytical must have a mutant the page catches; a section whose check cannot
fail (``assert y > 0``) must be reported weak; expectations are never mutated; and
nothing on disk changes.
"""

import hashlib
import shutil
import textwrap

import pytest

from ptdocs import mutate
from ptdocs.snippets import ROOT

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
assert (w * 2).sum() == 6.0, 2 * 3
# --8<-- [end:shown]

# --8<-- [start:loop]
n = 0
while n < 3:
    n += 1  # the mutant n -= 1 never ends: the time limit kills it
assert n == 3
# --8<-- [end:loop]

# --8<-- [start:accelerator]
v = torch.ones(2) * 4
# --8<-- [end:accelerator]
"""

PAGE = """\
# Demo

```python
--8<-- "snippets/demo/checks.py:analytic"
```

```python
--8<-- "snippets/demo/checks.py:weak"
```

```python
--8<-- "snippets/demo/checks.py:shown"
```

<!-- skip: next if(True, reason="needs a second device") -->
```python
--8<-- "snippets/demo/checks.py:accelerator"
```
"""


@pytest.fixture
def site(tmp_path):
    """A tiny repository: mkdocs.yml's snippet settings, one snippet file, one page."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "snippets" / "demo").mkdir(parents=True)
    (tmp_path / "snippets" / "demo" / "checks.py").write_text(SNIPPET)
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "demo.md").write_text(PAGE)
    return tmp_path


@pytest.fixture
def result(site):
    return mutate.mutate_page(site / "docs" / "en" / "demo.md", site)


def sections(result):
    return {section.target.rpartition(":")[2]: section for section in result.sections}


def test_the_unmutated_page_passes(result):
    assert result.baseline_failure is None


def test_a_mutant_of_a_section_with_an_analytical_check_is_killed_by_the_check(result):
    analytic = sections(result)["analytic"]
    assert analytic.verdict == "killed"
    power = next(o for o in analytic.outcomes if o.mutant.after.strip() == "y = x*3")
    assert power.killed and power.how == "assertion"  # assert_close fails, not a crash
    assert "snippets/demo/checks.py, line 8" in power.where


def test_a_section_whose_check_cannot_fail_is_weak_and_its_mutants_are_shown(result):
    weak = sections(result)["weak"]
    assert weak.verdict == "weak"
    assert len(weak.outcomes) == mutate.MAX_MUTANTS
    assert not any(outcome.killed for outcome in weak.outcomes)
    shown = {outcome.mutant.describe() for outcome in weak.outcomes}
    assert "snippets/demo/checks.py:13: z = t * 2 + 1  ->  z = t / 2 + 1" in shown


def test_printed_output_kills_a_mutant_of_the_code_that_computes_it(result):
    shown = sections(result)["shown"]
    assert {o.how for o in shown.outcomes} == {"output"}
    assert all(o.killed for o in shown.outcomes)


def test_a_skipped_example_is_reported_not_mutated_with_its_reason(result):
    skipped = sections(result)["accelerator"]
    assert skipped.verdict == "skipped"
    assert skipped.skipped == "needs a second device"
    assert not skipped.outcomes


def test_asserts_prints_checks_and_output_lines_are_never_mutated():
    source = textwrap.dedent("""\
        import torch
        from torch.testing import assert_close
        x = torch.tensor([1.0, 2.0]) * 2
        assert x.sum() == 6.0 and x[0] < 3
        assert_close(x, torch.tensor([2.0, 4.0]) * 1)
        torch.testing.assert_close(
            x.sum() + 1,
            torch.tensor(7.0))
        print(x * 2, f"{x.sum() * 2:.1f}")
        # > tensor([4., 8.]) 12.0
        torch.manual_seed(0)
        if x.sum() > 1:
            raise AssertionError(x - 1)
        y = x - 1
    """)
    mutants = mutate.candidates(source, "demo.py")
    assert {m.line for m in mutants} == {3, 12, 14}  # never 4-11 or 13
    for mutant in mutants:
        assert "# >" not in mutant.before + mutant.after
    # Every chosen mutant changes one line, which still parses.
    chosen = mutate.choose(mutants, 3)
    assert len(chosen) == 3 and len({m.line for m in chosen}) == 3
    assert [m.kind for m in chosen] == ["operator", "attribute", "number"]


def test_mutants_are_chosen_deterministically_kinds_in_turn():
    source = "import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\n"
    mutants = mutate.candidates(source, "demo.py")
    chosen = mutate.choose(mutants, 3)
    assert chosen == mutate.choose(mutate.candidates(source, "demo.py"), 3)
    assert [(m.kind, m.after) for m in chosen] == [
        ("operator", "y = (x / 2).sum()"),
        ("attribute", "x = torch.zeros(3, requires_grad=True)"),
        ("attribute", "y = (x * 2).mean()"),  # a new line for each, while there is one
    ]


def digest(folder):
    return {path.relative_to(folder).as_posix(): (hashlib.sha256(path.read_bytes()).hexdigest(),
                                                 path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_the_files_on_disk_are_never_touched(site, capsys):
    before = digest(site)
    status = mutate.main(["--root", str(site), "docs/en/demo.md"])
    assert digest(site) == before
    out = capsys.readouterr().out
    assert status == 1  # a weak section
    assert "snippets/demo/checks.py:weak: WEAK" in out
    assert "not mutated: the page skips it (needs a second device)" in out
    assert out.strip().splitlines()[-1].startswith("4 sections, 2 killed, 1 weak")


def test_a_weak_section_is_accepted_only_with_a_reason(site, capsys):
    assert mutate.main(["--root", str(site), "docs/en/demo.md", "--section", "weak",
                        "--allow-weak", "snippets/demo/checks.py:weak: a demo of a weak check"]) == 0
    assert "weak, accepted: a demo of a weak check" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        mutate.main(["--root", str(site), "docs/en/demo.md",
                     "--allow-weak", "snippets/demo/checks.py:weak"])


def test_a_page_that_fails_unmutated_is_reported_and_not_mutated(site, capsys):
    snippet = site / "snippets" / "demo" / "checks.py"
    snippet.write_text(SNIPPET.replace("# > tensor([3., 5.])", "# > tensor([3., 6.])"))
    assert mutate.main(["--root", str(site), "docs/en/demo.md"]) == 2
    assert "the page fails WITHOUT any mutant (output)" in capsys.readouterr().out


def test_the_time_budget_leaves_sections_untried_and_says_so(site, capsys):
    assert mutate.main(["--root", str(site), "docs/en/demo.md", "--budget", "1e-9"]) == 3
    assert "the time budget ran out" in capsys.readouterr().out


def test_a_mutant_that_never_ends_is_stopped_by_the_time_limit(site):
    (site / "docs" / "en" / "loop.md").write_text(
        '```python\n--8<-- "snippets/demo/checks.py:loop"\n```\n')
    result = mutate.mutate_page(site / "docs" / "en" / "loop.md", site, timeout=0.5)
    outcomes = {o.mutant.after.strip(): o for o in result.sections[0].outcomes}
    assert outcomes["while n >= 3:"].how == "assertion"
    assert outcomes["n -= 1  # the mutant n -= 1 never ends: the time limit kills it"].how == "timeout"
    assert not outcomes["n = 1"].killed  # n still ends at 3


def test_global_state_a_page_changes_is_restored_after_each_run(site):
    import torch

    (site / "snippets" / "demo" / "state.py").write_text(
        "# --8<-- [start:state]\nimport torch\ntorch.set_default_dtype(torch.float64)\n"
        "torch.set_grad_enabled(False)\n# --8<-- [end:state]\n")
    (site / "docs" / "en" / "state.md").write_text(
        '```python\n--8<-- "snippets/demo/state.py:state"\n```\n')
    before = torch.get_default_dtype(), torch.is_grad_enabled()
    mutate.mutate_page(site / "docs" / "en" / "state.md", site)
    assert (torch.get_default_dtype(), torch.is_grad_enabled()) == before


def test_every_section_of_the_real_home_page_bites():
    """The tool on a real page, as a contributor runs it (the other pages: see CONTRIBUTING)."""
    from ptdocs.mutate import main

    assert main([str(ROOT / "docs" / "en" / "index.md")]) == 0
