"""q and q_± of def8 (even2023 §3, eqs. (4)–(5)) as sympy expressions in one real variable x, shared by
the claim modules that reason about them exactly, and the proofs of their signs and bounds as printed
(def8; the Gain of def12, eq. (9); Prop. 15; fact6): every x of the stated domain is covered, by a
change of variable onto [0, ∞) and monotonicity there (:func:`verify.certify.nondecreasing_from`).

q depends on x through x² only (q_fn is written in x**2; the proofs check q(−x) = q(x) too), so the
proofs about q cover x ≥ 0 and x < 0 alike. The maps onto [0, ∞), with t ≥ 0:

* x² = t/(1 + t) covers x² ∈ [0, 1), i.e. x ∈ (−1, 1); there q = log(1 + t) and x²/(1 − x²) = t;
* s = −t covers s ≤ 0 and s = t/(1 + t) covers s ∈ [0, 1) (for q_+ on (−∞, 1) and atanh on [0, 1));
* s² = 1 + (c − 1)/(1 + v), v ≥ 0, covers 1 < s² ≤ c (c = 2: up to √2), where q = log(1 + v) − log(c − 1).

The ``*_factor`` / ``edge_sq`` arguments exist for the planted errors (a constant off by a percent):
the same proof path then fails at a certified point.
"""
from typing import Any

import sympy as sp

from verify import symbolic
from verify.certify import nondecreasing_from

x = sp.Symbol("x", real=True)
q_plus = -2 * x - sp.log((1 - x) ** 2)
q_minus = 2 * x - sp.log((1 + x) ** 2)
q_fn = -sp.log((1 - x ** 2) ** 2) / 2

t = sp.Symbol("t", nonnegative=True)
T_OVER_1PT = t / (1 + t)      # the map t ↦ t/(1 + t) of [0, ∞) onto [0, 1)
INSIDE = "x ∈ (−1, 1) ↔ t = x²/(1 − x²) ∈ [0, ∞), x² = t/(1 + t)"


def _q_even(name: str):
    """q(−x) = q(x): the proofs about q, written for x² ≥ 0, cover both signs of x."""
    return symbolic.identity(f"{name}_q_even", lambda: q_fn.subs(x, -x), q_fn)


def _q_of_t(name: str):
    """q(x) = log(1 + t) for x² = t/(1 + t)."""
    return symbolic.identity(f"{name}_q_of_t", lambda: q_fn.subs(x, sp.sqrt(T_OVER_1PT)), lambda: sp.log(1 + t),
                             why=INSIDE)


def _log_above_ratio(name: str, why: str, factor: Any = 1):
    """log(1 + t) ≥ factor·t/(1 + t) on [0, ∞) (factor 1: the derivative is t/(1 + t)²)."""
    return nondecreasing_from(name, sp.log(1 + t) - sp.sympify(factor) * T_OVER_1PT, t, 0, why=why)


def _log_below(name: str, why: str, factor: Any = 1):
    """log(1 + t) ≤ factor·t on [0, ∞) (factor 1: the derivative is t/(1 + t))."""
    return nondecreasing_from(name, sp.sympify(factor) * t - sp.log(1 + t), t, 0, why=why)


def q_sandwich_proved(name: str = "q_sandwich", lower_factor: Any = 1, upper_factor: Any = 1):
    """x² ≤ q(x) ≤ x²/(1 − x²) on (−1, 1) (def8, §3), proved: with x² = t/(1 + t) it reads
    t/(1 + t) ≤ log(1 + t) ≤ t on [0, ∞). Planted errors: lower_factor·x² ≤ q ≤ upper_factor·x²/(1 − x²)."""
    low = "x² ≤ q(x)" if lower_factor == 1 else f"{lower_factor}·x² ≤ q(x)"
    up = "q(x) ≤ x²/(1 − x²)" if upper_factor == 1 else f"q(x) ≤ {upper_factor}·x²/(1 − x²)"
    return symbolic.all_of(name, [
        _q_even(name),
        _q_of_t(name),
        symbolic.identity(f"{name}_rhs_of_t", lambda: (x ** 2 / (1 - x ** 2)).subs(x, sp.sqrt(T_OVER_1PT)), t,
                          why=INSIDE),
        symbolic.identity(f"{name}_t_of_x2", lambda: T_OVER_1PT.subs(t, x ** 2 / (1 - x ** 2)), x ** 2, why=INSIDE),
        _log_above_ratio(f"{name}_lower", low, lower_factor),
        _log_below(f"{name}_upper", up, upper_factor)])


def q_pm_nonneg_proved(name: str = "q_pm_nonneg"):
    """q_+(s) ≥ 0 for every s < 1 and q_−(s) = q_+(−s) ≥ 0 for every s > −1 (def8, eq. (5); the step
    of Prop. 15's .suff), proved: s = −t gives q_+ = 2(t − log(1 + t)) and s = t/(1 + t) gives
    q_+ = 2(log(1 + t) − t/(1 + t)), t ≥ 0 (together all of (−∞, 1)) — the q sandwich's two lemmas."""
    return symbolic.all_of(name, [
        symbolic.identity(f"{name}_q_minus_mirrors", q_minus, lambda: q_plus.subs(x, -x)),
        symbolic.identity(f"{name}_negative_s", lambda: q_plus.subs(x, -t), lambda: 2 * (t - sp.log(1 + t)),
                          why="s = −t ≤ 0"),
        symbolic.identity(f"{name}_s_in_0_1", lambda: q_plus.subs(x, T_OVER_1PT),
                          lambda: 2 * (sp.log(1 + t) - T_OVER_1PT), why="s = t/(1 + t) ∈ [0, 1)"),
        symbolic.identity(f"{name}_map", lambda: T_OVER_1PT.subs(t, x / (1 - x)), x,
                          why="s ∈ [0, 1) ↔ t = s/(1 − s) ∈ [0, ∞)"),
        _log_below(f"{name}_t_minus_log", "q_+(−t) ≥ 0"),
        _log_above_ratio(f"{name}_log_minus_ratio", "q_+(t/(1 + t)) ≥ 0")])


def atanh_bound_proved(name: str = "atanh_bound", factor: Any = 1):
    """|atanh x − x| ≤ |x|³/(3(1 − x²)) on (−1, 1) (def8, the remainder of q_+ − q_− = 4(atanh x − x)),
    proved: both sides are even in x (atanh is odd), and for x = t/(1 + t) ∈ [0, 1), t ≥ 0,
    0 ≤ atanh x − x ≤ x³/(3(1 − x²)), each a difference that vanishes at t = 0 with a derivative ≥ 0.
    Planted errors: the bound times ``factor``."""
    xt = T_OVER_1PT
    c = sp.sympify(factor)
    return symbolic.all_of(name, [
        symbolic.identity(f"{name}_atanh_odd", lambda: sp.atanh(-x), lambda: -sp.atanh(x),
                          why="so |atanh x − x| and |x|³/(3(1 − x²)) are even in x"),
        symbolic.identity(f"{name}_map", lambda: xt.subs(t, x / (1 - x)), x, why="x ∈ [0, 1) ↔ t = x/(1 − x) ∈ [0, ∞)"),
        nondecreasing_from(f"{name}_sign", sp.atanh(xt) - xt, t, 0, why="atanh x − x ≥ 0 on [0, 1)"),
        nondecreasing_from(f"{name}_bound", c * xt ** 3 / (3 * (1 - xt ** 2)) - (sp.atanh(xt) - xt), t, 0,
                           why="atanh x − x ≤ x³/(3(1 − x²)) on [0, 1)" if factor == 1
                           else f"atanh x − x ≤ {factor}·x³/(3(1 − x²)) on [0, 1)")])


def q_nonneg_to_sqrt2_proved(name: str = "q_nonneg_up_to_sqrt2", edge_sq: Any = 2):
    """q(s) ≥ 0 for |s| ≤ √2, s ≠ ±1 (def8; every term of the Gain of def12, eq. (9)), proved: on
    (−1, 1) q ≥ s² (the sandwich's lower side); for 1 < s² ≤ 2 write s² = 1 + 1/(1 + v), v ≥ 0, where
    q = log(1 + v) ≥ 0. Planted errors: up to s² ≤ ``edge_sq`` (q = log(1 + v) − log(edge_sq − 1))."""
    v = sp.Symbol("v", nonnegative=True)
    c = sp.sympify(edge_sq) - 1
    return symbolic.all_of(name, [
        _q_even(name),
        _q_of_t(name),
        _log_above_ratio(f"{name}_inside", "q(s) ≥ s² ≥ 0 on (−1, 1)"),
        symbolic.identity(f"{name}_q_of_v", lambda: q_fn.subs(x, sp.sqrt(1 + c / (1 + v))),
                          lambda: sp.log(1 + v) - sp.log(c), why=f"1 < s² ≤ {edge_sq} ↔ v = {c}/(s² − 1) − 1 ∈ [0, ∞)"),
        nondecreasing_from(f"{name}_outside", sp.log(1 + v) - sp.log(c), v, 0,
                           why=f"q ≥ 0 for 1 < s² ≤ {edge_sq}")])


def q_sign_proved(name: str = "q_sign"):
    """q(x) ≥ 0 iff |x| ≤ √2 (x ≠ ±1) (def8): :func:`q_nonneg_to_sqrt2_proved`, and for x² = 2 + w,
    w > 0, q = −log(1 + w) < 0."""
    w = sp.Symbol("w", positive=True)
    return symbolic.all_of(name, [
        q_nonneg_to_sqrt2_proved(f"{name}_nonneg_up_to_sqrt2"),
        symbolic.identity(f"{name}_q_beyond", lambda: q_fn.subs(x, sp.sqrt(2 + w)), lambda: -sp.log(1 + w),
                          why="s² > 2 ↔ w = s² − 2 > 0"),
        symbolic.truth(f"{name}_negative_beyond", lambda: -sp.log(1 + w) < 0, why="−log(1 + w) < 0 for w > 0")])
