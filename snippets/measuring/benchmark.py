"""Fill the measuring guide's CSV template with real, synchronized measurements.

    python snippets/measuring/benchmark.py --preset quick --output results/benchmark.csv

Each cell fixes workload, task (inference, training, gradient), dtype, device and
batch size, and is measured in passes kept apart: setup, the first call (checked
against a float64 reference by the task's own criterion), the steady state
(torch.utils.benchmark, with a noise flag), memory, FLOPs. A cell that fails still
gets a row. Writes the CSV and a JSON file of metadata beside it, as a consistent
pair. Needs torch; tqdm, if installed, draws the progress bar. `--help` lists the
options. Rows are written as they finish: an interruption keeps every finished row.
Exit status: 0; 1 when every cell failed; 2 for a usage error (told before torch is
imported where it can be); 3 when the files could not be written (a full disk: those
written before stay whole); 130 when interrupted (Ctrl-C); 143 on SIGTERM.
"""

import signal
import sys

if (
    __name__ == "__main__"
):  # Ctrl-C while torch loads (a second or two): one line, no traceback

    def _interrupted_while_loading(signum, frame):
        print(
            "\nbenchmark.py: interrupted before any cell was complete; nothing written",
            file=sys.stderr,
            flush=True,
        )
        import os

        os._exit(130)  # nothing is written yet: leave at once, wherever the import was

    signal.signal(signal.SIGINT, _interrupted_while_loading)

# Command line: read and checked before torch is imported, so that a mistake is told at
# once.
import argparse
import math
import os
import re
import tempfile
from pathlib import Path

PRESETS = {
    # For the tests: seconds.
    "tiny": {
        "size": 8,
        "batch_sizes": (2, 4),
        "min_run_time": 0.01,
        "max_run_time": 0.2,
        "reruns": 0,
        "repeats": 1,
    },
    # About a minute on an idle 2-core CPU. The MLP's weights (2 MiB in float32) fit in
    # the cache of most CPUs, so its times are those of weights in cache, not in memory.
    "quick": {
        "size": 256,
        "batch_sizes": (8, 64),
        "min_run_time": 0.2,
        "max_run_time": 1.0,
        "reruns": 1,
        "repeats": 1,
    },
    # Bigger shapes, three batch sizes, three repetitions of every cell.
    "full": {
        "size": 1024,
        "batch_sizes": (1, 32, 256),
        "min_run_time": 1.0,
        "max_run_time": 5.0,
        "reruns": 2,
        "repeats": 3,
    },
}
WORKLOADS = ("mlp", "matmul")


class UsageError(Exception):
    """Bad command-line input: reported in one line, before anything is measured or
    written.
    """


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise UsageError(message)


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def distinct(kind, values):
    repeated = sorted({str(value) for value in values if values.count(value) > 1})
    if repeated:  # the same cell twice would give two rows the same trial id
        raise argparse.ArgumentTypeError(f"{kind} {', '.join(repeated)} given twice")
    return values


def positive_ints(text):
    try:
        values = tuple(positive_int(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected positive integers separated by commas, got {text!r}"
        ) from None
    return distinct("batch size", values)


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def names(kind, allowed):
    def parse(text):
        values = tuple(part.strip() for part in text.split(","))
        for value in values:
            if value not in allowed:
                raise argparse.ArgumentTypeError(
                    f"unknown {kind} {value!r}: choose from {', '.join(allowed)}"
                )
        return distinct(kind, values)

    return parse


DTYPE_NAMES = ("float64", "float32", "float16", "bfloat16")
TASK_NAMES = ("inference", "training", "gradient")  # CRITERIA's keys, checked below
SEEDS = 2**64  # torch.Generator.manual_seed takes 0 <= seed < 2**64 (and negatives)


def usable_cpus():
    """The CPUs this process may run on (its affinity where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def seed(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < SEEDS:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 0 to 2**64 - 1, got {text!r}"
        )
    return value


def device_name_of(text):
    """A device as torch writes one: a type, and an index for accelerators only."""
    kind, _, index = text.partition(":")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", kind) or (index and not index.isdigit()):
        raise argparse.ArgumentTypeError(
            f"unknown device {text!r}: use cpu, cuda, cuda:1, mps, xpu, ..."
        )
    if kind == "cpu" and index not in ("", "0"):
        raise argparse.ArgumentTypeError(
            f"device {text!r}: the CPU has no index; it is one device, its cores are "
            "--threads"
        )
    return text


def preset_help():
    return "presets: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{key.replace('_', '-')} "
            f"{value if not isinstance(value, tuple) else ','.join(map(str, value))}"
            for key, value in values.items()
        )
        for name, values in PRESETS.items()
    )


def parse_command_line(argv):
    """The options, checked as far as they can be without torch (a second or two to
    import).
    """
    parser = Parser(
        prog="benchmark.py",
        description=__doc__.split("\n\n")[0],
        epilog=preset_help() + ". Give an option to change one value of a preset.",
    )
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="full",
        help="shapes and run times, listed below (default: full; quick runs "
        "in about a minute)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("results/benchmark.csv"),
        help="CSV to write (.csv); the metadata goes beside it with .json "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--device",
        type=device_name_of,
        help="cpu, cuda, cuda:1, mps, xpu, ... "
        "(default: the accelerator torch reports, else cpu)",
    )
    parser.add_argument(
        "--dtypes",
        type=names("dtype", DTYPE_NAMES),
        help="comma-separated (default: float32 and the device's reduced precisions)",
    )
    parser.add_argument(
        "--tasks",
        type=names("task", TASK_NAMES),
        default=TASK_NAMES,
        help="comma-separated (default: all)",
    )
    parser.add_argument(
        "--workload", choices=WORKLOADS, default="mlp", help="default: %(default)s"
    )
    parser.add_argument(
        "--size", type=positive_int, help="input features (the matmul's n)"
    )
    parser.add_argument(
        "--hidden", type=positive_int, help="MLP hidden width (default: 4 x size)"
    )
    parser.add_argument(
        "--batch-sizes", type=positive_ints, help="comma-separated, e.g. 8,64"
    )
    parser.add_argument(
        "--repeats", type=positive_int, help="repetitions of every cell"
    )
    parser.add_argument(
        "--min-run-time",
        type=positive_float,
        help="seconds of timing per cell, at least",
    )
    parser.add_argument(
        "--max-run-time",
        type=positive_float,
        help="seconds of timing per attempt, at most, while the spread is too wide",
    )
    parser.add_argument(
        "--reruns", type=non_negative_int, help="extra attempts for a noisy cell"
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        help="intra-op CPU threads (default: torch.get_num_threads(), all cores). "
        "On a machine others use, give fewer than its idle cores, e.g. 1, and read "
        "the contended column",
    )
    parser.add_argument(
        "--seed", type=seed, default=0, help="of the inputs (default: 0)"
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr"
    )
    args = parser.parse_args(argv)
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.max_run_time < args.min_run_time:
        raise UsageError(
            f"--max-run-time {args.max_run_time:g} is below --min-run-time "
            f"{args.min_run_time:g}"
        )
    if args.threads is not None and args.threads > usable_cpus():
        raise UsageError(
            f"--threads {args.threads} is more than the {usable_cpus()} CPUs this "
            "process may use: its threads would take turns, and the times with them"
        )
    args.hidden = args.hidden or 4 * args.size
    check_output(args.output)
    return args


def check_output(path):
    """The CSV and its metadata can be written there: checked before anything is
    measured.
    """
    if path.is_dir():
        raise UsageError(f"--output: {str(path)!r} is a folder")
    if path.suffix != ".csv":
        raise UsageError(
            f"--output {str(path)!r} must end in .csv: the metadata is written beside "
            f"it, as {path.with_suffix('.json').name}"
        )
    if path.with_suffix(".json").is_dir():
        raise UsageError(f"--output: {str(path.with_suffix('.json'))!r} is a folder")
    folder = path.parent
    while (
        not folder.exists()
    ):  # the folders still to create: the first one that exists decides
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"--output: {str(folder)!r} is not a folder")
    try:  # permissions alone do not tell (root, read-only mounts): try to create a file
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".benchmark-probe-")
    except OSError as error:
        raise UsageError(
            f"--output: cannot write in {str(folder)!r} ({error.strerror})"
        ) from None
    os.close(handle)
    os.unlink(probe)


if __name__ == "__main__":
    try:
        parse_command_line(sys.argv[1:])  # --help ends here too
    except UsageError as error:
        print(f"benchmark.py: error: {error}", file=sys.stderr)
        sys.exit(2)

# --8<-- [start:imports]
import csv
import gc
import io
import math
import os
import time
from dataclasses import dataclass

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function
from torch.utils.benchmark import Timer
from torch.utils.flop_counter import FlopCounterMode
# --8<-- [end:imports]

import datetime
import hashlib
import json
import platform
import subprocess


# --8<-- [start:tolerance]
@dataclass(frozen=True)
class Criterion:
    """One requirement of a task: the CSV column measured, and its bound."""

    column: str
    bound: float
    at_least: bool  # True: the value must be >= bound; False: <= bound
    meaning: str


# Each task's acceptance criteria, fixed before anything is timed and the same
# for every dtype. Errors are relative to a float64 reference computed from the
# same rounded inputs: ||result - reference|| / ||reference||, the worst over the
# task's tensors. NaN or inf never passes.
CRITERIA = {
    "inference": (  # a prediction must lead to the same decision, and be close
        Criterion(
            "agreement",
            0.99,
            True,
            "share of samples whose decision (the argmax of their output row) is the "
            "reference's",
        ),
        Criterion("rel_error", 1e-2, False, "relative error of the outputs"),
    ),
    "training": (  # a step must report its loss and really apply its update
        Criterion("loss_rel_error", 1e-2, False, "relative error of the loss"),
        Criterion(
            "rel_error",
            5e-2,
            False,
            "relative error of the update each parameter received (after - before the "
            "step)",
        ),
    ),
    # within 5% in norm: at most asin(0.05), about 2.9 degrees, off the exact direction
    "gradient": (
        Criterion("rel_error", 5e-2, False, "relative error of the gradients"),
    ),
}
# --8<-- [end:tolerance]

# --8<-- [start:tasks]
TASKS = tuple(CRITERIA)  # inference, training, gradient
LEARNING_RATE = 0.01


@dataclass(frozen=True)
class Cell:
    """One unit of comparable work: everything that changes the cost is fixed here."""

    trial: str
    workload: str  # "mlp": tanh(x @ w1 + b1) @ w2 + b2; "matmul": x @ w
    task: str
    dtype: torch.dtype
    size: int
    hidden: int
    batch: int
    seed: int = 0

    @property
    def shape(self) -> str:
        if self.workload == "matmul":
            return f"{self.size}x{self.size}"
        return f"{self.size}x{self.hidden}x{self.size}"


def make_inputs(cell):
    """Weights, input and target in float32 from a seeded generator: the same for every
    dtype.
    """
    g = torch.Generator().manual_seed(cell.seed)
    if cell.workload == "matmul":
        params = [torch.randn(cell.size, cell.size, generator=g) / math.sqrt(cell.size)]
    else:
        params = [
            torch.randn(cell.size, cell.hidden, generator=g) / math.sqrt(cell.size),
            torch.randn(cell.hidden, generator=g) / 10,
            torch.randn(cell.hidden, cell.size, generator=g) / math.sqrt(cell.hidden),
            torch.randn(cell.size, generator=g) / 10,
        ]
    x = torch.randn(cell.batch, cell.size, generator=g)
    target = torch.randn(cell.batch, cell.size, generator=g)
    return params, x, target


def forward(workload, params, x):
    if workload == "matmul":
        (w,) = params
        return x @ w
    w1, b1, w2, b2 = params
    return torch.tanh(x @ w1 + b1) @ w2 + b2


def make_task(task, workload, params, x, target):
    """The callable that is timed: one call is one unit of the task's work."""

    def loss_of():
        return torch.nn.functional.mse_loss(forward(workload, params, x), target)

    if task == "inference":  # forward only, no autograd graph kept (and no target held)

        def call():
            with torch.inference_mode():
                return (forward(workload, params, x),)
    elif task == "gradient":  # derivatives returned, .grad left untouched

        def call():
            return torch.autograd.grad(loss_of(), params)
    elif task == "training":  # forward, backward and an optimizer step
        optimizer = torch.optim.SGD(params, lr=LEARNING_RATE)

        def call():
            optimizer.zero_grad(set_to_none=True)  # frees the last step's .grad tensors
            loss = loss_of()
            loss.backward()
            optimizer.step()
            return (loss.detach(), *(p.grad for p in params))  # what this step computed
    else:
        raise ValueError(f"unknown task {task!r}: choose from {', '.join(TASKS)}")
    call.params = params  # the quality check reads the update a training step applied
    return call


def build(cell, inputs, dtype, device):
    """The cell's callable on `device` in `dtype`, from the given inputs."""
    params, x, target = inputs
    params = [
        p.to(device, dtype, copy=True).requires_grad_(cell.task != "inference")
        for p in params
    ]
    return make_task(
        cell.task,
        cell.workload,
        params,
        x.to(device, dtype, copy=True),
        target.to(device, dtype, copy=True),
    )


# --8<-- [end:tasks]


# --8<-- [start:first_call]
def synchronizer(device):
    """A function that returns once all work queued on `device` has finished."""
    if device.type == "cpu":
        return torch.cpu.synchronize  # CPU operators finish before they return: a no-op
    return lambda: torch.accelerator.synchronize(device)


def first_call(call, sync):
    """Seconds of the very first call, lazy initialisation included, and its outputs."""
    start = time.perf_counter()
    outputs = call()
    # accelerator work is queued asynchronously: wait for it before reading the clock
    sync()
    return time.perf_counter() - start, outputs


# --8<-- [end:first_call]


# --8<-- [start:steady_state]
NOISE_THRESHOLD = (
    0.10  # torch's own: a Measurement warns (has_warnings) at IQR >= 10% of the median
)
MIN_BLOCKS = 4  # adaptive_autorange judges the spread from the 4th timed block on
# Contended: other programs held the cores, so the threads waited for one more than
# 1 - this share of the wall time (Linux counts the wait; elsewhere a low CPU share on
# one thread tells). Its blocks can be slow and steady (a small IQR): the IQR misses it.
CONTENTION_THRESHOLD = 0.9


def core_wait():
    """Seconds this process's threads have spent ready to run but waiting for a core
    (the run_delay of Linux's schedstat, summed), or None where the OS does not say."""
    total = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat") as file:
                total += int(file.read().split()[1])
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        except (OSError, ValueError, IndexError):
            return None
    return total / 1e9


def is_contended(cpu_share, wait_share, threads, load_average, cpus):
    """Other programs took the cores. A low CPU share alone does not say so when there
    are several threads: ops too small to split leave threads idle, not waiting."""
    if wait_share is not None:
        return 1 - wait_share < CONTENTION_THRESHOLD  # off a core over 10% of the time
    if threads == 1:
        return cpu_share < CONTENTION_THRESHOLD
    busy = load_average is None or load_average > cpus  # more runnable than cores
    return cpu_share < CONTENTION_THRESHOLD and busy


def steady_state(call, sync, *, threads, min_run_time, max_run_time, host=True):
    """Seconds per call in timed blocks: torch.utils.benchmark's Measurement of block
    means.

    It also records how much of the wall time the process got a core (`cpu_share`),
    how much its threads waited for one (`wait_share`) and the 1-minute load average,
    where the OS gives them. `host`: the work runs on the CPU (on an accelerator the
    host thread may sleep while it waits, so no contention test).
    """
    timer = Timer(
        stmt="call(); sync()",  # every timed call ends with the device synchronized
        globals={"call": call, "sync": sync},
        num_threads=threads,  # Timer's default is one thread: set it, and record it
    )
    wall, cpu = time.perf_counter(), time.process_time()  # process_time: every thread's
    waited = core_wait()
    # Warms up, then adds blocks until their IQR is under the threshold or max_run_time
    # is spent.
    timing = timer.adaptive_autorange(
        threshold=NOISE_THRESHOLD, min_run_time=min_run_time, max_run_time=max_run_time
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    now = core_wait()
    timing.cpu_share = cpu / (wall * threads)  # 1: every thread ran all along
    timing.wait_share = (
        None if None in (waited, now) else max(0.0, now - waited) / (wall * threads)
    )
    timing.load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    timing.contended = host and is_contended(
        timing.cpu_share,
        timing.wait_share,
        threads,
        timing.load_average,
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
    )
    return timing


def is_noisy(timing):
    """IQR >= 10% of the median (where torch's own Measurement warns), too few blocks to
    tell, or contended: the threads did not have their cores."""
    return (
        not timing.meets_confidence(NOISE_THRESHOLD)
        or len(timing.times) < MIN_BLOCKS
        or getattr(timing, "contended", False)
    )


def timed(call, sync, *, threads, min_run_time, max_run_time, reruns, host=True):
    """The steady state, re-measured up to `reruns` times while noisy; the least noisy
    is kept.
    """

    def attempt():
        return steady_state(
            call,
            sync,
            threads=threads,
            min_run_time=min_run_time,
            max_run_time=max_run_time,
            host=host,
        )

    attempts = [attempt()]
    while is_noisy(attempts[-1]) and len(attempts) <= reruns:
        attempts.append(attempt())
    best = min(
        attempts, key=lambda timing: (is_noisy(timing), timing.iqr / timing.median)
    )
    return best, len(attempts)


# --8<-- [end:steady_state]


# --8<-- [start:memory]
# What the memory columns hold; the metadata file spells it out (MEMORY_METHODS).
CPU_MEMORY = "profiler: live tensor bytes since the build"
ACCELERATOR_MEMORY = "allocator: allocated bytes since the build"


def peak_memory(make_call, device):
    """Bytes of tensor memory one steady-state call needs: (at its peak, held between
    calls).

    Both include the cell's state (parameters, inputs, gradients, optimizer state): the
    callable is built inside the measurement, so every byte it holds is seen allocated.
    """
    gc.collect()  # garbage of earlier cells is freed now, not inside the measurement
    gc.disable()
    try:
        if device.type == "cpu":
            return _cpu_peak_memory(make_call) + (CPU_MEMORY,)
        return _accelerator_peak_memory(make_call, device) + (ACCELERATOR_MEMORY,)
    finally:
        gc.enable()


def _cpu_peak_memory(make_call):
    # Kineto prints trace markers on stderr at a level above its errors: quiet unless
    # asked.
    os.environ.setdefault(
        "KINETO_LOG_LEVEL", "6"
    )  # read once, when the profiler first starts
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        call = make_call()
        call()  # the first call creates what later calls keep (a training step's .grad)
        with record_function("steady-state call"):
            call()
        del call
    events = prof.profiler.kineto_results.events()
    window = next(e for e in events if e.name() == "steady-state call")
    start, end = window.start_ns(), window.end_ns()
    # Each "[memory]" event is one allocation (+bytes) or release (-bytes) by torch.
    changes = [
        (e.start_ns(), e.nbytes())
        for e in sorted(events, key=lambda e: e.start_ns())
        if e.name() == "[memory]" and e.device_type() == DeviceType.CPU
    ]
    held = sum(
        nbytes for when, nbytes in changes if when < start
    )  # live as the call starts
    level = peak = held
    for when, nbytes in changes:
        if start <= when <= end:
            level += nbytes
            peak = max(peak, level)
    return peak, held


def _accelerator_peak_memory(make_call, device):
    sync = synchronizer(device)
    warm = (
        make_call()
    )  # libraries create their workspaces on first use: not this cell's
    warm()
    del warm
    sync()
    before = torch.accelerator.memory_allocated(device)
    call = make_call()
    call()
    sync()
    held = torch.accelerator.memory_allocated(device) - before
    torch.accelerator.reset_peak_memory_stats(device)
    call()
    sync()
    return torch.accelerator.max_memory_allocated(device) - before, held


def count_flops(call):
    """Floating-point operations in one call, counted by torch (matmuls; not
    elementwise).
    """
    with FlopCounterMode(display=False) as counter:
        call()
    return counter.get_total_flops()


# --8<-- [end:memory]


# --8<-- [start:quality]
def relative_error(results, reference):
    """The worst ||result - reference|| / ||reference|| over the tensors, in float64."""
    worst = 0.0
    for out, ref in zip(results, reference, strict=True):
        out = out.detach().to("cpu", torch.float64)
        ref = ref.detach().to("cpu", torch.float64)
        error = torch.linalg.vector_norm(out - ref).item()
        scale = torch.linalg.vector_norm(ref).item()
        error = error / scale if scale else error
        if not math.isfinite(
            error
        ):  # NaN or inf anywhere: report it, never hide it in max()
            return error
        worst = max(worst, error)
    return worst


def agreement(output, reference, resolution=0.0):
    """Share of rows whose decision, the index of their largest output, is the
    reference's.

    A row whose chosen index the reference puts within `resolution` x the row's largest
    |value| of its own best is a tie, not a disagreement: rounding the exact row to the
    dtype (a spacing of eps x that value at most) can swap two such entries.
    """
    output, reference = output.detach().cpu(), reference.detach().cpu().double()
    chosen, best = (
        output.argmax(dim=-1, keepdim=True),
        reference.argmax(dim=-1, keepdim=True),
    )
    margin = (reference.gather(-1, best) - reference.gather(-1, chosen)).squeeze(-1)
    tie = margin <= resolution * reference.abs().amax(dim=-1)
    return ((chosen == best).squeeze(-1) | tie).double().mean().item()


def spacing(values, dtype):
    """The gap between `values` (held in `dtype`) and the next number of the dtype, in
    float64.
    """
    info = torch.finfo(dtype)
    magnitude = values.double().abs().clamp(min=info.smallest_normal)
    return info.eps * 2.0 ** torch.floor(torch.log2(magnitude))


def observe(call, sync):
    """Time the first call and keep what the task's criteria look at.

    The parameters before the call are copied in their own dtype, on the CPU: no float64
    copy of every weight is made while the cell runs.
    """
    before = [p.detach().to("cpu", copy=True) for p in call.params]
    seconds, outputs = first_call(call, sync)
    after = [p.detach().to("cpu", copy=True) for p in call.params]
    return seconds, {"outputs": outputs, "before": before, "after": after}


def update_error(observed, reference, dtype):
    """Relative error of the update a step applied, against a correctly rounded step.

    The reference update is exact (float64); a correct step in `dtype` can only apply it
    rounded: round(before + update) - before. An element applied as the update 5%
    smaller or larger would round (the gradient's own tolerance) is a tie at the
    dtype's resolution, not an error; any other difference counts in full.
    """
    slack = next(c.bound for c in CRITERIA["training"] if c.column == "rel_error")
    applied, expected = [], []
    for before, after, exact in zip(
        observed["before"],
        observed["after"],
        (
            a.double() - b.double()
            for a, b in zip(reference["after"], reference["before"], strict=True)
        ),
        strict=True,
    ):
        start = before.double()
        low, rounded, high = (
            (start + exact * k).to(dtype).double() - start
            for k in (1 - slack, 1, 1 + slack)
        )
        step = after.double() - start
        tie = (step >= torch.minimum(low, high)) & (step <= torch.maximum(low, high))
        applied.append(torch.where(tie, rounded, step))
        expected.append(rounded)
    return relative_error(applied, expected)


def worst(*errors):
    """The largest error; NaN wins (max() would drop a NaN that is not first)."""
    return next((e for e in errors if not math.isfinite(e)), max(errors))


def measure_quality(task, observed, reference, dtype=torch.float32):
    """The task's quality metrics, named as the CSV columns that hold them."""
    outputs, expected = observed["outputs"], reference["outputs"]
    if task == "inference":
        return {
            "agreement": agreement(outputs[0], expected[0], torch.finfo(dtype).eps),
            "rel_error": relative_error(outputs, expected),
        }
    if task == "training":  # the gradients the step computed, and the update it applied
        return {
            "loss_rel_error": relative_error(outputs[:1], expected[:1]),
            "rel_error": worst(
                relative_error(outputs[1:], expected[1:]),
                update_error(observed, reference, dtype),
            ),
        }
    return {"rel_error": relative_error(outputs, expected)}


def judge(task, metrics):
    """(passed, why not): every criterion of the task must hold; NaN or inf never
    passes.
    """
    failures = []
    for criterion in CRITERIA[task]:
        value = metrics[criterion.column]
        if criterion.at_least:
            met, sign = value >= criterion.bound, "<"
        else:
            met, sign = value <= criterion.bound, ">"
        if not (met and math.isfinite(value)):
            failures.append(
                f"{criterion.column} {value:.3g} {sign} {criterion.bound:g}"
            )
    return not failures, "; ".join(failures)


def round_inputs(inputs, dtype):
    """The inputs as the cell's dtype holds them; the float64 reference starts from
    these too.
    """
    params, x, target = inputs
    return [p.to(dtype) for p in params], x.to(dtype), target.to(dtype)


def summed_matmul(a, b):
    """a @ b as products summed by torch.sum, a few rows at a time: not BLAS."""
    rows = max(
        1, 2**22 // (a.shape[1] * b.shape[1])
    )  # about 32 MiB of products at once
    return torch.cat(
        [(a[i : i + rows, :, None] * b).sum(1) for i in range(0, len(a), rows)]
    )


def independent_reference(cell, inputs):
    """What the task returns, in float64 on the CPU, without the kernels a float64 cell
    runs:
    summed products instead of BLAS, derivatives written out instead of autograd."""
    params, x, target = (
        [p.double() for p in inputs[0]],
        inputs[1].double(),
        inputs[2].double(),
    )
    if cell.workload == "matmul":
        out = summed_matmul(x, params[0])
    else:
        w1, b1, w2, b2 = params
        hidden = torch.tanh(summed_matmul(x, w1) + b1)
        out = summed_matmul(hidden, w2) + b2
    if cell.task == "inference":
        return {"outputs": (out,)}
    d_out = 2 * (out - target) / out.numel()  # of the mean squared error
    if cell.workload == "matmul":
        grads = [summed_matmul(x.T, d_out)]
    else:
        d_pre = summed_matmul(d_out, w2.T) * (1 - hidden**2)  # tanh' = 1 - tanh^2
        grads = [
            summed_matmul(x.T, d_pre),
            d_pre.sum(0),
            summed_matmul(hidden.T, d_out),
            d_out.sum(0),
        ]
    if cell.task == "gradient":
        return {"outputs": tuple(grads)}
    loss = ((out - target) ** 2).mean()
    after = [
        p - LEARNING_RATE * g for p, g in zip(params, grads, strict=True)
    ]  # plain SGD
    return {"outputs": (loss, *grads), "before": params, "after": after}


def reference_of(cell, inputs):
    """(the reference, what it is). A float64 cell is not checked against itself."""
    if cell.dtype == torch.float64:
        return independent_reference(cell, inputs), INDEPENDENT_REFERENCE
    _, reference = observe(
        build(cell, inputs, torch.float64, torch.device("cpu")), torch.cpu.synchronize
    )
    return reference, FLOAT64_REFERENCE


FLOAT64_REFERENCE = "float64 (CPU, same kernels, autograd)"
INDEPENDENT_REFERENCE = "float64 (CPU, summed products, written-out derivatives)"
# --8<-- [end:quality]


# --8<-- [start:row]
COLUMNS = (
    "trial",
    "torch_build",
    "device",
    "dtype",
    "shape",
    "batch",
    "latency",
    "memory",
    "quality_pass",
)  # the guide's template, in this order
EXTRA_COLUMNS = (
    "workload",
    "task",
    "latency_iqr",
    "first_call",
    "runs",
    "threads",
    "samples_per_s",
    "gflop_per_s",
    "memory_method",
    "rel_error",
    "tolerance",
    "error",  # appended after the template, never in between; new ones go last
    "blocks",
    "noisy",
    "attempts",
    "memory_state",
    "flops",
    "agreement",
    "loss_rel_error",
    "quality_failure",
    "pass_error",
    "cpu_share",
    "load_average",
    "contended",
    "precision",
    "reference",
    "wait_share",
)


def torch_build():
    """The torch version, its git hash and the CUDA/HIP version it was built with."""
    return (
        f"{torch.__version__} git {torch.version.git_version[:12]} cuda "
        f"{torch.version.cuda or 'none'} hip {torch.version.hip or 'none'}"
    )


def number(value):
    return "" if value is None else f"{value:.6g}"


def make_row(
    cell,
    device,
    threads,
    *,
    first=None,
    timing=None,
    attempts=None,
    memory=None,
    memory_state=None,
    memory_method="",
    flops=None,
    metrics=None,
    quality_failure="",
    failure=None,
    pass_errors=(),
    reference="",
):
    """One CSV row. A failed cell keeps its row: nothing measured, quality false, the
    error.

    The timed blocks go with it, under "_blocks" (not a CSV column): the metadata
    keeps them.
    """
    metrics = metrics or {}
    latency = timing.median if timing is not None else None
    passed = failure is None and not quality_failure and bool(metrics)
    if failure is not None:
        quality_failure = "the cell did not run (see error)"
    return {
        "trial": cell.trial,
        "torch_build": torch_build(),
        "device": str(device),
        "dtype": str(cell.dtype).removeprefix("torch."),
        "shape": cell.shape,
        "batch": cell.batch,
        "latency": number(latency),
        "memory": "" if memory is None else memory,
        "quality_pass": "true" if passed else "false",
        "workload": cell.workload,
        "task": cell.task,
        "latency_iqr": number(timing.iqr if timing is not None else None),
        "first_call": number(first),
        "runs": len(timing.times) * timing.number_per_run if timing is not None else "",
        "threads": threads,
        "samples_per_s": number(cell.batch / latency if latency else None),
        "gflop_per_s": number(flops / latency / 1e9 if latency and flops else None),
        "memory_method": memory_method if memory is not None else "",
        "rel_error": number(metrics.get("rel_error")),
        "tolerance": number(
            next(c.bound for c in CRITERIA[cell.task] if c.column == "rel_error")
            if cell.task in CRITERIA
            else None
        ),
        "error": "" if failure is None else one_line(failure),
        "blocks": len(timing.times) if timing is not None else "",
        "noisy": ("true" if is_noisy(timing) else "false")
        if timing is not None
        else "",
        "attempts": "" if attempts is None else attempts,
        "memory_state": "" if memory_state is None else memory_state,
        "flops": "" if flops is None else flops,
        "agreement": number(metrics.get("agreement")),
        "loss_rel_error": number(metrics.get("loss_rel_error")),
        "quality_failure": quality_failure,
        "pass_error": "; ".join(pass_errors),
        "cpu_share": number(getattr(timing, "cpu_share", None)),
        "load_average": number(getattr(timing, "load_average", None)),
        "contended": (
            ("true" if timing.contended else "false")
            if getattr(timing, "contended", None) is not None
            else ""
        ),
        # weights, inputs and arithmetic in the dtype (no autocast cells)
        "precision": "pure",
        "reference": reference,
        "wait_share": number(getattr(timing, "wait_share", None)),
        "_blocks": None
        if timing is None
        else {"number_per_run": timing.number_per_run, "raw_times": timing.raw_times},
    }


def one_line(error):
    message = " ".join(str(error).split()) or "(no message)"
    return f"{type(error).__name__}: {message}"[:300]


def to_csv(rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer,
        fieldnames=COLUMNS + EXTRA_COLUMNS,
        lineterminator="\n",
        extrasaction="ignore",
    )  # "_blocks" goes to the metadata
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


# --8<-- [end:row]


# --8<-- [start:cell]
def passes(cell, device, threads, min_run_time, max_run_time, reruns):
    """Setup, first call + quality, steady state, memory and FLOPs, each in its own
    pass.

    Only the cell's own setup, first call and steady state can fail the cell; a failing
    reference, memory or FLOP pass is recorded in `pass_error` and the timing is kept.
    """
    rounded = round_inputs(make_inputs(cell), cell.dtype)
    call = build(cell, rounded, cell.dtype, device)
    sync = synchronizer(device)
    first, observed = observe(call, sync)
    measured, errors = {"first": first}, []
    try:  # the float64 reference runs on the CPU, where float64 is always available
        reference, measured["reference"] = reference_of(cell, rounded)
    except (
        Exception
    ) as failure:  # e.g. out of memory: the reference's failure, not the cell's
        errors.append(f"reference: {one_line(failure)}")
        measured["quality_failure"] = f"no float64 reference ({one_line(failure)})"
    else:
        metrics = measure_quality(cell.task, observed, reference, cell.dtype)
        measured["metrics"] = metrics
        measured["quality_failure"] = judge(cell.task, metrics)[1]
        del reference
    del observed
    measured["timing"], measured["attempts"] = timed(
        call,
        sync,
        threads=threads,
        min_run_time=min_run_time,
        max_run_time=max_run_time,
        reruns=reruns,
        host=device.type == "cpu",
    )
    del call
    try:
        memory, held, method = peak_memory(
            lambda: build(cell, rounded, cell.dtype, device), device
        )
        measured.update(memory=memory, memory_state=held, memory_method=method)
    except Exception as failure:
        errors.append(f"memory: {one_line(failure)}")
    try:
        measured["flops"] = count_flops(build(cell, rounded, cell.dtype, device))
    except Exception as failure:
        errors.append(f"flops: {one_line(failure)}")
    measured["pass_errors"] = errors
    return measured


def measure_cell(cell, device, threads, min_run_time, *, max_run_time=None, reruns=0):
    """One row for one cell, whatever happens in it."""
    max_run_time = max_run_time or 10 * min_run_time
    try:
        measured = passes(cell, device, threads, min_run_time, max_run_time, reruns)
    except (
        Exception
    ) as failure:  # OOM, unsupported dtype, anything: keep the row, go on
        row = make_row(cell, device, threads, failure=failure)
    else:
        return make_row(cell, device, threads, **measured)
    release(device)  # the failed pass's tensors left with its frame and traceback
    return row


def release(device):
    """Give memory a failed cell held back, so the next cell starts clean."""
    gc.collect()
    if device.type != "cpu":
        torch.accelerator.empty_cache()


# --8<-- [end:cell]


# Everything below runs the cells from the command line and writes the files.

assert TASKS == TASK_NAMES, "the command line's task names are CRITERIA's"

DTYPES = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
# float32 and the reduced precisions each device type supports.
DEFAULT_DTYPES = {
    "cpu": ("float32", "bfloat16"),
    "cuda": ("float32", "bfloat16", "float16"),
    "xpu": ("float32", "bfloat16", "float16"),
    "mps": ("float32", "float16"),
}
MEMORY_METHODS = {
    CPU_MEMORY: (
        "memory: the most bytes of tensor memory live at any moment of one "
        "steady-state call; memory_state: the bytes live as that call starts, i.e. "
        "what the cell holds between calls (parameters, inputs, gradients kept from "
        "the last step, optimizer state). Both count every allocation since the cell "
        "was built: the running sum of the allocation and release events "
        "torch.profiler records with profile_memory=True (read through "
        "prof.profiler.kineto_results.events(), a semi-internal API). The events "
        "carry the bytes requested, unrounded (the C library underneath may reserve a "
        "little more); scratch buffers that kernels allocate through PyTorch's "
        "allocator count (some bfloat16 kernels do, and their size depends on the "
        "thread count); Python objects and memory a library allocates outside that "
        "allocator do not."
    ),
    ACCELERATOR_MEMORY: (
        "memory: torch.accelerator.max_memory_allocated() during one steady-state "
        "call, after reset_peak_memory_stats(); memory_state: memory_allocated() as "
        "that call starts; both minus memory_allocated() before the cell was built, "
        "after a throwaway build and call (so that library workspaces created on "
        "first use are not counted). The caching allocator counts the block that "
        "serves each request: on CUDA, rounded up to a multiple of 512 bytes, and a "
        "request over 1 MiB may be counted up to 1 MiB larger, depending on which "
        "cached block served it (a remainder of 1 MiB or less is not split off); what "
        "it reserves beyond that is not counted."
    ),
}
NOISE_CRITERION = (
    f"noisy = true when the IQR of the block means is >= {NOISE_THRESHOLD:g} of their "
    f"median (Measurement.meets_confidence({NOISE_THRESHOLD:g}) is false: where "
    f"torch's Measurement itself warns), when fewer than {MIN_BLOCKS} blocks were "
    "timed, or, on the CPU, when the cell was contended: its threads waited for a "
    f"core more than {1 - CONTENTION_THRESHOLD:.2g} of the wall time (wait_share; "
    "where the OS does not tell, the process's CPU time over the wall time per thread, "
    f"cpu_share, was under {CONTENTION_THRESHOLD:g} with one thread, or with several "
    "while the load average exceeded the CPUs), a slowdown that lasts the whole cell "
    "and leaves its blocks steady. Timing uses "
    f"Timer.adaptive_autorange(threshold={NOISE_THRESHOLD:g}), which adds blocks "
    "until the spread is under the threshold or max_run_time is spent: a spread "
    "under the threshold is an estimate biased low. Rerun policy: a noisy cell is "
    "timed again, up to "
    "`reruns` more times, and the least noisy attempt is kept; `attempts` counts "
    "them. Each cell still noisy is named on stderr."
)
ENVIRONMENT = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "KMP_AFFINITY",
    "GOMP_CPU_AFFINITY",
    "OMP_PROC_BIND",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "ATEN_CPU_CAPABILITY",
    "CUDA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "CUBLAS_WORKSPACE_CONFIG",
    "NVIDIA_TF32_OVERRIDE",
    "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
    "KINETO_LOG_LEVEL",
)


def parse_args(argv):
    """The options, every check done: the device must be present, the dtypes known."""
    args = parse_command_line(argv)
    args.device = resolve_device(args.device)
    args.dtypes = args.dtypes or DEFAULT_DTYPES.get(
        args.device.type, ("float32", "float16")
    )
    args.threads = args.threads or torch.get_num_threads()
    return args


def resolve_device(name):
    """The device to measure; asking for one that is absent is a usage error."""
    present = (
        torch.accelerator.current_accelerator()
        if torch.accelerator.is_available()
        else None
    )
    if name is None:
        return present or torch.device("cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise UsageError(
            f"unknown device {name!r}: use cpu, cuda, mps, xpu, ..."
        ) from None
    if device.type == "cpu":
        return torch.device("cpu")
    if present is None or device.type != present.type:
        raise UsageError(
            f"device {name!r} is not available: torch {torch.__version__} sees only "
            f"{'cpu and ' + present.type if present else 'the cpu'} here"
        )
    index = (
        torch.accelerator.current_device_index()
        if device.index is None
        else device.index
    )
    if index >= torch.accelerator.device_count():
        raise UsageError(
            f"device {name!r} is not available: {torch.accelerator.device_count()} "
            f"{device.type} device(s) here"
        )
    return torch.device(device.type, index)


def plan(args):
    """Every cell of the run, repetitions outermost so that drift spreads over all
    cells.
    """
    cells = [
        Cell(
            trial=f"{args.workload}-{task}-{dtype}-b{batch}-r{repeat}",
            workload=args.workload,
            task=task,
            dtype=DTYPES[dtype],
            size=args.size,
            hidden=args.hidden,
            batch=batch,
            seed=args.seed,
        )
        for repeat in range(1, args.repeats + 1)
        for task in args.tasks
        for dtype in args.dtypes
        for batch in args.batch_sizes
    ]
    assert len({cell.trial for cell in cells}) == len(cells), "trial ids must be unique"
    return cells


class Progress:
    """A progress bar on stderr (tqdm if installed, else one line per cell), and notes
    beside it.
    """

    def __init__(self, cells, enabled):
        self.cells, self.enabled, self.bar = cells, enabled, None

    def __iter__(self):
        if not self.enabled:
            yield from self.cells
            return
        try:
            from tqdm import tqdm
        except ImportError:
            for index, cell in enumerate(self.cells, 1):
                print(
                    f"[{index}/{len(self.cells)}] {cell.trial}",
                    file=sys.stderr,
                    flush=True,
                )
                yield cell
            return
        with tqdm(self.cells, unit="cell", file=sys.stderr) as self.bar:
            for cell in self.bar:
                self.bar.set_postfix_str(cell.trial)
                yield cell
        self.bar = None

    def note(self, line):
        """One line on stderr that does not break the bar."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)


def noise_note(row):
    if row.get("contended") == "true":
        waited = (
            f" and waited for one {float(row['wait_share']):.0%}"
            if row.get("wait_share")
            else ""
        )
        why = (
            f"contended: its threads had a core {float(row['cpu_share']):.0%} of the "
            f"wall time{waited} (load average {row['load_average'] or '?'}; use fewer "
            "--threads, or a quieter machine)"
        )
    elif int(row["blocks"]) < MIN_BLOCKS:
        why = (
            f"only {row['blocks']} timed block(s), fewer than {MIN_BLOCKS} (calls too "
            "slow for max_run_time: raise --max-run-time)"
        )
    else:
        spread = float(row["latency_iqr"]) / float(row["latency"])
        why = f"IQR {spread:.0%} of the median over {row['blocks']} blocks"
    return (
        f"benchmark.py: noisy: {row['trial']}: {why}, {row['attempts']} attempt(s); "
        "compare it with care"
    )


def run(
    cells,
    device,
    threads,
    min_run_time,
    show_progress=False,
    *,
    max_run_time=None,
    reruns=0,
    rows=None,
    finished=None,
):
    """Measure every cell, appending each row to `rows` as soon as it is complete.

    `finished(rows)`, when given, is called after each row: main() writes the files
    there.
    """
    torch.set_num_threads(threads)
    rows = [] if rows is None else rows
    progress = Progress(cells, show_progress)
    for index, cell in enumerate(progress):
        row = measure_cell(
            cell,
            device,
            threads,
            min_run_time,
            max_run_time=max_run_time,
            reruns=reruns,
        )
        rows.append(row)
        if finished is not None:
            finished(rows)
        if index == 0:
            # What stays alive after one cell (the modules it imported; on the CPU
            # torch._dynamo among them, which torch.profiler imports through
            # torch._inductor) stays for the run: frozen, it is skipped by the full
            # collection before each later cell (peak_memory), which then takes
            # milliseconds. A module first imported by a later cell is not frozen.
            gc.collect()
            gc.freeze()
        if row["noisy"] == "true":
            progress.note(noise_note(row))
    return rows


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_name(device):
    if device.type == "cpu":
        return cpu_model()
    backend = getattr(torch, device.type, None)
    try:
        return backend.get_device_name(device)
    except Exception:  # not every backend names its devices
        return device.type


def driver_version():
    """The GPU driver, as nvidia-smi reports it, where there is one."""
    if torch.version.cuda is None or not torch.cuda.is_available():
        return None
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (
        done.stdout.strip().splitlines()[0]
        if done.returncode == 0 and done.stdout.strip()
        else None
    )


def precision_settings():
    """The float32 precision switches of this torch build, oneDNN's included."""
    backends = torch.backends
    settings = {
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_allow_tf32": backends.cuda.matmul.allow_tf32,
        "cudnn_allow_tf32": backends.cudnn.allow_tf32,
        "cuda_matmul_allow_bf16_reduced_precision_reduction": (
            backends.cuda.matmul.allow_bf16_reduced_precision_reduction
        ),
        "cuda_matmul_allow_fp16_reduced_precision_reduction": (
            backends.cuda.matmul.allow_fp16_reduced_precision_reduction
        ),
        "mkldnn_allow_tf32": getattr(backends.mkldnn, "allow_tf32", None),
    }
    for name in (
        "",
        "cuda.matmul",
        "cudnn",
        "cudnn.conv",
        "cudnn.rnn",
        "mkldnn",
        "mkldnn.matmul",
        "mkldnn.conv",
        "mkldnn.rnn",
    ):
        backend = backends
        for part in filter(None, name.split(".")):
            backend = getattr(backend, part, None)
        value = getattr(backend, "fp32_precision", None)
        if value is not None:  # the fp32_precision API, where this build has it
            settings[
                f"{name.replace('.', '_') + '_' if name else ''}fp32_precision"
            ] = value
    return settings


def module_version():
    """This file's SHA-256, and its git commit where it is in a clean git checkout."""
    path = Path(__file__).resolve()
    version = {
        "file": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "git_commit": None,
        "git_modified": None,
    }
    try:
        commit = subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
        status = subprocess.run(
            ["git", "status", "--porcelain", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return version
    if commit.returncode == 0 and commit.stdout.strip():
        version["git_commit"] = commit.stdout.strip()
        version["git_modified"] = bool(status.stdout.strip())
    return version


COLUMN_MEANINGS = {
    "trial": "unique id of the cell: workload-task-dtype-batch-repetition",
    "torch_build": "torch version, git hash, CUDA and HIP versions it was built with",
    "device": "the device measured",
    "dtype": "the cell's dtype",
    "shape": "features x hidden x features (mlp) or n x n (matmul)",
    "batch": "rows per call",
    "latency": (
        "seconds per call: the median of the timed blocks' mean seconds per call "
        "(torch.utils.benchmark, the device synchronized inside every call)"
    ),
    "memory": (
        "bytes: the peak of tensor memory live during one steady-state call, the "
        "cell's state included (see memory_method)"
    ),
    "quality_pass": "true when every criterion of the task holds (see criteria)",
    "workload": "mlp or matmul",
    "task": "inference, training or gradient",
    "latency_iqr": (
        "seconds: the interquartile range of the blocks' mean seconds per call (not a "
        "half-width)"
    ),
    "first_call": (
        "seconds of the first call, lazy initialisation included, apart from the "
        "steady state; cold (imports, kernel set-up) only in the run's first cell"
    ),
    "runs": "calls timed: blocks x calls per block",
    "threads": "intra-op CPU threads",
    "samples_per_s": (
        "batch / latency: samples per second of calls made one after another, each "
        "waited for (serialized), not the throughput of pipelined calls"
    ),
    "gflop_per_s": "flops / latency / 1e9",
    "memory_method": "how memory and memory_state were measured (see memory_methods)",
    "rel_error": (
        "the task's relative error against the float64 reference: outputs "
        "(inference), the update applied to the parameters (training), gradients "
        "(gradient)"
    ),
    "tolerance": "the bound rel_error must not exceed, for this task",
    "error": "why the cell did not run; then nothing in the row was measured",
    "blocks": "timed blocks",
    "noisy": "true or false: see noise",
    "attempts": (
        "timing attempts made: 1 + reruns used while noisy; the least noisy is kept"
    ),
    "memory_state": (
        "bytes live as a steady-state call starts: what the cell holds between calls"
    ),
    "flops": (
        "floating-point operations per call counted by FlopCounterMode (matmuls only)"
    ),
    "agreement": "inference: share of samples whose argmax matches the reference's",
    "loss_rel_error": "training: relative error of the loss",
    "quality_failure": (
        "why quality_pass is false: each failed criterion with its value"
    ),
    "pass_error": (
        "a reference, memory or FLOP pass that failed; the row keeps what was measured"
    ),
    "cpu_share": (
        "the process's CPU time over the wall time per thread while the cell was "
        "timed: 1 when its threads had their cores all along"
    ),
    "load_average": "the OS's 1-minute load average after the timing, where it has one",
    "contended": (
        "true on the CPU when other programs took the cores: wait_share > 1 - "
        "CONTENTION_THRESHOLD; where the OS gives no wait_share, cpu_share < "
        "CONTENTION_THRESHOLD with one thread, or with several while the load average "
        "exceeds the CPUs the run may use (threads left idle by small ops lower "
        "cpu_share too). Then noisy is true too"
    ),
    "precision": "pure: weights, inputs and arithmetic in the dtype (no autocast cell)",
    "reference": "what quality was checked against (see reference)",
    "wait_share": (
        "the time the process's threads were ready to run but waited for a core, over "
        "the wall time per thread while the cell was timed (Linux's schedstat "
        "run_delay); empty where the OS does not tell"
    ),
}


def metadata(
    args,
    rows,
    *,
    planned,
    interrupted,
    csv_text,
    started=None,
    wall_seconds=None,
    finished=True,
    static=None,
):
    """The run's metadata; `static` (what does not change during a run) is reused if
    given.
    """
    return {
        **(static or static_metadata(args)),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        # When the run began and how long it took: runs whose spans overlap shared the
        # machine.
        "started": started,
        "wall_seconds": None if wall_seconds is None else round(wall_seconds, 3),
        "finished": finished,  # false while the run goes on: the rows so far, kept
        "interrupted": interrupted,
        "planned_cells": planned,
        "cells": len(rows),
        "failed_cells": sum(1 for row in rows if row["error"]),
        "noisy_cells": sum(1 for row in rows if row["noisy"] == "true"),
        "contended_cells": sum(1 for row in rows if row.get("contended") == "true"),
        "csv_sha256": hashlib.sha256(csv_text.encode("utf-8")).hexdigest(),
        # Every cell's timed blocks: load_measurements() makes Measurements of them.
        "blocks": {row["trial"]: row["_blocks"] for row in rows if row.get("_blocks")},
    }


def static_metadata(args):
    """What describes the run and stays the same while it goes on (computed once)."""
    return {
        "torch_build": torch_build(),
        "torch_version": torch.__version__,
        "torch_git_version": torch.version.git_version,
        "cuda_version": torch.version.cuda,
        "hip_version": torch.version.hip,
        "cudnn_version": torch.backends.cudnn.version()
        if torch.backends.cudnn.is_available()
        else None,
        "driver_version": driver_version(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "device": str(args.device),
        "device_name": device_name(args.device),
        "gpu_name": device_name(args.device) if args.device.type != "cpu" else None,
        "threads": args.threads,
        # the CPUs the process may run on (its affinity), where the OS tells
        "cpus": sorted(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else None,
        "parallel_info": torch.__config__.parallel_info(),
        "environment": {name: os.environ.get(name) for name in ENVIRONMENT},
        "module": module_version(),
        "matmul_precision": precision_settings(),
        "criteria": {
            task: [
                {
                    "column": c.column,
                    "bound": c.bound,
                    "passes_when": (
                        f"{c.column} {'>=' if c.at_least else '<='} {c.bound:g}"
                    ),
                    "meaning": c.meaning,
                }
                for c in criteria
            ]
            for task, criteria in CRITERIA.items()
        },
        "reference": (
            "float64 on the CPU, from the inputs rounded to the cell's dtype; a "
            "float64 cell's by other kernels (see the reference column); a training "
            "step is judged against the exact update correctly rounded to the dtype, "
            "a difference of one spacing of the weight counted as a tie; NaN or inf "
            "fails"
        ),
        "noise": {
            "threshold": NOISE_THRESHOLD,
            "min_blocks": MIN_BLOCKS,
            "contention_threshold": CONTENTION_THRESHOLD,
            "criterion": NOISE_CRITERION,
        },
        "memory_method": MEMORY_METHODS[
            CPU_MEMORY if args.device.type == "cpu" else ACCELERATOR_MEMORY
        ],
        "memory_methods": MEMORY_METHODS,
        "run": {
            "preset": args.preset,
            "workload": args.workload,
            "tasks": list(args.tasks),
            "dtypes": list(args.dtypes),
            "size": args.size,
            "hidden": args.hidden,
            "batch_sizes": list(args.batch_sizes),
            "repeats": args.repeats,
            "min_run_time": args.min_run_time,
            "max_run_time": args.max_run_time,
            "reruns": args.reruns,
            "seed": args.seed,
        },
        "columns": list(COLUMNS + EXTRA_COLUMNS),
        "column_meanings": COLUMN_MEANINGS,
        "units": {
            "latency": (
                "seconds per call: median of block means (torch.utils.benchmark, "
                "synchronized)"
            ),
            "latency_iqr": "seconds: interquartile range of the block means",
            "first_call": "seconds of the first call, apart from the steady state",
            "memory": "bytes at the peak, state included, see memory_method",
            "memory_state": "bytes held between calls",
            "flops": "per call",
            "samples_per_s": "batch / latency: samples per second of serialized calls",
            "gflop_per_s": "FlopCounterMode's count / latency / 1e9",
        },
    }


def write_atomically(path, text):
    """Write through a temporary file in the same folder, flushed to the disk, then
    rename:
    never half a file, and a crash just after still finds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    try:  # the rename itself, on the disk (not every OS can open a folder)
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)


class Terminated(BaseException):  # not caught as a failed cell
    """SIGTERM (a CI cancellation, `timeout`): handled as Ctrl-C is, exit status 143."""


def terminate(signum, frame):
    raise Terminated


class HeldSignals:
    """Ctrl-C and SIGTERM wait while the files are written; `deliver`: raised after."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, deliver=True):
        self.deliver, self.caught, self.previous = deliver, [], {}

    def __enter__(self):
        for number in self.SIGNALS:
            self.previous[number] = signal.signal(
                number, lambda n, f: self.caught.append(n)
            )

    def __exit__(self, *exc_info):
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        if self.deliver and self.caught and exc_info[0] is None:
            signal.raise_signal(self.caught[0])  # now handled as if it came just after


class WriteError(Exception):
    """The files could not be written (a full disk, a file too large): exit status 3."""


def write_pair(output, rows, meta_of, *, deliver=True):
    """The metadata, then the CSV, with Ctrl-C and SIGTERM held back until both are in
    place.

    The metadata records the CSV's SHA-256, so a pair that does not belong together
    (a crash between the two renames) can be told from one that does.
    """
    with HeldSignals(deliver):
        csv_text = to_csv(rows)
        meta = json.dumps(meta_of(csv_text), indent=2) + "\n"
        for path, text in ((output.with_suffix(".json"), meta), (output, csv_text)):
            try:
                write_atomically(path, text)
            except OSError as error:
                raise WriteError(f"{path}: {error.strerror or error}") from None


def load_measurements(path, description=None):
    """The timed blocks of a run's metadata (.json) as torch.utils.benchmark
    Measurements,
    one per timed cell, labelled so that torch.utils.benchmark.Compare groups them."""
    from torch.utils.benchmark import Measurement
    from torch.utils.benchmark.utils.common import TaskSpec

    path = Path(path).with_suffix(".json")
    meta = json.loads(path.read_text(encoding="utf-8"))
    rows = {
        row["trial"]: row
        for row in csv.DictReader(
            path.with_suffix(".csv").read_text(encoding="utf-8").splitlines()
        )
    }
    measurements = []
    for trial, blocks in meta.get("blocks", {}).items():
        row = rows[trial]
        spec = TaskSpec(
            stmt="call(); sync()",
            setup="pass",
            label=f"{row['workload']} {row['task']} {row['shape']}",
            sub_label=f"{row['dtype']} batch {row['batch']} {trial.rsplit('-', 1)[-1]}",
            description=description or path.stem,
            num_threads=int(row["threads"]),
        )
        measurements.append(
            Measurement(blocks["number_per_run"], blocks["raw_times"], spec)
        )
    return measurements


def main(argv=None):
    try:
        args = parse_args(argv)
    except UsageError as error:
        print(f"benchmark.py: error: {error}", file=sys.stderr)
        return 2
    cells, rows, interrupted = plan(args), [], None
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()

    def write(rows, *, finished=False, deliver=True):
        write_pair(
            args.output,
            rows,
            lambda csv_text: metadata(
                args,
                rows,
                planned=len(cells),
                interrupted=interrupted is not None,
                csv_text=csv_text,
                started=started,
                wall_seconds=time.perf_counter() - clock,
                finished=finished,
                static=static,
            ),
            deliver=deliver,
        )

    try:
        torch.set_num_threads(
            args.threads
        )  # before parallel_info is read into the metadata
        static = static_metadata(args)
        run(
            cells,
            args.device,
            args.threads,
            args.min_run_time,
            not args.no_progress,
            max_run_time=args.max_run_time,
            reruns=args.reruns,
            rows=rows,
            finished=write,
        )
    except (KeyboardInterrupt, Terminated) as signalled:
        interrupted = signalled
    except WriteError as error:
        return could_not_write(error, len(rows) - 1)  # the pair before this row's
    status = 143 if isinstance(interrupted, Terminated) else 130
    if interrupted is not None and not rows:
        print(
            "\nbenchmark.py: interrupted before any cell was complete; nothing written",
            file=sys.stderr,
        )
        return status
    try:  # the last pair: marked finished (or interrupted); a new signal now is ignored
        write(rows, finished=interrupted is None, deliver=False)
    except WriteError as error:
        return could_not_write(error, len(rows))  # the last pair, not marked finished
    failed = sum(1 for row in rows if row["error"])
    rejected = sum(1 for row in rows if row["quality_pass"] == "false")
    noisy = sum(1 for row in rows if row["noisy"] == "true")
    if interrupted is not None:
        print(
            f"\nbenchmark.py: {'terminated' if status == 143 else 'interrupted'}: "
            f"wrote the {len(rows)} complete rows of {len(cells)} to {args.output}, "
            "marked interrupted in its metadata",
            file=sys.stderr,
        )
        return status
    print(
        f"wrote {len(rows)} rows to {args.output} ({failed} failed, {rejected} failed "
        f"the quality criteria or did not run, {noisy} noisy)",
        file=sys.stderr,
    )
    if failed == len(rows):
        print(
            "benchmark.py: error: every cell failed; see the error column",
            file=sys.stderr,
        )
        return 1
    return 0


def could_not_write(error, kept):
    """One line, exit status 3: what is on the disk is the last pair written whole."""
    kept = (
        f"the files hold the {kept} finished row{'s' if kept > 1 else ''} written "
        "before"
        if kept
        else "no row was written"
    )
    print(f"\nbenchmark.py: error: could not write {error}; {kept}", file=sys.stderr)
    return 3


if __name__ == "__main__":
    signal.signal(
        signal.SIGINT, signal.default_int_handler
    )  # from here on, main() handles Ctrl-C
    signal.signal(signal.SIGTERM, terminate)
    sys.exit(main())
