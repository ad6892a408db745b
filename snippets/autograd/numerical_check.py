# --8<-- [start:float64_passes]
import torch
from torch.autograd.gradcheck import GradcheckError, gradcheck
from torch.testing import assert_close


def f(x):
    # Multiplications only: every float32 rounding is the same on any machine.
    return x**3


# gradcheck compares autograd's Jacobian with central finite differences.
x64 = torch.tensor([0.7, 1.3], dtype=torch.float64, requires_grad=True)
print(gradcheck(f, (x64,)))
# > True
# --8<-- [end:float64_passes]

# --8<-- [start:float32_fails]
import warnings

x32 = x64.detach().float().requires_grad_()

# Same function, same defaults (eps=1e-6,
# atol=1e-5, rtol=1e-3), single precision.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    passed = gradcheck(f, (x32,), raise_exception=False)
print(passed)
# > False
assert passed is False

# gradcheck warns about it before checking anything:
print(str(caught[0].message).split(". ")[0] + ".")
# > Input #0 requires gradient and is not a double precision floating point or complex.

# With exceptions on, the same check names what failed.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        gradcheck(f, (x32,))
    except GradcheckError as error:
        print(str(error).splitlines()[0])
# > Jacobian mismatch for output 0 with respect to input 0,
# --8<-- [end:float32_fails]


# --8<-- [start:why]
import struct


# gradcheck's numerical derivative, every operation in float32 as gradcheck does it.
def central_difference(x, eps):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


x = x32.detach()
exact = 3 * x64.detach() ** 2  # f'(x) = 3x², in float64
(analytical,) = torch.autograd.grad(f(x32).sum(), x32)  # what gradcheck checks
assert_close(analytical, exact.float())  # autograd is right, to float32 precision
# gradcheck passes where |analytical − numerical| ≤ atol + rtol·|numerical|; with
# f' in place of the numerical value, this is the tolerance the errors below are
# measured against.
tolerance = 1e-5 + 1e-3 * exact.abs()
unit = torch.finfo(torch.float32).eps  # ε = 2⁻²³ ≈ 1.2e-07
print(f"tolerance at x = 0.7 and 1.3: {tolerance[0]:.1e}, {tolerance[1]:.1e}")
# > tolerance at x = 0.7 and 1.3: 1.5e-03, 5.1e-03


def to_float32(value):  # the nearest float32, rounded by the standard library
    return struct.unpack("f", struct.pack("f", value))[0]


# x + eps minus x − eps, each rounded to float32 as torch does, worked out apart
# from torch: a sum of two float32 numbers this close is exact in a Python float,
# so each result is rounded once.
def step_taken(point, eps):
    x, h = to_float32(point), to_float32(eps)
    return to_float32(x + h) - to_float32(x - h)


rows = {}
for eps in (1e-6, 2**-20, 1e-3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        passed = gradcheck(f, (x32,), eps=eps, raise_exception=False)
    numerical = central_difference(x, eps)
    # gradcheck's own comparison reproduces its verdict: same numbers, same test.
    assert passed == torch.allclose(analytical, numerical, rtol=1e-3, atol=1e-5)
    error = (numerical.double() - exact).abs()  # observed, vs the closed form
    # The step taken vs 2·eps.
    step_error = ((x + eps) - (x - eps)).double() / (2 * eps) - 1
    by_hand = [step_taken(point, eps) / (2 * eps) - 1 for point in (0.7, 1.3)]
    assert step_error.tolist() == by_hand
    step = step_error.abs() * exact.abs()  # estimate: its cost, |f'|·that
    rounding = unit * f(x64.detach()).abs() / eps  # estimate: ε·|f|/eps
    truncation = eps**2 * 6 / 6  # eps²·|f'''|/6, f''' = 6
    rows[eps] = dict(
        passed=passed,
        step_error=step_error,
        error=error,
        step=step,
        rounding=rounding,
        truncation=truncation,
    )
    # The worst of the two points, in units of the tolerance: above 1 fails.
    print(
        f"eps={eps:<9.3g} gradcheck {passed!s:5}  "
        f"error {(error / tolerance).max():.2g}×tol"
    )
    print(
        f"  estimates: step {(step / tolerance).max():.2g}×tol, "
        f"outputs {(rounding / tolerance).max():.2g}×tol"
    )
# > eps=1e-06     gradcheck False  error 59×tol
# >   estimates: step 46×tol, outputs 52×tol
# > eps=9.54e-07  gradcheck False  error 14×tol
# >   estimates: step 0×tol, outputs 54×tol
# > eps=0.001     gradcheck True   error 0.041×tol
# >   estimates: step 0.047×tol, outputs 0.052×tol

default, exact_step, large = rows[1e-6], rows[2**-20], rows[1e-3]
ratios = [step_taken(point, 1e-6) / 2e-6 for point in (0.7, 1.3)]
print(f"step taken / (2·eps) at eps = 1e-6: {ratios[0]:.4f}, {ratios[1]:.4f}")
# > step taken / (2·eps) at eps = 1e-6: 1.0133, 0.9537
for row in rows.values():
    # The truncation term never matters here.
    assert (row["truncation"] < tolerance / 100).all()
# eps = 1e-6: the rounded step alone, and the rounding of the outputs alone, each
# miss the tolerance at both points.
assert (default["step"] > tolerance).all() and (default["rounding"] > tolerance).all()
# eps = 2⁻²⁰: x ± eps are exact in float32, and the check still fails on the
# outputs' rounding alone, with an error within the estimate.
assert (exact_step["step_error"] == 0).all() and not exact_step["passed"]
assert (exact_step["error"] > tolerance).all()
assert (exact_step["error"] <= exact_step["rounding"]).all()
# eps = 1e-3: both estimates fall below
# the tolerance, and the check passes.
assert (large["step"] < tolerance).all() and (large["rounding"] < tolerance).all()
assert large["passed"]

# Near 0, where |f| and |f'| are small, the same float32 check passes with every
# default.
small = torch.tensor([0.01, 0.02], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(gradcheck(f, (small,)))
# > True
small_rounding = unit * f(small.detach().double()).abs() / 1e-6
assert (small_rounding < 1e-5 / 10).all()  # the outputs' rounding: under atol / 10

# In float64 the same estimate at the
# default step is far below the tolerance.
rounding64 = torch.finfo(torch.float64).eps * f(x64.detach()).abs() / 1e-6
print(f"float64: rounding estimate {(rounding64 / tolerance).max():.1e}×tol")
# > float64: rounding estimate 9.6e-08×tol
assert (rounding64 < tolerance * 1e-5).all()
# --8<-- [end:why]
