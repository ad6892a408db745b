# --8<-- [start:float64_passes]
import torch
from torch.autograd.gradcheck import GradcheckError, gradcheck


def f(x):
    return x**3  # multiplications only: every float32 rounding is the same on any machine


# gradcheck compares autograd's Jacobian with central finite differences.
x64 = torch.tensor([0.7, 1.3], dtype=torch.float64, requires_grad=True)
print(gradcheck(f, (x64,)))
#> True
# --8<-- [end:float64_passes]

# --8<-- [start:float32_fails]
import warnings

x32 = x64.detach().float().requires_grad_()

# Same function, same defaults (eps=1e-6, atol=1e-5, rtol=1e-3), single precision.
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
# gradcheck's numerical derivative, every operation in float32 as gradcheck does it.
def central_difference(x, eps):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


x = x32.detach()
exact = 3 * x64.detach() ** 2                  # f'(x) = 3x², in float64
tolerance = 1e-5 + 1e-3 * exact.abs()          # gradcheck's atol + rtol·|f'|
unit = torch.finfo(torch.float32).eps          # ε = 2⁻²³ ≈ 1.2e-07
print(f"tolerance at x = 0.7 and 1.3: {tolerance[0]:.1e}, {tolerance[1]:.1e}")
#> tolerance at x = 0.7 and 1.3: 1.5e-03, 5.1e-03

rows = {}
for eps in (1e-6, 2**-20, 1e-3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        passed = gradcheck(f, (x32,), eps=eps, raise_exception=False)
    step_error = ((x + eps) - (x - eps)).double() / (2 * eps) - 1  # the step taken vs 2·eps
    error = (central_difference(x, eps).double() - exact).abs()     # observed, vs the closed form
    rounding = unit * f(x64.detach()).abs() / eps                   # estimate: ε·|f|/eps
    truncation = eps**2 * 6 / 6                                     # eps²·|f'''|/6, f''' = 6
    rows[eps] = dict(passed=passed, step_error=step_error, error=error, rounding=rounding,
                     truncation=truncation)
    # The worst of the two points, in units of the tolerance: above 1 fails.
    print(f"eps={eps:<9.3g} gradcheck {passed!s:5}  step off by {step_error.abs().max():.1e}  "
          f"error {(error / tolerance).max():.2g}×tol, "
          f"rounding estimate {(rounding / tolerance).max():.2g}×tol")
#> eps=1e-06     gradcheck False  step off by 4.6e-02  error 59×tol, rounding estimate 52×tol
#> eps=9.54e-07  gradcheck False  step off by 0.0e+00  error 14×tol, rounding estimate 54×tol
#> eps=0.001     gradcheck True   step off by 4.7e-05  error 0.041×tol, rounding estimate 0.052×tol

default, exact_step, large = rows[1e-6], rows[2**-20], rows[1e-3]
for row in rows.values():
    # gradcheck's verdict is this comparison: the explanation accounts for the outcome.
    assert row["passed"] == bool((row["error"] <= tolerance).all())
    # The truncation term never matters here.
    assert (row["truncation"] < tolerance / 100).all()
# eps = 1e-6: the rounded step is off by more than rtol, and rounding is estimated above tolerance.
assert (default["step_error"].abs() > 1e-3).all() and (default["rounding"] > tolerance).all()
# eps = 2⁻²⁰: x ± eps are exact in float32, and the check still fails on rounding alone,
# with an error within the estimate.
assert (exact_step["step_error"] == 0).all() and not exact_step["passed"]
assert (exact_step["error"] <= exact_step["rounding"]).all()
# eps = 1e-3: the estimate falls below the tolerance, and the check passes.
assert (large["rounding"] < tolerance).all() and large["passed"]

# In float64 the same estimate at the default step is far below the tolerance.
rounding64 = torch.finfo(torch.float64).eps * f(x64.detach()).abs() / 1e-6
print(f"float64: rounding estimate {(rounding64 / tolerance).max():.1e}×tol")
#> float64: rounding estimate 9.6e-08×tol
assert (rounding64 < tolerance * 1e-5).all()
# --8<-- [end:why]
