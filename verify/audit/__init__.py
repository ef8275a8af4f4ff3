"""Audit a loss ℓ against assumptions (A1)–(A3) of ahn2023 and say which results apply to it.

``audit(loss_or_expr, derivative=False, confirm=True, seed=0, budget=25) -> AuditResult``; the
command line ``python -m verify audit-loss EXPR [--derivative] [--json] [--no-confirm] [--out FILE.md]
[--budget SECONDS] [--strict]`` calls :func:`cli_main`.

Modules, in the order the audit runs: :mod:`.cells` (exact break points, cells, pointwise
evaluation), :mod:`.intervals` (arb certificates), :mod:`.a1`, :mod:`.a2a3`, :mod:`.applicability`,
:mod:`.confirmation`, :mod:`.rendering`; :mod:`.core` runs them under :mod:`.clock` (the overall
time budget); :mod:`.numeric` audits callables; :mod:`.cli` is the command line; :mod:`.predictions`
calls the papers' ``Paper(audit_predictions=...)`` hooks (values a paper's claims predict for the
loss, e.g. a conjectured constant, printed with the claim id and status).

The assumptions (spec ``def6``):

* (A1) ℓ even, convex, 1-Lipschitz (|ℓ'| ≤ 1), C² near 0, ℓ''(0) = 1;
* (A2) with 1 < β < ∞: ℓ'(s)/s ≤ 1 − c|s|^β·1{|s| ≤ c} for s ≠ 0 (one c, both coefficient and
  radius); with β = ∞: ℓ'(s)/s ≤ 1 for s ≠ 0;
* (A3) ℓ'(s)/s ≥ 1 − C|s|^β for s ≠ 0.

Method, strongest first (each part says which one decided it):

1. *exact* (``proved``): the real line is cut into cells at the break points of every
   Piecewise / Abs / sign / Min / Max (solved exactly by sympy; never approximated: the point that
   selects a cell's branch is a rational checked to lie inside it exactly; when the break points
   cannot all be found, those cells are evaluated pointwise and nothing is ``proved``); on each cell the expression is
   smooth and sympy decides parity, signs, one-sided limits at 0 and the leading term
   a·s^β of 1 − ℓ'(s)/s (this is how β is found; the spec's audit note: never from floats);
2. *certified* (``proved``): interval arithmetic (python-flint ``arb``) on compact intervals through
   :func:`verify.certify.prove_nonnegative` (centred forms, and a Taylor form with Lagrange remainder
   at 0 that closes the removable singularity of ℓ'(s)/s and touching points such as the sharp
   (A3) constant); exact end points where a function vanishes (ℓ_β at r_β) are passed as zeros.
   Fallback without certify: if u(s) = s − ℓ'(s) has u⁽ʲ⁾(0) = 0 for j ≤ β (β an integer), then
   (1 − ℓ'(s)/s)/s^β = u^{(β+1)}(ξ)/(β+1)! for some ξ ∈ (0, s), so an enclosure of u^{(β+1)} on
   [0, c] bounds the quotient without cancellation. Tails: s ≥ 1 uses |ℓ'| ≤ 1 (ℓ'(s)/s ≤ 1/s),
   and (A3) beyond C^(-1/β) uses 0 ≤ ℓ'(s)/s. All sympy steps and the interval certificates run
   under time budgets; when one runs out the audit says so in ``notes``;
3. *numeric* (last resort): 40-digit mpmath evaluation on a grid of every cell (from 10⁻⁸ to 10⁸,
   refined around the worst value), so cancellation near 0 does not fake a constant (spec §7 N5);
   it finds witnesses, but a part it alone backs is ``inconclusive`` (samples cannot exclude a
   narrow bump between them), the summary stating the number of points.

A refutation always carries a witness s and the violated value, re-evaluated at 60 digits from the
whole expression (the branch chosen at s itself) before it is printed. The whole audit runs under
one time budget (:mod:`.clock`); what it does not finish is ``inconclusive`` and says what ran out.

Pitfalls the audit knows about (spec §7): N1 — ℓ⁽⁴⁾(0) < 0 only gives the *local* part of (A2), the
global part ℓ'(s) ≤ s is checked separately; N2 — (A2) does not imply (A2+) unless ℓ'(s) < s for
every s > 0, which is reported as ``strict``; N5 — (A3) constants are computed from exact leading
terms / high precision, never from float grids near 0.

Confirmation (Theorem 2, an experiment, verdict at best ``supported``): GD on f(x, y) = ℓ(xy)
from the normalised EoS start √(3/η)·(3/4, 5/4) (spec E7) over a geometric grid of step sizes
(:func:`verify.dynamics.run`, with a numba kernel compiled from the whitelisted expression); the
fitted exponent of the gap 2/η − y_∞² against η is compared with 1/(β − 1) within 0.05, and the
bouncing length T = #{t : y_t² > 2/η} with the law of rem3.

Normalisation: when ℓ''(0) = k ≠ 1 or sup|ℓ'| = L > 1 but ℓ is even, convex and C² near 0, the
audit offers ℓ̃(s) = (k/L²)·ℓ(L s/k) (ℓ̃''(0) = 1, sup|ℓ̃'| = 1; for ℓ_sym this is ℓ_sym(2s) =
ℓ_rsym), audits it, and reads predictions (and the confirmation) off it: GD on ℓ with step η is GD
on ℓ̃ with step η·L under (u, v) = (x, y)/√(L/k).
"""
from __future__ import annotations

from .cli import cli_main  # importing .cli also registers the audit bench entries
from .applicability import BETA_TAGS, catalogue_assumptions
from .common import (DPS, INCONCLUSIVE, NA, PROVED, REFUTED, SUPPORTED, AuditInputError, Part,
                     weakest)
from .core import audit
from .rendering import AuditResult

__all__ = ["audit", "cli_main", "AuditResult", "AuditInputError", "Part", "catalogue_assumptions",
           "BETA_TAGS", "weakest", "DPS", "PROVED", "SUPPORTED", "REFUTED", "INCONCLUSIVE", "NA"]
