"""scalarnet: where large-step GD lands (empirical, hypothesis-drawn starts and step sizes)."""
from hypothesis import strategies as st

from verify import SKIP, Claim, Planted, sampling
from verify.dynamics import Outcome, generic

from . import PAPER
from ._model import gf_sharpness, network

# starts in [0.2, 3]^3 and steps η in [0.05, 1]; only edge-of-stability starts count: the GF
# solution from w0 is sharper than 2/η, so GF and GD must end in different places
STARTS = st.tuples(st.tuples(*[st.floats(0.2, 3.0)] * 3), st.floats(0.05, 1.0))


def limit_below(factor):
    """GD converged from an EoS start ⇒ λ_max(∇²f(w_∞)) ≤ factor·2/η (plus float64 rounding)."""
    def prop(case):
        w0, eta = case
        psi0 = gf_sharpness(w0)
        if psi0 <= 2 / eta:
            return SKIP
        run = generic.run(network(), [w0], [eta], max_steps=4000, gtol=1e-12, patience=1000)
        if run.outcome[0] != Outcome.CONVERGED:
            return SKIP  # divergence, cycles and the step budget are out of the statement's scope
        lam = float(run.final_sharpness[0])  # the Hessian's top eigenvalue at the limit
        return lam * eta / 2 <= factor * (1 + 1e-9), {"eta_lambda_over_2": lam * eta / 2,
                                                    "eta_psi0_over_2": psi0 * eta / 2}
    return prop


THM1 = Claim(
    id="scalarnet.thm1",
    source=PAPER.at("§3, stability of the GD limit"),
    title="From an edge-of-stability start, a GD limit is a minimiser flatter than 2/η",
    statement=r"\psi(w_0) > 2/\eta,\ w_t \to w_\infty \in \arg\min f \Rightarrow "
              r"\lambda_{\max}(\nabla^2 f(w_\infty)) \le 2/\eta < \psi(w_0)",
    checks=(sampling.forall("limit_sharpness_at_most_2_over_eta", STARTS, limit_below(1.0),
                            examples=(300, 2000), kind="TRAJ",
                            describe="η·λ_max(w_∞)/2 ≤ 1 on converged EoS runs"),),
    # EoS limits sit just below 2/η (η·λ/2 up to ≈ 0.996 in 300 draws): 0.97 is a near miss
    planted=(Planted("p1", "limit sharpness ≤ 0.97·2/η (near miss)",
                     sampling.forall("limit_sharpness_at_most_2_over_eta", STARTS, limit_below(0.97),
                                     examples=(300, 2000), kind="TRAJ")),),
    uses=("scalarnet.lem1",),
)
