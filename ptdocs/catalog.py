"""The translation catalog: the code's texts and the interface strings as PO files.

Gettext PO files (Babel) in ``locale/``: domain ``snippets``, the code's comments, prose
strings and the output that shows them; ``interface``, the :class:`Texts` tables
(CONTRIBUTING.md, "Translating"). ``update`` re-extracts and merges; ``check`` exits 1
when a file is stale or a translation malformed, 2 when a file is damaged.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gettext
import io
import itertools
import re
import sys
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from babel.lists import format_list
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import normalize, read_po, unescape, write_po

from .atomic import write_atomically
from .includes import cut, include_target, snippet_file

ROOT = Path(__file__).resolve().parent.parent
LOCALE = Path("locale")
SOURCE = "en"  # the language pages (and their code's comments) are written in
LANGUAGES = ("es",)  # the languages with a catalog; English is the msgid
DOMAINS = ("snippets", "interface")
PROJECT = "PyTorch explained"
COMMAND = "python -m ptdocs.catalog"
SUFFIXES = (".py", ".yaml", ".yml")  # the files whose comments are translated
NOTEBOOKS = Path("notebooks")

# Comments that are not prose: checked output, section and cell markers, tool pragmas.
_NOT_PROSE = re.compile(
    r"# >|#!|#\s*-+8<-+|#\s*%%|#.*-\*-\s*coding"
    r"|#\s*(?:noqa|type:|pragma|fmt:|pylint:|isort:|mypy:)",
    re.I,
)
# A pragma, then words ("noqa: E731  one call of the work to time"): the pragma stays,
# the words translate.
_PRAGMA_THEN_PROSE = re.compile(
    r"#\s*noqa(?::\s*[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)?\s+(?=[^\W\d_])", re.I
)
# A YAML line's comment: "#" at the start or after a space, outside quotes.
_YAML_COMMENT = re.compile(
    r"""(?:[^'"#]|'[^']*'|"(?:[^"\\]|\\.)*")*?(?:^|(?<=\s))(#.*)$"""
)
# A string is prose when its text (fields and HTML tags aside) has two words in a row:
# "relative error", not "cpu", "cuda:0" or "ij,jk->ik".
_PROSE = re.compile(r"(?<![\w.])[^\W\d_][^\W_]+[,;:]?\s+[^\W\d_][^\W_]+")
_TAG = re.compile(r"<[^<>]*>")
_PY_STRING = re.compile(r"(?P<prefix>[a-zA-Z]*)(?P<quote>'{3}|\"{3}|'|\")", re.S)
_NAME = re.compile(r"\{(\w*)")
_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")  # "{x:.{n}f}": one
_OUTPUT = re.compile(r"# >(?:\[[^\]\n]*\])? ?")
# The auto-comment that marks an entry's kind (what it starts with), for translators.
_KIND_NOTES = {
    "string": "a string of the code: keep each {field} as it is, and escape a quote "
    "that ends the string",
    "output": "what the code prints: translate as its strings are translated, keep "
    "what torch prints (numbers, tensors); the Spanish page's tests check it",
}


class CatalogError(ValueError):
    """A catalog that cannot serve a build, said in one line for the translator."""


class Place(NamedTuple):
    file: str  # from the repository root
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Comment:
    """One entry: a comment (or run of them at one indentation), strings or output."""

    # (line, start, end column) of what each msgid line replaces: a comment from its
    # "#", a string's text between its quotes, an output line's after "# > ".
    spans: tuple[tuple[int, int, int], ...]
    msgid: str  # one line per line of the code: the translation keeps the count
    prefix: str = ""  # a pragma kept before the translation (one line only)
    kind: str = "comment"  # "comment", "string" or "output"

    @property
    def line(self) -> int:
        return self.spans[0][0]

    def replacement(self, text: str) -> str:
        if self.kind != "comment":
            return text
        return self.prefix + text if self.prefix else f"# {text}" if text else "#"


def comments(source: str, suffix: str = ".py") -> list[Comment]:
    """The translatable comments of some Python (or YAML) code, in order."""
    lines = source.split("\n")
    if suffix in (".yaml", ".yml"):
        found = [(row, _YAML_COMMENT.match(line)) for row, line in enumerate(lines, 1)]
        tokens = [((row, match.start(1)), match[1]) for row, match in found if match]
    else:
        readline = io.StringIO(source).readline
        tokens = [
            (token.start, token.string)
            for token in tokenize.generate_tokens(readline)
            if token.type == tokenize.COMMENT
        ]
    found: list[Comment] = []
    run: list[tuple[tuple[int, int, int], str]] = []  # (span, text)

    def close() -> None:
        while run and not run[-1][1]:  # a trailing bare "#" belongs to no sentence
            run.pop()
        if any(re.search(r"[^\W\d_]", text) for _, text in run):  # a letter
            found.append(
                Comment(tuple(span for span, _ in run), "\n".join(t for _, t in run))
            )
        run.clear()

    for (row, column), token in tokens:
        span = (row, column, len(lines[row - 1]))
        pragma = _PRAGMA_THEN_PROSE.match(token)
        if pragma or _NOT_PROSE.match(token):
            close()
            if pragma:
                prose = token[pragma.end() :].rstrip()
                found.append(Comment((span,), prose, token[: pragma.end()]))
            continue
        text = token[1:].removeprefix(" ").rstrip()
        full_line = not lines[row - 1][:column].strip()
        goes_on = full_line and run and run[-1][0][:2] == (row - 1, column)
        if not goes_on:
            close()
        if goes_on or text or not full_line:
            run.append((span, text))
        if not full_line:  # after code: a comment of its own
            close()
    close()
    return found


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """Python's tokens, an f-string as one STRING token (Python 3.12 splits it)."""
    tokens, opened, lines = [], [], source.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = tokenize.tok_name.get(token.type, "")
        if kind == "FSTRING_START":
            opened.append(token)
        elif kind == "FSTRING_END":
            start = opened.pop()
            if not opened:
                (first, column), (last, end) = start.start, token.end
                text = "\n".join(lines[first - 1 : last])
                text = text[column : len(text) - len(lines[last - 1]) + end]
                string = (tokenize.STRING, text, start.start, token.end, start.line)
                tokens.append(tokenize.TokenInfo(*string))
        elif not opened:
            tokens.append(token)
    return tokens


def _opening(token: str) -> tuple[str, str]:
    return _PY_STRING.match(token).group("prefix", "quote")


def _pieces(token: tokenize.TokenInfo) -> list[tuple[tuple[int, int, int], str]]:
    """(span, text) of each line of a string token, without quotes or indentation."""
    prefix, quote = _opening(token.string)
    row, column = token.start
    parts = token.string.split("\n")
    pieces = []
    for index, part in enumerate(parts):
        start = len(prefix + quote) if index == 0 else len(part) - len(part.lstrip())
        end = max(start, len(part) - (len(quote) if index == len(parts) - 1 else 0))
        offset = column if index == 0 else 0
        pieces.append(((row + index, offset + start, offset + end), part[start:end]))
    return pieces


def placeholders(text: str) -> list[str]:  # each {field} as written; "{{" is none
    return [field for field in _FIELD.findall(text) if field not in ("{{", "}}")]


def placeholder_names(text: str) -> set[str]:
    """The names the {fields} use, a nested field's too: "{x!r:.{n}f}" uses x and n."""
    return {name for field in placeholders(text) for name in _NAME.findall(field)}


def is_prose(text: str) -> bool:
    return bool(_PROSE.search(_TAG.sub(" ", _FIELD.sub(" ", text))))


def phrases(text: str) -> list[str]:
    """The parts of a string's text between its fields that are prose on their own."""
    return [
        part.strip()
        for part in _FIELD.split(_TAG.sub("\n", text))
        for part in part.split("\n")
        if is_prose(part)
    ]


def _string_texts(tokens) -> list[Comment]:
    """Each run of adjacent prose string literals (bytes are data, not text)."""
    found = []
    code = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    for is_string, run in itertools.groupby(
        code, key=lambda token: token.type == tokenize.STRING
    ):
        pieces = [
            piece
            for token in run
            if is_string and "b" not in _opening(token.string)[0].lower()
            for piece in _pieces(token)
        ]
        text = "\n".join(text for _, text in pieces)
        if pieces and is_prose(text):
            spans = tuple(span for span, _ in pieces)
            found.append(Comment(spans, text, kind="string"))
    return found


def _output_texts(source: str, strings: list[Comment]) -> list[Comment]:
    """Each run of ``# >`` lines showing a phrase of the strings, not torch's."""
    ours = {phrase for string in strings for phrase in phrases(string.msgid)}
    outputs = [
        (row, found.end(), line)
        for row, line in enumerate(source.split("\n"), start=1)
        if (found := _OUTPUT.match(line))
    ]
    result = []
    for _, group in itertools.groupby(
        enumerate(outputs), key=lambda item: item[1][0] - item[0]
    ):
        run = [output for _, output in group]
        texts = [line[start:] for _, start, line in run]
        if any(phrase in text for phrase in ours for text in texts):
            spans = tuple((row, start, len(line)) for row, start, line in run)
            result.append(Comment(spans, "\n".join(texts), kind="output"))
    return result


def _imported_strings(source: str, name: str, root: Path) -> list[Comment]:
    """The prose strings of the modules beside ``name`` that the code imports."""
    try:
        body = ast.parse(source).body if name else []
    except SyntaxError:
        return []
    modules = {
        alias.name for n in body if isinstance(n, ast.Import) for alias in n.names
    }
    modules |= {n.module for n in body if isinstance(n, ast.ImportFrom) and not n.level}
    found = []
    for module in sorted(modules):
        path = (Path(root) / name).parent / f"{module}.py"
        if "." not in module and path.is_file():
            found += _string_texts(_tokens(path.read_text(encoding="utf-8")))
    return found


def texts(
    source: str, suffix: str = ".py", name: str = "", root: Path = ROOT
) -> list[Comment]:
    """Comments, prose strings and the output showing them, of ``name``'s code."""
    found = comments(source, suffix)
    if suffix == ".py":
        strings = _string_texts(_tokens(source))
        imported = _imported_strings(source, name, root)
        found += strings + _output_texts(source, strings + imported)
    return sorted(found, key=lambda comment: comment.spans[0])


def code_tokens(source: str) -> list[tuple]:
    """Every token but comments, a string by its prefix, quotes and f-string fields."""
    found = []
    for token in _tokens(source):
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            found.append((token.type, token.start[0]))
        elif token.type == tokenize.STRING:
            prefix, quote = _opening(token.string)
            fields = tuple(placeholders(token.string)) if "f" in prefix.lower() else ()
            code = (prefix.lower(), quote, fields)
            found.append((token.type, code, token.start[0], token.end[0]))
        elif token.type != tokenize.COMMENT:
            found.append((token.type, token.string, token.start[0], token.end[0]))
    return found


def same_code(english: str, other: str) -> bool:
    """Whether two versions of some code differ in comments and string texts at most."""
    try:
        return english == other or code_tokens(english) == code_tokens(other)
    except (tokenize.TokenError, SyntaxError):  # not Python (an IPython magic)
        return False


def string_differences(english: str, other: str) -> list[tuple[str, str]]:
    """(English, other) of each string literal line that differs in the same code."""
    a, b = (
        [_pieces(token) for token in _tokens(text) if token.type == tokenize.STRING]
        for text in (english, other)
    )
    return [
        (x, y)
        for pieces_a, pieces_b in zip(a, b, strict=False)
        for (_, x), (_, y) in zip(pieces_a, pieces_b, strict=False)
        if x != y
    ]


def translate_source(
    source: str,
    translations: dict[str, str],
    suffix: str = ".py",
    name: str = "",
    root: Path = ROOT,
) -> tuple[str, list[Comment]]:
    """The code with each entry translated line for line, and those left in English."""
    lines = source.split("\n")
    edits: list[tuple[int, int, int, str]] = []  # (line, start, end column, new text)
    untranslated = []
    for comment in texts(source, suffix, name, root):
        translated = translations.get(comment.msgid)
        parts = translated.split("\n") if translated else []
        change = [
            (*span, comment.replacement(text))
            for span, text in zip(comment.spans, parts, strict=False)
        ]
        if len(parts) != len(comment.spans) or (
            comment.kind == "string"
            # An unescaped quote would end the string early.
            and not (
                sorted(placeholders(comment.msgid)) == sorted(placeholders(translated))
                and same_code(source, _edited(lines, change))
            )
        ):
            untranslated.append(comment)
        else:
            edits += change
    return _edited(lines, edits), untranslated


def _edited(lines: list[str], edits) -> str:
    # Right to left: two strings on one line keep their columns.
    lines = list(lines)
    for row, start, end, text in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:start] + text + lines[row - 1][end:]
    return "\n".join(lines)


def po_path(domain: str, language: str, root: Path = ROOT) -> Path:
    return Path(root) / LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def pot_path(domain: str, root: Path = ROOT) -> Path:
    return Path(root) / LOCALE / f"{domain}.pot"


# PO syntax as gettext's msgfmt reads it. Babel reads some damage silently and loses
# text (`msgstr "abc` becomes "ab"); so does polib 1.2, which accepts 8 of the 14
# damaged files tests/test_catalog.py plants. So every file is checked here first, and
# a damaged one is never merged or written back.
_CHARS = r'(?:[^"\\]|\\[abfnrtv"\\?]|\\[0-7]{1,3}|\\x[0-9A-Fa-f]+)*'
_STRING_START = re.compile(f'"{_CHARS}')
# A line's mark (#~ obsolete entry, #| previous msgid, #~| both) and what follows it.
_LINE = re.compile(r"(#~\|?|#\|)?\s*(.*)")
_KEYWORDS = r"msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?"
_KEYWORD = re.compile(rf'({_KEYWORDS})(?:(?:\s+|(?="))(.*))?')
# msgfmt reads a keyword's text after no space or a tab too (msgid"a"); Babel needs
# one space.
_SPACED = re.compile(rf'^(\s*(?:#~\s*)?(?:{_KEYWORDS}))[ \t]*"'.encode(), re.M)
# The placeholders that `msgfmt -c` compares between msgid and msgstr.
_PERCENT = re.compile(
    r"%(?:\((\w+)\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa])"
)


class POSyntaxError(CatalogError):
    """A PO file that gettext would reject or Babel read lossily."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


def syntax_problems(data: bytes, name: str) -> list[str]:
    """``name:line: what is wrong`` for each thing msgfmt -c rejects or Babel loses."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [f"{name}:{line}: not UTF-8 text; save the file as UTF-8"]
    found: list[tuple[int, str]] = []
    entries: list[dict] = []  # {"flags": ..., keyword: [line, text]} for each entry
    flags: set[str] = set()
    continues = {"": None, "~": None, "|": None}  # the keyword a "..." line extends
    damaged = False  # inside an entry whose msgid or msgctxt line is broken
    conflicted = -1  # the number of entries when a msgcat conflict was last said
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if _MARKER.match(line) and conflicted != len(entries):  # once an entry
            found.append((number, _CONFLICT))  # msgcat's, in a text it could not merge
            conflicted = len(entries)
        # Obsolete entries (#~) and previous msgids (#|): their syntax only.
        mark, line = _LINE.fullmatch(line).groups()
        kind = (mark or "")[-1:]  # "~", "|", or "" for a live entry's line
        if not mark and line.startswith("#"):
            if line.startswith("#,"):
                flags |= {flag.strip() for flag in line[2:].split(",")}
            continues[""] = None  # a comment ends an entry's text
            continue
        if not line:
            continue
        if line.startswith('"'):
            problem = _text_problem("", line)
            if problem or continues[kind] is None:
                found.append((number, problem or _STRAY))
            elif not kind and not damaged:  # a broken entry's text: said already
                entries[-1][continues[kind]][1] += unescape(line)
            continue
        match = _KEYWORD.fullmatch(line)
        keyword, rest = (match[1], (match[2] or "").strip()) if match else (None, "")
        if keyword:
            problem = _text_problem(keyword, rest)
        else:
            problem = _UNKNOWN.format(line.split()[0])
        continues[kind] = None if problem else keyword
        if problem:
            found.append((number, problem))
            # A broken msgid or msgctxt opens no entry: what follows it, up to the next
            # sound one, is its entry's and said once, not charged to the entry before.
            damaged = damaged or (not kind and keyword in ("msgctxt", "msgid"))
        if kind or problem:
            continue
        if damaged and keyword not in ("msgctxt", "msgid"):
            continue
        damaged = False
        entry = entries[-1] if entries else None
        if keyword in ("msgctxt", "msgid") and (
            entry is None or keyword in entry or any(k[:6] == "msgstr" for k in entry)
        ):
            entry = {"flags": flags}
            entries.append(entry)
            flags = set()
        elif entry is None:
            found.append((number, f"{keyword} before any msgid"))
            continues[kind] = None
            continue
        if keyword in entry:
            found.append((number, f"a second {keyword} in one entry"))
        entry[keyword] = [number, unescape(rest)]
    return [f"{name}:{line}: {problem}" for line, problem in found + _entries(entries)]


_MARKER = re.compile(r'(msgstr(\[\d+\])?\s*)?"#-#-#-#-#')
# Followed, it leaves what msgfmt -c and Babel read as one translation (checked with
# msgcat's own output: tests/test_catalog.py).
_CONFLICT = (
    "msgcat found different translations of this entry and kept them all: keep one, "
    "delete the others and the #-#-#-#-# lines, end it with \\n only if the msgid "
    "ends with \\n, and remove the entry's fuzzy flag"
)
_UNKNOWN = (
    "unknown keyword {0!r}: a line holds msgid, msgstr or msgctxt and a "
    '"quoted text", a "quoted text" alone, or a # comment'
)
_STRAY = "a quoted line that continues no msgid, msgstr or msgctxt"


def _entries(entries: list[dict]) -> list[tuple[int, str]]:
    """(line, problem) of each incomplete, repeated or msgfmt -c refused entry."""
    found, seen = [], {}
    for entry in entries:
        if "msgid" not in entry:
            found.append((entry["msgctxt"][0], "msgctxt without a msgid after it"))
            continue
        number, msgid = entry["msgid"]
        strings = [entry[key] for key in entry if key.startswith("msgstr")]
        if not strings:
            found.append((number, 'msgid without msgstr; add msgstr "" after it'))
            continue  # not a translation: a later entry with this msgid repeats none
        key = (entry.get("msgctxt", [0, None])[1], msgid)
        if key in seen:
            both = " and msgctxt" if key[0] is not None else ""
            found.append(
                (
                    number,
                    f"the same msgid{both} as line {seen[key]}: "
                    "keep one of the two entries",
                )
            )
        seen[key] = number
        flags, plural = entry["flags"], entry.get("msgid_plural", [0, ""])[1]
        if not msgid or "fuzzy" in flags:  # msgfmt -c skips fuzzy entries too
            continue
        for at, string in (pair for pair in strings if pair[1]):
            said = [
                f"msgid and msgstr do not both {edge} with a line break (\\n)"
                for edge, test in (("begin", str.startswith), ("end", str.endswith))
                if test(msgid, "\n") != test(string, "\n")
            ]
            if "python-format" in flags and _directives(msgid) != _directives(string):
                said.append(
                    "the translation's %-placeholders differ from the English "
                    "text's (python-format)"
                )
            if "python-brace-format" in flags:
                said += _extra_fields(msgid + plural, string, " (python-brace-format)")
            found += [(at, problem) for problem in said]
    return found


def _extra_fields(english: str, translated: str, why: str = "") -> list[str]:
    """The translation's {fields} that the English text does not provide."""
    extra = placeholder_names(translated) - placeholder_names(english)
    if not extra:
        return []
    return [
        f"the translation uses {{{', '.join(sorted(extra))}}}, which the English "
        f"text does not provide{why}"
    ]


def _directives(text: str) -> list:
    """A text's %-directives as msgfmt compares them ("%o" and "%d": an integer)."""
    kinds = {**dict.fromkeys("diouxX", "integer"), **dict.fromkeys("eEfFgG", "float")}
    return sorted(
        (name, kinds.get(kind, kind))
        for name, kind in _PERCENT.findall(text.replace("%%", ""))
    )


def _text_problem(keyword: str, text: str) -> str | None:
    """What is wrong with the text of a keyword (or a line that goes on with one)."""
    if not text:
        return f'{keyword} has no text; write {keyword} "" for none'
    if not text.startswith('"'):
        return (
            f'the text of {keyword} must be in double quotes: {keyword} "{_cut(text)}"'
        )
    at = _STRING_START.match(text).end()  # where the text stops being a PO string
    if text[at:] == '"':
        return None
    if at == len(text):
        return f'the text {_cut(text)} is not closed: end it with a " on the same line'
    if text[at] == '"':
        return f'a quote ends the text {_cut(text)} early; write \\" for a quote in it'
    return (
        f"unknown escape {text[at : at + 2]!r} in {_cut(text)}; "
        "write \\\\ for a backslash in the text"
    )


def _cut(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _parse(data: bytes, name: str, locale: str | None = None) -> Catalog:
    if problems := syntax_problems(data, name):
        raise POSyntaxError(problems)
    # Babel cannot read an obsolete entry's previous msgid (#~|): history, dropped.
    data = b"\n".join(
        line for line in data.split(b"\n") if not line.lstrip().startswith(b"#~|")
    )
    data = _SPACED.sub(rb'\1 "', data)
    try:
        catalog = read_po(io.BytesIO(data), locale=locale, abort_invalid=True)
    except Exception as error:  # Babel's parse errors, in one line
        raise CatalogError(f"{name}: not a valid PO file: {error}") from None
    for message in (*catalog, *catalog.obsolete.values()):
        # Babel reads "#| msgid ..." as translator comments: the previous msgid again.
        previous = [c for c in message.user_comments if c[:1] == "|"]
        message.user_comments = [c for c in message.user_comments if c[:1] != "|"]
        parts, current = {}, None
        for line in previous:
            line = line[1:].strip()
            if match := _KEYWORD.fullmatch(line):
                current, line = match[1], (match[2] or "").strip()
            if current and not _text_problem("", line):
                parts[current] = parts.get(current, "") + unescape(line)
        if "msgid" in parts:
            message.previous_id = [
                parts[key] for key in ("msgid", "msgid_plural") if key in parts
            ]
    return catalog


def content(data: bytes, name: str) -> tuple:
    """What a PO file says, whatever its layout (wrapping, order, X-Generator)."""
    catalog = _parse(data, name)
    messages = [(False, m) for m in catalog if m.id]
    messages += [(True, m) for m in catalog.obsolete.values()]
    return tuple(
        sorted(
            (
                obsolete,
                m.context or "",
                str(m.id),
                str(m.string),
                tuple(sorted(m.flags - {"python-format"})),
                tuple(sorted(map(str, m.locations))),
                tuple(m.auto_comments),
                tuple(m.user_comments),
                tuple(m.previous_id) if m.fuzzy else (),
            )
            for obsolete, m in messages
        )
    )


@functools.lru_cache(maxsize=16)
def _loaded(path: Path, stamp: tuple[int, int], locale: str) -> Catalog:
    return _parse(path.read_bytes(), relative(path, ROOT), locale)


def load(domain: str, language: str, root: Path = ROOT) -> Catalog:
    """A language's PO file, read once per change; without locale/ (a test's site),
    the project's."""
    if not (Path(root) / LOCALE).is_dir():
        root = ROOT
    path = po_path(domain, language, root)
    try:
        info = path.stat()
    except FileNotFoundError:
        where = path.relative_to(root) if path.is_relative_to(root) else path
        raise CatalogError(
            f"{where}: no such catalog; run `{COMMAND} update`"
        ) from None
    return _loaded(path, (info.st_mtime_ns, info.st_size), language)


def comment_translations(language: str, root: Path = ROOT) -> dict[str, str]:
    """msgid -> translation of the snippets, fuzzy and empty entries left out."""
    if language == SOURCE:
        return {}
    if language not in LANGUAGES:
        raise CatalogError(
            f"no comment catalog for the language {language!r}; "
            f"the catalogs are for {', '.join(LANGUAGES)}"
        )
    return _comment_map(load("snippets", language, root))


@functools.lru_cache(maxsize=8)
def _comment_map(catalog: Catalog) -> dict[str, str]:
    return {m.id: m.string for m in current(catalog) if not m.context}


def line_translations(
    language: str, kind: str, root: Path = ROOT
) -> frozenset[tuple[str, str]]:
    """(English, translation) of each line of each current ``kind`` entry."""
    return frozenset(
        pair
        for m in current(load("snippets", language, root))
        if _is_kind(m, kind)
        for pair in zip(m.id.split("\n"), m.string.split("\n"), strict=False)
    )


def current(catalog: Catalog):
    """The translated entries, fuzzy ones left out (as msgfmt does)."""
    return (m for m in catalog if m.id and m.string and not m.fuzzy)


def _is_kind(message, kind: str) -> bool:
    label = _KIND_NOTES[kind].split(":")[0]  # what an older file's note says too
    return any(note.startswith(label) for note in message.auto_comments)


def translate_file(
    path: Path, language: str, root: Path = ROOT
) -> tuple[list[str], list[Place]]:
    """A code file's lines in the language, and where an entry is left in English."""
    if language == SOURCE:
        text = Path(path).read_text(encoding="utf-8")
        return text.split("\n") if text else [], []
    comment_translations(language, root)  # an unknown language is an error
    info = Path(path).stat()
    stamp = (info.st_mtime_ns, info.st_size)
    catalog = load("snippets", language, root)
    lines, left = _translated_file(Path(path), stamp, Path(root), catalog)
    return list(lines), list(left)


@functools.lru_cache(maxsize=256)
def _translated_file(
    path: Path, stamp: tuple[int, int], root: Path, catalog: Catalog
) -> tuple[tuple[str, ...], tuple[Place, ...]]:
    name = relative(path, root)
    translated, left = translate_source(
        path.read_text(encoding="utf-8"), _comment_map(catalog), path.suffix, name, root
    )
    lines = tuple(translated.split("\n") if translated else [])
    return lines, tuple(Place(name, comment.line) for comment in left)


def relative(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


def listed(items, language: str) -> str:
    """CLDR's list in ``language``: "a, b and c" in English as the rest of the site
    writes it (British: no comma before "and"), "a, b y c" in Spanish."""
    return format_list(list(items), locale="en_GB" if language == "en" else language)


class Plural:
    """An interface string that depends on a count (gettext's msgid and msgid_plural):
    ``Plural("1 example ran", "{n} examples ran")(n, **values)`` is the form for ``n``
    in the table's language (``ngettext``: Spanish has three), filled in."""

    def __init__(
        self, one: str, many: str, forms: tuple[str, ...] = (), rule: str = "(n != 1)"
    ):
        self.one, self.many = one, many  # the English: msgid, msgid_plural
        # The language's msgstr[i] and Plural-Forms: a download carries them
        # (ptdocs.output_check), the site asks gettext.
        self.forms, self.rule = tuple(forms) or (one, many), rule
        self.ngettext = gettext.NullTranslations().ngettext  # a language's: its own

    def __call__(self, n: int, **values) -> str:
        return self.ngettext(self.one, self.many, n).format(n=n, **values)

    def __repr__(self) -> str:
        return f"Plural({self.one!r}, {self.many!r})"


class Texts(Mapping):
    """Interface strings of one part of the site, written here in English (a literal:
    ``update`` reads it from the source); ``[language]`` reads interface.po, msgctxt
    the key path (``name.key.0``), and raises CatalogError naming a missing entry."""

    def __init__(self, name: str, english: dict, root: Path = ROOT) -> None:
        self.name, self.english, self.root = name, english, Path(root)

    def __contains__(self, language) -> bool:
        return language == SOURCE or language in LANGUAGES

    def __iter__(self):
        return iter((SOURCE, *LANGUAGES))

    def __len__(self) -> int:
        return 1 + len(LANGUAGES)

    def __getitem__(self, language: str) -> dict:
        if language == SOURCE:
            return self.english
        if language not in LANGUAGES:
            raise KeyError(language)
        missing: list[str] = []
        catalog = load("interface", language, self.root)
        table = _mapped(
            self.english, self.name, lambda k, v: _translation(k, v, catalog, missing)
        )
        if missing:
            more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            raise CatalogError(
                f"{po_path('interface', language, Path('.'))} lacks a current "
                f"translation of {missing[0]}{more}; run `{COMMAND} update` and "
                "translate it"
            )
        return table

    def in_language(self, language: str) -> dict:
        return self[language if language in self else SOURCE]


@functools.lru_cache(maxsize=8)
def _gettext(catalog: Catalog) -> gettext.GNUTranslations:
    """The catalog compiled (fuzzy entries left out, as msgfmt does) for gettext."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _mapped(english, key: str, leaf):
    """A Texts table with ``leaf(key path, text or Plural)`` in place of each text."""
    if isinstance(english, dict):
        return {k: _mapped(v, f"{key}.{k}", leaf) for k, v in english.items()}
    if isinstance(english, tuple | list):
        items = (_mapped(v, f"{key}.{i}", leaf) for i, v in enumerate(english))
        return type(english)(items)
    return leaf(key, english)


def _translation(key: str, english, catalog: Catalog, missing: list[str]):
    plural = isinstance(english, Plural)
    msgid = english.one if plural else english  # a plural's entry: its singular
    message = catalog.get(msgid, context=key)
    strings = () if message is None else message.string
    strings = strings if isinstance(strings, tuple) else (strings,)
    if (
        message is None
        or not all(strings)
        or message.fuzzy
        or plural != isinstance(message.id, tuple)
    ):
        missing.append(f"{key} ({msgid!r})")
        return english
    if not plural:
        return message.string
    translated = Plural(english.one, english.many, strings, catalog.plural_expr)
    translated.ngettext = functools.partial(_gettext(catalog).npgettext, key)
    return translated


def shown_lines(root: Path = ROOT) -> dict[str, set[int]]:
    """For each snippet file, the lines that some English page shows (its includes)."""
    shown: dict[str, set[int]] = {}
    for page in sorted((Path(root) / "docs" / SOURCE).rglob("*.md")):
        for line in page.read_text(encoding="utf-8").split("\n"):
            if (target := include_target(line)) is None:
                continue
            if not (found := snippet_file(target, root))[0].endswith(SUFFIXES):
                continue
            path, file = found
            first, lines = cut(target, file.read_text(encoding="utf-8").split("\n"))
            shown.setdefault(path, set()).update(
                first + i for i, text in enumerate(lines) if text.strip()
            )
    return shown


def code_cells(source: Path, cells=None):
    """(position, first line or None, cell) of each code cell of a jupytext script."""
    import jupytext

    text = Path(source).read_text(encoding="utf-8")
    searched = 0
    for position, cell in enumerate(
        jupytext.read(source, fmt="py:percent").cells if cells is None else cells
    ):
        if cell.cell_type == "code":
            at = text.find(cell.source, searched)
            searched = at + len(cell.source) if at >= 0 else searched
            yield position, (text.count("\n", 0, at) + 1 if at >= 0 else None), cell


def _notebook_code(source: Path) -> list[tuple[int, str]]:
    cells = code_cells(source)
    return [(line - 1, cell.source) for _, line, cell in cells if line and cell.source]


def translate_notebook_code(code: str, language: str, root: Path = ROOT) -> str:
    if language == SOURCE:
        return code
    return translate_source(code, comment_translations(language, root))[0]


def untranslated_notebook_comments(
    source: Path, language: str, root: Path = ROOT
) -> list[Place]:
    """The place of each entry of a notebook source's code cells left in English."""
    if language == SOURCE:
        return []
    known, name = comment_translations(language, root), relative(Path(source), root)
    return [
        Place(name, offset + comment.line)
        for offset, code in _notebook_code(Path(source))
        for comment in translate_source(code, known)[1]
    ]


def extract_comments(root: Path = ROOT) -> Catalog:
    about = "Comments in the code of the pages, downloads and notebooks"
    catalog = _catalog("snippets", _HEADER.format(about))
    found = []
    for path, numbers in sorted(shown_lines(root).items()):
        try:
            source = (Path(root) / path).read_text(encoding="utf-8")
            entries = texts(source, Path(path).suffix, path, root)
        except tokenize.TokenError as error:  # ('EOF in multi-line ...', (2, 0))
            raise CatalogError(f"{path}:{error.args[1][0]}: {error.args[0]}") from None
        found += [(path, 0, c) for c in entries if c.line in numbers]
    for source in sorted((Path(root) / NOTEBOOKS).glob("*.py")):
        name = relative(source, root)
        found += [
            (name, at, comment)
            for at, code in _notebook_code(source)
            for comment in texts(code)
        ]
    for path, offset, comment in found:
        notes = [_KIND_NOTES[comment.kind]] if comment.kind in _KIND_NOTES else []
        if (count := len(comment.spans)) > 1:
            notes.append(f"{count} lines: keep {count} lines in the translation")
        location = (path, offset + comment.line)
        catalog.add(comment.msgid, locations=[location], auto_comments=notes)
    return catalog


def interface_tables(root: Path = ROOT):
    """(file, line, name, English table) of every ``Texts("name", {...})``."""
    for path in sorted((Path(root) / "ptdocs").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, str(path))) if "Texts(" in text else ():
            match node:
                case ast.Call(
                    func=ast.Name(id="Texts") | ast.Attribute(attr="Texts"),
                    args=[ast.Constant(value=name), ast.Dict() as table, *_],
                ):
                    where = relative(path, root)
                    try:
                        english = _literal(table)
                    except (ValueError, TypeError):  # or Plural(...) of other than two
                        raise CatalogError(
                            f"{where}:{node.lineno}: the English table of Texts(...) "
                            "must be a literal"
                        ) from None
                    yield where, node.lineno, name, english


def _literal(node: ast.AST):
    """A Texts table's English as written: literals, and Plural of two strings."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Plural":
        return Plural(*map(ast.literal_eval, node.args))
    if isinstance(node, ast.Dict):
        return {
            ast.literal_eval(key): _literal(value)
            for key, value in zip(node.keys, node.values, strict=False)
        }
    if isinstance(node, ast.Tuple | ast.List):
        items = map(_literal, node.elts)
        return tuple(items) if isinstance(node, ast.Tuple) else list(items)
    return ast.literal_eval(node)


def extract_interface(root: Path = ROOT) -> Catalog:
    about = "The site's interface strings (msgctxt: where the code uses it)"
    catalog = _catalog("interface", _HEADER.format(about))

    def add(key: str, text, where: tuple[str, None]) -> None:
        text = (text.one, text.many) if isinstance(text, Plural) else text
        # Babel flags python-brace-format itself (Message, from 2.17).
        catalog.add(text, context=key, locations=[where])

    # The #: names the file only (xgettext's --add-location=file): the msgctxt says
    # where an entry is used, so moving code does not make the catalog stale.
    for path, _, name, english in interface_tables(root):
        _mapped(english, name, functools.partial(add, where=(path, None)))
    return catalog


def _catalog(domain: str, header: str, **options) -> Catalog:
    return Catalog(
        project=PROJECT, domain=domain, fuzzy=False, header_comment=header, **options
    )


_HEADER = f"# {{}}.\n# Regenerate with `{COMMAND} update`."
EXTRACT = {"snippets": extract_comments, "interface": extract_interface}


def _po_text(catalog: Catalog, domain: str, previous: bool = False) -> str:
    # Babel flags "within 5% in" python-format and "{x.grad}" python-brace-format, and
    # `msgfmt -c` (Poedit, on save) then checks the translation as one. No snippet is
    # a format string (`problems` checks f-string fields); interface strings are
    # python-brace-format only.
    unflagged = {"python-format", "python-brace-format"}
    if domain == "interface":
        unflagged.remove("python-brace-format")
    for message in (*catalog, *catalog.obsolete.values()):
        message.flags -= unflagged
    buffer = io.BytesIO()
    # width=100 wraps like the code, so that a diff stays readable.
    write_po(buffer, catalog, width=100)
    # Babel writes a previous msgid of several lines as one wrapped comment whose later
    # lines lose their "#|" (an invalid file): they are written here, in gettext's
    # layout, before the msgctxt or msgid of their entry (one block each, in order).
    blocks = buffer.getvalue().decode("utf-8").split("\n\n")
    for at, message in enumerate(catalog if previous else ()):
        if message.previous_id:
            ids = zip(("msgid", "msgid_plural"), message.previous_id, strict=False)
            marked = [
                f"#| {line}"
                for keyword, text in ids
                for line in f"{keyword} {normalize(text, width=100)}".split("\n")
            ]
            lines = blocks[at].split("\n")
            first = next(i for i, x in enumerate(lines) if x.startswith("msg"))
            blocks[at] = "\n".join(lines[:first] + marked + lines[first:])
    text = "\n\n".join(blocks)
    # The dates change on every run; without them a diff shows real changes only.
    return re.sub(
        r'^"(POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', "", text, flags=re.M
    )


def merged(domain: str, language: str, root: Path = ROOT) -> tuple[str, str]:
    """The template's text, and the PO file's merged with it as msgmerge does (a
    changed msgid fuzzy, with its ``#|`` previous msgid; a gone one obsolete)."""
    template = EXTRACT[domain](root)
    path = po_path(domain, language, root)
    if path.is_file():
        catalog = _parse(path.read_bytes(), relative(path, ROOT), language)
    else:
        catalog = _catalog(domain, template.header_comment, locale=language)
    before = {message.id: message for message in catalog if message.id}
    catalog.update(template)
    for message in catalog:
        old = before.get(message.previous_id[0] if message.previous_id else message.id)
        if message.fuzzy and old is not None and old.fuzzy and old.previous_id:
            # Changed again before anyone translated it: the translation still
            # translates the older English.
            message.previous_id = list(old.previous_id)
        elif not message.fuzzy:
            message.previous_id = []
    catalog.language_team = f"{language} <{PROJECT}>"
    catalog.last_translator = "the project's translators"
    return _po_text(template, domain), _po_text(catalog, domain, previous=True)


def problems(domain: str, language: str, root: Path = ROOT) -> list[str]:
    """Each missing, fuzzy or malformed entry of one PO file, for the translator."""
    found = []
    where = po_path(domain, language, Path("."))
    for message in load(domain, language, root):
        if not message.id:
            continue
        ref = ", ".join(f"{f}:{n}" if n else f for f, n in message.locations)
        ref = ref or str(where)
        label = f"{message.context} " if message.context else ""
        pair = (message.id, message.string)
        ids, strings = ((t if isinstance(t, tuple) else (t,)) for t in pair)
        short = repr(_cut(ids[0].split("\n")[0], 60))
        fields = sorted(placeholders(ids[0]))
        lines, count = (text.count("\n") + 1 for text in (strings[0], ids[0]))
        if not all(strings):
            found.append(f"{ref}: {label}not translated: {short}")
        elif message.fuzzy:
            found.append(f"{ref}: {label}outdated (fuzzy): {short}")
        elif domain == "interface":
            extra = _extra_fields("".join(ids), "".join(strings))
            found += [f"{ref}: {label}{problem}" for problem in extra]
        elif _is_kind(message, "string") and fields != sorted(placeholders(strings[0])):
            found.append(
                f"{ref}: the translation's {{fields}} differ from the English "
                f"{fields}: keep each one as it is"
            )
        elif lines != count:
            found.append(
                f"{ref}: the translation has {lines} lines, the comment "
                f"{count}; keep the same number"
            )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument(
        "action",
        choices=("update", "check"),
        help="update: re-extract and merge into the PO files; check: exit 1 if "
        "anything is stale",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository (default: this one)"
    )
    arguments = parser.parse_args(argv)
    root, update = arguments.root, arguments.action == "update"
    if not (root / "docs" / SOURCE).is_dir():
        parser.error(f"{root}: not the site's repository (no docs/{SOURCE}/ in it)")
    pairs = list(itertools.product(DOMAINS, LANGUAGES))
    try:
        # Every file is read before any is written: a damaged one stops the command.
        files = {}
        for domain, language in pairs:
            template, po = merged(domain, language, root)
            files[pot_path(domain, root)] = template
            files[po_path(domain, language, root)] = po
        stale = [
            path for path, text in files.items() if _stale(path, text, root, update)
        ]
        bad = [] if update else [p for pair in pairs for p in problems(*pair, root)]
    except POSyntaxError as error:  # a damaged PO file: each of its problems
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(
            "error: nothing was written; correct the file (a PO editor such as "
            "Poedit shows the line), then run the command again",
            file=sys.stderr,
        )
        return 2
    except (ValueError, SyntaxError, tokenize.TokenError) as error:
        # A CatalogError, a page's IncludeError, a snippet that does not parse.
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in stale:
        if update:
            write_atomically(path, files[path])
        print(f"{'wrote' if update else 'stale'}: {relative(path, root)}")
    for problem in bad:
        print(problem)
    if update:
        return 0
    if stale:
        print(f"run `{COMMAND} update`", file=sys.stderr)
    # Missing and outdated translations are listed, not failed: the page shows a notice.
    malformed = [p for p in bad if "not translated" not in p and "(fuzzy)" not in p]
    return 1 if stale or malformed else 0


def _stale(path: Path, text: str, root: Path, layout: bool) -> bool:
    """Whether a file differs from ``text``: with ``layout``, byte for byte; else in
    content (a file saved by Poedit or msgcat is current)."""
    if not path.is_file():
        return True
    if layout:
        return path.read_bytes().decode("utf-8") != text
    name = relative(path, root)
    return content(path.read_bytes(), name) != content(text.encode("utf-8"), name)


if __name__ == "__main__":
    sys.exit(main())
