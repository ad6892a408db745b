import torch
from torch.testing import assert_close


def p(x):
    return 3 * x**3 - 2 * x + 1


# --8<-- [start:python_level]
import pprint

import torch.fx


def first_probability(z):
    """Softmax's first entry: method calls, division, indexing and a reduction."""
    e = z.exp()
    return (e / e.sum())[0]


# symbolic_trace records Python-level calls: method names as
# strings, and `/` and `[0]` as Python's operator.truediv
# and operator.getitem, not as torch operators.
graph = torch.fx.symbolic_trace(first_probability).graph
pprint.pp(
    [
        (node.op, getattr(node.target, "__name__", node.target))
        for node in graph.nodes
        if node.op.startswith("call")
    ]
)
# > [('call_method', 'exp'),
# >  ('call_method', 'sum'),
# >  ('call_function', 'truediv'),
# >  ('call_function', 'getitem')]
# Looking those names up in torch is a coincidence, not a check: it finds
# torch.exp and torch.sum, and no torch.truediv or torch.getitem.
print([hasattr(torch, name) for name in ("exp", "sum", "truediv", "getitem")])
# > [True, True, False, False]
# --8<-- [end:python_level]

# --8<-- [start:operators]
from torch.fx.experimental.proxy_tensor import make_fx


def aten_operators(function, *example_inputs):
    """The ATen operators that run when function is called on these inputs, by name."""
    graph = make_fx(function)(*example_inputs).graph
    return {
        str(node.target): node.target
        for node in sorted(
            (node for node in graph.nodes if node.op == "call_function"), key=str
        )
    }


z = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
print(sorted(aten_operators(first_probability, z)))
# > ['aten.div.Tensor', 'aten.exp.default', 'aten.select.int', 'aten.sum.default']
# The pilot polynomial: `**`, `*`, `-`
# and `+` on a tensor, as ATen operators.
needed = sorted(aten_operators(p, z))
print(needed)
# > ['aten.add.Tensor', 'aten.mul.Tensor', 'aten.pow.Tensor_Scalar', 'aten.sub.Tensor']
# --8<-- [end:operators]

# --8<-- [start:target]
import warnings


def outside_core_aten(operators):
    """Operators not in the Core ATen operator set (not tagged torch.Tag.core)."""
    return [
        name
        for name, operator in operators.items()
        if torch.Tag.core not in operator.tags
    ]


print(outside_core_aten(aten_operators(p, z)))
# > []
print(outside_core_aten(aten_operators(first_probability, z)))
# > ['aten.sum.default']


# torch.export, then run_decompositions() with its default table, which decomposes
# toward Core ATen.
def decomposed_operators(module, *example_inputs):
    with warnings.catch_warnings():
        # torch 2.13 warns here about a deprecated
        # check inside its own pytree code.
        warnings.simplefilter("ignore", FutureWarning)
        exported = torch.export.export(module, example_inputs).run_decompositions()
    operators = {
        str(node.target): node.target
        for node in exported.graph.nodes
        if node.op == "call_function"
    }
    return exported, operators


class FirstProbability(torch.nn.Module):
    def forward(self, z):
        return first_probability(z)


exported, decomposed = decomposed_operators(FirstProbability(), z)
print(sorted(decomposed))
# > ['aten.div.Tensor', 'aten.exp.default', 'aten.select.int', 'aten.sum.dim_IntList']
assert outside_core_aten(decomposed) == []
# The exported program still computes the same function, on z and on other values.
other = torch.tensor([-0.5, 0.25, 3.0], dtype=torch.float64)
assert_close(exported.module()(z), first_probability(z))
assert_close(exported.module()(other), first_probability(other))


# An operator with no decomposition in
# the table stays as it was: check again.
class Median(torch.nn.Module):
    def forward(self, z):
        return z.median()


print(outside_core_aten(decomposed_operators(Median(), z)[1]))
# > ['aten.median.default']
# --8<-- [end:target]

# --8<-- [start:checklist]
from torch.autograd import gradcheck

# The traced graph runs exactly the operators listed above; differentiate it.
traced = make_fx(first_probability)(z)
leaf = z.clone().requires_grad_()
traced(leaf).backward()
# By hand, with q = softmax(z): ∂q₀/∂z_j = q₀·(δ₀ⱼ − q_j).
q = z.exp() / z.exp().sum()
by_hand = q[0] * (torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64) - q)
print(leaf.grad)
# > tensor([ 0.1778, -0.1453, -0.0324], dtype=torch.float64)
assert_close(leaf.grad, by_hand)
# Shifting every z_j by the same amount leaves softmax unchanged, so the entries
# sum to 0.
bound = 4 * 2**-52 * leaf.grad.abs().sum().item()  # a few float64 roundings of each
assert abs(leaf.grad.sum().item()) <= bound
# And finite differences agree, in float64,
# the precision gradcheck is designed for.
print(gradcheck(traced, (leaf,)))
# > True
# The trace was made on z; on other values it must still be the same function.
assert_close(traced(other), first_probability(other))
# --8<-- [end:checklist]

# --8<-- [start:gaps]
import numpy as np


# argmax is in Core ATen, but returns indices, which have no gradient.
def top_class(z):
    return z.argmax()


print(sorted(aten_operators(top_class, z)), top_class(leaf).grad_fn)
# > ['aten.argmax.default'] None
# gradcheck alone would not notice: it leaves integer outputs such as argmax's
# indices out altogether, so it has nothing to compare and passes whatever the step.
print(gradcheck(top_class, (leaf,)))
# > True


# A NumPy detour leaves torch: the trace cannot see it and stores its result as a
# constant. No exp is listed, and the traced function ignores its input.
def through_numpy(z):
    return torch.from_numpy(np.exp(z.numpy()))


print(sorted(aten_operators(through_numpy, z)))
# >[torch<2.14] ['aten.detach.default', 'aten.lift_fresh_copy.default']
# >[torch>=2.14] ['aten.alias.default', 'aten.lift_fresh_copy.default']
traced_detour = make_fx(through_numpy)(z)
assert_close(traced_detour(other), z.exp())  # the example's answer, whatever the input
assert not torch.allclose(traced_detour(other), through_numpy(other))
# --8<-- [end:gaps]
