# --8<-- [start:wrong_expectation]
import torch
from torch.testing import assert_close

x = torch.tensor(3.0, requires_grad=True)
(x * x).backward()
# Suppose the page claimed the gradient were 5. The check refuses it, and the test that
# runs this page fails with this message.
try:
    assert_close(x.grad, torch.tensor(5.0))
except AssertionError as error:
    print(error)
# > Scalars are not close!
# >
# > Expected 5.0 but got 6.0.
# > Absolute difference: 1.0 (up to 1e-05 allowed)
# > Relative difference: 0.2 (up to 1.3e-06 allowed)
# --8<-- [end:wrong_expectation]
