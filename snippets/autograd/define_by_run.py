# --8<-- [start:control_flow]
import math

import torch
from torch.testing import assert_close


def f(x):
    # Plain Python picks the branch, so each call records only the branch it ran.
    if x > 1:
        return x**3
    return torch.sin(2 * x)


for value in (1.5, 0.5):
    x = torch.tensor(value, requires_grad=True)
    y = f(x)
    y.backward()
    print(f"x = {value}: recorded {y.grad_fn.name()}, f'(x) = {x.grad.item():.4f}")
    # By hand, on each branch: 3x² for x > 1, 2·cos(2x) otherwise.
    by_hand = 3 * value**2 if value > 1 else 2 * math.cos(2 * value)
    assert_close(x.grad, torch.as_tensor(by_hand, dtype=torch.float32))
# > x = 1.5: recorded PowBackward0, f'(x) = 6.7500
# > x = 0.5: recorded SinBackward0, f'(x) = 1.0806
# --8<-- [end:control_flow]


# --8<-- [start:loop]
def power(x, n):
    # A loop is unrolled into the graph: n calls record n multiplications.
    y = torch.ones_like(x)
    for _ in range(n):
        y = y * x
    return y


x = torch.tensor(1.5, requires_grad=True)
(dy_dx,) = torch.autograd.grad(power(x, 4), x)
print(dy_dx)
# > tensor(13.5000)
assert_close(dy_dx, 4 * x.detach() ** 3)  # d(x⁴)/dx = 4x³
# --8<-- [end:loop]
