# --8<-- [start:tensors]
import torch
from torch.testing import assert_close

# A tensor carries a shape, a dtype and a device besides its values.
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(t.shape, t.dtype, t.device)
# > torch.Size([2, 2]) torch.float32 cpu
# 1 + 2 + 3 + 4 = 10, computed by hand.
assert_close(t.sum(), torch.tensor(10.0))
# --8<-- [end:tensors]

# --8<-- [start:not_a_step]
# A gradient says which way is uphill; it does not move anything.
w = torch.tensor(3.0, requires_grad=True)
(w * w).backward()
print(w.grad, w.detach())
# > tensor(6.) tensor(3.)
assert_close(w.grad, 2 * w.detach())  # d(w²)/dw = 2w
assert w.item() == 3.0  # still where it was: updating w is an optimizer's job
# --8<-- [end:not_a_step]


# --8<-- [start:no_framework]
# The same derivative without any framework: the power rule, d(x²)/dx = 2x.
def derivative_of_square(x):
    return 2 * x


print(derivative_of_square(3.0))
# > 6.0
assert derivative_of_square(3.0) == w.grad.item()
# One point could agree by chance (x + 3 is also 6 at 3): compare with autograd at
# several.
points = torch.tensor([-1.5, 0.0, 0.25, 3.0], requires_grad=True)
(points**2).sum().backward()
assert [derivative_of_square(x) for x in points.tolist()] == points.grad.tolist()
# --8<-- [end:no_framework]

# --8<-- [start:quality_check]
import math
from fractions import Fraction

# Speed counts only when the result passes the task's
# quality check, fixed before measuring and the same for
# every dtype: here, 1/3 to a relative error of 1e-3.
third, tolerance = Fraction(1, 3), Fraction(1, 1000)
# Decimal digits a dtype keeps: -log10 of its unit roundoff, eps / 2.
digits = {
    dtype: -math.log10(torch.finfo(dtype).eps / 2)
    for dtype in (torch.float16, torch.bfloat16)
}
# By hand: 1/3 is 0.010101...₂. Rounded to float16's 11 significant bits it is
# 1365/4096, off by 2⁻¹² relative; to bfloat16's 8 bits, 171/512, off by 2⁻⁹.
by_hand = {torch.float16: Fraction(1, 2**12), torch.bfloat16: Fraction(1, 2**9)}
for dtype, expected in by_hand.items():
    # Exactly what the dtype holds.
    stored = Fraction(torch.tensor(1 / 3, dtype=dtype).item())
    error = abs(stored - third) / third
    assert error == expected
    print(
        f"{dtype}: relative error {float(error):.2e}, "
        f"quality_pass = {error <= tolerance}"
    )
# > torch.float16: relative error 2.44e-04, quality_pass = True
# > torch.bfloat16: relative error 1.95e-03, quality_pass = False
# --8<-- [end:quality_check]
