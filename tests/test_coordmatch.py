"""verify/dynamics/coordmatch.py: which "some |e_j| = c" Reduces are searched after the running
max_j |e_j| instead of in the loop over j (the bits: tests/test_dln_sgd_step.py, tests/test_dln_step.py)."""
import sympy as sp

from verify.dynamics.coordmatch import max_decided
from verify.dynamics.stepitems import Let, MaxOf, Reduce, State

e, f, m, h, z = sp.symbols("e f m h z", real=True)
ROWS = {e: 3, f: 4}
MAX = Reduce(m, 0.0, MaxOf(m, sp.Abs(e)))


def test_the_flag_beside_the_max_of_the_same_absolute_values_is_searched():
    assert max_decided((Let(e, 2 * f), MAX, Reduce(h, False, h | sp.Eq(sp.Abs(e), 1))), ROWS) == {h: (m, e, 1)}
    assert max_decided((Reduce(h, False, sp.Eq(1, sp.Abs(e)) | h), MAX), ROWS) == {h: (m, e, 1)}
    assert max_decided((MAX, Reduce(h, True, h | sp.Eq(sp.Abs(e), 0.5))), ROWS) == {h: (m, e, 0.5)}


def test_other_flags_and_maxima_stay_in_the_loop():
    flag = Reduce(h, False, h | sp.Eq(sp.Abs(e), 1))
    cases = [
        (flag,),                                                      # no max
        (Reduce(m, 0.0, MaxOf(m, sp.Abs(f))), flag),                  # the max of other values
        (Reduce(m, 0.0, MaxOf(sp.Abs(e), m)), flag),                  # max(|e|, m): a NaN |e| would reset it
        (Reduce(m, 0.0, MaxOf(m, e)), flag),                          # the max of e, not |e|
        (MAX, Reduce(h, False, h | sp.Eq(e, 1))),                     # e = 1, not |e| = 1
        (MAX, Reduce(h, False, h | sp.Eq(sp.Abs(e), 0))),             # c = 0
        (MAX, Reduce(h, False, h & sp.Eq(sp.Abs(e), 1))),             # every, not some
        (MAX, Reduce(h, False, h | sp.Eq(sp.Abs(e), 1) | sp.Eq(f, 2))),  # more than the one test
    ]
    for items in cases:
        assert max_decided(items, ROWS) == {}, items
    assert max_decided((MAX, flag), {f: 4}) == {}  # e not stored per coordinate: nothing to search
    # the flag read in the loop (it has a running value there), e advanced by the step (a State, a parameter)
    assert max_decided((MAX, flag, Let(z, sp.Piecewise((1.0, h), (0.0, True)))), ROWS) == {}
    assert max_decided((MAX, flag, State(e, 0.0, e + f)), ROWS) == {}
    assert max_decided((MAX, flag), ROWS, params=(e,)) == {}
