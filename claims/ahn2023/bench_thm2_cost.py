"""Benchmark (no claims): how the cost of one Theorem-2 lane grows as η shrinks, per loss.

``python -m verify bench ahn2023.thm2_cost``. For each loss of the Theorem-2 fits, one GD lane per
η = e^{-k} from the normalised start √(3/η)(3/4, 5/4) (spec E7), run alone to the fits' stopping
rule (relative remaining drop of D < 1e-13): steps and seconds per lane, and the slope of
log(steps) on log(1/η). For β < 2 the bouncing phase lasts ~η^{-β/(β−1)} steps (rem3), which is
what makes the small-η end of the β = 4/3 grid expensive; the predicted exponent is shown beside
the fitted one (reported, no target: a speed figure, not a test).
"""
from __future__ import annotations

import math
import time

import numpy as np

from claims.ahn2023._losses import MAX_STEPS, XT, YT, loss_by_key
from claims.ahn2023._eos_sweeps import EOS_M
from claims.ahn2023.sec2_thm2 import THM2_AT_LEAST, THM2_EQUAL
from verify import dynamics
from verify.bench import benchmark

KS = (2.0, 2.5, 3.0, 3.5, 4.0)


def lane_cost(key: str, ks=KS) -> dict:
    loss = loss_by_key(key)
    dynamics.run(loss, [1.0], [2.0], [0.1], max_steps=10)  # compile outside the timing
    steps, seconds = [], []
    for k in ks:
        eta = math.exp(-k)
        x0, y0 = dynamics.normalised_start(np.array([eta]), EOS_M, XT, YT)
        started = time.perf_counter()
        r = dynamics.run(loss, x0, y0, [eta], max_steps=MAX_STEPS, rtol=1e-13)
        seconds.append(time.perf_counter() - started)
        steps.append(int(r.steps[0]))
    slope = float(np.polyfit(np.asarray(ks), np.log(steps), 1)[0])  # d log(steps) / d log(1/η)
    beta = float(loss.beta)
    predicted = beta / (beta - 1) if beta < 2 else None
    return {"beta": beta, "k": list(ks), "steps": steps, "seconds": seconds,
            "steps_slope_vs_log_inv_eta": slope, "bouncing_exponent_beta_over_beta_minus_1": predicted,
            "ns_per_step": 1e9 * sum(seconds) / sum(steps)}


@benchmark("ahn2023.thm2_cost", unit="s",
           description="one Theorem-2 lane per eta = e^{-k}, k in 2..4 step 0.5, per loss: steps, "
                       "seconds, and the growth exponent of steps in 1/eta (beta < 2: bouncing phase "
                       "~eta^{-beta/(beta-1)}); value = total seconds")
def bench_thm2_cost() -> dict:
    started = time.perf_counter()
    per_loss = {key: lane_cost(key) for key in THM2_EQUAL + THM2_AT_LEAST}
    return {"value": time.perf_counter() - started, "per_loss": per_loss}
