"""Building blocks shared by the ahn2023 §3 modules (sec3_mean_model, sec3_mean_model_derivation,
sec3_threshold, sec3_theorems): the sympy forms of the mean model built once
(:func:`claims.ahn2023._mean_model.sym`), ℓ_sym' from its log form, and the margins the near misses
of those modules report."""
from __future__ import annotations

import functools
import math

from claims.ahn2023 import _mean_model as mm

S = functools.lru_cache(maxsize=1)(mm.sym)  # sympy building blocks, built once and lazily


def _sp():
    return S()["sp"]


def _gauss_integral(weight):
    """∫_{-b}^{∞} weight(z) φ(z) dz in closed form (erfc rewritten as erf so simplify closes)."""
    s = S()
    sp, z, b = s["sp"], s["z"], s["b"]
    pz = sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)
    return sp.integrate(weight(z, b) * pz, (z, -b, sp.oo)).rewrite(sp.erf)


def _lsym_prime(expr_s):
    """ℓ_sym'(·) from differentiating the log form (not the tanh form; their equality is fact9.ii)."""
    s = S()
    return s["sp"].diff(s["ell_sym"], s["s"]).subs(s["s"], expr_s)


def _excess_over_tol(key: str, what: str):
    """Margin of a check that records its worst deviation under ``key`` beside ``tolerance``."""
    def margin(data):
        if key not in data:
            return None
        return data[key] - data["tolerance"], (f"{what} {data[key]:.4g} vs tolerance {data['tolerance']:.3g}: "
                                               f"outside by {data[key] - data['tolerance']:.3g}")
    return margin


def _bound_margin(data):
    """Margin of a refuted upper bound on b_∞: the largest b_∞ − bound over the runs."""
    worst = data.get("max_b_minus_bound")
    if worst is None:
        return None
    return worst, f"largest b_∞ − bound {worst:.3g} (must be <= 0)"


def _ginv_bound(c, numerator=2.0, root=True):
    y = numerator / (math.sqrt(c * math.pi) if root else c * math.pi)
    return float(mm.g_inverse(y, dps=30))
