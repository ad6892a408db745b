"""The 404 page in each language (ptdocs/hooks/not_found.py): the root page's switch,
the errors a broken build gets, and the built pages. (tests/browser/test_not_found.py
loads them.)"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from helpers import alternates

from ptdocs.hooks import not_found

ENGLISH = (
    '<!doctype html>\n<html lang="en" class="no-js">\n  <head>\n    <meta '
    'charset="utf-8">\n'
    "    <title>Page not found</title>\n  </head>\n  <body><h1>Page not "
    "found</h1></body>\n</html>\n"
)
# Spanish with what a script must not end on: </script> and <!-- in its text.
SPANISH = (
    '<!doctype html>\n<html lang="es" class="no-js" data-x=\'a b\'>\n  <head>\n    '
    '<meta charset="utf-8">\n'
    '    <script>var a = "<!--";</script>\n  </head>\n  <body><h1>Página no '
    "encontrada</h1></body>\n</html>\n"
)
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def _switch(html: str) -> str:
    return _SCRIPT.search(html).group(1)


def test_the_root_page_is_the_english_page_with_the_switch_right_after_its_charset():
    root = not_found.with_language_pages(
        ENGLISH, {"es": SPANISH}, "/pytorch-explained/"
    )
    head, charset, rest = ENGLISH.partition('<meta charset="utf-8">')
    assert root.startswith(head + charset + "<script>")
    assert root.endswith(
        "</script>" + rest
    )  # the English page, untouched around the script


def test_the_switch_holds_the_spanish_page_after_its_charset_and_its_html_attributes():
    switch = _switch(
        not_found.with_language_pages(ENGLISH, {"es": SPANISH}, "/pytorch-explained/")
    )
    pages = json.loads(re.search(r"var pages = (\{.*?\}), base = ", switch).group(1))
    assert pages == {
        "es": {
            "attributes": {"lang": "es", "class": "no-js", "data-x": "a b"},
            "rest": SPANISH.split('<meta charset="utf-8">', 1)[1],
        }
    }
    assert 'base = "/pytorch-explained/"' in switch
    # Nothing in it ends the script early or changes how the parser reads it.
    assert "</" not in switch and "<!" not in switch
    # A path segment such as "constructor" is not taken for a language.
    assert "hasOwnProperty.call(pages, locale)" in switch


def test_script_json_escapes_what_would_end_a_script():
    text = "a</script><!-- b </SCRIPT> <p>"
    written = not_found._script_json(text)
    assert "</" not in written and "<!" not in written
    assert json.loads(written) == text


@pytest.mark.parametrize("broken", ["english", "spanish", "spanish-html"])
def test_a_page_without_its_charset_or_html_tag_is_a_one_line_error(broken):
    english, spanish = ENGLISH, SPANISH
    if broken == "english":
        english = english.replace('<meta charset="utf-8">', "")
    elif broken == "spanish":
        spanish = spanish.replace('<meta charset="utf-8">', "")
    else:
        spanish = spanish.replace('<html lang="es" class="no-js" data-x=\'a b\'>', "")
    with pytest.raises(not_found.NotFoundPageError) as error:
        not_found.with_language_pages(english, {"es": spanish}, "/")
    assert "\n" not in str(error.value) and "404 hook" in str(error.value)


def test_a_language_without_text_is_a_one_line_error():
    with pytest.raises(not_found.NotFoundPageError, match="no text for language 'fr'"):
        not_found.texts("fr")


def test_every_text_is_there_in_every_language():
    keys = {tuple(sorted(words)) for words in not_found.TEXTS.values()}
    assert len(keys) == 1 and all(
        all(words.values()) for words in not_found.TEXTS.values()
    )


def test_the_site_path_ends_in_a_slash():
    assert (
        not_found.site_path(
            SimpleNamespace(site_url="https://x.github.io/pytorch-explained")
        )
        == "/pytorch-explained/"
    )
    assert not_found.site_path(SimpleNamespace(site_url=None)) == "/"


def _post_build(tmp_path, monkeypatch, building):
    """on_post_build with only the English page rendered."""
    i18n = SimpleNamespace(
        building=building, build_languages=["en", "es"], default_language="en"
    )
    config = SimpleNamespace(
        plugins={"i18n": i18n}, site_dir=str(tmp_path), site_url="http://x/"
    )
    monkeypatch.setattr(not_found, "_rendered", {"en": ENGLISH})
    not_found.on_post_build(config)


def test_a_language_whose_404_page_was_not_rendered_fails_the_build(
    tmp_path, monkeypatch
):
    with pytest.raises(
        not_found.NotFoundPageError, match="rendered no 404.html for es"
    ):
        _post_build(tmp_path, monkeypatch, building=False)
    assert not (tmp_path / "404.html").exists()


def test_inside_the_language_builds_nothing_is_written_yet(tmp_path, monkeypatch):
    _post_build(tmp_path, monkeypatch, building=True)
    assert list(tmp_path.iterdir()) == []


# --- the built site
# -----------------------------------------------------------------------


def test_the_built_404_pages(built_site):
    root = (built_site / "404.html").read_text(encoding="utf-8")
    spanish = (built_site / "es" / "404.html").read_text(encoding="utf-8")
    english_part = root[root.index("</script>") :]  # the English page, after the switch
    assert '<html lang="en"' in root and '<html lang="es"' in spanish
    assert '<h1 id="not-found">Page not found</h1>' in english_part
    assert '<h1 id="not-found">Página no encontrada</h1>' in spanish
    # Built with the default site_url, the site's path is "/": switchers lead to the
    # home pages.
    assert alternates(english_part) == alternates(spanish) == {"en": "/", "es": "/es/"}
    for html in (english_part, spanish):
        assert "hreflang" not in html.split("</head>", 1)[0], (
            "Material would fetch sitemap.xml next to it"
        )
    assert (
        '"base": "/es/"' in spanish and '"base": "/"' in english_part
    )  # each language's search index
    # The switch carries the Spanish page as built (after its <meta charset>).
    pages = json.loads(
        re.search(r"var pages = (\{.*?\}), base = ", _switch(root)).group(1)
    )
    assert pages["es"]["rest"] == spanish.split('<meta charset="utf-8">', 1)[1]
