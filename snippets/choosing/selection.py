# --8<-- [start:schema]
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator

# Field names and allowed values. additionalProperties: false turns a misspelt
# field into an error instead of a line that is silently ignored.
SCHEMA = {
    "type": "object",
    "required": ["selection"],
    "additionalProperties": False,
    "properties": {
        "selection": {
            "type": "object",
            "required": [
                "dependency",
                "need_autograd",
                "target_device",
                "operators",
                "acceptance",
                "serving_layer",
            ],
            "additionalProperties": False,
            "properties": {
                "dependency": {
                    "enum": ["plain-python", "numpy", "torch", "hosted-api"]
                },
                "need_autograd": {"type": "boolean"},
                "target_device": {"enum": ["cpu", "cuda", "mps", "xpu"]},
                "operators": {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    # namespace.operator.overload, as make_fx names them
                    "items": {
                        "type": "string",
                        "pattern": r"^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*"
                        r"\.[A-Za-z0-9_]+$",
                    },
                },
                "acceptance": {
                    "enum": ["known-answer", "known-answer-then-representative-task"]
                },
                "serving_layer": {"enum": ["none", "separate-decision"]},
            },
        }
    },
}


class SelectionError(ValueError):
    """A selection file that cannot be used, with a one-line reason."""


def parse_selection(text, source):
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark else ""
        reason = getattr(error, "problem", None) or type(error).__name__
        raise SelectionError(f"{source}{where}: not valid YAML: {reason}") from None
    if document is None:
        raise SelectionError(f"{source}: the file is empty")
    # Every problem, on one line: a misspelt field shows up as two
    # (unexpected + missing).
    problems = sorted(
        f"{error.json_path}: {error.message}"
        for error in Draft202012Validator(SCHEMA).iter_errors(document)
    )
    if problems:
        raise SelectionError(f"{source}: " + "; ".join(problems))
    selection = document["selection"]
    # A rule across two fields, checked
    # by hand so the message can say why.
    if selection["need_autograd"] and selection["dependency"] != "torch":
        raise SelectionError(
            f"{source}: $.selection.dependency: need_autograd is true but "
            f"{selection['dependency']!r} computes no gradients; "
            "of the allowed values, only 'torch' does"
        )
    return selection


def load_selection(path):
    path = Path(path)
    return parse_selection(path.read_text(encoding="utf-8"), source=path.name)


# --8<-- [end:schema]


# --8<-- [start:load]
selection = load_selection("snippets/choosing/selection.yaml")
print(selection["dependency"], selection["need_autograd"], selection["target_device"])
# > torch True cpu
print(selection["operators"])
# > ['aten.add.Tensor', 'aten.mul.Tensor', 'aten.pow.Tensor_Scalar', 'aten.sub.Tensor']
# --8<-- [end:load]

# --8<-- [start:bad_file]
import textwrap

# Two broken copies of the file: a device name that is not allowed, and a
# dependency that cannot give the gradients the file asks for.
for field, value in [("target_device", "gpu"), ("dependency", "numpy")]:
    broken = yaml.safe_dump({"selection": {**selection, field: value}})
    try:
        parse_selection(broken, source="broken.yaml")
    except SelectionError as error:
        print(textwrap.fill(str(error), 80, subsequent_indent="  "))
# > broken.yaml: $.selection.target_device: 'gpu' is not one of ['cpu', 'cuda',
# >   'mps', 'xpu']
# > broken.yaml: $.selection.dependency: need_autograd is true but 'numpy' computes
# >   no gradients; of the allowed values, only 'torch' does
# --8<-- [end:bad_file]
