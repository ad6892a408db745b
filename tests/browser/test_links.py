"""No broken link on the served site, in either language, notebook pages included.

The link checker (``ptdocs.linkcheck``) needs no browser: these tests run
wherever the site builds. External links are listed in
``reports/links.json``, never fetched.
"""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from urllib.parse import urljoin

import pytest

from ptdocs.linkcheck import check
from ptdocs.report import write_atomically

from .harness import LANGUAGES, REPORTS, Site, parse, serve


def start_pages(site) -> list[str]:
    # Every built page (the crawl would find them through the nav anyway) and the 404
    # pages, whose links are absolute and so only right under the site's real path: the
    # Spanish one too, which the root page holds only as text for its script
    # (ptdocs/hooks/not_found.py).
    not_found = ["404.html"] + [
        f"{language}/404.html"
        for language in LANGUAGES
        if (site.folder / language / "404.html").is_file()
    ]
    return [site.page_url(page) for page in site.pages + not_found]


def test_no_broken_links_or_anchors_and_no_external_assets(site):
    report = check(start_pages(site), site.url)
    write_atomically(
        REPORTS / "links.json",
        json.dumps(
            {
                "pages": len(report.pages),
                "checked": report.checked,
                "broken": [str(problem) for problem in report.broken],
                "external_assets": [str(problem) for problem in report.external_assets],
                "external_links_not_fetched": report.external_links,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
    )

    crawled = {page.removeprefix(site.url) for page in report.pages}
    notebooks = [page for page in site.pages if site.kind(page) == "notebook"]
    assert notebooks and set(notebooks) <= crawled, "notebook pages were not checked"
    assert {Site.language(page) for page in crawled} == set(LANGUAGES)
    assert not report.broken, "broken links:\n" + "\n".join(map(str, report.broken))
    assert not report.external_assets, (
        "assets loaded from another host (the site must work offline):\n"
        + "\n".join(map(str, report.external_assets))
    )


def test_language_links_lead_to_the_twin_page_and_the_head_has_none_for_the_script(
    site,
):
    """The switcher's links point at the same page in each language; the <head> holds no
    hreflang link, which Material's script would take for another site and ask for its
    sitemap.xml (see ptdocs/hooks/language_links.py)."""
    for page in site.pages:
        html = site.html(page)
        head, body = html.split("</head>", 1)
        assert "hreflang" not in head, f"/{page}: an hreflang link in the <head>"
        links = {}
        for href, language in _switcher(body):
            links[language] = _resolve(site, page, href)
        assert links == {
            language: Site.in_language(page, language) for language in LANGUAGES
        }, f"/{page}"


class _Switcher(HTMLParser):
    """The (href, hreflang) of each link of Material's language switcher."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and "md-select__link" in (attributes.get("class") or "").split():
            self.found.append((attributes["href"], attributes["hreflang"]))


def _switcher(body: str):
    parser = _Switcher()
    parser.feed(body)
    return parser.found


def _resolve(site, page: str, href: str) -> str:
    """A link as a page path relative to the site root (absolute links include the
    mount)."""
    base = "http://site.invalid" + site.mount
    return urljoin(base + page, href).removeprefix(base)


@pytest.fixture
def broken_copy(built_site, tmp_path):
    """A copy of the site where one guide page links to a missing page and a missing
    anchor."""
    folder = tmp_path / "site"
    shutil.copytree(built_site, folder)
    site = Site(folder)
    page = site.of_kind("guide", "es")[0]
    notebook = site.of_kind("notebook", "es")[0]
    index = folder / page / "index.html"
    injected = (
        '<a href="../no-such-page/">x</a><a '
        f'href="../../{notebook}#no-such-anchor">y</a>'
        f'<img src="../no-such-picture.png">'
    )
    index.write_text(
        index.read_text(encoding="utf-8").replace(
            "</article>", injected + "</article>", 1
        ),
        encoding="utf-8",
    )
    served, stop = serve(folder)
    yield served, page, notebook
    stop()


def test_the_checker_catches_a_missing_page_anchor_and_asset(broken_copy):
    site, page, notebook = broken_copy
    report = check(start_pages(site), site.url)
    found = {
        (problem.page.removeprefix(site.url), problem.target)
        for problem in report.broken
    }
    assert found == {
        (page, "../no-such-page/"),
        (page, f"../../{notebook}#no-such-anchor"),
        (page, "../no-such-picture.png"),
    }, found


def test_the_parser_reads_ids_links_and_assets():
    page = parse(
        '<h2 id="a">A</h2><a name="b"></a><a href="#a">1</a>'
        '<link rel="stylesheet" href="s.css"><link rel="canonical" '
        'href="https://x.org/">'
        '<script src="j.js"></script><script>var s = "<a href=\'no\'>";</script>'
    )
    assert page.ids == {"a", "b"}
    assert page.links == ["#a"] and page.canonical == "https://x.org/"
    assert page.assets == ["s.css", "j.js"]
