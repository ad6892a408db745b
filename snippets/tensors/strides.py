# --8<-- [start:strides]
import torch

# A tensor is a block of memory plus, for each dimension, a stride: how many elements to
# skip to move one step along that dimension.
grid = torch.arange(6).reshape(2, 3)
print(grid.stride())
# > (3, 1)

# Row-major layout by hand: for shape (a, b, c) the strides are (b·c, c, 1).
cube = torch.arange(24).reshape(2, 3, 4)
assert cube.stride() == (3 * 4, 4, 1)
# So element (i, j, k) sits at offset 12·i + 4·j + k; arange stored each offset as
# its value.
assert cube[1, 2, 3].item() == 12 * 1 + 4 * 2 + 3

# Transposing swaps the strides and moves
# no data: same memory, walked differently.
turned = grid.transpose(0, 1)
print(turned.stride(), turned.data_ptr() == grid.data_ptr())
# > (1, 3) True
# A step in a slice multiplies the stride:
# every second column is 2 elements apart.
every_other = grid[:, ::2]
print(every_other.stride())
# > (3, 2)
# A stride of 0 repeats the same elements: expand (and broadcasting) stretch
# without copying.
repeated = torch.tensor([1, 2, 3]).expand(2, 3)
print(repeated.stride())
# > (0, 1)
assert repeated.tolist() == [[1, 2, 3], [1, 2, 3]]
# --8<-- [end:strides]

# --8<-- [start:squeeze_permute]
import torch

grid = torch.arange(6).reshape(2, 3)

# unsqueeze inserts a dimension of size
# 1; squeeze removes size-1 dimensions.
batch = grid.unsqueeze(0)
print(batch.shape)
# > torch.Size([1, 2, 3])
assert batch.squeeze(0).shape == grid.shape
# squeeze(dim) on a dimension whose size is not 1 does nothing, silently.
assert grid.squeeze(0).shape == (2, 3)
# squeeze() without a dim removes every size-1 dimension.
assert torch.zeros(1, 3, 1).squeeze().shape == (3,)

# permute reorders dimensions: new dimension
# d is old dimension order[d], strides too.
cube = torch.arange(24).reshape(2, 3, 4)  # strides (12, 4, 1)
moved = cube.permute(2, 0, 1)
print(moved.shape, moved.stride())
# > torch.Size([4, 2, 3]) (1, 12, 4)
# moved[k, i, j] is cube[i, j, k].
assert moved[3, 1, 2].item() == cube[1, 2, 3].item() == 23

# All of these are views of the same memory. A permuted tensor is not contiguous;
# contiguous() copies it into fresh row-major memory.
print(moved.data_ptr() == cube.data_ptr(), moved.is_contiguous())
# > True False
packed = moved.contiguous()
print(packed.stride(), packed.data_ptr() == cube.data_ptr())
# > (6, 3, 1) False
assert torch.equal(packed, moved)
# --8<-- [end:squeeze_permute]
