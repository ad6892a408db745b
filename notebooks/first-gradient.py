# ---
# jupyter:
#   translation_of: "10861580360d"
#   jupytext:
#     cell_metadata_filter: lang,-all
#     formats: py:percent
#     notebook_metadata_filter: -all
# ---

# %% [markdown] lang="en"
# # First gradient
#
# The smallest complete autograd example, as a notebook you can download and run. The
# site executed it while building this page: the outputs below are real.

# %% [markdown] lang="es"
# # Primer gradiente
#
# El ejemplo completo más pequeño de autograd, como notebook para descargar y ejecutar.
# El sitio lo ejecutó al generar esta página: las salidas de abajo son reales.

# %%
import torch
from torch.testing import assert_close

# %% [markdown] lang="en"
# Record a computation on a tensor that requires a gradient, then call `backward()`:

# %% [markdown] lang="es"
# Registra un cálculo sobre un tensor que requiere gradiente y llama a `backward()`:

# %%
x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward()
print(x.grad)

# %% [markdown] lang="en"
# The closed form says the derivative of $x^2$ is $2x$, so at $x = 3$ it is $6$. The
# notebook checks that instead of asking you to trust it:

# %% [markdown] lang="es"
# La forma cerrada dice que la derivada de $x^2$ es $2x$; en $x = 3$ vale $6$. El
# notebook lo comprueba en lugar de pedirte que lo creas:

# %%
# d(x²)/dx = 2x: the analytical answer, checked against autograd.
assert_close(x.grad, 2 * x.detach())
print("autograd agrees with 2x at x =", x.item())

# %% [markdown] lang="en"
# Next: the [autograd guide](../../autograd/) explains accumulation,
# `torch.autograd.grad` and why a gradient is not an optimizer step.

# %% [markdown] lang="es"
# Siguiente paso: la [guía de autograd](../../autograd/) explica la acumulación,
# `torch.autograd.grad` y por qué un gradiente no es un paso del optimizador.
