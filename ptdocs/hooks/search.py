"""One search index per language, and only a page's words in it.

i18n's ``reconfigure_search`` leaves one index of every language, which Material loads
from under ``config.base``: an English search listed Spanish pages (no option in either
plugin: mkdocs-static-i18n #33, #271, mkdocs-material #867).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import material
from jinja2.utils import htmlsafe_json_dumps
from mkdocs.exceptions import PluginError

from ptdocs.atomic import write_atomically

INDEX = Path("search") / "search_index.json"
# Features that fetch config.base/sitemap.xml, which no language folder has.
_NEEDS_ROOT_BASE = {"navigation.instant", "navigation.instant.preview"}
_CONFIG = re.compile(
    r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S
)
# Marked data-search-exclude, by class: code blocks, notebook outputs and the text copy
# buttons copy (code was 147 of the English index's 344 kB, issue 25; the API names a
# reader looks for are in the prose), nbconvert's heading permalink and prompts and
# mkdocs-jupyter's copy button. Material compares elements by tag alone: a marked
# element holds none of its own tag.
_NOT_INDEXED = (
    "highlight|highlight-ipynb|jp-OutputArea-output|clipboard-copy-txt"
    "|anchor-link|jp-InputPrompt|jp-OutputPrompt|zeroclipboard-container"
)
_NOT_INDEXED_TAG = re.compile(
    rf'<(a|div)(?=\s[^>]*\bclass="(?:[^"]*\s)?(?:{_NOT_INDEXED})(?:\s[^"]*)?")'
    r"(?![^>]*\sdata-search-exclude\b)"
)
# lunr's languages besides English, which ship with Material. (Typed words match as
# prefixes, not stems: Material appends `*`, for which lunr skips its pipeline.)
_LUNR = Path(material.__file__).parent / "templates/assets/javascripts/lunr/min"


class SearchIndexError(PluginError):
    pass


def split_index(index: dict, default: str, others: list[str]) -> dict[str, dict]:
    """{locale: its index}: a document is another language's when its location starts
    with ``<locale>/`` (where i18n builds it), and then relative to that folder."""
    split = {
        locale: {**index, "config": {**index["config"], "lang": [locale]}, "docs": []}
        for locale in [default, *others]
    }
    for doc in index["docs"]:
        location = doc["location"]
        locale = next((o for o in others if location.startswith(f"{o}/")), default)
        cut = 0 if locale == default else len(locale) + 1
        split[locale]["docs"].append({**doc, "location": location[cut:]})
    return split


def with_language_base(html: str, locale: str) -> str:
    """The page with Material's ``config.base``, where it fetches the index and resolves
    results, pointing at ``<locale>/``."""
    match = _CONFIG.search(html)
    if match is None:
        raise SearchIndexError(
            'search hook: no <script id="__config"> in a page; did the '
            "Material theme change its template?"
        )
    config = json.loads(match.group(2))
    config["base"] = f"{config['base'].rstrip('/')}/{locale}/"
    # Written as Material writes it (Jinja's tojson): safe inside a <script>.
    json_text = str(htmlsafe_json_dumps(config))
    return html[: match.start(2)] + json_text + html[match.end(2) :]


def kept_out_of_search(html: str) -> str:
    return _NOT_INDEXED_TAG.sub(r"<\1 data-search-exclude", html)


def with_menu_words(page) -> None:
    """A menu label the page's title does not say ("Measuring performance") becomes a
    search tag, which Material's index boosts (no tags plugin: not shown)."""
    label = page.title
    heading = page.toc.items[0].title if page.toc and page.toc.items else None
    meta = page.meta if isinstance(page.meta, dict) else {}
    tags = meta.get("tags") or []
    if label and label != heading and label not in tags:
        page.meta = {**meta, "tags": [*tags, label]}


def on_config(config):
    clash = _NEEDS_ROOT_BASE & set(config.theme.get("features", []))
    if config.plugins.get("i18n") is not None and clash:
        raise SearchIndexError(
            f"search hook: {', '.join(sorted(clash))} would fetch "
            "<language>/sitemap.xml, which is not built; see ptdocs/hooks/search.py"
        )


def on_page_content(html, page, config, files):
    # Before Material's search plugin reads page.content and page.meta.
    with_menu_words(page)
    return kept_out_of_search(html)


def on_post_page(output, page, config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.current_language == i18n.default_language:
        return output
    return with_language_base(output, i18n.current_language)


def on_post_build(config):
    i18n = config.plugins.get("i18n")
    # The index is whole once the outermost build is done (`building` is set inside).
    if i18n is None or i18n.building:
        return
    site = Path(config.site_dir)
    default = i18n.default_language
    others = [locale for locale in i18n.build_languages if locale != default]
    for locale in [default, *others]:
        if locale != "en" and not (_LUNR / f"lunr.{locale}.min.js").is_file():
            raise SearchIndexError(
                f"search hook: lunr has no support for '{locale}' "
                f"(no {_LUNR.name}/lunr.{locale}.min.js in Material)"
            )
    split = split_index(json.loads((site / INDEX).read_text("utf-8")), default, others)
    empty = [locale for locale, index in split.items() if not index["docs"]]
    if empty:  # checked before anything is written: no half-split site
        raise SearchIndexError(f"search hook: no page of '{empty[0]}' in {INDEX}")
    for locale, index in split.items():
        folder = site if locale == default else site / locale
        text = json.dumps(index, ensure_ascii=False, separators=(",", ":"))
        write_atomically(folder / INDEX, text)
