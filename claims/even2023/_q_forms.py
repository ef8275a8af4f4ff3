"""q and q_± of def8 (even2023, eqs. (4)–(5)) as sympy expressions in one real variable x, shared by
the claim modules that reason about them exactly, and the proofs of their signs and bounds as printed
(every x of the stated domain, by a change of variable onto [0, ∞) and monotonicity)."""
from typing import Any

import sympy as sp

from verify import symbolic
from verify.certify import nondecreasing_from

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
INSIDE = "x ∈ (−1, 1) ↔ t = x²/(1 − x²) ∈ [0, ∞)"


def _q_of_t(name: str):
    """q(x) = log(1 + t) for x² = t/(1 + t)."""
    return symbolic.identity(f"{name}_q_of_t", lambda: q_fn.subs(x, sp.sqrt(X2_OF_T)), lambda: sp.log(1 + t),
                             why=INSIDE)


def _log_above_ratio(name: str, why: str):
    """log(1 + t) ≥ t/(1 + t) on [0, ∞) (derivative t/(1 + t)²)."""
    return nondecreasing_from(name, sp.log(1 + t) - X2_OF_T, t, 0, why=why)


def _log_below(name: str, why: str, factor: Any = 1):
    """log(1 + t) ≤ factor·t on [0, ∞) (factor 1: derivative t/(1 + t))."""
    return nondecreasing_from(name, sp.sympify(factor) * t - sp.log(1 + t), t, 0, why=why)


def q_sandwich_proved(name: str = "q_sandwich", upper_factor: Any = 1):
    """The q sandwich as printed, proved: the substitution (exact identities) and both sides of
    t/(1 + t) ≤ log(1 + t) ≤ t on [0, ∞) (:func:`verify.certify.nondecreasing_from`).
    ``upper_factor`` (planted errors): the upper side read as q ≤ factor·x²/(1 − x²)."""
    return symbolic.all_of(name, [
        _q_of_t(name),
        symbolic.identity(f"{name}_rhs_of_t", lambda: (x ** 2 / (1 - x ** 2)).subs(x, sp.sqrt(X2_OF_T)), t,
                          why=INSIDE),
        symbolic.identity(f"{name}_t_of_x2", lambda: X2_OF_T.subs(t, x ** 2 / (1 - x ** 2)), x ** 2, why=INSIDE),
        _log_above_ratio(f"{name}_lower", "x² ≤ q(x)"),
        _log_below(f"{name}_upper", "q(x) ≤ x²/(1 − x²)" if upper_factor == 1
                   else f"q(x) ≤ {upper_factor}·x²/(1 − x²)", upper_factor)])


def q_pm_nonneg_proved(name: str = "q_pm_nonneg"):
    """q_+(s) ≥ 0 for every s < 1 and q_−(s) = q_+(−s) ≥ 0 for every s > −1, proved: s = −t gives
    q_+ = 2(t − log(1 + t)) and s = t/(1 + t) gives q_+ = 2(log(1 + t) − t/(1 + t)), t ≥ 0 (together
    all of (−∞, 1)) — the two sides of the q sandwich again."""
    return symbolic.all_of(name, [
        symbolic.identity(f"{name}_q_minus_mirrors", q_minus, lambda: q_plus.subs(x, -x)),
        symbolic.identity(f"{name}_negative_s", lambda: q_plus.subs(x, -t), lambda: 2 * (t - sp.log(1 + t)),
                          why="s = −t ≤ 0"),
        symbolic.identity(f"{name}_s_in_0_1", lambda: q_plus.subs(x, X2_OF_T), lambda: 2 * (sp.log(1 + t) - X2_OF_T),
                          why="s = t/(1 + t) ∈ [0, 1)"),
        _log_below(f"{name}_t_minus_log", "q_+(−t) ≥ 0"),
        _log_above_ratio(f"{name}_log_minus_ratio", "q_+(t/(1 + t)) ≥ 0")])


def atanh_bound_proved(name: str = "atanh_bound"):
    """|atanh x − x| ≤ |x|³/(3(1 − x²)) on (−1, 1), proved: both sides are even, and for x = t/(1 + t)
    ∈ [0, 1) (t ≥ 0) 0 ≤ atanh x − x ≤ x³/(3(1 − x²)), each a difference that vanishes at t = 0 with a
    derivative ≥ 0."""
    xt = X2_OF_T   # the same map t ↦ t/(1 + t), here onto x ∈ [0, 1)
    return symbolic.all_of(name, [
        symbolic.identity(f"{name}_lhs_even", lambda: sp.Abs(sp.atanh(-x) + x), lambda: sp.Abs(sp.atanh(x) - x)),
        symbolic.identity(f"{name}_rhs_even", lambda: sp.Abs(-x) ** 3 / (3 * (1 - x ** 2)),
                          lambda: sp.Abs(x) ** 3 / (3 * (1 - x ** 2))),
        symbolic.identity(f"{name}_map", lambda: xt.subs(t, x / (1 - x)), x, why="x ∈ [0, 1) ↔ t = x/(1 − x) ∈ [0, ∞)"),
        nondecreasing_from(f"{name}_sign", sp.atanh(xt) - xt, t, 0, why="atanh x − x ≥ 0 on [0, 1)"),
        nondecreasing_from(f"{name}_bound", xt ** 3 / (3 * (1 - xt ** 2)) - (sp.atanh(xt) - xt), t, 0,
                           why="atanh x − x ≤ x³/(3(1 − x²)) on [0, 1)")])


def q_nonneg_to_sqrt2_proved(name: str = "q_nonneg_up_to_sqrt2"):
    """q(s) ≥ 0 for |s| ≤ √2, s ≠ ±1 (the Gain of def12 is a sum of such q), proved: on (−1, 1) q ≥ s²
    (the sandwich's lower side, t = s²/(1 − s²)); for 1 < s² ≤ 2 write s² = 1 + 1/(1 + v), v ≥ 0, where
    q = log(1 + v) ≥ 0."""
    v = sp.Symbol("v", nonnegative=True)
    return symbolic.all_of(name, [
        _q_of_t(name),
        _log_above_ratio(f"{name}_inside", "q(s) ≥ s² ≥ 0 on (−1, 1)"),
        symbolic.identity(f"{name}_q_of_v", lambda: q_fn.subs(x, sp.sqrt(1 + 1 / (1 + v))), lambda: sp.log(1 + v),
                          why="1 < s² ≤ 2 ↔ v = 1/(s² − 1) − 1 ∈ [0, ∞)"),
        symbolic.truth(f"{name}_outside", lambda: sp.log(1 + v) >= 0, why="log(1 + v) ≥ 0 for v ≥ 0")])


def q_sign_proved(name: str = "q_sign"):
    """q(x) ≥ 0 iff |x| ≤ √2 (x ≠ ±1): :func:`q_nonneg_to_sqrt2_proved`, and for x² = 2 + w, w > 0,
    q = −log(1 + w) < 0."""
    w = sp.Symbol("w", positive=True)
    return symbolic.all_of(name, [
        q_nonneg_to_sqrt2_proved(f"{name}_nonneg_up_to_sqrt2"),
        symbolic.identity(f"{name}_q_beyond", lambda: q_fn.subs(x, sp.sqrt(2 + w)), lambda: -sp.log(1 + w),
                          why="s² > 2 ↔ w = s² − 2 > 0"),
        symbolic.truth(f"{name}_negative_beyond", lambda: -sp.log(1 + w) < 0, why="−log(1 + w) < 0 for w > 0")])
