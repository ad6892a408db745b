# --8<-- [start:products]
import torch

a = torch.tensor([[1, 2], [3, 4]])
b = torch.tensor([[5, 6], [7, 8]])

# * multiplies element by element (with
# broadcasting); shapes must match or broadcast.
print(a * b)
# > tensor([[ 5, 12],
# >         [21, 32]])
assert (a * b).tolist() == [[1 * 5, 2 * 6], [3 * 7, 4 * 8]]

# @ is the matrix product: entry (i, j)
# is row i of a times column j of b.
print(a @ b)
# > tensor([[19, 22],
# >         [43, 50]])
by_hand = [[1 * 5 + 2 * 7, 1 * 6 + 2 * 8], [3 * 5 + 4 * 7, 3 * 6 + 4 * 8]]
assert (a @ b).tolist() == by_hand
assert torch.equal(a @ b, torch.matmul(a, b))

# For two 1-d tensors, @ is the dot
# product and returns a 0-dim tensor.
v = torch.tensor([1, 2, 3])
print(v @ v)
# > tensor(14)
assert (v @ v).item() == 1 + 4 + 9
# --8<-- [end:products]

# --8<-- [start:cat_stack]
import textwrap

import torch

x = torch.tensor([[1, 2], [3, 4]])
y = torch.tensor([[5, 6], [7, 8]])

# torch.cat joins along an existing dimension: 2 + 2 rows make 4 rows.
print(torch.cat([x, y], dim=0).shape, torch.cat([x, y], dim=1).shape)
# > torch.Size([4, 2]) torch.Size([2, 4])
assert torch.cat([x, y]).tolist() == x.tolist() + y.tolist()  # dim=0 is the default

# stack adds a new dimension: two (2, 2) tensors become one (2, 2, 2) tensor.
stacked = torch.stack([x, y])
print(stacked.shape)
# > torch.Size([2, 2, 2])
assert torch.equal(stacked[0], x) and torch.equal(stacked[1], y)

# stack needs equal shapes; cat only needs the other dimensions to agree.
try:
    torch.stack([x, torch.tensor([[9, 9]])])
except RuntimeError as error:
    print(textwrap.fill(str(error), 80))
# > stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [1, 2]
# > at entry 1
print(torch.cat([x, torch.tensor([[9, 9]])]))
# > tensor([[1, 2],
# >         [3, 4],
# >         [9, 9]])
# --8<-- [end:cat_stack]
