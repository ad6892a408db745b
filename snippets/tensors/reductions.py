# --8<-- [start:dim_keepdim]
import textwrap

import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # shape (2, 3)

# dim names the dimension that disappears: dim=0 sums down the columns, dim=1
# along rows.
print(m.sum(dim=0), m.sum(dim=1))
# > tensor([5., 7., 9.]) tensor([ 6., 15.])
assert m.sum(dim=0).tolist() == [1 + 4, 2 + 5, 3 + 6]
assert m.sum(dim=1).tolist() == [1 + 2 + 3, 4 + 5 + 6]

# keepdim=True keeps that dimension with
# size 1, so the result broadcasts back.
totals = m.sum(dim=1, keepdim=True)
print(totals.shape)
# > torch.Size([2, 1])
shares = m / totals  # each row divided by its own total
# Each row's shares add up to 1.
torch.testing.assert_close(shares.sum(dim=1), torch.ones(2))
torch.testing.assert_close(shares[0], torch.tensor([1 / 6, 2 / 6, 3 / 6]))

# Without keepdim the (2,) totals line up with the last dimension (3) and fail to
# broadcast.
try:
    m / m.sum(dim=1)
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > The size of tensor a (3) must match the size of tensor b (2) at non-singleton
# > dimension 1

# max along a dimension returns the values and where they are.
best = m.max(dim=1)
print(best.values, best.indices)
# > tensor([3., 6.]) tensor([2, 2])
# Each row increases, so its maximum is its last element, at index 2.
assert best.values.tolist() == [3.0, 6.0] and best.indices.tolist() == [2, 2]
# --8<-- [end:dim_keepdim]

# --8<-- [start:to_python]
import struct

import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

# .item() turns a one-element tensor into a Python number; .tolist() turns any tensor
# into nested Python lists.
total = m.sum().item()
print(total, type(total).__name__)
# > 21.0 float
print(m.tolist())
# > [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]

# .item() needs exactly one element.
try:
    m.item()
except RuntimeError as error:
    print(error)
# > a Tensor with 6 elements cannot be converted to Scalar

# The Python float is the float32 value exactly, not the decimal you typed: 0.1 is
# rounded to the nearest float32 (struct packs it to 4 bytes and back,
# independently of torch).
tenth = torch.tensor(0.1).item()
print(tenth)
# > 0.10000000149011612
assert tenth == struct.unpack("f", struct.pack("f", 0.1))[0]
assert tenth != 0.1
# --8<-- [end:to_python]
