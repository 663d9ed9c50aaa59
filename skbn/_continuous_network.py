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

import numpy as np
import pandas as pd
from scipy import linalg
from sklearn.utils import check_random_state

from skbn._counting import config_ids, moments, regression
from skbn._counting._moments import SINGULAR_RCOND
from skbn._dag import ancestor_ids
from skbn._discrete_network import DiscreteBayesianNetwork, _check_n_samples, _is_node, _Network
from skbn.graph import topological_order
from skbn.parameters import estimate_cpt

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
@dataclass(frozen=True)
class MultivariateNormal:
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

    @property
    def variance(self):
        """The diagonal of :attr:`covariance` (a Series)."""
        return pd.Series(np.diag(self.covariance.to_numpy()).copy(), index=self.mean.index,
                         name="variance")


@dataclass(frozen=True)
class NormalMixture:
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
        Covariance of the mixture, :math:`\\sum_c w_c (\\Sigma_c + \\mu_c \\mu_c^\\top) -
        \\mu \\mu^\\top` (law of total covariance).
    """

    weights: pd.Series
    means: pd.DataFrame
    covariances: np.ndarray
    mean: pd.Series
    covariance: pd.DataFrame

    @property
    def variance(self):
        """The diagonal of :attr:`covariance` (a Series)."""
        return pd.Series(np.diag(self.covariance.to_numpy()).copy(), index=self.mean.index,
                         name="variance")


# ---------------------------------------------------------------------- shared helpers
def _check_structure(nodes, parents):
    """Node list, parents dict (tuples, every node a key) and edges; raise on unknown or
    repeated names and on a cycle."""
    nodes = list(nodes)
    if len(set(nodes)) != len(nodes):
        raise ValueError(f"Repeated node names: {nodes!r}.")
    index = {v: i for i, v in enumerate(nodes)}
    parents = {} if parents is None else dict(parents)
    for node in parents:
        if node not in index:
            raise ValueError(f"Parents are given for unknown node {node!r}.")
    out = {}
    for node in nodes:
        pa = tuple(parents.get(node, ()) or ())
        for p in pa:
            if p not in index:
                raise ValueError(f"Node {node!r} has unknown parent {p!r}.")
        if len(set(pa)) != len(pa):
            raise ValueError(f"Node {node!r} lists a parent twice: {pa!r}.")
        out[node] = pa
    edges = [(p, v) for v in nodes for p in out[v]]
    order = topological_order(nodes, edges)  # raises on a cycle, naming it
    return nodes, index, out, edges, [index[v] for v in order]


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


def _condition(mu, cov, query, given, values):
    """Mean and covariance of ``x[query]`` given ``x[given] = values`` (Schur complement)."""
    mu_q = mu[query]
    cov_qq = cov[np.ix_(query, query)]
    if not len(given):
        return mu_q, cov_qq
    cov_qe = cov[np.ix_(query, given)]
    factor = linalg.cho_factor(cov[np.ix_(given, given)], lower=True)
    gain = linalg.cho_solve(factor, cov_qe.T).T
    mean = mu_q + gain @ (np.asarray(values, dtype=np.float64) - mu[given])
    covariance = cov_qq - gain @ cov_qe.T
    return mean, 0.5 * (covariance + covariance.T)


def _normal_logpdf(x, mean, cov):
    """Row-wise log-density of ``N(mean, cov)`` at the rows of ``x`` (cov positive definite)."""
    k = len(mean)
    if k == 0:
        return np.zeros(x.shape[0])
    factor = linalg.cholesky(cov, lower=True)
    z = linalg.solve_triangular(factor, (x - mean).T, lower=True)
    return -0.5 * (k * _LOG_2PI + np.sum(z * z, axis=0)) - np.sum(np.log(np.diag(factor)))


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
    """Column ``pos`` of ``frame`` as float64; error naming the column if not numeric."""
    col = frame.iloc[:, pos]
    if isinstance(col.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(col.dtype):
        raise ValueError(f"Column {name!r} of a continuous node must be numeric, got dtype "
                         f"{col.dtype}.")
    try:
        return np.asarray(pd.to_numeric(col, errors="raise"), dtype=np.float64)
    except (TypeError, ValueError):
        values = np.asarray(col, dtype=object)
        for v in values:
            try:
                float(v)
            except (TypeError, ValueError):
                raise ValueError(f"Column {name!r} of a continuous node holds a non-numeric "
                                 f"value {v!r}.") from None
        raise


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


# ---------------------------------------------------------------------- Gaussian network
class GaussianBayesianNetwork(_Network):
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
    >>> from skbn.network import GaussianBayesianNetwork
    >>> net = GaussianBayesianNetwork(
    ...     nodes=["a", "b"], parents={"b": ["a"]},
    ...     intercepts={"a": 0.0, "b": 1.0}, coefficients={"b": [2.0]},
    ...     sigmas={"a": 1.0, "b": 1.0})
    >>> net.query("a", evidence={"b": 3.0}).mean.round(4).tolist()
    [0.8]
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
            coef = np.asarray(coefficients.get(node, ()), dtype=np.float64).reshape(-1)
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
        self._parent_idx = [tuple(self._index[p] for p in self.parents[v]) for v in self.nodes]

    # ------------------------------------------------------------------ structure
    def _node_attributes(self, node):
        return {"intercept": self.intercepts[node], "sigma": self.sigmas[node],
                "coefficients": dict(zip(self.parents[node], self.coefficients[node].tolist()))}

    # ------------------------------------------------------------------ joint
    def _arrays(self):
        return ([self.intercepts[v] for v in self.nodes],
                [self.coefficients[v] for v in self.nodes],
                [self.sigmas[v] for v in self.nodes])

    def joint(self):
        """The implied joint distribution :math:`N(\\mu, \\Sigma)` of all nodes.

        Returns
        -------
        MultivariateNormal
            ``mean`` and ``covariance`` indexed by the nodes, in node order.
        """
        intercept, coefs, sigma = self._arrays()
        mu, cov = _linear_joint(self._topo, self._parent_idx, intercept, coefs, sigma)
        return MultivariateNormal(pd.Series(mu, index=pd.Index(self.nodes), name="mean"),
                                  pd.DataFrame(cov, index=self.nodes, columns=self.nodes))

    # ------------------------------------------------------------------ likelihood
    def _values(self, X):
        frame = _as_frame(X)
        unknown = [c for c in frame.columns if c not in self._index]
        if unknown:
            raise ValueError(f"X has columns that are not nodes of the network: {unknown!r}.")
        values = np.full((len(frame), len(self.nodes)), np.nan)
        for pos, col in enumerate(frame.columns):
            column = _numeric_column(frame, pos, col)
            if np.any(np.isinf(column)):
                raise ValueError(f"Column {col!r} contains infinite values.")
            values[:, self._index[col]] = column
        return values

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
            Natural log-density of every row (``-inf`` where it is 0).
        """
        values = self._values(X)
        n, d = values.shape
        out = np.zeros(n)
        missing = np.isnan(values)
        complete = ~missing.any(axis=1)
        if complete.any():
            rows = values[complete]
            total = np.zeros(len(rows))
            for i, node in enumerate(self.nodes):
                pa = list(self._parent_idx[i])
                mean = self.intercepts[node] + (rows[:, pa] @ self.coefficients[node] if pa else 0.0)
                total += _node_logpdf(rows[:, i], mean, self.sigmas[node])
            out[complete] = total
        if not complete.all():
            joint = self.joint()
            mu, cov = joint.mean.to_numpy(), joint.covariance.to_numpy()
            constant = np.array([self.sigmas[v] == 0 for v in self.nodes])
            patterns, inverse = np.unique(missing[~complete], axis=0, return_inverse=True)
            incomplete = np.flatnonzero(~complete)
            for k, pattern in enumerate(patterns):
                rows = incomplete[inverse.ravel() == k]
                observed = np.flatnonzero(~pattern & ~constant)
                fixed = np.flatnonzero(~pattern & constant)
                block = values[np.ix_(rows, observed)]
                result = _normal_logpdf(block, mu[observed], cov[np.ix_(observed, observed)])
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
        joint = self.joint()
        mu, cov = joint.mean.to_numpy(), joint.covariance.to_numpy()
        given, values = [], []
        for name, value in evidence.items():
            if not _is_node(name, self._index):
                raise ValueError(f"Unknown node {name!r}; nodes are {self.nodes!r}.")
            if name in variables:
                raise ValueError(f"Node {name!r} is both a query variable and in the evidence.")
            value = _check_value(name, value, "evidence")
            i = self._index[name]
            if self.sigmas[name] == 0 and not self.parents[name]:
                if value != mu[i]:
                    raise ValueError(f"The evidence {name!r} = {value!r} has density 0: the node "
                                     f"is constant at {mu[i]!r}.")
                continue
            given.append(i)
            values.append(value)
        query = [self._index[v] for v in variables]
        mean, covariance = _condition(mu, cov, query, given, values)
        return MultivariateNormal(pd.Series(mean, index=pd.Index(variables), name="mean"),
                                  pd.DataFrame(covariance, index=variables, columns=variables))

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, random_state=None, do=None):
        """Draw rows by ancestral sampling (one standard normal per node and row, in
        topological order), optionally from the mutilated network of ``do``.

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
        rng = check_random_state(random_state)
        values = np.zeros((int(n_samples), len(self.nodes)))
        for i in self._topo:
            node = self.nodes[i]
            pa = list(self._parent_idx[i])
            mean = self.intercepts[node] + (values[:, pa] @ self.coefficients[node] if pa else 0.0)
            values[:, i] = mean + self.sigmas[node] * rng.standard_normal(int(n_samples))
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
class CLGBayesianNetwork(_Network):
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
    >>> float(net.query("y").mean["y"])
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
    def _split(self, X, require_all=True):
        """Discrete columns as a DataFrame, continuous ones as a float matrix."""
        frame = _as_frame(X)
        unknown = [c for c in frame.columns if c not in self._index]
        if unknown:
            raise ValueError(f"X has columns that are not nodes of the network: {unknown!r}.")
        absent = [v for v in self.nodes if v not in frame.columns]
        if require_all and absent:
            raise ValueError(f"X lacks the columns {absent!r}; the log-likelihood of a CLG "
                             f"network needs every node (marginalising absent or missing cells "
                             f"is not supported yet).")
        values = np.zeros((len(frame), len(self._continuous)))
        for k, node in enumerate(self._continuous):
            pos = frame.columns.get_loc(node)
            column = _numeric_column(frame, pos, node)
            if not np.all(np.isfinite(column)):
                raise ValueError(f"Column {node!r} contains NaN or infinite values; missing "
                                 f"cells are not supported for CLG networks yet.")
            values[:, k] = column
        discrete = frame[self._discrete]
        codes = np.zeros((len(frame), len(self._discrete)), dtype=np.int64)
        for k, node in enumerate(self._discrete):
            column = np.asarray(discrete.iloc[:, k], dtype=object)
            if np.asarray(pd.isna(column), dtype=bool).any():
                raise ValueError(f"Column {node!r} contains missing values; missing cells are "
                                 f"not supported for CLG networks yet.")
            codes[:, k] = self.discrete_network._encode_values(node, column)
        return discrete, codes, values

    def _config(self, node, codes):
        """Configuration index (C order over the discrete parents) of every row."""
        dpa = self.discrete_parents[node]
        if not dpa:
            return np.zeros(codes.shape[0], dtype=np.intp)
        cols = [self._discrete.index(p) for p in dpa]
        shape = tuple(len(self.states[p]) for p in dpa)
        return np.ravel_multi_index(tuple(codes[:, c] for c in cols), shape)

    def log_likelihood(self, X):
        r"""Log-density of each complete row: the discrete CPT log-probabilities plus, for
        every continuous node, :math:`\log \phi(x_i; b_{i0}(\delta) + b_i(\delta)^\top
        x_{\Gamma_i}, \sigma_i(\delta)^2)` in the configuration :math:`\delta` of its
        discrete parents.

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_nodes)
            Every node as a column: state labels for discrete nodes, numbers for continuous
            ones. Missing cells are not supported yet (an error names the column).

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            Natural log-density of every row (``-inf`` where it is 0).
        """
        discrete, codes, values = self._split(X)
        out = (self.discrete_network.log_likelihood(discrete) if self._discrete
               else np.zeros(len(values)))
        cindex = {v: k for k, v in enumerate(self._continuous)}
        for node in self._continuous:
            config = self._config(node, codes)
            cpa = [cindex[p] for p in self.continuous_parents[node]]
            shape = self.intercepts[node].shape
            q = int(np.prod(shape))
            coef = self.coefficients[node].reshape(q, -1)[config]
            mean = self.intercepts[node].reshape(q)[config] + np.einsum(
                "ij,ij->i", values[:, cpa], coef)
            out = out + _node_logpdf(values[:, cindex[node]], mean,
                                     self.sigmas[node].reshape(q)[config])
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
    def _continuous_ancestry(self, targets):
        """Continuous ancestors of ``targets`` through continuous edges (targets included,
        topological order) and the discrete parents of all of them."""
        index = {v: i for i, v in enumerate(self.nodes)}
        parents = [[index[p] for p in self.continuous_parents.get(v, ())] for v in self.nodes]
        keep = {self.nodes[i] for i in ancestor_ids(parents, [index[v] for v in targets])}
        order = [v for v in self.topological_order() if v in keep]
        discrete = [v for v in self._discrete if any(v in self.discrete_parents[c] for c in order)]
        return order, discrete

    def _component(self, order, assignment):
        """Mean and covariance of the continuous nodes ``order`` given the discrete states
        ``assignment`` (node -> state code) of their discrete parents."""
        pos = {v: k for k, v in enumerate(order)}
        intercept, coefs, sigma, parent_idx = [], [], [], []
        for v in order:
            config = tuple(assignment[p] for p in self.discrete_parents[v])
            intercept.append(float(self.intercepts[v][config]))
            coefs.append(self.coefficients[v][config])
            sigma.append(float(self.sigmas[v][config]))
            parent_idx.append(tuple(pos[p] for p in self.continuous_parents[v]))
        return _linear_joint(range(len(order)), parent_idx, intercept, coefs, sigma)

    def query(self, variables, evidence=None, do=None):
        r"""Exact distribution of ``variables`` given discrete ``evidence`` (and ``do``).

        Supported cases (anything else raises ``NotImplementedError`` rather than
        approximating):

        * **discrete variables, discrete evidence** -- the posterior table, by variable
          elimination on :attr:`discrete_network` (a ``pandas.Series``, as
          :meth:`DiscreteBayesianNetwork.query`);
        * **continuous variables, discrete evidence** -- a :class:`NormalMixture` with one
          component per configuration :math:`\delta` of the discrete parents :math:`\Delta`
          of the variables and of their continuous ancestors:

          .. math::

              p(x_Q \mid e) = \sum_\delta P(\Delta = \delta \mid e)\,
              N(x_Q; \mu_\delta, \Sigma_\delta),

          with :math:`P(\Delta \mid e)` from the discrete network and
          :math:`(\mu_\delta, \Sigma_\delta)` the joint of the linear Gaussian network the
          continuous nodes form given :math:`\delta`.

        Conditioning on continuous evidence and queries mixing discrete and continuous
        variables are not supported yet.

        Parameters
        ----------
        variables : node name or list of node names
            All discrete or all continuous nodes.
        evidence : dict, optional
            Discrete node name -> state label.
        do : dict, optional
            Node name -> state label or value; the query runs on :meth:`do`'s network.

        Returns
        -------
        pandas.Series or NormalMixture
            The posterior table of discrete variables, or the mixture of continuous ones.
        """
        if self._interventions(do, "state or value"):
            for name, value in dict(evidence or {}).items():
                if name in do and name in self.states and value != do[name]:
                    raise ValueError(f"Node {name!r} is set to {do[name]!r} by do but observed "
                                     f"as {value!r} in the evidence.")
            return self.do(do).query(variables, evidence)
        variables = _variables_list(variables, self._index)
        evidence = dict(evidence or {})
        for name in evidence:
            if not _is_node(name, self._index):
                raise ValueError(f"Unknown node {name!r}; nodes are {self.nodes!r}.")
            if name not in self.states:
                raise NotImplementedError(
                    f"Evidence on the continuous node {name!r}: CLG queries condition on "
                    f"discrete evidence only (continuous evidence is not supported yet).")
            if name in variables:
                raise ValueError(f"Node {name!r} is both a query variable and in the evidence.")
        kinds = {v in self.states for v in variables}
        if kinds == {True}:
            return self.discrete_network.query(variables, evidence)
        if kinds != {False}:
            raise NotImplementedError(
                f"The query {variables!r} mixes discrete and continuous variables; query them "
                f"separately (joint mixed queries are not supported yet).")
        order, discrete = self._continuous_ancestry(variables)
        free = [v for v in discrete if v not in evidence]
        codes = {v: self.discrete_network._state_code(v, evidence[v])
                 for v in discrete if v in evidence}
        if free:
            weights = self.discrete_network.query(free, evidence)
            configs = [(k,) if len(free) == 1 else k for k in weights.index]
            weights = weights.to_numpy()
        else:
            if evidence:
                frame = pd.DataFrame({v: [x] for v, x in evidence.items()})
                if not np.isfinite(self.discrete_network.log_likelihood(frame)[0]):
                    raise ValueError(f"The evidence {evidence!r} has probability 0.")
            configs, weights = [()], np.ones(1)
        pos = [order.index(v) for v in variables]
        means, covs = [], []
        for config in configs:
            assignment = dict(codes)
            for v, label in zip(free, config):
                assignment[v] = self.discrete_network._state_code(v, label)
            mu, cov = self._component(order, assignment)
            means.append(mu[pos])
            covs.append(cov[np.ix_(pos, pos)])
        means, covs = np.array(means), np.array(covs)
        mean = weights @ means
        second = np.einsum("c,cij->ij", weights, covs + means[:, :, None] * means[:, None, :])
        covariance = second - np.outer(mean, mean)
        if len(free) > 1:
            index = pd.MultiIndex.from_tuples(configs, names=free)
        elif free:
            index = pd.Index([c[0] for c in configs], name=free[0])
        else:
            index = pd.Index([()], dtype=object)
        return NormalMixture(
            weights=pd.Series(weights, index=index, name="weight"),
            means=pd.DataFrame(means, index=index, columns=variables),
            covariances=covs,
            mean=pd.Series(mean, index=pd.Index(variables), name="mean"),
            covariance=pd.DataFrame(0.5 * (covariance + covariance.T), index=variables,
                                    columns=variables))

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, random_state=None, do=None):
        """Draw rows: the discrete nodes by forward sampling of :attr:`discrete_network`,
        then the continuous nodes in topological order given them; optionally from the
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
        cindex = {v: k for k, v in enumerate(self._continuous)}
        values = np.zeros((n, len(self._continuous)))
        for node in self.topological_order():
            if node in self.states:
                continue
            config = self._config(node, codes)
            q = int(np.prod(self.intercepts[node].shape))
            cpa = [cindex[p] for p in self.continuous_parents[node]]
            coef = self.coefficients[node].reshape(q, -1)[config]
            mean = self.intercepts[node].reshape(q)[config] + np.einsum(
                "ij,ij->i", values[:, cpa], coef)
            values[:, cindex[node]] = mean + self.sigmas[node].reshape(q)[config] * \
                rng.standard_normal(n)
        columns = {v: (discrete[v] if v in self.states else values[:, cindex[v]])
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


def _family_parameters(stats, group, child, parents, variance, where):
    """Intercept, coefficients and sigma of ``child`` on ``parents`` (column positions of
    ``stats``) in configuration ``group``; error (naming ``where``) when not estimable."""
    n = float(stats.weight[group])
    p = len(parents)
    if n <= p + 1:
        raise ValueError(f"Cannot estimate {where}: total weight {n:g} of its rows is not more "
                         f"than the {p + 1} coefficients (intercept included), so the "
                         f"coefficients and the standard deviation are not identifiable. Add "
                         f"rows, merge states or drop parents.")
    scatter = stats.scatter[group]
    if p:
        sub = scatter[np.ix_(parents, parents)]
        diag = np.sqrt(np.diagonal(sub))
        if np.any(diag == 0):
            raise ValueError(f"Cannot estimate {where}: the parent "
                             f"{int(np.flatnonzero(diag == 0)[0])} is constant there.")
        scaled = sub / np.outer(diag, diag)
        eig = np.linalg.eigvalsh(scaled)
        if eig[0] <= SINGULAR_RCOND * eig[-1]:
            raise ValueError(f"Cannot estimate {where}: its parents are collinear there (the "
                             f"coefficients are not identifiable).")
    coef, rss = regression(scatter, child, parents)
    intercept = float(stats.mean[group, child] - stats.mean[group, parents] @ coef)
    dof = n - p - 1 if variance == "unbiased" else n
    sigma = float(np.sqrt(rss / dof))
    if not sigma > 0:
        raise ValueError(f"Cannot estimate {where}: the residual variance is 0 (a constant "
                         f"column or an exact linear function of the parents).")
    return intercept, coef, sigma


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
    stats = moments(values, weights)
    index = {v: i for i, v in enumerate(nodes)}
    intercepts, coefficients, sigmas = {}, {}, {}
    for node in nodes:
        intercepts[node], coefficients[node], sigmas[node] = _family_parameters(
            stats, 0, index[node], [index[p] for p in parents[node]], variance,
            f"node {node!r}")
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
                                                   variance, where)
        intercepts[node] = b0.reshape(shape)
        coefficients[node] = b.reshape(shape + (len(cpa),))
        sigmas[node] = s.reshape(shape)
    return CLGBayesianNetwork(nodes, states, parents, cpts, intercepts, coefficients, sigmas)


# skbn.network re-exports this module's classes and this module uses its helpers: both
# imports come last, after the definitions, so either module can be imported first
