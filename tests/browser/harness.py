"""What the browser tests share: the served site, the offline guard, a recorded page
load.

Every browser context routes all its requests: those to 127.0.0.1/localhost go
through, any other is aborted and recorded, and a test whose pages asked for another
host fails. The site must work offline. (Routing also disables the browser's cache,
so every page load is a first load.)
"""

from __future__ import annotations

import json
import re
import sys
import threading
from dataclasses import dataclass, field
from functools import cached_property, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from ptdocs.linkcheck import _Page

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"
CHROMIUM = Path("/usr/bin/chromium")
# Headless in a container, and quiet: without the background-networking flags
# Chromium itself calls Google hosts (component updates, sync, field trials).
LAUNCH_ARGS = (
    "--no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync"
).split()
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# Built at the site's root, the others under <locale>/ (mkdocs.yml).
DEFAULT_LANGUAGE = "en"
LANGUAGES = sorted(path.name for path in (ROOT / "docs").iterdir() if path.is_dir())


def launch(playwright):
    """Debian's Chromium, headless, through ``playwright`` (one Playwright instance
    per thread)."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
    )


def parse(html: str) -> _Page:
    """The ids, links and assets of an HTML page (the link checker's parser)."""
    return _Page(html)


# --- the site ---


@dataclass
class Site:
    folder: Path  # the built site
    url: str = ""  # where it is served, ending in /

    @cached_property
    def mount(self) -> str:
        """The path of the site's URL (``/pytorch-explained/``): the home page's
        links assume it."""
        canonical = parse(self.html("")).canonical
        return urlsplit(canonical).path if canonical else "/"

    @cached_property
    def pages(self) -> list[str]:
        """Every built page, as a path relative to the site root: '', 'autograd/',
        'es/', ..."""
        found = (
            i.parent.relative_to(self.folder) for i in self.folder.rglob("index.html")
        )
        relative = [path.as_posix() for path in sorted(found)]
        return [
            "" if path == "." else path + "/"
            for path in relative
            if path.split("/")[0] not in ("assets", "search")
        ]

    def page_url(self, page: str) -> str:
        return self.url + page

    def html(self, page: str) -> str:
        return (self.folder / page / "index.html").read_text(encoding="utf-8")

    def links(self, page: str) -> set[str]:
        """The site pages a built page links to (relative paths, fragments dropped)."""
        base = "http://site.invalid" + self.mount
        hrefs = parse(self.html(page)).links
        targets = {urldefrag(urljoin(base + page, href)).url for href in hrefs}
        return {url.removeprefix(base) for url in targets if url.startswith(base)}

    @staticmethod
    def language(page: str) -> str:
        first = page.split("/", 1)[0]
        return first if first in LANGUAGES else DEFAULT_LANGUAGE

    @staticmethod
    def in_language(page: str, language: str) -> str:
        """The same page in another language: file names are the same in every
        language."""
        language_folder = Site.language(page) != DEFAULT_LANGUAGE
        bare = page.split("/", 1)[1] if language_folder else page
        return bare if language == DEFAULT_LANGUAGE else f"{language}/{bare}"

    def kind(self, page: str) -> str:
        bare = self.in_language(page, DEFAULT_LANGUAGE)
        if bare == "":
            return "home"
        if 'class="jupyter-wrapper"' in self.html(page):
            return "notebook"
        if bare == "results/":
            return "results"
        return "guide"

    def of_kind(self, kind: str, language: str) -> list[str]:
        pages = [page for page in self.pages if self.language(page) == language]
        return [page for page in pages if self.kind(page) == kind]


class _Handler(SimpleHTTPRequestHandler):
    """Serve the build folder under the path of the site's URL, as once deployed."""

    mount = "/"

    def translate_path(self, path):
        route = unquote(urlsplit(path).path)
        if not route.startswith(self.mount):
            return str(Path(self.directory) / "\0not-on-this-site")  # answered 404
        return super().translate_path("/" + route[len(self.mount) :])

    def list_directory(self, path):  # a folder without index.html: Pages lists none
        self.send_error(404)

    def send_error(self, code, message=None, explain=None):
        """A missing path is answered as GitHub Pages does: status 404, the site's root
        404.html as the body, whatever the path's depth or language."""
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(code, message)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # keeps the test output readable
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser that leaves a page stops reading what it asked for (the search
        # index, say): a broken connection then is not the site's problem, and no
        # traceback on stderr.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(folder: Path):
    """Serve ``folder`` on 127.0.0.1 (a free port) in a thread; returns (site, stop)."""
    site = Site(Path(folder))
    handler = type("Handler", (_Handler,), {"mount": site.mount})
    server = _Server(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}{site.mount}"

    def stop():
        server.shutdown()
        server.server_close()
        thread.join()

    return site, stop


# --- the browser ---


@dataclass
class OfflineGuard:
    """Lets requests to 127.0.0.1/localhost through; aborts and records every other
    one."""

    blocked: list[str] = field(default_factory=list)

    def install(self, context) -> OfflineGuard:
        context.route("**/*", self._route)
        context.route_web_socket(re.compile(".*"), self._route_web_socket)
        return self

    @staticmethod
    def is_local(url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme not in ("http", "https", "ws", "wss") or (
            parts.hostname in LOCAL_HOSTS
        )

    def _route(self, route):
        url = route.request.url
        if self.is_local(url):
            route.fallback()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")

    def _route_web_socket(self, socket):
        if self.is_local(socket.url):
            socket.connect_to_server()
        else:
            self.blocked.append(socket.url)
            socket.close()


def assert_offline(blocked: list[str]) -> None:
    """No request left localhost (an OfflineGuard's ``blocked``)."""
    assert not blocked, "requests to other hosts (aborted):\n" + "\n".join(blocked)


def new_context(browser, **options):
    """An offline-guarded browser context (and so uncached); returns (context,
    guard)."""
    viewport = {"width": 1280, "height": 900}
    defaults = dict(service_workers="block", color_scheme="light", viewport=viewport)
    context = browser.new_context(**(defaults | options))
    return context, OfflineGuard().install(context)


def empty_search_indexes(context, site: Site) -> None:
    """Serve every search index of ``site`` with its config but no documents.

    For tests where search is not under test: each page's search worker then builds
    an empty index, not the whole site's (a third of what a page load costs here).
    Pages still run as for a reader, lunr's files for the language included; an index
    that failed to load instead would stop Material's other components as well (the
    palette toggle, for one). The answer comes from the built file, not from a fetch
    through Playwright, which fails when the context closes while it is under way."""

    def emptied(route):
        index = site.folder / urlsplit(route.request.url).path.removeprefix(site.mount)
        config = json.loads(index.read_text(encoding="utf-8"))["config"]
        route.fulfill(json={"config": config, "docs": []})

    context.route(site.url + "**/search/search_index.json", emptied)


@dataclass
class Load:
    url: str
    errors: list[str] = field(default_factory=list)  # console errors, what threw
    failed: list[str] = field(default_factory=list)  # requests failed, or >= 400
    transferred: int = 0  # bytes: response headers and (encoded) bodies
    requests: int = 0
    responses: dict[str, int] = field(default_factory=dict)  # url -> bytes

    @property
    def problems(self) -> list[str]:
        return self.errors + self.failed


def _lunr_files(requests) -> list[str]:
    """The ends of the URLs of lunr's files that Material's search worker imports,
    after the load event, for the page's search index: none for English; for another
    language, once the page has fetched the index and passed it on,
    lunr.stemmer.support and lunr.<language> (and lunr.multi for an index in several
    languages), as setupSearchLanguages in Material's search worker does."""
    # Material's script asks for the index as it runs, before the load event.
    ends = "/search/search_index.json"
    index = next((request for request in requests if request.url.endswith(ends)), None)
    response = index and index.response()
    if not (response and response.ok):
        return []
    languages = response.json()["config"]["lang"]
    files = [f"lunr.{language}.min.js" for language in languages if language != "en"]
    files += ["lunr.multi.min.js"] if len(languages) > 1 else []
    files = ["lunr.stemmer.support.min.js", *files] if files else []
    return [f"/lunr/min/{name}" for name in files]


def load(page, url: str) -> Load:
    """Open ``url`` in ``page``; record its problems and what it transferred.

    It waits for conditions, never for quiet: the load event, then the search
    worker's requests for lunr's files made, then the end of every request the page
    made. The page's icons are left out: the browser asks for them if and when it
    likes (after the load event, and never again for one that failed once); the link
    checker checks that they are there. The page first goes to about:blank, and only
    then listens: whatever the page before did as it was left (a request cancelled, a
    late console message) reaches this thread during that step, and is never put on
    this load's account.
    """
    # Imported here: the link checker's tests need no Playwright.
    from playwright.sync_api import TimeoutError

    page.goto("about:blank")
    result = Load(url)
    requests = []  # every request of this page, its search worker's included, in order
    handlers = {
        "request": lambda request: requests.append(request),
        "console": lambda message: (
            message.type == "error"
            and result.errors.append(
                f"console error: {message.text} ({message.location.get('url', '')})"
            )
        ),
        "pageerror": lambda error: result.errors.append(f"uncaught: {error}"),
    }
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        page.goto(url, wait_until="load")
        icons = page.eval_on_selector_all("link[rel~=icon]", "l => l.map(l => l.href)")
        # Events reach this thread only during a Playwright call: none is missed between
        # the look at `requests` and the wait.
        for end in _lunr_files(requests):
            if not any(request.url.endswith(end) for request in requests):
                try:
                    page.wait_for_event("request", lambda r, e=end: r.url.endswith(e))
                except TimeoutError:
                    result.failed.append(f"never asked for {end}")
        # Requests made while this loop waits are appended, and waited for.
        for request in requests:
            if request.url in icons:
                continue
            response = request.response()  # waits for it; None when the request failed
            what = f"{request.method} {request.url}"
            if response is None:
                result.failed.append(f"{what}: {request.failure or 'failed'}")
                continue
            if response.status >= 400:
                result.failed.append(f"{what}: HTTP {response.status}")
            sizes = request.sizes()  # waits for the whole body
            body = sizes["responseBodySize"]
            empty = response.status in (204, 304) or request.method == "HEAD"
            if body <= 0 and not empty:
                # Chromium reports the script of a dedicated worker (Material's search
                # worker), which its browser process fetches, as its headers alone: a
                # body of 0 bytes, where the page's own Resource Timing counts 39.5 kB.
                # What the server said it sent counts instead, else the body itself (the
                # same here: no compression).
                length = response.header_value("content-length")
                body = int(length) if length else len(response.body())
            size = sizes["responseHeadersSize"] + body
            result.responses[request.url] = result.responses.get(request.url, 0) + size
            result.requests += 1
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    result.transferred = sum(result.responses.values())
    return result


# --- every page, visited once ---

# What a reader meets on a page apart from its code: [where, text, section] for every
# text node of the body and every title, aria-label, alt and placeholder, whitespace
# collapsed, hidden ones too (the palette toggle of the other scheme, a notice shown on
# a click). Section: in the content, "#" and the id of the heading above; elsewhere
# "header", "nav" or "footer". Left out: code (pre, code, kbd, samp, a notebook's copy
# text), math, what is never shown; and the text of a notebook's prompts and outputs,
# which its code writes, but not their attributes, which the renderer adds (a picture's
# alt).
INTERFACE_TEXTS = """() => {
    const excluded = "pre, code, kbd, samp, math, .arithmatex, .katex, .clipboard-copy-txt, "
        + "script, style, noscript, template"
    const excludedText = ".jp-InputPrompt, .jp-OutputArea"
    const found = []
    let heading = ""
    const add = (where, text, element) => {
        text = (text ?? "").replace(/\\s+/g, " ").trim()
        const section = element.closest(".md-content") ? heading
            : element.closest("header, nav, footer")?.tagName.toLowerCase() ?? ""
        if (text) found.push([where, text, section])
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT,
        node => node.nodeType === Node.ELEMENT_NODE && node.matches(excluded)
            ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.nodeType === Node.TEXT_NODE) {
            if (!node.parentElement.closest(excludedText)) add("text", node.data, node.parentElement)
            continue
        }
        if (/^H[1-6]$/.test(node.tagName) && node.id) heading = "#" + node.id
        for (const name of ["title", "aria-label", "alt", "placeholder"])
            if (node.hasAttribute(name)) add(name, node.getAttribute(name), node)
    }
    return found
}"""

SCREENSHOTS = REPORTS / "screenshots"
# The reader's names -> Material's (mkdocs.yml palette).
SCHEMES = {"light": "default", "dark": "slate"}
# What a page's layout does at the tour's width (1280 px), in one go. The content column
# is Material's .md-content__inner. An element may be wider than the column, or stand
# out of it, only if it is, or is inside, a box that scrolls sideways (overflow-x auto,
# scroll, hidden or clip: a code block, the scroll wrapper Material puts around each
# table, a notebook's code cell) that stays within the column's margins: Material's
# table wrapper reaches into them by design (by 0.8rem each side, to give the table's
# scroll bar the column's full width). 2 px are allowed, for rounding and for inline
# code's padding at the end of a line. Reported: the page's own sideways scroll, the
# elements that stand out (at most 10), the tables (outside notebook output) that need
# sideways scrolling, each block of code (a notebook's input and output included) that
# scrolls sideways, and how many blocks of code were measured.
LAYOUT = """() => {
    const column = document.querySelector(".md-content__inner")
    const root = document.scrollingElement
    const page = {width: root.scrollWidth, viewport: root.clientWidth}
    if (!column) return {...page, outside: [], wide_tables: [], scrolling_code: [], code_blocks: 0}
    const box = column.getBoundingClientRect()
    const style = getComputedStyle(column)
    const margins = [box.left - parseFloat(style.marginLeft), box.right + parseFloat(style.marginRight)]
    const within = (rect, [left, right]) => rect.left >= left - 2 && rect.right <= right + 2
    const scrolls = element => /^(auto|scroll|hidden|clip)$/.test(getComputedStyle(element).overflowX)
    const held = element => {
        for (let box = element; box && box !== column; box = box.parentElement)
            if (scrolls(box) && within(box.getBoundingClientRect(), margins)) return true
        return false
    }
    const name = element => element.tagName.toLowerCase() + [...element.classList].map(c => "." + c).join("")
    const outside = []
    for (const element of column.querySelectorAll("*")) {
        const rect = element.getBoundingClientRect()
        if (rect.width === 0 || rect.height === 0 || within(rect, [box.left, box.right]) || held(element)) continue
        outside.push(`${name(element)} ${Math.round(rect.left)}-${Math.round(rect.right)} px, column ${Math.round(box.left)}-${Math.round(box.right)}`)
        if (outside.length >= 10) break
    }
    const wide_tables = [...column.querySelectorAll(".md-typeset__scrollwrap")]
        .filter(wrap => !wrap.closest(".jp-OutputArea-output") && wrap.scrollWidth > wrap.clientWidth + 1)
        .map(wrap => `a table ${wrap.scrollWidth} px wide in ${wrap.clientWidth} px`)
    // Code a reader reads: a page's code blocks, a notebook's input and output areas (printed
    // text, tables). One scrolls sideways if it, or a box inside it, scrolls and holds more.
    const found = [...column.querySelectorAll("pre > code, .highlight-ipynb, .jp-OutputArea-output")]
    const code = found.filter(block => !found.some(other => other !== block && other.contains(block)))
    const overflows = box => box.scrollWidth > box.clientWidth + 1
        && /^(auto|scroll)$/.test(getComputedStyle(box).overflowX)
    const scrolling_code = code.flatMap(block => {
        const box = [block, ...block.querySelectorAll("pre, code, div, table")].find(overflows)
        if (!box) return []
        const line = block.innerText.split("\\n").reduce((a, b) => b.length > a.length ? b : a, "")
        return [`${name(block)} ${box.scrollWidth} px in ${box.clientWidth} px, longest line: ${line.slice(0, 60)}`]
    })
    return {...page, outside, wide_tables, scrolling_code, code_blocks: code.length}
}"""
# axe-core (axe-playwright-python's, injected into every page of the tour). The rules
# that read colours (COLOUR_RULES; link-in-text-block: a link told from its sentence by
# colour alone) run in each scheme, the structure rules once, in the light one
# (structure=true). color-contrast looks at one rendered element of each look (same
# colour, font size and weight, over the same backgrounds and opacities up to the first
# opaque one: the same contrast): checked whole, a guide's highlighted tokens and a
# notebook's 1 200 table cells took axe 5-15 s a page, one of each look well under one.
# The looks are marked (data-ptdocs-look) and color-contrast's selector narrowed to
# them, so one axe.run checks everything in the light scheme (each run first walks the
# whole document, a third of its cost on the measuring page). Per violation: rule,
# impact, help, how many elements, the first targets and what to fix.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
AXE = """async structure => {
    const COLOUR_RULES = $COLOUR_RULES
    const LOOK = "data-ptdocs-look"
    const backdrops = new Map()  // element -> its backgrounds and opacities, to the first opaque one
    const backdrop = element => {
        if (!element) return ""
        if (!backdrops.has(element)) {
            const style = getComputedStyle(element)
            const own = [style.backgroundColor, style.backgroundImage, style.opacity].join(" ")
            const opaque = style.backgroundColor.startsWith("rgb(") && style.opacity === "1"
            backdrops.set(element, opaque ? own : own + " / " + backdrop(element.parentElement))
        }
        return backdrops.get(element)
    }
    for (const element of document.querySelectorAll(`[${LOOK}]`)) element.removeAttribute(LOOK)
    const looks = new Set()
    for (const element of document.body.querySelectorAll("*")) {
        if (![...element.childNodes].some(node => node.nodeType === Node.TEXT_NODE && node.data.trim())) continue
        // axe passes over an element not rendered: the look's next element stands for it.
        if (!element.checkVisibility({visibilityProperty: true})) continue
        const style = getComputedStyle(element)
        const look = [style.color, style.fontSize, style.fontWeight, backdrop(element)].join(" | ")
        if (!looks.has(look)) { looks.add(look); element.setAttribute(LOOK, "") }
    }
    if (!looks.size) throw new Error("no visible text to check the contrast of")
    axe.configure({rules: [{id: "color-contrast", selector: `[${LOOK}]`}]})
    const options = {resultTypes: ["violations"], ...(structure ? {} : {runOnly: COLOUR_RULES})}
    const {violations} = await axe.run(document, options)
    for (const element of document.querySelectorAll(`[${LOOK}]`)) element.removeAttribute(LOOK)
    return violations.map(violation => ({
        rule: violation.id, impact: violation.impact, help: violation.help, count: violation.nodes.length,
        targets: violation.nodes.slice(0, 5).map(node => node.target.join(" ")),
        summary: violation.nodes[0]?.failureSummary?.split("\\n").slice(0, 2).join(" ") ?? "",
    }))
}""".replace("$COLOUR_RULES", json.dumps(COLOUR_RULES))
COPY_BUTTONS = "button.md-code__button[data-md-type=copy]"
# What a visit reads of its page, in one go: its language and the title a reader sees
# (the first heading of the article, "" when not displayed); for each copy button, the
# text of the block its data-clipboard-target names, whether that block is its own and
# any other text it would copy instead (Material's clipboard handler, one listener for
# every button, copies a button's data-clipboard-text if it has one, else that block's
# text, or the data-copy of an element around the block); and for a notebook, its texts
# as rendered (innerText), the size each formula takes, and each picture's decoded size
# and displayed width; every interface text (see INTERFACE_TEXTS); the page's height;
# and the text of every code block.
PAGE_FACTS = """copyButtons => {
    const INTERFACE_TEXTS = $INTERFACE_TEXTS
    const all = selector => [...document.querySelectorAll(selector)]
    const size = element => element.getBoundingClientRect()
    const shown = element => size(element).width > 0 && getComputedStyle(element).visibility !== "hidden"
    const title = document.querySelector("article h1")
    return {
        lang: document.documentElement.lang,
        title: title && shown(title) ? title.innerText.trim() : "",
        copy_buttons: all(copyButtons).map(button => {
            const target = document.querySelector(button.getAttribute("data-clipboard-target"))
            return {
                // a block in a collapsed block (??? note) is not rendered: its innerText is ""
                block: target && (target.checkVisibility() ? target.innerText : target.textContent).trimEnd(),
                own: target !== null && target.closest("pre") === button.closest("pre"),
                other: button.getAttribute("data-clipboard-text") ?? target?.closest("[data-copy]")?.dataset.copy ?? null,
            }
        }),
        notebook: document.querySelector(".jupyter-wrapper") && {
            prompts: all(".jp-InputPrompt").map(element => element.innerText),
            outputs: all(".jp-OutputArea-output").map(element => element.innerText),
            prose: all(".jp-MarkdownOutput").map(element => element.innerText),
            formulas: all(".jp-MarkdownOutput math").map(math => [size(math).width, size(math).height]),
            pictures: all(".jp-OutputArea-output img").map(img => [img.naturalWidth, img.naturalHeight, size(img).width]),
        },
        interface: INTERFACE_TEXTS(),
        height: document.scrollingElement.scrollHeight,
        code: all("pre").map(element => element.textContent),  // collapsed blocks too
    }
}""".replace("$INTERFACE_TEXTS", INTERFACE_TEXTS)


@dataclass
class Visit:
    """One page, as the tests that check every page (or one of each kind) saw it."""

    load: Load  # its first load, recorded
    lang: str
    title: str
    copy_buttons: list[dict]  # see PAGE_FACTS
    notebook: dict | None  # on a notebook page, see PAGE_FACTS
    interface: list[list[str]]  # [where, text, section] each (see INTERFACE_TEXTS)
    height: int  # px, the whole page at the tour's width (1280 px), as it loaded
    code: list[str]  # each code block (<pre>), a notebook's and collapsed ones too
    clicked: str | None = None  # the clipboard after a click on its last copy button
    screenshots: list[Path] = field(default_factory=list)
    layout: dict[str, dict] = field(default_factory=dict)  # by scheme, see LAYOUT
    axe: dict[str, list[dict]] = field(default_factory=dict)  # by scheme (see AXE)


def screenshot_pages(site) -> tuple[dict[str, str], list[str]]:
    """One page of each kind in each language, by screenshot name ('es-guide'), and
    the kinds of which no page was built. For notebooks, preferably one with a
    picture."""
    kinds = ["home", "guide", "notebook"]
    if (ROOT / "docs" / DEFAULT_LANGUAGE / "results.md").is_file():
        kinds.append("results")
    chosen, missing = {}, []
    for language in LANGUAGES:
        for kind in kinds:
            pages = site.of_kind(kind, language)
            if kind == "notebook":
                pages.sort(key=lambda path: 'src="data:image' not in site.html(path))
            if pages:
                chosen[f"{language}-{kind}"] = pages[0]
            else:
                missing.append(f"{kind} ({language})")
    return chosen, missing


def switch_scheme(page, scheme: str) -> None:
    """Switch the open page to a colour scheme with its palette toggle, as a reader
    does, and wait until Material has applied it (and has ended the switch, during
    which it stops transitions)."""
    if page.locator("body").get_attribute("data-md-color-scheme") != SCHEMES[scheme]:
        page.locator("form[data-md-component=palette] label:visible").click()
        page.locator(
            f"body[data-md-color-scheme={SCHEMES[scheme]}]:not([data-md-color-switching])"
        ).wait_for()


# What a screenshot of a page of each kind shows besides its first screen: a picture of
# a notebook, the plot of the results page (only the one of the current scheme is
# visible).
PICTURES = ".jp-OutputArea-output img, .ptdocs-plot img:visible"


# A screenshot right after a change of width or scroll caught a plot half drawn (its SVG
# drawn again for the new width): first every displayed picture is decoded, then two
# frames are painted.
PAINTED = """() => Promise.all([...document.images].filter(image => image.checkVisibility())
        .map(image => image.decode().catch(() => null)))
    .then(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))))"""


def take_screenshots(page, name: str, scheme: str) -> list[Path]:
    """What a reader sees first, at 1280 and 375 px, and the page's first picture at
    each width; light at 1280 px keeps the plain name (``es-guide.png``), the others
    add -dark and -375."""
    taken = []

    def shoot(file_name: str) -> None:
        taken.append(SCREENSHOTS / file_name)
        page.evaluate(PAINTED)
        page.screenshot(path=taken[-1], animations="disabled")

    def at_the_top(width: int) -> None:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")

    for width in (1280, 375):
        at_the_top(width)
        suffix = ("-dark" if scheme == "dark" else "") + (
            "-375" if width == 375 else ""
        )
        shoot(f"{name}{suffix}.png")
        picture = page.locator(PICTURES).first
        if picture.count():
            picture.scroll_into_view_if_needed()
            shoot(f"{name}-picture{suffix}.png")
    at_the_top(1280)
    return taken


def tour(browser, site) -> tuple[dict[str, Visit], list[str]]:
    """Every page of the site, visited once (see visit_every_page), by page path in
    the site's order; and the requests to other hosts that were aborted.

    A second Chromium in a thread of its own (Playwright's sync API needs one
    instance a thread) takes every other language: a visit mostly waits on Chromium,
    one tab loads one page at a time, two render side by side (on two cores, 85 s in
    one browser, 50 s in two). Visits are independent; what either thread raised is
    raised here."""
    from playwright.sync_api import sync_playwright

    languages = sorted({Site.language(path) for path in site.pages})
    halves = [
        [path for path in site.pages if Site.language(path) in languages[start::2]]
        for start in (0, 1)
    ]
    second: dict = {}

    def in_own_context(browser, pages) -> tuple[dict[str, Visit], list[str]]:
        context, guard = new_context(browser)
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        try:
            return visit_every_page(context, site, pages), guard.blocked
        finally:
            context.close()

    def second_half():
        try:
            with sync_playwright() as playwright:
                other = launch(playwright)
                try:
                    second["result"] = in_own_context(other, halves[1])
                finally:
                    other.close()
        except BaseException as error:  # raised again in the calling thread
            second["error"] = error

    # A daemon: should the join below be interrupted, the interpreter does not wait for
    # it at exit.
    thread = threading.Thread(target=second_half, name="second browser", daemon=True)
    if halves[1]:
        thread.start()
    try:
        visits, blocked = in_own_context(browser, halves[0])
    except BaseException as error:
        thread.join()
        if "error" in second:
            error.add_note(f"and in the second browser: {second['error']!r}")
        raise
    thread.join()
    if "error" in second:
        raise second["error"]
    more, more_blocked = second.get("result", ({}, []))
    visits.update(more)
    return {path: visits[path] for path in site.pages}, blocked + more_blocked


def visit_every_page(context, site, pages: list[str] | None = None) -> dict[str, Visit]:
    """Open every page of the site (or those of ``pages``) once, in one tab; by page
    path, what each visit saw: its load (see load), PAGE_FACTS; in each colour scheme
    (the one the page opened in, then the other), LAYOUT, AXE and, on one of
    screenshot_pages, take_screenshots (not whole pages: a guide is ~10 000 px tall);
    and last (it leaves a notice on the page), a reader's click on the last copy
    button of a page that is not a notebook, and the clipboard it left. One visit for
    all these tests: a page load is most of what they cost."""
    from axe_playwright_python.base import AXE_FILE_PATH  # axe.min.js, vendored

    names = {path: name for name, path in screenshot_pages(site)[0].items()}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context.add_init_script(path=AXE_FILE_PATH)  # the test's script, not the page's
    page = context.new_page()
    visits = {}
    schemes = list(SCHEMES)
    for path in site.pages if pages is None else pages:
        recorded = load(page, site.page_url(path))
        visit = Visit(recorded, **page.evaluate(PAGE_FACTS, COPY_BUTTONS))
        for scheme in schemes:
            switch_scheme(page, scheme)
            visit.layout[scheme] = page.evaluate(LAYOUT)
            visit.axe[scheme] = page.evaluate(AXE, scheme == "light")
            if path in names:
                visit.screenshots += take_screenshots(page, names[path], scheme)
        schemes.reverse()  # Material keeps it for the next page: one switch fewer
        if visit.copy_buttons and not visit.notebook:
            page.evaluate("navigator.clipboard.writeText('')")
            button = page.locator(COPY_BUTTONS).last
            # In a collapsed block (??? note), the reader opens it first: every block
            # around it.
            button.evaluate(
                "b => { for (let d = b.closest('details'); d; d = "
                "d.parentElement.closest('details')) d.open = true }"
            )
            button.click()
            visit.clicked = page.evaluate("navigator.clipboard.readText()")
        visits[path] = visit
    page.close()
    return visits
