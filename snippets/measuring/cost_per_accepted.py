"""Cost per accepted result: the rejected results are paid for by the accepted ones.

On its own: python snippets/measuring/cost_per_accepted.py
"""

# --8<-- [start:cost]
from fractions import Fraction  # exact arithmetic: the comparisons below are exact

# Assumed for the example, not measured: the price of a
# machine-hour, and for two configurations the seconds per
# call and the share of results the task's check accepts.
PRICE_PER_HOUR = Fraction(36, 10)
configurations = {
    "float32": {"seconds_per_call": Fraction(4, 1000), "accepted": Fraction(1)},
    "bfloat16": {
        "seconds_per_call": Fraction(25, 10000),
        "accepted": Fraction(55, 100),
    },
}


def cost_per_call(seconds_per_call):
    return PRICE_PER_HOUR / 3600 * seconds_per_call


def cost_per_accepted(seconds_per_call, accepted):
    # Every call is paid for; only the accepted share of the results is worth anything.
    return cost_per_call(seconds_per_call) / accepted


per_million = {
    name: (
        1_000_000 * cost_per_call(c["seconds_per_call"]),
        1_000_000 * cost_per_accepted(c["seconds_per_call"], c["accepted"]),
    )
    for name, c in configurations.items()
}
for name, (calls, accepted) in per_million.items():
    print(
        f"{name}: {float(calls):.4g} per million calls, "
        f"{float(accepted):.4g} per million accepted"
    )
# > float32: 4 per million calls, 4 per million accepted
# > bfloat16: 2.5 per million calls, 4.545 per million accepted

# The same number from its definition: spent
# on a run of calls / results accepted in it.
calls_run, accepted_in_run = 200, 110  # 55 % of 200
spent = calls_run * cost_per_call(configurations["bfloat16"]["seconds_per_call"])
assert 1_000_000 * spent / accepted_in_run == per_million["bfloat16"][1]

# bfloat16 is cheaper per accepted result
# only above this acceptance share.
break_even = (
    configurations["bfloat16"]["seconds_per_call"]
    / configurations["float32"]["seconds_per_call"]
)
print(float(break_even))
# > 0.625
assert cost_per_accepted(
    configurations["bfloat16"]["seconds_per_call"], break_even
) == cost_per_accepted(configurations["float32"]["seconds_per_call"], 1)
# --8<-- [end:cost]
