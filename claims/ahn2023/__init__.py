"""Claims of Ahn, Bubeck, Chewi, Lee, Suarez, Zhang: *Learning threshold neurons via the edge of
stability*, NeurIPS 2023 (arXiv 2212.07469 v2). Ids and statements follow ``shared/spec/ahn2023.md``."""
from verify import Paper



def _thm2_constant(facts):
    """audit-loss hook: Theorem 2's conjectured constant for the audited loss (imported lazily)."""
    from claims.ahn2023._thm2_closed_forms import audit_predictions
    return audit_predictions(facts)


PAPER = Paper("ahn2023", "K. Ahn, S. Bubeck, S. Chewi, Y. T. Lee, F. Suarez, Y. Zhang. Learning "
              "threshold neurons via the edge of stability. NeurIPS 2023 (arXiv:2212.07469v2)",
              audit_predictions=(_thm2_constant,))

# terms of this paper's evidence, explained in the reports' glossary
GLOSSARY = {
    "E0-E8": "the experiment settings of spec ahn2023 §5: E0 ReLU network (d = 200, n = 300, λ = 3), E1 Fig. 1 sweep, E2 Fig. 2, E3 Fig. 4, E4 Fig. 8, E5 Fig. 9, E6 Fig. 10, E7 single-neuron step-size grids (Fig. 11 and the Theorem-2 fits), E8 out of scope",
    "ALL_EOS_KEYS": "the losses every edge-of-stability statement is run on: ℓ_rsym, ℓ_sqrt, ℓ_Hub and ℓ_β for β ∈ {4/3, 3/2, 2, 3, 4, 10}",
    "loss keys": "rsym, sqrt, huber, sym, logi, beta=<β>: the catalogue losses ℓ_rsym, ℓ_sqrt, ℓ_Hub, ℓ_sym, ℓ_logi, ℓ_β (App. C, Example 1)",
    "k_range / k_step": "the step-size grid η = e^(−k), k from the first to the last value in steps of k_step",
    "fit_k_min": "fits use only the grid points with k ≥ fit_k_min (small η)",
    "m / start": "normalised start (x0, y0) = √(m/η)(x̃, ỹ) with (x̃, ỹ) = (3/4, 5/4), so η(y0² − x0²) = m; m > 2 is the EoS regime",
    "quantity": "the measured quantity a fit is made on (e.g. the gap 2/η − y_∞²)",
    "δ / delta": "the EoS excess: y_t² = (2 + δ_t)/η",
    "A0 / A_t": "A = d(a⁻ + a⁺), the mean model's output weight (§3.1, eq. 5)",
}
