"""Does the benchmark module time a matmul as a plain torch.utils.benchmark Timer does?

    python benchmarks/matmul_agreement.py

In one process, a float32 n x n matmul (n = 1024) is timed alternately by the
module (`measure_cell`: matmul workload, inference task, batch n, with its
synchronization, inference mode and thread setting) and by a bare
`Timer("a @ b")` on tensors of the same shape. The medians of the rounds must
agree within 5%; each is printed with the GFLOP/s it implies (2 n^3 per call).
This is a measurement, not a unit test: run it on a quiet machine. Exit status 1
when the two disagree.
"""

import argparse
import statistics
import sys
from pathlib import Path

import torch
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "snippets" / "measuring"))
import benchmark  # noqa: E402  (the module under test, a plain script beside the guide)

LIMIT = 0.05


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-run-time", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")
    n = args.n
    cell = benchmark.Cell(trial="agreement", workload="matmul", task="inference",
                          dtype=torch.float32, size=n, hidden=n, batch=n)
    a, b = torch.randn(n, n), torch.randn(n, n)
    plain = Timer("a @ b", globals={"a": a, "b": b}, num_threads=args.threads)

    module_s, plain_s, counted = [], [], []
    for round_ in range(args.rounds):
        # Alternate which goes first, so that a drifting machine favours neither.
        order = ("module", "plain") if round_ % 2 == 0 else ("plain", "module")
        for which in order:
            if which == "module":
                row = benchmark.measure_cell(cell, device, args.threads, args.min_run_time)
                if row["error"]:
                    sys.exit(f"the module failed: {row['error']}")
                module_s.append(float(row["latency"]))
                counted.append(float(row["gflop_per_s"]))
            else:
                plain_s.append(plain.blocked_autorange(min_run_time=args.min_run_time).median)

    flop = 2 * n ** 3
    m, p = statistics.median(module_s), statistics.median(plain_s)
    difference = abs(m - p) / p
    print(f"float32 {n}x{n} @ {n}x{n} matmul, {args.threads} threads, torch {benchmark.torch_build()}")
    print(f"  module (measure_cell):       {m * 1e3:9.3f} ms  {flop / m / 1e9:8.1f} GFLOP/s"
          f"  (its gflop_per_s column: {statistics.median(counted):.1f})")
    print(f"  plain torch.utils.benchmark: {p * 1e3:9.3f} ms  {flop / p / 1e9:8.1f} GFLOP/s")
    print(f"  rounds: module {[f'{s * 1e3:.3f}' for s in module_s]} ms, "
          f"plain {[f'{s * 1e3:.3f}' for s in plain_s]} ms")
    verdict = "agree" if difference <= LIMIT else "DISAGREE"
    print(f"  difference {difference:.1%} (limit {LIMIT:.0%}): {verdict}")
    return 0 if difference <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
