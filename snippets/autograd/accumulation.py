# --8<-- [start:accumulates]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)

(x * x).backward()
print(x.grad)
# > tensor(6.)

# A second backward adds to .grad instead of replacing it: 6 + 6.
(x * x).backward()
print(x.grad)
# > tensor(12.)
assert_close(x.grad, 2 * (2 * x.detach()))
# --8<-- [end:accumulates]

# --8<-- [start:reset]
# Zero in place: the tensor stays, its values become 0.
x.grad.zero_()
print(x.grad)
# > tensor(0.)

# Or drop it (what optimizer.zero_grad(set_to_none=True),
# the default, does).
x.grad = None
print(x.grad)  # no tensor at all until the next backward creates one
# > None
(x * x).backward()
print(x.grad)
# > tensor(6.)
assert_close(x.grad, 2 * x.detach())
# --8<-- [end:reset]
