# --8<-- [start:attributes]
import torch

# Small enough to check by hand: two
# rows, three columns, whole numbers.
t = torch.tensor([[1, 2, 3], [4, 5, 6]])

print(t.shape)
# > torch.Size([2, 3])
print(t.dtype)
# > torch.int64
print(t.device)
# > cpu

# 1 + 2 + ... + 6 = 21, and each column sums to 1 + 4, 2 + 5, 3 + 6.
assert t.sum().item() == 21
assert t.sum(dim=0).tolist() == [5, 7, 9]
# --8<-- [end:attributes]

# --8<-- [start:default_float]
# Python floats become the default floating dtype, not float64 as in NumPy.
f = torch.tensor([0.5, 2.0])
print(f, f.dtype)
# > tensor([0.5000, 2.0000]) torch.float32
assert f.dtype == torch.get_default_dtype()
assert f.tolist() == [1 / 2, 2.0]  # halves and small whole numbers are exact in float32
# --8<-- [end:default_float]
