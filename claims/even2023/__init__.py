"""Claims of Even, Pesme, Gunasekar, Flammarion: *(S)GD over diagonal linear networks: implicit
bias, large stepsizes and edge of stability*, NeurIPS 2023 (arXiv 2302.08982). Ids, statements and
trust tags follow ``shared/spec/even2023.md``."""
from verify import Paper

PAPER = Paper("even2023", "M. Even, S. Pesme, S. Gunasekar, N. Flammarion. (S)GD over diagonal "
              "linear networks: implicit bias, large stepsizes and edge of stability. NeurIPS 2023 "
              "(arXiv:2302.08982)")

# terms of this paper's evidence, explained in the reports' glossary
GLOSSARY = {
    "E0-E9": "the experiment settings of spec even2023 §8: E0 conventions, E1 Fig. 1 sparse regression, E2 Fig. 2, E3 high-precision Theorem 1, E4 thresholds and the EoS window, E5 Proposition-16 grid, E6 Proposition 18 (γ → 0), E7 eqs. (25)-(26) Monte Carlo, E8 prop1.local, E9 prop15 stress test",
    "γ̃_max": "the largest stepsize below which every run converges (def14), bracketed by bisection",
    "Gain": "Gain_γ = ln(α²/α_∞²) coordinate-wise (def12); ‖Gain‖₁ its scale",
    "α_∞": "the effective initialisation of the limit (Theorem 1)",
    "H": "heterogeneity ratio of the gain: mean over the support / mean off the support (fig2.right)",
    "b": "batch size (b = n is full-batch GD)",
    "c0": "stepsize in units of the Theorem-2 scale: γ = c0/(L̂B̂)",
    "F": "the stated growth factor a quantity must exceed toward γ̃_max (fact8, fig1)",
}
