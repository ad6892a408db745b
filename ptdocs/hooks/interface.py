"""The interface text no option of the stack translates, from mkdocs.yml's
``extra.interface`` (another language's under its i18n entry): toc's ``permalink_title``
(i18n refuses per-language ``markdown_extensions``) and the English that nbconvert and
mkdocs-jupyter write in a notebook; ``made_with`` is read by the footer's template.
"""

import re
from html import escape

from mkdocs.exceptions import PluginError

KEYS = ("permalink_title", "copy", "copied", "picture", "made_with")
# As nbconvert re-serializes mkdocs-jupyter's notebook.html.j2 (`hidden=""`): group 1
# is kept, the English text after it replaced.
RENDERED = {
    "copy": re.compile(r'(<clipboard-copy\b[^>]*\baria-label=")Copy to Clipboard(?=")'),
    "copied": re.compile(r'(<span class="notice" hidden(?:="")?>)Copied!(?=</span>)'),
    "picture": re.compile(
        r'(<img\b[^>]*\balt=")No description has been provided for this image(?=")'
    ),
}


def strings(config) -> dict[str, str]:
    found = (config.extra or {}).get("interface") or {}
    missing = [
        key
        for key in KEYS
        if not (isinstance(found.get(key), str) and found[key].strip())
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
    toc = config.mdx_configs.setdefault("toc", {})
    if not toc.get("permalink"):
        raise PluginError(
            "mkdocs.yml: the toc extension needs permalink: true for permalink_title"
        )
    toc["permalink_title"] = strings(config)["permalink_title"]
    return config


def on_page_content(html, page, config, files):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or not jupyter.should_include(page.file):
        return html
    texts = strings(config)
    for key, written in RENDERED.items():
        html = written.sub(lambda match, key=key: match[1] + escape(texts[key]), html)
    return html
