"""The selection file shown on the choosing page is real, valid, and checked.

Loads snippets/choosing/selection.yaml with the page's own validator
(snippets/choosing/selection.py) and shows that every kind of broken file is
refused with a clear one-line error.
"""

import contextlib
import io
import runpy

import pytest

from ptdocs.snippets import ROOT

SNIPPETS = ROOT / "snippets" / "choosing"
SELECTION = SNIPPETS / "selection.yaml"

GOOD = """\
selection:
  dependency: torch
  need_autograd: true
  target_device: cpu
  operators: [aten.add.Tensor, aten.mul.Tensor, aten.pow.Tensor_Scalar, aten.sub.Tensor]
  acceptance: known-answer-then-representative-task
  serving_layer: separate-decision
"""


def _run(name):
    """A snippet file's namespace, run from the repository root as the page runs it."""
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()):
        return runpy.run_path(str(SNIPPETS / name))


@pytest.fixture(scope="module")
def validator():
    return _run("selection.py")


@pytest.fixture(scope="module")
def checklist():
    return _run("checklist.py")


def test_the_file_on_the_page_is_valid(validator):
    selection = validator["load_selection"](SELECTION)
    assert selection == {
        "dependency": "torch",
        "need_autograd": True,
        "target_device": "cpu",
        "operators": [
            "aten.add.Tensor",
            "aten.mul.Tensor",
            "aten.pow.Tensor_Scalar",
            "aten.sub.Tensor",
        ],
        "acceptance": "known-answer-then-representative-task",
        "serving_layer": "separate-decision",
    }


def test_the_file_lists_what_the_pilot_runs_and_each_is_core_aten(validator, checklist):
    operators = validator["load_selection"](SELECTION)["operators"]
    traced = checklist["aten_operators"](checklist["p"], checklist["z"])
    assert operators == sorted(traced) == checklist["needed"]
    assert checklist["outside_core_aten"](traced) == []


def test_the_operator_check_flags_what_the_target_lacks(checklist):
    # The richer pilot runs aten.sum.default, which is not in Core ATen; the
    # check must name it, and only it.
    traced = checklist["aten_operators"](checklist["first_probability"], checklist["z"])
    assert sorted(traced) == [
        "aten.div.Tensor",
        "aten.exp.default",
        "aten.select.int",
        "aten.sum.default",
    ]
    assert checklist["outside_core_aten"](traced) == ["aten.sum.default"]


def test_both_pages_show_the_file():
    include = '--8<-- "snippets/choosing/selection.yaml"'
    for language in ("en", "es"):
        page = (ROOT / "docs" / language / "choosing.md").read_text(encoding="utf-8")
        assert f"```yaml\n{include}\n```" in page, language


def _broken(field, value):
    """GOOD with one field's line replaced (value None: the line removed)."""
    lines = [
        line for line in GOOD.splitlines() if not line.strip().startswith(f"{field}:")
    ]
    if value is not None:
        lines.append(f"  {value}")
    return "\n".join(lines) + "\n"


BROKEN = {
    "misspelt field": (
        _broken("target_device", "target_devise: cpu"),
        "$.selection: 'target_device' is a required property; $.selection: Additional "
        "properties are not allowed ('target_devise' was unexpected)",
    ),
    "value not allowed": (
        _broken("target_device", "target_device: gpu"),
        "$.selection.target_device: 'gpu' is not one of ['cpu', 'cuda', 'mps', 'xpu']",
    ),
    "wrong type": (
        _broken("need_autograd", "need_autograd: sometimes"),
        "$.selection.need_autograd: 'sometimes' is not of type 'boolean'",
    ),
    "missing field": (
        _broken("acceptance", None),
        "$.selection: 'acceptance' is a required property",
    ),
    "no operators": (
        _broken("operators", "operators: []"),
        "$.selection.operators: [] should be non-empty",
    ),
    "operator listed twice": (
        _broken("operators", "operators: [aten.exp.default, aten.exp.default]"),
        "$.selection.operators: ['aten.exp.default', 'aten.exp.default'] "
        "has non-unique elements",
    ),
    "operator without an overload": (
        _broken("operators", "operators: [aten.pow]"),
        "$.selection.operators[0]: 'aten.pow' does not match "
        "'^[a-z_][a-z0-9_]*\\\\.[a-z_][a-z0-9_]*\\\\.[A-Za-z0-9_]+$'",
    ),
    "a framework the file does not list": (
        _broken("dependency", "dependency: jax"),
        "$.selection.dependency: 'jax' is not one of "
        "['plain-python', 'numpy', 'torch', 'hosted-api']",
    ),
    "autograd without torch": (
        _broken("dependency", "dependency: hosted-api"),
        "$.selection.dependency: need_autograd is true but 'hosted-api' "
        "computes no gradients; of the allowed values, only 'torch' does",
    ),
    "not YAML": (
        "selection:\n\tdependency: torch\n",
        ", line 2: not valid YAML: found character '\\t' that cannot start any token",
    ),
    "empty file": ("", "the file is empty"),
    "a list, not a mapping": ("- torch\n", "$: ['torch'] is not of type 'object'"),
    "no selection key": (
        "dependency: torch\n",
        "$: 'selection' is a required property; "
        "$: Additional properties are not allowed ('dependency' was unexpected)",
    ),
}


def test_the_good_text_used_below_is_valid(validator):
    # The broken files are GOOD with one change, so each error below has one cause.
    assert validator["parse_selection"](GOOD, "good.yaml")["dependency"] == "torch"


@pytest.mark.parametrize("text, reason", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_file_gets_a_clear_one_line_error(validator, tmp_path, text, reason):
    path = tmp_path / "selection.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(validator["SelectionError"]) as caught:
        validator["load_selection"](path)
    message = str(caught.value)
    assert "\n" not in message
    assert message == "selection.yaml" + (
        reason if reason.startswith(",") else f": {reason}"
    )
    assert (
        path.read_text(encoding="utf-8") == text
    )  # validation never rewrites the file
