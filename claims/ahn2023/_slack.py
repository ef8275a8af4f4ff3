"""How tight the inequalities of ahn2023 are: slack checks attached to the inequality claims.

Each check measures value/bound (or bound − value) over a stated grid and reports, in the evidence
keys other tools read (``slack_min``, ``slack_max``, ``slack_at``, ``tight``, ``loose_factor``), the
range of the slack, where it is attained and whether the bound is tight (the ratio tends to 1, or the
margin to 0, along a sequence) or loose (by which factor). A slack check also fails the claim if the
bound is violated on its grid, so it is a real check and not a report only.
"""
from __future__ import annotations

import math

import numpy as np

from verify.claim import Check, Context, Evidence, Status, outcome
from verify.asymptotic import fit_power
from verify.extrapolate import limit

from claims.ahn2023 import _mean_model as mm

# =========================================================================== Theorem 3
THM3_DELTAS = (0.25, 1.0, 2.0, 4.0, 6.0, 7.5)
THM3_A0 = (0.1, -0.1, 1.0, -1.0, 5.0, -5.0)


def thm3_slack(ctx: Context) -> Evidence:
    """b_∞/(−(η/γ)|A₀|) ∈ [0, 1] on a grid of (δ, A₀) at the smallest admissible d and 2× it."""
    rows, worst = {}, None
    for delta in THM3_DELTAS:
        for A0 in THM3_A0:
            gamma = min(delta, 8 - delta, (8 - delta) / abs(A0)) / 200
            d_min = math.ceil(math.sqrt((8 - delta) * math.pi * abs(A0) / gamma))
            for d in (d_min, 2 * d_min):
                eta = (8 - delta) * math.pi / d ** 2
                r = mm.envelope(A0, eta, d, gamma)
                if not r["converged"]:
                    return outcome(Status.INCONCLUSIVE, f"δ={delta}, A0={A0}, d={d}: step budget ran out")
                floor = -(eta / gamma) * abs(A0)
                ratio = r["b_final"] / floor
                rows[f"delta={delta},A0={A0},d={d}"] = {"b_inf": r["b_final"], "bound": floor, "ratio": ratio}
                if r["b_final"] < floor or r["b_final"] > 0:
                    worst = f"delta={delta},A0={A0},d={d}"
    ratios = {k: v["ratio"] for k, v in rows.items()}
    kmax, kmin = max(ratios, key=ratios.get), min(ratios, key=ratios.get)
    data = {"slack_quantity": "b_inf / (-(eta/gamma)|A0|)  (1 = tight)", "slack_min": ratios[kmin],
            "slack_max": ratios[kmax], "slack_at": kmax, "slack_min_at": kmin,
            "tight": bool(ratios[kmax] >= 0.5), "loose_factor": 1 / ratios[kmax] if ratios[kmax] > 0 else math.inf,
            "runs": rows}
    if worst:
        return outcome(Status.REFUTED, f"0 >= b_inf >= -(eta/gamma)|A0| fails at {worst}", **data)
    return outcome(Status.SUPPORTED,
                   f"{len(rows)} runs: b_∞ reaches at most {ratios[kmax]:.3g} of the bound −(η/γ)|A₀| (at "
                   f"{kmax}; at least {ratios[kmin]:.2g}): loose by a factor ≥ {1 / ratios[kmax]:.3g}", **data)


# =========================================================================== Theorem 4
def thm4_slack(grid_of) -> Check:
    """margin = bound − b_∞ ≥ 0 on the Theorem-4 grid; per (δ, A₀) its decay in d (slope, and the
    extrapolated limit of margin·d² on d = 50, 100, 200, 400)."""

    def run(ctx: Context) -> Evidence:
        grid = grid_of(ctx.full)
        by_case: dict = {}
        for (delta, A0, d), b, steps, flips in grid:
            if steps >= 4_000_000:
                return outcome(Status.INCONCLUSIVE, f"δ={delta}, A0={A0}, d={d}: step budget ran out")
            bound = float(mm.g_inverse(2 / math.sqrt((8 + delta) * math.pi), dps=30))
            by_case.setdefault((delta, A0), []).append((d, bound - b, b / bound))
        rows, violated = {}, []
        for (delta, A0), pts in by_case.items():
            pts.sort()
            ds = np.array([p[0] for p in pts], float)
            margin = np.array([p[1] for p in pts])
            if (margin < 0).any():
                violated.append(f"delta={delta},A0={A0}")
                continue
            row = {"d": ds.tolist(), "margin": margin.tolist(), "ratio_b_over_bound": [p[2] for p in pts]}
            if (margin > 0).all() and len(ds) >= 3:
                fit = fit_power(ds, margin)
                row["margin_slope_in_d"] = fit.slope
                row["margin_slope_stderr"] = fit.stderr
                if len(ds) >= 4:
                    lim = limit(margin * ds ** 2)
                    row["margin_times_d2_limit"] = lim.value
                    row["margin_times_d2_stderr"] = lim.stderr
            rows[f"delta={delta},A0={A0}"] = row
        all_m = [(k, d, m) for k, r in rows.items() for d, m in zip(r["d"], r["margin"])]
        kmin = min(all_m, key=lambda x: x[2])
        kmax = max(all_m, key=lambda x: x[2])
        slopes = [r["margin_slope_in_d"] for r in rows.values() if "margin_slope_in_d" in r]
        # the margin's constant lim d²(bound − b_∞) does not depend on A₀ (to its error bar): one per δ,
        # the A₀ with the smallest error bar
        per_delta: dict = {}
        for (delta, A0) in by_case:
            row = rows.get(f"delta={delta},A0={A0}", {})
            if "margin_times_d2_limit" in row:
                best = per_delta.get(delta)
                if best is None or row["margin_times_d2_stderr"] < best["leading_constant_stderr"]:
                    per_delta[delta] = {"leading_constant": row["margin_times_d2_limit"],
                                        "leading_constant_stderr": row["margin_times_d2_stderr"],
                                        "quantity": f"lim d^2 (bound - b_inf), delta={delta:g} (A0={A0:g})"}
        data = {"slack_quantity": "bound - b_inf (0 = tight)", "slack_min": kmin[2],
                "slack_min_at": f"{kmin[0]},d={kmin[1]:g}", "slack_max": kmax[2],
                "slack_at": f"{kmin[0]},d={kmin[1]:g}", "slack_max_at": f"{kmax[0]},d={kmax[1]:g}",
                "margin_slope_in_d_range": [min(slopes), max(slopes)] if slopes else None,
                "tight": bool(slopes and max(slopes) < -0.5), "cases": rows,
                "margin_times_d2": {f"delta={k:g}": v for k, v in sorted(per_delta.items())}}
        if violated:
            return outcome(Status.REFUTED, f"b_∞ above the bound for {violated}", **data)
        return outcome(Status.SUPPORTED,
                       f"margin bound − b_∞ ∈ [{kmin[2]:.3g}, {kmax[2]:.3g}] (smallest at {data['slack_min_at']}); "
                       f"per (δ, A₀) it decays like d^p with p ∈ [{min(slopes):.2f}, {max(slopes):.2f}]: "
                       + ("asymptotically tight as d → ∞" if data["tight"] else "not shrinking with d"),
                       **data)

    return Check("slack", run, "TRAJ")


# =========================================================================== Theorem 2 upper bound
def thm2_upper_slack(keys, ks_for, lanes, m: float) -> Check:
    """y_∞²/(2/η) over the Theorem-2 sweeps: < 1 everywhere, → 1 as η → 0 (tight)."""

    def run(ctx: Context) -> Evidence:
        rows = {}
        for key in keys:
            r = lanes(key, ks_for(ctx, key), m)
            ok = r.ok()
            if not ok.any():
                continue
            ratio = (r.D * r.eta / 2)[ok]
            eta = r.eta[ok]
            rows[key] = {"ratio_min": float(ratio.min()), "ratio_at_smallest_eta": float(ratio[np.argmin(eta)]),
                         "smallest_eta": float(eta.min()), "eta_at_ratio_min": float(eta[np.argmin(ratio)]),
                         "ratio_max": float(ratio.max())}
        if any(v["ratio_max"] > 1 for v in rows.values()):
            bad = [k for k, v in rows.items() if v["ratio_max"] > 1]
            return outcome(Status.REFUTED, f"y_inf^2 > 2/eta on {bad}", cases=rows)
        kmin = min(rows, key=lambda k: rows[k]["ratio_min"])
        kmax = max(rows, key=lambda k: rows[k]["ratio_max"])
        return outcome(Status.SUPPORTED,
                       f"y_∞²/(2/η) ∈ [{rows[kmin]['ratio_min']:.4g}, {rows[kmax]['ratio_max']:.10g}] over "
                       f"{len(rows)} losses (lowest: {kmin} at η = {rows[kmin]['eta_at_ratio_min']:.3g}); at the "
                       f"smallest η every ratio is within {max(1 - v['ratio_at_smallest_eta'] for v in rows.values()):.2g} "
                       f"of 1: tight (the gap is Cη^(1/(β−1)), constants in ahn2023.thm2.constant)",
                       slack_quantity="y_inf^2 / (2/eta)  (1 = tight)", slack_min=rows[kmin]["ratio_min"],
                       slack_max=rows[kmax]["ratio_max"], slack_at=f"{kmax} (smallest eta)",
                       slack_min_at=f"{kmin}, eta={rows[kmin]['eta_at_ratio_min']:.4g}", tight=True, cases=rows)

    return Check("slack", run, "TRAJ")
