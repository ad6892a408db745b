"""A known-answer pilot: autograd against the power rule on any polynomial.

Run it on its own: python snippets/choosing/copy_ready.py
"""

import torch
from torch.testing import assert_close


def power_rule(coefficients):
    """Polynomial derivative, lowest power first: [1, -2, 0, 3] is 1 − 2x + 3x³."""
    return [k * c for k, c in enumerate(coefficients)][1:]


def evaluate(coefficients, x):
    return sum(c * x**k for k, c in enumerate(coefficients))


def pilot(coefficients, points):
    """p'(x) at each point by autograd, checked against the power rule; in float64."""
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    evaluate(coefficients, x).sum().backward()
    by_hand = torch.tensor(
        [evaluate(power_rule(coefficients), v) for v in points], dtype=torch.float64
    )
    assert_close(x.grad, by_hand)
    return x.grad


gradient = pilot([1, -2, 0, 3], [-1.0, 0.0, 0.5, 2.0])
print(gradient)
# > tensor([ 7.0000, -2.0000,  0.2500, 34.0000], dtype=torch.float64)
# The known answer, p'(x) = 9x² − 2, written out.
assert_close(gradient, torch.tensor([7.0, -2.0, 0.25, 34.0], dtype=torch.float64))
