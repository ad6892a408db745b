"""Ship the benchmark module with the site, next to the measuring page of every language.

The measuring page links to ``benchmark.py``, relative to its own source, so the
reader downloads the very file whose sections the page shows
(``snippets/measuring/benchmark.py``). MkDocs validates that link against the
file added here, in the strict build.
"""

import posixpath
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

MODULE = Path("snippets") / "measuring" / "benchmark.py"
PAGE = "measuring.md"


@event_priority(-300)  # after mkdocs-static-i18n (-100) has decided each page's language and URL
def on_files(files, config):
    pages = [file for file in files
             if file.is_documentation_page() and posixpath.basename(file.src_uri) == PAGE]
    if not pages:
        return files
    content = (Path(config.config_file_path).parent / MODULE).read_bytes()
    for page in pages:
        module = File.generated(config, posixpath.join(posixpath.dirname(page.src_uri), MODULE.name),
                                content=content)
        module.dest_uri = posixpath.join(posixpath.dirname(page.dest_uri), MODULE.name)
        files.append(module)
    return files
