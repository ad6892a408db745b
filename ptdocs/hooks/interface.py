"""The interface text no option of the stack translates, from mkdocs.yml's
``extra.interface`` (another language's under its i18n entry): toc's ``permalink_title``
(i18n refuses per-language ``markdown_extensions``) and the English that nbconvert and
mkdocs-jupyter write in a notebook; ``made_with`` is read by the footer's template.
And "Report a problem with this page" after every page's lesson, in its language, out
of the search index (ptdocs.problem_report says what it fills in).
"""

import re
from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs import catalog, problem_report
from ptdocs.downloads import DownloadError, Site, language_of, requirements
from ptdocs.output_check import issue_url

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
    if not problem_report.repository(config).startswith("https://github.com/"):
        raise PluginError(
            "mkdocs.yml: repo_url must be the project's https://github.com/OWNER/NAME "
            'address: "Report a problem with this page" opens an issue there'
        )
    toc = config.mdx_configs.setdefault("toc", {})
    if not toc.get("permalink"):
        raise PluginError(
            "mkdocs.yml: the toc extension needs permalink: true for permalink_title"
        )
    toc["permalink_title"] = strings(config)["permalink_title"]
    return config


def on_page_content(html, page, config, files):
    return with_report_link(translated(html, page, config), page, config)


def translated(html, page, config):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or not jupyter.should_include(page.file):
        return html
    texts = strings(config)
    for key, written in RENDERED.items():
        html = written.sub(lambda match, key=key: match[1] + escape(texts[key]), html)
    return html


def with_report_link(html, page, config):
    root = Path(config.config_file_path).resolve().parent
    try:
        language, _ = language_of(Path(page.file.abs_src_path), root)
    except (DownloadError, TypeError):  # not under docs/<language>/, or no file
        language = catalog.SOURCE
    site = Site.from_config(config)
    torch = requirements(root)["torch"]
    fields = problem_report.fields(site.url + page.url, language, site.commit, torch)
    url = escape(issue_url(site.repository, fields))
    text = escape(problem_report.TEXTS.in_language(language)["link"])
    return (
        f'{html}\n<p class="ptdocs-report" data-search-exclude><a href="{url}" '
        f'target="_blank" rel="noopener">{text}</a></p>'
    )
