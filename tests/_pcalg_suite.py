"""Shared generators of the pcalg-suite tests (tests/test_pcalg_suite_*.py).

pcalg's own tests draw random DAGs with ``randomDAG(p, prob)`` (edges ``i -> j`` for
``i < j`` each with probability ``prob``, weights uniform on [0.1, 1]) and use the true
covariance ``trueCov`` (unit error variances) or samples from it. These are the same
distributions drawn with numpy from a seed, so every test regenerates its own input; where a
test holds pcalg's numbers, they were computed by R on exactly these arrays (written to CSV).
"""

import numpy as np


def random_weighted_dag(p, prob, seed):
    """``W[i, j]`` = weight of ``i -> j`` (``i < j`` only), pcalg ``randomDAG``'s law."""
    rng = np.random.default_rng(seed)
    mask = np.triu(rng.random((p, p)) < prob, k=1)
    return np.where(mask, rng.uniform(0.1, 1.0, (p, p)), 0.0)


def true_cov(weights):
    """Covariance of ``x = W^T x + e`` with standard normal ``e`` (pcalg ``trueCov``)."""
    inv = np.linalg.inv(np.eye(len(weights)) - weights.T)
    return inv @ inv.T


def total_effects(weights):
    """``((I - W)^-1)[x, y]``: the sum over directed paths ``x -> ... -> y`` of the products
    of the edge weights (pcalg ``causalEffect``)."""
    return np.linalg.inv(np.eye(len(weights)) - weights)


def rows_with_covariance(cov, n, seed):
    """``n`` rows whose sample covariance is exactly ``cov`` (up to rounding).

    Normal draws are centred, whitened by the Cholesky factor of their own sample covariance
    and coloured by that of ``cov``: regressions and partial correlations computed from the
    rows are those of ``cov`` itself, which is what pcalg's tests pass as ``mcov`` / ``C``.
    """
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, len(cov)))
    z -= z.mean(axis=0)
    white = np.linalg.solve(np.linalg.cholesky(z.T @ z / n), z.T).T
    return white @ np.linalg.cholesky(cov).T


def edges_of(weights):
    """The DAG's ``(parent, child)`` pairs, as Python ints."""
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(weights))]


def sample_linear_gaussian(weights, n, seed):
    """``n`` rows of the linear-Gaussian DAG (pcalg ``rmvDAG`` with normal errors)."""
    rng = np.random.default_rng(seed)
    p = len(weights)
    x = np.zeros((n, p))
    for j in range(p):  # weights are upper triangular: 0..p-1 is a topological order
        x[:, j] = x @ weights[:, j] + rng.standard_normal(n)
    return x
