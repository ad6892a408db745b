# --8<-- [start:second_backward]
import torch
from torch.testing import assert_close

x = torch.tensor(2.0, requires_grad=True)
y = torch.sin(x * x)  # the nodes save x and x² for the backward pass
y.backward()
print(f"{x.grad.item():.4f}")
# > -2.6146
assert_close(x.grad, 2 * x.detach() * torch.cos(x.detach() ** 2))  # 2x·cos(x²)

# backward() freed what the graph saved, so the same graph cannot be walked again.
try:
    y.backward()
except RuntimeError as error:
    print(str(error).split(" (")[0])
    assert "Specify retain_graph=True" in str(error)
else:
    raise AssertionError("a second backward through a freed graph should raise")
# > Trying to backward through the graph a second time

# torch.autograd.grad frees the graph in the same way.
z = torch.sin(x * x)
(dz_dx,) = torch.autograd.grad(z, x)
assert_close(dz_dx, 2 * x.detach() * torch.cos(x.detach() ** 2))
try:
    torch.autograd.grad(z, x)
except RuntimeError as error:
    assert str(error).startswith("Trying to backward through the graph a second time")
else:
    raise AssertionError("a second grad through a freed graph should raise")

# The error comes from the freed saved tensors: a graph that saved no tensor,
# such as x + 1, can be walked again (and accumulates, as always).
x.grad = None
s = x + 1
s.backward()
s.backward()
print(x.grad)
# > tensor(2.)
assert_close(x.grad, torch.tensor(1.0 + 1.0))  # d(x + 1)/dx = 1, twice
# --8<-- [end:second_backward]

# --8<-- [start:retain_graph]
x = torch.tensor(2.0, requires_grad=True)
y = torch.sin(x * x)

# retain_graph=True keeps the saved tensors, at the cost of keeping them in memory.
y.backward(retain_graph=True)
y.backward()  # the last walk may free them
print(f"{x.grad.item():.4f}")
# > -5.2291
# Two walks accumulate: 2 · d sin(x²)/dx = 2 · 2x·cos(x²).
assert_close(x.grad, 2 * (2 * x.detach() * torch.cos(x.detach() ** 2)))

# Two losses that share s = x²: walked one after the other, the graph must be
# retained...
x.grad = None
s = x * x
torch.sin(s).backward(retain_graph=True)
(s * s).backward()
two_walks = x.grad

# ...while one backward() of their sum walks
# it once: the same .grad, up to rounding.
x.grad = None
s = x * x
(torch.sin(s) + s * s).backward()
print(f"{x.grad.item():.4f}")
# > 29.3854
assert_close(x.grad, two_walks)
assert_close(x.grad, 2 * x.detach() * torch.cos(x.detach() ** 2) + 4 * x.detach() ** 3)
# --8<-- [end:retain_graph]
