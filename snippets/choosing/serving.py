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
#> tensor([ 0.0000,  1.0000,  0.3750, 21.0000], dtype=torch.float64)
print(served.requires_grad, served.grad_fn, torch.is_inference(served))
#> False None True
assert_close(served, torch.tensor([p(v) for v in points], dtype=torch.float64))
# --8<-- [end:inference]

# --8<-- [start:inference_limits]
# The price: an inference tensor cannot enter a graph later.
scale = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
try:
    (scale * served).sum().backward()
except RuntimeError as error:
    print(error)
#> Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.

# A no_grad result is an ordinary tensor and may enter a graph: d(scale · Σp)/d(scale) = Σp.
with torch.no_grad():
    evaluated = p(x)
(scale * evaluated).sum().backward()
print(scale.grad)
#> tensor(22.3750, dtype=torch.float64)
assert_close(scale.grad, evaluated.sum())
# --8<-- [end:inference_limits]
