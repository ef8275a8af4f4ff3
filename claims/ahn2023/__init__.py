"""Claims of Ahn, Bubeck, Chewi, Lee, Suarez, Zhang: *Learning threshold neurons via the edge of
stability*, NeurIPS 2023 (arXiv 2212.07469 v2). Ids and statements follow ``shared/spec/ahn2023.md``."""
from verify import Paper

PAPER = Paper("ahn2023", "K. Ahn, S. Bubeck, S. Chewi, Y. T. Lee, F. Suarez, Y. Zhang. Learning "
              "threshold neurons via the edge of stability. NeurIPS 2023 (arXiv:2212.07469v2)")
