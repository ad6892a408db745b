# --8<-- [start:closed_form]
# The known answer: p(x) = 3x³ − 2x + 1, so p'(x) = 9x² − 2.
points = [-1.0, 0.0, 0.5, 2.0]


def p(x):
    return 3 * x**3 - 2 * x + 1


def dp(x):
    return 9 * x**2 - 2


expected = [dp(x) for x in points]
print(expected)
# > [7.0, -2.0, 0.25, 34.0]
# --8<-- [end:closed_form]

# --8<-- [start:autograd]
import torch
from torch.testing import assert_close

x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
# Each p(x_i) depends on x_i alone, so the
# gradient of the sum holds every p'(x_i).
p(x).sum().backward()
print(x.grad)
# > tensor([ 7.0000, -2.0000,  0.2500, 34.0000], dtype=torch.float64)
assert_close(x.grad, torch.tensor(expected, dtype=torch.float64))
# --8<-- [end:autograd]

# --8<-- [start:plain_python]
# No framework: the power rule on the coefficients, lowest power first.
coefficients = [1, -2, 0, 3]  # 1 − 2x + 0x² + 3x³
derivative = [k * c for k, c in enumerate(coefficients)][1:]
print(derivative)
# > [-2, 0, 9]


def evaluate(coefficients, x):
    return sum(c * x**k for k, c in enumerate(coefficients))


by_hand = [evaluate(derivative, x) for x in points]
print(by_hand)
# > [7.0, -2.0, 0.25, 34.0]
# Exact equality is fair here: every value is a short binary fraction.
assert by_hand == expected
# --8<-- [end:plain_python]

# --8<-- [start:numpy]
from numpy.polynomial import polynomial as P

# NumPy ships the same power rule, with
# the same lowest-power-first order.
print(P.polyder(coefficients).tolist())
# > [-2.0, 0.0, 9.0]
assert P.polyval(points, P.polyder(coefficients)).tolist() == expected
# --8<-- [end:numpy]

# --8<-- [start:many_parameters]
from fractions import Fraction

# Where autograd pays: fit the four coefficients w to samples of p.
# loss(w) = mean((Xw − y)²), whose gradient is 2/N · Xᵀ(Xw − y).
samples = x.detach()
X = torch.stack([samples**k for k in range(4)], dim=1)  # columns 1, x, x², x³
y = p(samples)


def loss(w):
    return ((X @ w - y) ** 2).mean()


def hand_gradient(w):
    return 2 / len(y) * X.T @ (X @ w - y)


# A point away from the answer and from zero, so that every term of the formula counts.
start = [0.5, -1.0, 0.25, 2.0]
w = torch.tensor(start, dtype=torch.float64, requires_grad=True)
loss(w).backward()
print(w.grad)
# > tensor([ -3.1562,  -5.3906, -11.1328, -21.8789], dtype=torch.float64)

# The same gradient worked out apart from torch, in exact fractions: residual
# r_i = Σ_k w_k·x_i^k − p(x_i), then ∂loss/∂w_k = 2/N · Σ_i r_i·x_i^k.
xs = [Fraction(s) for s in points]
r = [sum(Fraction(c) * s**k for k, c in enumerate(start)) - p(s) for s in xs]
by_fractions = [
    2 * sum(ri * s**k for ri, s in zip(r, xs, strict=True)) / len(xs) for k in range(4)
]
print(*by_fractions)
# > -101/32 -345/64 -1425/128 -5601/256
# Exact equality is fair: every intermediate is a short binary fraction, which
# float64 holds exactly, so neither autograd nor the formula may round.
assert w.grad.tolist() == [float(g) for g in by_fractions]
assert hand_gradient(w.detach()).tolist() == w.grad.tolist()
# At p's own coefficients the fit is exact: zero loss, zero gradient.
exact = torch.tensor(coefficients, dtype=torch.float64, requires_grad=True)
loss(exact).backward()
assert loss(exact).item() == 0 and exact.grad.abs().max().item() == 0
# --8<-- [end:many_parameters]

# --8<-- [start:edited_model]
from torch.autograd import gradcheck


# Edit the model: squash the prediction through tanh. The rule above no longer
# applies; autograd needs no new rule.
def edited_loss(w):
    return ((torch.tanh(X @ w) - y) ** 2).mean()


start = torch.tensor([0.1, -0.2, 0.3, 0.05], dtype=torch.float64, requires_grad=True)
edited_loss(start).backward()
# The old formula is now wrong...
assert not torch.allclose(start.grad, hand_gradient(start.detach()))
# ...and a new one must be derived: the chain rule through tanh,
# d tanh(u)/du = 1/cosh²(u).
u = X @ start.detach()
assert_close(start.grad, 2 / len(y) * X.T @ ((torch.tanh(u) - y) / torch.cosh(u) ** 2))
# gradcheck compares autograd with finite differences, in float64, the
# precision its tolerances are designed for.
print(gradcheck(edited_loss, (start,)))
# > True
# --8<-- [end:edited_model]
