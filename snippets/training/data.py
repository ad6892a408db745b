# --8<-- [start:dataset]
import math

import torch
from torch.utils.data import DataLoader, Dataset

# Small integer data: every expected value below can be worked out exactly by hand.
X_TRAIN = [-4, -3, -2, -1, 1, 2, 3, 4]
Y_TRAIN = [-7, -5, -3, -1, 2, 5, 7, 11]
X_VALID = [-5, 0, 5]
Y_VALID = [-9, 1, 12]


# (x, y) pairs: a Dataset needs only __len__ and __getitem__.
class Points(Dataset):
    def __init__(self, xs, ys):
        self.x = torch.tensor(xs, dtype=torch.float32)
        self.y = torch.tensor(ys, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


train_set = Points(X_TRAIN, Y_TRAIN)
valid_set = Points(X_VALID, Y_VALID)
print(len(train_set), train_set[2])
# > 8 (tensor(-2.), tensor(-3.))
# --8<-- [end:dataset]

# --8<-- [start:loader]
# The loader draws its order from this generator: fixed seed, same epochs every run.
generator = torch.Generator().manual_seed(0)
train_loader = DataLoader(train_set, batch_size=3, shuffle=True, generator=generator)

epochs = []
for _ in range(2):
    batches = [x for x, y in train_loader]  # the loader stacks samples into batches
    print([b.tolist() for b in batches])
    epochs.append(torch.cat(batches))
# > [[2.0, -1.0, -3.0], [4.0, -2.0, 3.0], [1.0, -4.0]]
# > [[-2.0, -1.0, 1.0], [4.0, -3.0, -4.0], [3.0, 2.0]]

# 8 samples in batches of 3: ⌈8/3⌉ = 3 batches, the last one short.
assert len(train_loader) == math.ceil(len(train_set) / 3)
assert [len(b) for b in batches] == [3, 3, 2]
# Each epoch is a new permutation of the data: every sample once.
assert all(sorted(order.tolist()) == sorted(X_TRAIN) for order in epochs)
assert not torch.equal(epochs[0], epochs[1])
# The same seed gives the same order again.
again = DataLoader(
    train_set, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(0)
)
assert torch.equal(torch.cat([x for x, y in again]), epochs[0])
# --8<-- [end:loader]
