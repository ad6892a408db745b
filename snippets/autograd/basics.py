# --8<-- [start:first_gradient]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)  # a leaf: created by you, tracked by autograd
y = x * x  # recorded: y remembers how it was made
print(y.grad_fn.name())
# > MulBackward0

y.backward()
print(x.grad)
# > tensor(6.)

# d(x²)/dx = 2x, so at x = 3 the gradient is 6.
assert_close(x.grad, 2 * x.detach())
# --8<-- [end:first_gradient]

# --8<-- [start:chain_rule]
x = torch.tensor(2.0, requires_grad=True)
y = torch.sin(x**2)
y.backward()

# Chain rule by hand: d sin(u)/dx = cos(u)
# · du/dx with u = x², so 2x · cos(x²).
by_hand = 2 * x.detach() * torch.cos(x.detach() ** 2)
assert_close(x.grad, by_hand)
print(f"{x.grad.item():.4f}")
# > -2.6146
# --8<-- [end:chain_rule]
