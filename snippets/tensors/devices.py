import sys

import torch

if not torch.accelerator.is_available():
    # The page skips this example on a CPU-only machine; as a script, say so and stop.
    print("skipped: devices.py needs an accelerator, and only the CPU is present", file=sys.stderr)
    sys.exit(0)

# --8<-- [start:mismatch]
import torch

accelerator = torch.accelerator.current_accelerator()
on_accelerator = torch.tensor([1.0, 2.0], device=accelerator)
on_cpu = torch.tensor([10.0, 20.0])

# Operands must live on one device; PyTorch does not move data implicitly.
try:
    on_accelerator + on_cpu
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("mixing devices should have raised")
# The message names the devices (cuda:0, mps:0, ...), so only its stable start is checked.
assert message.startswith("Expected all tensors to be on the same device"), message

# Move one operand explicitly; the sum is then 11 and 22, on the accelerator.
total = on_accelerator + on_cpu.to(accelerator)
assert total.device.type == accelerator.type
assert total.cpu().tolist() == [11.0, 22.0]
# --8<-- [end:mismatch]
