"""The public facade: what a claim author imports from ``verify``, the ``forall`` property contract,
and ``symbolic.is_zero`` on identities with square roots."""
import sympy as sp
from hypothesis import strategies as st

import verify
from verify import SKIP, Context, Status, check, forall, outcome, witness
from verify.symbolic import is_zero


def test_everything_a_claim_author_uses_is_importable_from_verify():
    for name in ("Claim", "Paper", "Planted", "Figure", "check", "outcome", "Context", "Status", "SKIP",
                 "forall", "witness", "all_checks", "Loss", "symbolic", "sampling", "asymptotic",
                 "certify", "dynamics", "catalogue", "run_claim"):
        assert getattr(verify, name) is not None, name
    assert set(verify.__all__) >= {"check", "outcome", "SKIP", "Context", "forall"}


def test_check_decorator_and_outcome():
    @check("always", "custom")
    def always(ctx):
        return outcome(Status.SUPPORTED, "fine", value=ctx.pick(1, 2))

    ev = always(Context(seed=1))
    assert ev.check == "always" and ev.status == Status.SUPPORTED and ev.data == {"value": 1}


def test_forall_passes_the_context_and_summarises_numbers():
    seen = []

    def prop(x, ctx):  # a two-parameter property receives the context
        seen.append(ctx.budget)
        return x >= 0, {"slack": x}

    ev = forall("nonneg", st.integers(0, 10), prop, examples=(30, 30))(Context(seed=3))
    assert ev.status == Status.SUPPORTED and set(seen) == {"quick"}
    assert ev.data["slack_min"] >= 0 and ev.data["slack_max"] <= 10

    def by_keyword(x, ctx=None):
        return SKIP if ctx is None else x < 5

    bad = forall("small", st.integers(0, 10), by_keyword, examples=(50, 50))(Context(seed=3))
    assert bad.status == Status.REFUTED and bad.data["witness"] == 5

    # backwards compatible: one-parameter properties (and extra defaulted ones) get no context
    assert forall("one", st.integers(0, 3), lambda x, tol=1e-9: x + tol > 0)(Context(seed=0)).status \
        == Status.SUPPORTED
    assert witness("at", 2, lambda x, ctx: (x == 2, {"n": ctx.seed}))(Context(seed=7)).data["n"] == 7


def test_forall_undecided_and_skipped_are_never_a_pass():
    assert forall("u", st.integers(0, 3), lambda x: None)(Context(seed=0)).status == Status.INCONCLUSIVE
    assert forall("s", st.integers(0, 3), lambda x: SKIP)(Context(seed=0)).status == Status.INCONCLUSIVE


def test_is_zero_decides_identities_with_square_roots():
    x, y = sp.symbols("x y", positive=True)
    # a root of a perfect square (factor under the root)
    assert is_zero(sp.sqrt(x**2 + 2 * x * y + y**2) - (x + y)) is True
    assert is_zero(sp.sqrt(x**3 + 2 * x**2 + x) - (x + 1) * sp.sqrt(x)) is True
    # both sides non-negative: compared through their squares
    assert is_zero(sp.sqrt(x) + sp.sqrt(y) - sp.sqrt(x + y + 2 * sp.sqrt(x * y))) is True
    # near misses stay nonzero (never turned into True)
    assert is_zero(sp.sqrt(x) + sp.sqrt(y) - sp.sqrt(x + y + sp.Rational(201, 100) * sp.sqrt(x * y))) is False
    assert is_zero(sp.sqrt(x**2 + 2 * x * y + y**2) - sp.Rational(101, 100) * (x + y)) is False
    # signs unknown: squaring would not be an equivalence, so no decision from it
    a, b = sp.symbols("a b", real=True)
    assert is_zero(sp.sqrt(a**2) - a) is not True
