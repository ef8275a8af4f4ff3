"""Declared step kernels (verify.dynamics.stepkernel): every observer kind and the stop rule give, lane by lane,
exactly what a plain Python loop with the same declared arithmetic gives; rounding-ambiguous declarations
are refused."""
import math
import re

import numba
import numpy as np
import pytest
import sympy as sp

from verify.dynamics.stepkernel import (T, Call, CountWhere, FirstWhere, LastWhere, Let, LogProduct, MaxWhere,
                                        MinWhere, RareReduction, StepKernel, StopRule, compiled_engine,
                                        composite_gd_step, kernel_source)

x, y, xn, yn, eta, g, eg, s, gn = sp.symbols("x y xn yn eta g eg s gn", real=True)
steps_max = sp.Symbol("steps_max", integer=True)
tol = sp.Symbol("tol", real=True)
first, count, rcount = sp.symbols("first count rcount", integer=True)
smax, smin, slast, lp, rmin, rmax, at_first, D, fin, done = sp.symbols(
    "smax smin slast lp rmin rmax at_first D fin done", real=True)


@numba.njit
def _dl_square(u, p):  # ℓ(u) = (u − p₀)²/2
    return u - p[0]


def _kernel(**change):
    spec = dict(
        params=(x, y), next_params=(xn, yn), lane_inputs=(eta,), constants=(steps_max, tol),
        calls=(Call(g, "dl", x * y),),
        body=(Let(s, x * y),
              FirstWhere(first, s > 0.5, values=((at_first, y - x),)),
              CountWhere(count, s < 0.9),
              MaxWhere(smax, sp.Abs(s)), MinWhere(smin, s, first >= 0), LastWhere(slast, x, s < 0.99),
              *composite_gd_step((x, y), x * y, g, eta, eg, (xn, yn)),
              LogProduct(lp, 1 - eg**2),
              RareReduction(sp.log(sp.Abs(s)), count >= 3, count=rcount, min=rmin, max=rmax),
              Let(gn, sp.Abs(eg)),
              Let(fin, (sp.Abs(xn) < 1e150) & (sp.Abs(yn) < 1e150)), Let(done, sp.Not(fin))),
        stop=StopRule(before=((T >= steps_max, 3),), after=((done, 2), (gn <= tol, 0)),
                      overrides=((3, "slast", -1.0),)),
        finals=(Let(D, y**2 - x**2),),
        int_outputs=("outcome", "steps", "first", "count", "rcount"),
        float_outputs=("x", "y", "D", "at_first", "smax", "smin", "slast", "lp", "rmin", "rmax"),
        label="test_kernel")
    spec.update(change)
    return StepKernel(**spec)


def _log(v):  # math.log with numba's (IEEE) values outside the domain
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def _python(x, y, e, steps_max, tol, target):
    """The declared kernel as a lone Python loop (same operations, same order)."""
    first, count, rcount = -1, 0, 0
    at_first, smax, smin, slast = math.nan, 0.0, math.inf, math.nan
    lp, lpc, prod, rmin, rmax = 0.0, 0.0, 1.0, math.inf, -math.inf
    t, status = 0, -1
    while status < 0:
        if t >= steps_max:
            status = 3
            break
        s = x * y
        if first < 0 and s > 0.5:
            first, at_first = t, y - x
        count += s < 0.9
        smax = max(smax, abs(s))
        if first >= 0 and s < smin:
            smin = s
        if s < 0.99:
            slast = x
        eg = e * (s - target)
        xn, yn = x - eg * y, y - eg * x
        prod = prod * (1 - eg * eg)
        if prod < 1e-100 or (t & 1023) == 1023:
            term = _log(prod) - lpc
            tmp = lp + term
            lpc, lp, prod = (tmp - lp) - term, tmp, 1.0
        if count >= 3:
            q = _log(abs(s))
            rcount += 1
            rmin, rmax = min(rmin, q), max(rmax, q)
        x, y, t = xn, yn, t + 1
        if not (abs(xn) < 1e150 and abs(yn) < 1e150):
            status = 2
        elif abs(eg) <= tol:
            status = 0
    if prod != 1.0:
        lp = lp + (_log(prod) - lpc)
    if status == 3:
        slast = -1.0
    if rcount == 0:
        rmin = rmax = math.nan
    ints = [status, t, first, count, rcount]
    floats = [x, y, y * y - x * x, at_first, smax, smin, slast, lp, rmin, rmax]
    return ints, floats


def test_every_observer_and_the_stop_rule_match_a_plain_loop_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 150  # more lanes than a block: slots are refilled
    x0, y0 = rng.uniform(-0.5, 1.5, n), rng.uniform(0.2, 2.0, n)
    e = rng.uniform(0.05, 1.2, n)
    engine = compiled_engine(_kernel())
    out_i, out_f = np.zeros((5, n), np.int64), np.zeros((10, n))
    engine(_dl_square, np.array([1.0]), np.arange(n)[::-1].copy(), np.stack([x0, y0, e]), 3000, 1e-12,
           out_i, out_f)
    outcomes = set()
    for i in range(n):
        ints, floats = _python(float(x0[i]), float(y0[i]), float(e[i]), 3000, 1e-12, 1.0)
        outcomes.add(ints[0])
        assert out_i[:, i].tolist() == ints, i
        assert np.array_equal(out_f[:, i].view(np.int64), np.array(floats).view(np.int64)), i
    assert {0, 2, 3} <= outcomes  # converged, diverged and budget lanes are all exercised


def test_the_docstring_example_is_a_sub_kernel_of_the_l_of_xy_engine():
    from claims.ahn2023._losses import SQRT
    from verify import dynamics
    from verify.dynamics.lanes import compiled_dl

    xtol = sp.Symbol("xtol", real=True)
    bounces, max_steps = sp.symbols("bounces max_steps", integer=True)
    k = StepKernel(params=(x, y), next_params=(xn, yn), lane_inputs=(eta,), constants=(max_steps, xtol),
                   calls=(Call(g, "dl", x * y),),
                   body=(CountWhere(bounces, y**2 > 2 / eta), *composite_gd_step((x, y), x * y, g, eta, eg, (xn, yn))),
                   stop=StopRule(before=((T >= max_steps, 3),), after=((sp.Abs(xn) <= xtol, 0),)),
                   int_outputs=("outcome", "steps", "bounces"), float_outputs=("x", "y"))
    eta0 = np.geomspace(0.01, 1.0, 70)
    x0, y0 = dynamics.normalised_start(eta0, 3.0)
    out_i, out_f = np.zeros((3, 70), np.int64), np.zeros((2, 70))
    compiled_engine(k)(*compiled_dl(SQRT), np.arange(70), np.stack([x0, y0, eta0]), 10**5, 1e-9, out_i, out_f)
    r = dynamics.run(SQRT, x0, y0, eta0, max_steps=10**5, xtol=1e-9, rtol=0.0)
    assert 0 in set(r.outcome)
    assert np.array_equal(out_i, [r.outcome, r.steps, r.bounce])
    assert np.array_equal(out_f, [r.x, r.y])


def test_a_rounding_ambiguous_declaration_is_refused():
    three = _kernel(body=(Let(s, x * y * eta), *composite_gd_step((x, y), x * y, g, eta, eg, (xn, yn)),
                          Let(gn, sp.Abs(eg)), Let(done, sp.false)))
    with pytest.raises(ValueError, match="3 operands"):
        kernel_source(three)


def test_undeclared_and_twice_declared_names_are_refused():
    with pytest.raises(ValueError, match="not a declared name"):
        kernel_source(_kernel(body=(Let(s, x * D),)))
    with pytest.raises(ValueError, match="declared twice"):
        kernel_source(_kernel(body=(Let(s, x * y), Let(s, x))))


def test_prelude_state_checkpoint_and_row_means_match_a_plain_loop():
    from verify.dynamics.stepkernel import Checkpoint, RowMean, State

    z, g, a, glast, e, dz, fm, moves, w2, gw, gwlast = sp.symbols("z g a glast e dz fm moves w2 gw gwlast", real=True)
    every, cnt = sp.symbols("every cnt", integer=True)
    k = StepKernel(
        params=(x,), next_params=(xn,), lane_inputs=(eta,), constants=(steps_max, every), calls=(),
        data=(z,), row_means=(RowMean((g,), (x - z,)), RowMean((gw,), (w2 - z,))),
        row_lets=(Let(w2, 2.0 * x),),  # once per step, read by the rows
        prelude=(Let(a, sp.Abs(g)), LastWhere(glast, g), LastWhere(gwlast, gw)),
        body=(Let(e, eta * g), Let(xn, x - e), State(moves, 0.0, moves + sp.Abs(e))),
        stop=StopRule(before=((T >= steps_max, 3),
                              Checkpoint(sp.Eq(sp.Mod(T, every), 0),
                                         (RowMean((fm,), (dz**2,), (Let(dz, x - z),)), State(cnt, 0, cnt + 1)),
                                         ((fm > 1e6, 2),))),
                      after=((sp.Abs(e) <= 1e-14, 0),)),
        int_outputs=("outcome", "steps", "cnt"), float_outputs=("x", "moves", "glast", "gwlast"),
        label="test_checkpoint")

    def plain(x, e, Z, steps_max, every):
        t, cnt, moves = 0, 0, 0.0
        while True:
            g = 0.0 if len(Z) > 1 else -0.0
            for zi in Z:
                g += x - zi
            g = g / len(Z)
            gw = 0.0 if len(Z) > 1 else -0.0
            for zi in Z:
                gw += 2.0 * x - zi
            glast, gwlast = g, gw / len(Z)
            if t >= steps_max:
                return [3, t, cnt], [x, moves, glast, gwlast]
            if t % every == 0:
                fm = 0.0 if len(Z) > 1 else -0.0
                for zi in Z:
                    fm += (x - zi) * (x - zi)
                fm = fm / len(Z)
                cnt += 1
                if fm > 1e6:
                    return [2, t, cnt], [x, moves, glast, gwlast]
            step = e * g
            x, moves, t = x - step, moves + abs(step), t + 1
            if abs(step) <= 1e-14:
                return [0, t, cnt], [x, moves, glast, gwlast]

    rng = np.random.default_rng(5)
    n = 130
    x0, e0 = rng.uniform(-3, 3, n), rng.uniform(0.1, 2.3, n)
    engine = compiled_engine(k)
    for Z in (rng.normal(size=(4, 1)), np.array([[0.5]])):
        out_i, out_f = np.zeros((3, n), np.int64), np.zeros((4, n))
        engine(np.arange(n), np.stack([x0, e0]), Z, 400, 3, out_i, out_f)
        outcomes = set()
        for i in range(n):
            ints, floats = plain(float(x0[i]), float(e0[i]), Z[:, 0].tolist(), 400, 3)
            outcomes.add(ints[0])
            assert out_i[:, i].tolist() == ints, (i, len(Z))
            assert np.array_equal(out_f[:, i].view(np.int64), np.array(floats).view(np.int64)), (i, len(Z))
        assert {0, 2, 3} <= outcomes


def test_a_prelude_observer_must_be_idempotent_when_a_checkpoint_visits_a_step_twice():
    from verify.dynamics.stepkernel import Checkpoint

    checkpoint = Checkpoint(T > 3, (), ((x > 1e6, 2),))
    with pytest.raises(TypeError, match="cannot be a prelude item"):
        kernel_source(_kernel(prelude=(CountWhere(count, x > 0),),
                              stop=StopRule(before=((T >= steps_max, 3), checkpoint), after=((done, 2),))))


def test_prelude_states_rare_updates_windows_and_doublings_match_a_plain_loop():
    """A running sum and a count in the prelude (written also at the step where the lane converges), a
    State started from a lane input whose update a RareUpdate redoes with a log, the last 5 values
    (Window) and two States at the steps 1, 2, 4, 8 (Doublings)."""
    from verify.dynamics.stepkernel import Doublings, RareUpdate, State, Window

    f, total, prev, e, acc, lg, c0 = sp.symbols("f total prev e acc lg c0", real=True)
    ups, rec = sp.Symbol("ups", integer=True), sp.Symbol("rec")
    k = StepKernel(
        params=(x,), next_params=(xn,), lane_inputs=(eta, c0), constants=(steps_max, tol), calls=(),
        prelude=(Let(f, x**2), Let(rec, T < steps_max), State(total, 0.0, total + f, where=rec),
                 CountWhere(ups, rec & (f > prev)), State(prev, math.inf, f, where=rec), Window("w", f, 5, rec)),
        body=(Let(e, eta * x), Let(xn, x - e), State(acc, c0, acc + e),
              RareUpdate(sp.Abs(e) > 0.5, (Let(lg, sp.log(sp.Abs(e))), State(acc, c0, acc + lg))),
              Doublings("snap", (acc, total), 4)),
        stop=StopRule(before=((T >= steps_max, 3), (f <= tol, 0)), after=((sp.Abs(xn) > 1e100, 2),)),
        int_outputs=("outcome", "steps", "ups"),
        float_outputs=("x", "total", "acc", *(f"w_{q}" for q in range(5)),
                       *(f"snap_{p}_{q}" for p in range(4) for q in range(2))), label="test_rare_window")

    def plain(x, e, c0, steps_max, tol):
        t, ups, total, prev, acc, win, snap = 0, 0, 0.0, math.inf, c0, [math.nan] * 5, [0.0] * 8
        while True:
            f = x * x
            if t < steps_max:
                total, ups, prev, win = total + f, ups + (f > prev), f, win[1:] + [f]
            if t >= steps_max or f <= tol:
                return [3 if t >= steps_max else 0, t, ups], [x, total, acc, *win, *snap]
            step = e * x
            x, acc, t = x - step, (acc + _log(abs(step)) if abs(step) > 0.5 else acc + step), t + 1
            if abs(x) > 1e100:
                return [2, t, ups], [x, total, acc, *win, *snap]
            if t & (t - 1) == 0 and t < 16:
                j = t.bit_length() - 1
                snap[2 * j:2 * j + 2] = [acc, total]

    rng = np.random.default_rng(7)
    n = 140
    x0, e0, c00 = rng.uniform(-3, 3, n), rng.uniform(0.05, 3.5, n), rng.normal(size=n)
    out_i, out_f = np.zeros((3, n), np.int64), np.zeros((16, n))
    compiled_engine(k)(np.arange(n), np.stack([x0, e0, c00]), 300, 1e-20, out_i, out_f)
    outcomes = set()
    for i in range(n):
        ints, floats = plain(float(x0[i]), float(e0[i]), float(c00[i]), 300, 1e-20)
        outcomes.add(ints[0])
        assert out_i[:, i].tolist() == ints, i
        assert np.array_equal(out_f[:, i].view(np.int64), np.array(floats).view(np.int64)), i
    assert {0, 2, 3} <= outcomes


def test_an_integer_state_refuses_a_value_that_is_not_an_integer():
    from verify.dynamics.stepitems import State

    count = sp.Symbol("count", integer=True)
    State(count, 0, count + 1)  # integer init, integer next: fine
    with pytest.raises(ValueError, match="integer init"):
        State(sp.Symbol("acc", real=True), 0, sp.Symbol("acc", real=True) + sp.Rational(1, 2))


def test_row_means_with_intermediates_match_a_plain_loop_in_any_block_width(monkeypatch):
    """A row mean whose rows have intermediates runs in two loops over the slots (the rows' chains into
    scratch rows, then the sums): the same bits as a plain loop, with 64- or 16-slot blocks."""
    from verify.dynamics import steplayout, stepkernel
    from verify.dynamics.stepkernel import RowMean

    z1, z2, a1, r, r2, unused, gx, gy, ss, ex, ey, sl = sp.symbols("z1 z2 a1 r r2 unused gx gy ss ex ey sl", real=True)
    k = StepKernel(
        params=(x, y), next_params=(xn, yn), lane_inputs=(eta,), constants=(steps_max,), calls=(), data=(z1, z2),
        row_means=(RowMean((gx, gy), (r * z1, r * y), (Let(a1, x * z1), Let(r, a1 - z2), Let(unused, r * r))),
                   RowMean((ss,), (r2 * r2,), (Let(r2, y * z2 - z1),), mean=False)),
        body=(Let(ex, eta * gx), Let(ey, eta * gy), Let(xn, x - ex), Let(yn, y - ey), LastWhere(sl, ss)),
        stop=StopRule(before=((T >= steps_max, 3),), after=((sp.Abs(ex) <= 1e-13, 0),)),
        int_outputs=("outcome", "steps"), float_outputs=("x", "y", "sl"), label="test_row_lets")

    def plain(x, y, e, Z, steps_max):
        t, sl = 0, math.nan
        while True:
            gx = gy = 0.0 if len(Z) > 1 else -0.0
            ss = 0.0
            for z1, z2 in Z:
                r = x * z1 - z2
                gx, gy = gx + r * z1, gy + r * y
                ss += (y * z2 - z1) * (y * z2 - z1)
            gx, gy = gx / len(Z), gy / len(Z)
            if t >= steps_max:
                return [3, t], [x, y, sl]
            ex, ey, sl = e * gx, e * gy, ss
            x, y, t = x - ex, y - ey, t + 1
            if abs(ex) <= 1e-13:
                return [0, t], [x, y, sl]

    rng = np.random.default_rng(8)
    n = 37
    x0, y0, e0 = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(0.01, 0.6, n)
    widths = set()
    for budget in (steplayout._BLOCK_BYTES, 1):  # 64 slots; 16 (the least)
        monkeypatch.setattr(steplayout, "_BLOCK_BYTES", budget)
        source = kernel_source(k)
        assert "P[0, i, b] = " in source  # the two-loop form
        widths.add(int(source.split("w = min(")[1].split(",")[0]))
        engine = stepkernel.compile_source(source, k.label)
        for Z in (rng.normal(size=(5, 2)), np.array([[0.7, -0.2]])):
            out_i, out_f = np.zeros((2, n), np.int64), np.zeros((3, n))
            engine(np.arange(n), np.stack([x0, y0, e0]), Z, 300, out_i, out_f)
            outcomes = set()
            for i in range(n):
                ints, floats = plain(float(x0[i]), float(y0[i]), float(e0[i]), Z.tolist(), 300)
                outcomes.add(ints[0])
                assert out_i[:, i].tolist() == ints, (i, len(Z), budget)
                assert np.array_equal(out_f[:, i].view(np.int64), np.array(floats).view(np.int64)), (i, len(Z), budget)
            assert {0, 3} <= outcomes
    assert widths == {64, 16}


def _residue_kernel(period, early: bool):
    """Mod(T, period) in the vector loop (a State, a CountWhere), in a checkpoint's condition and its
    items; the checkpoint decided before the vector loop (the first before-rule) or in the scalar pass."""
    from verify.dynamics.stepkernel import Checkpoint, State

    hits, cnt = sp.symbols("hits cnt", integer=True)
    msum, csum = sp.symbols("msum csum", real=True)
    check = Checkpoint(sp.Eq(sp.Mod(T, period), 0) | (x < 0.5),
                       (State(cnt, 0, cnt + 1), State(csum, 0.0, csum + sp.Mod(T, period))), ())
    budget = (T >= steps_max, 3)
    return StepKernel(
        params=(x,), next_params=(xn,), lane_inputs=(eta,), constants=(steps_max, period), calls=(),
        body=(Let(xn, x - eta), State(msum, 0.0, msum + sp.Mod(T, period)), CountWhere(hits, sp.Eq(sp.Mod(T, period), 0))),
        stop=StopRule(before=(check, budget) if early else (budget, check), after=((xn <= 0.0, 0),)),
        int_outputs=("outcome", "steps", "hits", "cnt"), float_outputs=("msum", "csum"),
        label=f"test_residues_{int(early)}")


@pytest.mark.parametrize("early", [False, True])
@pytest.mark.parametrize("lanewise_below", [0, 1000])
def test_t_mod_a_constant_kept_per_slot_is_pythons_t_mod_c(early, lanewise_below):
    """Mod(T, c) for an integer constant c is kept per slot and advanced with T (no integer division per
    slot and step): in the vector loop, in a checkpoint's condition and its items, blocked and lane by
    lane, it is T % c with Python's sign rule (and 0 for c = 0, numba's), for lanes of different lengths
    (70: more than a block, so slots are refilled and moved), some stopped by the budget."""
    k = _residue_kernel(sp.Symbol("period", integer=True), early)
    assert "%" not in kernel_source(k) and "%" not in kernel_source(k, lanewise=True)
    engine = compiled_engine(k, lanewise_below)
    n = 70
    x0 = np.linspace(1.0, 80.0, n)  # lanes of 1 to 80 steps: those past 60 stop at the budget
    outcomes = set()
    for every in (3, 1, 7, -3, 0):
        out_i, out_f = np.zeros((4, n), np.int64), np.zeros((2, n))
        engine(np.arange(n), np.stack([x0, np.ones(n)]), 60, every, out_i, out_f)
        for i in range(n):
            xv, t, msum_, hits_, cnt_, csum_, status = float(x0[i]), 0, 0, 0, 0, 0, -1
            while status < 0:
                mod = t % every if every else 0  # numba's t % 0 is 0
                if early and (mod == 0 or xv < 0.5):
                    cnt_, csum_ = cnt_ + 1, csum_ + mod
                if t >= 60:
                    status = 3
                    break
                if not early and (mod == 0 or xv < 0.5):
                    cnt_, csum_ = cnt_ + 1, csum_ + mod
                msum_ += mod
                hits_ += mod == 0
                xv, t = xv - 1.0, t + 1
                if xv <= 0.0:
                    status = 0
            assert out_i[:, i].tolist() == [status, t, hits_, cnt_], (i, every)
            assert out_f[:, i].tolist() == [msum_, csum_], (i, every)
            outcomes.add(status)
    assert outcomes == {0, 3}


def test_t_mod_a_float_constant_is_computed_at_each_step():
    """A residue counts whole steps: T mod a float constant (2.5, say) keeps Python's % at each step."""
    source = kernel_source(_residue_kernel(sp.Symbol("period", real=True), True))
    assert "% c_period" in source and not re.search(r"\btr\d+\b", source)
