"""Device-side timing with events: they exist for accelerators, not for the CPU.

On its own: python snippets/measuring/events.py
"""

import sys
import time

import torch

# --8<-- [start:no_cpu_events]
event = torch.Event(device="cpu")  # created...
print(event.device)
# > cpu
try:
    event.record()  # ...but not recorded
except RuntimeError as error:
    print(error)
# > cpu backend doesn't support events.
# --8<-- [end:no_cpu_events]

# The page skips the next example for the same reasons. On MPS, elapsed_time could
# wait forever once the end event had been synchronized (pytorch/pytorch#162872);
# the macOS CI runner has no usable MPS on which to check whether the pinned
# release is still affected.
if not torch.accelerator.is_available():
    print("Skipped: needs an accelerator: only the CPU is present")
    sys.exit(0)
if torch.accelerator.current_accelerator().type == "mps":
    print(
        "Skipped: on MPS, elapsed_time could wait forever after Event.synchronize() "
        "(pytorch/pytorch#162872)"
    )
    sys.exit(0)

# --8<-- [start:events]
accelerator = torch.accelerator.current_accelerator()
a = torch.randn(1024, 1024, device=accelerator)
start = torch.Event(enable_timing=True)
end = torch.Event(enable_timing=True)

# Nothing queued: the host clock below starts on an idle device.
torch.accelerator.synchronize()
host_start = time.perf_counter()
start.record()  # both events go into the current stream, between the kernels
product = a @ a
end.record()
end.synchronize()  # the host waits until the end event has happened on the device
host_milliseconds = 1000 * (time.perf_counter() - host_start)

milliseconds = start.elapsed_time(end)  # device time between the two events
# The events were recorded after host_start and
# completed before the host stopped its clock, so
# the device interval lies inside the host interval.
assert milliseconds <= host_milliseconds and product.shape == (1024, 1024)
# --8<-- [end:events]
