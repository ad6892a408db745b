"""Fill the measuring guide's CSV template with real, synchronized measurements.

    python snippets/measuring/benchmark.py --preset quick --output results/benchmark.csv

Each cell fixes workload, task (inference, training, gradient), dtype, device and
batch size, and is measured in passes kept apart: setup, the first call (checked
against a float64 reference), the steady state (torch.utils.benchmark), memory,
FLOPs. A cell that fails still gets a row. Writes the CSV and a JSON file of
metadata beside it, each atomically. Needs torch; tqdm, if installed, draws the
progress bar. `--help` lists the options.
"""

# --8<-- [start:imports]
import csv
import gc
import io
import math
import time
from dataclasses import dataclass

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function
from torch.utils.benchmark import Timer
from torch.utils.flop_counter import FlopCounterMode
# --8<-- [end:imports]

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

# --8<-- [start:tolerance]
# The task's acceptance criterion, fixed before anything is timed and the same
# for every dtype: each output of the task, compared with a float64 reference
# computed from the same rounded inputs, must satisfy
# ||output - reference|| / ||reference|| <= TOLERANCE. NaN or inf never passes.
TOLERANCE = 1e-4
# --8<-- [end:tolerance]

# --8<-- [start:tasks]
TASKS = ("inference", "training", "gradient")
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
    """Weights, input and target in float32 from a seeded generator: the same for every dtype."""
    g = torch.Generator().manual_seed(cell.seed)
    if cell.workload == "matmul":
        params = [torch.randn(cell.size, cell.size, generator=g) / math.sqrt(cell.size)]
    else:
        params = [torch.randn(cell.size, cell.hidden, generator=g) / math.sqrt(cell.size),
                  torch.randn(cell.hidden, generator=g) / 10,
                  torch.randn(cell.hidden, cell.size, generator=g) / math.sqrt(cell.hidden),
                  torch.randn(cell.size, generator=g) / 10]
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
    loss_of = lambda: torch.nn.functional.mse_loss(forward(workload, params, x), target)  # noqa: E731
    if task == "inference":  # forward only, no autograd graph kept
        def call():
            with torch.inference_mode():
                return (forward(workload, params, x),)
    elif task == "gradient":  # derivatives returned, .grad left untouched
        def call():
            return torch.autograd.grad(loss_of(), params)
    elif task == "training":  # forward, backward and an optimizer step
        optimizer = torch.optim.SGD(params, lr=LEARNING_RATE)

        def call():
            optimizer.zero_grad(set_to_none=True)  # fresh .grad tensors each step
            loss = loss_of()
            loss.backward()
            optimizer.step()
            return (loss.detach(), *(p.grad for p in params))  # what this step computed
    else:
        raise ValueError(f"unknown task {task!r}: choose from {', '.join(TASKS)}")
    return call


def build(cell, inputs, dtype, device):
    """The cell's callable on `device` in `dtype`, from the given inputs."""
    params, x, target = inputs
    params = [p.to(device, dtype, copy=True).requires_grad_(cell.task != "inference") for p in params]
    return make_task(cell.task, cell.workload, params, x.to(device, dtype, copy=True),
                     target.to(device, dtype, copy=True))
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
    sync()  # accelerator work is queued asynchronously: wait for it before reading the clock
    return time.perf_counter() - start, outputs
# --8<-- [end:first_call]


# --8<-- [start:steady_state]
def steady_state(call, sync, *, threads, min_run_time):
    """Steady-state seconds per call: a torch.utils.benchmark Measurement (median, IQR)."""
    timer = Timer(
        stmt="call(); sync()",  # every timed call ends with the device synchronized
        globals={"call": call, "sync": sync},
        num_threads=threads,  # Timer's default is one thread: set it, and record it
    )
    return timer.blocked_autorange(min_run_time=min_run_time)  # warms up first
# --8<-- [end:steady_state]


# --8<-- [start:memory]
# What the memory column measures; the metadata file spells it out (MEMORY_METHODS).
CPU_MEMORY = "profiler peak above start"
ACCELERATOR_MEMORY = "allocator peak above baseline"


def peak_memory(call, device):
    """Peak bytes one call allocates, in a pass apart from timing, and how it was measured."""
    if device.type == "cpu":
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            call()  # frees what earlier calls left (old .grad): sizes the profiler can't know
            with record_function("measured call"):
                call()
        events = prof.profiler.kineto_results.events()
        window = next(e for e in events if e.name() == "measured call")
        # Each "[memory]" event is one allocation (+bytes) or release (-bytes) by torch.
        changes = sorted((e.start_ns(), e.nbytes()) for e in events
                         if e.name() == "[memory]" and e.device_type() == DeviceType.CPU)
        before = sum(nbytes for when, nbytes in changes if when < window.start_ns())
        level = peak = before
        for when, nbytes in changes:
            if window.start_ns() <= when <= window.end_ns():
                level += nbytes
                peak = max(peak, level)
        return peak - before, CPU_MEMORY
    sync = synchronizer(device)
    sync()
    before = torch.accelerator.memory_allocated(device)
    torch.accelerator.reset_peak_memory_stats(device)
    call()
    sync()
    return torch.accelerator.max_memory_allocated(device) - before, ACCELERATOR_MEMORY


def count_flops(call):
    """Floating-point operations in one call, counted by torch (matmuls; not elementwise)."""
    with FlopCounterMode(display=False) as counter:
        call()
    return counter.get_total_flops()
# --8<-- [end:memory]


# --8<-- [start:quality]
def relative_error(outputs, reference):
    """The worst ||output - reference|| / ||reference|| over the task's outputs, in float64."""
    worst = 0.0
    for out, ref in zip(outputs, reference, strict=True):
        out = out.detach().to("cpu", torch.float64)
        ref = ref.detach().to("cpu", torch.float64)
        error = torch.linalg.vector_norm(out - ref).item()
        scale = torch.linalg.vector_norm(ref).item()
        error = error / scale if scale else error
        if not math.isfinite(error):  # NaN or inf anywhere: report it, never hide it in max()
            return error
        worst = max(worst, error)
    return worst


def quality_pass(error):
    return math.isfinite(error) and error <= TOLERANCE


def round_inputs(inputs, dtype):
    """The inputs as the cell's dtype holds them; the float64 reference starts from these too."""
    params, x, target = inputs
    return [p.to(dtype) for p in params], x.to(dtype), target.to(dtype)
# --8<-- [end:quality]


# --8<-- [start:row]
COLUMNS = ("trial", "torch_build", "device", "dtype", "shape", "batch",
           "latency", "memory", "quality_pass")  # the guide's template, in this order
EXTRA_COLUMNS = ("workload", "task", "latency_iqr", "first_call", "runs", "threads",
                 "samples_per_s", "gflop_per_s", "memory_method", "rel_error", "tolerance",
                 "error")  # appended after the template, never in between


def torch_build():
    """The torch version with its git hash and the CUDA/HIP version it was built with."""
    return (f"{torch.__version__} git {torch.version.git_version[:12]} "
            f"cuda {torch.version.cuda or 'none'} hip {torch.version.hip or 'none'}")


def number(value):
    return "" if value is None else f"{value:.6g}"


def make_row(cell, device, threads, *, first=None, timing=None, memory=None,
             memory_method="", error_vs_reference=None, flops=None, failure=None):
    """One CSV row. A failed cell keeps its row: empty latency and memory, quality false."""
    latency = timing.median if timing is not None else None
    passed = failure is None and error_vs_reference is not None and quality_pass(error_vs_reference)
    return {
        "trial": cell.trial, "torch_build": torch_build(), "device": str(device),
        "dtype": str(cell.dtype).removeprefix("torch."), "shape": cell.shape, "batch": cell.batch,
        "latency": number(latency), "memory": "" if memory is None else memory,
        "quality_pass": "true" if passed else "false",
        "workload": cell.workload, "task": cell.task,
        "latency_iqr": number(timing.iqr if timing is not None else None),
        "first_call": number(first),
        "runs": len(timing.times) * timing.number_per_run if timing is not None else "",
        "threads": threads,
        "samples_per_s": number(cell.batch / latency if latency else None),
        "gflop_per_s": number(flops / latency / 1e9 if latency and flops else None),
        "memory_method": memory_method,
        "rel_error": number(error_vs_reference), "tolerance": number(TOLERANCE),
        "error": "" if failure is None else one_line(failure),
    }


def one_line(error):
    message = " ".join(str(error).split()) or "(no message)"
    return f"{type(error).__name__}: {message}"[:300]


def to_csv(rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS + EXTRA_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
# --8<-- [end:row]


# --8<-- [start:cell]
def passes(cell, device, threads, min_run_time):
    """Setup, first call + quality, steady state, memory and FLOPs, each in its own pass."""
    rounded = round_inputs(make_inputs(cell), cell.dtype)
    reference = build(cell, rounded, torch.float64, torch.device("cpu"))()
    call = build(cell, rounded, cell.dtype, device)
    sync = synchronizer(device)
    first, outputs = first_call(call, sync)
    error = relative_error(outputs, reference)  # the timed callable's own output
    del outputs, reference
    timing = steady_state(call, sync, threads=threads, min_run_time=min_run_time)
    memory, method = peak_memory(call, device)
    return {"first": first, "timing": timing, "memory": memory, "memory_method": method,
            "error_vs_reference": error, "flops": count_flops(call)}


def measure_cell(cell, device, threads, min_run_time):
    """One row for one cell, whatever happens in it."""
    try:
        measured = passes(cell, device, threads, min_run_time)
    except Exception as failure:  # OOM, unsupported dtype, anything: keep the row, go on
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

PRESETS = {
    # For the tests: seconds.
    "tiny": {"size": 8, "batch_sizes": (2, 4), "min_run_time": 0.01, "repeats": 1},
    # Under a minute on a 2-core CPU.
    "quick": {"size": 256, "batch_sizes": (8, 64), "min_run_time": 0.2, "repeats": 1},
    # Bigger shapes, three batch sizes, three repetitions of every cell.
    "full": {"size": 1024, "batch_sizes": (1, 32, 256), "min_run_time": 1.0, "repeats": 3},
}
DTYPES = {"float64": torch.float64, "float32": torch.float32,
          "float16": torch.float16, "bfloat16": torch.bfloat16}
# float32 and the reduced precisions each device type supports.
DEFAULT_DTYPES = {"cpu": ("float32", "bfloat16"), "cuda": ("float32", "bfloat16", "float16"),
                  "xpu": ("float32", "bfloat16", "float16"), "mps": ("float32", "float16")}
WORKLOADS = ("mlp", "matmul")
MEMORY_METHODS = {
    CPU_MEMORY: ("bytes of tensor memory at the peak of one call, above the level at its start: "
                 "the running sum of the allocation and release events that torch.profiler "
                 "records with profile_memory=True (PyTorch's CPU allocator only, not Python "
                 "objects or memory a library allocates by itself)"),
    ACCELERATOR_MEMORY: ("bytes at the peak of one call above the bytes allocated before it: "
                         "torch.accelerator.reset_peak_memory_stats(), then max_memory_allocated() "
                         "minus memory_allocated() (tensors in the caching allocator; what it "
                         "reserves beyond that is not counted)"),
}


class UsageError(Exception):
    """Bad command-line input: reported in one line, before anything is measured or written."""


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


def positive_ints(text):
    try:
        return tuple(positive_int(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected positive integers separated by commas, got {text!r}") from None


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def names(kind, allowed):
    def parse(text):
        values = tuple(part.strip() for part in text.split(","))
        for value in values:
            if value not in allowed:
                raise argparse.ArgumentTypeError(
                    f"unknown {kind} {value!r}: choose from {', '.join(allowed)}")
        return values
    return parse


def parse_args(argv):
    parser = Parser(prog="benchmark.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="full",
                        help="shapes and run times (default: full; quick runs in under a minute)")
    parser.add_argument("--output", type=Path, default=Path("results/benchmark.csv"),
                        help="CSV to write; the metadata goes beside it with .json (default: %(default)s)")
    parser.add_argument("--device", help="cpu, cuda, cuda:1, mps, xpu, ... "
                        "(default: the accelerator torch reports, else cpu)")
    parser.add_argument("--dtypes", type=names("dtype", tuple(DTYPES)),
                        help="comma-separated (default: float32 and the device's reduced precisions)")
    parser.add_argument("--tasks", type=names("task", TASKS), default=TASKS, help="comma-separated (default: all)")
    parser.add_argument("--workload", choices=WORKLOADS, default="mlp", help="default: %(default)s")
    parser.add_argument("--size", type=positive_int, help="input features (the matmul's n)")
    parser.add_argument("--hidden", type=positive_int, help="MLP hidden width (default: 4 x size)")
    parser.add_argument("--batch-sizes", type=positive_ints, help="comma-separated, e.g. 8,64")
    parser.add_argument("--repeats", type=positive_int, help="repetitions of every cell")
    parser.add_argument("--min-run-time", type=positive_float, help="seconds of timing per cell")
    parser.add_argument("--threads", type=positive_int, default=torch.get_num_threads(),
                        help="intra-op CPU threads, set explicitly (default: %(default)s here)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.hidden = args.hidden or 4 * args.size
    args.device = resolve_device(args.device)
    args.dtypes = args.dtypes or DEFAULT_DTYPES.get(args.device.type, ("float32", "float16"))
    return args


def resolve_device(name):
    """The device to measure; asking for one that is absent is a usage error."""
    present = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    if name is None:
        return present or torch.device("cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise UsageError(f"unknown device {name!r}: use cpu, cuda, mps, xpu, ...") from None
    if device.type == "cpu":
        return torch.device("cpu")
    if present is None or device.type != present.type:
        raise UsageError(f"device {name!r} is not available: torch {torch.__version__} sees only "
                         f"{'cpu and ' + present.type if present else 'the cpu'} here")
    index = torch.accelerator.current_device_index() if device.index is None else device.index
    if index >= torch.accelerator.device_count():
        raise UsageError(f"device {name!r} is not available: "
                         f"{torch.accelerator.device_count()} {device.type} device(s) here")
    return torch.device(device.type, index)


def plan(args):
    """Every cell of the run, repetitions outermost so that drift spreads over all cells."""
    return [Cell(trial=f"{args.workload}-{task}-{dtype}-b{batch}-r{repeat}", workload=args.workload,
                 task=task, dtype=DTYPES[dtype], size=args.size, hidden=args.hidden, batch=batch,
                 seed=args.seed)
            for repeat in range(1, args.repeats + 1)
            for task in args.tasks for dtype in args.dtypes for batch in args.batch_sizes]


def progress(cells, enabled):
    """A progress bar on stderr (tqdm if installed, else one line per cell)."""
    if not enabled:
        yield from cells
        return
    try:
        from tqdm import tqdm
    except ImportError:
        for index, cell in enumerate(cells, 1):
            print(f"[{index}/{len(cells)}] {cell.trial}", file=sys.stderr, flush=True)
            yield cell
        return
    with tqdm(cells, unit="cell", file=sys.stderr) as bar:
        for cell in bar:
            bar.set_postfix_str(cell.trial)
            yield cell


def run(cells, device, threads, min_run_time, show_progress=False):
    torch.set_num_threads(threads)
    return [measure_cell(cell, device, threads, min_run_time) for cell in progress(cells, show_progress)]


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


def metadata(args, rows):
    cuda = torch.backends.cuda.matmul
    return {
        "torch_build": torch_build(),
        "torch_version": torch.__version__,
        "torch_git_version": torch.version.git_version,
        "cuda_version": torch.version.cuda,
        "hip_version": torch.version.hip,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "device": str(args.device),
        "device_name": device_name(args.device),
        "gpu_name": device_name(args.device) if args.device.type != "cpu" else None,
        "threads": args.threads,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "matmul_precision": {
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
            "cuda_matmul_allow_tf32": cuda.allow_tf32,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
            "cuda_matmul_allow_bf16_reduced_precision_reduction":
                cuda.allow_bf16_reduced_precision_reduction,
            "cuda_matmul_allow_fp16_reduced_precision_reduction":
                cuda.allow_fp16_reduced_precision_reduction,
        },
        "tolerance": {"value": TOLERANCE, "criterion": (
            "every output of the task's callable: ||output - reference|| / ||reference|| <= value, "
            "reference in float64 from the same rounded inputs; NaN or inf fails")},
        "memory_method": MEMORY_METHODS[CPU_MEMORY if args.device.type == "cpu" else ACCELERATOR_MEMORY],
        "run": {"preset": args.preset, "workload": args.workload, "tasks": list(args.tasks),
                "dtypes": list(args.dtypes), "size": args.size, "hidden": args.hidden,
                "batch_sizes": list(args.batch_sizes), "repeats": args.repeats,
                "min_run_time": args.min_run_time, "seed": args.seed},
        "cells": len(rows),
        "failed_cells": sum(1 for row in rows if row["error"]),
        "columns": list(COLUMNS + EXTRA_COLUMNS),
        "units": {"latency": "median seconds per call (torch.utils.benchmark, synchronized)",
                  "latency_iqr": "interquartile range of the per-call seconds",
                  "first_call": "seconds of the first call, apart from the steady state",
                  "memory": "bytes, see memory_method", "samples_per_s": "batch / latency",
                  "gflop_per_s": "FlopCounterMode's count / latency / 1e9"},
    }


def write_atomically(path, text):
    """Write through a temporary file in the same folder, then rename: never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main(argv=None):
    try:
        args = parse_args(argv)
    except UsageError as error:
        print(f"benchmark.py: error: {error}", file=sys.stderr)
        return 2
    rows = run(plan(args), args.device, args.threads, args.min_run_time, not args.no_progress)
    # The metadata first, the CSV last: a CSV on disk always has its metadata beside it.
    write_atomically(args.output.with_suffix(".json"),
                     json.dumps(metadata(args, rows), indent=2) + "\n")
    write_atomically(args.output, to_csv(rows))
    failed = sum(1 for row in rows if row["error"])
    rejected = sum(1 for row in rows if row["quality_pass"] == "false")
    print(f"wrote {len(rows)} rows to {args.output} ({failed} failed, "
          f"{rejected} outside the tolerance or failed)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
