# --8<-- [start:tensors]
import torch
from torch.testing import assert_close

# A tensor carries a shape, a dtype and a device besides its values.
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(t.shape, t.dtype, t.device)
#> torch.Size([2, 2]) torch.float32 cpu
# 1 + 2 + 3 + 4 = 10, computed by hand.
assert_close(t.sum(), torch.tensor(10.0))
# --8<-- [end:tensors]

# --8<-- [start:not_a_step]
# A gradient says which way to move; it does not move anything.
w = torch.tensor(3.0, requires_grad=True)
(w * w).backward()
print(w.grad, w.detach())
#> tensor(6.) tensor(3.)
assert_close(w.grad, 2 * w.detach())  # d(w²)/dw = 2w
assert w.item() == 3.0  # still where it was: updating w is an optimizer's job
# --8<-- [end:not_a_step]

# --8<-- [start:no_framework]
# The same derivative without any framework: the power rule, d(x²)/dx = 2x.
def derivative_of_square(x):
    return 2 * x


print(derivative_of_square(3.0))
#> 6.0
assert derivative_of_square(3.0) == w.grad.item()
# --8<-- [end:no_framework]

# --8<-- [start:quality_check]
# Speed counts only when the result passes its quality check: 1/3 in float16
# against a float64 reference, with a tolerance fixed before measuring.
reference = torch.tensor(1 / 3, dtype=torch.float64)
half = torch.tensor(1 / 3, dtype=torch.float16)
tolerance = 1e-6
quality_pass = torch.allclose(half.double(), reference, rtol=0, atol=tolerance)
print(f"error {abs(half.double() - reference).item():.2e}, quality_pass = {quality_pass}")
#> error 8.14e-05, quality_pass = False
# float16 keeps 11 significant bits: between 1/4 and 1/2 its values are 2⁻¹²
# apart, so rounding costs up to 2⁻¹³, far above the tolerance.
assert tolerance < abs(half.double() - reference).item() <= 2**-13
# --8<-- [end:quality_check]
