"""Drop the ``hreflang`` links from each page's ``<head>``.

Material's script fetches ``sitemap.xml`` next to each one, taking it for a language's
root; i18n points them at the translated page (``../es/autograd/``): a 404 on every
page. The switcher's own links need none of it, and search engines get the alternates
from i18n's ``sitemap.xml``.
"""

import re

# Material's base.html: <link rel="alternate" href="../es/x/" hreflang="es">, one per
# language, and the blank lines its template leaves after them.
_LANGUAGE_LINK = re.compile(
    r"""[ \t]*<link\b(?=[^>]*\brel=["']alternate["'])(?=[^>]*\bhreflang=)[^>]*>\s*""",
    re.I,
)


def on_post_page(output, page, config):
    end = output.find("</head>")
    if end < 0:
        return output
    return _LANGUAGE_LINK.sub("", output[:end]) + output[end:]
