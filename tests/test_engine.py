"""Unit tests of the claim engine: verdict scale, check constructors, seeds, rendering."""
from types import SimpleNamespace
import json

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from verify import Check, Claim, Context, Evidence, Paper, Planted, Status, run_claim, run_planted
from verify import asymptotic, sampling, symbolic
from verify.claim import derive_seed, meets, outcome, select, dependency_order
from verify.render import render_evidence, render_evidence_markdown

PAPER = Paper("toy", "a toy paper")
s, x = sp.symbols("s x", real=True)


def ctx(seed=1, budget="quick"):
    return Context(seed, budget)


def test_status_order_and_parse():
    assert Status.REFUTED < Status.INCONCLUSIVE < Status.SUPPORTED < Status.PROVED
    assert Status.parse("Proved") is Status.PROVED
    with pytest.raises(ValueError, match="unknown verdict"):
        Status.parse("true")


def test_meets_expectation():
    assert meets("supported", Status.PROVED) and not meets("proved", Status.SUPPORTED)
    assert meets("refuted", Status.REFUTED) and not meets("refuted", Status.INCONCLUSIVE)
    assert not meets("supported", Status.INCONCLUSIVE)


def test_seed_derivation_is_stable_and_separates_checks():
    a = derive_seed(0, "ahn2023.thm2", "rate")
    assert a == derive_seed(0, "ahn2023.thm2", "rate")
    assert a != derive_seed(0, "ahn2023.thm2", "upper") != derive_seed(1, "ahn2023.thm2", "rate")
    assert 0 <= a < 2**63


def test_identity_proved_refuted_inconclusive():
    ok = symbolic.identity("tanh", sp.diff(sp.log(2 * sp.cosh(s)), s), sp.tanh(s))(ctx())
    assert ok.status is Status.PROVED
    bad = symbolic.identity("tanh2", sp.diff(sp.log(2 * sp.cosh(s)), s), sp.tanh(2 * s))(ctx())
    assert bad.status is Status.REFUTED and "witness" in bad.data
    f = sp.Function("f")
    unknown = symbolic.identity("opaque", f(s), f(s) + sp.Integer(0) * s + 1 - 1 + sp.sin(s) ** 2
                                + sp.cos(s) ** 2 - 1)(ctx())
    assert unknown.status is Status.PROVED


def test_truth_none_is_inconclusive_never_false():
    p = sp.Symbol("p")  # unknown sign: sympy cannot decide p > 0
    ev = symbolic.truth("sign", lambda: p > 0)(ctx())
    assert ev.status is Status.INCONCLUSIVE
    assert symbolic.truth("pi", lambda: sp.pi > 3)(ctx()).status is Status.PROVED
    assert symbolic.truth("pi", lambda: sp.pi < 3)(ctx()).status is Status.REFUTED


def test_forall_supported_and_shrunk_witness():
    good = sampling.forall("tanh<=|s|", st.floats(-10, 10), lambda v: abs(np.tanh(v)) <= abs(v))
    ev = good(ctx())
    assert ev.status is Status.SUPPORTED and ev.data["examples"] >= 100
    bad = sampling.forall("s^2<=s", st.floats(0, 10), lambda v: v * v <= v)
    ev = bad(ctx())
    assert ev.status is Status.REFUTED
    assert ev.data["witness"] > 1  # shrunk to a small violating value
    assert ev.data["witness"] <= 2


def test_forall_bad_inputs_and_undecided_are_inconclusive():
    strat = st.floats(-1, 1)
    ev = sampling.forall("h", strat, lambda v: True, hypothesis=lambda v: v > 0)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "hypotheses" in ev.summary
    ev = sampling.forall("u", strat, lambda v: None)(ctx())
    assert ev.status is Status.INCONCLUSIVE


def test_forall_is_reproducible():
    bad = sampling.forall("s^3<=1", st.floats(-5, 5), lambda v: v ** 3 <= 1)
    assert bad(ctx(7)).data == bad(ctx(7)).data


def test_rate_fit_recovers_exponent_and_refutes_wrong_one():
    eta = asymptotic.geometric_grid(1e-3, 1e-1, 10)
    noise = 1 + 0.01 * np.sin(np.arange(10))
    measure = lambda c: asymptotic.Series(eta, 3.0 * eta ** 0.5 * noise)
    ev = asymptotic.rate("p", measure, 0.5, 0.05)(ctx())
    assert ev.status is Status.SUPPORTED
    assert abs(ev.data["slope"] - 0.5) < 0.01 and abs(ev.data["constant"] - 3.0) < 0.1
    assert asymptotic.rate("p", measure, 1.0, 0.05)(ctx()).status is Status.REFUTED
    assert asymptotic.rate("p", measure, 0.3, 0.05, mode="at_least")(ctx()).status is Status.SUPPORTED


def test_rate_with_log_factor():
    eta = asymptotic.geometric_grid(1e-4, 1e-1, 12)
    measure = lambda c: asymptotic.Series(eta, np.log(1 / eta) / eta ** 2)
    ev = asymptotic.rate("T", measure, -2.0, 0.05, log_factor=lambda e: np.log(1 / e))(ctx())
    assert ev.status is Status.SUPPORTED
    # without the log factor the local slope drifts: never supported; a wrong exponent is refuted
    assert asymptotic.rate("T", measure, -2.0, 0.05)(ctx()).status is not Status.SUPPORTED
    assert asymptotic.rate("T", measure, -3.0, 0.05)(ctx()).status is Status.REFUTED


def test_rate_noisy_or_short_is_inconclusive():
    eta = asymptotic.geometric_grid(1e-2, 2e-2, 6)
    rng = np.random.default_rng(0)
    measure = lambda c: asymptotic.Series(eta, eta * np.exp(rng.normal(0, 1, 6)))
    assert asymptotic.rate("p", measure, 1.0, 0.05)(ctx()).status is Status.INCONCLUSIVE
    nan = lambda c: asymptotic.Series(eta, np.full(6, np.nan))
    ev = asymptotic.rate("p", nan, 1.0, 0.05)(ctx())
    assert ev.status is Status.INCONCLUSIVE and ev.data["dropped_points"] == 6


def test_bounded_ratio():
    eta = asymptotic.geometric_grid(1e-4, 1e-1, 10)
    bounded = lambda c: asymptotic.Series(eta, 2 + eta)
    blowing = lambda c: asymptotic.Series(eta, eta ** -0.5)
    assert asymptotic.bounded("O", bounded, 0.1)(ctx()).status is Status.SUPPORTED
    assert asymptotic.bounded("O", blowing, 0.1)(ctx()).status is Status.REFUTED
    assert asymptotic.bounded("Om", blowing, 0.1, side="lower")(ctx()).status is Status.SUPPORTED


def test_crashing_check_is_inconclusive_not_pass():
    def boom(c):
        raise ZeroDivisionError("x")
    ev = Check("boom", boom)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "ZeroDivisionError" in ev.summary


def _claim(id_, checks, planted=(), **kw):
    return Claim(id=id_, source=PAPER.at("Lemma 0"), title="t", statement="s", checks=checks,
                 planted=planted, **kw)


def test_claim_takes_weakest_verdict_and_validates():
    proved = Check("a", lambda c: outcome(Status.PROVED, "x"))
    supported = Check("b", lambda c: outcome(Status.SUPPORTED, "y", n=3))
    r = run_claim(_claim("toy.lem1", (proved, supported)))
    assert r.verdict is Status.SUPPORTED
    assert json.loads(json.dumps(r.to_json()))["evidence"][1]["data"] == {"n": 3}
    with pytest.raises(ValueError, match="at least one check"):
        _claim("toy.lem2", ())
    with pytest.raises(ValueError, match="expect"):
        _claim("toy.lem3", (proved,), expect="true")


def test_planted_and_selection_and_order():
    wrong = Check("w", lambda c: outcome(Status.REFUTED, "no"))
    a = _claim("toy.lem1", (wrong,), planted=(Planted("p1", "wrong", wrong),), expect="refuted")
    b = _claim("toy.thm1", (wrong,), uses=("toy.lem1",), expect="refuted")
    assert run_planted(a, a.planted[0]).status is Status.REFUTED
    assert select([a, b], ["toy.thm1"]) == [b]
    assert select([a, b], ["toy"]) == [a, b]
    assert dependency_order([b, a]) == [a, b]


def test_rendering_shows_numbers():
    ev = Evidence("rate", Status.SUPPORTED, "fitted", {"slope": 0.49871, "series": [[1, 2]] * 20})
    text = render_evidence([ev])
    assert "slope=0.4987" in text and "series" not in text
    assert "| `rate` | **supported** |" in render_evidence_markdown([ev])


def test_identity_with_unspecified_function_is_refuted_by_a_jet_witness():
    f = sp.Function("f")
    y = sp.Symbol("y", real=True)
    grad = sp.diff(f(x * y), x)  # y f'(xy)
    assert symbolic.identity("ok", grad, y * sp.diff(f(s), s).subs(s, x * y))(ctx()).status \
        is Status.PROVED
    ev = symbolic.identity("two", grad, 2 * y * sp.diff(f(s), s).subs(s, x * y))(ctx())
    assert ev.status is Status.REFUTED
    assert symbolic.identity("shift", f(x), f(x + 1))(ctx()).status is Status.REFUTED


def test_time_budget_is_enforced_even_inside_broad_excepts():
    import time as _time
    started = _time.perf_counter()
    with pytest.raises(symbolic.BudgetExceeded):
        with symbolic.time_budget(0.2, clock="wall"):
            while True:
                try:
                    _time.sleep(0.01)
                except Exception:
                    pass
    assert _time.perf_counter() - started < 2


def test_the_default_budget_counts_cpu_time_not_waiting():
    """A loaded machine must not turn a verdict inconclusive: sleeping costs no CPU budget,
    spinning does."""
    import time as _time
    with symbolic.time_budget(0.2):
        _time.sleep(0.4)  # would have fired on a wall clock
    started = _time.process_time()
    with pytest.raises(symbolic.BudgetExceeded):
        with symbolic.time_budget(0.2):
            while True:
                try:
                    sum(range(1000))
                except Exception:
                    pass
    assert _time.process_time() - started < 2


def test_shared_seed_is_common_to_checks_of_a_run():
    seen = []
    probe = lambda name: Check(name, lambda c: (seen.append(c.shared_seed("sweep")),
                                                outcome(Status.SUPPORTED, "x"))[1])
    claim = _claim("toy.lem9", (probe("a"), probe("b")), planted=(Planted("p1", "w", probe("c")),))
    run_claim(claim, seed=3)
    run_planted(claim, claim.planted[0], seed=3)
    assert len(set(seen)) == 1
    run_claim(claim, seed=4)
    assert len(set(seen)) == 2


def test_time_budgets_nest():
    import time as _time
    started = _time.perf_counter()
    with pytest.raises(symbolic.BudgetExceeded):
        with symbolic.time_budget(0.3, clock="wall"):
            with symbolic.time_budget(5, clock="wall"):
                pass  # an inner budget must not cancel the outer one
            while True:
                _time.sleep(0.01)
    assert _time.perf_counter() - started < 2


def test_identity_accepts_matrices():
    m = sp.Matrix([[sp.sin(s) ** 2 + sp.cos(s) ** 2, 0], [0, 1]])
    assert symbolic.identity("eye", m, sp.eye(2))(ctx()).status is Status.PROVED
    assert symbolic.identity("two", m, 2 * sp.eye(2))(ctx()).status is Status.REFUTED


def test_forall_counts_out_of_scope_inputs():
    prop = lambda v: sampling.SKIP if v < 0 else v * v >= 0
    ev = sampling.forall("sq", st.floats(-1, 1), prop)(ctx())
    assert ev.status is Status.SUPPORTED and ev.data["skipped"] > 0
    ev = sampling.forall("none", st.floats(-1, 1), lambda v: sampling.SKIP)(ctx())
    assert ev.status is Status.INCONCLUSIVE


def test_all_checks_keeps_every_part():
    a = Check("a", lambda c: outcome(Status.PROVED, "exact", n=1))
    b = Check("b", lambda c: outcome(Status.SUPPORTED, "sampled", n=2))
    ev = symbolic.all_of("both", [a, b])(ctx())
    assert ev.status is Status.SUPPORTED and "weakest b" in ev.summary
    assert ev.data["parts"]["a"] == {"verdict": "proved", "summary": "exact", "n": 1}
    assert "- b: supported: sampled" in render_evidence([ev])


# --------------------------------------------------------------------------- roles (issue 10, item 5)

def _fixed(name, status, **kw):
    return Check(name, lambda c: outcome(status, str(status)), **kw)


def test_corroboration_does_not_demote_a_proof():
    from verify import corroborate
    claim = _claim("toy.lem10", (_fixed("exact", Status.PROVED),
                                 corroborate(_fixed("numeric", Status.SUPPORTED), of="exact")),
                   expect="proved")
    r = run_claim(claim)
    assert r.verdict is Status.PROVED and r.meets_expectation
    assert r.parts[0].deciding == "exact" and r.parts[0].checks == ("exact", "numeric")
    assert r.to_json()["evidence"][1]["role"] == "corroboration"
    assert "(corroborates exact)" in render_evidence(r.evidence)
    # an undecided corroboration does not demote either; an undecided part is decided by it
    r = run_claim(_claim("toy.lem11", (_fixed("exact", Status.INCONCLUSIVE),
                                       corroborate(_fixed("numeric", Status.SUPPORTED), of="exact"))))
    assert r.verdict is Status.SUPPORTED and r.parts[0].deciding == "numeric"


def test_proof_plus_refuting_cross_check_is_inconsistent_and_never_meets():
    from verify import corroborate
    for part_status in (Status.PROVED, Status.SUPPORTED):
        claim = _claim("toy.lem12", (_fixed("exact", part_status),
                                     corroborate(_fixed("numeric", Status.REFUTED), of="exact")),
                       expect="supported")
        r = run_claim(claim)
        assert r.verdict is Status.INCONSISTENT and not r.meets_expectation
        assert r.to_json()["verdict"] == "inconsistent"
        assert r.to_json()["parts"][0]["contradiction"] == ["exact", "numeric"]
    assert not meets("refuted", Status.INCONSISTENT) and not meets("unchecked", Status.INCONSISTENT)
    assert Status.parse("inconsistent") is Status.INCONSISTENT


def test_refutation_beats_an_undecided_corroboration_and_parts_take_the_weakest():
    from verify import corroborate
    r = run_claim(_claim("toy.lem13", (_fixed("a", Status.REFUTED),
                                       corroborate(_fixed("b", Status.INCONCLUSIVE), of="a")),
                         expect="refuted"))
    assert r.verdict is Status.REFUTED and r.meets_expectation
    # two different parts: proved and refuted is not a contradiction, the weakest part decides
    r = run_claim(_claim("toy.lem14", (_fixed("a", Status.PROVED), _fixed("b", Status.REFUTED)),
                         expect="refuted"))
    assert r.verdict is Status.REFUTED


def test_roles_are_validated():
    from verify import corroborate
    with pytest.raises(ValueError, match="names the part"):
        Check("x", lambda c: None, role="corroboration")
    with pytest.raises(ValueError, match="role"):
        Check("x", lambda c: None, role="evidence")
    with pytest.raises(ValueError, match="not a part check"):
        _claim("toy.lem15", (_fixed("a", Status.PROVED),
                             corroborate(_fixed("b", Status.PROVED), of="missing")))


def test_inconsistent_claim_fails_check_cli(monkeypatch, capsys):
    from verify import cli, corroborate
    claim = _claim("toy.lem16", (_fixed("exact", Status.PROVED),
                                 corroborate(_fixed("numeric", Status.REFUTED), of="exact")))
    monkeypatch.setattr(cli, "_discover", lambda: SimpleNamespace(claims=[claim], problems=[]))
    assert cli.main(["check", "--quiet"]) == 1
    assert "inconsistent" in capsys.readouterr().out


def test_exception_keeps_type_and_whole_message():
    def boom(c):
        raise ValueError("cannot evaluate f(\n  x\n)")
    ev = Check("boom", boom)(ctx())
    assert ev.status is Status.INCONCLUSIVE
    assert ev.summary == "check raised ValueError: cannot evaluate f( x )"


# --------------------------------------------------------------------------- fit rules (item 1)

def _power(lo, hi, n, p=0.5, correction=0.0, omega=1.0):
    eta = asymptotic.geometric_grid(lo, hi, n)
    return lambda c: asymptotic.Series(eta, eta ** p * (1 + correction * eta ** omega))


def test_fit_over_1_2_decades_is_inconclusive_and_names_the_knob():
    ev = asymptotic.rate("p", _power(10 ** -2.2, 1e-1, 12), 0.5, 0.05)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "extend the grid" in ev.summary
    ev = asymptotic.bounded("O", _power(10 ** -2.2, 1e-1, 12, p=0.0), 0.1)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "1.20 decades" in ev.summary
    assert asymptotic.rate("p", _power(10 ** -2.6, 1e-1, 12), 0.5, 0.05)(ctx()).status \
        is Status.SUPPORTED


def test_fewer_than_8_points_is_inconclusive_whatever_min_points_says():
    ev = asymptotic.rate("p", _power(1e-4, 1e-1, 7), 0.5, 0.05, min_points=3)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "need 8" in ev.summary
    assert asymptotic.rate("p", _power(1e-4, 1e-1, 8), 0.5, 0.05)(ctx()).status is Status.SUPPORTED


def test_low_r2_is_inconclusive():
    eta = asymptotic.geometric_grid(1e-4, 1e-1, 12)
    zigzag = np.where(np.arange(12) % 2, 8.0, 1 / 8)  # a trend buried in factor-64 oscillation
    measure = lambda c: asymptotic.Series(eta, eta ** 1.0 * zigzag)
    ev = asymptotic.rate("p", measure, 1.0, 0.5)(ctx())
    assert ev.status is Status.INCONCLUSIVE and "R²" in ev.summary


def test_tolerance_is_relative_for_small_exponents():
    # beta = 10: 1/(beta-1) = 1/9 must not accept data with exponent 1/10, nor the reverse
    truth = _power(1e-5, 1e-1, 12, p=0.1)
    assert asymptotic.rate("p", truth, 0.1, 0.05)(ctx()).status is Status.SUPPORTED
    ev = asymptotic.rate("p", truth, 1 / 9, 0.05)(ctx())
    assert ev.status is Status.REFUTED and ev.data["tolerance"] == pytest.approx(0.05 / 9)
    assert ev.data["tolerance_stated"] == 0.05


def test_drift_of_local_slopes_counts_as_uncertainty():
    # y = eta^0.5 (1 + 3 eta^0.5): the whole-grid slope 0.587 is biased; the near-limit half (0.533)
    # with half the drift as remaining bias cannot decide a tight tolerance, and does not refute
    biased = _power(1e-4, 1e-1, 12, p=0.5, correction=3.0, omega=0.5)
    ev = asymptotic.rate("p", biased, 0.5, 0.05)(ctx())
    assert ev.status is Status.INCONCLUSIVE and abs(ev.data["local_slope_drift"]) > 0.1
    assert ev.data["estimate"] == pytest.approx(ev.data["local_slope_near_limit"])
    assert "toward the limit" in ev.summary
    # a clearly wrong exponent is still refuted despite the drift
    assert asymptotic.rate("p", biased, 1.0, 0.05)(ctx()).status is Status.REFUTED
    # a small correction leaves the fit decidable
    mild = _power(1e-4, 1e-1, 12, p=0.5, correction=0.1, omega=1.0)
    assert asymptotic.rate("p", mild, 0.5, 0.05)(ctx()).status is Status.SUPPORTED


def test_bounded_toward_infinity_and_drift():
    d = asymptotic.geometric_grid(10, 1e4, 10)
    assert asymptotic.bounded("O", lambda c: asymptotic.Series(d, 3 - 1 / d), 0.1,
                              toward="infinity")(ctx()).status is Status.SUPPORTED
    assert asymptotic.bounded("O", lambda c: asymptotic.Series(d, np.log(d)), 0.05,
                              toward="infinity")(ctx()).status is not Status.SUPPORTED


# --------------------------------------------------------------------------- smaller defects (item 9)

def test_list_into_a_closed_pipe_exits_quietly():
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-m", "verify", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written (`| head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_seeds_option_counts_seeds_per_claim(monkeypatch, capsys):
    from verify import cli
    flaky = _claim("toy.lem17", (Check("odd_seeds_fail", lambda c: outcome(
        Status.REFUTED if c.run_seed % 2 else Status.SUPPORTED, "x")),))
    monkeypatch.setattr(cli, "_discover", lambda: SimpleNamespace(claims=[flaky], problems=[]))
    assert cli.parse_seeds("0-3") == [0, 1, 2, 3] and cli.parse_seeds("5,2-3") == [5, 2, 3]
    assert cli.main(["check", "--quiet", "--seeds", "0-3", "--json"]) == 1
    row = json.loads(capsys.readouterr().out)[0]
    assert row["seeds_met"] == 2 and row["seeds_total"] == 4
    assert row["seeds"] == {"0": "supported", "1": "refuted", "2": "supported", "3": "refuted"}
    assert row["verdict"] == "refuted"  # the first seed that missed
    assert cli.main(["check", "--quiet", "--seeds", "0,2"]) == 0
    assert "seeds 2/2 met" in capsys.readouterr().out
