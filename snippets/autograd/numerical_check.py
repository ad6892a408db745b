# --8<-- [start:float64_passes]
import torch
from torch.autograd.gradcheck import GradcheckError, gradcheck


def f(x):
    return torch.sin(x**2)


# gradcheck compares autograd's Jacobian with central finite differences.
x64 = torch.tensor([0.3, 1.2], dtype=torch.float64, requires_grad=True)
print(gradcheck(f, (x64,)))
#> True
# --8<-- [end:float64_passes]

# --8<-- [start:float32_fails]
import warnings

x32 = x64.detach().float().requires_grad_()

# Same function, same defaults (eps=1e-6, rtol=1e-3), single precision.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    passed = gradcheck(f, (x32,), raise_exception=False)
print(passed)
#> False
assert passed is False

# gradcheck warns about it before checking anything:
print(str(caught[0].message).split(". ")[0] + ".")
#> Input #0 requires gradient and is not a double precision floating point or complex.

# With exceptions on, the same check names what failed.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        gradcheck(f, (x32,))
    except GradcheckError as error:
        print(str(error).splitlines()[0])
#> Jacobian mismatch for output 0 with respect to input 0,
# --8<-- [end:float32_fails]

# --8<-- [start:why]
# Why: gradcheck evaluates f at x - eps and x + eps and divides by 2·eps.
# In float32 neighbouring values near 0.3 and 1.2 are this far apart:
x = x32.detach()
print(torch.nextafter(x, torch.tensor(float("inf"))) - x)
#> tensor([2.9802e-08, 1.1921e-07])

# so the step actually taken is rounded, and differs from 2·eps by up to a few percent.
eps = 1e-6
step32 = (x + eps) - (x - eps)
print(step32 / (2 * eps))
#> tensor([1.0133, 0.9537])
step64 = (x64.detach() + eps) - (x64.detach() - eps)
print(step64 / (2 * eps))
#> tensor([1.0000, 1.0000], dtype=torch.float64)

# The float32 step is off by more than gradcheck's rtol of 1e-3; the float64 one is not.
assert ((step32 / (2 * eps) - 1).abs() > 1e-3).all()
assert ((step64 / (2 * eps) - 1).abs() < 1e-6).all()
# --8<-- [end:why]
