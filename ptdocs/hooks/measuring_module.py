"""Ship the benchmark module with the site, in every language, for the pages that
link it.

The measuring page and the benchmark module's page (which shows the module section by
section) link to ``benchmark.py``, relative to their own source, so the reader
downloads the very file whose sections the module's page shows
(``snippets/measuring/benchmark.py``). Both pages are in the same folder of their
language, so that link names one file, ``<language>/benchmark.py``: it is written
beside the module's page, and MkDocs rewrites the measuring page's link to it
(``../benchmark-module/benchmark.py``), validating both in the strict build. In
another language than English the file is the module as that language's page shows
it: the comments and the strings that the page's sections show translated, through
the catalog (ptdocs/catalog.py), as the page's own downloads have them; the rest of
the file (its command line) stays English.
"""

import posixpath
from pathlib import Path

from ptdocs import catalog
from ptdocs.generated import add_beside, pages_named
from ptdocs.versions import built_language

MODULE = Path("snippets") / "measuring" / "benchmark.py"
# The pages that link the module, the one it is written beside first. The module's page
# must not be called benchmark.md: its downloaded script (ptdocs/downloads.py) would be
# benchmark.py too.
PAGES = ("benchmark-module.md", "measuring.md")


def module_text(language: str, root: Path = catalog.ROOT) -> str:
    """The module as a page in ``language`` shows it (English: the file as it is)."""
    lines, _left_in_english = catalog.translate_file(
        Path(root) / MODULE, language, Path(root)
    )
    return "\n".join(lines)


def on_files(files, config):
    root = Path(config.config_file_path).resolve().parent
    folders = set()  # one file per folder: the link of every page there names it
    for page in [page for name in PAGES for page in pages_named(files, name)]:
        folder = posixpath.dirname(page.src_uri)
        if folder in folders:
            continue
        folders.add(folder)
        language = built_language(page, config, catalog.LANGUAGES)
        content = module_text(language, root).encode("utf-8")
        add_beside(files, config, page, MODULE.name, MODULE.name, content)
    return files
