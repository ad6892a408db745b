# --8<-- [start:kinks]
import torch
from torch.testing import assert_close


def derivative(fn, value):
    x = torch.tensor(value, requires_grad=True)
    (dx,) = torch.autograd.grad(fn(x), x)
    return dx.item()


# Away from 0 these are ordinary derivatives: relu' is 0 then 1, abs' is -1 then 1.
# (At -0.5 relu and its slope are both 0; the point 0.5, where they differ, tells
# them apart.)
assert [derivative(torch.relu, v) for v in (-0.5, 0.5)] == [0.0, 1.0]
assert [derivative(torch.abs, v) for v in (-0.5, 0.5)] == [-1.0, 1.0]

# At 0 no derivative exists; PyTorch returns a value chosen by convention.
print(derivative(torch.relu, 0.0), derivative(torch.abs, 0.0))
# > 0.0 0.0

# Three ways to write max(x, 0), equal as functions, do not all return the same
# value at 0.
ways = {
    "relu(x)": torch.relu,
    "clamp(x, min=0)": lambda x: torch.clamp(x, min=0),
    "maximum(x, 0)": lambda x: torch.maximum(x, torch.zeros(())),
}
probe = torch.linspace(-2, 2, 9)
for name, fn in ways.items():
    assert_close(fn(probe), torch.relu(probe))  # the same function...
    print(f"{name:>15}: {derivative(fn, 0.0)}")  # ...but not the same value at 0
# >         relu(x): 0.0
# >[torch<2.14] clamp(x, min=0): 1.0
# >[torch>=2.14] clamp(x, min=0): 0.0
# >   maximum(x, 0): 0.5
# Each lies in [0, 1], the set of subgradients of max(x, 0) at 0: a convention,
# not a derivative.
assert all(0.0 <= derivative(fn, 0.0) <= 1.0 for fn in ways.values())
# --8<-- [end:kinks]
