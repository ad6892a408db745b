"""What a reader does on the site, in both languages: switch language, search, switch
to dark mode. (Copying code, reading a notebook and the screenshots are checked on
every page, from one visit of each: test_pages.py.)"""

from __future__ import annotations

from urllib.parse import urldefrag, urlsplit

import pytest

from .harness import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Site,
    assert_offline,
    new_context,
    switch_scheme,
)

OTHER_LANGUAGES = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]


def _path(url: str, site) -> str:
    """A page URL relative to the site root, without query or fragment."""
    bare = urlsplit(urldefrag(url).url)._replace(query="").geturl()
    return bare.removeprefix(site.url)


def _lang(page) -> str | None:
    return page.locator("html").get_attribute("lang")


# --- language switcher ---


def lightest_of_each_kind(site, pages: list[str]) -> dict[str, str]:
    """The page of each kind with the least HTML (the quickest to load), by kind."""
    lightest = {}
    for path in sorted(pages, key=lambda path: len(site.html(path))):
        lightest.setdefault(site.kind(path), path)
    return lightest


def switch_language(page, language: str) -> None:
    page.hover(".md-header__option .md-select")  # the switcher opens on hover
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.locator(f"a.md-select__link[hreflang={language}]").click()


@pytest.mark.usefixtures("empty_search_index")
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_the_language_switcher_leads_to_the_same_page_and_back(site, page, language):
    translated = [path for path in site.pages if Site.language(path) == language]
    assert translated, f"no {language} pages were built"
    # Where the switcher's links lead is checked on every page, without a browser, in
    # test_links.py (and that no <head> link makes Material's script steer the click
    # elsewhere). Here a reader's hover and clicks follow them, on one page of each
    # kind: each kind has its own layout and depth (the home page, a guide, a notebook
    # in exercises/, the results).
    for path in lightest_of_each_kind(site, translated).values():
        page.goto(site.page_url(path), wait_until="domcontentloaded")
        switch_language(page, DEFAULT_LANGUAGE)
        english = Site.in_language(path, DEFAULT_LANGUAGE)
        assert _path(page.url, site) == english, f"/{path}: led to {page.url}"
        assert _lang(page) == DEFAULT_LANGUAGE
        switch_language(page, language)
        assert _path(page.url, site) == path, f"/{english}: led back to {page.url}"
        assert _lang(page) == language


# --- search ---

# A word of the autograd page in each language, typed on that language's home page.
SEARCHES = {"en": "gradient", "es": "gradiente"}
RESULT_LINKS = ".md-search-result__item > a"
HREFS = "links => links.map(a => a.getAttribute('href'))"

# The answer is shown whole: "none", or a count of results and that many rendered.
# Material renders the first 10, then 4 more each time the list is scrolled to its end:
# while some are missing, each check scrolls the list to its other end (to the top, then
# to the end again).
ALL_RESULTS_SHOWN = """() => {
    const none = JSON.parse(document.getElementById("__config").textContent).translations["search.result.none"]
    const meta = document.querySelector(".md-search-result__meta").textContent.trim()
    if (meta === none) return true
    const count = meta.match(/[0-9]+/)  // none while it reads "Type to start searching"
    const shown = document.querySelectorAll(".md-search-result__item").length
    if (!count || !shown) return false
    if (shown >= Number(count[0])) return true
    const list = document.querySelector(".md-search-result").parentElement
    list.scrollTop = list.scrollTop > 0 ? 0 : list.scrollHeight
    return false
}"""

# No search shown: the box was emptied and Material has answered that with its
# placeholder.
NO_SEARCH_SHOWN = """() => {
    const placeholder = JSON.parse(document.getElementById("__config").textContent).translations["search.result.placeholder"]
    return document.querySelector(".md-search-result__meta").textContent.trim() === placeholder
        && !document.querySelector(".md-search-result__item")
}"""


def search(page, site, term: str) -> set[str]:
    """Type ``term`` into the search box of the open page; the pages its results link
    to."""
    box = page.locator("input.md-search__input")
    box.click()
    if box.input_value():
        # A search typed before on this page: its results stay shown until Material has
        # answered the next one, and must never be read as this one's. Emptied first,
        # the box shows none.
        box.fill("")
        box.press("End")
        page.wait_for_function(NO_SEARCH_SHOWN)
    # Material searches the box's text on each keyup (and once when its index is ready).
    # Typed key by key, every prefix would be a search of its own, whose results could
    # be the ones read; filled, then one key released, the term is the only text ever
    # searched.
    box.fill(term)
    box.press("End")
    page.wait_for_function(ALL_RESULTS_SHOWN)
    hrefs = page.eval_on_selector_all(RESULT_LINKS, HREFS)
    return {_path(href, site) for href in hrefs}


@pytest.fixture(scope="module")
def search_home(browser, site):
    """Search a term on the home page of a language, opened once for all the searches
    typed on it (each search fills the box anew), and check that no request left
    localhost: the page, the pages its results link to and every response the page
    has had. Material's search worker builds the whole index of the language on each
    page load, most of what a search test costs."""
    opened, contexts = {}, []

    def searched(language, term):
        if language not in opened:
            context, guard = new_context(browser)
            contexts.append(context)
            page, loaded = context.new_page(), []
            page.on("response", lambda response: loaded.append(response))
            page.goto(site.page_url(Site.in_language("", language)))
            opened[language] = page, loaded, guard
        page, loaded, guard = opened[language]
        found = search(page, site, term)
        assert_offline(guard.blocked)
        return page, found, loaded

    yield searched
    for context in contexts:
        context.close()


@pytest.mark.parametrize("language, term", sorted(SEARCHES.items()))
def test_search_finds_the_autograd_page_and_only_pages_in_the_readers_language(
    site, search_home, language, term
):
    page, found, loaded = search_home(language, term)
    meta = page.locator(".md-search-result__meta").inner_text()
    expected = Site.in_language("autograd/", language)
    assert expected in found, (
        f"searching {term!r} on the {language} home page ({meta!r}) does not list "
        f"/{expected}; it lists {sorted(found)}"
    )
    foreign = sorted(path for path in found if Site.language(path) != language)
    assert not foreign, f"searching {term!r} ({language}) also lists {foreign}"
    # It searched its own language's index, which lunr processes in that language:
    # English is lunr's own; another language loads lunr-languages' file for it, and
    # nothing else.
    indexes = [answer for answer in loaded if answer.url.endswith("/search_index.json")]
    index = Site.in_language("search/search_index.json", language)
    assert [_path(answer.url, site) for answer in indexes] == [index]
    assert indexes[0].json()["config"]["lang"] == [language]
    lunr = {a.url.rpartition("/")[2] for a in loaded if "/javascripts/lunr/" in a.url}
    other = {"lunr.stemmer.support.min.js", f"lunr.{language}.min.js"}
    assert lunr == (set() if language == "en" else other)


@pytest.mark.parametrize("language, term", sorted(SEARCHES.items()))
def test_a_search_result_opens_its_page_with_the_term_highlighted(
    site, page, language, term
):
    page.goto(site.page_url(Site.in_language("", language)))
    found = search(page, site, term)
    expected = Site.in_language("autograd/", language)
    links = page.locator(RESULT_LINKS).all()
    link = next(
        (a for a in links if _path(a.get_attribute("href"), site) == expected), None
    )
    assert link, f"searching {term!r} lists no link to /{expected}: {sorted(found)}"
    with page.expect_navigation(wait_until="domcontentloaded"):
        link.click()
    assert _path(page.url, site) == expected
    assert _lang(page) == language
    # search.highlight: the result's link carries the term (?h=), the page marks it.
    marks = page.locator("article mark[data-md-highlight]")
    # Material marks the page once it has fetched the search index
    marks.first.wait_for()
    texts = marks.all_inner_texts()
    assert {text.lower() for text in texts} >= {term}, texts[:5]
    # Its stamp is out of the search index (data-search-exclude), not out of the
    # reader's sight.
    stamp = page.locator("article .ptdocs-stamp[data-search-exclude]")
    stamp.scroll_into_view_if_needed()
    assert stamp.is_visible(), "no visible stamp"


# Each guide is the first result for its topic, in each language, and for the words of
# its label in the menu ("Measuring performance", "Medir el rendimiento":
# ptdocs/hooks/search.py makes the label a search tag where the title does not say it).
# "tensor" and "autograd" are words of nearly every page: their guides' front matter
# boosts them (search: boost:).
TOPICS = [
    ("en", "autograd", "autograd/"),
    ("en", "tensor", "tensors/"),
    ("en", "framework", "choosing/"),
    ("en", "measuring", "measuring/"),
    ("en", "performance", "measuring/"),
    ("en", "gradient", "autograd/"),
    ("en", "DataLoader", "training/"),
    ("es", "autograd", "autograd/"),
    ("es", "tensor", "tensors/"),
    ("es", "framework", "choosing/"),
    ("es", "medir", "measuring/"),
    ("es", "rendimiento", "measuring/"),
    ("es", "gradiente", "autograd/"),
    ("es", "barajado", "training/"),
]
# API names find the section that explains them, in each language, though code blocks
# are not indexed (ptdocs/hooks/search.py): the prose names what the code uses.
API_NAMES = {
    "unsqueeze": "tensors/",
    "retain_graph": "autograd/",
    "weights_only": "choosing/",
}


def first_result(site, search_home, language, term, guide) -> tuple[str, list[str]]:
    """Search ``term`` on the ``language`` home page and check that the first result
    is ``guide`` in that language; that page and the links of every result, its
    sections' included."""
    page, found, _loaded = search_home(language, term)
    links = page.eval_on_selector_all(".md-search-result__item a", HREFS)
    expected = Site.in_language(guide, language)
    assert links and _path(links[0], site) == expected, (
        f"searching {term!r} on the {language} site lists {links[:1]} first, not "
        f"/{expected}: {sorted(found)}"
    )
    return expected, links


@pytest.mark.parametrize("language, term, guide", TOPICS)
def test_a_guide_is_the_first_result_for_its_topic(
    site, search_home, language, term, guide
):
    first_result(site, search_home, language, term, guide)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("term", API_NAMES)
def test_an_api_name_finds_the_section_that_explains_it(
    site, search_home, language, term
):
    expected, links = first_result(site, search_home, language, term, API_NAMES[term])
    # Material lists the page, then its sections that match: one of them is a section of
    # its own.
    sections = [link for link in links if _path(link, site) == expected and "#" in link]
    assert sections, f"searching {term!r} ({language}) finds /{expected}, no section"


# --- dark mode ---


def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


@pytest.mark.usefixtures("empty_search_index")
def test_dark_mode_switches_and_persists_across_pages(site, page):
    guide = lightest_of_each_kind(site, site.of_kind("guide", DEFAULT_LANGUAGE))[
        "guide"
    ]
    page.goto(site.page_url(""))
    assert scheme(page) == "default", "the site should start light (as the context)"
    switch_scheme(page, "dark")
    page.goto(site.page_url(guide))
    assert scheme(page) == "slate", "dark mode did not survive a page change"
    for language in OTHER_LANGUAGES:
        page.goto(site.page_url(Site.in_language(guide, language)))
        assert scheme(page) == "slate", f"dark mode lost on switching to {language}"
    switch_scheme(page, "light")
    page.goto(site.page_url(""))
    assert scheme(page) == "default", "light mode did not persist either"
