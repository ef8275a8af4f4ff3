"""A worked third paper: the scalar network f(w) = ℓ(w₁w₂w₃) with the square loss
ℓ(p) = (p − 1)²/2 (minimisers on the surface w₁w₂w₃ = 1), in the setting of Kreisler, Nacson,
Soudry, Carmon (ICML 2023), *Gradient descent monotonically decreases the sharpness of gradient flow
solutions in scalar networks and beyond*.

It is the example of ``docs/adding-a-paper.md``: copy this folder to ``claims/scalarnet/`` (it is
then a local paper), or install it as a plugin through the entry-point group ``eos_verify.papers``
(``tests/test_third_paper.py`` does both). The statements are elementary facts of the model, stated
and checked here; they are not quotations of the paper's theorems.
"""
from verify import Paper

PAPER = Paper("scalarnet", "Worked example in the setting of I. Kreisler, M. S. Nacson, D. Soudry, "
              "Y. Carmon. Gradient descent monotonically decreases the sharpness of gradient flow "
              "solutions in scalar networks and beyond. ICML 2023")
