"""A missing address gets a 404 page in its own language.

GitHub Pages and ``mkdocs serve`` answer every missing path, at any depth, with the root
``404.html`` (i18n's last language's won: ultrabug/mkdocs-static-i18n#284): its links
are absolute, from ``site_url``, and it switches to another language's page by script.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from ptdocs.atomic import write_atomically
from ptdocs.catalog import CatalogError, Texts
from ptdocs.hooks import language_links, search

NAME = "404.html"  # overrides/404.html: the page, from the texts below
_CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.I)
# Right after <meta charset>, before anything loads: under <base><locale>/ it writes that
# page into the document and opens a <template>, which makes the rest, the English page,
# inert. The address stays and no English script runs (fetching the page after load
# would run both; redirecting changes the address). Without JavaScript: English.
_SWITCH = """<script>/* ptdocs/hooks/not_found.py: a missing address under <locale>/ gets that language's page */
(function () {
  var pages = %(pages)s, base = %(base)s, path = location.pathname;
  if (path.lastIndexOf(base, 0) !== 0) return;
  var locale = path.slice(base.length).split("/")[0];
  if (!Object.prototype.hasOwnProperty.call(pages, locale)) return;
  var page = pages[locale], root = document.documentElement, name;
  for (var i = root.attributes.length - 1; i >= 0; i--) root.removeAttribute(root.attributes[i].name);
  for (name in page.attributes) root.setAttribute(name, page.attributes[name]);
  document.write(page.rest + "<template>");
})();
</script>"""


def _script_json(value) -> str:
    """JSON to write inside a <script>: ``</`` and ``<!`` escaped, which would end the
    element or change how the parser reads it."""
    return re.sub(r"<(?=[/!])", r"\\u003c", json.dumps(value, ensure_ascii=False))


# Other languages' in locale/<language>/LC_MESSAGES/interface.po, whose entries name
# this line: moved, they are stale (then run python -m ptdocs.catalog update).
TEXTS = Texts(
    "not_found",
    {
        "title": "Page not found",
        "lost": "There is no page at this address: it may have moved, or the address "
        "may be mistyped.",
        "next": "Look for it in the menu or with the search, or start again from the "
        "home page.",
        "home": "Go to the home page",
    },
)
_rendered: dict[str, str] = {}  # the 404 page of each language built so far


class NotFoundPageError(PluginError):
    pass


def _language(config) -> str:
    i18n = config.plugins.get("i18n")
    return i18n.current_language if i18n else config.theme.get("language") or "en"


def site_path(config) -> str:
    """The path the site is served under (``/pytorch-explained/``), ending in ``/``."""
    path = urlsplit(config.site_url or "/").path
    return path if path.endswith("/") else path + "/"


def texts(locale: str) -> dict[str, str]:
    try:
        return TEXTS[locale]
    except KeyError:
        raise NotFoundPageError(
            f"404 hook: no text for language '{locale}'; add its catalog, "
            f"locale/{locale}/LC_MESSAGES/interface.po (python -m ptdocs.catalog "
            "update)"
        ) from None
    except CatalogError as error:
        raise NotFoundPageError(f"404 hook: {error}") from None


def on_template_context(context, template_name, config):
    if template_name != NAME:
        return context
    i18n = config.plugins.get("i18n")
    locale = _language(config)
    # i18n's own switcher links, before a page edited them: the item, and the attribute
    # Jinja reads first.
    if i18n is not None and i18n.extra_alternate:
        alternate = copy.deepcopy(i18n.extra_alternate)
        config.extra["alternate"] = config.extra.alternate = alternate
    default = i18n.default_language if i18n is not None else locale
    home = site_path(config) + ("" if locale == default else f"{locale}/")
    return {**context, "not_found": texts(locale), "not_found_home": home}


def on_post_template(output, template_name, config):
    if template_name != NAME:
        return output
    output = language_links.on_post_page(output, None, config)
    output = search.on_post_page(output, None, config)
    _rendered[_language(config)] = output
    return output


def on_post_build(config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # inside i18n's loop: not every language built
        return
    languages = list(i18n.build_languages)
    if missing := [locale for locale in languages if locale not in _rendered]:
        raise NotFoundPageError(
            f"404 hook: the theme rendered no {NAME} for {', '.join(missing)}"
        )
    default = i18n.default_language
    others = {locale: _rendered[locale] for locale in languages if locale != default}
    site = Path(config.site_dir)
    for locale, html in others.items():
        write_atomically(site / locale / NAME, html)
    root = with_language_pages(_rendered[default], others, site_path(config))
    write_atomically(site / NAME, root)
    _rendered.clear()  # a rebuild (mkdocs serve) renders them again


def with_language_pages(default_html: str, others: dict[str, str], base: str) -> str:
    """The default language's page, which shows ``others[locale]`` instead at an
    address under ``<base><locale>/``."""
    pages = {}
    for locale, html in others.items():
        attributes, at = _parts(html, locale)
        pages[locale] = {"attributes": attributes, "rest": html[at:]}
    _, at = _parts(default_html, "default")
    script = _SWITCH % {"pages": _script_json(pages), "base": _script_json(base)}
    return default_html[:at] + script + default_html[at:]


def _parts(html: str, which: str) -> tuple[dict[str, str], int]:
    """The page's <html> attributes, and where its <meta charset> ends."""
    charset = _CHARSET.search(html)
    tag = BeautifulSoup(html, "html.parser", multi_valued_attributes=None).html
    if charset is None or tag is None:
        raise NotFoundPageError(
            f"404 hook: the {which} {NAME} has no <html> or <meta charset>; "
            "did the theme change its template?"
        )
    return tag.attrs, charset.end()
