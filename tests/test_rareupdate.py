"""A RareUpdate's ``absent_if`` (verify.dynamics.stepitems.RareUpdate): a scalar condition under which
the RareUpdate's per-coordinate condition holds nowhere; the engines then run a copy of the block's
loop without it (no State held coordinate by coordinate). On a kernel that is not the diagonal
network's: acc_j += s_j² (s_j = η w_j), but acc_j += ln|s_j| where |s_j| ≥ 1/2, redone in the scalar
pass; absent_if: max_j |s_j| < 1/2. Every output is the kernel's without absent_if, bit for bit, in
both engines; a false absent_if changes them."""
import numpy as np
import pytest
import sympy as sp

from verify.dynamics import stepkernel
from verify.dynamics.stepkernel import (T, Let, MaxOf, MaxWhere, PerCoordinate, RareUpdate, Reduce, State, StepKernel, StopRule,
                                        kernel_source)

w, wn, eta, s, m, mx, acc, cnt = sp.symbols("w wn eta s m mx acc cnt", real=True)
steps_max = sp.Symbol("steps_max", integer=True)


def _kernel(absent_if=None, label="test_rareupdate", two=False) -> StepKernel:
    rare = (RareUpdate(sp.Abs(s) >= 0.5, (State(acc, 0.0, acc + sp.log(sp.Abs(s))),), absent_if=absent_if),)
    if two:  # a second RareUpdate in the block, without absent_if
        rare += (RareUpdate(sp.Abs(s) >= 0.25, (State(cnt, 0.0, cnt + 1.0),)),)
    return StepKernel(
        params=(w,), next_params=(wn,), lane_inputs=(eta,), constants=(steps_max,), calls=(), coordinates=(w,),
        body=(PerCoordinate((Let(s, eta * w), Reduce(m, 0.0, MaxOf(m, sp.Abs(s))))),
              MaxWhere(mx, m),  # the vector loop (the next block runs after it)
              PerCoordinate((State(acc, 0.0, acc + s * s), *((State(cnt, 0.0, cnt + 0.0),) if two else ()),
                             *rare, Let(wn, w - 0.25 * s)))),
        # a lane stops once every |s_j| < 1e-3 (at its own step): halted slots sit beside stepping ones
        stop=StopRule(before=((T >= steps_max, 3),), after=((m < 1e-3, 0),)),
        int_outputs=("outcome", "steps"), float_outputs=("w", "acc", *(("cnt",) if two else ()), "mx"), label=label)


def _inputs(d, lanes, rng):
    w0 = rng.uniform(-1, 1, (d, lanes)) * 10.0 ** rng.uniform(-3, 1.5, lanes)  # rare at first, then not
    w0[:, :3] = np.array([[np.nan], [np.inf], [0.0]]).T
    w0[0, 3] = np.nan  # a NaN coordinate beside finite ones: its condition is false, the max ignores it
    e = rng.uniform(0.1, 1.0, lanes)
    return np.vstack([w0, e[None, :]])


def _run(kernel, lanewise, I, d, steps):
    label = kernel.label + "_lw" * lanewise
    engine = stepkernel.compile_source(kernel_source(kernel, lanewise), label)
    lanes = I.shape[1]
    out_i, out_f = np.zeros((2, lanes), np.int64), np.zeros((2 * d + 1, lanes))
    assert engine(np.arange(lanes), I, steps, out_i, out_f) == 0
    return out_i, out_f


@pytest.mark.parametrize("lanewise", [False, True])
def test_the_copy_without_the_rare_update_gives_the_same_bits(lanewise):
    rng = np.random.default_rng(5)
    honest, lying = _kernel(m < 0.5, "test_rareupdate_absent"), _kernel(m < 4.0, "test_rareupdate_lie")
    reference = _kernel()
    for d in (1, 5, 9):
        I = _inputs(d, 70, rng)
        ref = _run(reference, lanewise, I, d, 40)
        got = _run(honest, lanewise, I, d, 40)
        assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1].view(np.int64), got[1].view(np.int64)), d
        assert len(set(ref[0][1].tolist())) > 5 and (ref[0][0] == 0).sum() > 10  # lanes stop at many steps
        if d == 5:  # teeth: a condition that does not imply "nowhere" skips rare updates that were due
            lie = _run(lying, lanewise, I, d, 40)
            assert not np.array_equal(ref[1], lie[1], equal_nan=True)


def test_the_copy_is_printed_only_with_absent_if():
    assert "hold at no coordinate" in kernel_source(_kernel(m < 0.5), lanewise=True)
    assert "hold at no coordinate" not in kernel_source(_kernel())
    with pytest.raises(ValueError, match="absent_if to every RareUpdate"):
        kernel_source(_kernel(m < 0.5, two=True))


def test_absent_if_outside_a_coordinate_loop_is_refused():
    x, xn, e = sp.symbols("x xn e", real=True)
    k = StepKernel(params=(x,), next_params=(xn,), lane_inputs=(e,), constants=(steps_max,), calls=(),
                   body=(Let(xn, x - e * x), RareUpdate(sp.Abs(x) >= 1, (State(acc, 0.0, acc + 1.0),), absent_if=e < 1)),
                   stop=StopRule(before=((T >= steps_max, 3),), after=()),
                   int_outputs=("outcome", "steps"), float_outputs=("x",), label="test_rareupdate_scalar")
    with pytest.raises(TypeError, match="absent_if is for a RareUpdate in a PerCoordinate block"):
        kernel_source(k)


def test_absent_if_reading_a_per_coordinate_quantity_is_refused():
    with pytest.raises(ValueError, match="absent_if reads \\['s'\\], per-coordinate quantities"):
        kernel_source(_kernel(s < 0.5))
