"""Check compare.py's verdicts on A/A pairs: no cell faster or slower, a planted 1.5x
slowdown slower.

    python -m tools.aa_check                     # 6 pairs, the last 2 under stress-ng
    python -m tools.aa_check --pairs 8 --hogged 3 --folder /tmp/aa
    python -m tools.aa_check --reuse --folder /tmp/aa   # judge runs already made again

Each pair is two runs of snippets/measuring/benchmark.py with the same settings (the
quick preset, float32, four interleaved repeats of every cell, one thread), one after
the other. Pair i is judged with the A/A drift calibrated from all the other pairs,
as `compare.py A B --calibrate A1 A2 B1 B2 ...` does, never from itself. The planted
slowdown is the second run's block times and latencies multiplied by 1.5 (its
metadata re-hashed): the same noise, a known change. For each pair the table shows
the verdicts as compare.py gives them (flagged cells not compared), then, with
--judge-flagged, as a diagnostic, the verdicts had flagged cells been judged too.
Exit status 1 when an A/A cell is called faster or slower or the planted slowdown is
missed in a cell that was not flagged. The load average (1 minute) is recorded before
and after each run of a pair (pairs.json in --folder).
"""

import argparse
import csv
import dataclasses
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "measuring"))
import compare  # noqa: E402

from tools import flake_hunt  # noqa: E402

BENCHMARK = ROOT / "snippets" / "measuring" / "benchmark.py"
SETTINGS = [
    "--preset",
    "quick",
    "--dtypes",
    "float32",
    "--threads",
    "1",
    "--no-progress",
]
PLANTED = 1.5


def realtime() -> None:
    """SCHED_FIFO for the benchmark's process (needs the right to): ahead of every
    ordinary process, so that on a machine others keep loaded it still gets a core. A
    nice value does not do it where the kernel groups processes by session
    (autogroup): -20 left the cells waiting for a core 75-85% of the time here."""
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))


def measure(output: Path, fifo: bool = False, repeats: int = 4) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARK),
            *SETTINGS,
            "--repeats",
            str(repeats),
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        preexec_fn=realtime if fifo else None,
    )
    if done.returncode != 0:
        sys.exit(
            f"aa_check: {output}: benchmark exit {done.returncode}: "
            f"{done.stderr[-500:]}"
        )


def plant(source: Path, target: Path, factor: float = PLANTED) -> None:
    """A copy of a run whose every time is `factor` times longer (the metadata kept
    in step)."""
    reader = csv.DictReader(io.StringIO(source.read_text(encoding="utf-8")))
    rows = list(reader)
    for row in rows:
        for column in ("latency", "latency_iqr"):
            if row[column]:
                row[column] = f"{float(row[column]) * factor:.6g}"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    meta = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    for blocks in meta["blocks"].values():
        blocks["raw_times"] = [t * factor for t in blocks["raw_times"]]
    meta["csv_sha256"] = hashlib.sha256(buffer.getvalue().encode()).hexdigest()
    target.write_text(buffer.getvalue(), encoding="utf-8")
    target.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


def verdicts(
    first: Path, second: Path, drift: float | None, include_flagged: bool
) -> dict:
    """cell key -> Verdict; with include_flagged, cells flagged noisy or contended
    are judged."""
    runs = [
        compare.load_run(path, f"[{i}]") for i, path in enumerate((first, second), 1)
    ]
    out = {}
    for key in runs[0].cells:
        base, other = (run.cells.get(key) for run in runs)
        if include_flagged and base and other:
            base, other = (dataclasses.replace(e, noisy=False) for e in (base, other))
        out[key] = compare.judge(base, other, drift=drift)
    return out


def flagged(path: Path) -> int:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    return sum(row["noisy"] == "true" for row in rows)


def counts(found: dict) -> str:
    tally = {}
    for verdict in found.values():
        tally[verdict.kind] = tally.get(verdict.kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(tally.items()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument(
        "--hogged", type=int, default=2, help="the last N pairs run under a hog"
    )
    parser.add_argument("--folder", type=Path, default=Path("/tmp/aa-check"))
    parser.add_argument(
        "--hog-workers", type=int, default=1, help="stress-ng workers (default 1)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=4,
        help="interleaved repeats of every cell in a run (default 4)",
    )
    parser.add_argument(
        "--fifo",
        action="store_true",
        help="run the benchmark under SCHED_FIFO (see realtime())",
    )
    parser.add_argument(
        "--judge-flagged",
        action="store_true",
        help="add the diagnostic columns: verdicts had flagged cells been judged",
    )
    parser.add_argument(
        "--reuse", action="store_true", help="judge the runs already in --folder"
    )
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    pairs = [
        (args.folder / f"pair{i}-a.csv", args.folder / f"pair{i}-b.csv")
        for i in range(1, args.pairs + 1)
    ]
    log = (
        args.folder / "pairs.json"
    )  # per pair: hogged or not, load average around each run
    loads = json.loads(log.read_text()) if args.reuse and log.is_file() else {}
    if not args.reuse:
        for index, pair in enumerate(pairs, 1):
            hog = None
            if (
                index > args.pairs - args.hogged
            ):  # the flake hunter's hog: one busy worker
                hog = flake_hunt.start_hog(args.hog_workers)
            seen = [os.getloadavg()[0]]
            try:
                for path in pair:
                    measure(path, args.fifo, args.repeats)
                    seen.append(os.getloadavg()[0])
            finally:
                flake_hunt.stop_hog(hog)
            loads[str(index)] = {
                "hog": args.hog_workers if hog else 0,
                "fifo": args.fifo,
                "repeats": args.repeats,
                "load": seen,
            }
            log.write_text(json.dumps(loads, indent=1))
            print(
                f"aa_check: pair {index} measured{' (hogged)' if hog else ''}, load "
                "average "
                f"{' '.join(f'{x:.1f}' for x in seen)}",
                file=sys.stderr,
            )
    failures = 0
    print(
        "pair | hog | load average | flagged A/B | calibrated A/A drift | A/A "
        "verdicts | "
        "planted 1.5x verdicts"
        + (
            " | flagged judged too: A/A drift, A/A | planted"
            if args.judge_flagged
            else ""
        )
    )
    for index, (first, second) in enumerate(pairs, 1):
        others = [path for pair in pairs if pair != (first, second) for path in pair]
        drift = compare.calibrate(*others)  # from the other pairs, never from itself
        # The diagnostic calibrates on flagged cells too, as it judges them.
        min_all = (
            compare.limit_from(
                [
                    v
                    for a, b in zip(others[::2], others[1::2], strict=True)
                    for v in verdicts(a, b, None, True).values()
                ]
            )
            if args.judge_flagged
            else None
        )
        planted = second.with_name(second.stem + "-planted.csv")
        plant(second, planted)
        aa = verdicts(first, second, drift, False)
        slow = verdicts(first, planted, drift, False)
        diagnostic = ""
        if args.judge_flagged:
            aa_all = verdicts(first, second, min_all, True)
            slow_all = verdicts(first, planted, min_all, True)
            diagnostic = f" | ×{1 + min_all:.3f}: {counts(aa_all)} | {counts(slow_all)}"
        failures += sum(v.kind in ("faster", "slower") for v in aa.values())
        failures += sum(
            v.kind != "slower" for v in slow.values() if v.kind != "not compared"
        )
        seen = loads.get(str(index), {})
        hogged = f"{seen['hog']} workers" if seen.get("hog") else "no"
        load = " ".join(f"{x:.1f}" for x in seen.get("load", [])) or "?"
        print(
            f"{index} | {hogged} | {load} | {flagged(first)}/{flagged(second)} | "
            f"×{1 + drift:.3f} | {counts(aa)} | {counts(slow)}{diagnostic}"
        )
    print(
        f"aa_check: {'FAIL' if failures else 'ok'}: {failures} wrong verdict(s) on "
        "cells "
        "compare.py judges"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
