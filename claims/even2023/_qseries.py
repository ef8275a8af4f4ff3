"""q_± of def8 (even2023, eqs. (4)-(5)) in float64, the primitives of the compiled (S)GD lanes:
q_+(s) = −2s − 2 ln|1 − s|, q_−(s) = 2s − 2 ln|1 + s|, by the series 2Σ_{t≥2}(±s)^t/t for |s| < 0.05
(no cancellation) and by logarithms otherwise (spec §0.6)."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def _qpm(s):
    a = abs(s)
    if a < 0.05:
        s2 = s * s
        even = 0.0
        odd = 0.0
        p = s2
        # terms s^(2j)/(2j) and s^(2j+1)/(2j+1), up to s^15, each divisor's reciprocal a constant:
        # a multiplication instead of a division (×1.25 per SGD step), within an ulp of the term
        for j in range(1, 8):
            even += p * (1.0 / (2 * j))
            odd += p * s * (1.0 / (2 * j + 1))
            p *= s2
        return 2.0 * (even + odd), 2.0 * (even - odd)
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
    """q_±(s_j) = 2(ev ± od) by the series of _qpm with ``terms`` terms (a literal at each call, so
    the loop over coordinates vectorises); bitwise _qpm's sums when the skipped terms are below
    a quarter ulp (see the caller)."""
    for j in range(SS.shape[0]):
        sv = SS[j]
        s2v = sv * sv
        ev = 0.0
        od = 0.0
        pw = s2v
        for t in range(1, terms + 1):
            ev += pw * (1.0 / (2 * t))
            od += pw * sv * (1.0 / (2 * t + 1))
            pw *= s2v
        QP[j] = 2.0 * (ev + od)
        QM[j] = 2.0 * (ev - od)


@njit(inline="always")
def series_terms(m2):
    """How many terms of the q_± series the sums can feel when every s_j² <= m2 (see the caller):
    the smallest T with m2^T < 2^-56, at most 7 (the full series, for m2 up to 0.05²)."""
    nterms = 7
    if m2 < 0.0025:
        pw = m2
        nterms = 1
        while nterms < 7 and pw >= 1.3877787807814457e-17:   # 2^-56
            pw *= m2
            nterms += 1
    return nterms
