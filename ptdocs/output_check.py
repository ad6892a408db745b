"""What a page shows its code prints, and whether a run printed it: one set of rules
for the page tests (:mod:`ptdocs.pages`) and the downloads (:mod:`ptdocs.downloads`).

A download runs with nothing but torch, so this is the standard library only. The
download carries its code: the part under "recording" is its first code cell, the part
under "comparing" its last (``ptdocs.downloads.check_cells`` cuts at the markers and
drops the docstrings and comments), so neither may lean on ``from __future__`` and no
comment in them may start as an output line does.
"""

# ---------------------------------------------------------------- recording
import ast
import gettext
import io
import re
import sys
import tokenize
import urllib.parse
from dataclasses import dataclass
from operator import eq, ge, gt, le, lt, ne


class Recorder:
    """Stands in for sys.stdout while the examples run: ``runs`` holds each piece of
    code (the script, count None; or each notebook cell, with its execution count)
    with its writes, each credited to the module-level line running at the time."""

    def __init__(self, namespace):
        self.namespace, self.stream, self.runs = namespace, sys.stdout, []
        ipython = sys.modules.get("IPython")
        self.shell = getattr(ipython, "get_ipython", lambda: None)()
        if self.shell is not None:
            self.shell.events.register("pre_run_cell", self.cell)
        elif namespace.get("__file__"):
            with open(namespace["__file__"], encoding="utf-8") as script:
                self.runs.append((script.read(), [], None))
        sys.stdout = self

    def cell(self, info):
        self.runs.append((info.raw_cell, [], self.shell.execution_count))

    def write(self, text):
        frame = sys._getframe(1)
        while frame is not None and not (
            frame.f_globals is self.namespace and frame.f_code.co_name == "<module>"
        ):
            frame = frame.f_back
        if self.runs:
            writes = self.runs[-1][1]
            # Printed outside the code (another thread): the last line that printed.
            last = writes[-1][0] if writes else 0
            writes.append((frame.f_lineno if frame is not None else last, text))
        return self.stream.write(text)

    def __getattr__(self, name):  # flush, encoding, isatty, ...: the real stream's
        return getattr(self.stream, name)

    def stop(self):
        """Stop recording; the runs to check (in a notebook, not the checking cell)."""
        sys.stdout = self.stream
        if self.shell is None:
            return self.runs
        self.shell.events.unregister("pre_run_cell", self.cell)
        return self.runs[:-1]


# ---------------------------------------------------------------- comparing
OUTPUT = "# >"
CONDITION_EXAMPLE = "# >[torch>=2.14] TEXT"
_CONDITIONED = re.compile(r"\[(?P<condition>[^\]\n]*)\](?P<rest>.*)", re.S)
_TORCH = re.compile(r"\s*torch\s*(?P<specifier>[^\s].*?)?\s*", re.S)
_CLAUSE = re.compile(
    r"\s*(?P<operator>~=|==|!=|<=|>=|<|>)\s*"
    r"(?P<release>\d+(\.\d+)*)\s*"
)
_VERSION = re.compile(
    r"\s*v?(?P<release>\d+(\.\d+)*)(?P<rest>[^+\s]*)(\+\S*)?\s*", re.I
)
_COMPARE = {"==": eq, "!=": ne, "<": lt, ">": gt, "<=": le, ">=": ge, "~=": ge}
_PRE = re.compile(r"(a|b|c|rc|alpha|beta|pre|preview|dev)\d*", re.I)


class OutputError(ValueError):
    """A malformed output line; ``lineno`` is its line in the code, ``kind`` the
    cause, for a download to say in its own language: "condition" (cannot be read),
    "trailing" (after code on its line), "before" (any statement), "inside" (the
    statement it shows the output of), "indent" (not that statement's), "skip_head"
    (above a skipped example's statements), "skipped" (after a skipped example)."""

    def __init__(self, message, lineno=None, kind=None):
        super().__init__(message)
        self.kind = kind
        if lineno is not None:
            self.lineno = lineno


def _clauses(specifier):
    """``>=2.11,<2.14`` -> [(">=", "2.11"), ("<", "2.14")]; None if not that form."""
    found = [_CLAUSE.fullmatch(clause) for clause in str(specifier).split(",")]
    if not all(found):
        return None
    return [(clause["operator"], clause["release"]) for clause in found]


def read_releases(condition):
    """``torch>=2.11,<2.14`` -> ``>=2.11,<2.14``; ValueError if it is not that form."""
    found = _TORCH.fullmatch(condition)
    clauses = _clauses(found["specifier"] or "") if found else None
    if not clauses:
        raise ValueError(
            f"the condition [{condition}] is not torch and version "
            "comparisons (==, !=, <, <=, >, >=, ~= and release numbers), "
            f"as in {CONDITION_EXAMPLE}"
        )
    return ",".join(operator + release for operator, release in clauses)


def _numbers(release):
    numbers = [int(part) for part in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def release_holds(specifier, version):
    """Whether a torch release (``2.13.0+cpu``) satisfies ``>=2.11,<2.14`` as
    packaging's ``SpecifierSet.contains(version, prereleases=True)`` says: a local
    build is its release, a pre-release comes before it and a post-release after it."""
    found = _VERSION.fullmatch(str(version))
    if found is None:
        raise ValueError(f"cannot read the torch release {version!r}")
    release, rest = _numbers(found["release"]), found["rest"].lower()
    pre = _PRE.search(rest.split("post")[0]) is not None  # a, b, rc, dev: not a post's
    here = (release, -1 if pre else 1 if "post" in rest or rest.startswith("-") else 0)
    for operator, wanted in _clauses(specifier):
        bound, n = _numbers(wanted), wanted.count(".")  # ~=: n release numbers equal
        # < leaves out the bound's pre-releases, and > its post-releases
        a, b = (release, bound) if operator in ("<", ">") else (here, (bound, 0))
        same = (release + (0,) * n)[:n] == (bound + (0,) * n)[:n]
        if not (_COMPARE[operator](a, b) and (operator != "~=" or n and same)):
            return False
    return True


@dataclass(frozen=True)
class OutputLine:
    text: str
    condition: object = None  # the releases that print it (its str(): a specifier)

    def holds(self, version):
        return self.condition is None or release_holds(str(self.condition), version)


def output_line(comment, read_condition=read_releases):
    """One output comment as the page's output; ValueError says what is malformed."""
    rest = comment[len(OUTPUT) :]
    found = _CONDITIONED.fullmatch(rest) if rest.startswith("[") else None
    if found is None:
        if rest.startswith("["):
            raise ValueError(
                "an output condition is closed by ']', as in "
                f"{CONDITION_EXAMPLE} (output that starts with '[' is "
                f"written '{OUTPUT} [...')"
            )
        return OutputLine(rest.removeprefix(" "))
    text = found["rest"]
    if text and not text.startswith(" "):
        raise ValueError(
            "put a space between the condition and the output, as in "
            f"{CONDITION_EXAMPLE}"
        )
    condition = read_condition(found["condition"].strip())
    return OutputLine(text.removeprefix(" "), condition)


def output_comments(source, read_condition=read_releases):
    """Each output comment: ((line, column), OutputLine); OutputError names a bad
    one's line."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string.startswith(OUTPUT):
            if token.line[: token.start[1]].strip():  # after code on its line
                raise OutputError(
                    f"put {OUTPUT} output on a line of its own after the whole "
                    "statement, in line with its first line, not after code",
                    token.start[0],
                    "trailing",
                )
            try:
                found.append((token.start, output_line(token.string, read_condition)))
            except ValueError as error:
                raise OutputError(str(error), token.start[0], "condition") from None
    return found


def expected_outputs(source, body, read_condition=read_releases, comments=None):
    """For each statement of ``body``, the output lines between it and the next one,
    in line with its first line (of ``comments``, where not all of the source's)."""
    if comments is None:
        comments = output_comments(source, read_condition)
    outputs = [[] for _ in body]
    for (lineno, at), line in comments:
        owner = [index for index, s in enumerate(body) if s.lineno <= lineno][-1:]
        if not owner:
            raise OutputError(f"{OUTPUT} output before any statement", lineno, "before")
        statement = body[owner[0]]
        if lineno <= statement.end_lineno:
            raise OutputError(
                f"put {OUTPUT} output after the whole statement, not inside it",
                lineno,
                "inside",
            )
        if at != statement.col_offset:
            raise OutputError(
                f"put {OUTPUT} output after the whole statement, in line with its "
                "first line",
                lineno,
                "indent",
            )
        outputs[owner[0]].append(line)
    return outputs


def shown(lines, version):
    """The text of the lines that hold on ``version``."""
    return [line.text for line in lines if line.holds(version)]


def matches(printed, wanted):
    # No tolerance: where a value may vary, the snippet prints it rounded.
    return printed.splitlines() == wanted


def _skip_wrapper(statement):
    """A download's skipped example: ``if C: print('Skipped: ...')``, ``else:`` it."""
    body = statement.body if isinstance(statement, ast.If) else None
    call = body[0].value if body and isinstance(body[0], ast.Expr) else None
    printing = isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print"
    return bool(body and statement.orelse and len(body) == 1 and printing)


def _refuse_output_around_a_wrapper(body, wrappers, comments):
    """An output line of a skipped example not under one of its statements, which are
    its else's: above them (by the ``if``, its print, the ``else:``), or after the
    example in line with its ``if``. Its output goes under them, in line with them."""
    for (lineno, at), _ in comments:
        before = [statement for statement in body if statement.lineno <= lineno]
        wrapper = before[-1] if before and before[-1] in wrappers else None
        if wrapper and lineno < wrapper.orelse[0].lineno:
            raise OutputError(
                f"put the {OUTPUT} output of a skipped example in its else, under the "
                "statement it shows, not between the if and the else's first statement",
                lineno,
                "skip_head",
            )
        if wrapper and at == wrapper.col_offset and lineno > wrapper.end_lineno:
            raise OutputError(
                f"put the {OUTPUT} output of a skipped example inside its else",
                lineno,
                "skipped",
            )


@dataclass
class Checked:
    """A statement that prints, or should: where, what the page shows, what printed."""

    line: int  # in its code: the script, or its notebook cell
    cell: object  # the cell's execution count in a notebook, else None
    code: str  # the statement's first line
    wanted: list  # the lines the page shows for this release
    printed: str  # all it printed

    @property
    def ok(self):
        return matches(self.printed, self.wanted)


def check(runs, version):
    """``([Checked, ...], [reason, ...])``: the statements that print or should, and
    why examples were skipped here."""
    results, skipped = [], []
    for source, writes, cell in runs:
        tree = ast.parse(source)
        # Each statement checked: the top-level ones, and in place of a skipped
        # example its else's, with its wrapper.
        wrappers = [statement for statement in tree.body if _skip_wrapper(statement)]
        units = [
            (inner, statement if statement in wrappers else None)
            for statement in tree.body
            for inner in (statement.orelse if statement in wrappers else [statement])
        ]
        code = source.splitlines()
        try:
            comments = output_comments(source)
            _refuse_output_around_a_wrapper(tree.body, wrappers, comments)
            outputs = expected_outputs(
                source, [statement for statement, _ in units], comments=comments
            )
        except OutputError as error:  # where, for the report
            error.cell, error.code = cell, code[error.lineno - 1].strip()
            raise
        printed, reasons = ["" for _ in units], {}
        for line, text in writes:
            wrapper = next(
                (w for w in wrappers if w.lineno <= line < w.orelse[0].lineno), None
            )
            if wrapper is not None:
                reasons[id(wrapper)] = reasons.get(id(wrapper), "") + text
                continue
            for index, (statement, _) in enumerate(units):
                if statement.lineno <= line <= statement.end_lineno:
                    printed[index] += text
                    break
        for (statement, wrapper), lines, text in zip(
            units, outputs, printed, strict=True
        ):
            if wrapper is not None and id(wrapper) in reasons:
                continue
            wanted = shown(lines, version)
            if wanted or text:
                first = code[statement.lineno - 1].strip()
                results.append(Checked(statement.lineno, cell, first, wanted, text))
        for wrapper in wrappers:
            if id(wrapper) in reasons:  # "Skipped: <reason>": the reason, after ": "
                said = reasons[id(wrapper)].strip()
                skipped.append(said.partition(": ")[2] or said)
    return results, skipped


# ---------------------------------------------------------------- reporting
TEMPLATE = "page-problem.yml"  # in .github/ISSUE_TEMPLATE/: the form a report opens
FIELD_LIMIT = 1500  # characters of a field in a link: GitHub refuses very long ones


def issue_url(repository, fields):
    """A new issue of ``repository`` on the page-problem form, its fields filled in."""
    fields = {
        key: value if len(value) <= FIELD_LIMIT else value[: FIELD_LIMIT - 1] + "…"
        for key, value in fields.items()
        if value
    }
    query = urllib.parse.urlencode({"template": TEMPLATE, **fields})
    return f"{repository.rstrip('/')}/issues/new?{query}"


def running_torch():
    """(release, device) of the torch the examples ran with, as a report names them."""
    import importlib.metadata

    torch = sys.modules.get("torch")
    version = getattr(torch, "__version__", "") or importlib.metadata.version("torch")
    accelerator = getattr(torch, "accelerator", None)
    device = "CPU"
    if accelerator is not None and accelerator.is_available():
        device = accelerator.current_accelerator().type.upper()
    return str(version), device


class OutputsDiffer(AssertionError):
    """A notebook's last cell fails with this where the outputs differ from the page."""


def _where(texts, line, cell, code):
    """Where a report points: the line (in a notebook, of its cell) and its code."""
    where = texts["where"] if cell is None else texts["where_cell"]
    return where.format(line=line, cell=cell, code=code)


def report(results, skipped, texts, torch, device):
    """(all match, the differences and then one line that sums up)."""
    bad = [result for result in results if not result.ok]
    lines = []
    for result in bad:
        lines.append(_where(texts, result.line, result.cell, result.code))
        page = [f"{OUTPUT} {text}" for text in result.wanted]
        for label, shown_lines in (
            (texts["page"], page),
            (texts["printed"], result.printed.splitlines()),
        ):
            lines.append(f"    {label}")
            lines += [f"        {text}" for text in shown_lines or [texts["nothing"]]]
    counts = {"torch": torch, "device": device, "total": len(results)}
    if bad:
        last = texts["differ"].format(bad=len(bad), **counts)
    else:
        last = texts["match" if results else "none"].format(ok=len(results), **counts)
    if skipped:
        forms, rule = texts["skipped"]  # the plural forms, chosen as gettext does
        last += forms[gettext.c2py(rule)(len(skipped))].format(
            n=len(skipped), reasons="; ".join(dict.fromkeys(skipped))
        )
    return not bad, lines + [last]


def finish(recorder, texts, repository, fields):
    """The download's last cell: say in one line whether what printed is what the page
    shows; where not, print a report link with the differences and fail."""
    import platform

    runs = recorder.stop()
    torch, device = running_torch()
    if not runs:
        print(texts["nothing_recorded"])
        return
    try:
        results, skipped = check(runs, torch)
    except OutputError as error:  # a # > line the reader put out of place
        at = _where(texts, error.lineno, error.cell, error.code)
        results, ok, lines = [], False, [at, texts[f"output_{error.kind}"]]
    else:
        ok, lines = report(results, skipped, texts, torch, device)
    bad = [result for result in results if not result.ok]
    if bad and repository:
        environment = (
            f"torch {torch} ({device}), {platform.platform()}, "
            f"Python {platform.python_version()}"
        )
        expected = [
            "\n".join([result.code, *(f"{OUTPUT} {t}" for t in result.wanted)])
            for result in bad
        ]
        saw = [f"{result.code}\n{result.printed.rstrip()}" for result in bad]
        link = issue_url(
            repository,
            {
                **fields,
                "environment": environment,
                "expected": "\n".join(expected),
                "saw": "\n".join(saw),
            },
        )
        lines.insert(-1, texts["report"].format(url=link))
    if not ok and recorder.shell is not None:  # the last line said once: as the error
        print("\n".join(lines[:-1]))
        raise OutputsDiffer(lines[-1])
    print("\n".join(lines))
    if not ok:
        raise SystemExit(1)
