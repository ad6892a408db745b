# --8<-- [start:module]
import torch
from torch import nn
from torch.testing import assert_close


# y = w·x + b, with w and b learned.
class Line(nn.Module):
    def __init__(self):
        super().__init__()  # first: it sets up the registries that nn.Parameter fills
        # Assigning an nn.Parameter registers it: parameters() and state_dict() see it.
        self.w = nn.Parameter(torch.tensor(0.0))
        self.b = nn.Parameter(torch.tensor(0.0))
        self.scale = torch.tensor(2.0)  # a plain tensor attribute is not registered

    def forward(self, x):
        return self.w * x + self.b


model = Line()
print([(name, p.requires_grad) for name, p in model.named_parameters()])
# > [('w', True), ('b', True)]
print(list(model.state_dict()))
# > ['w', 'b']

with torch.no_grad():  # set the parameters by hand, without recording it
    model.w.fill_(2.0)
    model.b.fill_(-1.0)
x = torch.tensor([0.0, 1.0, 3.0])
print(model(x))  # calling the module runs forward()
# > tensor([-1.,  1.,  5.], grad_fn=<AddBackward0>)
assert_close(model(x), 2.0 * x - 1.0)
# --8<-- [end:module]

# --8<-- [start:linear]
# nn.Linear is the same model, built in: a weight matrix and a bias vector.
linear = nn.Linear(in_features=1, out_features=1)
print([(name, tuple(p.shape)) for name, p in linear.named_parameters()])
# > [('weight', (1, 1)), ('bias', (1,))]
with torch.no_grad():
    linear.weight.fill_(2.0)
    linear.bias.fill_(-1.0)
# It takes a batch of feature vectors: shape (3, 1), not (3,).
assert_close(linear(x.unsqueeze(1)).squeeze(1), model(x))
# --8<-- [end:linear]
