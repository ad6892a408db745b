"""Compute a gradient, check it against calculus, then update the parameter."""

import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward()
print(x.grad)
#> tensor(6.)

# Analytical expectation: d(x²)/dx = 2x = 6 at x = 3.
assert_close(x.grad, 2 * x.detach())

# The gradient does not move x; an optimizer step does: x ← x − lr · grad.
optimizer = torch.optim.SGD([x], lr=0.25)
optimizer.step()
print(x)
#> tensor(1.5000, requires_grad=True)
assert_close(x.detach(), torch.tensor(3.0 - 0.25 * 6.0))
