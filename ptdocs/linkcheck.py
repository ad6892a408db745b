"""Check every link of a served site: pages, anchors, assets; list external links
unfetched.

MkDocs validates Markdown links at build time, but it does not see anchors into
notebook pages, links written by the theme or by plugins, or assets. This crawls the
site as a browser would reach it: from the start pages it fetches every internal
page, parses it with :mod:`html.parser`, and checks

* every ``<a href>``: the target answers 200 and, when the link has a
  ``#fragment``, the target page has an element with that ``id`` (or an
  ``<a name>``);
* every asset (``src`` of img/script/iframe/..., ``href`` of ``<link>``): it
  answers 200 and lies on the site itself. An asset from another host (a CDN
  script, a web font) is reported as an *external asset*: the site must work
  offline.

Links to other hosts are listed with the pages that hold them, never fetched.

Against a running ``mkdocs serve``::

    python -m ptdocs.linkcheck http://127.0.0.1:8000/pytorch-explained/
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

# Elements whose ``src`` the browser loads with the page.
SOURCE_TAGS = {
    "audio",
    "embed",
    "iframe",
    "img",
    "input",
    "script",
    "source",
    "track",
    "video",
}
# ``<link rel=...>`` values that make the browser load the target.
LOADED_RELS = {"icon", "manifest", "modulepreload", "preload", "prefetch", "stylesheet"}


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
    body: str


class _Page(HTMLParser):
    """The ids, links and loaded assets of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.assets: list[str] = []
        self.base: str | None = None
        self.canonical: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {name: value for name, value in attrs if value is not None}
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and "name" in attributes:
            self.ids.add(attributes["name"])
        if tag == "base" and "href" in attributes and self.base is None:
            self.base = attributes["href"]
        elif tag in ("a", "area") and "href" in attributes:
            self.links.append(attributes["href"])
        elif tag in SOURCE_TAGS and attributes.get("src"):
            self.assets.append(attributes["src"])
        elif tag == "link" and attributes.get("href"):
            rels = set(attributes.get("rel", "").lower().split())
            if (
                "canonical" in rels
            ):  # the page's own address where deployed, not a link to follow
                self.canonical = attributes["href"]
                return
            (self.assets if rels & LOADED_RELS else self.links).append(
                attributes["href"]
            )


def fetch(url: str, timeout: float = 10) -> Fetched:
    """GET ``url`` with the standard library (follows redirects)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            kind = response.headers.get_content_type()
            body = response.read()
            html = kind == "text/html"
            return Fetched(
                response.status,
                response.geturl(),
                html,
                body.decode("utf-8", "replace") if html else "",
            )
    except urllib.error.HTTPError as error:
        return Fetched(error.code, url, False, "")
    except (urllib.error.URLError, OSError) as error:
        return Fetched(0, url, False, str(error))


def _is_network(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https", "ws", "wss", "")


def check(
    start: Iterable[str], root: str, get: Callable[[str], Fetched] = fetch
) -> Report:
    """Crawl the site under ``root`` (a URL ending in /) from ``start``; check every
    link."""
    root_parts = urlsplit(root)
    report = Report()
    fetched: dict[str, Fetched] = {}
    parsed: dict[str, _Page] = {}

    def inside(url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme, parts.netloc) == (root_parts.scheme, root_parts.netloc)

    def load(url: str) -> Fetched:
        if url not in fetched:
            fetched[url] = result = get(url)
            if result.status == 200 and result.html:
                page = parsed[url] = _Page()
                page.feed(result.body)
                page.close()
        return fetched[url]

    queue = [urldefrag(url).url for url in start]
    seen = set(queue)
    starts = set(queue)
    external: dict[str, set[str]] = defaultdict(set)
    while queue:
        url = queue.pop(0)
        page_result = load(url)
        page = parsed.get(url)
        if page is None:
            if (
                url in starts
            ):  # a start page that does not load: nothing behind it was checked
                reason = (
                    (
                        f"HTTP {page_result.status}"
                        if page_result.status
                        else f"no answer: {page_result.body}"
                    )
                    if page_result.status != 200
                    else "not an HTML page"
                )
                report.broken.append(Broken("start page", url, reason))
            continue
        report.pages.append(url)
        base = urljoin(page_result.url, page.base) if page.base else page_result.url
        for kind, values in (("link", page.links), ("asset", page.assets)):
            for value in values:
                target = urljoin(base, value.strip())
                if not _is_network(target):  # mailto:, data:, javascript: ...
                    continue
                report.checked += 1
                if not inside(target):
                    if kind == "asset":
                        report.external_assets.append(
                            Broken(url, value, "loaded from another host")
                        )
                    else:
                        external[urldefrag(target).url].add(url)
                    continue
                if not target.startswith(root):
                    report.broken.append(
                        Broken(url, value, f"outside the site ({root})")
                    )
                    continue
                document, fragment = urldefrag(target)
                result = load(document)
                if result.status != 200:
                    reason = (
                        f"HTTP {result.status}"
                        if result.status
                        else f"no answer: {result.body}"
                    )
                    report.broken.append(Broken(url, value, reason))
                    continue
                if fragment and kind == "link":
                    target_page = parsed.get(document)
                    if target_page is None:
                        report.broken.append(
                            Broken(url, value, "an anchor into a page that is not HTML")
                        )
                    elif unquote(fragment) not in target_page.ids:
                        report.broken.append(
                            Broken(
                                url, value, f"no id {unquote(fragment)!r} on that page"
                            )
                        )
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
    parser.add_argument(
        "root",
        help="the site's root URL, e.g. http://127.0.0.1:8000/pytorch-explained/",
    )
    parser.add_argument(
        "start", nargs="*", help="pages to start from (default: the root)"
    )
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
    outside = [url for url in start if not url.startswith(root)]
    if outside:
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
