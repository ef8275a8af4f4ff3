"""GD on f(x, y) = ℓ(xy) as a declared step kernel: the map, the first-class observers, the stop rule.

The map is G_η(x, y) = (x − η ℓ'(xy) y, y − η ℓ'(xy) x) (Ahn et al. 2023, eq. (2)), written as the
chain rule of the composite objective f = ℓ(u), u = xy, with ℓ' the loss's own compiled kernel
(generated from its sympy form) passed at run time. The observers (Ahn et al. 2023 notation, spec §0):

* ``t_bar`` — t̄, the first t with y_t² < 2/η; ``s_cross`` = |s_t̄| (s = xy);
* ``bounce`` — the bouncing length T = #{t : y_t² > 2/η}; ``s_last_bounce``, ``delta_last_bounce``
  (δ_t = ηy_t² − 2) at the last bouncing step;
* ``t0`` — the operational t₀ (definition 7: first t with x_t ≤ 0 or |s_t| ≤ s_c), ``D_t0`` = y² − x²
  there, and after it ``bounce_from_t0``, ``s_max_after_t0``, ``x_max_after_t0``;
* ``s_max`` = max |s_t|, ``t_small`` = first t with |s_t| ≤ s_eps;
* ``log_prod`` = Σ log(1 − η²ℓ'(s_t)²), so that D_∞ = D₀ ∏(1 − η²ℓ'(s_t)²) (compensated log sum);
* the quasi-static ratio |s_t|^β/(δ_t + shift) over bouncing steps t ≥ t₀ with δ_t in [lo, hi]
  (``qs_count``, ``qs_min``, ``qs_max``; only when β > 0);
* ``contraction_min`` = min over t ≥ t̄ of log(|x_t|/|x_{t+1}|)/ρ_t, ρ_t = 2 − ηy_t² (eq. (15);
  only when ``track``).

Stop rule: before a step, the budget (outcome 3) and x exactly 0 (a fixed point, 1); after it,
divergence (|x| or |y| ≥ 1e150, 2), x frozen at exactly 0 (1), and convergence (0): |x_{t+1}| ≤ xtol,
or the estimated remaining relative drop of D, Σ_k η²ℓ'(s_k)² ≤ η²y²Σ_k x_k² (|ℓ'(s)| ≤ |s|)
≈ η²y²x²/(1 − q²) with q = |x_{t+1}/x_t|, is ≤ rtol (recorded as ``tail``).

Every product of more than two factors is a chain of named intermediates: that fixes the rounding
(see :mod:`.stepkernel`), so the results are those of the engine this replaced, bit for bit
(``tests/test_lane_engine_identity.py``).
"""
from __future__ import annotations

import sympy as sp

from .outcomes import HUGE
from .stepkernel import (T, Call, CountWhere, FirstWhere, LastWhere, Let, LogProduct, MaxWhere, RareReduction,
                         StepKernel, StopRule, compiled_engine, composite_gd_step)

_s = sp.symbols
x, y, xn, yn = _s("x y xn yn", real=True)  # θ_t and θ_{t+1}
eta, qs_lo, qs_shift = _s("eta qs_lo qs_shift", real=True)  # per lane
max_steps = sp.Symbol("max_steps", integer=True)
xtol, rtol, s_c, s_eps, beta, qs_hi = _s("xtol rtol s_c s_eps beta qs_hi", real=True)
track = sp.Symbol("track")  # boolean: track the contraction minimum
thr, g, eg = _s("thr g eg", real=True)
s, a, y2, delta, rho, xo2, xn2, num = _s("s a y2 delta rho xo2 xn2 num", real=True)
after, bouncing, finite, diverged, frozen, small, tail_ok = _s("after bouncing finite diverged frozen small tail_ok")
(t_bar, bounce, t0, bounce_from_t0, qs_count, t_small) = _s("t_bar bounce t0 bounce_from_t0 qs_count t_small",
                                                             integer=True)
(D, log_prod, tail, s_cross, s_last_bounce, delta_last_bounce, s_max, s_max_after_t0, x_max_after_t0, D_t0,
 qs_min, qs_max, contraction_min) = _s("D log_prod tail s_cross s_last_bounce delta_last_bounce s_max "
                                       "s_max_after_t0 x_max_after_t0 D_t0 qs_min qs_max contraction_min", real=True)
e2, e2y, e2y2, e2y2x2 = _s("e2 e2y e2y2 e2y2x2", real=True)

INT_FIELDS = ["outcome", "steps", "t_bar", "bounce", "t0", "bounce_from_t0", "qs_count", "t_small"]
FLOAT_FIELDS = ["x", "y", "D", "log_prod", "tail", "s_cross", "s_last_bounce", "delta_last_bounce",
                "s_max", "s_max_after_t0", "x_max_after_t0", "D_t0", "qs_min", "qs_max",
                "contraction_min"]

LXY = StepKernel(
    label="gd_lxy",
    params=(x, y), next_params=(xn, yn),
    lane_inputs=(eta, qs_lo, qs_shift),
    constants=(max_steps, xtol, rtol, s_c, s_eps, beta, qs_hi, track),
    lane_constants=(Let(thr, 2 / eta),),  # y² > 2/η: the bouncing test
    calls=(Call(g, "dl", x * y),),  # ℓ'(u), u = xy
    body=(
        Let(s, x * y), Let(a, sp.Abs(s)), Let(y2, y**2),
        MaxWhere(s_max, a),
        FirstWhere(t0, (x <= 0) | (a <= s_c), values=((D_t0, y2 - x**2),)),  # definition 7
        Let(after, t0 >= 0),
        MaxWhere(s_max_after_t0, a, after), MaxWhere(x_max_after_t0, sp.Abs(x), after),
        FirstWhere(t_small, a <= s_eps),
        Let(bouncing, y2 > thr), Let(delta, eta * y2 - 2),
        CountWhere(bounce, bouncing),
        LastWhere(s_last_bounce, a, bouncing), LastWhere(delta_last_bounce, delta, bouncing),
        CountWhere(bounce_from_t0, bouncing & after),
        RareReduction(a**beta / (delta + qs_shift),  # the quasi-static ratio, in its δ-window
                      (beta > 0) & bouncing & after & (delta >= qs_lo) & (delta <= qs_hi),
                      count=qs_count, min=qs_min, max=qs_max, max_init=0.0),
        FirstWhere(t_bar, sp.Not(bouncing) & (y2 < thr), values=((s_cross, a),)),  # t̄
        *composite_gd_step((x, y), x * y, g, eta, eg, (xn, yn)),  # eq. (2)
        LogProduct(log_prod, 1 - eg**2),
        Let(finite, (sp.Abs(xn) < HUGE) & (sp.Abs(yn) < HUGE)), Let(diverged, sp.Not(finite)),
        Let(rho, 2 - eta * y2),
        RareReduction(sp.log(sp.Abs(x) / sp.Abs(xn)) / rho,  # eq. (15), after t̄
                      track & sp.Not(diverged) & (t_bar >= 0) & sp.Ne(xn, 0) & (rho > 0), min=contraction_min),
        Let(xo2, x**2), Let(frozen, sp.Eq(xn, 0)), Let(small, sp.Abs(xn) <= xtol), Let(xn2, xn**2),
        # η²y²x² · x_t², the remaining drop's numerator, multiplied left to right
        Let(e2, eta**2), Let(e2y, e2 * yn), Let(e2y2, e2y * yn), Let(e2y2x2, e2y2 * xn2), Let(num, e2y2x2 * xo2),
        Let(tail_ok, sp.Not(diverged) & sp.Not(frozen) & sp.Not(small) & (xn2 < xo2) & (rtol > 0)
            & (num <= rtol * (xo2 - xn2))),
        LastWhere(tail, num / (xo2 - xn2), tail_ok),
    ),
    stop=StopRule(before=((T >= max_steps, 3), (sp.Eq(x, 0), 1)),
                  after=((diverged, 2), (frozen, 1), (small | tail_ok, 0)),
                  overrides=((3, "tail", float("nan")), (1, "tail", 0.0))),
    finals=(Let(D, y**2 - x**2),),
    int_outputs=tuple(INT_FIELDS), float_outputs=tuple(FLOAT_FIELDS),
)


def engine():
    """The compiled ℓ(xy) engine: ``engine(dl, dl_params, lanes, I, max_steps, xtol, rtol, s_c, s_eps,
    beta, qs_hi, track, out_i, out_f)`` with ``I`` rows x₀, y₀, η, qs_lo, qs_shift."""
    return compiled_engine(LXY)
