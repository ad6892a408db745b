"""Autocast versus converting everything to bfloat16, on the CPU.

On its own: python snippets/measuring/autocast.py
"""

# --8<-- [start:autocast]
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

# Autocast only casts the operands of each listed operator, on the way in.
exact = dict(rtol=0, atol=0)
torch.testing.assert_close(hidden, features.bfloat16() @ weight.bfloat16(), **exact)
torch.testing.assert_close(loss, F.mse_loss(activated.float(), target), **exact)

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
