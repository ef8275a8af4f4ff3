"""verify.extrapolate.aitken_limit: Aitken extrapolation to a limit with an error bar (issue 10 item 2)."""
import math

import pytest

from verify.extrapolate import aitken_limit, compare_to_limit

DS = [50, 100, 200, 400]
MM = [8.250, 8.155, 8.089, 8.047]  # the mean-model transitions of ahn2023.threshold.mm


def test_exact_power_law_is_recovered():
    lim = aitken_limit(DS, [3 + 2 * d ** -0.7 for d in DS])
    assert lim.ok and abs(lim.value - 3) < 1e-12 and abs(lim.rate - 0.7) < 1e-9 and lim.stderr < 1e-12


def test_transition_data_accept_8_and_refute_8_2():
    assert compare_to_limit(DS, MM, 8.0).consistent is True
    t = compare_to_limit(DS, MM, 8.2)
    assert t.consistent is False and t.margin > 0.1
    assert compare_to_limit(DS, MM, 8.1).consistent is False


def test_noise_widens_the_error_bar():
    assert aitken_limit(DS, MM, noise=0.01).stderr > aitken_limit(DS, MM).stderr + 0.01


def test_non_asymptotic_data_decide_nothing():
    t = compare_to_limit(DS, [8.2, 8.1, 8.15, 8.05], 8.0)
    assert t.consistent is None and not t.limit.ok and math.isinf(t.limit.stderr)


def test_bad_grids_are_rejected():
    with pytest.raises(ValueError):
        aitken_limit([1, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(ValueError):
        aitken_limit([1, 2, 4], [1, 2, 3])


def test_one_result_type_for_both_methods():
    from verify.extrapolate import Limit, limit
    seq = [3 + 2 * 0.5**k for k in range(6)]
    w, a = limit(seq), aitken_limit([2.0**k for k in range(6)], seq)
    assert isinstance(w, Limit) and isinstance(a, Limit) and (w.method, a.method) == ("wynn", "aitken")
    assert w.sequence == a.sequence == tuple(seq) and w.last == a.last == seq[-1]
    assert abs(w.value - 3) < 1e-12 and abs(a.value - 3) < 1e-12
    assert a.as_data()["leading_constant"] == a.value and "approach_rate" in a.as_data()
