"""Tell readers when a translation lags its English page; fail the strict build when
one is missing.

* A menu title without a Spanish label in ``nav_translations`` is a warning too:
  the Spanish menu would show it in English.
* A page without its twin (``docs/en/x.md`` without ``docs/es/x.md``, or the
  reverse) is logged as a warning, which ``mkdocs build --strict`` turns into a
  failure. The nav already fails for nav pages; this covers every page.
* A Spanish page whose recorded ``translation_of`` is not the hash of its English
  page still builds, with a notice at the top, in the page's language, linking
  the English page (see ``ptdocs.translations``). So does a Spanish page that shows
  a code comment in English (its translation in ``locale/es/LC_MESSAGES/snippets.po``
  is missing or fuzzy).
* The Spanish build's code comments are Spanish: ``on_config`` adds
  :class:`ptdocs.snippets.CommentLanguage` to the Markdown extensions of each
  non-English build, after pymdownx.snippets (the i18n plugin refuses a per-language
  ``markdown_extensions``; MkDocs reads the list again for every page).
"""

from pathlib import Path

import markdown
from mkdocs.plugins import get_plugin_logger
from mkdocs.utils import get_relative_url

from ptdocs import catalog, translations
from ptdocs.snippets import CommentLanguage

log = get_plugin_logger("translations")


def on_config(config):
    """Every menu title has its Spanish label, or the strict build fails saying
    which; the build's code comments are in its language."""
    i18n = config.plugins.get("i18n")
    building = getattr(i18n, "current_language", None) or catalog.SOURCE
    # Each language's build runs on_config again on the same config: replace, never pile
    # up.
    config.markdown_extensions[:] = [
        extension
        for extension in config.markdown_extensions
        if not isinstance(extension, CommentLanguage)
    ]
    # Without pymdownx.snippets a page includes no snippet, so there is nothing to
    # translate.
    if (
        building in catalog.LANGUAGES
        and "pymdownx.snippets" in config.markdown_extensions
    ):
        config.markdown_extensions.append(
            CommentLanguage(building, Path(config.config_file_path).parent)
        )
    for language in getattr(getattr(i18n, "config", None), "languages", None) or []:
        if language.locale == translations.TARGET:
            for problem in translations.untranslated_nav(
                config.nav, language.nav_translations
            ):
                log.warning(problem)
    return config


def on_files(files, config):
    """Once per language built: warn about that language's pages that have no twin."""
    docs = Path(config.docs_dir)
    i18n = config.plugins.get("i18n")
    building = getattr(i18n, "current_language", None)
    english = set(translations.pages(docs, translations.SOURCE))
    spanish = set(translations.pages(docs, translations.TARGET))
    if building in (None, translations.SOURCE):
        for page in sorted(english - spanish):
            log.warning(
                f"docs/{translations.SOURCE}/{page} has no Spanish twin "
                f"docs/{translations.TARGET}/{page}; run `{translations.COMMAND} "
                "status`"
            )
    if building in (None, translations.TARGET):
        for page in sorted(spanish - english):
            log.warning(
                f"docs/{translations.TARGET}/{page} has no English page "
                f"docs/{translations.SOURCE}/{page}; rename or remove it"
            )
    return files


def _outdated(page, config) -> str | None:
    """The page's path inside its language folder when it is an outdated translation."""
    language, _, relative = page.file.src_uri.partition("/")
    if language != translations.TARGET:
        return None
    docs = Path(config.docs_dir)
    if translations.freshness(docs, relative).state == translations.OUTDATED:
        return relative
    # Code comments left in English: the page lags its English twin just the same.
    left = translations.untranslated_comments(docs, relative)
    if left:
        log.info(
            f"docs/{language}/{relative} shows code comments in English: "
            f"{', '.join(map(str, left))}"
        )
        return relative
    return None


def _notice(page, relative: str) -> tuple[str, str, str]:
    """Title, body (with a raw link to the English page) and CSS type of the notice."""
    words = translations.MESSAGES[translations.TARGET]
    english = getattr(page.file, "alternates", {}).get(translations.SOURCE)
    url = (
        english.url
        if english is not None
        else page.url.removeprefix(f"{translations.TARGET}/")
    )
    # Raw HTML: the target is another language's page, which MkDocs' link check does not
    # know.
    link = f'<a href="{get_relative_url(url, page.url)}">{words["original_page"]}</a>'
    return words["outdated_title"], words["outdated_body"].format(link=link), "warning"


def on_page_markdown(markdown_text, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown_text
    relative = _outdated(page, config)
    if relative is None:
        return markdown_text
    title, body, kind = _notice(page, relative)
    admonition = f'!!! {kind} "{title}"\n\n    {body}\n\n'
    lines = markdown_text.split("\n")
    # After the page's title, when it opens with one, so the title stays the first thing
    # read.
    at = 1 if lines and lines[0].startswith("# ") else 0
    return "\n".join(lines[:at] + ["", admonition] + lines[at:])


def on_page_content(html, page, config, files):
    """Notebooks are rendered by mkdocs-jupyter, not from Markdown: add the notice as
    HTML."""
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    relative = _outdated(page, config)
    if relative is None:
        return html
    title, body, kind = _notice(page, relative)
    notice = markdown.markdown(
        f'!!! {kind} "{title}"\n\n    {body}', extensions=["admonition"]
    )
    return notice + html
