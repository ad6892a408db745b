import torch


def p(x):
    return 3 * x**3 - 2 * x + 1


# --8<-- [start:operators]
import torch.fx

# List the operators the pilot really calls instead of guessing: trace it.
graph = torch.fx.symbolic_trace(p).graph
needed = list(dict.fromkeys(node.target.__name__ for node in graph.nodes
                            if node.op == "call_function"))
print(needed)
#> ['pow', 'mul', 'sub', 'add']
# --8<-- [end:operators]

# --8<-- [start:checklist]
from torch.autograd import gradcheck


def check_operator(name, *inputs):
    """Is torch.<name> there, and does autograd differentiate it correctly?"""
    operator = getattr(torch, name, None)
    if operator is None:
        return "missing from torch"
    if operator(*inputs).grad_fn is None:
        return "present, not differentiable"
    gradcheck(operator, inputs)  # finite differences against autograd; raises on a mismatch
    return "present, gradcheck passed"


# float64 inputs in [0.5, 1.5): gradcheck's precision, and a positive base for pow.
generator = torch.Generator().manual_seed(0)
a, b = (torch.rand(3, dtype=torch.float64, generator=generator).add(0.5).requires_grad_()
        for _ in range(2))
for name in needed:
    print(f"{name}: {check_operator(name, a, b)}")
#> pow: present, gradcheck passed
#> mul: present, gradcheck passed
#> sub: present, gradcheck passed
#> add: present, gradcheck passed
# --8<-- [end:checklist]

# --8<-- [start:gaps]
# NumPy's polyder has no torch twin, and argmax has no gradient.
print(check_operator("polyder", a))
#> missing from torch
print(check_operator("argmax", a))
#> present, not differentiable
# gradcheck alone would not notice: with no differentiable output it only checks
# that the finite differences are zero, and they are.
print(gradcheck(torch.argmax, (a,)))
#> True
# --8<-- [end:gaps]
