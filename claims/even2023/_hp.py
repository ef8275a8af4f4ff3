"""High-precision (S)GD on the diagonal linear network (even2023, eqs. (1)-(3)) and the stepsize
schedules it runs.

:func:`run_hp` computes the dynamics of ``_dln`` on the exact rational data (the float64 data are
dyadic rationals, so a high-precision run is an exact model of *some* dataset). The arithmetic is
python-flint's arb at ``prec`` bits with every result rounded to its midpoint after each operation,
i.e. an ordinary correctly-rounded P-digit floating-point model, ~15x faster than pure mpmath;
results are handed over as mpmath ``mpf`` values. ``tests/test_even2023_dln.py`` cross-checks it
against the pure-mpmath reference :func:`run_mpmath_reference`. Any scalar schedule (constant,
decaying, AdaGrad-norm, AdaDelta-type, random) and the coordinate-wise diagonal AdaGrad (the
counterexample of ``thm1.scalar``) are supported.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import mpmath
import numpy as np

if TYPE_CHECKING:   # pragma: no cover
    from ._problems import Problem


# --------------------------------------------------------------------------- stepsize schedules

class Schedule:
    """A stepsize rule: ``gamma(k, g)`` gets the batch gradient g_k (high-precision numbers) and
    returns a scalar γ_k (or, for ``scalar = False``, one step per coordinate)."""

    scalar = True
    name = "schedule"
    needs_gnorm2 = True   # False: ``gamma`` ignores ‖g_k‖² (run_hp then does not compute it)

    def reset(self) -> None:
        pass

    def gamma(self, k: int, g: list, gnorm2):  # pragma: no cover - interface
        raise NotImplementedError


@dataclass
class Constant(Schedule):
    value: float
    name: str = "constant"
    needs_gnorm2 = False

    def gamma(self, k, g, gnorm2):
        return self.value


@dataclass
class Decaying(Schedule):
    """γ_k = γ_0 (1 + k/k_0)^{−1/2}."""
    gamma0: float
    k0: float = 100.0
    name: str = "decaying"
    needs_gnorm2 = False

    def gamma(self, k, g, gnorm2):
        return self.gamma0 / math.sqrt(1.0 + k / self.k0)


@dataclass
class AdaGradNorm(Schedule):
    """Scalar AdaGrad-norm: γ_k = c (ε + Σ_{l≤k} ‖g_l‖²)^{−1/2} (evaluated at working precision)."""
    c: float
    eps: float = 1e-2
    name: str = "adagrad-norm"
    _acc: object = None

    def reset(self):
        self._acc = None

    def gamma(self, k, g, gnorm2):
        self._acc = (gnorm2 + self.eps) if self._acc is None else self._acc + gnorm2
        return self.c / self._acc.sqrt()


@dataclass
class AdaDeltaScalar(Schedule):
    """Scalar AdaDelta-type rule: γ_k = sqrt(E[Δ²] + ε) / sqrt(E[g²] + ε) with scalar running
    averages of ‖g‖² and of ‖Δβ‖²-proxies γ²‖g‖² (the stepsize stays scalar)."""
    rho: float = 0.9
    eps: float = 1e-3
    scale: float = 1.0
    name: str = "adadelta-scalar"
    _eg: object = None
    _ed: object = None

    def reset(self):
        self._eg = None
        self._ed = None

    def gamma(self, k, g, gnorm2):
        eg = (1 - self.rho) * gnorm2 if self._eg is None else self.rho * self._eg + (1 - self.rho) * gnorm2
        ed = 0 * gnorm2 if self._ed is None else self._ed
        gam = self.scale * ((ed + self.eps) / (eg + self.eps)).sqrt()
        self._eg = eg
        self._ed = self.rho * ed + (1 - self.rho) * gam * gam * gnorm2
        return gam


@dataclass
class RandomIID(Schedule):
    """i.i.d. γ_k uniform in [lo, hi] (seeded)."""
    lo: float
    hi: float
    seed: int = 0
    name: str = "random-iid"
    _rng: object = None
    needs_gnorm2 = False

    def reset(self):
        self._rng = np.random.default_rng(self.seed)

    def gamma(self, k, g, gnorm2):
        return float(self._rng.uniform(self.lo, self.hi))


@dataclass
class DiagonalAdaGrad(Schedule):
    """Coordinate-wise AdaGrad Γ_{k,j} = c (ε + Σ_{l≤k} g_{l,j}²)^{−1/2}: NOT covered by Theorem 1."""
    c: float
    eps: float = 1e-2
    name: str = "diagonal-adagrad"
    scalar = False
    _acc: object = None

    def reset(self):
        self._acc = None

    def gamma(self, k, g, gnorm2):
        if self._acc is None:
            self._acc = [gi * gi + self.eps for gi in g]
        else:
            self._acc = [a + gi * gi for a, gi in zip(self._acc, g)]
        return [self.c / a.sqrt() for a in self._acc]


# --------------------------------------------------------------------------- high precision

def _arb_to_mpf(x) -> mpmath.mpf:
    """Exact conversion of an arb midpoint (no rounding to mpmath's current precision)."""
    if not x.mid().is_finite():
        return mpmath.mpf("nan")
    man, exp = x.mid().man_exp()
    with mpmath.workprec(max(int(man).bit_length(), 53)):
        return mpmath.mpf((int(man), int(exp)))


@dataclass
class Snapshot:
    """The state at step k (mpmath numbers at the run's precision)."""

    k: int
    u: list
    v: list
    ln_ap: list
    ln_am: list
    rnorm: mpmath.mpf
    S: list = field(default_factory=list)      # S_k = Σ_{l<k} s_l
    s2: list = field(default_factory=list)     # Σ_{l<k} s_l² (for the planted "q → x²")
    dps: int = 15                               # the run's precision: derived values keep it

    def _prec(self):
        return mpmath.workdps(max(mpmath.mp.dps, self.dps))

    @property
    def beta(self) -> list:
        with self._prec():
            return [a * b for a, b in zip(self.u, self.v)]

    @property
    def phi(self) -> list:
        with self._prec():
            return [(a - b) / 2 for a, b in zip(self.ln_ap, self.ln_am)]

    @property
    def ln_alpha2(self) -> list:
        with self._prec():
            return [a + b for a, b in zip(self.ln_ap, self.ln_am)]


@dataclass
class HPRun:
    problem: Problem
    schedule: str
    b: int
    seed: int
    dps: int
    outcome: str
    steps: int
    final: Snapshot
    checkpoints: list = field(default_factory=list)   # Snapshots at ‖r‖ ≤ thr·‖y‖
    max_abs_s: float = 0.0
    losses: list = field(default_factory=list)        # float L(β_k), k = 0..K
    ynorm: mpmath.mpf = None
    fact5_residual: float | None = None               # max_k ‖∇h_k(β_k) + S_k‖_∞ if tracked
    odd_steps_big: int = 0                             # number of steps with some |s| > 1

    def data(self) -> dict:
        return {"schedule": self.schedule, "b": self.b, "batch_seed": self.seed, "dps": self.dps,
                "outcome": self.outcome, "steps": self.steps, "max_abs_s": self.max_abs_s,
                "final_residual_rel": float(self.final.rnorm / self.ynorm)}


def run_hp(problem: Problem, schedule: Schedule, *, b: int | None = None, seed: int = 0,
           dps: int = 50, tol_rel: float | None = None, max_steps: int = 200_000,
           checkpoints: Sequence[float] = (), track_fact5: bool = False,
           keep_losses: bool = False) -> HPRun:
    """(S)GD at ``dps`` digits on the exact data. Stops when ‖r_K‖ ≤ tol_rel‖y‖ (default
    10^{−(dps−10)}, spec §0.6), at the step budget, on overflow, or if some s_{k,i} = ±1.

    ``checkpoints``: relative residual levels at which the state is recorded (for the
    "shrinks as the tolerance is tightened" part of Theorem 1's check). ``track_fact5`` checks the
    mirror recursion ∇h_k(β_k) = −S_k at every step (fact5) and records its worst residual.
    """
    import flint

    b = problem.n if b is None else int(b)
    tol_rel = 10.0 ** (-(dps - 10)) if tol_rel is None else tol_rel
    prec = int(dps * 3.3219280948873626) + 16
    rng = np.random.default_rng(seed)
    schedule.reset()
    n, d = problem.n, problem.d
    with flint.ctx.workprec(prec):
        A = flint.arb
        Xa = flint.arb_mat([[A(float(x)) for x in row] for row in problem.X])
        XaT = Xa.transpose()
        ya = flint.arb_mat([[A(float(t))] for t in problem.y])
        ynorm = sum((A(float(t)) ** 2 for t in problem.y), A(0)).sqrt()
        u = [(A(2).sqrt() * A(float(a))).mid() for a in problem.alpha]
        v = [A(0)] * d
        ln_a = [A(float(a)).log().mid() for a in problem.alpha]
        # ln α_{±,k} = ln α ± S_k + ln|P_{±,k}| with P_{±,k} = Π_{l<k} (1 ∓ s_l): the products are
        # kept instead of summing a log per step (−½q_±(s) = ±s + ln|1 ∓ s|): two arb logs per
        # coordinate and step were half of a step's cost; arb's exponent range is unbounded, so the
        # products neither overflow nor underflow, and the logs are taken where ln α_± is read
        Pp, Pm = [A(1)] * d, [A(1)] * d
        S = [A(0)] * d
        s2 = [A(0)] * d
        thr = sorted(checkpoints, reverse=True)
        snaps: list[Snapshot] = []
        losses: list[float] = []
        maxs = 0.0
        big_steps = 0
        worst5 = 0.0
        one = A(1)
        outcome = "stalled"
        k = 0
        huge = A(2) ** 400
        tol_abs = A(tol_rel) * ynorm            # the stopping level and the checkpoints' (once, not per step)
        thr_abs = [A(t) * ynorm for t in thr]

        def ln_alphas():
            return ([(ln_a[j] + S[j] + abs(Pp[j]).log()).mid() for j in range(d)],
                    [(ln_a[j] - S[j] + abs(Pm[j]).log()).mid() for j in range(d)])

        def snap(k, rn):
            lp, lm = ln_alphas()
            return Snapshot(k, [_arb_to_mpf(t) for t in u], [_arb_to_mpf(t) for t in v],
                            [_arb_to_mpf(t) for t in lp], [_arb_to_mpf(t) for t in lm],
                            _arb_to_mpf(rn), [_arb_to_mpf(t) for t in S],
                            [_arb_to_mpf(t) for t in s2], dps)

        while True:
            beta = flint.arb_mat([[(ui * vi).mid()] for ui, vi in zip(u, v)])
            r = Xa * beta - ya
            rn = sum((r[i, 0] ** 2 for i in range(n)), A(0)).sqrt().mid()
            if not rn.is_finite() or rn > huge:
                outcome = "blown_up"
                break
            if keep_losses:
                losses.append(float(rn.mid()) ** 2 / (2 * n))
            while thr_abs and rn <= thr_abs[0]:
                snaps.append(snap(k, rn))
                thr_abs.pop(0)
            if rn <= tol_abs:
                outcome = "converged"
                break
            if k >= max_steps:
                break
            if b >= n:
                rb = r
                bsize = n
            else:
                idx = set(rng.choice(n, size=b, replace=False).tolist())   # (membership in a set, not
                rb = flint.arb_mat([[r[i, 0] if i in idx else A(0)] for i in range(n)])  # an array scan)
                bsize = b
            gm = XaT * rb
            g = [(gm[j, 0] / bsize).mid() for j in range(d)]
            # ‖g_k‖² (2d arb operations a step) only for the schedules that read it
            gnorm2 = sum((gi * gi for gi in g), A(0)) if schedule.needs_gnorm2 else None
            gam = schedule.gamma(k, g, gnorm2)
            if schedule.scalar:
                gam = A(gam) if not isinstance(gam, flint.arb) else gam
                s = [(gam * gi).mid() for gi in g]
            else:
                s = [(A(gj) * gi).mid() for gj, gi in zip(gam, g)]
            hit = False
            big = False
            for j in range(d):
                sj = s[j]
                fs = abs(float(sj))     # (float reads the midpoint: sj.mid()'s float)
                if fs > maxs:
                    maxs = fs
                big = big or fs > 1
                # s_j = ±1 exactly only if its float is ±1 (then exactly): the exact test only there
                if fs == 1.0 and ((one - sj).is_zero() or (one + sj).is_zero()):
                    hit = True
            if hit:
                outcome = "hit_pm1"
                break
            if big:
                big_steps += 1
            Pp = [(Pp[j] * (one - s[j])).mid() for j in range(d)]
            Pm = [(Pm[j] * (one + s[j])).mid() for j in range(d)]
            u, v = ([(u[j] - s[j] * v[j]).mid() for j in range(d)],
                    [(v[j] - s[j] * u[j]).mid() for j in range(d)])
            k += 1
            S = [(S[j] + s[j]).mid() for j in range(d)]
            s2 = [(s2[j] + s[j] * s[j]).mid() for j in range(d)]
            if track_fact5:
                # φ_k = (ln α_+ − ln α_−)/2 = S_k + ½ ln|P_+/P_−| here, so the residual below is
                # ½ arcsinh(β_k/α_k²) − ½ ln|P_+/P_−| (S_k cancels): β_k from the u, v recursion
                # against the products of (1 ∓ s_l) — the identity fact5 rests on; a wrong update of
                # u, v or of the products breaks it (and the planted tilt sign does)
                lp, lm = ln_alphas()
                # fact5: ½ arcsinh(β_k/α_k²) − φ_k = −S_k with α_k² = exp(lp + lm), φ_k = (lp − lm)/2
                for j in range(d):
                    bj = u[j] * v[j]
                    a2 = (lp[j] + lm[j]).exp()
                    lhs = (bj / a2).asinh() / 2 - (lp[j] - lm[j]) / 2
                    res = abs(float((lhs + S[j]).mid()))
                    worst5 = max(worst5, res)
        final = snap(k, rn)
    return HPRun(problem, schedule.name, b, seed, dps, outcome, k, final, snaps, maxs, losses,
                 _arb_to_mpf(ynorm), worst5 if track_fact5 else None, big_steps)


def run_mpmath_reference(problem: Problem, gamma: float, steps: int, dps: int = 40) -> Snapshot:
    """Pure-mpmath GD (constant γ) for cross-checking :func:`run_hp` on short runs."""
    with mpmath.workdps(dps):
        X = [[mpmath.mpf(float(x)) for x in row] for row in problem.X]
        XT = [list(c) for c in zip(*X)]
        y = [mpmath.mpf(float(t)) for t in problem.y]
        n, d = problem.n, problem.d
        u = [mpmath.sqrt(2) * mpmath.mpf(float(a)) for a in problem.alpha]
        v = [mpmath.mpf(0)] * d
        lp = [mpmath.log(mpmath.mpf(float(a))) for a in problem.alpha]
        lm = list(lp)
        g_ = mpmath.mpf(gamma)
        for _ in range(steps):
            beta = [a * c for a, c in zip(u, v)]
            r = [mpmath.fdot(row, beta) - yi for row, yi in zip(X, y)]
            s = [g_ * mpmath.fdot(col, r) / n for col in XT]
            lp = [lp[j] + s[j] + mpmath.log(abs(1 - s[j])) for j in range(d)]
            lm = [lm[j] - s[j] + mpmath.log(abs(1 + s[j])) for j in range(d)]
            u, v = [u[j] - s[j] * v[j] for j in range(d)], [v[j] - s[j] * u[j] for j in range(d)]
        beta = [a * c for a, c in zip(u, v)]
        r = [mpmath.fdot(row, beta) - yi for row, yi in zip(X, y)]
        return Snapshot(steps, u, v, lp, lm, mpmath.sqrt(mpmath.fdot(r, r)), dps=dps)
