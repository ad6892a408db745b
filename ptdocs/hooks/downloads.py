"""Offer every guide page as a notebook and a script, in its language.

For each page with Python blocks (see ptdocs/downloads.py), in every language
build: the links "Download notebook" / "Download script" and the command that
runs just this page's examples go at the page's end, after the lesson, with the
verification stamp (ptdocs/hooks/stamp.py) under them; and after the build
both files are written next to the page's HTML (``site/autograd/autograd.ipynb``,
``site/es/autograd/autograd.py``), so the relative links work under ``/es/`` too.
Nothing is committed: the files exist only in the built site.

mkdocs-static-i18n runs one build per language, each calling ``on_post_build``,
so the pages recorded by one build are written and forgotten at its end.
"""

import posixpath
from pathlib import Path

from ptdocs.atomic import write_atomically
from ptdocs.downloads import (
    DownloadError,
    Site,
    language_of,
    links_markdown,
    make_downloads,
)

_pending = []  # (folder of the page in the site, Downloads) for this build


def on_pre_build(config):
    # what a failed build recorded (mkdocs serve rebuilds in one process)
    _pending.clear()


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
    language, relative = language_of(Path(source), root)
    if site.page_url(language, relative) != page.url:
        raise DownloadError(
            f"{page.file.src_uri}: the page is at '{page.url}', not "
            f"'{site.page_url(language, relative)}' as ptdocs/downloads.py expects"
        )
    _pending.append((posixpath.dirname(page.file.dest_uri), downloads))
    return at_the_end(markdown, links_markdown(downloads))


def at_the_end(markdown: str, block: str) -> str:
    """The page's Markdown with ``block`` at its end, in a box of its own
    (md_in_html): the page opens with its lesson, and the downloads and the test
    command close it."""
    opening = '<div class="ptdocs-end ptdocs-downloads" markdown>'
    return f"{markdown.rstrip()}\n\n{opening}\n\n{block.strip()}\n\n</div>\n"


def on_post_build(config):
    site_dir = Path(config.site_dir)
    for folder, downloads in _pending:
        write_atomically(
            site_dir / folder / downloads.notebook_name, downloads.notebook_text
        )
        write_atomically(site_dir / folder / downloads.script_name, downloads.script)
    _pending.clear()
