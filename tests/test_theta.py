"""verify.theta: Θ(·) by slopes of the ratio, with the constant and its error bar (issue 10 item 3),
judged by the engine's fit rules (verify.asymptotic.assess)."""
import numpy as np

from verify import Status
from verify.theta import leading_constant, theta_by_slopes

G = np.geomspace(0.01, 1.0, 8)        # 8 points over 2 decades: meets the fit rules
B = np.array([1, 2, 3, 4, 6, 8, 11, 16, 23, 32], float)


def test_constant_ratio_is_theta_and_reports_its_constant():
    ev = theta_by_slopes({"gamma": (G, 2.0 * (1 + 0.01 * np.sin(G)))}, 0.25)
    assert ev.status == Status.SUPPORTED
    assert abs(ev.data["leading_constant"] - 2.0) < 0.05 and ev.data["leading_constant_stderr"] < 0.05


def test_a_band_would_accept_gamma_to_the_half_but_slopes_do_not():
    r = G ** 0.5          # max/min = 10 over two decades: a "max/min <= 10" band accepts it
    assert r.max() / r.min() <= 10.0 + 1e-9
    ev = theta_by_slopes({"gamma": (G, r)}, 0.25)
    assert ev.status == Status.REFUTED and abs(ev.data["max_abs_slope"] - 0.5) < 1e-9


def test_every_axis_must_be_flat():
    ev = theta_by_slopes({"gamma": (G, np.ones(8)), "batch": (B, B ** 0.4)}, 0.25)
    assert ev.status == Status.REFUTED and ev.data["axes"]["gamma"]["verdict"] == "supported"


def test_the_engine_grid_rules_apply_and_name_the_knob():
    few = theta_by_slopes({"gamma": (G[:5], np.ones(5))}, 0.25)
    assert few.status == Status.INCONCLUSIVE and "add points" in few.summary
    short = theta_by_slopes({"batch": ([1, 2, 3, 4, 6, 8, 11, 16, 20], np.ones(9))}, 0.25)
    assert short.status == Status.INCONCLUSIVE and "extend the grid" in short.summary


def test_noise_or_local_slope_drift_is_inconclusive():
    noisy = np.exp(np.random.default_rng(0).normal(0, 1.0, 8))
    assert theta_by_slopes({"gamma": (G, noisy)}, 0.05).status == Status.INCONCLUSIVE
    # flat for x < 0.1, slope 0.4 above: the drift rule extrapolates toward the stated limit
    bent = np.where(G < 0.1, 1.0, (G / 0.1) ** 0.4)
    to_zero = theta_by_slopes({"gamma": (G, bent)}, 0.25)
    assert to_zero.status == Status.SUPPORTED and abs(to_zero.data["axes"]["gamma"]["estimate"]) < 1e-9
    to_inf = theta_by_slopes({"gamma": (G, bent)}, 0.25, toward={"gamma": "infinity"})
    assert to_inf.status == Status.INCONCLUSIVE and to_inf.data["axes"]["gamma"]["local_slope_drift"] > 0.3


def test_leading_constant_of_a_single_value_has_no_error_bar():
    c, se = leading_constant([3.0])
    assert abs(c - 3.0) < 1e-12 and se == float("inf")
