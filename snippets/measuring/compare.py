"""Compare runs of the benchmark cell by cell: the time ratio to a baseline, and whether it is more than noise.

    python snippets/measuring/compare.py baseline.csv other.csv [more.csv ...]

Each CSV is one run of snippets/measuring/benchmark.py (another torch build,
device, date or thread count). The first is the baseline. Rows are the same
cell when workload, task, dtype, shape and batch agree; device, thread count
and torch build are what a comparison varies, so they describe a run, not a
cell. For every cell, a table in the style of torch.utils.benchmark.Compare
gives each run's median of block means, its IQR, the time ratio to the
baseline and a verdict. Without CSVs it compares the committed pair
samples/benchmark-cpu-threads1.csv and -threads2.csv. Standard library only.
"""

# torch.utils.benchmark.Compare renders Measurement objects built from raw block
# times; a CSV keeps only their median and IQR, and Compare gives no ratio or
# verdict, so this module draws its own table in the same layout.

import argparse
import csv
import io
import json
import math
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PAIR = (ROOT / "samples" / "benchmark-cpu-threads1.csv", ROOT / "samples" / "benchmark-cpu-threads2.csv")
TEMPLATE = ("trial", "torch_build", "device", "dtype", "shape", "batch", "latency", "memory", "quality_pass")
# What makes two rows the same cell: the work done, not where or how fast it ran.
CELL = ("workload", "task", "dtype", "shape", "batch")
# A difference smaller than this never counts, however tight the IQRs: two runs
# of the same setting (an A/A pair) differ by a few percent on a shared machine.
MIN_CHANGE = 0.05
VERDICTS = ("baseline", "faster", "slower", "within noise", "not compared", "missing")


class CompareError(ValueError):
    """Input that cannot be compared truthfully; the message says which file and why, on one line."""


# ---- reading ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One cell of one run; several rows (repeats) are combined into one."""
    latency: float | None  # seconds: median of block means (median over repeats)
    iqr: float | None  # seconds: IQR of block means (with repeats: see combine())
    noisy: bool | None  # None: the CSV predates the noisy column, noise unknown
    passed: bool
    error: str
    rows: int

    @property
    def spread(self) -> float | None:
        """IQR relative to the median."""
        if self.latency is None or self.iqr is None or self.latency <= 0:
            return None
        return self.iqr / self.latency


@dataclass(frozen=True)
class Run:
    path: Path
    label: str  # "[1]", "[2]", ...
    cells: dict  # cell key -> Entry
    metadata: dict | None
    torch_build: str
    device: str
    threads: str
    date: str

    def describe(self) -> str:
        threads = f", {self.threads} thread{'s' if self.threads != '1' else ''}" if self.threads else ""
        date = f", {self.date}" if self.date else ""
        return f"{self.path}: torch {self.torch_build}, {self.device}{threads}{date}"


def _number(text, path, line, column):
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise CompareError(f"{path}, line {line}: {column} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise CompareError(f"{path}, line {line}: {column} {text!r} is not a time in seconds")
    return value


def read_csv(path: Path) -> list[dict]:
    """The rows of a benchmark CSV, or a one-line CompareError."""
    if not path.exists():
        raise CompareError(f"{path}: no such file")
    if not path.is_file():
        raise CompareError(f"{path}: not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CompareError(f"{path}: not a benchmark CSV (not UTF-8 text)") from None
    except OSError as error:
        raise CompareError(f"{path}: {error.strerror or error}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    missing = [column for column in TEMPLATE if column not in header]
    if missing:
        raise CompareError(f"{path}: not a benchmark CSV (no {', '.join(missing)} column"
                           f"{'s' if len(missing) > 1 else ''}; made by snippets/measuring/benchmark.py?)")
    rows = []
    for line, raw in enumerate(reader, start=2):
        if None in raw or any(value is None for value in raw.values()):
            raise CompareError(f"{path}, line {line}: not as many fields as the header")
        if raw["quality_pass"] not in ("true", "false"):
            raise CompareError(f"{path}, line {line}: quality_pass must be true or false, "
                               f"not {raw['quality_pass']!r}")
        if raw.get("noisy", "") not in ("true", "false", ""):
            raise CompareError(f"{path}, line {line}: noisy must be true, false or empty, not {raw['noisy']!r}")
        row = dict(raw)
        row["latency"] = _number(raw["latency"], path, line, "latency")
        row["latency_iqr"] = _number(raw.get("latency_iqr"), path, line, "latency_iqr")
        rows.append(row)
    if not rows:
        raise CompareError(f"{path}: no rows")
    return rows


def cell_key(row) -> tuple:
    return tuple(row.get(column, "") or "" for column in CELL)


def combine(rows) -> Entry:
    """One entry for a cell's rows in one run (one row, or its repeats).

    With repeats, the latency is the median of the rows' latencies and the IQR is
    the larger of the rows' IQRs and the range of their latencies, so that a
    spread between repeats is never hidden.
    """
    errors = [row.get("error") or "" for row in rows]
    timed = [row for row in rows if row["latency"] is not None and not (row.get("error") or "")]
    flags = [row.get("noisy", "") for row in rows]
    noisy = True if "true" in flags else (None if "" in flags else False)
    passed = all(row["quality_pass"] == "true" for row in rows)
    error = next((e for e in errors if e), "" if timed else "no latency")
    if not timed:
        return Entry(None, None, noisy, passed, error, len(rows))
    latencies = [row["latency"] for row in timed]
    iqrs = [row["latency_iqr"] for row in timed]
    latency = statistics.median(latencies)
    iqr = None if None in iqrs else max(iqrs + [max(latencies) - min(latencies)])
    return Entry(latency, iqr, noisy, passed, error, len(rows))


def _one(values, fallback="?"):
    values = sorted({value for value in values if value})
    return ", ".join(values) if values else fallback


def load_run(path: Path, label: str) -> Run:
    rows = read_csv(path)
    groups = {}
    for row in rows:
        groups.setdefault(cell_key(row), []).append(row)
    metadata = None
    beside = path.with_suffix(".json")
    if beside.is_file():
        try:
            metadata = json.loads(beside.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            metadata = None  # the CSV is the data; the metadata only adds the date
        metadata = metadata if isinstance(metadata, dict) else None
    return Run(path=path, label=label, cells={key: combine(group) for key, group in groups.items()},
               metadata=metadata, torch_build=_one(row["torch_build"] for row in rows),
               device=_one(row["device"] for row in rows), threads=_one((row.get("threads") for row in rows), ""),
               date=str((metadata or {}).get("date", "")))


# ---- judging ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    kind: str  # one of VERDICTS
    ratio: float | None = None  # this run's latency / the baseline's
    threshold: float | None = None  # the relative change that would have counted
    reason: str = ""
    causes: tuple = ()  # ("flagged noisy", ("[2]",)), ...: why it was not compared or is missing

    def text(self) -> str:
        return f"{self.kind} ({self.reason})" if self.reason else self.kind


def _unusable(entry: Entry) -> str:
    """Why this entry's speed cannot be judged, or ''."""
    if entry.error or not entry.latency:  # no time (or a time of 0) is nothing to divide by
        return "did not run"
    if not entry.passed:
        return "failed the quality check"
    if entry.noisy:
        return "flagged noisy"
    if entry.iqr is None:
        return "no IQR"
    return ""


def judge(base: Entry | None, other: Entry | None, base_label="[1]", label="[2]",
          min_change=MIN_CHANGE) -> Verdict:
    """Faster, slower or within noise; never a speed verdict for a row that failed, ran noisy or did not run.

    A change counts when |other / base - 1| exceeds both min_change and the sum of
    the two rows' relative IQRs (IQR / median).
    """
    if base is None or other is None:
        absent = base_label if base is None else label
        return Verdict("missing", reason=f"not in {absent}", causes=(("not in", (absent,)),))
    ratio = None
    if base.latency and other.latency is not None and not (base.error or other.error):
        ratio = other.latency / base.latency
    why = {}
    for lab, entry in ((base_label, base), (label, other)):
        if _unusable(entry):
            why.setdefault(_unusable(entry), []).append(lab)
    if why:
        return Verdict("not compared", ratio,
                       reason="; ".join(f"{' and '.join(labs)} {reason}" for reason, labs in why.items()),
                       causes=tuple((reason, tuple(labs)) for reason, labs in why.items()))
    threshold = max(min_change, base.spread + other.spread)
    if abs(ratio - 1) <= threshold:
        return Verdict("within noise", ratio, threshold, f"limit {threshold:.1%}")
    return Verdict("faster" if ratio < 1 else "slower", ratio, threshold, f"beyond {threshold:.1%}")


@dataclass(frozen=True)
class Comparison:
    runs: tuple  # Run, the baseline first
    keys: tuple  # every cell key of any run, in the baseline's order first
    verdicts: dict  # (key, run index >= 1) -> Verdict
    min_change: float

    def counts(self, index: int) -> dict:
        tally = dict.fromkeys(VERDICTS[1:], 0)
        for key in self.keys:
            tally[self.verdicts[key, index].kind] += 1
        return tally


def compare(paths, min_change=MIN_CHANGE) -> Comparison:
    if len(paths) < 2:
        raise CompareError("give at least two CSVs: the baseline first, then the runs to compare with it")
    runs = tuple(load_run(Path(path), f"[{index}]") for index, path in enumerate(paths, 1))
    base = runs[0]
    for run in runs[1:]:
        if not set(run.cells) & set(base.cells):
            raise CompareError(f"{run.path} has no cell in common with {base.path} (a cell is the same "
                               f"{', '.join(CELL)}): nothing to compare")
    keys = list(base.cells)
    for run in runs[1:]:
        keys += [key for key in run.cells if key not in keys]
    verdicts = {(key, index): judge(base.cells.get(key), run.cells.get(key), base.label, run.label, min_change)
                for key in keys for index, run in enumerate(runs) if index}
    return Comparison(runs, tuple(keys), verdicts, min_change)


# ---- showing ----------------------------------------------------------------------------------

UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def unit_for(seconds) -> tuple[str, float]:
    """The unit in which the smallest of these times reads as 1 or more (one unit per table, as Compare does)."""
    values = [value for value in seconds if value]
    smallest = min(values) if values else 1.0
    return next(((name, scale) for name, scale in UNITS if smallest >= scale), UNITS[-1])


def _fixed(value, scale):
    """Four significant digits, never an exponent (the table's unit is chosen for its smallest time)."""
    if value is None:
        return "—"
    value /= scale
    return f"{value:.0f}" if value >= 1000 else f"{value:.4g}"  # an IQR under 1e-4 units shows an exponent


def title(key) -> str:
    workload, task, dtype, shape, batch = key
    return " · ".join(part for part in (workload, task, dtype, shape, f"batch {batch}") if part)


def marks(entry: Entry | None) -> str:
    if entry is None:
        return "absent"
    found = []
    if entry.error or entry.latency is None:
        found.append("did not run")
    elif not entry.passed:
        found.append("✗ quality")
    if entry.noisy:
        found.append("noisy")
    elif entry.noisy is None and entry.latency is not None:
        found.append("noise ?")
    return ", ".join(found)


def cell_table(comparison: Comparison, key) -> str:
    """One cell as a Compare-style block: a title rule, one line per run, the unit underneath."""
    entries = [run.cells.get(key) for run in comparison.runs]
    name, scale = unit_for([e.latency for e in entries if e])
    header = ("run", f"median ({name})", f"IQR ({name})", "time / [1]", "marks", "verdict")
    lines = []
    for index, (run, entry) in enumerate(zip(comparison.runs, entries)):
        verdict = Verdict("baseline") if index == 0 else comparison.verdicts[key, index]
        ratio = "1.000" if index == 0 and entry and entry.latency else (
            "—" if verdict.ratio is None else f"{verdict.ratio:.3f}")
        lines.append((run.label, _fixed(entry and entry.latency, scale), _fixed(entry and entry.iqr, scale),
                      ratio, marks(entry), verdict.text()))
    widths = [max(len(str(row[i])) for row in [header] + lines) for i in range(len(header))]

    def line(cells):
        parts = [str(c).rjust(w) if 0 < i < 4 else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  " + " | ".join(parts).rstrip()

    body = [line(header)] + [line(row) for row in lines]
    width = max(len(text) for text in body)
    label = f" {title(key)} "
    rule = "[" + label.center(width - 2, "-") + "]"
    return "\n".join([rule, *body, ""])


def render(comparison: Comparison) -> str:
    runs = comparison.runs
    out = ["Runs (the first is the baseline):"]
    out += [f"  {run.label} {run.describe()}" for run in runs]
    out += [f"A cell is the same {', '.join(CELL)}. Latency: median of the timed blocks' mean time per call; "
            "IQR: interquartile range of those block means.",
            f"A change counts when |time / [1] - 1| exceeds both {comparison.min_change:.0%} and the sum of the "
            "two rows' IQR / median. Rows that did not run, failed the quality check or are flagged noisy are "
            "not compared.", ""]
    out += [cell_table(comparison, key) for key in comparison.keys]
    for index, run in enumerate(runs[1:], 1):
        counts = comparison.counts(index)
        out.append(f"{run.label} against [1]: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
    if any(entry.noisy is None for run in runs for entry in run.cells.values()):
        out.append("noise ?: the CSV has no noisy column (made before the benchmark flagged noise); "
                   "judged on the IQRs alone.")
    return "\n".join(out) + "\n"


def records(comparison: Comparison) -> list[dict]:
    """One record per cell and run: what --output writes."""
    out = []
    for key in comparison.keys:
        for index, run in enumerate(comparison.runs):
            entry = run.cells.get(key)
            verdict = Verdict("baseline") if index == 0 else comparison.verdicts[key, index]
            out.append({**dict(zip(CELL, key)), "run": run.label, "csv": str(run.path),
                        "torch_build": run.torch_build, "device": run.device, "threads": run.threads,
                        "latency": "" if entry is None or entry.latency is None else f"{entry.latency:.6g}",
                        "latency_iqr": "" if entry is None or entry.iqr is None else f"{entry.iqr:.6g}",
                        "noisy": "" if entry is None or entry.noisy is None else str(entry.noisy).lower(),
                        "quality_pass": "" if entry is None else str(entry.passed).lower(),
                        "ratio": "" if verdict.ratio is None else f"{verdict.ratio:.6g}",
                        "threshold": "" if verdict.threshold is None else f"{verdict.threshold:.6g}",
                        "verdict": verdict.kind, "reason": verdict.reason})
    return out


def write_atomically(path: Path, text: str) -> None:
    """Through a temporary file in the same folder, then a rename: never half a file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def output_text(comparison: Comparison, path: Path) -> str:
    rows = records(comparison)
    if path.suffix == ".json":
        return json.dumps({"runs": [{"label": run.label, "csv": str(run.path), "torch_build": run.torch_build,
                                     "device": run.device, "threads": run.threads, "date": run.date}
                                    for run in comparison.runs],
                           "cell": list(CELL), "min_change": comparison.min_change, "rows": rows}, indent=2) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def check_output(path: Path, inputs) -> None:
    """Refuse an output path before reading anything, so that no input is ever overwritten."""
    if path.suffix not in (".csv", ".json"):
        raise CompareError(f"--output {path}: name a .csv or .json file")
    if path.is_dir():
        raise CompareError(f"--output {path}: is a directory")
    if not path.parent.is_dir():
        raise CompareError(f"--output {path}: no folder {path.parent}")
    if not os.access(path.parent, os.W_OK):
        raise CompareError(f"--output {path}: folder {path.parent} is not writable")
    written = {path.resolve()}
    for given in inputs:
        given = Path(given).resolve()
        if given in written or given.with_suffix(".json") in written:
            raise CompareError(f"--output {path}: would overwrite an input or its metadata")


# ---- command line -----------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise CompareError(message)


def fraction(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), e.g. 0.05, got {text!r}")
    return value


def parse_args(argv):
    parser = _Parser(prog="compare.py", description=__doc__.split("\n\n")[0],
                     epilog="Verdicts: faster / slower (|time / baseline - 1| exceeds both --min-change and the "
                            "two rows' IQR / median summed), within noise, "
                            "not compared (a row did not run, failed the quality check or is flagged noisy), "
                            "missing (the cell is absent from a run). Exit status 2 on bad input.")
    parser.add_argument("csv", nargs="*", type=Path,
                        help="benchmark CSVs, the baseline first (default: the committed threads1/threads2 pair)")
    parser.add_argument("--min-change", type=fraction, default=MIN_CHANGE,
                        help="smallest relative change that can count (default: %(default)s)")
    parser.add_argument("--output", type=Path, help="also write the comparison as CSV or JSON (by the suffix)")
    args = parser.parse_args(argv)
    if not args.csv:
        args.csv = list(SAMPLE_PAIR)
    return args


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
        if args.output is not None:
            check_output(args.output, args.csv)
        comparison = compare(args.csv, args.min_change)
    except CompareError as error:
        print(f"compare.py: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(comparison))
    if args.output is not None:
        write_atomically(args.output, output_text(comparison, args.output))
        print(f"wrote {len(records(comparison))} rows to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
