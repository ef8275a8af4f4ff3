"""Unit tests for verify.certify: arb interval certificates, planted too-tight constants refuted."""
from fractions import Fraction

import flint
import pytest
import sympy as sp
from flint import arb

from verify import certify
from verify.claim import Check, Context, Status, outcome

s = sp.Symbol("s")
b = sp.Symbol("b")
PHI = sp.exp(-b**2 / 2) / sp.sqrt(2 * sp.pi)
CDF = (1 + sp.erf(b / sp.sqrt(2))) / 2
G = PHI + b * CDF  # smoothed ReLU g(b) = phi(b) + b Phi(b)


def run(check):
    return check(Context(seed=0))


# --------------------------------------------------------------------------- infrastructure

def test_precision_is_scoped_and_restored():
    before = flint.ctx.prec
    with certify.working_precision(300):
        assert flint.ctx.prec == 300
    assert flint.ctx.prec == before
    with pytest.raises(RuntimeError):
        with certify.working_precision(200):
            raise RuntimeError("boom")
    assert flint.ctx.prec == before


def test_from_sympy_encloses_and_rejects_unknown_nodes():
    f = certify.from_sympy(sp.tanh(s) / s + sp.sqrt(1 + s**2) - sp.Rational(1, 3) * sp.exp(s), s)
    with certify.working_precision(100):
        v = f(arb("0.5"))
    expected = float(sp.N((sp.tanh(s) / s + sp.sqrt(1 + s**2) - sp.exp(s) / 3).subs(s, sp.Rational(1, 2)), 30))
    assert v.contains(arb(repr(expected))) or abs(float(v.mid()) - expected) < 1e-14
    with pytest.raises(ValueError, match="unsupported node"):
        certify.from_sympy(sp.Function("q")(s), s)
    with pytest.raises(ValueError):
        certify.from_sympy(s + sp.Symbol("t"))


def test_from_sympy_gives_series_derivatives():
    f = certify.from_sympy(sp.tanh(s) * sp.erfc(s), s)
    with certify.working_precision(64):
        val, der = certify.derivative_enclosure(f, arb("0.3"))
    exact = sp.diff(sp.tanh(s) * sp.erfc(s), s).subs(s, sp.Rational(3, 10))
    assert abs(float(der.mid()) - float(exact)) < 1e-12


def test_taylor_at_zero_closes_removable_singularity():
    t = certify.taylor_at_zero(1 - s**2 / 4 - sp.tanh(s) / s, s, Fraction(1, 16))
    assert t.leading() == 2  # h = s^2/12 + O(s^4): the touching point is divided out
    assert t.coeffs[2] == Fraction(1, 12)
    with pytest.raises(ValueError, match="singular"):
        certify.taylor_at_zero(1 / s, s, Fraction(1, 8))


# --------------------------------------------------------------------------- (a)-(c) bounds

def test_a_rsym_quarter_is_proved():
    ev = run(certify.inequality("rsym", sp.tanh(s) / s, 1 - s**2 / 4, Fraction(-1, 4), Fraction(1, 4)))
    assert ev.status == Status.PROVED, ev.summary
    assert ev.data["boxes"] > 0 and ev.data["prec_bits"] >= 53
    assert ev.data["domain_certified"] == ["-1/4", "1/4"]
    assert ev.data["taylor_at_0"]["coeffs"][2] == "1/12"


def test_b_rsym_half_is_refuted_with_certified_witness():
    ev = run(certify.inequality("rsym_half", sp.tanh(s) / s, 1 - s**2 / 2, Fraction(-1, 4), Fraction(1, 4)))
    assert ev.status == Status.REFUTED, ev.summary
    w = Fraction(ev.data["witness"])
    assert w != 0 and abs(w) <= Fraction(1, 4)
    assert ev.data["witness_value"][1] < 0  # the whole ball of rhs - lhs is below 0
    assert float(1 - w**2 / 2) < float(sp.tanh(sp.Rational(w.numerator, w.denominator)) / w)


def test_c_sqrt_two_fifths_proved_and_literal_range_refuted():
    lhs = (1 + s**2) ** sp.Rational(-1, 2)
    rhs = 1 - sp.Rational(2, 5) * s**2
    ev = run(certify.inequality("sqrt", lhs, rhs, Fraction(-2, 5), Fraction(2, 5)))
    assert ev.status == Status.PROVED, ev.summary
    bad = run(certify.inequality("sqrt_literal", lhs, rhs, -2, 2))
    assert bad.status == Status.REFUTED, bad.summary
    assert abs(abs(bad.data["witness_float"]) - 1) < 0.5  # near |s| = 1 (1/sqrt 2 > 3/5)
    assert bad.data["witness_value"][1] < 0


def test_callable_bound_with_user_taylor_form():
    """tanh(s)/s <= 1 with an arb callable and a hand-made Taylor enclosure near 0."""
    # tanh(s)/s = 1 - s^2/3 + rho s^4, |rho| <= 2/15 + slack on |s| <= 1/8
    tay = certify.Taylor0(Fraction(1, 8), (0, 0, Fraction(1, 3)), 4, arb("0 +/- 0.2"))
    h = lambda v: 1 - certify.ops.tanh(v) / v
    res = certify.prove_nonnegative(h, -1, 1, taylor=tay)
    assert res.status == Status.PROVED
    assert res.boxes_by_method.get("taylor", 0) >= 1


def test_inconclusive_lists_unresolved_boxes():
    # h(s) = s^2 touches 0 at s = 1/3 (not 0): no Taylor form there, so bisection cannot close it
    res = certify.prove_nonnegative(lambda v: (v - arb(1) / 3) ** 2, 0, 1, max_depth=12)
    assert res.status == Status.INCONCLUSIVE
    assert res.unresolved_count >= 1
    lo, hi = res.unresolved[0]
    assert lo <= Fraction(1, 3) <= hi


def test_touching_endpoint_proved_via_exact_zero():
    """fact8.kappa core: g/Phi >= m := g(-1)/Phi(-1) on [-1, 0], equality at -1 (sympy-exact)."""
    m = (G / CDF).subs(b, -1)
    ev = run(certify.inequality("kappa_lower", m, G / CDF, -1, 0))
    assert ev.status == Status.PROVED, ev.summary
    assert ev.data["exact_zeros_sympy"] == ["-1"]
    swapped = run(certify.inequality("kappa_swapped", G / CDF, m, -1, 0))
    assert swapped.status == Status.REFUTED


def test_tail_rule():
    # tanh(s)/s <= 1 on [1/2, 4] plus a sympy tail beyond 4 (1 - tanh(s)/s >= 0 for s >= 4)
    tail = certify.sympy_tail("tail", 1 - 1 / s, s, 4)  # 1/s >= tanh(s)/s there
    ev = run(certify.inequality("le1", sp.tanh(s) / s, 1, Fraction(1, 2), 4, tail=tail))
    assert ev.status == Status.PROVED
    assert "tail" in ev.data
    alone = run(certify.inequality("le1", sp.tanh(s) / s, 1, Fraction(1, 2), 4))
    assert alone.status == Status.PROVED and "only" in alone.summary
    # a tail that leaves [4, 5) uncovered, or does not say where it starts, is not a proof
    late = certify.sympy_tail("late", 1 - 1 / s, s, 5)
    gap = run(certify.inequality("le1", sp.tanh(s) / s, 1, Fraction(1, 2), 4, tail=late))
    assert gap.status == Status.INCONCLUSIVE, gap.summary
    nowhere = Check("nowhere", lambda ctx: outcome(Status.PROVED, "no start given"))
    blind = run(certify.inequality("le1", sp.tanh(s) / s, 1, Fraction(1, 2), 4, tail=nowhere))
    assert blind.status == Status.INCONCLUSIVE, blind.summary


# --------------------------------------------------------------------------- (d), (e) constants and roots

def test_d_g_minus_one_margins():
    g1 = G.subs(b, -1)
    assert run(certify.constant("g(-1)>0.08", g1, "> 0.08")).status == Status.PROVED
    bad = run(certify.constant("g(-1)>0.0834", g1, "> 0.0834"))
    assert bad.status == Status.REFUTED
    assert bad.data["value"][1] < 0.0834
    assert run(certify.constant("pi", sp.pi * sp.Rational(8, 100)**2 / 4, ">= 1/200")).status == Status.PROVED


def test_e_theorem4_example_root():
    f = G - 2 / sp.sqrt(10 * sp.pi)
    ev = run(certify.root_bound("thm4", f, (-1, 0), "< -0.087"))
    assert ev.status == Status.PROVED, ev.summary
    assert 2.6e-4 < ev.data["margin_mid"] < 2.8e-4
    assert ev.data["width"] < 1e-20
    import mpmath
    with mpmath.workdps(30):  # independent float cross-check of the enclosure
        gf = lambda x: mpmath.npdf(x) + x * mpmath.ncdf(x) - 2 / mpmath.sqrt(10 * mpmath.pi)
        ref = float(mpmath.findroot(gf, -0.08))
    lo, hi = ev.data["root"]
    assert lo - 1e-15 <= ref <= hi + 1e-15
    bad = run(certify.root_bound("thm4_tight", f, (-1, 0), "< -0.0873"))
    assert bad.status == Status.REFUTED
    # no sign change on the bracket: inconclusive, never a pass
    assert run(certify.root_bound("nobracket", f, (0, 1), "< 0")).status == Status.INCONCLUSIVE


def test_validity_endpoint_of_rsym_inequality():
    ev = run(certify.validity_range("rsym_range", sp.tanh(s) / s, 1 - s**2 / 4, 0, 2, claim=">= 1/4"))
    assert ev.status == Status.PROVED, ev.summary
    lo, hi = ev.data["endpoint"]
    assert 0 < hi - lo <= 1e-11 and 0.9146 < lo < 0.9147
    assert run(certify.validity_range("r", sp.tanh(s) / s, 1 - s**2 / 4, 0, 2,
                                      claim=">= 1")).status == Status.REFUTED


# --------------------------------------------------------------------------- (f) limiting sharpness

_TANH = certify.from_sympy(sp.tanh(s), s), certify.from_sympy(1 - sp.tanh(s) ** 2, s)  # l_rsym', l_rsym''

@pytest.mark.parametrize("eta", [Fraction(1, 10), Fraction(1, 20), Fraction(1, 100)])
def test_f_limit_sharpness_tanh(eta):
    x0, y0 = certify.eos_start(eta, 3, Fraction(3, 4), Fraction(5, 4))
    ev = run(certify.limit_sharpness("lim", _TANH[0], eta, x0, y0, d2loss=_TANH[1]))
    assert ev.status == Status.PROVED, ev.summary
    lo, hi = ev.data["y_inf_sq"]
    assert hi < 2 / float(eta) and lo > 2 / float(eta) - 1
    assert ev.data["width"] < 1e-3 * (2 / float(eta) - hi) + 1e-12
    gap = ev.data["upper_minus_sharpness"]
    assert gap[0] > 0
    # planted: "the limit is above 2/eta" must be refuted by the same enclosure
    planted = run(certify.limit_sharpness("p", _TANH[0], eta, x0, y0, d2loss=_TANH[1],
                                          upper=None, lower=certify.EOS))
    assert planted.status == Status.REFUTED


def test_limit_sharpness_with_automatic_second_derivative():
    eta = Fraction(1, 10)
    x0, y0 = certify.eos_start(eta, 3, Fraction(3, 4), Fraction(5, 4))
    ev = run(certify.limit_sharpness("auto", certify.ops.tanh, eta, x0, y0))
    assert ev.status == Status.PROVED, ev.summary


def test_limit_sharpness_requires_series_or_d2loss():
    ev = run(certify.limit_sharpness("x", lambda v: v.tanh(), Fraction(1, 10), 1, 2))  # arb method: no series
    assert ev.status == Status.INCONCLUSIVE


def test_evidence_is_deterministic():
    chk = certify.inequality("det", sp.tanh(s) / s, 1 - s**2 / 4, Fraction(-1, 4), Fraction(1, 4))
    assert run(chk).to_json() == run(chk).to_json()


def test_limit_sharpness_sqrt_loss():
    """A second loss family: l_sqrt'(s) = s / sqrt(1 + s^2), written with series-capable ops."""
    eta = Fraction(1, 10)
    x0, y0 = certify.eos_start(eta, 3, Fraction(3, 4), Fraction(5, 4))
    ev = run(certify.limit_sharpness("sqrt", lambda v: v * (1 + v * v).rsqrt(), eta, x0, y0))
    assert ev.status == Status.PROVED, ev.summary
    assert ev.data["y_inf_sq"][1] < 20
    # planted: sharpness <= 1/eta throughout (the EoS limit is ~2/eta): refuted
    bad = run(certify.limit_sharpness("sqrt_p", lambda v: v * (1 + v * v).rsqrt(), eta, x0, y0,
                                      upper=lambda e: 1 / e))
    assert bad.status == Status.REFUTED


def test_beta_loss_enclosures_and_sharpness():
    from claims.ahn2023._losses import beta_loss
    d1, d2 = certify.loss_derivatives(beta_loss(2))  # c_2 = 4/27, r_2 = 3/2
    with certify.working_precision(64):
        v = d1(arb("0.5"))
        assert v.overlaps(arb(13) / 27) and v.rad() < 1e-17  # 0.5 (1 - (4/27) 0.25)
        straddle = d1(arb("1.5 +/- 0.1"))
        assert straddle.contains(arb(1)) and straddle.contains(d1(arb("1.45")))
        assert d1(arb(0)).is_zero() and d2(arb(0)).contains(arb(1))
    eta = Fraction(1, 10)
    x0, y0 = certify.eos_start(eta, 3, Fraction(3, 4), Fraction(5, 4))
    ev = run(certify.limit_sharpness("beta2", d1, eta, x0, y0, d2loss=d2))
    assert ev.status == Status.PROVED, ev.summary
    # Example 1 (A2) for l_2 on 0 < s <= c_2: l'(s)/s <= 1 - c_2 s^2 (equality inside r_2), and the
    # planted "for every s" version (indicator dropped) fails for large s
    c2 = Fraction(4, 27)
    a2_global = certify.inequality("beta2_global", lambda u: d1(u) / u,
                                   lambda u: 1 - certify.ball(c2) * u * u, Fraction(1, 2), 10)
    bad = run(a2_global)
    assert bad.status == Status.REFUTED and bad.data["witness_float"] > 1.5


def test_from_sympy_piecewise_min_sign():
    hub_d = sp.Piecewise((s, sp.Abs(s) <= 1), (sp.sign(s), True))  # Huber l'
    f = certify.from_sympy(hub_d, s)
    with certify.working_precision(64):
        assert f(arb("0.5")).contains(arb("0.5")) and f(arb(-3)).contains(arb(-1))
        straddle = f(arb("1 +/- 0.1"))  # both branches may be active: union
        assert straddle.contains(arb("0.95")) and straddle.contains(arb(1))
        val, der = certify.derivative_enclosure(f, arb("0.5"))
        assert der.contains(arb(1))
        m = certify.from_sympy(sp.Min(1, 2 / sp.Abs(s)) / 8, s)(arb(4))
        assert m.contains(arb(1) / 16)
    # strict "l_Hub'(s)/s < 1" fails (equality on [-1, 1]); the witness is a genuine point, not s = 0
    ev = run(certify.inequality("hub", hub_d / s, 1, -4, 4, strict=True))
    assert ev.status == Status.REFUTED and ev.data["witness"] != "0"
    # fact9.ii planted: l_sym'(s)/s >= (1/4) min(1, 2/|s|) fails near s = 1
    bad = run(certify.inequality("f9p", sp.Min(1, 2 / sp.Abs(s)) / 4, sp.tanh(s / 2) / (2 * s),
                                 Fraction(1, 1000), 2))
    assert bad.status == Status.REFUTED
    good = run(certify.inequality("f9", sp.Min(1, 2 / sp.Abs(s)) / 8, sp.tanh(s / 2) / (2 * s),
                                  Fraction(1, 1000), 2))
    assert good.status == Status.PROVED


def test_tail_must_cover_the_rest_of_the_domain():
    s_pos = sp.Symbol("s", positive=True)
    h = sp.tanh(s_pos) / s_pos - (1 - s_pos**2 / 3)  # (A3) for l_rsym, C = 1/3
    ok = run(certify.inequality("a3", 1 - s_pos**2 / 3, sp.tanh(s_pos) / s_pos, 0, 4,
                                tail=certify.sympy_tail("a3_tail", h, s_pos, 4)))
    assert ok.status == Status.PROVED and ok.data["domain_certified"] == ["0", "oo"]
    gap = run(certify.inequality("a3", 1 - s_pos**2 / 3, sp.tanh(s_pos) / s_pos, 0, 3,
                                 tail=certify.sympy_tail("a3_tail", h, s_pos, 4)))
    assert gap.status == Status.INCONCLUSIVE


def test_strict_bound_through_a_removable_singularity():
    ev = run(certify.inequality("lt1", sp.tanh(s) / s, 1, -1, 1, strict=True))  # tanh(s)/s < 1, s != 0
    assert ev.status == Status.PROVED, ev.summary
    assert "excluded" in ev.data
    # where h(0) is defined and 0, the strict statement fails at 0 itself
    bad = run(certify.inequality("lt", s**2, 0 * s + s**2 * 2, -1, 1, strict=True))
    assert bad.status == Status.REFUTED and bad.data["witness"] == "0"


@pytest.mark.parametrize("fn", [sp.asin, sp.acos, sp.atan, sp.acosh, sp.asinh, sp.atanh, sp.csch, sp.sech,
                                sp.coth, sp.sec, sp.csc, sp.cot, sp.tan, sp.sinh, sp.cosh, sp.tanh,
                                sp.exp, sp.log, sp.erf, sp.erfc])
def test_whitelisted_functions_value_and_derivative(fn):
    x = sp.Symbol("x")
    pt = sp.Rational(13, 10) if fn is sp.acosh else sp.Rational(3, 10)
    f = certify.from_sympy(fn(x), x)
    with certify.working_precision(80):
        v = f(certify.ball(pt))
        _, der = certify.derivative_enclosure(f, certify.ball(pt))
    assert abs(float(v.mid()) - float(fn(pt))) < 1e-13
    assert abs(float(der.mid()) - float(sp.diff(fn(x), x).subs(x, pt))) < 1e-12


# --------------------------------------------------------------------------- orbit enclosures

def _linear_map(A):
    """z -> A z with an exact rational matrix A (step on balls, constant Jacobian)."""
    n = len(A)

    def step(z):
        return [sum((certify.ball(A[i][j]) * z[j] for j in range(n)), arb(0)) for i in range(n)]

    def jacobian(Z):
        return [[certify.ball(A[i][j]) for j in range(n)] for i in range(n)]
    return step, jacobian


@pytest.mark.parametrize("method", ["centred", "qr"])
def test_orbit_encloses_the_exact_iterates(method):
    # a contracting rotation-shear in 3-D; the exact iterate (Fractions) must lie in the final box
    A = [[Fraction(3, 5), Fraction(-4, 5), Fraction(1, 10)], [Fraction(4, 5), Fraction(3, 5), 0],
         [0, Fraction(1, 7), Fraction(9, 10)]]
    z = [Fraction(1, 3), Fraction(-2, 7), Fraction(5, 11)]
    step, jac = _linear_map(A)
    res = certify.enclose_orbit(step, jac, z, max_steps=60, prec=96, method=method)
    for _ in range(60):
        z = [sum(A[i][j] * z[j] for j in range(3)) for i in range(3)]
    assert res.ok and res.steps == 60 and not res.stopped
    with certify.working_precision(96):
        assert all(box.contains(certify.ball(q)) for box, q in zip(res.box, z))


def test_orbit_qr_avoids_wrapping_and_stop_fires():
    # a pure rotation by a non-exact angle: |A| (entrywise) has row sums ~1.4, so the centred error
    # ball grows ~1.4^t while the QR form stays near the rounding level
    A = [[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]]
    step, jac = _linear_map(A)
    z0 = [certify.ball(Fraction(1, 3)) + arb(0, 1e-20), Fraction(1, 2)]
    centred = certify.enclose_orbit(step, jac, z0, max_steps=80, prec=64)
    qr = certify.enclose_orbit(step, jac, z0, max_steps=80, prec=64, method="qr")
    assert centred.ok and qr.ok
    assert qr.max_radius < 1e-15 < centred.max_radius
    stopped = certify.enclose_orbit(step, jac, z0, max_steps=80, prec=64, method="qr",
                                    stop=lambda t, box: t >= 10)
    assert stopped.stopped and stopped.steps == 10


def test_orbit_that_blows_up_is_reported_not_passed():
    # z -> log z from 1/2: the second iterate is the log of a negative number (NaN in arb)
    res = certify.enclose_orbit(lambda z: [z[0].log()], lambda Z: [[1 / Z[0]]], [Fraction(1, 2)],
                                max_steps=10, prec=64)
    assert not res.ok and "finite" in res.reason and res.steps <= 3
    step, jac = _linear_map([[Fraction(2)]])
    with pytest.raises(ValueError):
        certify.enclose_orbit(step, jac, [1], max_steps=1, method="lohner")


# --------------------------------------------------------------------------- headline-theorem certificates

def test_mean_model_certificate_matches_the_float_run_and_tail_needs_small_A():
    import numpy as np
    from claims.ahn2023 import _mean_model as mm
    from claims.ahn2023.certified_theorems import _mm_tail, certify_mean_model
    cert = certify_mean_model(100, Fraction(10), Fraction(-1))
    assert cert.ok
    _, b_float, _, _ = mm.mean_model_final(np.array([-1.0]), np.array([10 * np.pi / 100**2]), np.array([100.0]))
    lo, hi = float(cert.b_inf.lower()), float(cert.b_inf.upper())
    assert lo - 1e-9 <= b_float[0] <= hi + 1e-9 and hi - lo < 1e-7
    with certify.working_precision(128):
        eta = certify.ball(10) * arb.pi() / 10**4
        assert _mm_tail(eta, 100, arb(1), arb(0)) is None   # |A| = 1 at b = 0: the multiplier is not < 1


def test_positive_definite_test_is_rigorous_both_ways():
    from flint import arb_mat
    from claims.even2023.certified_thm1 import _is_positive_definite
    with certify.working_precision(64):
        assert _is_positive_definite(arb_mat([[2, 1], [1, 2]]))
        assert not _is_positive_definite(arb_mat([[1, 2], [2, 1]]))          # eigenvalue -1
        assert not _is_positive_definite(arb_mat([[arb(0, 1e-3), 0], [0, 1]]))  # a member is singular


def test_certificates_that_cannot_close_say_where_and_why():
    from claims.ahn2023.certified_theorems import certify_mean_model
    from claims.even2023.certified_thm1 import certify_thm1, small_instance
    short = certify_mean_model(200, Fraction(10), Fraction(1), max_steps=100)   # still bouncing at t = 100
    assert not short.ok and "no tail certificate within 100 steps" in short.reason
    assert short.data()["reason"] == short.reason
    cut = certify_thm1(small_instance(Fraction(1, 5)), max_steps=100)
    assert not cut.ok and cut.reason.startswith("orbit:")


def test_nondecreasing_from_proves_touching_bounds_and_refutes_near_misses():
    """log(1 + t) <= t and t/(1 + t) <= log(1 + t) on [0, oo) touch at 0 (no ball closes them there):
    proved from the value at 0 and the derivative's sign; a 1% tighter constant is refuted at a
    certified point; an undecidable derivative is inconclusive, never a pass."""
    t = sp.Symbol("t", nonnegative=True)
    c = Context(0, "quick")
    assert certify.nondecreasing_from("up", t - sp.log(1 + t), t, 0)(c).status is Status.PROVED
    assert certify.nondecreasing_from("lo", sp.log(1 + t) - t / (1 + t), t, 0)(c).status is Status.PROVED
    bad = certify.nondecreasing_from("nm", sp.Rational(99, 100) * t - sp.log(1 + t), t, 0)(c)
    assert bad.status is Status.REFUTED and sp.Rational(bad.data["witness"]) == sp.Rational(1, 64)
    assert bad.data["witness_value"][1] < 0
    odd = certify.nondecreasing_from("odd", sp.sin(t) + 2, t, 0)(c)
    assert odd.status is Status.INCONCLUSIVE
    below = certify.nondecreasing_from("below", t - 1, t, 0)(c)   # negative at the start
    assert below.status is Status.REFUTED
    # a jump down with derivative 0 on both sides: not continuous, so never proved (refuted at t = 1)
    jump = certify.nondecreasing_from("jump", sp.Piecewise((1, t < 1), (-1, True)), t, 0)(c)
    assert jump.status is Status.REFUTED
    # a float start reads differently in binary and in decimal: refused, as is a second free symbol
    with pytest.raises(ValueError, match="exact"):
        certify.nondecreasing_from("float", t - sp.Rational(1, 10), t, 0.1)
    with pytest.raises(ValueError, match="free"):
        certify.nondecreasing_from("param", sp.Symbol("a") * t, t, 0)
    # the variable's assumptions do not simplify the argument: |t - 1| - 1 >= 0 is false on [0, 2)
    # although sympy would drop Abs for a t declared >= 1
    t1 = sp.Symbol("t1", real=True)
    assert certify.nondecreasing_from("abs", sp.Abs(t1 - 1) - 1, t1, 0)(c).status is not Status.PROVED
