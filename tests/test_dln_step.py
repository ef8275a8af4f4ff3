"""The diagonal linear network's full-batch GD declared as a step kernel (claims/even2023/_dln_step.py)
gives, lane by lane, what the hand-written kernel of claims/even2023/_dln.py gives, bit for bit."""
import numpy as np

from claims.even2023._dln import e3_problem, run_lanes
from claims.even2023._dln_step import run_gd_lanes


def test_declared_dln_gd_is_bit_identical_to_the_hand_written_kernel():
    problem = e3_problem()
    lam = np.linalg.eigvalsh(problem.X.T @ problem.X / problem.n)[-1]
    # converged, stalled (edge-of-stability oscillation) and blown-up lanes, more than one block
    gammas = np.geomspace(0.05, 3.0, 150) / (lam * 2 * float(np.max(problem.alpha)) ** 2)
    for max_steps, tol_rel in ((3000, 1e-20), (500, 1e-8)):
        ref = run_lanes(problem, gammas, max_steps=max_steps, tol_rel=tol_rel)
        got = run_gd_lanes(problem, gammas, max_steps=max_steps, tol_rel=tol_rel)
        assert len(set(ref.status)) >= 2
        assert np.array_equal(got["status"], ref.status)
        assert np.array_equal(got["steps"], ref.steps)
        for name, want in (("u", ref.u), ("v", ref.v), ("final_loss", ref.final_loss),
                           ("max_abs_s", ref.max_abs_s), ("sum_s2", ref.sum_s2),
                           ("sum_grad_curv", ref.sum_grad_curv)):
            assert np.array_equal(got[name], want, equal_nan=True), name
