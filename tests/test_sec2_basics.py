"""Unit tests for the Section-2 / Appendix-C helpers of ahn2023 (losses, named inequalities and their
arb certificates, cancellation-free ratios, the frozen start)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from claims.ahn2023 import _appC_inequalities as C
from claims.ahn2023 import appC_losses
from claims.ahn2023._sec2_common import HUBER, RSYM, SQRT, beta_constants, beta_loss, gd_run
from claims.ahn2023.sec2_lemma8_fact3 import frozen_start
from verify.claim import Context, Status


@pytest.mark.parametrize("name", sorted(C.EXAMPLE1_INEQUALITIES))
def test_named_inequality_backends_agree(name):
    """The mpmath and sympy forms of each named Example-1 inequality are the same function."""
    fn = C.EXAMPLE1_INEQUALITIES[name][0]
    lhs_sym, rhs_sym = fn(C.S, ops=C.SYMPY)
    for v in ("0.01", "0.2", "0.7"):
        with mpmath.workdps(40):
            lhs, rhs = fn(mpmath.mpf(v), ops=C.MP)
            lhs2 = sp.N(lhs_sym.subs(C.S, sp.Rational(v)), 40)
            rhs2 = sp.N(rhs_sym.subs(C.S, sp.Rational(v)), 40)
            assert abs(lhs - mpmath.mpf(str(lhs2))) < mpmath.mpf(10) ** -30
            assert abs(rhs - mpmath.mpf(str(rhs2))) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("name", sorted(C.EXAMPLE1_INEQUALITIES))
def test_named_inequality_is_certified_on_its_compact_domain(name):
    """Each registry entry holds in arb on [lo, min(hi, 2)] (the tails are the claims' business),
    except the erratum entry, which is refuted by a certified witness."""
    fn, lo, hi, _ = C.EXAMPLE1_INEQUALITIES[name]
    top = min(Fraction(hi), Fraction(2)) if hi != float("inf") else Fraction(2)
    ev = C.certified(name, fn, lo, top)(Context(seed=0))
    want = Status.REFUTED if name == "tanh_2s5_a2inf" else Status.PROVED
    assert ev.status == want, ev.summary
    assert ev.data["prec_bits"] == 128 and ev.data["domain_certified"] == [str(Fraction(lo)), str(top)]


def test_evenness_identity_refutes_an_odd_side():
    assert C.even_in_s("even", C.rsym_a2)(Context(seed=0)).status == Status.PROVED
    assert C.even_in_s("odd", C.rsym_third_derivative)(Context(seed=0)).status == Status.REFUTED


def test_tail_of_rsym_ratio_needs_the_exponential_form():
    ev = C.tail("t", C.rsym_a2inf, 1, rewrite_exp=True)(Context(seed=0))
    assert ev.status == Status.PROVED and ev.data["start"] == "1"


@pytest.mark.parametrize("loss", [RSYM, SQRT, beta_loss(1.5), beta_loss(10.0)])
@pytest.mark.parametrize("s", ["1e-30", "1e-8", "0.3", "2.5"])
def test_one_minus_ratio_has_no_cancellation(loss, s):
    """1 − ℓ'(s)/s from the helper agrees with a 400-digit naive evaluation to 30 significant digits."""
    with mpmath.workdps(50):
        fast = loss.deficit_mp(mpmath.mpf(s))
    with mpmath.workdps(400):
        sv = mpmath.mpf(s)
        slow = 1 - loss.dloss_mp(sv) / sv
    assert abs(fast - slow) <= abs(slow) * mpmath.mpf(10) ** -30


def test_beta_constants_and_continuity():
    c, r = beta_constants(2)
    assert abs(c - mpmath.mpf(4) / 27) < 1e-40 and abs(r - mpmath.mpf(3) / 2) < 1e-40
    loss = beta_loss(3.0)
    _, r3 = beta_constants(3.0)
    with mpmath.workdps(40):
        left = loss.dloss_mp(r3 * (1 - mpmath.mpf(10) ** -20))
    assert abs(left - 1) < 1e-15


def test_excess_is_cancellation_free_near_zero():
    with mpmath.workdps(30):
        e = RSYM.excess_mp(mpmath.mpf("1e-200"))
    assert abs(e / mpmath.mpf("1e-400") - mpmath.mpf(1) / 2) < 1e-20


def test_hub_derivative_in_float_and_mpmath():
    import math
    assert HUBER.dloss_scalar(3.0) == 1 and HUBER.dloss_scalar(-0.5) == -0.5
    assert HUBER.dloss_mp(mpmath.mpf(-4)) == -1


def test_frozen_start_freezes_at_high_precision():
    r = frozen_start(RSYM, "1/2", "1/10", dps=60)
    assert r["bracket_ok"] and r["premise"]
    assert r["abs_x1_over_y0"] < 1e-50
    assert r["eta_y1sq_minus_2_float"] > 0


def test_gd_run_matches_definition():
    traj = gd_run(SQRT, 0.1, 1.0, 2.0, 1)
    (x0, y0), (x1, y1) = traj
    d = 2.0 / (1 + 4.0) ** 0.5
    assert x1 == pytest.approx(1.0 - 0.1 * d * 2.0) and y1 == pytest.approx(2.0 - 0.1 * d * 1.0)


def test_fact4_witness_is_exact_and_refutes():
    printed_survives, data = appC_losses._fact4_erratum_witness()
    assert not printed_survives
    assert data["A1_and_A2"] and data["A2plus_fails_for_R_ge_half"]
    assert appC_losses._witness_dl(Fraction(-1, 2)) == Fraction(-1, 2)


def test_frozen_start_roots_are_certified_and_agree_with_the_bisection():
    """The arb root of Φ (fact3.frozen) lies inside the 60-digit mpmath bracket of frozen_start."""
    from claims.ahn2023 import sec2_lemma8_fact3 as B
    name, dl, dlt, et, bracket = B._FROZEN_ROOTS[0]
    ev = B._frozen_root_check(name, dl, dlt, et, bracket)(Context(seed=0))
    assert ev.status == Status.PROVED and ev.data["width"] < 1e-25
    r = frozen_start(RSYM, "1/2", "1/10")
    lo, hi = ev.data["root"]
    assert lo - 1e-15 <= float(mpmath.mpf(r["u_hi"])) <= hi + 1e-15
    ev2 = B._frozen_root_check(*B._FROZEN_ROOTS[2])(Context(seed=0))  # ℓ_2: the root is exactly η = 1/5
    assert ev2.status == Status.PROVED and ev2.data["root"][0] <= 0.2 <= ev2.data["root"][1]
