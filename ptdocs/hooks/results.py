"""Fill each language's results page with the benchmark the pipeline produced (see ptdocs/results.py).

For every ``results.md`` page in the build (``docs/en/results.md``,
``docs/es/results.md``), the ``<!-- results -->`` line is replaced by where the
numbers come from, the machine and torch build from the metadata, the plot and
the table. The plot (SVG, drawn by matplotlib in the page's language) and the
CSV and JSON it was drawn from are added to the build as generated files next
to the page (``results/latency.svg``, ``es/results/latency.svg``, ...): they
exist only in the built site, never in the repository.
"""

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `mkdocs` run as a command does not put the root on the path
    sys.path.insert(0, str(ROOT))

from ptdocs.generated import add_beside, pages_named  # noqa: E402
from ptdocs.results import STRINGS, ResultsError, load, plot_svg, section  # noqa: E402

MARKER = "<!-- results -->"
PAGE = "results.md"
_pages = {}  # src_uri of a results page -> (Results, language, links)


@event_priority(-300)  # after mkdocs-static-i18n (-100) has decided each page's language and URL
def on_files(files, config):
    pages = pages_named(files, PAGE)
    if not pages:
        return files
    root = Path(config.config_file_path).parent
    try:
        results = load(root)
    except ResultsError as error:
        raise PluginError(f"results page: {error}") from None
    for page in pages:
        language = page.src_uri.split("/", 1)[0]
        language = language if language in STRINGS else config.theme.get("language", "en")
        generated = {
            "plot": (f"results-latency-{language}.svg", "latency.svg", plot_svg(results, language)),
            "csv": ("results-benchmark.csv", "benchmark.csv",
                    (root / results.csv_path).read_bytes()),
            "json": ("results-benchmark.json", "benchmark.json",
                     (root / results.json_path).read_bytes()),
        }
        links = {}
        for key, (name, dest_name, content) in generated.items():
            add_beside(files, config, page, name, dest_name, content)
            links[key] = name  # relative to the page's source: MkDocs validates and rewrites it
        _pages[page.src_uri] = (results, language, links)
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri not in _pages:
        return markdown
    results, language, links = _pages[page.file.src_uri]
    if markdown.count(MARKER) != 1:
        raise PluginError(f"{page.file.src_uri}: put exactly one '{MARKER}' line where the results go")
    return markdown.replace(MARKER, section(results, language, links["plot"], links["csv"], links["json"]))
