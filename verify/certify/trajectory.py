"""GD trajectory enclosures for f(x, y) = l(xy): the limiting sharpness y_inf^2 in an arb ball.

A centred form around an exact-midpoint reference trajectory, z_{t+1} in G(z_hat) +
DG(Z)(z - z_hat), plus D_{t+1} = (1 - eta^2 l'(s_t)^2) D_t and a two-sided geometric tail
bound proved by induction (:func:`_tail_certificate`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import sympy as sp
from flint import arb, fmpq

from ..claim import Check, Context, Evidence, outcome, Status
from .balls import _bounds, _f, ArbFn, ball, exact, working_precision
from .constants import _decide
from .ops import derivative_enclosure, supports_series


# --------------------------------------------------------------------------- GD trajectory enclosures

EOS = "2/eta"  # sentinel for limit_sharpness bounds: the edge-of-stability value 2/eta


@dataclass(frozen=True)
class SharpnessResult:
    ok: bool
    reason: str
    eta: arb
    y_inf_sq: arb | None
    steps: int
    prec: int
    x_T: arb | None = None
    D_T: arb | None = None
    tail_sum: tuple | None = None
    rho: tuple | None = None
    max_traj_width: float = 0.0
    y_sq_at_T: arb | None = None

    def data(self) -> dict:
        d = {"eta": _f(self.eta), "steps": self.steps, "prec_bits": self.prec,
             "max_trajectory_radius": self.max_traj_width,
             "method": "centred form around exact-midpoint reference; D_{t+1} = (1 - eta^2 l'(s_t)^2) D_t; "
                       "geometric tail bound by induction"}
        if self.y_inf_sq is not None:
            d["y_inf_sq"] = _bounds(self.y_inf_sq)
            d["y_inf_sq_mid"] = _f(self.y_inf_sq)
            d["width"] = float(self.y_inf_sq.upper() - self.y_inf_sq.lower())
        if self.x_T is not None:
            d["abs_x_T_upper"] = float(abs(self.x_T).upper())
            d["D_T"] = _bounds(self.D_T)
        if self.tail_sum is not None:
            d["tail_sum"] = [float(self.tail_sum[0]), float(self.tail_sum[1])]
            d["contraction"] = [float(self.rho[0]), float(self.rho[1])]
        if not self.ok:
            d["reason"] = self.reason
        return d


def _derivs(dloss: ArbFn, d2loss: ArbFn | None) -> Callable[[arb], tuple[arb, arb]]:
    if d2loss is not None:
        return lambda S: (dloss(S), d2loss(S))

    if not supports_series(dloss):
        raise ValueError("dloss cannot take arb_series; write it with verify.certify.ops or pass d2loss=")

    def both(S):
        pair = derivative_enclosure(dloss, S)
        if pair is None:
            return dloss(S), arb.nan()  # not finite: callers treat it as failure
        return pair
    return both


def _tail_certificate(eta: arb, x: arb, y: arb, derivs, dloss) -> tuple | None:
    """Two-sided bound on sum_{t>=T} eta^2 l'(s_t)^2 from the state (x, y) = (x_T, y_T).

    With r_t := l'(s_t)/s_t (in l''([-S, S]) by the mean value theorem, since l'(0) = 0):
        x_{t+1} = x_t (1 - eta r_t y_t^2),   y_{t+1} = y_t (1 - eta r_t x_t^2)   (exact).
    Induction hypothesis for t >= T: |y_t| in [ylo, yhi], so |1 - eta r_t y_t^2| in [rho_lo, rho_hi];
    hence |x_t| <= |x_T| rho_hi^(t-T), |s_t| <= S := |x_T| yhi, and
    |y_{t+1}| >= |y_T| (1 - eta r_hi |x_T|^2 / (1 - rho_hi^2)) =: ylo' ; the induction closes when
    ylo' >= ylo. Then sum a_t with a_t = eta^2 r_t^2 x_t^2 y_t^2 lies in
    [eta^2 r_lo^2 ylo^2 |x_T|_lo^2/(1 - rho_lo^2), eta^2 r_hi^2 yhi^2 |x_T|_hi^2/(1 - rho_hi^2)].
    Returns (A_lo, A_hi, rho_lo, rho_hi) or None when the hypotheses cannot be certified.
    """
    ax, ay = abs(x), abs(y)
    xi = ax.upper()
    xi_lo = ax.lower()
    yhi = ay.upper()
    yT_lo = ay.lower()
    if not (yT_lo > 0):
        return None
    S = xi * yhi
    Sbox = (-S).union(S)
    _, d2 = derivs(Sbox)
    if not d2.is_finite() or not d2 > 0:
        return None
    r_lo, r_hi = d2.lower(), d2.upper()
    theta = arb(0)
    for _ in range(6):
        ylo = yT_lo * (1 - theta)
        if not ylo > 0:
            return None
        m_hi = 1 - eta * r_lo * ylo * ylo   # largest multiplier 1 - eta r y^2
        m_lo = 1 - eta * r_hi * yhi * yhi   # smallest
        rho_hi = arb(max(abs(m_hi).upper(), abs(m_lo).upper()))
        if not rho_hi < 1:
            return None
        if m_lo > 0 or m_hi < 0:
            rho_lo = arb(min(abs(m_hi).lower(), abs(m_lo).lower()))
        else:
            rho_lo = arb(0)
        need = eta * r_hi * xi * xi / (1 - rho_hi * rho_hi)
        if not need < 1:
            return None
        if need <= theta:
            A_hi = eta * eta * r_hi * r_hi * yhi * yhi * xi * xi / (1 - rho_hi * rho_hi)
            A_lo = eta * eta * r_lo * r_lo * ylo * ylo * xi_lo * xi_lo / (1 - rho_lo * rho_lo)
            if not A_hi < 1:
                return None
            return A_lo.lower(), A_hi.upper(), rho_lo, rho_hi
        theta = 2 * need.upper()
    return None


def enclose_limit_sharpness(dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                            prec: int = 64, max_steps: int = 2_000_000, check_every: int = 500,
                            rel_width: float = 1e-3, x_small: float = 0.05) -> SharpnessResult:
    """Cached front end of :func:`_enclose_limit_sharpness` (same arguments) when all are hashable."""
    key = (dloss, _hkey(eta), _hkey(x0), _hkey(y0), d2loss, prec, max_steps, check_every, rel_width, x_small)
    try:
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _SHARPNESS_CACHE:
        return _SHARPNESS_CACHE[key]
    res = _enclose_limit_sharpness(dloss, eta, x0, y0, d2loss=d2loss, prec=prec, max_steps=max_steps,
                                   check_every=check_every, rel_width=rel_width, x_small=x_small)
    if key is not None:
        if len(_SHARPNESS_CACHE) > 64:
            _SHARPNESS_CACHE.clear()
        _SHARPNESS_CACHE[key] = res
    return res


_SHARPNESS_CACHE: dict = {}


def _hkey(v: Any) -> Any:
    """Hashable key for a number-like input (floats and strings by their exact rational)."""
    if isinstance(v, (float, str, int, fmpq)) and not isinstance(v, bool):
        try:
            return exact(v)
        except (TypeError, ValueError):
            return v
    return v


def _enclose_limit_sharpness(dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                             prec: int = 64, max_steps: int = 2_000_000, check_every: int = 500,
                             rel_width: float = 1e-3, x_small: float = 0.05) -> SharpnessResult:
    """Certified enclosure of y_inf^2 = lim y_t^2 for GD on f(x, y) = l(xy) from (x0, y0).

    The state is kept as an exact reference z_hat plus an error ball; one step is
    z_{t+1} in G(z_hat) + DG(Z) (z - z_hat) (mean-value form, DG over the current box Z, needing
    l'' = ``d2loss`` or automatic differentiation of ``dloss``), then re-centred. Every
    ``check_every`` steps, once |x_t| <= x_small * |y_t|, a tail certificate is attempted; it is
    accepted when the enclosure width is <= rel_width * |2/eta - y_inf^2| (or at the last step).
    Requires l'(0) = 0 and l'' > 0 near 0.
    """
    derivs = _derivs(dloss, d2loss)
    with working_precision(prec):
        e = ball(eta)
        X, Y = ball(x0), ball(y0)
        zero = dloss(arb(0))
        if not (isinstance(zero, arb) and zero.is_zero()):
            return SharpnessResult(False, "l'(0) = 0 is not certified exactly", e, None, 0, prec)
        two_over_eta = 2 / e
        xh, yh = X.mid(), Y.mid()
        dx, dy = X - xh, Y - yh
        best = None
        maxw = 0.0
        one = arb(1)
        for t in range(max_steps + 1):
            if t % check_every == 0 or t == max_steps:
                Xb, Yb = xh + dx, yh + dy
                if not (Xb.is_finite() and Yb.is_finite()):
                    return SharpnessResult(False, f"enclosure lost at step {t}", e, None, t, prec)
                maxw = max(maxw, float(dx.rad()), float(dy.rad()))
                if abs(Xb).upper() <= x_small * abs(Yb).lower():
                    tail = _tail_certificate(e, Xb, Yb, derivs, dloss)
                    if tail is not None:
                        A_lo, A_hi, rho_lo, rho_hi = tail
                        D = Yb * Yb - Xb * Xb
                        if not D > 0:
                            break_reason = f"D_T = y_T^2 - x_T^2 not certified positive at step {t}"
                            return SharpnessResult(False, break_reason, e, None, t, prec, max_traj_width=maxw)
                        lo = D.lower() * (1 - A_hi)
                        hi = D.upper() * (-A_lo).exp()
                        enc = lo.union(hi)
                        best = SharpnessResult(True, "", e, enc, t, prec, Xb, D, (A_lo, A_hi),
                                               (rho_lo, rho_hi), maxw, Yb * Yb)
                        width = float(enc.upper() - enc.lower())
                        gap = abs(float((two_over_eta - enc).mid()))
                        if width <= rel_width * gap:
                            return best
            if t == max_steps:
                break
            # point image of the exact reference
            s = xh * yh
            g = e * dloss(s)
            px, py = xh - g * yh, yh - g * xh
            # Jacobian of G over the box
            Xb, Yb = xh + dx, yh + dy
            S = Xb * Yb
            d1, d2 = derivs(S)
            a = e * d2
            j11 = one - a * Yb * Yb
            j22 = one - a * Xb * Xb
            j12 = -e * (d1 + d2 * S)
            nx, ny = px.mid(), py.mid()
            dx, dy = (px - nx) + j11 * dx + j12 * dy, (py - ny) + j12 * dx + j22 * dy
            xh, yh = nx, ny
        if best is not None:
            return best
        return SharpnessResult(False, f"no tail certificate within {max_steps} steps", e, None, max_steps, prec,
                               max_traj_width=maxw)


def limit_sharpness(name: str, dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                    curvature: Any = 1, upper: Any = EOS, lower: Any = None, prec: int = 64,
                    max_steps: int = 2_000_000, rel_width: float = 1e-3, kind: str = "CERT",
                    why: str = "") -> Check:
    """Certified limiting sharpness of GD on l(xy): encloses y_inf^2 and decides
    ``lower < curvature * y_inf^2 < upper`` (``upper`` defaults to 2/eta; either may be None;
    ``EOS`` means 2/eta; numbers, sympy numbers or callables eta -> value are accepted).
    ``curvature`` = l''(0), so that the sharpness at (0, y) is l''(0) y^2.
    """

    def resolve(bound, e):
        if bound is None:
            return None
        if isinstance(bound, str) and bound == EOS:
            return 2 / e
        if callable(bound) and not isinstance(bound, sp.Basic):
            return ball(bound(e))
        return ball(bound)

    def run(ctx: Context) -> Evidence:
        res = enclose_limit_sharpness(dloss, eta, x0, y0, d2loss=d2loss, prec=prec, max_steps=max_steps,
                                      rel_width=rel_width)
        data = res.data()
        data["why"] = why
        if not res.ok:
            return outcome(Status.INCONCLUSIVE, f"y_inf^2 not certified: {res.reason}", **data)
        with working_precision(prec):
            e = res.eta
            sharp = ball(curvature) * res.y_inf_sq
            up, low = resolve(upper, e), resolve(lower, e)
            verdicts, parts = [], []
            if up is not None:
                verdicts.append(_decide(sharp, "<", up))
                gap = up - sharp
                data["upper"] = _bounds(up)
                data["upper_minus_sharpness"] = _bounds(gap)
                parts.append(f"upper - sharpness in [{_bounds(gap)[0]:.6g}, {_bounds(gap)[1]:.6g}]")
            if low is not None:
                verdicts.append(_decide(sharp, ">", low))
                data["lower"] = _bounds(low)
                data["sharpness_minus_lower"] = _bounds(sharp - low)
                parts.append(f"sharpness - lower ~ {_f(sharp - low):.6g}")
        data["sharpness"] = _bounds(sharp)
        enc = _bounds(res.y_inf_sq)
        shown = (f"y_inf^2 in [{enc[0]:.10g}, {enc[1]:.10g}] (width {data['width']:.2e}, {res.steps} steps, "
                 f"{prec} bits); " + "; ".join(parts))
        if any(v is False for v in verdicts):
            return outcome(Status.REFUTED, "bound violated (certified): " + shown, **data)
        if all(v is True for v in verdicts):
            return outcome(Status.PROVED, shown, **data)
        return outcome(Status.INCONCLUSIVE, "enclosure straddles a bound: " + shown, **data)

    return Check(name, run, kind)


