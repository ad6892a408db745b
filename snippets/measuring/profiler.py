"""Where the time goes: torch.profiler's operator table and a Chrome trace.

On its own: python snippets/measuring/profiler.py
"""

# --8<-- [start:profile]
import json
import os
import shutil
import tempfile
import time
from collections import Counter

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

generator = torch.Generator().manual_seed(0)
w1, b1 = torch.randn(4, 8, generator=generator), torch.randn(8, generator=generator)
w2, b2 = torch.randn(8, 4, generator=generator), torch.randn(4, generator=generator)
batch = torch.randn(2, 4, generator=generator)


def mlp(x):  # per call: two matmuls, two additions, one tanh
    return torch.tanh(x @ w1 + b1) @ w2 + b2


trace_dir = tempfile.mkdtemp()
# Open it in Perfetto or chrome://tracing.
trace_file = os.path.join(trace_dir, "mlp_trace.json")
# Skip 1 step, warm up 1 (recorded, then thrown away), keep the next 2.
steps = schedule(wait=1, warmup=1, active=2, repeat=1)
started = time.perf_counter()
with profile(
    activities=[ProfilerActivity.CPU],
    schedule=steps,
    record_shapes=True,
    on_trace_ready=lambda p: p.export_chrome_trace(trace_file),
) as prof:
    for _ in range(4):
        with record_function("mlp"):
            mlp(batch)
        prof.step()  # tells the schedule that one step has ended
wall = time.perf_counter() - started  # around all 4 steps, profiling overhead included

active = 2  # only the active steps are in the results
calls = {event.key: event.count for event in prof.key_averages()}
print(
    calls["mlp"],
    calls["aten::matmul"],
    calls["aten::mm"],
    calls["aten::add"],
    calls["aten::tanh"],
)
# > 2 4 4 4 2
assert (calls["aten::mm"], calls["aten::add"], calls["aten::tanh"]) == (
    2 * active,
    2 * active,
    active,
)
# --8<-- [end:profile]

# --8<-- [start:read]
# The table a reader prints: one row per
# operator, slowest self time first.
table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8)
assert "# of Calls" in table and "aten::mm" in table

# Times are measurements (microseconds): the 2 kept steps lie within the wall time
# of all 4, and each call of mlp within its step.
rows = {row.key: row for row in prof.key_averages()}
steps_total = sum(
    row.cpu_time_total for key, row in rows.items() if key.startswith("ProfilerStep")
)
assert 0 < rows["mlp"].cpu_time_total <= steps_total <= wall * 1e6

# key_averages(group_by_input_shape=True) splits a row by input shapes (recorded because
# record_shapes=True): one row for each matmul of the MLP.
by_shape = {
    str(row.input_shapes): row.count
    for row in prof.key_averages(group_by_input_shape=True)
    if row.key == "aten::mm"
}
print(by_shape)
# > {'[[2, 4], [4, 8]]': 2, '[[2, 8], [8, 4]]': 2}

# The Chrome trace holds one complete ("X") event per operator call. torch writes it
# as ASCII, so UTF-8 reads it whatever the locale.
with open(trace_file, encoding="utf-8") as file:
    trace = json.load(file)
in_trace = Counter(e["name"] for e in trace["traceEvents"] if e.get("ph") == "X")
assert all(
    in_trace[name] == calls[name]
    for name in ("mlp", "aten::mm", "aten::add", "aten::tanh")
)
# The steps the trace kept, numbered from 0: step 0 skipped, step 1 warmed up and
# thrown away, steps 2 and 3 kept.
kept = sorted(
    e["name"]
    for e in trace["traceEvents"]
    if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")
)
print(kept)
# > ['ProfilerStep#2', 'ProfilerStep#3']
shutil.rmtree(trace_dir)  # a real trace you would keep and open
# --8<-- [end:read]
