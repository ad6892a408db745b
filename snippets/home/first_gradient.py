# --8<-- [start:gradient]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward()

print(x.grad)
# > tensor(6.)

# d(x²)/dx = 2x, so at x = 3 the gradient is 6.
assert_close(x.grad, 2 * x.detach())
# --8<-- [end:gradient]
