"""English prose on a Spanish page: what test_spanish_output.py counts (and expects
none of).

A text reads as English prose when at least two of its words are English function
words ("the", "of", "is", "should" ...) and it has more of them than Spanish ones
("de", "la", "que" ...). Names ("PyTorch", "NumPy"), numbers, units and identifiers
have no function words, so they never count; an identifier is one word, or none:
"requires_grad", "x.grad", "torch.float32".

In code, a comment, string or output line that the English page shows as it is and
that has two words in a row ("closed form") counts as well: it was left untranslated.

What a Spanish page shows comes in units: each text of the page (a text node, an
``alt``, a ``title`` ...); in a code block, each comment, each string literal and
each ``# >`` output line (never the code itself: Python's ``for``, ``in``, ``is``,
``not`` are English words); and each line a notebook printed. Left out, because the
project does not write them:

* output that torch (or another library) prints: a line that the English page shows
  too and that
  holds none of the phrases of the project's own translated strings;
* what the catalog's translators kept as it is (torch's messages that the code
  quotes, as in
  ``match="expected m1 and m2 to have the same dtype"``, and HTML or CSS in a
  string), also where
  the prose quotes it: «Trying to backward through the graph a second time»;
* tools' pragmas (``# noqa: E731``) and section markers.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from ptdocs import catalog

ENGLISH = frozenset(
    """
    the of and to is are was were be been being with for on at by from that this these
    those it its not should would could can cannot which when than then each every into
    per or an as if but there their what only does do did will must after before while
    where how why through because about over all any some same other
    """.split()
)
SPANISH = frozenset(
    """
    de la el en y que los las por con para un una es se del al su sus como más lo no o
    cada sin entre este esta estos estas son está están ya también muy pero si cuando
    donde qué
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_IDENTIFIER = re.compile(
    r"\S*[_.()\[\]=/@<>{}]\S*"
)  # requires_grad, x.grad(), a=b: not prose
OUTPUT = "# >"


def function_words(text: str) -> tuple[int, int]:
    """(English, Spanish) function words of a text, identifiers left out."""
    words = [word.lower() for word in _WORD.findall(_IDENTIFIER.sub(" ", text))]
    return sum(word in ENGLISH for word in words), sum(
        word in SPANISH for word in words
    )


def is_english_prose(text: str) -> bool:
    english, spanish = function_words(text)
    return english >= 2 and english > spanish


@dataclass(frozen=True)
class Unit:
    kind: str  # "text", "comment", "string", "output"
    text: str


def code_units(code: str) -> list[Unit]:
    """The comments, string literals and output lines of a code block (Python's
    tokenize; a block it cannot read, such as a shell command, by lines)."""
    units = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                pragma = catalog._PRAGMA_THEN_PROSE.match(token.string)
                if pragma:  # a pragma, then words: the words count
                    units.append(Unit("comment", token.string[pragma.end() :].strip()))
                    continue
                if catalog._NOT_PROSE.match(
                    token.string
                ) and not token.string.startswith(OUTPUT):
                    continue  # a tool's pragma (noqa and its codes), a section marker
                if token.string.startswith(OUTPUT):
                    units.append(
                        Unit(
                            "output", re.sub(r"^# >(?:\[[^\]]*\])? ?", "", token.string)
                        )
                    )
                else:
                    units.append(Unit("comment", token.string.lstrip("#").strip()))
            elif token.type == tokenize.STRING:
                units += [
                    Unit("string", line.strip())
                    for line in _string_text(token.string).split("\n")
                ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [Unit("comment", line) for line in code.split("\n")]
    return [unit for unit in units if unit.text]


def _string_text(token: str) -> str:
    found = re.match(r"[a-zA-Z]*('''|\"\"\"|'|\")", token, re.S)
    quote = found[1]
    return token[found.end() : len(token) - len(quote)]


@dataclass(frozen=True)
class Excused:
    """What the project does not write, or does not translate yet (see the module's
    docstring)."""

    kept: frozenset[str]  # lines the translators kept as they are
    phrases: frozenset[str]  # the English phrases of the project's translated strings

    @classmethod
    def from_catalog(cls, language: str = "es", root: Path = catalog.ROOT) -> Excused:
        kept, phrases = set(), set()
        for message in catalog.load("snippets", language, root):
            if not message.id or not message.string or message.fuzzy:
                continue
            # A line the translator kept as it is: the whole entry, or a line of it.
            kept.update(
                a.strip()
                for a, b in zip(
                    message.id.split("\n"), message.string.split("\n"), strict=False
                )
                if a == b
            )
            if message.string != message.id and any(
                note.startswith("a string of the code")
                for note in message.auto_comments
            ):
                phrases.update(catalog.phrases(message.id))
        return cls(frozenset(kept), frozenset(phrases))

    def unquoted(self, unit: Unit) -> Unit:
        """The unit without the «quotations» of what torch prints that a page's prose
        makes (¿Qué significa «Trying to backward through the graph a second time»?)."""
        text = re.sub(
            r"«([^»]*)»",
            lambda quote: " " if quote[1] in self.kept else quote[0],
            unit.text,
        )
        return Unit(unit.kind, text)

    def excuses(self, unit: Unit, english: set[Unit]) -> bool:
        if unit.kind in ("string", "output", "comment") and unit.text in self.kept:
            return True
        # Printed by torch or another library: shown on the English page too, with no
        # phrase of ours.
        return (
            unit.kind == "output"
            and unit in english
            and not any(phrase in unit.text for phrase in self.phrases)
        )


def english_units(
    units: list[Unit], english: set[Unit], excused: Excused
) -> list[Unit]:
    """The units that read as English prose and are not excused, each once, in order.
    In code, a comment, string or output with two words in a row ("closed form") that
    the English page shows as it is counts too: it was not translated, function words
    or not."""
    found = {}
    for unit in units:
        if excused.excuses(unit, english):
            continue
        if is_english_prose(excused.unquoted(unit).text) or (
            unit.kind != "text" and unit in english and catalog.is_prose(unit.text)
        ):
            found.setdefault(unit, None)
    return list(found)
