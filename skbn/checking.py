"""Checking a graph against data, without a true graph: the claims it makes, tested.

A DAG claims conditional independencies (the Markov property) and, if the data are faithful
to it, dependencies. :func:`markov_check` tests one claim per pair of variables on data the
graph was not learned from (held-out rows), and :func:`markov_check_scorer` turns the result
into a scikit-learn scorer, so that ``GridSearchCV`` can choose ``ci_test__alpha`` or
``scorer__ess`` when no true graph exists.

**The claims.** Order the nodes topologically (ties broken by the order of the columns of
``X``). For each pair ``u`` before ``v``:

* ``u`` and ``v`` not adjacent: the graph claims ``v`` independent of ``u`` given the parents
  of ``v`` (the pairwise form of the *ordered local Markov property*; every independence the
  DAG implies follows from the set form of these statements, Lauritzen 1996, section 3.2.2);
* ``u -> v``: the graph claims ``v`` dependent on ``u`` given the other parents of ``v``
  (faithfulness: adjacent variables are dependent given any set, Spirtes, Glymour &
  Scheines 2000).

Each pair gives exactly one claim, whatever the graph, so the fraction of claims the data
agree with (``agreement``) compares graphs on the same footing: an empty graph claims every
pair independent and is contradicted by every real dependence; a complete graph claims every
pair dependent and is contradicted by every real independence.

**Calibration.** Under the true graph the p-values of the implied independencies are uniform
on [0, 1] (exactly for exact tests, asymptotically for the chi-square and G tests), so about
``alpha`` of them are rejected. :class:`MarkovCheck` reports the rejection rate against
``alpha``, a Kolmogorov-Smirnov test of uniformity of those p-values and Holm's adjustment
for the family of independence claims. The tests share data, so the KS p-value is a
diagnostic, not an exact test.

References
----------
Lauritzen, S. L. (1996). *Graphical Models*. Oxford University Press.
Textor, J., Idelberger, A. & Liskiewicz, M. (2015). Learning from pairwise marginal
independencies. *UAI*. (testing a DAG's implied independencies on data).
Eulig, E., Mastakouri, A. A., Blöbaum, P., Hardt, M. & Janzing, D. (2025). Toward
falsifying causal graphs using a permutation-based test. *AAAI*.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats

from ._data import encode_fit, positive_weight_rows
from .citests import resolve_ci_test
from .graph import PDAG, topological_order

__all__ = ["MarkovCheck", "markov_check", "markov_check_scorer"]


@dataclass(frozen=True)
class MarkovCheck:
    """The claims of a DAG tested on data (:func:`markov_check`).

    Parameters
    ----------
    tests : pandas.DataFrame
        One row per pair of nodes: ``x`` (the earlier node), ``y`` (the later one),
        ``given`` (tuple of conditioning nodes), ``claim`` (``"independent"`` or
        ``"dependent"``), ``statistic``, ``dof``, ``pvalue``, ``independent`` (the test's
        decision at its own level), ``agrees`` (decision equals claim) and ``pvalue_holm``
        (Holm-adjusted over the independence claims; NaN for dependence claims).
    alpha : float or None
        The CI test's level (``None`` for a test without one, such as the Bayes factor).
    """

    tests: pd.DataFrame
    alpha: float | None

    @property
    def n_independencies(self) -> int:
        """Number of independence claims (non-adjacent pairs)."""
        return int((self.tests["claim"] == "independent").sum())

    @property
    def rejected(self) -> pd.DataFrame:
        """The independence claims the data reject (rows of ``tests``)."""
        t = self.tests
        return t[(t["claim"] == "independent") & ~t["independent"]]

    @property
    def rejection_rate(self) -> float:
        """Fraction of independence claims rejected (about ``alpha`` under the true graph)."""
        n = self.n_independencies
        return len(self.rejected) / n if n else 0.0

    @property
    def n_rejected_holm(self) -> int:
        """Independence claims rejected at ``alpha`` after Holm's adjustment."""
        if self.alpha is None:
            return 0
        return int((self.tests["pvalue_holm"] < self.alpha).sum())

    @property
    def uniformity_pvalue(self) -> float:
        """Kolmogorov-Smirnov p-value of the independence claims' p-values against U(0, 1).

        Small: the p-values are not uniform, so some implied independencies do not hold (or
        the test is badly calibrated at this sample size). NaN without independence claims.
        """
        p = self.tests.loc[self.tests["claim"] == "independent", "pvalue"].to_numpy()
        if len(p) == 0:
            return float("nan")
        return float(stats.kstest(p, "uniform").pvalue)

    @property
    def agreement(self) -> float:
        """Fraction of all claims (independence and dependence) the data agree with."""
        return float(self.tests["agrees"].mean()) if len(self.tests) else 1.0

    def summary(self) -> str:
        """A few lines for a report."""
        n_dep = len(self.tests) - self.n_independencies
        alpha = "" if self.alpha is None else f" (alpha = {self.alpha:g})"
        lines = [
            f"{len(self.tests)} claims: {self.n_independencies} independencies, {n_dep} dependencies",
            f"independencies rejected: {len(self.rejected)} = {self.rejection_rate:.3f}{alpha}; "
            f"after Holm: {self.n_rejected_holm}",
            f"uniformity of their p-values (KS): p = {self.uniformity_pvalue:.3g}",
            f"claims the data agree with: {self.agreement:.3f}",
        ]
        return "\n".join(lines)


def _graph_edges(graph):
    """``(nodes or None, edges, network or None)`` of a fitted learner, network or edge list."""
    network = getattr(graph, "network_", None)
    if network is None and hasattr(graph, "cpts") and hasattr(graph, "nodes"):
        network = graph  # a DiscreteBayesianNetwork
    if network is not None:
        return list(network.nodes), list(network.edges), network
    if hasattr(graph, "edges_"):  # a learner fitted with fit_parameters=False
        return None, [tuple(e) for e in graph.edges_], None
    if isinstance(graph, PDAG):
        if graph.undirected:
            raise ValueError(
                "markov_check needs a DAG: the PDAG has undirected edges "
                f"{list(graph.undirected)[:3]}; extend it with skbn.graph.pdag_to_dag first."
            )
        return list(graph.nodes), list(graph.directed), None
    if isinstance(graph, (str, bytes)):
        raise TypeError("graph must be a fitted learner, a network, a DAG's edges or a PDAG.")
    try:
        edges = [tuple(e) for e in graph]
    except TypeError:
        raise TypeError(
            "graph must be a fitted learner, a network, a DAG's edges or a PDAG, "
            f"got {type(graph).__name__}."
        ) from None
    if any(len(e) != 2 for e in edges):
        raise ValueError("graph: every edge must be a (parent, child) pair.")
    return None, edges, None


def _frame(X, y, nodes):
    """``X`` as a DataFrame over ``nodes``; ``y`` fills the one node ``X`` lacks (the target)."""
    if not isinstance(X, pd.DataFrame):
        X = pd.DataFrame(np.asarray(X, dtype=object))
    missing = [n for n in nodes if n not in X.columns]
    if y is not None:
        if len(missing) != 1:
            raise ValueError(
                "y is given but X lacks "
                + (f"{len(missing)} of the graph's nodes {missing[:5]}" if missing else "none of them")
                + "; y must be the one node missing from X (the target)."
            )
        X = X.assign(**{missing[0]: np.asarray(y).reshape(-1)})
        missing = []
    if missing:
        raise ValueError(
            f"X has no column for the graph's node(s) {missing[:5]}; "
            "markov_check tests the graph's claims on columns of X."
        )
    return X[list(nodes)]


def _holm(pvalues):
    """Holm's step-down adjusted p-values (Holm 1979), in the input order."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def markov_check(graph, X, y=None, *, ci_test="g_test", sample_weight=None):
    """Test a DAG's claims (one per pair of variables) on data.

    Parameters
    ----------
    graph : fitted learner, DiscreteBayesianNetwork, PDAG or iterable of (parent, child)
        The DAG to check (a PDAG must have no undirected edge). A learner is read
        through ``network_`` (or ``edges_`` when fitted with ``fit_parameters=False``);
        for a bare edge list the nodes are the columns of ``X``.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Discrete data with a column per node of the graph (other columns are ignored).
        Use rows the graph was **not** learned from: on its own training rows a learner's
        claims agree with the data by construction. The states are read from these rows.
    y : array-like of shape (n_samples,), default=None
        The target of a learner fitted with ``fit(X, y)``: the one node ``X`` lacks.
    ci_test : str or BaseCITest, default="g_test"
        The test of every claim (an alias or a :mod:`skbn.citests` object, e.g.
        ``GTest(alpha=0.01)``); its level decides rejections. The G test is the default
        because its p-values are the best calibrated of the built-in tests on sparse
        tables: on ALARM's true graph with 50,000 held-out rows it rejects 5.6% of the 620
        implied independencies at level 0.05 (KS p = 0.24), the chi-square test with its
        degrees-of-freedom adjustment 9.8%.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights: an integer weight is the same as copies of the row.

    Returns
    -------
    MarkovCheck
        The tests, one row per pair, and the summaries (``rejection_rate``,
        ``uniformity_pvalue``, ``agreement``, ``summary()``).

    Notes
    -----
    The claims follow a topological order with ties broken by the column order of ``X``;
    the result does not depend on the order of the edges. ``p (p - 1) / 2`` tests are run,
    each on the counts of three or more columns.

    Examples
    --------
    >>> from skbn import HillClimbStructure
    >>> from skbn.checking import markov_check
    >>> from skbn.datasets import load_network
    >>> asia = load_network("asia")
    >>> train, held_out = asia.sample(5000, random_state=0), asia.sample(5000, random_state=1)
    >>> learner = HillClimbStructure().fit(train)
    >>> check = markov_check(learner, held_out)
    >>> check.agreement > 0.8
    True
    """
    nodes, edges, network = _graph_edges(graph)
    if nodes is None:
        columns = list(X.columns) if isinstance(X, pd.DataFrame) else list(range(np.shape(X)[1]))
        for u, v in edges:
            for w in (u, v):
                if w not in columns:
                    raise ValueError(f"X has no column for the graph's node {w!r}.")
        nodes = columns
    frame = _frame(X, y, nodes)
    if isinstance(X, pd.DataFrame):  # ties follow X's column order
        rank = {c: i for i, c in enumerate(X.columns)}
        nodes = sorted(nodes, key=lambda n: rank.get(n, len(rank)))
        frame = frame[nodes]
    order = topological_order(nodes, edges)  # refuses a cycle, naming it
    categories = "auto"
    if network is not None:  # the network's states: a state absent from X still counts
        categories = {n: list(network.states[n]) for n in nodes}
    frame, weights = positive_weight_rows(frame, sample_weight)  # (a weight 0 is no row)
    data, _ = encode_fit(frame, categories)
    data = replace(data, weights=weights)
    test = resolve_ci_test(ci_test)
    index = {n: i for i, n in enumerate(nodes)}
    parents = {n: [] for n in nodes}
    for u, v in edges:
        parents[v].append(u)
    position = {n: i for i, n in enumerate(order)}
    rows = []
    for j, v in enumerate(order):
        pa_v = sorted(parents[v], key=position.__getitem__)
        for u in order[:j]:
            adjacent = u in pa_v
            given = tuple(w for w in pa_v if w != u)
            result = test.test_variables(data, index[u], index[v], tuple(index[w] for w in given))
            claim = "dependent" if adjacent else "independent"
            rows.append((u, v, given, claim, result.statistic, result.dof, result.pvalue,
                         result.independent, result.independent != adjacent))
    tests = pd.DataFrame(rows, columns=["x", "y", "given", "claim", "statistic", "dof", "pvalue",
                                        "independent", "agrees"])
    independence = (tests["claim"] == "independent").to_numpy()
    holm = np.full(len(tests), np.nan)
    holm[independence] = _holm(tests["pvalue"].to_numpy()[independence])
    tests["pvalue_holm"] = holm
    alpha = getattr(test, "alpha", None)
    return MarkovCheck(tests=tests, alpha=None if alpha is None else float(alpha))


def markov_check_scorer(estimator, X, y=None):
    """Scorer: the fraction of a fitted learner's claims that ``X`` agrees with.

    Use it as ``GridSearchCV(..., scoring=markov_check_scorer)`` or in
    ``cross_val_score``: each fold's held-out rows test the graph learned on the other
    folds (:func:`markov_check` with its default G test at level 0.05). Higher is
    better; 1 means the held-out data contradict none of the graph's claims. The test level
    is fixed, so the scores of different candidates are comparable.

    Parameters
    ----------
    estimator : fitted structure learner
    X : DataFrame or array-like
        Held-out rows.
    y : array-like, default=None
        The target, for a learner fitted with ``fit(X, y)``.

    Returns
    -------
    float
        :attr:`MarkovCheck.agreement`.
    """
    return markov_check(estimator, X, y).agreement
