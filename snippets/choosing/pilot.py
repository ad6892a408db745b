# --8<-- [start:closed_form]
# The known answer: p(x) = 3x³ − 2x + 1, so p'(x) = 9x² − 2.
points = [-1.0, 0.0, 0.5, 2.0]


def p(x):
    return 3 * x**3 - 2 * x + 1


def dp(x):
    return 9 * x**2 - 2


expected = [dp(x) for x in points]
print(expected)
#> [7.0, -2.0, 0.25, 34.0]
# --8<-- [end:closed_form]

# --8<-- [start:autograd]
import torch
from torch.testing import assert_close

x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
# Each p(x_i) depends on x_i alone, so the gradient of the sum holds every p'(x_i).
p(x).sum().backward()
print(x.grad)
#> tensor([ 7.0000, -2.0000,  0.2500, 34.0000], dtype=torch.float64)
assert_close(x.grad, torch.tensor(expected, dtype=torch.float64))
# --8<-- [end:autograd]

# --8<-- [start:plain_python]
# No framework: the power rule on the coefficients, lowest power first.
coefficients = [1, -2, 0, 3]  # 1 − 2x + 0x² + 3x³
derivative = [k * c for k, c in enumerate(coefficients)][1:]
print(derivative)
#> [-2, 0, 9]


def evaluate(coefficients, x):
    return sum(c * x**k for k, c in enumerate(coefficients))


by_hand = [evaluate(derivative, x) for x in points]
print(by_hand)
#> [7.0, -2.0, 0.25, 34.0]
# Exact equality is fair here: every value is a short binary fraction.
assert by_hand == expected
# --8<-- [end:plain_python]

# --8<-- [start:numpy]
from numpy.polynomial import polynomial as P

# NumPy ships the same power rule, with the same lowest-power-first order.
print(P.polyder(coefficients).tolist())
#> [-2.0, 0.0, 9.0]
assert P.polyval(points, P.polyder(coefficients)).tolist() == expected
# --8<-- [end:numpy]

# --8<-- [start:many_parameters]
# Where autograd pays: fit the four coefficients w to samples of p.
# loss(w) = mean((Xw − y)²), whose gradient is 2/N · Xᵀ(Xw − y).
samples = x.detach()
X = torch.stack([samples**k for k in range(4)], dim=1)  # columns 1, x, x², x³
y = p(samples)
w = torch.zeros(4, dtype=torch.float64, requires_grad=True)
loss = ((X @ w - y) ** 2).mean()
loss.backward()
print(w.grad)
#> tensor([-11.1875, -21.0938, -42.0469, -84.0234], dtype=torch.float64)
assert_close(w.grad, 2 / len(y) * X.T @ (X @ w.detach() - y))
# --8<-- [end:many_parameters]

# --8<-- [start:edited_model]
from torch.autograd import gradcheck


# Edit the model: squash the prediction through tanh. The hand-derived rule above
# no longer holds; autograd needs no new rule, and gradcheck confirms it against
# finite differences (in float64, the precision gradcheck is designed for).
def edited_loss(w):
    return ((torch.tanh(X @ w) - y) ** 2).mean()


start = torch.tensor([0.1, -0.2, 0.3, 0.05], dtype=torch.float64, requires_grad=True)
print(gradcheck(edited_loss, (start,)))
#> True
# --8<-- [end:edited_model]
