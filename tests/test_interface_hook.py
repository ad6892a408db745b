"""ptdocs/hooks/interface.py: the interface strings a language's build applies, and a
clear error when mkdocs.yml lacks one. (tests/browser/test_pages.py,
test_no_english_interface_text_on_spanish_pages, checks the built site.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml
from mkdocs.exceptions import PluginError

from ptdocs.hooks import interface as hook
from ptdocs.snippets import ROOT

SPANISH = {
    "permalink_title": "Enlace permanente",
    "copy": "Copiar al portapapeles",
    "copied": "Copiado",
    "picture": "Esta imagen <no> tiene descripción",
    "made_with": "Hecho con",
}
# As mkdocs-jupyter's template comes out of nbconvert.
NOTEBOOK = (
    '<clipboard-copy ,="" aria-label="Copy to Clipboard" for="cell-1"><div>'
    '<span class="notice" hidden="">Copied!</span></div></clipboard-copy>'
    '<img alt="No description has been provided for this image" class="" '
    'src="data:image/png;base64,AA"/>'
)


class Jupyter:
    def should_include(self, file):
        return file.src_uri.endswith(".ipynb")


def config(interface, language="es"):
    return SimpleNamespace(
        extra={"interface": interface},
        mdx_configs={"toc": {"permalink": True}},
        plugins={
            "mkdocs-jupyter": Jupyter(),
            "i18n": SimpleNamespace(current_language=language),
        },
    )


def page(src_uri):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri))


def test_a_notebook_page_gets_its_languages_labels_escaped():
    html = hook.on_page_content(
        NOTEBOOK, page("es/exercises/x.ipynb"), config(SPANISH), None
    )
    assert html == (
        '<clipboard-copy ,="" aria-label="Copiar al portapapeles" for="cell-1"><div>'
        '<span class="notice" hidden="">Copiado</span></div></clipboard-copy>'
        '<img alt="Esta imagen &lt;no&gt; tiene descripción" class="" '
        'src="data:image/png;base64,AA"/>'
    )


def test_other_pages_are_left_alone():
    assert (
        hook.on_page_content(NOTEBOOK, page("es/autograd.md"), config(SPANISH), None)
        == NOTEBOOK
    )


def test_each_build_sets_the_permalink_title_of_its_language():
    built = hook.on_config(config(SPANISH))
    assert built.mdx_configs["toc"] == {
        "permalink": True,
        "permalink_title": "Enlace permanente",
    }


def test_a_missing_string_is_a_one_line_error_naming_it_and_the_language():
    with pytest.raises(PluginError) as error:
        hook.on_config(config({**SPANISH, "copied": " ", "made_with": None}))
    message = str(error.value)
    assert "\n" not in message and "for es lacks copied, made_with" in message


def test_mkdocs_yml_gives_every_language_every_string():
    """English under extra:, each other language under its i18n entry's extra:, all
    keys."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor(
        "!", lambda loader, suffix, node: None
    )  # !ENV and the like
    settings = yaml.load(
        (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader
    )
    i18n = next(
        plugin["i18n"]
        for plugin in settings["plugins"]
        if isinstance(plugin, dict) and "i18n" in plugin
    )
    tables = {"en": settings["extra"]["interface"]}
    tables |= {
        language["locale"]: language["extra"]["interface"]
        for language in i18n["languages"]
        if not language.get("default")
    }
    assert set(tables) == {"en", "es"}
    for language, table in tables.items():
        assert set(table) == set(hook.KEYS), language
    assert tables["es"] != tables["en"] and not set(tables["es"].values()) & set(
        tables["en"].values()
    )
