import torch
from torch.testing import assert_close

points = [-1.0, 0.0, 0.5, 2.0]


def p(x):
    return 3 * x**3 - 2 * x + 1


x = torch.tensor(points, dtype=torch.float64, requires_grad=True)

# --8<-- [start:inference]
# Serving evaluates the function and never differentiates it: inference_mode
# records no graph, even though x requires grad.
with torch.inference_mode():
    served = p(x)
print(served)
# > tensor([ 0.0000,  1.0000,  0.3750, 21.0000], dtype=torch.float64)
print(served.requires_grad, served.grad_fn, torch.is_inference(served))
# > False None True
assert_close(served, torch.tensor([p(v) for v in points], dtype=torch.float64))
# --8<-- [end:inference]

# --8<-- [start:inference_limits]
scale = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)

# Allowed: an inference tensor may enter a graph when
# no backward formula needs to save it. d(Σ(served +
# scale))/d(scale) = 1 per element, so 4.
(served + scale).sum().backward()
print(scale.grad)
# > tensor(4., dtype=torch.float64)
assert scale.grad.item() == len(points)
# That is observed behaviour, not a promise: the documented contract is broader.
contract = " ".join(torch.inference_mode.__doc__.split())
assert (
    "tensors created in this mode cannot be used in computations recorded by autograd"
    in contract
)

# Refused: the gradient of scale * served with respect
# to scale is served, so the product must save served
# for backward, and an inference tensor cannot be saved.
try:
    scale * served
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
    print(str(error).split(".")[0])
else:
    raise AssertionError("scale * served saved an inference tensor for backward")
# > Inference tensors cannot be saved for backward

# Refused outside inference mode: an in-place
# update, and turning on requires_grad.
with torch.inference_mode():
    totals = served.clone()  # allocated in inference mode, so an inference tensor too
    # Inside the mode, turning on requires_grad is allowed.
    inside = torch.arange(3.0).requires_grad_()
assert (
    torch.is_inference(totals) and torch.is_inference(inside) and inside.requires_grad
)
refusals = [
    (
        lambda: totals.add_(1),
        "Inplace update to inference tensor outside InferenceMode",
    ),
    (
        lambda: totals.requires_grad_(),
        "Setting requires_grad=True on inference tensor outside InferenceMode",
    ),
]
for update, refusal in refusals:
    try:
        update()
    except RuntimeError as error:
        assert refusal in str(error)
        print(str(error).split(".")[0])
    else:
        raise AssertionError(f"not refused: {refusal}")
# > Inplace update to inference tensor outside InferenceMode is not allowed
# > Setting requires_grad=True on inference tensor outside InferenceMode is not allowed
# Careful: in this build the in-place kernel has already written when the error
# is raised, so a caught error does not mean the values are untouched.
assert_close(totals, served + 1)
# --8<-- [end:inference_limits]

# --8<-- [start:inference_fix]
# The fix: clone outside inference mode. The clone is an
# ordinary tensor, so it can be saved for backward and
# updated in place: d(Σ scale·served)/d(scale) = Σ served.
ordinary = served.clone()
print(torch.is_inference(ordinary))
# > False
scale.grad = None
(scale * ordinary).sum().backward()
print(scale.grad)
# > tensor(22.3750, dtype=torch.float64)
assert_close(scale.grad, torch.tensor(sum(p(v) for v in points), dtype=torch.float64))

# Or evaluate under no_grad: it records no graph either, but its results are
# ordinary tensors, with none of the restrictions above.
with torch.no_grad():
    evaluated = p(x)
print(evaluated.requires_grad, torch.is_inference(evaluated))
# > False False
evaluated.add_(1)  # allowed: not an inference tensor
assert_close(evaluated, ordinary + 1)
# --8<-- [end:inference_fix]
