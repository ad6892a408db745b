"""Do a page's checks bite? Change the code a page runs, in memory, one mutant at a
time, and run the page with each: ``python -m tools.mutate [PAGE...]`` from the root.
CONTRIBUTING.md ("Do the checks bite?") explains the kinds of mutants, what is never
changed, the outcomes (caught, crashed, survived) and tools/mutants-known.txt."""

import argparse
import ast
import contextlib
import dataclasses
import io
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from unittest import SkipTest

from ptdocs.pages import Block, PageBlockParser, ProseValuesParser
from ptdocs.snippets import ROOT, Include

KNOWN = Path(__file__).with_name("mutants-known.txt")

# An operator of ast (binary or comparison), its text and the mutant's text.
OPERATORS = {
    getattr(ast, name): (old, new)
    for name, old, new in map(
        str.split,
        "Add + -, Sub - +, Mult * /, Div / *, FloorDiv // /, Pow ** *, MatMult @ *, "
        "BitAnd & |, BitOr | &, Lt < >=, GtE >= <, Gt > <=, LtE <= >, Eq == "
        "!=, NotEq != ==".split(", "),
    )
}
AUGMENTED = (ast.Add, ast.Sub, ast.Mult, ast.Div)  # += <-> -=, *= <-> /=
# Names swapped for each other, a pair at a time (a name may have several partners).
PAIRS = """sum mean, max min, amax amin, argmax argmin, exp log, sin cos, tanh sigmoid,
add sub, mul div, add_ sub_, mul_ div_, zeros ones, zeros_like ones_like, all any,
cumsum cumprod, floor ceil, float32 float64, float16 bfloat16, int32 int64, cat stack,
no_grad enable_grad, inference_mode no_grad, matmul mul"""
ATTRIBUTES: dict[str, list[str]] = {}
for _a, _b in (pair.split() for pair in PAIRS.split(",")):
    ATTRIBUTES.setdefault(_a, []).append(_b)
    ATTRIBUTES.setdefault(_b, []).append(_a)
# Calls and keywords whose arguments no correct check should notice.
UNCHECKED_CALLS = set(
    "manual_seed seed set_printoptions printoptions catch_warnings "
    "simplefilter filterwarnings".split()
)
UNCHECKED_KEYWORDS = {"seed", "precision", "linewidth", "number", "min_run_time"}
# A statement calling one of these reads a clock or marks a time: swapped with its
# neighbour, it times something else.
CLOCKS = set("perf_counter perf_counter_ns monotonic time record synchronize".split())
TOLERANCE = re.compile(r"(.*_)?(atol|rtol|tol|tolerance)")
LOOSER = 10  # a tolerance mutant is this many times looser
KINDS = "statement tolerance context return order operator attribute number boolean"
KIND_ORDER = tuple(KINDS.split())
STATUS = dict.fromkeys(("assertion", "output", "prose-values"), "caught")


@dataclass(frozen=True)
class Mutant:
    path: str  # the snippet file, relative to the root
    line: int  # 1-based line in that file of the first changed line
    kind: str  # one of KIND_ORDER
    before: str  # the changed lines as in the file ("\n" between two, for an ``order``)
    after: str

    @property
    def change(self) -> str:
        """What changed, without where: the known list's key (line numbers move)."""
        sides = (self.before, self.after)
        return "  ->  ".join(" / ".join(map(_code, t.split("\n"))) for t in sides)

    @property
    def key(self) -> str:
        """The known list's key: the file and the change."""
        return f"{self.path}: {self.change}"

    @property
    def shown(self) -> str:
        """How the report names the mutant: its kind, where and what changed."""
        return f"{self.kind}: {self.path}:{self.line}: {self.change}"


def _code(line: str) -> str:
    """A line without its indentation and trailing comment (kept where the line does
    not tokenize alone), as the known list writes it."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip()).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    comment = next((t.start[1] for t in tokens if t.type == tokenize.COMMENT), None)
    return line.strip()[:comment].rstrip()


@dataclass
class Outcome:
    mutant: Mutant
    how: str = ""  # assertion / output / prose-values / error: X / timeout; "" survived
    where: str = ""  # the first line of the failure

    @property
    def status(self) -> str:
        """caught, crashed (an error or the time limit) or survived (nothing failed)."""
        if not self.how:
            return "survived"
        return STATUS.get(self.how, "crashed")


@dataclass
class Section:
    target: str  # "snippets/x.py:name", as written on the page
    skipped: str | None = None  # the reason, when the page skips the block showing it
    mutants: list[Mutant] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def untried(self) -> int:
        """The mutants the time budget left without a run."""
        return len(self.mutants) - len(self.outcomes)


# --------------------------------------------------------------------- mutants
def _call_name(call: ast.Call) -> str:
    return getattr(call.func, "attr", None) or getattr(call.func, "id", "")


def expectation_lines(tree: ast.AST) -> set[int]:
    """The lines of the statements that state what the code should do: never mutated."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        call = node.value if isinstance(node, ast.Expr) else None
        name = _call_name(call) if isinstance(call, ast.Call) else None
        if isinstance(node, (ast.Assert, ast.Raise)) or (
            name is not None
            and (
                name == "print"
                or "assert" in name.lower()
                or ast.unparse(call.func).startswith("torch.testing.")
            )
        ):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def _protected(tree: ast.AST) -> set[int]:
    """ids of nodes inside f-strings, seed/print-option calls and timing keywords."""
    protected: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in UNCHECKED_KEYWORDS:
            protected.update(map(id, ast.walk(node.value)))
        elif isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Call) and _call_name(node) in UNCHECKED_CALLS
        ):
            protected.update(map(id, ast.walk(node)))
    return protected


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(
        getattr(node, "value", None), (str, bytes)
    )


def bound_names(tree: ast.AST) -> set[str]:
    """The names code binds (assignments, loops, imports, ``as``, definitions)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _simple(node: ast.stmt) -> bool:
    """A one-line statement that does something a check may see (not an import, not a
    check, not a bare annotation such as a dataclass field)."""
    if node.lineno != node.end_lineno:
        return False
    if isinstance(node, ast.Expr):
        value = node.value
        return isinstance(value, ast.Call) and _call_name(value) not in UNCHECKED_CALLS
    if isinstance(node, ast.AnnAssign):
        return node.value is not None
    return isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete))


def _base(node: ast.AST) -> str | None:
    """The name a chain starts from: ``x`` of ``x.grad[0].zero_``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def writes(node: ast.stmt) -> set[str]:
    """What a simple statement changes: names it binds, objects it assigns into or
    calls a method of (``calls.append(...)``, ``x.grad.zero_()``)."""
    targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
    if isinstance(node, ast.Expr) and isinstance(node.value.func, ast.Attribute):
        targets = [node.value.func]
    chained = (t for t in targets if isinstance(t, (ast.Attribute, ast.Subscript)))
    return (bound_names(node) | {_base(t) for t in chained}) - {None}


def reads(node: ast.stmt) -> set[str]:
    names = (n for n in ast.walk(node) if isinstance(n, ast.Name))
    return {n.id for n in names if isinstance(n.ctx, ast.Load)}


def candidates(source: str, path: str, defined: set[str] = frozenset()) -> list[Mutant]:
    """Every mutant of ``source`` (a snippet's code, padded to the file's line numbers).

    ``defined``: names the page binds before this code runs (so deleting a later
    assignment to one of them changes a value instead of raising NameError)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    checks, protected = expectation_lines(tree), _protected(tree)
    imports = (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))
    imported = set().union(*map(bound_names, imports))
    first_binding: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            first_binding[node.id] = min(first_binding.get(node.id, 1e9), node.lineno)
    with_calls = {
        id(item.context_expr.func)
        for node in ast.walk(tree)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
        if isinstance(item.context_expr, ast.Call)
    }
    signs = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.OP and t.string != ")"
    ]
    keyword_values = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.keyword)}
    whole = set()  # (line, old lines, new lines, kind)

    def token(line, column, old, new, kind, in_check=False):
        before = lines[line - 1]
        after = before[:column] + new + before[column + len(old) :]
        if (in_check or line not in checks) and after != before:
            whole.add((line, before, after, kind))

    def operator(left, right, old, new):
        """The operator between two operands: the first token after the left one but
        a closing parenthesis (``*`` is not ``**``, nor ``<`` ``<=``)."""
        span = (left.end_lineno, left.end_col_offset), (right.lineno, right.col_offset)
        found = next((t for t in signs if span[0] <= t.start < span[1]), None)
        if found and found.string == old:
            token(*found.start, old, new, "operator")

    def statement(node: ast.stmt, new: str, kind: str):
        if node.lineno not in checks:
            before = lines[node.lineno - 1]
            indent = before[: len(before) - len(before.lstrip())]
            whole.add((node.lineno, before, indent + new, kind))

    def bound_before(names, line: int) -> bool:
        return all(n in defined or first_binding.get(n, line) < line for n in names)

    def clock(node: ast.stmt) -> bool:
        calls = (n for n in ast.walk(node) if isinstance(n, ast.Call))
        return any(_call_name(call) in CLOCKS for call in calls)

    for node in ast.walk(tree):
        if id(node) in protected:
            continue
        # ---- whole statements
        simple = isinstance(node, ast.stmt) and _simple(node)
        if simple and bound_before(bound_names(node), node.lineno):
            statement(node, "pass", "statement")
        if (
            isinstance(node, ast.With)
            and node.lineno == node.body[0].lineno - 1
            and len(node.items) == 1
            and node.items[0].optional_vars is None
            and id(node.items[0].context_expr) not in protected
        ):
            statement(node, "if True:", "context")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args
            params = [a.arg for a in arguments if a.arg != "self"]
            for inner in ast.walk(node):
                if (
                    params
                    and isinstance(inner, ast.Return)
                    and inner.value is not None
                    and inner.lineno == inner.end_lineno
                    and ast.unparse(inner.value) != params[0]
                ):
                    statement(inner, f"return {params[0]}", "return")
        # ---- tolerances: the one change made inside a check
        value, in_check = None, isinstance(node, ast.keyword)
        if in_check and node.arg and TOLERANCE.fullmatch(node.arg):
            value = node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            if TOLERANCE.fullmatch(getattr(node.targets[0], "id", "")):
                value = node.value
        if value is not None and value.lineno == value.end_lineno:
            old = lines[value.lineno - 1][value.col_offset : value.end_col_offset]
            new = f"({old}) * {LOOSER}"
            if in_check and type(getattr(value, "value", None)) in (int, float):
                new = f"{value.value * LOOSER:.6g}"
            token(value.lineno, value.col_offset, old, new, "tolerance", in_check)
        # ---- one token
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            if not any(_is_text(side) for side in (node.left, node.right)):
                operator(node.left, node.right, *OPERATORS[type(node.op)])
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, AUGMENTED):
            old, new = OPERATORS[type(node.op)]
            operator(node.target, node.value, old + "=", new + "=")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                if type(op) in OPERATORS:
                    operator(left, right, *OPERATORS[type(op)])
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            old = "-" if isinstance(node.op, ast.USub) else "not"
            if lines[node.lineno - 1].startswith(old, node.col_offset):
                token(node.lineno, node.col_offset, old, "", "operator")
        elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            column = node.end_col_offset - len(node.attr)
            if lines[node.end_lineno - 1][column : node.end_col_offset] == node.attr:
                kind = "context" if id(node) in with_calls else "attribute"
                for new in ATTRIBUTES[node.attr]:
                    token(node.end_lineno, column, node.attr, new, kind)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            value = str(node.value)
            token(node.lineno, node.col_offset, value, str(not node.value), "boolean")
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
            old = lines[node.lineno - 1][node.col_offset : node.end_col_offset]
            number, at = node.value, (node.lineno, node.col_offset)
            if node.lineno != node.end_lineno:
                continue
            if isinstance(number, int):
                new = str(number + 1)
                if number and id(node) in keyword_values:  # schedule(warmup=1): none
                    token(*at, old, "0", "number")
            else:
                new = repr(
                    number + 1.0 if number == 0 or abs(number) >= 1 else number * 2
                )
            token(*at, old, new, "number")

    # ---- two adjacent statements, swapped where one changes what the other reads or
    # changes, or one reads a clock
    for node in ast.walk(tree):
        for body in (getattr(node, n, None) for n in ("body", "orelse", "finalbody")):
            if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
                continue
            for first, second in zip(body, body[1:], strict=False):
                if not (
                    _simple(first)
                    and _simple(second)
                    and second.lineno == first.lineno + 1
                    and not {first.lineno, second.lineno} & checks
                    and not {id(first), id(second)} & protected
                ):
                    continue
                one, two = writes(first), writes(second)
                shared = (
                    (one & (reads(second) | two)) | (two & reads(first))
                ) - imported
                if (shared or clock(first) or clock(second)) and bound_before(
                    reads(second) & bound_names(first), first.lineno
                ):
                    a, b = lines[first.lineno - 1], lines[second.lineno - 1]
                    whole.add((first.lineno, f"{a}\n{b}", f"{b}\n{a}", "order"))

    mutants = []
    for line, before, after, kind in sorted(whole):
        end = line + before.count("\n")
        try:  # a change that does not parse is not made
            ast.parse("\n".join(lines[: line - 1] + after.split("\n") + lines[end:]))
        except SyntaxError:
            continue
        mutants.append(Mutant(path, line, kind, before, after))
    return mutants


def choose(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """Up to ``limit`` mutants (all: None), kinds in turn, a new line each while there
    is one: deterministic, so CI tries the same ones every run."""
    limit = len(mutants) if limit is None else limit
    chosen: list[Mutant] = []
    for same_line in (False, True):
        while len(chosen) < limit:
            before = len(chosen)
            for kind in KIND_ORDER:
                used = {m.line for m in chosen}
                fresh = (
                    m
                    for m in mutants
                    if m.kind == kind
                    and m not in chosen
                    and (same_line or m.line not in used)
                )
                if len(chosen) < limit and (mutant := next(fresh, None)):
                    chosen.append(mutant)
            if len(chosen) == before:
                break
    return chosen


def mutate_include(include: Include, mutant: Mutant) -> Include:
    """The include with ``mutant`` applied to its file (as is, if it does not show
    those lines)."""
    index = mutant.line - include.first_line
    before = mutant.before.split("\n")
    end = index + len(before)
    if include.path != mutant.path or index < 0 or end > len(include.shown):
        return include
    if list(include.shown[index:end]) != before:
        raise RuntimeError(f"{mutant.path} changed while the mutants ran: run again")
    shown = (*include.shown[:index], *mutant.after.split("\n"), *include.shown[end:])
    return dataclasses.replace(include, shown=shown)


# --------------------------------------------------------------------- running a page
class PageRunner:
    """Runs one page as the tests do, with mutants substituted in memory."""

    def __init__(self, page: Path, root: Path = ROOT, pages=None) -> None:
        from sybil import Sybil

        if pages is None:  # the tests' own: ``python -m`` puts the root on sys.path
            import conftest

            pages = conftest.pages
        self.root, self.page = Path(root), Path(page)
        # The tests' parsers, in the tests' order, reading snippets under ``root``.
        own = (PageBlockParser, ProseValuesParser)
        parsers = [
            type(p)(self.root) if isinstance(p, own) else p for p in pages.parsers
        ]
        self.sybil = Sybil(parsers=parsers, setup=pages.setup, teardown=pages.teardown)

    def blocks(self) -> list[Block]:
        regions = self.sybil.parse(self.page).regions
        return [r.parsed for _, r in regions if isinstance(r.parsed, Block)]

    def includes(self) -> list[Include]:
        return [include for block in self.blocks() for include in block.includes]

    def run(self, mutants=(), timeout=None, deadline=None, done=None):
        """Run the page once, as the tests do: (its first failure or None, {target:
        skip reason}). Before the first example a mutant changes, a forked child runs
        the rest of the page with it, so what comes before runs once, not once per
        mutant; ``done(mutant, failure)`` for each, none started past ``deadline``."""
        document = self.sybil.parse(self.page)
        examples = list(document.examples())
        first: dict[int, list[Mutant]] = {}  # by the first example that shows it
        for mutant in mutants:  # one that no example shows stays untried
            shows = (
                index
                for index, example in enumerate(examples)
                if isinstance(example.parsed, Block)
                and any(
                    mutate_include(i, mutant) is not i for i in example.parsed.includes
                )
            )
            if (index := next(shows, None)) is not None:
                first.setdefault(index, []).append(mutant)
        skipped: dict[str, str] = {}
        with _isolated(self.root):
            if self.sybil.setup:
                self.sybil.setup(document.namespace)
            try:
                for index, example in enumerate(examples):
                    for mutant in first.get(index, []):
                        if deadline is not None and time.monotonic() > deadline:
                            return None, skipped
                        done(mutant, _in_child(examples[index:], mutant, timeout))
                    if failure := _examples([example], skipped):
                        return failure, skipped
                return None, skipped
            finally:
                if self.sybil.teardown:
                    self.sybil.teardown(document.namespace)


def _examples(examples, skipped: dict[str, str]):
    """Evaluate the examples in order: the first failure (kind, first line), if any."""
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
        except Exception as error:  # raised outside the page's code
            return f"error: {type(error).__name__}", str(error).split("\n")[0]
    return None


def _in_child(examples, mutant: Mutant, timeout: float) -> tuple[str, str] | None:
    """The rest of the page, with ``mutant``, in a forked child: its failure or None."""

    def rest_of_page() -> None:
        for example in examples:
            if isinstance(example.parsed, Block):
                includes = (mutate_include(i, mutant) for i in example.parsed.includes)
                example.parsed = dataclasses.replace(
                    example.parsed, includes=tuple(includes)
                )
        send.send(_examples(examples, {}))

    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    child = fork.Process(target=rest_of_page)
    child.start()
    send.close()
    try:
        # Stopped from here: a child stuck in native code would not see an alarm.
        if not receive.poll(timeout):
            child.kill()
            return "timeout", f"the page ran over {timeout:g} s"
        return receive.recv()
    except EOFError:
        child.join()
        status = f"the run ended with status {child.exitcode} before it reported"
        return "error: child", status
    finally:
        child.join()
        receive.close()


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


# Global state a mutant may change, as (getter, setter) names of torch.
TORCH_STATE = """get_default_dtype set_default_dtype, is_grad_enabled set_grad_enabled,
get_rng_state set_rng_state, get_num_threads set_num_threads, is_anomaly_enabled
set_anomaly_enabled,
are_deterministic_algorithms_enabled use_deterministic_algorithms"""


@contextlib.contextmanager
def _isolated(root: Path):
    """Run from the root, as pytest does, stderr (warnings, the profiler's log lines)
    discarded as pytest captures it; then undo the global state a mutant changed."""
    import torch

    state = [(os.getcwd, os.chdir), (random.getstate, random.setstate)]
    for get, put in map(str.split, TORCH_STATE.split(",")):
        state.append((getattr(torch, get), getattr(torch, put)))
    saved = [(get(), put) for get, put in state]
    options = torch._tensor_str.PRINT_OPTS  # torch.set_printoptions has no getter
    printing = {n: getattr(options, n) for n in dir(options) if not n.startswith("_")}
    os.chdir(root)
    # One thread: a forked child that enters an OpenMP parallel region the parent's
    # threads were part of waits for them forever (libgomp is not fork-safe). Baseline
    # and mutants alike run so; an output that depends on it fails the baseline.
    torch.set_num_threads(1)
    native = os.dup(2)
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stderr(io.StringIO()),
            tempfile.TemporaryFile() as scratch,
        ):
            os.dup2(scratch.fileno(), 2)
            yield
    finally:
        os.dup2(native, 2)
        os.close(native)
        for value, put in saved:
            put(value)
        for name, value in printing.items():
            setattr(options, name, value)


# --------------------------------------------------------------------- a page's report
@dataclass
class PageResult:
    page: str
    sections: list[Section]
    baseline_failure: tuple[str, str] | None = None
    baseline_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def outcomes(self) -> list[Outcome]:
        """Every section's outcomes, in the page's order."""
        return [outcome for section in self.sections for outcome in section.outcomes]


def page_sections(runner: PageRunner, patterns, skipped=None) -> list[Section]:
    """The page's (matching) sections, without mutants: all that a page failing
    unmutated gets, since its snippets may not even parse."""
    targets = [include.target for include in runner.includes()]
    wanted = (t for t in targets if not patterns or any(p in t for p in patterns))
    return [Section(t, (skipped or {}).get(t)) for t in dict.fromkeys(wanted)]


def sections_of(runner: PageRunner, patterns, limit, skipped=None) -> list[Section]:
    """The page's (matching) sections and their mutants, each knowing the names the
    page bound before it; a section the page skips has none."""
    sections = {s.target: s for s in page_sections(runner, patterns, skipped)}
    defined: set[str] = set()
    for include in runner.includes():
        source = include.padded_source
        section = sections.get(include.target)
        if section is not None and not section.mutants and section.skipped is None:
            section.mutants = choose(candidates(source, include.path, defined), limit)
        defined |= bound_names(ast.parse(source))
    return list(sections.values())


def mutate_page(
    page, root=ROOT, *, patterns=(), limit=None, timeout=None, deadline=None, pages=None
) -> PageResult:
    """Mutate every (matching) section of ``page`` and run the page with each mutant."""
    root = Path(root)
    page = root / page  # an absolute page stays as it is
    runner = PageRunner(page, root, pages)
    name = str(page.relative_to(root)) if page.is_relative_to(root) else str(page)
    start = time.monotonic()
    failure, skipped = runner.run()
    result = PageResult(name, [], failure, time.monotonic() - start)
    if failure:
        result.sections = page_sections(runner, list(patterns))
        return result
    result.sections = sections_of(runner, list(patterns), limit, skipped)
    owner = {m: section for section in result.sections for m in section.mutants}

    def done(mutant, failure):
        owner[mutant].outcomes.append(Outcome(mutant, *(failure or ())))

    timeout = timeout or max(30.0, 10 * result.baseline_seconds)
    runner.run(list(owner), timeout, deadline, done)
    for section in result.sections:
        section.outcomes.sort(key=lambda outcome: section.mutants.index(outcome.mutant))
    result.seconds = time.monotonic() - start
    return result


def counts(outcomes: list[Outcome]) -> str:
    tally = Counter(outcome.status for outcome in outcomes)
    each = ", ".join(f"{tally[s]} {s}" for s in ("caught", "survived", "crashed"))
    return f"{len(outcomes)} tried, {each}"


def _mark(
    outcome: Outcome, known: dict[str, str], surviving: set[str], verbose: bool
) -> str:
    """What the report says under a mutant; "" for a catch, unless verbose."""
    key = outcome.mutant.key
    if outcome.status == "survived":
        if key in known:
            return f"survived, known: {known[key]}"
        return "SURVIVED"
    if outcome.status == "crashed":
        return f"crashed ({outcome.how}): {outcome.where}"
    if key in known and key not in surviving:
        return (
            f"caught ({outcome.how}), but LISTED as surviving: take it out "
            f"of {KNOWN.name}"
        )
    if verbose:
        return f"caught ({outcome.how}): {outcome.where}"
    return ""


def report(result: PageResult, known: dict[str, str], verbose: bool = False) -> None:
    surviving = {o.mutant.key for o in result.outcomes if o.status == "survived"}
    print(f"== {result.page} (run in {result.baseline_seconds:.1f} s unmutated)")
    if result.baseline_failure:
        kind, where = result.baseline_failure
        print(f"   the page fails WITHOUT any mutant ({kind}): {where}")
        return
    for section in result.sections:
        line = counts(section.outcomes) if section.mutants else "nothing to mutate"
        if section.skipped is not None:
            line = f"not mutated: the page skips it ({section.skipped})"
        elif section.untried:
            line += f", {section.untried} not tried (time budget)"
        print(f"   {section.target}: {line}")
        for outcome in section.outcomes:
            mark = _mark(outcome, known, surviving, verbose)
            if mark:
                print(f"      {outcome.mutant.shown}\n         {mark}")
    print(f"   {result.page}: {counts(result.outcomes)} in {result.seconds:.0f} s")


def summary(results: list[PageResult], known: dict[str, str]) -> tuple[str, int]:
    """The closing line and the exit status: 2 a page fails unmutated; 1 a survivor
    not listed, or a listed one that survives no more; 3 the budget ran out; else 0."""
    outcomes = [o for r in results for o in r.outcomes]
    new = [o for o in outcomes if o.status == "survived" and o.mutant.key not in known]
    # A key names a change, not a line: the same change may survive on one line and be
    # caught on another. Listed, tried, and surviving nowhere: it is stale.
    surviving = {o.mutant.key for o in outcomes if o.status == "survived"}
    stale = {o.mutant.key for o in outcomes if o.mutant.key in known} - surviving
    untried = sum(s.untried for r in results for s in r.sections)
    line = (
        f"{counts(outcomes)}: {len(new)} survivor(s) not in {KNOWN.name},"
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
    add = parser.add_argument
    add("pages", nargs="*", type=Path, help="default: every page under docs/en")
    add("--section", action="append", default=[], help="only targets containing it")
    add("--max-mutants", type=int, help="per section, kinds in turn (default: all)")
    add("--budget", type=float, help="seconds after which no mutant is started")
    add(
        "--timeout",
        type=float,
        help="seconds a mutant may run (default: 10x the page's)",
    )
    add("--known", type=Path, default=KNOWN, help=f"default: tools/{KNOWN.name}")
    add("--verbose", action="store_true", help="show the caught mutants too")
    add("--list", action="store_true", help="list the mutants; run nothing")
    add("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # torch.compile's worker processes would be shared by every forked child.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    root = args.root.resolve()
    to_run = args.pages or sorted(
        path.relative_to(root) for path in (root / "docs" / "en").rglob("*.md")
    )
    for page in to_run:
        path = (root / page).resolve()  # an absolute page stays as it is
        if not (
            page.suffix == ".md" and path.is_file() and root / "docs" in path.parents
        ):
            parser.error(
                f"{page}: not a page under docs/; give one such as docs/en/autograd.md"
            )
    if not to_run:
        parser.error(f"no pages under {root / 'docs' / 'en'}")
    for option in ("max_mutants", "budget", "timeout"):
        if (value := getattr(args, option)) is not None and not value > 0:
            parser.error(f"--{option.replace('_', '-')} must be above 0, not {value}")
    if not args.known.is_file():
        parser.error(f"--known {args.known}: no such file")
    known, limit = read_known(args.known), args.max_mutants
    if args.list:
        for page in to_run:
            print(f"== {page}")
            runner = PageRunner(root / page, root, pages)
            for section in sections_of(runner, args.section, limit):
                print(f"   {section.target}: {len(section.mutants)} mutant(s)")
                for mutant in section.mutants:
                    print(f"      {mutant.shown}")
        return 0
    started = time.monotonic()
    deadline = started + args.budget if args.budget else None
    options = dict(
        patterns=args.section, limit=limit, timeout=args.timeout, pages=pages
    )
    results = []
    for page in to_run:
        results.append(mutate_page(page, root, deadline=deadline, **options))
        report(results[-1], known, verbose=args.verbose)
        sys.stdout.flush()
    line, status = summary(results, known)
    print(f"{line}  [{time.monotonic() - started:.1f} s]")
    return status


if __name__ == "__main__":
    sys.exit(main())
