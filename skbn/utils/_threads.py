"""BLAS thread limit and class-label order, shared by the estimators and the network objects."""

import functools

import numpy as np
from threadpoolctl import ThreadpoolController

#: The BLAS libraries of this process, found at the first limited call.
_BLAS_CONTROLLER = None
#: Their controllers (``_BLAS_CONTROLLER.select(user_api="blas")``), read at every call.
_BLAS_LIBRARIES = ()


def one_blas_thread(method):
    """Run ``method`` with the BLAS thread pools limited to one thread (threadpoolctl).

    skbn's BLAS calls are small (one-hot Gram matrices, small contractions and
    factorisations): on 2 cores OpenBLAS' own threads made fits up to 15 times slower than
    with ``OPENBLAS_NUM_THREADS=1`` (``benchmarks/bench_threads.py``). The limit holds only
    during the call (the previous settings are restored after it, also on an error), and
    results are the same bits with or without it. The controller is built once per process,
    at the first call (about 20 ms); a limited call costs about 60 us, and a call when
    every BLAS library already runs one thread (``OPENBLAS_NUM_THREADS=1``, a joblib worker,
    a nested call) only reads their thread counts. Parallel workers
    (joblib) set their own limits. The limit is process-wide: fits run concurrently in
    threads may lift it for each other, which changes their speed but not their results.
    """
    @functools.wraps(method)
    def limited(*args, **kwargs):
        global _BLAS_CONTROLLER, _BLAS_LIBRARIES
        if _BLAS_CONTROLLER is None:
            _BLAS_CONTROLLER = ThreadpoolController()
            _BLAS_LIBRARIES = tuple(_BLAS_CONTROLLER.select(user_api="blas").lib_controllers)
        if all(library.num_threads == 1 for library in _BLAS_LIBRARIES):  # (the limit holds)
            return method(*args, **kwargs)
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
