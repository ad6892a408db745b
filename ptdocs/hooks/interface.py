"""The interface text that no option of the stack translates, in each page's
language.

Each language's strings live in mkdocs.yml, beside its other settings:
``extra.interface`` for English, and the same key in the ``extra`` of the language's
entry of the i18n plugin, which mkdocs-static-i18n applies to that language's build
(as it does ``theme.palette``, where the colour toggle's labels are translated, and
``theme.language``, which translates Material's own strings). This hook applies the
ones that have no such option:

- ``permalink_title``: the title of every heading's "¶" link. It is a setting of
  Python-Markdown's
  toc extension, and the i18n plugin refuses a per-language ``markdown_extensions``;
  MkDocs reads
  ``mdx_configs`` for each page, so it is set here at the start of each language's
  build.
- ``copy``, ``copied`` and ``picture``: mkdocs-jupyter's template labels each code
  cell's copy
  button "Copy to Clipboard" and its notice "Copied!", and nbconvert gives a picture
  without a
  description the alt text "No description has been provided for this image"; neither
  has an
  option, so they are replaced in each notebook page's HTML.
- ``made_with``: the footer's "Made with" (Material for MkDocs), which
  ``overrides/partials/copyright.html`` reads.

tests/browser/test_interface_language.py fails on any interface text left in English
on a Spanish page.
"""

import re
from html import escape

from mkdocs.exceptions import PluginError

KEYS = ("permalink_title", "copy", "copied", "picture", "made_with")
# What the renderers write: mkdocs-jupyter's templates/mkdocs_html/notebook.html.j2, as
# nbconvert's HTMLExporter re-serializes it (BeautifulSoup writes `hidden` as
# `hidden=""`), and that exporter's alt for an <img> without one. Group 1 is kept, the
# text between is replaced.
RENDERED = {
    "copy": re.compile(r'(<clipboard-copy\b[^>]*\baria-label=")Copy to Clipboard(?=")'),
    "copied": re.compile(r'(<span class="notice" hidden(?:="")?>)Copied!(?=</span>)'),
    "picture": re.compile(
        r'(<img\b[^>]*\balt=")No description has been provided for this image(?=")'
    ),
}


def strings(config) -> dict[str, str]:
    """This build's interface strings: its language's ``extra.interface``."""
    found = (config.extra or {}).get("interface") or {}
    missing = [
        key
        for key in KEYS
        if not isinstance(found.get(key), str) or not found[key].strip()
    ]
    if missing:
        i18n = config.plugins.get("i18n")
        language = getattr(i18n, "current_language", None) or "the default language"
        raise PluginError(
            f"mkdocs.yml: extra.interface for {language} lacks {', '.join(missing)} "
            "(English under extra:, another language under its i18n entry's extra:)"
        )
    return found


def on_config(config):
    title = strings(config)["permalink_title"]
    toc = config.mdx_configs.setdefault("toc", {})
    if toc.get("permalink") in (None, False):
        raise PluginError(
            "mkdocs.yml: the toc extension needs permalink: true for permalink_title"
        )
    toc["permalink_title"] = title
    return config


def on_page_content(html, page, config, files):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or not jupyter.should_include(page.file):
        return html
    texts = strings(config)
    for key, written in RENDERED.items():
        html = written.sub(lambda match, key=key: match[1] + escape(texts[key]), html)
    return html
