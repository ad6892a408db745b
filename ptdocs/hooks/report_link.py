""" "Report a problem with this page" at the end of every page, in the page's language.

The link opens a new issue of mkdocs.yml's ``repo_url`` on the form
``.github/ISSUE_TEMPLATE/page-problem.yml``, with the page, its language, the commit
the site is built from and the torch release its examples are verified on filled in
(:mod:`ptdocs.problem_report`). It stands after the lesson, so it never pushes the
lesson down, and search leaves it out (Material's ``data-search-exclude``): a result
shows the page's words.
"""

from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs import catalog, problem_report
from ptdocs.downloads import DownloadError, Site, language_of, requirements
from ptdocs.output_check import issue_url

CLASS = "ptdocs-report"


def on_config(config):
    if not problem_report.repository(config).startswith("https://github.com/"):
        raise PluginError(
            "mkdocs.yml: repo_url must be the project's https://github.com/OWNER/NAME "
            'address: "Report a problem with this page" opens an issue there'
        )
    return config


def link_html(page, config) -> str:
    root = Path(config.config_file_path).resolve().parent
    source = page.file.abs_src_path
    try:
        language, _ = language_of(Path(source), root)
    except (
        DownloadError,
        TypeError,
    ):  # a page not under docs/<language>/ (or made by a plugin)
        language = catalog.SOURCE
    site = Site.from_config(config)
    fields = problem_report.fields(
        site.url + page.url, language, site.commit, requirements(root)["torch"]
    )
    url = issue_url(site.repository, fields)
    text = problem_report.TEXTS.in_language(language)["link"]
    return (
        f'<p class="{CLASS}" data-search-exclude><a href="{escape(url)}" '
        'target="_blank" '
        f'rel="noopener">{escape(text)}</a></p>'
    )


def on_page_content(html, page, config, files):
    return html + "\n" + link_html(page, config)
