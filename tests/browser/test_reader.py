"""What a reader does on the site, in both languages: switch language, search, copy code,
read a notebook, switch to dark mode. Screenshots of each kind of page go to
``reports/screenshots/`` (kept by CI with the other reports)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from sybil import Document

from ptdocs.pages import Block, PageBlockParser

from .harness import DEFAULT_LANGUAGE, LANGUAGES, REPORTS, ROOT, Site

OTHER_LANGUAGES = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]
SCREENSHOTS = REPORTS / "screenshots"


def source_of(page: str, suffix: str) -> Path:
    """docs/<language>/<name><suffix> for a built page ('es/autograd/' -> docs/es/autograd.md)."""
    bare = Site.in_language(page, DEFAULT_LANGUAGE).rstrip("/")
    return ROOT / "docs" / Site.language(page) / f"{bare or 'index'}{suffix}"


def _path(url: str, site) -> str:
    """A page URL relative to the site root, without query or fragment."""
    return urlsplit(urldefrag(url).url)._replace(query="").geturl().removeprefix(site.url)


# --- language switcher --------------------------------------------------------------------

def switch_language(page, language: str) -> None:
    page.hover(".md-header__option .md-select")  # the switcher opens on hover
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.locator(f"a.md-select__link[hreflang={language}]").click()


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_the_language_switcher_leads_to_the_same_page_and_back(site, page, language):
    translated = [path for path in site.pages if Site.language(path) == language]
    assert translated, f"no {language} pages were built"
    for path in translated:
        page.goto(site.page_url(path), wait_until="domcontentloaded")
        switch_language(page, DEFAULT_LANGUAGE)
        english = Site.in_language(path, DEFAULT_LANGUAGE)
        assert _path(page.url, site) == english, f"/{path}: the switcher led to {page.url}"
        assert page.locator("html").get_attribute("lang") == DEFAULT_LANGUAGE
        switch_language(page, language)
        assert _path(page.url, site) == path, f"/{english}: the switcher led back to {page.url}"
        assert page.locator("html").get_attribute("lang") == language


# --- search -------------------------------------------------------------------------------

# A word of the autograd page in each language, typed on that language's home page.
SEARCHES = {"en": "gradient", "es": "gradiente"}


def search(page, site, term: str) -> set[str]:
    """Type ``term`` into the search box of the open page; the pages its results link to."""
    box = page.locator("input.md-search__input")
    box.click()
    # Key by key, as a reader types: Material reads the box on keyup (and once when its index
    # is ready), so a fill() made after the index is ready is never searched.
    box.press_sequentially(term)
    # Wait for the answer, found or not: a count above rendered results, or "none".
    page.wait_for_function("""() => {
        const none = JSON.parse(document.getElementById("__config").textContent).translations["search.result.none"]
        const text = document.querySelector(".md-search-result__meta").textContent.trim()
        const shown = document.querySelectorAll(".md-search-result__item").length
        return (/[0-9]/.test(text) && shown > 0) || text === none
    }""", timeout=15_000)
    results = page.locator(".md-search-result__item > a")
    # Material renders results in batches as the list scrolls: scroll until all are there.
    for _ in range(10):
        shown = results.count()
        if not shown:
            break
        results.last.scroll_into_view_if_needed()
        page.wait_for_timeout(100)
        if results.count() == shown:
            break
    return {_path(href, site) for href in (link.get_attribute("href") for link in results.all())}


@pytest.mark.parametrize("language, term", sorted(SEARCHES.items()))
def test_search_finds_the_autograd_page_and_only_pages_in_the_readers_language(site, page, language, term):
    loaded = []  # what the page and its search worker fetched for search
    page.on("response", lambda response: loaded.append(response))
    page.goto(site.page_url(Site.in_language("", language)))
    found = search(page, site, term)
    meta = page.locator(".md-search-result__meta").inner_text()
    expected = Site.in_language("autograd/", language)
    assert expected in found, (
        f"searching {term!r} on the {language} home page ({meta!r}) does not list /{expected}; "
        f"it lists {sorted(found)}")
    foreign = sorted(path for path in found if Site.language(path) != language)
    assert not foreign, f"searching {term!r} on the {language} home page also lists {foreign}"
    # It searched its own language's index, which lunr processes in that language: English
    # is lunr's own; another language loads lunr-languages' file for it, and nothing else.
    indexes = [response for response in loaded if response.url.endswith("/search_index.json")]
    assert [_path(response.url, site) for response in indexes] == [
        Site.in_language("search/search_index.json", language)]
    assert indexes[0].json()["config"]["lang"] == [language]
    lunr = {response.url.rpartition("/")[2] for response in loaded if "/javascripts/lunr/" in response.url}
    assert lunr == (set() if language == "en" else {"lunr.stemmer.support.min.js", f"lunr.{language}.min.js"})


@pytest.mark.parametrize("language, term", sorted(SEARCHES.items()))
def test_a_search_result_opens_its_page_with_the_term_highlighted(site, page, language, term):
    page.goto(site.page_url(Site.in_language("", language)))
    found = search(page, site, term)
    expected = Site.in_language("autograd/", language)
    link = next((link for link in page.locator(".md-search-result__item > a").all()
                 if _path(link.get_attribute("href"), site) == expected), None)
    assert link, f"searching {term!r} lists no link to /{expected}: {sorted(found)}"
    with page.expect_navigation(wait_until="domcontentloaded"):
        link.click()
    assert _path(page.url, site) == expected
    assert page.locator("html").get_attribute("lang") == language
    # search.highlight: the result's link carries the term (?h=), the page marks it.
    marks = page.locator("article mark[data-md-highlight]")
    marks.first.wait_for(timeout=5_000)
    assert {text.lower() for text in marks.all_inner_texts()} >= {term}, marks.all_inner_texts()[:5]


# --- copy button --------------------------------------------------------------------------

def shown_blocks(markdown: Path) -> list[str]:
    """The code of each Python block of a page, as the snippets make it appear."""
    blocks = []
    for region in Document.parse(str(markdown), PageBlockParser()):
        if isinstance(region.parsed, Block):
            blocks.append("\n".join(line for include in region.parsed.includes
                                    for line in include.shown).rstrip())
    return blocks


def test_each_copy_button_copies_exactly_its_own_block(site, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    checked = 0
    for path in site.pages:
        markdown = source_of(path, ".md")
        if not markdown.is_file():
            continue  # notebooks: their copy buttons are nbconvert's
        page.goto(site.page_url(path))
        copied = []
        buttons = page.locator("button.md-code__button[data-md-type=copy]")
        for index in range(buttons.count()):
            button = buttons.nth(index)
            page.evaluate("navigator.clipboard.writeText('')")
            button.click()
            text = page.evaluate("navigator.clipboard.readText()")
            block = page.locator(button.get_attribute("data-clipboard-target")).inner_text()
            assert text == block.rstrip(), f"/{path}: button {index} copied another text than its block"
            copied.append(text)
        # Every Python block of the page's source, in order, is what one of the buttons copied.
        expected = shown_blocks(markdown)
        remaining = iter(copied)
        missing = [code for code in expected if not any(code == text for text in remaining)]
        assert not missing, f"/{path}: no copy button copies this block of {markdown.name}:\n{missing[0]}"
        checked += len(expected)
    assert checked, "no Python block found on any page"


# --- notebooks ----------------------------------------------------------------------------

def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def test_notebook_pages_show_their_executed_outputs_and_pictures(site, page):
    notebooks = [path for path in site.pages if site.kind(path) == "notebook"]
    assert {Site.language(path) for path in notebooks} == set(LANGUAGES), "a language without notebooks"
    pictured = set()
    for path in notebooks:
        page.goto(site.page_url(path))
        cells = code_cells(source_of(path, ".ipynb"))
        # Executed in order during the build: the prompts read In [1], In [2], ...
        prompts = [text.replace("\xa0", " ").strip() for text in page.locator(".jp-InputPrompt").all_inner_texts()]
        prompts = [text for text in prompts if text]
        assert prompts == [f"In [{number}]:" for number in range(1, len(cells) + 1)], f"/{path}: {prompts}"
        outputs = [text for text in page.locator(".jp-OutputArea-output").all_inner_texts() if text.strip()]
        assert outputs, f"/{path}: no executed output is shown"
        # Math is typeset (MathML, see ptdocs/hooks/notebook_math.py), not left as $TeX$.
        prose = page.locator(".jp-MarkdownOutput").all_inner_texts()
        raw = [text for text in prose if re.search(r"\$[^\s$][^$]*\$", text)]
        assert not raw, f"/{path}: TeX shown as typed: {raw[0]!r}"
        for formula in page.locator(".jp-MarkdownOutput math").all():
            box = formula.bounding_box()
            assert box and box["width"] > 0 and box["height"] > 0, f"/{path}: a formula is not displayed"
        pictures = page.locator(".jp-OutputArea-output img")
        for index in range(pictures.count()):
            picture = pictures.nth(index)
            picture.scroll_into_view_if_needed()
            width, height = picture.evaluate("img => [img.naturalWidth, img.naturalHeight]")
            box = picture.bounding_box()
            assert width > 0 and height > 0 and box and box["width"] > 100, f"/{path}: picture {index} is not shown"
        if pictures.count():
            pictured.add(path)
        if any("matplotlib" in cell or "plt." in cell for cell in cells):
            assert pictures.count(), f"/{path}: the notebook plots, but the page shows no picture"
    assert {Site.language(path) for path in pictured} == set(LANGUAGES), (
        f"no notebook page shows a picture in some language; pages with pictures: {sorted(pictured)}")


# --- dark mode ----------------------------------------------------------------------------

def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


def toggle_palette(page) -> None:
    page.locator("form[data-md-component=palette] label:visible").click()


def test_dark_mode_switches_and_persists_across_pages(site, page):
    guides = site.of_kind("guide", DEFAULT_LANGUAGE)
    first, second = site.page_url(""), site.page_url(guides[0])
    page.goto(first)
    assert scheme(page) == "default", "the site should start light (the context prefers light)"
    toggle_palette(page)
    assert scheme(page) == "slate"
    page.goto(second)
    assert scheme(page) == "slate", "dark mode did not survive a page change"
    for language in OTHER_LANGUAGES:
        page.goto(site.page_url(Site.in_language(guides[0], language)))
        assert scheme(page) == "slate", f"dark mode did not survive switching to {language}"
    toggle_palette(page)
    assert scheme(page) == "default"
    page.goto(first)
    assert scheme(page) == "default", "light mode did not persist either"


# --- screenshots --------------------------------------------------------------------------

def representative(site, kind: str, language: str) -> str | None:
    """One page of a kind: for notebooks, preferably one with a picture."""
    pages = site.of_kind(kind, language)
    if kind == "notebook":
        pages.sort(key=lambda path: 'src="data:image' not in site.html(path))
    return pages[0] if pages else None


def test_screenshot_of_each_kind_of_page_in_each_language(site, page):
    kinds = ["home", "guide", "notebook"]
    if (ROOT / "docs" / DEFAULT_LANGUAGE / "results.md").is_file():
        kinds.append("results")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    missing = []
    for language in LANGUAGES:
        for kind in kinds:
            path = representative(site, kind, language)
            if path is None:
                missing.append(f"{kind} ({language})")
                continue
            page.goto(site.page_url(path), wait_until="networkidle")
            assert page.locator("html").get_attribute("lang") == language
            heading = page.locator("article h1").first
            assert heading.is_visible() and heading.inner_text().strip(), f"/{path}: no visible title"
            # What a reader sees first (a whole guide is ~10 000 px tall: too big to keep), and a
            # notebook's first picture as it appears on the page.
            page.screenshot(path=SCREENSHOTS / f"{language}-{kind}.png")
            picture = page.locator(".jp-OutputArea-output img")
            if kind == "notebook" and picture.count():
                picture.first.scroll_into_view_if_needed()
                page.screenshot(path=SCREENSHOTS / f"{language}-{kind}-picture.png")
    assert not missing, f"no page of these kinds was built: {missing}"
