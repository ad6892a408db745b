"""Offer every guide page as a notebook and a script (ptdocs/downloads.py), in its
language: the links and the command that runs its examples close the page, and after
the build both files are written next to its HTML, so relative links work under /es/.
mkdocs-static-i18n runs one build per language, each ending with on_post_build.
"""

import posixpath
from pathlib import Path

from ptdocs.atomic import write_atomically
from ptdocs.downloads import (
    TEXTS,
    DownloadError,
    Site,
    language_of,
    make_downloads,
    run_command,
)

_pending = []  # (folder of the page in the site, Downloads) for this build


def on_pre_build(config):
    _pending.clear()  # what a failed build recorded (mkdocs serve rebuilds)


def on_page_markdown(markdown, page, config, files):
    source = page.file.abs_src_path
    if not source or not source.endswith(".md"):
        return markdown
    root = Path(config.config_file_path).resolve().parent
    site = Site.from_config(config)
    try:
        downloads = make_downloads(Path(source), site, root)
    except DownloadError as error:
        raise DownloadError(f"downloads of {page.file.src_uri}: {error}") from None
    if downloads is None:
        return markdown
    # The notebook links back to the page by the same URL rules: check they hold.
    expected = site.page_url(*language_of(Path(source), root))
    if expected != page.url:
        raise DownloadError(
            f"{page.file.src_uri}: the page is at '{page.url}', not "
            f"'{expected}' as ptdocs/downloads.py expects"
        )
    _pending.append((posixpath.dirname(page.file.dest_uri), downloads))
    # In a box of its own (md_in_html) after the lesson; out of the search index
    # (Material's data-search-exclude): a result starts with the page's own words.
    texts = TEXTS[downloads.language]
    return (
        f"{markdown.rstrip()}\n\n"
        '<div class="ptdocs-end ptdocs-downloads" markdown>\n\n'
        f'<a class="md-button" href="{downloads.notebook_name}" '
        f"download>{texts['notebook']}</a>\n"
        f'<a class="md-button" href="{downloads.script_name}" '
        f"download>{texts['script']}</a>\n"
        "{ data-search-exclude }\n\n"
        f"{texts['run_page']} `{run_command(downloads.page)}`\n"
        "{ data-search-exclude }\n\n</div>\n"
    )


def on_post_build(config):
    for folder, downloads in _pending:
        folder = Path(config.site_dir) / folder
        write_atomically(folder / downloads.notebook_name, downloads.notebook_text)
        write_atomically(folder / downloads.script_name, downloads.script)
    _pending.clear()
