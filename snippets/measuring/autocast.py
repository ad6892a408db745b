"""Autocast versus converting everything to bfloat16, on the CPU.

On its own: python snippets/measuring/autocast.py
"""

# --8<-- [start:autocast]
import itertools
import math

import torch
import torch.nn.functional as F

generator = torch.Generator().manual_seed(0)
# A float32 parameter.
weight = torch.randn(4, 8, generator=generator, requires_grad=True)
features = torch.randn(2, 4, generator=generator)
target = torch.randn(2, 8, generator=generator)

with torch.autocast("cpu", dtype=torch.bfloat16):
    hidden = features @ weight  # matmul: on the CPU's list of bfloat16 operators
    activated = torch.tanh(hidden)  # on no list: runs in its input's dtype
    # On CUDA's float32 list, on no list of the CPU's.
    shares = torch.softmax(hidden, dim=-1)
    loss = F.mse_loss(activated, target)  # on the CPU's list of float32 operators
print(hidden.dtype, activated.dtype, shares.dtype, loss.dtype)
# > torch.bfloat16 torch.bfloat16 torch.bfloat16 torch.float32


# Autocast only casts the operands of each listed operator, on the way in. Checked apart
# from torch's kernels: the products of the bfloat16 operands are exact in a Python
# float, their float32 sum lies within 4·2⁻²⁴·Σ|products| of the exact sum, and
# the result is that sum rounded to the nearest bfloat16, 8 significant bits.
def to_bfloat16(value):  # to nearest, ties to even (as Python's round), by hand
    mantissa, exponent = math.frexp(value)
    return math.ldexp(round(math.ldexp(mantissa, 8)), exponent - 8)


rows, columns = features.bfloat16().tolist(), weight.bfloat16().T.tolist()
for i, j in itertools.product(range(2), range(8)):
    products = [a * b for a, b in zip(rows[i], columns[j], strict=True)]
    exact, summed = math.fsum(products), 4 * 2**-24 * math.fsum(map(abs, products))
    low, high = to_bfloat16(exact - summed), to_bfloat16(exact + summed)
    assert low <= hidden[i, j].item() <= high
# The loss in float32 from the bfloat16 activations: per term one rounding in the
# difference and one in the square (3·2⁻²⁴ relative), 15 in the sum of 16 terms,
# none in the division by 16.
pairs = zip(activated.flatten().tolist(), target.flatten().tolist(), strict=True)
expected = math.fsum((a - t) ** 2 for a, t in pairs) / 16
assert abs(loss.item() - expected) <= (3 + 15) * 2**-24 * expected

loss.backward()
print(weight.dtype, weight.grad.dtype)  # the parameter, and its gradient, stay float32
# > torch.float32 torch.float32
# --8<-- [end:autocast]

# --8<-- [start:pure]
# Converting the parameter instead: every operand must be converted by hand...
weight_bf16 = weight.detach().to(torch.bfloat16).requires_grad_()
try:
    features @ weight_bf16
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("float32 @ bfloat16 was accepted outside autocast")
# The message goes on to name both types in C++, as each compiler spells them
# (GCC and Clang: 'c10::BFloat16', MSVC: 'struct c10::BFloat16'), so only the
# part before them is shown.
assert "float" in message and "BFloat16" in message, message
print(message.partition(", but got")[0])
# > expected m1 and m2 to have the same dtype

loss_bf16 = F.mse_loss(torch.tanh(features.bfloat16() @ weight_bf16), target.bfloat16())
loss_bf16.backward()
# ...and the loss, the gradient, all bfloat16.
print(loss_bf16.dtype, weight_bf16.grad.dtype)
# > torch.bfloat16 torch.bfloat16

# ...and an update smaller than half of bfloat16's spacing just below 1.0 (2**-9)
# is lost.
step = 1e-3
# eps = 2**-7 is the spacing just above 1.0.
assert step < torch.finfo(torch.bfloat16).eps / 4
print(torch.ones(1) - step, torch.ones(1, dtype=torch.bfloat16) - step)
# > tensor([0.9990]) tensor([1.], dtype=torch.bfloat16)
# --8<-- [end:pure]
