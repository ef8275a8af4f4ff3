"""eos-theorem-checker: machine-checkable claims about large-step gradient descent."""
from .claim import (BUDGETS, Check, Claim, all_checks, combine, corroborate, Context, Evidence,
                    Figure, Paper, PartVerdict, Planted, Result, Source, Status, Verdict, catalogue,
                    dependency_order, derive_seed, run_claim, run_planted, select)

__all__ = ["BUDGETS", "all_checks", "combine", "corroborate", "Check", "Claim", "Context",
           "Evidence", "Figure", "Paper", "PartVerdict", "Planted", "Result", "Source", "Status",
           "Verdict", "catalogue", "dependency_order", "derive_seed", "run_claim", "run_planted",
           "select"]
