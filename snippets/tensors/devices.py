import sys

# --8<-- [start:cpu_scalar]
import torch


# The meta device holds shape, dtype and device but no data, and exists on every
# machine. For + it follows the same device rule as CUDA (with its own message),
# so it can show that rule without a GPU.
def add_ten(x):
    return x + torch.tensor(10.0)  # a 0-dim CPU tensor


# On the CPU the values can be checked: 1 + 10 in each place.
assert add_ten(torch.ones(2)).tolist() == [11.0, 11.0]

# The same code on meta computes no values,
# only the result's device, shape and dtype.
on_meta = torch.ones(2, device="meta")
print(on_meta)
# > tensor(..., device='meta', size=(2,))
# A 0-dim CPU tensor is accepted beside a tensor on another device, as a scalar: the
# result stays on that device, with the other operand's shape.
result = add_ten(on_meta)
print(result.device, result.shape)
# > meta torch.Size([2])

# A CPU tensor with a dimension, even a single element, is refused.
for cpu_operand in (torch.tensor([10.0, 20.0]), torch.tensor([10.0])):
    try:
        on_meta + cpu_operand
    except RuntimeError as error:
        print(error)
    else:
        raise AssertionError("a 1-d CPU tensor beside a meta tensor should be refused")
# > Tensor on device cpu is not on the expected device meta!
# > Tensor on device cpu is not on the expected device meta!

# meta has no values to show or compare: .item() on it raises.
try:
    result[0].item()
except RuntimeError as error:
    print(error)
# > Tensor.item() cannot be called on meta tensors

# A stand-in for this check, not for every operation: this build accepts all of
# the following on meta, which CUDA refuses according to PyTorch's source (a
# matrix product with a 2-d CPU matrix, add_ with a 1-d CPU tensor, two 0-dim CPU
# inputs in one operation, a 0-dim CPU tensor as the output), so meta proves
# nothing about those.
# (A matrix product with a 1-d CPU operand is refused on meta, as the + above was.)
cpu_scalar = torch.tensor(2.0)
assert (torch.ones(2, 2, device="meta") @ torch.ones(2, 2)).device.type == "meta"
try:
    torch.ones(2, 2, device="meta") @ torch.ones(2)
except RuntimeError as error:
    assert str(error) == "Tensor on device cpu is not on the expected device meta!", (
        error
    )
else:
    raise AssertionError("a 1-d CPU operand of @ beside meta should be refused")
assert on_meta.clone().add_(torch.tensor([10.0, 20.0])).device.type == "meta"
assert torch.addcmul(on_meta, cpu_scalar, cpu_scalar).device.type == "meta"
assert cpu_scalar.add_(torch.tensor(1.0, device="meta")).device.type == "cpu"
# --8<-- [end:cpu_scalar]

if not torch.accelerator.is_available():
    # The page skips the next example on a CPU-only machine; as a script, say so
    # and stop.
    print(
        "skipped: the rest of devices.py needs an accelerator, "
        "and only the CPU is present",
        file=sys.stderr,
    )
    sys.exit(0)

# --8<-- [start:mismatch]
import torch

accelerator = torch.accelerator.current_accelerator()
on_accelerator = torch.tensor([1.0, 2.0], device=accelerator)

# A 0-dim CPU tensor is used as a scalar:
# 1 + 10 and 2 + 10, on the accelerator.
shifted = on_accelerator + torch.tensor(10.0)
assert shifted.device.type == accelerator.type
assert shifted.cpu().tolist() == [11.0, 12.0]

# A 1-d CPU tensor is refused: PyTorch does not copy it to the accelerator for you.
on_cpu = torch.tensor([10.0, 20.0])
try:
    on_accelerator + on_cpu
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("mixing devices should have raised")
# The message names the devices (cuda:0, mps:0, ...), so only its stable start is
# checked.
assert message.startswith("Expected all tensors to be on the same device"), message

# Move one operand explicitly; the sum is then 11 and 22, on the accelerator.
total = on_accelerator + on_cpu.to(accelerator)
assert total.device.type == accelerator.type
assert total.cpu().tolist() == [11.0, 22.0]
# --8<-- [end:mismatch]
