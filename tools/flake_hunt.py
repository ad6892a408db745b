"""Run a pytest command several times under a CPU hog; count the failing runs and
tests.

    python tools/flake_hunt.py --runs 5 -- python -m pytest
    python tools/flake_hunt.py --runs 3 --hog-workers 0 -- python -m pytest docs   #
    no load

The hog is stress-ng (``apt-get install stress-ng``, ``brew install stress-ng``): it
starts ``stress-ng --cpu N`` (every usable core by default), waits until its N
workers are busy, then runs the command --runs times, one after the other, each with
a JUnit XML report of its own (--junitxml is added to the command). Prints one line
per run and a summary: how many runs failed, and each failing test with the number of
runs it failed in. A run that failed without any failing test in its report (a
collection error, a crash) counts as failing too. Exit status: 0 when every run
passed, 1 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HOG = "stress-ng"
OUTCOMES = {
    "failure": "failed",
    "error": "error",
    "skipped": "skipped",
}  # JUnit tag -> outcome


@dataclass
class Run:
    number: int
    returncode: int
    seconds: float
    counts: Counter = field(default_factory=Counter)  # passed, failed, error, skipped
    failing: list[str] = field(
        default_factory=list
    )  # test ids, as the report names them

    @property
    def failed(self) -> bool:
        return self.returncode != 0 or bool(self.failing)


def read_report(path: Path) -> tuple[Counter, list[str]]:
    """Outcome counts and failing test ids from a pytest JUnit XML report."""
    counts, failing = Counter(), []
    for case in ElementTree.parse(path).iter("testcase"):
        test = "::".join(filter(None, (case.get("classname"), case.get("name"))))
        outcome = next(
            (OUTCOMES[child.tag] for child in case if child.tag in OUTCOMES), "passed"
        )
        counts[outcome] += 1
        if outcome in ("failed", "error"):
            failing.append(test if outcome == "failed" else f"{test} (error)")
    return counts, failing


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def start_hog(workers: int):
    """stress-ng's process, once each of its workers has used the CPU."""
    import psutil

    if shutil.which(HOG) is None:
        raise SystemExit(
            "flake_hunt: stress-ng, the CPU hog, is not installed (apt-get install "
            "stress-ng, or brew install stress-ng); --hog-workers 0 runs without load"
        )
    hog = subprocess.Popen(
        [HOG, "--cpu", str(workers), "--quiet"], stdout=subprocess.DEVNULL
    )
    process = psutil.Process(hog.pid)
    while hog.poll() is None:  # a condition, not a time: every worker has run
        busy = [c for c in process.children() if sum(c.cpu_times()[:2]) > 0]
        if len(busy) >= workers:
            return hog
        time.sleep(0.05)
    raise SystemExit(
        f"flake_hunt: the CPU hog did not start (exit status {hog.returncode})"
    )


def stop_hog(hog) -> None:
    if hog is None or hog.poll() is not None:
        return
    hog.terminate()  # SIGTERM: stress-ng stops its workers and exits
    try:
        hog.wait(timeout=60)
    except subprocess.TimeoutExpired:
        hog.kill()
        hog.wait()


def run_once(command: list[str], number: int, folder: Path) -> Run:
    report = folder / f"run-{number}.xml"
    started = time.perf_counter()
    done = subprocess.run([*command, f"--junitxml={report}"])
    run = Run(number, done.returncode, time.perf_counter() - started)
    if report.is_file():
        run.counts, run.failing = read_report(report)
    return run


def summary(runs: list[Run], hog_workers: int) -> str:
    failed = [run for run in runs if run.failed]
    by_test = Counter(test for run in runs for test in set(run.failing))
    lines = [
        f"flake hunt: {len(failed)} of {len(runs)} runs failed, under a CPU hog of "
        f"{hog_workers} workers"
        if hog_workers
        else f"flake hunt: {len(failed)} of {len(runs)} runs failed, without a CPU hog"
    ]
    for test, times in sorted(by_test.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {times} of {len(runs)} runs: {test}")
    for run in failed:
        if not run.failing:
            lines.append(
                f"  run {run.number}: exit status {run.returncode}, no failing test "
                "in its report"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Run a pytest command several times under a CPU hog; count the "
        "failures.",
        usage="%(prog)s [--runs K] [--hog-workers N] -- python -m pytest [ARGS...]",
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="how many times to run it (default: 5)"
    )
    parser.add_argument(
        "--hog-workers",
        type=int,
        default=None,
        help="busy processes of the hog (default: every usable core; 0: no hog)",
    )
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, help="the pytest command, after --"
    )
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if (
        not command
        or args.runs < 1
        or (args.hog_workers is not None and args.hog_workers < 0)
    ):
        parser.error("give --runs >= 1, --hog-workers >= 0 and a command after --")
    if shutil.which(command[0]) is None:
        parser.error(
            f"{command[0]!r}: no such command (give the pytest command after --, e.g. "
            "-- python -m pytest)"
        )
    if args.hog_workers is None:
        args.hog_workers = usable_cores()

    runs = []
    hog = start_hog(args.hog_workers) if args.hog_workers else None
    try:
        with tempfile.TemporaryDirectory(prefix="flake-hunt-") as folder:
            for number in range(1, args.runs + 1):
                run = run_once(command, number, Path(folder))
                runs.append(run)
                counts = ", ".join(
                    f"{count} {outcome}"
                    for outcome, count in sorted(run.counts.items())
                )
                print(
                    f"flake hunt: run {number} of {args.runs}: exit status "
                    f"{run.returncode}, "
                    f"{counts or 'no report'}, {run.seconds:.1f} s",
                    flush=True,
                )
    finally:
        stop_hog(hog)
    print(summary(runs, args.hog_workers), flush=True)
    return 1 if any(run.failed for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
