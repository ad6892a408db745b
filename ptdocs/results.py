"""Render the benchmark CSV the pipeline produced as a table and a plot, with its metadata.

Which results: ``results/benchmark.csv`` with ``results/benchmark.json`` beside it
when they exist (written by ``python snippets/measuring/benchmark.py --preset
quick``, e.g. by the measurement job in CI); otherwise the committed sample
``samples/benchmark-cpu.csv`` (+ ``.json``), and the page says so. Neither
present, or a CSV without its metadata, is an error: the page never shows
numbers it cannot trace to a run.

The CSV follows the measuring guide's template (``trial, torch_build, device,
dtype, shape, batch, latency, memory, quality_pass``) with further columns
appended (``task, latency_iqr, threads, error, ...``). Latency is in seconds,
memory in bytes, as the metadata's ``units`` say.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

FRESH = Path("results") / "benchmark.csv"
SAMPLE = Path("samples") / "benchmark-cpu.csv"
TEMPLATE = ("trial", "torch_build", "device", "dtype", "shape", "batch", "latency", "memory", "quality_pass")
REQUIRED_METADATA = ("torch_build", "date", "device")
# Columns whose single value is stated once above the table instead of in every row.
CONSTANT = ("workload", "shape", "device", "threads", "tolerance")


class ResultsError(ValueError):
    """Results that cannot be shown truthfully; the message says which file and why, on one line."""


@dataclass(frozen=True)
class Results:
    csv_path: Path  # relative to the repository root
    json_path: Path
    fresh: bool  # True: the pipeline's results/; False: the committed sample
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
                raise ResultsError(f"{csv_path} has no metadata beside it ({json_path}); rerun "
                                   "snippets/measuring/benchmark.py, which writes both")
            return csv_path, fresh
        if (root / json_path).is_file():
            raise ResultsError(f"{json_path} has no CSV beside it ({csv_path}); rerun "
                               "snippets/measuring/benchmark.py, which writes both")
    raise ResultsError(f"no benchmark results: neither {FRESH} (python snippets/measuring/benchmark.py "
                       f"--preset quick --output {FRESH}) nor the committed sample {SAMPLE}")


def load(root: Path) -> Results:
    csv_path, fresh = locate(root)
    return load_pair(root, csv_path, fresh)


def load_pair(root: Path, csv_path: Path, fresh: bool) -> Results:
    """One CSV (relative to root) and the metadata beside it, checked to belong together."""
    json_path = csv_path.with_suffix(".json")
    rows, metadata = read_rows(root / csv_path), read_metadata(root / json_path)
    check_pair(csv_path, json_path, rows, metadata)
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


def check_pair(csv_path: Path, json_path: Path, rows: tuple[dict, ...], metadata: dict) -> None:
    """The metadata must describe this CSV's run, or the page would attribute rows to the wrong machine."""
    builds = {row["torch_build"] for row in rows}
    if builds != {metadata["torch_build"]}:
        raise ResultsError(f"{json_path} is for torch {metadata['torch_build']!r} but {csv_path} "
                           f"holds rows of {', '.join(sorted(map(repr, builds)))}: not the same run")
    if "cells" in metadata and metadata["cells"] != len(rows):
        raise ResultsError(f"{json_path} describes {metadata['cells']} cells but {csv_path} has "
                           f"{len(rows)} rows: not the same run")


def _number(text: str, path: Path, line: int, column: str) -> float | None:
    if text.strip() == "":
        return None
    try:
        return float(text)
    except ValueError:
        raise ResultsError(f"{path}, line {line}: {column} {text!r} is not a number") from None


def read_rows(path: Path) -> tuple[dict, ...]:
    """The CSV's rows with numbers parsed; a file off the template is a ResultsError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ResultsError(f"{path}: {error}") from error
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    if header[: len(TEMPLATE)] != TEMPLATE:
        raise ResultsError(f"{path}: the header must start with the template's columns "
                           f"{','.join(TEMPLATE)}")
    rows = []
    for line, raw in enumerate(reader, start=2):
        if raw["quality_pass"] not in ("true", "false"):
            raise ResultsError(f"{path}, line {line}: quality_pass must be true or false, "
                               f"not {raw['quality_pass']!r}")
        row = dict(raw)
        row["batch"] = int(_number(raw["batch"], path, line, "batch") or 0)
        for column in ("latency", "memory", "latency_iqr", "rel_error", "tolerance", "samples_per_s"):
            row[column] = _number(raw.get(column) or "", path, line, column)
        row["passed"] = raw["quality_pass"] == "true"
        row["error"] = raw.get("error") or ""
        row["task"] = raw.get("task") or ""
        rows.append(row)
    if not rows:
        raise ResultsError(f"{path}: no rows")
    return tuple(rows)


# ---- words ------------------------------------------------------------------------------------

STRINGS = {
    "en": {
        "fresh_title": "Measured by the pipeline",
        "fresh": ("These numbers are the pipeline's own measurement (`{csv}`), written by "
                  "`python snippets/measuring/benchmark.py --preset {preset}` on the machine described below."),
        "sample_title": "Committed sample, not a measurement of this build",
        "sample": ("This site was built without fresh results (`{fresh}`), so it shows the sample "
                   "committed to the repository (`{csv}`), measured on the machine and at the date "
                   "below. The pipeline's own measurement replaces it."),
        "hardware": "Hardware", "torch": "torch build", "threads": "threads", "measured": "Measured",
        "preset": "preset", "python": "Python",
        "every_row": "Every row",
        "constant": {"workload": "workload", "shape": "shape", "device": "device", "threads": "threads",
                     "tolerance": "relative-error tolerance"},
        "plot_alt": "Latency per call against batch size, one line per dtype",
        "columns": ("Task", "dtype", "Batch", "Latency (median ± IQR)", "Memory", "Samples/s",
                    "Quality check (relative error)"),
        "passed": "✓", "failed": "✗", "error": "✗ did not run",
        "failed_note": ("{n} of {total} cells failed the quality check (✗: relative error above the tolerance): "
                        "their latency is struck "
                        "through, because speed without the accepted result does not count."),
        "all_passed": "All {total} cells passed the quality check (✓: relative error within the tolerance).",
        "download": "The files: [CSV]({csv}) · [metadata (JSON)]({json}).",
        "tasks": {"inference": "inference", "training": "training step", "gradient": "gradient"},
        "latency_axis": "latency per call (ms)", "batch_axis": "batch size",
        "failed_legend": "quality check failed",
    },
    "es": {
        "fresh_title": "Medido por el pipeline",
        "fresh": ("Estos números son la medición del propio pipeline (`{csv}`), escrita por "
                  "`python snippets/measuring/benchmark.py --preset {preset}` en la máquina que se describe abajo."),
        "sample_title": "Muestra del repositorio, no una medición de esta compilación",
        "sample": ("Este sitio se compiló sin resultados recientes (`{fresh}`), así que presenta la "
                   "muestra incluida en el repositorio (`{csv}`), medida en la máquina y en la fecha que "
                   "se indican abajo. La medición del propio pipeline la sustituye."),
        "hardware": "Hardware", "torch": "compilación de torch", "threads": "hilos", "measured": "Medido",
        "preset": "preajuste", "python": "Python",
        "every_row": "Todas las filas",
        "constant": {"workload": "carga de trabajo", "shape": "forma", "device": "dispositivo",
                     "threads": "hilos", "tolerance": "tolerancia del error relativo"}, "plot_alt": "Latencia por llamada frente al tamaño de lote, una línea por dtype",
        "columns": ("Tarea", "dtype", "Tamaño de lote", "Latencia (mediana ± IQR)", "Memoria",
                    "Muestras/s", "Control de calidad (error relativo)"),
        "passed": "✓", "failed": "✗", "error": "✗ no se ejecutó",
        "failed_note": ("{n} de {total} celdas no superaron el control de calidad (✗: error relativo por encima de "
                        "la tolerancia): su latencia aparece "
                        "tachada, porque la velocidad sin el resultado aceptado no cuenta."),
        "all_passed": "Las {total} celdas superaron el control de calidad (✓: error relativo dentro de la "
                       "tolerancia).",
        "download": "Los archivos: [CSV]({csv}) · [metadatos (JSON)]({json}).",
        "tasks": {"inference": "inferencia", "training": "paso de entrenamiento", "gradient": "gradiente"},
        "latency_axis": "latencia por llamada (ms)", "batch_axis": "tamaño de lote",
        "failed_legend": "control de calidad no superado",
    },
}


def _words(language: str) -> dict:
    return STRINGS.get(language, STRINGS["en"])


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value == 0:
        return "0"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def size(value: float | None) -> str:
    if value is None:
        return "—"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def rate(value: float | None) -> str:
    """Per-second counts without exponents: 3 significant digits, thousands apart (SI style)."""
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
        moment = moment.astimezone(datetime.timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def source_note(results: Results, language: str) -> str:
    w = _words(language)
    preset = (results.metadata.get("run") or {}).get("preset", "?")
    if results.fresh:
        kind, title, text = "info", w["fresh_title"], w["fresh"].format(csv=results.csv_path.as_posix(),
                                                                         preset=preset)
    else:
        kind, title, text = "warning", w["sample_title"], w["sample"].format(
            fresh=FRESH.as_posix(), csv=results.csv_path.as_posix())
    return f'!!! {kind} "{title}"\n\n    {text}\n'


def machine(results: Results, language: str) -> str:
    w, m = _words(language), results.metadata
    hardware = m.get("device_name") or m.get("cpu_model") or m["device"]
    if m.get("device_name") and m["device"] not in hardware:
        hardware = f"{hardware} (`{m['device']}`)"
    facts = [f"**{w['hardware']}:** {_cell(hardware)}"]
    if m.get("threads"):
        facts[-1] += f", {m['threads']} {w['threads']}"
    facts.append(f"**{w['torch']}:** `{m['torch_build']}`")
    if m.get("python"):
        facts.append(f"**{w['python']}:** {m['python']}" + (f" ({m['platform']})" if m.get("platform") else ""))
    facts.append(f"**{w['measured']}:** {when(m['date'])}")
    preset = (m.get("run") or {}).get("preset")
    if preset:
        facts.append(f"{w['preset']} `{preset}`")
    return " · ".join(facts) + "\n"


def table(results: Results, language: str) -> str:
    """The rows as a Markdown table; cells that failed the quality check are marked ✗, their latency struck."""
    w = _words(language)
    constant = {column: results.rows[0].get(column) for column in CONSTANT
                if column in results.rows[0] and len({row.get(column) for row in results.rows}) == 1}
    lines = []
    if constant:
        lines += [f"{w['every_row']}: " + ", ".join(f"{w['constant'][column]} `{_plain(value)}`"
                                                   for column, value in constant.items())
                  + ".", ""]
    lines += ["| " + " | ".join(w["columns"]) + " |", "|" + "---|" * len(w["columns"])]
    for row in sorted(results.rows, key=lambda r: (_task_order(r["task"]), r["dtype"], r["batch"])):
        latency = seconds(row["latency"])
        if row["latency"] is not None and row["latency_iqr"] is not None:
            latency += f" ± {seconds(row['latency_iqr'])}"
        if row["error"]:
            quality = f"{w['error']}: {_cell(row['error'])}"
        else:
            quality = w["passed"] if row["passed"] else w["failed"]
            if row["rel_error"] is not None:
                quality += f" {row['rel_error']:.2g}"
                if "tolerance" not in constant and row["tolerance"] is not None:
                    quality += f" / {row['tolerance']:g}"
        if not row["passed"] and row["latency"] is not None:
            latency = f"✗ <s>{latency}</s>"
        samples = rate(row["samples_per_s"])
        task = w["tasks"].get(row["task"], row["task"] or "—")
        lines.append("| " + " | ".join(_cell(value) for value in (
            task, f"`{row['dtype']}`", row["batch"], latency, size(row["memory"]), samples, quality)) + " |")
    failed, total = results.failed_quality, len(results.rows)
    lines += ["", w["failed_note"].format(n=failed, total=total) if failed else w["all_passed"].format(total=total)]
    return "\n".join(lines) + "\n"


def _plain(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _task_order(task: str) -> int:
    order = ("inference", "training", "gradient")
    return order.index(task) if task in order else len(order)


def plot_svg(results: Results, language: str) -> str:
    """The plot as SVG text (its words stay text, in the page's language)."""
    import matplotlib.pyplot as plt

    with plt.rc_context(PLOT_STYLE):
        figure = draw(results, language)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(figure)
    return buffer.getvalue()


PLOT_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "ptdocs-results", "font.family": "sans-serif",
              "font.size": 10}
FAILED_COLOR = "#d62728"


def draw(results: Results, language: str):
    """Latency against batch size, one line per dtype, one panel per task; failed quality marked ✗."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator

    w = _words(language)
    tasks = sorted({row["task"] for row in results.rows}, key=_task_order)
    dtypes = sorted({row["dtype"] for row in results.rows})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    figure, axes = plt.subplots(1, len(tasks), figsize=(2.9 * len(tasks), 3.3), squeeze=False,
                                layout="constrained")
    handles = {}
    any_failed = False
    for axis, task in zip(axes[0], tasks):
        for index, dtype in enumerate(dtypes):
            mine = [r for r in results.rows
                    if r["task"] == task and r["dtype"] == dtype and r["latency"] is not None]
            if not mine:
                continue
            batches = sorted({r["batch"] for r in mine})
            medians = [statistics.median(r["latency"] for r in mine if r["batch"] == b) * 1e3 for b in batches]
            (line,) = axis.plot(batches, medians, color=colors[index % len(colors)], marker="o", label=dtype)
            handles.setdefault(dtype, line)
            failed = [r for r in mine if not r["passed"]]
            if failed:
                any_failed = True
                axis.scatter([r["batch"] for r in failed], [r["latency"] * 1e3 for r in failed],
                             marker="x", s=90, linewidths=2.2, color=FAILED_COLOR, zorder=3)
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
    if any_failed:
        legend.append(Line2D([], [], linestyle="none", marker="x", markersize=9, markeredgewidth=2.2,
                             color=FAILED_COLOR, label=w["failed_legend"]))
    figure.legend(handles=legend, loc="outside lower center", ncols=len(legend), frameon=False)
    return figure


def section(results: Results, language: str, plot: str, csv_link: str, json_link: str) -> str:
    """Everything that replaces the page's ``<!-- results -->`` marker."""
    w = _words(language)
    return "\n".join([
        source_note(results, language),
        machine(results, language),
        f"![{w['plot_alt']}]({plot})",
        "",
        table(results, language),
        w["download"].format(csv=csv_link, json=json_link),
        "",
    ])
