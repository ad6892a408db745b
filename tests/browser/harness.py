"""What the browser tests share: the served site, the offline guard, a recorded page load.

Every browser context routes all its requests: those to 127.0.0.1/localhost go
through, any other is aborted and recorded, and a test whose pages asked for
another host fails. The site must work offline. (Routing also disables the
browser's cache, so every page load is a first load.)
"""

from __future__ import annotations

import re
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
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
DEFAULT_LANGUAGE = "en"  # built at the site's root, the others under <locale>/ (mkdocs.yml)
LANGUAGES = sorted(path.name for path in (ROOT / "docs").iterdir() if path.is_dir())


def parse(html: str) -> _Page:
    """The ids, links and assets of an HTML page (the link checker's parser)."""
    page = _Page()
    page.feed(html)
    page.close()
    return page


# --- the site -----------------------------------------------------------------------------

@dataclass
class Site:
    folder: Path  # the built site
    url: str = ""  # where it is served, ending in /

    @cached_property
    def mount(self) -> str:
        """The path of the site's URL (``/pytorch-explained/``): the home page's links assume it."""
        canonical = parse((self.folder / "index.html").read_text(encoding="utf-8")).canonical
        return urlsplit(canonical).path if canonical else "/"

    @cached_property
    def pages(self) -> list[str]:
        """Every built page, as a path relative to the site root: '', 'autograd/', 'es/', ..."""
        found = []
        for index in sorted(self.folder.rglob("index.html")):
            relative = index.parent.relative_to(self.folder).as_posix()
            if relative.split("/")[0] in ("assets", "search"):
                continue
            found.append("" if relative == "." else relative + "/")
        return found

    def page_url(self, page: str) -> str:
        return self.url + page

    def html(self, page: str) -> str:
        return (self.folder / page / "index.html").read_text(encoding="utf-8")

    def links(self, page: str) -> set[str]:
        """The site pages a built page links to (relative paths, fragments dropped)."""
        base = "http://site.invalid" + self.mount
        found = set()
        for href in parse(self.html(page)).links:
            target = urldefrag(urljoin(base + page, href)).url
            if target.startswith(base):
                found.add(target[len(base):])
        return found

    @staticmethod
    def language(page: str) -> str:
        first = page.split("/", 1)[0]
        return first if first in LANGUAGES and first != DEFAULT_LANGUAGE else DEFAULT_LANGUAGE

    @staticmethod
    def in_language(page: str, language: str) -> str:
        """The same page in another language: file names are the same in every language."""
        bare = page.split("/", 1)[1] if Site.language(page) != DEFAULT_LANGUAGE else page
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
        return [page for page in self.pages if self.kind(page) == kind and self.language(page) == language]


class _Handler(SimpleHTTPRequestHandler):
    """Serve the build folder under the path of the site's URL, as once deployed."""

    mount = "/"

    def translate_path(self, path):
        route = unquote(urlsplit(path).path)
        if not route.startswith(self.mount):
            return str(Path(self.directory) / "\0not-on-this-site")  # answered 404
        return super().translate_path("/" + route[len(self.mount):])

    def log_message(self, format, *args):  # keeps the test output readable
        pass


def serve(folder: Path):
    """Serve ``folder`` on 127.0.0.1 (a free port) in a thread; returns (site, stop)."""
    site = Site(Path(folder))
    handler = type("Handler", (_Handler,), {"mount": site.mount})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}{site.mount}"

    def stop():
        server.shutdown()
        server.server_close()
        thread.join()
    return site, stop


# --- the browser --------------------------------------------------------------------------

@dataclass
class OfflineGuard:
    """Lets requests to 127.0.0.1/localhost through; aborts and records every other one."""

    blocked: list[str] = field(default_factory=list)

    def install(self, context) -> "OfflineGuard":
        context.route("**/*", self._route)
        context.route_web_socket(re.compile(".*"), self._route_web_socket)
        return self

    @staticmethod
    def is_local(url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme not in ("http", "https", "ws", "wss") or parts.hostname in LOCAL_HOSTS

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


def new_context(browser, **options):
    """An offline-guarded browser context (and so uncached); returns (context, guard)."""
    options = {"service_workers": "block", "color_scheme": "light",
               "viewport": {"width": 1280, "height": 900}, **options}
    context = browser.new_context(**options)
    return context, OfflineGuard().install(context)


@dataclass
class Load:
    url: str
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions
    failed: list[str] = field(default_factory=list)  # requests that failed or answered >= 400
    transferred: int = 0  # bytes: response headers and (encoded) bodies
    requests: int = 0
    responses: dict[str, int] = field(default_factory=dict)  # url -> bytes

    @property
    def problems(self) -> list[str]:
        return self.errors + self.failed


def load(page, url: str) -> Load:
    """Open ``url`` in ``page``, wait for the network to settle, record problems and cost."""
    result = Load(url)
    # Leave the page before listening: what the previous page did as it was left (its search
    # worker's script cancelled, a late console message) reaches this thread during this call,
    # and is never put on this load's account (a one-off "net::ERR_ABORTED" seen in CI).
    page.goto("about:blank")
    finished = []
    handlers = {
        "console": lambda message: message.type == "error" and result.errors.append(
            f"console error: {message.text} ({message.location.get('url', '')})"),
        "pageerror": lambda error: result.errors.append(f"uncaught: {error}"),
        "requestfailed": lambda request: result.failed.append(
            f"{request.method} {request.url}: {request.failure}"),
        "response": lambda response: response.status >= 400 and result.failed.append(
            f"{response.request.method} {response.url}: HTTP {response.status}"),
        "requestfinished": lambda request: finished.append(request),
    }
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        page.goto(url, wait_until="networkidle")
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    for request in finished:
        sizes = request.sizes()
        size = sizes["responseHeadersSize"] + max(sizes["responseBodySize"], 0)
        result.responses[request.url] = result.responses.get(request.url, 0) + size
    result.transferred = sum(result.responses.values())
    result.requests = len(finished)
    return result
