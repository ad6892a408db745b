"""Does the benchmark module time a matmul as a plain torch.utils.benchmark Timer does?

    python benchmarks/matmul_agreement.py [--threads 1]

In one process, a float32 n x n matmul (n = 1024) is timed in rounds by three
contestants: the module (`measure_cell`: matmul workload, inference task, batch
n, with its synchronization, inference mode and thread setting), a bare
`Timer("a @ b")` on tensors of the same shape, and that same Timer a second
time: the A/A control, which shows how much one Timer disagrees with itself on
this machine. Each round runs the three in another order (every order once per
six rounds), and each round gives two paired ratios: module / Timer and
Timer again / Timer. Verdict, on the medians of those per-round ratios (one
slowed round cannot move a median of six):

  agree         the module's median ratio is within 5% of 1;
  DISAGREE      it is off by more than 5% and outside the range of the A/A
                ratios: the module differs more than the Timer from itself;
  inconclusive  off by more than 5% but inside the A/A range: the machine is
                too noisy to tell; rerun on a quieter one.

Exit status 0, 1 and 2 respectively. This is a measurement, not a unit test.
"""

import argparse
import itertools
import statistics
import sys
from pathlib import Path

import torch
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "snippets" / "measuring"))
import benchmark  # noqa: E402  (the module under test, a plain script beside the guide)

LIMIT = 0.05
ORDERS = tuple(itertools.permutations(("module", "plain", "again")))


def verdict(module_ratios, aa_ratios, limit=LIMIT):
    """('agree' | 'DISAGREE' | 'inconclusive', median module/Timer ratio, A/A range)."""
    ratio = statistics.median(module_ratios)
    low, high = min(aa_ratios), max(aa_ratios)
    if abs(ratio - 1) <= limit:
        return "agree", ratio, (low, high)
    if low <= ratio <= high:
        return "inconclusive", ratio, (low, high)
    return "DISAGREE", ratio, (low, high)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=6, help="at least 3 (default: %(default)s)")
    parser.add_argument("--min-run-time", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args(argv)
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: a median of fewer rounds is one slowed round away "
                     "from flipping")
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")
    n = args.n
    cell = benchmark.Cell(trial="agreement", workload="matmul", task="inference",
                          dtype=torch.float32, size=n, hidden=n, batch=n)
    a, b = torch.randn(n, n), torch.randn(n, n)
    plain = Timer("a @ b", globals={"a": a, "b": b}, num_threads=args.threads)

    seconds = {"module": [], "plain": [], "again": []}
    counted = []
    for round_ in range(args.rounds):
        for which in ORDERS[round_ % len(ORDERS)]:  # a drifting machine favours none of the three
            if which == "module":
                row = benchmark.measure_cell(cell, device, args.threads, args.min_run_time)
                if row["error"]:
                    sys.exit(f"the module failed: {row['error']}")
                seconds["module"].append(float(row["latency"]))
                counted.append(float(row["gflop_per_s"]))
            else:  # "plain" and "again": the very same Timer, twice
                seconds[which].append(plain.blocked_autorange(min_run_time=args.min_run_time).median)

    module_ratios = [m / p for m, p in zip(seconds["module"], seconds["plain"])]
    aa_ratios = [q / p for q, p in zip(seconds["again"], seconds["plain"])]
    kind, ratio, (low, high) = verdict(module_ratios, aa_ratios)
    flop = 2 * n ** 3
    print(f"float32 {n}x{n} @ {n}x{n} matmul, {args.threads} thread{'s' if args.threads != 1 else ''}, "
          f"{args.rounds} rounds, torch {benchmark.torch_build()}")
    for name, label in (("module", "module (measure_cell)"), ("plain", "plain Timer"),
                        ("again", "same Timer again (A/A)")):
        median = statistics.median(seconds[name])
        print(f"  {label:<24} {median * 1e3:9.3f} ms  {flop / median / 1e9:8.1f} GFLOP/s   rounds: "
              + " ".join(f"{s * 1e3:.3f}" for s in seconds[name]))
    print(f"  the module's gflop_per_s column: {statistics.median(counted):.1f}")
    print("  per round, module / Timer: " + " ".join(f"{r:.3f}" for r in module_ratios))
    print("  per round, A/A:            " + " ".join(f"{r:.3f}" for r in aa_ratios))
    print(f"  module / Timer: median {ratio:.3f} ({ratio - 1:+.1%}); A/A range {low:.3f} to {high:.3f} "
          f"(median {statistics.median(aa_ratios):.3f}); limit {LIMIT:.0%}: {kind}")
    return {"agree": 0, "DISAGREE": 1, "inconclusive": 2}[kind]


if __name__ == "__main__":
    sys.exit(main())
