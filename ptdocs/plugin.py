"""The site's own build steps as one MkDocs plugin, ``ptdocs`` in mkdocs.yml.

Each step is a module of :mod:`ptdocs.hooks` whose functions are named after MkDocs
events (``on_page_content``...). ``ORDER`` below is the one place that says when each of
them runs: for each event, at which priority among the other plugins' handlers
(mkdocs-static-i18n's run at -100, mkdocs-jupyter's and Material's at 0) and, within a
priority, in which order. tests/test_plugin.py checks that every event function of a
step is listed here exactly once.

mkdocs-static-i18n builds the first language, then, inside its own ``on_post_build``
(-100), each other language, every event running again; the steps at 100 act on each
language's build, those at -200 once, after the last.

The plugin's ``steps`` option picks some steps (a test's small site), in this order; by
default all. ``mkdocs serve``'s reload (ptdocs/hooks/preview.py) is a plugin of its own,
``ptdocs-preview``: MkDocs keeps a plugin with an ``on_startup`` for the whole session,
and loads this one again, from its files, at each rebuild.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from .hooks import (
    code_weight,
    compatibility,
    downloads,
    interface,
    language_links,
    measuring_module,
    not_found,
    notebook_css,
    notebook_math,
    notebooks,
    report_link,
    results,
    search,
    stamp,
    template_cache,
    translations,
)

STEPS = {
    module.__name__.rpartition(".")[2]: module
    for module in (
        template_cache,
        notebooks,
        downloads,
        translations,
        language_links,
        notebook_math,
        notebook_css,
        stamp,
        compatibility,
        results,
        measuring_module,
        code_weight,
        search,
        interface,
        not_found,
        report_link,
    )
}

ORDER: dict[str, dict[int, list[str]]] = {
    # After i18n's on_config has chosen the build's language and applied its settings.
    "config": {
        -150: ["notebooks", "translations", "search", "interface", "report_link"]
    },
    "pre_build": {
        0: ["downloads", "notebook_css", "stamp", "compatibility", "results"]
    },
    # After i18n's on_files has rebuilt the file list and given each page its language
    # and URL.
    "files": {-200: ["translations", "notebooks", "results", "measuring_module"]},
    # After i18n's on_nav has applied nav_translations.
    "nav": {-200: ["compatibility"]},
    "env": {0: ["template_cache"]},
    "page_markdown": {
        0: [
            "notebooks",
            "downloads",
            "translations",
            "stamp",
            "compatibility",
            "results",
        ]
    },
    # code_weight before search, which reads the content; notebook_css after every step
    # that edits a notebook page's content.
    "page_content": {
        0: [
            "notebooks",
            "translations",
            "notebook_math",
            "stamp",
            "code_weight",
            "search",
            "interface",
            "report_link",
            "notebook_css",
        ]
    },
    # After the theme and i18n have written the page.
    "post_page": {-200: ["language_links", "notebook_css", "search"]},
    "pre_template": {0: ["not_found"]},
    "post_template": {-200: ["not_found"]},
    # 100: each language's build, before mkdocs-jupyter's on_post_build (0) evicts the
    # renders it did not use and before i18n's (-100) builds the next language. -200:
    # once, after them.
    "post_build": {
        100: ["notebooks", "downloads"],
        -200: ["results", "search", "not_found"],
    },
}


class SiteConfig(base.Config):
    steps = c.ListOfItems(c.Choice(tuple(STEPS)), default=list(STEPS))


class Site(BasePlugin[SiteConfig]):
    """Runs the steps' event functions in ``ORDER``."""


def _handler(event: str, priority: int, names: list[str]):
    def run(self, *item, **context):
        # MkDocs passes the item an event may replace (the page's HTML...) first, and
        # keeps it when a handler returns None.
        for name in names:
            if name in self.config.steps:
                result = getattr(STEPS[name], f"on_{event}")(*item, **context)
                if item and result is not None:
                    item = (result,)
        return item[0] if item else None

    run.__name__ = f"_on_{event}_{priority}"
    return event_priority(priority)(run)


for _event, _groups in ORDER.items():
    _handlers = [
        _handler(_event, priority, names) for priority, names in _groups.items()
    ]
    setattr(
        Site,
        f"on_{_event}",
        _handlers[0] if len(_handlers) == 1 else CombinedEvent(*_handlers),
    )
