# --8<-- [start:custom_function]
import torch
from torch.autograd.gradcheck import GradcheckError, gradcheck
from torch.testing import assert_close


# f(x, y) = x²·y, with its derivatives written by hand.
class SquareTimes(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)  # what backward needs, checked for in-place changes
        return x * x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        # One gradient per input of forward: ∂f/∂x = 2xy, ∂f/∂y = x².
        return grad_output * 2 * x * y, grad_output * x * x


x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
y = torch.tensor([3.0, -2.0], dtype=torch.float64, requires_grad=True)
out = SquareTimes.apply(x, y)  # apply, never forward: it records the node
print(out.grad_fn.name())
# > SquareTimesBackward
out.sum().backward()
print(x.grad, y.grad, sep="\n")
# > tensor([ 3., -6.], dtype=torch.float64)
# > tensor([0.2500, 2.2500], dtype=torch.float64)
assert_close(x.grad, 2 * x.detach() * y.detach())
assert_close(y.grad, x.detach() ** 2)

# gradcheck compares the backward written above with finite differences, in float64.
print(gradcheck(SquareTimes.apply, (x, y)))
# > True
# --8<-- [end:custom_function]


# --8<-- [start:wrong_backward]
class WrongSquareTimes(SquareTimes):
    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * x * y, grad_output * x * x  # ∂f/∂x misses its factor 2


# The same check catches the mistake, and says which input is wrong.
try:
    gradcheck(WrongSquareTimes.apply, (x, y))
except GradcheckError as error:
    print(str(error).splitlines()[0])
# > Jacobian mismatch for output 0 with respect to input 0,
# For the stated reason: ∂f/∂x is half the true 2xy, ∂f/∂y is right.
grad_x, grad_y = torch.autograd.grad(WrongSquareTimes.apply(x, y).sum(), (x, y))
assert_close(grad_x, x.detach() * y.detach())
assert_close(grad_y, x.detach() ** 2)
# --8<-- [end:wrong_backward]

# --8<-- [start:hooks]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
seen = []
# A hook on a non-leaf sees the gradient flowing through it, without retain_grad().
h.register_hook(lambda grad: seen.append(grad.clone()))
# A hook that returns a tensor replaces the gradient: halved before it reaches .grad.
handle = x.register_hook(lambda grad: grad / 2)
(h * h).sum().backward()
print(seen[0], x.grad)
# > tensor([ 2.,  8., 18.]) tensor([ 2., 16., 54.])
assert_close(seen[0], 2 * h.detach())  # d(h²)/dh = 2h
assert_close(x.grad, 4 * x.detach() ** 3 / 2)  # d(x⁴)/dx = 4x³, halved by the hook

# remove() takes the hook off: the next gradient is the plain 4x³, added to .grad.
handle.remove()
x.grad = None
(x**4).sum().backward()
print(x.grad)
# > tensor([  4.,  32., 108.])
assert_close(x.grad, 4 * x.detach() ** 3)
# --8<-- [end:hooks]
