"""Check compare.py's verdicts on A/A pairs: no cell faster or slower, a planted 1.5x slowdown slower.

    python -m tools.aa_check                     # 6 pairs, the last 2 under stress-ng
    python -m tools.aa_check --pairs 8 --hogged 3 --folder /tmp/aa
    python -m tools.aa_check --reuse --folder /tmp/aa   # judge runs already made again

Each pair is two runs of snippets/measuring/benchmark.py with the same settings (the quick
preset, float32, two interleaved repeats of every cell, one thread), one after the other.
Pair i is judged with the minimum change calibrated from pair i - 1 (the last pair's for the
first), as `compare.py A B --calibrate A' B'` does, never from itself. The planted slowdown is
the second run's block times and latencies multiplied by 1.5 (its metadata re-hashed): the
same noise, a known change. For each pair the table shows the verdicts as compare.py gives
them (flagged cells not compared), then, as a diagnostic, the verdicts had flagged cells
been judged too. Exit status 1 when an A/A cell is called faster or slower or the planted
slowdown is missed in a cell that was not flagged.
"""

import argparse
import csv
import dataclasses
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "measuring"))
import compare  # noqa: E402

from tools import flake_hunt  # noqa: E402

BENCHMARK = ROOT / "snippets" / "measuring" / "benchmark.py"
SETTINGS = ["--preset", "quick", "--dtypes", "float32", "--repeats", "2", "--threads", "1",
            "--no-progress"]
PLANTED = 1.5


def measure(output: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARK), *SETTINGS, "--output", str(output)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"aa_check: {output}: benchmark exit {done.returncode}: {done.stderr[-500:]}")


def plant(source: Path, target: Path, factor: float = PLANTED) -> None:
    """A copy of a run whose every time is `factor` times longer (the metadata kept in step)."""
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


def verdicts(first: Path, second: Path, min_change: float, include_flagged: bool) -> dict:
    """cell key -> Verdict; with include_flagged, cells flagged noisy or contended are judged."""
    runs = [compare.load_run(path, f"[{i}]") for i, path in enumerate((first, second), 1)]
    out = {}
    for key in runs[0].cells:
        base, other = (run.cells.get(key) for run in runs)
        if include_flagged and base and other:
            base, other = (dataclasses.replace(e, noisy=False) for e in (base, other))
        out[key] = compare.judge(base, other, min_change=min_change)
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
    parser.add_argument("--hogged", type=int, default=2, help="the last N pairs run under a hog")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/aa-check"))
    parser.add_argument("--reuse", action="store_true", help="judge the runs already in --folder")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    pairs = [(args.folder / f"pair{i}-a.csv", args.folder / f"pair{i}-b.csv")
             for i in range(1, args.pairs + 1)]
    if not args.reuse:
        for index, pair in enumerate(pairs, 1):
            hog = None
            if index > args.pairs - args.hogged:  # the flake hunter's hog: one busy worker
                hog = flake_hunt.start_hog(1)
            try:
                for path in pair:
                    measure(path)
            finally:
                flake_hunt.stop_hog(hog)
            print(f"aa_check: pair {index} measured{' (hogged)' if hog else ''}",
                  file=sys.stderr)
    failures = 0
    print("pair | hog | flagged A/B | min change | A/A verdicts | planted 1.5x verdicts | "
          "flagged judged too: min change, A/A | planted")
    for index, (first, second) in enumerate(pairs, 1):
        calibration = pairs[index - 2]  # the previous pair; the first takes the last's
        min_change = compare.calibrate(*calibration)
        # The diagnostic calibrates on flagged cells too, as it judges them.
        min_all = compare.limit_from(verdicts(*calibration, compare.MIN_CHANGE, True).values())
        planted = second.with_name(second.stem + "-planted.csv")
        plant(second, planted)
        aa = verdicts(first, second, min_change, False)
        slow = verdicts(first, planted, min_change, False)
        aa_all = verdicts(first, second, min_all, True)
        slow_all = verdicts(first, planted, min_all, True)
        failures += sum(v.kind in ("faster", "slower") for v in aa.values())
        failures += sum(v.kind != "slower" for v in slow.values() if v.kind != "not compared")
        hogged = "yes" if index > args.pairs - args.hogged else "no"
        print(f"{index} | {hogged} | {flagged(first)}/{flagged(second)} | ×{1 + min_change:.3f} | "
              f"{counts(aa)} | {counts(slow)} | ×{1 + min_all:.3f}: {counts(aa_all)} | "
              f"{counts(slow_all)}")
    print(f"aa_check: {'FAIL' if failures else 'ok'}: {failures} wrong verdict(s) on cells "
          "compare.py judges")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
