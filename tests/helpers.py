"""Helpers that several test files share (plain functions; fixtures live in conftest.py)."""

import importlib.util
import re

from ptdocs.snippets import ROOT


def load_hook(name):
    """ptdocs/hooks/<name>.py as a fresh module, as MkDocs loads a hook: its module state is
    this test's alone."""
    spec = importlib.util.spec_from_file_location(f"{name}_hook", ROOT / "ptdocs" / "hooks" / f"{name}.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook


def alternates(html):
    """The language switcher's links, by language (the head's hreflang links are removed, see
    ptdocs/hooks/language_links.py)."""
    return {lang: href for href, lang in
            re.findall(r'<a href="([^"]*)" hreflang="([a-z]+)" class="md-select__link"', html)}
