from pathlib import Path
from runpy import run_path

# On its own, this file first runs the ones it builds on, as the page does.
globals().update(run_path(str(Path(__file__).with_name("loop.py"))))

# --8<-- [start:dropout]
torch.manual_seed(0)  # dropout draws from the global generator
dropout = nn.Dropout(p=0.5)
ones = torch.ones(8)

dropout.train()  # what model.train() sets on every submodule
kept = dropout(ones)
# Each element is zeroed with probability p, the others scaled by 1/(1 − p) = 2,
# so that the expected value stays 1.
print(sorted(set(kept.tolist())))
# > [0.0, 2.0]

dropout.eval()  # what model.eval() sets: dropout becomes the identity
assert torch.equal(dropout(ones), ones)
# --8<-- [end:dropout]

# --8<-- [start:inference]
model.eval()
new_x = torch.tensor([10.0, -10.0])
with torch.inference_mode():  # no_grad with less bookkeeping: for predictions only
    prediction = model(new_x)
print(prediction, prediction.is_inference())
# > tensor([ 21.6150, -20.4980]) True
assert_close(prediction, model.w.detach() * new_x + model.b.detach())
# --8<-- [end:inference]
