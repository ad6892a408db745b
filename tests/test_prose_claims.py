"""The prose never says that a page's examples ran: only its stamp may, for the build
it is in.

A page built without a test report, or after its code changed, carries a stamp that
says "Not verified in this build" (or that examples failed). Prose that says "every
example on this page ran in this site's tests" would then contradict it. So pages and
notebook sources say what the tests check ("every example is a test ... passes only
if ..."), and leave whether they ran and passed to the stamp (ptdocs/hooks/stamp.py),
which knows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A sentence that reports the examples' run as a fact of the past, in either language:
# the examples (or blocks, or a notebook) as the subject of "ran", or the site or tests
# running them. A sentence that only says the stamp tells *whether* they ran is not a
# claim.
CLAIMS = {
    "en": re.compile(
        r"\b(?:examples?|blocks?|notebooks?)\b(?:\s+\w+){0,5}?\s+(?:ran|executed|was "
        r"run|were run)\b"
        r"|\b(?:site|build|tests?)\s+(?:ran|executed)\s+(?:this|its|the|every|each)\b",
        re.IGNORECASE,
    ),
    "es": re.compile(
        r"\b(?:ejemplos?|bloques?|notebooks?)\b(?:\s+\w+){0,5}?\s+se\s+(?:ejecutó|ejecutaron)\b"
        r"|\b(?:sitio|pruebas?)\s+(?:ejecutó|ejecutaron)\s+(?:este|sus|los|cada)\b",
        re.IGNORECASE,
    ),
}
# "Were the examples on this page run?" answered "Yes.": a claim too.
YES = {
    "en": re.compile(r"\brun\?\**\s+Yes\b"),
    "es": re.compile(r"\bejecutaron[^?]*\?\**\s+Sí\b"),
}
WHETHER = {
    "en": re.compile(r"\b(?:says?|tells?) whether\b"),
    "es": re.compile(r"\bdice si\b"),
}
SOURCES = {
    "en": [
        *sorted((ROOT / "docs" / "en").rglob("*.md")),
        *sorted((ROOT / "notebooks").glob("*.py")),
    ],
    "es": [
        *sorted((ROOT / "docs" / "es").rglob("*.md")),
        *sorted((ROOT / "notebooks").glob("*.py")),
    ],
}


def claims(text: str, language: str) -> list[str]:
    flat = re.sub(
        r"\s*\n\s*(?:#\s?)?", " ", text
    )  # sentences span lines; notebook prose is in comments
    return [match.group(0) for match in YES[language].finditer(flat)] + [
        match.group(0)
        for sentence in re.split(r"(?<=[.?!])\s+", flat)
        if not WHETHER[language].search(sentence)
        for match in CLAIMS[language].finditer(sentence)
    ]


@pytest.mark.parametrize("language", ["en", "es"])
def test_no_page_says_its_examples_ran(language):
    found = {
        f"{path.relative_to(ROOT)}: {claim!r}"
        for path in SOURCES[language]
        for claim in claims(path.read_text(encoding="utf-8"), language)
    }
    assert not found, (
        "prose that says the examples ran contradicts a 'Not verified' stamp; say "
        "what the "
        "tests check and leave the outcome to the stamp:\n" + "\n".join(sorted(found))
    )


# The wording the pages had before, which contradicted an unverified stamp, and wording
# that is fine.
CAUGHT = {
    "en": [
        "Every example on this page ran in this site's tests, in both languages, "
        "and each printed",
        "Every Python example on this page ran in this site's tests",
        "Every example on this page ran as a test, in English and in Spanish",
        "and every example ran on the device named in the\nverification stamp",
        "**Were the examples on this page run?**\nYes. Every block is a test of this "
        "site",
        "the site ran this\n# notebook when it was built",
        "The site executed each one while building it, so\nthe outputs shown are real.",
    ],
    "es": [
        "Todos los ejemplos de esta página se ejecutaron en las pruebas de este sitio",
        "todos los ejemplos se ejecutaron en el dispositivo",
        "**¿Se ejecutaron los ejemplos de esta página?**\nSí. Cada bloque es una "
        "prueba de este sitio",
        "el\n# sitio ejecutó este notebook al generarse",
        "El sitio ejecutó cada uno al\ngenerarse, así que las salidas que ves son "
        "reales.",
    ],
}
ALLOWED = {
    "en": [
        "Every example on this page is a test of this site, and passes "
        "only if it prints",
        'The stamp says "ran and passed" only when every example passed.',
        "**Were the examples on this page run?**\nThe stamp at the top of the page "
        "answers.",
        "Autograd differentiates the operations that ran, so the result is "
        "the derivative.",
        "A trace records what ran for the example inputs.",
        "The example shows that one seed reproduces one draw on the "
        "machine that ran it.",
        "Every value is an output of this notebook (the stamp above says whether "
        "this build ran it).",
    ],
    "es": [
        "Cada ejemplo de esta página es una prueba de este sitio, y solo "
        "pasa si imprime",
        "solo pone «se ejecutaron y pasaron» cuando todos los ejemplos pasaron",
        "**¿Se ejecutaron los ejemplos de esta página?**\nLo dice el sello del "
        "principio de la página.",
        "Una traza registra lo que se ejecutó con las entradas de ejemplo.",
        "El sello dice si sus ejemplos se ejecutaron y pasaron para la página "
        "tal como la ves.",
    ],
}


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_check_catches_the_old_wording_and_passes_plain_descriptions(language):
    assert [text for text in CAUGHT[language] if not claims(text, language)] == []
    assert [text for text in ALLOWED[language] if claims(text, language)] == []
