"""q_± of def8 (even2023, eqs. (4)-(5)) in float64, the primitives of the compiled (S)GD lanes:
q_+(s) = −2s − 2 ln|1 − s|, q_−(s) = 2s − 2 ln|1 + s|, by the series 2Σ_{t≥2}(±s)^t/t for |s| < 0.05
(no cancellation) and by logarithms otherwise (spec §0.6)."""
import math

import numpy as np
from numba import njit


@njit(inline="always")
def q_series(s, terms):
    """(q_+(s), q_−(s)) = (2(ev + od), 2(ev − od)) with ev = Σ_{t≤terms} s^{2t}/(2t) and
    od = Σ_{t≤terms} s^{2t+1}/(2t+1), summed from t = 1 up; each divisor's reciprocal is a constant,
    a multiplication instead of a division (×1.25 per SGD step), within an ulp of the term. ``terms``
    is a literal at each call, so that loops over coordinates or lanes around it vectorise."""
    s2 = s * s
    ev = 0.0
    od = 0.0
    pw = s2
    for t in range(1, terms + 1):
        ev += pw * (1.0 / (2 * t))
        od += pw * s * (1.0 / (2 * t + 1))
        pw *= s2
    return 2.0 * (ev + od), 2.0 * (ev - od)


@njit(inline="always")
def q_halves(s, terms):
    """(q_+(s)/2, q_−(s)/2) = (ev + od, ev − od) of :func:`q_series`, for the state update's halves
    ln α_± −= q_±/2, Gain += (q_+ + q_−)/2 in the series branch (|s| < 0.05, or NaN), with 7 fewer
    floating-point operations per coordinate and the same bits as 0.5·q_±, 0.5·(q_+ + q_−) of
    q_series' results:

    * with a = fl(ev + od), b = fl(ev − od): q_+ = 2a exactly, so 0.5·q_+ = a (likewise b); and
      fl(2a + 2b) = 2·fl(a + b) (scaling by 2 commutes with rounding: no overflow at |s| < 0.05, and a
      sum in the subnormal range is exact), so 0.5·(q_+ + q_−) = fl(a + b): the caller's a + b;
    * the sums start at their first term instead of 0.0 + it: ev's first term s²/2 is +0, positive or
      NaN, which 0.0 + leaves alone; od's first term s³/3 may be −0 (s = −0, or |s|³ underflowing),
      which 0.0 + makes +0, but then od is ±0 either way (every later odd term is ±0 too) and ev is +0
      or positive, so a and b come out the same (+0 ± ±0 = +0 when rounding to nearest);
    * a NaN s makes every intermediate NaN with s's payload, either way.

    tests/test_even2023_sgd_lanes.py checks the bits against q_series on edge cases and random s."""
    s2 = s * s
    pw = s2
    ev = pw * 0.5
    od = pw * s * (1.0 / 3)
    for t in range(2, terms + 1):
        pw *= s2
        ev += pw * (1.0 / (2 * t))
        od += pw * s * (1.0 / (2 * t + 1))
    return ev + od, ev - od


@njit(cache=True)
def _qpm(s):
    """(q_+(s), q_−(s)): the series up to s^15 for |s| < 0.05, logarithms otherwise (or NaN)."""
    if abs(s) < 0.05:
        return q_series(s, 7)
    return -2.0 * s - 2.0 * math.log(abs(1.0 - s)), 2.0 * s - 2.0 * math.log(abs(1.0 + s))


@njit(cache=True)
def _qpm_vec(s):
    qp = np.empty(s.shape)
    qm = np.empty(s.shape)
    flat = s.ravel()
    qpf = qp.ravel()
    qmf = qm.ravel()
    for i in range(flat.shape[0]):
        qpf[i], qmf[i] = _qpm(flat[i])
    return qp, qm


@njit(inline="always")
def _series(SS, QP, QM, terms):
    """q_±(s_j) by :func:`q_series` with ``terms`` terms for every coordinate: _qpm's bits when
    ``terms`` is at least :func:`series_terms` of max_j s_j²."""
    for j in range(SS.shape[0]):
        QP[j], QM[j] = q_series(SS[j], terms)


@njit(inline="always")
def series_terms(m2):
    """How many terms of the q_± series (:func:`q_series`) the sums can feel when every s_j² <= m2:
    the smallest T with m2^T < 2^-56, at most 7 (the full series, for m2 up to 0.05²).

    Why skipping the terms t > T changes no bit: term t of either sum is at most m^{2(t−1)} times its
    first term (s²/2 resp. |s|³/3, all terms of one sign), so every skipped term is below 2^-56 of the
    partial sum, i.e. below an eighth of its ulp, and adding it (or any later, smaller one) rounds back
    to the same sum. The computed powers obey the same bound because rounding is monotone (m2 ≥ the
    rounded s_j², and the power chains compare term by term). When a sum is subnormal the higher
    powers underflow to 0, and adding ±0 to a non-zero sum is exact. NaN stays NaN and ±inf takes the
    full series (and the logarithms) either way. So a caller may sum more terms than its own lanes
    need — the largest count any of them needs (the SGD pool, and the declared SGD and GD kernels,
    which round it up to one of the counts they print: 1, 2, 3, 5, 7 and 3, 5, 7) — and get the same
    bits; tests/test_dln_step.py checks it for the counts 3, 5 and 7 on 440k values,
    tests/test_even2023_sgd_lanes.py for the pool's 1, 2, 3, 5, 7 at every switch point 2^(-28/t),
    tests/test_dln_sgd_step.py the declared SGD's counts against the pool."""
    nterms = 7
    if m2 < 0.0025:
        pw = m2
        nterms = 1
        while nterms < 7 and pw >= 1.3877787807814457e-17:   # 2^-56
            pw *= m2
            nterms += 1
    return nterms
