"""Check compare.py's verdicts on A/A pairs (issue 30): no cell faster or slower, and
a planted 1.5x slowdown slower. ``python -m tools.aa_check [--pairs 6] [--hogged 2]
[--runs 2] [--folder /tmp/aa] [--reuse]``; exit status 1 on a wrong verdict in a cell
that compare.py judges. A pair's two sides are each --runs runs, made in turn (A B B A
...) and merged by compare.py as repeats. The load average around each run is kept in
--folder/pairs.json.
"""

import argparse
import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil

from snippets.measuring import compare

BENCHMARK = Path(compare.__file__).with_name("benchmark.py")
# Each run of a pair: the quick preset, float32, one thread, --repeats interleaved
# repeats of every cell.
SETTINGS = "--preset quick --dtypes float32 --threads 1 --no-progress".split()
PLANTED = 1.5


def realtime() -> None:
    """SCHED_FIFO (needs the right to): the benchmark gets a core on a machine others
    keep loaded. Not a nice value: with autogroup, -20 left cells waiting 75-85%."""
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))


def measure(output: Path, fifo: bool = False, repeats: int = 4) -> None:
    settings = [*SETTINGS, f"--repeats={repeats}", f"--output={output}"]
    done = subprocess.run(
        [sys.executable, BENCHMARK, *settings],
        capture_output=True,
        text=True,
        preexec_fn=realtime if fifo else None,
    )
    if done.returncode != 0:
        sys.exit(f"aa_check: {output}: exit {done.returncode}: {done.stderr[-500:]}")


@contextlib.contextmanager
def hog(workers: int):
    """stress-ng keeping ``workers`` cores busy (0: none), from when each has run."""
    if not workers:
        yield
        return
    if shutil.which("stress-ng") is None:
        sys.exit("aa_check: the CPU hog, stress-ng, is not installed (apt-get install)")
    process = subprocess.Popen(
        ["stress-ng", "--cpu", str(workers), "--quiet"], stdout=subprocess.DEVNULL
    )
    try:
        children = psutil.Process(process.pid).children
        while sum(sum(c.cpu_times()[:2]) > 0 for c in children()) < workers:
            if process.poll() is not None:  # a condition, not a time: each has run
                sys.exit(f"aa_check: stress-ng exited ({process.returncode})")
            time.sleep(0.05)
        yield
    finally:
        process.terminate()  # stress-ng stops its workers and exits
        process.wait(timeout=60)


def side(paths) -> str:
    """compare.py's argument for runs merged as repeats."""
    return ",".join(map(str, paths))


def abba(first, second) -> list:
    """A1 B1 B2 A2 A3 B3 ...: each side's runs sit alike in time, so that a machine
    that slows (or speeds up) steadily during a pair weighs on both sides equally."""
    order = []
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        if index % 2 == 0:
            order += [a, b]
        else:
            order += [b, a]
    return order


def plant(source: Path, target: Path, factor: float = PLANTED) -> None:
    """A copy of a run whose every time is ``factor`` times longer: its latencies,
    its blocks' times and the CSV's hash in the metadata."""
    reader = csv.DictReader(io.StringIO(source.read_text(encoding="utf-8")))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    for row in reader:
        for column in ("latency", "latency_iqr"):
            row[column] = row[column] and f"{float(row[column]) * factor:.6g}"
        writer.writerow(row)
    meta = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    for blocks in meta["blocks"].values():
        blocks["raw_times"] = [t * factor for t in blocks["raw_times"]]
    meta["csv_sha256"] = hashlib.sha256(buffer.getvalue().encode()).hexdigest()
    target.write_text(buffer.getvalue(), encoding="utf-8")
    target.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


def verdicts(first: Path, second: Path, drift, include_flagged: bool) -> dict:
    """cell key -> Verdict; with include_flagged, flagged cells are judged too."""
    base_run, other_run = (
        compare.load_run(side(paths), f"[{i}]")
        for i, paths in enumerate((first, second), 1)
    )
    out = {}
    for key, base in base_run.cells.items():
        other = other_run.cells.get(key)
        if include_flagged and base and other:
            base, other = (dataclasses.replace(e, noisy=False) for e in (base, other))
        out[key] = compare.judge(base, other, drift=drift)
    return out


def flagged(paths) -> int:
    """The rows flagged noisy in these runs' CSVs."""
    return sum(row["noisy"] == "true" for p in paths for row in compare.read_csv(p))


def counts(found: dict) -> str:
    tally = sorted(Counter(verdict.kind for verdict in found.values()).items())
    return ", ".join(f"{n} {kind}" for kind, n in tally)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add = parser.add_argument
    add("--pairs", type=int, default=6)
    add("--hogged", type=int, default=2, help="the last N pairs run under a hog")
    add("--folder", type=Path, default=Path("/tmp/aa-check"))
    add("--hog-workers", type=int, default=1, help="stress-ng workers (default 1)")
    add("--repeats", type=int, default=2, help="of every cell in a run (default 2)")
    add("--runs", type=int, default=2, help="per side: 1 or even, A B B A (default 2)")
    add("--fifo", action="store_true", help="the benchmark under SCHED_FIFO")
    add(
        "--judge-flagged",
        action="store_true",
        help="diagnostic columns: the verdicts had flagged cells been judged",
    )
    add("--reuse", action="store_true", help="judge the runs already in --folder")
    args = parser.parse_args(argv)
    if args.runs % 2 and args.runs > 1:  # A B B A A: the last run weighs on one side
        parser.error("--runs must be 1 or even (A B B A ...)")
    args.folder.mkdir(parents=True, exist_ok=True)
    runs = range(1, args.runs + 1)
    pairs = [
        tuple([args.folder / f"pair{i}-{s}{n}.csv" for n in runs] for s in "ab")
        for i in range(1, args.pairs + 1)
    ]
    log = args.folder / "pairs.json"  # per pair: hogged or not, load around each run
    loads = json.loads(log.read_text()) if args.reuse and log.is_file() else {}
    settings = {"fifo": args.fifo, "repeats": args.repeats, "runs": args.runs}
    for index, pair in enumerate([] if args.reuse else pairs, 1):
        workers = args.hog_workers if index > args.pairs - args.hogged else 0
        with hog(workers):
            seen = [os.getloadavg()[0]]
            for path in abba(*pair):
                measure(path, args.fifo, args.repeats)
                seen.append(os.getloadavg()[0])
        loads[str(index)] = {"hog": workers, **settings, "load": seen}
        log.write_text(json.dumps(loads, indent=1))
        hogged = " (hogged)" if workers else ""
        load = " ".join(f"{x:.1f}" for x in seen)
        print(
            f"aa_check: pair {index} measured{hogged}, load average {load}",
            file=sys.stderr,
        )
    failures = 0
    header = "pair | hog | load average | flagged A/B | calibrated A/A drift | A/A "
    header += "verdicts | planted 1.5x verdicts"
    extra = " | flagged judged too: A/A drift, A/A | planted"
    print(header + (extra if args.judge_flagged else ""))
    for index, (first, second) in enumerate(pairs, 1):
        rest = [pair for pair in pairs if pair != (first, second)]
        drift = compare.calibrate(*(side(s) for pair in rest for s in pair))
        # ...from the other pairs, never from itself
        planted = [path.with_name(path.stem + "-planted.csv") for path in second]
        for path, target in zip(second, planted, strict=True):
            plant(path, target)
        aa, slow = (verdicts(first, b, drift, False) for b in (second, planted))
        diagnostic = ""
        if args.judge_flagged:  # calibrated on flagged cells too, as it judges them
            every = [v for a, b in rest for v in verdicts(a, b, None, True).values()]
            drift_all = compare.limit_from(every)
            both = (
                counts(verdicts(first, b, drift_all, True)) for b in (second, planted)
            )
            diagnostic = f" | ×{1 + drift_all:.3f}: {' | '.join(both)}"
        failures += sum(v.kind in ("faster", "slower") for v in aa.values())
        failures += sum(v.kind not in ("slower", "not compared") for v in slow.values())
        seen = loads.get(str(index), {})
        hogged = f"{seen['hog']} workers" if seen.get("hog") else "no"
        load = " ".join(f"{x:.1f}" for x in seen.get("load", [])) or "?"
        print(
            f"{index} | {hogged} | {load} | {flagged(first)}/{flagged(second)} | "
            f"×{1 + drift:.3f} | {counts(aa)} | {counts(slow)}{diagnostic}"
        )
    verdict = f"{'FAIL' if failures else 'ok'}: {failures} wrong verdict(s)"
    print(f"aa_check: {verdict} on cells compare.py judges")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
