from pathlib import Path
from runpy import run_path

# On its own, this file first runs the two it builds on, as the page does.
globals().update(run_path(str(Path(__file__).with_name("model.py"))))
globals().update(run_path(str(Path(__file__).with_name("data.py"))))

# --8<-- [start:loss]
from fractions import Fraction

loss_fn = nn.MSELoss()  # the mean of the squared errors, over the batch
x, y = train_set.x, train_set.y
model = Line()  # w = b = 0: every prediction is 0
print(loss_fn(model(x), y))
# > tensor(35.3750, grad_fn=<MseLossBackward0>)
# By hand, exactly: the mean of y².
assert_close(
    loss_fn(model(x), y).item(), float(Fraction(sum(v * v for v in Y_TRAIN), 8))
)
# --8<-- [end:loss]

# --8<-- [start:optimum]
# The least-squares line, exactly, with fractions: mean(x) = 0 here, so
# w* = Σxy / Σx² and b* = mean(y).
n = len(X_TRAIN)
assert sum(X_TRAIN) == 0
w_best = Fraction(
    sum(a * b for a, b in zip(X_TRAIN, Y_TRAIN, strict=True)),
    sum(a * a for a in X_TRAIN),
)
b_best = Fraction(sum(Y_TRAIN), n)
loss_best = (
    sum((w_best * a + b_best - b) ** 2 for a, b in zip(X_TRAIN, Y_TRAIN, strict=True))
    / n
)
print(w_best, b_best, loss_best)
# > 127/60 9/8 487/960

# torch's own least-squares solver agrees, to float32 precision.
design = torch.stack([x, torch.ones_like(x)], dim=1)  # columns: x, 1
solution = torch.linalg.lstsq(design, y.unsqueeze(1)).solution.squeeze(1)
assert_close(solution, torch.tensor([float(w_best), float(b_best)]))
# --8<-- [end:optimum]

# --8<-- [start:descent]
from itertools import pairwise

lr, steps = Fraction(1, 20), 5
model = Line()
optimizer = torch.optim.SGD(model.parameters(), lr=float(lr))
losses = []
for _ in range(steps):
    optimizer.zero_grad()  # without it, each step would add to the last gradient
    loss_fn(model(x), y).backward()
    optimizer.step()  # w ← w − lr·∂L/∂w, b ← b − lr·∂L/∂b
    with torch.no_grad():
        losses.append(loss_fn(model(x), y).item())
print([f"{value:.4f}" for value in losses])
# > ['3.6326', '1.4689', '1.1881', '1.0526', '0.9486']

# The same steps by hand, exactly, with fractions: with r = w·x + b − y,
# ∂L/∂w = mean(2·r·x) and ∂L/∂b = mean(2·r).
w, b, by_hand = Fraction(0), Fraction(0), []
for _ in range(steps):
    r = [w * a + b - c for a, c in zip(X_TRAIN, Y_TRAIN, strict=True)]
    grad_w = sum(2 * ri * a for ri, a in zip(r, X_TRAIN, strict=True)) / n
    grad_b = sum(2 * ri for ri in r) / n
    w, b = w - lr * grad_w, b - lr * grad_b
    by_hand.append(
        sum((w * a + b - c) ** 2 for a, c in zip(X_TRAIN, Y_TRAIN, strict=True)) / n
    )

# Tolerance from u = 2⁻²⁴, float32's unit roundoff: each term reaches the loss via
# at most 12 roundings (3 per residual, its square, 7 additions, the mean), each within
# u of its result; as much again for w and b's own rounding: 24·u, rounded up to 32·u.
u = torch.finfo(torch.float32).eps / 2
roundings = 3 + 1 + (n - 1) + 1
rtol = 2 ** (2 * roundings - 1).bit_length() * u


# float32 results against exact fractions, within 32·u of each, relatively.
def assert_near(values, exact):
    exact = torch.tensor([float(v) for v in exact], dtype=torch.float64)
    assert_close(torch.tensor(values, dtype=torch.float64), exact, rtol=rtol, atol=0)


assert_near(losses, by_hand)
assert all(later < earlier for earlier, later in pairwise(by_hand))
# --8<-- [end:descent]

# --8<-- [start:converges]
# mean(x) = 0 splits the loss: L(w, b) = L* + mean(x²)·(w − w*)² + (b − b*)².
# Each step then shrinks w − w* by 1 − 2·lr·mean(x²) and b − b* by 1 − 2·lr,
# so after k steps from 0: L_k = L* + mean(x²)·(ρ_w^k·w*)² + (ρ_b^k·b*)².
mean_x2 = Fraction(sum(a * a for a in X_TRAIN), n)
rho_w, rho_b = 1 - 2 * lr * mean_x2, 1 - 2 * lr
print(rho_w, rho_b)
# > 1/4 9/10


def closed_form(k):
    return loss_best + mean_x2 * (rho_w**k * w_best) ** 2 + (rho_b**k * b_best) ** 2


assert [closed_form(k) for k in range(1, steps + 1)] == by_hand  # exactly equal

# 200 steps: the closed form's distance to the optimum is below float32's spacing;
# rounding remains.
long_run = 200
for _ in range(long_run - steps):
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()
print(f"{model.w.item():.4f} {model.b.item():.4f} {float(closed_form(long_run)):.4f}")
# > 2.1167 1.1250 0.5073
assert_close(model.w.detach(), torch.tensor(float(w_best)))
assert_close(model.b.detach(), torch.tensor(float(b_best)))
# --8<-- [end:converges]
