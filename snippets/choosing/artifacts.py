# --8<-- [start:state_dict]
import io
import pickle
import zipfile

import torch
from torch.testing import assert_close

# Save the weights (a state_dict: names to tensors), not the model object.
torch.manual_seed(0)
model = torch.nn.Linear(3, 1, dtype=torch.float64)
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
# torch.save writes a zip archive; the objects' structure inside it is a pickle,
# data.pkl.
assert any(name.endswith("/data.pkl") for name in zipfile.ZipFile(buffer).namelist())

# torch.load's default is weights_only=True
# (since PyTorch 2.6): a state_dict loads.
buffer.seek(0)
weights = torch.load(buffer)
print(list(weights))
# > ['weight', 'bias']
restored = torch.nn.Linear(3, 1, dtype=torch.float64)
restored.load_state_dict(weights)
inputs = torch.tensor([[1.0, -2.0, 0.5]], dtype=torch.float64)
# Same weights, same function: the restored model computes w·x + b like the original.
assert_close(restored(inputs), inputs @ model.weight.detach().T + model.bias.detach())
assert_close(restored(inputs), model(inputs))
# --8<-- [end:state_dict]


# --8<-- [start:allowed]
import datetime
import pprint

# Allowed by default: tensors, primitive
# types, containers and a few torch types.
buffer = io.BytesIO()
torch.save(
    {
        "history": [0.5, (2, 3)],
        "tags": {"best"},
        "shape": torch.Size([2]),
        "dtype": torch.float16,
        "device": torch.device("cpu"),
    },
    buffer,
)
buffer.seek(0)
pprint.pp(torch.load(buffer))
# > {'history': [0.5, (2, 3)],
# >  'tags': {'best'},
# >  'shape': torch.Size([2]),
# >  'dtype': torch.float16,
# >  'device': device(type='cpu')}

# Any other class is refused until you
# allowlist it, here a date in the metadata.
buffer = io.BytesIO()
torch.save({"saved_on": datetime.date(2026, 7, 8)}, buffer)
buffer.seek(0)
try:
    torch.load(buffer)
except pickle.UnpicklingError as error:
    assert "Unsupported global: GLOBAL datetime.date" in str(error)
else:
    raise AssertionError("a class outside the allowlist was built")
buffer.seek(0)
with torch.serialization.safe_globals([datetime.date]):  # add_safe_globals: for good
    print(torch.load(buffer))
# > {'saved_on': datetime.date(2026, 7, 8)}
# --8<-- [end:allowed]


# --8<-- [start:refused]
# A pickle may name any importable function and have it called while loading.
# This harmless one calls print; a malicious file would call something else.
class RunsCodeWhenLoaded:
    def __reduce__(self):
        return (print, ("this ran while the file was loading",))


buffer = io.BytesIO()
torch.save({"weight": torch.ones(2), "extra": RunsCodeWhenLoaded()}, buffer)

buffer.seek(0)
try:
    torch.load(buffer)  # weights_only=True by default: print is not an allowed global
except pickle.UnpicklingError as error:
    assert "Unsupported global: GLOBAL print" in str(error)
    print(str(error).split(".")[0])
else:
    raise AssertionError("the file's call to print was allowed")
# > Weights only load failed

# The same file with weights_only=False runs the call: what the default prevents.
buffer.seek(0)
loaded = torch.load(buffer, weights_only=False)
# > this ran while the file was loading
print(loaded["extra"])
# > None
# --8<-- [end:refused]

# --8<-- [start:not_a_guarantee]
# weights_only limits which Python objects a file may
# build. It says nothing about the numbers: a file of
# wrong weights is a valid state_dict and loads silently.
tampered = {
    name: torch.full_like(tensor, float("nan"))
    for name, tensor in model.state_dict().items()
}
buffer = io.BytesIO()
torch.save(tampered, buffer)
buffer.seek(0)
restored.load_state_dict(torch.load(buffer))
print(restored(inputs))
# > tensor([[nan]], dtype=torch.float64, grad_fn=<AddmmBackward0>)
assert torch.isnan(restored(inputs)).all()
# --8<-- [end:not_a_guarantee]
