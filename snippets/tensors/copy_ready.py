"""Inspect shape, dtype and device before combining tensors; check answers by hand."""

import numpy as np
import torch

prices = np.array([2.0, 3.0, 5.0])  # NumPy: float64
counts = torch.tensor([[1, 0, 2], [0, 4, 1]])  # two baskets, int64

# Copy the prices (torch.tensor never shares), and choose the dtype on purpose.
price_tensor = torch.tensor(prices, dtype=torch.float32)
prices[:] = 0.0  # later changes to the array cannot reach the copy

for name, t in [("counts", counts), ("prices", price_tensor)]:
    print(name, tuple(t.shape), t.dtype, t.device)
# > counts (2, 3) torch.int64 cpu
# > prices (3,) torch.float32 cpu

# matmul needs one dtype: convert
# counts explicitly rather than hoping.
totals = counts.to(price_tensor.dtype) @ price_tensor
print(totals)
# > tensor([12., 17.])

# By hand: 1·2 + 0·3 + 2·5 = 12 and 0·2 + 4·3 + 1·5 = 17.
assert totals.tolist() == [12.0, 17.0]
