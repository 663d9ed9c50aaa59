"""Conditional probability tables from counts: maximum likelihood or Dirichlet (Bayesian).

For node ``x`` with ``r`` states and parents with ``q`` joint configurations, the
Bayesian estimate with a BDeu-style prior of equivalent sample size ``ess`` is the
posterior mean

    theta_{k|j} = (N_jk + ess / (q r)) / (N_j + ess / q),

so unobserved parent configurations get the uniform distribution and no probability is 0.
The maximum-likelihood estimate is ``N_jk / N_j`` (uniform where ``N_j = 0``).
"""

import math

import numpy as np

from skbn._counting import cpt_counts, dense_is_small, observed_cpt_counts

__all__ = ["MAX_CPT_SIZE", "estimate_cpt"]

#: Largest CPT (cells) that is stored densely.
MAX_CPT_SIZE = 50_000_000


def estimate_cpt(codes, cardinalities, child, parents, method="bayes", ess=1.0, weights=None):
    """CPT of ``child`` given ``parents`` (column indices), shape ``(r_p1, ..., r_pk, r_child)``.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_variables)
        Integer state codes, ``0`` to ``cardinalities[j] - 1`` in column ``j``.
    cardinalities : ndarray of shape (n_variables,)
        Number of states of every variable.
    child : int
        Column index of the child.
    parents : sequence of int
        Column indices of the parents; the CPT's axes follow this order.
    method : {"bayes", "mle"}, default="bayes"
        Posterior mean under the BDeu-style prior, or maximum likelihood.
    ess : float, default=1.0
        Equivalent sample size of the prior (``method="bayes"``).
    weights : ndarray of shape (n_samples,) or None, default=None
        Row weights (``sample_weight``): ``N_jk`` is then the total weight of the rows in
        the cell.

    Returns
    -------
    cpt : ndarray of shape (r_p1, ..., r_pk, r_child)
        Rows (last axis) sum to 1.
    """
    columns = list(parents) + [child]
    shape = tuple(int(cardinalities[c]) for c in columns)
    size = math.prod(shape)
    if size > MAX_CPT_SIZE:
        raise ValueError(
            f"The CPT of variable {child} with {len(parents)} parents would have {size} cells "
            f"(more than {MAX_CPT_SIZE}); limit the in-degree (max_indegree)."
        )
    pseudo = ess / size if method == "bayes" else None  # ess / (q r)
    if dense_is_small(size, codes.shape[0]):
        return _conditional(cpt_counts(codes, cardinalities, child, parents, weights), pseudo)
    # more configurations than rows (many parents): count the observed ones only; every
    # other row of the CPT is that of zero counts, computed once
    configurations, counts = observed_cpt_counts(codes, cardinalities, child, parents, weights)
    cpt = np.empty(shape)
    rows = cpt.reshape(-1, shape[-1])  # (a view)
    rows[...] = _conditional(np.zeros((1, shape[-1])), pseudo)
    rows[configurations] = _conditional(counts, pseudo)
    return cpt


def _conditional(counts, pseudo):
    """Rows of a CPT (last axis) from the same rows of counts (changed in place): plus the
    prior's ``pseudo`` count per cell (``None``: maximum likelihood), normalised; a row
    with no weight gets the uniform distribution."""
    if pseudo is not None:
        counts += pseudo
    totals = counts.sum(axis=-1, keepdims=True)
    return np.divide(counts, totals, out=np.full_like(counts, 1.0 / counts.shape[-1]),
                     where=totals > 0)
