"""One search index per language, so a reader searches only the pages of their
language.

mkdocs-static-i18n builds one language after the other and, with
``reconfigure_search``, leaves one index at ``site/search/search_index.json`` holding
every language's pages with ``config.lang: [en, es]``. Material loads the index from
``search/search_index.json`` under its ``config.base`` (the site's root on every
page), so an English search lists Spanish pages too, sometimes first. Neither plugin
has an option against it: the i18n maintainer says the theme's single index path
forces one index for all languages (mkdocs-static-i18n #33, #271) and Material's says
to build each language on its own (mkdocs-material #867).

This hook, after the last language build, splits that index:

* ``site/search/search_index.json``: the default language's pages, ``lang: [en]``;
* ``site/<locale>/search/search_index.json``: that language's pages, their locations
  relative to ``<locale>/``, ``lang: [<locale>]`` (the worker loads lunr-languages'
  ``lunr.es``: Spanish stop words, trimmer, stemmer);

and on every page of another language it points ``config.base`` (the JSON in
``<script id="__config">``) at that language's root, ``../../es/`` instead of
``../..``. In Material 9's bundle ``config.base`` is used to fetch the index and to
resolve the locations of search results (links and their ``?h=`` highlight), which is
why locations are made relative to ``<locale>/``. Its other uses do not apply here:
the sitemap for instant navigation and link previews (features this hook refuses, as
their sitemap would be looked for at ``es/sitemap.xml``), the version selector (no
mike) and the language switcher's sitemap lookup (language_links.py removes the links
it starts from). Asset URLs and the palette's storage scope are written from
``base_url`` elsewhere in the page and stay as they are.

What is indexed: a page's own words, not its code. Measured on the built indexes
(issue 25), code blocks were 147 of the English index's 344 kB, and a notebook's code
cells, outputs and the copy of each cell's code that mkdocs-jupyter keeps for its
copy button another 40; every API name a reader searches for (``unsqueeze``,
``retain_graph``, ``weights_only``) is also in the prose that explains it, which is
what a result should open on. :func:`kept_out_of_search` marks them
``data-search-exclude`` (Material's search exclusion); the page shows them as before.
So is notebook chrome: nbconvert ends each heading with ``<a
class="anchor-link">¶</a>``, which Material's indexer, skipping only its own
``a.headerlink``, would keep in the section's title ("Paso y tolerancias¶"), and it
starts each code cell with its prompt ("In [1]:") and mkdocs-jupyter's copy button
("Copied!"). The marked elements hold no element of their own tag: Material's indexer
compares elements by tag alone, so leaving a nested one would end the exclusion
there. The stamp hook marks its stamp the same way.

The menu's words find their page: where a page's label in the menu is not its title
("Measuring performance" for "Measuring PyTorch: setup, computation and useful
throughput"), the label is added to the page's ``tags``, a field Material's index
boosts above titles (without its tags plugin, the page does not show them). The front
matter of the guides to words on nearly every page ("tensor", "autograd") boosts them
(``search: boost:``), so each ranks first for its own topic.

Stemming: of lunr's language functions Material keeps those its ``pipeline`` setting
names, by default only ``stopWordFilter``, and it appends ``*`` to every typed word,
which lunr then matches as a prefix without running its pipeline. So a reader gets
prefix matching ("gradient" finds gradiente, gradientes), not stemming ("gradientes"
does not find a page that only says "gradiente"), although lunr.es stems both to
"gradient". Adding ``stemmer`` to the pipeline stems the index but never the typed
words: whole words then find nothing.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from jinja2.utils import htmlsafe_json_dumps
from mkdocs.exceptions import PluginError

from ptdocs.atomic import write_atomically

INDEX = Path("search") / "search_index.json"
# Features whose requests go to config.base/sitemap.xml, absent under a language's
# folder.
_NEEDS_ROOT_BASE = {"navigation.instant", "navigation.instant.preview"}
# Material's template: <script id="__config" type="application/json">{...}</script>
_CONFIG = re.compile(
    r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S
)
# Opening tags of what is not indexed, by class: code blocks (pymdownx.highlight's
# div.highlight, a notebook's div.highlight-ipynb), a notebook's outputs and the text
# its copy buttons copy; notebook chrome: nbconvert's heading permalink (<a
# class="anchor-link" href="#id">¶</a>), its cell prompts and mkdocs-jupyter's copy
# button.
_NOT_INDEXED = (
    "highlight",
    "highlight-ipynb",
    "jp-OutputArea-output",
    "clipboard-copy-txt",
    "anchor-link",
    "jp-InputPrompt",
    "jp-OutputPrompt",
    "zeroclipboard-container",
)
_NOT_INDEXED_TAG = re.compile(
    r'<(a|div)(?=\s[^>]*\bclass="(?:[^"]*\s)?(?:{})(?:\s[^"]*)?")'
    r"(?![^>]*\sdata-search-exclude\b)".format("|".join(_NOT_INDEXED))
)
# Languages lunr can stem: English is built in, the others ship with Material.
_LUNR = (
    Path(__import__("material").__file__).parent
    / "templates/assets/javascripts/lunr/min"
)


class SearchIndexError(PluginError):
    pass


def split_index(index: dict, default: str, others: list[str]) -> dict[str, dict]:
    """The combined index as one index per language: {locale: index}.

    A document belongs to ``<locale>`` when its location starts with ``<locale>/`` (the
    folder the i18n plugin builds that language into), else to the default language."""
    split = {}
    for locale in [default, *others]:
        prefix = "" if locale == default else f"{locale}/"
        docs = []
        for doc in index["docs"]:
            owner = next(
                (other for other in others if doc["location"].startswith(f"{other}/")),
                default,
            )
            if owner == locale:
                docs.append({**doc, "location": doc["location"][len(prefix) :]})
        config = copy.deepcopy(index["config"])
        config["lang"] = [locale]
        split[locale] = {**index, "config": config, "docs": docs}
    return split


def with_language_base(html: str, locale: str) -> str:
    """The page with Material's ``config.base`` pointing at ``<locale>/`` of the
    site."""
    match = _CONFIG.search(html)
    if match is None:
        raise SearchIndexError(
            'search hook: no <script id="__config"> in a page; did the '
            "Material theme change its template?"
        )
    config = json.loads(match.group(2))
    config["base"] = f"{config['base'].rstrip('/')}/{locale}/"
    # Written back as Material writes it (Jinja's tojson): safe inside a <script>.
    return (
        html[: match.start(2)] + str(htmlsafe_json_dumps(config)) + html[match.end(2) :]
    )


def kept_out_of_search(html: str) -> str:
    """The page with its code, notebook outputs and notebook chrome kept out of the
    search index."""
    return _NOT_INDEXED_TAG.sub(r"<\1 data-search-exclude", html)


def with_menu_words(page) -> None:
    """Add the page's menu label to its search ``tags`` where its title does not say
    it."""
    label = page.title
    heading = page.toc.items[0].title if page.toc and page.toc.items else None
    meta = page.meta if isinstance(page.meta, dict) else {}
    tags = meta.get("tags") or []
    if label and label != heading and label not in tags:
        page.meta = {**meta, "tags": [*tags, label]}


def _i18n(config):
    return config.plugins.get("i18n")


def on_config(config):
    if _i18n(config) is None:
        return
    clash = _NEEDS_ROOT_BASE & set(config.theme.get("features", []))
    if clash:
        raise SearchIndexError(
            f"search hook: {', '.join(sorted(clash))} would fetch "
            "<language>/sitemap.xml, which is not built; see ptdocs/hooks/search.py"
        )


def on_page_content(html, page, config, files):
    # Before Material's search plugin reads page.content and page.meta
    # (on_page_context).
    with_menu_words(page)
    return kept_out_of_search(html)


def on_post_page(output, page, config):
    i18n = _i18n(config)
    if i18n is None or i18n.current_language == i18n.default_language:
        return output
    return with_language_base(output, i18n.current_language)


def on_post_build(config):
    i18n = _i18n(config)
    # i18n runs the other languages' builds inside the first one's on_post_build, with
    # `building` set; the combined index is complete only once the outermost one is
    # done.
    if i18n is None or i18n.building:
        return
    site = Path(config.site_dir)
    combined = json.loads((site / INDEX).read_text(encoding="utf-8"))
    default = i18n.default_language
    others = [locale for locale in i18n.build_languages if locale != default]
    for locale in [default, *others]:
        if locale != "en" and not (_LUNR / f"lunr.{locale}.min.js").is_file():
            raise SearchIndexError(
                f"search hook: lunr has no support for '{locale}' "
                f"(no {_LUNR.name}/lunr.{locale}.min.js in Material)"
            )
    split = split_index(combined, default, others)
    empty = [locale for locale, index in split.items() if not index["docs"]]
    if empty:  # checked before anything is written: no half-split site
        raise SearchIndexError(f"search hook: no page of '{empty[0]}' in {INDEX}")
    for locale, index in split.items():
        folder = site if locale == default else site / locale
        write_atomically(
            folder / INDEX, json.dumps(index, ensure_ascii=False, separators=(",", ":"))
        )
