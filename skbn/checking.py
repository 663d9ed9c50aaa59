"""Checking a graph against data, without a true graph: the claims it makes, tested.

A DAG claims conditional independencies (the Markov property) and, if the data are faithful
to it, dependencies. :func:`markov_check` tests one claim per pair of variables on data the
graph was not learned from (held-out rows), and :func:`markov_check_scorer` turns the result
into a scikit-learn scorer, so that ``GridSearchCV`` can choose ``ci_test__alpha`` or
``scorer__ess`` when no true graph exists.

**The claims.** Order the nodes topologically (ties broken by the node names, as the
learners break theirs: the result does not depend on the column order of ``X``). For each
pair ``u`` before ``v``:

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

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ._data import (
    check_total_weight,
    complete_cases,
    encode_columns,
    encode_fit,
    name_ranks,
    positive_weight_rows,
)
from ._determined_columns import warn_flat_tested_pairs
from ._discrete_network import _Network
from ._engines._ci_runner import run_tables
from ._engines._moment_tests import MomentTests
from .citests import (
    _ALIASES,
    AUTO_TESTS,
    BaseCITest,
    DSeparationOracle,
    resolve_ci_test,
)
from .graph import PDAG, topological_order
from .utils._plugins import check_plugin_fits_data, data_kind, resolve_plugin
from .utils._warnings import warn_user

__all__ = ["MarkovCheck", "ci_test", "markov_check", "markov_check_scorer"]


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
    if network is None and isinstance(graph, _Network):
        network = graph  # a DiscreteBayesianNetwork (or a continuous one, refused below)
    if network is not None and not hasattr(network, "states"):
        # (a Gaussian or conditional linear Gaussian network: its claims need the moment
        # tests, which markov_check does not run)
        raise ValueError(
            f"markov_check checks discrete networks only, got a {type(network).__name__}: "
            "test its claims one at a time with skbn.checking.ci_test(X, x, y, z), whose "
            "test='auto' picks Fisher's z or the conditional Gaussian test for continuous columns."
        )
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
        tables: on ALARM's true graph with 50,000 held-out rows it rejects 6.0% of the 620
        implied independencies at level 0.05 (KS p = 0.12), the chi-square test with its
        degrees-of-freedom adjustment 10.0%.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights: an integer weight is the same as copies of the row.

    Returns
    -------
    MarkovCheck
        The tests, one row per pair, and the summaries (``rejection_rate``,
        ``uniformity_pvalue``, ``agreement``, ``summary()``).

    Notes
    -----
    The claims follow a topological order with ties broken by the node names (the
    learners' tie rule, ``docs/reproducibility.md``); the result does not depend on the
    order of the edges, of the graph's nodes or of the columns of ``X``. ``p (p - 1) / 2`` tests are run,
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
    # ties of the topological order go to the node names (the learners' tie rule): the same
    # claims, tests and agreement for any column order of X or node order of the graph
    nodes = [nodes[k] for k in np.argsort(name_ranks(nodes), kind="stable")]
    frame = frame[nodes]
    order = topological_order(nodes, edges)  # refuses a cycle, naming it
    categories = "auto"
    if network is not None:  # the network's states: a state absent from X still counts
        categories = {n: list(network.states[n]) for n in nodes}
    frame, weights = positive_weight_rows(frame, sample_weight)  # (a weight 0 is no row)
    data, _ = encode_fit(frame, categories, weights=weights)
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


# -- one test on the user's data --------------------------------------------------------------

#: ``missing=`` values of :func:`ci_test`.
_MISSING_MODES = ("error", "complete_case")


def _labels(z):
    """``z`` as a list of column labels: None or () for none, one label, or a sequence."""
    if z is None:
        return []
    if isinstance(z, (str, bytes)) or np.ndim(z) == 0:
        return [z]
    return list(z)


def _check_distinct(x, y, z):
    """Refuse a test of a column against itself or given itself, naming the label."""
    if x == y:
        raise ValueError(f"x and y are the same column {x!r}: a test needs two columns.")
    for name, label in (("x", x), ("y", y)):
        if any(label == v for v in z):
            raise ValueError(f"{name}={label!r} is also in z={z!r}: a column cannot be tested "
                             f"given itself.")
    repeated = [v for k, v in enumerate(z) if any(v == w for w in z[:k])]
    if repeated:
        raise ValueError(f"z={z!r} names the column {repeated[0]!r} more than once.")


def _prepared_test(X, x, y, z, test, sample_weight, categories, column_types, missing):
    """``(test object, encoded data)`` of :func:`ci_test`: the columns ``x, y, *z`` of ``X``
    (in that order) read through the learners' input path, and the test resolved for them."""
    z = _labels(z)
    _check_distinct(x, y, z)
    # x, y and z in name order (the learners' tie rule): the same numbers, to the bit, for
    # any order of the two columns, of z and of the columns of X
    if name_ranks([x, y])[0]:
        x, y = y, x
    z = [z[k] for k in np.argsort(name_ranks(z))]
    if missing not in _MISSING_MODES:
        raise ValueError(f"missing must be one of {list(_MISSING_MODES)}, got {missing!r}.")
    auto = isinstance(test, str) and test == "auto"
    resolved = None if auto else resolve_plugin(test, _ALIASES, BaseCITest, "test")
    if isinstance(resolved, DSeparationOracle):
        raise TypeError(
            "ci_test tests the data X, which DSeparationOracle does not read (it answers from its "
            "graph): ask the oracle itself, oracle.separated(x, y, z), or "
            "skbn.graph.d_separated(graph, x, y, z).")
    data, states, weights = encode_columns(
        X, [x, y, *z], sample_weight, what="x, y and z name columns", categories=categories,
        column_types=column_types, allow_missing=True, allow_continuous=True)
    check_total_weight(data)
    if missing == "error" and data.codes.dtype.kind == "i":  # (codes -1: missing cells)
        counts = (data.codes < 0).sum(axis=0)
        if counts.any():
            named = ", ".join(f"{data.names[j]!r} ({counts[j]})" for j in np.flatnonzero(counts))
            raise ValueError(
                f"Missing cells in {named}, which a test refuses by default: pass "
                "missing='complete_case' to test on the rows that observe every tested column (as "
                "bnlearn's ci.test does with missing cells), or impute them first.")
    if missing == "complete_case":
        data = complete_cases(data)
    if auto:  # PC's choice for these columns
        resolved = resolve_ci_test(AUTO_TESTS[data_kind(data)])
    check_plugin_fits_data(resolved, data, "ci_test", label="test")
    continuous = data.continuous if data.has_continuous else np.zeros(data.n_variables, dtype=bool)
    if getattr(resolved, "statistics", None) == "moments" and continuous[0] != continuous[1]:
        # a continuous column with no spread in a state of the discrete one it is tested
        # against: the CLG test leaves that state out, so it cannot see that dependence
        pair = (0, 1) if continuous[0] else (1, 0)
        warn_flat_tested_pairs(
            data, states, "ci_test", [pair],
            "The conditional-Gaussian test leaves the rows of that state out of its regressions "
            "of {y} (it has no variance there), so it cannot see the difference that state makes: "
            "it can find {g} and {y} independent, up to a p-value of 1, however strong the "
            "dependence")
    return resolved, data


def ci_test(X, x, y, z=(), *, test="auto", sample_weight=None, categories="auto",
            column_types="auto", missing="error"):
    r"""Test whether columns ``x`` and ``y`` of ``X`` are independent given the columns ``z``.

    One conditional-independence test on a data set, as PC runs it on an edge (R bnlearn's
    ``ci.test(x, y, z, data, test)``, pcalg's ``gaussCItest``): the columns ``x``, ``y``
    and ``z`` (only these) are read as the learners' ``fit`` reads its columns (the
    column-type rule, ``categories``, ``column_types``, ``sample_weight``; see
    ``docs/core.md``), then the test runs on their count tables (discrete columns) or weighted
    moments (continuous ones). The null hypothesis is :math:`X \perp Y \mid Z`: a small
    p-value is evidence of dependence, and ``independent`` is the test's decision at its
    level ``alpha`` (0.05 for the aliases; pass e.g. ``FisherZ(alpha=0.01)`` for another).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The data: columns are named by label (DataFrame) or by position (array). Other
        columns are not read (their types and missing cells do not matter).
    x, y : hashable
        The two columns tested.
    z : label or sequence of labels, default=()
        The conditioning columns (none: an unconditional test).
    test : str or BaseCITest, default="auto"
        What ``PCStructure(ci_test=...)`` takes: ``"auto"`` is PC's choice for the columns
        ``x``, ``y``, ``z``: ``"chi_square"`` when all are discrete, ``"zf"`` (Fisher's z)
        when all are continuous and ``"mi-cg"`` (conditional Gaussian) otherwise; an alias
        (``"chi_square"``, ``"g_test"``, ``"bayes_factor"``, ``"zf"``, ``"fisher_z"``,
        ``"mi-g"``, ``"cor"``, ``"robust_fisher_z"``, ``"mi-cg"``) or a test object such
        as ``GTest(adjust_dof=False)``. A test that does not apply to the kinds of the
        columns is refused, naming them. :class:`~skbn.citests.DSeparationOracle` does not read data and is
        refused (call its :meth:`~skbn.citests.DSeparationOracle.separated`).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights, as ``fit(X, sample_weight=...)`` reads them: every count
        and moment is a sum of weights (an integer weight ``w`` is ``w`` copies of the row);
        rows of weight 0 are dropped before the data are read.
    categories : "auto", list or dict, default="auto"
        Declared states, as the learners' ``categories`` (a dict by column label, or a list
        with one entry per column of ``X``).
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        Which columns are continuous, as the learners' ``column_types`` (a dict by column
        label, a list with one entry per column of ``X``, or one type for all).
    missing : {"error", "complete_case"}, default="error"
        Missing cells (NaN/None) in ``x``, ``y`` or ``z``: refuse them, naming the column,
        or test on the rows observing all of them, with a warning giving the number of rows
        dropped (the test PC's ``missing="available_case"`` runs for these columns, and what
        bnlearn 4.9's ``ci.test`` does with missing cells).

    Returns
    -------
    CITestResult
        ``statistic``, ``pvalue``, ``dof`` and ``independent``, in the test's conventions
        (see its class: e.g. :class:`~skbn.citests.FisherZ` reports ``z`` and :math:`n - |Z| - 3`,
        :class:`PartialCorrelationT` reports ``t`` where bnlearn reports the partial
        correlation; the p-values are bnlearn's and pcalg's). With fewer rows than
        ``min_samples_per_dof`` per degree of freedom the chi-square and G tests report
        dependence (``pvalue=0``, PC's power rule), with a ``UserWarning`` saying so.

    Raises
    ------
    ValueError
        A label that is not a column of ``X``, ``x == y``, ``x`` or ``y`` in ``z``, a column
        repeated in ``z``, an unknown ``test`` alias, a test that does not fit the columns'
        kinds, a missing cell with ``missing="error"``, or bad ``sample_weight``,
        ``categories`` or ``column_types`` (each message names the column or parameter).
    TypeError
        A ``test`` that is neither an alias nor a :class:`~skbn.citests.BaseCITest`, or a
        :class:`~skbn.citests.DSeparationOracle`.

    See Also
    --------
    skbn.PCStructure : runs such tests to learn a graph (``ci_test=``).
    skbn.graph.d_separated : the independences a graph implies.

    Examples
    --------
    >>> from skbn.checking import ci_test
    >>> from skbn.datasets import sample_asia
    >>> X = sample_asia(5000, random_state=0)
    >>> ci_test(X, "smoke", "dysp").independent            # dependent through bronc
    False
    >>> ci_test(X, "smoke", "dysp", ["bronc", "either"]).independent
    True
    >>> result = ci_test(X, "smoke", "dysp", ["bronc", "either"], test="g_test")
    >>> result.dof
    4.0
    """
    return _run_prepared(*_prepared_test(X, x, y, z, test, sample_weight, categories, column_types,
                                         missing))


def _run_prepared(test, data):
    """The test of :func:`_prepared_test`'s columns; warns when the power rule of the
    chi-square and G tests decided instead of the data (a p-value of 0 that is no evidence)."""
    z = tuple(range(2, data.n_variables))
    continuous = data.continuous if data.has_continuous else np.zeros(data.n_variables, dtype=bool)
    if not continuous[0] and not continuous[1] and continuous[2:].any():
        # (PC's rule there is "dependent", by the CLG model, not a test of the data)
        names = [data.names[v] for v in z if continuous[v]]
        raise ValueError(
            f"{type(test).__name__} has no test of the discrete columns {data.names[0]!r} and "
            f"{data.names[1]!r} given continuous columns {names!r} (a discrete variable has no "
            "continuous parent in a conditional Gaussian network); test them given the "
            "discrete columns of z, or discretize the continuous ones.")
    if getattr(test, "statistics", None) in ("moments", "robust") and data.has_continuous:
        # (the moments PC's runner reads: grouped by the discrete columns for the CLG test)
        result = MomentTests(data, test, None, run_tables).result(0, 1, z)
    else:  # (count tables)
        result = test.test_variables(data, 0, 1, z)
    rule = getattr(test, "min_samples_per_dof", None)
    if result.power_rule and rule is not None:  # (the chi-square and G tests' rule)
        warn_user(
            f"{type(test).__name__}: {data.total_weight:g} rows for {result.dof:g} degrees of freedom, "
            f"fewer than min_samples_per_dof={rule:g} per degree of freedom: the test is not trusted "
            "and reports dependence (pvalue=0), as PC does. Pass e.g. "
            f"{type(test).__name__}(min_samples_per_dof=0) for the asymptotic p-value.", UserWarning)
    return result
