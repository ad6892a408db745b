"""Translations in the build: the strict build fails on a missing twin or menu label,
an outdated Spanish page (or one showing English code comments) gets a notice linking
its English page, and each non-English build's code comments are in its language.
"""

from pathlib import Path

import markdown
from mkdocs.plugins import get_plugin_logger
from mkdocs.utils import get_relative_url

from ptdocs import catalog, translations
from ptdocs.snippets import CommentLanguage

log = get_plugin_logger("translations")
SOURCE, TARGET = translations.SOURCE, translations.TARGET


def on_config(config):
    i18n = config.plugins.get("i18n")
    building = getattr(i18n, "current_language", None) or catalog.SOURCE
    # Each language's build runs on_config again on the same config: replace, not add.
    # i18n refuses a per-language markdown_extensions; MkDocs reads it for every page.
    extensions = config.markdown_extensions
    extensions[:] = [e for e in extensions if not isinstance(e, CommentLanguage)]
    # After pymdownx.snippets, without which no page includes code to translate.
    if building in catalog.LANGUAGES and "pymdownx.snippets" in extensions:
        root = Path(config.config_file_path).parent
        extensions.append(CommentLanguage(building, root))
    for language in getattr(getattr(i18n, "config", None), "languages", None) or []:
        if language.locale == TARGET:
            labels = language.nav_translations
            for problem in translations.untranslated_nav(config.nav, labels):
                log.warning(problem)
    return config


def on_files(files, config):
    """Warn, once per language built, about its pages that have no twin."""
    building = getattr(config.plugins.get("i18n"), "current_language", None)
    for problem in translations.missing_twins(Path(config.docs_dir), building):
        log.warning(problem)
    return files


def _outdated(page, config) -> str | None:
    """The page's path inside its language folder when it is an outdated translation."""
    language, _, relative = page.file.src_uri.partition("/")
    if language != TARGET:
        return None
    docs = Path(config.docs_dir)
    if translations.freshness(docs, relative).state == translations.OUTDATED:
        return relative
    if left := translations.untranslated_comments(docs, relative):
        where = ", ".join(map(str, left))
        log.info(f"docs/{language}/{relative} shows code comments in English: {where}")
        return relative
    return None


def _notice(page, config) -> str | None:
    """The outdated page's notice, a Markdown admonition linking its English page."""
    if _outdated(page, config) is None:
        return None
    words = translations.MESSAGES[TARGET]
    english = getattr(page.file, "alternates", {}).get(SOURCE)
    url = english.url if english is not None else page.url.removeprefix(f"{TARGET}/")
    # Raw HTML: MkDocs' link check does not know another language's page.
    link = f'<a href="{get_relative_url(url, page.url)}">{words["original_page"]}</a>'
    body = words["outdated_body"].format(link=link)
    return f'!!! warning "{words["outdated_title"]}"\n\n    {body}'


def on_page_markdown(markdown_text, page, config, files):
    notice = page.file.src_uri.endswith(".md") and _notice(page, config)
    if not notice:
        return markdown_text
    lines = markdown_text.split("\n")
    at = 1 if lines and lines[0].startswith("# ") else 0  # the title stays first
    return "\n".join(lines[:at] + ["", notice + "\n\n"] + lines[at:])


def on_page_content(html, page, config, files):
    # A notebook is rendered by mkdocs-jupyter, not from Markdown: the notice as HTML.
    notice = page.file.src_uri.endswith(".ipynb") and _notice(page, config)
    if not notice:
        return html
    return markdown.markdown(notice, extensions=["admonition"]) + html
