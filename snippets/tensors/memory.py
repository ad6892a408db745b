# --8<-- [start:copy_or_share]
import numpy as np
import torch

source = np.array([1.0, 2.0, 3.0])

copied = torch.tensor(source)  # always a copy
shared = torch.from_numpy(source)  # shares the NumPy buffer
as_tensor = torch.as_tensor(source)  # shares here: same dtype, CPU

source[0] = 100.0  # mutate the NumPy array after the three conversions

print(copied)
# > tensor([1., 2., 3.], dtype=torch.float64)
print(shared)
# > tensor([100.,   2.,   3.], dtype=torch.float64)
print(as_tensor)
# > tensor([100.,   2.,   3.], dtype=torch.float64)
assert copied[0].item() == 1.0
assert shared[0].item() == as_tensor[0].item() == 100.0

# Sharing works both ways: writing through the tensor changes the array.
shared[1] = -2.0
print(source)
# > [100.  -2.   3.]
# --8<-- [end:copy_or_share]

# --8<-- [start:as_tensor_copies]
# as_tensor shares only when it can: asking for another dtype forces a copy.
source = np.array([1.0, 2.0, 3.0])  # float64
narrowed = torch.as_tensor(source, dtype=torch.float32)
source[0] = 100.0
print(narrowed)
# > tensor([1., 2., 3.])
assert not np.shares_memory(narrowed.numpy(), source)

# A tensor that already fits is returned as is, the very same object (requires_grad
# included); a Python list has no buffer to share, so it is always copied.
weights = torch.ones(3, requires_grad=True)
assert torch.as_tensor(weights) is weights
assert torch.as_tensor(weights).requires_grad
assert torch.as_tensor(weights, dtype=torch.float64) is not weights
# --8<-- [end:as_tensor_copies]

# --8<-- [start:numpy_shares]
import textwrap

import numpy as np
import torch

# Tensor.numpy() is from_numpy in the other direction: a CPU tensor and its array
# share one buffer, so a write through either is seen by both.
t = torch.tensor([1.0, 2.0, 3.0])
a = t.numpy()
a[0] = 10.0
t[1] = 20.0
print(t)
# > tensor([10., 20.,  3.])
print(a)
# > [10. 20.  3.]
assert np.shares_memory(a, t.numpy())

# A tensor that records gradients refuses: NumPy would not track the operations.
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy()
# > instead.
# --8<-- [end:numpy_shares]

# --8<-- [start:negative_strides]
import textwrap

import numpy as np
import torch

source = np.arange(4.0)
backwards = source[::-1]  # a NumPy view that walks memory backwards
print(backwards.strides)  # bytes per step: -8, one float64 back
# > (-8,)

# PyTorch tensors cannot have negative strides, so sharing
# is impossible, and every NumPy conversion refuses the
# array (even torch.tensor, which would copy anyway).
try:
    torch.from_numpy(backwards)
except ValueError as error:
    print(textwrap.fill(str(error), 80))  # fill() also drops the trailing space
# > At least one stride in the given numpy array is negative, and tensors with
# > negative strides are not currently supported. (You can probably work around this
# > by making a copy of your array  with array.copy().)
for convert in (torch.as_tensor, torch.tensor):
    try:
        convert(backwards)
    except ValueError as error:
        assert "negative strides are not currently supported" in str(error)
    else:
        raise AssertionError(f"{convert.__name__} accepted a negative stride")

# The fix the message suggests: copy() gives a fresh array with positive strides.
fixed = torch.from_numpy(backwards.copy())
print(fixed)
# > tensor([3., 2., 1., 0.], dtype=torch.float64)
assert fixed.tolist() == [3.0, 2.0, 1.0, 0.0]

# torch.flip reverses on the PyTorch side; unlike NumPy's [::-1], it copies.
flipped = torch.flip(torch.from_numpy(source), dims=[0])
source[0] = 99.0
assert flipped.tolist() == [3.0, 2.0, 1.0, 0.0]  # the change to source did not reach it
# --8<-- [end:negative_strides]
