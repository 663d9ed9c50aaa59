"""Accuracy of a Gaussian fit's moments on columns far from 0 (not part of the test suite).

For the shifted cases of ``benchmarks/compare_ges_bits.py`` (random Gaussian networks, columns
scaled by ``logspace(-6, 6)`` and shifted by 1e6), the relative error of
``GESStructure(fit_parameters=False).fit(x).score_`` against the score of the same data
centred exactly first (each column minus its ``math.fsum`` mean: the subtraction is exact,
Sterbenz's lemma, and the score does not depend on a shift), which has no cancellation left.
Run it in two checkouts to compare them::

    cd /tmp && PYTHONPATH=<checkout> python /work/main/benchmarks/moments_accuracy.py

Prints one line per case: ``case relative_error`` (the graph of both fits is checked equal),
then the median and the largest error.
"""
import math
import statistics
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from compare_ges_bits import cases, frame  # noqa: E402

from skbn import GESStructure  # noqa: E402


def main():
    errors = []
    for name, p, n, scorer, transform in cases():
        if transform != 1:  # (the shifted, scaled columns)
            continue
        x = frame(p, n, int(name[4:]), transform)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = GESStructure(scorer=scorer, fit_parameters=False).fit(x)
            centred = x - np.array([math.fsum(x[c]) / len(x) for c in x.columns])
            exact = GESStructure(scorer=scorer, fit_parameters=False).fit(centred)
        if fit.edges_ != exact.edges_:
            print(f"{name} different graphs: {fit.edges_} / {exact.edges_}")
            continue
        error = abs(fit.score_ - exact.score_) / abs(exact.score_)
        errors.append(error)
        print(f"{name} {error:.2e}")
    print(f"median {statistics.median(errors):.2e}, largest {max(errors):.2e} over {len(errors)} cases")


if __name__ == "__main__":
    main()
