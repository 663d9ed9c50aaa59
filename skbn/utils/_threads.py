"""BLAS thread limit and class-label order, shared by the estimators and the network objects.

(``skbn/estimators/_base.py`` holds the same two helpers as ``_one_blas_thread`` and
``_class_order``; they move here when that module imports them from this one.)
"""

import functools

import numpy as np
from threadpoolctl import ThreadpoolController

#: The BLAS libraries of this process, found at the first limited call.
_BLAS_CONTROLLER = None


def one_blas_thread(method):
    """Run ``method`` with the BLAS thread pools limited to one thread (threadpoolctl).

    skbn's BLAS calls are small (one-hot Gram matrices, small contractions and
    factorisations): on 2 cores OpenBLAS' own threads made fits up to 15 times slower than
    with ``OPENBLAS_NUM_THREADS=1``. The limit holds only during the call (restored after
    it, also on an error); results are the same bits with or without it.
    """
    @functools.wraps(method)
    def limited(*args, **kwargs):
        global _BLAS_CONTROLLER
        if _BLAS_CONTROLLER is None:
            _BLAS_CONTROLLER = ThreadpoolController()
        with _BLAS_CONTROLLER.limit(limits=1, user_api="blas"):
            return method(*args, **kwargs)

    return limited


def class_order(states):
    """Positions of a target's states in class order: sorted as ``np.unique`` sorts
    (scikit-learn's order of class labels); labels of mixed types that cannot be compared
    keep their order."""
    try:
        return np.asarray(sorted(range(len(states)), key=lambda k: states[k]), dtype=np.intp)
    except TypeError:
        return np.arange(len(states))
