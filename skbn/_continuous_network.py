r"""Gaussian and conditional linear Gaussian (CLG) Bayesian networks.

**Linear Gaussian network.** Every node is a linear function of its parents plus independent
normal noise,

.. math::

    x_i = b_{i0} + \sum_{j \in \mathrm{pa}(i)} b_{ij} x_j + \varepsilon_i, \qquad
    \varepsilon_i \sim N(0, \sigma_i^2),

so the joint distribution is :math:`N(\mu, \Sigma)` with, for :math:`B` the matrix of
coefficients (:math:`B_{ij} = b_{ij}`) and :math:`D = \mathrm{diag}(\sigma_i^2)`,

.. math::

    \mu = (I - B)^{-1} b_0, \qquad \Sigma = (I - B)^{-1} D (I - B)^{-\top}.

Both are computed by the recursion over a topological order
(:math:`\mu_i = b_{i0} + \sum_j b_{ij}\mu_j`, :math:`\Sigma_{ik} = \sum_j b_{ij}\Sigma_{jk}`
for :math:`k` before :math:`i`, :math:`\Sigma_{ii} = \sum_j b_{ij}\Sigma_{ji} + \sigma_i^2`),
which equals the matrix formula without inverting :math:`I - B`.

**CLG network** (Lauritzen 1992; bnlearn's rule): a discrete node has only discrete parents
and a conditional probability table; a continuous node has one intercept, one coefficient per
continuous parent and one standard deviation per configuration of its discrete parents.
Given the states of all discrete nodes the continuous nodes form a linear Gaussian network,
so the joint is a mixture of normals with one component per discrete configuration.

Estimation (:func:`fit_gaussian_parameters`, :func:`fit_clg_parameters`) reads the weighted
moments of the counting engine (:func:`skbn._counting.moments`,
:func:`skbn._counting.regression`): least-squares coefficients (the maximum-likelihood ones)
and the residual standard deviation with bnlearn's denominator ``N - p - 1``
(``variance="unbiased"``, the default; ``"mle"`` divides by ``N``).
"""

from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd
from scipy import linalg
from sklearn.utils import check_random_state

from skbn._counting import config_ids, linear_dependencies, moments, regression
from skbn._counting._moments import _scaled, cholesky_factor
from skbn._dag import ancestor_ids
from skbn._data import _held, name_ranks, value_kind
from skbn._discrete_network import (
    DiscreteBayesianNetwork,
    _check_n_samples,
    _check_structure,
    _is_node,
    _Network,
)
from skbn._zero_probability import warn_impossible_evidence, warn_zero_probability
from skbn.exceptions import NotEstimable
from skbn.parameters import estimate_cpt
from skbn.utils._threads import class_order, one_blas_thread

__all__ = [
    "CLGBayesianNetwork",
    "GaussianBayesianNetwork",
    "MultivariateNormal",
    "NormalMixture",
    "fit_clg_parameters",
    "fit_gaussian_parameters",
]

_LOG_2PI = float(np.log(2.0 * np.pi))


# ---------------------------------------------------------------------- query results
class _Variance:
    """The ``variance`` of a query result with a ``mean`` and a ``covariance``."""

    @property
    def variance(self):
        """The diagonal of :attr:`covariance` (a Series)."""
        return pd.Series(np.diag(self.covariance.to_numpy()).copy(), index=self.mean.index,
                         name="variance")


@dataclass(frozen=True)
class MultivariateNormal(_Variance):
    """A (possibly conditional) multivariate normal distribution, as returned by ``query``.

    Parameters
    ----------
    mean : pandas.Series
        Mean vector, indexed by the variables.
    covariance : pandas.DataFrame
        Covariance matrix, rows and columns indexed by the variables (a variable set by an
        intervention or a constant node has variance 0).
    """

    mean: pd.Series
    covariance: pd.DataFrame


@dataclass(frozen=True)
class NormalMixture(_Variance):
    """A finite mixture of multivariate normals (a CLG network's continuous query).

    Component ``c`` is one configuration of the discrete variables the query depends on.

    Parameters
    ----------
    weights : pandas.Series
        Mixture weights (summing to 1), indexed by the configurations of those discrete
        variables (a ``MultiIndex`` over them, the last varying fastest; a single entry with
        an empty index when the query depends on no discrete variable).
    means : pandas.DataFrame
        One row per component (same index as ``weights``), one column per variable.
    covariances : ndarray of shape (n_components, k, k)
        Covariance matrix of every component.
    mean : pandas.Series
        Mean of the mixture, :math:`\\sum_c w_c \\mu_c`.
    covariance : pandas.DataFrame
        Covariance of the mixture, :math:`\\sum_c w_c (\\Sigma_c + (\\mu_c - \\mu)(\\mu_c -
        \\mu)^\\top)` (the law of total covariance, centred: exact to rounding when the
        means are far from 0 relative to the spread).
    """

    weights: pd.Series
    means: pd.DataFrame
    covariances: np.ndarray
    mean: pd.Series
    covariance: pd.DataFrame


# ---------------------------------------------------------------------- shared helpers
def _linear_joint(topo, parent_idx, intercept, coefs, sigma):
    """Mean and covariance of a linear Gaussian network (recursion of the module docstring).

    ``parent_idx[i]``: parent positions of node ``i``; ``coefs[i]`` their coefficients."""
    d = len(intercept)
    mu = np.zeros(d)
    cov = np.zeros((d, d))
    done = []
    for i in topo:
        pa = list(parent_idx[i])
        b = np.asarray(coefs[i], dtype=np.float64)
        mu[i] = intercept[i] + (b @ mu[pa] if pa else 0.0)
        if done:
            row = b @ cov[np.ix_(pa, done)] if pa else np.zeros(len(done))
            cov[i, done] = row
            cov[done, i] = row
        cov[i, i] = (b @ cov[pa, i] if pa else 0.0) + sigma[i] ** 2
        done.append(i)
    return mu, cov


def _condition_rows(mu, cov, query, given, x):
    r"""Moments of ``x[query]`` given ``x[given]`` = each row of ``x``, and the log-density
    of those rows.

    With :math:`K = \Sigma_{QG}\Sigma_{GG}^{-1}` (Cholesky solve; :math:`\Sigma_{GG}`
    positive definite): mean :math:`\mu_Q + K (x_G - \mu_G)` per row, covariance
    :math:`\Sigma_{QQ} - K \Sigma_{GQ}` (the Schur complement, the same for every row) and
    :math:`\log N(x_G; \mu_G, \Sigma_{GG})` per row, from one factorisation.

    Returns ``(mean (n, |Q|), covariance (|Q|, |Q|), log_density (n,))``.
    """
    x = np.asarray(x, dtype=np.float64)
    mu_q = mu[query]
    cov_qq = cov[np.ix_(query, query)]
    if not len(given):
        return np.broadcast_to(mu_q, (x.shape[0], len(query))), cov_qq, np.zeros(x.shape[0])
    factor = linalg.cholesky(cov[np.ix_(given, given)], lower=True, check_finite=False)
    resid = x - mu[given]
    z = linalg.solve_triangular(factor, resid.T, lower=True, check_finite=False)
    log_density = (-0.5 * (len(given) * _LOG_2PI + np.sum(z * z, axis=0))
                   - np.sum(np.log(np.diag(factor))))
    if not len(query):
        return np.zeros((x.shape[0], 0)), cov_qq, log_density
    cov_qg = cov[np.ix_(query, given)]
    gain = linalg.cho_solve((factor, True), cov_qg.T, check_finite=False).T
    covariance = cov_qq - gain @ cov_qg.T
    return mu_q + resid @ gain.T, 0.5 * (covariance + covariance.T), log_density


def _normalise_log_rows(log_w):
    """Rows of ``log_w`` (n, m) normalised to probabilities; ``(weights, ok)`` with ``ok``
    False (and the row all NaN) where every entry is ``-inf`` (density 0)."""
    peak = log_w.max(axis=1, keepdims=True)
    ok = np.isfinite(peak[:, 0])
    with np.errstate(invalid="ignore"):
        w = np.exp(log_w - np.where(ok[:, None], peak, 0.0))
        w = w / w.sum(axis=1, keepdims=True)
    w[~ok] = np.nan
    return w, ok


def _node_logpdf(x, mean, sigma):
    """log N(x; mean, sigma^2) elementwise; sigma may be 0 (a point mass: 0 where
    ``x == mean``, ``-inf`` elsewhere)."""
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), np.shape(x))
    out = np.where(x == mean, 0.0, -np.inf)
    pos = sigma > 0
    s = np.where(pos, sigma, 1.0)
    dens = -0.5 * (_LOG_2PI + ((x - mean) / s) ** 2) - np.log(s)
    return np.where(pos, dens, out)


def _numeric_column(frame, pos, name):
    """Column ``pos`` of ``frame`` as float64 (NaN: missing). What counts as a number is the
    encoder's one rule (:func:`skbn._data.value_kind`), as in the learners' fit and score:
    text such as ``"3.5"``, bools and a pandas categorical are refused, naming the column
    and a cell."""
    col = frame.iloc[:, pos]
    kind = value_kind(name, col)
    if kind not in ("numeric", "empty"):  # ("empty": every cell missing)
        raise ValueError(f"Column {name!r} of a continuous node must hold numbers, but holds "
                         f"{_held(kind, col)}. Convert it first if its cells are numbers, e.g. "
                         f"X[{name!r}] = X[{name!r}].astype(float).")
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


def _as_frame(X):
    if isinstance(X, pd.DataFrame):
        if X.columns.has_duplicates:
            raise ValueError(f"X has repeated column names: {list(X.columns)!r}.")
        return X
    if hasattr(X, "__array__") or isinstance(X, (list, tuple)):
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {array.shape}.")
        return pd.DataFrame(array)
    raise TypeError(f"X must be a pandas DataFrame or a 2-d array, got {type(X).__name__}.")


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    return w


def _check_variance(variance):
    if variance not in ("unbiased", "mle"):
        raise ValueError(f"variance must be 'unbiased' or 'mle', got {variance!r}.")


def _check_value(node, value, what="value"):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"The {what} of continuous node {node!r} must be a number, got "
                         f"{value!r}.") from None
    if not np.isfinite(value):
        raise ValueError(f"The {what} of continuous node {node!r} must be finite, got {value!r}.")
    return value


def _variables_list(variables, index):
    if _is_node(variables, index) or not isinstance(variables, (list, tuple)):
        variables = [variables]
    variables = list(variables)
    if not variables:
        raise ValueError("query needs at least one variable.")
    for v in variables:
        if not _is_node(v, index):
            raise ValueError(f"Unknown node {v!r}; nodes are {list(index)!r}.")
    if len(set(variables)) != len(variables):
        raise ValueError(f"A variable is repeated in {variables!r}.")
    return variables


# ---------------------------------------------------------------------- shared machinery
class _LinearGaussianNetwork(_Network):
    r"""What the Gaussian and CLG networks share: one linear Gaussian family per continuous
    node, in every configuration of its discrete parents (a Gaussian network is a CLG
    network without discrete nodes: one configuration per family).

    Subclasses set, before calling :meth:`_setup_families`: ``_discrete`` / ``_continuous``
    (node names in node order), ``_dpa`` (continuous node -> tuple of its discrete
    parents) and ``_dnet`` (the discrete network, None without discrete nodes), and pass
    it, for every continuous node ``v``, ``(b0 (q,), B (q, p), sigma (q,))`` over the ``q``
    configurations of ``v``'s discrete parents (C order, the last parent fastest), ``B``'s
    columns over its continuous parents in parents order. ``_params[v]`` is then that
    triple with ``B``'s columns over ``_cpa[v]``, the continuous parents in name order.

    Every query, prediction and sample goes through two routines:

    * :meth:`_draw`: ancestral sampling of the continuous nodes given the discrete codes;
    * :meth:`_mixture`: for rows sharing which continuous cells are observed, the
      posterior over the configurations :math:`\delta` of the discrete nodes that matter,

      .. math::

          w_\delta \propto P(\Delta = \delta, x^d_o)\; N(x^c_o; \mu_{\delta,o},
          \Sigma_{\delta,oo}),

      and the conditional normal of the target continuous nodes in every configuration
      (:func:`_condition_rows`). :math:`P(\Delta = \delta, x^d_o)` comes from variable
      elimination on :attr:`discrete_network` (the observed discrete cells as evidence; a
      look-up of the CPTs per configuration when every other discrete cell is observed),
      :math:`(\mu_\delta, \Sigma_\delta)` from the linear Gaussian network the continuous
      nodes form given :math:`\delta`. Exact: the configurations are enumerated.
    """

    def _setup_families(self, params):
        """Internal tables of the families, every one in an order that does not depend on
        the node order (the column order of the data a network was learned from), so every
        float sum the network computes -- over a node's continuous parents, over the
        nodes, over the components of a mixture -- runs in the same order for any node
        order, and the outputs are the same bit for bit:

        * ``_cpa[v]``: ``v``'s continuous parents in name order
          (:func:`skbn._data.name_ranks`, the learners' rule), and the columns of ``B`` in
          ``_params[v]`` permuted to match (the public ``parents``, ``coefficients`` and
          ``continuous_parents`` keep the order given);
        * ``_order``: the nodes in topological order, ties broken by name
          (:meth:`_draw_order`), the order of the joint's recursion (:func:`_linear_joint`:
          an entry of the covariance is summed from its later node) and of sampling;
        * ``_by_name``: the continuous nodes in name order, the order of the sum of the
          family log-densities and of the conditioning set of a query
          (:func:`_condition_rows`); ``_dset_order``: the discrete nodes in name order.
        """
        ranks = name_ranks(self.nodes)
        rank = {v: int(ranks[i]) for i, v in enumerate(self.nodes)}
        discrete = set(self._discrete)
        self._cpa, self._params = {}, {}
        for v in self._continuous:
            cpa = tuple(p for p in self.parents[v] if p not in discrete)  # (``B``'s columns)
            perm = sorted(range(len(cpa)), key=lambda k: rank[cpa[k]])
            self._cpa[v] = tuple(cpa[k] for k in perm)
            b0, B, s = params[v]
            # (C-contiguous either way: a strided row of ``B`` takes another BLAS kernel, whose
            # dot products round otherwise)
            self._params[v] = (b0, np.ascontiguousarray(B[:, perm]), s)
        self._order = [self.nodes[i] for i in self._draw_order()]
        self._by_name = sorted(self._continuous, key=rank.__getitem__)
        self._dset_order = sorted(self._discrete, key=rank.__getitem__)
        self._cpos = {v: k for k, v in enumerate(self._continuous)}
        self._dpos = {v: k for k, v in enumerate(self._discrete)}
        self._dshape = {v: tuple(len(self._dnet.states[p]) for p in self._dpa[v])
                        for v in self._continuous}
        # a constant: a node without parents and sigma 0 (e.g. set by do)
        self._constants = {v: float(params[v][0][0]) for v in self._continuous
                           if not self.parents[v] and params[v][2][0] == 0}

    # ------------------------------------------------------------------ reading X
    def _cells(self, X):
        """``(frame, codes, values)``: discrete cells as state codes (n, n_discrete), -1 where
        missing; continuous cells as floats (n, n_continuous), NaN where missing or absent."""
        frame = _as_frame(X)
        unknown = [c for c in frame.columns if c not in self._index]
        if unknown:
            raise ValueError(f"X has columns that are not nodes of the network: {unknown!r}.")
        n = len(frame)
        codes = np.full((n, len(self._discrete)), -1, dtype=np.int64)
        values = np.full((n, len(self._continuous)), np.nan)
        for pos, node in enumerate(frame.columns):
            if node in self._dpos:
                codes[:, self._dpos[node]] = self._dnet._encode_values(
                    node, np.asarray(frame.iloc[:, pos], dtype=object))
                continue
            column = _numeric_column(frame, pos, node)
            if np.any(np.isinf(column)):
                raise ValueError(f"Column {node!r} contains infinite values.")
            values[:, self._cpos[node]] = column
        return frame, codes, values

    # ------------------------------------------------------------------ sampling
    def _draw(self, rng, codes):
        """Continuous nodes drawn in topological order, ties broken by node name
        (:meth:`_draw_order`), given the discrete ``codes`` (n, n_discrete): one standard
        normal per node and row."""
        n = codes.shape[0]
        values = np.zeros((n, len(self._continuous)))
        for node in self._order:
            if node in self._dpos:
                continue
            mean, sigma = self._family_moments(node, codes, values)
            values[:, self._cpos[node]] = mean + sigma * rng.standard_normal(n)
        return values

    def _family_moments(self, node, codes, values):
        """Mean and standard deviation of ``node`` given its parents, in every row."""
        b0, B, s = self._params[node]
        config = self._configs(node, codes)
        cpa = [self._cpos[p] for p in self._cpa[node]]
        return b0[config] + np.einsum("ij,ij->i", values[:, cpa], B[config]), s[config]

    def _complete_log_density(self, codes, values):
        """Sum over the continuous nodes (in name order) of their family log-density,
        complete rows."""
        out = np.zeros(values.shape[0])
        for node in self._by_name:
            mean, sigma = self._family_moments(node, codes, values)
            out += _node_logpdf(values[:, self._cpos[node]], mean, sigma)
        return out

    def _configs(self, node, codes):
        """Configuration index (C order over the discrete parents) of every row of codes."""
        if not self._dpa[node]:
            return np.zeros(codes.shape[0], dtype=np.intp)
        return np.ravel_multi_index(tuple(codes[:, self._dpos[p]] for p in self._dpa[node]),
                                    self._dshape[node])

    # ------------------------------------------------------------------ inference
    def _continuous_ancestry(self, targets):
        """The continuous ancestors of ``targets`` through continuous edges (targets
        included), in topological order, ties broken by name (``_order``)."""
        parents = [[self._index[p] for p in self._cpa.get(v, ())] for v in self.nodes]
        keep = {self.nodes[i] for i in ancestor_ids(parents, [self._index[v] for v in targets])}
        return [v for v in self._order if v in keep]

    def _component(self, order, assignment):
        """Mean and covariance of the continuous nodes ``order`` (topological) given the state
        codes ``assignment`` (node -> code) of their discrete parents."""
        pos = {v: k for k, v in enumerate(order)}
        intercept, coefs, sigma, parent_idx = [], [], [], []
        for v in order:
            b0, B, s = self._params[v]
            g = (np.ravel_multi_index(tuple(assignment[p] for p in self._dpa[v]),
                                      self._dshape[v]) if self._dpa[v] else 0)
            intercept.append(float(b0[g]))
            coefs.append(B[g])
            sigma.append(float(s[g]))
            parent_idx.append(tuple(pos[p] for p in self._cpa[v]))
        return _linear_joint(range(len(order)), parent_idx, intercept, coefs, sigma)

    def _mixture(self, codes, values, given, targets, keep=()):
        """The posterior mixture of rows sharing their observed continuous cells.

        Parameters: ``codes`` (n, n_discrete) with -1 for missing cells; ``values`` (n,
        n_continuous); ``given`` the continuous nodes observed in every row; ``targets``
        continuous nodes (not in ``given``) whose conditional moments are wanted; ``keep``
        discrete nodes whose configuration must be told apart.

        The discrete nodes that matter, ``dset`` (name order), are ``keep`` and the discrete
        parents of the continuous ancestry of ``given`` and ``targets``. The rows are
        grouped by their observed cells of ``dset``, and only the configurations of the
        unobserved ones are enumerated (complete rows: one configuration each). Yields, per
        group, ``(rows, dset, configs, log_w, means, covs)``: the positions of its rows, the
        configurations ``configs`` (m, |dset|) of ``dset`` consistent with them (C order
        over the unobserved nodes), the unnormalised ``log_w`` (rows, m) -- ``log P(dset =
        delta, x^d_o) + log N(x^c_o | delta)``, whose log-sum-exp over ``delta`` is the
        row's log-density --, the conditional means of ``targets`` (rows, m, k) and their
        covariances (m, k, k). Components are computed once per configuration.
        """
        n = values.shape[0]
        log_const = np.zeros(n)
        for v in [v for v in given if v in self._constants]:
            with np.errstate(divide="ignore"):
                log_const += np.log(values[:, self._cpos[v]] == self._constants[v])
        given = set(given) - set(self._constants)
        given = [v for v in self._by_name if v in given]  # (the conditioning in name order)
        order = self._continuous_ancestry(given + list(targets))
        dset = [v for v in self._dset_order
                if v in keep or any(v in self._dpa[c] for c in order)]
        columns = [self._dpos[v] for v in dset]
        pos = {v: k for k, v in enumerate(order)}
        gpos, tpos = [pos[v] for v in given], [pos[v] for v in targets]
        x = values[:, [self._cpos[v] for v in given]]
        keys, inverse = np.unique(codes[:, columns], axis=0, return_inverse=True)
        inverse = inverse.ravel()
        log_observed = None   # log P(x^d_o) of every row, computed once if a group needs it
        components = {}
        for g, key in enumerate(keys):
            rows = np.flatnonzero(inverse == g)
            free = [j for j in range(len(dset)) if key[j] < 0]
            shape = tuple(len(self.states[dset[j]]) for j in free)
            configs = np.repeat(key[None, :], int(np.prod(shape)), axis=0)
            configs[:, free] = np.array(list(np.ndindex(*shape)), dtype=np.int64).reshape(
                len(configs), len(free))
            if free:
                log_w = np.empty((len(rows), len(configs)))
                block = codes[rows]
                known = block >= 0
                known[:, [columns[j] for j in free]] = True
                complete = known.all(axis=1)
                if complete.any():  # (every other discrete cell observed: one look-up each)
                    filled = block[complete]
                    for c, config in enumerate(configs):
                        filled[:, columns] = config
                        log_w[complete, c] = self._dnet._complete_log_joint(filled)
                if not complete.all():
                    part = np.flatnonzero(~complete)
                    for sub, table, log_scale in self._dnet._marginalise_rows(
                            block[part], block[part] >= 0, np.ones(len(part), dtype=bool),
                            tuple(columns[j] for j in free)):
                        with np.errstate(divide="ignore"):
                            log_w[part[sub]] = (np.log(table.reshape(len(sub), -1))
                                                + log_scale[:, None])
            elif self._discrete:
                if log_observed is None:
                    log_observed = self._dnet._log_likelihood_codes(codes)
                log_w = log_observed[rows][:, None].copy()
            else:
                log_w = np.zeros((len(rows), 1))
            log_w += log_const[rows][:, None]
            means = np.zeros((len(rows), len(configs), len(targets)))
            covs = np.zeros((len(configs), len(targets), len(targets)))
            for c, config in enumerate(configs):
                key_c = tuple(config)
                if key_c not in components:
                    components[key_c] = self._component(order, dict(zip(dset, config)))
                mu, cov = components[key_c]
                means[:, c], covs[c], log_density = _condition_rows(mu, cov, tpos, gpos, x[rows])
                log_w[:, c] += log_density
            yield rows, dset, configs, log_w, means, covs

    def _evidence_rows(self, evidence, exclude):
        """One row of ``(codes, values)`` from ``evidence`` (node -> state or value), and the
        continuous nodes it observes; errors name the node."""
        codes = np.full((1, len(self._discrete)), -1, dtype=np.int64)
        values = np.full((1, len(self._continuous)), np.nan)
        given = []
        for name, value in evidence.items():
            if not _is_node(name, self._index):
                raise ValueError(f"Unknown node {name!r}; nodes are {self.nodes!r}.")
            if name in exclude:
                raise ValueError(f"Node {name!r} is both a query variable and in the evidence.")
            if name in self._dpos:
                codes[0, self._dpos[name]] = self._dnet._state_code(name, value)
            else:
                values[0, self._cpos[name]] = _check_value(name, value, "evidence")
                given.append(name)
        return codes, values, [v for v in self._continuous if v in given]

    # ------------------------------------------------------------------ drawings
    def _node_shape(self, node):
        return "box" if node in self._dpos else "ellipse"

    def _edge_label(self, parent, child):
        if parent not in self._cpa.get(child, ()):
            return None
        column = self._params[child][1][:, self._cpa[child].index(parent)]
        return ", ".join(f"{b:.3g}" for b in column)

    @staticmethod
    def _one_blas_thread(method, *args):
        """``method(*args)`` with BLAS limited to one thread: the engine's many small
        factorisations are slower with threads (the estimators' rule, same results)."""
        return one_blas_thread(method)(*args)

    def _check_target(self, target):
        if not _is_node(target, self._index):
            raise ValueError(f"Unknown target {target!r}; nodes are {self.nodes!r}.")
        return target

    def _by_pattern(self, X, target):
        """Rows of ``X`` grouped by their observed continuous cells (the target's own column
        ignored, not even read: an unseen label there is no error): yields ``(frame, rows,
        codes, values, given)``."""
        if isinstance(X, pd.DataFrame) and target in X.columns:
            X = X.drop(columns=target)  # (an absent column: marginalised)
        frame, codes, values = self._cells(X)
        observed = ~np.isnan(values)
        patterns, inverse = np.unique(observed, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        for k, pattern in enumerate(patterns):
            rows = np.flatnonzero(inverse == k)
            given = [v for v, o in zip(self._continuous, pattern) if o]
            yield frame, rows, codes[rows], values[rows], given

    def predict(self, X, target):
        r"""Predict ``target`` from the other columns of every row of ``X``.

        A continuous target gets its conditional mean, that of the posterior mixture:

        .. math::

            E[x_t \mid x_o] = \sum_\delta w_\delta(x_o)\, \mu_{t \mid o, \delta},
            \qquad w_\delta \propto P(\Delta = \delta, x^d_o)\,
            N(x^c_o; \mu_{o,\delta}, \Sigma_{oo,\delta}),

        over the configurations :math:`\delta` of the discrete nodes that matter, with
        :math:`\mu_{t \mid o, \delta}` the Gaussian conditional mean (Schur complement) in
        each; missing cells (NaN, or absent columns) are marginalised, the target's own
        column is ignored. A Gaussian network has one configuration: the conditional mean of
        the joint normal. A discrete target (CLG network) gets its most probable state
        (:meth:`predict_proba`; the first in sorted order on ties).

        A row whose evidence (its cells other than the target) has density 0 under the
        network -- a CPT entry of 0 meets it, or a constant node (standard deviation 0, such
        as one set by :meth:`do`) is observed at another value -- has no posterior: a
        continuous target gets NaN there, a discrete one the first state in sorted order
        (:meth:`predict_proba`'s uniform distribution), the other rows are predicted as
        usual, and one :class:`~skbn.exceptions.ZeroProbabilityWarning` per call names the
        columns and how many rows each (the learners' rule).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            Columns are nodes (a subset, in any order); NaN marks a missing cell.
        target : node name
            The node to predict.

        Returns
        -------
        prediction : pandas.Series of shape (n_samples,)
            Indexed as ``X``, named after the target.

        Raises
        ------
        ValueError
            For an unknown target or column.
        """
        target = self._check_target(target)
        prediction, impossible = self._one_blas_thread(self._predict, X, target)
        self._warn_impossible(X, target, impossible)
        return prediction

    def _predict(self, X, target):
        """:meth:`predict` without the warning: ``(prediction, impossible)``, the rows whose
        evidence has density 0 as a bool mask (NaN or the first state there)."""
        if target in self._dpos:
            proba, impossible = self._predict_proba(X, target)
            labels = np.asarray(proba.columns, dtype=object)
            return pd.Series(labels[np.argmax(proba.to_numpy(), axis=1)], index=proba.index,
                             name=target), impossible
        out, impossible, frame = None, None, None
        for frame, rows, codes, values, given in self._by_pattern(X, target):
            if out is None:
                out, impossible = np.empty(len(frame)), np.zeros(len(frame), dtype=bool)
            for sub, _, _, log_w, means, _ in self._mixture(codes, values, given, [target]):
                w, ok = _normalise_log_rows(log_w)
                out[rows[sub]] = np.where(ok, np.einsum("nm,nm->n", np.where(ok[:, None], w, 0.0),
                                                        means[:, :, 0]), np.nan)
                impossible[rows[sub]] = ~ok
        if frame is None:
            frame = _as_frame(X)
            out, impossible = np.empty(0), np.zeros(0, dtype=bool)
        return pd.Series(out, index=frame.index, name=target), impossible

    def _warn_impossible(self, X, target, impossible):
        """One :class:`~skbn.exceptions.ZeroProbabilityWarning` about the rows ``impossible``
        of ``X`` (none: nothing is read), naming the columns whose CPT gives their state
        probability 0 (the target in each of its states) and the constant nodes observed at
        another value (:func:`skbn._zero_probability.impossible_evidence_message`)."""
        if not impossible.any():
            return
        if isinstance(X, pd.DataFrame) and target in X.columns:
            X = X.drop(columns=target)
        networks, codes, constants = self._zero_density_causes(X)
        warn_impossible_evidence(networks, codes, impossible, target, constants=constants)

    def _warn_zero_density(self, X, log_density):
        """One :class:`~skbn.exceptions.ZeroProbabilityWarning` when some row of ``X`` has
        ``log_density`` ``-inf`` (:meth:`log_likelihood`), naming the columns whose CPT
        gives their state probability 0 and the constant nodes observed at another value
        (:func:`skbn._zero_probability.zero_probability_warning`)."""
        if np.isneginf(log_density).any():
            networks, codes, constants = self._zero_density_causes(X)
            warn_zero_probability(networks, codes, log_density, constants=constants)

    def _zero_density_causes(self, X):
        """What the messages of :mod:`skbn._zero_probability` search in the rows of ``X``:
        ``(networks, codes, constants)``, the discrete network (none in a Gaussian network)
        and the rows' codes over its nodes, and for every constant node (standard deviation
        0) the rows observing it at another value."""
        _, codes, values = self._cells(X)
        constants = {}
        for node, value in self._constants.items():
            column = values[:, self._cpos[node]]
            constants[node] = ~np.isnan(column) & (column != value)
        return ([self._dnet] if self._dnet is not None else []), codes, constants


# ---------------------------------------------------------------------- Gaussian network
class GaussianBayesianNetwork(_LinearGaussianNetwork):
    r"""A linear Gaussian Bayesian network: a DAG and one linear regression per node.

    .. math::

        x_i = b_{i0} + \sum_{j \in \mathrm{pa}(i)} b_{ij} x_j + \varepsilon_i,
        \quad \varepsilon_i \sim N(0, \sigma_i^2), \qquad
        \log p(x) = \sum_i \log \phi\!\left(x_i;\, b_{i0} + b_i^\top x_{\mathrm{pa}(i)},
        \sigma_i^2\right),

    whose joint is :math:`N(\mu, \Sigma)`, :math:`\mu = (I - B)^{-1} b_0`,
    :math:`\Sigma = (I - B)^{-1} D (I - B)^{-\top}`, :math:`D = \mathrm{diag}(\sigma_i^2)`.

    Parameters
    ----------
    nodes : sequence
        Node names; their order is the node order.
    parents : dict
        Node name -> sequence of parent names. A missing key means "no parents".
    intercepts : dict
        Node name -> intercept :math:`b_{i0}`.
    coefficients : dict
        Node name -> sequence of coefficients :math:`b_{ij}`, one per parent in the order of
        ``parents[node]`` (a missing key is allowed for a node without parents).
    sigmas : dict
        Node name -> standard deviation :math:`\sigma_i` of the noise (bnlearn's ``sd``).
        Positive; 0 only for a node without parents (a constant, e.g. set by :meth:`do`).

    Attributes
    ----------
    nodes : list
    parents : dict
        Node name -> tuple of parent names (every node has a key).
    edges : list of (parent, child) tuples
        In node order of the child, then in parent order.
    intercepts : dict
        Node name -> float.
    coefficients : dict
        Node name -> read-only float64 array aligned with ``parents[node]``.
    sigmas : dict
        Node name -> float.

    Raises
    ------
    ValueError
        On an unknown or repeated node or parent, a cycle (naming it), a missing or
        non-finite parameter, a coefficient vector of the wrong length, or a negative
        standard deviation (or 0 on a node with parents); the message names the node.

    See Also
    --------
    CLGBayesianNetwork, DiscreteBayesianNetwork

    References
    ----------
    D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009, sec. 7.2
    (linear Gaussian networks and their joint normal).

    Examples
    --------
    >>> import pandas as pd
    >>> from skbn.network import GaussianBayesianNetwork
    >>> net = GaussianBayesianNetwork(
    ...     nodes=["a", "b"], parents={"b": ["a"]},
    ...     intercepts={"a": 0.0, "b": 1.0}, coefficients={"b": [2.0]},
    ...     sigmas={"a": 1.0, "b": 1.0})
    >>> net.query("a", evidence={"b": 3.0}).mean.round(4).tolist()
    [0.8]
    >>> net.predict(pd.DataFrame({"b": [3.0, 1.0]}), "a").round(4).tolist()
    [0.8, 0.0]
    """

    def __init__(self, nodes, parents, intercepts, coefficients=None, sigmas=None):
        self.nodes, self._index, self.parents, self.edges, self._topo = _check_structure(
            nodes, parents)
        intercepts, coefficients = dict(intercepts), dict(coefficients or {})
        sigmas = dict(sigmas or {})
        for name, table in (("intercept", intercepts), ("coefficients", coefficients),
                            ("sigma", sigmas)):
            for node in table:
                if node not in self._index:
                    raise ValueError(f"A {name} is given for unknown node {node!r}.")
        self.intercepts, self.coefficients, self.sigmas = {}, {}, {}
        for node in self.nodes:
            pa = self.parents[node]
            if node not in intercepts:
                raise ValueError(f"Missing intercept for node {node!r}.")
            if node not in sigmas:
                raise ValueError(f"Missing sigma for node {node!r}.")
            self.intercepts[node] = _check_value(node, intercepts[node], "intercept")
            coef = np.array(coefficients.get(node, ()), dtype=np.float64).reshape(-1)  # (a copy)
            if coef.shape != (len(pa),):
                raise ValueError(f"Node {node!r} has {len(pa)} parents {list(pa)!r} but "
                                 f"{coef.size} coefficients.")
            if not np.all(np.isfinite(coef)):
                raise ValueError(f"Coefficients of node {node!r} contain NaN or infinite values.")
            coef.flags.writeable = False
            self.coefficients[node] = coef
            sigma = _check_value(node, sigmas[node], "sigma")
            if sigma < 0 or (sigma == 0 and pa):
                raise ValueError(f"The sigma of node {node!r} must be positive (0 is allowed only "
                                 f"for a node without parents), got {sigma!r}.")
            self.sigmas[node] = sigma
        self._discrete, self._continuous, self._dnet = [], list(self.nodes), None
        self._dpa = dict.fromkeys(self.nodes, ())
        self._setup_families({v: (np.array([self.intercepts[v]]), self.coefficients[v][None, :],
                                  np.array([self.sigmas[v]])) for v in self.nodes})

    # ------------------------------------------------------------------ structure
    def _node_attributes(self, node):
        return {"intercept": self.intercepts[node], "sigma": self.sigmas[node],
                "coefficients": dict(zip(self.parents[node], self.coefficients[node].tolist()))}

    # ------------------------------------------------------------------ joint
    def _joint_arrays(self):
        """``(mu, cov)`` of :meth:`joint` in node order, by the recursion of
        :func:`_linear_joint` over ``_order`` (topological, ties by name) with the parents in
        name order: the same numbers for any node order."""
        mu, cov = self._component(self._order, {})
        position = [self._order.index(v) for v in self.nodes]
        return mu[position], cov[np.ix_(position, position)]

    def joint(self):
        """The implied joint distribution :math:`N(\\mu, \\Sigma)` of all nodes.

        Returns
        -------
        MultivariateNormal
            ``mean`` and ``covariance`` indexed by the nodes, in node order.
        """
        mu, cov = self._joint_arrays()
        return MultivariateNormal(pd.Series(mu, index=pd.Index(self.nodes), name="mean"),
                                  pd.DataFrame(cov, index=self.nodes, columns=self.nodes))

    # ------------------------------------------------------------------ likelihood
    def log_likelihood(self, X):
        r"""Log-density of each row.

        Complete rows: :math:`\sum_i \log \phi(x_i; b_{i0} + b_i^\top x_{\mathrm{pa}(i)},
        \sigma_i^2)`. Rows with missing cells (NaN, or a node absent from the columns) get
        the exact marginal log-density of their observed cells, :math:`\log N(x_O; \mu_O,
        \Sigma_{OO})`, one Cholesky factorisation per missingness pattern. A constant node
        (:math:`\sigma_i = 0`, e.g. set by :meth:`do`) contributes 0 where its cell equals its
        value and :math:`-\infty` elsewhere (a density with respect to counting measure on
        that node).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            Numeric columns, a subset of the nodes; NaN marks a missing cell.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            Natural log-density of every row. It is ``-inf`` only where a constant node is
            observed at another value, with one
            :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the node and how
            many rows (the learners' rule for ``score_samples``).
        """
        log_density = self._log_likelihood(X)
        self._warn_zero_density(X, log_density)
        return log_density

    def _log_likelihood(self, X):
        """:meth:`log_likelihood` without the warning (a learner warns for its own call)."""
        values = self._cells(X)[2]
        n = values.shape[0]
        out = np.zeros(n)
        missing = np.isnan(values)
        complete = ~missing.any(axis=1)
        if complete.any():
            out[complete] = self._complete_log_density(np.zeros((int(complete.sum()), 0),
                                                                dtype=np.int64), values[complete])
        if not complete.all():
            mu, cov = self._joint_arrays()
            constant = np.array([self.sigmas[v] == 0 for v in self.nodes])
            by_name = np.array([self._index[v] for v in self._by_name], dtype=np.intp)
            patterns, inverse = np.unique(missing[~complete], axis=0, return_inverse=True)
            incomplete = np.flatnonzero(~complete)
            for k, pattern in enumerate(patterns):
                rows = incomplete[inverse.ravel() == k]
                observed = by_name[(~pattern & ~constant)[by_name]]  # (conditioned in name order)
                fixed = np.flatnonzero(~pattern & constant)
                block = values[np.ix_(rows, observed)]
                result = _condition_rows(mu, cov, [], observed, block)[2]
                for i in fixed:
                    result = result + np.where(values[rows, i] == mu[i], 0.0, -np.inf)
                out[rows] = result
        return out

    # ------------------------------------------------------------------ interventions
    def _intervention_value(self, node, value):
        return _check_value(node, value)

    def do(self, interventions):
        r"""The mutilated network of the hard intervention :math:`\mathrm{do}(X_I = x_I^*)`.

        Every intervened node loses its parents and becomes the constant :math:`x_i^*`
        (intercept :math:`x_i^*`, :math:`\sigma_i = 0`); every other family is kept, so the
        joint is the truncated factorisation (Pearl 2009, eq. 3.10).

        Parameters
        ----------
        interventions : dict
            Node name -> the (finite) value it is set to.

        Returns
        -------
        network : GaussianBayesianNetwork
            A new network; this one is unchanged.
        """
        values = self._interventions(interventions, "value")
        parents = {v: (() if v in values else self.parents[v]) for v in self.nodes}
        intercepts = {v: values.get(v, self.intercepts[v]) for v in self.nodes}
        coefficients = {v: (() if v in values else self.coefficients[v]) for v in self.nodes}
        sigmas = {v: (0.0 if v in values else self.sigmas[v]) for v in self.nodes}
        return type(self)(self.nodes, parents, intercepts, coefficients, sigmas)

    # ------------------------------------------------------------------ inference
    def query(self, variables, evidence=None, do=None):
        r"""Exact conditional distribution of ``variables`` given ``evidence`` (and ``do``).

        With the joint :math:`N(\mu, \Sigma)` (:meth:`joint`), query set :math:`Q` and
        evidence :math:`E = e`,

        .. math::

            x_Q \mid x_E = e \sim N\!\left(\mu_Q + \Sigma_{QE}\Sigma_{EE}^{-1}(e - \mu_E),\;
            \Sigma_{QQ} - \Sigma_{QE}\Sigma_{EE}^{-1}\Sigma_{EQ}\right)

        (Schur complement, Cholesky solve). With ``do`` the joint is the mutilated network's
        (:meth:`do`), i.e. ``self.do(do).query(variables, evidence)``: an intervened variable
        has its value as mean and variance 0; evidence on it must equal that value.

        Parameters
        ----------
        variables : node name or list of node names
            A node name (a name that is a tuple counts as one node), or a list of them.
        evidence : dict, optional
            Node name -> observed value.
        do : dict, optional
            Node name -> value set by a hard intervention.

        Returns
        -------
        MultivariateNormal
            ``mean`` (Series) and ``covariance`` (DataFrame) over ``variables``.

        Raises
        ------
        ValueError
            For an unknown node, a repeated variable, a variable also in the evidence, or
            evidence of density 0 (a constant or intervened node observed at another value).
        """
        intervened = self._interventions(do, "value")
        evidence = dict(evidence or {})
        if intervened:
            for name, value in evidence.items():
                if name in intervened and _check_value(name, value, "evidence") != intervened[name]:
                    raise ValueError(f"Node {name!r} is set to {intervened[name]!r} by do but "
                                     f"observed as {value!r} in the evidence.")
            return self.do(intervened).query(variables, evidence)
        variables = _variables_list(variables, self._index)
        codes, values, given = self._evidence_rows(dict(evidence or {}), variables)
        for name in given:
            value = float(values[0, self._cpos[name]])
            if name in self._constants and value != self._constants[name]:
                raise ValueError(f"The evidence {name!r} = {value!r} has density 0: the node "
                                 f"is constant at {self._constants[name]!r}.")
        (_, _, _, _, means, covs), = self._mixture(codes, values, given, variables)
        return MultivariateNormal(pd.Series(means[0, 0], index=pd.Index(variables), name="mean"),
                                  pd.DataFrame(covs[0], index=variables, columns=variables))

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, random_state=None, do=None):
        """Draw rows by ancestral sampling (one standard normal per node and row, in
        topological order, ties broken by node name: the same network with its nodes in
        another order draws the same rows for the same seed), optionally from the
        mutilated network of ``do``.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows.
        random_state : int, RandomState instance or None, default=None
            Seed of the draw.
        do : dict, optional
            Node name -> value (or state) set by a hard intervention; None or an empty dict
            samples the observational distribution.

        Returns
        -------
        X : pandas.DataFrame of shape (n_samples, n_nodes)
            float64 columns in node order.
        """
        _check_n_samples(n_samples)
        if self._interventions(do, "value"):
            return self.do(do).sample(n_samples, random_state)
        values = self._draw(check_random_state(random_state),
                            np.zeros((int(n_samples), 0), dtype=np.int64))
        return pd.DataFrame(values, columns=pd.Index(self.nodes))

    # ------------------------------------------------------------------ estimation
    @classmethod
    def from_data(cls, X, edges, sample_weight=None, variance="unbiased"):
        """Estimate the parameters of the DAG ``edges`` over the columns of ``X``.

        Same as :func:`fit_gaussian_parameters`.

        Parameters
        ----------
        X : pandas.DataFrame or 2-d array of shape (n_samples, n_nodes)
            Numeric columns; the columns are the nodes.
        edges : iterable of (parent, child)
            The DAG, by column names.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights (an integer weight equals replicated rows).
        variance : {"unbiased", "mle"}, default="unbiased"
            Denominator ``N - p - 1`` (bnlearn) or ``N`` of the residual variance.

        Returns
        -------
        GaussianBayesianNetwork
            The fitted network.
        """
        return fit_gaussian_parameters(X, edges, sample_weight=sample_weight, variance=variance)


# ---------------------------------------------------------------------- CLG network
class CLGBayesianNetwork(_LinearGaussianNetwork):
    r"""A conditional linear Gaussian (CLG) Bayesian network over discrete and continuous nodes.

    A discrete node :math:`d` has only discrete parents and a CPT; a continuous node
    :math:`x_i` with discrete parents :math:`\Delta_i` (configuration :math:`\delta`) and
    continuous parents :math:`\Gamma_i` is

    .. math::

        x_i = b_{i0}(\delta) + b_i(\delta)^\top x_{\Gamma_i} + \varepsilon_i,
        \qquad \varepsilon_i \sim N(0, \sigma_i(\delta)^2),

    so :math:`\log p(d, x) = \sum_{\text{discrete}} \log \theta_{d_j \mid d_{\mathrm{pa}(j)}} +
    \sum_{\text{continuous}} \log \phi(x_i; b_{i0}(\delta) + b_i(\delta)^\top x_{\Gamma_i},
    \sigma_i(\delta)^2)` (Lauritzen 1992; bnlearn's conditional Gaussian networks).

    Parameters
    ----------
    nodes : sequence
        All node names; their order is the node order.
    states : dict
        Discrete node name -> sequence of state labels. Nodes not in ``states`` are
        continuous.
    parents : dict
        Node name -> sequence of parent names (missing key: no parents). A discrete node may
        not have a continuous parent.
    cpts : dict
        Discrete node -> CPT of shape ``(r_pa_1, ..., r_pa_k, r_node)``, as in
        :class:`DiscreteBayesianNetwork`.
    intercepts : dict
        Continuous node -> array of shape ``(r_D1, ..., r_Dm)`` over its discrete parents
        ``D`` (in parents order; a scalar when it has none).
    coefficients : dict
        Continuous node -> array of shape ``(r_D1, ..., r_Dm, p)``, the last axis over its
        continuous parents in parents order (missing key: no continuous parents).
    sigmas : dict
        Continuous node -> standard deviations, shape ``(r_D1, ..., r_Dm)``; positive (0
        only for a node without parents, a constant).

    Attributes
    ----------
    nodes, states, parents, edges, cpts, intercepts, coefficients, sigmas
        As given (arrays read-only float64); ``states`` and ``cpts`` hold the discrete nodes.
    discrete_parents, continuous_parents : dict
        Continuous node -> tuple of its discrete / continuous parents, in parents order.
    discrete_network : DiscreteBayesianNetwork
        The discrete nodes on their own (their marginal distribution, which is a
        discrete Bayesian network because discrete nodes have only discrete parents).

    Raises
    ------
    ValueError
        For a continuous parent of a discrete node (naming the edge), a cycle, or a missing
        or malformed parameter (naming the node).

    References
    ----------
    S. L. Lauritzen (1992), "Propagation of probabilities, means, and variances in mixed
    graphical association models", JASA 87(420).

    M. Scutari (2010), "Learning Bayesian networks with the bnlearn R package", JSS 35(3).

    Examples
    --------
    >>> from skbn.network import CLGBayesianNetwork
    >>> net = CLGBayesianNetwork(
    ...     nodes=["g", "y"], states={"g": ["a", "b"]}, parents={"y": ["g"]},
    ...     cpts={"g": [0.25, 0.75]}, intercepts={"y": [0.0, 4.0]}, sigmas={"y": [1.0, 1.0]})
    >>> round(float(net.query("y").mean["y"]), 12)
    3.0
    """

    def __init__(self, nodes, states, parents, cpts, intercepts, coefficients=None, sigmas=None):
        self.nodes, self._index, self.parents, self.edges, self._topo = _check_structure(
            nodes, parents)
        states = dict(states)
        for node in states:
            if node not in self._index:
                raise ValueError(f"States are given for unknown node {node!r}.")
        self._discrete = [v for v in self.nodes if v in states]
        self._continuous = [v for v in self.nodes if v not in states]
        for child in self._discrete:
            for p in self.parents[child]:
                if p not in states:
                    raise ValueError(
                        f"Edge {p!r} -> {child!r}: the discrete node {child!r} has the continuous "
                        f"parent {p!r}; in a CLG network discrete nodes have only discrete "
                        f"parents.")
        self.discrete_network = DiscreteBayesianNetwork(
            {v: states[v] for v in self._discrete},
            {v: self.parents[v] for v in self._discrete},
            {v: cpts[v] for v in cpts if v in states} if cpts is not None else {})
        for node in cpts or {}:
            if node not in states:
                raise ValueError(f"A CPT is given for node {node!r}, which is not discrete.")
        self.states = self.discrete_network.states
        self.cpts = self.discrete_network.cpts
        intercepts, coefficients = dict(intercepts), dict(coefficients or {})
        sigmas = dict(sigmas or {})
        for name, table in (("intercept", intercepts), ("coefficients", coefficients),
                            ("sigma", sigmas)):
            for node in table:
                if node not in self._index or node in states:
                    raise ValueError(f"A {name} is given for node {node!r}, which is not a "
                                     f"continuous node.")
        self.discrete_parents, self.continuous_parents = {}, {}
        self.intercepts, self.coefficients, self.sigmas = {}, {}, {}
        for node in self._continuous:
            dpa = tuple(p for p in self.parents[node] if p in states)
            cpa = tuple(p for p in self.parents[node] if p not in states)
            self.discrete_parents[node], self.continuous_parents[node] = dpa, cpa
            shape = tuple(len(self.states[p]) for p in dpa)
            if node not in intercepts:
                raise ValueError(f"Missing intercept for node {node!r}.")
            if node not in sigmas:
                raise ValueError(f"Missing sigma for node {node!r}.")
            arrays = {}
            for name, given, expected in (
                    ("intercept", intercepts[node], shape),
                    ("coefficients", coefficients.get(node, np.zeros(shape + (0,))),
                     shape + (len(cpa),)),
                    ("sigma", sigmas[node], shape)):
                try:
                    array = np.array(given, dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValueError(f"The {name} of node {node!r} is not numeric.") from None
                if array.shape != expected:
                    raise ValueError(
                        f"The {name} of node {node!r} has shape {array.shape}, expected "
                        f"{expected} (discrete parents {list(dpa)!r}"
                        + (f", then continuous parents {list(cpa)!r})." if name == "coefficients"
                           else ")."))
                if not np.all(np.isfinite(array)):
                    raise ValueError(f"The {name} of node {node!r} contains NaN or infinite "
                                     f"values.")
                array.flags.writeable = False
                arrays[name] = array
            sigma = arrays["sigma"]
            if np.any(sigma < 0) or (np.any(sigma == 0) and self.parents[node]):
                raise ValueError(f"The sigma of node {node!r} must be positive (0 is allowed only "
                                 f"for a node without parents).")
            self.intercepts[node] = arrays["intercept"]
            self.coefficients[node] = arrays["coefficients"]
            self.sigmas[node] = sigma
        self._dnet, self._dpa = self.discrete_network, self.discrete_parents
        self._setup_families({v: (self.intercepts[v].reshape(-1),
                                  self.coefficients[v].reshape(self.intercepts[v].size, -1),
                                  self.sigmas[v].reshape(-1)) for v in self._continuous})

    # ------------------------------------------------------------------ structure
    def __repr__(self):
        return (f"{type(self).__name__}(n_nodes={len(self.nodes)}, n_discrete="
                f"{len(self._discrete)}, n_edges={len(self.edges)})")

    def is_discrete(self, node):
        """Whether ``node`` is a discrete node.

        Parameters
        ----------
        node : hashable
            A node name.

        Returns
        -------
        bool
            True for a discrete node, False for a continuous one.
        """
        if not _is_node(node, self._index):
            raise ValueError(f"Unknown node {node!r}; nodes are {self.nodes!r}.")
        return node in self.states

    def _node_attributes(self, node):
        return ({"kind": "discrete", "states": list(self.states[node])} if node in self.states
                else {"kind": "continuous"})

    # ------------------------------------------------------------------ likelihood
    def log_likelihood(self, X):
        r"""Log-density of each row, missing cells marginalised.

        A complete row: the discrete CPT log-probabilities plus, for every continuous node,
        :math:`\log \phi(x_i; b_{i0}(\delta) + b_i(\delta)^\top x_{\Gamma_i},
        \sigma_i(\delta)^2)` in the configuration :math:`\delta` of its discrete parents.
        A row with missing cells (NaN, None, or a node absent from the columns) gets the
        exact log-density of its observed cells,

        .. math::

            \log p(x_o) = \log \sum_\delta P(\Delta = \delta, x^d_o)\,
            N(x^c_o; \mu_{o,\delta}, \Sigma_{oo,\delta}),

        over the configurations of the discrete parents of the observed continuous cells'
        continuous ancestry (enumerated; one computation per pattern of observed continuous
        cells).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            Columns are nodes (a subset, in any order): state labels for discrete nodes,
            numbers for continuous ones.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            Natural log-density of every row, ``-inf`` where it is 0 (a CPT entry of 0 meets
            the row, or a constant node is observed at another value), with one
            :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns and
            how many rows each (the learners' rule for ``score_samples``).
        """
        log_density = self._one_blas_thread(self._log_likelihood, X)
        self._warn_zero_density(X, log_density)
        return log_density

    def _log_likelihood(self, X):
        """:meth:`log_likelihood` without the warning (a learner warns for its own call)."""
        frame, codes, values = self._cells(X)
        complete = ~np.isnan(values).any(axis=1) & (codes >= 0).all(axis=1)
        out = np.empty(len(frame))
        if complete.any():
            out[complete] = self._complete_log_density(codes[complete], values[complete])
            if self._discrete:
                out[complete] += self.discrete_network._log_likelihood_codes(codes[complete])
        incomplete = np.flatnonzero(~complete)
        if incomplete.size:
            observed = ~np.isnan(values[incomplete])
            patterns, inverse = np.unique(observed, axis=0, return_inverse=True)
            for k, pattern in enumerate(patterns):
                rows = incomplete[inverse.ravel() == k]
                given = [v for v, o in zip(self._continuous, pattern) if o]
                for sub, _, _, log_w, _, _ in self._mixture(codes[rows], values[rows], given, []):
                    peak = log_w.max(axis=1)
                    safe = np.where(np.isfinite(peak), peak, 0.0)
                    with np.errstate(divide="ignore"):
                        out[rows[sub]] = safe + np.log(np.exp(log_w - safe[:, None]).sum(axis=1))
        return out

    # ------------------------------------------------------------------ interventions
    def _intervention_value(self, node, value):
        if node in self.states:
            self.discrete_network._state_code(node, value)  # refuses an unknown state
            return value
        return _check_value(node, value)

    def do(self, interventions):
        r"""The mutilated network of :math:`\mathrm{do}(X_I = x_I^*)`: an intervened discrete
        node gets a point-mass CPT on its state, an intervened continuous node becomes the
        constant :math:`x_i^*` (:math:`\sigma = 0`); both lose their parents (truncated
        factorisation, Pearl 2009, eq. 3.10).

        Parameters
        ----------
        interventions : dict
            Node name -> state label (discrete node) or finite value (continuous node).

        Returns
        -------
        network : CLGBayesianNetwork
            A new network; this one is unchanged.
        """
        values = self._interventions(interventions, "state or value")
        d_do = {v: x for v, x in values.items() if v in self.states}
        dnet = self.discrete_network.do(d_do) if d_do else self.discrete_network
        parents = {v: (() if v in values else self.parents[v]) for v in self.nodes}
        intercepts, coefficients, sigmas = {}, {}, {}
        for v in self._continuous:
            if v in values:
                intercepts[v], coefficients[v], sigmas[v] = values[v], np.zeros(0), 0.0
            else:
                intercepts[v], coefficients[v], sigmas[v] = (
                    self.intercepts[v], self.coefficients[v], self.sigmas[v])
        return type(self)(self.nodes, dnet.states, parents, dnet.cpts, intercepts,
                          coefficients, sigmas)

    # ------------------------------------------------------------------ inference
    def query(self, variables, evidence=None, do=None):
        r"""Exact distribution of ``variables`` given ``evidence`` (and ``do``).

        * **discrete variables, discrete evidence** -- the posterior table, by variable
          elimination on :attr:`discrete_network` (a ``pandas.Series``, as
          :meth:`DiscreteBayesianNetwork.query`);
        * **continuous variables** -- a :class:`NormalMixture` with one component per
          configuration :math:`\delta` of the discrete parents :math:`\Delta` of the
          variables, of the continuous evidence and of their continuous ancestors (those
          fixed by the evidence excluded):

          .. math::

              p(x_Q \mid e) = \sum_\delta P(\Delta = \delta \mid e)\,
              N(x_Q; \mu_{Q \mid E, \delta}, \Sigma_{Q \mid E, \delta}),
              \qquad P(\delta \mid e) \propto P(\delta, e_d)\,
              N(e_c; \mu_{E, \delta}, \Sigma_{EE, \delta}),

          with :math:`P(\delta, e_d)` from the discrete network, :math:`(\mu_\delta,
          \Sigma_\delta)` the joint of the linear Gaussian network the continuous nodes
          form given :math:`\delta`, and the Gaussian conditioning on the continuous
          evidence :math:`e_c` in each component (Schur complement);
        * **discrete variables, continuous evidence** -- the same weights
          :math:`P(\delta \mid e)` summed onto the variables (a ``pandas.Series``).

        Queries mixing discrete and continuous variables are not supported (query them
        separately).

        Parameters
        ----------
        variables : node name or list of node names
            All discrete or all continuous nodes.
        evidence : dict, optional
            Node name -> state label (discrete node) or value (continuous node).
        do : dict, optional
            Node name -> state label or value; the query runs on :meth:`do`'s network.

        Returns
        -------
        pandas.Series or NormalMixture
            The posterior table of discrete variables, or the mixture of continuous ones.

        Raises
        ------
        ValueError
            For an unknown node or state, a variable also in the evidence, or evidence of
            probability (density) 0.
        """
        if self._interventions(do, "state or value"):
            for name, value in dict(evidence or {}).items():
                if name in do and name in self.states and value != do[name]:
                    raise ValueError(f"Node {name!r} is set to {do[name]!r} by do but observed "
                                     f"as {value!r} in the evidence.")
            return self.do(do).query(variables, evidence)
        variables = _variables_list(variables, self._index)
        evidence = dict(evidence or {})
        codes, values, given = self._evidence_rows(evidence, variables)
        kinds = {v in self.states for v in variables}
        if kinds == {True} and not given:
            return self.discrete_network.query(variables, evidence)
        if len(kinds) > 1:
            raise NotImplementedError(
                f"The query {variables!r} mixes discrete and continuous variables; query them "
                f"separately (joint mixed queries are not supported yet).")
        discrete = kinds == {True}
        (_, dset, configs, log_w, means, covs), = self._mixture(
            codes, values, given, [] if discrete else variables, keep=variables if discrete else ())
        weights, ok = _normalise_log_rows(log_w)
        if not ok[0]:
            raise ValueError(f"The evidence {evidence!r} has "
                             f"{'density' if given else 'probability'} 0.")
        weights = weights[0]
        if discrete:
            table = np.zeros(tuple(len(self.states[v]) for v in variables))
            np.add.at(table, tuple(configs[:, dset.index(v)] for v in variables), weights)
            labels = [self.states[v] for v in variables]
            index = (pd.Index(labels[0], name=variables[0]) if len(variables) == 1 else
                     pd.MultiIndex.from_tuples(list(product(*labels)), names=variables))
            return pd.Series(table.ravel(), index=index, name="probability")
        means = means[0]
        mean = weights @ means  # (over the components in name order: the same sums for any node order)
        spread = means - mean  # (centred: no cancellation when the means are far from 0)
        covariance = np.einsum("c,cij->ij", weights, covs + spread[:, :, None] * spread[:, None, :])
        # the components shown in C order over their discrete nodes in node order
        free = sorted((j for j, v in enumerate(dset) if codes[0, self._dpos[v]] < 0),
                      key=lambda j: self._dpos[dset[j]])
        shown = np.lexsort([configs[:, j] for j in reversed(free)]) if free else np.arange(1)
        weights, means, covs, configs = weights[shown], means[shown], covs[shown], configs[shown]
        labels = [tuple(self.states[dset[j]][c[j]] for j in free) for c in configs]
        names = [dset[j] for j in free]
        if len(names) > 1:
            index = pd.MultiIndex.from_tuples(labels, names=names)
        elif names:
            index = pd.Index([c[0] for c in labels], name=names[0])
        else:
            index = pd.Index([()], dtype=object)
        return NormalMixture(
            weights=pd.Series(weights, index=index, name="weight"),
            means=pd.DataFrame(means, index=index, columns=variables),
            covariances=covs,
            mean=pd.Series(mean, index=pd.Index(variables), name="mean"),
            covariance=pd.DataFrame(0.5 * (covariance + covariance.T), index=variables,
                                    columns=variables))

    def predict_proba(self, X, target):
        r"""Exact posterior of the discrete ``target`` given the other columns of each row.

        .. math::

            P(x_t = k \mid x_o) = \frac{\sum_{\delta:\, \delta_t = k} P(\Delta = \delta,
            x^d_o)\, N(x^c_o; \mu_{o,\delta}, \Sigma_{oo,\delta})}{\sum_\delta
            P(\Delta = \delta, x^d_o)\, N(x^c_o; \mu_{o,\delta}, \Sigma_{oo,\delta})},

        over the configurations :math:`\delta` of the target and of the discrete parents of
        the observed continuous cells' continuous ancestry (variable elimination on the
        discrete network for the first factor, the Gaussian density of each configuration
        for the second). Missing cells (NaN, None, or absent columns) are marginalised; the
        target's own column is ignored. A row whose evidence has density 0 (a CPT entry of
        0 meets it, or a constant node is observed at another value) has no posterior: it
        gets the uniform distribution, with one
        :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns and
        how many rows each (as :meth:`DiscreteBayesianNetwork.predict_proba_codes` and the
        learners).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            Columns are nodes (a subset, in any order).
        target : node name
            A discrete node.

        Returns
        -------
        proba : pandas.DataFrame of shape (n_samples, n_states)
            Indexed as ``X``; one column per state of the target, in sorted order (as
            ``numpy.unique`` sorts, scikit-learn's order of class labels); rows sum to 1.

        Raises
        ------
        ValueError
            For an unknown or continuous target, or an unknown column or state.
        """
        target = self._check_target(target)
        if target not in self.states:
            raise ValueError(f"predict_proba needs a discrete target; {target!r} is "
                             f"continuous (predict gives its conditional mean).")
        proba, impossible = self._one_blas_thread(self._predict_proba, X, target)
        self._warn_impossible(X, target, impossible)
        return proba

    def _predict_proba(self, X, target):
        """:meth:`predict_proba` without the warning: ``(proba, impossible)``, the rows whose
        evidence has density 0 as a bool mask (uniform there)."""
        r = len(self.states[target])
        out, impossible, frame = None, None, None
        for frame, rows, codes, values, given in self._by_pattern(X, target):
            if out is None:
                out, impossible = np.empty((len(frame), r)), np.zeros(len(frame), dtype=bool)
            for sub, dset, configs, log_w, _, _ in self._mixture(codes, values, given, [],
                                                                 keep=[target]):
                weights, ok = _normalise_log_rows(log_w)
                proba = np.zeros((len(sub), r))
                column = configs[:, dset.index(target)]
                for k in range(r):
                    proba[:, k] = weights[:, column == k].sum(axis=1)
                proba[~ok] = 1.0 / r
                out[rows[sub]] = proba
                impossible[rows[sub]] = ~ok
        if frame is None:
            frame, out, impossible = _as_frame(X), np.empty((0, r)), np.zeros(0, dtype=bool)
        order = class_order(self.states[target])
        return pd.DataFrame(out[:, order], index=frame.index,
                            columns=pd.Index([self.states[target][k] for k in order],
                                             dtype=object, name=target)), impossible

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, random_state=None, do=None):
        """Draw rows: the discrete nodes by forward sampling of :attr:`discrete_network`,
        then the continuous nodes in topological order given them (ties broken by node
        name in both: the same network with its nodes in another order draws the same rows
        for the same seed); optionally from the mutilated network of ``do``.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows.
        random_state : int, RandomState instance or None, default=None
            Seed of the draw.
        do : dict, optional
            Node name -> value (or state) set by a hard intervention; None or an empty dict
            samples the observational distribution.

        Returns
        -------
        X : pandas.DataFrame of shape (n_samples, n_nodes)
            ``Categorical`` columns for discrete nodes, float64 for continuous ones, in node
            order.
        """
        _check_n_samples(n_samples)
        if self._interventions(do, "state or value"):
            return self.do(do).sample(n_samples, random_state)
        rng = check_random_state(random_state)
        n = int(n_samples)
        discrete = (self.discrete_network.sample(n, rng) if self._discrete
                    else pd.DataFrame(index=range(n)))
        codes = np.column_stack([discrete[v].cat.codes.to_numpy() for v in self._discrete]
                                ) if self._discrete else np.zeros((n, 0), dtype=np.int64)
        values = self._draw(rng, codes.astype(np.int64))
        columns = {v: (discrete[v] if v in self.states else values[:, self._cpos[v]])
                   for v in self.nodes}
        return pd.DataFrame(columns, index=pd.RangeIndex(n))

    # ------------------------------------------------------------------ estimation
    @classmethod
    def from_data(cls, X, edges, discrete=None, sample_weight=None, variance="unbiased"):
        """Estimate the parameters of the DAG ``edges`` over the columns of ``X``.

        Same as :func:`fit_clg_parameters`.

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_nodes)
            Discrete and numeric columns; the columns are the nodes.
        edges : iterable of (parent, child)
            The DAG, by column names.
        discrete : sequence of column names, optional
            The discrete columns (default: those of categorical, object, string or bool
            dtype).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights (an integer weight equals replicated rows).
        variance : {"unbiased", "mle"}, default="unbiased"
            Denominator ``N_g - p - 1`` (bnlearn) or ``N_g`` of the residual variances.

        Returns
        -------
        CLGBayesianNetwork
            The fitted network.
        """
        return fit_clg_parameters(X, edges, discrete=discrete, sample_weight=sample_weight,
                                  variance=variance)


# ---------------------------------------------------------------------- estimation
def _prepare(X, edges, sample_weight):
    frame = _as_frame(X)
    nodes = list(frame.columns)
    index = {v: i for i, v in enumerate(nodes)}
    parents = {v: [] for v in nodes}
    for edge in edges:
        try:
            p, c = edge
        except (TypeError, ValueError):
            raise ValueError(f"Edges must be (parent, child) pairs, got {edge!r}.") from None
        for name in (p, c):
            if not _is_node(name, index):
                raise ValueError(f"Edge {p!r} -> {c!r} names {name!r}, which is not a column of "
                                 f"X; columns are {nodes!r}.")
        if p in parents[c]:
            raise ValueError(f"Edge {p!r} -> {c!r} is repeated.")
        parents[c].append(p)
    _check_structure(nodes, parents)
    weights = _check_weights(sample_weight, len(frame))
    return frame, nodes, parents, weights


def _continuous_values(frame, columns):
    values = np.empty((len(frame), len(columns)))
    for k, name in enumerate(columns):
        column = _numeric_column(frame, frame.columns.get_loc(name), name)
        if np.any(np.isnan(column)):
            raise ValueError(f"Input X contains NaN in column {name!r}.")
        if np.any(np.isinf(column)):
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        values[:, k] = column
    return values


def _scaled_parents(scatter, parents):
    """The parents' block of ``scatter`` scaled to unit diagonal, or None when a parent is
    constant (zero scatter)."""
    index = np.asarray(parents)
    sub = scatter[index[:, None], index]
    if (sub.diagonal() == 0).any():
        return None
    return _scaled(sub)[1]


def _identifiable(scaled, order=None):
    """Whether the parents' unit-diagonal scatter block ``scaled``, taken in ``order``
    (positions in it; None: as it is), leaves the regression identifiable: the
    singular-matrix rule of the scores (:func:`skbn._counting._moments.factor_passes`:
    every parent keeps more than ``SINGULAR_RCOND`` of its variance given the parents
    before it), so a fitted network regresses on every parent exactly when the scores,
    which take the parents in name order, did."""
    if order is not None:
        scaled = scaled.take(order, axis=0).take(order, axis=1)
    return cholesky_factor(scaled) is not None


#: :attr:`NotEstimable.reason` of a regression whose rows all lie on it (residual variance 0).
NO_RESIDUAL_SPREAD = "no residual spread (an exact fit)"


def _family_parameters(stats, group, child, parents, variance, where, bounds=None, parent_names=None,
                       order=None):
    """Intercept, coefficients and sigma of ``child`` on ``parents`` (column positions of
    ``stats``) in configuration ``group``; :class:`NotEstimable` (naming ``where``, and the
    parent by its name in ``parent_names``, aligned with ``parents``) when not estimable:
    among others for parents collinear by the rule of the scores (:func:`_identifiable`,
    the parents taken in ``order``, positions in ``parents``; None: as given). ``bounds``:
    ``(low, high)``, the residual variance ``RSS / dof`` is clipped to them (EM's
    constrained M-step, :class:`skbn._em.MomentEM`; a variance of 0 is then ``low``)."""
    n = float(stats.weight[group])
    p = len(parents)
    if n == 0:
        raise NotEstimable(f"Cannot estimate {where}: no row has that configuration (in a "
                         f"cross-validation fold, the training rows may lack it), so the child's "
                         f"regression there has no data. Merge states or drop parents, or learn "
                         f"the structure alone with fit_parameters=False.", "no row")
    if n <= p + 1:
        raise NotEstimable(f"Cannot estimate {where}: total weight {n:g} of its rows is not more "
                           f"than the {p + 1} coefficients (intercept included), so the "
                           f"coefficients and the standard deviation are not identifiable. Add "
                           f"rows, merge states or drop parents.", "too few rows")
    scatter = stats.scatter[group]
    if p:
        scaled = _scaled_parents(scatter, parents)
        if scaled is None:
            diag = np.sqrt(scatter[parents, parents])
            k = int(np.flatnonzero(diag == 0)[0])
            parent = repr(parent_names[k]) if parent_names is not None else k
            raise NotEstimable(f"Cannot estimate {where}: the parent {parent} is constant there.",
                               f"the parent {parent} is constant")
        if not _identifiable(scaled, order):
            raise NotEstimable(f"Cannot estimate {where}: its parents are collinear there (the "
                               f"coefficients are not identifiable).", "collinear parents")
    # (solved in ``order``, as checked, the coefficients put back in ``parents``' order; the
    # intercept's dot product in ``order`` too: its rounding depends on the order of the terms)
    taken_parents = list(parents) if order is None or not p else [parents[k] for k in order]
    taken, rss = regression(scatter, child, taken_parents)
    coef = taken
    if p and order is not None:
        coef = np.empty(p)
        coef[np.asarray(order)] = taken
    intercept = float(stats.mean[group, child] - stats.mean[group, taken_parents] @ taken)
    dof = n - p - 1 if variance == "unbiased" else n
    residual_variance = rss / dof
    if bounds is not None:
        residual_variance = min(max(residual_variance, bounds[0]), bounds[1])
    sigma = float(np.sqrt(residual_variance))
    if not sigma > 0:
        raise NotEstimable(f"Cannot estimate {where}: the residual variance is 0 (a constant "
                           f"column or an exact linear function of the parents).",
                           NO_RESIDUAL_SPREAD)
    return intercept, coef, sigma


def aliased_family_parameters(stats, group, child, parents, variance, where, order, bounds=None,
                              parent_names=None):
    r""":func:`_family_parameters` with R's rule for exactly collinear parents (``lm``'s
    pivoting, which ``bn.fit`` inherits): a parent that is an exact linear function of the
    parents before it in ``order`` is *aliased* and left out of the regression. A parent
    constant on the rows (a CLG configuration's rows, or all of them) is the case of no
    parent before it: a multiple of the intercept's column, so ``lm`` aliases it too.

    The aliased parents are those :func:`skbn._counting.linear_dependencies` finds in the
    parents' scatter block taken in ``order`` (a residual variance given the earlier
    parents of at most :data:`SINGULAR_RCOND` of the parent's own, the scores' rule; a
    constant parent, whose scatter is 0, has none). The child is regressed on the other
    parents ``K``: :math:`\beta_K = S_{KK}^{-1} S_{Kc}`, the intercept and
    :math:`\hat\sigma^2 = RSS / (N - |K| - 1)` (``"unbiased"``: ``lm``'s residual standard
    error, whose degrees of freedom count the estimated coefficients) or :math:`RSS / N`
    (``"mle"``), and an aliased parent's coefficient is 0 (``NA`` in R). On rows where the
    linear relation holds every least-squares solution gives the same fitted values and
    :math:`RSS`, so the density is the one of any of them (and that of the child given
    ``K``, which the residual-variance scores gave the family); on new rows that break the
    relation, the aliased parents are ignored. Rows too few for every parent
    (:math:`N \le p + 1`) can still estimate the kept ones when :math:`N > |K| + 1`, as
    ``lm`` does (a residual degree of freedom is left); otherwise the error is the one of
    too few rows.

    Parameters
    ----------
    stats, group, child, parents, variance, where, bounds, parent_names
        As :func:`_family_parameters`.
    order : sequence of int
        The positions in ``parents`` in the order they are taken (a parent is aliased on
        those before it): name order, so the choice does not depend on the column order.

    Returns
    -------
    intercept : float
    coefficients : ndarray of shape (len(parents),)
        0 at the aliased parents.
    sigma : float
    aliased : list of (int, tuple of int)
        Each aliased parent and the parents it is a linear function of (positions in
        ``parents``; empty for a constant parent); empty when no parent is aliased.

    Raises
    ------
    NotEstimable
        As :func:`_family_parameters` for every other reason (no row, too few rows for the
        kept parents, no residual spread). Parents that fail the check of
        :func:`_identifiable` have a pivot at or below the rule here (the same factorisation
        in the same ``order``, up to rounding at the rule's boundary), so collinear parents
        are aliased, not refused.
    """
    try:
        return (*_family_parameters(stats, group, child, parents, variance, where, bounds, parent_names,
                                    order), [])
    except NotEstimable as error:
        if not parents or error.reason in ("no row", NO_RESIDUAL_SPREAD):
            raise
        unestimable = error  # (too few rows, a constant parent or collinear parents)
    index = list(parents)
    aliased = linear_dependencies(stats.scatter[group][np.ix_(index, index)], order, limit=len(index))
    if not aliased:
        raise unestimable
    dropped = {k for k, _ in aliased}
    kept = [int(k) for k in order if k not in dropped]  # (in ``order``, as the scores take them)
    names = None if parent_names is None else [parent_names[k] for k in kept]
    try:
        intercept, kept_coef, sigma = _family_parameters(stats, group, child, [index[k] for k in kept],
                                                         variance, where, bounds=bounds, parent_names=names)
    except NotEstimable as error:
        if error.reason == "too few rows":  # (no residual degree of freedom even without them)
            raise unestimable from None
        raise
    coef = np.zeros(len(index))
    coef[kept] = kept_coef
    return intercept, coef, sigma, aliased


def fit_gaussian_parameters(X, edges, sample_weight=None, variance="unbiased"):
    r"""Maximum-likelihood linear Gaussian network of the DAG ``edges`` over the columns of X.

    For every node, the coefficients are the weighted least-squares (maximum-likelihood)
    regression on its parents, computed from the weighted moments of the counting engine:
    :math:`\beta = S_{PP}^{-1} S_{Pc}`, intercept :math:`\bar x_c - \bar x_P^\top \beta`, and

    .. math::

        \hat\sigma^2 = \frac{RSS}{N - p - 1} \ (\texttt{"unbiased"}, \text{bnlearn's bn.fit})
        \quad\text{or}\quad \frac{RSS}{N} \ (\texttt{"mle"}),

    with :math:`N` the total weight (an integer weight equals replicated rows) and :math:`p`
    the number of parents.

    Parameters
    ----------
    X : pandas.DataFrame or 2-d array of shape (n_samples, n_nodes)
        Numeric columns; the columns are the nodes (array columns are named 0, 1, ...).
    edges : iterable of (parent, child)
        The DAG, by column names.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights.
    variance : {"unbiased", "mle"}, default="unbiased"
        Denominator ``N - p - 1`` (bnlearn's ``bn.fit``) or ``N`` (maximum likelihood).

    Returns
    -------
    GaussianBayesianNetwork
        The fitted network.

    Raises
    ------
    ValueError
        Naming the column or node: a non-numeric value, NaN or infinity; an edge naming an
        unknown column; a cycle; a node with no more rows than coefficients, collinear or
        constant parents, or zero residual variance.
    """
    _check_variance(variance)
    frame, nodes, parents, weights = _prepare(X, edges, sample_weight)
    values = _continuous_values(frame, nodes)
    # (the moments and every regression in name order, as a learner's network computes
    # them: the same numbers for any column order, and those of a learner's ``network_``)
    stats = moments(values, weights, order=np.argsort(name_ranks(nodes), kind="stable"))
    index = {v: i for i, v in enumerate(nodes)}
    intercepts, coefficients, sigmas = {}, {}, {}
    for node in nodes:
        order = np.argsort(name_ranks(parents[node]), kind="stable") if parents[node] else None
        intercepts[node], coefficients[node], sigmas[node] = _family_parameters(
            stats, 0, index[node], [index[p] for p in parents[node]], variance,
            f"node {node!r}", parent_names=parents[node], order=order)
    return GaussianBayesianNetwork(nodes, parents, intercepts, coefficients, sigmas)


def fit_clg_parameters(X, edges, discrete=None, sample_weight=None, variance="unbiased"):
    r"""Maximum-likelihood CLG network of the DAG ``edges`` over the columns of X.

    Discrete nodes get maximum-likelihood CPTs from the weighted counts (bnlearn's
    ``method = "mle"``; a parent configuration without rows gets the uniform distribution,
    skbn's convention, where bnlearn reports NaN). A continuous node gets, in every
    configuration of its discrete parents, the regression of
    :func:`fit_gaussian_parameters` on its continuous parents from that configuration's
    weighted moments; a configuration with no more rows than coefficients, collinear parents
    or zero residual variance is an error naming the node and the configuration -- never a
    silent number (bnlearn returns NA there, or a degenerate fit with a zero coefficient and
    standard deviation 0 when the rows are as many as the coefficients).

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_nodes)
        Discrete and numeric columns; the columns are the nodes.
    edges : iterable of (parent, child)
        The DAG, by column names.
    discrete : sequence of column names, optional
        The discrete columns. Default: the columns of categorical, object, string or bool
        dtype; every numeric column is continuous. States: the categories of a categorical
        column (all of them, observed or not), else the sorted observed values.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights.
    variance : {"unbiased", "mle"}, default="unbiased"
        Denominator ``N_g - p - 1`` (bnlearn's ``bn.fit``) or ``N_g`` in configuration ``g``.

    Returns
    -------
    CLGBayesianNetwork
        The fitted network.

    Raises
    ------
    ValueError
        As :func:`fit_gaussian_parameters`, and for a continuous parent of a discrete node
        (naming the edge) or a missing value in a discrete column.
    """
    _check_variance(variance)
    frame, nodes, parents, weights = _prepare(X, edges, sample_weight)
    if discrete is None:
        discrete = [c for c in nodes if not pd.api.types.is_numeric_dtype(frame[c].dtype)
                    or pd.api.types.is_bool_dtype(frame[c].dtype)]
    else:
        discrete = list(discrete)
        for name in discrete:
            if not _is_node(name, {v: None for v in nodes}):
                raise ValueError(f"discrete names {name!r}, which is not a column of X.")
    dset = set(discrete)
    dnodes = [v for v in nodes if v in dset]
    cnodes = [v for v in nodes if v not in dset]
    for child in dnodes:
        for p in parents[child]:
            if p not in dset:
                raise ValueError(
                    f"Edge {p!r} -> {child!r}: the discrete node {child!r} has the continuous "
                    f"parent {p!r}; in a CLG network discrete nodes have only discrete parents.")
    states, codes = {}, np.zeros((len(frame), len(dnodes)), dtype=np.int64)
    for k, name in enumerate(dnodes):
        column = frame[name]
        if column.isna().any():
            raise ValueError(f"Input X contains NaN in column {name!r}.")
        if isinstance(column.dtype, pd.CategoricalDtype):
            labels = list(column.cat.categories)
            codes[:, k] = column.cat.codes.to_numpy()
        else:
            labels = sorted(pd.unique(column.to_numpy(dtype=object)), key=lambda v: (str(type(v)), v))
            codes[:, k] = pd.Index(labels, dtype=object).get_indexer(column.to_numpy(dtype=object))
        states[name] = labels
    cards = np.array([len(states[v]) for v in dnodes], dtype=np.int64)
    dpos = {v: k for k, v in enumerate(dnodes)}
    cpts = {v: estimate_cpt(codes, cards, dpos[v], [dpos[p] for p in parents[v]], method="mle",
                            weights=weights) for v in dnodes}
    values = _continuous_values(frame, cnodes)
    cpos = {v: k for k, v in enumerate(cnodes)}
    intercepts, coefficients, sigmas = {}, {}, {}
    for node in cnodes:
        dpa = [p for p in parents[node] if p in dset]
        cpa = [p for p in parents[node] if p not in dset]
        shape = tuple(len(states[p]) for p in dpa)
        ids, n_ids = config_ids(codes, cards, [dpos[p] for p in dpa])
        columns = [cpos[p] for p in cpa] + [cpos[node]]
        stats = moments(values[:, columns], weights, ids, n_ids)
        b0 = np.zeros(n_ids)
        b = np.zeros((n_ids, len(cpa)))
        s = np.zeros(n_ids)
        for g in range(n_ids):
            config = np.unravel_index(g, shape) if shape else ()
            where = f"node {node!r}" + (
                " in the configuration " + repr({p: states[p][c] for p, c in zip(dpa, config)})
                + " of its discrete parents" if dpa else "")
            b0[g], b[g], s[g] = _family_parameters(stats, g, len(cpa), list(range(len(cpa))),
                                                   variance, where, parent_names=cpa)
        intercepts[node] = b0.reshape(shape)
        coefficients[node] = b.reshape(shape + (len(cpa),))
        sigmas[node] = s.reshape(shape)
    return CLGBayesianNetwork(nodes, states, parents, cpts, intercepts, coefficients, sigmas)

