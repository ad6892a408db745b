"""Does the benchmark module time a matmul as a plain torch.utils.benchmark Timer does?

    python benchmarks/matmul_agreement.py [--threads 1]

In one process, a float32 n x n matmul (n = 1024) is timed in rounds by three
contestants: the module (`measure_cell`: matmul workload, inference task, batch
n, with its synchronization, inference mode and thread setting), a bare
`Timer("a @ b")` on tensors of the same shape, and that same Timer a second
time: the A/A control, which shows how much one Timer disagrees with itself on
this machine. Each round runs the three in another order (the six orders in
turn), and each round gives two paired ratios: module / Timer and Timer again /
Timer. The number of rounds is odd (7 by default), so the median is one
round's ratio: one slowed round can push it up to the next clean round's value
but never beyond, so it flips the verdict only if half of the other rounds
(3 of 6) were already past the limit. The A/A range is taken without its
lowest and highest round, for the same reason. Verdict:

  agree         the module's median ratio is within 5% of 1, and so is the
                whole A/A range: the Timer agrees with itself to 5%, so a 5%
                agreement with it means something;
  DISAGREE      the median is off by more than 5% and outside the A/A range:
                the module differs more than the Timer from itself;
  inconclusive  anything else: the median is off but inside the A/A range, or
                within 5% while the A/A range is wider than 5%. The machine is
                too noisy to tell; rerun on a quieter one.

Exit status 0, 1 and 2 respectively. This is a measurement, not a unit test.
"""

import argparse
import itertools
import statistics
import sys

LIMIT = 0.05
ORDERS = tuple(itertools.permutations(("module", "plain", "again")))


def aa_range(aa_ratios):
    """The A/A ratios' range without the lowest and the highest round.

    One slowed round then does not widen it.
    """
    ordered = sorted(aa_ratios)
    return ordered[1], ordered[-2]


def verdict(module_ratios, aa_ratios, limit=LIMIT):
    """The verdict, the median module/Timer ratio and the trimmed A/A range.

    The verdict is 'agree', 'DISAGREE' or 'inconclusive'.

    Needs an odd number (at least 5) of rounds of each, so that the median is one
    round's ratio.
    """
    if (
        len(module_ratios) % 2 == 0
        or len(module_ratios) < 5
        or len(aa_ratios) != len(module_ratios)
    ):
        raise ValueError(
            "an odd number of rounds, at least 5, of module and A/A ratios alike"
        )
    ratio = statistics.median(module_ratios)
    low, high = aa_range(aa_ratios)
    within = abs(ratio - 1) <= limit
    if within and 1 - limit <= low and high <= 1 + limit:
        return "agree", ratio, (low, high)
    if not within and not low <= ratio <= high:
        return "DISAGREE", ratio, (low, high)
    return "inconclusive", ratio, (low, high)


def _above_zero(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text} is not above 0")
        return value

    return parse


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--n",
        type=_above_zero(int),
        default=1024,
        help="matrix size (default: %(default)s)",
    )
    parser.add_argument(
        "--rounds", type=int, default=7, help="odd, at least 5 (default: %(default)s)"
    )
    parser.add_argument(
        "--min-run-time",
        type=_above_zero(float),
        default=1.0,
        help="seconds per timing",
    )
    parser.add_argument(
        "--threads",
        type=_above_zero(int),
        default=None,
        help="threads (default: torch's, torch.get_num_threads())",
    )
    args = parser.parse_args(argv)
    if args.rounds < 5 or args.rounds % 2 == 0:
        parser.error(
            "--rounds must be odd and at least 5: with an even number the median "
            "averages two rounds, so one slowed round moves it"
        )
    # torch is imported once the arguments are known good: a typo is answered at once.
    import torch
    from torch.utils.benchmark import Timer

    from snippets.measuring import benchmark  # the module under test (pip install -e .)

    args.threads = args.threads or torch.get_num_threads()
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")
    n = args.n
    cell = benchmark.Cell(
        trial="agreement",
        workload="matmul",
        task="inference",
        dtype=torch.float32,
        size=n,
        hidden=n,
        batch=n,
    )
    a, b = torch.randn(n, n), torch.randn(n, n)
    plain = Timer("a @ b", globals={"a": a, "b": b}, num_threads=args.threads)

    seconds = {"module": [], "plain": [], "again": []}
    counted = []
    for round_ in range(args.rounds):
        for which in ORDERS[
            round_ % len(ORDERS)
        ]:  # a drifting machine favours none of the three
            if which == "module":
                row = benchmark.measure_cell(
                    cell, device, args.threads, args.min_run_time
                )
                if row["error"]:
                    sys.exit(f"the module failed: {row['error']}")
                seconds["module"].append(float(row["latency"]))
                counted.append(float(row["gflop_per_s"]))
            else:  # "plain" and "again": the very same Timer, twice
                seconds[which].append(
                    plain.blocked_autorange(min_run_time=args.min_run_time).median
                )

    module_ratios = [
        m / p for m, p in zip(seconds["module"], seconds["plain"], strict=True)
    ]
    aa_ratios = [q / p for q, p in zip(seconds["again"], seconds["plain"], strict=True)]
    kind, ratio, (low, high) = verdict(module_ratios, aa_ratios)
    flop = 2 * n**3
    print(
        f"float32 {n}x{n} @ {n}x{n} matmul, "
        f"{args.threads} thread{'s' if args.threads != 1 else ''}, "
        f"{args.rounds} rounds, torch {benchmark.torch_build()}"
    )
    for name, label in (
        ("module", "module (measure_cell)"),
        ("plain", "plain Timer"),
        ("again", "same Timer again (A/A)"),
    ):
        median = statistics.median(seconds[name])
        print(
            f"  {label:<24} {median * 1e3:9.3f} ms  "
            f"{flop / median / 1e9:8.1f} GFLOP/s   rounds: "
            + " ".join(f"{s * 1e3:.3f}" for s in seconds[name])
        )
    print(f"  the module's gflop_per_s column: {statistics.median(counted):.1f}")
    print("  per round, module / Timer: " + " ".join(f"{r:.3f}" for r in module_ratios))
    print("  per round, A/A:            " + " ".join(f"{r:.3f}" for r in aa_ratios))
    print(
        f"  module / Timer: median {ratio:.3f} ({ratio - 1:+.1%}); "
        "A/A range without the extreme rounds "
        f"{low:.3f} to {high:.3f} (median {statistics.median(aa_ratios):.3f}); "
        f"limit {LIMIT:.0%}: {kind}"
    )
    return {"agree": 0, "DISAGREE": 1, "inconclusive": 2}[kind]


if __name__ == "__main__":
    sys.exit(main())
