"""Do a page's checks bite? Change the code under test, in memory, and see the page
fail.

    python -m tools.mutate                            # every English page under docs/en
    python -m tools.mutate docs/en/autograd.md        # one page (or several)
    python -m tools.mutate docs/en/measuring.md --section profiler.py
    python -m tools.mutate docs/en/tensors.md --list  # the mutants only, nothing is run
    python -m tools.mutate --max-mutants 4            # what CI runs: 4 per section

For every section a page includes (each ``--8<-- "snippets/...py:name"`` line of a
Python block) it makes small changes to the code the section shows, one at a time,
and runs the whole page with that change (up to its first failure), in this process,
exactly as the tests run it (the Sybil parsers and setup of ``conftest.py``, in page
order, one namespace). Each mutant ends one of three ways:

* **caught**: a check failed: an ``assert``/``assert_close`` (``assertion``), a
  ``# >`` line (``output``: also how an expected exception that is no longer raised
  shows, since its message is printed) or a ``prose-values`` comment;
* **crashed**: the page raised something no check raised (``error: NameError``...),
  or ran over ``--timeout``. The code broke loudly, but no check said why: reported
  apart, never counted as caught;
* **survived**: the page passed with the wrong code. Every survivor is a finding: the
  check would pass if the code were wrong. One that cannot be caught (an equivalent
  change) or is open elsewhere is listed, with why, in ``tools/mutants-known.txt``.

**What is changed** (``kind``: the change), semantic kinds first:

* ``statement``: a statement becomes ``pass`` (a call such as ``x.grad.zero_()``,
  an assignment to an attribute, an item or a name bound before; never an import or
  the first binding of a name, whose loss can only crash);
* ``context``: a context manager swapped (``inference_mode`` <-> ``no_grad``,
  ``no_grad`` -> ``enable_grad``) or dropped (``with torch.no_grad():`` -> ``if
  True:``);
* ``return``: a function returns its first argument unchanged;
* ``order``: two adjacent statements swapped when one changes what the other reads or
  changes, or one reads a clock (the clock started after the call it times);
* ``tolerance``: an ``atol=``/``rtol=``/``tolerance`` value 10 times looser: the one
  change made inside a check. It survives unless something pins how tight the
  tolerance is (a value just outside it that must fail);
* ``operator``, ``attribute``, ``number``, ``boolean``: one token (``+``<->``-``,
  ``<``<->``>=``, ``sum``<->``mean``, ``float32``<->``float64``, ``n`` -> ``n+1``,
  a keyword's whole number -> 0, ``True``<->``False``, a unary ``-``/``not`` dropped).

**What is never changed**: the expectations (``assert``, ``raise``, calls whose name
contains ``assert``, ``torch.testing.*``, ``print(...)``, f-strings, ``# >`` lines),
except a tolerance; seeds and print settings (``manual_seed``, ``set_printoptions``),
and timing knobs (``min_run_time=``, ``number=``) whose changes no correct check
should notice. A change that does not parse is not made. Nothing on disk is touched:
the mutated lines replace the originals only in the page's parsed includes.

``--max-mutants N`` tries at most N per section, kinds in turn (in the order above),
a new line each while there is one: deterministic, so CI tries the same ones every
run. Without it every mutant is tried (minutes to hours on the measuring page).

Skipped examples (a Sybil ``skip`` directive) cannot be mutated here; they are listed
with the reason. One language is enough: both include the same sections in the same
blocks (tests/test_translation_parity.py), so the English page runs, and the report
says whether the Spanish twin includes exactly the same sections.

Exit status: 0 when every survivor is listed in the known file and every listed one
that was tried survived; 1 when a survivor is not listed, or a listed one no longer
survives (take it out of the list); 2 when a page fails before any mutation; 3 when
``--budget`` ran out before every mutant was tried.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import io
import json
import os
import random
import re
import select
import signal
import sys
import threading
import time
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from unittest import SkipTest

from ptdocs import layout
from ptdocs.pages import Block, PageBlockParser, ProseValuesParser
from ptdocs.snippets import ROOT, Include

KNOWN = Path(__file__).with_name("mutants-known.txt")

BINARY = {
    ast.Add: "-",
    ast.Sub: "+",
    ast.Mult: "/",
    ast.Div: "*",
    ast.FloorDiv: "/",
    ast.Pow: "*",
    ast.MatMult: "*",
    ast.BitAnd: "|",
    ast.BitOr: "&",
}
BINARY_TEXT = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.BitAnd: "&",
    ast.BitOr: "|",
}
AUGMENTED = {
    ast.Add: ("+=", "-="),
    ast.Sub: ("-=", "+="),
    ast.Mult: ("*=", "/="),
    ast.Div: ("/=", "*="),
}
COMPARE = {
    ast.Lt: ("<", ">="),
    ast.GtE: (">=", "<"),
    ast.Gt: (">", "<="),
    ast.LtE: ("<=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
}
_PAIRS = [
    "sum mean",
    "max min",
    "amax amin",
    "argmax argmin",
    "exp log",
    "sin cos",
    "tanh sigmoid",
    "add sub",
    "mul div",
    "add_ sub_",
    "mul_ div_",
    "zeros ones",
    "zeros_like ones_like",
    "cumsum cumprod",
    "floor ceil",
    "all any",
    "float32 float64",
    "float16 bfloat16",
    "int32 int64",
    "no_grad enable_grad",
    "inference_mode no_grad",
    "cat stack",
    "matmul mul",
]
ATTRIBUTES: dict[str, list[str]] = {}
for _pair in _PAIRS:
    _a, _b = _pair.split()
    ATTRIBUTES.setdefault(_a, []).append(_b)
    ATTRIBUTES.setdefault(_b, []).append(_a)
# Calls and keywords whose arguments no correct check should notice.
UNCHECKED_CALLS = {
    "manual_seed",
    "seed",
    "set_printoptions",
    "printoptions",
    "catch_warnings",
    "simplefilter",
    "filterwarnings",
}
UNCHECKED_KEYWORDS = {"seed", "precision", "linewidth", "number", "min_run_time"}
TOLERANCE = re.compile(r"(.*_)?(atol|rtol|tol|tolerance)")
LOOSER = 10  # a tolerance mutant is this many times looser
KIND_ORDER = (
    "statement",
    "tolerance",
    "context",
    "return",
    "order",
    "operator",
    "attribute",
    "number",
    "boolean",
)
CAUGHT = ("assertion", "output", "prose-values")


@dataclass(frozen=True)
class Mutant:
    path: str  # the snippet file, relative to the root
    line: int  # 1-based line in that file of the first changed line
    kind: str  # one of KIND_ORDER
    before: str  # the changed lines as in the file ("\n" between two, for an ``order``)
    after: str

    @property
    def change(self) -> str:
        """What changed, without where: the key of the known list (line numbers
        move)."""
        return (
            " / ".join(map(_code, self.before.split("\n")))
            + "  ->  "
            + " / ".join(map(_code, self.after.split("\n")))
        )

    @property
    def key(self) -> str:
        return f"{self.path}: {self.change}"

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.change}"


def _code(line: str) -> str:
    """A line without its indentation and trailing comment, for the report."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip()).readline))
        comment = next(
            (tok.start[1] for tok in tokens if tok.type == tokenize.COMMENT), None
        )
    except (tokenize.TokenError, SyntaxError):
        comment = None
    return line.strip()[:comment].rstrip()


@dataclass
class Outcome:
    mutant: Mutant
    how: str = ""  # assertion / output / prose-values / error: X / timeout; "" survived
    where: str = ""  # the first line of the failure
    seconds: float = 0.0

    @property
    def status(self) -> str:
        if not self.how:
            return "survived"
        return "caught" if self.how in CAUGHT else "crashed"


@dataclass
class Section:
    target: str  # "snippets/x.py:name", as written on the page
    include: Include
    skipped: str | None = (
        None  # the reason, when the page skips the block that shows it
    )
    mutants: list[Mutant] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    untried: int = 0  # mutants the time budget left untried

    def count(self, status: str) -> int:
        return sum(outcome.status == status for outcome in self.outcomes)


# --------------------------------------------------------------------- mutants
def expectation_lines(tree: ast.AST) -> set[int]:
    """The lines of the statements that state what the code should do: never mutated."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assert, ast.Raise)) or (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and _is_expectation_call(node.value)
        ):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_expectation_call(call: ast.Call) -> bool:
    name = _call_name(call)
    dotted = ast.unparse(call.func)
    return (
        name == "print"
        or "assert" in name.lower()
        or dotted.startswith("torch.testing.")
    )


def _protected(tree: ast.AST) -> set[int]:
    """ids of nodes inside f-strings, seed/print-option calls and timing keywords."""
    protected: set[int] = set()
    for node in ast.walk(tree):
        roots = []
        if isinstance(node, ast.JoinedStr):
            roots = [node]
        elif isinstance(node, ast.Call) and _call_name(node) in UNCHECKED_CALLS:
            roots = [node]
        elif isinstance(node, ast.keyword) and node.arg in UNCHECKED_KEYWORDS:
            roots = [node.value]
        for root in roots:
            protected.update(id(inner) for inner in ast.walk(root))
    return protected


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    )


def _operator_column(
    lines: list[str], start: tuple[int, int], end: tuple[int, int], text: str
) -> tuple[int, int] | None:
    """Where ``text`` (an operator) stands between two operands: skips spaces, ``)``
    and comments."""
    line, column = start
    while (line, column) < end:
        current = lines[line - 1]
        if column >= len(current) or current[column] == "#" or current[column:] == "\\":
            line, column = line + 1, 0
            continue
        if current[column] in " \t)":
            column += 1
            continue
        return (line, column) if current.startswith(text, column) else None
    return None


def bound_names(tree: ast.AST) -> set[str]:
    """The names a piece of code binds (assignments, loops, imports, ``as``,
    definitions)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(
                (alias.asname or alias.name).split(".")[0] for alias in node.names
            )
    return names


def _simple(node: ast.stmt) -> bool:
    """A one-line statement that does something a check may see (not an import, not a
    check)."""
    if node.lineno != node.end_lineno:
        return False
    if isinstance(node, ast.Expr):
        return (
            isinstance(node.value, ast.Call)
            and _call_name(node.value) not in UNCHECKED_CALLS
        )
    if isinstance(node, ast.AnnAssign):
        return (
            node.value is not None
        )  # a bare annotation (a dataclass field) does nothing
    return isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete))


def _base(node: ast.AST) -> str | None:
    """The name an attribute, item or method chain starts from: ``x`` of
    ``x.grad[0].zero_``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def writes(node: ast.stmt) -> set[str]:
    """What a simple statement changes: names it binds, objects it assigns into or
    calls a method of (``calls.append(...)``, ``x.grad.zero_()``)."""
    changed = bound_names(node)
    targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
    changed.update(
        _base(t) for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))
    )
    if isinstance(node, ast.Expr) and isinstance(node.value.func, ast.Attribute):
        changed.add(_base(node.value.func.value))
    return changed - {None}


CLOCKS = {
    "perf_counter",
    "perf_counter_ns",
    "monotonic",
    "time",
    "record",
    "synchronize",
}


def _reads_clock(node: ast.stmt) -> bool:
    """A statement that reads a clock or marks a time: what runs next to it is what
    it times."""
    return any(
        isinstance(n, ast.Call) and _call_name(n) in CLOCKS for n in ast.walk(node)
    )


def reads(node: ast.stmt) -> set[str]:
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _bodies(tree: ast.AST):
    """Every statement list: the module's, and each compound statement's."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def candidates(source: str, path: str, defined: set[str] = frozenset()) -> list[Mutant]:
    """Every mutant of ``source`` (a snippet's code, padded so line numbers are the
    file's).

    ``defined``: names the page binds before this code runs (so deleting a later
    assignment to one of them changes a value instead of raising NameError)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    skip_lines = expectation_lines(tree)
    protected = _protected(tree)
    imported = {
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in bound_names(node)
    }
    found: list[tuple[int, int, str, str, str]] = []  # line, column, old, new, kind
    whole: list[tuple[int, str, str, str]] = []  # line, old lines, new lines, kind

    def add(line, column, old, new, kind, *, check=False):
        if check or line not in skip_lines:
            found.append((line, column, old, new, kind))

    def whole_line(node: ast.stmt, new: str, kind: str):
        if node.lineno not in skip_lines:
            before = lines[node.lineno - 1]
            indent = before[: len(before) - len(before.lstrip())]
            whole.append((node.lineno, before, indent + new, kind))

    with_calls = {
        id(item.context_expr.func)
        for node in ast.walk(tree)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
        if isinstance(item.context_expr, ast.Call)
    }
    keyword_ints = {
        id(node.value) for node in ast.walk(tree) if isinstance(node, ast.keyword)
    }
    first_binding: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            first_binding[node.id] = min(
                first_binding.get(node.id, node.lineno), node.lineno
            )

    def bound_before(name: str, line: int) -> bool:
        return name in defined or first_binding.get(name, line) < line

    for node in ast.walk(tree):
        if id(node) in protected:
            continue
        # ---- whole statements
        if isinstance(node, ast.stmt) and _simple(node) and id(node) not in protected:
            if all(bound_before(name, node.lineno) for name in bound_names(node)):
                whole_line(node, "pass", "statement")
        if (
            isinstance(node, (ast.With, ast.AsyncWith))
            and node.lineno == node.body[0].lineno - 1
        ):
            item = node.items[0]
            if (
                len(node.items) == 1
                and item.optional_vars is None
                and not isinstance(node, ast.AsyncWith)
                and id(item.context_expr) not in protected
            ):
                whole_line(node, "if True:", "context")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [
                a.arg for a in node.args.posonlyargs + node.args.args if a.arg != "self"
            ]
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Return)
                    and inner.value is not None
                    and params
                    and inner.lineno == inner.end_lineno
                    and ast.unparse(inner.value) != params[0]
                ):
                    whole_line(inner, f"return {params[0]}", "return")
        # ---- tolerances: the one change inside a check
        if (
            isinstance(node, ast.keyword)
            and node.arg
            and TOLERANCE.fullmatch(node.arg)
            and node.value.lineno == node.value.end_lineno
        ):
            value = node.value
            old = lines[value.lineno - 1][value.col_offset : value.end_col_offset]
            new = (
                f"{value.value * LOOSER:.6g}"
                if isinstance(value, ast.Constant) and type(value.value) in (int, float)
                else f"({old}) * {LOOSER}"
            )
            add(value.lineno, value.col_offset, old, new, "tolerance", check=True)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and TOLERANCE.fullmatch(node.targets[0].id)
            and node.value.lineno == node.value.end_lineno
        ):
            value = node.value
            old = lines[value.lineno - 1][value.col_offset : value.end_col_offset]
            add(value.lineno, value.col_offset, old, f"({old}) * {LOOSER}", "tolerance")
        # ---- one token
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            if any(_is_text(side) for side in (node.left, node.right)):
                continue  # string arithmetic: concatenation, repetition
            text = BINARY_TEXT[type(node.op)]
            at = _operator_column(
                lines,
                (node.left.end_lineno, node.left.end_col_offset),
                (node.right.lineno, node.right.col_offset),
                text,
            )
            if at and not (text == "*" and lines[at[0] - 1].startswith("**", at[1])):
                add(*at, text, BINARY[type(node.op)], "operator")
        elif isinstance(node, ast.AugAssign) and type(node.op) in AUGMENTED:
            old, new = AUGMENTED[type(node.op)]
            at = _operator_column(
                lines,
                (node.target.end_lineno, node.target.end_col_offset),
                (node.value.lineno, node.value.col_offset),
                old,
            )
            if at:
                add(*at, old, new, "operator")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                if type(op) in COMPARE:
                    old, new = COMPARE[type(op)]
                    at = _operator_column(
                        lines,
                        (left.end_lineno, left.end_col_offset),
                        (right.lineno, right.col_offset),
                        old,
                    )
                    if at and not lines[at[0] - 1].startswith(old + "=", at[1]):
                        add(*at, old, new, "operator")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            old = "-" if isinstance(node.op, ast.USub) else "not"
            if lines[node.lineno - 1].startswith(old, node.col_offset):
                add(node.lineno, node.col_offset, old, "", "operator")
        elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            column = node.end_col_offset - len(node.attr)
            if lines[node.end_lineno - 1][column : node.end_col_offset] == node.attr:
                kind = "context" if id(node) in with_calls else "attribute"
                for new in ATTRIBUTES[node.attr]:
                    add(node.end_lineno, column, node.attr, new, kind)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            add(
                node.lineno,
                node.col_offset,
                str(node.value),
                str(not node.value),
                "boolean",
            )
        elif (
            isinstance(node, ast.Constant)
            and type(node.value) in (int, float)
            and node.lineno == node.end_lineno
        ):
            old = lines[node.lineno - 1][node.col_offset : node.end_col_offset]
            value = node.value
            if isinstance(value, int):
                new = str(value + 1)
                if (
                    value and id(node) in keyword_ints
                ):  # schedule(warmup=1): none at all
                    add(node.lineno, node.col_offset, old, "0", "number")
            elif value == 0 or abs(value) >= 1:
                new = repr(value + 1.0)
            else:
                new = repr(value * 2)
            add(node.lineno, node.col_offset, old, new, "number")

    # ---- two adjacent statements that share a name, swapped
    for body in _bodies(tree):
        for first, second in zip(body, body[1:], strict=False):
            if not (
                _simple(first)
                and _simple(second)
                and second.lineno == first.lineno + 1
                and not {first.lineno, second.lineno} & skip_lines
                and id(first) not in protected
                and id(second) not in protected
            ):
                continue
            # One changes what the other reads or changes: the order matters.
            shared = (
                (writes(first) & (reads(second) | writes(second)))
                | (writes(second) & reads(first))
            ) - imported
            if (shared or _reads_clock(first) or _reads_clock(second)) and all(
                bound_before(name, first.lineno)
                for name in reads(second) & bound_names(first)
            ):
                a, b = lines[first.lineno - 1], lines[second.lineno - 1]
                whole.append((first.lineno, f"{a}\n{b}", f"{b}\n{a}", "order"))

    mutants = []
    for line, column, old, new, kind in sorted(set(found)):
        before = lines[line - 1]
        after = before[:column] + new + before[column + len(old) :]
        if after != before:
            whole.append((line, before, after, kind))
    for line, before, after, kind in sorted(set(whole)):
        span = before.count("\n") + 1
        changed = lines[: line - 1] + after.split("\n") + lines[line - 1 + span :]
        try:
            ast.parse("\n".join(changed))
        except SyntaxError:
            continue
        mutants.append(Mutant(path, line, kind, before, after))
    return mutants


def choose(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """Up to ``limit`` mutants (all: None): kinds in turn, a new line each where
    possible."""
    if limit is None:
        limit = len(mutants)
    queues = {kind: [m for m in mutants if m.kind == kind] for kind in KIND_ORDER}
    chosen: list[Mutant] = []
    for allow_same_line in (False, True):
        progress = True
        while len(chosen) < limit and progress:
            progress = False
            for kind in KIND_ORDER:
                if len(chosen) >= limit:
                    break
                used = {m.line for m in chosen}
                for mutant in queues[kind]:
                    if mutant not in chosen and (
                        allow_same_line or mutant.line not in used
                    ):
                        chosen.append(mutant)
                        progress = True
                        break
    return chosen


def mutate_include(include: Include, mutant: Mutant) -> Include:
    """The include as it reads with ``mutant`` applied to its file (as is, if it does
    not show those lines)."""
    index = mutant.line - include.first_line
    before = mutant.before.split("\n")
    if include.path != mutant.path or not 0 <= index <= len(include.shown) - len(
        before
    ):
        return include
    if list(include.shown[index : index + len(before)]) != before:
        raise RuntimeError(
            f"{mutant.path} changed while the mutants ran: run the tool again"
        )
    shown = (
        include.shown[:index]
        + tuple(mutant.after.split("\n"))
        + include.shown[index + len(before) :]
    )
    return dataclasses.replace(include, shown=shown)


# --------------------------------------------------------------------- running a page
def site_sybil():
    """The Sybil the tests collect pages with: the root conftest.py's ``pages``.

    ``python -m tools.mutate`` runs from the root, which is first on ``sys.path``;
    under pytest, pass the conftest pytest loaded (``tests/conftest.py`` is
    ``conftest`` there)."""
    import conftest

    return conftest.pages


class PageRunner:
    """Runs one page as the tests do, with an optional mutant substituted in memory."""

    def __init__(self, page: Path, root: Path = ROOT, pages=None) -> None:
        from sybil import Sybil

        pages = pages or site_sybil()
        self.root = Path(root)
        self.page = Path(page)
        # The tests' parsers, in the tests' order, reading snippets under ``root``.
        parsers = [
            type(parser)(self.root)
            if isinstance(parser, (PageBlockParser, ProseValuesParser))
            else parser
            for parser in pages.parsers
        ]
        self.sybil = Sybil(parsers=parsers, setup=pages.setup, teardown=pages.teardown)

    def blocks(self) -> list[Block]:
        document = self.sybil.parse(self.page)
        return [
            region.parsed
            for _, region in document.regions
            if isinstance(region.parsed, Block)
        ]

    def run(self, mutant: Mutant | None = None, timeout: float | None = None):
        """(failure or None, {target: skip reason}) for one run of the whole page."""
        document = self.sybil.parse(self.page)
        if mutant is not None:
            for _, region in document.regions:
                if isinstance(region.parsed, Block):
                    block = region.parsed
                    region.parsed = dataclasses.replace(
                        block,
                        includes=tuple(
                            mutate_include(i, mutant) for i in block.includes
                        ),
                    )
        skipped: dict[str, str] = {}
        failure = None
        with _isolated(self.root):
            try:
                with _alarm(timeout):
                    failure = self._evaluate(document, skipped)
            except _Timeout:
                failure = ("timeout", f"the page ran over {timeout:g} s")
        return failure, skipped

    def _evaluate(self, document, skipped: dict[str, str]) -> tuple[str, str] | None:
        """Each example in page order, as pytest runs them; the first failure, if
        any."""
        if self.sybil.setup:
            self.sybil.setup(document.namespace)
        try:
            return _examples(list(document.examples()), skipped)
        finally:
            if self.sybil.teardown:
                self.sybil.teardown(document.namespace)

    def run_forked(
        self,
        mutants: list[Mutant],
        timeout: float,
        deadline: float | None = None,
        done=None,
    ) -> None:
        """Run the page once; before the first example a mutant changes, fork, and
        let the child run the rest of the page with the mutant. The examples before
        it run once for every mutant, not once each: the measuring page's mutants
        cost what follows them. ``done(mutant, failure, seconds)`` is called for
        each; past ``deadline`` no more are started."""
        document = self.sybil.parse(self.page)
        examples = list(document.examples())
        first: dict[int, list[Mutant]] = {}
        for mutant in mutants:
            index = next(
                (
                    k
                    for k, example in enumerate(examples)
                    if isinstance(example.parsed, Block)
                    and any(
                        mutate_include(i, mutant) is not i
                        for i in example.parsed.includes
                    )
                ),
                None,
            )
            if index is not None:  # else no example shows it: it stays untried
                first.setdefault(index, []).append(mutant)
        with _isolated(self.root):
            if self.sybil.setup:
                self.sybil.setup(document.namespace)
            for index, example in enumerate(examples):
                for mutant in first.get(index, []):
                    if deadline is not None and time.monotonic() > deadline:
                        return
                    begun = time.monotonic()
                    failure = _in_child(examples[index:], mutant, timeout)
                    done(mutant, failure, time.monotonic() - begun)
                if _examples([example], {}):
                    # the page fails unmutated now: the baseline run said it did not
                    return


def _examples(examples, skipped: dict[str, str]) -> tuple[str, str] | None:
    """Evaluate examples in order; the first failure, if any."""
    from sybil.example import SybilFailure

    for example in examples:
        try:
            example.evaluate()
        except SkipTest as skip:
            if isinstance(example.parsed, Block):
                for include in example.parsed.includes:
                    skipped.setdefault(include.target, str(skip))
        except SybilFailure as error:
            return _classify(error.result)
        except Exception as error:  # noqa: BLE001 - raised outside the page's code
            return f"error: {type(error).__name__}", str(error).split("\n")[0]
    return None


def _in_child(examples, mutant: Mutant, timeout: float) -> tuple[str, str] | None:
    """The rest of the page, with ``mutant``, in a forked child: its failure or None."""
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(read)
            for example in examples:
                if isinstance(example.parsed, Block):
                    example.parsed = dataclasses.replace(
                        example.parsed,
                        includes=tuple(
                            mutate_include(i, mutant) for i in example.parsed.includes
                        ),
                    )
            try:
                with _alarm(timeout):
                    failure = _examples(examples, {})
            except _Timeout:
                failure = ("timeout", f"the page ran over {timeout:g} s")
            os.write(write, json.dumps(failure).encode())
        except BaseException:  # noqa: BLE001 - whatever it is, the parent says it crashed
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as pipe:
        # A child stuck in native code never sees its alarm: stop it from here.
        while select.select([pipe], [], [], timeout + 30)[0]:
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", f"the page ran over {timeout:g} s (stopped from outside)"
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return "error: child", f"the run ended with status {status} before it reported"
    failure = json.loads(b"".join(chunks))
    return tuple(failure) if failure else None


def _classify(result: str) -> tuple[str, str]:
    """How a Sybil failure message says the page failed: (kind, first line)."""
    first = result.split("\n")[0]
    if "prose-values:" in first:
        return "prose-values", first
    if "what this prints differs" in first:
        return "output", first
    name = re.search(r": (\w+)$", first)
    if name and name[1] == "AssertionError":
        return "assertion", first
    message = [line.strip() for line in result.split("\n") if line.strip()][-1]
    message = message.removeprefix(f"{name[1]}:").strip() if name else message
    if name and message and message != name[1]:
        first = f"{first}: {message[:160]}"
    return (f"error: {name[1]}" if name else "error"), first


class _Timeout(BaseException):
    """Raised by the alarm: a BaseException, so the page runner's ``except
    Exception`` lets it by."""


@contextlib.contextmanager
def _alarm(seconds: float | None):
    if (
        not seconds
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def ring(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _isolated(root: Path):
    """Run from the root, as pytest does, and undo the global state a mutant may have
    changed."""
    import torch

    saved = dict(
        cwd=os.getcwd(),
        path=list(sys.path),
        dtype=torch.get_default_dtype(),
        grad=torch.is_grad_enabled(),
        rng=torch.get_rng_state(),
        random=random.getstate(),
        threads=torch.get_num_threads(),
        anomaly=torch.is_anomaly_enabled(),
        deterministic=torch.are_deterministic_algorithms_enabled(),
        printoptions=_print_options(torch),
    )
    os.chdir(root)
    # One thread: a forked child that enters an OpenMP parallel region the parent's
    # threads were part of waits for them forever (libgomp is not fork-safe). Baseline
    # and mutants alike run so; an output that depends on it fails the baseline.
    torch.set_num_threads(1)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        # What a page's code writes to stderr (warnings) is not the page's output:
        # pytest captures it too.
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stderr(io.StringIO()),
            _quiet_fd(2),
        ):
            yield
    finally:
        os.chdir(saved["cwd"])
        sys.path[:] = saved["path"]
        torch.set_default_dtype(saved["dtype"])
        torch.set_grad_enabled(saved["grad"])
        torch.set_rng_state(saved["rng"])
        random.setstate(saved["random"])
        torch.set_num_threads(saved["threads"])
        torch.set_anomaly_enabled(saved["anomaly"])
        torch.use_deterministic_algorithms(saved["deterministic"])
        for name, value in saved["printoptions"].items():
            setattr(torch._tensor_str.PRINT_OPTS, name, value)


@contextlib.contextmanager
def _quiet_fd(fd: int):
    """Send what native code writes to ``fd`` (the profiler's log lines) to a scratch
    file."""
    import tempfile

    try:
        saved = os.dup(fd)
    except OSError:
        yield
        return
    with tempfile.TemporaryFile() as scratch:
        os.dup2(scratch.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)


def _print_options(torch) -> dict:
    options = torch._tensor_str.PRINT_OPTS
    return {
        name: getattr(options, name)
        for name in dir(options)
        if not name.startswith("_") and not callable(getattr(options, name))
    }


# --------------------------------------------------------------------- a page's report
@dataclass
class PageResult:
    page: str
    sections: list[Section]
    baseline_failure: tuple[str, str] | None = None
    baseline_seconds: float = 0.0
    seconds: float = 0.0
    twin_note: str = ""

    @property
    def outcomes(self) -> list[Outcome]:
        return [outcome for section in self.sections for outcome in section.outcomes]

    def count(self, status: str) -> int:
        return sum(section.count(status) for section in self.sections)


def page_sections(runner: PageRunner, patterns: list[str]) -> list[Section]:
    sections: dict[str, Section] = {}
    for block in runner.blocks():
        for include in block.includes:
            if include.target in sections:
                continue
            if patterns and not any(pattern in include.target for pattern in patterns):
                continue
            sections[include.target] = Section(include.target, include)
    return list(sections.values())


def twin_note(page: Path, root: Path, pages=None) -> str:
    """Whether the other language's page includes the same sections in the same
    order."""
    try:
        relative = page.resolve().relative_to((root / "docs").resolve()).as_posix()
        language = layout.language(relative)
    except ValueError:  # not a page under docs/<language>/
        return ""
    if language not in ("en", "es"):
        return ""
    other = "es" if language == "en" else "en"
    twin = root / "docs" / other / relative.partition("/")[2]
    if not twin.is_file():
        return f"no {other} twin"

    def targets(path: Path) -> list[str]:
        return [
            include.target
            for block in PageRunner(path, root, pages).blocks()
            for include in block.includes
        ]

    same = targets(twin) == targets(page)
    return (
        f"the {other} twin includes the same sections in the same order"
        if same
        else f"the {other} twin's includes DIFFER: run it too"
    )


def mutants_of(runner: PageRunner, sections: list[Section], limit: int | None) -> None:
    """Each section's mutants, knowing the names the page bound before it."""
    defined: set[str] = set()
    all_targets = [include for block in runner.blocks() for include in block.includes]
    wanted = {section.target: section for section in sections}
    for include in all_targets:
        source = include.padded_source
        section = wanted.get(include.target)
        if section is not None and not section.mutants and section.skipped is None:
            section.mutants = choose(candidates(source, include.path, defined), limit)
        defined |= bound_names(ast.parse(source))


def mutate_page(
    page: Path,
    root: Path = ROOT,
    *,
    patterns: list[str] = (),
    limit: int | None = None,
    timeout: float | None = None,
    deadline: float | None = None,
    pages=None,
    fork: bool = True,
) -> PageResult:
    """Mutate every (matching) section of ``page`` and run the page with each mutant."""
    root = Path(root)
    page = Path(page) if Path(page).is_absolute() else root / page
    runner = PageRunner(page, root, pages)
    name = str(page.relative_to(root)) if page.is_relative_to(root) else str(page)
    result = PageResult(
        name,
        page_sections(runner, list(patterns)),
        twin_note=twin_note(page, root, pages),
    )
    start = time.monotonic()
    failure, skipped = runner.run()
    result.baseline_seconds = time.monotonic() - start
    if failure:
        result.baseline_failure = failure
        return result
    timeout = timeout or max(30.0, 10 * result.baseline_seconds)
    for section in result.sections:
        section.skipped = skipped.get(section.target)
    mutants_of(runner, result.sections, limit)
    owner = {
        mutant: section for section in result.sections for mutant in section.mutants
    }

    def done(mutant, failure, seconds):
        owner[mutant].outcomes.append(
            Outcome(mutant, *(failure or ("", "")), seconds=seconds)
        )

    if fork and hasattr(os, "fork"):
        runner.run_forked(list(owner), timeout, deadline, done)
    else:  # each mutant runs the whole page
        for mutant in owner:
            if deadline is not None and time.monotonic() > deadline:
                break
            begun = time.monotonic()
            done(mutant, runner.run(mutant, timeout)[0], time.monotonic() - begun)
    for section in result.sections:
        section.untried = len(section.mutants) - len(section.outcomes)
        order = {mutant: number for number, mutant in enumerate(section.mutants)}
        section.outcomes.sort(key=lambda outcome: order[outcome.mutant])
    result.seconds = time.monotonic() - start
    return result


def counts(outcomes_of) -> str:
    tried = (
        outcomes_of.count("caught")
        + outcomes_of.count("crashed")
        + outcomes_of.count("survived")
    )
    return (
        f"{tried} tried, {outcomes_of.count('caught')} caught, "
        f"{outcomes_of.count('survived')} survived, {outcomes_of.count('crashed')} "
        "crashed"
    )


def report(
    result: PageResult, known: dict[str, str], out=None, verbose: bool = False
) -> None:
    out = out or sys.stdout
    surviving = {o.mutant.key for o in result.outcomes if o.status == "survived"}
    print(
        f"== {result.page} (run in {result.baseline_seconds:.1f} s unmutated"
        + (f"; {result.twin_note}" if result.twin_note else "")
        + ")",
        file=out,
    )
    if result.baseline_failure:
        kind, where = result.baseline_failure
        print(f"   the page fails WITHOUT any mutant ({kind}): {where}", file=out)
        return
    for section in result.sections:
        if section.skipped is not None:
            print(
                f"   {section.target}: not mutated: the page skips it "
                f"({section.skipped})",
                file=out,
            )
            continue
        line = counts(section) if section.mutants else "nothing to mutate"
        if section.untried:
            line += f", {section.untried} not tried (time budget)"
        print(f"   {section.target}: {line}", file=out)
        for outcome in section.outcomes:
            status = outcome.status
            if status == "survived":
                mark = (
                    "survived, known: " + known[outcome.mutant.key]
                    if outcome.mutant.key in known
                    else "SURVIVED"
                )
            elif status == "crashed":
                mark = f"crashed ({outcome.how}): {outcome.where}"
            elif outcome.mutant.key in known and outcome.mutant.key not in surviving:
                mark = (
                    f"{status} ({outcome.how}), but LISTED as surviving: "
                    f"take it out of {KNOWN.name}"
                )
            elif verbose:
                mark = f"caught ({outcome.how}): {outcome.where}"
            else:
                continue
            print(
                f"      {outcome.mutant.kind}: {outcome.mutant.describe()}\n         "
                f"{mark}",
                file=out,
            )
    print(f"   {result.page}: {counts(result)} in {result.seconds:.0f} s", file=out)


def summary(results: list[PageResult], known: dict[str, str]) -> tuple[str, int]:
    outcomes = [o for r in results for o in r.outcomes]
    new = [o for o in outcomes if o.status == "survived" and o.mutant.key not in known]
    # A key names a change, not a line: the same change may survive on one line and be
    # caught on another. Listed, tried, and surviving nowhere: it is stale.
    surviving = {o.mutant.key for o in outcomes if o.status == "survived"}
    stale = {o.mutant.key for o in outcomes if o.mutant.key in known} - surviving
    untried = sum(s.untried for r in results for s in r.sections)

    class All:
        count = staticmethod(lambda status: sum(o.status == status for o in outcomes))

    line = (
        f"{counts(All)}: {len(new)} survivor(s) not in {KNOWN.name},"
        f" {len(stale)} listed there but no longer surviving"
    )
    if any(r.baseline_failure for r in results):
        return line + "; a page fails without any mutant", 2
    if new or stale:
        return line, 1
    if untried:
        return line + f"; the time budget ran out ({untried} not tried)", 3
    return line, 0


def read_known(path: Path) -> dict[str, str]:
    """The known list: ``snippets/x.py: BEFORE  ->  AFTER  # why``, one a line."""
    known = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, why = line.rpartition("  # ")
        if not sep or not why.strip() or "  ->  " not in key:
            raise SystemExit(
                f"error: {path.name}, line {number}: write "
                "'snippets/x.py: BEFORE  ->  AFTER  # why it survives'"
            )
        known[key.strip()] = why.strip()
    return known


def main(argv: list[str] | None = None, pages=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mutate", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "pages",
        nargs="*",
        metavar="PAGE",
        help="pages to mutate (default: every page under docs/en)",
    )
    parser.add_argument(
        "--section",
        action="append",
        default=[],
        metavar="TEXT",
        help="only sections whose target contains TEXT (repeatable)",
    )
    parser.add_argument(
        "--max-mutants",
        type=int,
        metavar="N",
        help="mutants per section, kinds in turn (default: every mutant)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="stop starting mutants after this long; untried ones are counted",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="one mutant's run (default: 10 times the unmutated page, at least 30 s)",
    )
    parser.add_argument(
        "--known",
        type=Path,
        default=KNOWN,
        metavar="FILE",
        help=f"the surviving mutants known, with why (default: tools/{KNOWN.name})",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show the caught mutants too"
    )
    parser.add_argument(
        "--list", action="store_true", help="list the mutants; run nothing"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # torch.compile's worker processes would be shared by every forked child: compile
    # here.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    root = args.root.resolve()
    listed = sorted(p.relative_to(root) for p in (root / "docs" / "en").rglob("*.md"))
    pages_to_run = [Path(p) for p in args.pages] or listed
    for page in pages_to_run:
        path = page if page.is_absolute() else root / page
        if (
            page.suffix != ".md"
            or not path.is_file()
            or not path.resolve().is_relative_to(root / "docs")
        ):
            parser.error(
                f"{page}: no such page; give a page such as docs/en/autograd.md"
            )
    if not pages_to_run:
        parser.error(f"no pages under {root / 'docs' / 'en'}")
    for name, value in (
        ("--max-mutants", args.max_mutants),
        ("--budget", args.budget),
        ("--timeout", args.timeout),
    ):
        if value is not None and not value > 0:
            parser.error(f"{name} must be above 0, not {value}")
    if not args.known.is_file():
        parser.error(f"--known {args.known}: no such file")
    known = read_known(args.known)
    if args.list:
        for page in pages_to_run:
            runner = PageRunner(
                page if page.is_absolute() else root / page, root, pages
            )
            print(f"== {page}")
            sections = page_sections(runner, args.section)
            mutants_of(runner, sections, args.max_mutants)
            for section in sections:
                print(f"   {section.target}: {len(section.mutants)} mutant(s)")
                for mutant in section.mutants:
                    print(f"      {mutant.kind}: {mutant.describe()}")
        return 0
    started = time.monotonic()
    deadline = started + args.budget if args.budget else None
    results = []
    for page in pages_to_run:
        result = mutate_page(
            page,
            root,
            patterns=args.section,
            limit=args.max_mutants,
            timeout=args.timeout,
            deadline=deadline,
            pages=pages,
        )
        report(result, known, verbose=args.verbose)
        sys.stdout.flush()
        results.append(result)
    line, status = summary(results, known)
    print(f"{line}  [{time.monotonic() - started:.1f} s]")
    return status


if __name__ == "__main__":
    sys.exit(main())
