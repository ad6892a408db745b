""" "Report a problem with this page" after every page's lesson, in its language, out
of the search index (ptdocs.problem_report says what it fills in)."""

from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs import catalog, problem_report
from ptdocs.downloads import DownloadError, Site, language_of, requirements
from ptdocs.output_check import issue_url


def on_config(config):
    if not problem_report.repository(config).startswith("https://github.com/"):
        raise PluginError(
            "mkdocs.yml: repo_url must be the project's https://github.com/OWNER/NAME "
            'address: "Report a problem with this page" opens an issue there'
        )
    return config


def on_page_content(html, page, config, files):
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
