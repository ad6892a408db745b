# --8<-- [start:constructors]
import torch

# zeros and ones use the default float dtype; full takes its dtype from the fill value
# (a Python int gives int64, printed without a dtype; a float gives float32).
print(torch.zeros(2, 3))
# > tensor([[0., 0., 0.],
# >         [0., 0., 0.]])
print(torch.full((2,), 7), torch.full((2,), 7.0))
# > tensor([7, 7]) tensor([7., 7.])
assert torch.zeros(2, 3).dtype == torch.get_default_dtype()
assert torch.full((2,), 7).dtype == torch.int64

# arange excludes its end, like Python's
# range: 1, 1 + 3, 1 + 6 (10 is not reached).
steps = torch.arange(1, 10, 3)
print(steps)
# > tensor([1, 4, 7])
assert steps.tolist() == list(range(1, 10, 3))

# linspace includes both ends: 5 points split [0, 1] into 4 equal gaps of 1/4.
points = torch.linspace(0, 1, 5)
print(points)
# > tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
assert points.tolist() == [k / 4 for k in range(5)]

# *_like copies shape, dtype and device from another
# tensor, never its values (here both are on the
# CPU, so the device part is only a sanity check).
model = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
nines = torch.full_like(model, 9)
print(nines)
# > tensor([[9, 9],
# >         [9, 9]], dtype=torch.int32)
assert (nines.shape, nines.dtype, nines.device) == (
    model.shape,
    model.dtype,
    model.device,
)
# --8<-- [end:constructors]

# --8<-- [start:random]
import torch

# The same seed gives the same draws; the values themselves are not shown, because
# they are not promised to be identical across PyTorch releases and machines.
torch.manual_seed(0)
first = torch.rand(3)
torch.manual_seed(0)
again = torch.rand(3)
following = torch.rand(3)  # the generator moved on: a different draw
assert torch.equal(first, again)
assert not torch.equal(first, following)

# rand samples the half-open interval [0, 1), in the default float dtype.
print(first.dtype, bool(((first >= 0) & (first < 1)).all()))
# > torch.float32 True
# --8<-- [end:random]
