"""The results page: a benchmark run (fresh, else the committed sample, saying so) as a
table and plots, and committed pairs compared by snippets/measuring/compare.py, the
reader's own command, so the two never disagree. Untraceable numbers are an error."""

from __future__ import annotations

import csv
import datetime
import io
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from snippets.measuring import compare  # installed with ptdocs (pyproject.toml)

from .catalog import Plural, Texts, listed
from .generated import markdown_table, table_cell

FRESH = Path("results/benchmark.csv")
SAMPLE = Path("samples/benchmark-cpu.csv")
COMPARISON = tuple(Path(f"samples/benchmark-cpu-threads{n}.csv") for n in (1, 2))
# Same settings (2 threads, same preset and build), started at different times: what
# drift between runs looks like.
AA_PAIR = (SAMPLE, COMPARISON[1])
# The A/A pair that calibrates a pair's verdicts (compare.py --calibrate): a change
# counts only beyond the largest change the A/A pair showed (compare.calibrate says
# which cells count), which the spread within a run cannot show.
CALIBRATION = {COMPARISON: AA_PAIR}
# Drawn with, so digested by the plot cache with this file (ptdocs/hooks/results.py).
COMPARE_MODULE = Path("snippets/measuring/compare.py")
BENCHMARK_COMMAND = "python snippets/measuring/benchmark.py"
COMMAND = "python snippets/measuring/compare.py"
REQUIRED_METADATA = ("torch_build", "date", "device")
# Columns whose single value is stated once above the table instead of in every row.
CONSTANT = ("workload", "shape", "device", "threads", "tolerance")
# The order of the table's rows and of the plot's panels.
TASKS = ("inference", "training", "gradient")


class ResultsError(ValueError):
    """Results that cannot be shown truthfully; one line saying which file and why."""


@dataclass(frozen=True)
class Results:
    csv_path: Path  # relative to the repository root
    json_path: Path
    fresh: bool  # True: results/benchmark.csv (whoever wrote it); False: the sample
    rows: tuple[dict, ...]
    metadata: dict

    @property
    def failed_quality(self) -> int:
        return sum(1 for row in self.rows if not row["passed"])


def load(root: Path) -> Results:
    """The fresh results where either of their files exists, else the sample."""
    for csv_path, fresh in ((FRESH, True), (SAMPLE, False)):
        if any((root / p).is_file() for p in (csv_path, csv_path.with_suffix(".json"))):
            return load_pair(root, csv_path, fresh)
    raise ResultsError(
        f"no benchmark results: neither {FRESH} ({BENCHMARK_COMMAND} --preset quick "
        f"--output {FRESH}) nor the committed sample {SAMPLE}"
    )


def load_pair(root: Path, csv_path: Path, fresh: bool) -> Results:
    """One CSV (relative to root) and the metadata beside it, checked to be one run's:
    otherwise the page would attribute rows to the wrong machine."""
    json_path = csv_path.with_suffix(".json")
    for have, lack, what in (
        (csv_path, json_path, "metadata"),
        (json_path, csv_path, "CSV"),
    ):
        if (root / have).is_file() and not (root / lack).is_file():
            raise ResultsError(
                f"{have} has no {what} beside it ({lack}); rerun "
                "snippets/measuring/benchmark.py, which writes both"
            )
    rows, text = read_rows(root / csv_path)
    metadata = read_metadata(root / json_path)
    builds = {row["torch_build"] for row in rows}
    if builds != {metadata["torch_build"]}:
        raise ResultsError(
            f"{json_path} is for torch {metadata['torch_build']!r} but {csv_path} "
            f"holds rows of {', '.join(sorted(map(repr, builds)))}: not the same run"
        )
    if metadata.get("cells", len(rows)) != len(rows):
        raise ResultsError(
            f"{json_path} describes {metadata['cells']} cells but {csv_path} has "
            f"{len(rows)} rows: not the same run"
        )
    records = compare.describes(metadata, text)
    if records is None:
        raise ResultsError(
            f"{json_path} records no csv_sha256 (an older benchmark); rerun "
            f"{BENCHMARK_COMMAND}"
        )
    if not records:
        raise ResultsError(
            f"{json_path} records another CSV (csv_sha256 does not match {csv_path}): "
            "not the same run"
        )
    # What the page says of noise and verdicts rests on these: an older benchmark's
    # CSV has no noisy flag, its metadata no block times.
    blocks = compare.block_times(metadata)
    for row in rows:
        if row["latency"] is not None and (
            row["noisy"] is None or row["trial"] not in blocks
        ):
            raise ResultsError(
                f"{csv_path}: {row['trial']} has no noisy flag or no block times in "
                f"{json_path} (an older benchmark); rerun {BENCHMARK_COMMAND}"
            )
    return Results(csv_path, json_path, fresh, tuple(rows), metadata)


def read_metadata(path: Path) -> dict:
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: unreadable metadata ({error})") from error
    if not isinstance(metadata, dict):
        raise ResultsError(f"{path}: metadata must be a JSON object")
    if missing := [key for key in REQUIRED_METADATA if not metadata.get(key)]:
        raise ResultsError(f"{path}: metadata lacks {', '.join(missing)}")
    return metadata


def read_rows(path: Path) -> tuple[list[dict], str]:
    """The rows as compare.py, the one reader of the benchmark's CSV, reads them, and
    the CSV's text."""
    try:
        text = compare.csv_text(path)
        rows = compare.read_csv(path, text)
    except compare.CompareError as error:
        raise ResultsError(str(error)) from None
    for row in rows:
        row.update(
            batch=int(row["batch"] or 0),
            passed=row["quality_pass"] == "true",
            # None: a row not timed (load_pair refuses a timed one without it)
            noisy={"": None, "true": True, "false": False}[row.get("noisy") or ""],
            error=row.get("error") or "",
            task=row.get("task") or "",
        )
    return rows, text


def _in_units(value: float | None, units) -> str:
    """3 significant digits (bytes whole) in the first unit the value reaches."""
    if value is None:
        return "—"
    unit, scale = next(((u, s) for u, s in units if abs(value) >= s), units[-1])
    return f"{value / scale:{'.0f' if unit == 'B' else '.3g'}} {unit}"


def seconds(value: float | None) -> str:
    return "0" if value == 0 else _in_units(value, compare.UNITS)


def size(value: float | None) -> str:
    return _in_units(value, (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1)))


def rate(value: float | None) -> str:
    """3 significant digits, never an exponent, thousands apart (SI style)."""
    if value is None:
        return "—"
    if value >= 1000:
        digits = len(str(int(value))) - 3
        return f"{round(value, -digits):,.0f}".replace(",", "\u202f")
    return f"{value:.3g}"


def when(iso: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


# English here; other languages in locale/<language>/LC_MESSAGES/interface.po
# (ptdocs.catalog), whose references name this line (moved: catalog update).
STRINGS = Texts(
    "results",
    {
        "fresh_title": "Fresh results ({csv})",
        "fresh": (
            "This page shows `{csv}`, present when the site was built, instead of the "
            "committed sample (`{sample}`); the machine, torch build, date and preset "
            "below are what the metadata beside it records."
        ),
        "sample_title": "Committed sample, not a measurement of this site build",
        "sample": (
            "No `{fresh}` was present when the site was built (the pipeline writes "
            "one), so this page shows the committed sample `{csv}`, measured on the "
            "machine and at the date below."
        ),
        "hardware": "Hardware",
        "torch": "torch build",
        "measured": "Measured",
        "preset": "preset",
        "python": "Python",
        "every_row": "Every row",
        "constant": {
            "workload": "workload",
            "shape": "shape",
            "device": "device",
            "threads": "threads",
            "tolerance": "relative-error tolerance",
        },
        "plot_alt": "Latency per call against batch size, one line per dtype",
        "columns": (
            "Task",
            "dtype",
            "Batch",
            "Latency (median of block means)",
            "IQR of block means",
            "Noise",
            "Memory",
            "Samples/s",
            "Quality check (relative error)",
        ),
        "noisy": "⚠ noisy",
        "steady": "not flagged",
        "noisy_note": (
            "{n} of {total} cells are flagged noisy (⚠): their blocks spread widely, "
            "were too few, or their threads waited for a core (contended), a sign the "
            "machine was not steady or was shared; measure them again on a quieter "
            "machine or with `--threads 1` (too few blocks: a larger "
            "`--max-run-time`); with several `--repeats`, compare.py leaves a noisy "
            "repeat out when at least two, and most, are clean."
        ),
        "noise_rule": (
            "A cell is flagged noisy when the IQR of its block means is at least "
            "{threshold} of their median, or when fewer than {min_blocks} "
            "blocks were timed."
        ),
        "contention_rule": (
            "It is also flagged when it was contended: its threads waited for a core "
            "more than {wait} of the wall time (the `wait_share` column, measured by "
            "Linux; elsewhere, `cpu_share` under {share} with one thread, or with "
            "several while the load average exceeded the usable CPUs or the OS gives "
            "none), however steady its blocks."
        ),
        "rerun_rule": (
            "A noisy cell was timed again, up to {reruns} more {times}, and the least "
            "noisy attempt kept."
        ),
        "times_word": Plural("time", "times"),
        "noisy_legend": "noisy (hollow marker)",
        "error": "✗ did not run",
        "failed_note": (
            "{n} of {total} cells failed the quality check (✗: a criterion of the "
            "task's quality check was not met; the row says which when the CSV records "
            "it): their latency and samples per second are struck through, because "
            "speed without the accepted result does not count."
        ),
        "all_passed": (
            "All {total} cells passed the quality check (✓: every criterion of "
            "the task was met)."
        ),
        "download": "The files: [CSV]({csv}) · [metadata (JSON)]({json}).",
        "tasks": {
            "inference": "inference",
            "training": "training step",
            "gradient": "gradient",
        },
        "latency_axis": "latency per call (ms)",
        "batch_axis": "batch size",
        "failed_legend": "quality check failed",
        "compare_title": "Committed sample pair, not a measurement of this site build",
        "compare_intro": (
            "Runs of `{benchmark}` committed to the repository, compared by "
            "`{command}`; [1] is the baseline."
        ),
        "differs": "From their metadata, {label} differs from [1] in {changed}",
        "differs_none": (
            "From their metadata, {label} differs from [1] in none of "
            "{names}: an A/A pair"
        ),
        "agrees": "; they agree in {same}",
        "settings": {
            "torch build": "torch build",
            "device": "device",
            "CPU model": "CPU model",
            "threads": "thread count",
            "preset": "preset",
        },
        "mixed": "More than one setting differs, so each ratio mixes their effects.",
        "overlapped": (
            "{first} and {second} ran at the same time (their start times and "
            "durations overlap): they shared the machine, and each slowed the other."
        ),
        "started": "started {when}, took {seconds} s",
        "finished": "finished {when}",
        "latency_of": "{label} latency (IQR)",
        "ratio_of": "{label} / [1]",
        "verdict_of": "Verdict {label}",
        "threads_word": Plural("thread", "threads"),
        "verdicts": {
            "faster": "faster",
            "slower": "slower",
            "within noise": "within noise",
            "not compared": "not compared",
            "missing": "missing",
        },
        "reasons": {
            "did not run": Plural("did not run", "did not run"),
            "a repeat failed": Plural(
                "had a repeat that failed", "had a repeat that failed"
            ),
            "failed the quality check": Plural(
                "failed the quality check", "failed the quality check"
            ),
            "flagged noisy": Plural("flagged noisy", "flagged noisy"),
            "repeats disagree": Plural(
                "had repeats that disagree", "had repeats that disagree"
            ),
            "no IQR": Plural("has no IQR", "have no IQR"),
        },
        "not_in": "not in {label}",
        "criterion_blocks": (
            "The verdict rests on each cell's block times, kept in the metadata: the "
            "time ratio (the median over repeats of each repeat's median block) and "
            "its 95% bootstrap interval (repeats resampled, then the blocks in each). "
            "A change counts when the whole interval lies beyond a factor of 1 + "
            "{floor} (`--min-change`) in either direction. A cell is not "
            "compared (no ratio shown) when, in either run, it did not run, had a "
            "repeat that failed, failed the quality check, is flagged noisy "
            "(contended included) or had repeats whose medians disagree (their IQR at "
            "{repeat_spread} of the median or more); it is missing when a run lacks it."
        ),
        "criterion_drift": (
            "Calibrated by the A/A pair (`--calibrate`), the ratio itself must also "
            "lie beyond ×{drift}: the largest change of that pair's cells, leaving out "
            "those not compared for a reason other than disagreeing repeats, or the "
            "limit if that is larger."
        ),
        "interval": "95% {low}–{high}, limit ×{f}",
        "interval_drift": "95% {low}–{high}, limit ×{f}, A/A drift ×{drift}",
        "counts": "{label} against [1], cells per verdict: {counts}.",
        "compare_alt": (
            "Time ratio of each cell against the baseline run, coloured by verdict"
        ),
        "ratio_axis": "time / [1] (log scale; left of 1: faster)",
        "band_legend": "not counted as a change",
        "aa_after": (
            "{later} started {gap} s after {earlier} finished: the same settings at "
            "another moment."
        ),
        "aa_drift": (
            "In this A/A pair, {n} of {compared} compared cells {called}, and its "
            "cells moved by a factor of up to {largest}: with no setting changed, that "
            "difference comes from the runs themselves, and the spread within each run "
            "does not cover it. "
            "Between two other runs of this machine, a verdict says little unless its "
            "ratio is further from 1 than that."
        ),
        "aa_steady": (
            "In this A/A pair, none of the {compared} compared cells is called faster "
            "or slower; another A/A pair, on a busier machine or further apart in "
            "time, can differ."
        ),
        "aa_none": (
            "In this A/A pair no cell could be compared: each was flagged (noisy or "
            "contended) or failed in a run, so the pair says nothing about how far "
            "this machine drifts."
        ),
        "called": Plural("is called faster or slower", "are called faster or slower"),
    },
)


def load_comparison(root: Path, paths=COMPARISON, calibrated=True):
    """The pair compared by compare.py (None without it or, ``calibrated``, without the
    A/A pair that calibrates it in CALIBRATION), each a traceable run."""
    calibration = CALIBRATION.get(paths, ()) if calibrated else ()
    if not all((root / path).is_file() for path in (*paths, *calibration)):
        return None
    for path in dict.fromkeys((*paths, *calibration)):
        load_pair(root, path, fresh=False)
    try:
        drift = None
        if calibration:
            drift = compare.calibrate(*(root / path for path in calibration))
        return compare.compare([root / path for path in paths], drift=drift)
    except compare.CompareError as error:
        raise ResultsError(f"comparison: {error}") from None


def needed(paths) -> str:
    """The files a comparison of ``paths`` reads, named for a message asking for it."""
    named, by = (
        " and ".join(p.as_posix() for p in ps)
        for ps in (paths, CALIBRATION.get(paths, ()))
    )
    return named + (by and f", calibrated by the A/A pair {by}")


def _relative(path: Path, root: Path) -> str:
    return (path.relative_to(root) if path.is_relative_to(root) else path).as_posix()


def _task(w: dict, task: str) -> str:
    return w["tasks"].get(task, task or "—")


def _task_order(task: str) -> int:
    return TASKS.index(task) if task in TASKS else len(TASKS)


def _plain(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def source_note(results: Results, language: str) -> str:
    w, shown = STRINGS.in_language(language), results.csv_path.as_posix()
    key, kind = ("fresh", "info") if results.fresh else ("sample", "warning")
    paths = {"csv": shown, "sample": SAMPLE.as_posix(), "fresh": FRESH.as_posix()}
    title, text = (w[key + part].format(**paths) for part in ("_title", ""))
    return f'!!! {kind} "{title}"\n\n    {text}\n'


def machine(results: Results, language: str) -> str:
    w, m = STRINGS.in_language(language), results.metadata
    hardware = m.get("device_name") or m.get("cpu_model") or m["device"]
    if m.get("device_name") and m["device"] not in hardware:
        hardware = f"{hardware} (`{m['device']}`)"
    facts = [f"**{w['hardware']}:** {table_cell(hardware)}"]
    if m.get("threads"):
        facts[-1] += f", {m['threads']} {w['threads_word'](int(m['threads']))}"
    facts.append(f"**{w['torch']}:** `{m['torch_build']}`")
    if m.get("python"):
        platform = f" ({m['platform']})" if m.get("platform") else ""
        facts.append(f"**{w['python']}:** {m['python']}{platform}")
    facts.append(f"**{w['measured']}:** {when(m['date'])}")
    if preset := (m.get("run") or {}).get("preset"):
        facts.append(f"{w['preset']} `{preset}`")
    return " · ".join(facts) + "\n"


def table(results: Results, language: str) -> str:
    """The rows as a Markdown table; a cell that failed the quality check is marked ✗,
    its speeds struck: speed without the accepted result does not count."""
    w, rows = STRINGS.in_language(language), results.rows
    constant = {
        column: rows[0][column]
        for column in CONSTANT
        if column in rows[0] and len({row.get(column) for row in rows}) == 1
    }
    lines, cells = [], []
    if constant:
        shared = (f"{w['constant'][c]} `{_plain(v)}`" for c, v in constant.items())
        lines += [f"{w['every_row']}: {', '.join(shared)}.", ""]
    order = sorted(rows, key=lambda r: (_task_order(r["task"]), r["dtype"], r["batch"]))
    for row in order:
        timed = row["latency"] is not None
        latency, samples = seconds(row["latency"]), rate(row["samples_per_s"])
        noise = w["noisy" if row["noisy"] else "steady"] if timed else "—"
        if row["error"]:
            quality = f"{w['error']}: {row['error']}"  # the row escapes it
        else:
            quality = "✓" if row["passed"] else "✗"
            if not row["passed"] and row.get("quality_failure"):  # newer CSVs say
                quality += f" {row['quality_failure']}"
            elif row["rel_error"] is not None:
                quality += f" {row['rel_error']:.2g}"
                if "tolerance" not in constant and row["tolerance"] is not None:
                    quality += f" / {row['tolerance']:g}"
        if not row["passed"] and timed:
            latency = f"✗ <s>{latency}</s>"
            if row["samples_per_s"] is not None:
                samples = f"<s>{samples}</s>"
        iqr = seconds(row["latency_iqr"]) if timed else "—"
        cell = (_task(w, row["task"]), f"`{row['dtype']}`", row["batch"], latency)
        cells.append(cell + (iqr, noise, size(row["memory"]), samples, quality))
    lines.append(markdown_table(w["columns"], cells, searched=False))
    failed, total = results.failed_quality, len(rows)
    summary = w["failed_note"] if failed else w["all_passed"]
    note = noise_note(results, language)
    lines += ["", summary.format(n=failed, total=total), "", note]
    return "\n".join(lines) + "\n"


def noise_note(results: Results, language: str) -> str:
    """How many rows are flagged noisy and by which rule, from the metadata's numbers
    (never its English words)."""
    w, meta = STRINGS.in_language(language), results.metadata
    noisy = sum(1 for row in results.rows if row["noisy"])
    parts = [w["noisy_note"].format(n=noisy, total=len(results.rows))] if noisy else []
    given = meta.get("noise")
    noise = given if isinstance(given, dict) else {}
    threshold, blocks = noise.get("threshold"), noise.get("min_blocks")
    share = noise.get("contention_threshold")
    reruns = (meta.get("run") or {}).get("reruns")
    if isinstance(threshold, int | float) and isinstance(blocks, int):
        parts.append(
            w["noise_rule"].format(threshold=f"{threshold:.0%}", min_blocks=blocks)
        )
        if isinstance(share, int | float):
            wait = f"{1 - share:.0%}"
            parts.append(w["contention_rule"].format(share=f"{share:g}", wait=wait))
        if isinstance(reruns, int) and reruns > 0:
            times = w["times_word"](reruns)
            parts.append(w["rerun_rule"].format(reruns=reruns, times=times))
    return " ".join(parts)


def section(results, language, plot, csv_link, json_link, dark_plot=None) -> str:
    """Everything that replaces the page's ``<!-- results -->`` marker."""
    w = STRINGS.in_language(language)
    return "\n".join(
        [
            source_note(results, language),
            machine(results, language),
            picture(w["plot_alt"], plot, dark_plot),
            table(results, language),
            w["download"].format(csv=csv_link, json=json_link),
            "",
        ]
    )


PLOT_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "ptdocs-results"}
PLOT_STYLE |= {"font.family": "sans-serif", "font.size": 10}
PLOT_STYLE |= {"figure.constrained_layout.use": True}
# The settings that take the colour scheme's ink.
INKED = ("text.color", "axes.labelcolor", "axes.titlecolor", "axes.edgecolor")
INKED += ("xtick.color", "ytick.color")
FAILED_COLOR = "#d62728"
FAILED_CROSS = {"linewidths": 2.2, "color": FAILED_COLOR, "zorder": 3}
VERDICT_COLORS = {"faster": "#2ca02c", "slower": "#d62728", "within noise": "#7f7f7f"}
# Each plot is drawn for each colour scheme, on a transparent background; the page shows
# the reader's (see picture). The data's colours are the same in both: text, axes and
# the neutral marks (a hollow marker's inside, the noise band, the line at 1) follow it.
SCHEMES = {
    name: dict(zip(("ink", "muted", "rule", "band", "hollow"), colours, strict=True))
    for name, colours in (
        ("light", ("black", "0.35", "0.2", "0.9", "white")),
        ("dark", ("#e2e4e9", "0.72", "0.8", "0.34", "#1e2129")),
    )
}
# A comparison's label at 1, for a cell without a bar.
LABEL_STYLE = {"xytext": (6, 0), "textcoords": "offset points", "ha": "left"}
LABEL_STYLE |= {"va": "center", "fontstyle": "italic", "fontsize": 8}
# Ticks of the ratio axis: FINE_TICKS where it spans less than a factor of 20.
FINE_TICKS = (0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4)
COARSE_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200)
COARSE_TICKS += (500, 1000)


def plot_svg(
    data: Results | compare.Comparison, language: str, scheme: str = "light"
) -> str:
    """The plot of ``data`` as SVG in the scheme's style, its words text in the
    language: one run's results drawn by draw, a pair's comparison by draw_comparison.
    One entry point for both, so that the plot cache (hooks/results.py) keys one
    function's drawings."""
    if isinstance(data, Results):
        drawing = draw
    elif isinstance(data, compare.Comparison):
        drawing = draw_comparison
    else:
        raise TypeError(f"no plot of a {type(data).__name__}: results or a comparison")
    plt = _pyplot()
    ink = dict.fromkeys(INKED, SCHEMES[scheme]["ink"])
    with plt.rc_context(PLOT_STYLE | {"savefig.transparent": True} | ink):
        figure = drawing(data, language, scheme)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(figure)
    return buffer.getvalue()


def picture(alt: str, plot: str, dark_plot: str | None = None) -> str:
    """A plot in a box that scrolls sideways on a phone (overrides/assets/stylesheets/
    ptdocs.css); with ``dark_plot``, each colour scheme's drawing in its scheme."""
    images = [f"![{alt}]({plot})"]
    if dark_plot is not None:
        images = [f"![{alt}]({plot}#only-light)", f"![{alt}]({dark_plot}#only-dark)"]
    return '<div class="ptdocs-plot" markdown>\n\n' + "\n".join(images) + "\n\n</div>\n"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files, never a window
    import matplotlib.pyplot as plt

    return plt


def _legend(figure, handles) -> None:
    figure.legend(
        handles=handles, loc="outside lower center", ncols=len(handles), frameon=False
    )


def draw(results: Results, language: str, scheme: str = "light"):
    """Latency by batch, a line per dtype, a panel per task; noisy hollow, failed ✗."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator

    w, look = STRINGS.in_language(language), SCHEMES[scheme]
    timed = [row for row in results.rows if row["latency"] is not None]
    tasks = sorted({row["task"] for row in results.rows}, key=_task_order)
    dtypes = sorted({row["dtype"] for row in results.rows})
    plt, size = _pyplot(), (2.9 * len(tasks), 3.3)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    figure, axes = plt.subplots(1, len(tasks), figsize=size, squeeze=False)
    hollow = {"linestyle": "none", "marker": "o", "markersize": 8}
    hollow |= {"markerfacecolor": look["hollow"], "markeredgewidth": 1.8}
    handles = {}
    for axis, task in zip(axes[0], tasks, strict=False):
        for index, dtype in enumerate(dtypes):
            mine = [r for r in timed if r["task"] == task and r["dtype"] == dtype]
            if not mine:
                continue
            batches = sorted({r["batch"] for r in mine})
            medians = [
                statistics.median(r["latency"] for r in mine if r["batch"] == b) * 1e3
                for b in batches
            ]
            color = colors[index % len(colors)]
            (line,) = axis.plot(batches, medians, color=color, marker="o", label=dtype)
            handles.setdefault(dtype, line)
            noisy = [
                b for b in batches if any(r["noisy"] for r in mine if r["batch"] == b)
            ]
            if noisy:  # hollow: a median the benchmark itself calls imprecise
                ys = [medians[batches.index(b)] for b in noisy]
                axis.plot(noisy, ys, markeredgecolor=color, zorder=2.5, **hollow)
            if failed := [r for r in mine if not r["passed"]]:
                xs = [r["batch"] for r in failed]
                ys = [r["latency"] * 1e3 for r in failed]
                axis.scatter(xs, ys, marker="x", s=90, **FAILED_CROSS)
        axis.set_title(_task(w, task))
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        batches = sorted({r["batch"] for r in results.rows if r["task"] == task})
        axis.set_xticks(batches, [str(b) for b in batches])
        axis.xaxis.set_minor_locator(NullLocator())
        axis.set_xlabel(w["batch_axis"])
        axis.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(w["latency_axis"])
    legend = [handles[dtype] for dtype in dtypes if dtype in handles]
    if any(row["noisy"] for row in timed):
        edge = look["muted"]
        legend.append(
            Line2D([], [], markeredgecolor=edge, label=w["noisy_legend"], **hollow)
        )
    if any(not row["passed"] for row in timed):
        cross = {"marker": "x", "markersize": 9, "markeredgewidth": 2.2}
        cross |= {"linestyle": "none", "color": FAILED_COLOR}
        legend.append(Line2D([], [], label=w["failed_legend"], **cross))
    _legend(figure, legend)
    return figure


def draw_comparison(comparison, language: str, scheme: str = "light"):
    """One horizontal bar per cell: the time ratio to [1] on a log axis, coloured by
    verdict, on a grey band over the ratios that would not count, 1 / (1 + t) to 1 + t
    (calibrated: to the A/A drift, where it is further).
    A cell not compared gets only a label at 1: no ratio of it reads as a speedup."""
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, NullLocator

    w, look = STRINGS.in_language(language), SCHEMES[scheme]
    verdicts = [(key, comparison.verdicts[key, 1]) for key in comparison.keys]
    verdicts = [(key, v) for key, v in verdicts if v.kind != "missing"]
    figure, axis = _pyplot().subplots(figsize=(7.2, 0.9 + 0.32 * len(verdicts)))
    for y, (_, verdict) in enumerate(verdicts):
        if verdict.kind not in VERDICT_COLORS:  # not compared
            label = w["verdicts"][verdict.kind]
            axis.annotate(label, (1, y), color=look["muted"], **LABEL_STYLE)
            continue
        limit = compare.drift_limit(verdict.drift, verdict.threshold) or verdict.factor
        inside, colour = 1 / limit, VERDICT_COLORS[verdict.kind]
        band = {"height": 0.8, "color": look["band"], "zorder": 0}
        axis.barh(y, limit - inside, left=inside, **band)
        axis.barh(y, verdict.ratio - 1, left=1, height=0.8 * 0.7, color=colour)
    axis.axvline(1, color=look["rule"], linewidth=1)
    axis.set_xscale("log")
    low, high = axis.get_xlim()  # keep 1 well inside: room for the labels at 1
    spread = max(high, 1 / low, 1.2)
    axis.set_xlim(min(low, 1 / spread), max(high, spread))
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.xaxis.set_minor_locator(NullLocator())
    low, high = axis.get_xlim()
    ticks = FINE_TICKS if high / low < 20 else COARSE_TICKS
    axis.set_xticks([t for t in ticks if low <= t <= high])
    labels = [f"{_task(w, k[1])} · {k[2]} · b{k[4]}" for k, _ in verdicts]
    axis.set_yticks(range(len(verdicts)), labels)
    axis.invert_yaxis()
    axis.set_xlabel(w["ratio_axis"])
    axis.grid(True, axis="x", alpha=0.3)
    legend = [
        Patch(color=VERDICT_COLORS[kind], label=w["verdicts"][kind])
        for kind in VERDICT_COLORS
        if kind in {verdict.kind for _, verdict in verdicts}
    ]
    _legend(figure, legend + [Patch(color=look["band"], label=w["band_legend"])])
    return figure


def _run_name(run, root: Path, language: str) -> str:
    w = STRINGS.in_language(language)
    device = f"`{run.device}`"
    if run.device_name and run.device_name != run.device:
        device += f" ({table_cell(run.device_name)})"
    threads = run.threads and f", {run.threads} {w['threads_word'](int(run.threads))}"
    preset = f", {w['preset']} `{run.preset}`" if run.preset else ""
    if run.span:
        took, started = float(run.meta("wall_seconds")), when(run.meta("started"))
        moment = ", " + w["started"].format(when=started, seconds=f"{took:.0f}")
    else:
        moment = ", " + w["finished"].format(when=when(run.date)) if run.date else ""
    return (
        f"**{run.label}** `{_relative(run.path, root)}`: `{run.torch_build}`, "
        f"{device}{threads}{preset}{moment}"
    )


def _verdict_text(verdict, language: str) -> str:
    w = STRINGS.in_language(language)
    word = w["verdicts"][verdict.kind]
    if verdict.kind == "missing":
        ((_, (label,)),) = verdict.causes
        return f"{word} ({w['not_in'].format(label=label)})"
    if verdict.kind == "not compared":
        causes = "; ".join(
            listed(labels, language) + " " + w["reasons"][reason](len(labels))
            for reason, labels in verdict.causes
        )
        return f"{word} ({causes})"
    low, high = (f"{end:.3f}" for end in verdict.interval)
    ends = {"low": low, "high": high, "f": f"{verdict.factor:.3f}"}
    if (drift := compare.drift_limit(verdict.drift, verdict.threshold)) is None:
        limit = w["interval"].format(**ends)
    else:
        limit = w["interval_drift"].format(**ends, drift=f"{drift:.3f}")
    word = word if verdict.kind == "within noise" else f"**{word}**"
    return f"{word} ({limit})"


def comparison_table(comparison, root: Path, language: str) -> str:
    """The runs, one row per cell, the criterion and the tally, as Markdown."""
    w, runs = STRINGS.in_language(language), comparison.runs
    lines = ["\n".join(f"- {_run_name(run, root, language)}" for run in runs), ""]
    header = [*w["columns"][:3]] + [w["latency_of"].format(label=r.label) for r in runs]
    header += [w[key].format(label=runs[1].label) for key in ("ratio_of", "verdict_of")]
    rows = []
    for key in comparison.keys:
        _, task, dtype, _, batch = key
        cells = [_task(w, task), f"`{dtype}`", batch]
        for run in runs:
            entry = run.cells.get(key)
            if entry is None or entry.latency is None:
                cells.append("—")
                continue
            text = f"{seconds(entry.latency)} ({seconds(entry.iqr)})"
            text += f" {w['noisy']}" if entry.noisy else ""
            cells.append(text if entry.passed else f"✗ <s>{text}</s>")
        # No ratio for a cell not compared: 0.78 beside a failed check reads as a
        # speedup (compare.py's rule).
        verdict = comparison.verdicts[key, 1]
        cells += [compare._ratio(verdict, "{:.2f}"), _verdict_text(verdict, language)]
        rows.append(cells)
    lines.append(markdown_table(header, rows, searched=False))
    floor, spread = f"{comparison.min_change:.0%}", f"{compare.REPEAT_SPREAD:.0%}"
    criterion = w["criterion_blocks"].format(floor=floor, repeat_spread=spread)
    drift = compare.drift_limit(comparison.drift, comparison.min_change)
    if drift is not None:
        criterion += " " + w["criterion_drift"].format(drift=f"{drift:.3f}")
    lines += ["", criterion]
    tally = comparison.counts(1).items()
    counts = ", ".join(f"{w['verdicts'][kind]} {n}" for kind, n in tally if n)
    lines.append(w["counts"].format(label=runs[1].label, counts=counts))
    return "\n".join(lines) + "\n"


def benchmark_command(comparison) -> str:
    """The benchmark command of the runs: with --preset when all name the same one."""
    presets = {run.preset for run in comparison.runs}
    preset = presets.pop() if len(presets) == 1 else None
    return f"{BENCHMARK_COMMAND} --preset {preset}" if preset else BENCHMARK_COMMAND


def _known(base, run) -> list[str]:
    """The settings (compare.SETTINGS) that both runs' metadata and CSVs say."""
    mine, theirs = base.settings(), run.settings()
    return [s for s in compare.SETTINGS if None not in (mine[s], theirs[s])]


def setting_notes(comparison, language: str) -> list[str]:
    """What [2] differs from [1] in (metadata and CSVs say), and what follows."""
    w, (base, run) = STRINGS.in_language(language), comparison.runs
    changed, known = compare.differences(base, run), _known(base, run)
    names = w["settings"]
    if not changed:
        known_names = ", ".join(names[name] for name in known)
        notes = [w["differs_none"].format(label=run.label, names=known_names) + "."]
    else:
        changes = ", ".join(
            f"{names[name]} (`{a}` → `{b}`)" for name, (a, b) in changed.items()
        )
        text = w["differs"].format(label=run.label, changed=changes)
        if same := [names[name] for name in known if name not in changed]:
            text += w["agrees"].format(same=", ".join(same))
        notes = [text + "."] + ([w["mixed"]] if len(changed) > 1 else [])
    if compare.overlap(base, run):
        notes.append(w["overlapped"].format(first=base.label, second=run.label))
    return notes


def is_aa(comparison) -> bool:
    """Some settings of both runs known and none differing: an A/A pair."""
    base, run = comparison.runs
    return bool(_known(base, run)) and not compare.differences(base, run)


def gap_note(first, second, language: str) -> str:
    """How long after the other one run started, or '' (overlap: setting_notes says)."""
    if first.span is None or second.span is None or compare.overlap(first, second):
        return ""
    earlier, later = sorted((first, second), key=lambda run: run.span)
    gap = f"{(later.span[0] - earlier.span[1]).total_seconds():.0f}"
    return STRINGS.in_language(language)["aa_after"].format(
        earlier=earlier.label, later=later.label, gap=gap
    )


def aa_summary(comparison, language: str) -> str:
    """How many cells an A/A pair calls changed: drift a run's spread cannot see."""
    w, counts = STRINGS.in_language(language), comparison.counts(1)
    n = counts["faster"] + counts["slower"]
    compared = n + counts["within noise"]
    if not compared:
        return w["aa_none"]
    if not n:
        return w["aa_steady"].format(compared=compared)
    # compare.py's own rule, --calibrate's: the largest change of a cell of the pair
    drift = compare.drift_of([comparison.runs], floor=comparison.min_change)
    largest = f"×{1 + drift:.3f}"
    called = w["called"](n)
    return w["aa_drift"].format(n=n, compared=compared, called=called, largest=largest)


def comparison_section(comparison, root, language, plot, dark_plot=None) -> str:
    """A load_comparison's Markdown, its command calibrated as it was; for an A/A pair,
    also the gap and the drift."""
    w = STRINGS.in_language(language)
    pair = tuple(Path(_relative(run.path, root)) for run in comparison.runs)
    paths = " ".join(path.as_posix() for path in pair)
    if comparison.drift is not None and (calibration := CALIBRATION.get(pair)):
        paths += " --calibrate " + " ".join(path.as_posix() for path in calibration)
    aa = is_aa(comparison)
    notes = setting_notes(comparison, language)
    if aa and (gap := gap_note(*comparison.runs, language)):
        notes.append(gap)
    intro = w["compare_intro"].format(
        benchmark=benchmark_command(comparison), command=f"{COMMAND} {paths}"
    )
    note = " ".join([intro, *notes])
    return "\n".join(
        [
            f'!!! warning "{w["compare_title"]}"\n\n    {note}\n',
            picture(w["compare_alt"], plot, dark_plot),
            comparison_table(comparison, root, language),
            *([aa_summary(comparison, language), ""] if aa else []),
        ]
    )


# The main columns of the sample, those the measuring page's prose compares (quoting
# their names), as many as fit the column at 1280 px without breaking a number
# (`attempts`, the next, does not); the whole file is a link away. NUMERIC align right.
SAMPLE_COLUMNS = ("task", "dtype", "batch", "latency", "latency_iqr", "memory")
SAMPLE_COLUMNS += ("noisy", "quality_pass", "quality_failure")
NUMERIC = {"batch", "latency", "latency_iqr", "memory"}


def sample_table(path: Path, columns=SAMPLE_COLUMNS) -> str:
    """Some columns of a benchmark CSV as a Markdown table, each value as the file
    writes it, in code type as the prose quotes them (an empty one left empty)."""
    with path.open(newline="", encoding="utf-8") as file:
        reader = csv.DictReader(file)
        if missing := [c for c in columns if c not in (reader.fieldnames or ())]:
            raise ResultsError(
                f"{path.as_posix()}: no column {', '.join(missing)}; the table of the "
                f"measuring page shows {', '.join(columns)}"
            )
        rows = list(reader)
    # A long name may break after an underscore: the values, not the names, set widths.
    header = [f"<code>{column.replace('_', '_<wbr>')}</code>" for column in columns]
    align = ["---:|" if column in NUMERIC else "---|" for column in columns]
    cells = [[f"`{row[c]}`" if row[c] else "" for c in columns] for row in rows]
    return markdown_table(header, cells, align, searched=False) + "\n"
