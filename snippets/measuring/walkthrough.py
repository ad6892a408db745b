"""The measuring guide's examples, on tiny shapes, each after the benchmark.py code it uses.

On the page, the sections of benchmark.py shown above each example define the
names imported here. On its own: python snippets/measuring/walkthrough.py
"""

import math

import torch

from benchmark import (COLUMNS, TASKS, TOLERANCE, Cell, build, first_call, make_inputs,
                       measure_cell, peak_memory, quality_pass, relative_error, round_inputs,
                       steady_state, synchronizer, to_csv, torch_build)

# --8<-- [start:tasks]
from dataclasses import replace

cell = Cell(trial="demo", workload="mlp", task="inference", dtype=torch.float32,
            size=4, hidden=8, batch=2)
print(cell.shape)
#> 4x8x4

# The three tasks return different things, and keep different state alive.
for task in TASKS:
    call = build(replace(cell, task=task), make_inputs(cell), torch.float32, torch.device("cpu"))
    print(task, [tuple(output.shape) for output in call()])
#> inference [(2, 4)]
#> training [(), (4, 8), (8,), (8, 4), (4,)]
#> gradient [(4, 8), (8,), (8, 4), (4,)]
# --8<-- [end:tasks]

# --8<-- [start:first_call]
device = torch.device("cpu")
sync = synchronizer(device)
train = build(replace(cell, task="training"), make_inputs(cell), torch.float32, device)

first, outputs = first_call(train, sync)  # recorded on its own, never mixed into the median
assert first > 0 and math.isfinite(first)
# --8<-- [end:first_call]

# --8<-- [start:steady_state]
threads = torch.get_num_threads()
timing = steady_state(train, sync, threads=threads, min_run_time=0.05)

print(type(timing).__name__, timing.task_spec.num_threads == threads)
#> Measurement True
runs = len(timing.times) * timing.number_per_run
assert timing.median > 0 and timing.iqr >= 0 and runs > 1
# --8<-- [end:steady_state]

# --8<-- [start:memory]
table = []
for batch in (2, 8):
    sized = replace(cell, batch=batch)
    call = build(sized, make_inputs(sized), torch.float32, device)
    seconds = steady_state(call, sync, threads=threads, min_run_time=0.05).median
    memory, method = peak_memory(call, device)
    table.append({"batch": batch, "samples_per_s": batch / seconds, "memory": memory})

print([row["batch"] for row in table], method)
#> [2, 8] profiler peak above start
assert all(row["samples_per_s"] > 0 and row["memory"] > 0 for row in table)
print(table[1]["memory"] > table[0]["memory"])  # four times the rows, more bytes at the peak
#> True
# --8<-- [end:memory]

# --8<-- [start:quality]
print(TOLERANCE)
#> 0.0001

# bfloat16: the same callable, the same rounded inputs, a float64 reference.
rounded = round_inputs(make_inputs(cell), torch.bfloat16)
reference = build(cell, rounded, torch.float64, device)()
error = relative_error(build(cell, rounded, torch.bfloat16, device)(), reference)
print(quality_pass(error))
#> False
assert error > TOLERANCE  # bfloat16 keeps 8 significant bits: about 2 to 3 decimal digits

# float32 meets the same tolerance on the same task.
rounded = round_inputs(make_inputs(cell), torch.float32)
reference = build(cell, rounded, torch.float64, device)()
print(quality_pass(relative_error(build(cell, rounded, torch.float32, device)(), reference)))
#> True

# A NaN or an inf never passes, whatever the tolerance.
print(quality_pass(relative_error((torch.tensor([math.nan]),), (torch.tensor([1.0]),))))
#> False
# --8<-- [end:quality]

# --8<-- [start:row]
row = measure_cell(replace(cell, trial="demo-bf16", dtype=torch.bfloat16), device, threads, 0.05)
print(tuple(row)[:9] == COLUMNS)
#> True
print(row["trial"], row["dtype"], row["shape"], row["batch"], row["quality_pass"])
#> demo-bf16 bfloat16 4x8x4 2 false
assert row["torch_build"] == torch_build() and row["error"] == ""
assert float(row["latency"]) > 0 and int(row["memory"]) > 0 and float(row["rel_error"]) > TOLERANCE

# A cell that cannot run still gets its row, and the run goes on.
failed = measure_cell(replace(cell, trial="demo-int", task="training", dtype=torch.int64),
                      device, threads, 0.05)
print(failed["latency"] == "", failed["memory"] == "", failed["quality_pass"])
#> True True false
print(failed["error"])
#> RuntimeError: only Tensors of floating point dtype can require gradients

print(to_csv([row, failed]).splitlines()[0])
#> trial,torch_build,device,dtype,shape,batch,latency,memory,quality_pass,workload,task,latency_iqr,first_call,runs,threads,samples_per_s,gflop_per_s,memory_method,rel_error,tolerance,error
# --8<-- [end:row]
