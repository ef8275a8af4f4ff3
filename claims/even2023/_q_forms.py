"""q and q_± of def8 (even2023, eqs. (4)–(5)) as sympy expressions in one real variable x, shared by
the claim modules that reason about them exactly."""
import sympy as sp

x = sp.Symbol("x", real=True)
q_plus = -2 * x - sp.log((1 - x) ** 2)
q_minus = 2 * x - sp.log((1 + x) ** 2)
q_fn = -sp.log((1 - x ** 2) ** 2) / 2

# The sandwich x² ≤ q(x) ≤ x²/(1 − x²) (def8; the mechanism of fact6) on the interval that the sampled
# check covered, [−0.999, 0.999] of (−1, 1): certified in arb (adaptive bisection, a Taylor form at the
# touching point x = 0), so every x of the interval is covered, not a sample of them.
SANDWICH_EDGE = sp.Rational(999, 1000)


def q_sandwich_certified(name: str = "q_sandwich"):
    """The two sides of the q sandwich on [−SANDWICH_EDGE, SANDWICH_EDGE], each an arb certificate."""
    from verify import symbolic
    from verify.certify import inequality
    return symbolic.all_of(name, [
        inequality(f"{name}_lower", x ** 2, q_fn, -SANDWICH_EDGE, SANDWICH_EDGE, var=x),
        inequality(f"{name}_upper", q_fn, x ** 2 / (1 - x ** 2), -SANDWICH_EDGE, SANDWICH_EDGE, var=x)])
