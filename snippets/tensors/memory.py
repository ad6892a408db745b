# --8<-- [start:copy_or_share]
import numpy as np
import torch

source = np.array([1.0, 2.0, 3.0])

copied = torch.tensor(source)      # always a copy
shared = torch.from_numpy(source)  # always shares the NumPy buffer
as_tensor = torch.as_tensor(source)  # shares here: same dtype, CPU

source[0] = 100.0  # mutate the NumPy array after the three conversions

print(copied)
#> tensor([1., 2., 3.], dtype=torch.float64)
print(shared)
#> tensor([100.,   2.,   3.], dtype=torch.float64)
print(as_tensor)
#> tensor([100.,   2.,   3.], dtype=torch.float64)
assert copied[0].item() == 1.0
assert shared[0].item() == as_tensor[0].item() == 100.0

# Sharing works both ways: writing through the tensor changes the array.
shared[1] = -2.0
print(source)
#> [100.  -2.   3.]
# --8<-- [end:copy_or_share]

# --8<-- [start:as_tensor_copies]
# as_tensor shares only when it can: asking for another dtype forces a copy.
source = np.array([1.0, 2.0, 3.0])  # float64
narrowed = torch.as_tensor(source, dtype=torch.float32)
source[0] = 100.0
print(narrowed)
#> tensor([1., 2., 3.])
assert not np.shares_memory(narrowed.numpy(), source)
# --8<-- [end:as_tensor_copies]
