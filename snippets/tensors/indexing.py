# --8<-- [start:slicing]
import torch

# Element (i, j) holds 4·i + j, so every
# selection below can be checked by hand.
grid = torch.arange(12).reshape(3, 4)
print(grid)
# > tensor([[ 0,  1,  2,  3],
# >         [ 4,  5,  6,  7],
# >         [ 8,  9, 10, 11]])

# One integer per dimension gives a 0-dimensional tensor, not a Python number.
print(grid[1, 2], grid[1, 2].shape)
# > tensor(6) torch.Size([])
assert grid[1, 2].item() == 4 * 1 + 2

# ":" keeps a whole dimension; start:stop:step
# works as in Python lists; -1 is the last.
print(grid[:, 1])
# > tensor([1, 5, 9])
assert grid[:, 1].tolist() == [4 * i + 1 for i in range(3)]
print(grid[1:, ::2])
# > tensor([[ 4,  6],
# >         [ 8, 10]])
assert grid[-1].tolist() == [8, 9, 10, 11]

# Integers and slices return views: writing through the row changes grid.
row = grid[1]
row[0] = 100
assert grid[1, 0].item() == 100
# --8<-- [end:slicing]

# --8<-- [start:masks]
import torch

values = torch.tensor([3.0, -1.0, 0.5, -2.0, 5.0])
mask = values > 0  # a comparison gives a bool tensor of the same shape
print(mask)
# > tensor([ True, False,  True, False,  True])

# A mask of the tensor's own shape gathers the selected elements into a new 1-d
# tensor: a copy.
positive = values[mask]
print(positive)
# > tensor([3.0000, 0.5000, 5.0000])
positive[0] = 0.0
assert positive[0].item() == 0.0 and values[0].item() == 3.0  # values did not change

# Assigning through a mask writes into the original tensor.
values[~mask] = 0.0
print(values)
# > tensor([3.0000, 0.0000, 0.5000, 0.0000, 5.0000])
assert values.sum().item() == 3 + 0.5 + 5

# A full-shape mask on a 2-d tensor also
# gives a 1-d result, in row-major order.
table = torch.arange(6).reshape(2, 3)
print(table[table % 2 == 0])
# > tensor([0, 2, 4])

# A list or a 1-d tensor of indices (advanced
# indexing) copies too, unlike a slice.
picked = table[[0, 1], [2, 0]]  # elements (0, 2) and (1, 0)
picked[0] = -1
assert picked.tolist() == [-1, 3] and table[0, 2].item() == 2
rows = table[torch.tensor([1])]  # row 1, as a (1, 3) copy
rows[0, 0] = -1
assert rows.tolist() == [[-1, 4, 5]] and table[1, 0].item() == 3
# A 0-dim integer tensor is the exception: it indexes like a plain integer, giving
# a view.
one_row = table[torch.tensor(1)]
one_row[0] = 30
assert table[1].tolist() == [30, 4, 5]
# --8<-- [end:masks]
