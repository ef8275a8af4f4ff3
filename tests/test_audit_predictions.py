"""audit-loss prints the papers' predictions for the audited loss (the ``Paper.audit_predictions``
hook, issue 11): ahn2023's conjectured Theorem-2 constant, with the claim id and its status."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from verify import Paper
from verify.audit import audit, cli_main
from verify.audit.predictions import AuditFacts, NotCovered, Prediction, paper_predictions
from verify.discovery import papers

FAST = ["--no-confirm", "--budget", "inf"]


def _predicted(result) -> list[dict]:
    return result.predictions["paper"]["predicted"]


def test_sqrt_loss_prints_the_claims_constant(capsys):
    from claims.ahn2023.thm2_constants import beta2_prediction
    assert cli_main(["sqrt(1+s**2)", *FAST]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "ahn2023.thm2.constant_beta2" in x)
    # the value the claim's own closed form gives for ℓ_sqrt = √(1+s²): −3ℓ''(0)³/ℓ⁗(0) = 1
    assert beta2_prediction("sqrt") == 1.0
    assert "(2/η − ℓ''(0)·y∞²)/η = 1 ≈ 1 " in line
    assert "conjecture" in line and "4 significant digits" in line and "held-out losses" in line


def test_markdown_and_json_carry_the_prediction(tmp_path, capsys):
    path = tmp_path / "a.md"
    assert cli_main(["log(2*cosh(s))", *FAST, "--json", "--out", str(path)]) == 0
    row = json.loads(capsys.readouterr().out)["predictions"]["paper"]["predicted"][0]
    assert row["claim"] == "ahn2023.thm2.constant_beta2" and row["status"] == "conjecture"
    assert row["exact"] == "3/2" and row["value"] == 1.5
    md = path.read_text(encoding="utf-8")
    assert "## Papers' predictions for this loss" in md and "| ahn2023 | `ahn2023.thm2.constant_beta2` |" in md


def test_a_loss_that_is_not_normalised_is_read_through_its_normalisation():
    # ℓ = 2 log cosh(s/2): ℓ''(0) = 1/2, ℓ⁗(0) = −1/4, so −3ℓ''(0)³/ℓ⁗(0) = 3/2
    rows = _predicted(audit("2*log(cosh(s/2))", confirm=False, budget=None))
    assert [r["exact"] for r in rows] == ["3/2"] and "normalisation" in rows[0]["how"]


def test_general_beta_law_for_an_l_beta_loss():
    from claims.ahn2023.thm2_constants import beta_law_prediction
    r = audit("Piecewise((s*(1 - 27/256*Abs(s)**3), s**2 < 16/9), (sign(s), True))", derivative=True,
              confirm=False, budget=None)
    (row,) = _predicted(r)
    assert row["claim"] == "ahn2023.thm2.constant_beta"
    assert row["value"] == pytest.approx(beta_law_prediction(3.0), rel=1e-12)


def test_a_loss_the_conjectures_do_not_cover_gets_a_reason_not_a_number(capsys):
    assert cli_main(["Piecewise((s**2/2, Abs(s) <= 1), (Abs(s) - 1/2, True))", *FAST]) == 0  # Huber, β = ∞
    out = capsys.readouterr().out
    assert "does not cover this loss" in out and "1 < β < ∞" in out and " ≈ " not in out.split("papers'")[1]


def _facts(ratio, beta=3, c=sp.Rational(1, 8)) -> AuditFacts:
    return AuditFacts("x", False, None, sp.Symbol("s"), sp.Integer(beta), c, ratio, 1, 1,
                      {"A1": "proved", "A2": "proved", "A3": "proved", "even": "proved"})


def test_beta_law_covers_only_an_exact_leading_term_near_0():
    from claims.ahn2023._thm2_closed_forms import audit_predictions
    s = sp.Symbol("s")
    assert isinstance(audit_predictions(_facts(s**3 / 8)), Prediction)
    assert isinstance(audit_predictions(_facts(s**3 / 8 + s**4)), NotCovered)


def test_the_hook_is_paper_agnostic_and_a_broken_hook_does_not_break_the_audit():
    def broken(facts):
        raise ZeroDivisionError("oops")
    fake = {"zz": Paper("zz", "test", audit_predictions=(broken, lambda f: None,
                                                         lambda f: Prediction("zz.c", "q", 2.0, "2", "h",
                                                                              "conjecture", "t")))}
    out = paper_predictions(_facts(None), fake)
    assert [r["claim"] for r in out["predicted"]] == ["zz.c"]
    assert "the hook failed: ZeroDivisionError" in out["not_covered"][0]["reason"]
    assert papers()["ahn2023"].audit_predictions  # the local catalogue registers its hook
