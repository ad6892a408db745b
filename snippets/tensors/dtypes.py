# --8<-- [start:promotion]
import struct
import textwrap

import torch

ints = torch.tensor([1, 2])
floats = torch.tensor([0.5, 0.25])

# Mixed arithmetic promotes: an integer tensor plus a floating tensor is floating.
print(torch.result_type(ints, floats))
# > torch.float32
print(ints + floats)
# > tensor([1.5000, 2.2500])
assert (ints + floats).tolist() == [1.5, 2.25]

# The category (bool < integer < floating < complex) decides
# first; size only matters within one category. int64 with
# float32 gives float32, which cannot hold every int64: float32
# has a 24-bit significand, so 2**24 + 1 is rounded to 2**24.
big = torch.tensor([2**24 + 1])  # int64 holds it exactly
summed = big + torch.tensor([0.0])
print(summed.dtype, summed.item())
# > torch.float32 16777216.0
float32_of_big = struct.unpack("f", struct.pack("f", 2**24 + 1))[
    0
]  # rounding done by struct
assert summed.item() == float32_of_big == 2**24

# Within one category the wider type usually wins...
assert torch.result_type(torch.tensor([1], dtype=torch.int32), big) == torch.int64
assert torch.result_type(floats.half(), floats) == torch.float32
# ...but not when neither type holds the
# other: then a third, wider type is chosen.
print(
    torch.result_type(
        torch.tensor([1], dtype=torch.uint8), torch.tensor([1], dtype=torch.int8)
    )
)
# > torch.int16
print(torch.result_type(floats.bfloat16(), floats.half()))
# > torch.float32
# And uint16, uint32 and uint64 refuse to promote with another integer or bool operand
# of the same priority (here two tensors with dimensions)...
unsigned32 = torch.tensor([1], dtype=torch.uint32)
try:
    torch.result_type(unsigned32, big)
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > Promotion for uint16, uint32, uint64 types is not supported, attempted to
# > promote UInt32 and Long
# ...but a 0-dim int64 tensor or a Python int
# beside them ranks lower and leaves uint32
# (the priority rule of the next section).
print(torch.result_type(unsigned32, torch.tensor(5)), torch.result_type(unsigned32, 5))
# > torch.uint32 torch.uint32
# --8<-- [end:promotion]

# --8<-- [start:priority]
import torch

vector32 = torch.tensor([1.0, 2.0])  # float32, 1 dimension
scalar64 = torch.tensor(0.5, dtype=torch.float64)  # float64, 0 dimensions
ints32 = torch.tensor([1, 2], dtype=torch.int32)

# Within one category, tensors with dimensions outrank
# 0-dim tensors, which outrank Python numbers: a 0-dim
# float64 tensor does not promote a float32 vector.

# Each case with the dtype the rule gives, worked out by hand: the
# highest category present decides, sized by the highest-priority
# operands of that category (a Python float: the default, float32).
f32, f64, i32, i64 = torch.float32, torch.float64, torch.int32, torch.int64
cases = {
    "float32 vector + float64 0-dim": (vector32, scalar64, f32),
    "float32 vector + float64 vector": (vector32, scalar64.reshape(1), f64),
    "int32 vector + int64 0-dim": (ints32, torch.tensor(5), i32),
    "int32 0-dim + int64 0-dim": (ints32[0], torch.tensor(5), i64),
    "int32 vector + float64 0-dim": (ints32, scalar64, f64),
    "int32 vector + Python int": (ints32, 5, i32),
    "int32 vector + Python float": (ints32, 2.5, f32),
    "int64 vector + Python float": (ints32.long(), 2.5, f32),
    "float16 vector + Python float": (vector32.half(), 2.5, torch.float16),
    # The exception: complex beside a floating
    # tensor keeps that tensor's precision.
    "float32 vector + complex128 0-dim": (
        vector32,
        torch.tensor(1j, dtype=torch.complex128),
        torch.complex64,
    ),
    "float64 vector + Python complex": (vector32.double(), 1j, torch.complex128),
}
for name, (left, right, by_hand) in cases.items():
    produced = (left + right).dtype
    assert produced == by_hand == torch.result_type(left, right), name
    print(f"{name:33} -> {produced}")
# > float32 vector + float64 0-dim    -> torch.float32
# > float32 vector + float64 vector   -> torch.float64
# > int32 vector + int64 0-dim        -> torch.int32
# > int32 0-dim + int64 0-dim         -> torch.int64
# > int32 vector + float64 0-dim      -> torch.float64
# > int32 vector + Python int         -> torch.int32
# > int32 vector + Python float       -> torch.float32
# > int64 vector + Python float       -> torch.float32
# > float16 vector + Python float     -> torch.float16
# > float32 vector + complex128 0-dim -> torch.complex64
# > float64 vector + Python complex   -> torch.complex128
# --8<-- [end:priority]

# --8<-- [start:beyond_result_type]
import torch

a = torch.tensor([1, 2])
b = torch.tensor([2, 2])

# result_type gives the promoted type of the
# operands, not what every operator returns.
print(torch.result_type(a, b))
# > torch.int64
# True division of integers returns floats: 1/2 and 2/2, not 0 and 1.
print(a / b)
# > tensor([0.5000, 1.0000])
assert (a / b).tolist() == [1 / 2, 2 / 2]
assert (a / b).dtype == torch.get_default_dtype()
# Floor division and comparisons: int64 and bool.
print((a // b).dtype, (a < b).dtype)
# > torch.int64 torch.bool
# --8<-- [end:beyond_result_type]

# --8<-- [start:in_place]
import torch

# In place, PyTorch computes in the promoted type, then
# casts back into the left operand whenever torch.can_cast
# allows it, which it does within a category.
print(
    torch.can_cast(torch.int64, torch.int32),
    torch.can_cast(torch.float64, torch.float16),
)
# > True True
print(torch.can_cast(torch.float32, torch.int64))
# > False

# int32 += int64: the sum 1 + 10**10 does not fit in int32 and wraps around, silently.
counts = torch.tensor([1], dtype=torch.int32)
counts.add_(torch.tensor([10**10]))
print(counts)
# > tensor([1410065409], dtype=torch.int32)
# By hand: reduce modulo 2**32, then read the 32 bits as a signed number.
wrapped = (1 + 10**10 + 2**31) % 2**32 - 2**31
assert counts.item() == wrapped
# can_cast said True for int64 -> int32, yet this value does
# not fit: can_cast only says whether the update will raise.
# Whether a value fits is a comparison with iinfo/finfo.
assert 1 + 10**10 > torch.iinfo(torch.int32).max

# float16 += float64: 1e-4 is below half the float16 spacing at 1 (2**-10), so it
# is lost.
half = torch.tensor([1.0], dtype=torch.float16)
tiny = torch.tensor([1e-4], dtype=torch.float64)
print(half + tiny)  # out of place: promoted to float64, 1e-4 kept
# > tensor([1.0001], dtype=torch.float64)
assert (half + tiny).item() == 1.0 + 1e-4
half.add_(tiny)
print(half)
# > tensor([1.], dtype=torch.float16)
assert torch.finfo(torch.float16).eps == 2**-10 and 1e-4 < 2**-10 / 2
assert half.item() == 1.0

# The sum is computed in the promoted type first, then cast: casting
# the right operand first would give other answers. 1 + 2**-11 +
# 2**-22 is just above the midpoint between 1 and 1 + 2**-10, so it
# rounds up; 2**-11 alone in float16 would tie and round to 1.
half = torch.tensor([1.0], dtype=torch.float16)
just_above = torch.tensor([2**-11 + 2**-22], dtype=torch.float64)
half.add_(just_above)
assert half.item() == 1 + 2**-10
# 7 // (2**32 + 2) is 0; the divisor cast first to int32 would wrap to 2, giving 3.
sevens = torch.tensor([7], dtype=torch.int32)
divisor = torch.tensor([2**32 + 2])
sevens.floor_divide_(divisor)
assert sevens.item() == 7 // (2**32 + 2) == 0

# Only a cast to a lower category is refused, and then nothing is written:
# float into int, int into bool, complex into float.
for target, other in [
    (torch.tensor([1, 2]), torch.tensor([0.5, 0.25])),
    (torch.tensor([True, False]), torch.tensor([2, 3])),
    (torch.tensor([1.0, 2.0]), torch.tensor([1j, 1j])),
]:
    before = target.clone()
    try:
        target.add_(other)
    except RuntimeError as error:
        print(error)
    else:
        raise AssertionError(f"{other.dtype} into {target.dtype} was accepted")
    assert torch.equal(target, before)  # nothing was written
# > result type Float can't be cast to the desired output type Long
# > result type Long can't be cast to the desired output type Bool
# > result type ComplexFloat can't be cast to the desired output type Float
# --8<-- [end:in_place]

# --8<-- [start:assignment]
import math
import warnings

import torch

# Assignment converts a float into int64 without that check: 1.7 is stored as 1.
t = torch.tensor([0, 0, 0])
t[0] = 1.7
t[torch.tensor([False, True, False])] = 1.7
print(t)
# > tensor([1, 1, 0])

# copy_, fill_ and masked_fill_ truncate just as silently.
floats = torch.tensor([1.7, -3.7, 2.5])
mask = torch.tensor([True, False, True])
copied = torch.zeros(3, dtype=torch.int64).copy_(floats)
filled = torch.zeros(3, dtype=torch.int64).fill_(-3.7)
masked = torch.zeros(3, dtype=torch.int64).masked_fill_(mask, -3.7)
print(copied, filled, masked)
# > tensor([ 1, -3,  2]) tensor([-3, -3, -3]) tensor([-3,  0, -3])
# By hand: math.trunc drops the fraction, toward zero (math.floor(-3.7) is -4).
assert t.tolist() == [math.trunc(1.7), math.trunc(1.7), 0]
assert copied.tolist() == [math.trunc(v) for v in (1.7, -3.7, 2.5)]
assert filled.tolist() == [math.trunc(-3.7)] * 3 and masked.tolist() == [-3, 0, -3]

# In-place arithmetic with the same floats refuses, and writes nothing.
target = torch.zeros(3, dtype=torch.int64)
try:
    target.add_(floats)
except RuntimeError as error:
    print(error)
# > result type Float can't be cast to the desired output type Long
assert target.tolist() == [0, 0, 0]

# copy_ of a complex into a float keeps the real part, with only a warning (given
# once per process, unless torch.set_warn_always(True) as here)...
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    real = torch.zeros(1).copy_(torch.tensor([2.0 + 5.0j]))
torch.set_warn_always(False)
print(real, caught[0].category.__name__)
# > tensor([2.]) UserWarning
# ...while index_add_ refuses any other dtype, even int32 into int64.
try:
    target.index_add_(0, torch.tensor([0]), torch.tensor([1], dtype=torch.int32))
except RuntimeError as error:
    print(error)
# > index_add_(): self (Long) and source (Int) must have the same scalar type
# --8<-- [end:assignment]

# --8<-- [start:mismatch]
import textwrap

import torch

# matmul (@) does not promote: not across categories, not even float32 with float64,
# although result_type would promote that pair to float64.
assert (
    torch.result_type(torch.ones(1), torch.ones(1, dtype=torch.float64))
    == torch.float64
)
pairs = [
    (torch.int64, torch.float32),
    (torch.float32, torch.float64),
    (torch.float16, torch.float32),
]
for left, right in pairs:
    try:
        torch.ones(2, 2, dtype=left) @ torch.ones(2, 2, dtype=right)
    except RuntimeError as error:
        message = str(error)
    else:
        raise AssertionError(f"{left} @ {right} was accepted")
    # The message goes on with C++ type names, spelled differently on each platform, so
    # only its start is shown and checked.
    start = "expected m1 and m2 to have the same dtype"
    assert message.startswith(start), message
    print(f"{left} @ {right}: {start}")
# > torch.int64 @ torch.float32: expected m1 and m2 to have the same dtype
# > torch.float32 @ torch.float64: expected m1 and m2 to have the same dtype
# > torch.float16 @ torch.float32: expected m1 and m2 to have the same dtype

# Other shapes reach other kernels, with other wording (these use ATen's names,
# Float and Double).
for shape_left, shape_right in [((2,), (2,)), ((2, 2), (2,)), ((3, 2, 2), (3, 2, 2))]:
    try:
        torch.ones(shape_left) @ torch.ones(shape_right, dtype=torch.float64)
    except RuntimeError as error:
        print(textwrap.fill(str(error), 70))
    else:
        raise AssertionError(f"{shape_left} @ {shape_right} was accepted")
# > dot : expected both vectors to have same dtype, but found Float and
# > Double
# >[torch>=2.12] addmv input tensors must have the same dtype, but got Double, Float,
# >[torch>=2.12] and Double
# >[torch<2.12] expected scalar type Float but found Double
# > expected scalar type Float but found Double

# Under autocast, PyTorch casts eligible inputs for you: float32 @ bfloat16 runs in
# bfloat16.
with torch.autocast("cpu", dtype=torch.bfloat16):
    mixed = torch.ones(2, 2) @ torch.full((2, 2), 3.0, dtype=torch.bfloat16)
print(mixed.dtype)
# > torch.bfloat16
torch.testing.assert_close(
    mixed, torch.full((2, 2), 1 * 3 + 1 * 3, dtype=torch.bfloat16)
)

row = torch.tensor([[1, 2]])  # int64
column = torch.tensor([[1.0], [2.0]])  # float32

# Convert explicitly, and the answer is the hand-computed 1·1 + 2·2 = 5.
product = row.to(column.dtype) @ column
print(product)
# > tensor([[5.]])
assert product.item() == 5.0
# --8<-- [end:mismatch]
