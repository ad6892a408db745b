"""Where torch.utils.benchmark waits for the device; what syncing every call changes.

On its own: python snippets/measuring/sync.py
"""

# --8<-- [start:clock]
import inspect
from collections import Counter

import torch
from torch.utils.benchmark import Timer
from torch.utils.benchmark import timer as default_clock

# Timer reads the time with this function unless told otherwise. When an accelerator is
# present, it calls torch.accelerator.synchronize() before each reading.
print(inspect.signature(Timer).parameters["timer"].default is default_clock)
# > True

uses = Counter()


def counted_clock():  # the default clock, counted
    uses["clock_readings"] += 1
    return default_clock()


def wait_for_device():  # the role of benchmark.py's sync(), counted
    uses["statement_waits"] += 1
    if torch.accelerator.is_available():
        torch.accelerator.synchronize()


square = torch.randn(64, 64)
multiply = lambda: square @ square  # noqa: E731  one call of the work to time
# --8<-- [end:clock]

# --8<-- [start:latency_or_throughput]
# Latency: the statement waits for each call before the next one starts.
latency = Timer(
    "multiply(); wait_for_device()",
    timer=counted_clock,
    globals={"multiply": multiply, "wait_for_device": wait_for_device},
).timeit(100)
# timeit(100) runs a warm-up block of max(100 // 100, 2) = 2 calls, then the
# timed block of 100 calls; the clock is read at the start and at the end of
# each block.
print(uses["clock_readings"], uses["statement_waits"])
# > 4 102
assert uses["clock_readings"] == 2 * 2 and uses["statement_waits"] == 2 + 100

# Throughput: calls are queued back to back; only the clock's readings wait for the
# device.
uses.clear()
pipelined = Timer(
    "multiply()", timer=counted_clock, globals={"multiply": multiply}
).timeit(100)
print(uses["clock_readings"], uses["statement_waits"])
# > 4 0

# Both report seconds per call: the block's time divided by the calls in it.
print(latency.number_per_run, pipelined.number_per_run, len(pipelined.raw_times))
# > 100 100 1
# --8<-- [end:latency_or_throughput]
