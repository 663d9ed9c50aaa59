"""PC-simple: the features that stay dependent on a target given small subsets of the others.

Bühlmann, Kalisch & Maathuis (2010) select the features :math:`X_j` whose (partial)
association with a target :math:`Y` survives conditioning on every subset :math:`S` of at
most :math:`m` other still-active features, for :math:`m = 0, 1, \\dots`. R pcalg's
``pcSelect`` is the reference implementation; :class:`PCSelect` follows its order of tests
exactly, so both select the same set.
"""

from itertools import combinations
from math import comb
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array

from skbn._data import (
    CONTINUOUS,
    DISCRETE,
    encode_fit,
    encode_target,
    name_order,
    numeric_codes,
    numeric_column,
    permute_columns,
    positive_weight_rows,
    single_valued,
)
from skbn._determined_columns import warn_flat_tested_pairs
from skbn._engines._ci_runner import CITestRunner, report_power_rule
from skbn.citests import BaseCITest, BaseGaussianCITest, resolve_ci_test
from skbn.estimators._base import _append_column, _warn_whole_number_states, target_name_of
from skbn.utils._sklearn_compat import Interval, StrOptions, check_is_fitted, validate_data
from skbn.utils._threads import one_blas_thread
from skbn.utils._warnings import warn_user

__all__ = ["PCSelect"]

#: ``ci_test="auto"`` per data kind (the features and the target).
_AUTO_TESTS = {"discrete": "chi_square", "continuous": "zf", "mixed": "mi-cg"}

#: Largest number of tests of one order run in one batch before the bookkeeping (Gaussian
#: tests; :meth:`PCSelect._search`).
BATCH_TESTS = 20_000


class PCSelect(SelectorMixin, BaseEstimator):
    r"""PC-simple feature selection (Bühlmann, Kalisch & Maathuis 2010; pcalg ``pcSelect``).

    Starting from every feature active, order :math:`m = 0, 1, \dots` tests each active
    feature :math:`X_j` against the target :math:`Y` given every subset :math:`S` of size
    :math:`m` of the *other currently active* features (subsets in lexicographic order),
    and drops :math:`X_j` at the first test that accepts
    :math:`X_j \perp\!\!\!\perp Y \mid S`. As in pcalg, a feature dropped during an order
    is no longer in the conditioning sets of the features tested after it in the same
    order, so the selection depends on the order of the features: they are taken in the
    order of their names (the tie rule of every skbn learner, ``docs/reproducibility.md``),
    so that it does not depend on the column order of ``X``. pcalg's ``pcSelect`` takes
    its columns as given: both select the same set on the same columns in name order.
    The search ends when no active feature has at least :math:`m` other active features
    (or :math:`m` exceeds ``max_cond_vars``). The kept features are the "partially
    faithful" relevant set of the paper.

    Parameters
    ----------
    alpha : float in (0, 1), default=0.05
        Level of every test: a feature is dropped when a p-value exceeds ``alpha``.
    ci_test : "auto", str or BaseCITest, default="auto"
        ``"auto"``: Fisher's z on partial correlations (``"zf"``, pcalg ``gaussCItest``)
        when the features and the target are continuous, the chi-square test when every
        column is discrete, and otherwise (mixed features, continuous features with a
        discrete target, or discrete features with a continuous target) the
        conditional-Gaussian likelihood-ratio test ``"mi-cg"``
        (:class:`~skbn.citests.CLGMutualInformation`, bnlearn's ``"mi-cg"``). Any CI-test
        alias or object of :mod:`skbn.citests` fitting the data (a test that does not is
        refused by name). The target is continuous when it is numeric and some feature is
        continuous (as pcalg treats it), discrete when it is not numeric (strings,
        categories, booleans); when every feature is discrete, a numeric target is discrete
        if the column-type rule takes its values for codes (whole numbers, not too many of
        them: class labels), else continuous.
    max_cond_vars : int or None, default=None
        Largest conditioning-set size :math:`m` (None: no limit).
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        Per-feature ``"discrete"`` / ``"continuous"`` / ``"auto"`` declaration, or one of
        them for every feature (the column-type rule of skbn's data encoding: non-integer
        numbers are continuous). A dict is keyed by the columns of ``X`` as every learner
        keys it: a DataFrame's column names, an array's column positions ``0, 1, ...``
        (integers); a key that is not a column is refused, naming it. The target is read
        by the rule below, not by ``column_types``.

    Attributes
    ----------
    support_ : ndarray of shape (n_features,), bool
        The selected features.
    pvalues_ : ndarray of shape (n_features,)
        The largest p-value of each feature over the tests it went through (pcalg's
        ``zMin`` is the corresponding smallest :math:`|z|`: ``p = 2(1 - \Phi(zMin))``);
        1 for a feature constant in the rows fitted (Notes).
    n_tests_ : int
        Number of CI tests run (none for a constant feature).
    n_power_rule_tests_ : int
        How many of those ``n_tests_`` tests the test's heuristic power rule decided instead
        of the data, as in :class:`~skbn.PCStructure`: fewer than ``min_samples_per_dof``
        samples per degree of freedom (:class:`~skbn.citests.ChiSquare`, the discrete
        ``"auto"`` test, and :class:`~skbn.citests.GTest`), so dependence was assumed
        (``pvalue = 0``) and the feature kept. A :class:`~skbn.exceptions.PowerRuleWarning`
        gives the count when it is not 0; 0 for tests without such a rule.
    max_order_ : int
        The largest conditioning-set size tested (-1 when every feature is constant:
        nothing was tested).
    ci_test_ : BaseCITest
        The resolved test.
    column_types_ : dict {column: "discrete" or "continuous"}
        Types of the features, keyed as ``column_types`` (an array's positions).
    target_type_ : {"discrete", "continuous"}
        Type of the target.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    **Too few rows.** With Fisher's z a test given :math:`S` needs
    :math:`n - |S| - 3 > 0` residual degrees of freedom (:math:`n` the total weight).
    pcalg's ``zStat`` returns :math:`z = 0` for such a test, i.e. independence, so the
    feature is dropped; :class:`PCSelect` does the same (p-value 1) for every Gaussian
    test, so that it selects pcSelect's set. (The structure learners instead keep such an
    edge; see :class:`skbn.citests.FisherZ`.) Discrete tests keep their own rule.

    **Constant features.** A feature with a single value in the rows fitted (a constant
    measurement, or a discrete feature with one observed state: a rare dummy absent from a
    cross-validation training fold) carries no information about :math:`Y` there. pcalg's
    ``pcSelect`` finds its correlation undefined and its :math:`z` 0, so it drops it at
    order 0 with p-value 1 (scikit-learn's ``f_regression`` also gives it p-value 1).
    :class:`PCSelect` sets it aside before the search, with a warning naming it: it is not
    selected (``transform`` drops it from any data), its p-value is 1, no test is run for
    it and it is in no conditioning set, so the other features' results are those without
    the column. The test (``ci_test="auto"``) is still chosen from the types of all the
    features. A target with a single value is refused, naming ``y``.

    **Mixed features** (``"mi-cg"``). A continuous feature against a continuous target is
    tested by the regressions of the target within the configurations of the discrete
    members of ``S``; a discrete feature against a continuous target (or a continuous
    feature against a discrete target) by the regression of the continuous one in the
    configurations of the discrete one and the discrete members of ``S``. A discrete
    feature and a discrete target given a set with continuous members are not tested
    (no CLG likelihood-ratio test exists) and count as dependent: such a feature is
    dropped only by a set of discrete features.

    **Speed.** Every test's result depends only on ``(x, y, S)``, so with a Gaussian test
    all tests of one order run in one vectorised call (up to 20,000 tests) before
    the bookkeeping that skips the sets holding a feature dropped earlier in the order;
    the set, p-values and ``n_tests_`` are those of the test-by-test loop.

    References
    ----------
    P. Bühlmann, M. Kalisch and M. H. Maathuis (2010), "Variable selection in
    high-dimensional linear models: partially faithful distributions and the PC-simple
    algorithm", Biometrika 97(2), 261-278.

    Examples
    --------
    >>> import numpy as np
    >>> from skbn import PCSelect
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 5))
    >>> y = 2 * X[:, 0] - X[:, 3] + rng.normal(size=500)
    >>> PCSelect().fit(X, y).get_support().nonzero()[0].tolist()
    [0, 3]
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "ci_test": [StrOptions({"auto"}), str, BaseCITest],
        "max_cond_vars": [Interval(Integral, 0, None, closed="left"), None],
        "column_types": [StrOptions({"auto", "discrete", "continuous"}), list, dict],
    }

    def __init__(self, *, alpha=0.05, ci_test="auto", max_cond_vars=None, column_types="auto"):
        self.alpha = alpha
        self.ci_test = ci_test
        self.max_cond_vars = max_cond_vars
        self.column_types = column_types

    @one_blas_thread
    def fit(self, X, y, sample_weight=None):
        """Select the features.

        ``X`` is encoded as a learner's ``fit(X)`` encodes it, ``y`` as a learner's
        ``fit(X, y)`` encodes its target: an error about the target (a missing or infinite
        value, a constant measurement) names ``y``, never a column of ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The features.
        y : array-like of shape (n_samples,)
            The target, a label in every row (NaN/None refused, as by scikit-learn's
            estimators; rows of weight 0 excepted).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (integer weights equal replicated rows; rows of weight 0 are
            dropped before the data are read).

        Returns
        -------
        self : PCSelect
            The fitted selector.
        """
        self._validate_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        validate_data(self, X, skip_check_array=True)
        if not isinstance(X, pd.DataFrame):  # shape, emptiness and sparse input as scikit-learn checks them
            X = check_array(X, dtype=None, ensure_all_finite=False)
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        if frame.ndim != 2 or frame.shape[1] < 1:
            raise ValueError(f"PCSelect needs at least one feature; got X of shape {frame.shape}.")
        given = y.iloc[:, 0] if isinstance(y, pd.DataFrame) and y.shape[1] == 1 else y
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or y.shape[0] != frame.shape[0]:
            raise ValueError(f"y must be one column with {frame.shape[0]} entries (the rows of X); "
                             f"got shape {y.shape}.")
        # the target as the encoder reads a column (np.asarray drops a categorical's dtype)
        y = pd.Series(given.array if isinstance(given, (pd.Series, pd.Index))
                      else given if isinstance(given, pd.Categorical) else y)
        frame, weights, y = positive_weight_rows(frame, sample_weight, y)
        unlabelled = int(np.count_nonzero(pd.isna(y)))
        if unlabelled:  # (encode_target's message offers missing= modes PCSelect has not)
            raise ValueError(
                f"Input y contains NaN ({unlabelled} of {len(y)} rows). PCSelect is a scikit-learn "
                "feature selector: as scikit-learn's estimators, it needs a label in every row (it "
                "has no missing= mode). Drop those rows first, e.g. keep = pd.notna(y); "
                "fit(X[keep], y[keep]). To use them, learn a network by EM instead, e.g. "
                "HillClimbStructure(missing='em').fit(X, y): a missing label is a missing cell there."
            )
        # the features as a learner encodes X (column_types keyed by X's own labels: the
        # positions 0, 1, ... of an array), the target as a learner encodes fit(X, y)'s y
        data, states = encode_fit(frame, column_types=self.column_types, allow_continuous=True,
                                  allow_constant=True, weights=weights)
        _warn_whole_number_states(self, data)  # (y is encoded apart: never named)
        names = list(data.names)
        continuous = np.asarray(data.continuous, dtype=bool)
        numeric = numeric_column(y)
        # a numeric target is continuous, but with discrete features only when the column-type
        # rule does not take it for codes (class labels 0, 1, 2): a measurement with decimals
        # read as thousands of categories made every feature "dependent" (a target with an
        # infinite value is left to encode_target, which refuses it)
        values = y.to_numpy(dtype=np.float64, na_value=np.nan) if numeric and not continuous.any() else None
        codes = values is not None and np.isfinite(values).all() and numeric_codes(values, weights)
        y_type = CONTINUOUS if numeric and not codes else DISCRETE
        target = target_name_of(given, names, frame)
        y_codes, y_states, y_values = encode_target(y, target, column_type=y_type, allow_continuous=True,
                                                    weights=weights)
        data = _append_column(data, y_codes, 0 if y_states is None else len(y_states), target,
                              values=y_values)
        flat = single_valued(data)  # (a constant continuous y was refused by encode_target)
        if flat[-1]:
            raise ValueError(
                f"Input y has a single class ({y_states[data.codes[0, -1]]!r}) in the {len(y)} rows "
                "fitted: every feature is independent of a constant target, so there is nothing "
                "to select. With cross-validation, StratifiedKFold keeps every class in every "
                "training fold.")
        flat = flat[:-1]
        if flat.any():
            _warn_constant_features(data, states, flat)
        if not continuous.any():
            kind = "discrete" if y_type == DISCRETE else "mixed"
        else:
            kind = "continuous" if continuous.all() and numeric else "mixed"
        ci_test = resolve_ci_test(_AUTO_TESTS[kind] if self.ci_test == "auto" else self.ci_test)
        if kind not in getattr(ci_test, "data_kinds", ("discrete",)):
            raise ValueError(f"ci_test={type(ci_test).__name__} does not apply to {kind} data "
                             f"(features {'and target ' if kind == 'mixed' else ''}of that kind); "
                             f"use ci_test='auto' ({_AUTO_TESTS[kind]!r}).")
        if kind == "mixed" and getattr(ci_test, "statistics", None) == "moments":
            # a continuous target with no spread in a state of a discrete feature (or a
            # continuous feature in a state of a discrete target): the CLG test leaves that
            # state out, so it cannot see that dependence, and the feature can be dropped
            target = len(names)
            pairs = ([(target, j) for j in range(target) if not continuous[j] and not flat[j]]
                     if y_type == CONTINUOUS else
                     [(j, target) for j in range(target) if continuous[j] and not flat[j]])
            warn_flat_tested_pairs(
                data, [*states, y_states], "PCSelect", pairs,
                "The conditional-Gaussian test leaves the rows of that state out of its regressions "
                "of {y} (it has no variance there), so it cannot see the difference that state "
                "makes: PC-simple can find {g} and {y} independent and drop the feature, however "
                "strong the dependence")
        self.ci_test_ = ci_test
        self.column_types_ = {n: ("continuous" if c else "discrete") for n, c in zip(names, continuous)}
        self.target_type_ = y_type
        p = len(names)
        # the features in name order (the tie rule of every skbn learner): the order of the
        # tests, and so the selection, does not depend on the column order of X
        order = name_order(list(frame.columns))  # (the labels: integers in numeric order)
        order = np.arange(p) if order is None else order
        # a feature with a single value is set aside: it is not tested, not selected, and
        # never in a conditioning set (pcalg's z = 0 at order 0 drops it there, p-value 1)
        order = order[~flat[order]]
        self.support_ = np.zeros(p, dtype=bool)
        self.pvalues_ = np.ones(p)
        self.n_tests_, self.max_order_ = 0, -1
        if not len(order):
            report_power_rule(self, ci_test, 0, 0)
            return self
        data = permute_columns(data, np.append(order, p))
        runner = CITestRunner(data, ci_test, level=self.alpha)
        try:
            active, pvalues, n_tests, last = self._search(runner, len(order),
                                                          isinstance(ci_test, BaseGaussianCITest),
                                                          data.total_weight)
        finally:
            runner.close()
        self.support_[order] = active
        self.pvalues_[order] = pvalues
        self.n_tests_ = n_tests
        self.max_order_ = last - 1
        report_power_rule(self, ci_test, runner.n_power_rule, n_tests)
        return self

    def _search(self, runner, p, gaussian, n):
        """PC-simple's orders (class docstring) on the features ``0..p-1`` against the
        target ``p``: ``(active, pvalues, n_tests, last order + 1)``.

        Every test's result depends only on ``(x, y, S)``, so an order's tests can be run
        before its bookkeeping: a Gaussian test runs every test of the order (each active
        feature given every subset of the other features active when the order starts) in
        one runner call (one vectorised solve), up to ``BATCH_TESTS``, then walks each
        feature's subsets in order, skipping those holding a feature dropped earlier in the
        order; other tests (or larger orders) run feature by feature, each one runner unit
        of its subsets stopping at the first independence.
        """
        active = np.ones(p, dtype=bool)
        pvalues = np.zeros(p)
        n_tests, order = 0, 0
        limit = np.inf if self.max_cond_vars is None else self.max_cond_vars
        while active.any() and order <= limit:
            features = np.flatnonzero(active).tolist()
            more = len(features) - 1 > order
            if len(features) - 1 < order:
                break
            if gaussian and n - order - 3 <= 0:
                # pcalg's zStat: z = 0, independence, for every test of the order (all
                # sets have its size): each feature tested while it has enough active
                # others is dropped at its first test
                for x in features:
                    if np.count_nonzero(active) - 1 >= order:
                        n_tests += 1
                        pvalues[x] = 1.0
                        active[x] = False
            elif gaussian and len(features) * comb(len(features) - 1, order) <= BATCH_TESTS:
                units = [(x, p, list(combinations([j for j in features if j != x], order))) for x in features]
                results = runner.run(units, stop_at_first=False, timed=False)
                for (x, _, subsets), (values, _, _) in zip(units, results):
                    for subset, pvalue in zip(subsets, values):
                        if not active[list(subset)].all():
                            continue  # a member was dropped earlier in this order
                        n_tests += 1
                        pvalues[x] = max(pvalues[x], pvalue)
                        if pvalue > self.alpha:
                            active[x] = False
                            break
            else:
                for x in features:
                    others = [j for j in np.flatnonzero(active) if j != x]
                    if len(others) < order:
                        continue
                    (values, _, _), = runner.run([(x, p, list(combinations(others, order)))],
                                              stop_at_first=True, timed=False)
                    n_tests += len(values)
                    pvalues[x] = max(pvalues[x], max(values))
                    active[x] = values[-1] <= self.alpha
            order += 1
            if not more:
                break
        return active, pvalues, n_tests, order

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        return tags


def _warn_constant_features(data, states, flat):
    """Warn, naming them and their value, that the features ``flat`` (a mask over the
    columns of ``data`` before the target) take a single value in the rows fitted."""
    shown = []
    for j in np.flatnonzero(flat):
        if data.continuous[j]:
            observed = data.values[:, j][~np.isnan(data.values[:, j])]
            value = float(observed[0])
        else:
            value = states[j][data.codes[np.flatnonzero(data.codes[:, j] >= 0)[0], j]]
        shown.append(f"{data.names[j]!r} is always {value!r}")
    every = bool(flat.all())
    subject = ("every feature is" if every else "features " + ", ".join(
        repr(data.names[j]) for j in np.flatnonzero(flat)) + " are" if len(shown) > 1
        else f"feature {data.names[np.flatnonzero(flat)[0]]!r} is")
    warn_user(
        f"PCSelect: {subject} constant in the {data.n_samples} rows fitted ({'; '.join(shown)}): "
        "a feature with no variance carries no information about y there, so it is not "
        "selected (support_ False, pvalues_ 1, no test run) and transform drops it from new "
        "data. (With cross-validation, this happens in a training fold that holds no row with "
        "another value, e.g. unshuffled KFold on rows sorted by a rare dummy.)"
        + (" Nothing is selected." if every else ""))
