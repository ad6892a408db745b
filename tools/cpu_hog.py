"""Keep CPU cores busy, to run the test suite under load (see tools/flake_hunt.py).

    python tools/cpu_hog.py                 # every core this process may use, until stopped
    python tools/cpu_hog.py --workers 2 --seconds 60

One worker process per core spins on arithmetic. Once every worker runs, one line says so on
standard output ("cpu_hog: N workers busy"), so a caller can wait for the load instead of
guessing how long it takes to start. SIGTERM or Ctrl-C stops the workers and exits 0, and so
does the end of --seconds. Each worker also stops by itself when this process is gone, however
it ended (its pipe to it closes), so no orphan keeps spinning.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import threading

# Spins between two looks at the pipe: a look costs a system call, a spin a few nanoseconds.
SPINS_PER_LOOK = 200_000


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def spin(connection) -> None:
    """A worker: busy until the parent says stop or is gone (its end of the pipe closes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops us
    connection.send("running")
    value = 1
    while True:
        for _ in range(SPINS_PER_LOOK):
            value = (value * 48271) % 2147483647
        if connection.poll():  # a message, or the end of the pipe: stop either way
            return


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Keep CPU cores busy until stopped.")
    parser.add_argument("--workers", type=positive_int, default=usable_cores(),
                        help="busy processes, one per core (default: every usable core, %(default)s here)")
    parser.add_argument("--seconds", type=positive_float, default=None,
                        help="stop after this long (default: run until SIGTERM or Ctrl-C)")
    args = parser.parse_args(argv)

    stop = threading.Event()
    for name in ("SIGTERM", "SIGINT", "SIGBREAK"):  # SIGBREAK: Ctrl-Break on Windows
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda signum, frame: stop.set())

    # spawn, on every system: a forked worker would inherit the parent's ends of the other pipes,
    # and then outlive a parent killed outright.
    context = multiprocessing.get_context("spawn")
    workers = []
    try:
        for _ in range(args.workers):
            ours, theirs = context.Pipe()
            process = context.Process(target=spin, args=(theirs,), daemon=True)
            process.start()
            theirs.close()  # only the worker holds that end: it sees ours close when we go
            workers.append((process, ours))
        for _, ours in workers:
            ours.recv()  # "running"
        print(f"cpu_hog: {len(workers)} workers busy (pid {os.getpid()})", flush=True)
        stop.wait(args.seconds)
    finally:
        for _, ours in workers:
            try:
                ours.send("stop")
            except OSError:  # the worker already ended
                pass
            ours.close()
        for process, _ in workers:
            process.join()
    print("cpu_hog: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
