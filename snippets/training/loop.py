from pathlib import Path
from runpy import run_path

# On its own, this file first runs the ones it builds on, as the page does.
globals().update(run_path(str(Path(__file__).with_name("fitting.py"))))


# --8<-- [start:epoch]
def train_epoch(model, loader, optimizer):
    model.train()  # training behaviour for layers such as dropout (none in Line)
    seen = []
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
        seen.append(x.tolist())  # the batches, kept to replay them by hand below
    return seen


def validate(model, loader):
    model.eval()  # evaluation behaviour: no dropout, fixed batch-norm statistics
    total, count = torch.tensor(0.0), 0
    with torch.no_grad():  # no graph: nothing here is differentiated
        for x, y in loader:
            total += nn.functional.mse_loss(model(x), y, reduction="sum")
            count += len(x)
    return total / count


valid_loader = DataLoader(valid_set, batch_size=2)  # no shuffling: order is irrelevant
train_loader = DataLoader(
    train_set, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(0)
)
model = Line()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
history, valid_losses = [], []
for epoch in range(6):
    history.append(train_epoch(model, train_loader, optimizer))
    valid_losses.append(validate(model, valid_loader))
    print(epoch, valid_losses[-1])
# > 0 tensor(16.7179)
# > 1 tensor(1.7711)
# > 2 tensor(1.2820)
# > 3 tensor(0.9830)
# > 4 tensor(0.7816)
# > 5 tensor(0.6564)
# --8<-- [end:epoch]

# --8<-- [start:replay]
# The same epochs by hand, exactly: SGD with momentum keeps a velocity v per
# parameter, v ← momentum·v + gradient (v = gradient at the first step), then
# p ← p − lr·v.
lr, momentum = Fraction(1, 100), Fraction(1, 2)
pairs = dict(
    zip(X_TRAIN, Y_TRAIN, strict=True)
)  # the x values are distinct: x names its sample
w = b = Fraction(0)
v_w = v_b = None
by_hand = []
for epoch in history:
    for batch in epoch:
        r = [w * a + b - pairs[a] for a in batch]
        grad_w = sum(2 * ri * a for ri, a in zip(r, batch, strict=True)) / len(batch)
        grad_b = sum(2 * ri for ri in r) / len(batch)
        v_w = grad_w if v_w is None else momentum * v_w + grad_w
        v_b = grad_b if v_b is None else momentum * v_b + grad_b
        w, b = w - lr * v_w, b - lr * v_b
    errors = [(w * a + b - c) ** 2 for a, c in zip(X_VALID, Y_VALID, strict=True)]
    by_hand.append(sum(errors) / len(errors))

# The same float32 budget as for full-batch descent (measured: a few u at most).
assert_near([v.item() for v in valid_losses], by_hand)
assert_near([model.w.item(), model.b.item()], [w, b])
print(f"{model.w.item():.4f} {model.b.item():.4f}")
# > 2.1057 0.5585
# --8<-- [end:replay]
