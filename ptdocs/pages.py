"""Sybil parsers that run a page's examples as the reader sees them.

A Python block holds only ``--8<--`` include lines (:mod:`ptdocs.snippets`), each
compiled under the snippet's own file name, so a failure names the snippet's file and
line; blocks of a page share one namespace, in page order. The ``# >`` lines after a
statement are exactly what it prints (:mod:`ptdocs.output_check`), and a
``prose-values`` comment pins a number the prose restates to the code.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import math
import os
import re
import sys
import traceback
import unittest
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from importlib import metadata
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from num2words import num2words
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version
from sybil import Region
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from . import catalog, output_check
from .layout import language
from .output_check import CONDITION_EXAMPLE, OUTPUT, OutputError, matches, shown
from .snippets import ROOT, Include, IncludeError, expand, include_target
from .versions import SUPPORTED

# The info string of a fence: its language, then anything (attributes, title=...),
# which Sybil's stock Markdown lexer would skip.
INFO = re.compile(
    r"[ \t]*\{?[ \t]*\.?(?P<language>[\w+-]*)(?P<attributes>[^\n]*)$\n", re.M
)
PYTHON = {"python", "py", "python3"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    includes: tuple[Include, ...]


class _Parser:
    """What both parsers read a page with: the repository root, the fence lexer."""

    def __init__(self, root=ROOT) -> None:
        self.root = root
        self.lexer = RawFencedCodeBlockLexer(info_pattern=INFO)

    def python_blocks(self, document):
        """The regions of the page's Python blocks, in page order."""
        for region in self.lexer(document):
            if region.lexemes["language"].lower() in PYTHON:
                yield region


class PageBlockParser(_Parser):
    """A Sybil parser: one example per Python block of a Markdown page."""

    def __call__(self, document):
        for region in self.python_blocks(document):
            line = document.text.count("\n", 0, region.start) + 1
            page = catalog.relative(document.path, self.root)
            region.parsed = _block(page, line, str(region.lexemes["source"]), self.root)
            region.evaluator = evaluate
            yield region


def page_language(page: str) -> str:
    """The language of a page's code comments: its folder under docs/, else English."""
    parts = Path(page).parts
    if len(parts) > 2 and parts[0] == "docs" and parts[1] in catalog.LANGUAGES:
        return parts[1]
    return catalog.SOURCE


def _block(page: str, line: int, source: str, root) -> Block | str:
    """The includes of a block, or an error message to report when it runs."""
    includes = []
    for offset, text in enumerate(source.splitlines()):
        if not text.strip():
            continue
        target = include_target(text)
        where = f"{page}, line {line + 1 + offset}"
        if target is None:
            return (
                f"{where}: a Python block on a page holds only "
                "'--8<-- \"snippets/...\"' include lines; put the code in a snippet "
                "file"
            )
        try:
            includes.append(expand(target, root, page_language(page)))
        except IncludeError as error:
            return f"{where}: {error}"
    if not includes:
        return f"{page}, line {line}: an empty Python block"
    return Block(page, line, tuple(includes))


class Failure(str):
    """A failure as Sybil reports it (its text), carrying it as data too: ``record``,
    the fields :mod:`ptdocs.failures` words in a page's language."""

    def __new__(cls, text: str, **record):
        failure = super().__new__(cls, text)
        failure.record = record
        return failure


def _other(text: str, file=None, line=None, where="") -> Failure:
    """A failure of no particular kind; with ``file``, its text starts there."""
    if file is None:
        return Failure(text, kind="other", message=text)
    full = f"{file}, line {line}{where}: {text}"
    return Failure(full, file=file, line=line, kind="other", message=text)


def evaluate(example) -> str | None:
    """Run each include of the block; a returned string is the failure Sybil reports."""
    block = example.parsed
    if isinstance(block, str):  # a block the parser could not read
        return _other(block)
    for include in block.includes:
        shown_on = f"{block.page}, line {block.line}"
        if failure := run_include(include, example.namespace, shown_on):
            return failure
    return None


def run_include(include: Include, namespace: dict, shown_on: str = "") -> str | None:
    """Execute one include statement by statement, checking ``# >`` output."""
    where = f" (shown on {shown_on})" if shown_on else ""
    source = include.padded_source
    try:
        tree = ast.parse(source, filename=include.path)
        expected = _expected_outputs(source, tree.body)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", include.first_line)
        return _other(str(error), include.path, line, where=where)
    version = None
    for statement, lines in zip(tree.body, expected, strict=False):
        code = compile(ast.Module([statement], []), include.path, "exec")
        captured = io.StringIO()
        try:
            with contextlib.redirect_stdout(captured):
                exec(code, namespace)
        except unittest.SkipTest:
            raise
        except Exception as error:  # reported with the snippet's line
            return _exception_report(include, error, where)
        conditioned = any(line.condition is not None for line in lines)
        if conditioned and version is None:
            try:
                version = torch_version()
            except OutputError as error:
                return _other(str(error), include.path, statement.lineno, where=where)
        want, got = shown(lines, version), captured.getvalue().splitlines()
        if matches(captured.getvalue(), want):
            continue
        which = f" (those for torch {version})" if conditioned else ""
        differs = (i for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g)
        n = next(differs, min(len(want), len(got)))  # the first line that differs
        return Failure(
            f"{include.path}, line {statement.lineno}{where}: what this prints "
            f"differs from the {OUTPUT} lines below it{which}\n--- shown on the page\n"
            f"{_listing(want)}+++ printed when run\n{_listing(got)}",
            file=include.path,
            line=statement.lineno,
            kind="output",
            shown=want[n] if n < len(want) else None,
            printed=got[n] if n < len(got) else None,
        )
    return None


# The rules of "# >" lines live in ptdocs/output_check.py, which the downloads carry;
# here a release condition is read with packaging, as pip reads it, to tell a page's
# author what is wrong with it.
@cache
def release_condition(condition: str) -> SpecifierSet:
    """``torch>=2.14`` (or ``torch>=2.11,<2.14``) -> its specifier; ValueError if
    malformed."""
    try:
        requirement = Requirement(condition)
    except InvalidRequirement as error:
        reason = str(error).splitlines()[0]  # packaging adds the text and a caret below
        raise ValueError(
            f"cannot read the condition [{condition}] ({reason}); write it as in "
            f"{CONDITION_EXAMPLE}, a version specifier after torch"
        ) from None
    other = requirement.extras or requirement.url or requirement.marker
    if canonicalize_name(requirement.name) != "torch" or other:
        raise ValueError(
            f"the condition [{condition}] may only name torch releases, "
            f"as in {CONDITION_EXAMPLE}"
        )
    if not requirement.specifier:
        raise ValueError(
            f"the condition [{condition}] names no releases; "
            f"write it as in {CONDITION_EXAMPLE}"
        )
    try:
        output_check.read_releases(condition)
    except ValueError as error:
        raise ValueError(
            f"{error}; a downloaded page checks its output with that form only"
        ) from None
    # A line no supported release prints would never be checked.
    if not any(
        output_check.release_holds(requirement.specifier, release)
        for release in SUPPORTED
    ):
        raise ValueError(
            f"the condition [{condition}] holds for none of the supported torch "
            f"releases ({', '.join(SUPPORTED)}), so no run would check this line"
        )
    return requirement.specifier


# The rules of ptdocs.output_check, with a condition read as above.
_read = {"read_condition": release_condition}
output_line = partial(output_check.output_line, **_read)
output_comments = partial(output_check.output_comments, **_read)
_expected_outputs = partial(output_check.expected_outputs, **_read)


def shown_output(source: str, version: Version | str | None = None) -> list[str]:
    """The lines some code is shown to print on a torch release (default: the running
    one), as a download's printed output is compared."""
    lines = [line for _, line in output_comments(source + "\n")]
    if version is None and any(line.condition is not None for line in lines):
        version = torch_version()
    return shown(lines, Version(version) if isinstance(version, str) else version)


def has_conditioned_output(source: str) -> bool:
    if OUTPUT + "[" not in source:  # the usual case, told without tokenizing
        return False
    return any(line.condition is not None for _, line in output_comments(source + "\n"))


@lru_cache(maxsize=1)
def torch_version() -> Version:
    """The release of the torch the examples run with (read without importing it)."""
    running = getattr(sys.modules.get("torch"), "__version__", None)
    try:
        return Version(str(running or metadata.version("torch")))
    except (metadata.PackageNotFoundError, InvalidVersion) as error:
        raise OutputError(
            f"output conditioned on the torch release, but no torch release "
            f"is known here ({error})"
        ) from None


def _exception_report(include: Include, error: BaseException, where: str) -> str:
    # Our frames: the snippets are compiled under a relative path.
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not os.path.isabs(frame.filename)
    ]
    line = frames[-1].lineno if frames else include.first_line
    path = frames[-1].filename if frames else include.path
    trace = "".join(traceback.format_list(frames))
    message = "".join(traceback.format_exception_only(type(error), error))
    return Failure(
        f"{path}, line {line}{where}: {type(error).__name__}\n{trace}{message}",
        file=path,
        line=line,
        kind="exception",
        error=message.strip().splitlines()[-1],
    )


def _listing(lines: list[str]) -> str:
    return "".join(f"    {line}\n" for line in lines) if lines else "    (nothing)\n"


@cache
def markdown_reader() -> MarkdownIt:
    """The one Markdown reader of ptdocs (a twin's structure, a download's cells); the
    site's admonitions (!!!, ???) hold Markdown, not indented code."""
    return MarkdownIt("commonmark").enable("table").use(admon_plugin)


HEADING_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")  # attr_list's, not the title's


def heading_title(inline: Token) -> str:
    """A heading's title (``inline``: the token after its heading_open), one line of
    Markdown, for a download's outline and a twin's messages alike: its text, with code
    spans and emphasis as written, a link as its text and an image as its alt text;
    attr_list's ``{...}`` dropped, line breaks and runs of spaces as one space. Not
    kept: backslash escapes and entities, which stand as the characters they write."""
    parts = []
    for child in inline.children:
        if child.type == "code_inline":
            parts.append(child.markup + child.content + child.markup)
        elif child.type in ("text", "html_inline", "image"):
            parts.append(child.content)  # an image's content: its alt text
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type in ("em_open", "em_close", "strong_open", "strong_close"):
            parts.append(child.markup)  # * or _, doubled for strong
    return " ".join(HEADING_ATTRIBUTES.sub("", "".join(parts)).split())


def headings(tokens: list, nested: bool = True) -> list[tuple[int, int, str]]:
    """The headings of markdown-it ``tokens``: (first line, from 1; level; title),
    in page order; not ``nested``: only those outside any block (a list, a quote)."""
    return [
        (token.map[0] + 1, int(token.tag[1]), heading_title(inline))
        for token, inline in itertools.pairwise(tokens)
        if token.type == "heading_open" and (nested or token.level == 0)
    ]


# <!-- prose-values: x.grad.item() -> 6; area :.2f -> 12.57; [torch<2.14] y -> 1 -->
# Each EXPR evaluated in the page's namespace where the comment stands, formatted with
# its spec, gives TEXT, which appears in the paragraph below; a conditioned pair is
# evaluated only on its releases, but its TEXT must appear on every release. With
# ``after "TARGET"`` the comment is evaluated just after the first Python block below
# that includes TARGET. The specs (words, pow2, pow10, poly): CONTRIBUTING.md.
WORDS, POWER_OF_TWO, POWER_OF_TEN, POLYNOMIAL = "words", "pow2", "pow10", "poly"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
PROSE_VALUES = re.compile(
    r'<!--[ \t]*prose-values(?:[ \t]+after[ \t]+"(?P<after>[^"\n]+)")?[ \t]*:'
    r"(?P<pairs>.*?)-->",
    re.S,
)
_SPEC = re.compile(r"\s:(?P<spec>[^\s:]*)$")
_PAIR_CONDITION = re.compile(r"\[(?P<condition>\s*torch\s*[<>=!~][^\]]*)\]")


@dataclass(frozen=True)
class ProseValue:
    expression: str
    spec: str | None
    text: str
    condition: SpecifierSet | None = None


@dataclass(frozen=True)
class ProseValues:
    page: str
    line: int
    values: tuple[ProseValue, ...]
    paragraph: str


def prose_value_pairs(pairs: str) -> tuple[ProseValue, ...]:
    """The ``EXPR [:SPEC] -> TEXT`` pairs of a directive; ValueError says what is
    malformed."""
    values = []
    for pair in filter(str.strip, pairs.split(";")):
        pair, condition = pair.strip(), None
        if found := _PAIR_CONDITION.match(pair):
            condition = release_condition(found["condition"].strip())
            pair = pair[found.end() :]
        expression, arrow, text = pair.rpartition("->")
        expression, text = expression.strip(), text.strip()
        if not arrow or not expression or not text:
            raise ValueError(
                f"write each pair as 'EXPRESSION -> TEXT', not {pair.strip()!r}"
            )
        spec = None
        if found := _SPEC.search(expression):
            spec, expression = found["spec"], expression[: found.start()].strip()
        try:
            compile(expression, "<prose-values>", "eval")
        except SyntaxError as error:
            raise ValueError(
                f"{expression!r} is not a Python expression: {error.msg}"
            ) from None
        values.append(ProseValue(expression, spec, text, condition))
    if not values:
        raise ValueError("no 'EXPRESSION -> TEXT' pair")
    return tuple(values)


def _following_paragraph(text: str, end: int) -> str:
    """The paragraph after a comment: blank lines skipped, then up to a blank line."""
    lines = text[end:].split("\n")
    lines[0] = lines[0].strip()  # the rest of the comment's own line
    while lines and not lines[0].strip():
        lines.pop(0)
    blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    return "\n".join(lines[:blank])


def format_value(value, spec: str | None) -> str:
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", 0) == 0:  # 0-dim tensor, NumPy scalar
        value = item()
    if spec == WORDS:
        whole = isinstance(value, int)
        return str(value) if whole else f"{value!r}, not a whole number"
    if spec == POWER_OF_TWO:
        mantissa, exponent = math.frexp(value)
        if mantissa != 0.5:
            return f"{value!r}, not a power of two"
        return "2" + str(exponent - 1).translate(_SUPERSCRIPT)
    if spec == POWER_OF_TEN:
        exponent = round(math.log10(value)) if 0 < value < math.inf else 0
        if value != float(f"1e{exponent}"):
            return f"{value!r}, not a power of ten"
        return f"1e{exponent}"
    if spec == POLYNOMIAL:
        return polynomial(value.tolist() if hasattr(value, "tolist") else list(value))
    if spec is not None:
        return format(value, spec)
    return format(value, "g") if isinstance(value, float) else str(value)


def polynomial(coefficients: list) -> str:
    """The polynomial in x, highest power first, as prose writes it: [1, -2, 0, 3] is
    "3x³ − 2x + 1" (no zero terms, no coefficient 1 before a power of x)."""
    terms = []
    for power, c in reversed(list(enumerate(coefficients))):
        if c == 0:
            continue
        size = format(abs(c), "g") if isinstance(c, float) else str(abs(c))
        if power:  # x, not 1x; x³, not x3
            size = ("" if abs(c) == 1 else size) + "x"
            size += str(power).translate(_SUPERSCRIPT) if power > 1 else ""
        terms.append(("− " if c < 0 else "+ ") + size)
    if not terms:
        return "0"
    first = terms[0]
    return " ".join([("−" if first[0] == "−" else "") + first[2:], *terms[1:]])


class ProseValuesParser(_Parser):
    """A Sybil parser: each ``prose-values`` comment is an example, in page order."""

    def __call__(self, document):
        page = catalog.relative(document.path, self.root)
        waiting = set()  # the ends of the blocks a comment waits for
        for match in PROSE_VALUES.finditer(document.text):
            line = document.text.count("\n", 0, match.start()) + 1
            start, end = match.span()
            try:
                values = prose_value_pairs(match["pairs"])
                paragraph = _following_paragraph(document.text, match.end())
                parsed = ProseValues(page, line, values, paragraph)
                if match["after"] is not None:
                    # An empty region just after the block: evaluated in its place.
                    start = end = self._end_of_block(document, match)
                    if end in waiting:
                        raise ValueError(
                            f'another comment already waits for "{match["after"]}": '
                            "put its pairs in that one"
                        )
                    waiting.add(end)
            except ValueError as error:
                parsed = f"{page}, line {line}: prose-values: {error}"
                start, end = match.span()
            yield Region(start, end, parsed, check_prose_values)

    def _end_of_block(self, document, match) -> int:
        """Where the first Python block below ``match`` that includes its ``after``
        target ends."""
        for region in self.python_blocks(document):
            targets = map(include_target, str(region.lexemes["source"]).splitlines())
            if region.start > match.end() and match["after"] in targets:
                return region.end
        raise ValueError(f'no Python block below includes "{match["after"]}"')


def check_prose_values(example) -> str | None:
    directive = example.parsed
    if isinstance(directive, str):
        return _other(directive)
    page, line, paragraph = directive.page, directive.line, directive.paragraph
    if not paragraph:
        return _other("prose-values: no paragraph below the comment", page, line)
    problems, first = [], None  # first: the first value that differs, as data
    for value in directive.values:
        if value.condition is not None:
            try:
                version = torch_version()
            except OutputError as error:
                problems.append(f"{value.expression}: {error}")
                continue
            if not output_check.release_holds(value.condition, version):
                on = f", on torch {value.condition}"  # not run, but stated all the same
                problems += _unstated(value, paragraph, page, on)
                continue
        try:
            # The expression the page's author wrote, in the page's own namespace.
            got = format_value(eval(value.expression, example.namespace), value.spec)
        except Exception as error:  # reported with the page's line
            problems.append(f"{value.expression}: {type(error).__name__}: {error}")
            continue
        if got != value.text:
            said, expression = value.text, value.expression
            if not problems:
                first = dict(kind="value", said=said, expression=expression, got=got)
            problems.append(
                f"the prose says {said} for {expression}, the code gives {got}"
            )
        else:
            problems += _unstated(value, paragraph, page)
    if not problems:
        return None
    first = first or {"kind": "other", "message": problems[0]}
    listed = "".join(f"    {problem}\n" for problem in problems)
    return Failure(
        f"{page}, line {line}: prose-values:\n{listed}", file=page, line=line, **first
    )


def _unstated(value: ProseValue, paragraph: str, page: str, on: str = "") -> list[str]:
    """The problem, if any, of a paragraph that lacks the value's text (a count: in
    words, with the spec ``words``)."""
    words = value.spec == WORDS and value.text.isdigit()
    text = in_words(int(value.text), page) if words else value.text
    if appears(text, paragraph, words=words):
        return []
    label = f"{value.expression} in words" if words else value.expression
    return [f"{text!r} ({label}{on}) does not appear in the paragraph below"]


def appears(text: str, paragraph: str, words: bool = False) -> bool:
    """``text`` occurs in ``paragraph`` as a whole number or word: 6 is not found in
    16 or 6.5; a number in words in any case ("Four" at a sentence's start)."""
    pattern = rf"(?<![\w.]){re.escape(text)}(?![\w]|[.,]\d)"
    return re.search(pattern, paragraph, flags=re.I if words else 0) is not None


def in_words(number: int, page: str) -> str:
    """``number`` in words in the language of ``page`` (docs/<language>/...). Spanish
    «un» and «una» do not count as «uno»: they are articles too, so a tie would pass
    on any «una» in the paragraph."""
    parts = Path(page).parts
    return num2words(number, lang=language("/".join(parts[parts.index("docs") + 1 :])))
