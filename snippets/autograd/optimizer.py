# --8<-- [start:sgd_step]
import torch
from torch.testing import assert_close

w = torch.tensor(1.5, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)

loss = (w - 3) ** 2
loss.backward()
print(w.grad)
# > tensor(-3.)
# By hand: d/dw (w - 3)² = 2(w - 3) = -3 at w = 1.5.
assert_close(w.grad, 2 * (w.detach() - 3))

# The gradient alone changes nothing: w is still 1.5.
print(w)
# > tensor(1.5000, requires_grad=True)

w_before = w.detach().clone()
optimizer.step()  # the update happens here: w ← w − lr · grad
print(w)
# > tensor(1.8000, requires_grad=True)
# 1.5 − 0.1·(−3) = 1.8
assert_close(w.detach(), w_before - 0.1 * 2 * (w_before - 3))

optimizer.zero_grad()  # ready for the next step; the default sets .grad to None
print(w.grad)
# > None
# --8<-- [end:sgd_step]
