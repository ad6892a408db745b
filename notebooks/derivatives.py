# ---
# jupyter:
#   translation_of: "049d295e03b8"
#   jupytext:
#     cell_metadata_filter: lang,-all
#     formats: py:percent
#     notebook_metadata_filter: -all
# ---

# %% [markdown] lang="en"
# # Derivatives against autograd
#
# For functions whose derivatives you can work out by hand, this notebook puts three
# numbers side by side at several points and in three dtypes:
#
# * the **closed form**, the derivative written out by hand and evaluated in float64
#   with Python's `math` module, apart from torch;
# * **autograd**'s value, from `torch.autograd.grad` in the dtype of the row;
# * a **central finite difference** (FD) in the same dtype, the check you would write
#   without autograd.
#
# Each row passes or fails against a stated tolerance, and every row is shown, the
# failing ones included, with the reason they fail: the **precision** of the dtype, the
# **FD step**, or a point outside the function's **domain**. Nothing on this page is
# typed by hand: every value is an output of this notebook (the stamp at the end says
# whether this build ran it), and the tests run it again.

# %% [markdown] lang="es"
# # Derivadas frente a autograd
#
# Para funciones cuya derivada se puede calcular a mano, este notebook muestra tres
# números uno junto a otro, en varios puntos y con tres tipos de datos (dtypes):
#
# * la **forma cerrada**, la derivada calculada a mano y evaluada en float64 con el
#   módulo `math` de Python, sin torch;
# * el valor de **autograd**, obtenido con `torch.autograd.grad` en el dtype de la fila;
# * una **diferencia finita central** (DF en la tabla; FD en las gráficas y en el motivo
#   `FD step`) en ese mismo dtype: la comprobación que escribirías sin autograd.
#
# Cada fila pasa o falla frente a una tolerancia explícita, y se muestran todas, también
# las que fallan, con el motivo: la **precisión** del dtype, el **paso** de la
# diferencia finita o un punto fuera del **dominio** de la función. En esta página no
# hay nada escrito a mano: cada valor es una salida de este notebook (el sello del final
# dice si esta generación del sitio lo ejecutó), y las pruebas lo vuelven a ejecutar.

# %%
import base64
import html
import inspect
import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import matplotlib.pyplot as plt
import torch
from IPython.display import HTML, Markdown, display
from torch.testing import assert_close

# Every check runs in these dtypes, from the most precise to the least.
DTYPES = (torch.float64, torch.float32, torch.bfloat16)
print(f"torch {torch.__version__}")

# %% [markdown] lang="en"
# ## The functions
#
# Each function is written with torch operations, so autograd can differentiate it, and
# comes with its derivative worked out by hand: one closed form per argument. The
# two-variable function f(x, y) = x²y + sin(xy) has two partial derivatives, so each of
# its points gives two rows. `log` and `1/x` are also evaluated at x = 0, where their
# derivative does not exist.
#
# A closed form must not borrow the formula autograd uses, or the check compares
# autograd with itself. So tanh′ is written as 1/cosh²x and σ′ as e⁻ˣ/(1 + e⁻ˣ)², from
# `cosh` and `exp`, not as 1 − tanh²x and σ(1 − σ), PyTorch's own backward formulas (see
# below).
#
# All points are exactly representable in bfloat16, so every dtype differentiates at the
# same x and the float64 closed form is the reference for all three. It is not exact:
# float64 rounds it, to about 1e-16 relative, far below every tolerance used here.

# %% [markdown] lang="es"
# ## Las funciones
#
# Cada función está escrita con operaciones de torch, para que autograd pueda derivarla,
# y va acompañada de su derivada calculada a mano: una forma cerrada por argumento. La
# función de dos variables f(x, y) = x²y + sin(xy) tiene dos derivadas parciales, así
# que cada uno de sus puntos da dos filas. `log` y `1/x` también se evalúan en x = 0,
# donde su derivada no existe.
#
# Una forma cerrada no debe tomar prestada la fórmula que usa autograd; si lo hiciera,
# la comprobación compararía autograd consigo mismo. Por eso tanh′ se escribe como
# 1/cosh²x y σ′ como e⁻ˣ/(1 + e⁻ˣ)², a partir de `cosh` y `exp`, y no como 1 − tanh²x y
# σ(1 − σ), las fórmulas de la pasada hacia atrás del propio PyTorch (véase más abajo).
#
# Todos los puntos se representan de forma exacta en bfloat16, así que en todos los
# dtypes se deriva en el mismo x y la forma cerrada en float64 es la referencia para
# los tres. No es exacta: float64 la redondea, con un error relativo de unos 1e-16,
# muy por debajo de cualquiera de las tolerancias que se usan aquí.


# %%
@dataclass(frozen=True)
class Function:
    name: str
    f: Callable  # built from torch operations, so autograd can trace it
    partials: tuple  # closed forms worked out by hand, one per argument
    points: tuple  # each point is a tuple with one value per argument
    variables: str = "x"
    in_domain: Callable = lambda *args: True  # where the derivative exists


def over(numerator, denominator):
    # IEEE 754 division, as torch divides: ±inf at a zero denominator, where
    # Python's / raises ZeroDivisionError.
    if denominator == 0:
        return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)
    return numerator / denominator


# The closed forms take Python floats and use the math module, apart from torch,
# whose kernels autograd runs.
FUNCTIONS = (
    Function("x²", lambda x: x**2, (lambda x: 2 * x,), ((-1.5,), (0.5,), (3.0,))),
    Function("x³", lambda x: x**3, (lambda x: 3 * x**2,), ((-2.0,), (0.5,), (3.0,))),
    Function("sin x", torch.sin, (math.cos,), ((-1.0,), (0.5,), (3.0,))),
    Function("exp x", torch.exp, (math.exp,), ((-3.0,), (0.5,), (5.0,))),
    Function(
        "log x",
        torch.log,
        (lambda x: over(1, x),),
        ((0.5,), (2.0,), (0.0,)),
        in_domain=lambda x: x > 0,
    ),
    Function(
        "1/x",
        lambda x: 1 / x,
        (lambda x: -over(1, x**2),),
        ((-0.5,), (2.0,), (0.0,)),
        in_domain=lambda x: x != 0,
    ),
    # tanh' = 1/cosh² x and σ'(x) = e⁻ˣ/(1 + e⁻ˣ)², from
    # cosh and exp: not PyTorch's own backward formulas 1 −
    # tanh² and σ(1 − σ), which a check should not borrow.
    Function(
        "tanh x",
        torch.tanh,
        (lambda x: 1 / math.cosh(x) ** 2,),
        ((-0.5,), (1.0,), (3.0,)),
    ),
    Function(
        "σ(x)",
        torch.sigmoid,
        (lambda x: math.exp(-x) / (1 + math.exp(-x)) ** 2,),
        ((-1.0,), (0.5,), (6.0,)),
    ),
    Function(
        "sin(x²)·eˣ",
        lambda x: torch.sin(x**2) * torch.exp(x),
        (lambda x: (2 * x * math.cos(x**2) + math.sin(x**2)) * math.exp(x),),
        ((-1.0,), (0.5,), (2.0,)),
    ),
    Function(
        "x²y + sin(xy)",
        lambda x, y: x**2 * y + torch.sin(x * y),
        (
            lambda x, y: 2 * x * y + y * math.cos(x * y),
            lambda x, y: x**2 + x * math.cos(x * y),
        ),
        ((1.0, 2.0), (-0.5, 3.0), (2.0, -1.5)),
        variables="xy",
    ),
)

for function in FUNCTIONS:
    assert len(function.partials) == len(function.variables), function.name
    for point in function.points:
        assert len(point) == len(function.variables), (function.name, point)
        # Exact in every dtype: the float64
        # closed form is the reference for all.
        assert all(torch.tensor(v, dtype=torch.bfloat16).item() == v for v in point)

derivatives = sum(len(f.points) * len(f.partials) for f in FUNCTIONS)
print(
    f"{len(FUNCTIONS)} functions, {derivatives} derivatives at a point, "
    f"{len(DTYPES)} dtypes"
)

# %% [markdown] lang="en"
# ## How big should the finite-difference step be?
#
# A central difference (f(x + h) − f(x − h)) / 2h makes three errors. **Truncation**:
# the formula is exact only as h → 0; its error is about h²·|f‴(x)|/6 and grows with h.
# Two **rounding** errors, both divided by a small 2h, so both grow as h shrinks: x ± h
# is rounded to the dtype's precision ε, so the step actually taken is off by up to
# about ε·|x|, which costs about ε·|x·f′(x)|/h; and f(x ± h) are each rounded, which
# costs about ε·|f(x)|/h. Together, rounding costs about ε·(|f(x)| + |x·f′(x)|)/h. The
# sum of rounding and truncation is smallest near h ≈ ε<sup>1/3</sup>.
#
# The figure measures the error of the central difference of eˣ at x = 1 (its derivative
# is e) over fourteen decades of h, in float32 and float64, next to that model.

# %% [markdown] lang="es"
# ## ¿Qué tamaño debe tener el paso de la diferencia finita?
#
# Una diferencia central (f(x + h) − f(x − h)) / 2h comete tres errores. El de
# **truncamiento**: la fórmula solo es exacta en el límite h → 0; su error es del orden
# de h²·|f‴(x)|/6 y crece con h. Y dos de **redondeo**, ambos divididos entre un 2h
# pequeño, así que ambos crecen cuando h se reduce: x ± h se redondea a la precisión ε
# del dtype, de modo que el paso que se da realmente se desvía hasta unos ε·|x|, lo que
# cuesta del orden de ε·|x·f′(x)|/h; y cada f(x ± h) se redondea, lo que cuesta del
# orden de ε·|f(x)|/h. En conjunto, el redondeo cuesta del orden de ε·(|f(x)|
# + |x·f′(x)|)/h. La suma del redondeo y el truncamiento es mínima cerca de h ≈
# ε<sup>1/3</sup>.
#
# La figura mide el error de la diferencia central de eˣ en x = 1 (su derivada es e) a
# lo largo de catorce órdenes de magnitud de h, en float32 y en float64, junto a ese
# modelo.


# %%
def central_difference(f, x, h):
    """(f(x + h) - f(x - h)) / 2h, every operation in the dtype of x."""
    return (f(x + h) - f(x - h)) / (2 * h)


steps = torch.logspace(-14, 0, 141, dtype=torch.float64)
figure, axes = plt.subplots(figsize=(7, 4.2))
best_steps = {}
for dtype, color in ((torch.float32, "tab:orange"), (torch.float64, "tab:blue")):
    eps = torch.finfo(dtype).eps
    x = torch.ones(len(steps), dtype=dtype)
    error = (central_difference(torch.exp, x, steps.to(dtype)).double() - math.e).abs()
    name = str(dtype).removeprefix("torch.")
    # A difference that happens to be exact has
    # error 0, which a log axis cannot show.
    axes.loglog(
        steps, error.where(error > 0, math.nan), color=color, label=f"{name}: |FD − e|"
    )
    # ε·(|f| + |x·f′|)/h + h²·|f‴|/6, with f = f′ = f‴ = e and x = 1.
    model = eps * 2 * math.e / steps + steps**2 * math.e / 6
    axes.loglog(
        steps, model, color=color, linestyle=":", label=f"{name}: ε·2e/h + h²·e/6"
    )
    axes.axvline(eps ** (1 / 3), color=color, linestyle="--", linewidth=0.8)
    best = int(torch.nan_to_num(error, nan=math.inf).argmin())
    best_steps[dtype] = steps[best].item()
    print(
        f"{name}: ε = {eps:.1e}, ε^(1/3) = {eps ** (1 / 3):.1e}; "
        f"smallest error {error[best]:.1e} at h = {steps[best]:.1e}; "
        f"error {error[0]:.1e} at h = {steps[0]:.0e}, "
        f"{error[-1]:.1e} at h = {steps[-1]:.0e}"
    )
    # The V of the figure, as a check: rounding on the left, truncation on the
    # right, and the best step within a factor of ten of ε^(1/3).
    assert error[0] > 100 * error[best] and error[-1] > 100 * error[best]
    assert eps ** (1 / 3) / 10 < steps[best] < eps ** (1 / 3) * 10
axes.set_xlabel("h")
axes.set_ylabel("|FD − f′|")
axes.set_ylim(1e-13, 10)
axes.grid(True, which="major", alpha=0.3)
axes.legend(fontsize=8)


def show(figure, description):
    """Show a figure, described for readers who cannot see it (its alt text)."""
    png = io.BytesIO()
    figure.savefig(
        png, format="png", bbox_inches="tight", pil_kwargs={"optimize": True}
    )
    plt.close(figure)
    data = base64.b64encode(png.getvalue()).decode("ascii")
    alt = html.escape(description)
    display(HTML(f'<img alt="{alt}" src="data:image/png;base64,{data}">'))


show(
    figure,
    "Log-log plot of the error of the central difference of e to the x at x = 1 "
    "against the step h, in float32 and float64: each error falls as h grows, is "
    "smallest near the dashed line at the cube root of the dtype's epsilon, then "
    "rises; a dotted model curve follows each one.",
)
gradcheck_step = inspect.signature(torch.autograd.gradcheck).parameters["eps"].default
print(f"gradcheck's default step: eps={gradcheck_step}")

# %% [markdown] lang="en"
# Both curves are a V on the log–log axes: rounding error falls with slope −1 as h
# grows, truncation error rises with slope 2, and the measured minimum sits next to the
# dashed line at ε<sup>1/3</sup>. The minimum of float32 is several orders of magnitude
# above that of float64: no choice of step lets a float32 finite difference approach
# autograd's accuracy. On the far left of the float32 curve x ± h rounds to x itself and
# the difference is zero, so the error is e. `torch.autograd.gradcheck` compares
# autograd with finite differences too; its default step, printed above, suits float64
# and its documentation warns that the check will likely fail in lower precision.
#
# ## Step and tolerances
#
# The table below uses the step the figure recommends, scaled to the point: h =
# ε<sup>1/3</sup>·max(1, |x|). A value passes when it is within the tolerance that
# `torch.testing.assert_close` uses by default for that dtype: when |value − f′| ≤
# atol + rtol·|f′|. Autograd and the finite difference are held to the same tolerance,
# and a row passes only when both do.

# %% [markdown] lang="es"
# Las dos curvas forman una V con ambos ejes logarítmicos: el error de redondeo baja con
# pendiente −1 al crecer h, el de truncamiento sube con pendiente 2, y el mínimo medido
# queda junto a la línea discontinua en ε<sup>1/3</sup>. El mínimo de float32 está
# varios órdenes de magnitud por encima del de float64: ningún paso permite que una
# diferencia finita en float32 se acerque a la exactitud de autograd. En el extremo
# izquierdo de la curva de float32, x ± h se redondea al propio x y la diferencia vale
# cero, así que el error es e. `torch.autograd.gradcheck` también compara autograd con
# diferencias finitas; su paso por defecto, impreso arriba, está pensado para float64, y
# su documentación advierte de que la comprobación probablemente fallará con precisiones
# menores.
#
# ## Paso y tolerancias
#
# La tabla de abajo usa el paso que recomienda la figura, escalado según el punto: h =
# ε<sup>1/3</sup>·max(1, |x|). Un valor pasa si está dentro de la tolerancia que
# `torch.testing.assert_close` usa por defecto para ese dtype: si |valor − f′| ≤ atol +
# rtol·|f′|. Autograd y la diferencia finita se juzgan con la misma tolerancia, y una
# fila solo pasa si pasan los dos.

# %%
# (rtol, atol): the defaults of torch.testing.assert_close for each dtype, from its
# documentation.
TOLERANCES = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1.3e-6, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
}


def rule_of_thumb_step(dtype, x):
    """The step where rounding and truncation balance, from the figure above."""
    return torch.finfo(dtype).eps ** (1 / 3) * max(1.0, abs(x))


def short(dtype):
    return str(dtype).removeprefix("torch.")


display(
    Markdown(
        "\n".join(
            ["| dtype | ε | rtol | atol | step at x = 1 |", "|---|---|---|---|---|"]
            + [
                f"| {short(d)} | {torch.finfo(d).eps:.1e} | {TOLERANCES[d][0]:g} "
                f"| {TOLERANCES[d][1]:g} | {rule_of_thumb_step(d, 1.0):.1e} |"
                for d in DTYPES
            ]
        )
    )
)

# %% [markdown] lang="en"
# ## Every function, point and dtype
#
# For each row the code computes the closed form in float64, autograd's value and the
# central difference in the row's dtype, and their distances Δ to the closed form. The
# column *tol* is atol + rtol·|f′|; a Δ in bold is over it, and failing rows are tinted
# red. The reasons are:
#
# * `domain`: the point is outside the domain of the derivative, so there is nothing to
#   agree on;
# * `precision`: autograd itself misses the tolerance, because of the dtype's rounding;
# * `FD step`: the finite difference misses it. In brackets, the larger of the two terms
#   of the model above at that step: `rounding` (ε·(|f| + |x·f′|)/h, which grows as h
#   shrinks) or `truncation` (h²·|f‴|/6, which grows with h). f′ and f‴ come from
#   autograd in float64. The model gives orders of magnitude only; at this step, near
#   the bottom of the V, the two terms are often close, and moving h either way may not
#   help.

# %% [markdown] lang="es"
# ## Cada función, punto y dtype
#
# Para cada fila, el código calcula la forma cerrada en float64, el valor de autograd y
# la diferencia central en el dtype de la fila, y sus distancias Δ a la forma cerrada.
# La columna *tol* es atol + rtol·|f′|; una Δ en negrita la supera, y las filas que
# fallan aparecen sombreadas en rojo. Los motivos son:
#
# * `domain` (dominio): el punto está fuera del dominio de la derivada, así que no hay
#   ningún valor en el que coincidir;
# * `precision` (precisión): el propio autograd no cumple la tolerancia, por el redondeo
#   del dtype;
# * `FD step` (paso de la diferencia finita): la diferencia finita no la cumple. Entre
#   corchetes, el mayor de los dos términos del modelo anterior con ese paso: `rounding`
#   (redondeo, ε·(|f| + |x·f′|)/h, que crece cuando h se reduce) o `truncation`
#   (truncamiento, h²·|f‴|/6, que crece con h). f′ y f‴ se obtienen con autograd en
#   float64. El modelo solo da órdenes de magnitud; con este paso, cerca del fondo de la
#   V, los dos términos suelen ser parecidos, y mover h en cualquiera de los dos
#   sentidos puede no servir de nada.


# %%
@dataclass(frozen=True)
class Row:
    function: str
    wrt: str  # the variable of the partial derivative
    point: tuple
    dtype: torch.dtype
    closed_form: float  # float64, the reference
    autograd: float
    fd: float
    step: float
    rtol: float
    atol: float
    reasons: tuple  # empty when the row passes

    @property
    def passed(self):
        return not self.reasons

    @property
    def tolerance(self):
        return self.atol + self.rtol * abs(self.closed_form)


def is_close(value, reference, rtol, atol):
    # assert_close's test: |value - reference| <= atol + rtol * |reference|.
    value, reference = (
        torch.tensor(v, dtype=torch.float64) for v in (value, reference)
    )
    return bool(torch.isclose(value, reference, rtol=rtol, atol=atol))


def along(function, point, index, dtype):
    """f as a function of one argument, the others fixed at the point."""
    fixed = [torch.tensor(v, dtype=dtype) for v in point]
    return lambda t: function.f(*fixed[:index], t, *fixed[index + 1 :])


def fd_error_terms(function, point, index, dtype, h):
    """The model of the figure: (rounding, truncation) for this point and step."""
    x = torch.tensor(point[index], dtype=torch.float64, requires_grad=True)
    derivatives = [along(function, point, index, torch.float64)(x)]  # f, f', f'', f'''
    for _ in range(3):
        if not derivatives[
            -1
        ].requires_grad:  # a polynomial ran out of terms: the rest are 0
            derivatives.append(torch.zeros(()))
            continue
        derivatives.append(
            torch.autograd.grad(derivatives[-1], x, create_graph=True)[0]
        )
    value, slope, third = (abs(derivatives[i].item()) for i in (0, 1, 3))
    # Rounding of f(x ± h), plus rounding of x ± h itself, which moves the step by
    # about ε·|x|.
    rounding = torch.finfo(dtype).eps * (value + abs(point[index]) * slope) / h
    return rounding, h**2 * third / 6


def check(function, point, index, dtype, step_rule, tolerances):
    closed_form = function.partials[index](*point)
    inputs = [torch.tensor(v, dtype=dtype, requires_grad=True) for v in point]
    autograd = torch.autograd.grad(function.f(*inputs), inputs)[index].item()
    h = step_rule(dtype, point[index])
    x = torch.tensor(point[index], dtype=dtype)
    fd = central_difference(along(function, point, index, dtype), x, h).item()
    rtol, atol = tolerances[dtype]
    reasons = []
    if not function.in_domain(*point):
        reasons.append("domain")
    else:
        if not is_close(autograd, closed_form, rtol, atol):
            reasons.append("precision")
        if not is_close(fd, closed_form, rtol, atol):
            rounding, truncation = fd_error_terms(function, point, index, dtype, h)
            larger = "rounding" if rounding > truncation else "truncation"
            reasons.append(f"FD step [{larger}]")
    return Row(
        function.name,
        function.variables[index],
        point,
        dtype,
        closed_form,
        autograd,
        fd,
        h,
        rtol,
        atol,
        tuple(reasons),
    )


def run(step_rule, tolerances):
    return [
        check(function, point, index, dtype, step_rule, tolerances)
        for function in FUNCTIONS
        for point in function.points
        for index in range(len(function.partials))
        for dtype in DTYPES
    ]


def tally(rows):
    passed = sum(r.passed for r in rows)
    return f"{len(rows)} rows: {passed} pass, {len(rows) - passed} fail"


rows = run(rule_of_thumb_step, TOLERANCES)
print(tally(rows))


# %%
def distance(value, row):
    text = f"{abs(value - row.closed_form):.1e}"
    within = is_close(value, row.closed_form, row.rtol, row.atol)
    return text if within else f"<b>{text}</b>"


# The headers, one string: "|" between columns, "/" between the values stacked in one.
HEADERS = "|f|at|dtype|reason|closed form / autograd / FD|Δ autograd / Δ FD|tol / h"
COLUMNS = HEADERS.split("|")
# Compact cells, failing rows tinted, related values stacked so that the table fits the
# page's column. One style sheet per table, not a style on every cell.
STYLE = """<style>
.derivatives table:not([class]) :is(th, td) {
  padding: 0.3em 0.45em; min-width: 0; white-space: nowrap;
}
.derivatives table:not([class]) td:nth-child(n + 6) { text-align: right; }
.derivatives table:not([class]) tr.failed { background: rgba(229, 57, 53, 0.08); }
</style>"""


def table(rows):
    head = "".join(f"<th>{name.replace(' / ', '<br>')}</th>" for name in COLUMNS)
    body = []
    for row in rows:
        name = row.function if len(row.point) == 1 else f"{row.function}, ∂/∂{row.wrt}"
        cells = (
            "✓" if row.passed else "<b>✗</b>",
            name,
            ", ".join(f"{v:g}" for v in row.point),
            short(row.dtype),
            "; ".join(row.reasons),
            f"{row.closed_form:.7g}<br>{row.autograd:.7g}<br>{row.fd:.7g}",
            f"{distance(row.autograd, row)}<br>{distance(row.fd, row)}",
            f"{row.tolerance:.1e}<br>{row.step:.1e}",
        )
        tds = "".join(f"<td>{c}</td>" for c in cells)
        failed = "" if row.passed else ' class="failed"'
        body.append(f"<tr{failed}>{tds}</tr>")
    return HTML(
        f'<div class="derivatives">{STYLE}<table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


display(table(rows))

# %% [markdown] lang="en"
# ## Why the failing rows fail
#
# **Domain.** At x = 0 the closed forms are infinite. Autograd follows the same formulas
# and returns an infinity too, but the central difference straddles the singularity: for
# `log x` it evaluates log(−h), which is `nan`, and for `1/x` it returns 1/h², a large
# number with the wrong sign. These rows fail because no derivative exists there,
# whatever the three values say.
#
# **Precision.** Autograd does not differentiate tanh symbolically: its backward formula
# is 1 − tanh(x)², computed from the forward result in the dtype of the row. Where tanh
# saturates, that result rounds to a value close to 1 and the subtraction cancels most
# of the significant bits that bfloat16 has. The sigmoid, with σ(x)·(1 − σ(x)), fails at
# x = 6 in the same way. The cell below shows the cancellation step by step.

# %% [markdown] lang="es"
# ## Por qué fallan las filas que fallan
#
# **Dominio.** En x = 0 las formas cerradas son infinitas. Autograd sigue las mismas
# fórmulas y también devuelve un infinito, pero la diferencia central toma puntos a
# ambos lados de la singularidad: para `log x` evalúa log(−h), que es `nan`, y para
# `1/x` devuelve 1/h², un número grande con el signo equivocado. Estas filas fallan
# porque ahí no existe la derivada, digan lo que digan los tres valores.
#
# **Precisión.** Autograd no deriva tanh de forma simbólica: su fórmula de la pasada
# hacia atrás es 1 − tanh(x)², calculada a partir del resultado de la pasada hacia
# delante en el dtype de la fila. Donde tanh se satura, ese resultado se redondea a un
# valor cercano a 1 y la resta cancela la mayoría de los bits significativos que tiene
# bfloat16. La sigmoide, con σ(x)·(1 − σ(x)), falla en x = 6 de la misma manera. La
# celda de abajo muestra la cancelación paso a paso.

# %%
x = torch.tensor(3.0, dtype=torch.bfloat16, requires_grad=True)
y = torch.tanh(x)
y.backward()
exact = 1 / math.cosh(3.0) ** 2  # the closed form, independent of tanh
print(f"tanh(3) in bfloat16: {y.item()!r}   in float64: {math.tanh(3.0)!r}")
print(f"1 - tanh(3)² from the bfloat16 value: {1 - y.item() ** 2!r}")
print(f"autograd in bfloat16: {x.grad.item()!r}   closed form: {exact!r}")
print(f"relative error: {abs(x.grad.item() - exact) / exact:.0%}")
# The failure the table reports, shown by torch's own check with bfloat16's default
# tolerance.
try:
    assert_close(x.grad, torch.tensor(exact, dtype=torch.bfloat16))
except AssertionError as error:
    print(error)
    # The values, not the dtypes, must be what failed.
    assert str(error).startswith("Scalars are not close!"), error
else:
    raise AssertionError("tanh'(3) in bfloat16 should miss the default tolerance")

# %% [markdown] lang="en"
# **FD step.** Held to the tolerance autograd meets, the finite difference fails in many
# float32 and bfloat16 rows, even with the step of the figure: its error cannot go below
# the bottom of the V, which lies far above ε. In float64 the bottom of the V is below
# the default tolerance, so every float64 row in the domain passes.
#
# ## The story, as checks
#
# The next cell counts the rows and asserts what the table shows: no row is missing,
# autograd in float64 agrees with every closed form in the domain to far better than any
# tolerance above, and, as a consistency check, each row's verdict and reasons match
# what `torch.testing.assert_close` says about the same numbers. That check confirms the
# bookkeeping (no reason lost or misfiled), not the verdicts themselves: `assert_close`
# applies the same inequality as `is_close`, so the verdicts rest on the closed forms
# and tolerances above.

# %% [markdown] lang="es"
# **Paso de la diferencia finita.** Con la tolerancia que cumple autograd, la diferencia
# finita falla en muchas filas de float32 y de bfloat16, incluso con el paso de la
# figura: su error no puede bajar del fondo de la V, que queda muy por encima de ε. En
# float64 el fondo de la V está por debajo de la tolerancia por defecto, así que todas
# las filas de float64 dentro del dominio pasan.
#
# ## Lo anterior, en forma de comprobaciones
#
# La celda siguiente cuenta las filas y comprueba con `assert` lo que muestra la tabla:
# no falta ninguna fila, autograd en float64 coincide con cada forma cerrada dentro del
# dominio con un error muy por debajo de cualquiera de las tolerancias anteriores y,
# como comprobación de coherencia, el veredicto y los motivos de cada fila coinciden con
# lo que dice `torch.testing.assert_close` de los mismos números. Esa comprobación
# confirma la contabilidad (ningún motivo perdido ni mal asignado), no los veredictos en
# sí: `assert_close` aplica la misma desigualdad que `is_close`, así que los veredictos
# se apoyan en las formas cerradas y las tolerancias anteriores.


# %%
def counts(rows):
    lines = [
        "| dtype | rows | ✓ | ✗ | `domain` | `precision` | `FD step` |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for dtype in DTYPES:
        mine = [r for r in rows if r.dtype == dtype]
        reasons = [reason.split(" [")[0] for r in mine for reason in r.reasons]
        lines.append(
            f"| {short(dtype)} | {len(mine)} | {sum(r.passed for r in mine)} "
            f"| {sum(not r.passed for r in mine)} | {reasons.count('domain')} "
            f"| {reasons.count('precision')} | {reasons.count('FD step')} |"
        )
    return Markdown("\n".join(lines))


def judged_by_torch(value, row):
    value, reference = (
        torch.tensor(v, dtype=torch.float64) for v in (value, row.closed_form)
    )
    try:
        assert_close(value, reference, rtol=row.rtol, atol=row.atol)
    except AssertionError:
        return False
    return True


display(counts(rows))

# No row dropped: counted by hand, 9 functions of x and f(x, y) with its 2 partials,
# 3 points each, in 3 dtypes.
expected = (9 * 3 + 1 * 3 * 2) * 3
keys = {(r.function, r.point, r.wrt, r.dtype) for r in rows}
assert len(rows) == len(keys) == expected, (len(rows), len(keys), expected)

# Autograd in float64 agrees with every closed form in the domain, far below any
# tolerance above.
in_domain = [r for r in rows if r.dtype == torch.float64 and "domain" not in r.reasons]
worst = max(
    abs(r.autograd - r.closed_form) / max(1.0, abs(r.closed_form)) for r in in_domain
)
print(f"largest relative error of autograd in float64: {worst:.1e}")
# Each side rounds a few times, each within 2⁻⁵³ (libm within 2⁻⁵²): 16·2⁻⁵² bounds
# that with room, and a wrong formula or a lower precision misses it by far.
assert worst <= 16 * 2**-52

# Consistency: each row's reasons match assert_close on the same numbers. It applies
# the same inequality as is_close, so this checks the bookkeeping, not the tolerances
# or closed forms.
for r in rows:
    if "domain" in r.reasons:
        assert not math.isfinite(r.closed_form), r
        continue
    fd_failed = any(reason.startswith("FD step") for reason in r.reasons)
    assert judged_by_torch(r.autograd, r) == ("precision" not in r.reasons), r
    assert judged_by_torch(r.fd, r) == (not fd_failed), r

# The failures are where the explanation above puts them.
assert all("precision" not in r.reasons for r in rows if r.dtype != torch.bfloat16)
assert any("precision" in r.reasons for r in rows if r.dtype == torch.bfloat16)
assert all(r.passed for r in in_domain)

# %% [markdown] lang="en"
# ## Your turn: move the line between pass and fail
#
# Change a tolerance or the step below and run the cell again; it recomputes every row
# and shows the counts before and after, and the rows that changed side. As shipped, it
# tightens float64 to 10⁻¹²: autograd keeps passing everywhere in the domain, and most
# float64 finite differences fail, because the bottom of their V lies above 10⁻¹². Then
# try `my_step = lambda dtype, x: 1e-4`, a step that ignores the dtype, or `atol = 0`
# for float32.

# %% [markdown] lang="es"
# ## Tu turno: mueve la frontera entre pasar y fallar
#
# Cambia abajo una tolerancia o el paso y vuelve a ejecutar la celda; recalcula todas
# las filas y muestra los recuentos antes y después, y las filas que cambiaron de lado.
# Tal como viene, endurece la tolerancia de float64 hasta 10⁻¹²: autograd sigue pasando
# en todo el dominio, y la mayoría de las diferencias finitas en float64 fallan, porque
# el fondo de su V está por encima de 10⁻¹². Prueba después `my_step = lambda dtype, x:
# 1e-4`, un paso que ignora el dtype, o `atol = 0` para float32.

# %%
# Change these, then run the cell again.
my_tolerances = dict(TOLERANCES)
my_tolerances[torch.float64] = (1e-12, 1e-12)  # (rtol, atol); default (1e-7, 1e-7)
my_tolerances[torch.float32] = (1.3e-6, 1e-5)  # the default; try atol = 0
my_step = rule_of_thumb_step  # try: lambda dtype, x: 1e-4

after = run(my_step, my_tolerances)
moved = [new for old, new in zip(rows, after, strict=True) if old.passed != new.passed]
print(f"before your change: {tally(rows)}")
print(f"after your change:  {tally(after)}")
print(
    f"moved:  {sum(not r.passed for r in moved)} to fail, "
    f"{sum(r.passed for r in moved)} to pass"
)
display(counts(after))
display(table(moved))

# %% [markdown] lang="en"
# ## Sources
#
# * [`torch.autograd.grad`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad.html)
# * [`torch.testing.assert_close`](https://docs.pytorch.org/docs/stable/testing.html),
#   with its table of default tolerances per dtype
# * [`torch.finfo`](https://docs.pytorch.org/docs/stable/type_info.html), where ε comes
#   from
# * [`torch.autograd.gradcheck`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradcheck.html)
# * [`tools/autograd/derivatives.yaml`](https://github.com/pytorch/pytorch/blob/main/tools/autograd/derivatives.yaml),
#   where PyTorch declares each backward formula: `tanh_backward(grad, result)` and
#   `sigmoid_backward(grad, result)` work from the forward result

# %% [markdown] lang="es"
# ## Fuentes
#
# * [`torch.autograd.grad`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad.html)
# * [`torch.testing.assert_close`](https://docs.pytorch.org/docs/stable/testing.html),
#   con su tabla de tolerancias por defecto para cada dtype
# * [`torch.finfo`](https://docs.pytorch.org/docs/stable/type_info.html), de donde sale
#   ε
# * [`torch.autograd.gradcheck`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradcheck.html)
# * [`tools/autograd/derivatives.yaml`](https://github.com/pytorch/pytorch/blob/main/tools/autograd/derivatives.yaml),
#   donde PyTorch declara cada fórmula de la pasada hacia atrás: `tanh_backward(grad,
#   result)` y `sigmoid_backward(grad, result)` parten del resultado de la pasada hacia
#   delante
