"""The shared estimator shape: encode once, learn a DAG, fit CPTs, score by likelihood."""

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin

from skbn._data import EncodedData, _as_columns, _code_dtype, encode_fit, encode_target, encode_transform
from skbn.citests import resolve_ci_test
from skbn.network import DiscreteBayesianNetwork
from skbn.parameters import MAX_CPT_SIZE, estimate_cpt
from skbn.scores import resolve_scorer
from skbn.utils._docstrings import fill_common_parameters
from skbn.utils._sklearn_compat import (
    Interval,
    NotFittedError,
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


def _check_network(estimator):
    """Raise ``NotFittedError`` unless ``estimator`` holds a fitted network (with CPTs)."""
    check_is_fitted(estimator)
    if estimator.network_ is None:
        raise NotFittedError(
            f"This {type(estimator).__name__} was fitted with fit_parameters=False: it holds a "
            "structure (edges_) but no conditional probability tables. Refit with "
            "fit_parameters=True to score, predict or sample."
        )


def _has_target(estimator):
    """``available_if`` check: predict_proba needs a target node.

    Unfitted, the method is available (a target may come with ``fit(X, y)``) and calling
    it raises ``NotFittedError``.
    """
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return True
    if estimator._target_index is None:
        raise AttributeError(
            "predict_proba needs a target: fit with fit(X, y) or set target=<column name>."
        )
    return True


class _BaseStructureLearner(DensityMixin, BaseEstimator):
    """Base class of the structure learners.

    Subclasses implement ``_learn_structure(data) -> list[(parent_index, child_index)]``
    and declare their own ``_parameter_constraints`` merged with these.

    Parameters
    ----------
    {common_parameters}
    """

    _parameter_constraints = {
        "categories": [StrOptions({"auto"}), list, tuple, dict],
        "handle_unknown": [StrOptions({"error", "marginalize"})],
        "target": "no_validation",
        "parameter_estimator": [StrOptions({"bayes", "mle"})],
        "parameter_ess": [Interval(Real, 0, None, closed="neither")],
        "fit_parameters": ["boolean"],
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__doc__ = fill_common_parameters(cls.__doc__)

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

        Parameters
        ----------
        **params : dict
            Estimator parameters, and ``<plug-in>__<parameter>`` for nested ones.

        Returns
        -------
        self : object
            The estimator.
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

    def fit(self, X, y=None):
        """Learn the structure and the CPTs from complete discrete data.

        Every fitted attribute of an earlier fit is removed first, so fitting twice on the
        same data gives the same model and nothing is left over from a different fit.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Complete discrete data: categorical, string, bool or integer columns (floats
            only when integral). NaN is refused in fit.
        y : array-like of shape (n_samples,), default=None
            Optional target; it becomes a node of the network and enables ``predict_proba``.
            Ignored when ``target`` names a column of ``X``.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        _clear_fitted_attributes(self)  # a refit, even a failing one, keeps nothing of the last fit
        self._validate_params()
        _as_columns(X)  # shape and type errors first, worded as scikit-learn's
        validate_data(self, X, skip_check_array=True, reset=True)
        data, states = encode_fit(X, self.categories)
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
        if not self.fit_parameters:
            return None  # structure only: see fit_parameters
        parents = [[] for _ in range(data.n_variables)]
        for parent, child in edges:
            parents[child].append(parent)
        for child, pa in enumerate(parents):
            self._check_cpt_size(data, child, pa)
        cpts = {
            data.names[child]: estimate_cpt(
                data.codes, data.cardinalities, child, sorted(pa),
                method=self.parameter_estimator, ess=self.parameter_ess,
            )
            for child, pa in enumerate(parents)
        }
        return DiscreteBayesianNetwork(
            states={name: list(s) for name, s in zip(data.names, states)},
            parents={data.names[c]: [data.names[p] for p in sorted(pa)] for c, pa in enumerate(parents)},
            cpts=cpts,
        )

    def _check_cpt_size(self, data, child, parents):
        """Refuse, naming the column, a CPT too large to store (``MAX_CPT_SIZE`` cells)."""
        size = int(np.prod([data.cardinalities[c] for c in [*parents, child]], dtype=np.float64))
        if size <= MAX_CPT_SIZE:
            return
        params = self.get_params(deep=False)
        if "max_indegree" in params:
            fix = "limit the number of parents with max_indegree=..., or "
        elif "max_parents" in params:
            fix = "limit the number of parents with max_parents=..., or "
        elif "edges" in params:
            fix = f"give {data.names[child]!r} fewer parents in edges, or "
        else:
            fix = ""
        raise ValueError(
            f"The conditional probability table of column {data.names[child]!r} would have "
            f"{size} cells ({len(parents)} parents; more than {MAX_CPT_SIZE}). To fit it, "
            f"{fix}pass fit_parameters=False to learn the structure only (edges_ without CPTs)."
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
                    pd.DataFrame({nodes[-1]: np.asarray(y).reshape(-1)}), [nodes[-1]], [states[-1]],
                    handle_unknown=self.handle_unknown,
                )[:, 0]
            codes = np.hstack([codes, target_codes])
        return codes

    def score_samples(self, X):
        """Log-likelihood ``log p(x)`` of every row under the fitted network.

        Missing cells (NaN), unknown states with ``handle_unknown='marginalize'`` and a
        target fitted through ``y`` are summed out exactly.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to score, with the columns seen in ``fit``; NaN or None marks a missing cell.

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
            Natural logarithm of the probability of every row.
        """
        _check_network(self)
        return self.network_.log_likelihood_codes(self._encode(X))

    def score(self, X, y=None):
        """Mean log-likelihood per row (of ``(x, y)`` when ``y`` is given with a fitted target).

        Higher is better, so ``GridSearchCV`` and ``cross_val_score`` select by held-out
        likelihood.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to score, with the columns seen in ``fit``; NaN or None marks a missing cell.
        y : array-like of shape (n_samples,), default=None
            Target values when the estimator was fitted with ``fit(X, y)``: the score is then
            the mean of ``log p(x, y)``. Ignored otherwise (the target is summed out).

        Returns
        -------
        score : float
            Mean natural log-likelihood per row.
        """
        _check_network(self)
        if y is not None and self._target_index is not None and self.target is None:
            return float(np.mean(self.network_.log_likelihood_codes(self._encode(X, y))))
        return float(np.mean(self.score_samples(X)))

    @available_if(_has_target)
    def predict_proba(self, X):
        """Exact posterior ``P(target | observed columns of x)``, columns ordered as ``classes_``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to classify; the target column may be absent (or NaN) and other missing
            cells are summed out.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Posterior probability of every state of the target, rows summing to 1.
        """
        _check_network(self)
        codes = self._encode(X)
        return self.network_.predict_proba_codes(codes, self._target_index)

    @available_if(_has_target)
    def predict(self, X):
        """Most probable target state per row (first in ``classes_`` order on ties).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to classify, as for :meth:`predict_proba`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The state of ``classes_`` with the largest posterior probability.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def sample(self, n_samples=1, random_state=None):
        """Draw rows from the fitted network by forward sampling.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows to draw.
        random_state : int, RandomState instance or None, default=None
            Seed of this call's random number generator (the estimator's own
            ``random_state``, if any, is not used).

        Returns
        -------
        samples : DataFrame of shape (n_samples, n_nodes)
            One categorical column per node, in node order.
        """
        _check_network(self)
        return self.network_.sample(n_samples, random_state=random_state)


_BaseStructureLearner.__doc__ = fill_common_parameters(_BaseStructureLearner.__doc__)


def _clear_fitted_attributes(estimator):
    """Delete every fitted attribute (name ending in ``_``) an earlier ``fit`` left on ``estimator``."""
    for name in [name for name in vars(estimator) if name.endswith("_") and not name.startswith("__")]:
        delattr(estimator, name)


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
    return EncodedData(np.asfortranarray(codes), cardinalities, data.names + (name,))
