# --8<-- [start:sgd_step]
import torch
from torch.testing import assert_close

w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)

loss = (w - 3) ** 2
loss.backward()
print(w.grad)
#> tensor(-4.)
# By hand: d/dw (w - 3)² = 2(w - 3) = -4 at w = 1.

# The gradient alone changes nothing: w is still 1.
print(w)
#> tensor(1., requires_grad=True)

optimizer.step()  # the update happens here: w ← w − lr · grad
print(w)
#> tensor(1.4000, requires_grad=True)
assert_close(w.detach(), torch.tensor(1.0 - 0.1 * -4.0))  # 1 + 0.4 = 1.4

optimizer.zero_grad()  # ready for the next step; the default sets .grad to None
print(w.grad)
#> None
# --8<-- [end:sgd_step]
