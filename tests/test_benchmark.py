"""The benchmark module (snippets/measuring/benchmark.py): its CSV, its failures, its
command line.

Small shapes only: these check what the module writes, and every byte of memory and
every FLOP it reports against a figure computed by hand, never how fast anything is.
"""

import contextlib
import csv
import datetime
import gc
import hashlib
import itertools
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import types
import weakref
from pathlib import Path

import pytest
import torch
from helpers import BENCHMARK, OLD_EXTRAS, TEMPLATE, WRITTEN, benchmark
from torch.utils.benchmark import Measurement

from snippets.measuring import benchmark as bench

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "benchmark-cpu.csv"
# extra columns other tools (the results page, compare) rely on
CONTRACT = ("blocks", "noisy")
COMMAND = (
    "python snippets/measuring/benchmark.py"
    " --preset quick --output results/benchmark.csv"
)
TINY = ["--preset", "tiny", "--threads", "1", "--no-progress"]
ONE_CELL = [*TINY, "--tasks", "inference", "--dtypes", "float32"]  # per batch size
CPU = torch.device("cpu")
TASKS = ["inference", "training", "gradient"]
# tqdm's bar of a 600-cell run: at least two cells complete
TWO_OF_600 = rb"\| *([2-9]|[1-9]\d+)/600 \["


def tiny_cell(**changes):
    fields = dict(trial="t", workload="mlp", task="inference", dtype=torch.float32)
    return bench.Cell(**fields | dict(size=4, hidden=8, batch=2) | changes)


def measure(cell):
    return bench.measure_cell(cell, CPU, 1, 0.01, max_run_time=0.1)


def built(cell, dtype=torch.float32):
    """The cell's call, built from its own inputs on the CPU."""
    return bench.build(cell, bench.make_inputs(cell), dtype, CPU)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as file:
        reader = csv.reader(file)
        header = next(reader)
        rows = [dict(zip(header, values, strict=True)) for values in reader]
    return tuple(header), rows


def metadata(output):
    """The metadata beside a CSV, after checking that its csv_sha256 is the CSV's."""
    meta = json.loads(output.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["csv_sha256"] == hashlib.sha256(output.read_bytes()).hexdigest()
    return meta


def errors(stderr, ignored="benchmark.py: noisy: "):
    """stderr's non-blank lines, less those starting with ``ignored``."""
    lines = stderr.splitlines()
    return [line for line in lines if line.strip() and not line.startswith(ignored)]


def noise_notes(capsys):
    return [line for line in capsys.readouterr().err.splitlines() if "noisy" in line]


def assert_stopped_with_rows_kept(output, stderr, how, rows=r"\d+", planned=600):
    """A run stopped mid-way (`how`: interrupted, terminated) said so in one line and
    left its complete rows, at least two, in a CSV its metadata matches."""
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    said = rf"benchmark.py: {how}: wrote the {rows} complete rows of {planned}"
    assert re.search(said, stderr)
    meta = metadata(output)
    assert meta["interrupted"] is True and meta["planned_cells"] == planned
    assert meta["cells"] == len(read_csv(output)[1]) >= 2


def positive_float(text):
    value = float(text)
    assert value > 0 and math.isfinite(value), text
    return value


# ------------------------------------------------------------ hand computations


def backward_moments(b, n, h):
    """The two candidate peaks of the backward pass: (tanh's backward, w1's gradient
    matmul)."""
    params = n * h + h + h * n + n
    return n + h * n + 3 * b * h, params + b * h


def hand_memory(task, b, n, h, itemsize):
    """(peak, held) bytes of one steady-state MLP call, from the shapes alone (see
    the walkthrough)."""
    params = n * h + h + h * n + n
    twice = 2 if task == "training" else 1  # the optimizer's state
    held = twice * params + (1 if task == "inference" else 2) * b * n
    if task == "inference":
        return (held + 2 * b * h) * itemsize, held * itemsize
    backward = b * n + 1 + max(backward_moments(b, n, h))
    return (params + 2 * b * n + backward) * itemsize, held * itemsize


def hand_flops(task, workload, b, n, h):
    if workload == "matmul":
        return (1 if task == "inference" else 2) * 2 * b * n * n
    return (2 if task == "inference" else 5) * 2 * b * n * h


def sizes(row):
    n, h = (int(part) for part in row["shape"].split("x")[:2])
    return int(row["batch"]), n, h


# Empty in a failed cell's row: nothing measured, nothing passed.
MEASURED = (
    "latency memory latency_iqr first_call runs samples_per_s gflop_per_s "
    "memory_method rel_error blocks noisy attempts memory_state flops agreement "
    "loss_rel_error"
).split()


def check_row(row, build=None):
    """Every value of a row parses as what its column promises, and agrees with the
    others (``build``: the torch build the row must name, this one's by default)."""
    build = bench.torch_build() if build is None else build
    assert row["trial"] and row["torch_build"] == build
    torch.device(row["device"])
    assert isinstance(getattr(torch, row["dtype"]), torch.dtype)
    assert re.fullmatch(r"\d+(x\d+)+", row["shape"]), row["shape"]
    assert int(row["batch"]) > 0 and int(row["threads"]) > 0
    assert row["quality_pass"] in ("true", "false")
    assert row["workload"] in bench.WORKLOADS and row["task"] in bench.TASKS
    criteria = bench.CRITERIA[row["task"]]
    bound = next(c.bound for c in criteria if c.column == "rel_error")
    assert float(row["tolerance"]) == bound
    if row["error"]:
        assert row["quality_pass"] == "false" and row["quality_failure"]
        assert [row[column] for column in MEASURED] == [""] * len(MEASURED), row
        return
    latency, iqr = positive_float(row["latency"]), float(row["latency_iqr"])
    assert iqr >= 0 and int(row["attempts"]) >= 1
    blocks = int(row["blocks"])
    assert blocks >= 1 and int(row["runs"]) % blocks == 0
    share = float(row["cpu_share"])  # CPU time over wall time per thread
    # Waiting for a core: a share of the wall time per thread (a little over 1 when
    # the clocks' readings straddle a tick).
    waited = float(row["wait_share"]) if row["wait_share"] else None
    assert waited is None or 0 <= waited < 2
    load = float(row["load_average"]) if row["load_average"] else None
    assert load is None or load >= 0
    contended = row["device"] == "cpu" and bench.is_contended(
        share, waited, int(row["threads"]), load, bench.usable_cpus()
    )
    assert row["contended"] == ("true" if contended else "false"), row
    # The stated criterion, exactly.
    noisy = iqr / latency >= bench.NOISE_THRESHOLD or blocks < bench.MIN_BLOCKS
    assert row["noisy"] == ("true" if noisy or contended else "false"), row
    assert row["precision"] == "pure"
    float64 = row["dtype"] == "float64"
    reference = bench.INDEPENDENT_REFERENCE if float64 else bench.FLOAT64_REFERENCE
    assert row["reference"] == reference
    positive_float(row["first_call"])
    if not row["pass_error"]:
        assert int(row["memory"]) >= int(row["memory_state"]) > 0
        assert row["memory_method"] in bench.MEMORY_METHODS
        flops = hand_flops(row["task"], row["workload"], *sizes(row))
        assert int(row["flops"]) == flops
        per_s = flops / latency / 1e9
        assert float(row["gflop_per_s"]) == pytest.approx(per_s, rel=2 * WRITTEN)
    per_s = int(row["batch"]) / latency
    assert float(row["samples_per_s"]) == pytest.approx(per_s, rel=2 * WRITTEN)
    # The verdict follows from the recorded metrics.
    metrics = {c.column: float(row[c.column]) for c in criteria}
    passed, why = bench.judge(row["task"], metrics)
    assert (row["quality_pass"] == "true") == passed and row["quality_failure"] == why


@pytest.fixture(scope="module", autouse=True)
def heap_frozen():
    """Every cell's memory pass starts with gc.collect(): frozen, the ~280,000
    objects of torch and the profiler it imports are not walked again each time, only
    the garbage of these tests."""
    # Brings in everything a cell uses (the profiler imports torch._dynamo).
    measure(tiny_cell())
    gc.freeze()
    yield
    gc.unfreeze()


def test_every_cell_has_a_row_whose_values_parse_and_stderr_sums_them_up(tiny_run):
    header, rows = read_csv(tiny_run.csv)
    # The template, then the appended columns: earlier versions', in place, then the
    # ones other tools rely on.
    assert header[:9] == TEMPLATE and header == bench.COLUMNS + bench.EXTRA_COLUMNS
    assert header[9:21] == OLD_EXTRAS and set(CONTRACT) <= set(header[21:])
    cells = {(row["task"], row["dtype"], row["batch"]) for row in rows}
    dtypes, batches = ("float32", "bfloat16"), ("2", "4")
    assert cells == set(itertools.product(bench.TASKS, dtypes, batches))
    assert len(rows) == len(cells) == len({row["trial"] for row in rows})
    for row in rows:
        check_row(row)
        assert row["error"] == row["pass_error"] == "" and row["threads"] == "1"
        # A correct kernel passes in every dtype: bfloat16 training is judged against
        # the correctly rounded step, not the exact update the format cannot hold.
        assert row["quality_pass"] == "true" and row["quality_failure"] == "", row
        b, n, h = sizes(row)
        itemsize = getattr(torch, row["dtype"]).itemsize
        peak, held = hand_memory(row["task"], b, n, h, itemsize)
        assert int(row["memory_state"]) == held, row["trial"]
        # bfloat16 kernels may add scratch buffers (shape, CPU and thread count
        # decide): a floor
        memory = int(row["memory"])
        assert memory >= peak if row["dtype"] == "bfloat16" else memory == peak, row
        flops = hand_flops(row["task"], row["workload"], b, n, h)
        assert int(row["flops"]) == flops, row["trial"]
    # stderr holds only the summary and one line per noisy cell.
    *notes, summary = tiny_run.stderr.splitlines()
    noisy = [row["trial"] for row in rows if row["noisy"] == "true"]
    assert [line.split(": ")[2] for line in notes] == noisy
    assert all(line.startswith("benchmark.py: noisy: ") for line in notes), notes
    assert re.fullmatch(
        r"wrote 12 rows to .* \(0 failed, \d+ failed the quality criteria or did "
        rf"not run, {len(noisy)} noisy\)",
        summary,
    )


META_KEYS = (
    "cpu_model gpu_name threads python date matmul_precision device criteria noise "
    "memory_method units columns column_meanings parallel_info environment module "
    "cudnn_version driver_version interrupted planned_cells csv_sha256"
).split()


def test_metadata_beside_the_csv_names_version_git_hash_and_cuda_hip(tiny_run):
    meta, (header, rows) = metadata(tiny_run.csv), read_csv(tiny_run.csv)
    build = bench.torch_build()
    assert meta["torch_build"] == build
    assert build.startswith(f"{torch.__version__} git {torch.version.git_version[:12]}")
    assert f"cuda {torch.version.cuda or 'none'}" in build
    assert f"hip {torch.version.hip or 'none'}" in build
    assert meta["torch_git_version"] == torch.version.git_version
    assert set(META_KEYS) <= set(meta), set(META_KEYS) - set(meta)
    assert meta["threads"] == 1 and meta["planned_cells"] == 12
    assert meta["interrupted"] is False
    # As torch reports it, during the run: the --threads 1 of this run.
    assert meta["parallel_info"].startswith("ATen/Parallel:")
    assert "at::get_num_threads() : 1" in meta["parallel_info"]
    environment = {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES"}
    assert environment <= set(meta["environment"])
    precision = meta["matmul_precision"]
    assert precision["float32_matmul_precision"] == torch.get_float32_matmul_precision()
    assert precision["mkldnn_fp32_precision"] == torch.backends.mkldnn.fp32_precision
    assert precision["cuda_matmul_allow_tf32"] == torch.backends.cuda.matmul.allow_tf32
    module = hashlib.sha256(BENCHMARK.read_bytes()).hexdigest()
    assert meta["module"]["sha256"] == module
    assert meta["columns"] == list(header) == list(meta["column_meanings"])
    # It began before it ended, and took as long as it says (both clocks: 1 s steps).
    started = datetime.datetime.fromisoformat(meta["started"])
    ended = datetime.datetime.fromisoformat(meta["date"])
    assert 0 < meta["wall_seconds"] and started <= ended
    assert (ended - started).total_seconds() <= meta["wall_seconds"] + 2
    noise = dict(threshold=0.1, min_blocks=4, contention_threshold=0.9)
    assert meta["noise"] == noise | {"criterion": bench.NOISE_CRITERION}
    assert meta["finished"] is True
    assert set(meta["blocks"]) == {row["trial"] for row in rows}
    agreement = dict(column="agreement", bound=0.99, passes_when="agreement >= 0.99")
    meaning = bench.CRITERIA["inference"][0].meaning
    assert meta["criteria"]["inference"][0] == agreement | {"meaning": meaning}


# ------------------------------------------------------------ memory and FLOPs, by hand


PEAK_SHAPES = [(8, 256, 1024), (5, 7, 29), (8, 4, 8)]  # b, n, h


def test_the_hand_checked_shapes_reach_both_backward_peaks():
    # tanh's backward is the larger moment when 2b > n + 1: the walkthrough's shape and
    # the presets never reach it, so the memory test below includes shapes that do.
    quick, *others = (backward_moments(*shape) for shape in PEAK_SHAPES)
    assert quick[0] < quick[1]  # w1's gradient: the quick preset
    assert all(tanh > matmul for tanh, matmul in others)
    assert hand_memory("gradient", 8, 4, 8, 4)[0] == 1604
    assert hand_memory("training", 8, 4, 8, 4)[0] == 1604


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("b, n, h", PEAK_SHAPES)
@pytest.mark.parametrize("task", TASKS)
def test_memory_is_the_hand_figure_to_the_byte(task, b, n, h, dtype):
    cell = tiny_cell(task=task, dtype=dtype, size=n, hidden=h, batch=b)
    peak, held, method = bench.peak_memory(lambda: built(cell, dtype), CPU)
    assert (peak, held) == hand_memory(task, b, n, h, dtype.itemsize)
    assert method == bench.CPU_MEMORY


def test_training_memory_is_comparable_with_the_gradient_tasks():
    # The defect this replaced: a training step reported 50x less than its gradient.
    train, grad = (
        measure(tiny_cell(task=task, size=256, hidden=1024, batch=8))
        for task in ("training", "gradient")
    )
    peak = hand_memory("training", 8, 256, 1024, 4)[0]
    assert train["memory"] == grad["memory"] == peak
    params = 2 * 256 * 1024 + 1024 + 256
    assert int(train["memory_state"]) - int(grad["memory_state"]) == 4 * params


def test_the_memory_pass_frees_earlier_garbage_before_it_measures():
    # A cycle holding a tensor (a failed cell's traceback, say) is garbage that only a
    # collection frees: freed before the build, not left allocated beside the cell.
    class Node:
        pass

    threshold = gc.get_threshold()
    gc.set_threshold(0)  # no automatic collection: only the pass's own can free it
    try:
        node = Node()
        node.itself, node.tensor = node, torch.ones(4)
        alive = weakref.ref(node)
        del node
        cell = tiny_cell()
        bench.peak_memory(lambda: built(cell), CPU)
        assert alive() is None
    finally:
        gc.set_threshold(*threshold)


@pytest.mark.parametrize("workload", bench.WORKLOADS)
@pytest.mark.parametrize("task", TASKS)
def test_flops_are_the_hand_figure(workload, task):
    cell = tiny_cell(workload=workload, task=task, size=6, hidden=10, batch=3)
    assert bench.count_flops(built(cell)) == hand_flops(task, workload, 3, 6, 10)


def test_an_inference_call_runs_in_inference_mode():
    # Not only parameters without requires_grad: no autograd bookkeeping at all.
    (out,) = built(tiny_cell())()
    assert out.is_inference()


def test_the_first_call_is_timed_from_before_it_starts_to_after_the_wait():
    # One call takes 20 ms, then one's wait for the device does: each one counted.
    seconds, outputs = bench.first_call(lambda: time.sleep(0.02) or "out", lambda: None)
    assert seconds >= 0.02 and outputs == "out"
    assert bench.first_call(lambda: None, lambda: time.sleep(0.02))[0] >= 0.02


# ------------------------------------------------------------ noise


def measurement(times, number_per_run=1):
    timer = torch.utils.benchmark.Timer("pass")
    task_spec = timer.blocked_autorange(min_run_time=0.001).task_spec
    return Measurement(number_per_run, times, task_spec)


def timings(monkeypatch, *timing):
    """steady_state replaced: it gives these timings in turn, the last one ever
    after."""
    given = itertools.chain(timing, itertools.repeat(timing[-1]))
    monkeypatch.setattr(bench, "steady_state", lambda *args, **kwargs: next(given))


def test_the_noise_flag_is_torchs_warning_or_too_few_blocks():
    quiet = measurement([1.0, 1.01, 0.99, 1.0, 1.02])
    assert not quiet.has_warnings and not bench.is_noisy(quiet)
    spread = measurement([1.0, 1.0, 1.5, 2.0])  # IQR 0.625 of a 1.25 median
    assert spread.has_warnings and bench.is_noisy(spread)
    hiccup = measurement([0.0319])  # the runs=1, iqr=0 row that looked precise
    assert hiccup.iqr == 0 and not hiccup.has_warnings and bench.is_noisy(hiccup)
    # Three blocks: below MIN_BLOCKS.
    assert bench.is_noisy(measurement([1.0, 1.0, 1.0]))
    # At the threshold itself torch warns: IQR / median = 0.1 exactly.
    edge = measurement([0.95, 0.95, 1.0, 1.05, 1.05])
    assert math.isclose(edge.iqr / edge.median, 0.1)
    assert bench.is_noisy(edge) == edge.has_warnings


def test_a_noisy_cell_is_timed_again_and_the_least_noisy_attempt_kept(monkeypatch):
    less_noisy = [1.0, 1.0, 1.3, 1.6]
    blocks = ([1.0, 1.0, 1.5, 2.0], less_noisy, [1.0] * 4)
    timings(monkeypatch, *map(measurement, blocks))
    options = dict(threads=1, min_run_time=1, max_run_time=2)
    timing, count = bench.timed(None, None, reruns=1, **options)
    # No third.
    assert count == 2 and timing.median == measurement(less_noisy).median
    timing, count = bench.timed(None, None, reruns=5, **options)
    assert count == 1 and not bench.is_noisy(timing)  # quiet at once: no rerun


def test_a_noisy_row_is_flagged_and_named_on_stderr(monkeypatch, capsys):
    timings(monkeypatch, measurement([1.0, 1.0, 1.5, 2.0], 10))
    cells = [tiny_cell(trial="loud")]
    (row,) = bench.run(cells, CPU, 1, 0.01, show_progress=True, reruns=2)
    assert row["noisy"] == "true" and row["attempts"] == 3
    assert row["blocks"] == 4 and row["runs"] == 40
    assert float(row["latency"]) == 0.125 and float(row["latency_iqr"]) == 0.0625
    assert noise_notes(capsys) == [
        "benchmark.py: noisy: loud: IQR 50% of the median over 4 blocks, 3 attempt(s); "
        "compare it with care"
    ]


def test_a_steady_call_too_slow_for_max_run_time_is_flagged_and_told_why(
    monkeypatch, capsys
):
    # No disturbance needed: 40 ms blocks pass max_run_time = 0.1 s after three.
    options = dict(threads=1, min_run_time=0.02, max_run_time=0.1, reruns=1)
    timing, attempts = bench.timed(lambda: time.sleep(0.04), lambda: None, **options)
    assert len(timing.times) < bench.MIN_BLOCKS and attempts == 2
    assert bench.is_noisy(timing)
    timings(monkeypatch, measurement([1.0, 1.0, 1.0]))
    bench.run([tiny_cell(trial="slow")], CPU, 1, 0.01)
    assert noise_notes(capsys) == [
        "benchmark.py: noisy: slow: only 3 timed block(s), fewer than 4 (calls too "
        "slow for max_run_time: raise --max-run-time), 1 attempt(s); compare it with "
        "care"
    ]


def test_a_real_timing_meets_the_minimum_number_of_blocks_or_is_flagged():
    row = measure(tiny_cell())
    check_row(row)
    assert int(row["blocks"]) >= bench.MIN_BLOCKS or row["noisy"] == "true"


# ------------------------------------------------------------ quality


def test_bfloat16_verdicts_follow_from_its_unit_roundoff():
    u = torch.finfo(torch.bfloat16).eps / 2
    assert u == 2**-8
    # The old tolerance, 1e-4, is below what one rounding to bfloat16 costs (up to u).
    seeded = torch.Generator().manual_seed(0)
    x = torch.randn(1000, dtype=torch.float64, generator=seeded)
    assert 1e-4 < bench.relative_error((x.to(torch.bfloat16),), (x,)) <= u
    # No error bound of the criteria is below what that single rounding may cost.
    for criteria in bench.CRITERIA.values():
        assert all(c.bound > u for c in criteria if not c.at_least)


@pytest.mark.parametrize(
    "task, change, reason",  # change: a factor on the outputs, or flip them
    [
        ("inference", 1.02, r"rel_error 0\.02 > 0\.01"),
        ("inference", "flip", r"agreement 0 < 0\.99; rel_error \S+ > 0\.01"),
        ("training", 1.1, r"loss_rel_error \S+ > 0\.01; rel_error \S+ > 0\.05"),
        ("gradient", 1.1, r"rel_error \S+ > 0\.05"),
    ],
)
def test_a_perturbed_workload_fails_quality_and_says_why(
    monkeypatch, task, change, reason
):
    honest = measure(tiny_cell(task=task))  # the control
    assert honest["quality_pass"] == "true" and honest["quality_failure"] == ""
    forward = bench.forward

    def perturbed(workload, params, x):  # wrong outside the float64 reference only
        out = forward(workload, params, x)
        if out.dtype == torch.float64:
            return out
        return out.flip(-1) if change == "flip" else out * change

    monkeypatch.setattr(bench, "forward", perturbed)
    row = measure(tiny_cell(task=task, size=8, hidden=16, batch=4))
    check_row(row)
    assert row["error"] == "" and row["latency"] != ""  # still measured ...
    assert row["quality_pass"] == "false"
    assert re.fullmatch(reason, row["quality_failure"])


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_output_fails_quality(monkeypatch, bad):
    forward = bench.forward
    monkeypatch.setattr(bench, "forward", lambda w, p, x: forward(w, p, x) * bad)
    row = measure(tiny_cell())
    assert row["quality_pass"] == "false" and not math.isfinite(float(row["rel_error"]))
    assert "rel_error" in row["quality_failure"]


def test_relative_error_agreement_and_judge():
    one = (torch.tensor([3.0, 4.0]),)
    assert bench.relative_error(one, one) == 0
    assert bench.relative_error((torch.tensor([3.0, 4.5]),), one) == pytest.approx(0.1)
    assert math.isnan(bench.relative_error((torch.tensor([math.nan, 4.0]),), one))
    rows = torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [5.0, 4.0]])
    assert bench.agreement(rows, rows) == 1
    assert bench.agreement(rows.flip(-1), rows) == 0
    changed = rows.clone()
    changed[3] = torch.tensor([4.0, 5.0])  # one decision of four flips
    assert bench.agreement(changed, rows) == 0.75
    # One NaN among 100 x 4 outputs: 99 decisions still agree, only rel_error fails.
    seeded = torch.Generator().manual_seed(0)
    reference = torch.randn(100, 4, dtype=torch.float64, generator=seeded)
    broken = reference.clone()
    broken[0, 0] = math.nan
    metrics = dict(agreement=bench.agreement(broken, reference))
    metrics["rel_error"] = bench.relative_error((broken,), (reference,))
    assert metrics["agreement"] == 0.99 and math.isnan(metrics["rel_error"])
    assert bench.judge("inference", metrics) == (False, "rel_error nan > 0.01")
    assert bench.judge("gradient", {"rel_error": 0.05}) == (True, "")
    for error in (0.06, math.nan):
        verdict = (False, f"rel_error {error} > 0.05")
        assert bench.judge("gradient", {"rel_error": error}) == verdict
    inference = {"agreement": 0.98, "rel_error": 0.0}
    assert bench.judge("inference", inference) == (False, "agreement 0.98 < 0.99")


# ------------------------------------------------------------ failures


@pytest.mark.parametrize(
    "failure",
    [RuntimeError("forced failure"), torch.OutOfMemoryError("out of memory (forced)")],
)
def test_a_failing_cell_gets_a_row_and_the_run_goes_on(monkeypatch, failure):
    forward = bench.forward

    def broken(workload, params, x):
        if x.dtype == torch.bfloat16:
            raise failure
        return forward(workload, params, x)

    monkeypatch.setattr(bench, "forward", broken)
    cells = [
        tiny_cell(trial=f"{dtype}-{task}", task=task, dtype=dtype)
        for task in ("inference", "training")
        for dtype in (torch.bfloat16, torch.float32)
    ]
    rows = bench.run(cells, CPU, threads=1, min_run_time=0.01, max_run_time=0.1)
    assert [row["trial"] for row in rows] == [cell.trial for cell in cells]
    for row in rows:
        check_row(row)
        if row["dtype"] == "bfloat16":
            assert row["error"] == f"{type(failure).__name__}: {failure}"
            assert row["latency"] == row["memory"] == ""
            assert row["quality_pass"] == "false"
        else:  # measured after the failures
            assert row["error"] == "" and row["quality_pass"] == "true"


def test_an_unsupported_dtype_is_a_failure_row():
    row = measure(tiny_cell(task="training", dtype=torch.int64))
    check_row(row)
    assert row["error"].startswith("RuntimeError: ")
    assert "require gradients" in row["error"]


def test_the_references_failure_is_not_the_cells(monkeypatch):
    build = bench.build

    def no_float64(cell, inputs, dtype, device):
        if dtype == torch.float64:
            raise torch.OutOfMemoryError("out of memory (forced) for the reference")
        return build(cell, inputs, dtype, device)

    monkeypatch.setattr(bench, "build", no_float64)
    row = measure(tiny_cell(task="gradient"))
    # Measured.
    assert row["error"] == "" and float(row["latency"]) > 0 and int(row["memory"]) > 0
    assert row["quality_pass"] == "false" and row["rel_error"] == ""
    assert row["quality_failure"] == (
        "no float64 reference (OutOfMemoryError: out of memory "
        "(forced) for the reference)"
    )
    assert row["pass_error"].startswith("reference: OutOfMemoryError: ")


@pytest.mark.parametrize(
    "broken, column, other",
    [("peak_memory", "memory", "flops"), ("count_flops", "flops", "memory")],
)
def test_a_failing_memory_or_flop_pass_keeps_the_timing(
    monkeypatch, broken, column, other
):
    def fail(*args, **kwargs):
        raise RuntimeError(f"{broken} failed (forced)")

    monkeypatch.setattr(bench, broken, fail)
    row = measure(tiny_cell(task="training"))
    assert row["error"] == "" and float(row["latency"]) > 0
    assert row["quality_pass"] == "true" and row[column] == "" and row[other] != ""
    assert row["pass_error"] == f"{column}: RuntimeError: {broken} failed (forced)"


def test_exit_status_is_non_zero_when_every_cell_failed(monkeypatch, tmp_path, capsys):
    def broken(*args):
        raise RuntimeError("forced failure")

    monkeypatch.setattr(bench, "forward", broken)
    output = tmp_path / "benchmark.csv"
    assert bench.main([*TINY, "--tasks", "inference", "--output", str(output)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "benchmark.py: error: every cell failed; see the error column"
    )
    assert all(row["error"] for row in read_csv(output)[1])  # the rows still say why


# ------------------------------------------------------------ command line


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--device", "xla"], "device 'xla' is not available"),
        (["--dtypes", "float32,float13"], "unknown dtype 'float13'"),
        (["--dtypes", "float32,float32"], "dtype float32 given twice"),
        (["--tasks", "inference,sleeping"], "unknown task 'sleeping'"),
        (["--batch-sizes", "8,0"], "positive integers"),
        (["--batch-sizes", "8,4,8"], "batch size 8 given twice"),
        (["--size", "-3"], "positive integer"),
        (["--size", "big"], "positive integer"),
        (["--repeats", "0"], "positive integer"),
        (["--min-run-time", "0"], "positive number"),
        (
            ["--min-run-time", "2", "--max-run-time", "1"],
            "--max-run-time 1 is below --min-run-time 2",
        ),
        (["--reruns", "-1"], "whole number >= 0"),
        (["--workload", "resnet"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, arguments, message):
    output = tmp_path / "benchmark.csv"
    assert bench.main([*TINY, "--output", str(output), *arguments]) != 0
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("benchmark.py: error: "), error
    assert message in error and list(tmp_path.iterdir()) == []


def test_a_bad_output_path_is_refused_before_anything_is_measured(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(bench, "run", lambda *args, **kwargs: pytest.fail("measured"))
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "taken.json").mkdir()
    (tmp_path / "file").write_text("not a folder")
    cases = {
        "b.json": "must end in .csv: the metadata is written beside it, as b.json",
        "folder.csv": "is a folder",
        "taken.csv": "taken.json' is a folder",
        "file/b.csv": "is not a folder",
        "file/deeper/b.csv": "is not a folder",
    }
    # A folder nobody can create files in, not even root.
    if Path("/proc/self").is_dir():
        cases["/proc/benchmark.csv"] = "cannot write in '/proc'"
    for path, message in cases.items():
        assert bench.main([*TINY, "--output", str(tmp_path / path)]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1, error
        assert error.startswith("benchmark.py: error: --output") and message in error
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["file", "folder.csv", "taken.json"]


def test_the_default_device_is_the_accelerator_and_an_absent_one_refused(tmp_path):
    accelerator = torch.accelerator.is_available()
    expected = torch.accelerator.current_accelerator() if accelerator else CPU
    assert bench.resolve_device(None) == expected
    assert bench.resolve_device("cpu") == torch.device("cpu")
    absent = "xla"  # a device type torch knows, which no test machine has
    output = str(tmp_path / "b.csv")
    done = benchmark(*TINY, "--device", absent, "--output", output, timeout=120)
    assert done.returncode != 0 and list(tmp_path.iterdir()) == []
    seen = "the cpu here"
    if accelerator:
        seen = f"cpu and {torch.accelerator.current_accelerator().type} here"
    assert errors(done.stderr, ignored=()) == [
        f"benchmark.py: error: device '{absent}' is not available: "
        f"torch {torch.__version__} sees only {seen}"
    ]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--device", "cpu:1"], "device 'cpu:1': the CPU has no index"),
        (["--threads", "100000"], "--threads 100000 is more than the"),
        (["--seed", "-1"], "expected a whole number from 0 to 2**64 - 1"),
        (["--seed", str(2**64)], "expected a whole number from 0 to 2**64 - 1"),
        (["--dtypes", "float13"], "unknown dtype 'float13'"),
    ],
)
def test_bad_arguments_are_refused_before_torch_is_imported(
    tmp_path, arguments, message
):
    output = str(tmp_path / "b.csv")
    importtime = ("-X", "importtime")
    done = benchmark(*arguments, "--output", output, python=importtime, timeout=120)
    assert done.returncode == 2 and list(tmp_path.iterdir()) == []
    lines = done.stderr.splitlines()
    imported = [line for line in lines if line.startswith("import time:")]
    assert imported and not any(re.search(r"\| +torch\b", line) for line in imported)
    (line,) = [line for line in lines if line not in imported]
    assert line.startswith("benchmark.py: error: ") and message in line


def test_help_shows_each_presets_values_and_a_plans_trial_ids_are_unique():
    args = bench.parse_args("--preset tiny --repeats 2 --output /tmp/b.csv".split())
    trials = [cell.trial for cell in bench.plan(args)]
    assert len(trials) == len(set(trials)) == 2 * 3 * 2 * 2
    done = benchmark("--help", timeout=120)
    # argparse wraps at hyphens
    text = re.sub(r"-\s+", "-", " ".join(done.stdout.split()))
    for name, values in bench.PRESETS.items():
        assert f"{name}: size {values['size']}, batch-sizes " in text
        assert f"repeats {values['repeats']}" in text


# ------------------------------------------------------------ writing, and Ctrl-C


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "benchmark.csv"
    bench.write_atomically(target, "old,complete\n")
    with pytest.raises(UnicodeEncodeError):  # fails while writing
        bench.write_atomically(target, "new," + "x" * 100_000 + "\ud800")
    assert target.read_text(encoding="utf-8") == "old,complete\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["benchmark.csv"]


def interrupt_after(monkeypatch, complete):
    measure_cell, calls = bench.measure_cell, []

    def interrupted(*args, **kwargs):
        if len(calls) == complete:
            raise KeyboardInterrupt
        calls.append(1)
        return measure_cell(*args, **kwargs)

    monkeypatch.setattr(bench, "measure_cell", interrupted)


def test_an_interrupt_before_any_row_changes_nothing(tmp_path, monkeypatch, capsys):
    output = tmp_path / "benchmark.csv"
    output.write_text("old csv\n")
    output.with_suffix(".json").write_text("{}\n")
    interrupt_after(monkeypatch, 0)
    assert bench.main([*TINY, "--output", str(output)]) == 130
    assert capsys.readouterr().err.strip() == (
        "benchmark.py: interrupted before any cell was complete; nothing written"
    )
    assert output.read_text() == "old csv\n"
    assert output.with_suffix(".json").read_text() == "{}\n"


def test_an_interrupted_run_keeps_its_complete_rows_even_if_ctrl_c_comes_again(
    tmp_path, monkeypatch, capsys
):
    interrupt_after(monkeypatch, 2)
    to_csv, calls = bench.to_csv, []

    def pressed_again(rows):  # Ctrl-C lands inside the final write: held, then dropped
        calls.append(len(rows))
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)
        return to_csv(rows)

    monkeypatch.setattr(bench, "to_csv", pressed_again)
    output = tmp_path / "results" / "benchmark.csv"
    assert bench.main([*TINY, "--output", str(output)]) == 130
    assert calls == [1, 2, 2]  # a pair after each row, then the one marked interrupted
    error = capsys.readouterr().err
    assert error.strip().splitlines()[-1] == (
        f"benchmark.py: interrupted: wrote the 2 complete rows of 12 to {output}, "
        "marked interrupted in its metadata"
    )
    assert_stopped_with_rows_kept(output, error, "interrupted", rows=2, planned=12)
    assert metadata(output)["cells"] == 2


@contextlib.contextmanager
def child(*arguments, python_options=()):
    """The benchmark as a child process, its stderr in a file out of the test's
    folder: (process, that file); killed if a test gives up."""
    command = [sys.executable, *python_options, str(BENCHMARK), *arguments]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "stderr"
        with log.open("wb") as stderr:
            process = subprocess.Popen(command, cwd=ROOT, stderr=stderr)
        try:
            yield process, log
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()


def stop_when(process, log, pattern, number=signal.SIGINT, timeout=300):
    """Signal ``number`` (SIGINT, as Ctrl-C sends it) once stderr matches `pattern`
    (bytes), waiting generously, so that a loaded machine only waits longer; (exit
    status, all of stderr)."""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, log.read_bytes()):
        ended = process.poll() is not None or time.monotonic() > deadline
        assert not ended or re.search(pattern, log.read_bytes()), (
            f"{pattern!r} not on stderr (exit status {process.poll()}): "
            f"{log.read_bytes()[-2000:]!r}"
        )
        time.sleep(0.05)
    process.send_signal(number)
    return process.wait(timeout=120), log.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "number, status, how",
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_ctrl_c_or_sigterm_from_the_shell_keeps_every_finished_row(
    tmp_path, number, status, how
):
    # 600 cells: it cannot end by itself between two complete cells and the signal.
    output = tmp_path / "benchmark.csv"
    arguments = ["--preset", "tiny", "--threads", "1", "--repeats", "50"]
    with child(*arguments, "--output", str(output)) as (process, log):
        stopped, stderr = stop_when(process, log, TWO_OF_600, number)
    assert stopped == status, stderr
    assert_stopped_with_rows_kept(output, stderr, how)


def test_ctrl_c_while_torch_loads_is_one_line_and_writes_nothing(tmp_path):
    # -X importtime prints each module as its import ends: a torch submodule on stderr
    # means the child is inside `import torch`, past the line that installs its handler.
    # Should the signal land after the import, main() catches it with the same line: the
    # run times make sure no cell can be complete by then.
    output = tmp_path / "benchmark.csv"
    times = ["--min-run-time", "600", "--max-run-time", "600"]
    arguments = [*TINY, *times, "--output", str(output)]
    with child(*arguments, python_options=("-X", "importtime")) as (process, log):
        status, stderr = stop_when(process, log, rb"\| +torch\.")
    assert status == 130, stderr
    assert errors(stderr, ignored="import time:") == [
        "benchmark.py: interrupted before any cell was complete; nothing written"
    ]
    assert list(tmp_path.iterdir()) == []


def test_the_pair_is_written_metadata_first_with_ctrl_c_held_back(
    tmp_path, monkeypatch
):
    def handlers():
        return [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)]

    replaced, before = [], handlers()

    def rename(src, dst):
        replaced.append((Path(dst).name, handlers() != before))
        os.rename(src, dst)

    monkeypatch.setattr(bench.os, "replace", rename)
    output = tmp_path / "benchmark.csv"
    assert bench.main([*ONE_CELL, "--output", str(output)]) == 0
    # After each of the 2 rows, then once more marked finished; every time, the signals
    # held, and restored after.
    assert replaced == [("benchmark.json", True), ("benchmark.csv", True)] * 3
    assert handlers() == before
    assert read_csv(output)[0] == bench.COLUMNS + bench.EXTRA_COLUMNS


def test_a_full_disk_keeps_the_rows_written_before_and_exits_3(
    tmp_path, monkeypatch, capsys
):
    fsync, calls = bench.os.fsync, []

    def disk_full_from_the_3rd_file(fd):  # the first pair (1 row) fits, the second not
        calls.append(fd)
        if len(calls) > 4:  # 2 files a pair, and each folder's rename synced too
            raise OSError(28, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(bench.os, "fsync", disk_full_from_the_3rd_file)
    output = tmp_path / "benchmark.csv"
    assert bench.main([*TINY, "--output", str(output)]) == 3
    # Less a loaded machine's notes.
    assert errors(capsys.readouterr().err) == [
        f"benchmark.py: error: could not write {output.with_suffix('.json')}: "
        "No space left on device; the files hold the 1 finished row written before"
    ]
    meta = metadata(output)
    assert meta["cells"] == 1 == len(read_csv(output)[1]) and meta["finished"] is False
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["benchmark.csv", "benchmark.json"]


def test_a_file_size_limit_is_exit_3_and_one_line_from_the_shell(tmp_path):
    resource = pytest.importorskip("resource", reason="RLIMIT_FSIZE is POSIX")

    def small_files():  # at most 4 KiB: the first metadata file cannot be written
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write fails (EFBIG), no kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    output = tmp_path / "benchmark.csv"
    done = benchmark(*ONE_CELL, "--output", str(output), preexec_fn=small_files)
    assert done.returncode == 3, done.stderr
    assert errors(done.stderr) == [
        f"benchmark.py: error: could not write {output.with_suffix('.json')}: "
        "File too large; no row was written"
    ]
    assert list(tmp_path.iterdir()) == []  # no half file, no temporary left


# ------------------------------------------------------------ the published sample


def test_the_committed_run_was_written_by_this_module():
    header, rows = read_csv(SAMPLE)
    assert header == bench.COLUMNS + bench.EXTRA_COLUMNS
    meta = metadata(SAMPLE)
    run = meta["run"]
    build = meta["torch_build"]
    assert re.fullmatch(r"\S+ git [0-9a-f]{12} cuda \S+ hip \S+", build), build
    git = meta["torch_git_version"]
    assert build.startswith(f"{meta['torch_version']} git {git[:12]} ")
    assert re.fullmatch(r"[0-9a-f]{40}", meta["torch_git_version"])
    assert meta["columns"] == list(header)
    assert meta["cells"] == len(rows) == meta["planned_cells"]
    assert run["preset"] == "quick" and meta["cpu_model"] and meta["date"]
    assert meta["interrupted"] is False and meta["finished"] is True
    assert set(meta["blocks"]) == {r["trial"] for r in rows}
    for row in rows:
        check_row(row, build)
        assert row["device"] == meta["device"]
        assert row["threads"] == str(meta["threads"])
        # A correct kernel passes in every dtype (bfloat16 training: the rounded step).
        assert row["quality_pass"] == "true" and row["precision"] == "pure"
        # bfloat16 kernels add scratch buffers
        if row["dtype"] in ("float32", "float64"):
            itemsize = getattr(torch, row["dtype"]).itemsize
            hand = hand_memory(row["task"], *sizes(row), itemsize)
            assert (int(row["memory"]), int(row["memory_state"])) == hand, row["trial"]
    cells = {(r["task"], r["dtype"], int(r["batch"])) for r in rows}
    planned = itertools.product(run["tasks"], run["dtypes"], run["batch_sizes"])
    assert cells == set(planned)


def test_the_measuring_pages_show_the_sample_and_the_readme_the_command():
    for language in ("en", "es"):
        page = (ROOT / "docs" / language / "measuring.md").read_text(encoding="utf-8")
        # The sample as a table (ptdocs/hooks/results.py).
        assert "<!-- sample-table -->" in page and COMMAND in page
    assert COMMAND in (ROOT / "README.md").read_text(encoding="utf-8")


def test_block_times_load_as_measurements_that_compare_renders(tiny_run):
    from torch.utils.benchmark import Compare

    measurements = bench.load_measurements(tiny_run.csv, description="tiny")
    _, rows = read_csv(tiny_run.csv)
    assert len(measurements) == len(rows)
    for found, row in zip(measurements, rows, strict=False):
        assert isinstance(found, Measurement)
        # One rounding, the CSV's %.6g (the block times round-trip exactly through
        # JSON): under WRITTEN; 2 * WRITTEN is margin. An IQR of 0 leaves only abs:
        # 1e-12 s, under any tick.
        assert float(row["latency"]) == pytest.approx(found.median, rel=2 * WRITTEN)
        iqr = pytest.approx(found.iqr, rel=2 * WRITTEN, abs=1e-12)
        assert float(row["latency_iqr"]) == iqr
        assert len(found.times) == int(row["blocks"])
        assert found.task_spec.num_threads == 1
    table = str(Compare(measurements))
    for shown in ("mlp training 8x32x8", "bfloat16 batch 4 r1", "tiny"):
        assert shown in table, shown


# ------------------------------------------------------------ issue 30: verdicts that


# hold

ALL_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def quality_cell(task, dtype):
    # 128 rows: enough decisions for near-ties at bfloat16's resolution to occur.
    return tiny_cell(task=task, dtype=dtype, size=16, hidden=64, batch=128)


def rounded_observation(cell, reference):
    """What a perfectly rounded kernel gives: every result the exact one rounded to
    the dtype (the parameters before the step exact already, after it a rounded
    step)."""
    parts = ("outputs", "before", "after") if cell.task == "training" else ("outputs",)
    return {part: [out.to(cell.dtype) for out in reference[part]] for part in parts}


def observed_of(cell, rounded):
    return bench.observe(bench.build(cell, rounded, cell.dtype, CPU), lambda: None)[1]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("task", bench.TASKS)
def test_a_correct_kernel_passes_a_wrong_one_fails_in_every_dtype(
    monkeypatch, task, dtype
):
    cell = quality_cell(task, dtype)
    rounded = bench.round_inputs(bench.make_inputs(cell), dtype)
    reference, what = bench.reference_of(cell, rounded)
    float64 = dtype == torch.float64
    assert what == (bench.INDEPENDENT_REFERENCE if float64 else bench.FLOAT64_REFERENCE)

    def verdict(observed):
        quality = bench.measure_quality(task, observed, reference, dtype)
        return bench.judge(task, quality)

    # Perfectly rounded, then this build's kernels.
    assert verdict(rounded_observation(cell, reference)) == (True, "")
    assert verdict(observed_of(cell, rounded)) == (True, "")
    forward = bench.forward

    def wrong(workload, params, x):  # a kernel that drops the last input feature
        if x.dtype != dtype:  # the float64 reference of a lower dtype
            return forward(workload, params, x)
        return forward(workload, [params[0][:-1], *params[1:]], x[..., :-1])

    monkeypatch.setattr(bench, "forward", wrong)
    passed, why = verdict(observed_of(cell, rounded))
    # float64 too: its reference is not this kernel.
    assert not passed and "rel_error" in why


def test_a_near_tie_is_not_a_disagreement_a_clear_flip_is():
    step = 2.0**-7  # bfloat16's eps: the spacing of the numbers in [1, 2)
    reference = torch.tensor([[1.0, 1.0 + step / 4], [1.0, 1.5]], dtype=torch.float64)
    swapped = torch.tensor([[1.0, 0.99], [1.0, 0.5]])  # both decisions differ
    assert bench.agreement(swapped, reference) == 0  # counting every flip
    # The tie forgiven, not the flip.
    assert bench.agreement(swapped, reference, step) == 0.5
    # [1, 1] then [1, 1.5]: argmax of a tie is index 0.
    rounded = reference.to(torch.bfloat16)
    assert rounded[0, 0] == rounded[0, 1]
    assert bench.agreement(rounded, reference, torch.finfo(torch.bfloat16).eps) == 1


def test_bfloat16_training_is_judged_against_the_correctly_rounded_step():
    cell = quality_cell("training", torch.bfloat16)
    rounded = bench.round_inputs(bench.make_inputs(cell), cell.dtype)
    reference, _ = bench.reference_of(cell, rounded)
    observed = observed_of(cell, rounded)
    before, after = observed["before"], observed["after"]
    # Against the exact update, most of which bfloat16 cannot hold, it looks wrong ...
    steps = zip(reference["after"], reference["before"], strict=False)
    exact = [a - b for a, b in steps]
    applied = [a.double() - b.double() for a, b in zip(after, before, strict=False)]
    assert bench.relative_error(applied, exact) > 0.05
    # ... against what a correctly rounded step applies, it is within the bound; twice
    # the step, or no step at all, is wrong.
    assert bench.update_error(observed, reference, cell.dtype) <= 0.05
    doubled = [2 * a - b for a, b in zip(after, before, strict=False)]
    for wrong in (doubled, before):
        wrongly = dict(observed, after=wrong)
        assert bench.update_error(wrongly, reference, cell.dtype) > 0.05


def fake_timing(share, contended=True):
    timing = measurement([1.0, 1.0, 1.0, 1.0])
    timing.cpu_share, timing.contended, timing.load_average = share, contended, 3.5
    return timing


def test_a_contended_cell_is_flagged_retimed_and_named(monkeypatch, capsys):
    timings(monkeypatch, fake_timing(0.6))
    (row,) = bench.run([tiny_cell(trial="shared")], CPU, 1, 0.01, reruns=2)
    # Steady blocks (IQR 0) that would look precise: flagged all the same, and re-timed.
    assert float(row["latency_iqr"]) == 0 and row["attempts"] == 3
    flags = ("noisy", "contended", "cpu_share", "load_average")
    assert tuple(row[flag] for flag in flags) == ("true", "true", "0.6", "3.5")
    assert noise_notes(capsys) == [
        "benchmark.py: noisy: shared: contended: its threads had a core 60% of the "
        "wall time (load average 3.5; use fewer --threads, or a quieter machine), "
        "3 attempt(s); compare it with care"
    ]


def test_cpu_share_is_cpu_time_over_wall_time_per_thread():
    # A sleeping call uses no CPU: its thread "had a core" for almost none of the time.
    def sleeping(**options):  # a call that sleeps 2 ms, timed
        options |= dict(threads=1, min_run_time=0.02, max_run_time=0.1)
        return bench.steady_state(lambda: time.sleep(0.002), lambda: None, **options)

    asleep = sleeping()
    assert asleep.cpu_share < bench.CONTENTION_THRESHOLD
    # Whether that is contention is the rule's call, on the values recorded beside it.
    recorded = (asleep.cpu_share, asleep.wait_share, 1, asleep.load_average)
    assert asleep.contended == bench.is_contended(*recorded, bench.usable_cpus())
    assert asleep.contended <= bench.is_noisy(asleep)
    # On an accelerator the host may sleep while it waits: recorded, not contention.
    waiting = sleeping(host=False)
    assert waiting.cpu_share < bench.CONTENTION_THRESHOLD and not waiting.contended


def test_shares_are_the_clock_differences_around_the_timing(monkeypatch):
    # Clocks read before and after: 2 s of wall time on 2 threads, 3 s of CPU time,
    # 0.5 s of waiting for a core.
    readings = {"perf_counter": [100.0, 102.0], "process_time": [5.0, 8.0]}
    clocks = {name: iter(values).__next__ for name, values in readings.items()}
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(**clocks))
    monkeypatch.setattr(bench, "core_wait", iter([1.0, 1.5]).__next__)
    options = dict(threads=2, min_run_time=0.01, max_run_time=0.1)
    timing = bench.steady_state(lambda: None, lambda: None, **options)
    assert (timing.cpu_share, timing.wait_share) == (3 / 4, 0.5 / 4)
    assert timing.contended  # off a core 12.5% of the time: over the 10% allowed


def test_a_cpu_cell_whose_threads_waited_for_a_core_is_contended(monkeypatch):
    # Each reading 10 s after the last: far more waiting than the cell's wall time.
    monkeypatch.setattr(bench, "core_wait", itertools.count(0.0, 10.0).__next__)
    row = measure(tiny_cell())
    assert (row["contended"], row["noisy"]) == ("true", "true")


@pytest.mark.skipif(
    not os.path.exists("/proc/self/task") or not hasattr(os, "sched_setaffinity"),
    reason="Linux's schedstat only",
)
def test_core_wait_reads_the_threads_run_delay_on_linux():
    first = bench.core_wait()
    # This thread and a busy child pinned to one core: each waits while the other runs.
    mine, core = os.sched_getaffinity(0), min(os.sched_getaffinity(0))
    rival = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(rival.pid, {core})
        os.sched_setaffinity(0, {core})  # 0: this thread
        before, wall, spent = bench.core_wait(), time.perf_counter(), time.thread_time()
        while time.thread_time() - spent < 0.05:  # 50 ms of this thread's CPU time
            pass
        waited, wall = bench.core_wait() - before, time.perf_counter() - wall
    finally:
        os.sched_setaffinity(0, mine)
        rival.kill()
        rival.wait()
    # run_delays only grow, and no thread ends here, so their sum cannot go back.
    assert first is not None and 0 <= first <= before
    # Seconds: the rival's turns on the core (about this thread's), within the wall.
    assert 0.01 <= waited <= wall


# Where the OS counts the wait for a core, the wait decides, whatever the CPU share;
# elsewhere one thread with a low share was kept off its core, but several threads
# may be idle, so the load average must say the machine is busy.
@pytest.mark.parametrize(
    "share, waited, threads, load, cpus, contended",
    [
        (0.45, 0.0, 2, 0.5, 2, False),  # two threads, small ops: idle (issue 30)
        (0.97, 0.12, 1, 6.0, 2, True),  # runnable but off the core 12% of the time
        (0.50, 0.10, 2, 3.0, 2, False),  # 10% exactly is within the threshold
        (0.60, None, 1, None, 2, True),
        (0.95, None, 1, 9.0, 2, False),
        (0.45, None, 2, 1.5, 2, False),
        (0.45, None, 2, 5.0, 2, True),
        (0.45, None, 2, None, 2, True),  # no load average: a low share is not waved
    ],
)
def test_contention_is_waiting_for_a_core_not_idle_threads(
    share, waited, threads, load, cpus, contended
):
    assert bench.is_contended(share, waited, threads, load, cpus) is contended
