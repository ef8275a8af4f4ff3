"""The GD map on ℓ(xy) at ≥ 30 significant digits on a few lanes, and the cross-check against float64.

* :func:`run_hp` — python-flint ``arb`` arithmetic at ⌈3.33·digits⌉ + 16 bits (ball midpoints kept
  each step, so the radius does not grow through the unstable bouncing phase), with the loss
  lambdified into arb operations; losses whose expression cannot be mapped fall back to mpmath
  (scoped ``mpmath.workdps``); ``backend="dd"`` delegates to :func:`~verify.dynamics.run_dd`.
* :func:`cross_check` — runs float64 and high precision and reports the disagreement; a check must
  treat a disagreement beyond its stated tolerance as INCONCLUSIVE.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from ..loss import S, Loss
from .ddpath import run_dd
from .lanes import run
from .outcomes import HUGE, HPLane, Outcome, as_lanes


# ----------------------------------------------------------------------------- high precision
def _arb_namespace():
    from flint import arb

    def sign(a):
        return arb(1) if a > 0 else (arb(-1) if a < 0 else arb(0))

    return {"mpf": arb, "tanh": lambda a: a.tanh(), "sqrt": lambda a: arb(a).sqrt(),
            "exp": lambda a: arb(a).exp(), "log": lambda a: arb(a).log(), "cosh": lambda a: a.cosh(),
            "sinh": lambda a: a.sinh(), "atan": lambda a: arb(a).atan(), "sign": sign,
            "fabs": abs, "pi": arb.pi(), "e": arb(1).exp()}


_HP_CACHE: dict = {}


def _hp_dl(loss: Loss):
    """ℓ' as a function on python-flint arb (None when the expression uses something unmapped)."""
    key = id(loss)
    if key in _HP_CACHE and _HP_CACHE[key][0] is loss:
        return _HP_CACHE[key][1]
    fn = None
    try:
        from flint import arb
        fn = sp.lambdify(S, loss.dl, modules=[_arb_namespace(), "mpmath"])
        probe = fn(arb("0.37"))
        if not isinstance(probe, arb):
            fn = None
    except Exception:
        fn = None
    _HP_CACHE[key] = (loss, fn)
    return fn



def run_hp(loss: Loss, x0: Any, y0: Any, eta: Any, *, dps: int = 30, max_steps: int = 10**5,
           xtol: float = 0.0, rtol: float = 1e-13, backend: str = "auto") -> list[HPLane]:
    """The GD map at ``dps`` ≥ 30 significant digits on a (small) set of lanes.

    Inputs are converted exactly from their float64 values (so the hp run starts where the float
    run starts). ``backend``: ``"arb"`` (python-flint, midpoints kept; faster than mpmath,
    ``arb_speedup`` in benchmark ``dynamics.high_precision``),
    ``"mpmath"``, or ``"auto"`` (arb when the loss expression maps onto arb operations).
    Stopping rules and outcomes are those of :func:`run`.
    """
    if backend == "dd":
        return run_dd(loss, x0, y0, eta, max_steps=max_steps, xtol=xtol, rtol=rtol)
    if dps < 30:
        raise ValueError(f"the high-precision path runs at >= 30 digits, got dps={dps}")
    x0, y0, eta = as_lanes(x0, y0, eta)
    fn = _hp_dl(loss) if backend in ("auto", "arb") else None
    if backend == "arb" and fn is None:
        raise ValueError(f"loss {loss.name!r} cannot be evaluated in arb")
    out = []
    if fn is not None:
        from flint import arb, ctx
        old = ctx.prec
        ctx.prec = int(dps * 3.33) + 16
        try:
            for a, b, e in zip(x0, y0, eta):
                out.append(_hp_lane_arb(fn, arb(float(a)), arb(float(b)), arb(float(e)), float(e),
                                        max_steps, xtol, rtol, dps))
        finally:
            ctx.prec = old
    else:
        with mpmath.workdps(dps + 5):
            for a, b, e in zip(x0, y0, eta):
                out.append(_hp_lane_mp(loss.dloss_mpmath, mpmath.mpf(float(a)), mpmath.mpf(float(b)),
                                       mpmath.mpf(float(e)), float(e), max_steps, xtol, rtol, dps))
    return out


def _hp_lane_arb(fn, x, y, e, ef, max_steps, xtol, rtol, dps):
    thr = 2 / e
    status, t, t_bar, bounce = Outcome.BUDGET, 0, -1, 0
    while t < max_steps:
        if x == 0:
            status = Outcome.FROZEN
            break
        y2 = y * y
        if y2 > thr:
            bounce += 1
        elif t_bar < 0 and y2 < thr:
            t_bar = t
        eg = e * fn(x * y)
        xn = (x - eg * y).mid()
        yn = (y - eg * x).mid()
        if not (abs(float(xn)) < HUGE and abs(float(yn)) < HUGE):
            x, y, t, status = xn, yn, t + 1, Outcome.DIVERGED
            break
        q = abs(float(xn)) / abs(float(x))
        x, y, t = xn, yn, t + 1
        if x == 0:
            status = Outcome.FROZEN
            break
        if abs(float(x)) <= xtol:
            status = Outcome.CONVERGED
            break
        if q < 1 and rtol > 0 and ef * ef * float(y) ** 2 * float(x) ** 2 / (1 - q * q) <= rtol:
            status = Outcome.CONVERGED
            break
    mp = lambda v: mpmath.mpf(v.mid().str(dps + 5, radius=False))
    with mpmath.workdps(dps + 5):
        X, Y = mp(x), mp(y)
        return HPLane(repr(ef), status, t, X, Y, Y * Y - X * X, t_bar, bounce, dps, "arb")


def _hp_lane_mp(dl, x, y, e, ef, max_steps, xtol, rtol, dps):
    thr = 2 / e
    status, t, t_bar, bounce = Outcome.BUDGET, 0, -1, 0
    while t < max_steps:
        if x == 0:
            status = Outcome.FROZEN
            break
        y2 = y * y
        if y2 > thr:
            bounce += 1
        elif t_bar < 0 and y2 < thr:
            t_bar = t
        eg = e * dl(x * y)
        xn = x - eg * y
        yn = y - eg * x
        if not (abs(xn) < HUGE and abs(yn) < HUGE):
            x, y, t, status = xn, yn, t + 1, Outcome.DIVERGED
            break
        q = float(abs(xn) / abs(x))
        x, y, t = xn, yn, t + 1
        if x == 0:
            status = Outcome.FROZEN
            break
        if abs(x) <= xtol:
            status = Outcome.CONVERGED
            break
        if q < 1 and rtol > 0 and ef * ef * float(y * y * x * x) / (1 - q * q) <= rtol:
            status = Outcome.CONVERGED
            break
    return HPLane(repr(ef), status, t, +x, +y, y * y - x * x, t_bar, bounce, dps, "mpmath")


def naive_mpmath_gd(loss: Loss, x0: float, y0: float, eta: float, steps: int, dps: int = 30):
    """Reference: the plain mpmath loop (mpf objects, ℓ' from the mpmath lambdification)."""
    with mpmath.workdps(dps):
        x, y, e = mpmath.mpf(x0), mpmath.mpf(y0), mpmath.mpf(eta)
        dl = loss.dloss_mpmath
        for _ in range(steps):
            g = dl(x * y)
            x, y = x - e * g * y, y - e * g * x
        return +x, +y


@dataclass(frozen=True)
class CrossCheck:
    agree: bool
    max_rel_diff_D: float
    max_rel_diff_gap: float
    tolerance: float
    measure: str
    lanes: int
    dps: int
    backend: str
    outcome_mismatch: int
    crossing_mismatch: int

    def as_data(self) -> dict:
        return {"hp_agree": self.agree, "hp_max_rel_diff_y_inf2": self.max_rel_diff_D,
                "hp_max_rel_diff_gap": self.max_rel_diff_gap, "hp_tolerance": self.tolerance,
                "hp_measure": self.measure, "hp_lanes": self.lanes, "hp_digits": self.dps,
                "hp_backend": self.backend, "hp_outcome_mismatch": self.outcome_mismatch,
                "hp_crossing_mismatch": self.crossing_mismatch}


def cross_check(loss: Loss, x0: Any, y0: Any, eta: Any, *, tol: float = 1e-9, dps: int = 30,
                max_steps: int = 10**5, rtol: float = 1e-13, xtol: float = 0.0,
                backend: str = "auto", on: str = "y_inf2") -> CrossCheck:
    """Float64 engine vs the high-precision path on the given lanes.

    ``on="y_inf2"`` compares the final D = y² − x² (relative); ``on="gap"`` compares the EoS gap
    2/η − D (relative), the quantity rate checks fit. ``agree`` is False (the caller must then report
    INCONCLUSIVE) if the relative difference exceeds ``tol`` on any lane, or if outcomes or crossing
    indices differ.
    """
    fast = run(loss, x0, y0, eta, max_steps=max_steps, rtol=rtol, xtol=xtol)
    slow = run_hp(loss, x0, y0, eta, dps=dps, max_steps=max_steps, rtol=rtol, xtol=xtol, backend=backend)
    dD, dG, omis, cmis = [], [], 0, 0
    with mpmath.workdps(40):
        for i, h in enumerate(slow):
            Df = mpmath.mpf(float(fast.D[i]))
            dD.append(float(abs(Df - h.D) / abs(h.D)) if h.D != 0 else float(abs(Df)))
            thr = 2 / mpmath.mpf(float(fast.eta[i]))
            g_hp, g_f = thr - h.D, thr - Df
            dG.append(float(abs(g_f - g_hp) / abs(g_hp)) if g_hp != 0 else float(abs(g_f)))
            omis += int(Outcome(fast.outcome[i]) != h.outcome)
            cmis += int(int(fast.t_bar[i]) != h.t_bar)
    wD = max(dD) if dD else 0.0
    wG = max(dG) if dG else 0.0
    worst = wG if on == "gap" else wD
    agree = bool(worst <= tol and omis == 0 and cmis == 0)
    return CrossCheck(agree, wD, wG, tol, on, len(slow), slow[0].dps if slow else dps,
                      slow[0].backend if slow else "-", omis, cmis)

