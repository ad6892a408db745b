"""Ship the benchmark module with the site, next to the measuring page of every language.

The measuring page links to ``benchmark.py``, relative to its own source, so the
reader downloads the very file whose sections the page shows
(``snippets/measuring/benchmark.py``). MkDocs validates that link against the
file added here, in the strict build.
"""

from pathlib import Path

from ptdocs.generated import add_beside, pages_named

MODULE = Path("snippets") / "measuring" / "benchmark.py"
PAGE = "measuring.md"


def on_files(files, config):
    pages = pages_named(files, PAGE)
    if not pages:
        return files
    content = (Path(config.config_file_path).parent / MODULE).read_bytes()
    for page in pages:
        add_beside(files, config, page, MODULE.name, MODULE.name, content)
    return files
