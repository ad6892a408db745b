"""Device-side timing with events: only where an accelerator exists.

On its own: python snippets/measuring/events.py
"""

import sys

import torch

if not torch.accelerator.is_available():  # the page skips this example for the same reason
    print("Skipped: needs an accelerator: only the CPU is present")
    sys.exit(0)

# --8<-- [start:events]
accelerator = torch.accelerator.current_accelerator()
a = torch.randn(1024, 1024, device=accelerator)
start = torch.Event(enable_timing=True)
end = torch.Event(enable_timing=True)

start.record()  # both events go into the current stream, between the kernels
product = a @ a
end.record()
end.synchronize()  # the host waits until the end event has happened on the device

milliseconds = start.elapsed_time(end)  # device time between the two events
assert milliseconds > 0 and product.shape == (1024, 1024)
# --8<-- [end:events]
