# --8<-- [start:jacobian]
import torch
from torch.func import hessian, jacrev
from torch.testing import assert_close


def f(x):
    # f: R² → R², f(x) = (x₀²·x₁, e^x₀·sin x₁)
    return torch.stack([x[0] ** 2 * x[1], torch.exp(x[0]) * torch.sin(x[1])])


x = torch.tensor([1.2, 0.7])
J = jacrev(f)(x)  # row i holds the gradient of output i
print(J)
# > tensor([[1.6800, 1.4400],
# >         [2.1389, 2.5394]])

# By hand: [[2x₀x₁, x₀²], [e^x₀·sin x₁, e^x₀·cos x₁]].
x0, x1 = x
by_hand = torch.stack(
    [
        torch.stack([2 * x0 * x1, x0**2]),
        torch.stack([torch.exp(x0) * torch.sin(x1), torch.exp(x0) * torch.cos(x1)]),
    ]
)
assert_close(J, by_hand)
# --8<-- [end:jacobian]


# --8<-- [start:hessian]
def g(x):
    # g: R² → R, g(x) = x₀³·x₁ + e^(x₀·x₁)
    return x[0] ** 3 * x[1] + torch.exp(x[0] * x[1])


x = torch.tensor([0.5, -1.5])
H = hessian(g)(x)
print(H)
# > tensor([[-3.4372,  0.8681],
# >         [ 0.8681,  0.1181]])

# By hand, with e = e^(x₀x₁): ∂²g/∂x₀² = 6x₀x₁ + x₁²e,
# ∂²g/∂x₀∂x₁ = 3x₀² + (1 + x₀x₁)e, ∂²g/∂x₁² = x₀²e.
x0, x1 = x
e = torch.exp(x0 * x1)
mixed = 3 * x0**2 + (1 + x0 * x1) * e
by_hand = torch.stack(
    [torch.stack([6 * x0 * x1 + x1**2 * e, mixed]), torch.stack([mixed, x0**2 * e])]
)
assert_close(H, by_hand)

# The older torch.autograd.functional API computes the same matrices.
assert_close(torch.autograd.functional.hessian(g, x), H)
assert_close(torch.autograd.functional.jacobian(f, torch.tensor([1.2, 0.7])), J)
# --8<-- [end:hessian]
