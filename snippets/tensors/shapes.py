# --8<-- [start:view_reshape]
import itertools
import textwrap

import torch

grid = torch.arange(6).reshape(2, 3)
print(grid)
# > tensor([[0, 1, 2],
# >         [3, 4, 5]])

# view reinterprets the same memory: writing through it changes grid.
flat = grid.view(6)
flat[0] = 10
assert grid[0, 0].item() == 10
grid[0, 0] = 0

# The transpose is a view of the same memory: view cannot flatten it.
turned = grid.T
try:
    turned.view(6)
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > view size is not compatible with input tensor's size and stride (at least one
# > dimension spans across two contiguous subspaces). Use .reshape(...) instead.
# Why: its strides are grid's swapped, so read row by row its elements sit at
# offsets 0, 3, 1, 4, 2, 5; a flat view has one stride, offsets 0, s, 2s, ...
print(turned.stride())
# > (1, 3)
offsets = [i * 1 + j * 3 for i in range(3) for j in range(2)]
assert offsets == [0, 3, 1, 4, 2, 5] and not turned.is_contiguous()

# Not contiguous does not mean no view: here the last dimension, untouched by the
# transpose, splits into 2 × 2.
blocks = torch.arange(24).reshape(2, 3, 4).transpose(0, 1)
split = blocks.view(3, 2, 2, 2)
print(blocks.is_contiguous(), blocks.stride(), split.stride())
# > False (4, 12, 1) (4, 12, 2, 1)
# By hand: (2, 3, 4) has strides (3·4, 4, 1); the transpose swaps the first two;
# splitting 4 elements of stride 1 into 2 × 2 gives strides 2·1 and 1.
assert blocks.stride() == (4, 3 * 4, 1) and split.stride() == (4, 12, 2 * 1, 1)
# arange's values are their own memory offsets, so each element checks the strides.
for i, j, k, m in itertools.product(range(3), range(2), range(2), range(2)):
    assert split[i, j, k, m].item() == 4 * i + 12 * j + 2 * k + m
assert split.data_ptr() == blocks.data_ptr()  # a view: no copy

# reshape returns a view when the strides allow it: same memory as grid.
assert grid.reshape(3, 2).data_ptr() == grid.data_ptr()

# reshape copies when it must. By hand: the rows of the transpose are
# (0, 3), (1, 4), (2, 5), read one after another.
copy = turned.reshape(6)
print(copy)
# > tensor([0, 3, 1, 4, 2, 5])
copy[0] = 99
assert grid[0, 0].item() == 0  # a copy: grid did not change
# --8<-- [end:view_reshape]

# --8<-- [start:broadcasting]
column = torch.tensor([[0], [10], [20]])  # shape (3, 1)
row = torch.tensor([1, 2, 3])  # shape (3,), treated as (1, 3)

# Size-1 dimensions stretch to match: every
# row value is added to every column value.
table = column + row
print(table.shape)
# > torch.Size([3, 3])
print(table)
# > tensor([[ 1,  2,  3],
# >         [11, 12, 13],
# >         [21, 22, 23]])
by_hand = torch.tensor([[1, 2, 3], [11, 12, 13], [21, 22, 23]])
assert torch.equal(table, by_hand)
# The stretch is a stride of 0 over the inputs' own memory, not a copy.
wide_column, wide_row = torch.broadcast_tensors(column, row)
print(wide_column.stride(), wide_row.stride())
# > (1, 0) (0, 1)
assert (
    wide_column.data_ptr() == column.data_ptr()
    and wide_row.data_ptr() == row.data_ptr()
)

# Trailing sizes that differ and are not 1 cannot broadcast.
try:
    torch.ones(2) + torch.ones(3)
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > The size of tensor a (2) must match the size of tensor b (3) at non-singleton
# > dimension 0
# --8<-- [end:broadcasting]
