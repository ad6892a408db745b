# --8<-- [start:integer]
import warnings

import torch
from torch.testing import assert_close

# Derivatives need a continuum: integer tensors cannot require gradients.
try:
    torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as error:
    print(error)
#> Only Tensors of floating point and complex dtype can require gradients
# --8<-- [end:integer]

# --8<-- [start:non_leaf]
x = torch.tensor(3.0, requires_grad=True)  # leaf
h = x * 2                                   # non-leaf: the result of an operation
out = h * h
print(x.is_leaf, h.is_leaf)
#> True False

out.backward(retain_graph=True)
print(x.grad)
#> tensor(24.)
# out = (2x)², so d out/dx = 8x = 24.
assert_close(x.grad, 8 * x.detach())

# Non-leaf gradients are freed after use; reading one warns and gives None.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(h.grad)
#> None
# The warning ends with a path inside the torch build, so print its first sentence only.
print(str(caught[0].message).split(". ")[0] + ".")
#> The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.
assert caught[0].category is UserWarning
# --8<-- [end:non_leaf]

# --8<-- [start:retain_grad]
x = torch.tensor(3.0, requires_grad=True)
h = x * 2
h.retain_grad()  # ask autograd to keep this non-leaf gradient
(h * h).backward()
print(h.grad)
#> tensor(12.)
# d(h²)/dh = 2h = 12 with h = 6.
assert_close(h.grad, 2 * h.detach())
# --8<-- [end:retain_grad]
