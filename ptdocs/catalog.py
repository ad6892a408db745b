"""The translation catalog: code comments and interface strings as gettext PO files
(Babel).

Two domains, each a template in ``locale/`` and a PO file per language in
``locale/<language>/LC_MESSAGES/`` (edit them with Poedit, Weblate or any PO editor):

* ``snippets``: every comment a reader sees in the code of the site: the lines of
  ``snippets/**.py`` that a page includes, and the code cells of ``notebooks/*.py``.
  One entry per comment, with ``#:`` references naming file:line. Consecutive
  full-line comments at the same indentation are ONE entry, one msgid line per
  comment line: a translator needs the whole sentence, and the translation keeps
  the same number of lines (the code below a comment must keep its line number:
  tracebacks and ``# >`` output name the snippet's lines). Not translated: ``# --8<--``
  section markers, ``# %%`` cell markers, shebang, encoding and tool pragmas
  (``# noqa``, ``# type:`` ...).
  The same catalog holds the code's own text, so a Spanish page prints Spanish: each
  string literal that is prose (two words in a row, f-string fields aside; a run of
  adjacent literals is one entry, one msgid line per literal line), translated in
  place with its prefix, quotes and fields kept (else it stays English); and each run
  of ``# >`` output lines that shows a phrase of those strings, translated line for line
  (torch's output, with none of them, is not an entry). The Spanish code therefore
  differs from the English only in comments and these strings; it runs in the page
  tests, and its ``# >`` lines are checked in Spanish. A msgid equal to its msgstr is
  text kept as it is (torch's messages that the code quotes).
* ``interface``: the project's own interface strings, declared in Python in English
  with :class:`Texts` (``Texts("downloads", {"notebook": "Download notebook", ...})``);
  msgctxt ``downloads.notebook``, msgid the English text.

A missing or fuzzy (outdated) comment translation leaves the English comment on the
Spanish page, which then shows the outdated-translation notice, and ``python -m
ptdocs.translations status`` lists it. A missing or outdated interface string stops
the build with a one-line error naming the entry.

    python -m ptdocs.catalog update   # re-extract the templates, merge them into the
    PO files
    python -m ptdocs.catalog check    # list what is untranslated or outdated; exit 1
    if a template
                                      # or PO file is stale, or a translation is
                                      # malformed

Both refuse a PO file that gettext's ``msgfmt -c`` would reject or that Babel would
read with text lost (exit 2, ``file:line: what is wrong``), and write nothing then.
``check`` compares what the files say, not their layout: a file saved by Poedit,
Weblate or ``msgcat`` is current; ``update`` rewrites it in the project's layout.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gettext
import io
import re
import sys
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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

# Comments that are not prose: checked output, section and cell markers, tool pragmas.
_NOT_PROSE = re.compile(
    r"# "
    r">|#!|#\s*-+8<-+|#\s*%%|#.*-\*-\s*coding|#\s*(?:noqa|type:|pragma|fmt:|pylint:|isort:|mypy:)",
    re.I,
)
# A pragma followed by words for the reader ("# noqa: E731  one call of the work to time"): the
# pragma stays, the words are translated.
_PRAGMA_THEN_PROSE = re.compile(
    r"#\s*noqa(?::\s*[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)?\s+(?=[^\W\d_])", re.I
)
# The files whose comments are translated: Python, and YAML that a page shows.
SUFFIXES = (".py", ".yaml", ".yml")
# A YAML comment: "#" at the start of a line or after a space, outside quotes.
_YAML_COMMENT = re.compile(
    r"""^(?:[^'"#\n]|'[^'\n]*'|"(?:[^"\\\n]|\\.)*")*?(?:^|(?<=\s))(#.*)$""", re.M
)


class CatalogError(ValueError):
    """A catalog that cannot serve a build, with a one-line message for the
    translator."""


class Place(NamedTuple):
    """A line of a file (from the repository root), shown as ``file:line``."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


# ---------------------------------------------------------------- comments in code


@dataclass(frozen=True)
class Comment:
    """One translatable comment: one line, or a run of full-line comments at one
    indentation."""

    lines: tuple[
        tuple[int, int], ...
    ]  # (1-based line, column of "#") of each comment line
    msgid: str  # the text after "# " of each line, joined with "\n"
    prefix: str = ""  # kept before the translation: "# noqa: E731  " (one line only)
    # A string literal or a run of output lines: (line, start, end column) of the text
    # that each msgid line replaces (a string's text between its quotes, an output
    # line's after "# > ").
    spans: tuple[tuple[int, int, int], ...] = ()
    kind: str = "comment"  # "comment", "string" or "output"

    @property
    def line(self) -> int:
        return self.lines[0][0]


def _text(token: str) -> str:
    return token[1:].removeprefix(" ").rstrip()


@dataclass(frozen=True)
class _Token:
    start: tuple[int, int]
    string: str


def _comment_tokens(source: str, suffix: str) -> list:
    if suffix in (".yaml", ".yml"):
        return [
            _Token(
                (
                    source.count("\n", 0, match.start(1)) + 1,
                    match.start(1) - (source.rfind("\n", 0, match.start(1)) + 1),
                ),
                match[1],
            )
            for match in _YAML_COMMENT.finditer(source)
        ]
    return [
        token
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]


def comments(source: str, suffix: str = ".py") -> list[Comment]:
    """The translatable comments of some Python (or YAML) code, in order (Python's
    tokenize: none inside strings)."""
    tokens = _comment_tokens(source, suffix)
    lines = source.split("\n")
    found: list[Comment] = []
    run: list[tokenize.TokenInfo] = []

    def close() -> None:
        texts = [_text(token.string) for token in run]
        while texts and not texts[-1]:  # a trailing bare "#" belongs to no sentence
            texts.pop()
            run.pop()
        if any(re.search(r"[^\W\d_]", text) for text in texts):  # at least one letter
            found.append(Comment(tuple(token.start for token in run), "\n".join(texts)))
        run.clear()

    for token in tokens:
        row, column = token.start
        pragma = _PRAGMA_THEN_PROSE.match(token.string)
        if pragma:
            close()
            found.append(
                Comment(
                    ((row, column),),
                    token.string[pragma.end() :].rstrip(),
                    token.string[: pragma.end()],
                )
            )
            continue
        if _NOT_PROSE.match(token.string):
            close()
            continue
        full_line = not lines[row - 1][:column].strip()
        if full_line and run and run[-1].start == (row - 1, column):
            run.append(token)
            continue
        close()
        if not full_line:  # after code: a comment of its own
            run.append(token)
            close()
            continue
        if _text(token.string):
            run.append(token)
    close()
    return found


# ---------------------------------------------------------------- strings and output

# A string says something to the reader when its text (f-string fields aside) has two
# words in a row: "relative error", "float32 vector", not "cpu", "float32", "cuda:0" or
# "ij,jk->ik".
_PROSE = re.compile(r"(?<![\w.])[^\W\d_][^\W_]+[,;:]?\s+[^\W\d_][^\W_]+")
_TAG = re.compile(r"<[^<>]*>")  # HTML markup is not prose: '<th style="{CELL}">'

_PY_STRING = re.compile(r"(?P<prefix>[a-zA-Z]*)(?P<quote>'{3}|\"{3}|'|\")", re.S)
_FIELD = re.compile(
    r"\{\{|\}\}|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"
)  # "{x:.{n}f}" is one field


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """Python's tokens, an f-string as one STRING token on every Python (3.12 splits
    it)."""
    tokens, opened = [], []
    lines = source.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = tokenize.tok_name.get(token.type, "")
        if kind == "FSTRING_START":
            opened.append(token)
        elif kind in ("FSTRING_MIDDLE", "FSTRING_END") or (
            opened and kind != "FSTRING_START"
        ):
            if kind == "FSTRING_END" and len(opened) == 1:
                start = opened.pop()
                text = _between(lines, start.start, token.end)
                tokens.append(
                    tokenize.TokenInfo(
                        tokenize.STRING, text, start.start, token.end, start.line
                    )
                )
            elif kind == "FSTRING_END":
                opened.pop()
        else:
            tokens.append(token)
    return tokens


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    return "\n".join(
        [
            lines[start[0] - 1][start[1] :],
            *lines[start[0] : end[0] - 1],
            lines[end[0] - 1][: end[1]],
        ]
    )


def _opening(token: str) -> tuple[str, str]:
    found = _PY_STRING.match(token)
    return found["prefix"], found["quote"]


def _piece_spans(token: tokenize.TokenInfo) -> list[tuple[int, int, int]]:
    """(line, start, end column) of the text of each line of a string token, quotes
    and (after the first line) indentation left out."""
    prefix, quote = _opening(token.string)
    parts = token.string.split("\n")
    row, column = token.start
    spans = []
    for index, part in enumerate(parts):
        start = (
            column + len(prefix) + len(quote)
            if index == 0
            else len(part) - len(part.lstrip())
        )
        end = (column if index == 0 else 0) + len(part)
        if index == len(parts) - 1:
            end -= len(quote)
        spans.append((row + index, start, max(start, end)))
    return spans


def _piece_texts(token: tokenize.TokenInfo) -> list[str]:
    lines = token.string.split("\n")
    row = token.start[0]
    column = token.start[1]
    texts = []
    for line_row, start, end in _piece_spans(token):
        line = lines[line_row - row]
        offset = column if line_row == row else 0
        texts.append(line[start - offset : end - offset])
    return texts


def string_code(token: str) -> tuple:
    """What a string literal does, not what it says: its prefix, its quotes, and its
    f-string fields' code."""
    prefix, quote = _opening(token)
    fields = tuple(_fields(token)) if "f" in prefix.lower() else ()
    return prefix.lower(), quote, fields


def _fields(text: str) -> list[str]:
    return [field for field in _FIELD.findall(text) if field not in ("{{", "}}")]


def _same_fields(english: str, translated: str) -> bool:
    return sorted(_fields(english)) == sorted(_fields(translated))


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
    """Each run of adjacent string literals (implicit concatenation) whose text is
    prose: one entry, one msgid line per line of each literal. Bytes are data, not
    text."""
    runs: list[list[tokenize.TokenInfo]] = []
    previous = None
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if (
            token.type == tokenize.STRING
            and "b" not in _opening(token.string)[0].lower()
        ):
            if previous is not None and previous.type == tokenize.STRING and runs:
                runs[-1].append(token)
            else:
                runs.append([token])
        previous = token
    found = []
    for run in runs:
        spans = [span for token in run for span in _piece_spans(token)]
        texts = [text for token in run for text in _piece_texts(token)]
        if is_prose("\n".join(texts)):
            found.append(
                Comment(
                    tuple((row, start) for row, start, _ in spans),
                    "\n".join(texts),
                    spans=tuple(spans),
                    kind="string",
                )
            )
    return found


_OUTPUT = re.compile(r"# >(?:\[[^\]\n]*\])? ?")


def _output_texts(source: str, strings: list[Comment]) -> list[Comment]:
    """Each run of ``# >`` lines (checked program output) that shows a phrase of the
    code's own prose strings (two words or more between fields: "relative error"):
    the program prints the project's text there, which is translated with the strings
    (and checked again in that language). Other output (a tensor, torch's own
    message) is not the project's text."""
    ours = {phrase for string in strings for phrase in phrases(string.msgid)}
    runs: list[list[tuple[int, int, str]]] = []
    for row, line in enumerate(source.split("\n"), start=1):
        found = _OUTPUT.match(line)
        if found is None:
            continue
        if runs and runs[-1][-1][0] == row - 1:
            runs[-1].append((row, found.end(), line))
        else:
            runs.append([(row, found.end(), line)])
    result = []
    for run in runs:
        texts = [line[start:] for _, start, line in run]
        if any(phrase in text for phrase in ours for text in texts):
            result.append(
                Comment(
                    tuple((row, 0) for row, _, _ in run),
                    "\n".join(texts),
                    spans=tuple((row, start, len(line)) for row, start, line in run),
                    kind="output",
                )
            )
    return result


def _imported_strings(source: str, name: str, root: Path) -> list[Comment]:
    """The prose strings of the modules beside ``name`` that the code imports at its
    top level (``from benchmark import ...`` in snippets/measuring/walkthrough.py):
    what the code prints of theirs is the project's text too."""
    if not name:
        return []
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return []
    modules = [
        alias.name
        for node in body
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    modules += [
        node.module
        for node in body
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
    ]
    found = []
    for module in dict.fromkeys(modules):
        path = (Path(root) / name).parent / f"{module}.py"
        if "." not in module and path.is_file():
            found += _string_texts(_tokens(path.read_text(encoding="utf-8")))
    return found


def texts(
    source: str, suffix: str = ".py", name: str = "", root: Path = ROOT
) -> list[Comment]:
    """Everything a translator translates in some code, in order: its comments, and
    in Python its prose strings and the output lines that show them or those of the
    modules beside it that it imports (``name``: the file, from ``root``)."""
    found = comments(source, suffix)
    if suffix == ".py":
        strings = _string_texts(_tokens(source))
        found += strings + _output_texts(
            source, strings + _imported_strings(source, name, root)
        )
    return sorted(found, key=lambda comment: comment.lines[0])


def code_tokens(source: str) -> list[tuple]:
    """The code of some Python without its comments and the text of its strings:
    every other token by its line, a string by its prefix, quotes and f-string
    fields. Two versions with equal code_tokens differ at most in their comments and
    in what their strings say."""
    found = []
    for token in _tokens(source):
        if token.type == tokenize.COMMENT:
            continue
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            found.append((token.type, token.start[0]))
        elif token.type == tokenize.STRING:
            found.append(
                (token.type, string_code(token.string), token.start[0], token.end[0])
            )
        else:
            found.append((token.type, token.string, token.start[0], token.end[0]))
    return found


def same_code(english: str, other: str) -> bool:
    """Whether two versions of some code differ in their comments and string texts at
    most."""
    if english == other:
        return True
    try:
        return code_tokens(english) == code_tokens(other)
    except (
        tokenize.TokenError,
        SyntaxError,
    ):  # not Python (an IPython magic): compare as text
        return False


def string_differences(english: str, other: str) -> list[tuple[str, str]]:
    """The (English, other) text of each string literal piece that differs between
    two versions of some code that are the same code (:func:`same_code`), in order."""
    pairs = []
    strings = (
        [token for token in _tokens(text) if token.type == tokenize.STRING]
        for text in (english, other)
    )
    for a, b in zip(*strings, strict=False):
        if a.string != b.string:
            pairs += [
                (x, y)
                for x, y in zip(_piece_texts(a), _piece_texts(b), strict=False)
                if x != y
            ]
    return pairs


def translate_source(
    source: str,
    translations: dict[str, str],
    suffix: str = ".py",
    name: str = "",
    root: Path = ROOT,
) -> tuple[str, list[Comment]]:
    """The code with each comment, string and output run that has a translation
    replaced, line for line, and those left in English. Line numbers and every other
    token are unchanged: a translated string keeps its prefix, quotes and f-string
    fields, else it stays English."""
    lines = source.split("\n")
    edits: list[tuple[int, int, int, str]] = []  # (line, start, end column, new text)
    untranslated = []
    for comment in texts(source, suffix, name, root):
        translated = translations.get(comment.msgid)
        parts = translated.split("\n") if translated else []
        if len(parts) != len(comment.lines) or (
            comment.kind == "string" and not _same_fields(comment.msgid, translated)
        ):
            untranslated.append(comment)
            continue
        if comment.spans:
            change = [
                (row, start, end, text)
                for (row, start, end), text in zip(comment.spans, parts, strict=False)
            ]
            if comment.kind == "string" and not same_code(
                source, _edited(lines, change)
            ):
                untranslated.append(
                    comment
                )  # an unescaped quote would end the string early
                continue
            edits += change
            continue
        for (row, column), text in zip(comment.lines, parts, strict=False):
            edits.append(
                (
                    row,
                    column,
                    len(lines[row - 1]),
                    comment.prefix + text
                    if comment.prefix
                    else ("# " + text if text else "#"),
                )
            )
    return _edited(lines, edits), untranslated


def _edited(lines: list[str], edits) -> str:
    """The lines with each (line, start, end, text) edit made, right to left: two
    strings on one line keep their columns."""
    lines = list(lines)
    for row, start, end, text in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:start] + text + lines[row - 1][end:]
    return "\n".join(lines)


# ---------------------------------------------------------------- reading the PO files


def po_path(domain: str, language: str, root: Path = ROOT) -> Path:
    return Path(root) / LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def pot_path(domain: str, root: Path = ROOT) -> Path:
    return Path(root) / LOCALE / f"{domain}.pot"


# PO syntax, as gettext's msgfmt reads it. Babel reads some damage without a word and
# loses text doing so (`msgstr "abc` becomes "ab", `msgstr abc` becomes "b"), so every
# file is checked against this first: a damaged file is refused, never merged or written
# back.
_STRING = re.compile(r'"(?:[^"\\]|\\[abfnrtv"\\?]|\\[0-7]{1,3}|\\x[0-9A-Fa-f]+)*"')
_KEYWORD = re.compile(r"(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)(?:\s+(.*))?")
_MARKED = {
    "#~|": "|",
    "#~": "~",
    "#|": "|",
}  # obsolete entries, previous msgids: syntax only
# The placeholders `msgfmt -c` compares between msgid and msgstr for a format flag.
_PERCENT = re.compile(
    r"%(?:\((\w+)\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa])"
)
_BRACES = re.compile(r"(?<!\{)\{(\w*)[^{}]*\}(?!\})")


class POSyntaxError(CatalogError):
    """A PO file that gettext would reject or Babel would read lossily: each problem is
    ``file:line: what is wrong``."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


def syntax_problems(data: bytes, name: str) -> list[str]:
    """``name:line: what is wrong`` for each line of a PO file that gettext's msgfmt
    rejects or Babel would read lossily, and what ``msgfmt -c`` checks in a
    translation: the same format directives, and a leading or trailing line break
    kept. [] for a sound file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [f"{name}:{line}: not UTF-8 text; save the file as UTF-8"]
    found: list[str] = []
    entries: list[dict] = []  # {"flags": ..., keyword: [line, text]} for each entry
    flags: set[str] = set()
    continues: dict[str, str | None] = {
        "": None,
        "~": None,
        "|": None,
    }  # what a "..." line extends
    for number, line in enumerate(text.split("\n"), start=1):
        line, kind = line.strip(), ""
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#-#-#"):
                found.append(
                    f"{name}:{number}: a msgcat conflict marker: keep one translation "
                    "and "
                    "delete the others and the #-#-#-#-# lines"
                )
                continue
            prefix = next(
                (prefix for prefix in _MARKED if line.startswith(prefix)), None
            )
            if prefix is None:
                if line.startswith("#,"):
                    flags |= {flag.strip() for flag in line[2:].split(",")}
                continues[""] = None  # a comment ends an entry's text
                continue  # a comment: references, notes, the translator's own
            kind, line = _MARKED[prefix], line[len(prefix) :].strip()
            if not line:
                continue
        if line.startswith('"'):
            if not _STRING.fullmatch(line):
                found.append(f"{name}:{number}: {_string_problem(line)}")
            elif continues[kind] is None:
                found.append(
                    f"{name}:{number}: a quoted line that continues no msgid, msgstr "
                    "or msgctxt"
                )
            elif not kind:
                entries[-1][continues[kind]][1] += unescape(line)
            continue
        match = _KEYWORD.fullmatch(line)
        keyword, rest = (match[1], (match[2] or "").strip()) if match else (None, "")
        continues[kind] = None
        if keyword is None:
            found.append(
                f"{name}:{number}: unknown keyword {line.split()[0]!r}: a line holds "
                "msgid, "
                'msgstr or msgctxt and a "quoted text", a "quoted text" alone, or a # '
                "comment"
            )
        elif not rest:
            found.append(
                f'{name}:{number}: {keyword} has no text; write {keyword} "" for none'
            )
        elif not rest.startswith('"'):
            found.append(
                f"{name}:{number}: the text of {keyword} must be in double quotes: "
                f'{keyword} "{_cut(rest)}"'
            )
        elif not _STRING.fullmatch(rest):
            found.append(f"{name}:{number}: {_string_problem(rest)}")
        else:
            continues[kind] = keyword
        if kind or continues[kind] is None:
            continue
        entry = entries[-1] if entries else None
        if keyword in ("msgctxt", "msgid") and (
            entry is None
            or keyword in entry
            or any(key.startswith("msgstr") for key in entry)
        ):
            entry = {"flags": flags}
            entries.append(entry)
            flags = set()
        elif entry is None:
            found.append(f"{name}:{number}: {keyword} before any msgid")
            continues[kind] = None
            continue
        if keyword in entry:
            found.append(f"{name}:{number}: a second {keyword} in one entry")
        entry[keyword] = [number, unescape(rest)]
    found += _entry_problems(entries, name)
    return found


def _entry_problems(entries: list[dict], name: str) -> list[str]:
    found, seen = [], {}
    for entry in entries:
        if "msgid" not in entry:
            found.append(
                f"{name}:{entry['msgctxt'][0]}: msgctxt without a msgid after it"
            )
            continue
        number, msgid = entry["msgid"]
        strings = [key for key in entry if key.startswith("msgstr")]
        if not strings:
            found.append(
                f'{name}:{number}: msgid without msgstr; add msgstr "" after it'
            )
            continue
        key = (entry["msgctxt"][1] if "msgctxt" in entry else None, msgid)
        if key in seen:
            found.append(
                f"{name}:{number}: the same "
                f"msgid{' and msgctxt' if key[0] is not None else ''} "
                f"as line {seen[key]}: keep one of the two entries"
            )
        seen[key] = number
        if msgid and "fuzzy" not in entry["flags"]:  # msgfmt -c skips fuzzy entries too
            for keyword in strings:
                at, string = entry[keyword]
                found += [
                    f"{name}:{at}: {problem}"
                    for problem in (
                        _translation_problems(
                            msgid,
                            string,
                            entry["flags"],
                            entry.get("msgid_plural", [0, ""])[1],
                        )
                        if string
                        else []
                    )
                ]
    return found


def _translation_problems(
    msgid: str, string: str, flags: set[str], plural: str = ""
) -> list[str]:
    found = []
    for edge, test in (("begin", str.startswith), ("end", str.endswith)):
        if test(msgid, "\n") != test(string, "\n"):
            found.append(f"msgid and msgstr do not both {edge} with a line break (\\n)")
    if "python-format" in flags and _directives(msgid) != _directives(string):
        found.append(
            "the translation's %-placeholders differ from the English text's "
            "(python-format)"
        )
    if "python-brace-format" in flags:
        extra = set(_BRACES.findall(string)) - set(_BRACES.findall(msgid + plural))
        if extra:
            found.append(
                f"the translation uses {{{', '.join(sorted(extra))}}}, which the "
                "English text "
                "does not provide (python-brace-format)"
            )
    return found


def _directives(text: str) -> list:
    """A text's %-directives, by name and the kind of argument each takes (as msgfmt
    compares them: "%o" and "%d" both take an integer)."""
    kinds = {**dict.fromkeys("diouxX", "integer"), **dict.fromkeys("eEfFgG", "float")}
    return sorted(
        (name, kinds.get(kind, kind))
        for name, kind in _PERCENT.findall(text.replace("%%", ""))
    )


def _string_problem(text: str) -> str:
    """What is wrong with a quoted PO string that does not match _STRING."""
    at = 1
    while at < len(text):
        if text[at] == "\\":
            if not re.match(r'[abfnrtv"\\?0-7x]', text[at + 1 : at + 2]):
                return (
                    f"unknown escape {text[at : at + 2]!r} in {_cut(text)}; "
                    "write \\\\ for a backslash in the text"
                )
            at += 2
        elif text[at] == '"':
            return (
                f"a quote ends the text {_cut(text)} early; "
                'write \\" for a quote in the text'
            )
        else:
            at += 1
    return f'the text {_cut(text)} is not closed: end it with a " on the same line'


def _cut(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _read(path: Path, locale: str | None = None) -> Catalog:
    """A PO file or template, refused (POSyntaxError, CatalogError) unless it is
    sound."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CatalogError(f"{path}: no such catalog; run `{COMMAND} update`") from None
    return _parse(data, relative(path, ROOT), locale)


def _parse(data: bytes, name: str, locale: str | None = None) -> Catalog:
    problems = syntax_problems(data, name)
    if problems:
        raise POSyntaxError(problems)
    # Babel cannot read an obsolete entry's previous msgid (#~|); it is history,
    # dropped.
    data = b"\n".join(
        line for line in data.split(b"\n") if not line.lstrip().startswith(b"#~|")
    )
    try:
        catalog = read_po(io.BytesIO(data), locale=locale, abort_invalid=True)
    except Exception as error:  # noqa: BLE001 - Babel's parse errors, said in one line
        raise CatalogError(f"{name}: not a valid PO file: {error}") from None
    for message in (*catalog, *catalog.obsolete.values()):
        _take_previous(message)
    return catalog


def _take_previous(message) -> None:
    """Babel reads a fuzzy entry's ``#| msgid "..."`` lines as translator comments;
    make them its previous msgid again (what its translation translates), as gettext
    does."""
    previous = [
        comment[1:].strip()
        for comment in message.user_comments
        if comment.startswith("|")
    ]
    if not previous:
        return
    message.user_comments = [
        comment for comment in message.user_comments if not comment.startswith("|")
    ]
    parts, current = {}, None
    for line in previous:
        match = _KEYWORD.fullmatch(line)
        if match:
            current, line = match[1], (match[2] or "").strip()
        if current and _STRING.fullmatch(line):
            parts[current] = parts.get(current, "") + unescape(line)
    if "msgid" in parts:
        message.previous_id = [parts["msgid"]] + (
            [parts["msgid_plural"]] if "msgid_plural" in parts else []
        )


def content(data: bytes, name: str) -> tuple:
    """What a PO file or template says, whatever its layout (line wrapping, the order
    of entries, header fields such as Poedit's X-Generator or PO-Revision-Date): two
    files with equal content are the same catalog. Refuses a damaged file
    (POSyntaxError)."""
    catalog = _parse(data, name)

    def entry(message, obsolete: bool) -> tuple:
        return (
            obsolete,
            message.context or "",
            str(message.id),
            str(message.string),
            tuple(sorted(message.flags - {"python-format"})),
            tuple(sorted(map(str, message.locations))),
            tuple(message.auto_comments),
            tuple(message.user_comments),
            tuple(message.previous_id) if message.fuzzy else (),
        )

    return tuple(
        sorted(
            [entry(message, False) for message in catalog if message.id]
            + [entry(message, True) for message in catalog.obsolete.values()]
        )
    )


@functools.lru_cache(maxsize=16)
def _loaded(path: Path, stamp: tuple[int, int], locale: str) -> Catalog:
    return _read(path, locale)


def load(domain: str, language: str, root: Path = ROOT) -> Catalog:
    """A language's PO file, read once per change of the file. A tree without locale/
    (a test's small site) uses the project's catalog: entries are found by their
    English text."""
    if not (Path(root) / LOCALE).is_dir():
        root = ROOT
    path = po_path(domain, language, root)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise CatalogError(
            f"{path.relative_to(root) if path.is_relative_to(root) else path}: "
            f"no such catalog; run `{COMMAND} update`"
        ) from None
    return _loaded(path, (info.st_mtime_ns, info.st_size), language)


def comment_translations(language: str, root: Path = ROOT) -> dict[str, str]:
    """msgid -> translation of the comments, fuzzy (outdated) and empty entries left
    out."""
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
    return {
        message.id: message.string
        for message in catalog
        if message.id and message.string and not message.fuzzy and not message.context
    }


_KIND_NOTES = {"string": "a string of the code", "output": "what the code prints"}


def line_translations(
    language: str, kind: str, root: Path = ROOT
) -> frozenset[tuple[str, str]]:
    """(English, translation) of each line of each current translation of a ``kind``
    ("string" or "output") entry: what a translated version of some code may differ
    in, line by line."""
    note = _KIND_NOTES[kind]
    return frozenset(
        pair
        for message in load("snippets", language, root)
        if message.id
        and message.string
        and not message.fuzzy
        and any(comment.startswith(note) for comment in message.auto_comments)
        for pair in zip(
            message.id.split("\n"), message.string.split("\n"), strict=False
        )
    )


def translate_file(
    path: Path, language: str, root: Path = ROOT
) -> tuple[list[str], list[Place]]:
    """A code file's lines with the language's comments, and the place of each one
    left in English."""
    if language == SOURCE:
        text = Path(path).read_text(encoding="utf-8")
        return text.split("\n") if text else [], []
    comment_translations(language, root)  # an unknown language is an error, as before
    info = Path(path).stat()
    lines, left = _translated_file(
        Path(path),
        (info.st_mtime_ns, info.st_size),
        Path(root),
        load("snippets", language, root),
    )
    return list(lines), list(left)


@functools.lru_cache(maxsize=256)
def _translated_file(
    path: Path, stamp: tuple[int, int], root: Path, catalog: Catalog
) -> tuple[tuple[str, ...], tuple[Place, ...]]:
    """translate_file, once per version of the file (its stamp) and of the catalog
    (``load`` gives the same Catalog object while the PO file is unchanged)."""
    text = path.read_text(encoding="utf-8")
    name = relative(path, root)
    translated, left = translate_source(
        text, _comment_map(catalog), path.suffix, name, root
    )
    return tuple(translated.split("\n") if translated else []), tuple(
        Place(name, c.line) for c in left
    )


def relative(path: Path, root: Path) -> str:
    """``path`` from the repository root, with forward slashes (as given when outside
    it)."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- interface strings


class Plural:
    """An interface string that depends on a count, gettext's msgid and msgid_plural:
    ``Plural("1 example ran", "{n} examples ran")`` in a :class:`Texts` table. In the
    table of a language, ``text(n, **values)`` is that language's form for the count
    ``n`` (``ngettext``, by its catalog's Plural-Forms: Spanish has three), filled in
    with ``n`` and the values."""

    def __init__(
        self, one: str, many: str, forms: tuple[str, ...] = (), rule: str = "(n != 1)"
    ):
        self.one, self.many = one, many  # the English: msgid, msgid_plural
        # The language's forms (msgstr[0], msgstr[1], ...) and Plural-Forms expression:
        # a download carries these two (ptdocs.output_check), the site asks gettext.
        self.forms, self.rule = tuple(forms) or (one, many), rule
        self.ngettext = (
            gettext.NullTranslations().ngettext
        )  # English; a language's: its catalog's

    def __call__(self, n: int, **values) -> str:
        return self.ngettext(self.one, self.many, n).format(n=n, **values)

    def __repr__(self) -> str:
        return f"Plural({self.one!r}, {self.many!r})"


class Texts(Mapping):
    """Interface strings of one part of the site, written here in English.

    ``Texts(name, {...})[language]`` is the same table in that language, read from
    ``locale/<language>/LC_MESSAGES/interface.po``: each string's msgctxt is its key
    path (``name.key``, ``name.key.subkey`` for a nested table, ``name.key.0`` for an
    item of a tuple) and its msgid the English text; a :class:`Plural` is one entry
    with msgid_plural. A missing or outdated entry raises CatalogError naming it.
    ``ptdocs.catalog update`` finds these tables by reading the source, so the
    English table must be a literal (``Plural(...)`` of two literal strings
    included).
    """

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
        catalog = load("interface", language, self.root)
        missing: list[str] = []
        table = _translated(self.english, self.name, catalog, missing)
        if missing:
            where = po_path("interface", language, Path("."))
            raise CatalogError(
                f"{where} lacks a current translation of {missing[0]}"
                + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                + f"; run `{COMMAND} update` and translate it"
            )
        return table

    def in_language(self, language: str) -> dict:
        """The table in ``language``, or in English for a language without a catalog."""
        return self[language if language in self else SOURCE]


@functools.lru_cache(maxsize=8)
def _gettext(catalog: Catalog) -> gettext.GNUTranslations:
    """The catalog compiled (fuzzy entries left out, as msgfmt does), read by
    Python's gettext."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _translated(english, key: str, catalog: Catalog, missing: list[str]):
    if isinstance(english, dict):
        return {
            k: _translated(v, f"{key}.{k}", catalog, missing)
            for k, v in english.items()
        }
    if isinstance(english, (tuple, list)):
        return type(english)(
            _translated(v, f"{key}.{i}", catalog, missing)
            for i, v in enumerate(english)
        )
    msgid = (
        english.one if isinstance(english, Plural) else english
    )  # a plural's entry: its singular
    message = catalog.get(msgid, context=key)
    strings = (
        message.string
        if message is not None and isinstance(message.string, tuple)
        else ((message.string,) if message is not None else ())
    )
    if (
        message is None
        or not all(strings)
        or message.fuzzy
        or (isinstance(english, Plural) != isinstance(message.id, tuple))
    ):
        missing.append(f"{key} ({msgid!r})")
        return english
    if not isinstance(english, Plural):
        return message.string
    plural = Plural(english.one, english.many, forms=strings, rule=catalog.plural_expr)
    plural.ngettext = functools.partial(
        _gettext(catalog).npgettext, key
    )  # in its msgctxt
    return plural


def _flatten(english, key: str):
    if isinstance(english, dict):
        for k, v in english.items():
            yield from _flatten(v, f"{key}.{k}")
    elif isinstance(english, Plural):
        yield key, (english.one, english.many)
    elif isinstance(english, (tuple, list)):
        for i, v in enumerate(english):
            yield from _flatten(v, f"{key}.{i}")
    elif isinstance(english, str):
        yield key, english


# ---------------------------------------------------------------- extraction


SNIPPETS = Path("snippets")
NOTEBOOKS = Path("notebooks")
INTERFACE_SOURCES = ("ptdocs",)


def shown_lines(root: Path = ROOT) -> dict[str, set[int]]:
    """For each snippet file, the lines that some English page shows (its includes)."""
    shown: dict[str, set[int]] = {}
    for page in sorted((Path(root) / "docs" / SOURCE).rglob("*.md")):
        for line in page.read_text(encoding="utf-8").split("\n"):
            target = include_target(line)
            if target is None:
                continue
            path, file = snippet_file(target, root)
            if not path.endswith(SUFFIXES):
                continue
            first, lines = cut(target, file.read_text(encoding="utf-8").split("\n"))
            shown.setdefault(path, set()).update(
                first + i for i, text in enumerate(lines) if text.strip()
            )
    return shown


def code_cells(source: Path, cells=None):
    """(position, first line in the file or None, cell) of each code cell of a
    jupytext script."""
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


def notebook_code_comments(source: Path) -> list[tuple[int, Comment]]:
    """The comments of a jupytext notebook source's code cells, with the file line of
    each."""
    return [
        (line - 1, comment)
        for _, line, cell in code_cells(source)
        if line and cell.source.strip()
        for comment in texts(cell.source)
    ]


def translate_notebook_code(code: str, language: str, root: Path = ROOT) -> str:
    """One code cell of a notebook source with the language's comments."""
    if language == SOURCE:
        return code
    return translate_source(code, comment_translations(language, root))[0]


def untranslated_notebook_comments(
    source: Path, language: str, root: Path = ROOT
) -> list[Place]:
    """The place of each comment of a notebook source's code cells with no current
    translation."""
    if language == SOURCE:
        return []
    known = comment_translations(language, root)
    name = relative(Path(source), root)
    return [
        Place(name, offset + comment.line)
        for offset, comment in notebook_code_comments(Path(source))
        if comment.msgid not in known
        or known[comment.msgid].count("\n") + 1 != len(comment.lines)
    ]


def extract_comments(root: Path = ROOT) -> Catalog:
    catalog = _new_catalog(
        "snippets", "Comments in the code of the pages, downloads and notebooks"
    )
    for path, numbers in sorted(shown_lines(root).items()):
        try:
            found = texts(
                (Path(root) / path).read_text(encoding="utf-8"),
                Path(path).suffix,
                path,
                root,
            )
        except (
            tokenize.TokenError
        ) as error:  # ('EOF in multi-line statement', (2, 0)): name the file
            raise CatalogError(f"{path}:{error.args[1][0]}: {error.args[0]}") from None
        for comment in found:
            if comment.line in numbers:
                catalog.add(
                    comment.msgid,
                    locations=[(path, comment.line)],
                    auto_comments=_notes(comment),
                )
    for source in sorted((Path(root) / NOTEBOOKS).glob("*.py")):
        name = relative(source, root)
        for offset, comment in notebook_code_comments(source):
            catalog.add(
                comment.msgid,
                locations=[(name, offset + comment.line)],
                auto_comments=_notes(comment),
            )
    return catalog


def _notes(comment: Comment) -> list[str]:
    notes = []
    if comment.kind == "string":
        notes.append(
            f"{_KIND_NOTES['string']}: keep each {{field}} as it is, and escape a "
            "quote "
            "that ends the string"
        )
    elif comment.kind == "output":
        notes.append(
            f"{_KIND_NOTES['output']}: translate as its strings are translated, keep "
            "what "
            "torch prints (numbers, tensors); the Spanish page's tests check it"
        )
    if len(comment.lines) > 1:
        notes.append(
            f"{len(comment.lines)} lines: keep {len(comment.lines)} lines in the "
            "translation"
        )
    return notes


def interface_tables(root: Path = ROOT):
    """Every ``Texts("name", {...})`` of the project's Python: (file, line, name,
    English table)."""
    for folder in INTERFACE_SOURCES:
        for path in sorted((Path(root) / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "Texts(" not in text:
                continue
            for node in ast.walk(ast.parse(text, str(path))):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", None))
                    == "Texts"
                    and len(node.args) >= 2
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[1], ast.Dict)
                ):
                    try:
                        english = _literal(node.args[1])
                    except (
                        ValueError,
                        TypeError,
                    ):  # not a literal, or Plural(...) of other than two
                        raise CatalogError(
                            f"{relative(path, root)}:{node.lineno}: the English table "
                            "of Texts(...) must be a literal"
                        ) from None
                    yield relative(path, root), node.lineno, node.args[0].value, english


def _literal(node: ast.AST):
    """A Texts table's English as written: literals, and Plural(one, many) of two
    strings."""
    if (
        isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Plural"
    ):  # two strings
        return Plural(*map(ast.literal_eval, node.args))
    if isinstance(node, ast.Dict):
        return {
            ast.literal_eval(key): _literal(value)
            for key, value in zip(node.keys, node.values, strict=False)
        }
    if isinstance(node, (ast.Tuple, ast.List)):
        return (
            tuple(map(_literal, node.elts))
            if isinstance(node, ast.Tuple)
            else list(map(_literal, node.elts))
        )
    return ast.literal_eval(node)


def extract_interface(root: Path = ROOT) -> Catalog:
    catalog = _new_catalog(
        "interface", "The site's interface strings (msgctxt: where the code uses it)"
    )
    for path, line, name, english in interface_tables(root):
        for key, text in _flatten(english, name):
            flags = (
                ["python-brace-format"] if re.search(r"\{\w*\}", "".join(text)) else []
            )
            catalog.add(text, context=key, locations=[(path, line)], flags=flags)
    return catalog


def _new_catalog(domain: str, description: str) -> Catalog:
    return Catalog(
        project=PROJECT,
        domain=domain,
        charset="utf-8",
        fuzzy=False,
        header_comment=f"# {description}.\n# Regenerate with `{COMMAND} update`.",
    )


EXTRACT = {"snippets": extract_comments, "interface": extract_interface}


def _po_text(catalog: Catalog, domain: str, **options) -> str:
    # Babel flags a msgid that looks like a format string: python-format for any "%"
    # ("within 5% in"), python-brace-format for "{x.grad}"; `msgfmt -c` (what Poedit
    # runs on save) then checks the translation as one. No snippet text is a format
    # string (`problems` checks f-string fields), and interface strings are
    # python-brace-format only.
    unflagged = {"python-format"} | (
        {"python-brace-format"} if domain == "snippets" else set()
    )
    for message in (*catalog, *catalog.obsolete.values()):
        message.flags -= unflagged
    # Babel writes a previous msgid of several lines as one wrapped comment whose later
    # lines lose their "#|" (an invalid file): each entry's "#|" lines are written here
    # instead, in gettext's layout, where a placeholder flag marks their place.
    previous = {}
    if options.pop("include_previous", False):
        for message in catalog:
            if message.previous_id:
                mark = f"ptdocs-previous-{len(previous)}"
                previous[mark] = message.previous_id
                message.flags.add(mark)
    buffer = io.BytesIO()
    # width=0 would keep each string on one line; 100 wraps like the code (a diff stays
    # readable).
    write_po(
        buffer, catalog, width=100, omit_header=False, sort_output=False, **options
    )
    text = buffer.getvalue().decode("utf-8")
    for mark, ids in previous.items():
        lines = []
        for keyword, text_id in zip(("msgid", "msgid_plural"), ids, strict=False):
            quoted = normalize(text_id, width=100).split("\n")
            lines += [f"#| {keyword} {quoted[0]}"] + [
                f"#| {line}" for line in quoted[1:]
            ]
        text = re.sub(
            rf"^(#,.*?)(?:, )?{mark}\b(.*)\n",
            lambda m: (
                (
                    (m[1] + m[2]).rstrip(", ") + "\n"
                    if (m[1] + m[2]).strip("#, ")
                    else ""
                )
                + "\n".join(lines)  # noqa: B023  re.sub calls it at once, here
                + "\n"
            ),
            text,
            count=1,
            flags=re.M,
        )
    for mark in previous:
        for message in catalog:
            message.flags.discard(mark)
    # The dates change on every run; fixed text keeps the diffs to real changes.
    return re.sub(
        r'^"(POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', "", text, flags=re.M
    )


def merged(domain: str, language: str, root: Path = ROOT) -> tuple[str, str]:
    """The template's text, and the PO file's text merged with it (as msgmerge:
    changed msgids become fuzzy, with the English they translate as ``#|`` previous
    msgid; gone ones obsolete). Raises POSyntaxError, writing nothing, for a damaged
    PO file."""
    template = EXTRACT[domain](root)
    path = po_path(domain, language, root)
    if path.is_file():
        catalog = _read(path, language)
        before = {message.id: message for message in catalog if message.id}
        catalog.update(template, update_header_comment=False)
        for message in catalog:
            old = before.get(
                message.previous_id[0] if message.previous_id else message.id
            )
            if message.fuzzy and old is not None and old.fuzzy and old.previous_id:
                # Still fuzzy, or changed again: its translation still translates the
                # older English.
                message.previous_id = list(old.previous_id)
            elif not message.fuzzy:
                message.previous_id = []
    else:
        catalog = Catalog(
            locale=language,
            project=PROJECT,
            domain=domain,
            fuzzy=False,
            header_comment=template.header_comment,
        )
        catalog.update(template)
    catalog.language_team = f"{language} <{PROJECT}>"
    catalog.last_translator = "the project's translators"
    return _po_text(template, domain), _po_text(
        catalog, domain, ignore_obsolete=False, include_previous=True
    )


def problems(domain: str, language: str, root: Path = ROOT) -> list[str]:
    """What a translator must do in one PO file: each missing, fuzzy or malformed
    entry."""
    found = []
    catalog = load(domain, language, root)
    where = po_path(domain, language, Path("."))
    for message in catalog:
        if not message.id:
            continue
        ref = ", ".join(f"{file}:{line}" for file, line in message.locations) or str(
            where
        )
        label = f"{message.context} " if message.context else ""
        strings = (
            message.string if isinstance(message.string, tuple) else (message.string,)
        )
        if not all(strings):
            found.append(f"{ref}: {label}not translated: {_short(message.id)}")
        elif message.fuzzy:
            found.append(f"{ref}: {label}outdated (fuzzy): {_short(message.id)}")
        elif (
            domain == "snippets"
            and ("{" in message.id or "{" in message.string)
            and any(
                note.startswith(_KIND_NOTES["string"]) for note in message.auto_comments
            )
            and not _same_fields(message.id, message.string)
        ):
            found.append(
                f"{ref}: the translation's {{fields}} differ from the English "
                f"{sorted(_fields(message.id))}: keep each one as it is"
            )
        elif domain == "snippets" and message.string.count("\n") != message.id.count(
            "\n"
        ):
            found.append(
                f"{ref}: the translation has {message.string.count(chr(10)) + 1} "
                "lines, "
                f"the comment {message.id.count(chr(10)) + 1}; keep the same number"
            )
        elif domain == "interface":
            wanted = set(re.findall(r"\{(\w*)\}", "".join(message.id)))
            extra = set(re.findall(r"\{(\w*)\}", "".join(strings))) - wanted
            if extra:
                found.append(
                    f"{ref}: {label}the translation uses "
                    f"{{{', '.join(sorted(extra))}}}, "
                    "which the English text does not provide"
                )
    return found


def _short(text: str | tuple) -> str:
    first = (text[0] if isinstance(text, tuple) else text).split("\n")[0]
    return repr(first if len(first) <= 60 else first[:57] + "...")


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
    root = arguments.root
    if not (root / "docs" / SOURCE).is_dir():
        parser.error(f"{root}: not the site's repository (no docs/{SOURCE}/ in it)")
    stale, bad = [], []
    try:
        # Every file is read before any is written: a damaged one stops the command
        # whole.
        results = [
            (domain, language, merged(domain, language, root))
            for domain in DOMAINS
            for language in LANGUAGES
        ]
        for domain, language, (template, po) in results:
            for path, text in (
                (pot_path(domain, root), template),
                (po_path(domain, language, root), po),
            ):
                name = relative(path, root)
                current = path.read_bytes() if path.is_file() else None
                if arguments.action == "update":
                    if (
                        current is None or current.decode("utf-8") != text
                    ):  # layout included
                        stale.append(name)
                        path.parent.mkdir(parents=True, exist_ok=True)
                        write_atomically(path, text)
                elif current is None or content(current, name) != content(
                    text.encode("utf-8"), name
                ):
                    stale.append(
                        name
                    )  # content only: a file saved by Poedit or msgcat is current
            bad += (
                problems(domain, language, root) if arguments.action == "check" else []
            )
    except POSyntaxError as error:
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(
            "error: nothing was written; correct the file (a PO editor such as Poedit "
            "shows the "
            "line), then run the command again",
            file=sys.stderr,
        )
        return 2
    except (
        ValueError,
        SyntaxError,
        tokenize.TokenError,
    ) as error:  # CatalogError, a page's IncludeError
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in stale:
        print(f"{'stale' if arguments.action == 'check' else 'wrote'}: {path}")
    for problem in bad:
        print(problem)
    if arguments.action == "check":
        if stale:
            print(f"run `{COMMAND} update`", file=sys.stderr)
        # Missing and outdated translations are listed, not failed: the page shows its
        # notice.
        malformed = [
            problem
            for problem in bad
            if "not translated" not in problem and "(fuzzy)" not in problem
        ]
        return 1 if stale or malformed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
