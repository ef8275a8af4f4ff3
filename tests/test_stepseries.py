"""A series whose number of terms a step chooses from a scalar bound (verify.dynamics.stepseries): the
engines print the coordinate loop once per term count and run, at each step, the shortest that holds
every term the sums can feel; every output is bit for bit the plain loop summing all K terms. On a
kernel that is not the diagonal network's: exp(x) − 1 and sinh(s) − s by their series in s_j = η w_j
(x = s²), w decaying geometrically so that the steps need all of the counts."""
import math
import re

import numpy as np
import pytest
import sympy as sp

from verify.dynamics import stepkernel
from verify.dynamics.stepkernel import (T, Let, MaxOf, MaxWhere, PerCoordinate, Reduce, State, StepKernel, StopRule,
                                        kernel_source)
from verify.dynamics.stepseries import TruncatedSeries, term_count

K = 8  # terms of each series at most
COUNTS = (2, 4)
w, wn, eta, s, m, mx, x, acc, hs = sp.symbols("w wn eta s m mx x acc hs", real=True)
steps_max = sp.Symbol("steps_max", integer=True)
EXP_C = [1.0 / math.factorial(t) for t in range(1, K + 1)]  # exp(x) − 1 = Σ_t x^t/t!
SINH_C = [1.0 / math.factorial(2 * t + 1) for t in range(1, K + 1)]  # sinh(s) − s = Σ_t s^{2t+1}/(2t+1)!


def _series_lets():
    """x = s², e_t = e_{t−1} + x^t·(1/t!), o_t = o_{t−1} + (x^t·s)·(1/(2t+1)!), t = 1..K: term t of either
    sum is at most x^{t−1} ≤ (max_j |s_j|)^{2(t−1)} times its first, of one sign."""
    lets, es, os_ = [Let(x, s ** 2)], [], []
    pw = x
    for t in range(1, K + 1):
        if t > 1:
            pw_t = sp.Symbol(f"pw{t}", real=True)
            lets.append(Let(pw_t, pw * x))
            pw = pw_t
        ps, e, o = sp.symbols(f"ps{t} e{t} o{t}", real=True)
        lets += [Let(ps, pw * s), Let(e, pw * EXP_C[t - 1] if t == 1 else es[-1] + pw * EXP_C[t - 1]),
                 Let(o, ps * SINH_C[t - 1] if t == 1 else os_[-1] + ps * SINH_C[t - 1])]
        es.append(e)
        os_.append(o)
    return lets, (tuple(es), tuple(os_))


def _kernel(cut=True, counts=COUNTS, **change) -> StepKernel:
    lets, sums = _series_lets()
    series = (TruncatedSeries(sums, m * m, counts=counts),) if cut else ()
    spec = dict(
        params=(w,), next_params=(wn,), lane_inputs=(eta,), constants=(steps_max,), calls=(), coordinates=(w,),
        body=(PerCoordinate((Let(s, eta * w), Reduce(m, 0.0, MaxOf(m, sp.Abs(s))))),
              MaxWhere(mx, m),
              PerCoordinate((*lets, *series, State(acc, 0.0, acc + sums[0][-1]), State(hs, 0.0, hs + sums[1][-1]),
                             Let(wn, w - eta * w)))),
        stop=StopRule(before=((T >= steps_max, 3),), after=()),
        int_outputs=("outcome", "steps"), float_outputs=("w", "acc", "hs", "mx"),
        label="test_stepseries" if cut else "test_stepseries_full")
    spec.update(change)
    return StepKernel(**spec)


def _python(w0, e, steps, branches):
    """The declaration as a plain loop with all K terms (the branch each step would take recorded)."""
    d = len(w0)
    w, acc, hs, mx = list(w0), [0.0] * d, [0.0] * d, 0.0
    for _ in range(steps):
        s = [e * wj for wj in w]
        m = 0.0
        for sj in s:
            m = max(m, abs(sj))
        mx = m if m > mx else mx
        need = term_count(m * m, K)
        branches.add(next((c for c in COUNTS if need <= c), K))
        for j in range(d):
            xx = s[j] * s[j]
            pw, ev, od = xx, 0.0, 0.0
            for t in range(1, K + 1):
                if t > 1:
                    pw = pw * xx
                ev = pw * EXP_C[0] if t == 1 else ev + pw * EXP_C[t - 1]
                od = (pw * s[j]) * SINH_C[0] if t == 1 else od + (pw * s[j]) * SINH_C[t - 1]
            acc[j] = acc[j] + ev
            hs[j] = hs[j] + od
            w[j] = w[j] - e * w[j]
    return [3, steps], [*w, *acc, *hs, mx]


def _inputs(d, lanes, rng):
    scales = 10.0 ** rng.uniform(-160, 0.5, lanes)
    w0 = rng.uniform(-1, 1, (d, lanes)) * scales
    w0[:, :4] = np.array([[np.nan], [np.inf], [1e-155], [0.0]]).T  # NaN, inf, s² subnormal, zeros
    w0[0, 4] = 3.0  # |s| >= 1: every term, in every step
    e = rng.uniform(0.2, 0.6, lanes)
    return np.vstack([w0, e[None, :]]), w0, e


@pytest.mark.parametrize("lanewise", [False, True])
def test_the_cut_series_are_bitwise_the_full_series(lanewise):
    engine = stepkernel.compile_source(kernel_source(_kernel(), lanewise), "test_stepseries" + "_lw" * lanewise)
    rng = np.random.default_rng(17)
    branches: set = set()
    for d in (1, 3, 6):
        lanes, steps = 40, 90
        I, w0, e = _inputs(d, lanes, rng)
        out_i, out_f = np.zeros((2, lanes), np.int64), np.zeros((3 * d + 1, lanes))
        assert engine(np.arange(lanes), I, steps, out_i, out_f) == 0
        for i in range(lanes):
            ints, floats = _python(w0[:, i].tolist(), float(e[i]), steps, branches)
            assert out_i[:, i].tolist() == ints, (d, i)
            assert np.array_equal(out_f[:, i], floats, equal_nan=True), (d, i)
    assert branches == {*COUNTS, K}  # every printed loop was needed at some step


def test_the_switch_is_printed_per_count_and_only_with_counts():
    source = kernel_source(_kernel(), lanewise=True)
    assert all(f"<= {c}:  # the terms past {c} cannot move the sums" in source for c in COUNTS)
    assert "v_e8 = v_e2" in source and "v_o8 = v_o4" in source
    assert "cannot move the sums" not in kernel_source(_kernel(cut=False))
    assert "cannot move the sums" not in kernel_source(_kernel(counts=()), lanewise=True)  # all K terms
    # the largest ratio over the stepping slots without a branch per slot: a slot that does not step
    # reads as 0 (with an `if` around it, its max compiled to compare-and-jump: ~5% of an SGD step)
    blocked = kernel_source(_kernel())
    assert re.search(r"for b in range\(w\):\n +(ratio\d+) = abs\(.*\)\n +\1 = \1 if \1 < np.inf else np.inf.*\n"
                     r" +\1 = \1 if N\[\d+ \+ b\] != 0 else 0\.0\n", blocked)


def test_term_count():
    assert term_count(0.0, K) == 1 and term_count(math.nan, K) == K and term_count(math.inf, K) == K
    assert term_count(1e-6, K) == 3 and term_count(-1e-6, K) == 3  # 1e-18 < 2^-56 <= 1e-12
    assert term_count(0.5, K) == K and term_count(1e-17, K) == 1 and term_count(2.0 ** -56, K) == 2
    for r in 10.0 ** np.linspace(-30, 0, 200):  # the least T with r^T < 2^-56 (r^T by repeated products)
        powers = [float(r)]
        while len(powers) < 40:
            powers.append(powers[-1] * float(r))
        need = next((t + 1 for t, p in enumerate(powers) if p < 2.0 ** -56), 40)
        assert term_count(float(r), 40) == need


def test_misdeclared_series_are_refused():
    lets, sums = _series_lets()
    body = _kernel().body

    def with_cut(cut, pre=False):
        post = PerCoordinate((*lets, cut, State(acc, 0.0, acc + sums[0][-1]), Let(wn, w - eta * w)))
        if pre:
            return _kernel(body=(PerCoordinate((*body[0].items, cut)), body[1], post))
        return _kernel(body=(body[0], body[1], post))

    for cut, message in ((TruncatedSeries(sums, m * m, counts=(4, 2)), "counts must increase"),
                         (TruncatedSeries(sums, m * m, counts=(K,)), "counts must increase"),
                         (TruncatedSeries((sums[0], sums[1][:-1]), m * m, (2,)), "all of one length"),
                         (TruncatedSeries((sums[0][::-1],), m * m, (2,)), "does not add a term"),
                         (TruncatedSeries(((s, *sums[0][1:]),), m * m, (2,)), "not a Let of its"),
                         (TruncatedSeries(sums, s * s, (2,)), "not a per-coordinate quantity")):
        with pytest.raises(ValueError, match=message):
            kernel_source(with_cut(cut))
    with pytest.raises(TypeError, match="before the vector loop"):
        kernel_source(with_cut(TruncatedSeries(sums, m * m, (2,)), pre=True))
    two = PerCoordinate((*lets, TruncatedSeries(sums[:1], m * m, (2,)), TruncatedSeries(sums[1:], m * m, (2,)),
                         State(acc, 0.0, acc + sums[0][-1]), Let(wn, w - eta * w)))
    with pytest.raises(ValueError, match="one TruncatedSeries per"):
        kernel_source(_kernel(body=(body[0], body[1], two)))


def test_the_count_of_the_largest_ratio_is_the_largest_count():
    """The engines count the terms once per step, for the largest |r| of the stepping slots (NaN as
    +inf): the same count as the largest of the slots' own counts, because the count does not decrease
    as |r| grows (each power rounds monotonically). Checked on ratios either side of every switch
    point (an ulp apart), and on random draws with zeros, infinities and NaN."""
    switches = [2.0 ** (-56 / t) for t in range(1, K)]  # about where r^t crosses 2^-56
    near = [float(v) for c in switches for v in (c * (1 - 1e-15), np.nextafter(c, 0.0), c, np.nextafter(c, 1.0),
                                                  c * (1 + 1e-15))]
    counts = [term_count(r, K) for r in sorted(near)]
    assert counts == sorted(counts) and set(counts) == set(range(1, K + 1))
    rng = np.random.default_rng(0)
    for _ in range(2000):
        r = 10.0 ** rng.uniform(-40, 1, size=int(rng.integers(1, 9)))
        r[rng.random(r.size) < 0.1] = rng.choice([0.0, math.inf, math.nan])
        top = max(float(v) if v < math.inf else math.inf for v in np.append(r, 0.0))  # NaN as +inf
        assert term_count(top, K) == max(term_count(float(v), K) for v in r)
