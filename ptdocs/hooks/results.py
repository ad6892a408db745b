"""Fill each language's results page with the benchmark the pipeline produced (see
ptdocs/results.py).

For every ``results.md`` page in the build (``docs/en/results.md``,
``docs/es/results.md``), the ``<!-- results -->`` line is replaced by where the
numbers come from, the machine and torch build from the metadata, the plot and the
table. The plot (SVG, drawn by matplotlib in the page's language, once for each
colour scheme: ``latency.svg`` and ``latency-dark.svg``, each shown in its scheme)
and the CSV and JSON it was drawn from are added to the build as generated files next
to the page (``results/latency.svg``, ``es/results/latency.svg``, ...): they exist
only in the built site, never in the repository.

A page may also hold one ``<!-- comparison -->`` line: it is replaced by the
committed pair of runs (``samples/benchmark-cpu-threads1.csv`` and ``-threads2.csv``)
compared by ``snippets/measuring/compare.py``, as a plot (``comparison.svg``) and a
table; and one ``<!-- comparison-aa -->`` line, the same for the committed A/A pair
(``samples/benchmark-cpu.csv`` and ``-threads2.csv``: same settings, different start
times; ``comparison-aa.svg``). A marker without its pair fails the build.

The measuring page (``measuring.md``) holds one ``<!-- sample-table -->`` line: it is
replaced by the committed sample (``samples/benchmark-cpu.csv``) as a table of its
main columns (results.SAMPLE_COLUMNS), values as the file writes them; the file
itself is added beside the page (``benchmark-cpu.csv``), for the page's link to the
whole of it.

Drawing the plots (matplotlib) took a third of a build that reuses the notebooks, on
every save in ``mkdocs serve``. A plot is kept in ``.cache/ptdocs-plots/`` under a
digest of everything the drawing reads: the data it is given (its ``repr``: every row
and the metadata), the language, the code that draws (``ptdocs/results.py`` and
``snippets/measuring/compare.py``), and the version and settings (``rcParams``) of
matplotlib.
"""

import hashlib
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs import results as results_module
from ptdocs.atomic import write_atomically
from ptdocs.generated import add_beside, pages_named
from ptdocs.results import (
    AA_PAIR,
    COMPARE_MODULE,
    COMPARISON,
    SAMPLE,
    STRINGS,
    ResultsError,
    comparison_section,
    comparison_svg,
    load,
    load_comparison,
    plot_svg,
    sample_table,
    section,
)
from ptdocs.versions import built_language

MARKER = "<!-- results -->"
COMPARISON_MARKER = "<!-- comparison -->"
# marker -> (name of the generated plot and of the comparison, the committed pair it
# shows)
COMPARISONS = {
    COMPARISON_MARKER: ("comparison", COMPARISON),
    "<!-- comparison-aa -->": ("comparison-aa", AA_PAIR),
}
PAGE = "results.md"
SAMPLE_PAGE = "measuring.md"
SAMPLE_MARKER = "<!-- sample-table -->"
PLOTS = Path(".cache") / "ptdocs-plots"  # under the project's root
# src_uri of a results page -> (Results, {name: comparison or None}, language, links,
# root)
_pages = {}
_used_plots: set[Path] = set()  # the cached plots this build (all its languages) used


def _outermost(config) -> bool:
    """Not one of the other languages' builds, which i18n runs inside the first one."""
    i18n = config.plugins.get("i18n")
    return i18n is None or not i18n.building


def on_pre_build(config):
    if _outermost(config):
        _used_plots.clear()


def on_post_build(config):
    """Remove the plots no language of this build used, as mkdocs-jupyter does with
    its renders."""
    folder = Path(config.config_file_path).parent / PLOTS
    if not _outermost(config) or not folder.is_dir():
        return
    for path in folder.glob("*.svg"):
        if path not in _used_plots:
            path.unlink(missing_ok=True)


def on_files(files, config):
    root = Path(config.config_file_path).parent
    for page in pages_named(files, SAMPLE_PAGE):
        add_beside(
            files, config, page, SAMPLE.name, SAMPLE.name, (root / SAMPLE).read_bytes()
        )
    pages = pages_named(files, PAGE)
    if not pages:
        return files
    try:
        results = load(root)
        comparisons = {
            name: load_comparison(root, pair) for name, pair in COMPARISONS.values()
        }
    except ResultsError as error:
        raise PluginError(f"results page: {error}") from None
    for page in pages:
        language = built_language(page, config, STRINGS)
        generated = {
            "plot": (
                f"results-latency-{language}.svg",
                "latency.svg",
                svg(root, plot_svg, results, language),
            ),
            "plot-dark": (
                f"results-latency-{language}-dark.svg",
                "latency-dark.svg",
                svg(root, plot_svg, results, language, "dark"),
            ),
            "csv": (
                "results-benchmark.csv",
                "benchmark.csv",
                (root / results.csv_path).read_bytes(),
            ),
            "json": (
                "results-benchmark.json",
                "benchmark.json",
                (root / results.json_path).read_bytes(),
            ),
        }
        for name, comparison in comparisons.items():
            if comparison is not None:
                generated[name] = (
                    f"results-{name}-{language}.svg",
                    f"{name}.svg",
                    svg(root, comparison_svg, comparison, language),
                )
                generated[f"{name}-dark"] = (
                    f"results-{name}-{language}-dark.svg",
                    f"{name}-dark.svg",
                    svg(root, comparison_svg, comparison, language, "dark"),
                )
        links = {}
        for key, (name, dest_name, content) in generated.items():
            add_beside(files, config, page, name, dest_name, content)
            links[key] = (
                name  # relative to the page's source: MkDocs validates and rewrites it
            )
        _pages[page.src_uri] = (results, comparisons, language, links, root)
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.rsplit("/", 1)[-1] == SAMPLE_PAGE:
        if markdown.count(SAMPLE_MARKER) != 1:
            raise PluginError(
                f"{page.file.src_uri}: put exactly one '{SAMPLE_MARKER}' line where "
                "the sample goes"
            )
        try:
            table = sample_table(Path(config.config_file_path).parent / SAMPLE)
        except ResultsError as error:
            raise PluginError(f"measuring page: {error}") from None
        return markdown.replace(SAMPLE_MARKER, table)
    if page.file.src_uri not in _pages:
        return markdown
    results, comparisons, language, links, root = _pages[page.file.src_uri]
    if markdown.count(MARKER) != 1:
        raise PluginError(
            f"{page.file.src_uri}: put exactly one '{MARKER}' line where the results go"
        )
    markdown = markdown.replace(
        MARKER,
        section(
            results,
            language,
            links["plot"],
            links["csv"],
            links["json"],
            links["plot-dark"],
        ),
    )
    for marker, (name, pair) in COMPARISONS.items():
        wanted = markdown.count(marker)
        if wanted > 1:
            raise PluginError(f"{page.file.src_uri}: put at most one '{marker}' line")
        if wanted and comparisons[name] is None:
            raise PluginError(
                f"{page.file.src_uri}: '{marker}' needs the committed pair "
                f"{' and '.join(path.as_posix() for path in pair)} (each with its "
                ".json)"
            )
        if wanted:
            markdown = markdown.replace(
                marker,
                comparison_section(
                    comparisons[name],
                    root,
                    language,
                    links[name],
                    links[f"{name}-dark"],
                ),
            )
    return markdown


def svg(root: Path, draw, data, language: str, scheme: str = "light") -> str:
    """``draw(data, language, scheme)``, taken from the plot cache when it was drawn
    from the same inputs."""
    text = repr(data)
    if (
        " at 0x" in text
    ):  # an object without a faithful repr: its digest would not name its content
        return draw(data, language, scheme)
    digest = hashlib.sha256()
    for part in (draw.__name__, language, scheme, text, _code(), _matplotlib()):
        digest.update(part.encode("utf-8") + b"\0")
    path = root / PLOTS / f"{digest.hexdigest()}.svg"
    _used_plots.add(path)
    if path.is_file():
        return path.read_text(encoding="utf-8")
    drawn = draw(data, language, scheme)
    write_atomically(path, drawn)
    return drawn


def _code() -> str:
    """The drawing code: ptdocs/results.py, and compare.py as it loads it (beside its
    package)."""
    drawing = Path(results_module.__file__).resolve()
    return "".join(
        hashlib.sha256(file.read_bytes()).hexdigest()
        for file in (drawing, drawing.parents[1] / COMPARE_MODULE)
    )


def _matplotlib() -> str:
    import matplotlib  # not pyplot: a second, where the plots come from the cache

    # Read as stored: reading `backend` through rcParams would pick a backend (importing
    # pyplot), and the backend does not change an SVG written by savefig(format="svg").
    settings = sorted(
        (key, repr(value))
        for key, value in dict.items(matplotlib.rcParams)
        if key != "backend"
    )
    return f"{matplotlib.__version__}{settings}"
