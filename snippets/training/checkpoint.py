from pathlib import Path
from runpy import run_path

# On its own, this file first runs the ones it builds on, as the page does.
globals().update(run_path(str(Path(__file__).with_name("loop.py"))))

# --8<-- [start:save_load]
import pickle
import tempfile
from pathlib import Path

checkpoint = {
    "epoch": len(history),
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),  # momentum buffers and hyperparameters
    "generator": train_loader.generator.get_state(),  # the next epoch's shuffle
}
with tempfile.TemporaryDirectory() as folder:  # removed, with the file, at the end
    path = Path(folder) / "checkpoint.pt"
    torch.save(checkpoint, path)
    # weights_only=True: tensors, primitive types and containers, no other objects.
    loaded = torch.load(path, weights_only=True)

    # An object of another class, even a harmless Fraction, is refused.
    torch.save({"lr": Fraction(1, 100)}, path)
    try:
        torch.load(path)  # the default in torch 2.13 is weights_only=True
    except pickle.UnpicklingError as error:
        print(str(error).split(".")[0])
# > Weights only load failed

print(loaded["epoch"], list(loaded["model"]), list(loaded["optimizer"]))
# > 6 ['w', 'b'] ['state', 'param_groups']
print(loaded["optimizer"]["state"][0]["momentum_buffer"])
# > tensor(-6.1820)
# The velocity of w, as the replay by hand left it.
assert_near([loaded["optimizer"]["state"][0]["momentum_buffer"].item()], [v_w])

# A fresh model and optimizer, put back in the saved state.
resumed = Line()
resumed.load_state_dict(loaded["model"])
resumed_optimizer = torch.optim.SGD(resumed.parameters(), lr=0.01, momentum=0.5)
resumed_optimizer.load_state_dict(loaded["optimizer"])
resumed_loader = DataLoader(
    train_set, batch_size=3, shuffle=True, generator=torch.Generator()
)
resumed_loader.generator.set_state(loaded["generator"])
assert all(
    torch.equal(a, b)
    for a, b in zip(resumed.parameters(), model.parameters(), strict=True)
)
# --8<-- [end:save_load]

# --8<-- [start:resume]
# One more epoch from the checkpoint, and one more without stopping: the same numbers.
train_epoch(model, train_loader, optimizer)
train_epoch(resumed, resumed_loader, resumed_optimizer)
assert all(
    torch.equal(a, b)
    for a, b in zip(resumed.parameters(), model.parameters(), strict=True)
)

# Without the optimizer's state, the momentum restarts from zero: a different step.
forgetful = Line()
forgetful.load_state_dict(loaded["model"])
generator = torch.Generator()
generator.set_state(loaded["generator"])
train_epoch(
    forgetful,
    DataLoader(train_set, batch_size=3, shuffle=True, generator=generator),
    torch.optim.SGD(forgetful.parameters(), lr=0.01, momentum=0.5),
)
print(f"{model.w.item():.4f} {resumed.w.item():.4f} {forgetful.w.item():.4f}")
# > 2.1515 2.1515 2.1099
assert not torch.equal(forgetful.w, model.w)
# --8<-- [end:resume]
