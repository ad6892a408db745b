"""The translation catalog (ptdocs.catalog): code comments in the reader's language,
code unchanged."""

from __future__ import annotations

import gettext
import html
import io
import os
import re
import shutil
import subprocess
import textwrap
import tokenize
import warnings
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import yaml
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from browser.interface_language import english_comments
from helpers import tiny_site
from sybil import Document

from ptdocs import catalog, translations
from ptdocs.catalog import code_tokens
from ptdocs.hooks import translations as hook
from ptdocs.pages import PageBlockParser
from ptdocs.snippets import ROOT, expand, include_target, pymdownx_expansion

SPANISH = ROOT / "docs" / "es"


def comment_texts(source: str) -> list[str]:
    return [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]


# ---------------------------------------------------------------- extraction


def test_comments_are_one_entry_per_sentence_and_leave_out_what_is_not_prose():
    source = textwrap.dedent("""\
        #!/usr/bin/env python
        # --8<-- [start:demo]
        # A sentence that goes on
        # over two lines.
        x = 1  # after code: its own entry
        print(x)
        # > 1
        y = 2  # noqa: F841

        # Another one.
        def f():
            # Indented: its own run.
            return 1
        # ---- a rule ----
        # --8<-- [end:demo]
        """)
    found = [(comment.line, comment.msgid) for comment in catalog.comments(source)]
    assert found == [
        (3, "A sentence that goes on\nover two lines."),
        (5, "after code: its own entry"),
        (10, "Another one."),
        (12, "Indented: its own run."),
        (14, "---- a rule ----"),
    ]


def test_a_translation_changes_comments_only_and_keeps_every_line():
    source = "# Two lines\n# of English.\nx = [1,  # one\n     2]  # two\n# > [1, 2]\n"
    translated, left = catalog.translate_source(
        source,
        {
            "Two lines\nof English.": "Dos líneas\nen español.",
            "one": "uno",
            "two": "dos\ny una línea de más",
        },
    )  # a wrong number of lines: stays English
    assert (
        translated
        == "# Dos líneas\n# en español.\nx = [1,  # uno\n     2]  # two\n# > [1, 2]\n"
    )
    assert [comment.msgid for comment in left] == ["two"]
    assert code_tokens(translated) == code_tokens(source)


STRINGS = textwrap.dedent('''\
    def step(x):
        """The step where rounding
        and truncation balance."""
        return x


    print(f"grad of x: {x:.2f}", "cpu", b"raw bytes")
    print("clock readings", uses["clock readings"])
    print("one line "
          f"and {x} more")
    # > grad of x: 3.00 cpu b'raw bytes'
    # > clock readings 4
    # > one line and 3 more
    print(str(error))
    # > expected m1 and m2 to have the same dtype
    ''')


def test_prose_strings_and_the_output_that_shows_them_are_entries():
    found = [
        (comment.kind, comment.line, comment.msgid)
        for comment in catalog.texts(STRINGS)
    ]
    assert found == [
        ("string", 2, "The step where rounding\nand truncation balance."),
        ("string", 7, "grad of x: {x:.2f}"),  # not "cpu" (one word) nor bytes (data)
        ("string", 8, "clock readings"),
        ("string", 8, "clock readings"),  # a key: the same entry
        (
            "string",
            9,
            "one line \nand {x} more",
        ),  # implicit concatenation: one entry, a line each
        # Output that shows a phrase of the strings; torch's own message is not the
        # project's.
        (
            "output",
            11,
            "grad of x: 3.00 cpu b'raw bytes'\nclock readings 4\none line and 3 more",
        ),
    ]


def test_output_that_shows_a_string_of_an_imported_module_beside_it_is_an_entry(
    tmp_path,
):
    """walkthrough.py prints what benchmark.py returns: that output is the project's
    text too, when the module is imported from the snippet's own folder (not any
    module of that name)."""
    folder = tmp_path / "snippets" / "page"
    folder.mkdir(parents=True)
    (folder / "module.py").write_text(
        'METHOD = "live tensor bytes"\n', encoding="utf-8"
    )
    walk = "from module import METHOD\n\nprint(METHOD)\n# > live tensor bytes\n"

    def found(code: str, name: str = "snippets/page/walk.py") -> list[tuple]:
        return [
            (c.kind, c.line, c.msgid)
            for c in catalog.texts(code, ".py", name, tmp_path)
        ]

    assert found(walk) == [("output", 4, "live tensor bytes")]
    assert found(walk, "snippets/other/walk.py") == []  # no module.py there
    assert found(walk.replace("from module", "from elsewhere")) == []


def test_a_placeholder_is_read_whole_with_its_format_and_nested_fields():
    """What a translation must keep, and the names it uses: "{{" is text."""
    text = "{x!r:.{n}f} {{literal}} {a.b} {0}"
    assert catalog.placeholders(text) == ["{x!r:.{n}f}", "{a.b}", "{0}"]
    assert catalog.placeholder_names(text) == {"x", "n", "a", "0"}


def test_a_translated_string_keeps_its_fields_quotes_and_line():
    translations = {
        "The step where rounding\nand truncation balance.": (
            "El paso donde el redondeo\ny el truncamiento se equilibran."
        ),
        "grad of x: {x:.2f}": "gradiente de x: {x:.2f}",
        "clock readings": "lecturas del reloj",
        # another field: stays English
        "one line \nand {x} more": "una línea \ny {y} más",
        "grad of x: 3.00 cpu b'raw bytes'\nclock readings 4\none line and 3 more": (
            "gradiente de x: 3.00 cpu b'raw bytes'\nlecturas del reloj 4\n"
            "one line and 3 more"
        ),
    }
    spanish, left = catalog.translate_source(STRINGS, translations)
    assert spanish.split("\n")[1:3] == [
        '    """El paso donde el redondeo',
        '    y el truncamiento se equilibran."""',
    ]
    assert 'print(f"gradiente de x: {x:.2f}", "cpu", b"raw bytes")' in spanish
    # Both, on one line.
    assert 'print("lecturas del reloj", uses["lecturas del reloj"])' in spanish
    assert "# > lecturas del reloj 4" in spanish and 'print("one line "' in spanish
    assert [comment.msgid for comment in left] == ["one line \nand {x} more"]
    assert code_tokens(spanish) == code_tokens(STRINGS)
    assert spanish.count("\n") == STRINGS.count("\n")
    # A quote that would end the string early leaves it in English; so does a line more
    # or less.
    broken, left = catalog.translate_source(
        STRINGS,
        {
            "grad of x: {x:.2f}": 'el "gradiente": {x:.2f}',
            "clock readings": "lecturas\ndel reloj",
        },
    )
    assert broken == STRINGS
    assert {c.msgid for c in left} >= {"grad of x: {x:.2f}", "clock readings"}


def test_a_string_changed_outside_the_catalog_is_a_difference_of_code():
    english = 'print(f"grad of x: {x}")\n'
    # No such entry; a field changed.
    for spanish in (
        'print(f"gradiente de x: {x}")\n',
        'print(f"grad of x: {x + 1}")\n',
    ):
        with pytest.raises(AssertionError):
            assert_translated_code(english, spanish, "demo")
    assert catalog.string_differences(english, english) == []


def test_the_catalog_files_are_current_and_well_formed():
    """What `python -m ptdocs.catalog check` checks: a new or changed comment is in
    the template and merged into the PO file (content, not layout); no entry breaks
    the line count."""
    for domain in catalog.DOMAINS:
        for language in catalog.LANGUAGES:
            template, po = catalog.merged(domain, language)
            # Babel flags "within 5% in norm" python-format and "{x.grad}"
            # python-brace-format; msgfmt -c then checks a translation as one.
            assert "python-format" not in template + po
            assert domain == "interface" or "python-brace-format" not in po
            assert domain != "interface" or "python-brace-format" in template
            for path, text in (
                (catalog.pot_path(domain), template),
                (catalog.po_path(domain, language), po),
            ):
                name = path.relative_to(ROOT).as_posix()
                assert catalog.content(path.read_bytes(), name) == catalog.content(
                    text.encode(), name
                ), f"{name} is stale: run `python -m ptdocs.catalog update`"
    malformed = [
        problem
        for problem in catalog.problems("snippets", "es")
        if "not translated" not in problem and "fuzzy" not in problem
    ]
    assert not malformed, "malformed translations in snippets.po:\n" + "\n".join(
        malformed
    )


def _edit(path: Path, old: str, new: str) -> None:
    path.write_text(
        path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8"
    )


def test_a_changed_comment_becomes_fuzzy_as_with_msgmerge(tmp_path):
    root = _small_site(tmp_path, translated="Dobla el valor.")
    snippet = root / "snippets" / "demo.py"
    _edit(snippet, "Double the value.", "Double the value, twice.")
    _, po = catalog.merged("snippets", "es", root)
    # The English that the translation translates stays beside it (#|), for the
    # translator.
    assert re.search(
        r'#, fuzzy\n#\| msgid "Double the value."\nmsgid "Double the value, twice."\n'
        r'msgstr "Dobla el valor."',
        po,
    ), po
    # Merged again, it stays as it is: an update does not change what the last one
    # wrote.
    catalog.po_path("snippets", "es", root).write_text(po, encoding="utf-8")
    assert catalog.merged("snippets", "es", root)[1] == po
    # Changed again before anyone translated it: #| still names what the translation
    # translates.
    _edit(snippet, "twice.", "three times.")
    _, po = catalog.merged("snippets", "es", root)
    assert (
        '#| msgid "Double the value."\nmsgid "Double the value, three times."' in po
    ), po
    # Translated (the translator clears the fuzzy flag): the old English goes.
    po = po.replace("#, fuzzy\n", "")
    catalog.po_path("snippets", "es", root).write_text(po, encoding="utf-8")
    assert "#|" not in catalog.merged("snippets", "es", root)[1]


def test_a_changed_comment_of_two_lines_keeps_every_previous_line_marked(tmp_path):
    # Babel writes a previous msgid of several lines as one wrapped comment whose later
    # lines lose their "#|": a file that the next read refuses. Each line must keep its
    # "#|".
    root = _small_site(tmp_path, translated="Dobla el valor.")
    snippet = root / "snippets" / "demo.py"
    _edit(snippet, "# Double the value.\n", "# Double the value,\n# then keep it.\n")
    po = catalog.merged("snippets", "es", root)[1]
    po = po.replace('#, fuzzy\n#| msgid "Double the value."\n', "").replace(
        'msgstr "Dobla el valor."', 'msgstr ""\n"Dobla el valor,\\n"\n"y guárdalo."'
    )
    catalog.po_path("snippets", "es", root).write_text(
        po, encoding="utf-8"
    )  # translated
    _edit(snippet, "keep it.", "keep it twice.")
    _, again = catalog.merged("snippets", "es", root)
    assert (
        '#| msgid ""\n#| "Double the value,\\n"\n#| "then keep it."\nmsgid ""' in again
    ), again
    assert not catalog.syntax_problems(again.encode(), "snippets.po")


# ---------------------------------------------------------------- the code is the same


def assert_translated_code(english: str, spanish: str, where: str) -> int:
    """The Spanish code is the English code but for comments and strings the catalog
    translates (every token compared; a string by its prefix, quotes and f-string
    fields); returns how many string pieces differ."""
    assert code_tokens(spanish) == code_tokens(english), f"{where}: the code differs"
    allowed = catalog.line_translations("es", "string")
    changed = catalog.string_differences(english, spanish)
    stray = [pair for pair in changed if pair not in allowed]
    assert not stray, (
        f"{where}: strings that the catalog does not translate so: {stray}"
    )
    return len(changed)


def test_each_spanish_include_is_the_english_code_with_spanish_comments_and_strings():
    compared = translated = strings = 0
    for page in sorted(SPANISH.rglob("*.md")):
        for line in page.read_text(encoding="utf-8").split("\n"):
            target = include_target(line)
            if target is None or not target.split(":")[0].endswith(catalog.SUFFIXES):
                continue
            english, spanish = expand(target), expand(target, language="es")
            if target.split(":")[0].endswith(".py"):
                strings += assert_translated_code(
                    english.padded_source, spanish.padded_source, target
                )
            else:  # YAML: the same data
                assert yaml.safe_load(spanish.padded_source) == yaml.safe_load(
                    english.padded_source
                ), target
            assert len(spanish.shown) == len(english.shown)
            compared += 1
            translated += spanish.shown != english.shown
            # The pages and Sybil expand alike: pymdownx.snippets with the Spanish
            # comments.
            assert [x for x in spanish.shown if x.strip()] == [
                x for x in pymdownx_expansion(target, ROOT, "es") if x.strip()
            ]
    assert compared > 100 and translated > 100 and strings > 50, (
        compared,
        translated,
        strings,
    )


# The downloads: tests/test_downloads.py
# (test_the_downloads_hold_the_code_of_the_english_ones).


def test_the_spanish_notebooks_are_the_english_code_with_spanish_comments_and_strings():
    for notebook in sorted((SPANISH / "exercises").glob("*.ipynb")):
        english = nbformat.read(
            ROOT / "docs" / "en" / "exercises" / notebook.name, as_version=4
        )
        spanish = nbformat.read(notebook, as_version=4)
        code_en = [cell.source for cell in english.cells if cell.cell_type == "code"]
        code_es = [cell.source for cell in spanish.cells if cell.cell_type == "code"]
        assert len(code_en) == len(code_es), notebook.name
        for number, (en, es) in enumerate(zip(code_en, code_es, strict=False), start=1):
            assert_translated_code(en, es, f"{notebook.name}, code cell {number}")
    derivatives = nbformat.read(
        SPANISH / "exercises" / "derivatives.ipynb", as_version=4
    )
    comments = [
        text
        for cell in derivatives.cells
        if cell.cell_type == "code"
        for text in comment_texts(cell.source)
    ]
    assert "# Cambia estos valores y vuelve a ejecutar la celda." in comments


def test_the_spanish_page_tests_run_the_code_with_spanish_comments():
    page = SPANISH / "autograd.md"
    document = Document(page.read_text(encoding="utf-8"), str(page))
    shown = "\n".join(
        line
        for region in PageBlockParser()(document)
        for include in region.parsed.includes
        for line in include.shown
    )
    assert "# d(x²)/dx = 2x, así que en x = 3 el gradiente vale 6." in shown
    assert "the gradient is 6" not in shown


# ---------------------------------------------------------------- gaps are reported


def _write(po: Catalog, root: Path) -> None:
    """A Babel catalog as the language's PO file of its domain under ``root``."""
    path = catalog.po_path(po.domain, po.locale_identifier, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, po)


def _small_site(tmp_path: Path, translated: str = "", fuzzy: bool = False) -> Path:
    """A site with one snippet comment, its page in both languages and a catalog."""
    root = tiny_site(
        tmp_path / "site",
        {
            "demo.py": "x = 2\n# --8<-- [start:double]\n# Double the value.\ny = 2 * "
            "x\n# --8<-- [end:double]\n"
        },
    )
    for language, title in (("en", "Demo"), ("es", "Demostración")):
        page = root / "docs" / language / "demo.md"
        page.parent.mkdir(parents=True)
        page.write_text(
            f'# {title}\n\n```python\n--8<-- "snippets/demo.py:double"\n```\n',
            encoding="utf-8",
        )
    po = Catalog(locale="es", domain="snippets", fuzzy=False)
    message = po.add(
        "Double the value.", translated, locations=[("snippets/demo.py", 3)]
    )
    if fuzzy:
        message.flags.add("fuzzy")
    _write(po, root)
    translations.mark(
        root / "docs", root / "docs" / "es" / "demo.md"
    )  # the page itself is current
    return root


@pytest.mark.parametrize(
    "translated, fuzzy",
    [("", False), ("Dobla el valor.", True), ("Dobla el valor.", False)],
    ids=["missing", "fuzzy", "translated"],
)
def test_status_and_the_page_notice_report_a_comment_left_in_english(
    tmp_path, capsys, translated, fuzzy
):
    root = _small_site(tmp_path, translated, fuzzy)
    docs, left = root / "docs", not translated or fuzzy
    shown = expand("snippets/demo.py:double", root, "es").shown[0]
    assert shown == ("# Double the value." if left else "# Dobla el valor.")
    assert translations.untranslated_comments(docs, "demo.md") == (
        [catalog.Place("snippets/demo.py", 3)] if left else []
    )
    assert translations.main(["--docs", str(docs), "status"]) == int(left)
    out = capsys.readouterr().out
    named = "docs/es/demo.md: snippets/demo.py:3" in out
    assert named == left and ("locale/es/LC_MESSAGES/snippets.po" in out) == left
    assert left or "comments in English" not in out
    page = SimpleNamespace(file=SimpleNamespace(src_uri="es/demo.md"))
    config = SimpleNamespace(
        docs_dir=str(docs), config_file_path=str(root / "mkdocs.yml")
    )
    assert hook._outdated(page, config) == ("demo.md" if left else None)


def test_comments_left_in_english_are_reported_like_an_outdated_page():
    """The policy for what is behind the English (CONTRIBUTING.md, "Behind the
    English"): a comment with no current translation is a warning in the test
    summary, as an outdated page is, and its page shows readers the
    outdated-translation notice; never a failure."""
    config = SimpleNamespace(
        docs_dir=str(translations.DOCS), config_file_path=str(ROOT / "mkdocs.yml")
    )
    for page in translations.pages(translations.DOCS, "es"):
        left = translations.untranslated_comments(translations.DOCS, page)
        if left:
            warnings.warn(
                translations.OutdatedTranslation(
                    f"docs/es/{page}: code comments in English until translated in "
                    f"locale/es/LC_MESSAGES/snippets.po: {', '.join(map(str, left))}"
                ),
                stacklevel=1,
            )
            noticed = hook._outdated(
                SimpleNamespace(file=SimpleNamespace(src_uri=f"es/{page}")), config
            )
            assert noticed == page, (
                f"docs/es/{page} shows comments in English without the notice"
            )


# ---------------------------------------------------------------- interface strings


def test_interface_strings_come_from_the_catalog_and_a_gap_names_its_entry(tmp_path):
    po = Catalog(locale="es", domain="interface", fuzzy=False)
    po.add("Download notebook", "Descargar notebook", context="demo.notebook")
    po.add("time", "vez", context="demo.times.0")
    _write(po, tmp_path)
    texts = catalog.Texts(
        "demo",
        {"notebook": "Download notebook", "times": ("time", "times")},
        root=tmp_path,
    )
    assert (
        texts["en"]["times"] == ("time", "times")
        and "es" in texts
        and "fr" not in texts
    )
    assert texts.in_language("fr") is texts["en"], (
        "a language without a catalog reads English"
    )
    with pytest.raises(catalog.CatalogError) as error:
        texts["es"]
    message = str(error.value)
    assert "\n" not in message and "demo.times.1 ('times')" in message, message


def test_each_column_name_of_a_table_is_its_own_interface_entry():
    """A row of column names as one msgid ("Release | Device | ...") would leave the
    number of columns to each translation; one entry per name keeps every language's
    table whole."""
    rows = [
        f"{message.context}: {text!r}"
        for message in catalog.extract_interface(ROOT)
        for text in (message.id if isinstance(message.id, tuple) else (message.id,))
        if " | " in text
    ]
    assert not rows, rows


def test_a_plural_is_one_gettext_entry_chosen_by_the_languages_plural_forms(tmp_path):
    """Plural(one, many) extracts as msgid/msgid_plural; in Spanish, ngettext picks
    among the catalog's three forms (CLDR: one, many for millions, other), and a
    download carries the same forms and rule."""
    (tmp_path / "ptdocs").mkdir()
    (tmp_path / "ptdocs" / "demo.py").write_text(
        'T = Texts("demo", {"ran": Plural("1 example ran", "{n} examples ran")})\n',
        encoding="utf-8",
    )
    entry = next(
        message for message in catalog.extract_interface(tmp_path) if message.id
    )
    assert entry.context == "demo.ran"
    assert entry.id == ("1 example ran", "{n} examples ran")
    po = Catalog(locale="es", domain="interface", fuzzy=False)
    po.add(
        entry.id, ("1 ejemplo", "{n} de ejemplos", "{n} ejemplos"), context="demo.ran"
    )
    _write(po, tmp_path)
    texts = catalog.Texts(
        "demo",
        {"ran": catalog.Plural("1 example ran", "{n} examples ran")},
        root=tmp_path,
    )
    assert [texts["en"]["ran"](n) for n in (1, 2)] == [
        "1 example ran",
        "2 examples ran",
    ]
    spanish = [texts["es"]["ran"](n) for n in (1, 2, 10**6)]
    assert spanish == ["1 ejemplo", "2 ejemplos", "1000000 de ejemplos"]
    spanish = texts["es"]["ran"]
    assert gettext.c2py(spanish.rule)(10**6) == 1 and len(spanish.forms) == 3
    po.get("1 example ran", context="demo.ran").string = ("1 ejemplo", "", "{n} ej.")
    _write(po, tmp_path)
    with pytest.raises(catalog.CatalogError, match="demo.ran"):
        catalog.Texts(
            "demo",
            {"ran": catalog.Plural("1 example ran", "{n} examples ran")},
            root=tmp_path,
        )["es"]


def test_moving_an_interface_table_leaves_the_catalog_as_it_was(tmp_path):
    """An interface entry is found by its msgctxt: its #: names the file, not the
    line, so code moved above a Texts table does not make the catalog stale."""
    (tmp_path / "ptdocs").mkdir()
    demo = tmp_path / "ptdocs" / "demo.py"
    templates = []
    for above in ("", "import os\n\n"):
        demo.write_text(above + 'T = Texts("demo", {"a": "A"})\n', encoding="utf-8")
        templates.append(catalog.merged("interface", "es", tmp_path)[0])
    assert templates[0] == templates[1]
    assert "#: ptdocs/demo.py\nmsgctxt" in templates[0]
    po = catalog.po_path("interface", "es", tmp_path)
    po.parent.mkdir(parents=True)
    po.write_text(catalog.merged("interface", "es", tmp_path)[1], encoding="utf-8")
    assert catalog.problems("interface", "es", tmp_path) == [
        "ptdocs/demo.py: demo.a not translated: 'A'"
    ]


def test_every_interface_table_is_translated():
    tables = list(catalog.interface_tables())
    assert tables and catalog.LANGUAGES, (
        "no Texts(...) table or no language found to check"
    )
    untranslated = []
    for path, line, name, english in tables:
        texts = catalog.Texts(name, english)
        for language in catalog.LANGUAGES:
            try:
                texts[language]  # raises, naming the entry, when one is missing
            except catalog.CatalogError as error:
                untranslated.append(f"{path}:{line}: {error}")
    assert not untranslated, "\n".join(untranslated)


# ---------------------------------------------------------------- the built site


def _comments(page: str) -> list[str]:
    """The code comments of a built page, as Pygments marks them (output lines
    aside)."""
    spans = re.findall(r'<span class="(?:c|c1|ch|cm|cs)">(.*?)</span>', page, re.S)
    texts = [
        html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", span)).strip())
        for span in spans
    ]
    return [
        text for text in texts if text.startswith("#") and not text.startswith("# >")
    ]


def test_the_built_spanish_pages_show_no_english_comment_without_the_notice(built_site):
    """A Spanish page shows an English comment only while its translation is behind,
    and then with the outdated-translation notice (the policy: a warning, not a
    failure)."""
    # What the translators kept as it is ("float32: 4 bytes") reads the same on both
    # pages.
    po = catalog.load("snippets", "es")
    kept = frozenset(
        "# " + line
        for message in po
        if message.id and message.string == message.id
        for line in message.id.split("\n")
    )
    notice = html.escape(translations.MESSAGES["es"]["outdated_title"], quote=False)
    problems = []
    for page in sorted((built_site / "es").rglob("index.html")):
        twin = built_site / page.relative_to(built_site / "es")
        if not twin.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        found = english_comments(
            _comments(text), _comments(twin.read_text(encoding="utf-8")), kept
        )
        where = f"/{page.relative_to(built_site).parent.as_posix()}/"
        if found and notice in text:
            warnings.warn(
                translations.OutdatedTranslation(
                    f"{where}: comments in English: {found}"
                ),
                stacklevel=1,
            )
            continue
        problems += [f"{where}: {text}" for text in found]
    assert not problems, (
        "English code comments on Spanish pages that show no outdated notice:\n"
        + "\n".join(problems)
    )


def test_what_counts_as_an_english_comment():
    english = [
        "# d(x⁴)/dx = 4x³",
        "# float32",
        "# not a copy",
        "# NumPy: float64",
        "# strides (12, 4, 1)",
        "# d(eˣ + 1)/dx = eˣ",
        "# Change these, then run the cell again.",
    ]
    spanish = [
        "# d(x⁴)/dx = 4x³",
        "# float32",
        "# not a copy",
        "# NumPy: float64",
        "# strides (12, 4, 1)",
        "# no es una copia",
        "# d(eˣ + 1)/dx = eˣ",
        "# Cambia estos valores y vuelve a ejecutar la celda.",
    ]
    assert english_comments(spanish, english) == ["# not a copy"]
    assert (
        english_comments(
            ["# float32: 4 bytes", "# noqa: E731"],
            ["# float32: 4 bytes", "# noqa: E731"],
            frozenset({"# float32: 4 bytes"}),
        )
        == []
    )


# ---------------------------------------------------------------- PO files as editors
# save them

PO_HEAD = (
    'msgid ""\nmsgstr ""\n"Language: es\\n"\n'
    '"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
)

# Each: a damaged PO file (after PO_HEAD, whose last line is 5), the line named, and
# what is said. Babel (and polib 1.2) read the first two without a word, and lose text:
# "Dobla el valo", "obla el valor".
M = 'msgid "Double the value."\n'
# What msgcat writes where two files translate M differently (fuzzy, which msgfmt skips)
CONFLICT = f'#, fuzzy\n{M}msgstr ""\n"#-#-#-#-#  a.po  #-#-#-#-#\\n"\n"Dobla.\\n"\n'
CONFLICT += '"#-#-#-#-#  b.po  #-#-#-#-#\\n"\n"Duplica."\n'
DAMAGED = {
    "unterminated msgstr": (M + 'msgstr "Dobla el valor.\n', 7, "not closed"),
    "unquoted msgstr": (M + "msgstr Dobla el valor.\n", 7, "double quotes"),
    "unterminated continuation": (M + 'msgstr ""\n"Dobla el.\n', 8, "not closed"),
    "quote inside": (M + 'msgstr "Dobla "el" valor."\n', 7, 'write \\"'),
    "unknown escape": (M + 'msgstr "Dobla\\q el valor."\n', 7, "unknown escape"),
    "unknown keyword": (M + 'msgtsr "Dobla el valor."\n', 7, "unknown keyword"),
    "msgid without msgstr": (M + "\n", 6, "without msgstr"),
    "stray text": ('#: a.py:3\n"Dobla."\n' + M + 'msgstr ""\n', 7, "continues no"),
    "duplicate entry": (2 * (M + 'msgstr "Dobla el valor."\n\n'), 9, "same msgid"),
    "msgcat conflict": (
        CONFLICT,
        9,
        "msgcat found different translations of this entry",
    ),
    "broken msgctxt, then text": (M + 'msgctxt x\nmsgstr ""\n"Dobla."\n', 7, "quotes"),
    "line break lost": ('msgid "Double.\\n"\nmsgstr "Dobla."\n', 7, "line break"),
    "format changed": (
        '#, python-format\nmsgid "5% in"\nmsgstr "5 % en"\n',
        8,
        "placeholders",
    ),
    "brace name changed": (
        '#, python-brace-format\nmsgid "{n} runs"\nmsgstr "{m} veces"\n',
        8,
        "{m}",
    ),
    "brace name added in braces": (  # "{{y}}" is text, "{{{z}}}" a field in braces
        '#, python-brace-format\nmsgid "{x} runs"\nmsgstr "{x} veces {{y}} {{{z}}}"\n',
        8,
        "uses {z}, which",
    ),
    "not UTF-8": (M + 'msgstr "Dobla el valor \xe9."\n', 7, "UTF-8"),
}


def _planted(tmp_path: Path, body: str) -> tuple[Path, Path]:
    root = _small_site(tmp_path, translated="Dobla el valor.")
    path = catalog.po_path("snippets", "es", root)
    data = (PO_HEAD + body).encode("latin-1" if "\xe9" in body else "utf-8")
    path.write_bytes(data)
    return root, path


@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_po_file_is_refused_with_its_line_and_never_written_back(
    tmp_path, capsys, case
):
    body, line, said = DAMAGED[case]
    root, path = _planted(tmp_path, body)
    before = path.read_bytes()
    where = f"{catalog.relative(path, ROOT)}:{line}: "
    for action in ("update", "check"):
        assert catalog.main([action, "--root", str(root)]) == 2, action
        err = capsys.readouterr().err
        assert where in err and said in err, err
        assert path.read_bytes() == before, f"{action} wrote over the damaged file"
    catalog._loaded.cache_clear()
    with pytest.raises(catalog.POSyntaxError) as error:  # the site build refuses it too
        catalog.load("snippets", "es", root)
    assert "\n" not in str(error.value) and where in str(error.value)
    if shutil.which("msgfmt") and body != CONFLICT:  # and gettext agrees: Poedit
        # would not save it either (a conflict is a fuzzy text to msgfmt: ours to see)
        done = subprocess.run(
            ["msgfmt", "-c", "-o", os.devnull, str(path)],
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0, f"msgfmt -c accepts the {case} file: {done.stderr}"


def test_a_damaged_entry_is_reported_once():
    """A msgid without msgstr is no translation for a later entry to repeat, a msgcat
    conflict is said once, at its entry's first marker, and a broken msgid's msgstr is
    not 'a second msgstr' of the entry before."""
    cases = {
        M + "\n" + M + 'msgstr "Dobla el valor."\n': [
            'x.po:6: msgid without msgstr; add msgstr "" after it'
        ],
        CONFLICT: [f"x.po:9: {catalog._CONFLICT}"],
        CONFLICT + "\n" + CONFLICT.replace("Double the value.", "Half."): [
            f"x.po:{n}: {catalog._CONFLICT}" for n in (9, 17)
        ],
        M + 'msgstr "Dobla."\n\nmsgid Half.\nmsgstr "Mitad."\n': [
            'x.po:9: the text of msgid must be in double quotes: msgid "Half."'
        ],
    }
    for body, problems in cases.items():
        assert catalog.syntax_problems((PO_HEAD + body).encode(), "x.po") == problems


MSGCAT_MISSING = (
    "gettext's msgcat is not installed (apt-get install gettext; .ci/run installs it)"
)


@pytest.mark.parametrize("kept", ["Dobla el valor.", "Duplica el valor."])
def test_a_msgcat_conflict_mended_as_said_leaves_a_sound_file(tmp_path, capsys, kept):
    if not shutil.which("msgcat"):
        pytest.skip(MSGCAT_MISSING)
    root = _small_site(tmp_path, translated="Dobla el valor.")
    assert catalog.main(["update", "--root", str(root)]) == 0
    path = catalog.po_path("snippets", "es", root)
    ours, theirs = tmp_path / "ours.po", tmp_path / "theirs.po"
    ours.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    other = ours.read_text(encoding="utf-8").replace("Dobla el", "Duplica el")
    theirs.write_text(other, encoding="utf-8")
    subprocess.run(["msgcat", "-o", path, ours, theirs], check=True)
    merged = path.read_text(encoding="utf-8")
    marker = 1 + merged.split("\n").index(
        '"#-#-#-#-#  ours.po (PROJECT VERSION)  #-#-#-#-#\\n"'
    )
    where = catalog.relative(path, ROOT)
    assert catalog.syntax_problems(merged.encode(), where) == [
        f"{where}:{marker}: {catalog._CONFLICT}"
    ]
    # As it says: one translation, no marker line, ending as the msgid does (without
    # the \n msgcat adds to all but the last), and no fuzzy flag.
    before, fuzzy, entry = merged.partition("#, fuzzy\n")
    assert fuzzy and "msgid" in entry
    mended = before + re.sub(r'msgstr ""\n(".*"\n)+', f'msgstr "{kept}"\n', entry)
    path.write_text(mended, encoding="utf-8")
    capsys.readouterr()
    assert catalog.main(["check", "--root", str(root)]) == 0
    assert capsys.readouterr() == ("", "")
    done = subprocess.run(["msgfmt", "-c", "-o", os.devnull, path], capture_output=True)
    assert done.returncode == 0, done.stderr


def test_a_sound_po_file_is_not_refused():
    # msgfmt needs no space after a keyword, or takes a tab; Babel needs a space.
    data = (
        PO_HEAD + '#, fuzzy\n#| msgid "Half."\nmsgid "Double the value."\n'
        'msgstr ""\n"Dobla \\"el\\" "\n"valor.\\t"\n\n#~ msgid "Gone."\n'
        '#~ msgstr "Ido."\n\nmsgctxt"c"\nmsgid"Half."\nmsgid_plural"Halves."\n'
        'msgstr[0]"Mitad."\nmsgstr[1]"Mitades."\n\nmsgid\t"Tab."\nmsgstr\t"Tabulador."\n'
    ).encode()
    assert catalog.syntax_problems(data, "x.po") == []
    read = {entry[1]: entry[3] for entry in catalog.content(data, "x.po")}
    assert read["c"].startswith("('Mitad.', 'Mitades.'")  # as Babel reads it
    assert "'Tabulador.'" in str(catalog.content(data, "x.po"))


def _as_poedit_saves(text: str) -> str:
    """A PO file as Poedit writes it: its own header fields, every string wrapped at
    79 columns (gettext's layout), a translator comment kept."""
    reread = read_po(io.BytesIO(text.encode()))
    for message in reread:
        message.flags.discard("python-format")
    buffer = io.BytesIO()
    write_po(buffer, reread, width=79, include_previous=True)
    saved = buffer.getvalue().decode()
    return saved.replace(
        '"Language: es\\n"\n',
        '"Language: es\\n"\n"PO-Revision-Date: 2026-12-01 18:02+0100\\n"\n'
        '"Last-Translator: Ana <ana@example.org>\\n"\n"X-Generator: Poedit 3.4.2\\n"\n',
        1,
    )


@pytest.mark.parametrize("editor", ["Poedit", "msgcat"])
def test_a_po_file_saved_by_an_editor_is_current_and_update_restores_the_layout(
    tmp_path, capsys, editor
):
    root = _small_site(tmp_path, translated="Dobla el valor.")
    path = catalog.po_path("snippets", "es", root)
    long = (
        "Double the value, which is a long comment"
        " that any PO editor wraps at 79 columns."
    )
    _edit(root / "snippets" / "demo.py", "Double the value.", long)
    assert catalog.main(["update", "--root", str(root)]) == 0
    written = path.read_text(encoding="utf-8")
    if editor == "Poedit":
        saved = _as_poedit_saves(written)
    else:
        if not shutil.which("msgcat"):
            pytest.skip(MSGCAT_MISSING)
        saved = subprocess.run(
            ["msgcat", "-"], input=written, capture_output=True, text=True, check=True
        ).stdout
    assert saved != written and max(map(len, saved.splitlines())) <= 79
    path.write_text(saved, encoding="utf-8")
    capsys.readouterr()
    assert catalog.main(["check", "--root", str(root)]) == 0, capsys.readouterr()
    assert catalog.main(["update", "--root", str(root)]) == 0
    assert path.read_text(encoding="utf-8") == written, (
        "update restores the project's layout"
    )


def test_check_notices_a_changed_translation_that_the_layout_hides(tmp_path, capsys):
    """Content, not layout: the same file with one word changed is stale."""
    root = _small_site(tmp_path, translated="Dobla el valor.")
    assert catalog.main(["update", "--root", str(root)]) == 0
    path = catalog.po_path("snippets", "es", root)
    _edit(path, "#: snippets/demo.py:3", "#: snippets/demo.py:4")
    assert catalog.main(["check", "--root", str(root)]) == 1
    assert "stale: locale/es/LC_MESSAGES/snippets.po" in capsys.readouterr().out


def test_no_comment_is_flagged_as_a_format_string(tmp_path):
    """Babel flags "5% in" python-format and "{x.grad}" python-brace-format; msgfmt -c
    would then call a translation "5 % en" a fatal error."""
    root = _small_site(tmp_path)
    _edit(root / "snippets" / "demo.py", "Double the value.", "within 5% in {x.grad}")
    template, po = catalog.merged("snippets", "es", root)
    assert "within 5% in {x.grad}" in template and "-format" not in template + po


def test_msgfmt_accepts_every_committed_po_file():
    """What Poedit runs on every save: gettext's own check of each PO file and
    template."""
    if not shutil.which("msgfmt"):
        pytest.skip(
            "gettext's msgfmt is not installed (apt-get install gettext); "
            ".ci/run installs it"
        )
    files = sorted((ROOT / "locale").rglob("*.po")) + sorted(
        (ROOT / "locale").glob("*.pot")
    )
    assert len(files) >= 4
    for path in files:
        done = subprocess.run(
            ["msgfmt", "-c", "-o", os.devnull, str(path)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (
            f"msgfmt -c rejects {path.relative_to(ROOT)}:\n{done.stderr}"
        )


def test_a_compiled_catalog_is_ignored_by_git():
    """Poedit compiles a .mo file beside each PO file it saves; the site reads the PO
    file."""
    for name in (
        "locale/es/LC_MESSAGES/snippets.mo",
        "locale/es/LC_MESSAGES/interface.mo",
    ):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT)
        assert done.returncode == 0, f"{name} is not ignored by git (.gitignore)"
