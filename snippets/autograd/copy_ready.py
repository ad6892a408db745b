"""Fit a line by gradient descent; check its gradient and result against calculus."""

import torch
from torch.testing import assert_close

# Three points and a line w·x + b; the loss is the mean squared error.
x = torch.tensor([0.0, 1.0, 2.0])
y = torch.tensor([1.0, 3.0, 4.0])
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(-0.25, requires_grad=True)


def loss_fn():
    return ((w * x + b - y) ** 2).mean()


# One gradient, checked by hand: with r = w·x + b − y,
# ∂loss/∂w = mean(2·r·x) and ∂loss/∂b = mean(2·r).
loss_fn().backward()
r = (w * x + b - y).detach()
assert_close(w.grad, (2 * r * x).mean())
assert_close(b.grad, (2 * r).mean())
print(w.grad, b.grad)
# > tensor(-6.1667) tensor(-4.8333)

# Training: reset .grad, compute it, let the optimizer step.
optimizer = torch.optim.SGD([w, b], lr=0.1)
for _ in range(500):
    optimizer.zero_grad()
    loss_fn().backward()
    optimizer.step()

# The least-squares line, in closed form:
# w = cov(x, y) / var(x), b = mean(y) − w·mean(x).
w_best = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
b_best = y.mean() - w_best * x.mean()
print(f"w = {w.item():.4f}, b = {b.item():.4f}")
# > w = 1.5000, b = 1.1667
assert_close(w.detach(), w_best)
assert_close(b.detach(), b_best)
