"""The measuring guide's examples, on small shapes, each after the benchmark.py code it
uses.

Every expected number is derived here from the shapes, the dtypes and the
formats' unit roundoff, and compared with what the module measures.
On the page, the sections of benchmark.py shown above each example define the
names imported here. On its own: python snippets/measuring/walkthrough.py
"""

import math
import time

import torch

from benchmark import (
    COLUMNS,
    CRITERIA,
    TASKS,
    Cell,
    agreement,
    build,
    count_flops,
    first_call,
    is_noisy,
    judge,
    make_inputs,
    measure_cell,
    measure_quality,
    observe,
    peak_memory,
    reference_of,
    relative_error,
    round_inputs,
    synchronizer,
    timed,
    to_csv,
    torch_build,
    update_error,
)

# --8<-- [start:tasks]
from dataclasses import replace

cell = Cell(
    trial="demo",
    workload="mlp",
    task="inference",
    dtype=torch.float32,
    size=4,
    hidden=8,
    batch=2,
)
print(cell.shape)
# > 4x8x4

# The three tasks return different things, and keep different state alive.
for task in TASKS:
    call = build(
        replace(cell, task=task), make_inputs(cell), torch.float32, torch.device("cpu")
    )
    print(task, [tuple(output.shape) for output in call()])
# > inference [(2, 4)]
# > training [(), (4, 8), (8,), (8, 4), (4,)]
# > gradient [(4, 8), (8,), (8, 4), (4,)]

# Each task's criteria, fixed before anything is timed; the same for every dtype.
for task, criteria in CRITERIA.items():
    print(
        task,
        "; ".join(
            f"{c.column} {'>=' if c.at_least else '<='} {c.bound:g}" for c in criteria
        ),
    )
# > inference agreement >= 0.99; rel_error <= 0.01
# > training loss_rel_error <= 0.01; rel_error <= 0.05
# > gradient rel_error <= 0.05

# Within 5% in norm: the farthest a gradient can point from the exact one is asin(0.05).
r = CRITERIA["gradient"][0].bound
exact = torch.tensor([1.0, 0.0], dtype=torch.float64)
farthest = torch.tensor(
    [1 - r**2, r * math.sqrt(1 - r**2)], dtype=torch.float64
)  # error ⟂ it
assert math.isclose(
    torch.linalg.vector_norm(farthest - exact).item(), r
)  # 5% of |exact| = 1
angle = math.degrees(
    math.acos(farthest[0].item() / torch.linalg.vector_norm(farthest).item())
)
assert math.isclose(angle, math.degrees(math.asin(r)))
print(f"{angle:.1f} degrees")
# > 2.9 degrees
# --8<-- [end:tasks]

# --8<-- [start:first_call]
device = torch.device("cpu")
sync = synchronizer(device)
train = build(replace(cell, task="training"), make_inputs(cell), torch.float32, device)

print([p.grad for p in train.params])  # nothing allocated for gradients yet
# > [None, None, None, None]
started = time.perf_counter()
first, outputs = first_call(
    train, sync
)  # recorded on its own, never mixed into the median
assert 0 < first <= time.perf_counter() - started  # within the wall time around it
print([tuple(p.grad.shape) for p in train.params])  # what the first call leaves behind
# > [(4, 8), (8,), (8, 4), (4,)]
grad_bytes = sum(
    p.grad.nbytes for p in train.params
)  # allocated between calls from now on
assert grad_bytes == (4 * 8 + 8 + 8 * 4 + 4) * 4  # float32: 4 bytes
# Not the same tensors each call: every step frees them (zero_grad(set_to_none=True))
# and allocates new ones, as large.
last = [p.grad for p in train.params]
train()
print(
    [p.grad is old for p, old in zip(train.params, last, strict=True)],
    sum(p.grad.nbytes for p in train.params) == grad_bytes,
)
# > [False, False, False, False] True
del last
# --8<-- [end:first_call]

# --8<-- [start:steady_state]
threads = torch.get_num_threads()
# one entry per sync() call: is the device really waited for inside every call?
waits = []


def counted_sync():
    waits.append(None)
    sync()


started = time.perf_counter()
timing, attempts = timed(
    train, counted_sync, threads=threads, min_run_time=0.05, max_run_time=0.5, reruns=1
)
print(type(timing).__name__, timing.task_spec.num_threads == threads)
# > Measurement True
# latency is the median of the blocks' mean seconds per call; each block ran
# number_per_run calls.
assert (
    len(waits) >= len(timing.times) * timing.number_per_run
)  # every timed call waited
assert (
    sum(timing.times) * timing.number_per_run <= time.perf_counter() - started
)  # per call
assert attempts in (1, 2)  # a second attempt only when the first was noisy

# The flag on block means whose spread is known: sorted 1, 1, 1.15, 1.3 ms per call.
Measurement = type(timing)
spread = Measurement(
    number_per_run=1,
    raw_times=[1e-3, 1.15e-3, 1e-3, 1.3e-3],
    task_spec=timing.task_spec,
)
# Linear-interpolation quartiles: p25 = 1, median = (1 + 1.15) / 2, p75 = 1.15 + (1.3 -
# 1.15) / 4.
assert math.isclose(spread.median, 1.075e-3) and math.isclose(
    spread.iqr, 1.1875e-3 - 1e-3
)
print(
    f"{spread.iqr / spread.median:.0%}", spread.has_warnings, is_noisy(spread)
)  # torch agrees
# > 17% True True
# One slow block alone: no spread to see, so never precise-looking: too few blocks.
hiccup = Measurement(number_per_run=1, raw_times=[31.9e-3], task_spec=timing.task_spec)
print(hiccup.median, hiccup.iqr, hiccup.has_warnings, is_noisy(hiccup))
# > 0.0319 0.0 False True
# Too few blocks needs no disturbance: a steady call too slow for max_run_time. A 60 ms
# call is one block (over Timer's 50 ms probe), and two pass 0.1 s, spread or not.
slow, _ = timed(
    lambda: time.sleep(0.06),
    lambda: None,
    threads=1,
    min_run_time=0.02,
    max_run_time=0.1,
    reruns=0,
)
print(len(slow.times) < 4, slow.number_per_run, is_noisy(slow))
# > True 1 True
# --8<-- [end:steady_state]

# --8<-- [start:memory]
# Every byte, from the shapes: b rows, n features, h hidden units, s bytes per element.
b, n, h, s = cell.batch, cell.size, cell.hidden, torch.float32.itemsize
params = n * h + h + h * n + n  # w1, b1, w2, b2
held = {
    "inference": params + b * n,  # inference never reads the target: not kept
    "gradient": params + 2 * b * n,  # parameters, x and the target
    "training": 2 * params + 2 * b * n,
}  # ... and the .grad of the last step
# The loss is a 0-dim tensor, yet F.mse_loss leaves it on its b x n elementwise buffer:
loss = torch.nn.functional.mse_loss(torch.zeros(b, n), torch.ones(b, n))
assert loss.dim() == 0 and loss.untyped_storage().nbytes() == b * n * s
backward = (
    b * n
    + 1
    + max(  # the loss and its seed gradient, then the larger of two moments:
        n
        + h * n
        + 3
        * b
        * h,  # tanh's backward: grads of b2, w2; tanh's output, its grad, its result
        params + b * h,
    )
)  # the last matmul (w1's gradient): every gradient, and the one at tanh's input
# (tanh's moment is the larger when 2b > n + 1: not here; tests/test_benchmark.py checks
# a shape where it is)
peak = {
    "inference": held["inference"]
    + 2 * b * h,  # x @ w1 and x @ w1 + b1, both live at the add
    "gradient": held["gradient"] + backward,
    "training": held["gradient"] + backward,
}  # zero_grad frees the old .grad first
flops = {
    "inference": 2 * (2 * b * n * h),  # x @ w1 and tanh(...) @ w2: 2 b n h each
    "gradient": 5
    * (2 * b * n * h),  # + the gradients of w2, of tanh's output and of w1
    "training": 5 * (2 * b * n * h),
}  # (x needs none); the SGD step is not a matmul

table = []
for task in TASKS:
    tasked = replace(cell, task=task)
    memory, state, method = peak_memory(
        lambda: build(tasked, make_inputs(cell), torch.float32, device), device
    )
    counted = count_flops(build(tasked, make_inputs(cell), torch.float32, device))
    table.append((task, memory, state, counted))
    assert (memory, state, counted) == (peak[task] * s, held[task] * s, flops[task])

print(method)
# > profiler: live tensor bytes since the build
for task, memory, state, counted in table:
    print(
        f"{task:9} memory {memory:4} B, held between calls {state:4} B, {counted} FLOPs"
    )
# > inference memory  464 B, held between calls  336 B, 256 FLOPs
# > training  memory  772 B, held between calls  672 B, 640 FLOPs
# > gradient  memory  772 B, held between calls  368 B, 640 FLOPs

# Batch size moves memory too: four times the rows, the activations grow, the weights do
# not.
quadrupled = replace(cell, batch=4 * b, task="gradient")
memory, state, _ = peak_memory(
    lambda: build(quadrupled, make_inputs(quadrupled), torch.float32, device), device
)
assert (
    state - table[2][2] == 2 * (3 * b) * n * s
)  # x and the target, three more times b rows
# --8<-- [end:memory]

# --8<-- [start:quality]
# At the quick preset's shape: bfloat16 in, float64 reference from the same rounded
# inputs.
sized = replace(cell, size=256, hidden=1024, batch=8, dtype=torch.bfloat16)
u = torch.finfo(sized.dtype).eps / 2  # unit roundoff: 8 significant bits
print(u == 2**-8, u)
# > True 0.00390625

rounded = round_inputs(make_inputs(sized), sized.dtype)
verdicts = {}
for task in TASKS:
    tasked = replace(sized, task=task)
    _, observed = observe(build(tasked, rounded, sized.dtype, device), sync)
    reference, what = reference_of(tasked, rounded)
    metrics = measure_quality(task, observed, reference, sized.dtype)
    verdicts[task] = judge(task, metrics)
    print(task, verdicts[task])
# > inference (True, '')
# > training (True, '')
# > gradient (True, '')
print(what)
# > float64 (CPU, same kernels, autograd)

# Rounding the exact result once costs at most u per element (and so in norm): a task
# that demanded 1e-4 would fail a cell whenever that rounding alone costs more, as it
# does here:
_, exact = observe(
    build(replace(sized, task="inference"), rounded, torch.float64, device), sync
)
exact = exact["outputs"][0]
once = relative_error((exact.to(sized.dtype),), (exact,))
assert 1e-4 < once <= u

# A NaN fails the error criteria. One among 100 x 4 outputs changes one decision of 100:
reference = torch.randn(
    100, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0)
)
broken = reference.clone()
broken[0, 0] = math.nan
metrics = {
    "agreement": agreement(broken, reference),
    "rel_error": relative_error((broken,), (reference,)),
}
print(metrics, judge("inference", metrics))
# > {'agreement': 0.99, 'rel_error': nan} (False, 'rel_error nan > 0.01')

# Why a training step is judged against a rounded step: SGD subtracts lr * grad from
# each weight w, then rounds to bfloat16. bfloat16 numbers next to w are 2u *
# 2**floor(log2|w|) apart (half that below a power of two, toward zero): an update under
# half that gap rounds back to w and is lost, by any correct kernel.
step = build(replace(sized, task="training"), rounded, sized.dtype, device)
before = [p.detach().clone() for p in step.params]
step()
for p, old in zip(step.params, before, strict=True):
    w, update = old.double(), 0.01 * p.grad.double()  # LEARNING_RATE times the gradient
    binade = 2.0 ** torch.floor(torch.log2(w.abs()))
    gap = torch.where(
        (w.abs() == binade) & (update.sign() == w.sign()), u * binade, 2 * u * binade
    )
    assert torch.equal(p.detach() == old, update.abs() < gap / 2)  # lost exactly there
lost = sum(
    (p.detach() == old).sum().item() for p, old in zip(step.params, before, strict=True)
)
print(f"{lost / sum(p.numel() for p in before):.1%} of the weights did not move")
# > 90.1% of the weights did not move

# Against the exact update the step is 98% wrong; against the exact update rounded to
# bfloat16, what a correct step applies, it is within the bound (a tie at one spacing of
# the weight does not count).
reference, _ = reference_of(replace(sized, task="training"), rounded)
applied = [
    p.detach().double() - old.double()
    for p, old in zip(step.params, before, strict=True)
]
exact = [a - b for a, b in zip(reference["after"], reference["before"], strict=True)]
observed = {"before": before, "after": [p.detach() for p in step.params]}
print(
    f"{relative_error(applied, exact):.3f}",
    update_error(observed, reference, sized.dtype) <= CRITERIA["training"][1].bound,
)
# > 0.982 True
# --8<-- [end:quality]

# --8<-- [start:row]
row = measure_cell(
    replace(cell, trial="demo-bf16", task="training", dtype=torch.bfloat16),
    device,
    threads,
    0.05,
    max_run_time=0.5,
)
print(tuple(row)[:9] == COLUMNS)
# > True
print(row["trial"], row["dtype"], row["shape"], row["batch"], row["quality_pass"])
# > demo-bf16 bfloat16 4x8x4 2 true
print(row["precision"], "|", row["reference"])  # no autocast: weights held in bfloat16
# > pure | float64 (CPU, same kernels, autograd)
# Contended (its threads waited for a core, cores that other programs held): noisy too.
assert row["contended"] == "false" or row["noisy"] == "true"
assert (
    row["torch_build"] == torch_build()
    and row["error"] == ""
    and row["pass_error"] == ""
)
# bfloat16 kernels may add scratch buffers (their size depends on the shape, the CPU and
# the thread count): the hand figure is exact for what stays between calls, a floor for
# the peak.
assert (
    int(row["memory_state"]) == held["training"] * 2
    and int(row["flops"]) == flops["training"]
)
assert int(row["memory"]) >= peak["training"] * 2
assert (
    int(row["runs"]) >= int(row["blocks"])
    and int(row["runs"]) % int(row["blocks"]) == 0
)

# The same step in float32 passes the same criterion, close to, not equal to, float64.
single = measure_cell(
    replace(cell, trial="demo-f32", task="training"),
    device,
    threads,
    0.05,
    max_run_time=0.5,
)
print(single["quality_pass"], single["quality_failure"] == "")
# > true True
# A first-order estimate: each addition in a float32 sum rounds by at most u; the
# gradients chain sums of size, hidden and batch terms, about four times over.
bound = 4 * (cell.size + cell.hidden + cell.batch) * torch.finfo(torch.float32).eps / 2
assert 0 < float(single["rel_error"]) <= bound
assert int(single["memory"]) == peak["training"] * 4  # float32: no scratch, to the byte

# A cell that cannot run still gets its row, and the run goes on.
failed = measure_cell(
    replace(cell, trial="demo-int", task="training", dtype=torch.int64),
    device,
    threads,
    0.05,
)
print(failed["latency"] == "", failed["memory"] == "", failed["quality_pass"])
# > True True false
print(failed["error"])
# > RuntimeError: only Tensors of floating point dtype can require gradients

header = to_csv([row, failed]).splitlines()[0].split(",")
print(
    len(header), header[-5:]
)  # the template's 9 columns first, new ones appended last
# > 36 ['load_average', 'contended', 'precision', 'reference', 'wait_share']
# --8<-- [end:row]
