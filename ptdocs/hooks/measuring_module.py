"""Ship ``benchmark.py`` (snippets/measuring/) beside the benchmark module's page of
each language, where the measuring page links it too (MkDocs checks and rewrites both
links). Another language's copy has the comments and strings its pages show translated
(ptdocs/catalog.py); its command line stays English.
"""

import posixpath
from pathlib import Path

from ptdocs import catalog
from ptdocs.generated import add_beside, pages_named
from ptdocs.versions import built_language

MODULE = Path("snippets") / "measuring" / "benchmark.py"
# The pages that link it, in one folder, the one it is written beside first. Not
# benchmark.md: that page's downloaded script (ptdocs/downloads.py) would be
# benchmark.py too.
PAGES = ("benchmark-module.md", "measuring.md")


def module_text(language: str, root: Path = catalog.ROOT) -> str:
    """The module as a page in ``language`` shows it (English: the file as it is)."""
    lines, _ = catalog.translate_file(Path(root) / MODULE, language, Path(root))
    return "\n".join(lines)


def on_files(files, config):
    root = Path(config.config_file_path).resolve().parent
    folders = set()  # one file per folder: every page there links it
    for page in [page for name in PAGES for page in pages_named(files, name)]:
        if posixpath.dirname(page.src_uri) not in folders:
            folders.add(posixpath.dirname(page.src_uri))
            language = built_language(page, config, catalog.LANGUAGES)
            content = module_text(language, root).encode("utf-8")
            add_beside(files, config, page, MODULE.name, MODULE.name, content)
    return files
