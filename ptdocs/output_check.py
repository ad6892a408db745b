"""What a page shows its code prints, and whether a run printed it: one set of rules for the page
tests (:mod:`ptdocs.pages`) and for the downloads (:mod:`ptdocs.downloads`).

A download runs on the reader's machine with nothing but torch, so this module uses the standard
library only, and a download carries its code: the part under "recording" is the download's
first code cell, which keeps what each top-level statement prints; the part under "comparing" is
its last cell, which compares that with the ``# >`` lines of the same code, as the page tests do,
and says so in one line, in the page's language. The two markers below cut the module in those
two parts (``ptdocs.downloads.check_cells``), so nothing in them may lean on this docstring or
on a ``from __future__`` import; no comment in them starts as an output line does.

The rules (each used by the page tests and by the downloads alike):

* ``# > TEXT`` after a top-level statement is a line it prints; several are several lines, none
  means it prints nothing (:func:`expected_outputs`). Output comments stand at the start of a
  line, after the whole statement.
* ``# >[torch>=2.14] TEXT`` is printed only on the torch releases the condition names, a PEP 440
  specifier as pip reads it (:func:`release_holds`, which ``tests/test_output_check.py`` holds to
  packaging's reading on every supported release and on local, pre- and post-release builds).
* What a statement prints (its stdout, cut into lines) equals the lines that hold for the running
  release, exactly (:func:`matches`). The pages set no tolerance on printed text: where a value may
  vary, the snippet prints it rounded or asserts it with ``torch.testing.assert_close``, and that
  assert runs in a download as it runs on the page.
* A download's example that the page skips on this machine (``if <condition>:
  print('Skipped: ...')`` / ``else:`` the example, see ``ptdocs.downloads.cell_code``) counts as
  skipped with the reason it printed; otherwise the statements of its ``else`` are checked.
"""

# ---------------------------------------------------------------- recording
import ast
import io
import re
import sys
import tokenize
import urllib.parse
from dataclasses import dataclass


class Recorder:
    """Stands in for sys.stdout while the examples run: what each top-level statement prints.

    A write is credited to the line of module-level code (in ``namespace``) that runs at that
    moment: a statement, or the call inside which something prints. ``runs`` holds each piece of
    code with its writes and its notebook execution count: the script's own file (count None),
    or each notebook cell as it runs."""

    def __init__(self, namespace):
        self.namespace, self.stream, self.runs = namespace, sys.stdout, []
        self.shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
        if self.shell is not None:  # a notebook: each cell is code of its own
            self.shell.events.register("pre_run_cell", self.cell)
        elif namespace.get("__file__"):
            with open(namespace["__file__"], encoding="utf-8") as script:
                self.runs.append((script.read(), [], None))
        sys.stdout = self

    def cell(self, info):
        self.runs.append((info.raw_cell, [], self.shell.execution_count))

    def write(self, text):
        frame = sys._getframe(1)
        while frame is not None and not (frame.f_globals is self.namespace
                                         and frame.f_code.co_name == "<module>"):
            frame = frame.f_back
        if self.runs:
            writes = self.runs[-1][1]
            # Printed outside the code (another thread): credited to the last line that printed.
            line = frame.f_lineno if frame is not None else (writes[-1][0] if writes else 0)
            writes.append((line, text))
        return self.stream.write(text)

    def __getattr__(self, name):  # flush, encoding, isatty, ...: the real stream's
        return getattr(self.stream, name)

    def stop(self):
        """Stop recording; the runs to check (in a notebook, not the cell that checks)."""
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
_CLAUSE = re.compile(r"\s*(?P<operator>~=|==|!=|<=|>=|<|>)\s*(?P<release>\d+(?:\.\d+)*)\s*")
_VERSION = re.compile(r"\s*v?(?P<release>\d+(?:\.\d+)*)(?P<rest>[^+\s]*)(?:\+\S*)?\s*", re.I)
_PRE = re.compile(r"(a|b|c|rc|alpha|beta|pre|preview|dev)\d*", re.I)


class OutputError(ValueError):
    """A malformed output line; ``lineno`` is its line in the code."""

    def __init__(self, message, lineno=None):
        super().__init__(message)
        if lineno is not None:
            self.lineno = lineno


def read_releases(condition):
    """``torch>=2.11,<2.14`` -> ``>=2.11,<2.14``; ValueError if it is not that form."""
    found = _TORCH.fullmatch(condition)
    clauses = (found["specifier"] or "").split(",") if found else []
    if not found or not all(_CLAUSE.fullmatch(clause) for clause in clauses):
        raise ValueError(f"the condition [{condition}] is not torch and version comparisons "
                         f"(==, !=, <, <=, >, >=, ~= and release numbers), as in {CONDITION_EXAMPLE}")
    return ",".join("".join(_CLAUSE.fullmatch(clause).groups()) for clause in clauses)


def _numbers(release):
    numbers = [int(part) for part in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def release_holds(specifier, version):
    """Whether a torch release (``2.13.0+cpu``) satisfies ``>=2.11,<2.14``, as pip decides.

    As packaging's ``SpecifierSet.contains(version, prereleases=True)`` for specifiers of plain
    release numbers: a local build (``+cpu``) is its release; a pre-release (``2.14.0rc1``,
    ``2.14.0.dev20260101``) comes before its release and a post-release after it; ``<V`` leaves
    out V's pre-releases and ``>V`` its post-releases; ``~=2.13`` is ``>=2.13,==2.*``."""
    found = _VERSION.fullmatch(str(version))
    if found is None:
        raise ValueError(f"cannot read the torch release {version!r}")
    release, rest = _numbers(found["release"]), found["rest"].lower()
    post = "post" in rest or rest.startswith("-")
    pre = _PRE.search(rest.split("post")[0]) is not None  # a, b, rc or dev before any post part
    here = (release, -1 if pre else 1 if post else 0)
    for clause in filter(None, str(specifier).split(",")):
        operator, wanted = _CLAUSE.fullmatch(clause).groups()
        bound = _numbers(wanted)
        if operator == "==" and here != (bound, 0):
            return False
        if operator == "!=" and here == (bound, 0):
            return False
        if operator == ">=" and here < (bound, 0):
            return False
        if operator == "<=" and here > (bound, 0):
            return False
        if operator == "<" and not release < bound:
            return False
        if operator == ">" and not release > bound:
            return False
        if operator == "~=":
            prefix = len(wanted.split(".")) - 1
            if prefix < 1 or here < (bound, 0) \
                    or (release + (0,) * prefix)[:prefix] != (bound + (0,) * prefix)[:prefix]:
                return False
    return True


@dataclass(frozen=True)
class OutputLine:
    text: str
    condition: object = None  # the releases that print it (str() is a specifier); None: all

    def holds(self, version):
        return self.condition is None or release_holds(str(self.condition), version)


def output_line(comment, read_condition=read_releases):
    """One output comment as the page's output; ValueError says what is malformed."""
    rest = comment[len(OUTPUT):]
    found = _CONDITIONED.fullmatch(rest) if rest.startswith("[") else None
    if found is None:
        if rest.startswith("["):
            raise ValueError(f"an output condition is closed by ']', as in {CONDITION_EXAMPLE} "
                             f"(output that starts with '[' is written '{OUTPUT} [...')")
        return OutputLine(rest.removeprefix(" "))
    text = found["rest"]
    if text and not text.startswith(" "):
        raise ValueError(f"put a space between the condition and the output, as in {CONDITION_EXAMPLE}")
    return OutputLine(text.removeprefix(" "), read_condition(found["condition"].strip()))


def output_comments(source, read_condition=read_releases):
    """Each output comment of some code: ((line, column), OutputLine); OutputError names the line."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string.startswith(OUTPUT):
            try:
                found.append((token.start, output_line(token.string, read_condition)))
            except ValueError as error:
                raise OutputError(str(error), token.start[0]) from None
    return found


def expected_outputs(source, body, read_condition=read_releases, comments=None):
    """For each statement of ``body``, the output lines between it and the next statement."""
    outputs = [[] for _ in body]
    column = body[0].col_offset if body else 0
    for (lineno, at), line in output_comments(source, read_condition) if comments is None else comments:
        if at != column:  # indented: it sits inside a statement, which prints it only in part
            raise OutputError(f"put {OUTPUT} output after the whole statement, "
                              "at the start of a line", lineno)
        owner = None
        for index, statement in enumerate(body):
            if statement.lineno <= lineno <= statement.end_lineno:
                raise OutputError(f"put {OUTPUT} output after the whole statement, "
                                  "not inside it", lineno)
            if statement.end_lineno < lineno:
                owner = index
        if owner is None:
            raise OutputError(f"{OUTPUT} output before any statement", lineno)
        outputs[owner].append(line)
    return outputs


def shown(lines, version):
    """The text of the lines that hold on ``version``."""
    return [line.text for line in lines if line.holds(version)]


def matches(printed, wanted):
    """What a statement printed (its whole stdout) is exactly the lines shown for it."""
    return printed.splitlines() == wanted


def _skip_wrapper(statement):
    """A download's skipped example: ``if C: print('Skipped: ...')`` ``else:`` the example."""
    body = statement.body if isinstance(statement, ast.If) else None
    return bool(body and statement.orelse and len(body) == 1 and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Call)
                and getattr(body[0].value.func, "id", None) == "print")


@dataclass
class Checked:
    """One statement that prints, or should: where it is, what the page shows, what printed."""

    line: int  # in its code: the script, or its notebook cell
    cell: object  # the cell's execution count in a notebook, else None
    code: str  # the statement's first line
    wanted: list  # the lines the page shows for this release
    printed: str  # all it printed

    @property
    def ok(self):
        return matches(self.printed, self.wanted)


def check(runs, version):
    """The statements of the runs that print or should print, and the reasons of the examples
    skipped here: ``([Checked, ...], [reason, ...])``; OutputError for a malformed output line."""
    results, skipped = [], []
    for source, writes, cell in runs:
        tree, comments = ast.parse(source), output_comments(source)
        wrappers = [s for s in tree.body if _skip_wrapper(s)]

        def inside(comment):  # the skip wrapper whose else holds this indented comment, if any
            (line, column), before = comment[0], [s for s in tree.body if s.lineno <= comment[0][0]]
            wrapper = before[-1] if before and before[-1] in wrappers else None
            return wrapper if wrapper is not None and column == wrapper.orelse[0].col_offset else None

        # Each unit: a statement, the skip wrapper it stands in (or None), its output lines.
        top = [c for c in comments if inside(c) is None]
        units = []
        for statement, lines in zip(tree.body, expected_outputs(source, tree.body, comments=top)):
            if statement not in wrappers:
                units.append((statement, None, lines))
                continue
            if lines:
                raise OutputError(f"put the {OUTPUT} output of a skipped example inside its else",
                                  statement.end_lineno + 1)
            inner = [c for c in comments if inside(c) is statement]
            units += [(s, statement, lines) for s, lines
                      in zip(statement.orelse, expected_outputs(source, statement.orelse, comments=inner))]
        printed, reasons = ["" for _ in units], {}
        for line, text in writes:
            wrapper = next((w for w in wrappers if w.lineno <= line < w.orelse[0].lineno), None)
            if wrapper is not None:
                reasons[id(wrapper)] = reasons.get(id(wrapper), "") + text
                continue
            index = next((i for i, (s, _, _) in enumerate(units) if s.lineno <= line <= s.end_lineno),
                         None)
            if index is not None:
                printed[index] += text
        code = source.splitlines()
        for (statement, wrapper, lines), text in zip(units, printed):
            if wrapper is not None and id(wrapper) in reasons:
                continue
            wanted = shown(lines, version)
            if wanted or text:
                results.append(Checked(statement.lineno, cell, code[statement.lineno - 1].strip(),
                                       wanted, text))
        # "Skipped: <reason>": the reason, after the label
        skipped += [reasons[id(w)].strip().partition(": ")[2] or reasons[id(w)].strip()
                    for w in wrappers if id(w) in reasons]
    return results, skipped


# ---------------------------------------------------------------- reporting
TEMPLATE = "page-problem.yml"  # .github/ISSUE_TEMPLATE/: the form a report opens
FIELD_LIMIT = 1500  # characters of one field in a link: GitHub refuses very long addresses


def issue_url(repository, fields):
    """A new issue of ``repository`` (its https://github.com/OWNER/NAME address) on the page-problem
    form, with the form's fields (by their ids) filled in."""
    fields = {key: value if len(value) <= FIELD_LIMIT else value[:FIELD_LIMIT - 1] + "…"
              for key, value in fields.items() if value}
    return f"{repository.rstrip('/')}/issues/new?" + urllib.parse.urlencode({"template": TEMPLATE, **fields})


def running_torch():
    """(release, device) of the torch the examples ran with, as the reader should report them."""
    import importlib.metadata

    torch = sys.modules.get("torch")
    version = str(getattr(torch, "__version__", "") or importlib.metadata.version("torch"))
    accelerator = getattr(torch, "accelerator", None)
    device = "CPU"
    if accelerator is not None and accelerator.is_available():
        device = accelerator.current_accelerator().type.upper()
    return version, device


class OutputsDiffer(AssertionError):
    """A notebook's last cell fails with this where the outputs differ from the page."""


def report(results, skipped, texts, torch, device):
    """(all match, the lines to print: the differences, then one line that says how it went)."""
    bad = [result for result in results if not result.ok]
    lines = []
    for result in bad:
        where = texts["where"] if result.cell is None else texts["where_cell"]
        lines.append(where.format(line=result.line, cell=result.cell, code=result.code))
        for label, shown_lines in ((texts["page"], [f"{OUTPUT} {text}" for text in result.wanted]),
                                   (texts["printed"], result.printed.splitlines())):
            lines.append(f"    {label}")
            lines += [f"        {text}" for text in shown_lines] or [f"        {texts['nothing']}"]
    counts = {"torch": torch, "device": device, "total": len(results)}
    if bad:
        last = texts["differ"].format(bad=len(bad), **counts)
    else:
        last = texts["match"].format(ok=len(results), **counts)
    if skipped:
        one, many = texts["skipped"]
        last += (one if len(skipped) == 1 else many).format(
            n=len(skipped), reasons="; ".join(dict.fromkeys(skipped)))
    return not bad, lines + [last]


def finish(recorder, texts, repository, fields):
    """The download's last cell: compare what printed with the page, say how it went in one line,
    and fail (a script's exit status 1) where an output differs, with a prefilled report link."""
    import platform

    runs = recorder.stop()
    torch, device = running_torch()
    if not runs:
        print(texts["nothing_recorded"])
        return
    results, skipped = check(runs, torch)
    ok, lines = report(results, skipped, texts, torch, device)
    if not ok and repository:
        bad = [result for result in results if not result.ok]
        environment = (f"torch {torch} ({device}), {platform.platform()}, "
                       f"Python {platform.python_version()}")
        link = issue_url(repository, {
            **fields, "environment": environment,
            "expected": "\n".join(f"{r.code}\n" + "\n".join(f"{OUTPUT} {t}" for t in r.wanted)
                                  for r in bad),
            "saw": "\n".join(f"{r.code}\n" + r.printed.rstrip("\n") for r in bad)})
        lines.insert(-1, texts["report"].format(url=link))
    print("\n".join(lines))
    if not ok:
        if recorder.shell is not None:
            raise OutputsDiffer(lines[-1])
        raise SystemExit(1)
