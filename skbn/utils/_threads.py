"""BLAS thread limit and class-label order, shared by the estimators and the network objects."""

import functools

import numpy as np
from threadpoolctl import ThreadpoolController

#: The controllers of this process's BLAS libraries (threadpoolctl's
#: ``ThreadpoolController().select(user_api="blas").lib_controllers``), found at the first
#: limited call.
_BLAS_LIBRARIES = None


def one_blas_thread(method):
    """Run ``method`` with the BLAS thread pools limited to one thread (threadpoolctl).

    skbn's BLAS calls are small (one-hot Gram matrices, small contractions and
    factorisations): on 2 cores OpenBLAS' own threads made fits up to 15 times slower than
    with ``OPENBLAS_NUM_THREADS=1`` (``benchmarks/bench_threads.py``). The limit holds only
    during the call (the previous settings are restored after it, also on an error), and
    results are the same bits with or without it. The libraries' controllers are found once
    per process, at the first call (about 20 ms). A call then reads each library's thread
    count and sets to one thread only those that run more, restoring their counts after it
    (threadpoolctl's per-library ``set_num_threads``, then ``clear_controlling_thread`` of a
    process-wide pool only one Python thread may set, what its ``limit`` context does, without
    that context's other bookkeeping: about 3 us instead of about 60 us in a fit); a call when every
    BLAS library already runs one thread (``OPENBLAS_NUM_THREADS=1``, a joblib worker, a
    nested call) only reads their thread counts. Parallel workers (joblib) set their own
    limits. The limit is process-wide: fits run concurrently in threads may lift it for each
    other, which changes their speed but not their results.
    """
    @functools.wraps(method)
    def limited(*args, **kwargs):
        global _BLAS_LIBRARIES
        if _BLAS_LIBRARIES is None:
            _BLAS_LIBRARIES = tuple(ThreadpoolController().select(user_api="blas").lib_controllers)
        counts = [library.num_threads for library in _BLAS_LIBRARIES]
        raised = [(library, count) for library, count in zip(_BLAS_LIBRARIES, counts) if count != 1]
        if not raised:  # (the limit holds)
            return method(*args, **kwargs)
        for library, _ in raised:
            library.set_num_threads(1)
        try:
            return method(*args, **kwargs)
        finally:
            for library, count in raised:
                library.set_num_threads(count)
            for library, _ in raised:
                # threadpoolctl >= 3.8 lets only one Python thread, the first to set a count,
                # change a process-wide pool (OpenBLAS with pthreads) until it releases it,
                # which its limit context does at exit: released here too, else every other
                # thread's limit (a user's, a later fit's) would be silently ignored
                release = getattr(library, "clear_controlling_thread", None)
                if release is not None:
                    release()  # (only when this thread holds it)

    return limited


def class_order(states):
    """Positions of a target's states in class order: sorted as ``np.unique`` sorts
    (scikit-learn's order of class labels); labels of mixed types that cannot be compared
    keep their order."""
    try:
        return np.asarray(sorted(range(len(states)), key=lambda k: states[k]), dtype=np.intp)
    except TypeError:
        return np.arange(len(states))
