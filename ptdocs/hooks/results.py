"""Fill the results pages' markers (below) and the measuring page's sample table from
the benchmark runs (ptdocs/results.py); plots, CSV and JSON are generated beside the
page, never committed. Plots are cached (PLOTS) under a digest of all they are drawn
from: drawing took a third of a warm build."""

import hashlib
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs import results as results_module
from ptdocs.atomic import write_atomically
from ptdocs.generated import add_beside, pages_named
from ptdocs.results import COMPARE_MODULE, SAMPLE, STRINGS, ResultsError
from ptdocs.versions import built_language

MARKER = "<!-- results -->"
# marker -> (the name of its plot, the committed pair it shows)
COMPARISONS = {
    "<!-- comparison -->": ("comparison", results_module.COMPARISON),
    "<!-- comparison-aa -->": ("comparison-aa", results_module.AA_PAIR),
}
SAMPLE_MARKER = "<!-- sample-table -->"
PLOTS = Path(".cache") / "ptdocs-plots"  # under the project's root
_pages = {}  # src_uri of a results page -> {marker: its Markdown}, pairs present only
_used_plots: set[Path] = set()  # the cached plots this build (all its languages) used


def _outermost(config) -> bool:
    """Not one of the other languages' builds, which i18n runs inside the first one."""
    i18n = config.plugins.get("i18n")
    return i18n is None or not i18n.building


def on_pre_build(config):
    if _outermost(config):
        _used_plots.clear()


def on_post_build(config):
    """Remove the plots no language of this build used (as mkdocs-jupyter does)."""
    folder = Path(config.config_file_path).parent / PLOTS
    if _outermost(config) and folder.is_dir():
        for path in folder.glob("*.svg"):
            if path not in _used_plots:
                path.unlink(missing_ok=True)


def on_files(files, config):
    root = Path(config.config_file_path).parent
    for page in pages_named(files, "measuring.md"):
        sample = (root / SAMPLE).read_bytes()
        add_beside(files, config, page, SAMPLE.name, SAMPLE.name, sample)
    if not (pages := pages_named(files, "results.md")):
        return files
    try:
        results = results_module.load(root)
        comparisons = {
            marker: results_module.load_comparison(root, pair)
            for marker, (_, pair) in COMPARISONS.items()
        }
    except ResultsError as error:
        raise PluginError(f"results page: {error}") from None
    for page in pages:
        language = built_language(page, config, STRINGS)

        def add(source, name, content, page=page):
            """Beside the page, linked by its source name: MkDocs checks the link and
            rewrites it to the built file."""
            add_beside(files, config, page, source, name, content)
            return source

        def plots(name, data, language=language):
            """The drawing in each colour scheme, shown in its scheme (see picture)."""
            return [
                add(
                    f"results-{name}-{language}{dark}.svg",
                    f"{name}{dark}.svg",
                    svg(root, data, language, scheme),
                )
                for dark, scheme in (("", "light"), ("-dark", "dark"))
            ]

        plot, dark = plots("latency", results)
        data = {"benchmark.csv": results.csv_path, "benchmark.json": results.json_path}
        links = [
            add(f"results-{n}", n, (root / p).read_bytes()) for n, p in data.items()
        ]
        shown = {MARKER: results_module.section(results, language, plot, *links, dark)}
        for marker, (name, _) in COMPARISONS.items():
            if (comparison := comparisons[marker]) is not None:
                links = plots(name, comparison)
                shown[marker] = results_module.comparison_section(
                    comparison, root, language, *links
                )
        _pages[page.src_uri] = shown
    return files


def on_page_markdown(markdown, page, config, files):
    where = page.file.src_uri
    if where.rsplit("/", 1)[-1] == "measuring.md":
        if markdown.count(SAMPLE_MARKER) != 1:
            raise PluginError(
                f"{where}: put exactly one '{SAMPLE_MARKER}' line where the sample goes"
            )
        try:
            sample = Path(config.config_file_path).parent / SAMPLE
            table = results_module.sample_table(sample)
        except ResultsError as error:
            raise PluginError(f"measuring page: {error}") from None
        return markdown.replace(SAMPLE_MARKER, table)
    if where not in _pages:
        return markdown
    shown = _pages[where]
    if markdown.count(MARKER) != 1:
        raise PluginError(
            f"{where}: put exactly one '{MARKER}' line where the results go"
        )
    for marker, (_, pair) in COMPARISONS.items():
        if markdown.count(marker) > 1:
            raise PluginError(f"{where}: put at most one '{marker}' line")
        if marker in markdown and marker not in shown:
            raise PluginError(
                f"{where}: '{marker}' needs the committed pair "
                f"{results_module.needed(pair)} (each with its .json)"
            )
    for marker, text in shown.items():
        markdown = markdown.replace(marker, text)
    return markdown


def svg(root: Path, data, language: str, scheme: str = "light") -> str:
    """``plot_svg(data, language, scheme)``, from the plot cache when drawn from the
    same inputs."""
    draw, text = results_module.plot_svg, repr(data)
    if " at 0x" in text:  # a repr without the content: its digest would not name it
        return draw(data, language, scheme)
    digest = hashlib.sha256()
    for part in (language, scheme, text, _code(), _matplotlib()):
        digest.update(part.encode("utf-8") + b"\0")
    path = root / PLOTS / f"{digest.hexdigest()}.svg"
    _used_plots.add(path)
    if path.is_file():
        return path.read_text(encoding="utf-8")
    drawn = draw(data, language, scheme)
    write_atomically(path, drawn)
    return drawn


def _code() -> str:
    """The drawing code: ptdocs/results.py, and compare.py as it loads it."""
    drawing = Path(results_module.__file__).resolve()
    return "".join(
        hashlib.sha256(file.read_bytes()).hexdigest()
        for file in (drawing, drawing.parents[1] / COMPARE_MODULE)
    )


def _matplotlib() -> str:
    """matplotlib's version and settings; `backend` left out: reading it would import
    pyplot, and it does not change an SVG written by savefig."""
    import matplotlib  # not pyplot: a second, where the plots come from the cache

    settings = sorted(  # as stored: without rcParams' lookups
        (key, repr(value))
        for key, value in dict.items(matplotlib.rcParams)
        if key != "backend"
    )
    return f"{matplotlib.__version__}{settings}"
