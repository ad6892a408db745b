"""A missing address gets a 404 page in its own language: English at the root,
Spanish under es/.

How the page is picked. GitHub Pages answers every missing path of a site with the
site's one root ``404.html`` (status 404, address unchanged); ``mkdocs serve`` does
the same with ``<site_dir>/404.html`` for any path it cannot serve, inside its mount
path (the path of ``site_url``) or not. Neither looks for ``es/404.html``. The page
is served at any depth, so MkDocs writes its links from the path of ``site_url``
(absolute, ``/pytorch-explained/...``); served under another path they all miss (a
build with the default ``site_url``, served under ``/pytorch-explained/``, asks for
``/assets/...``: a dead, unstyled page).

What was wrong. mkdocs-static-i18n builds each language in turn and each build writes
the theme's ``404.html`` to the site's root, so the last language's (Spanish) won for
every missing address (ultrabug/mkdocs-static-i18n#284, which the plugin leaves
open). Material's 404 template says "404 - Not found" in English whatever the
language; its language switcher showed the links of the last page built (an exercise
page), because the i18n plugin edits ``config.extra.alternate`` for each page and a
static template comes after them all; and its ``hreflang`` links (language_links.py
removes them from pages only) made Material's script fetch ``sitemap.xml`` next to
them: 404s in the console.

The choice. This hook renders the 404 template in each language with its own heading
and text (``on_pre_template`` swaps Material's template for one that extends
``main.html``), its switcher on the languages' home pages, no ``hreflang`` link, and,
for Spanish, search on the Spanish index (as search.py does for pages). It writes
``es/404.html`` (a host that looks for the nearest 404 page uses it) and makes the
root ``404.html`` the English page with one inline script right after ``<meta
charset>``, before anything that loads: on an address under ``es/`` it writes the
Spanish page into the document (``document.write`` while the parser is at that
script, so the address stays, nothing English has run, and the load event comes after
the Spanish page's assets), then opens a ``<template>``, which makes the rest of the
file, the English page, inert: parsed but never shown or run (its stylesheets and
scripts are the same files as the Spanish page's, so a browser that fetches them
ahead fetches nothing else). Rejected: fetching ``es/404.html`` after load (the
English page shows, then its scripts and Material's state live on under the Spanish
one); redirecting (the address changes); one page with both texts (the header, menu,
search and switcher differ as well). Without JavaScript a reader gets the English
page.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError

from ptdocs.atomic import write_atomically
from ptdocs.catalog import CatalogError, Texts
from ptdocs.hooks import language_links, search

NAME = "404.html"
# The page's words in English; other languages' in
# locale/<language>/LC_MESSAGES/interface.po (ptdocs.catalog). `home` is the link to the
# language's home page.
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
TEMPLATE = """{% extends "main.html" %}
{% block htmltitle %}<title>{{ not_found.title | e }} - {{ config.site_name | e }}</title>{% endblock %}
{% block content %}
  <h1 id="not-found">{{ not_found.title | e }}</h1>
  <p>{{ not_found.lost | e }}</p>
  <p>{{ not_found.next | e }}</p>
  <p><a class="md-button md-button--primary" href="{{ not_found_home | e }}">{{ not_found.home | e }}</a></p>
{% endblock %}
"""
_CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.I)
_HTML_TAG = re.compile(r"<html\b([^>]*)>", re.I)
_ATTRIBUTE = re.compile(r"""([^\s=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
# The script that picks the page, filled in by with_language_pages().
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

_rendered: dict[str, str] = {}  # the 404 page of each language built so far, by locale


class NotFoundPageError(PluginError):
    pass


def _i18n(config):
    return config.plugins.get("i18n")


def _language(config) -> str:
    i18n = _i18n(config)
    return (
        i18n.current_language
        if i18n is not None
        else config.theme.get("language") or "en"
    )


def site_path(config) -> str:
    """The path the site is served under, ``/pytorch-explained/``: what the 404
    page's links start with."""
    path = urlsplit(config.site_url or "/").path
    return path if path.endswith("/") else path + "/"


def texts(locale: str) -> dict[str, str]:
    if locale not in TEXTS:
        raise NotFoundPageError(
            f"404 hook: no text for language '{locale}'; add its catalog, "
            f"locale/{locale}/LC_MESSAGES/interface.po (python -m ptdocs.catalog "
            "update)"
        )
    try:
        return TEXTS[locale]
    except CatalogError as error:
        raise NotFoundPageError(f"404 hook: {error}") from None


def on_pre_template(template, template_name, config):
    if template_name != NAME:
        return template
    i18n = _i18n(config)
    locale = _language(config)
    default = i18n.default_language if i18n is not None else locale
    # The switcher leads to each language's home page (i18n's own list before any page
    # edited it). i18n sets it per page as an attribute of `config.extra` (a UserDict),
    # which Jinja reads before the item: both are set.
    if i18n is not None and i18n.extra_alternate:
        config.extra["alternate"] = config.extra.alternate = copy.deepcopy(
            i18n.extra_alternate
        )
    home = site_path(config) + ("" if locale == default else f"{locale}/")
    return template.environment.from_string(
        TEMPLATE, globals={"not_found": texts(locale), "not_found_home": home}
    )


def on_post_template(output, template_name, config):
    if template_name != NAME:
        return output
    output = language_links.on_post_page(output, None, config)
    i18n = _i18n(config)
    if i18n is not None and i18n.current_language != i18n.default_language:
        output = search.with_language_base(output, i18n.current_language)
    _rendered[_language(config)] = output
    return output


def on_post_build(config):
    i18n = _i18n(config)
    # Inside i18n's loop over the languages (`building`) the last ones are not built
    # yet.
    if i18n is None or i18n.building:
        return
    languages = list(i18n.build_languages)
    missing = [locale for locale in languages if locale not in _rendered]
    if missing:
        raise NotFoundPageError(
            f"404 hook: the theme rendered no {NAME} for {', '.join(missing)}"
        )
    default = i18n.default_language
    others = {locale: _rendered[locale] for locale in languages if locale != default}
    site = Path(config.site_dir)
    for locale, html in others.items():
        write_atomically(site / locale / NAME, html)
    write_atomically(
        site / NAME, with_language_pages(_rendered[default], others, site_path(config))
    )
    _rendered.clear()  # a rebuild (mkdocs serve) renders them again


def with_language_pages(default_html: str, others: dict[str, str], base: str) -> str:
    """The default language's 404 page, which shows ``others[locale]`` instead when
    the address is under ``<base><locale>/`` (see the module's docstring)."""
    pages = {}
    for locale, html in others.items():
        charset, tag = _CHARSET.search(html), _HTML_TAG.search(html)
        if charset is None or tag is None:
            raise NotFoundPageError(
                f"404 hook: the {locale} {NAME} has no <html> or <meta charset>; "
                "did the theme change its template?"
            )
        pages[locale] = {
            "attributes": _attributes(tag.group(1)),
            "rest": html[charset.end() :],
        }
    charset = _CHARSET.search(default_html)
    if charset is None:
        raise NotFoundPageError(
            f"404 hook: the default {NAME} has no <meta charset>; "
            "did the theme change its template?"
        )
    script = _SWITCH % {"pages": _script_json(pages), "base": _script_json(base)}
    return default_html[: charset.end()] + script + default_html[charset.end() :]


def _attributes(text: str) -> dict[str, str]:
    return {
        match.group(1): next(
            (value for value in match.group(2, 3, 4) if value is not None), ""
        )
        for match in _ATTRIBUTE.finditer(text)
    }


def _script_json(value) -> str:
    """JSON to write inside a <script>: ``</`` and ``<!`` are escaped, the only
    sequences that end a script element or change how the parser reads it
    (``</script>``, ``<!--``)."""
    return re.sub(r"<(?=[/!])", r"\\u003c", json.dumps(value, ensure_ascii=False))
