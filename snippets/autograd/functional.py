# --8<-- [start:grad_returns]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)

# autograd.grad hands the derivative back and leaves x.grad alone.
(dy_dx,) = torch.autograd.grad(x * x, x)
print(dy_dx)
# > tensor(6.)
print(x.grad)
# > None
assert_close(dy_dx, 2 * x.detach())
# --8<-- [end:grad_returns]

# --8<-- [start:non_scalar]
x = torch.tensor([1.0, 1.5, 3.0], requires_grad=True)
y = x * x  # three outputs, not one

# With several outputs autograd needs to know how to weight each one.
try:
    y.backward()
except RuntimeError as error:
    print(error)
# > grad can be implicitly created only for scalar outputs

# Weights of 1 give the derivative of y.sum(): 2x for each element.
(dy_dx,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
print(dy_dx)
# > tensor([2., 3., 6.])
assert_close(dy_dx, 2 * x.detach())

# backward() takes the same vector under the name gradient and stores the result.
# (grad freed the first graph, so the output is computed again.)
(x * x).backward(gradient=torch.ones_like(y))
assert_close(x.grad, dy_dx)
# --8<-- [end:non_scalar]

# --8<-- [start:backward_inputs]
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(5.0, requires_grad=True)

# inputs= restricts which tensors backward() fills; the others keep .grad = None.
(w * w * b).backward(inputs=[w])
print(w.grad, b.grad)
# > tensor(30.) None
assert_close(w.grad, 2 * w.detach() * b.detach())  # ∂(w²b)/∂w = 2wb
assert b.requires_grad and b.grad is None  # b requires grad, but was not named

# The tensors named need not be leaves: h gets a .grad, and w, behind it,
# gets nothing more.
h = w + b
(h * h).backward(inputs=[h])
print(h.grad, w.grad)
# > tensor(16.) tensor(30.)
assert not h.is_leaf
assert_close(h.grad, 2 * h.detach())  # d(h²)/dh = 2h
# --8<-- [end:backward_inputs]

# --8<-- [start:second_derivative]
x = torch.tensor(1.5, requires_grad=True)
y = x**3

# create_graph=True records the derivative itself, so it can be differentiated again.
(first,) = torch.autograd.grad(y, x, create_graph=True)
(second,) = torch.autograd.grad(first, x)
print(first.item(), second.item())
# > 6.75 9.0

# By hand: 3x² = 6.75 and 6x = 9 at x = 1.5 (x is chosen so that f, f′ and f″
# all differ).
assert_close(first.detach(), 3 * x.detach() ** 2)
assert_close(second, 6 * x.detach())
# --8<-- [end:second_derivative]
