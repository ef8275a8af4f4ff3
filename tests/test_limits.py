"""verify.limits: Aitken extrapolation to a limit with an error bar (issue 10 item 2)."""
import math

import pytest

from verify.limits import compare_to_limit, extrapolate

DS = [50, 100, 200, 400]
MM = [8.250, 8.155, 8.089, 8.047]  # the mean-model transitions of ahn2023.threshold.mm


def test_exact_power_law_is_recovered():
    lim = extrapolate(DS, [3 + 2 * d ** -0.7 for d in DS])
    assert lim.ok and abs(lim.value - 3) < 1e-12 and abs(lim.rate - 0.7) < 1e-9 and lim.error < 1e-12


def test_transition_data_accept_8_and_refute_8_2():
    assert compare_to_limit(DS, MM, 8.0).consistent is True
    t = compare_to_limit(DS, MM, 8.2)
    assert t.consistent is False and t.margin > 0.1
    assert compare_to_limit(DS, MM, 8.1).consistent is False


def test_noise_widens_the_error_bar():
    assert extrapolate(DS, MM, noise=0.01).error > extrapolate(DS, MM).error + 0.01


def test_non_asymptotic_data_decide_nothing():
    t = compare_to_limit(DS, [8.2, 8.1, 8.15, 8.05], 8.0)
    assert t.consistent is None and not t.limit.ok and math.isinf(t.limit.error)


def test_bad_grids_are_rejected():
    with pytest.raises(ValueError):
        extrapolate([1, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(ValueError):
        extrapolate([1, 2, 4], [1, 2, 3])
