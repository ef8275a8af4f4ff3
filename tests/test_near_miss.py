"""Near-miss planted errors (issue 10 item 6): the rule on the catalogue and the margin wrapper."""
from verify import Check, Context, Status, catalogue
from verify.asymptotic import Series, rate
from verify.claim import all_checks, outcome
from verify.nearmiss import is_near_miss, near_miss, relative

EMPIRICAL_KINDS = {"RATE", "PHASE", "TRAJ", "INT"}

# claims with an empirical check that do not have a near miss yet: this list may only shrink (now empty)
PENDING: set[str] = set()


def _empirical(claim):
    return claim.expect in ("proved", "supported") and any(c.kind in EMPIRICAL_KINDS for c in claim.checks)


def test_every_empirical_claim_has_a_near_miss_planted_error():
    lacking = sorted(c.id for c in catalogue() if _empirical(c) and not any(map(is_near_miss, c.planted)))
    new = [i for i in lacking if i not in PENDING]
    assert not new, f"claims with an empirical check but no near-miss planted error: {new}"


def test_pending_list_only_names_claims_still_lacking():
    have = {c.id for c in catalogue() if any(map(is_near_miss, c.planted))}
    assert not (PENDING & have), f"remove from PENDING (they have a near miss now): {sorted(PENDING & have)}"


_GRID = tuple(2.0 ** k for k in range(10))  # 10 points over 2.7 decades: meets the engine's fit rules


def _line(slope):
    return lambda ctx: Series(_GRID, [x ** slope for x in _GRID])


def test_rate_near_miss_records_its_margin():
    p = near_miss("p9", "exponent 1.1", rate("r", _line(1.0), 1.1, 0.05))
    ev = p.check(Context(0))
    assert ev.status == Status.REFUTED and abs(ev.data["margin"] - 0.05) < 1e-9
    assert "claimed exponent = 1.1" in ev.data["margin_text"] and "margin" in ev.summary


def test_a_near_miss_that_is_not_refuted_stays_unrefuted():
    ev = near_miss("p9", "exponent 1.02", rate("r", _line(1.0), 1.02, 0.05)).check(Context(0))
    assert ev.status == Status.SUPPORTED and "margin" not in ev.data


def test_refutation_without_margin_is_inconclusive():
    bare = Check("c", lambda ctx: outcome(Status.REFUTED, "no numbers"), "TRAJ")
    assert near_miss("p9", "x", bare).check(Context(0)).status == Status.INCONCLUSIVE
    with_margin = near_miss("p9", "x", bare, margin=lambda d: relative(1.0, 1.05, 0.02))
    ev = with_margin.check(Context(0))
    assert ev.status == Status.REFUTED and abs(ev.data["margin"] - (0.05 / 1.05 - 0.02)) < 1e-12


def test_only_a_wrong_part_may_refute_a_composed_near_miss():
    good = rate("good", _line(1.0), 1.0, 0.05)
    bad = rate("bad", _line(1.0), 1.12, 0.05)
    ok = near_miss("p9", "x", all_checks("p9", {"good": good, "bad": bad}), wrong=("bad",)).check(Context(0))
    assert ok.status == Status.REFUTED and ok.data["refuted_by"] == "bad"
    broken = near_miss("p9", "x", all_checks("p9", {"good": bad, "bad": good}), wrong=("bad",)).check(Context(0))
    assert broken.status == Status.INCONCLUSIVE and "state the truth" in broken.summary
