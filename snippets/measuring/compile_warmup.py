"""torch.compile: the first call compiles, and a new shape or dtype can compile again.

On its own: python snippets/measuring/compile_warmup.py
"""

# --8<-- [start:recompile]
import torch

torch.compiler.reset()  # empty compilation caches, whatever ran before
graphs = []  # one entry per graph handed to the backend: one per compilation


def counting_backend(graph_module, example_inputs):
    # How many sizes the graph takes as symbolic inputs (SymInt): 0 means it is
    # specialised to the shapes it was compiled for.
    graphs.append(sum(isinstance(arg, torch.SymInt) for arg in example_inputs))
    # Runs the captured graph as it is, like backend="eager".
    return graph_module.forward


def scaled_tanh(t):
    return torch.tanh(t) * 2 + 1


compiled = torch.compile(scaled_tanh, backend=counting_backend)
print(len(graphs))  # torch.compile itself compiles nothing: the first call will
# > 0
for size, dtype in [
    (4, torch.float32),
    (4, torch.float32),
    (5, torch.float32),
    (6, torch.float32),
    (1, torch.float32),
    (6, torch.float64),
]:
    t = torch.linspace(-1, 1, size, dtype=dtype)
    # Eager's numbers.
    torch.testing.assert_close(compiled(t), scaled_tanh(t), rtol=0, atol=0)
    print(size, dtype, len(graphs))
# > 4 torch.float32 1
# > 4 torch.float32 1
# > 5 torch.float32 2
# > 6 torch.float32 2
# > 1 torch.float32 3
# > 6 torch.float64 4
print(graphs)  # symbolic sizes in each compiled graph
# > [0, 1, 0, 1]
# --8<-- [end:recompile]

# --8<-- [start:fail_on_recompile]
# After the warm-up, make a recompilation
# an error rather than a slow timed call.
with torch.compiler.set_stance("fail_on_recompile"):
    seven = torch.linspace(-1, 1, 7)  # size 7: the dynamic float32 graph serves it
    torch.testing.assert_close(compiled(seven), scaled_tanh(seven), rtol=0, atol=0)
    try:
        compiled(torch.linspace(-1, 1, 7, dtype=torch.float16))
    except RuntimeError as error:
        message = str(error)
assert message.startswith(
    "Detected recompile when torch.compile stance is 'fail_on_recompile'"
)
assert "dtype mismatch. expected Float, actual Half" in message  # the guard that failed
print(len(graphs))
# > 4
# --8<-- [end:fail_on_recompile]

# --8<-- [start:static]
torch.compiler.reset()
graphs.clear()
# The size each graph is specialised to; the sizes whose call ran a graph.
sizes, served = [], []


def static_backend(graph_module, example_inputs):
    counting_backend(graph_module, example_inputs)  # still counts symbolic sizes
    size = example_inputs[-1].shape[0]  # the tensor comes after any symbolic sizes
    sizes.append(size)

    def run(*args):
        served.append(size)
        return graph_module.forward(*args)

    return run


static = torch.compile(scaled_tanh, backend=static_backend, dynamic=False)
# 11 sizes: one graph each, up to the limit (Dynamo warns there).
for size in range(2, 13):
    static(torch.linspace(-1, 1, size))
print(graphs, sizes)  # specialised graphs, for the first 8 sizes only
# > [0, 0, 0, 0, 0, 0, 0, 0] [2, 3, 4, 5, 6, 7, 8, 9]
assert len(sizes) == torch._dynamo.config.recompile_limit

# Past the limit, nothing is compiled, so fail_on_recompile has nothing to stop: a
# size with a graph still runs it, any other size runs eagerly, uncompiled, and no
# error is raised.
served.clear()
with torch.compiler.set_stance("fail_on_recompile"):
    for size in (3, 20):
        t = torch.linspace(-1, 1, size)
        torch.testing.assert_close(static(t), scaled_tanh(t), rtol=0, atol=0)
print(served)  # size 3 ran its graph; size 20 ran none
# > [3]
# --8<-- [end:static]
