"""Check every link of a served site: pages, anchors and assets; list external links
unfetched.

MkDocs' own validation sees only Markdown links: not anchors into notebook pages,
links the theme or plugins write, nor assets. This crawls the site from its start
pages as a browser reaches it, and checks that each ``<a href>`` answers 200 (and
its ``#fragment`` is an ``id`` or ``<a name>`` there) and each asset (``src``,
``<link href>``) answers 200 from the site itself: one from another host (a CDN, a
web font) is an *external asset*, since the site must work offline.

    python -m ptdocs.linkcheck http://127.0.0.1:8000/pytorch-explained/
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

# Elements whose ``src`` the browser loads with the page, and the ``<link rel=...>``
# values that load the target.
SOURCE_TAGS = set("audio embed iframe img input script source track video".split())
LOADED_RELS = set("icon manifest modulepreload preload prefetch stylesheet".split())


@dataclass(frozen=True)
class Broken:
    page: str  # the page that holds the link
    target: str  # the link as written (href or src)
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target} -> {self.reason}"


@dataclass
class Report:
    pages: list[str] = field(default_factory=list)  # HTML pages crawled
    checked: int = 0  # links and assets checked
    broken: list[Broken] = field(default_factory=list)
    external_assets: list[Broken] = field(default_factory=list)
    external_links: dict[str, list[str]] = field(default_factory=dict)  # url -> pages


@dataclass
class Fetched:
    status: int  # HTTP status, 0 when the request itself failed
    url: str  # after redirects
    html: bool
    body: str  # the page's text, or why there was no answer

    @property
    def problem(self) -> str:
        return f"HTTP {self.status}" if self.status else f"no answer: {self.body}"


class _Page(HTMLParser):
    """The ids, links and loaded assets of one HTML page."""

    def __init__(self, html: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.assets: list[str] = []
        self.base = self.canonical = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = {name: value for name, value in attrs if value is not None}
        href, src = attributes.get("href"), attributes.get("src")
        anchors = (attributes.get("id"), attributes.get("name") if tag == "a" else None)
        self.ids.update(anchor for anchor in anchors if anchor is not None)
        rels = set(attributes.get("rel", "").lower().split())
        if tag == "base" and href is not None:
            self.base = href if self.base is None else self.base
        elif tag in ("a", "area") and href is not None:
            self.links.append(href)
        elif tag in SOURCE_TAGS and src:
            self.assets.append(src)
        elif tag == "link" and href and "canonical" in rels:
            self.canonical = href  # the page's address where deployed: not followed
        elif tag == "link" and href:
            (self.assets if rels & LOADED_RELS else self.links).append(href)


def fetch(url: str, timeout: float = 10) -> Fetched:
    """GET ``url`` with the standard library (follows redirects)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            html = response.headers.get_content_type() == "text/html"
            body = response.read().decode("utf-8", "replace") if html else ""
            return Fetched(response.status, response.geturl(), html, body)
    except urllib.error.HTTPError as error:
        return Fetched(error.code, url, False, "")
    except (urllib.error.URLError, OSError) as error:
        return Fetched(0, url, False, str(error))


def check(start, root: str, get=fetch) -> Report:
    """Crawl the site under ``root`` (a URL ending in /) from ``start``; check every
    link."""
    origin = urlsplit(root)[:2]
    report, fetched, parsed = Report(), {}, {}
    external = defaultdict(set)

    def load(url: str) -> Fetched:
        if url not in fetched:
            fetched[url] = result = get(url)
            if result.status == 200 and result.html:
                parsed[url] = _Page(result.body)
        return fetched[url]

    queue = [urldefrag(url).url for url in start]
    starts, seen = set(queue), set(queue)
    for url in queue:  # grows as pages are found
        loaded, page = load(url), parsed.get(url)
        if page is None:
            if url in starts:  # nothing behind it was checked
                reason = loaded.problem if loaded.status != 200 else "not an HTML page"
                report.broken.append(Broken("start page", url, reason))
            continue
        report.pages.append(url)
        base = urljoin(loaded.url, page.base) if page.base else loaded.url
        for kind, values in (("link", page.links), ("asset", page.assets)):
            for value in values:
                target = urljoin(base, value.strip())
                if urlsplit(target).scheme not in ("http", "https", "ws", "wss", ""):
                    continue  # mailto:, data:, javascript: ...
                report.checked += 1
                document, fragment = urldefrag(target)
                if urlsplit(target)[:2] != origin:
                    if kind == "asset":
                        reason = "loaded from another host"
                        report.external_assets.append(Broken(url, value, reason))
                    else:
                        external[document].add(url)
                    continue
                problem = None
                if not target.startswith(root):
                    problem = f"outside the site ({root})"
                elif (result := load(document)).status != 200:
                    problem = result.problem
                elif fragment and kind == "link":
                    anchors = parsed.get(document)
                    if anchors is None:
                        problem = "an anchor into a page that is not HTML"
                    elif unquote(fragment) not in anchors.ids:
                        problem = f"no id {unquote(fragment)!r} on that page"
                if problem:
                    report.broken.append(Broken(url, value, problem))
                if document in parsed and document not in seen:
                    seen.add(document)
                    queue.append(document)
    report.external_links = {
        link: sorted(pages) for link, pages in sorted(external.items())
    }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.linkcheck", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("root", help="the site's root URL, e.g. http://127.0.0.1:8000/")
    parser.add_argument("start", nargs="*", help="pages to start from (default: root)")
    options = parser.parse_args(argv)
    root = options.root if options.root.endswith("/") else options.root + "/"
    for url in (root, *options.start):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            parser.error(
                f"{url!r} is not an http:// or https:// URL (serve the site with "
                "python -m mkdocs serve, then give its address)"
            )
    start = [urljoin(root, url) for url in options.start] or [root]
    if outside := [url for url in start if not url.startswith(root)]:
        parser.error(f"the start page {outside[0]} is not under the site's root {root}")
    report = check(start, root)
    for link, pages in report.external_links.items():
        print(f"external (not fetched): {link}  <- {len(pages)} page(s)")
    for problem in report.external_assets + report.broken:
        print(f"BROKEN {problem}")
    print(
        f"{len(report.pages)} pages, {report.checked} links and assets checked, "
        f"{len(report.broken)} broken, {len(report.external_assets)} external assets, "
        f"{len(report.external_links)} external links listed"
    )
    if not report.pages:  # "0 broken" of nothing checked is no success
        print(
            f"error: no page of {root} could be checked; is the site served there?",
            file=sys.stderr,
        )
        return 1
    return 1 if report.broken or report.external_assets else 0


if __name__ == "__main__":
    sys.exit(main())
