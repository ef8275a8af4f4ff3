"""eos-theorem-checker: machine-checkable claims about large-step gradient descent."""
from .claim import (BUDGETS, Check, Claim, all_checks, Context, Evidence, Figure, Paper, Planted, Result,
                    Source, Status, Verdict, catalogue, dependency_order, derive_seed, run_claim,
                    run_planted, select)

__all__ = ["BUDGETS", "all_checks", "Check", "Claim", "Context", "Evidence", "Figure", "Paper", "Planted",
           "Result", "Source", "Status", "Verdict", "catalogue", "dependency_order", "derive_seed",
           "run_claim", "run_planted", "select"]
