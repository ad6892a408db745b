"""Keep Material's language switcher from requesting ``<page>/sitemap.xml`` (a 404 on
every page).

Material's ``setupAlternate`` script reads every ``<link rel="alternate">`` of a page
as the root of another language's site and fetches ``sitemap.xml`` next to it, to map
the current page onto that site. mkdocs-static-i18n points those links at the
translated *page* (``../es/autograd/``), so every page load asks for
``es/autograd/sitemap.xml`` (and ``es/sitemap.xml`` on the home page, which i18n does
not write): 404s in the console, and a click interception that, when it fires,
navigates to ``.../autograd`` without its slash (a redirect).

The switcher itself needs none of it: its ``<a>`` links already lead to the same page
in the other language. So this hook drops the ``hreflang`` links from the ``<head>``
and the script finds nothing to fetch. Search engines still get the language
alternates of every page from the i18n plugin's ``sitemap.xml`` (``<xhtml:link
rel="alternate" hreflang=...>``), an equivalent way to declare them.
"""

import re

# A void element in the head written by Material's base.html, one per language:
# <link rel="alternate" href="../es/autograd/" hreflang="es">
_LANGUAGE_LINK = re.compile(
    r"""[ \t]*<link\b(?=[^>]*\brel=["']alternate["'])(?=[^>]*\bhreflang=)[^>]*>[ "
    r"\t]*\n?""",
    re.I,
)


def on_post_page(output, page, config):
    end = output.find("</head>")
    if end < 0:
        return output
    return _LANGUAGE_LINK.sub("", output[:end]) + output[end:]
