# --8<-- [start:integer]
import warnings

import torch
from torch.testing import assert_close

# Derivatives need a continuum: integer
# tensors cannot require gradients.
try:
    torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as error:
    print(error)
# > Only Tensors of floating point and complex dtype can require gradients
# --8<-- [end:integer]

# --8<-- [start:non_leaf]
a = torch.tensor([1.0, 2.0])  # created by you, not tracked
w = torch.tensor([3.0, 4.0], requires_grad=True)  # created by you, tracked
b = a * 2  # an operation nobody tracks
h = w * b  # an operation autograd recorded
d = h.detach()  # h's values, cut from the graph
w64 = w.double()  # a conversion is an operation too...
assert w.float() is w and w.to(w.device) is w  # ...unless nothing changes: then it is w

for name, t in {"a": a, "w": w, "b": b, "h": h, "d": d, "w64": w64}.items():
    print(f"{name:>3}: requires_grad={t.requires_grad!s:5} is_leaf={t.is_leaf}")
# >   a: requires_grad=False is_leaf=True
# >   w: requires_grad=True  is_leaf=True
# >   b: requires_grad=False is_leaf=True
# >   h: requires_grad=True  is_leaf=False
# >   d: requires_grad=False is_leaf=True
# > w64: requires_grad=True  is_leaf=False

# The rule: a tensor that does not require grad is always a leaf; one that does
# is a leaf only if no recorded operation produced it.
for t in (a, w, b, h, d, w64):
    assert t.is_leaf == (not t.requires_grad or t.grad_fn is None)

(h.sum() + (w64 * w64).sum()).backward()

# By default .grad is filled for tensors that
# are leaves AND require grad: here only w.
print(w.grad)
# > tensor([ 8., 12.])
# d/dw [sum(w·b) + sum(w²)] = b + 2w = 2a + 2w; the double() copy passes its part
# back to w.
assert_close(w.grad, 2 * a + 2 * w.detach())

# Every other tensor keeps .grad = None.
# Reading it on a non-leaf also warns.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print([t.grad for t in (a, b, h, d, w64)])
# > [None, None, None, None, None]
# The warning ends with a path inside the torch
# build, so print its first sentence only.
print(str(caught[0].message).split(". ")[0] + ".")
# > The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.
assert len(caught) == 2 and all(c.category is UserWarning for c in caught)  # h and w64
# --8<-- [end:non_leaf]

# --8<-- [start:retain_grad]
x = torch.tensor(3.0, requires_grad=True)
h = x * 2
h.retain_grad()  # ask autograd to keep this non-leaf gradient
(h * h).backward()
print(h.grad)
# > tensor(12.)
# d(h²)/dh = 2h = 12 with h = 6.
assert_close(h.grad, 2 * h.detach())
# --8<-- [end:retain_grad]
