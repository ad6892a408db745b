# --8<-- [start:detach]
import torch
from torch.testing import assert_close

x = torch.tensor(1.5, requires_grad=True)
y = x * x
d = y.detach()

# detach() returns the same values, on the same memory, with no history.
print(d, d.requires_grad, d.is_leaf)
# > tensor(2.2500) False True
assert d.data_ptr() == y.data_ptr()  # not a copy

# To autograd a detached tensor is a constant: z = x · (x², frozen) has
# dz/dx = x², not 3x²: 2.25, not 6.75, at x = 1.5.
z = x * x.detach() ** 2
z.backward()
print(x.grad)
# > tensor(2.2500)
assert_close(x.grad, x.detach() ** 2)
# --8<-- [end:detach]
