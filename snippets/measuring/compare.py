"""Compare runs of the benchmark cell by cell: the time ratio to a baseline, and whether
it is more than noise.

    python snippets/measuring/compare.py baseline.csv other.csv [more.csv ...]

Each CSV is one run of snippets/measuring/benchmark.py (another torch build,
device, date or thread count). The first is the baseline. Rows are the same
cell when workload, task, dtype, shape and batch agree; device, thread count
and torch build are what a comparison varies, so they describe a run, not a
cell. A run may be several runs of the same settings joined by commas
(a1.csv,a2.csv), merged as repeats: on a shared machine, make the two sides' runs
in turn, A B B A, so that steady drift between runs falls on both sides alike and
a sudden change widens the interval (or makes repeats disagree) instead of passing
for a change.
For every cell, a table in the style of torch.utils.benchmark.Compare
gives each run's median of block means, its IQR, the time ratio to the
baseline and a verdict. Without CSVs it compares the committed pair
samples/benchmark-cpu-threads1.csv and -threads2.csv. Standard library only.

The verdict rests on the block times the metadata beside a CSV keeps (as
torch.utils.benchmark's Measurement holds them): a run's time for a cell is the
median over its repeats (interleaved with the other cells) of each repeat's
median block, and a bootstrap (repeats resampled, then the blocks in each; seeded,
so repeatable) gives a 95% interval of the ratio. A change counts when the whole
interval lies beyond a factor of 1 + --min-change (5% by default, a chosen value)
in either direction. Blocks and repeats show the spread within a run, not how far
the machine drifts between runs: with --calibrate A1.csv A2.csv [B1.csv B2.csv ...]
the ratio itself must also lie beyond the largest time ratio (either way) that the
cells of one or more A/A pairs (two runs of the same settings each) showed, counting
the cells judged and those whose repeats disagree.
With several repeats, a repeat flagged noisy is left out when most were not.
A cell flagged noisy, contended included, is not compared, nor one whose repeats
disagree (the IQR of their medians at 10% of the median or more). For a CSV without
block times the verdict falls back to a rule of thumb: the ratio beyond a factor
of 1 + the larger of --min-change and the two rows' IQR / median summed.
The JSON metadata beside a CSV
(when its csv_sha256 matches) names the CPU or GPU, the preset and when the run
took place; stderr warns when runs differ in more than one of torch build,
device, CPU model, threads and preset, or ran at the same time.
"""

# torch.utils.benchmark.Compare renders Measurement objects (benchmark.py's
# load_measurements makes them from a run's metadata), but gives no ratio or
# verdict, so this module draws its own table in the same layout.

import argparse
import csv
import datetime
import hashlib
import io
import itertools
import json
import math
import os
import random
import statistics
import sys
import tempfile
import dataclasses
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PAIR = (
    ROOT / "samples" / "benchmark-cpu-threads1.csv",
    ROOT / "samples" / "benchmark-cpu-threads2.csv",
)
TEMPLATE = (
    "trial",
    "torch_build",
    "device",
    "dtype",
    "shape",
    "batch",
    "latency",
    "memory",
    "quality_pass",
)
# What makes two rows the same cell: the work done, not where or how fast it ran.
CELL = ("workload", "task", "dtype", "shape", "batch")
# A chosen default, not a measured one: a difference smaller than this never
# counts, however tight the IQRs (an IQR is the spread of blocks, not a margin of
# error, and runs can move together between blocks).
MIN_CHANGE = 0.05
VERDICTS = ("baseline", "faster", "slower", "within noise", "not compared", "missing")
# Why a cell is not compared, in the order they are checked (and "not in" for a missing
# cell).
REASONS = (
    "did not run",
    "a repeat failed",
    "failed the quality check",
    "flagged noisy",
    "repeats disagree",
    "no IQR",
)
# Repeats disagree when the IQR of their medians reaches this share of the median:
# benchmark.py's noise threshold (torch's own warning level), one level up.
REPEAT_SPREAD = 0.10
# Calibration counts a cell whose repeats disagree: not judged, but it shows how far
# the machine moves between runs, which is what the calibration measures.
MOVES = {"", "repeats disagree"}
# What describes a run; a comparison should vary one of them (warned otherwise).
SETTINGS = ("torch build", "device", "CPU model", "threads", "preset")


class CompareError(ValueError):
    """Input that cannot be compared truthfully; the message says which file and why, on
    one line.
    """


# ---- reading -------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One cell of one run; several rows (repeats) are combined into one."""

    latency: float | None  # seconds: median of block means (median over repeats)
    iqr: float | None  # seconds: IQR of block means (with repeats: see combine())
    noisy: bool | None  # None: the CSV predates the noisy column, noise unknown
    passed: bool
    error: str
    rows: int
    failed_repeats: int = 0  # rows of this cell that did not run while others did
    # per timed repeat, its blocks' seconds per call (from the metadata)
    blocks: tuple = ()
    noisy_repeats: int = 0  # repeats flagged noisy and left out (see combine())

    @property
    def repeat_spread(self) -> float:
        """IQR of the repeats' median blocks relative to their median (0 for one)."""
        if len(self.blocks) < 2:
            return 0.0
        medians = [statistics.median(blocks) for blocks in self.blocks]
        low, _, high = statistics.quantiles(medians, n=4, method="inclusive")
        return (high - low) / statistics.median(medians)

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
    metadata: dict | None  # None when absent, unreadable or not this CSV's (csv_sha256)
    torch_build: str
    device: str
    threads: str
    date: str  # when the run finished (the metadata's date), or ''
    parts: tuple = ()  # Run: the runs merged as repeats (runs_of), when several

    def meta(self, key):
        value = (self.metadata or {}).get(key)
        return value if value not in (None, "") else None

    @property
    def device_name(self) -> str | None:
        return (
            self.meta("device_name") or self.meta("gpu_name") or self.meta("cpu_model")
        )

    @property
    def preset(self) -> str | None:
        run = self.meta("run")
        return (
            run.get("preset") if isinstance(run, dict) and run.get("preset") else None
        )

    @property
    def span(self) -> tuple | None:
        """(start, end) as aware datetimes when the metadata records started and
        wall_seconds, else None.
        """
        if self.parts:
            spans = [part.span for part in self.parts]
            if None in spans:
                return None
            return min(start for start, _ in spans), max(end for _, end in spans)
        started, wall = self.meta("started"), self.meta("wall_seconds")
        try:
            start = datetime.datetime.fromisoformat(started)
            wall = float(wall)
        except (TypeError, ValueError):
            return None
        if start.tzinfo is None or not math.isfinite(wall) or wall < 0:
            return None
        return start, start + datetime.timedelta(seconds=wall)

    def settings(self) -> dict:
        """What describes this run (None: unknown), keyed by SETTINGS."""
        return {
            "torch build": self.torch_build if self.torch_build != "?" else None,
            "device": self.device if self.device != "?" else None,
            "CPU model": self.meta("cpu_model"),
            "threads": self.threads or None,
            "preset": self.preset,
        }

    def describe(self) -> str:
        device = self.device
        if self.device_name and self.device_name != device:
            device = f"{device} ({self.device_name})"
        threads = (
            f", {self.threads} thread{'s' if self.threads != '1' else ''}"
            if self.threads
            else ""
        )
        preset = f", preset {self.preset}" if self.preset else ""
        if self.parts:
            when = f", {len(self.parts)} runs merged as repeats"
        elif self.span:
            took = float(self.meta("wall_seconds"))
            when = f", started {self.meta('started')}, took {took:.0f} s"
        else:
            when = f", finished {self.date}" if self.date else ""
        return f"{self.path}: torch {self.torch_build}, {device}{threads}{preset}{when}"


# Columns read as numbers (None when empty). Times, in seconds, are finite and >= 0, a
# latency above 0 (no time per call is nothing to divide by; an IQR of 0 is a real,
# steady spread); the others as written (a relative error may be inf). Whole numbers
# stay text (a batch names a cell), checked.
TIMES = ("latency", "latency_iqr")
NUMBERS = TIMES + ("memory", "rel_error", "tolerance", "samples_per_s")
WHOLE = ("batch", "blocks")


def _number(text, path, line, column):
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise CompareError(
            f"{path}, line {line}: {column} {text!r} is not a number"
        ) from None
    if column in TIMES and (
        not math.isfinite(value) or value < 0 or (value == 0 and column == "latency")
    ):
        raise CompareError(
            f"{path}, line {line}: {column} {text!r} is not a time in seconds"
            + (" (a latency must be above 0)" if value == 0 else "")
        )
    return value


def csv_text(path: Path) -> str:
    """A benchmark CSV's text as written (its UTF-8 is what csv_sha256 hashes), or a
    one-line CompareError."""
    if not path.exists():
        raise CompareError(f"{path}: no such file")
    if not path.is_file():
        raise CompareError(f"{path}: not a file")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise CompareError(f"{path}: not a benchmark CSV (not UTF-8 text)") from None
    except OSError as error:
        raise CompareError(f"{path}: {error.strerror or error}") from None


def read_csv(path: Path, text: str | None = None) -> list[dict]:
    """The rows of a benchmark CSV (``text``: its csv_text, where already read),
    checked, with NUMBERS as floats (None when empty), or a one-line CompareError. The
    one reader of the benchmark's CSV: the site's results page (ptdocs/results.py)
    reads it with this function too."""
    reader = csv.DictReader(io.StringIO(csv_text(path) if text is None else text))
    header = tuple(reader.fieldnames or ())
    missing = [column for column in TEMPLATE if column not in header]
    if missing:
        raise CompareError(
            f"{path}: not a benchmark CSV (no {', '.join(missing)} "
            f"column{'s' if len(missing) > 1 else ''}; made by "
            "snippets/measuring/benchmark.py?)"
        )
    rows = []
    for line, raw in enumerate(reader, start=2):
        if None in raw or any(value is None for value in raw.values()):
            raise CompareError(f"{path}, line {line}: not as many fields as the header")
        if raw["quality_pass"] not in ("true", "false"):
            raise CompareError(
                f"{path}, line {line}: quality_pass must be true or false, not "
                f"{raw['quality_pass']!r}"
            )
        if raw.get("noisy", "") not in ("true", "false", ""):
            raise CompareError(
                f"{path}, line {line}: noisy must be true, false or empty, not "
                f"{raw['noisy']!r}"
            )
        for column in WHOLE:
            if not (raw.get(column) or "0").strip().isdigit():
                raise CompareError(
                    f"{path}, line {line}: {column} {raw[column]!r} is not a whole "
                    "number"
                )
        row = dict(raw)
        for column in NUMBERS:
            row[column] = _number(raw.get(column), path, line, column)
        rows.append(row)
    if not rows:
        raise CompareError(f"{path}: no rows")
    return rows


def cell_key(row) -> tuple:
    return tuple(row.get(column, "") or "" for column in CELL)


def combine(rows, blocks=None) -> Entry:
    """One entry for a cell's rows in one run (one row, or its repeats).

    With repeats, the latency is the median of the timed rows' latencies and the
    IQR is the larger of their IQRs and the range of their latencies, so that a
    spread between repeats is never hidden. A repeat that did not run while
    others did is counted in failed_repeats (the cell is then not compared), and
    quality is judged on the rows that ran. With the block times of several repeats,
    a repeat flagged noisy (contended included) is left out when most repeats, at
    least two, were not: the cell is judged on those (noisy_repeats counts the rest);
    otherwise the cell is flagged.
    """
    errors = [row.get("error") or "" for row in rows]
    timed = [
        row
        for row in rows
        if row["latency"] is not None and not (row.get("error") or "")
    ]
    passed = all(row["quality_pass"] == "true" for row in timed or rows)
    left_out = 0
    if len(timed) > 1 and all(row.get("trial") in (blocks or {}) for row in timed):
        clean = [row for row in timed if row.get("noisy") == "false"]
        if len(clean) >= 2 and 2 * len(clean) > len(timed):
            left_out, timed = len(timed) - len(clean), clean
    flags = [row.get("noisy", "") for row in timed or rows]
    noisy = True if "true" in flags else (None if "" in flags else False)
    error = next((e for e in errors if e), "" if timed else "no latency")
    if not timed:
        return Entry(None, None, noisy, passed, error, len(rows))
    latencies = [row["latency"] for row in timed]
    iqrs = [row["latency_iqr"] for row in timed]
    latency = statistics.median(latencies)
    iqr = None if None in iqrs else max(iqrs + [max(latencies) - min(latencies)])
    kept = tuple(
        tuple(blocks[row["trial"]])
        for row in timed
        if row.get("trial") in (blocks or {})
    )
    return Entry(
        latency,
        iqr,
        noisy,
        passed,
        error,
        len(rows),
        failed_repeats=len(rows) - len(timed) - left_out,
        blocks=kept if len(kept) == len(timed) else (),
        noisy_repeats=left_out,
    )


def _one(values, fallback="?"):
    values = sorted({value for value in values if value})
    return ", ".join(values) if values else fallback


def read_metadata(path: Path, text: str, warnings: list) -> dict | None:
    """The JSON beside a CSV when it belongs to it (its csv_sha256 is that of ``text``,
    the CSV's csv_text: describes), else None.

    The CSV is the data; the metadata only describes the run, so a missing one is
    silent, a bad or foreign one is ignored with a one-line warning, and one too
    old to record csv_sha256 is used with a warning that it could not be checked.
    """
    beside = path.with_suffix(".json")
    if not beside.is_file():
        return None
    try:
        metadata = json.loads(beside.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        metadata = None
    if not isinstance(metadata, dict):
        warnings.append(f"{beside}: not readable as the benchmark's metadata; ignored")
        return None
    records = describes(metadata, text)
    if records is None:  # written before the benchmark recorded csv_sha256
        warnings.append(
            f"{beside}: records no csv_sha256 (an older benchmark), so it cannot be "
            f"checked against {path.name}; used unchecked"
        )
        return metadata
    if not records:
        warnings.append(
            f"{beside}: its csv_sha256 does not match {path.name} (metadata of "
            "another run); ignored"
        )
        return None
    return metadata


def describes(metadata: dict, text: str) -> bool | None:
    """Whether ``metadata`` is that of the CSV whose text, as csv_text read it, is
    ``text``: its csv_sha256 is the SHA-256 of that text's UTF-8 (the file's bytes);
    None where it records none."""
    recorded = metadata.get("csv_sha256")
    if recorded is None:
        return None
    return recorded == hashlib.sha256(text.encode("utf-8")).hexdigest()


def block_times(metadata) -> dict:
    """trial -> its timed blocks' seconds per call, from the metadata's "blocks" (raw
    block
    times and calls per block, as torch.utils.benchmark's Measurement keeps them)."""
    found = {}
    for trial, entry in ((metadata or {}).get("blocks") or {}).items():
        try:
            number = int(entry["number_per_run"])
            times = [float(t) / number for t in entry["raw_times"]]
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        if times and all(math.isfinite(t) and t > 0 for t in times):
            found[trial] = times
    return found


def runs_of(path) -> list[Path]:
    """The runs one argument names: a CSV, or several runs of the same settings joined
    by commas (a1.csv,a2.csv); a file whose name has a comma is one run."""
    if Path(path).exists() or "," not in str(path):
        return [Path(path)]
    return [Path(part) for part in str(path).split(",")]


def load_run(path: Path, label: str, warnings: list | None = None) -> Run:
    """One side of a comparison: a run, or several (runs_of) merged as repeats."""
    warnings = [] if warnings is None else warnings
    rows, blocks, parts = [], {}, []
    paths = runs_of(path)
    for index, part in enumerate(paths, 1):
        text = csv_text(part)
        found, metadata = read_csv(part, text), read_metadata(part, text, warnings)
        tag = f"{index}:" if len(paths) > 1 else ""  # trials are named per run
        rows += [{**row, "trial": tag + row["trial"]} for row in found]
        blocks |= {tag + trial: b for trial, b in block_times(metadata).items()}
        parts.append(_run(part, label, found, metadata, {}))
    for part in parts[1:]:
        if changed := differences(parts[0], part):
            raise CompareError(
                f"{part.path} is not a repeat of {parts[0].path}: they differ in "
                f"{', '.join(changed)}"
            )
    warnings += shared_machine(parts, lambda part: part.path)
    groups = {}
    for row in rows:
        groups.setdefault(cell_key(row), []).append(row)
    cells = {key: combine(group, blocks) for key, group in groups.items()}
    if len(parts) == 1:
        return _run(parts[0].path, label, rows, parts[0].metadata, cells)
    merged = _run(Path(path), label, rows, parts[0].metadata, cells)
    return dataclasses.replace(merged, date=parts[-1].date, parts=tuple(parts))


def _run(path, label, rows, metadata, cells) -> Run:
    return Run(
        path=path,
        label=label,
        cells=cells,
        metadata=metadata,
        torch_build=_one(row["torch_build"] for row in rows),
        device=_one(row["device"] for row in rows),
        threads=_one((row.get("threads") for row in rows), ""),
        date=str((metadata or {}).get("date", "")),
    )


# ---- judging -------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of VERDICTS
    ratio: float | None = None  # this run's latency / the baseline's
    threshold: float | None = (
        None  # t: the change counted when the ratio is beyond a factor of 1 + t
    )
    reason: str = ""
    # ("flagged noisy", ("[2]",)), ...: why it was not compared or is missing
    causes: tuple = ()
    interval: tuple | None = (
        None  # the bootstrap's 95% interval of the ratio, from the blocks
    )
    drift: float | None = None  # the ratio's limit calibrated from A/A pairs, if any

    @property
    def factor(self) -> float | None:
        return None if self.threshold is None else 1 + self.threshold

    def text(self) -> str:
        return f"{self.kind} ({self.reason})" if self.reason else self.kind


def _unusable(entry: Entry) -> str:
    """Why this entry's speed cannot be judged, or ''."""
    if (
        entry.latency is None
    ):  # read_csv refuses a latency of 0, so a time is always above 0
        return "did not run"
    if (
        entry.failed_repeats
    ):  # the median of the repeats that ran would hide the one that crashed
        return "a repeat failed"
    if not entry.passed:
        return "failed the quality check"
    if entry.noisy:
        return "flagged noisy"
    if entry.repeat_spread >= REPEAT_SPREAD:  # the run cannot say which repeat holds
        return "repeats disagree"
    if entry.iqr is None:
        return "no IQR"
    return ""


def judge(
    base: Entry | None,
    other: Entry | None,
    base_label="[1]",
    label="[2]",
    min_change=MIN_CHANGE,
    drift=None,
) -> Verdict:
    """Faster, slower or within noise; never a speed verdict for a row that failed, ran
    noisy or did not run.

    With the block times: the 95% bootstrap interval of the ratio must lie wholly
    beyond a factor of 1 + min_change (the change is more than the spread within the
    runs), and, given `drift` (calibrate() from A/A pairs), the ratio itself beyond
    1 + drift (more than two runs of the same settings differed). The drift is measured
    on ratios, which carry the spread within runs already: asking the whole interval to
    clear it would count that spread twice.

    With t the larger of min_change and the two rows' IQR / median summed, a
    change counts when the ratio r = other / base is beyond a factor of 1 + t:
    r > 1 + t (slower) or r < 1 / (1 + t) (faster). Both t and |log r| are the
    same whichever run is the baseline, so swapping the two swaps faster and
    slower and nothing else. A rule of thumb, not a significance test: t covers the
    spread within each run, not drift between the runs.
    """
    if base is None or other is None:
        absent = base_label if base is None else label
        return Verdict(
            "missing", reason=f"not in {absent}", causes=(("not in", (absent,)),)
        )
    ratio = None
    if base.latency and other.latency is not None:
        ratio = other.latency / base.latency
    why = {}
    for lab, entry in ((base_label, base), (label, other)):
        if _unusable(entry):
            why.setdefault(_unusable(entry), []).append(lab)
    if why:
        return Verdict(
            "not compared",
            ratio,
            reason="; ".join(
                f"{' and '.join(labs)} {reason}" for reason, labs in why.items()
            ),
            causes=tuple((reason, tuple(labs)) for reason, labs in why.items()),
        )
    if (
        base.blocks and other.blocks
    ):  # the block times: a bootstrap interval on the ratio
        ratio = typical(other.blocks) / typical(base.blocks)
        low, high = interval(base.blocks, other.blocks)
        limit, factor = math.log1p(min_change), drift_limit(drift, min_change)
        beyond = limit if factor is None else math.log(factor)
        shown = f"95% {low:.3f}–{high:.3f}, limit ×{1 + min_change:.3f}"
        if factor is not None:
            shown += f", A/A drift ×{factor:.3f}"
        found = dict(interval=(low, high), drift=drift)
        if math.log(low) > limit and math.log(ratio) > beyond:
            return Verdict("slower", ratio, min_change, shown, **found)
        if math.log(high) < -limit and math.log(ratio) < -beyond:
            return Verdict("faster", ratio, min_change, shown, **found)
        return Verdict("within noise", ratio, min_change, shown, **found)
    threshold = max(min_change, drift or 0, base.spread + other.spread)
    if abs(math.log(ratio)) <= math.log1p(threshold):
        return Verdict("within noise", ratio, threshold, f"limit ×{1 + threshold:.3f}")
    return Verdict(
        "faster" if ratio < 1 else "slower",
        ratio,
        threshold,
        f"beyond ×{1 + threshold:.3f}",
    )


RESAMPLES = 2000  # bootstrap resamples per cell; seeded, so a comparison is repeatable


def typical(repeats) -> float:
    """A run's time for a cell: the median over its repeats of each repeat's median
    block.
    """
    return statistics.median(statistics.median(blocks) for blocks in repeats)


def interval(base, other, level=0.95) -> tuple:
    """A bootstrap interval of typical(other) / typical(base): repeats resampled, then
    the
    blocks inside each (repeats ran at different times, interleaved with the other
    cells)."""
    draw = random.Random(hash_of(base, other))

    def resample(repeats):
        chosen = [draw.choice(repeats) for _ in repeats]
        return typical([[draw.choice(blocks) for _ in blocks] for blocks in chosen])

    ratios = sorted(resample(other) / resample(base) for _ in range(RESAMPLES))
    cut = int((1 - level) / 2 * RESAMPLES)
    return ratios[cut], ratios[RESAMPLES - 1 - cut]


def hash_of(*values) -> int:
    return int(hashlib.sha256(repr(values).encode()).hexdigest()[:16], 16)


def drift_limit(drift: float | None, min_change: float) -> float | None:
    """The factor the time ratio itself must lie beyond, given the drift calibrated
    from A/A pairs (never below 1 + min_change); None uncalibrated."""
    return None if drift is None else 1 + max(drift, min_change)


def calibrate(*paths, floor=MIN_CHANGE) -> float:
    """The smallest change that can count, from one or more A/A pairs (two runs of the
    same settings each): paths A1, A2[, B1, B2, ...].
    """
    if not paths or len(paths) % 2:
        raise CompareError(
            "--calibrate takes A/A pairs: an even number of CSVs, two runs of the same "
            "settings each"
        )
    pairs = zip(paths[::2], paths[1::2], strict=True)
    runs = ((load_run(Path(a), "[1]"), load_run(Path(b), "[2]")) for a, b in pairs)
    return drift_of(runs, floor)


def drift_of(pairs, floor=MIN_CHANGE) -> float:
    """calibrate's limit from A/A pairs already loaded: (Run, Run) each."""
    verdicts = []
    for base, other in pairs:
        for key, entry in base.cells.items():
            found = other.cells.get(key)
            if found is None or {_unusable(entry), _unusable(found)} - MOVES:
                continue  # not compared, so not calibrated on either
            if entry.blocks and found.blocks:
                ratio = typical(found.blocks) / typical(entry.blocks)
            else:
                ratio = found.latency / entry.latency
            verdicts.append(Verdict("within noise", ratio))  # only the ratio counts
    return limit_from(verdicts, floor)


def limit_from(verdicts, floor=MIN_CHANGE) -> float:
    """The largest change, in either direction, of any calibrated cell's time ratio in
    A/A pairs: how far this machine drifts between runs; never below `floor`.

    The ratio, not the far end of its interval: the interval of a cell judged later
    already covers the spread within its own runs, and counting that spread twice makes
    the limit blind to real changes (a 1.5x slowdown missed).
    """
    worst = floor
    for verdict in verdicts:
        if verdict.kind in ("within noise", "faster", "slower"):
            worst = max(worst, math.expm1(abs(math.log(verdict.ratio))))
    return worst


@dataclass(frozen=True)
class Comparison:
    runs: tuple  # Run, the baseline first
    keys: tuple  # every cell key of any run, in the baseline's order first
    verdicts: dict  # (key, run index >= 1) -> Verdict
    min_change: float
    drift: float | None  # calibrated from A/A pairs (calibrate()), or None
    # one line each: ignored metadata, runs that differ in more than one setting or
    # overlap
    warnings: tuple = ()

    def counts(self, index: int) -> dict:
        tally = dict.fromkeys(VERDICTS[1:], 0)
        for key in self.keys:
            tally[self.verdicts[key, index].kind] += 1
        return tally


def compare(paths, min_change=MIN_CHANGE, drift=None) -> Comparison:
    if len(paths) < 2:
        raise CompareError(
            "give at least two CSVs: the baseline first, then the runs to compare "
            "with it"
        )
    warnings = []
    runs = tuple(
        load_run(Path(path), f"[{index}]", warnings)
        for index, path in enumerate(paths, 1)
    )
    base = runs[0]
    for run in runs[1:]:
        if not set(run.cells) & set(base.cells):
            raise CompareError(
                f"{run.path} has no cell in common with {base.path} (a cell is the "
                f"same {', '.join(CELL)}): nothing to compare"
            )
    keys = list(base.cells)
    for run in runs[1:]:
        keys += [key for key in run.cells if key not in keys]
    verdicts = {
        (key, index): judge(
            base.cells.get(key),
            run.cells.get(key),
            base.label,
            run.label,
            min_change,
            drift,
        )
        for key in keys
        for index, run in enumerate(runs)
        if index
    }
    for run in runs[1:]:
        changed = differences(base, run)
        if len(changed) > 1:
            warnings.append(
                f"{run.label} differs from {base.label} in more than one setting ("
                + "; ".join(f"{name}: {a} vs {b}" for name, (a, b) in changed.items())
                + "): the ratios mix their effects"
            )
    warnings += shared_machine(runs, lambda run: run.label)
    return Comparison(runs, tuple(keys), verdicts, min_change, drift, tuple(warnings))


def differences(base: Run, run: Run) -> dict:
    """The settings known in both runs whose values differ: name -> (base's, run's)."""
    mine, theirs = base.settings(), run.settings()
    return {
        name: (mine[name], theirs[name])
        for name in SETTINGS
        if mine[name] is not None
        and theirs[name] is not None
        and mine[name] != theirs[name]
    }


def shared_machine(runs, name) -> list[str]:
    """A warning for each two of ``runs`` that ran at the same time (``name``: how
    each is called)."""
    return [
        f"{name(first)} and {name(second)} ran at the same time (their start times and "
        "durations overlap): each slowed the other"
        for first, second in itertools.combinations(runs, 2)
        if overlap(first, second)
    ]


def overlap(first: Run, second: Run) -> bool:
    """True when both runs record when they ran and their spans overlap (they shared the
    machine); for merged runs, when any run of one overlaps any of the other.
    """
    return any(
        a is not None and b is not None and a[0] < b[1] and b[0] < a[1]
        for a in (part.span for part in first.parts or (first,))
        for b in (part.span for part in second.parts or (second,))
    )


# ---- showing -------------------------------------------------------------------------

UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def unit_for(seconds) -> tuple[str, float]:
    """The unit in which the smallest of these times reads as 1 or more (one unit per
    table, as Compare does).
    """
    values = [value for value in seconds if value]
    smallest = min(values) if values else 1.0
    return next(
        ((name, scale) for name, scale in UNITS if smallest >= scale), UNITS[-1]
    )


def _fixed(value, scale):
    """Four significant digits, never an exponent (the table's unit is chosen for its
    smallest time).
    """
    if value is None:
        return "—"
    value /= scale
    return (
        f"{value:.0f}" if value >= 1000 else f"{value:.4g}"
    )  # an IQR under 1e-4 units shows an exponent


def _ratio(verdict: Verdict, form: str, none="—") -> str:
    """The time ratio as shown: none for a cell not compared, whose ratio would read as
    a speedup.
    """
    return (
        none
        if verdict.ratio is None or verdict.kind == "not compared"
        else form.format(verdict.ratio)
    )


def title(key) -> str:
    workload, task, dtype, shape, batch = key
    return " · ".join(
        part for part in (workload, task, dtype, shape, f"batch {batch}") if part
    )


def marks(entry: Entry | None) -> str:
    if entry is None:
        return "absent"
    found = []
    if entry.latency is None:
        found.append("did not run")
    elif entry.failed_repeats:
        found.append(f"{entry.failed_repeats} of {entry.rows} repeats failed")
    if entry.latency is not None and not entry.passed:
        found.append("✗ quality")
    if entry.noisy:
        found.append("noisy")
    elif entry.noisy_repeats:
        found.append(f"{entry.noisy_repeats} of {entry.rows} repeats noisy, left out")
    elif entry.noisy is None and entry.latency is not None:
        found.append("noise ?")
    return ", ".join(found)


def cell_table(comparison: Comparison, key) -> str:
    """One cell as a Compare-style block: a title rule, one line per run, the unit
    underneath.
    """
    entries = [run.cells.get(key) for run in comparison.runs]
    name, scale = unit_for([e.latency for e in entries if e])
    header = (
        "run",
        f"median ({name})",
        f"IQR ({name})",
        "time / [1]",
        "marks",
        "verdict",
    )
    lines = []
    for index, (run, entry) in enumerate(zip(comparison.runs, entries, strict=True)):
        verdict = Verdict("baseline") if index == 0 else comparison.verdicts[key, index]
        ratio = (
            "1.000"
            if index == 0 and entry and entry.latency
            else _ratio(verdict, "{:.3f}")
        )
        lines.append(
            (
                run.label,
                _fixed(entry and entry.latency, scale),
                _fixed(entry and entry.iqr, scale),
                ratio,
                marks(entry),
                verdict.text(),
            )
        )
    widths = [
        max(len(str(row[i])) for row in [header] + lines) for i in range(len(header))
    ]

    def line(cells):
        parts = [
            str(c).rjust(w) if 0 < i < 4 else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
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
    out += [
        f"A cell is the same {', '.join(CELL)}. Latency: median of the timed blocks' "
        "mean time per call; IQR: interquartile range of those block means.",
        (
            "Verdict, from the block times: a change counts when the 95% bootstrap "
            "interval of time / [1] (shown) lies wholly beyond a factor of "
            f"{1 + comparison.min_change:.3f} (--min-change): above it, slower; below "
            "its inverse, faster. Blocks and repeats show the spread within a run, "
            "not the drift between runs: "
            + (
                "time / [1] itself must also lie beyond the largest ratio A/A pairs "
                "showed (--calibrate), "
                f"×{drift_limit(comparison.drift, comparison.min_change):.3f}."
                if comparison.drift is not None
                else "calibrate from two runs of the same settings to see how far "
                "this machine moves."
            )
            if any(e.blocks for run in runs for e in run.cells.values())
            else "Verdict, a rule of thumb, not a significance test: with t the "
            f"larger of {comparison.min_change:.0%} (--min-change, a chosen default) "
            "and the two rows' IQR / median summed, a change counts when time / [1] "
            "is beyond a factor of 1 + t (above 1 + t: slower; below 1 / (1 + t): "
            "faster). t is the spread within each run: drift between runs is not in "
            "it, so compare two runs of the same settings (an A/A pair) to see how "
            "far this machine moves."
        ),
        "Not compared (time / [1] shown as —): a row that did not run, had a repeat "
        "that failed, failed the quality check, is flagged noisy (contended "
        "included), had repeats that disagree (the IQR of their medians at "
        f"{REPEAT_SPREAD:.0%} of the median or more) or has no IQR. Missing: the cell "
        "is absent from a run.",
        "",
    ]
    out += [cell_table(comparison, key) for key in comparison.keys]
    for index, run in enumerate(runs[1:], 1):
        counts = comparison.counts(index)
        out.append(
            f"{run.label} against [1]: "
            + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        )
    if any(entry.noisy is None for run in runs for entry in run.cells.values()):
        out.append(
            "noise ?: the CSV has no noisy column (made before the benchmark flagged "
            "noise); judged on the IQRs alone."
        )
    return "\n".join(out) + "\n"


def records(comparison: Comparison) -> list[dict]:
    """One record per cell and run: what --output writes."""
    out = []
    for key in comparison.keys:
        for index, run in enumerate(comparison.runs):
            entry = run.cells.get(key)
            verdict = (
                Verdict("baseline") if index == 0 else comparison.verdicts[key, index]
            )
            out.append(
                {
                    **dict(zip(CELL, key, strict=True)),
                    "run": run.label,
                    "csv": str(run.path),
                    "torch_build": run.torch_build,
                    "device": run.device,
                    "threads": run.threads,
                    "latency": ""
                    if entry is None or entry.latency is None
                    else f"{entry.latency:.6g}",
                    "latency_iqr": ""
                    if entry is None or entry.iqr is None
                    else f"{entry.iqr:.6g}",
                    "noisy": ""
                    if entry is None or entry.noisy is None
                    else str(entry.noisy).lower(),
                    "quality_pass": "" if entry is None else str(entry.passed).lower(),
                    "ratio": _ratio(verdict, "{:.6g}", none=""),
                    "limit_factor": ""
                    if verdict.factor is None
                    else f"{verdict.factor:.6g}",
                    "verdict": verdict.kind,
                    "reason": verdict.reason,
                }
            )
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
        return (
            json.dumps(
                {
                    "runs": [
                        {
                            "label": run.label,
                            "csv": str(run.path),
                            "torch_build": run.torch_build,
                            "device": run.device,
                            "device_name": run.device_name,
                            "threads": run.threads,
                            "preset": run.preset,
                            "started": run.meta("started"),
                            "wall_seconds": run.meta("wall_seconds"),
                            "date": run.date,
                        }
                        for run in comparison.runs
                    ],
                    "cell": list(CELL),
                    "min_change": comparison.min_change,
                    "drift": comparison.drift,
                    "warnings": list(comparison.warnings),
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def check_output(path: Path, inputs) -> None:
    """Refuse an output path before reading anything, so that no input is ever
    overwritten.
    """
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
            raise CompareError(
                f"--output {path}: would overwrite an input or its metadata"
            )


# ---- command line --------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise CompareError(message)


def fraction(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a fraction in [0, 1), e.g. 0.05, got {text!r}"
        )
    return value


def parse_args(argv):
    parser = _Parser(
        prog="compare.py",
        description=__doc__.split("\n\n")[0],
        epilog=(
            "Verdicts: faster / slower (with the block times the metadata keeps: the "
            "95% bootstrap interval of the time ratio lies wholly beyond a factor of "
            "1 + --min-change, and the ratio beyond the calibrated change; without "
            "them, the ratio is "
            "beyond 1 + t, t the larger of --min-change and the two rows' IQR / median "
            "summed, a rule of thumb), within noise, not compared (a row did not run, "
            "had a repeat that failed, failed the quality check, is flagged noisy or "
            "contended, had repeats that disagree, or has no IQR; no ratio shown), "
            "missing (the cell is absent from a run). Warnings on stderr. Exit status "
            "2 on bad input."
        ),
    )
    parser.add_argument(
        "csv",
        nargs="*",
        type=Path,
        help="benchmark CSVs, the baseline first; a1.csv,a2.csv merges runs of the "
        "same settings as repeats (default: the committed threads1/threads2 pair)",
    )
    parser.add_argument(
        "--min-change",
        type=fraction,
        default=MIN_CHANGE,
        help="smallest change that can count: a factor of 1 + this (default: "
        "%(default)s, a chosen value; --calibrate measures one)",
    )
    parser.add_argument(
        "--calibrate",
        nargs="+",
        type=Path,
        metavar="A.csv",
        help="one or more A/A pairs (A1.csv A2.csv [B1.csv B2.csv ...], two runs of "
        "the same settings each): a ratio must also lie beyond the largest change "
        "between the two runs of a pair",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="also write the comparison as CSV or JSON (by the suffix)",
    )
    args = parser.parse_args(argv)
    if not args.csv:
        args.csv = list(SAMPLE_PAIR)
    return args


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
        if args.output is not None:
            check_output(args.output, args.csv)
        drift = None
        if args.calibrate:
            drift = calibrate(*args.calibrate, floor=args.min_change)
            pairs = len(args.calibrate) // 2
            print(
                "compare.py: calibrated from the A/A pair"
                + (f"s ({pairs})" if pairs > 1 else "")
                + f": a change counts beyond ×{1 + drift:.3f}",
                file=sys.stderr,
            )
        comparison = compare(args.csv, args.min_change, drift)
    except CompareError as error:
        print(f"compare.py: error: {error}", file=sys.stderr)
        return 2
    for warning in comparison.warnings:
        print(f"compare.py: warning: {warning}", file=sys.stderr)
    sys.stdout.write(render(comparison))
    if args.output is not None:
        write_atomically(args.output, output_text(comparison, args.output))
        print(
            f"wrote {len(records(comparison))} rows to {args.output}", file=sys.stderr
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
