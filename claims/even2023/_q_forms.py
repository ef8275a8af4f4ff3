"""q and q_± of def8 (even2023, eqs. (4)–(5)) as sympy expressions in one real variable x, shared by
the claim modules that reason about them exactly."""
from typing import Any

import sympy as sp

x = sp.Symbol("x", real=True)
q_plus = -2 * x - sp.log((1 - x) ** 2)
q_minus = 2 * x - sp.log((1 + x) ** 2)
q_fn = -sp.log((1 - x ** 2) ** 2) / 2

# The sandwich x² ≤ q(x) ≤ x²/(1 − x²) on (−1, 1) (def8; the mechanism of fact6), on the whole open
# interval: with t = x²/(1 − x²), which maps x² ∈ [0, 1) onto t ∈ [0, ∞), x² = t/(1 + t), q(x) = log(1 + t)
# and x²/(1 − x²) = t, so the sandwich is t/(1 + t) ≤ log(1 + t) ≤ t for t ≥ 0: both sides vanish at
# t = 0 and their differences have derivatives t/(1 + t)² and t/(1 + t), both ≥ 0 (mean value theorem).
t = sp.Symbol("t", nonnegative=True)
X2_OF_T = t / (1 + t)


def q_sandwich_proved(name: str = "q_sandwich", upper_factor: Any = 1):
    """The q sandwich as printed, proved: the substitution (exact identities) and both sides of
    t/(1 + t) ≤ log(1 + t) ≤ t on [0, ∞) (:func:`verify.certify.nondecreasing_from`).
    ``upper_factor`` (planted errors): the upper side read as q ≤ factor·x²/(1 − x²)."""
    from verify import symbolic
    from verify.certify import nondecreasing_from
    why = "x ∈ (−1, 1) ↔ t = x²/(1 − x²) ∈ [0, ∞)"
    return symbolic.all_of(name, [
        symbolic.identity(f"{name}_q_of_t", lambda: q_fn.subs(x, sp.sqrt(X2_OF_T)), lambda: sp.log(1 + t), why=why),
        symbolic.identity(f"{name}_rhs_of_t", lambda: (x ** 2 / (1 - x ** 2)).subs(x, sp.sqrt(X2_OF_T)), t, why=why),
        symbolic.identity(f"{name}_t_of_x2", lambda: X2_OF_T.subs(t, x ** 2 / (1 - x ** 2)), x ** 2, why=why),
        nondecreasing_from(f"{name}_lower", sp.log(1 + t) - X2_OF_T, t, 0, why="x² ≤ q(x)"),
        nondecreasing_from(f"{name}_upper", sp.sympify(upper_factor) * t - sp.log(1 + t), t, 0,
                           why="q(x) ≤ x²/(1 − x²)" if upper_factor == 1 else f"q(x) ≤ {upper_factor}·x²/(1 − x²)")])
