"""verify.theta: Θ(·) by slopes of the ratio, with the constant and its error bar (issue 10 item 3)."""
import numpy as np

from verify import Status
from verify.theta import leading_constant, theta_by_slopes

G = np.geomspace(0.01, 1.0, 6)


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
    ev = theta_by_slopes({"gamma": (G, np.ones(6)), "batch": ([1, 2, 5, 10, 20], [1, 1.3, 1.9, 2.6, 3.4])}, 0.25)
    assert ev.status == Status.REFUTED and ev.data["axes"]["gamma"]["verdict"] == "supported"


def test_too_few_points_or_noise_is_inconclusive():
    assert theta_by_slopes({"gamma": ([1, 2], [1, 1])}, 0.25).status == Status.INCONCLUSIVE
    noisy = np.exp(np.random.default_rng(0).normal(0, 1.0, 6))
    assert theta_by_slopes({"gamma": (G, noisy)}, 0.05).status == Status.INCONCLUSIVE


def test_leading_constant_of_a_single_value_has_no_error_bar():
    c, se = leading_constant([3.0])
    assert abs(c - 3.0) < 1e-12 and se == float("inf")
