# --8<-- [start:promotion]
import torch

ints = torch.tensor([1, 2])
floats = torch.tensor([0.5, 0.25])

# Mixed arithmetic promotes to a type that holds both operands.
print(torch.result_type(ints, floats))
#> torch.float32
print(ints + floats)
#> tensor([1.5000, 2.2500])
assert (ints + floats).tolist() == [1.5, 2.25]

# An in-place operation keeps the dtype of its left side, so it cannot promote.
try:
    ints.add_(floats)
except RuntimeError as error:
    print(error)
#> result type Float can't be cast to the desired output type Long
# --8<-- [end:promotion]

# --8<-- [start:mismatch]
row = torch.tensor([[1, 2]])          # int64
column = torch.tensor([[1.0], [2.0]])  # float32

# Matrix multiplication does not promote: both sides must share a dtype.
try:
    row @ column
except RuntimeError as error:
    print(error)
#> expected m1 and m2 to have the same dtype, but got: long int != float

# Convert explicitly, and the answer is the hand-computed 1·1 + 2·2 = 5.
product = row.to(column.dtype) @ column
print(product)
#> tensor([[5.]])
assert product.item() == 5.0
# --8<-- [end:mismatch]
