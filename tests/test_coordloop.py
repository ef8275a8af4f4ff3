"""Repeated coordinates in a declared step kernel (verify.dynamics.coordloop): one generated engine runs
every dimension d (read from the data's columns) and gives, lane by lane, what a plain Python loop
with the same declared arithmetic in the same order gives; misplaced items are refused."""
import math

import numpy as np
import pytest
import sympy as sp

from verify.dynamics import stepkernel
from verify.dynamics.stepkernel import (T, Doublings, Let, MaxOf, MaxWhere, PerCoordinate, RareUpdate, Reduce,
                                        RowMean, State, StepKernel, StopRule, kernel_source)

w, wn, c, x, y, eta, tol = sp.symbols("w wn c x y eta tol", real=True)
wc, r, ss, G, s, m, mx, acc, lg, q, hm = sp.symbols("wc r ss G s m mx acc lg q hm", real=True)
big, blow, small, keep = sp.symbols("big blow small keep")
steps_max = sp.Symbol("steps_max", integer=True)
N_SNAP = 4


def _kernel(**change) -> StepKernel:
    """GD on the least squares ½ mean_i (Σ_j x_ij c_j w_j − y_i)² in the per-coordinate parameters w_j,
    with per-coordinate observers: Σ_k (max_j |s_j|/2) s_j², a State with a rare log branch (while
    max_j |s_j| < 100), Doublings of the first."""
    spec = dict(
        params=(w,), next_params=(wn,), lane_inputs=(eta, c), constants=(steps_max, tol), calls=(),
        data=(x, y), coordinates=(w, c, x),
        row_lets=(PerCoordinate((Let(wc, w * c),)),),
        row_means=(RowMean((ss, G), (r ** 2, r * x), (Reduce(r, -y, r + x * wc),)),),
        body=(PerCoordinate((Let(s, eta * G), Reduce(m, 0.0, MaxOf(m, sp.Abs(s))),
                             Reduce(big, False, big | (sp.Abs(s) > 1e3)))),
              MaxWhere(mx, m), Let(blow, big), Let(small, m <= tol), Let(hm, 0.5 * m), Let(keep, m < 100.0),
              # after the vector loop: its quantities (hm, keep) as they were at this step
              PerCoordinate((Let(wn, w - s), State(acc, 0.0, acc + hm * s ** 2), State(lg, c, lg + s, where=keep),
                             RareUpdate(sp.Abs(s) > 0.25, (Let(q, sp.log(sp.Abs(s))), State(lg, c, lg + q))))),
              Doublings("snap", (acc,), N_SNAP)),
        stop=StopRule(before=((T >= steps_max, 3),), after=((blow, 2), (small, 0))),
        int_outputs=("outcome", "steps"),
        float_outputs=("w", "acc", "lg", "mx", *(f"snap_{p}_0" for p in range(N_SNAP))),
        label="test_coordloop")
    spec.update(change)
    return StepKernel(**spec)


def _python(w0, c, e, X, Y, steps_max, tol):
    """The declared kernel as a lone Python loop (same operations, same order)."""
    d, n = len(w0), len(Y)
    w, acc, lg, mx = list(w0), [0.0] * d, list(c), 0.0
    snap = [[0.0] * d for _ in range(N_SNAP)]
    t = 0
    while True:
        if t >= steps_max:
            status = 3
            break
        wc = [w[j] * c[j] for j in range(d)]
        start = 0.0 if n > 1 else -0.0
        ss, G = start, [start] * d
        for i in range(n):
            r = -Y[i]
            for j in range(d):
                r = r + X[i][j] * wc[j]
            ss += r * r
            for j in range(d):
                G[j] += r * X[i][j]
        G = [g / n for g in G]
        s = [e * g for g in G]
        m, big = 0.0, False
        for j in range(d):
            m = max(m, abs(s[j]))
            big = big or abs(s[j]) > 1e3
        mx = m if m > mx else mx
        hm = 0.5 * m
        for j in range(d):
            w[j] = w[j] - s[j]
            acc[j] = acc[j] + hm * (s[j] * s[j])
            if abs(s[j]) > 0.25:  # the RareUpdate's State replaces the State's update, its where too
                lg[j] = lg[j] + math.log(abs(s[j]))
            elif m < 100.0:
                lg[j] = lg[j] + s[j]
        t += 1
        if big:
            status = 2
            break
        if m <= tol:
            status = 0
            break
        if t & (t - 1) == 0 and t < 2 ** N_SNAP:
            snap[t.bit_length() - 1] = list(acc)
    return [status, t], [*w, *acc, *lg, mx, *(v for row in snap for v in row)]


def test_one_engine_runs_every_dimension_as_a_plain_loop():
    k = _kernel()
    source = kernel_source(k)
    width = int(source.split("w = min(")[1].split(",")[0])
    engine = stepkernel.compile_source(source, k.label)
    rng = np.random.default_rng(5)
    outcomes = set()
    for d, n in ((1, 1), (3, 2), (4, 5), (7, 6), (9, 3), (13, 4)):  # remainders of the unrolled loops
        X, Y = rng.normal(size=(n, d)), rng.normal(size=n)
        lanes = width + 5  # a refilled block and a part-empty one
        w0 = rng.uniform(-1, 1, (d, lanes))
        cs = rng.uniform(0.5, 1.5, (d, lanes))
        e = rng.uniform(0.01, 3.0, lanes) / max(1.0, float(np.linalg.norm(X) ** 2))
        e[:3] = (1e-3, 50.0, 0.0)
        out_i, out_f = np.zeros((2, lanes), np.int64), np.zeros((3 * d + 1 + N_SNAP * d, lanes))
        I = np.vstack([w0, e[None, :], cs])
        engine(np.arange(lanes), I, np.ascontiguousarray(np.c_[X, Y]), 200, 1e-10, out_i, out_f)
        for i in range(lanes):
            ints, floats = _python(w0[:, i], cs[:, i], e[i], X.tolist(), Y.tolist(), 200, 1e-10)
            assert out_i[:, i].tolist() == ints, (d, n, i)
            assert np.array_equal(out_f[:, i], floats), (d, n, i)
            outcomes.add(ints[0])
    assert outcomes == {0, 2, 3}
    assert len(engine.signatures) == 1  # every d ran through this engine, one type signature


def test_misplaced_coordinate_items_are_refused():
    with pytest.raises(TypeError, match="before the vector loop"):  # a State needs the lane's go
        kernel_source(_kernel(body=(PerCoordinate((Let(s, eta * G), State(acc, 0.0, acc + s))),
                                    *_kernel().body[1:])))
    with pytest.raises(ValueError, match="not an intermediate"):
        kernel_source(_kernel(body=_kernel().body[:-2] + (PerCoordinate((Let(q, w - s),)),)))
    with pytest.raises(ValueError, match="operands"):  # rounding: a three-term sum has no fixed order
        kernel_source(_kernel(row_lets=(PerCoordinate((Let(wc, w + c + 1.0),)),)))


def test_reads_of_a_value_already_advanced_this_step_are_refused():
    """Every item reads θ_t; a RareUpdate's scalar pass and a block after another one run once the
    coordinate loop has stored θ_{t+1} (and the States' next values), so reading those there is refused
    (a reviewer's reproducers: they compiled and silently read step t + 1)."""
    body = list(_kernel().body)
    rare_reads_w = list(body)
    rare_reads_w[-2] = PerCoordinate((Let(wn, w - s), State(acc, 0.0, acc + hm * s ** 2),
                                      State(lg, c, lg + s, where=keep),
                                      RareUpdate(sp.Abs(s) > 0.25, (Let(q, w), State(lg, c, lg + q)))))
    with pytest.raises(ValueError, match="RareUpdate reads w"):
        kernel_source(_kernel(body=tuple(rare_reads_w)))
    two_blocks = (*body[:-2], PerCoordinate((Let(wn, w - s),)),
                  PerCoordinate((State(acc, 0.0, acc + w * s), State(lg, c, lg + s))), body[-1])
    with pytest.raises(ValueError, match="block reads w"):
        kernel_source(_kernel(body=two_blocks))


def test_two_per_coordinate_data_symbols_are_refused():
    """Z holds one per-coordinate data symbol's d columns (then the scalar ones): a second one would
    silently read the first one's columns."""
    x2 = sp.Symbol("x2", real=True)
    with pytest.raises(ValueError, match="at most one per-coordinate data symbol"):
        kernel_source(_kernel(data=(x, x2, y), coordinates=(w, c, x, x2)))


def test_an_output_that_is_no_value_of_the_lane_is_refused_clearly():
    """A per-coordinate Let has no value once the lane stops (a State has): asking for it as an output
    is refused with the reason, as is an undeclared output name."""
    with pytest.raises(ValueError, match="per-coordinate intermediate"):
        kernel_source(_kernel(float_outputs=("w", "s")))
    with pytest.raises(ValueError, match="'nothing' is not a parameter"):
        kernel_source(_kernel(float_outputs=("w", "nothing")))
    with pytest.raises(ValueError, match="'nothing' is not a parameter"):
        kernel_source(_kernel(int_outputs=("outcome", "nothing")))


def test_per_coordinate_sums_start_at_their_first_row():
    """A per-coordinate sum of a row mean (G_j) starts at its first row's term (``a = start`` in the
    group at i = 0) instead of in a pass of stores before the rows; that pass remains for no rows
    only. The start's sign shows with one row (the mean's start −0.0) and a zero column where the
    residual is negative: G_j = −0.0 + (−0.0) = −0.0, so s_j = −0.0 and lg_j = c_j + s_j keeps c_j = −0.0
    (a start of +0.0 would give +0.0): compared bit for bit with the plain loop."""
    k = _kernel()
    source = kernel_source(k)
    assert "if Z.shape[0] == 0:" in source and source.count("if i == 0:") == 2  # a group of 4, a lone row
    engine = stepkernel.compile_source(source, k.label)
    d, lanes = 3, 4
    X, Y = np.array([[0.5, 0.0, -1.0]]), np.array([2.0])  # r = −2 + Σ_j x_j w_j c_j < 0 for |w c| <= 1
    w0 = np.full((d, lanes), 0.5)
    cs = np.full((d, lanes), 1.0)
    cs[1] = -0.0
    e = np.array([0.01, 0.1, 0.3, 0.5])
    out_i, out_f = np.zeros((2, lanes), np.int64), np.zeros((3 * d + 1 + N_SNAP * d, lanes))
    engine(np.arange(lanes), np.vstack([w0, e[None, :], cs]), np.ascontiguousarray(np.c_[X, Y]), 3, 1e-10, out_i, out_f)
    lg = 2 * d + 1  # lg_1's output row
    assert np.signbit(out_f[lg]).all()
    for i in range(lanes):
        ints, floats = _python(w0[:, i], cs[:, i], e[i], X.tolist(), Y.tolist(), 3, 1e-10)
        assert out_i[:, i].tolist() == ints
        assert out_f[:, i].tobytes() == np.array(floats).tobytes(), i
