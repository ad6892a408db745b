# --8<-- [start:no_grad]
import torch
from torch.testing import assert_close

w = torch.tensor(1.5, requires_grad=True)

# Inside no_grad nothing is recorded: the
# result has no grad_fn and needs no graph.
with torch.no_grad():
    y = w * w
print(y, y.requires_grad, y.grad_fn)
# > tensor(2.2500) False None

# That is how a hand-written update changes a leaf in place; outside no_grad,
# autograd refuses.
(w * w).backward()
try:
    w -= 0.1 * w.grad
except RuntimeError as error:
    print(error)
# > a leaf Variable that requires grad is being used in an in-place operation.
with torch.no_grad():
    w -= 0.1 * w.grad
print(w)
# > tensor(1.2000, requires_grad=True)
assert_close(w.detach(), torch.tensor(1.5 - 0.1 * (2 * 1.5)))  # w − lr·2w
# --8<-- [end:no_grad]

# --8<-- [start:inference_mode]
w = torch.tensor([1.0, 2.0], requires_grad=True)

# inference_mode records nothing either, and marks what it creates as inference tensors.
with torch.inference_mode():
    t = w * 3
print(t.requires_grad, t.is_inference())
# > False True

# It can enter recorded work later where autograd
# need not save it: ∂ sum(w + t)/∂w = 1.
(w + t).sum().backward()
assert_close(w.grad, torch.ones(2))
w.grad = None

# But an operation that would have to save it for backward is refused, as it runs:
# the forward pass raises, before any backward().
try:
    w * t  # ∂/∂w needs t, so MulBackward would save it
except RuntimeError as error:
    print(str(error).split(". ")[0])
# > Inference tensors cannot be saved for backward

# So is asking it to require grad, or updating
# it in place, outside inference mode.
with torch.inference_mode():
    u = torch.zeros(2)
refusals = {
    "Setting requires_grad=True on inference tensor "
    "outside InferenceMode": u.requires_grad_,
    "Inplace update to inference tensor outside InferenceMode": lambda: u.add_(1),
}
for message, attempt in refusals.items():
    try:
        attempt()
    except RuntimeError as error:
        assert str(error).startswith(message), error
    else:
        raise AssertionError(f"not refused: {message}")

# A clone outside inference mode is an ordinary tensor.
(w * t.clone()).sum().backward()
assert_close(w.grad, 3 * w.detach())  # ∂ sum(w·t)/∂w = t = 3w
# --8<-- [end:inference_mode]

# --8<-- [start:requires_grad_]
# requires_grad_() switches tracking on (or off) for a leaf, in place.
w = torch.linspace(0.5, 1.5, 3).requires_grad_()
print(w.is_leaf, w.requires_grad)
# > True True
(w**2).sum().backward()
assert_close(w.grad, 2 * w.detach())

# Only leaves can change the flag: the
# result of an operation is part of a graph.
h = w * 2
try:
    h.requires_grad_(False)
except RuntimeError as error:
    print(str(error).split(". ")[0])
# > you can only change requires_grad flags of leaf variables
# --8<-- [end:requires_grad_]
