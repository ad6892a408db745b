"""Ship the benchmark module with the site, next to the pages that link it, in every language.

The measuring page and the benchmark module's page (which shows the module section by section)
link to ``benchmark.py``, relative to their own source, so the reader downloads the very file
whose sections the module's page shows (``snippets/measuring/benchmark.py``). MkDocs validates
that link against the file added here, in the strict build.
"""

import sys
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `mkdocs` run as a command does not put the root on the path
    sys.path.insert(0, str(ROOT))

from ptdocs.generated import add_beside, pages_named  # noqa: E402

MODULE = Path("snippets") / "measuring" / "benchmark.py"
# The pages that link the module. The module's page must not be called benchmark.md: its
# downloaded script (ptdocs/downloads.py) would be benchmark.py too, beside it.
PAGES = ("measuring.md", "benchmark-module.md")


@event_priority(-300)  # after mkdocs-static-i18n (-100) has decided each page's language and URL
def on_files(files, config):
    pages = [page for name in PAGES for page in pages_named(files, name)]
    if not pages:
        return files
    content = (Path(config.config_file_path).parent / MODULE).read_bytes()
    for page in pages:
        add_beside(files, config, page, MODULE.name, MODULE.name, content)
    return files
