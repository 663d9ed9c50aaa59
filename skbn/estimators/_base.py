"""The shared estimator shape: encode once, learn a DAG, fit CPTs, score by likelihood."""

from dataclasses import replace
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin

from skbn._data import (
    EncodedData,
    _as_columns,
    _code_dtype,
    check_sample_weight,
    encode_fit,
    encode_target,
    encode_transform,
)
from skbn.citests import resolve_ci_test
from skbn.network import DiscreteBayesianNetwork
from skbn.scores import resolve_scorer
from skbn.parameters import estimate_cpt
from skbn.utils._sklearn_compat import (
    Interval,
    StrOptions,
    available_if,
    check_is_fitted,
    validate_data,
    validate_parameter_constraints,
)

#: Name of the target node when ``fit(X, y)`` gets a ``y`` without a name.
DEFAULT_TARGET_NAME = "y"

#: Plug-in parameters whose string aliases ``set_params`` turns into objects on demand.
_PLUGIN_RESOLVERS = {"scorer": resolve_scorer, "ci_test": resolve_ci_test}


def _has_target(estimator):
    """``available_if`` check: predict_proba needs a target node."""
    check_is_fitted(estimator)
    if estimator._target_index is None:
        raise AttributeError(
            "predict_proba needs a target: fit with fit(X, y) or set target=<column name>."
        )
    return True


class _BaseStructureLearner(DensityMixin, BaseEstimator):
    """Base class of the structure learners.

    Subclasses implement ``_learn_structure(data) -> list[(parent_index, child_index)]``
    and declare their own ``_parameter_constraints`` merged with these.

    Common parameters
    -----------------
    categories : "auto", list of sequences or dict, default="auto"
        State space of every column: "auto" uses pandas categories (unobserved ones kept)
        or else the sorted observed values.
    handle_unknown : {"error", "marginalize"}, default="error"
        What a state never declared in fit does at score time: raise, or be treated as
        missing and summed out of that row's likelihood.
    target : column label, integer position or None, default=None
        Column of ``X`` to predict with ``predict_proba`` (alternative to ``fit(X, y)``).
    parameter_estimator : {"bayes", "mle"}, default="bayes"
        CPT estimation: posterior mean under a BDeu-style Dirichlet prior with equivalent
        sample size ``parameter_ess``, or maximum likelihood.
    parameter_ess : float, default=1.0
        Equivalent sample size of the CPT prior.
    """

    _parameter_constraints = {
        "categories": [StrOptions({"auto"}), list, tuple, dict],
        "handle_unknown": [StrOptions({"error", "marginalize"})],
        "target": "no_validation",
        "parameter_estimator": [StrOptions({"bayes", "mle"})],
        "parameter_ess": [Interval(Real, 0, None, closed="neither")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        tags.non_deterministic = False
        return tags

    def set_params(self, **params):
        """Set parameters; a nested plug-in parameter also works on a string alias.

        ``set_params(scorer__ess=5)`` on ``scorer="bdeu"`` first replaces the alias by the
        object it names (``BDeu()``), so ``GridSearchCV(HillClimbStructure(),
        {"scorer__ess": [1, 5, 10]})`` works with the defaults (likewise ``ci_test__alpha``).
        """
        for key in params:
            name, nested, _ = key.partition("__")
            value = getattr(self, name, None)
            if nested and name in _PLUGIN_RESOLVERS and isinstance(value, str) and name not in params:
                setattr(self, name, _PLUGIN_RESOLVERS[name](value))
        return super().set_params(**params)

    # ------------------------------------------------------------------ fit
    def _validate_params(self):
        validate_parameter_constraints(
            self._parameter_constraints, self.get_params(deep=False), type(self).__name__
        )

    def fit(self, X, y=None, sample_weight=None):
        """Learn the structure and the CPTs from complete discrete data.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Discrete data: categorical, string, bool or integer columns.
        y : array-like of shape (n_samples,), default=None
            Optional target; it becomes a node of the network and enables ``predict_proba``.
            Ignored when ``target`` names a column of ``X``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights: every count (scores, tests, CPTs) is the sum of the
            weights of the rows it counts, so an integer weight ``w`` is the same as ``w``
            copies of the row and a weight 0 the same as dropping it. ``None``: weight 1.

        Returns
        -------
        self
        """
        self._validate_params()
        _as_columns(X)  # shape and type errors first, worded as scikit-learn's
        validate_data(self, X, skip_check_array=True, reset=True)
        data, states = encode_fit(X, self.categories)
        data = replace(data, weights=check_sample_weight(sample_weight, data.n_samples))
        n_features = data.n_variables
        target_index = None
        if y is not None and self.target is None:
            target_name = getattr(y, "name", None)
            if target_name is None or target_name in data.names:
                target_name = DEFAULT_TARGET_NAME if DEFAULT_TARGET_NAME not in data.names else "__target__"
            y_codes, y_states = encode_target(y, target_name)
            if len(y_codes) != data.n_samples:
                raise ValueError(
                    f"X has {data.n_samples} rows but y has {len(y_codes)}; they must match."
                )
            data = _append_column(data, y_codes, len(y_states), target_name)
            states = states + [y_states]
            target_index = data.n_variables - 1
        elif self.target is not None:
            target_index = _column_position(self.target, data.names, "target")
        self._target_index = target_index
        self.categories_ = [np.asarray(s, dtype=object) for s in states[:n_features]]
        if target_index is not None:
            self.classes_ = np.asarray(states[target_index])

        edges = self._learn_structure(data)
        self.network_ = self._fit_network(data, states, edges)
        self.edges_ = [(data.names[p], data.names[c]) for p, c in edges]
        return self

    def _learn_structure(self, data):
        raise NotImplementedError

    def _fit_network(self, data, states, edges):
        parents = [[] for _ in range(data.n_variables)]
        for parent, child in edges:
            parents[child].append(parent)
        cpts = {
            data.names[child]: estimate_cpt(
                data.codes, data.cardinalities, child, sorted(pa),
                method=self.parameter_estimator, ess=self.parameter_ess, weights=data.weights,
            )
            for child, pa in enumerate(parents)
        }
        return DiscreteBayesianNetwork(
            states={name: list(s) for name, s in zip(data.names, states)},
            parents={data.names[c]: [data.names[p] for p in sorted(pa)] for c, pa in enumerate(parents)},
            cpts=cpts,
        )

    # --------------------------------------------------------------- scoring
    def _encode(self, X, y=None):
        """Codes over the network's nodes (``-1`` = marginalise) for scoring data."""
        check_is_fitted(self)
        nodes = self.network_.nodes
        states = [self.network_.states[n] for n in nodes]
        fitted_with_y = self._target_index is not None and self.target is None
        x_nodes = nodes[:-1] if fitted_with_y else nodes
        target_name = None if self.target is None else nodes[self._target_index]
        if isinstance(X, pd.DataFrame) and target_name is not None and list(X.columns) == [
            c for c in self.feature_names_in_ if c != target_name
        ]:
            # predicting the target column: it may be left out of X (other mismatches are
            # reported by validate_data below)
            X = X.copy()
            X[target_name] = np.nan
            X = X[list(self.feature_names_in_)]
        _as_columns(X)  # shape errors first, with sklearn's wording
        validate_data(self, X, skip_check_array=True, reset=False)
        codes = encode_transform(
            X, x_nodes, states[: len(x_nodes)], handle_unknown=self.handle_unknown
        )
        if fitted_with_y:
            target_codes = np.full((codes.shape[0], 1), -1, dtype=np.int64)
            if y is not None:
                target_codes[:, 0] = encode_transform(
                    pd.DataFrame({0: np.asarray(y).reshape(-1)}), [0], [states[-1]],
                    handle_unknown=self.handle_unknown,
                )[:, 0]
            codes = np.hstack([codes, target_codes])
        return codes

    def score_samples(self, X):
        """Log-likelihood ``log p(x)`` of every row under the fitted network.

        Missing cells (NaN), unknown states with ``handle_unknown='marginalize'`` and a
        target fitted through ``y`` are summed out exactly.

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
        """
        return self.network_.log_likelihood_codes(self._encode(X))

    def score(self, X, y=None, sample_weight=None):
        """Mean log-likelihood per row (of ``(x, y)`` when ``y`` is given with a fitted target).

        Higher is better, so ``GridSearchCV`` and ``cross_val_score`` select by held-out
        likelihood. With ``sample_weight``, the weighted mean.
        """
        if y is not None and self._target_index is not None and self.target is None:
            log_likelihood = self.network_.log_likelihood_codes(self._encode(X, y))
        else:
            log_likelihood = self.score_samples(X)
        weights = check_sample_weight(sample_weight, len(log_likelihood))
        return float(np.average(log_likelihood, weights=weights))

    @available_if(_has_target)
    def predict_proba(self, X):
        """Exact posterior ``P(target | observed columns of x)``, columns ordered as ``classes_``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        codes = self._encode(X)
        return self.network_.predict_proba_codes(codes, self._target_index)

    @available_if(_has_target)
    def predict(self, X):
        """Most probable target state per row (first in ``classes_`` order on ties)."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def sample(self, n_samples=1, random_state=None):
        """Draw rows from the fitted network by forward sampling.

        Returns
        -------
        samples : DataFrame of shape (n_samples, n_nodes) with categorical columns
        """
        check_is_fitted(self)
        return self.network_.sample(n_samples, random_state=random_state)


def _column_position(label, names, parameter):
    """Position of a column given by label, or by integer position when no label matches."""
    if label in names:
        return list(names).index(label)
    if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < len(names):
        return int(label)
    raise ValueError(f"{parameter}={label!r} is not a column of X (columns: {list(names)}).")


def _edge_positions(edges, names, what):
    """``(parent, child)`` column labels (or integer positions) -> position pairs, refusing
    malformed entries, unknown columns and self loops with a message naming ``what``."""
    pairs = []
    for edge in edges:
        try:
            if isinstance(edge, (str, bytes)):
                raise TypeError
            parent, child = edge
        except (TypeError, ValueError):
            raise ValueError(f"{what} entry {edge!r} is not a (parent, child) pair.") from None
        positions = []
        for node in (parent, child):
            try:
                positions.append(_column_position(node, names, what))
            except (ValueError, TypeError):  # unknown or unhashable label
                raise ValueError(
                    f"{what} edge ({parent!r}, {child!r}) names unknown column {node!r}; "
                    f"columns are {list(names)}."
                ) from None
        if positions[0] == positions[1]:
            raise ValueError(f"{what} edge ({parent!r}, {child!r}) is a self loop.")
        pairs.append(tuple(positions))
    return pairs


def _append_column(data, column_codes, cardinality, name):
    cardinalities = np.append(data.cardinalities, cardinality)
    codes = np.column_stack([data.codes, column_codes]).astype(_code_dtype(cardinalities))
    return EncodedData(np.asfortranarray(codes), cardinalities, data.names + (name,), data.weights)
