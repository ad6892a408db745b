"""A missing address gets the 404 page of its language, as GitHub Pages serves it.

GitHub Pages (and ``mkdocs serve``) answers every missing path with the site's root
``404.html``, status 404; the test server does the same (harness._Handler). That one
file shows the English page, or the Spanish one for an address under ``es/``
(ptdocs/hooks/not_found.py). Each address is loaded as a reader would, at several
depths: the page's language, heading, menu, language switcher and search index are
that language's, and nothing fails but the address itself (its 404 status, which
Chromium also logs). Both pages are kept as screenshots, light and dark, at 1280 and
375 px, in ``reports/screenshots/``.
"""

from __future__ import annotations

import pytest

from .harness import (
    LANGUAGES,
    SCREENSHOTS,
    Site,
    assert_offline,
    empty_search_indexes,
    load,
    new_context,
)

# Missing addresses, by the language of the page they must get: at the root, deep, under
# an existing page's folder, and (English) one that starts with "es" but is not under
# es/ and one named like a property every JavaScript object has.
MISSING = {
    "en": [
        "no-such-page/",
        "guides/a/b/no-such-page.html",
        "autograd/missing/",
        "estimates/",
        "constructor/",
    ],
    "es": ["es/no-such-page/", "es/guias/a/b/no-existe.html", "es/autograd/falta/"],
}
HEADINGS = {"en": "Page not found", "es": "Página no encontrada"}
# What the test reads of a page: its language, heading and title, the visible text, the
# switcher's and the menu's links (resolved), and how many of Material's bundles it
# runs.
FACTS = """() => ({
    lang: document.documentElement.lang,
    heading: document.querySelector("article h1")?.innerText.trim() ?? null,
    title: document.title,
    text: document.body.innerText,
    switcher: [...document.querySelectorAll("a.md-select__link")].map(a => [a.hreflang, a.href]),
    menu: [...document.querySelectorAll(".md-nav--primary a.md-nav__link:not(.md-nav--secondary a)")].map(a => [a.innerText.trim(), a.href]),
    bundles: document.querySelectorAll("script[src*='/bundle.']").length,
    scheme: document.body.dataset.mdColorScheme,
})"""
# The menu of a built page, its links resolved against the page's address.
MENU = """([html, url]) => [...new DOMParser().parseFromString(html, "text/html")
    .querySelectorAll(".md-nav--primary a.md-nav__link:not(.md-nav--secondary a)")]
    .map(a => [a.textContent.trim(), new URL(a.getAttribute("href"), url).href])"""


def problems_besides_the_address(loaded) -> list[str]:
    """What went wrong on the page, less the missing address's own answer: the 404
    status it must get, which Chromium logs as a console error too."""
    own = {
        f"GET {loaded.url}: HTTP 404",
        "console error: Failed to load resource: the server responded with a status "
        "of 404 "
        f"(File not found) ({loaded.url})",
    }
    return [problem for problem in loaded.problems if problem not in own]


@pytest.mark.parametrize("language", sorted(MISSING))
def test_a_missing_address_gets_the_404_page_of_its_language(
    site, page, empty_search_index, language
):
    assert set(MISSING) == set(LANGUAGES), "a language without missing addresses to try"
    home = site.page_url(Site.in_language("", language))
    menu = page.evaluate(MENU, [site.html(Site.in_language("", language)), home])
    assert menu, f"no menu on the {language} home page"
    other = {lang for lang in HEADINGS if lang != language}
    for path in MISSING[language]:
        url = site.page_url(path)
        loaded = load(page, url)
        assert loaded.problems, f"/{path} was found: pick an address that is missing"
        facts = page.evaluate(FACTS)
        where = f"/{path}"
        assert not problems_besides_the_address(loaded), (
            f"{where}: {problems_besides_the_address(loaded)}"
        )
        assert facts["lang"] == language, where
        assert facts["heading"] == HEADINGS[language], where
        assert facts["title"].startswith(HEADINGS[language]), where
        for lang in other:  # the other language's page is never seen
            assert HEADINGS[lang] not in facts["text"], where
        assert dict(facts["switcher"]) == {
            lang: site.page_url(Site.in_language("", lang)) for lang in LANGUAGES
        }, where
        assert facts["menu"] == menu, (
            f"{where}: not the menu of /{home.removeprefix(site.url)}"
        )
        assert facts["bundles"] == 1, (
            f"{where}: Material's script runs {facts['bundles']} times"
        )
        index = site.page_url(Site.in_language("search/search_index.json", language))
        assert index in loaded.responses, f"{where}: searched another language's index"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_404_pages_are_kept_as_screenshots(site, browser, scheme):
    """Light and dark (the reader's system setting, as Material's palette follows
    it), at a desktop's and a phone's width."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, guard = new_context(browser, color_scheme=scheme)
    empty_search_indexes(
        context, site
    )  # search is not under test here, nor in the picture
    try:
        page = context.new_page()
        for language, path in [("en", "no-such-page/"), ("es", "es/no-such-page/")]:
            loaded = load(page, site.page_url(path))
            facts = page.evaluate(FACTS)
            assert not problems_besides_the_address(loaded), (
                problems_besides_the_address(loaded)
            )
            assert (facts["lang"], facts["heading"]) == (language, HEADINGS[language])
            assert facts["scheme"] == {"light": "default", "dark": "slate"}[scheme]
            for width in (1280, 375):
                page.set_viewport_size({"width": width, "height": 900})
                page.screenshot(
                    path=SCREENSHOTS / f"404-{language}-{scheme}-{width}.png",
                    animations="disabled",
                )
    finally:
        context.close()
    assert_offline(guard.blocked)
