"""Do a page's checks bite? Change the code under test, in memory, and see the page fail.

    python -m ptdocs.mutate                          # every English page under docs/en
    python -m ptdocs.mutate docs/en/autograd.md      # one page (or several)
    python -m ptdocs.mutate docs/en/measuring.md --section walkthrough.py:row --budget 300
    python -m ptdocs.mutate docs/en/tensors.md --list   # the mutants only, nothing is run

For every section a page includes (each ``--8<-- "snippets/...py:name"`` line of a
Python block) it makes up to ``--max-mutants`` (3) small changes to the code the
section shows, one at a time, and runs the whole page with that change (up to its
first failure), in this
process, exactly as the tests run it (the Sybil parsers and setup of
``conftest.py``, in page order, one namespace). A mutant is *killed* when the page
fails; a section none of whose mutants is killed is *weak*: its checks would pass
if the code were wrong.

* **What is changed.** One token on one line: a number (``n`` → ``n+1``; a float
  ``x`` → ``x+1``, or ``2x`` when ``|x| < 1``), an operator (``+``↔``-``, ``*``↔``/``,
  ``**``/``@`` → ``*``, ``//`` → ``/``, ``&``↔``|``, ``+=``↔``-=``, ``*=``↔``/=``), a
  comparison (``<``↔``>=``, ``>``↔``<=``, ``==``↔``!=``), a unary ``-`` or ``not``
  dropped, ``True``↔``False``, or an attribute from a short list of look-alikes
  (``sum``↔``mean``, ``exp``↔``log``, ``float32``↔``float64``, ``zeros``↔``ones``, ...).
  The choice is deterministic: operators, attributes, numbers, booleans, in turn, a
  different line each while there is one. A change that does not parse is not made.
* **What is never changed: the expectations.** ``assert`` and ``raise`` statements,
  calls whose name contains ``assert`` (``assert_close``, ``torch.testing.*``),
  ``print(...)`` statements, f-strings and ``# >`` lines (comments) stay as they are;
  so do seeds and print settings (``manual_seed``, ``set_printoptions``) and timing
  knobs (``min_run_time=``, ``number=``), whose changes no correct check should notice.
* **Nothing on disk is touched.** The page is parsed from the tree as it is; the
  mutated line replaces the original only in the parsed includes, in memory, for every
  include of the page that shows that line of that file, which is what the page would
  run with the changed file.
* **How a mutant is killed** is reported: ``assertion`` (an ``assert`` or
  ``assert_close``), ``output`` (a ``# >`` mismatch: this is also how an expected
  exception that is no longer raised shows, since its message is printed),
  ``prose-values``, or ``error: <Exception>`` (the mutant crashed: still a kill, but
  a weaker kind of evidence: a section killed only by errors is flagged), or
  ``timeout`` (``--timeout``: a mutant can loop forever).
* **Skipped examples** (a Sybil ``skip`` directive, e.g. accelerator-only) cannot be
  mutated here; they are listed as not mutated, with the reason.
* **One language is enough.** Both languages include the same sections in the same
  blocks (tests/test_translation_parity.py checks it), so the English page is run; the
  report says whether the Spanish twin includes exactly the same sections.

Exit status: 0 when no section is weak, 1 when a section is weak (unless accepted
with ``--allow-weak "TARGET: reason"``, or listed in :data:`ACCEPTED_WEAK` with its
reason), 2 when a page fails before any mutation, 3 when ``--budget`` ran out
before every section was tried.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import functools
import importlib.util
import io
import os
import random
import re
import signal
import sys
import threading
import time
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from unittest import SkipTest

from .pages import Block
from .snippets import ROOT, Include

# Weak sections accepted on purpose: {"snippets/x/y.py:name": "why no check can fail here"}.
ACCEPTED_WEAK: dict[str, str] = {}

MAX_MUTANTS = 3

BINARY = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*", ast.FloorDiv: "/",
          ast.Pow: "*", ast.MatMult: "*", ast.BitAnd: "|", ast.BitOr: "&"}
BINARY_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
               ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|"}
AUGMENTED = {ast.Add: ("+=", "-="), ast.Sub: ("-=", "+="), ast.Mult: ("*=", "/="),
             ast.Div: ("/=", "*=")}
COMPARE = {ast.Lt: ("<", ">="), ast.GtE: (">=", "<"), ast.Gt: (">", "<="), ast.LtE: ("<=", ">"),
           ast.Eq: ("==", "!="), ast.NotEq: ("!=", "==")}
_PAIRS = ["sum mean", "max min", "amax amin", "argmax argmin", "exp log", "sin cos",
          "tanh sigmoid", "add sub", "mul div", "add_ sub_", "mul_ div_", "zeros ones",
          "zeros_like ones_like", "cumsum cumprod", "floor ceil", "all any", "float32 float64",
          "float16 bfloat16", "int32 int64", "no_grad enable_grad", "cat stack", "matmul mul"]
ATTRIBUTES = {a: b for pair in _PAIRS for a, b in [pair.split(), pair.split()[::-1]]}
# Calls and keywords whose arguments no correct check should notice.
UNCHECKED_CALLS = {"manual_seed", "seed", "set_printoptions", "printoptions"}
UNCHECKED_KEYWORDS = {"seed", "precision", "linewidth", "number", "repeat", "min_run_time",
                      "warmup"}
KIND_ORDER = ("operator", "attribute", "number", "boolean")


@dataclass(frozen=True)
class Mutant:
    path: str  # the snippet file, relative to the root
    line: int  # 1-based line in that file
    kind: str  # one of KIND_ORDER
    before: str  # the whole line, as in the file
    after: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {_code(self.before)}  ->  {_code(self.after)}"


def _code(line: str) -> str:
    """A line without its indentation and trailing comment, for the report."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip()).readline))
        comment = next((tok.start[1] for tok in tokens if tok.type == tokenize.COMMENT), None)
    except (tokenize.TokenError, SyntaxError):
        comment = None
    return line.strip()[:comment].rstrip()


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    how: str = ""  # assertion / output / prose-values / error: X / timeout
    where: str = ""  # the first line of the failure
    seconds: float = 0.0


@dataclass
class Section:
    target: str  # "snippets/x.py:name", as written on the page
    include: Include
    skipped: str | None = None  # the reason, when the page skips the block that shows it
    mutants: list[Mutant] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    untried: bool = False  # the time budget ran out first

    @property
    def verdict(self) -> str:
        if self.skipped is not None:
            return "skipped"
        if not self.mutants:
            return "nothing to mutate"
        if self.untried:
            return "not tried"
        if any(outcome.killed for outcome in self.outcomes):
            return "killed"
        return "weak"

    @property
    def killed_only_by_errors(self) -> bool:
        """Killed, but no check failed: every kill was a crash."""
        kills = [outcome for outcome in self.outcomes if outcome.killed]
        return bool(kills) and all(outcome.how.startswith("error") for outcome in kills)


# --------------------------------------------------------------------- mutants
def expectation_lines(tree: ast.AST) -> set[int]:
    """The lines of the statements that state what the code should do: never mutated."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assert, ast.Raise)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and _is_expectation_call(node.value)):
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
    return name == "print" or "assert" in name.lower() or dotted.startswith("torch.testing.")


def _protected(tree: ast.AST) -> set[int]:
    """ids of nodes inside f-strings, seed/print-option calls and timing keywords."""
    protected: set[int] = set()
    for node in ast.walk(tree):
        roots = []
        if isinstance(node, ast.JoinedStr):
            roots = [node]
        elif isinstance(node, ast.Call) and _call_name(node) in UNCHECKED_CALLS:
            roots = node.args + [keyword.value for keyword in node.keywords]
        elif isinstance(node, ast.keyword) and node.arg in UNCHECKED_KEYWORDS:
            roots = [node.value]
        for root in roots:
            protected.update(id(inner) for inner in ast.walk(root))
    return protected


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _operator_column(lines: list[str], start: tuple[int, int], end: tuple[int, int],
                     text: str) -> tuple[int, int] | None:
    """Where ``text`` (an operator) stands between two operands: skips spaces, ``)`` and comments."""
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


def candidates(source: str, path: str) -> list[Mutant]:
    """Every mutant of ``source`` (a snippet's code, padded so line numbers are the file's)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    skip_lines = expectation_lines(tree)
    protected = _protected(tree)
    found: list[tuple[int, int, str, str, str]] = []  # line, column, old, new, kind

    def add(line, column, old, new, kind):
        if line not in skip_lines:
            found.append((line, column, old, new, kind))

    for node in ast.walk(tree):
        if id(node) in protected:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            if any(_is_text(side) for side in (node.left, node.right)):
                continue  # string arithmetic: concatenation, repetition
            text = BINARY_TEXT[type(node.op)]
            at = _operator_column(lines, (node.left.end_lineno, node.left.end_col_offset),
                                  (node.right.lineno, node.right.col_offset), text)
            if at and not (text == "*" and lines[at[0] - 1].startswith("**", at[1])):
                add(*at, text, BINARY[type(node.op)], "operator")
        elif isinstance(node, ast.AugAssign) and type(node.op) in AUGMENTED:
            old, new = AUGMENTED[type(node.op)]
            at = _operator_column(lines, (node.target.end_lineno, node.target.end_col_offset),
                                  (node.value.lineno, node.value.col_offset), old)
            if at:
                add(*at, old, new, "operator")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:]):
                if type(op) in COMPARE:
                    old, new = COMPARE[type(op)]
                    at = _operator_column(lines, (left.end_lineno, left.end_col_offset),
                                          (right.lineno, right.col_offset), old)
                    if at and not lines[at[0] - 1].startswith(old + "=", at[1]):
                        add(*at, old, new, "operator")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            old = "-" if isinstance(node.op, ast.USub) else "not"
            if lines[node.lineno - 1].startswith(old, node.col_offset):
                add(node.lineno, node.col_offset, old, "", "operator")
        elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            column = node.end_col_offset - len(node.attr)
            if lines[node.end_lineno - 1][column:node.end_col_offset] == node.attr:
                add(node.end_lineno, column, node.attr, ATTRIBUTES[node.attr], "attribute")
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            add(node.lineno, node.col_offset, str(node.value), str(not node.value), "boolean")
        elif (isinstance(node, ast.Constant) and type(node.value) in (int, float)
              and node.lineno == node.end_lineno):
            old = lines[node.lineno - 1][node.col_offset:node.end_col_offset]
            value = node.value
            if isinstance(value, int):
                new = str(value + 1)
            elif value == 0 or abs(value) >= 1:
                new = repr(value + 1.0)
            else:
                new = repr(value * 2)
            add(node.lineno, node.col_offset, old, new, "number")

    mutants = []
    for line, column, old, new, kind in sorted(set(found)):
        before = lines[line - 1]
        after = before[:column] + new + before[column + len(old):]
        if after == before:
            continue
        changed = lines[:line - 1] + [after] + lines[line:]
        try:
            ast.parse("\n".join(changed))
        except SyntaxError:
            continue
        mutants.append(Mutant(path, line, kind, before, after))
    return mutants


def choose(mutants: list[Mutant], limit: int) -> list[Mutant]:
    """Up to ``limit`` mutants: kinds in turn (operators first), a new line each where possible."""
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
                    if mutant not in chosen and (allow_same_line or mutant.line not in used):
                        chosen.append(mutant)
                        progress = True
                        break
    return chosen


def mutate_include(include: Include, mutant: Mutant) -> Include:
    """The include as it reads with ``mutant`` applied to its file (as is, if it does not show that line)."""
    index = mutant.line - include.first_line
    if include.path != mutant.path or not 0 <= index < len(include.shown):
        return include
    if include.shown[index] != mutant.before:
        raise RuntimeError(f"{mutant.path} changed while the mutants ran: run the tool again")
    shown = include.shown[:index] + (mutant.after,) + include.shown[index + 1:]
    return dataclasses.replace(include, shown=shown)


# --------------------------------------------------------------------- running a page
@functools.lru_cache(maxsize=None)
def _conftest():
    """The repository's conftest.py, for the Sybil parsers and setup the tests use."""
    spec = importlib.util.spec_from_file_location("_ptdocs_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PageRunner:
    """Runs one page as the tests do, with an optional mutant substituted in memory."""

    def __init__(self, page: Path, root: Path = ROOT) -> None:
        from sybil import Sybil

        from .pages import PageBlockParser, ProseValuesParser

        conftest = _conftest()
        self.root = Path(root)
        self.page = Path(page)
        # The tests' parsers, in the tests' order, reading snippets under ``root``.
        parsers = [type(parser)(self.root) if isinstance(parser, (PageBlockParser, ProseValuesParser))
                   else parser for parser in conftest.pages.parsers]
        self.sybil = Sybil(parsers=parsers, setup=conftest.pages.setup,
                           teardown=conftest.pages.teardown)

    def blocks(self) -> list[Block]:
        document = self.sybil.parse(self.page)
        return [region.parsed for _, region in document.regions if isinstance(region.parsed, Block)]

    def run(self, mutant: Mutant | None = None, timeout: float | None = None):
        """(failure or None, {target: skip reason}) for one run of the whole page."""
        document = self.sybil.parse(self.page)
        if mutant is not None:
            for _, region in document.regions:
                if isinstance(region.parsed, Block):
                    block = region.parsed
                    region.parsed = dataclasses.replace(
                        block, includes=tuple(mutate_include(i, mutant) for i in block.includes))
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
        """Each example in page order, as pytest runs them; the first failure, if any."""
        from sybil.example import SybilFailure

        if self.sybil.setup:
            self.sybil.setup(document.namespace)
        try:
            for example in document.examples():
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
        finally:
            if self.sybil.teardown:
                self.sybil.teardown(document.namespace)
        return None


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
    """Raised by the alarm: a BaseException, so the page runner's ``except Exception`` lets it by."""


@contextlib.contextmanager
def _alarm(seconds: float | None):
    if (not seconds or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
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
    """Run from the root, as pytest does, and undo the global state a mutant may have changed."""
    import torch

    saved = dict(cwd=os.getcwd(), path=list(sys.path), dtype=torch.get_default_dtype(),
                 grad=torch.is_grad_enabled(), rng=torch.get_rng_state(), random=random.getstate(),
                 threads=torch.get_num_threads(), anomaly=torch.is_anomaly_enabled(),
                 deterministic=torch.are_deterministic_algorithms_enabled(),
                 printoptions=_print_options(torch))
    os.chdir(root)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        # What a page's code writes to stderr (warnings) is not the page's output: pytest
        # captures it too.
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()), _quiet_fd(2):
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
    """Send what native code writes to ``fd`` (the profiler's log lines) to a scratch file."""
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
    return {name: getattr(options, name) for name in dir(options)
            if not name.startswith("_") and not callable(getattr(options, name))}


# --------------------------------------------------------------------- a page's report
@dataclass
class PageResult:
    page: str
    sections: list[Section]
    baseline_failure: tuple[str, str] | None = None
    baseline_seconds: float = 0.0
    twin_note: str = ""


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


def twin_note(page: Path, root: Path) -> str:
    """Whether the other language's page includes the same sections in the same order."""
    try:
        relative = page.resolve().relative_to((root / "docs").resolve())
    except ValueError:
        return ""
    if len(relative.parts) < 2 or relative.parts[0] not in ("en", "es"):
        return ""
    other = "es" if relative.parts[0] == "en" else "en"
    twin = root / "docs" / other / Path(*relative.parts[1:])
    if not twin.is_file():
        return f"no {other} twin"

    def targets(path: Path) -> list[str]:
        return [include.target for block in PageRunner(path, root).blocks()
                for include in block.includes]

    same = targets(twin) == targets(page)
    return (f"the {other} twin includes the same sections in the same order" if same else
            f"the {other} twin's includes DIFFER: run it too")


def mutate_page(page: Path, root: Path = ROOT, *, patterns: list[str] = (), limit: int = MAX_MUTANTS,
                timeout: float | None = None, deadline: float | None = None,
                progress=None) -> PageResult:
    """Mutate every (matching) section of ``page`` and run the page with each mutant."""
    root = Path(root)
    page = Path(page) if Path(page).is_absolute() else root / page
    runner = PageRunner(page, root)
    name = str(page.relative_to(root)) if page.is_relative_to(root) else str(page)
    result = PageResult(name, page_sections(runner, list(patterns)), twin_note=twin_note(page, root))
    start = time.monotonic()
    failure, skipped = runner.run()
    result.baseline_seconds = time.monotonic() - start
    if failure:
        result.baseline_failure = failure
        return result
    timeout = timeout or max(30.0, 10 * result.baseline_seconds)
    for section in result.sections:
        section.skipped = skipped.get(section.target)
        if section.skipped is not None:
            continue
        source = section.include.padded_source
        section.mutants = choose(candidates(source, section.include.path), limit)
        for mutant in section.mutants:
            if deadline is not None and time.monotonic() > deadline:
                section.untried = True
                section.outcomes.clear()
                break
            begun = time.monotonic()
            failure, _ = runner.run(mutant, timeout)
            outcome = Outcome(mutant, failure is not None, *(failure or ("", "")),
                              seconds=time.monotonic() - begun)
            section.outcomes.append(outcome)
            if progress:
                progress(section, outcome)
    return result


def report(result: PageResult, accepted: dict[str, str], out=None) -> None:
    out = out or sys.stdout
    print(f"== {result.page} (run in {result.baseline_seconds:.1f} s unmutated"
          + (f"; {result.twin_note}" if result.twin_note else "") + ")", file=out)
    if result.baseline_failure:
        kind, where = result.baseline_failure
        print(f"   the page fails WITHOUT any mutant ({kind}): {where}", file=out)
        return
    for section in result.sections:
        verdict = section.verdict
        if verdict == "weak" and section.target in accepted:
            verdict = f"weak, accepted: {accepted[section.target]}"
        elif verdict == "weak":
            verdict = "WEAK"
        elif verdict == "killed":
            killed = sum(outcome.killed for outcome in section.outcomes)
            verdict = f"killed {killed}/{len(section.outcomes)}"
            if section.killed_only_by_errors:
                verdict += " (only by errors: no check failed)"
        elif verdict == "skipped":
            verdict = f"not mutated: the page skips it ({section.skipped})"
        print(f"   {section.target}: {verdict}", file=out)
        for outcome in section.outcomes:
            status = f"killed ({outcome.how}): {outcome.where}" if outcome.killed else "SURVIVED"
            print(f"      {outcome.mutant.describe()}\n         {status}", file=out)


def summary(results: list[PageResult], accepted: dict[str, str]) -> tuple[str, int]:
    sections = [s for r in results for s in r.sections if not r.baseline_failure]
    verdicts = [s.verdict for s in sections]
    weak = [s for s in sections if s.verdict == "weak" and s.target not in accepted]
    by_errors = sum(s.verdict == "killed" and s.killed_only_by_errors for s in sections)
    line = (f"{len(sections)} sections, {verdicts.count('killed')} killed, {len(weak)} weak"
            f" ({by_errors} killed only by errors, {verdicts.count('weak') - len(weak)} weak accepted,"
            f" {verdicts.count('skipped')} skipped,"
            f" {verdicts.count('nothing to mutate')} with nothing to mutate,"
            f" {verdicts.count('not tried')} not tried)")
    if any(r.baseline_failure for r in results):
        return line + "; a page fails without any mutant", 2
    if weak:
        return line, 1
    if verdicts.count("not tried"):
        return line + "; the time budget ran out", 3
    return line, 0


def _accepted(values: list[str]) -> dict[str, str]:
    accepted = dict(ACCEPTED_WEAK)
    for value in values:
        target, _, reason = value.partition(":")
        # the target itself has a colon: "snippets/x.py:name: reason"
        section, _, reason = reason.partition(":")
        if not reason.strip():
            raise SystemExit(f"error: --allow-weak {value!r}: write 'snippets/x.py:name: the reason'")
        accepted[f"{target}:{section}".strip()] = reason.strip()
    return accepted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ptdocs.mutate", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", metavar="PAGE",
                        help="pages to mutate (default: every page under docs/en)")
    parser.add_argument("--section", action="append", default=[], metavar="TEXT",
                        help="only sections whose target contains TEXT (repeatable)")
    parser.add_argument("--max-mutants", type=int, default=MAX_MUTANTS, metavar="N",
                        help=f"mutants per section (default {MAX_MUTANTS})")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="stop starting mutants after this long; untried sections are listed")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="one mutant's run (default: 10 times the unmutated page, at least 30 s)")
    parser.add_argument("--allow-weak", action="append", default=[], metavar="'TARGET: REASON'",
                        help="accept a weak section, with the reason (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants; run nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    accepted = _accepted(args.allow_weak)
    pages = [Path(p) for p in args.pages] or sorted(
        p.relative_to(root) for p in (root / "docs" / "en").rglob("*.md"))
    for page in pages:
        path = page if page.is_absolute() else root / page
        if page.suffix != ".md" or not path.is_file() or not path.resolve().is_relative_to(root / "docs"):
            parser.error(f"{page}: no such page; give a page such as docs/en/autograd.md")
    if not pages:
        parser.error(f"no pages under {root / 'docs' / 'en'}")
    for name, value in (("--max-mutants", args.max_mutants), ("--budget", args.budget),
                        ("--timeout", args.timeout)):
        if value is not None and not value > 0:
            parser.error(f"{name} must be above 0, not {value}")
    if args.list:
        for page in pages:
            runner = PageRunner(page if page.is_absolute() else root / page, root)
            print(f"== {page}")
            for section in page_sections(runner, args.section):
                mutants = choose(candidates(section.include.padded_source, section.include.path),
                                 args.max_mutants)
                print(f"   {section.target}: {len(mutants)} mutant(s)")
                for mutant in mutants:
                    print(f"      {mutant.kind}: {mutant.describe()}")
        return 0
    started = time.monotonic()
    deadline = started + args.budget if args.budget else None
    results = []
    for page in pages:
        result = mutate_page(page, root, patterns=args.section, limit=args.max_mutants,
                             timeout=args.timeout, deadline=deadline)
        report(result, accepted)
        sys.stdout.flush()
        results.append(result)
    line, status = summary(results, accepted)
    print(f"{line}  [{time.monotonic() - started:.1f} s]")
    return status


if __name__ == "__main__":
    sys.exit(main())
