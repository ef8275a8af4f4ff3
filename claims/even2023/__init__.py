"""Claims of Even, Pesme, Gunasekar, Flammarion: *(S)GD over diagonal linear networks: implicit
bias, large stepsizes and edge of stability*, NeurIPS 2023 (arXiv 2302.08982). Ids, statements and
trust tags follow ``shared/spec/even2023.md``."""
from verify import Paper

PAPER = Paper("even2023", "M. Even, S. Pesme, S. Gunasekar, N. Flammarion. (S)GD over diagonal "
              "linear networks: implicit bias, large stepsizes and edge of stability. NeurIPS 2023 "
              "(arXiv:2302.08982)")
