"""q and q_± of def8 (even2023, eqs. (4)–(5)) as sympy expressions in one real variable x, shared by
the claim modules that reason about them exactly."""
import sympy as sp

x = sp.Symbol("x", real=True)
q_plus = -2 * x - sp.log((1 - x) ** 2)
q_minus = 2 * x - sp.log((1 + x) ** 2)
q_fn = -sp.log((1 - x ** 2) ** 2) / 2
