"""The site's build steps (modules of ptdocs.hooks) as one MkDocs plugin, ``ptdocs``.

``ORDER`` is the one place that says when each step's ``on_<event>`` runs: at which
priority among the other plugins (i18n's at -100, mkdocs-jupyter's and Material's at 0)
and, within it, in which order. i18n builds each other language inside its own
``on_post_build``: steps at 100 run for each language, those at -200 once, after all.
"""

from __future__ import annotations

import importlib

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

# {event: {priority: the steps, in the order they run}}
ORDER: dict[str, dict[int, str]] = {
    # After i18n has chosen the build's language and applied its settings.
    "config": {-150: "notebooks translations search interface report_link"},
    "pre_build": {0: "downloads notebook_css stamp compatibility results"},
    # After i18n has rebuilt the file list and given each page its language and URL.
    "files": {-200: "translations notebooks results measuring_module"},
    "nav": {-200: "compatibility"},  # after i18n's nav_translations
    "env": {0: "template_cache"},
    "page_markdown": {
        0: "notebooks downloads translations stamp compatibility results"
    },
    # code_weight before search, which reads the content; notebook_css after every
    # step that edits a notebook page's content.
    "page_content": {
        0: "notebooks translations notebook_math stamp code_weight search interface "
        "report_link notebook_css"
    },
    "post_page": {-200: "language_links notebook_css search"},  # after the theme's
    "template_context": {0: "not_found"},
    "post_template": {-200: "not_found"},
    # 100: before mkdocs-jupyter (0) evicts the renders it did not use and i18n (-100)
    # builds the next language.
    "post_build": {100: "notebooks downloads", -200: "results search not_found"},
}


# Imported by name: ORDER is the one list of them.
_NAMES = {
    name for group in ORDER.values() for s in group.values() for name in s.split()
}
STEPS = {
    name: importlib.import_module(f"ptdocs.hooks.{name}") for name in sorted(_NAMES)
}


class SiteConfig(base.Config):
    # Some steps only (a test's small site); by default all.
    steps = c.ListOfItems(c.Choice(tuple(STEPS)), default=list(STEPS))


class Site(BasePlugin[SiteConfig]):
    """Runs the steps' event functions in ``ORDER``."""


def _handler(event: str, priority: int, names: str):
    def run(self, *item, **context):
        # MkDocs passes the item an event may replace (the page's HTML...) first, and
        # keeps it when a handler returns None.
        for name in names.split():
            if name in self.config.steps:
                result = getattr(STEPS[name], f"on_{event}")(*item, **context)
                if item and result is not None:
                    item = (result,)
        return item[0] if item else None

    run.__name__ = f"_on_{event}_{priority}"
    return event_priority(priority)(run)


for _event, _groups in ORDER.items():
    _handlers = [_handler(_event, *group) for group in _groups.items()]
    setattr(Site, f"on_{_event}", CombinedEvent(*_handlers))
