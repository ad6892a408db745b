# --8<-- [start:version_counter]
import textwrap

import torch
from torch.testing import assert_close

x = torch.tensor([0.5, 1.5], requires_grad=True)
y = x.exp()  # exp saves its output y: d eˣ/dx = eˣ is read back from y
y.add_(1)  # ...which this in-place update overwrites

# Every in-place change bumps the tensor's
# version; backward checks it and refuses.
try:
    y.sum().backward()
except RuntimeError as error:
    print(textwrap.fill(str(error).split(":")[0], 80))
    assert "is at version 1; expected version 0 instead" in str(error)
else:
    raise AssertionError("backward should refuse a modified saved tensor")
# > one of the variables needed for gradient computation has been modified by an
# > inplace operation

# The fix: an out-of-place operation leaves the saved tensor alone.
y = x.exp()
y = y + 1
assert_close(y, torch.exp(x.detach()) + 1)
y.sum().backward()
assert_close(x.grad, x.detach().exp())  # d(eˣ + 1)/dx = eˣ

# In place is fine where nothing saved is overwritten: add saves nothing, and
# multiplying by a constant needs only the constant.
x.grad = None
y = x + 1
y.mul_(2)
y.sum().backward()
assert_close(x.grad, torch.full_like(x, 2.0))  # d 2(x + 1)/dx = 2

# detach() shares memory, and the version counter with it: the same trap.
y = x.exp()
y.detach().zero_()
try:
    y.sum().backward()
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError("a detached alias changed a saved tensor")

# .data is an exception: it bypasses the version counter, and the gradient is
# silently wrong.
x.grad = None
y = x.exp()
y.data.add_(1)
y.sum().backward()
print(x.grad)
# > tensor([2.6487, 5.4817])
# Read from the changed y: eˣ + 1, not d eˣ/dx = eˣ.
assert_close(x.grad, x.detach().exp() + 1)

# So is memory aliased outside PyTorch: a
# write through a NumPy view bumps no version.
x.grad = None
y = x.exp()
y.detach().numpy()[:] += 1
assert y._version == 0  # the write went unseen
y.sum().backward()
assert_close(x.grad, x.detach().exp() + 1)  # the same silently wrong gradient
# --8<-- [end:version_counter]
