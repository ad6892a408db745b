"""Render the benchmark CSV the pipeline produced as a table and a plot, with its
metadata.

Which results: ``results/benchmark.csv`` with ``results/benchmark.json`` beside it
when they exist (``tools/pipeline.sh`` writes them with ``python
snippets/measuring/benchmark.py --preset quick``, but any pair found there is shown,
and the page claims no more than that); otherwise the committed sample
``samples/benchmark-cpu.csv`` (+ ``.json``), and the page says so. Neither present,
or a CSV without its metadata, is an error: the page never shows numbers it cannot
trace to a run.

The CSV follows the measuring guide's template (``trial, torch_build, device, dtype,
shape, batch, latency, memory, quality_pass``) with further columns appended (``task,
latency_iqr, threads, error, blocks, noisy, ...``), read by name. ``latency`` is the
median of the timed blocks' mean seconds per call and ``latency_iqr`` the
interquartile range of those block means; memory is in bytes, as the metadata's
``units`` say. A CSV made before the ``noisy`` column existed still loads: its noise
is shown as unknown.

Comparisons of two committed runs (``COMPARISON``: 1 against 2 threads; ``AA_PAIR``:
two runs of the same settings, an A/A pair) are drawn by
``snippets/measuring/compare.py``, the reader's own compare command, so the page and
the command never disagree; what the two runs differ in, and when they ran, is read
from their metadata, not typed.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import itertools
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from .catalog import Plural, Texts

FRESH = Path("results") / "benchmark.csv"
SAMPLE = Path("samples") / "benchmark-cpu.csv"
COMPARISON = (
    Path("samples") / "benchmark-cpu-threads1.csv",
    Path("samples") / "benchmark-cpu-threads2.csv",
)
# Same settings (2 threads, same preset and build), started at different times: what
# drift between runs looks like.
AA_PAIR = (
    Path("samples") / "benchmark-cpu.csv",
    Path("samples") / "benchmark-cpu-threads2.csv",
)
COMPARE_MODULE = Path("snippets") / "measuring" / "compare.py"
REQUIRED_METADATA = ("torch_build", "date", "device")
# Columns whose single value is stated once above the table instead of in every row.
CONSTANT = ("workload", "shape", "device", "threads", "tolerance")


class ResultsError(ValueError):
    """Results that cannot be shown truthfully; the message says which file and why,
    on one line."""


@dataclass(frozen=True)
class Results:
    csv_path: Path  # relative to the repository root
    json_path: Path
    # True: results/benchmark.csv (whoever wrote it); False: the committed sample
    fresh: bool
    rows: tuple[dict, ...]
    metadata: dict

    @property
    def failed_quality(self) -> int:
        return sum(1 for row in self.rows if not row["passed"])


def locate(root: Path) -> tuple[Path, bool]:
    """The CSV to show (relative to root) and whether it is fresh, or a ResultsError."""
    for csv_path, fresh in ((FRESH, True), (SAMPLE, False)):
        json_path = csv_path.with_suffix(".json")
        if (root / csv_path).is_file():
            if not (root / json_path).is_file():
                raise ResultsError(
                    f"{csv_path} has no metadata beside it ({json_path}); rerun "
                    "snippets/measuring/benchmark.py, which writes both"
                )
            return csv_path, fresh
        if (root / json_path).is_file():
            raise ResultsError(
                f"{json_path} has no CSV beside it ({csv_path}); rerun "
                "snippets/measuring/benchmark.py, which writes both"
            )
    raise ResultsError(
        f"no benchmark results: neither {FRESH} (python "
        "snippets/measuring/benchmark.py "
        f"--preset quick --output {FRESH}) nor the committed sample {SAMPLE}"
    )


def load(root: Path) -> Results:
    csv_path, fresh = locate(root)
    return load_pair(root, csv_path, fresh)


def load_pair(root: Path, csv_path: Path, fresh: bool) -> Results:
    """One CSV (relative to root) and the metadata beside it, checked to belong
    together."""
    json_path = csv_path.with_suffix(".json")
    rows, metadata = read_rows(root / csv_path), read_metadata(root / json_path)
    check_pair(csv_path, json_path, rows, metadata)
    recorded = metadata.get(
        "csv_sha256"
    )  # absent in metadata written before the benchmark recorded it
    if (
        recorded is not None
        and recorded != hashlib.sha256((root / csv_path).read_bytes()).hexdigest()
    ):
        raise ResultsError(
            f"{json_path} records another CSV (csv_sha256 does not match {csv_path}): "
            "not the same run"
        )
    return Results(csv_path, json_path, fresh, rows, metadata)


def read_metadata(path: Path) -> dict:
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: unreadable metadata ({error})") from error
    if not isinstance(metadata, dict):
        raise ResultsError(f"{path}: metadata must be a JSON object")
    missing = [key for key in REQUIRED_METADATA if not metadata.get(key)]
    if missing:
        raise ResultsError(f"{path}: metadata lacks {', '.join(missing)}")
    return metadata


def check_pair(
    csv_path: Path, json_path: Path, rows: tuple[dict, ...], metadata: dict
) -> None:
    """The metadata must describe this CSV's run, or the page would attribute rows to
    the wrong machine."""
    builds = {row["torch_build"] for row in rows}
    if builds != {metadata["torch_build"]}:
        raise ResultsError(
            f"{json_path} is for torch {metadata['torch_build']!r} but {csv_path} "
            f"holds rows of {', '.join(sorted(map(repr, builds)))}: not the same run"
        )
    if "cells" in metadata and metadata["cells"] != len(rows):
        raise ResultsError(
            f"{json_path} describes {metadata['cells']} cells but {csv_path} has "
            f"{len(rows)} rows: not the same run"
        )


def read_rows(path: Path) -> tuple[dict, ...]:
    """The CSV's rows, read and checked by compare.py (the one reader of the
    benchmark's CSV), with what the page shows derived from them; a bad file is a
    ResultsError."""
    compare = compare_module()
    try:
        rows = compare.read_csv(path)
    except compare.CompareError as error:
        raise ResultsError(str(error)) from None
    for row in rows:
        noisy = (row.get("noisy") or "").strip()
        row.update(
            batch=int(row["batch"] or 0),
            passed=row["quality_pass"] == "true",
            noisy=None
            if noisy == ""
            else noisy == "true",  # None: the CSV predates the flag
            blocks=int(row["blocks"]) if row.get("blocks") else None,
            error=row.get("error") or "",
            task=row.get("task") or "",
        )
    return tuple(rows)


# ---- words
# ------------------------------------------------------------------------------------

# English here; other languages in locale/<language>/LC_MESSAGES/interface.po
# (ptdocs.catalog).
STRINGS = Texts(
    "results",
    {
        "fresh_title": "Fresh results ({csv})",
        "fresh": (
            "The site was built with `{csv}` present, so this page shows it and the "
            "metadata beside it "
            "instead of the committed sample (`{sample}`). The machine, torch build, "
            "date and preset below "
            "are what that metadata records."
        ),
        "sample_title": "Committed sample, not a measurement of this site build",
        "sample": (
            "This site was built without fresh results (`{fresh}`), so it shows the "
            "sample "
            "committed to the repository (`{csv}`), measured on the machine and at "
            "the date "
            "below. A `{fresh}` present when the site is built (the pipeline writes "
            "one) replaces it."
        ),
        "hardware": "Hardware",
        "torch": "torch build",
        "threads": "threads",
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
        "noise_unknown": "unknown",
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
            "{threshold} of their "
            "median, or when fewer than {min_blocks} blocks were timed."
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
            "noisy attempt "
            "kept."
        ),
        "times_word": Plural("time", "times"),
        "noise_criterion": "The noise criterion, as the metadata states it: "
        "{criterion}.",
        "no_noise_column": (
            "This CSV was written before the benchmark flagged noise (it has no "
            "`noisy` "
            "column), so whether a cell was noisy is unknown."
        ),
        "noisy_legend": "noisy (hollow marker)",
        "passed": "✓",
        "failed": "✗",
        "error": "✗ did not run",
        "failed_note": (
            "{n} of {total} cells failed the quality check (✗: a criterion of the "
            "task's quality "
            "check was not met; the row says which when the CSV records it): their "
            "latency and samples per "
            "second are struck through, because speed without the accepted result "
            "does not count."
        ),
        "all_passed": "All {total} cells passed the quality check (✓: every criterion "
        "of the task was met).",
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
            "`{command}`; [1] is the "
            "baseline."
        ),
        "differs": "From their metadata, {label} differs from [1] in {changed}",
        "differs_none": "From their metadata, {label} differs from [1] in none of "
        "{names}: an A/A pair",
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
            "durations overlap): they "
            "shared the machine, and each slowed the other."
        ),
        "started": "started {when}, took {seconds} s",
        "finished": "finished {when}",
        "compare_columns": ("Task", "dtype", "Batch"),
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
            "no IQR": Plural("has no IQR", "have no IQR"),
        },
        "beyond": "beyond ×{f}",
        "limit": "limit ×{f}",
        "not_in": "not in {label}",
        "and": "and",
        "criterion": (
            "The verdict is a rule of thumb, not a significance test. With t the "
            "larger of "
            "{floor} (`--min-change`, a chosen default) and the two rows' IQR / "
            "median summed, a change "
            "counts when the time ratio is beyond a factor of 1 + t in either "
            "direction: above 1 + t "
            "(slower) or below 1 / (1 + t) (faster); the table states the factor "
            "(×1.050 for t = 5%). The number "
            "of blocks is not used, and an IQR is a spread, not a margin of error. t "
            "is the spread "
            "within each run: it cannot see how far the machine drifts between runs. "
            "A cell is not "
            "compared (no ratio shown) when, in either run, it did not run, had a "
            "repeat that failed, "
            "failed the quality check, is flagged noisy or has no IQR; it is missing "
            "when a run lacks "
            "it."
        ),
        "criterion_blocks": (
            "The verdict rests on each cell's block times, kept in the metadata: the "
            "time ratio (the median over repeats of each repeat's median block) and "
            "its 95% bootstrap interval (repeats resampled, then the blocks in each). "
            "A change counts when the whole interval lies beyond a factor of 1 + "
            "{floor} (`--min-change`) and, where A/A pairs were given with "
            "`--calibrate`, the ratio itself lies beyond the largest change, in either"
            " direction, that any cell of those pairs showed (never less than 1 + "
            "{floor}): above both, slower; below their inverses, faster. A cell is not"
            " compared (no ratio shown) when, in either run, it did not run, had a "
            "repeat that failed, failed the quality check or is flagged noisy "
            "(contended included); it is missing when a run lacks it."
        ),
        "interval": "95% {low}–{high}, limit ×{f}",
        "counts": "{label} against [1], cells per verdict: {counts}.",
        "compare_alt": "Time ratio of each cell against the baseline run, coloured by "
        "verdict",
        "ratio_axis": "time / [1] (log scale; left of 1: faster)",
        "band_legend": "noise limit",
        "aa_after": "{later} started {gap} s after {earlier} finished: the same "
        "settings at another moment.",
        "aa_drift": (
            "In this A/A pair, {n} of {compared} compared cells {called}: with no "
            "setting changed, "
            "that difference lies between the runs themselves, and the spread within "
            "each run does not "
            "cover it. Read a verdict between two other runs of this machine with "
            "that in mind."
        ),
        "aa_steady": (
            "In this A/A pair, none of the {compared} compared cells is called faster "
            "or slower; "
            "another A/A pair, on a busier machine or further apart in time, can "
            "differ."
        ),
        "aa_none": (
            "In this A/A pair no cell could be compared: each was flagged (noisy or "
            "contended) "
            "or failed in a run, so the pair says nothing about how far this machine "
            "drifts."
        ),
        "called": Plural("is called faster or slower", "are called faster or slower"),
    },
)


def _in_units(value: float | None, units) -> str:
    """3 significant digits in the first unit the value reaches (the last one else);
    bytes whole."""
    if value is None:
        return "—"
    unit, scale = next(
        ((unit, scale) for unit, scale in units if abs(value) >= scale), units[-1]
    )
    return f"{value / scale:{'.0f' if unit == 'B' else '.3g'}} {unit}"


def seconds(value: float | None) -> str:
    return (
        "0"
        if value == 0
        else _in_units(value, (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)))
    )


def size(value: float | None) -> str:
    return _in_units(value, (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1)))


def rate(value: float | None) -> str:
    """Per-second counts without exponents: 3 significant digits, thousands apart (SI
    style)."""
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
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def source_note(results: Results, language: str) -> str:
    w = STRINGS.in_language(language)
    if results.fresh:
        kind, title = "info", w["fresh_title"].format(csv=results.csv_path.as_posix())
        text = w["fresh"].format(
            csv=results.csv_path.as_posix(), sample=SAMPLE.as_posix()
        )
    else:
        kind, title, text = (
            "warning",
            w["sample_title"],
            w["sample"].format(fresh=FRESH.as_posix(), csv=results.csv_path.as_posix()),
        )
    return f'!!! {kind} "{title}"\n\n    {text}\n'


def machine(results: Results, language: str) -> str:
    w, m = STRINGS.in_language(language), results.metadata
    hardware = m.get("device_name") or m.get("cpu_model") or m["device"]
    if m.get("device_name") and m["device"] not in hardware:
        hardware = f"{hardware} (`{m['device']}`)"
    facts = [f"**{w['hardware']}:** {_cell(hardware)}"]
    if m.get("threads"):
        facts[-1] += f", {m['threads']} {w['threads_word'](int(m['threads']))}"
    facts.append(f"**{w['torch']}:** `{m['torch_build']}`")
    if m.get("python"):
        facts.append(
            f"**{w['python']}:** {m['python']}"
            + (f" ({m['platform']})" if m.get("platform") else "")
        )
    facts.append(f"**{w['measured']}:** {when(m['date'])}")
    preset = (m.get("run") or {}).get("preset")
    if preset:
        facts.append(f"{w['preset']} `{preset}`")
    return " · ".join(facts) + "\n"


def table(results: Results, language: str) -> str:
    """The rows as a Markdown table; cells that failed the quality check are marked
    ✗, their latency struck."""
    w = STRINGS.in_language(language)
    constant = {
        column: results.rows[0].get(column)
        for column in CONSTANT
        if column in results.rows[0]
        and len({row.get(column) for row in results.rows}) == 1
    }
    lines = []
    if constant:
        lines += [
            f"{w['every_row']}: "
            + ", ".join(
                f"{w['constant'][column]} `{_plain(value)}`"
                for column, value in constant.items()
            )
            + ".",
            "",
        ]
    lines += ["| " + " | ".join(w["columns"]) + " |", "|" + "---|" * len(w["columns"])]
    for row in sorted(
        results.rows, key=lambda r: (_task_order(r["task"]), r["dtype"], r["batch"])
    ):
        latency = seconds(row["latency"])
        iqr = seconds(row["latency_iqr"]) if row["latency"] is not None else "—"
        noise = (
            "—"
            if row["latency"] is None
            else (
                w["noise_unknown"]
                if row["noisy"] is None
                else w["noisy"]
                if row["noisy"]
                else w["steady"]
            )
        )
        if row["error"]:
            quality = f"{w['error']}: {_cell(row['error'])}"
        else:
            quality = w["passed"] if row["passed"] else w["failed"]
            if not row["passed"] and row.get(
                "quality_failure"
            ):  # newer CSVs say which criterion failed
                quality += f" {row['quality_failure']}"
            elif row["rel_error"] is not None:
                quality += f" {row['rel_error']:.2g}"
                if "tolerance" not in constant and row["tolerance"] is not None:
                    quality += f" / {row['tolerance']:g}"
        samples = rate(row["samples_per_s"])
        if (
            not row["passed"] and row["latency"] is not None
        ):  # speed without the accepted result: struck
            latency = f"✗ <s>{latency}</s>"
            if row["samples_per_s"] is not None:
                samples = f"<s>{samples}</s>"
        task = w["tasks"].get(row["task"], row["task"] or "—")
        lines.append(
            "| "
            + " | ".join(
                _cell(value)
                for value in (
                    task,
                    f"`{row['dtype']}`",
                    row["batch"],
                    latency,
                    iqr,
                    noise,
                    size(row["memory"]),
                    samples,
                    quality,
                )
            )
            + " |"
        )
    failed, total = results.failed_quality, len(results.rows)
    lines += [
        "",
        w["failed_note"].format(n=failed, total=total)
        if failed
        else w["all_passed"].format(total=total),
    ]
    lines += ["", noise_note(results, language)]
    return "\n".join(lines) + "\n"


def noise_rule(metadata: dict, language: str) -> str:
    """When a row is flagged noisy (and the rerun policy), in the page's language,
    from the metadata's numbers.

    '' when the metadata lacks the numbers (written before it recorded them).
    """
    w, noise = STRINGS.in_language(language), metadata.get("noise")
    if not isinstance(noise, dict):
        return ""
    threshold, min_blocks = noise.get("threshold"), noise.get("min_blocks")
    if not isinstance(threshold, (int, float)) or not isinstance(min_blocks, int):
        return ""
    text = w["noise_rule"].format(threshold=f"{threshold:.0%}", min_blocks=min_blocks)
    share = noise.get("contention_threshold")
    if isinstance(share, (int, float)):
        text += " " + w["contention_rule"].format(
            share=f"{share:g}", wait=f"{1 - share:.0%}"
        )
    reruns = (metadata.get("run") or {}).get("reruns")
    if isinstance(reruns, int) and reruns > 0:
        text += " " + w["rerun_rule"].format(
            reruns=reruns, times=w["times_word"](reruns)
        )
    return text


def noise_criterion(metadata: dict) -> str:
    """The metadata's own (English) statement of when a row is flagged noisy, or ''."""
    noise = metadata.get("noise")
    if isinstance(noise, dict):
        noise = noise.get("criterion")
    if not noise and isinstance(metadata.get("columns"), dict):
        noise = metadata["columns"].get("noisy")
    return str(noise).strip().rstrip(".") if noise else ""


def noise_note(results: Results, language: str) -> str:
    """How many rows are flagged noisy and by which criterion, or that the CSV cannot
    say."""
    w = STRINGS.in_language(language)
    timed = [row for row in results.rows if row["latency"] is not None]
    if any(row["noisy"] is None for row in timed):
        return w["no_noise_column"]
    noisy = sum(1 for row in timed if row["noisy"])
    parts = [w["noisy_note"].format(n=noisy, total=len(results.rows))] if noisy else []
    rule = noise_rule(
        results.metadata, language
    )  # built from the numbers, so each language says it itself
    criterion = (
        "" if rule else noise_criterion(results.metadata)
    )  # else an older metadata's own words
    if rule:
        parts.append(rule)
    elif criterion:
        parts.append(w["noise_criterion"].format(criterion=criterion))
    return " ".join(parts)


def _plain(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _task_order(task: str) -> int:
    order = ("inference", "training", "gradient")
    return order.index(task) if task in order else len(order)


def svg_of(draw, data, language: str, scheme: str) -> str:
    """``draw(data, language, scheme)``'s figure as SVG text (its words stay text, in
    the page's language), in the colour scheme's style."""
    import matplotlib.pyplot as plt

    with plt.rc_context(scheme_style(scheme)):
        figure = draw(data, language, scheme)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(figure)
    return buffer.getvalue()


def plot_svg(results: Results, language: str, scheme: str = "light") -> str:
    return svg_of(draw, results, language, scheme)


PLOT_STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "ptdocs-results",
    "font.family": "sans-serif",
    "font.size": 10,
}
FAILED_COLOR = "#d62728"
# Each plot is drawn for each colour scheme of the site, on a transparent background;
# the page shows the one of the reader's scheme (Material's #only-light and #only-dark,
# see picture). The data's colours (a dtype, a verdict) are the same in both: text, axes
# and the neutral marks (a hollow marker's inside, the noise band, the line at 1) follow
# the scheme.
SCHEMES = {
    "light": {
        "ink": "black",
        "muted": "0.35",
        "rule": "0.2",
        "band": "0.9",
        "hollow": "white",
    },
    "dark": {
        "ink": "#e2e4e9",
        "muted": "0.72",
        "rule": "0.8",
        "band": "0.34",
        "hollow": "#1e2129",
    },
}


def scheme_style(scheme: str) -> dict:
    ink = SCHEMES[scheme]["ink"]
    return {
        **PLOT_STYLE,
        "savefig.transparent": True,
        "text.color": ink,
        "axes.labelcolor": ink,
        "axes.titlecolor": ink,
        "axes.edgecolor": ink,
        "xtick.color": ink,
        "ytick.color": ink,
    }


def picture(alt: str, plot: str, dark_plot: str | None = None) -> str:
    """A plot as Markdown, in a box that keeps it legible on a phone (it scrolls
    sideways there, see overrides/assets/stylesheets/ptdocs.css); with ``dark_plot``,
    each scheme's drawing."""
    images = (
        [f"![{alt}]({plot})"]
        if dark_plot is None
        else [f"![{alt}]({plot}#only-light)", f"![{alt}]({dark_plot}#only-dark)"]
    )
    return '<div class="ptdocs-plot" markdown>\n\n' + "\n".join(images) + "\n\n</div>\n"


def draw(results: Results, language: str, scheme: str = "light"):
    """Latency against batch size, one line per dtype, one panel per task; noisy
    hollow, failed quality ✗."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator

    w = STRINGS.in_language(language)
    tasks = sorted({row["task"] for row in results.rows}, key=_task_order)
    dtypes = sorted({row["dtype"] for row in results.rows})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    figure, axes = plt.subplots(
        1,
        len(tasks),
        figsize=(2.9 * len(tasks), 3.3),
        squeeze=False,
        layout="constrained",
    )
    handles = {}
    any_failed = any_noisy = False
    for axis, task in zip(axes[0], tasks, strict=False):
        for index, dtype in enumerate(dtypes):
            mine = [
                r
                for r in results.rows
                if r["task"] == task
                and r["dtype"] == dtype
                and r["latency"] is not None
            ]
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
                any_noisy = True
                axis.plot(
                    noisy,
                    [medians[batches.index(b)] for b in noisy],
                    linestyle="none",
                    marker="o",
                    markersize=8,
                    markerfacecolor=SCHEMES[scheme]["hollow"],
                    markeredgecolor=color,
                    markeredgewidth=1.8,
                    zorder=2.5,
                )
            failed = [r for r in mine if not r["passed"]]
            if failed:
                any_failed = True
                axis.scatter(
                    [r["batch"] for r in failed],
                    [r["latency"] * 1e3 for r in failed],
                    marker="x",
                    s=90,
                    linewidths=2.2,
                    color=FAILED_COLOR,
                    zorder=3,
                )
        axis.set_title(w["tasks"].get(task, task or "—"))
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        batches = sorted({r["batch"] for r in results.rows if r["task"] == task})
        axis.set_xticks(batches, [str(b) for b in batches])
        axis.xaxis.set_minor_locator(NullLocator())
        axis.set_xlabel(w["batch_axis"])
        axis.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(w["latency_axis"])
    legend = [handles[dtype] for dtype in dtypes if dtype in handles]
    if any_noisy:
        legend.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="o",
                markersize=8,
                markerfacecolor=SCHEMES[scheme]["hollow"],
                markeredgecolor=SCHEMES[scheme]["muted"],
                markeredgewidth=1.8,
                label=w["noisy_legend"],
            )
        )
    if any_failed:
        legend.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="x",
                markersize=9,
                markeredgewidth=2.2,
                color=FAILED_COLOR,
                label=w["failed_legend"],
            )
        )
    figure.legend(
        handles=legend, loc="outside lower center", ncols=len(legend), frameon=False
    )
    return figure


def section(
    results: Results,
    language: str,
    plot: str,
    csv_link: str,
    json_link: str,
    dark_plot: str | None = None,
) -> str:
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


# ---- the measuring page's sample, as a table
# ---------------------------------------------------

# The main columns of the sample, those the measuring page's prose compares, under the
# CSV's own names (the prose quotes them, in both languages); the whole file is a link
# away. As many as fit the column at 1280 px without breaking a number (`attempts`, the
# next, does not). Numeric ones align right.
SAMPLE_COLUMNS = (
    "task",
    "dtype",
    "batch",
    "latency",
    "latency_iqr",
    "memory",
    "noisy",
    "quality_pass",
    "quality_failure",
)
NUMERIC = {"batch", "latency", "latency_iqr", "memory"}


def sample_table(path: Path, columns=SAMPLE_COLUMNS) -> str:
    """Some columns of a benchmark CSV as a Markdown table, every value as the file
    writes it (an empty one left empty)."""
    with path.open(newline="", encoding="utf-8") as file:
        reader = csv.DictReader(file)
        missing = [
            column for column in columns if column not in (reader.fieldnames or ())
        ]
        if missing:
            raise ResultsError(
                f"{path.as_posix()}: no column {', '.join(missing)}; the table of the "
                f"measuring page shows {', '.join(columns)}"
            )
        rows = list(reader)
    # A long column name may break after an underscore (<wbr>): the values, not the
    # names, set the width.
    lines = [
        "| "
        + " | ".join(
            f"<code>{column.replace('_', '_<wbr>')}</code>" for column in columns
        )
        + " |",
        "|" + "".join("---:|" if column in NUMERIC else "---|" for column in columns),
    ]
    # In code type, as the prose quotes them (`true`, `false`): values of the file, not
    # words of the page.
    lines += [
        "| "
        + " | ".join(
            f"`{_cell(row[column])}`" if row[column] else "" for column in columns
        )
        + " |"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


# ---- comparison of two runs (drawn by the reader's own compare command)
# -------------------------


def compare_module():
    """This repository's snippets/measuring/compare.py, the reader's own compare
    command."""
    from snippets.measuring import (
        compare,
    )  # a namespace package: installed with ptdocs (pyproject.toml)

    return compare


def load_comparison(root: Path, paths=COMPARISON):
    """The committed pair compared by compare.py, or None when the pair is absent; a
    bad pair is a ResultsError."""
    if not all((root / path).is_file() for path in paths):
        return None
    for path in paths:  # the pair must be traceable runs, as the main results are
        if not (root / path.with_suffix(".json")).is_file():
            raise ResultsError(
                f"{path} has no metadata beside it ({path.with_suffix('.json')}); "
                "rerun "
                "snippets/measuring/benchmark.py, which writes both"
            )
        load_pair(root, path, fresh=False)
    compare = compare_module()
    try:
        return compare.compare([root / path for path in paths])
    except compare.CompareError as error:
        raise ResultsError(f"comparison: {error}") from None


def _run_name(run, root: Path, language: str) -> str:
    w = STRINGS.in_language(language)
    try:
        path = run.path.relative_to(root).as_posix()
    except ValueError:
        path = run.path.as_posix()
    device = f"`{run.device}`"
    if run.device_name and run.device_name != run.device:
        device += f" ({_cell(run.device_name)})"
    threads = ""
    if run.threads:
        threads = f", {run.threads} {w['threads_word'](int(run.threads))}"
    preset = f", {w['preset']} `{run.preset}`" if run.preset else ""
    if run.span:
        moment = ", " + w["started"].format(
            when=when(run.meta("started")),
            seconds=f"{float(run.meta('wall_seconds')):.0f}",
        )
    else:
        moment = ", " + w["finished"].format(when=when(run.date)) if run.date else ""
    return (
        f"**{run.label}** `{path}`: `{run.torch_build}`, "
        f"{device}{threads}{preset}{moment}"
    )


def _verdict_text(verdict, language: str) -> str:
    w = STRINGS.in_language(language)
    if verdict.kind == "missing":
        ((_, (label,)),) = verdict.causes
        return f"{w['verdicts']['missing']} ({w['not_in'].format(label=label)})"
    if verdict.kind == "not compared":
        causes = "; ".join(
            f" {w['and']} ".join(labels) + " " + w["reasons"][reason](len(labels))
            for reason, labels in verdict.causes
        )
        return f"{w['verdicts']['not compared']} ({causes})"
    word = w["verdicts"][verdict.kind]
    limit = (w["limit"] if verdict.kind == "within noise" else w["beyond"]).format(
        f=f"{verdict.factor:.3f}"
    )
    if verdict.interval:
        low, high = verdict.interval
        limit = w["interval"].format(
            low=f"{low:.3f}", high=f"{high:.3f}", f=f"{verdict.factor:.3f}"
        )
    return (
        f"**{word}** ({limit})"
        if verdict.kind in ("faster", "slower")
        else f"{word} ({limit})"
    )


def comparison_table(comparison, root: Path, language: str) -> str:
    """The comparison as Markdown: the runs, one row per cell, the criterion and the
    tally."""
    w = STRINGS.in_language(language)
    runs = comparison.runs
    lines = ["\n".join(f"- {_run_name(run, root, language)}" for run in runs), ""]
    header = list(w["compare_columns"]) + [
        w["latency_of"].format(label=run.label) for run in runs
    ]
    for run in runs[1:]:
        header += [
            w["ratio_of"].format(label=run.label),
            w["verdict_of"].format(label=run.label),
        ]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key in comparison.keys:
        workload, task, dtype, shape, batch = key
        cells = [w["tasks"].get(task, task or "—"), f"`{dtype}`", batch]
        for run in runs:
            entry = run.cells.get(key)
            if entry is None or entry.latency is None:
                cells.append("—")
                continue
            text = f"{seconds(entry.latency)} ({seconds(entry.iqr)})"
            if entry.noisy:
                text += f" {w['noisy']}"
            if not entry.passed:
                text = f"✗ <s>{text}</s>"
            cells.append(text)
        for index in range(1, len(runs)):
            verdict = comparison.verdicts[key, index]
            # No ratio for a cell not compared: 0.78 beside a failed quality check reads
            # as a speedup.
            shown = verdict.ratio is not None and verdict.kind != "not compared"
            cells += [
                f"{verdict.ratio:.2f}" if shown else "—",
                _verdict_text(verdict, language),
            ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    blocks = any(entry.blocks for run in runs for entry in run.cells.values())
    lines += [
        "",
        w["criterion_blocks" if blocks else "criterion"].format(
            floor=f"{comparison.min_change:.0%}"
        ),
    ]
    for index, run in enumerate(runs[1:], 1):
        counts = ", ".join(
            f"{w['verdicts'][kind]} {n}"
            for kind, n in comparison.counts(index).items()
            if n
        )
        lines.append(w["counts"].format(label=run.label, counts=counts))
    if any(entry.noisy is None for run in runs for entry in run.cells.values()):
        lines += ["", w["no_noise_column"]]
    return "\n".join(lines) + "\n"


VERDICT_COLORS = {"faster": "#2ca02c", "slower": "#d62728", "within noise": "#7f7f7f"}


def draw_comparison(comparison, language: str, scheme: str = "light"):
    """One horizontal bar per cell: the time ratio to [1] on a log axis, coloured by
    verdict.

    The grey band behind a bar spans the ratios that would not have counted, 1 / (1 +
    t) to 1 + t; a cell that was not compared gets no bar and no band, only a label
    at 1, so that no ratio without a verdict reads as a speedup.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, NullLocator

    w = STRINGS.in_language(language)
    keys = [
        key
        for key in comparison.keys
        if any(
            comparison.verdicts[key, i].kind != "missing"
            for i in range(1, len(comparison.runs))
        )
    ]
    others = len(comparison.runs) - 1
    height = 0.8 / others
    figure, axis = plt.subplots(
        figsize=(7.2, 0.9 + 0.32 * len(keys) * others), layout="constrained"
    )
    kinds = set()
    for row, key in enumerate(keys):
        for index in range(1, others + 1):
            verdict = comparison.verdicts[key, index]
            y = row + (index - 1 - (others - 1) / 2) * height
            kinds.add(verdict.kind)
            if (
                verdict.kind not in VERDICT_COLORS
            ):  # not compared (or missing): a label, no bar
                axis.annotate(
                    w["verdicts"][verdict.kind],
                    (1, y),
                    xytext=(6, 0),
                    textcoords="offset points",
                    ha="left",
                    va="center",
                    color=SCHEMES[scheme]["muted"],
                    fontstyle="italic",
                    fontsize=8,
                )
                continue
            factor = verdict.factor
            axis.barh(
                y,
                factor - 1 / factor,
                left=1 / factor,
                height=height,
                color=SCHEMES[scheme]["band"],
                zorder=0,
            )
            axis.barh(
                y,
                verdict.ratio - 1,
                left=1,
                height=height * 0.7,
                color=VERDICT_COLORS[verdict.kind],
            )
    axis.axvline(1, color=SCHEMES[scheme]["rule"], linewidth=1)
    axis.set_xscale("log")
    low, high = (
        axis.get_xlim()
    )  # keep 1 well inside, so the labels of cells not compared have room
    spread = max(high, 1 / low, 1.2)
    axis.set_xlim(min(low, 1 / spread), max(high, spread))
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.xaxis.set_minor_locator(NullLocator())
    low, high = axis.get_xlim()
    fine = [
        t
        for t in (0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4)
        if low <= t <= high
    ]
    coarse = [
        t
        for t in (
            0.01,
            0.02,
            0.05,
            0.1,
            0.2,
            0.5,
            1,
            2,
            5,
            10,
            20,
            50,
            100,
            200,
            500,
            1000,
        )
        if low <= t <= high
    ]
    axis.set_xticks(fine if high / low < 20 else coarse)
    axis.set_yticks(
        range(len(keys)),
        [f"{w['tasks'].get(k[1], k[1])} · {k[2]} · b{k[4]}" for k in keys],
    )
    axis.invert_yaxis()
    axis.set_xlabel(w["ratio_axis"])
    axis.grid(True, axis="x", alpha=0.3)
    legend = [
        Patch(color=VERDICT_COLORS[kind], label=w["verdicts"][kind])
        for kind in VERDICT_COLORS
        if kind in kinds
    ]
    legend.append(Patch(color=SCHEMES[scheme]["band"], label=w["band_legend"]))
    figure.legend(
        handles=legend, loc="outside lower center", ncols=len(legend), frameon=False
    )
    return figure


def comparison_svg(comparison, language: str, scheme: str = "light") -> str:
    return svg_of(draw_comparison, comparison, language, scheme)


COMMAND = "python snippets/measuring/compare.py"
BENCHMARK_COMMAND = "python snippets/measuring/benchmark.py"


def benchmark_command(comparison) -> str:
    """The benchmark command the runs share: with --preset when every run's metadata
    names the same one."""
    presets = {run.preset for run in comparison.runs}
    preset = presets.pop() if len(presets) == 1 else None
    return f"{BENCHMARK_COMMAND} --preset {preset}" if preset else BENCHMARK_COMMAND


def setting_notes(comparison, language: str) -> list[str]:
    """What each run differs from [1] in, from the metadata and CSVs, and the
    warnings that follow from it."""
    compare, w = compare_module(), STRINGS.in_language(language)
    names = w["settings"]
    base = comparison.runs[0]
    notes = []
    for run in comparison.runs[1:]:
        changed, known = compare.differences(base, run), _known(base, run)
        if changed:
            text = w["differs"].format(
                label=run.label,
                changed=", ".join(
                    f"{names[name]} (`{a}` → `{b}`)" for name, (a, b) in changed.items()
                ),
            )
            same = [names[name] for name in known if name not in changed]
            notes.append(
                text + (w["agrees"].format(same=", ".join(same)) if same else "") + "."
            )
        else:
            notes.append(
                w["differs_none"].format(
                    label=run.label, names=", ".join(names[n] for n in known)
                )
                + "."
            )
        if len(changed) > 1:
            notes.append(w["mixed"])
    for first, second in itertools.combinations(comparison.runs, 2):
        if compare.overlap(first, second):
            notes.append(w["overlapped"].format(first=first.label, second=second.label))
    return notes


def _known(base, run) -> list[str]:
    """The settings (compare.SETTINGS) that both runs' metadata and CSVs say."""
    return [
        name
        for name in compare_module().SETTINGS
        if base.settings()[name] is not None and run.settings()[name] is not None
    ]


def is_aa(comparison) -> bool:
    """True when the metadata knows some settings of every run and none differs from
    [1]'s: an A/A pair."""
    base = comparison.runs[0]
    return all(
        _known(base, run) and not compare_module().differences(base, run)
        for run in comparison.runs[1:]
    )


def gap_note(first, second, language: str) -> str:
    """Which of two runs started after the other finished, and how long after (from
    the metadata), or ''."""
    if first.span is None or second.span is None:
        return ""
    (start_a, end_a), (start_b, end_b) = first.span, second.span
    if start_b >= end_a:
        earlier, later, gap = first, second, start_b - end_a
    elif start_a >= end_b:
        earlier, later, gap = second, first, start_a - end_b
    else:  # overlapping runs: setting_notes says so
        return ""
    return STRINGS.in_language(language)["aa_after"].format(
        earlier=earlier.label, later=later.label, gap=f"{gap.total_seconds():.0f}"
    )


def aa_summary(comparison, language: str) -> str:
    """How many compared cells an A/A pair calls faster or slower: drift the
    within-run spread cannot see."""
    w = STRINGS.in_language(language)
    counts = comparison.counts(1)
    compared = counts["faster"] + counts["slower"] + counts["within noise"]
    n = counts["faster"] + counts["slower"]
    if not compared:
        return w["aa_none"]
    if not n:
        return w["aa_steady"].format(compared=compared)
    return w["aa_drift"].format(n=n, compared=compared, called=w["called"](n))


def comparison_section(
    comparison, root: Path, language: str, plot: str, dark_plot: str | None = None
) -> str:
    """Everything that replaces a comparison marker of the page (``<!-- comparison
    -->``, ...).

    For an A/A pair (no setting differs, from the metadata), the note also says when
    the second run started and, under the table, how many cells the verdict
    nevertheless calls faster or slower.
    """
    w = STRINGS.in_language(language)
    paths = []
    for run in comparison.runs:
        try:
            paths.append(run.path.relative_to(root).as_posix())
        except ValueError:
            paths.append(run.path.as_posix())
    aa = is_aa(comparison) and len(comparison.runs) == 2
    notes = setting_notes(comparison, language)
    gap = gap_note(*comparison.runs, language) if aa else ""
    if gap:
        notes.append(gap)
    note = " ".join(
        [
            w["compare_intro"].format(
                benchmark=benchmark_command(comparison),
                command=f"{COMMAND} {' '.join(paths)}",
            ),
            *notes,
        ]
    )
    return "\n".join(
        [
            f'!!! warning "{w["compare_title"]}"\n\n    {note}\n',
            picture(w["compare_alt"], plot, dark_plot),
            comparison_table(comparison, root, language),
            *([aa_summary(comparison, language), ""] if aa else []),
        ]
    )
