"""What counts as interface text left in English on a Spanish page (test_pages.py
checks every Spanish page with it, from the tour that opened them all: one tour per
run).

Each Spanish page is compared with its English twin, as the ``tour`` opened them: a
text that both pages show (a text node, a ``title``, an ``aria-label``, an ``alt`` or
a ``placeholder``; code, math and a notebook's outputs aside, see
harness.INTERFACE_TEXTS) was not translated, unless its words are all names or terms
that read the same in both languages (below). Numbers, units, identifiers and
addresses are not words: "535 µs", "rel_error", "keras.io".
"""

from __future__ import annotations

import re

# Names of several words, taken out of a text before its words are counted (Benchmark
# Utils: torch.utils.benchmark, as the results page names it).
NAMES = (
    "Material for MkDocs",
    "ONNX Runtime",
    "Benchmark Utils",
    "(R)",
)  # (R): a CPU model name's mark
# Words that read the same in both languages, and so on both pages.
SAME_IN_BOTH = {
    # Names: of libraries, products and formats, and of the languages in the switcher.
    "PyTorch",
    "TensorFlow",
    "JAX",
    "Keras",
    "PyPI",
    "Python",
    "AMD",
    "EPYC",
    "TensorIterator",
    "safetensors",
    "jsonschema",
    "CSV",
    "CPU",
    "English",
    "Español",
    "GitHub",  # the header's link to the repository (repo_url), named by its host
    "Poedit",  # the PO editor the translators' guide names
    "torch",  # the package's name, as in "torch 2.13"
    "Intel",
    "Xeon",
    "Processor",  # a CPU's model name, as the machine reports it (results page)
    # Technical terms the Spanish pages keep in English (see CONTRIBUTING.es.md's
    # glossary).
    "autograd",
    "Autograd",
    "autocast",
    "Autocast",
    "dtype",
    "backend",
    "define-by-run",
    # the tensors page's heading: the glossary keeps «stride», as `stride()` says
    "Strides",
    # Spanish words that English spells the same.
    "Hardware",
    "total",
}
UNITS = {"s", "ms", "µs", "ns", "kB", "MB", "GB", "KiB", "MiB", "GiB"}
# Left out on purpose, by Spanish page and section (see harness.INTERFACE_TEXTS): the
# translators' glossary pairs each English term with its Spanish one, so both pages show
# both.
BILINGUAL = {("es/contributing/", "#glosario")}
# English that a Spanish page quotes, by page and text: what a program prints (the
# status words of `python -m ptdocs.translations status`; the notebook table's column
# "tol"), written in prose where code formatting would make them code.
QUOTED = {
    ("es/contributing/", "missing"),
    ("es/contributing/", "outdated"),
    ("es/contributing/", "up to date"),
    ("es/exercises/derivatives/", "tol"),
}
EDGES = "()[]{}.,;:!?¡¿«»\"'“”‘’·•…–—-/|<>=+*✓✗"


def words(text: str) -> list[str]:
    """The words of an interface text that a translator would translate: not names,
    numbers, units, identifiers (rel_error), addresses (keras.io) or single letters
    (variables)."""
    for name in NAMES:
        text = text.replace(name, " ")
    found = []
    for token in text.split():
        token = token.strip(EDGES)
        if len(token) < 2 or token in UNITS or re.search(r"[\d_./#@=]", token):
            continue
        if re.search(r"[^\W\d_]", token):
            found.append(token)
    return found


def untranslated(
    spanish: list[list[str]], english: list[list[str]]
) -> list[tuple[str, str, str]]:
    """(where, text, section) for each interface text of the Spanish page that the
    English page shows too, unless all its words read the same in both languages;
    once per where and text, in the first section that has it."""
    shown_in_english = {text for _, text, _ in english}
    found = {}
    for where, text, section in spanish:
        if text in shown_in_english and set(words(text)) - SAME_IN_BOTH:
            found.setdefault((where, text), section)
    return [(where, text, section) for (where, text), section in found.items()]


# ---------------------------------------------------------------- code comments
# (checked on the built HTML, where Pygments marks them: tests/test_catalog.py)


def english_comments(
    spanish: list[str], english: list[str], kept: frozenset[str] = frozenset()
) -> list[str]:
    """The code comments of a Spanish page that its English twin shows too, unless
    all their words read the same in both languages ("# float32", "# d(x⁴)/dx = 4x³",
    "# NumPy: float64"); each once, in page order. A comment of the catalog
    (locale/es/LC_MESSAGES/snippets.po) left untranslated, or one the catalog does
    not know, is one of these; one that its translator kept as it is (``kept``: "#
    float32: 4 bytes"), and a tool's pragma ("# noqa: E731"), are not."""
    shown_in_english = set(english)
    found = {}
    for text in spanish:
        prose = {word for word in words(text.lstrip("#")) if PROSE_WORD.fullmatch(word)}
        if text in kept or PRAGMA.fullmatch(text):
            continue
        if text in shown_in_english and prose - SAME_IN_BOTH - CODE_TERMS:
            found.setdefault(text, None)
    return list(found)


# Words that a Spanish code comment keeps as they are: identifiers written as words.
CODE_TERMS = {"NumPy", "strides", "eager", "stride"}
# A word of prose, as opposed to math and code in a comment ("d(eˣ", "x²", "cov"): three
# letters or more, and only letters.
PROSE_WORD = re.compile(r"[A-Za-z][a-z]{2,}")
PRAGMA = re.compile(r"#\s*(?:noqa|type:|pragma|fmt:)[:\w, ]*")
