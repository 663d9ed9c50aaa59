"""The shared estimator shape: encode once, learn a DAG, fit CPTs, score by likelihood."""

import functools
import inspect
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import check_random_state

from skbn._chunks import encode_chunks, is_chunked
from skbn._continuous_network import aliased_family_parameters
from skbn._counting import config_ids, count_cells, family_table, row_copies
from skbn._counting._moment_counter import MomentCounter, shared_moments
from skbn._dag import transitive_closure
from skbn._data import (
    CONTINUOUS,
    DISCRETE,
    MAX_INTEGER_STATES,
    SPARSE_INTEGER_STATES,
    _code_dtype,
    _user_states,
    _user_type,
    check_container,
    check_total_weight,
    column_names,
    complete_cases,
    encode_fit,
    encode_target,
    encode_transform,
    intervention_matrix,
    name_order,
    name_ranks,
    numeric_column,
    observed_by_no_row,
    permute_columns,
    positive_weight_rows,
    reading_encoded_rows,
    target_series,
)
from skbn._determined_columns import check_determined_columns
from skbn._engines._ci_runner import report_power_rule
from skbn._engines._local_scores import FamilyScoreCache
from skbn._zero_probability import warn_impossible_evidence, warn_zero_probability
from skbn.citests import DSeparationOracle, resolve_ci_test
from skbn.exceptions import (
    DeterminedColumnsWarning,
    NotEstimable,
    UnseenStateWarning,
    WholeNumberStatesWarning,
)
from skbn.graph import PDAG, dag_to_cpdag, interventional_essential_graph
from skbn.knowledge import (  # noqa: F401 (_edge_positions re-exported)
    EDGE_LIST_TYPES,
    KNOWLEDGE_PARAMETERS,
    _column_position,
    _edge_positions,
    _find_column,
    _label_positions,
    parse_knowledge,
    restricted_class,
)
from skbn.network import CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork
from skbn.parameters import MAX_CPT_SIZE, estimate_cpt
from skbn.scores import check_bounded_likelihood, resolve_scorer
from skbn.utils._docstrings import fill_common_parameters
from skbn.utils._plugins import check_plugin_fits_data
from skbn.utils._plugins import data_kind as _data_kind
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import (
    Interval,
    NotFittedError,
    StrOptions,
    available_if,
    check_is_fitted,
    validate_data,
    validate_parameter_constraints,
)
from skbn.utils._threads import class_order as _class_order
from skbn.utils._threads import one_blas_thread as _one_blas_thread
from skbn.utils._warnings import warn_user

#: Name of the target node when ``fit(X, y)`` gets a ``y`` without a name.
DEFAULT_TARGET_NAME = "y"

#: Parameters of the learners that accept incomplete data (see ``docs/missing.md``).
_MISSING_CONSTRAINTS = {
    "missing": [StrOptions({"error", "em", "complete_case", "available_case"})],
    "latent": [None, dict],
    "e_step": [StrOptions({"exact", "gibbs"})],
    "n_init": [Interval(Integral, 1, None, closed="left")],
    "em_max_iter": [Interval(Integral, 0, None, closed="left")],
    "em_tol": [Interval(Real, 0, None, closed="left")],
}

#: Plug-in parameters and their resolvers: ``fit`` resolves the ones a learner declares
#: (``_plugins``) into ``<name>_``; ``set_params`` turns their string aliases into objects.
_PLUGIN_RESOLVERS = {"scorer": resolve_scorer, "ci_test": resolve_ci_test}

#: Accepted types of the knowledge parameters, the same in every learner that declares them
#: (``_knowledge``): edge lists are lists, tuples, ``(n_edges, 2)`` arrays or two-column
#: DataFrames (:data:`skbn.knowledge.EDGE_LIST_TYPES`); ``max_indegree`` stays the learner's.
_KNOWLEDGE_CONSTRAINTS = {
    "white_list": list(EDGE_LIST_TYPES),
    "black_list": list(EDGE_LIST_TYPES),
    "tiers": [None, list, tuple],
    "start": [None, *EDGE_LIST_TYPES],
}


@functools.cache
def _param_names(cls):
    """:meth:`sklearn.base.BaseEstimator._get_param_names` of ``cls``, cached per class (a
    class's ``__init__`` signature does not change)."""
    return tuple(super(_BaseStructureLearner, cls)._get_param_names())


@functools.cache
def _param_defaults(cls):
    """``{name: default}`` of the constructor's parameters of ``cls``, cached per class."""
    parameters = inspect.signature(cls.__init__).parameters
    return {name: parameters[name].default for name in _param_names(cls)}


#: The parameter values whose validation :func:`_check_scalar_param` keeps: immutable, and
#: equal only to values of the same type that satisfy the same constraints.
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


@functools.lru_cache(maxsize=1024)
def _check_scalar_param(cls, name, kind, value):
    """Check the parameter ``name`` of the learner class ``cls`` holding ``value`` (of the
    exact type ``kind``, one of :data:`_SCALAR_TYPES`) against its constraints, with
    scikit-learn's error. A value that passes is remembered (the constraints of a class do
    not change; ``kind`` keeps ``1``, ``1.0`` and ``True`` apart); a refusal is raised
    again at every call."""
    validate_parameter_constraints(cls._parameter_constraints, {name: value}, cls.__name__)


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


def _has_discrete_target(estimator):
    """``available_if`` check of predict_proba: a target node, discrete (a continuous target
    has ``predict``, its conditional mean, and no class probabilities)."""
    _has_target(estimator)
    if getattr(estimator, "network_", None) is not None:
        name = estimator.network_.nodes[estimator._target_index]
        if _node_states(estimator.network_, name) is None:
            raise AttributeError(f"predict_proba needs a discrete target; {name!r} is continuous "
                                 "(predict gives its conditional mean).")
    return True


def _target_key(per_column, X, y, target):
    """The key of the per-column dict parameter ``per_column`` that names ``y`` (fitted
    through ``fit(X, y)``): ``y``'s name (``"y"`` for an unnamed ``y``) when it is a key and
    not a column of ``X``; else None."""
    if y is None or target is not None or not isinstance(per_column, dict):
        return None
    name = _y_name(y)
    name = DEFAULT_TARGET_NAME if name is None else name
    if name not in per_column or name in set(getattr(X, "columns", ())):
        return None
    return name


def _split_target_type(column_types, X, y, target):
    """``column_types`` without the entry that declares ``y`` (:func:`_target_key`), and
    that entry (None: the column-type rule decides ``y``).

    A string (``"discrete"``, ``"continuous"``) declares every column, ``y`` included:
    "every column is continuous" covers the target fitted through ``fit(X, y)`` too (a
    ``y`` of whole numbers with few values was a discrete target under it). Only a ``y``
    that holds no numbers (text, bools, a pandas categorical: class labels, which cannot
    be continuous) is left to the rule under ``"continuous"``, so a CLG classifier on
    continuous features keeps its labels. A list declares the columns of ``X`` only."""
    if isinstance(column_types, str):
        if y is None or target is not None or column_types not in (DISCRETE, CONTINUOUS):
            return column_types, None
        if column_types == CONTINUOUS and not numeric_column(target_series(y)):
            return column_types, None
        return column_types, column_types
    name = _target_key(column_types, X, y, target)
    if name is None:
        return column_types, None
    return {k: v for k, v in column_types.items() if k != name}, column_types[name]


def _refuse_target_categories(categories, X, y, target):
    """Refuse a ``categories=`` key naming ``y`` (:func:`_target_key`) with the way to
    declare the target's states: ``y``'s own pandas categorical dtype, which ``fit`` reads
    as a declared column's (its ``classes_``, sorted, include a state no row holds)."""
    name = _target_key(categories, X, y, target)
    if name is not None:
        raise ValueError(
            f"categories has the key {name!r}, the name of y, which is not a column of X: declare "
            f"the target's states on y itself, e.g. fit(X, y.astype(pd.CategoricalDtype("
            f"{list(categories[name])!r}))), and leave it out of categories.")


def _y_name(y):
    """The name of ``y``: a Series' name, the column of a one-column DataFrame (which
    ``fit`` takes as that column, with scikit-learn's ``DataConversionWarning``), else None."""
    if isinstance(y, pd.DataFrame):
        return y.columns[0] if y.shape[1] == 1 else None
    return getattr(y, "name", None)


def _warn_unread_y(X, y, name, position, target):
    """Warn when ``fit(X, y)`` gets a ``y`` that is not the column ``name`` (at ``position``
    in ``X``) which ``target=`` names as the target: the fit reads the target from ``X`` and
    not from ``y``. Passing ``y`` equal to that column (``cross_val_score(model, X,
    X[name])``, a Pipeline's ``y``) is silent; an error would break those. Cells are equal
    when both are missing or both hold equal values (``1 == 1.0``, a category equal to its
    string); ``y`` of another length, or of more than one column, is not that column."""
    frame = isinstance(X, pd.DataFrame)
    column = X.iloc[:, position] if frame else np.asarray(X, dtype=object)[:, position]
    mine = np.asarray(column, dtype=object)
    given = np.asarray(y, dtype=object)
    given = given.reshape(-1) if given.ndim == 2 and given.shape[1] == 1 else given
    where = f"X[{name!r}]" if frame else f"X[:, {position}]"
    if given.ndim == 1 and len(given) == len(mine):
        missing, absent = pd.isna(mine), pd.isna(given)
        both = ~(missing | absent)
        differ = missing != absent
        differ[both] = mine[both] != given[both]
        if not differ.any():
            return
        how = f"differs from {where} in {int(differ.sum())} of its {len(mine)} rows"
    else:
        how = f"has shape {given.shape}, not {where}'s ({len(mine)},)"
    without = f"X.drop(columns={name!r})" if frame else f"X without column {position}"
    warn_user(f"y is not read: target={target!r} names the column {name!r} of X as the target, and "
              f"y {how}. To fit y as the target, pass fit({without}, y) without target=; to fit "
              f"{where}, pass fit(X) or y={where}.")


def target_name_of(y, names, X=None):
    """The name of the target column ``y`` appended after the columns ``names`` of ``X``
    (``fit(X, y)``; :class:`~skbn.PCSelect`): ``y``'s own name, ``"y"`` for an unnamed ``y``
    or one whose name is a column of ``X``, and a private name only when ``"y"`` is one too.

    A ``y`` named as a column of ``X`` is renamed with a warning: that column is most often
    the label itself left in ``X`` (``fit(df, df["deny"])``), which a classifier then reads
    the label from; the warning says so when the column holds ``y``'s values in every row
    (``X``, a DataFrame, is read for that check only)."""
    name = given = _y_name(y)
    if name is None or name in names:
        name = DEFAULT_TARGET_NAME if DEFAULT_TARGET_NAME not in names else "__target__"
    if given is not None and given in names:
        same = isinstance(X, pd.DataFrame) and given in X.columns and np.array_equal(
            np.asarray(X[given], dtype=object), np.asarray(y, dtype=object).reshape(-1))
        how = (f"X[{given!r}] holds y's values in every row: it is the label itself, which the model "
               "reads the label from (a target leak)" if same else
               f"if X[{given!r}] is the label itself, the model reads the label from it (a target leak)")
        warn_user(f"y is named {given!r}, as a column of X; the target is fitted as {name!r}. "
                  f"{how[0].upper()}{how[1:]}: drop it from X, e.g. fit(X.drop(columns={given!r}), y), "
                  "or rename y if the two columns differ.")
    return name


def _node_states(network, node):
    """The states of ``node`` in a fitted network, None for a continuous node."""
    if isinstance(network, GaussianBayesianNetwork):
        return None
    return network.states.get(node)


def _record_features(estimator, X):
    """Set ``n_features_in_`` and ``feature_names_in_`` of ``X`` as scikit-learn's
    ``validate_data(estimator, X, skip_check_array=True, reset=True)`` does; returns the
    column names of a DataFrame ``X`` as a list (read once per fit: ``encode_fit`` takes
    them), None for other input.

    A DataFrame whose column names are all Python strings (scikit-learn's condition for
    feature names; ``check_container`` has refused duplicated names) gets both attributes
    directly: ``validate_data`` reads the names through a dataframe-protocol layer that
    was most of a small fit's validation time. A numpy array (2-D: ``check_container``
    has refused other shapes) has no feature names, so only ``n_features_in_`` is set, its
    number of columns (``fit`` has removed an earlier fit's ``feature_names_in_``, which
    ``validate_data`` would delete): ``validate_data`` would also ask that same
    dataframe-protocol layer and compute the estimator's tags, read only for a ``y`` it
    is not given here (about 40 us of a 0.8 ms fit). Any other ``X`` goes through
    ``validate_data``, whose checks and errors it keeps.
    """
    names = column_names(X) if isinstance(X, pd.DataFrame) else None
    if names and all(type(name) is str for name in names):
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
        estimator.n_features_in_ = len(names)
    elif type(X) is np.ndarray:  # (exactly: a subclass could hold feature names)
        estimator.n_features_in_ = X.shape[1]
    else:
        validate_data(estimator, X, skip_check_array=True, reset=True)
    return names


class _BaseStructureLearner(DensityMixin, BaseEstimator):
    """Base class of the structure learners: everything that is not the search.

    A learner *declares* what it uses and writes only its search:

    * ``_plugins``: its plug-in parameters, ``("scorer",)``, ``("ci_test",)`` or both.
      ``fit`` resolves each into the fitted attribute ``scorer_`` / ``ci_test_`` (a clone
      of an instance, or the object an alias names) before the search.
    * ``_knowledge``: the background knowledge it honours, among ``white_list``,
      ``black_list``, ``tiers``, ``max_indegree`` and ``start``. Their accepted types are
      the same in every learner (edge lists: lists, tuples, ``(n_edges, 2)`` arrays or
      two-column DataFrames; ``tiers``: a list of lists), and ``fit`` parses them once
      with :func:`skbn.knowledge.parse_knowledge`. A learner that honours ``start`` can
      start its search from a graph (structural EM starts each search from the last).
    * ``_bounded_score``: whether its search maximises ``scorer_`` over parent sets, so
      that a score whose optimum is the complete DAG (``LogLikelihood``) needs a binding
      ``max_indegree`` (below ``p - 1``); refused with the learner's name otherwise.
    * ``_missing_modes``: the values of ``missing`` it supports, and ``_structural_em``.
    * ``_parameter_constraints``: its own, merged with these.

    The internal protocol, called by ``fit`` (and by learners that run another, such as
    MMHC, bootstrap and structural EM, through :meth:`_structure`)::

        _learn_structure(self, data, knowledge, *, start=None, counter=None)
            -> list of (parent_index, child_index)

    ``data`` is the :class:`~skbn._data.EncodedData` (``data.target``: the target's
    position or None; ``data.target_from_y``: it is ``y``, after the columns of ``X``);
    ``knowledge`` the parsed :class:`~skbn.knowledge.BackgroundKnowledge` (empty for a
    learner that declares none); ``start`` the graph (position pairs) structural EM
    starts the search from, already merged into ``knowledge.start`` for a learner that
    honours ``start``, else None; ``counter`` a :class:`~skbn._counting.FamilyCounter` of
    ``data`` a caller shares (MMHC: one Gram matrix for its two phases), or None. The
    hook may set extra fitted attributes (``score_``, ``n_iter_``, ``cpdag_``, ...).
    A learner that samples several DAGs provides them with :meth:`_weighted_dags`; the
    density (``score_samples``, ``score``, ``predict_proba``) is then their average.

    Learners that accept incomplete data (``_missing_modes`` lists their modes) also take
    ``missing``, ``latent``, ``e_step``, ``n_init``, ``em_max_iter`` and ``em_tol``; see
    ``docs/missing.md`` and :mod:`skbn._em`.

    Parameters
    ----------
    {common_parameters}
    """

    #: Plug-in parameters the learner resolves into ``<name>_`` ("scorer", "ci_test").
    _plugins = ()
    #: What ``"auto"`` means for each plug-in: its alias on discrete, continuous and mixed data.
    _auto_plugins = {}
    #: Whether the learner takes continuous columns (Gaussian and CLG networks).
    _continuous = False
    #: Knowledge parameters the learner honours (of ``skbn.knowledge.KNOWLEDGE_PARAMETERS``).
    _knowledge = ()
    #: Whether the learner maximises ``scorer_`` and so needs a bounded score.
    _bounded_score = False
    #: Values of ``missing`` the learner supports ("error" = refuse NaN, the default).
    _missing_modes = ("error",)
    #: Whether ``missing="em"`` runs structural EM (the structure is re-learned from the
    #: expected completions) rather than parameter EM on the learned structure.
    _structural_em = False
    #: Whether ``fit`` accepts ``interventions`` (experimental rows): the learner counts
    #: through :class:`~skbn._counting.FamilyCounter`, which leaves out the intervened rows.
    _interventions = False
    #: Whether the learner learns the structure from the data (``FixedStructure`` is given
    #: it): it then reports columns determined by others
    #: (:class:`~skbn.exceptions.DeterminedColumnsWarning`).
    _learns_structure = True

    _parameter_constraints = {
        "categories": [StrOptions({"auto"}), list, tuple, dict],
        "column_types": [StrOptions({"auto", "discrete", "continuous"}), list, tuple, dict],
        "handle_unknown": [StrOptions({"warn", "error", "marginalize"})],
        "target": "no_validation",
        "parameter_estimator": [StrOptions({"bayes", "mle"})],
        "parameter_ess": [Interval(Real, 0, None, closed="neither")],
        "fit_parameters": ["boolean"],
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__doc__ = fill_common_parameters(cls.__doc__)
        unknown = set(cls._knowledge) - set(KNOWLEDGE_PARAMETERS)
        unknown |= set(cls._plugins) - set(_PLUGIN_RESOLVERS)
        if unknown:
            raise TypeError(f"{cls.__name__} declares unknown plug-ins or knowledge {sorted(unknown)}.")
        # one set of accepted types for the knowledge parameters, whatever the learner
        cls._parameter_constraints = {
            **cls._parameter_constraints,
            **{name: rule for name, rule in _KNOWLEDGE_CONSTRAINTS.items() if name in cls._knowledge},
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
        object it names (``BDeu()``; ``"auto"`` by the learner's discrete default), so
        ``GridSearchCV(HillClimbStructure(), {"scorer__ess": [1, 5, 10]})`` works with the
        defaults (likewise ``ci_test__alpha``). An alias set in the same call is replaced
        too, so a grid over both, ``{"scorer": ["bic", "aic"], "scorer__edge_penalty":
        [0, 2]}``, sets the parameter on the object each alias names.

        Parameters
        ----------
        **params : dict
            Estimator parameters, and ``<plug-in>__<parameter>`` for nested ones.

        Returns
        -------
        self : object
            The estimator.
        """
        for key in list(params):
            name, nested, _ = key.partition("__")
            value = params[name] if name in params else getattr(self, name, None)
            if nested and name in _PLUGIN_RESOLVERS and isinstance(value, str):
                if value == "auto":  # the discrete default: nested parameters are those of BDeu, ...
                    value = self._auto_plugins[name][0]
                if name in params:  # (set by this call: scikit-learn sets it, then the nested ones)
                    params[name] = _PLUGIN_RESOLVERS[name](value)
                else:
                    setattr(self, name, _PLUGIN_RESOLVERS[name](value))
        return super().set_params(**params)

    @classmethod
    def _get_param_names(cls):
        """The constructor's parameter names (scikit-learn's rule), read from its signature
        once per class: ``get_params`` runs several times per fit, and
        ``inspect.signature`` was most of its cost."""
        return list(_param_names(cls))

    # ------------------------------------------------------------------ fit
    def _validate_params(self):
        """Check every parameter against ``_parameter_constraints`` (scikit-learn's
        validation, same errors). A parameter still holding its constructor default (the
        very object) is skipped: every default satisfies its constraints (a test checks
        it for every estimator), and checking two dozen of them took most of a small
        fit's validation time."""
        cls = type(self)
        for name, default in _param_defaults(cls).items():  # (get_params(deep=False)'s values)
            value = getattr(self, name)
            if value is default:
                continue
            if type(value) in _SCALAR_TYPES:  # (the same check of the same value: done once)
                _check_scalar_param(cls, name, type(value), value)
            else:
                validate_parameter_constraints(self._parameter_constraints, {name: value}, cls.__name__)

    @_one_blas_thread
    def fit(self, X, y=None, sample_weight=None, interventions=None):
        """Learn the structure and the parameters (CPTs; regressions of continuous columns).

        Every fitted attribute of an earlier fit is removed first, so fitting twice on the
        same data gives the same model and nothing is left over from a different fit.
        The model does not depend on the column order of ``X`` either: the search runs on
        the columns sorted by name, so every tie (moves of equal gain, the two orientations
        of an edge under a score-equivalent score) is broken by column name, and the outputs
        come back in the column order (``docs/reproducibility.md``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features), or chunks
            Categorical, string, bool or integer columns (discrete), and, for a learner that
            takes them, columns of measurements (continuous: non-integer numbers, or declared
            with ``column_types``): the network is then a Gaussian or CLG one (see
            ``docs/gaussian.md``). NaN is refused unless the learner's ``missing`` mode
            accepts it.
            Chunked data (an iterator or list of DataFrames, a pyarrow
            Table/Dataset/RecordBatchReader, a dask DataFrame; see "Out-of-core data" in
            ``docs/core.md``) is read one chunk at a time and compressed to weighted
            distinct rows (a missing cell is one more value of its column): same result as
            the concatenated rows.
        y : array-like of shape (n_samples,), default=None
            Optional target; it becomes a node of the network and enables ``predict_proba``
            (columns in ``classes_`` order: the target's states sorted as ``np.unique``
            sorts them, as scikit-learn's metrics expect). Not read when ``target`` names a
            column of ``X``: that column is the target (a Pipeline or ``cross_val_score``
            passes ``y`` anyway), with a warning naming both when ``y`` is not that column
            (another value in some row, or another length). The target is one more column
            of the network, so a missing label (NaN/None) follows the ``missing`` mode as a
            missing cell of ``X`` does: refused under ``"error"`` (naming the target), the
            row dropped under ``"complete_case"``, the label completed by EM under ``"em"`` (and PC's
            ``"available_case"``); ``fit(X, y)`` then fits the model of ``fit(X_y,
            target=name)`` with the column in ``X_y``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights: every count (scores, tests, CPTs) is the sum of the
            weights of the rows it counts, so an integer weight ``w`` is the same as ``w``
            copies of the row and a weight 0 the same as dropping it (such rows are dropped
            before the data are read: their values add no state, decide no column type and
            may be missing). ``None``: weight 1.
        interventions : DataFrame, array-like or list, default=None
            Experimental rows (accepted by HillClimbStructure, K2Structure,
            FixedStructure and GESStructure, which is then GIES; see
            ``docs/interventions.md``): which variables each row's
            values were *set* by a hard intervention. A boolean
            DataFrame with columns of ``X`` (a column left out: never intervened on) or a
            boolean array of shape ``(n_samples, n_features)`` (True: set by intervention),
            or a list with, for every row, a collection of the intervened columns' names
            (empty: an observational row). The score of a family then leaves out the rows
            where its child was intervened on (the interventional BDe of Cooper & Yoo 1999,
            for every scorer, Gaussian and CLG ones included), every CPT or regression is
            estimated from the rows where its node was not intervened on, and the learners
            expose ``interventional_cpdag_``. ``None``:
            observational data. Rows are matched by position. In-memory ``X`` only, with or
            without ``sample_weight``.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        _clear_fitted_attributes(self)  # a refit, even a failing one, keeps nothing of the last fit
        self._validate_params()
        missing = self._missing_mode()
        chunked = is_chunked(X)
        if interventions is not None:
            self._check_accepts_interventions(chunked, missing)
        y_type = None
        if chunked:  # out of core: weighted distinct rows of the chunks (missing cells: -1)
            data, states = encode_chunks(self, X, y, sample_weight, self.categories,
                                         allow_missing=missing != "error", column_types=self.column_types,
                                         allow_continuous=True)
        else:
            check_container(X)  # shape and type errors first, worded as scikit-learn's
            names = _record_features(self, X)
            X, weights, y, interventions = positive_weight_rows(X, sample_weight, y, interventions)
            column_types, y_type = _split_target_type(self.column_types, X, y, self.target)
            _refuse_target_categories(self.categories, X, y, self.target)
            data, states = encode_fit(X, self.categories, allow_missing=missing != "error",
                                      column_types=column_types, allow_continuous=True, weights=weights,
                                      names=names)
        n_features = data.n_variables
        target_index = None
        from_y = y is not None and self.target is None  # the one place this is decided
        if from_y:
            target_name = target_name_of(y, data.names, X)
            if len(getattr(y, "shape", ())) == 2 and y.shape[1] == 1:
                warn_user(
                    "A column-vector y was passed when a 1d array was expected. Please change the "
                    "shape of y to (n_samples,), for example using ravel().",
                    DataConversionWarning,
                )
            y_codes, y_states, y_values = encode_target(y, target_name, column_type=y_type,
                                                        allow_continuous=True,
                                                        allow_missing=missing != "error",
                                                        weights=data.weights)
            if len(y_codes) != data.n_samples:
                raise ValueError(
                    f"X has {data.n_samples} rows but y has {len(y_codes)}; they must match."
                )
            data = _append_column(data, y_codes, 0 if y_states is None else len(y_states), target_name,
                                  values=y_values)
            states = states + [y_states]
            target_index = data.n_variables - 1
        elif self.target is not None:
            target_index = _column_position(self.target, data.names, "target")
            if y is not None:
                _warn_unread_y(X, y, data.names[target_index], target_index, self.target)
        if target_index is not None or from_y:  # (encode_fit's data have neither)
            data = replace(data, target=target_index, target_from_y=from_y)
        if interventions is not None:
            data = replace(data, intervened=intervention_matrix(interventions, data, n_features))
        self._target_index = data.target
        self.categories_ = [None if s is None else np.asarray(s, dtype=object) for s in states[:n_features]]
        self.column_types_ = {name: CONTINUOUS if s is None else DISCRETE
                              for name, s in zip(data.names, states)}
        if target_index is not None and states[target_index] is not None:
            self.classes_ = _sorted_classes(states[target_index])
        self._check_continuous(data, chunked, missing)
        _warn_count_column(self, data, states)
        _warn_whole_number_states(self, data)

        for name, n_states in self._latent_states(data.names).items():
            data = _append_column(data, np.full(data.n_samples, -1), n_states, name)
            states = states + [list(range(n_states))]
        if missing == "complete_case":
            data = complete_cases(data, copies=chunked)

        check_total_weight(data)
        _check_finite_scores(self, data)
        if self.fit_parameters and missing in ("em", "available_case") or (
                missing == "em" and self._structural_em):
            # available case: the structure from test-wise deletion, the CPTs by EM; structural
            # EM needs EM's parameters to search even when it keeps only the structure
            _check_determined_columns(self, data, states, refusing=False)  # (EM bounds such a family)
            _warn_sparse_columns(self, data)  # (read from the observed cells)
            edges, self.network_ = self._fit_em(data, states)
        else:
            with shared_moments(data):  # one MomentCounter for the search and the network fit
                _check_determined_columns(self, data, states)
                _warn_sparse_columns(self, data)
                edges = self._structure(data)
                self.network_ = self._fit_network(data, states, edges)
        if self._learns_structure:  # (by parent, then child, in name order: any column order)
            ranks = name_ranks(data.names).tolist()  # (Python ints: compared without numpy scalars)
            edges = sorted(edges, key=lambda edge: (ranks[edge[0]], ranks[edge[1]]))
        self.edges_ = [(data.names[p], data.names[c]) for p, c in edges]
        return self

    def _check_accepts_interventions(self, chunked, missing):
        """Refuse ``interventions`` for a learner, input or mode that cannot use them."""
        name = type(self).__name__
        if not self._interventions:
            reason = _NO_INTERVENTIONS.get(name, "its statistics do not leave out intervened rows yet")
            raise ValueError(
                f"{name} does not accept interventions= ({reason}). Learners that use experimental "
                f"rows: {', '.join(INTERVENTION_LEARNERS)}."
            )
        if chunked:
            raise ValueError(f"{name}: interventions= needs in-memory X (a DataFrame or array), not chunks.")
        if missing != "error":
            raise ValueError(f"{name}: interventions= needs complete data (missing='error'), got "
                             f"missing={missing!r}.")

    def _check_continuous(self, data, chunked, missing):
        """Refuse, naming the columns, continuous columns where they are not supported yet."""
        if not data.has_continuous:
            return
        what = None
        if not self._continuous:
            what = f"{type(self).__name__} does not take continuous columns yet"
        elif chunked and _chunked_refusal(self, data, missing):
            what = _chunked_refusal(self, data, missing)
        elif missing == "em" and getattr(self, "latent", None):
            what = "latent variables are not supported yet with continuous columns"
        elif missing == "em" and getattr(self, "e_step", "exact") != "exact":
            what = (f"e_step={self.e_step!r} is not supported with continuous columns (their "
                    "E-step is exact: e_step='exact')")
        if what is not None:
            columns = [name for name, c in zip(data.names, data.continuous) if c]
            shown = f"{columns[:5]!r}" + (f" and {len(columns) - 5} more" if len(columns) > 5 else "")
            raise ValueError(
                f"{what}. Continuous columns (non-integer numbers, or column_types='continuous'): "
                f"{shown}. Discretize them, e.g. with sklearn.preprocessing.KBinsDiscretizer("
                "encode='ordinal'), or declare columns whose values are categories with "
                "column_types={name: 'discrete'}."
            )

    # ------------------------------------------------------------ incomplete data
    def _missing_mode(self):
        """The ``missing`` mode; refuses one the learner has no meaning for."""
        mode = getattr(self, "missing", "error")
        if mode not in self._missing_modes:
            meaning = {
                "em": "EM needs a score-based learner (FixedStructure, HillClimbStructure, K2Structure, "
                      "GESStructure, ExactStructure, MMHCStructure, ChowLiuTree)",
                "complete_case": "drop the incomplete rows before fitting instead",
                "available_case": "test-wise deletion is a mode of CI-test learners",
            }[mode]
            raise ValueError(
                f"missing={mode!r} is not supported by {type(self).__name__} (supported: "
                f"{list(self._missing_modes)}); {meaning}."
            )
        latent = getattr(self, "latent", None)
        if latent and mode != "em":
            raise ValueError(
                f"latent={latent!r} needs missing='em' (a hidden variable is never observed), "
                f"got missing={mode!r}."
            )
        return mode

    def _latent_states(self, names):
        """``latent`` as {name: number of states}, refusing collisions and < 2 states."""
        latent = getattr(self, "latent", None) or {}
        for name, n_states in latent.items():
            if name in names:
                raise ValueError(f"latent variable {name!r} collides with a column of X; rename it.")
            if not isinstance(n_states, (int, np.integer)) or isinstance(n_states, bool) or n_states < 2:
                raise ValueError(
                    f"latent variable {name!r} needs an integer number of states >= 2, got {n_states!r}."
                )
        return {name: int(k) for name, k in latent.items()}

    def _fit_em(self, data, states):
        """``missing="em"``: parameter EM on the learned structure, or structural EM.

        Parameter EM (:func:`skbn._em.fit_em`) runs on the structure the search returns.
        Structural EM (:func:`skbn._em.structural_em`, for learners with ``_structural_em``)
        drives the search (:meth:`_structure`) on the E-step's expected completions, starting
        each from the current graph when the learner honours ``start``, and adopts a graph
        only when it scores higher there than the current one (its acceptance rule, with
        the search's scorer: ``family_scores`` below). With continuous
        columns both are the EM of Gaussian and CLG networks (:class:`skbn._em.MomentEM`),
        whose M-step is :meth:`_fit_continuous_network`.

        EM runs on the columns in name order (:func:`skbn._data.name_order`), as the
        searches do (:meth:`_structure`): every float sum it takes over the columns (a
        completion's log-joint, the families of the E-step, the order in which a row's
        completions are enumerated, hence the M-step's weighted counts and moments) then
        runs in the same order for any column order of ``X``, and so the trace
        (``em_trace_``), the parameters and the graph are the same bits. The edges, the
        search's fitted attributes (:meth:`_restore_column_order`) and the network
        (:func:`_in_node_order`) are then put back in the caller's column order.
        """
        latent_names = self._latent_states(())
        latent = [name in latent_names for name in data.names]
        order = name_order(data.names)
        if order is None:
            edges, params, progress = self._em_in_name_order(data, states, latent)
        else:
            edges, params, progress = self._em_in_name_order(
                permute_columns(data, order), [states[i] for i in order], [latent[i] for i in order])
            self._restore_column_order(data.names)
            edges = [(int(order[u]), int(order[v])) for u, v in edges]
        if self.fit_parameters:
            if self._structural_em:
                _warn_unobserved_configurations(data, states, edges, latent)
            _warn_edges_observed_by_no_row(data, edges, latent,
                                           f"{type(self).__name__} (missing={self._missing_mode()!r})")
        progress.close(objective=float(self.em_trace_[-1]), edges=len(edges))
        if params is None:
            return edges, None
        return edges, params if order is None else _in_node_order(params, data.names)

    def _em_in_name_order(self, data, states, latent):
        """:meth:`_fit_em` on ``data`` with its columns in name order (``states`` and
        ``latent`` per column, in that order). Sets ``em_trace_`` and ``em_n_iter_``;
        returns ``(edges, network, progress)``: positions in ``data``, the fitted network
        (None with ``fit_parameters=False``) and the progress report, closed by the caller."""
        from skbn import _em

        rng = check_random_state(getattr(self, "random_state", None))
        # a learner without the EM parameters (PC's available case) gets their defaults
        settings = dict(weights=data.weights, method=self.parameter_estimator,
                        ess=self.parameter_ess, e_step=getattr(self, "e_step", "exact"))
        fit = dict(n_init=getattr(self, "n_init", 1), max_iter=getattr(self, "em_max_iter", 100),
                   tol=getattr(self, "em_tol", 1e-6), rng=rng)
        moments = {}
        if data.has_continuous:  # Gaussian / CLG EM: the M-step is this estimator's network fit
            moments = dict(fit_network=functools.partial(self._fit_continuous_network, states))
        if not self._structural_em:
            edges = self._structure(data)
            total = fit["n_init"] * (fit["max_iter"] + 1)
            progress = Progress(getattr(self, "verbose", 0), f"{type(self).__name__} EM", unit="iteration",
                                total=total, detail=f"at most {amount(total, 'iteration')}")
            cpts, trace, _ = _em.fit_em(np.asarray(data.codes, dtype=np.int64), data.cardinalities,
                                        data.names, _em.parents_of(edges, data.n_variables), latent,
                                        **fit, **settings, progress=progress, values=data.values,
                                        learner=type(self).__name__,
                                        settable=hasattr(self, "em_max_iter"), **moments)
        else:
            searches = amount(self.em_max_iter, "search", "searches")
            progress = Progress(getattr(self, "verbose", 0), f"{type(self).__name__} EM", unit="iteration",
                                detail=f"structural EM, at most {searches}")
            restarts = "start" in self._knowledge  # a search that cannot start from a graph runs afresh
            ruled = []  # (n_power_rule_tests_, n_tests_) of each search running CI tests (MMHC)
            quiet = vars(self).pop("_quiet_summaries", False)

            def search(completed, start):
                self._quiet_summaries = True  # (counted here, warned once below)
                edges = self._structure(completed, start=start if restarts else None)
                if hasattr(self, "n_power_rule_tests_"):
                    ruled.append((self.n_power_rule_tests_, self.n_tests_))
                return edges

            def family_scores(rows, families):  # (the search's local scores on rows)
                cache = FamilyScoreCache(rows, self._resolved_plugin("scorer", rows))
                return [cache.local_score(child, parents) for child, parents in families]

            try:
                edges, cpts, trace = _em.structural_em(data, search, latent=latent, **fit, **settings,
                                                       fit_parameters=self.fit_parameters, progress=progress,
                                                       family_scores=family_scores,
                                                       learner=type(self).__name__, **moments)
            finally:
                self._quiet_summaries = quiet
            if ruled:  # one PowerRuleWarning for all the searches, with their sum
                report_power_rule(self, self.ci_test_, sum(n for n, _ in ruled), sum(n for _, n in ruled),
                                  (sum(1 for n, _ in ruled if n), f"{len(ruled):,} structural-EM searches"))
        self.em_trace_ = np.asarray(trace, dtype=float)
        self.em_n_iter_ = len(self.em_trace_) - 1
        if not self.fit_parameters:
            return edges, None, progress
        if data.has_continuous:  # MomentEM's parameters are the fitted network
            return edges, cpts, progress
        cpts = {data.names[i]: cpt for i, cpt in enumerate(cpts)}
        network = _make_network(data.names, states, _em.parents_of(edges, data.n_variables), cpts)
        return edges, network, progress

    # ------------------------------------------------------------ the search
    def _structure(self, data, *, start=None, counter=None, knowledge=None):
        """Run the search on the columns in name order and map its result back.

        The tie rule of every learner (see ``docs/reproducibility.md``): the search
        (:meth:`_run_search`) sees the columns sorted by name (:func:`skbn._data.name_order`,
        the order in which states are sorted), so every tie it breaks by position (two
        moves of equal gain, ``x -> y`` against ``y -> x`` under a score-equivalent score,
        pairs of equal mutual information, the first column as a default root) is broken
        by column name: the same data and ``random_state`` give the same result for any
        column order. Its edges and positional fitted attributes are then mapped back to
        the caller's column order (:meth:`_restore_column_order`). Data already in name
        order (the common case, and every nested search: MMHC's hill climbing, a
        bootstrap's resamples) are not copied.

        Parameters
        ----------
        data : EncodedData
        start : list of (parent_index, child_index) or None
            A start graph replacing the ``start`` parameter (structural EM), merged into
            the knowledge when the learner honours ``start``.
        counter : FamilyCounter or None
            A counting context of ``data`` shared with the caller.
        knowledge : BackgroundKnowledge or None
            Knowledge a calling learner gives (MMHC: its own, restricted to its skeleton);
            None parses this learner's parameters.

        Returns
        -------
        list of (parent_index, child_index)
            Positions in ``data``.
        """
        order = name_order(data.names)
        if order is None:
            return self._run_search(data, start=start, counter=counter, knowledge=knowledge)
        if counter is not None or knowledge is not None:  # both describe data in name order
            raise ValueError(f"{type(self).__name__}: a shared counter or knowledge needs the "
                             "columns in name order (they come from a search that sorted them).")
        position = np.argsort(order)  # position[i]: column i's place in name order
        if start is not None:
            start = [(int(position[u]), int(position[v])) for u, v in start]
        sorted_data = permute_columns(data, order)
        counter = MomentCounter.shared_with(data, sorted_data, order) if data.has_continuous else None
        with shared_moments(sorted_data, counter):  # one MomentCounter for the whole search
            edges = self._run_search(sorted_data, start=start)
        self._restore_column_order(data.names)
        return [(int(order[u]), int(order[v])) for u, v in edges]

    def _restore_column_order(self, names):
        """Put the fitted attributes the search set on name-ordered columns back in the
        column order ``names`` (of ``X``): the graphs (``PDAG`` attributes, nodes in
        ``names`` order, and the ``directed_edges_`` / ``undirected_edges_`` read from
        ``cpdag_``) and the square DataFrames indexed by the columns. A learner with other
        positional attributes (matrices, lists of pairs) extends it."""
        for name, value in list(vars(self).items()):
            if not name.endswith("_") or name.startswith("__"):
                continue
            if isinstance(value, PDAG):
                setattr(self, name, PDAG(names, value.directed, value.undirected))
            elif (isinstance(value, pd.DataFrame) and value.shape == (len(names), len(names))
                  and set(value.index) == set(names) and set(value.columns) == set(names)):
                setattr(self, name, value.loc[list(names), list(names)])
        if isinstance(getattr(self, "cpdag_", None), PDAG):
            if hasattr(self, "directed_edges_"):
                self.directed_edges_ = list(self.cpdag_.directed)
            if hasattr(self, "undirected_edges_"):
                self.undirected_edges_ = list(self.cpdag_.undirected)

    def _run_search(self, data, *, start=None, counter=None, knowledge=None):
        """Resolve the plug-ins, apply the cross-parameter rules, parse the knowledge, then
        run the search (:meth:`_learn_structure`, the protocol); the arguments are those of
        :meth:`_structure`, on data in name order."""
        for name in self._plugins:
            setattr(self, f"{name}_", self._resolved_plugin(name, data))
        if self._bounded_score:
            # (a bound of p - 1 or more parents bounds nothing)
            check_bounded_likelihood(self.scorer_, self.max_indegree, type(self).__name__, data.n_variables)
        if knowledge is None:
            knowledge = self._parsed_knowledge(data, start)
        return self._learn_structure(data, knowledge, start=start, counter=counter)

    def _resolved_plugin(self, name, data):
        """The plug-in ``name`` (``"scorer"``, ``"ci_test"``) the search uses on ``data``:
        ``"auto"`` read in :attr:`_auto_plugins` for the kind of data, an alias or a clone of
        an instance; refused, naming the columns, when it does not apply to the data."""
        value = getattr(self, name)
        if isinstance(value, str) and value == "auto":
            value = self._auto_plugins[name][_data_kind(data)]
        plugin = _PLUGIN_RESOLVERS[name](value)
        try:
            check_plugin_fits_data(plugin, data, name)
        except ValueError as error:
            auto = self._auto_plugins.get(name)
            if auto is None or type(plugin) is not type(_PLUGIN_RESOLVERS[name](auto[0])):
                raise
            # the discrete default: what set_params makes of 'auto' to set a nested parameter
            raise ValueError(
                f"{error} A nested parameter on {name}='auto' ({name}__... in set_params or a "
                f"GridSearchCV grid) replaces 'auto' by the default for discrete data, "
                f"{type(plugin).__name__}: to tune it on these columns, start from the default "
                f"for them, {type(self).__name__}({name}={auto[_data_kind(data)]!r})."
            ) from None
        return plugin

    def _parsed_knowledge(self, data, start=None):
        """The background knowledge of this learner's parameters on ``data`` (columns in
        name order), with the conditional-Gaussian rule on mixed data and ``start`` (a
        graph of positions) when the learner honours it."""
        given = {name: getattr(self, name) for name in self._knowledge}
        given.update({name: _labelled(value, data) for name, value in given.items()
                      if name != "max_indegree"})  # integer positions are those of X
        if start is not None and "start" in self._knowledge:
            given["start"] = [(data.names[u], data.names[v]) for u, v in start]
        # (the conditional-Gaussian rule forbids nothing unless both kinds of column are there)
        continuous = data.continuous if _data_kind(data) == 2 else None
        return parse_knowledge(data.names, **given, continuous=continuous)

    def _family_reach(self, data, knowledge):
        """The families this learner's search can give a node on ``data`` under ``knowledge``
        (:meth:`_parsed_knowledge`), for the determined-columns refusal of ``fit``
        (:func:`skbn._determined_columns.reachable_families`): ``(allowed, required, bound)``.

        ``allowed[i, j]``: the search may make ``i`` a parent of ``j`` (not forbidden by
        ``black_list``, ``tiers`` or the conditional-Gaussian rule, and ``j`` no ancestor of
        ``i`` along the required edges, which would close a cycle); ``required[i, j]``: ``i``
        is a parent ``j`` always has (the one-way white-listed edges); ``bound[j]``: the most
        parents of ``j`` (``max_indegree``, ``p - 1`` without one). A learner whose search
        is restricted in other ways (K2's ordering, a tree) narrows them; restrictions the
        search draws from the data (MMHC's candidate parents, PC's tests) are not known
        before it, and are not read.
        """
        p = data.n_variables
        closure = transitive_closure(np.asarray(knowledge.required_directed))
        allowed = ~np.asarray(knowledge.forbidden) & ~closure.T
        return allowed, np.array(knowledge.required_directed), np.full(p, knowledge.max_indegree)

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        """The search (see the class docstring): the DAG's ``(parent, child)`` positions."""
        raise NotImplementedError

    @staticmethod
    def _interventional_cpdag(data, edges, knowledge):
        """The interventional essential graph (:func:`skbn.graph.interventional_essential_graph`)
        of the DAG ``edges`` for the targets of ``data``: each distinct set of variables
        intervened on together in a row (observational rows: the empty target); its CPDAG
        without experimental rows.

        When the background knowledge ``knowledge`` fixes directions (a one-way white-listed
        or black-listed edge, tiers, the conditional-Gaussian rule on mixed data), the
        class is that of the DAGs which respect it: the maximally oriented graph of
        :func:`skbn.graph.meek_orient` (Meek 1995), whose undirected edges each DAG of the
        restricted class orients either way. ``edges`` respects the knowledge, so the
        knowledge is consistent with the class."""
        names = data.names
        labelled = [(names[u], names[v]) for u, v in edges]
        if data.intervened is None:  # observational: the CPDAG
            pdag = dag_to_cpdag(names, labelled)
        else:
            targets = [tuple(names[i] for i in target) for target in _intervention_targets(data)]
            pdag = interventional_essential_graph(names, labelled, targets)
        return restricted_class(pdag, knowledge.required, knowledge.forbidden)

    def _weighted_dags(self, data):
        """Several DAGs whose average is the model's density, or None (one DAG, ``edges_``).

        A learner that samples DAGs (order MCMC) returns ``(dags, weights)`` after its search:
        a list of DAGs as tuples of ``(parent, child)`` positions and their weights (summing
        to 1). ``fit`` then fits every DAG's CPTs (``averaged_networks_``, with weights
        ``averaged_weights_``) and ``score_samples`` / ``score`` / ``predict_proba`` average
        over them.
        """
        return None

    def _fit_network(self, data, states, edges):
        """The network of ``edges`` with CPTs; with :meth:`_weighted_dags`, also the averaged
        networks (a family's CPT estimated once, shared). None with ``fit_parameters=False``."""
        if not self.fit_parameters:
            return None  # structure only: see fit_parameters
        cache = {}

        def network(dag):
            parents = [[] for _ in range(data.n_variables)]
            for parent, child in dag:
                parents[child].append(parent)
            cpts = {}
            for child, pa in enumerate(parents):
                key = (child, tuple(sorted(pa)))
                if key not in cache:
                    self._check_cpt_size(data, child, pa)
                    codes, weights = _kept_rows(data, child)
                    cpt = estimate_cpt(
                        codes, data.cardinalities, child, list(key[1]),
                        method=self.parameter_estimator, ess=self.parameter_ess, weights=weights,
                    )
                    cpt.flags.writeable = False  # the network keeps it as is, without a copy
                    cache[key] = cpt
                cpts[data.names[child]] = cache[key]
            return _make_network(data.names, states, parents, cpts)

        if data.has_continuous:  # a Gaussian or CLG network (nothing of this on discrete data)
            network = functools.partial(self._continuous_network, data, states,
                                        MomentCounter.of(data), cache)
        averaged = self._weighted_dags(data)
        if averaged is not None:
            dags, weights = averaged
            self.averaged_networks_ = [network(dag) for dag in dags]
            self.averaged_weights_ = np.asarray(weights, dtype=float)
        return network(edges)

    def _fit_continuous_network(self, states, data, parents, family_data=None, *, variance_bounds=None,
                                current=None):
        """The Gaussian or CLG network with parent tuples ``parents`` fitted on the complete
        weighted ``data`` (EM's M-step, :class:`skbn._em.MomentEM`). With ``family_data``
        (EM's available-case start) the family of node ``i`` is fitted on
        ``family_data[i]`` instead, its CPT as the posterior mean (``parameter_ess``).
        ``variance_bounds`` (per node: ``(low, high)`` or None) and ``current`` (the network
        of the E-step): EM's constrained, generalised M-step (:meth:`_regressions`)."""
        bounds = variance_bounds or [None] * data.n_variables
        cache = {}
        for child, sub in enumerate(family_data or ()):
            pa = sorted(parents[child])
            if sub.continuous[child]:
                cache[(child, tuple(pa))] = self._regressions(sub, states, MomentCounter(sub), child, pa,
                                                              self._variance(), bounds=bounds[child])
            else:
                cache[(child, tuple(pa))] = estimate_cpt(sub.codes, sub.cardinalities, child, pa,
                                                         method="bayes", ess=self.parameter_ess,
                                                         weights=sub.weights)
        dag = [(p, child) for child, pa in enumerate(parents) for p in pa]
        counter = None if family_data else MomentCounter(data)
        return self._continuous_network(data, states, counter, cache, dag, bounds, current)

    def _variance(self):
        """The residual variance of continuous nodes: ``"mle"`` (``RSS / N``) or ``"unbiased"``."""
        return "mle" if self.parameter_estimator == "mle" else "unbiased"

    def _continuous_network(self, data, states, counter, cache, dag, variance_bounds=None, current=None):
        r"""The Gaussian (every column continuous) or CLG network of the DAG ``dag``.

        A continuous node gets, in every configuration :math:`\delta` of its discrete
        parents, the weighted least-squares regression on its continuous parents, read from
        the fit's moments (:class:`~skbn._counting.MomentCounter`, one scatter matrix per set
        of discrete parents, shared by every family and every averaged DAG):
        :math:`\beta = S_{PP}^{-1} S_{Pc}`, intercept :math:`\bar x_c - \bar x_P^\top\beta`
        and :math:`\hat\sigma^2 = RSS / (N_\delta - p - 1)` for
        ``parameter_estimator="bayes"`` (bnlearn's ``bn.fit``, the unbiased estimate) or
        :math:`RSS / N_\delta` for ``"mle"`` (maximum likelihood), with :math:`N_\delta`
        the total weight of the configuration's rows and :math:`p` the number of continuous
        parents. A discrete node of a CLG network gets its CPT as on discrete data
        (``parameter_estimator`` and ``parameter_ess``). A configuration with too few rows,
        collinear parents or no residual variance is an error naming the node and the
        configuration, but for the rules of :meth:`_regressions` (R's ``lm`` rule for exactly
        collinear parents and for a parent constant in a CLG configuration; the regression
        over all rows for a CLG configuration that rule cannot estimate). With
        experimental rows (``interventions``) every node's parameters
        come from the rows where it was not set by intervention. ``variance_bounds`` and
        ``current``: EM's M-step (:meth:`_regressions`).
        """
        variance = self._variance()
        bounds = variance_bounds or [None] * data.n_variables
        names = data.names
        parents = [[] for _ in range(data.n_variables)]
        for parent, child in dag:
            parents[child].append(parent)
        continuous = data.continuous
        families = [(child, sorted(pa)) for child, pa in enumerate(parents)]
        cpts, intercepts, coefficients, sigmas = {}, {}, {}, {}
        for child, pa in families:
            key = (child, tuple(pa))
            if key not in cache:
                if continuous[child]:
                    cache[key] = self._regressions(data, states, counter, child, pa, variance,
                                                   bounds=bounds[child],
                                                   held=_held_regressions(current, names, child, pa))
                else:
                    self._check_cpt_size(data, child, pa)
                    codes, weights = _kept_rows(data, child)
                    cache[key] = estimate_cpt(
                        codes, data.cardinalities, child, pa, method=self.parameter_estimator,
                        ess=self.parameter_ess, weights=weights)
            if continuous[child]:
                intercepts[names[child]], coefficients[names[child]], sigmas[names[child]] = cache[key]
            else:
                cpts[names[child]] = cache[key]
        labelled = {names[c]: [names[p] for p in sorted(pa)] for c, pa in enumerate(parents)}
        if continuous.all():
            return GaussianBayesianNetwork(list(names), labelled, intercepts, coefficients, sigmas)
        discrete = {name: list(s) for name, s, c in zip(names, states, data.continuous) if not c}
        return CLGBayesianNetwork(list(names), discrete, labelled, cpts, intercepts,
                                  coefficients, sigmas)

    def _regressions(self, data, states, counter, child, parents, variance, *, bounds=None, held=None):
        """``(intercept, coefficients, sigma)`` arrays of the continuous ``child`` over the
        configurations of its discrete ``parents`` (C order, as the CLG network stores them).

        Exactly collinear parents follow R's ``lm`` rule in every configuration
        (:func:`_aliased_regression`: the parent later in name order gets coefficient 0),
        and so does a continuous parent constant in a configuration (collinear with the
        intercept there: coefficient 0 there, the intercept and sigma from that
        configuration's rows), with one :func:`_warn_aliased` warning naming the
        configurations and the parents. A configuration whose own rows cannot estimate the
        regression even so gets the regression of the child on its continuous parents over
        all its rows, with a warning naming the configurations and why, as a CPT row without
        data gets the prior: no row, no more rows (total weight) than the coefficients of
        the parents left (a CLG score leaves an empty configuration out, so a learned graph
        may have one), or no residual spread there (every
        row on the regression, such as a column equal in the two rows of a configuration: a
        variance of 0 would give every other value density 0). A Gaussian family, which has
        one configuration, is an error naming the column instead, but for the ``lm`` rule
        (:func:`_regression_aliasing`), which the regression over all rows follows too.

        EM's M-step (:class:`skbn._em.MomentEM`) passes ``bounds``, the ``(low, high)``
        interval its residual variances are kept in (no residual spread is then the lower
        bound), and ``held``, the family's current ``(b0 (q,), B (q, p), sigma (q,))``
        (None when the family is new): a configuration its rows cannot estimate then keeps
        its current regression instead (a generalised EM step, see
        :class:`~skbn._em.MomentEM`); the pooled regression is EM's start there."""
        stats, column, columns, _ = counter.family(child, parents)
        continuous = data.continuous
        discrete = [p for p in parents if not continuous[p]]
        parent_names = [data.names[p] for p in sorted(parents) if continuous[p]]  # (as columns)
        if not discrete:  # one group (a Gaussian family)
            b0, b, s = _regression_aliasing(data, stats, column, columns, variance,
                                            f"the column {data.names[child]!r}", parent_names,
                                            bounds=bounds)
            return float(b0), b, float(s)
        shape = tuple(int(data.cardinalities[p]) for p in discrete)
        n = stats.n_groups
        b0, b, s = np.zeros(n), np.zeros((n, len(columns))), np.zeros(n)
        pooled, unestimable, aliasing = None, {}, []  # reason -> the configurations; (config, aliased)
        # (the configurations named in name order of the discrete parents, and visited in that
        # order, so that the warnings do not depend on the column order)
        ranks = name_ranks(data.names)
        by_name = sorted(range(len(discrete)), key=lambda i: ranks[discrete[i]])
        codes = np.column_stack(np.unravel_index(np.arange(n), shape))[:, by_name]
        for g in np.lexsort(codes.T[::-1]).tolist():
            config = repr({data.names[discrete[i]]: states[discrete[i]][int(codes[g, k])]
                           for k, i in enumerate(by_name)})
            where = f"the column {data.names[child]!r} in the configuration {config} of its discrete parents"
            try:
                b0[g], b[g], s[g], aliased = _aliased_regression(stats, g, column, columns, variance, where,
                                                                 parent_names, bounds=bounds)
                if aliased:
                    aliasing.append((config, aliased))
                continue
            except NotEstimable as error:
                reason = "too few rows" if error.reason == "no row" else error.reason
            if held is not None:  # EM: the current regression (its term of Q unchanged)
                b0[g], b[g], s[g] = held[0][g], held[1][g], held[2][g]
            else:
                if pooled is None:  # the child on its continuous parents over all its rows
                    one, one_column, one_columns, _ = counter.family(
                        child, [p for p in parents if continuous[p]])
                    pooled = _regression_aliasing(data, one, one_column, one_columns, variance,
                                                  f"the column {data.names[child]!r} over all its rows",
                                                  parent_names, bounds=bounds)
                b0[g], b[g], s[g] = pooled
            unestimable.setdefault(reason, []).append(config)
        if aliasing:
            _warn_aliased(f"the column {data.names[child]!r}", parent_names, aliasing, n)
        if unestimable:
            there = ("there, EM keeps its current regression (an M-step cannot estimate a new one "
                     "from those expected rows; EM started from the regression over all its rows)."
                     if held is not None else
                     "there, its regression is the one over all its rows (on its continuous parents, "
                     "the discrete ones ignored), as a CPT row without data gets the prior. In a "
                     "cross-validation fold, the training rows may lack such configurations.")
            coefficients = f" ({len(columns) + 1} coefficients, intercept included)"
            why = "; ".join(
                f"{reason}{coefficients if reason == 'too few rows' else ''}"
                f" in {', '.join(configs[:5])}{', ...' if len(configs) > 5 else ''}"
                for reason, configs in unestimable.items())
            count = sum(len(configs) for configs in unestimable.values())
            warn_user(
                f"{type(self).__name__}: the column {data.names[child]!r} cannot be estimated on its own "
                f"rows in {count} of "
                f"the {n} configurations of its discrete parents ({why}): {there}"
            )
        return b0.reshape(shape), b.reshape(shape + (len(columns),)), s.reshape(shape)

    def _check_cpt_size(self, data, child, parents):
        """Refuse, naming the column, a CPT too large to store (``MAX_CPT_SIZE`` cells)."""
        size = int(np.prod([data.cardinalities[c] for c in [*parents, child]], dtype=np.float64))
        if size <= MAX_CPT_SIZE:
            return
        params = self.get_params(deep=False)
        if "max_indegree" in params:
            fix = "limit the number of parents with max_indegree=..., or "
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
        return self._encode_rows(X, y)[0]

    def _encode_rows(self, X, y=None):
        """Codes over the network's nodes (``-1`` = marginalise) for scoring data, and, for a
        Gaussian or CLG network, the continuous values (NaN = marginalise; else None)."""
        check_is_fitted(self)
        nodes = self.network_.nodes
        states = [_node_states(self.network_, n) for n in nodes]
        continuous = not isinstance(self.network_, DiscreteBayesianNetwork)
        fitted_with_y = self._target_index == self.n_features_in_  # y follows the columns of X
        x_nodes = nodes[: self.n_features_in_]  # then the target fitted through y, latent nodes
        target_name = None if self.target is None else nodes[self._target_index]
        features = [c for c in getattr(self, "feature_names_in_", ()) if c != target_name]
        if isinstance(X, pd.DataFrame) and target_name is not None and target_name not in X.columns:
            # predicting the target column: it may be left out of X (other mismatches are
            # reported by validate_data below)
            if list(X.columns) != features and sorted(map(str, X.columns)) == sorted(map(str, features)):
                raise ValueError(
                    f"The feature names should match those that were passed during fit, in the "
                    f"same order. X leaves out the target {target_name!r} (allowed) but has the "
                    f"other columns in another order; pass X[{features!r}]."
                )
            if list(X.columns) == features:
                X = X.copy()
                X[target_name] = np.nan
                X = X[list(self.feature_names_in_)]
        check_container(X)  # shape errors first, with sklearn's wording
        validate_data(self, X, skip_check_array=True, reset=False)
        warn = self.handle_unknown == "warn"
        handle = "error" if self.handle_unknown == "error" else "marginalize"
        values = None
        if continuous:
            codes, values = encode_transform(X, x_nodes, states[: len(x_nodes)], handle_unknown=handle,
                                             return_values=True)
        else:
            codes = encode_transform(X, x_nodes, states[: len(x_nodes)], handle_unknown=handle)
        unseen = [] if handle == "error" else _unseen_cells(X, x_nodes, codes)
        if len(nodes) > len(x_nodes):
            unobserved = np.full((codes.shape[0], len(nodes) - len(x_nodes)), -1, dtype=np.int64)
            extra = np.full(unobserved.shape, np.nan)
            if fitted_with_y and y is not None:
                y_frame = pd.DataFrame({nodes[len(x_nodes)]: np.asarray(y).reshape(-1)})
                y_codes, y_values = encode_transform(
                    y_frame, [nodes[len(x_nodes)]], [states[len(x_nodes)]], handle_unknown=handle,
                    return_values=True)
                unobserved[:, 0], extra[:, 0] = y_codes[:, 0], y_values[:, 0]
                if handle != "error":
                    unseen += _unseen_cells(y_frame, [nodes[len(x_nodes)]], unobserved[:, :1])
            codes = np.hstack([codes, unobserved])
            if continuous:
                values = np.hstack([values, extra])
        if unseen and warn:
            warn_user(_unseen_message(unseen, codes.shape[0]), UnseenStateWarning)
        return codes, values

    def _frame(self, codes, values):
        """Encoded rows as the labelled DataFrame a Gaussian or CLG network reads: state
        labels (None = missing) for discrete nodes, floats (NaN = missing) for continuous ones."""
        columns = {}
        for j, node in enumerate(self.network_.nodes):
            node_states = _node_states(self.network_, node)
            if node_states is None:
                columns[node] = np.where(codes[:, j] < 0, np.nan, values[:, j])
            else:
                labels = np.empty(len(node_states) + 1, dtype=object)
                labels[:-1] = node_states
                labels[-1] = None
                columns[node] = labels[codes[:, j]]  # code -1: the last entry, None
        return pd.DataFrame(columns)

    @_one_blas_thread
    def score_samples(self, X):
        """Log-likelihood ``log p(x)`` of every row under the fitted network.

        Missing cells (NaN), unknown states with ``handle_unknown='marginalize'`` and a
        target fitted through ``y`` are summed out exactly (integrated out for a continuous
        column: the density of the observed cells). A row that a CPT gives probability 0 (a
        state never seen in fit with its parents' states, under
        ``parameter_estimator="mle"``) scores ``-inf``, with one
        :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to score, with the columns seen in ``fit``; NaN or None marks a missing cell.

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
            Natural logarithm of the probability (with continuous columns: the density) of
            every row.
        """
        _check_network(self)
        return self._scored_log_density(*self._encode_rows(X))

    def _scored_log_density(self, codes, values=None):
        """:meth:`_log_density` of the rows ``score_samples`` and ``score`` score, with one
        :class:`~skbn.exceptions.ZeroProbabilityWarning` when some row has probability 0
        (:func:`skbn._zero_probability.zero_probability_warning`, the message of the
        networks' ``log_likelihood``, which :meth:`_log_density` calls without its warning,
        plus the advice of ``parameter_estimator``); the values are unchanged."""
        log_likelihood = self._log_density(codes, values)
        networks = getattr(self, "averaged_networks_", None) or [self.network_]
        warn_zero_probability(networks, codes, log_likelihood, estimator=self.parameter_estimator)
        return log_likelihood

    def _warn_impossible_evidence(self, codes, impossible):
        """One :class:`~skbn.exceptions.ZeroProbabilityWarning` when some row of ``codes``
        is ``impossible``: its evidence (the row without its target cell) has probability 0
        under every network of the model, as each network's prediction finds it
        (:mod:`skbn._zero_probability`, whose rule and message the networks share); the
        message adds the advice of ``parameter_estimator``."""
        networks = getattr(self, "averaged_networks_", None) or [self.network_]
        warn_impossible_evidence(networks, codes, impossible, self.network_.nodes[self._target_index],
                                 estimator=self.parameter_estimator)

    def _log_density(self, codes, values=None):
        r"""``log p(x)`` of encoded rows: the network's, or with several weighted DAGs
        (:meth:`_weighted_dags`) the model average :math:`\log \sum_m w_m p(x \mid G_m)`.
        With ``values`` (a Gaussian or CLG network), the exact density of the observed cells
        (missing ones integrated out). The networks' methods without their warning (the
        caller warns once for its call)."""
        if values is None:
            density = lambda net: net._log_likelihood_codes(codes)  # noqa: E731
        else:
            frame = self._frame(codes, values)
            density = lambda net: net._log_likelihood(frame)  # noqa: E731
        networks = getattr(self, "averaged_networks_", None)
        with reading_encoded_rows():
            if networks is None:
                return density(self.network_)
            logs = np.array([density(net) for net in networks])
        return logsumexp(logs + np.log(self.averaged_weights_)[:, None], axis=0)

    def _posterior_weights(self, density):
        """Posterior weight of every averaged DAG given each row's evidence, shape
        ``(n_dags, n_samples)`` (equal where the evidence is impossible under every DAG)."""
        with reading_encoded_rows():
            log_weight = np.array([density(net) for net in self.averaged_networks_])
        log_weight += np.log(self.averaged_weights_)[:, None]
        peak = np.max(log_weight, axis=0)
        posterior = np.exp(log_weight - np.where(np.isfinite(peak), peak, 0.0))
        posterior[:, ~np.isfinite(peak)] = 1.0  # impossible evidence under every DAG: equal
        return posterior / posterior.sum(axis=0)

    @_one_blas_thread
    def score(self, X, y=None, sample_weight=None):
        """Mean log-likelihood per row (of ``(x, y)`` when ``y`` is given with a fitted target).

        Higher is better, so ``GridSearchCV`` and ``cross_val_score`` select by held-out
        likelihood. With ``sample_weight``, the weighted mean. A row of probability 0 makes
        it ``-inf``, with a :class:`~skbn.exceptions.ZeroProbabilityWarning` (see
        :meth:`score_samples`).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to score, with the columns seen in ``fit``; NaN or None marks a missing cell.
        y : array-like of shape (n_samples,), default=None
            Target values when the estimator was fitted with ``fit(X, y)``: the score is then
            the mean of ``log p(x, y)``. Ignored otherwise (the target is summed out).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights of the mean (validated as in ``fit``; rows of weight 0 are dropped
            first, so nothing in them is read).

        Returns
        -------
        score : float
            Mean (weighted mean) natural log-likelihood per row.
        """
        _check_network(self)
        X, weights, y = positive_weight_rows(X, sample_weight, y)
        log_likelihood = self._scored_log_density(*self._encode_rows(X, y))  # y: see _encode
        return float(np.average(log_likelihood, weights=weights))

    @available_if(_has_discrete_target)
    @_one_blas_thread
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
            Posterior probability of every state of the target, rows summing to 1. A row
            whose evidence (its cells other than the target) has probability 0 under the
            fitted network (under every averaged DAG), through a CPT entry of 0
            (``parameter_estimator="mle"``), has no posterior: it gets the uniform
            distribution (so :meth:`predict` gives it the first class of ``classes_``), with
            one :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns.
            The rule and the message are those of the network objects' own ``predict_proba``,
            which find the same rows.
        """
        _check_network(self)
        target = self._target_index
        name = self.network_.nodes[target]
        codes, values = self._encode_rows(X)
        networks = getattr(self, "averaged_networks_", None)
        if values is not None:  # a CLG network: its exact posterior, columns in classes_ order
            frame = self._frame(codes, values).drop(columns=name)
            with reading_encoded_rows():
                answers = [net._predict_proba(frame, name) for net in networks or [self.network_]]
            answers = [(proba.to_numpy(dtype=float), impossible) for proba, impossible in answers]
            density = lambda net: net._log_likelihood(frame)  # noqa: E731
            order = slice(None)
        else:
            answers = [net._predict_proba_codes(codes, target) for net in networks or [self.network_]]
            evidence = codes.copy()
            evidence[:, target] = -1
            density = lambda net: net._log_likelihood_codes(evidence)  # noqa: E731
            order = _class_order(self.network_.states[name])  # network state order -> classes_ order
        # impossible for the model: under every averaged DAG (a DAG that finds the row possible
        # gives it positive weight)
        self._warn_impossible_evidence(codes, np.logical_and.reduce([imp for _, imp in answers]))
        if networks is None:
            return answers[0][0][:, order]
        # model average: sum_m w_m p(x | G_m) p(y | x, G_m) / sum_m w_m p(x | G_m), each row
        # divided by its sum: the weighted sum of rows summing to 1 rounds to 1 + 4e-16 and
        # entries above 1, which scikit-learn's log_loss (neg_log_loss) refuses
        posterior = self._posterior_weights(density)
        proba = sum(w[:, None] * proba for w, (proba, _) in zip(posterior, answers))
        return (proba / proba.sum(axis=1, keepdims=True))[:, order]

    @available_if(_has_target)
    @_one_blas_thread
    def predict(self, X):
        r"""Most probable target state per row (first in ``classes_`` order on ties); for a
        continuous target, its conditional mean given the other columns.

        The conditional mean :math:`E[y \mid x_o]` is exact (a mixture over the discrete
        configurations that matter in a CLG network; missing cells integrated out), so with
        a continuous target the estimator is a regressor for ``scoring="r2"``. It is still a
        density estimator by its tags (``score`` is the held-out log-likelihood).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to classify, as for :meth:`predict_proba`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The state of ``classes_`` with the largest posterior probability, or the
            conditional mean (float) of a continuous target. A row whose evidence has
            probability 0 (a CPT entry of 0, ``parameter_estimator="mle"``) has no posterior:
            it gets the first class (:meth:`predict_proba`'s uniform distribution), or NaN for
            a continuous target, with one :class:`~skbn.exceptions.ZeroProbabilityWarning`
            per call naming the columns; the other rows are predicted as usual.
        """
        _check_network(self)
        name = self.network_.nodes[self._target_index]
        if _node_states(self.network_, name) is not None:
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]
        codes, values = self._encode_rows(X)  # a continuous target: its conditional mean
        frame = self._frame(codes, values).drop(columns=name)
        networks = getattr(self, "averaged_networks_", None)
        with reading_encoded_rows():
            answers = [net._predict(frame, name) for net in networks or [self.network_]]
        impossible = np.logical_and.reduce([imp for _, imp in answers])  # (under every DAG)
        self._warn_impossible_evidence(codes, impossible)
        if networks is None:
            return answers[0][0].to_numpy(dtype=float)  # (NaN: a row of impossible evidence)
        prediction = np.where(impossible, np.nan, 0.0)
        posterior = self._posterior_weights(lambda net: net._log_likelihood(frame))
        for weight, (mean, _) in zip(posterior, answers):
            rows = ~impossible & (weight > 0)  # (a DAG under which the evidence is impossible weighs 0)
            prediction[rows] += weight[rows] * mean.to_numpy(dtype=float)[rows]
        return prediction

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
            One categorical column per discrete node and one float64 column per continuous
            node, in node order.
        """
        _check_network(self)
        return self.network_.sample(n_samples, random_state=random_state)


_BaseStructureLearner.__doc__ = fill_common_parameters(_BaseStructureLearner.__doc__)


def _unseen_cells(X, names, codes):
    """``[(column, unseen states, number of rows)]``: the cells of ``X`` that ``codes`` mark
    ``-1`` (marginalised) but that are not missing, i.e. states unknown to the network.

    Non-integral or infinite floats in such a column are refused instead: it held whole
    numbers in fit (discrete by the column-type rule), and a fraction there is a measurement,
    not a state (in cross-validation, a training fold of whole numbers and a test fold
    with fractions: the column should be declared continuous).
    """
    found = []
    array = None if isinstance(X, pd.DataFrame) else check_container(X)
    for j in np.flatnonzero((codes < 0).any(axis=0)):
        values = np.asarray(X[names[j]] if array is None else array[:, j], dtype=object)
        unknown = (codes[:, j] < 0) & ~np.asarray(pd.isna(values), dtype=bool)
        if not unknown.any():
            continue
        states = pd.unique(values[unknown]).tolist()
        floats = [v for v in states if isinstance(v, (float, np.floating))]
        if any(not np.isfinite(v) or v != np.round(v) for v in floats):
            raise ValueError(
                f"Column {names[j]!r} holds continuous (non-integer or infinite) floats, e.g. "
                f"{next(v for v in floats if not np.isfinite(v) or v != np.round(v))!r}, but held "
                "only whole numbers in fit, so it is discrete (its values are states; only "
                "NaN/None mark a missing cell). If it holds measurements, declare it: "
                f"column_types={{{names[j]!r}: 'continuous'}} (in cross-validation, a training "
                "fold of whole numbers made it discrete); else discretize it as in fit, e.g. with "
                "sklearn.preprocessing.KBinsDiscretizer(encode='ordinal')."
            )
        found.append((names[j], states, int(unknown.sum())))
    return found


def _unseen_message(unseen, n_rows):
    """The ``UnseenStateWarning`` text: which columns, which states, how many rows, what to do."""
    cells = "; ".join(
        f"column {name!r}: {', '.join(repr(v) for v in states[:10])}"
        f"{' ...' if len(states) > 10 else ''} ({count} of {n_rows} rows)"
        for name, states, count in unseen
    )
    return (
        f"States never seen in fit were met and summed out of the likelihood "
        f"(handle_unknown='warn'): {cells}. The training rows never contained them (and they were "
        "not declared with categories= or a pandas CategoricalDtype). In cross-validation a "
        "training fold lacks a state when the rows are sorted by a column and split into "
        "unshuffled folds (shuffle them, e.g. cv=KFold(5, shuffle=True, random_state=0), or "
        "StratifiedKFold(shuffle=True) with a target), but also, with shuffled folds, when the "
        "state is rare (the state of a single row is never in a training and a test fold at "
        "once), or when the folds hold out groups of the column (GroupKFold): then declare the "
        "column's states from the whole data (X[column].astype('category') before splitting, or "
        "categories=) so that they get prior mass, or drop the column. "
        "handle_unknown='marginalize' sums them out silently, 'error' raises."
    )


def _sorted_classes(states):
    """``classes_``: the target's states sorted (see :func:`_class_order`).

    The states themselves, never converted: labels of mixed types (``1`` beside ``"a"``, or
    ``b"a"``), which ``np.asarray`` would turn into the strings ``"1"`` and ``"a"``, are
    kept in an object array, so that ``predict`` returns the labels of ``y`` (``1``, not ``"1"``)."""
    classes = [states[k] for k in _class_order(states)]
    array = np.asarray(classes)
    text = {"U": str, "S": bytes}.get(array.dtype.kind)
    if text is not None and not all(isinstance(c, text) for c in classes):
        array = np.empty(len(classes), dtype=object)
        array[:] = classes
    return array


def _warn_sparse_columns(estimator, data):
    """Warn, naming them, about the undeclared discrete columns with more than
    :data:`~skbn._data.SPARSE_INTEGER_STATES` observed states and fewer than two rows per
    state: the shape of an identifier or a name (MASS's ``Cars93``: ``Make`` and ``Model``,
    93 values in 93 rows). Most of such a column's states are seen once, which no discrete
    model estimates; it tells every row apart, so it "explains" every other column (a
    Chow-Liu tree becomes a star around it, BDeu gives it parents) and held-out rows hold
    states never seen in fit. Whole numbers of that shape are refused by the column-type
    rule (they may be measurements); text and pandas categories reach the learner, hence
    this warning. A column declared with ``column_types=`` or ``categories=`` is not named,
    nor is the target. Rows are counted as the identifier rule of
    :func:`skbn._determined_columns.check_determined_columns` counts them
    (:func:`skbn._counting.row_copies`: integer weights and the copies of chunked data's
    distinct rows are rows).
    """
    most = np.maximum.reduce(data.cardinalities, initial=0)  # (the most states of a column)
    if not estimator._learns_structure or most <= SPARSE_INTEGER_STATES:
        return  # (no column with that many states: nothing to count)
    copies = row_copies(data.weights)
    found = []
    for j in np.argsort(name_ranks(data.names), kind="stable").tolist():
        n_states = int(data.cardinalities[j])
        if n_states <= SPARSE_INTEGER_STATES or j == data.target:
            continue
        codes = data.codes[:, j]
        observed = codes >= 0
        weights = None if copies is None else copies[observed]
        counts = count_cells(codes[observed], n_states, weights)
        n_values, n_rows = int(np.count_nonzero(counts)), float(counts.sum())
        if n_values <= SPARSE_INTEGER_STATES or n_rows >= 2 * n_values:
            continue
        name = data.names[j]
        if (_user_type(getattr(estimator, "column_types", "auto"), j, name) is not None
                or _user_states(getattr(estimator, "categories", "auto"), j, name) is not None):
            continue
        found.append(f"{name!r} ({n_values} distinct values in {n_rows:.0f} rows)")
    if found:
        first = found[0].split(" (")[0]
        warn_user(
            f"{type(estimator).__name__}: {', '.join(found)}: fewer than two rows per value. Most "
            f"states of such a column are seen once, which a discrete model cannot estimate, and "
            "a column that tells the rows apart (an identifier or a name) explains every other "
            "column: it gets edges to the columns it tells apart (a Chow-Liu tree becomes a star "
            "around it), while held-out rows hold states never seen in fit. Drop it if it "
            f"identifies the rows; declare it, e.g. column_types={{{first}: 'discrete'}}, to keep "
            "it without this warning."
        )


def _warn_whole_number_states(estimator, data):
    """Warn, naming them in name order, about the undeclared numeric columns of whole numbers
    that the column-type rule made discrete with more than
    :data:`~skbn._data.SPARSE_INTEGER_STATES` values (at most
    :data:`~skbn._data.MAX_INTEGER_STATES`; more are refused): ``data.whole_number_codes``,
    which the encoder collected where the rule decided (:func:`skbn._data._read_as_codes`,
    in memory and in chunks), with each column's number of values and the rows the rule
    counted. Such a column may be a rounded measurement (HSAUR3's ``skulls``: skull sizes in
    mm, 16 to 27 values in 150 rows) whose values became unordered states. The target (a
    column named by ``target=``; ``y`` of ``fit(X, y)`` is not encoded with ``X``) is not
    named: class labels are states. :class:`~skbn.exceptions.WholeNumberStatesWarning`.
    """
    target = None if data.target is None else data.names[data.target]
    found = [entry for entry in data.whole_number_codes if entry[0] != target]
    if not found:
        return
    ranks = name_ranks([name for name, _, _ in found])
    found = [found[k] for k in np.argsort(ranks, kind="stable")]
    names = [repr(name) for name, _, _ in found]
    listed = ", ".join(f"{name} ({n_values} values in {n_rows:.0f} rows)"
                       for name, (_, n_values, n_rows) in zip(names, found))
    one = len(found) == 1
    as_dict = ", ".join(f"{name}: 'continuous'" for name in names)
    # (every column named: the one declaration for all; it would refuse a text column, and
    # would make a numeric target continuous)
    every = (" (column_types='continuous' declares every column)"
             if target is None and len(found) == data.n_variables else "")
    warn_user(
        f"{type(estimator).__name__}: {'column' if one else 'columns'} {listed} "
        f"{'holds' if one else 'hold'} whole numbers that the column-type rule, undeclared, made "
        f"discrete (more than {SPARSE_INTEGER_STATES} and at most {MAX_INTEGER_STATES} distinct "
        "values): each value became a state, so the order of the values and the distances "
        "between them are lost, and that many states need many rows per state. If "
        f"{'it is a measurement' if one else 'they are measurements'}, declare "
        f"{'it' if one else 'them'} continuous: column_types={{{as_dict}}}{every}; if "
        f"{'its values are codes' if one else 'their values are codes'}, declare "
        f"{'it' if one else 'them'} discrete, e.g. column_types={{{names[0]}: 'discrete'}}, to "
        f"keep {'it' if one else 'them'} without this warning.",
        WholeNumberStatesWarning,
    )


def _count_labels(labels):
    """Whether the states ``labels`` of a column are the counts of a frequency table: numbers
    (not bools), whole and non-negative, at least three of them and one at least 2 (not a
    0/1 indicator)."""
    if len(labels) < 3 or not all(isinstance(v, Real) and not isinstance(v, (bool, np.bool_))
                                  for v in labels):
        return False
    values = np.asarray(labels, dtype=np.float64)
    return bool(np.all(values >= 0) and np.all(values == np.round(values)) and values.max() >= 2)


def _warn_count_column(estimator, data, states):
    """Warn, naming it, about a column that looks like the count of each row of a frequency
    table (R's ``as.data.frame(table)``: ``Freq``, ``count``, ``n``) left in ``X`` without
    ``sample_weight``.

    The signature: every column is discrete and observed, one column ``c`` holds
    non-negative whole numbers (:func:`_count_labels`), and the other columns (at least two,
    the target included) take every combination of their observed states in exactly one
    row -- ``n = prod r_k`` rows, all distinct -- as the cells of a table do. Such a column
    with few distinct counts passes the column-type rule as discrete codes, so the model
    would be learned from the table's cells, one row each, with the counts as one more
    variable, instead of from the individuals they count. The first such column in name
    order is named; a column declared with ``column_types=`` or ``categories=`` is not, nor
    are data with row weights other than 1.
    """
    n_rows, n_columns = data.codes.shape
    if (data.has_continuous or n_columns < 3 or n_rows < 4
            or (data.weights is not None and np.any(data.weights != 1))):
        return
    # (the columns whose state labels could be counts, read from the labels alone: most
    # data have none, and then no cell is read)
    candidates = [j for j in range(n_columns)
                  if j != data.target and _count_labels(states[j])
                  and _user_type(getattr(estimator, "column_types", "auto"), j, data.names[j]) is None
                  and _user_states(getattr(estimator, "categories", "auto"), j, data.names[j]) is None]
    if not candidates or (data.codes < 0).any():
        return
    ranks = name_ranks(data.names)
    candidates.sort(key=lambda j: ranks[j])  # (the first in name order is named)
    counts = [count_cells(data.codes[:, k], int(data.cardinalities[k])) for k in range(n_columns)]
    observed = [int(np.count_nonzero(c)) for c in counts]
    cells = int(np.prod(observed, dtype=object))
    for j in candidates:
        name = data.names[j]
        present = np.flatnonzero(counts[j]).tolist()  # (the codes the rows hold)
        if cells // observed[j] != n_rows or not _count_labels([states[j][c] for c in present]):
            continue
        ids, n_ids = config_ids(data.codes, data.cardinalities, [k for k in range(n_columns) if k != j])
        if count_cells(ids, n_ids).max() != 1:  # (some combination of the others repeats)
            continue
        total = float(sum(states[j][c] * counts[j][c] for c in present))
        others = sorted((k for k in range(n_columns) if k != j), key=lambda k: ranks[k])  # (in name order)
        shown = ", ".join(repr(data.names[k]) for k in others)
        warn_user(
            f"{type(estimator).__name__}: the data look like a frequency table: every combination "
            f"of the states of {shown} is in exactly one row, and {name!r} holds non-negative "
            f"whole numbers, as the count of each row would (R's as.data.frame(table) 'Freq'). "
            f"As a column, {name!r} is one more variable and the model is learned from the "
            f"{n_rows} rows (the cells of the table), not from the {total:g} individuals they "
            f"count. If it is the count of each row, drop {name!r} from X and pass it as "
            f"sample_weight; to keep it as a variable without this warning, declare "
            f"column_types={{{name!r}: 'discrete'}}."
        )
        return


def _check_determined_columns(estimator, data, states, refusing=True):
    """The determined-columns checks of ``fit``
    (:func:`skbn._determined_columns.check_determined_columns`, whose docstring lists them)
    for ``estimator``: none for a learner given its structure; the discrete functional pairs
    for a learner that runs conditional-independence tests on the data (a ``ci_test``
    plug-in other than the d-separation oracle: PC, MMHC); the spread within discrete states
    as its search reads it (:func:`_reads_spread`); and, when the network is fitted
    (``fit_parameters=True``), a refusal before the search of the determined continuous
    columns a search would give a family of residual variance 0: for a search that scores
    (the learner's own or the one a ``BootstrapStructure`` wraps), those whose family its
    scorer gives a finite score (BGe); for a search by tests alone (PC), every one; in
    both cases only the families the search can reach (:meth:`_BaseStructureLearner._family_reach`:
    ``max_indegree``, the background knowledge, K2's ordering, a tree's one parent).
    ``states``: the state names of every column (None for a continuous one), as ``fit``
    encodes them. ``refusing=False`` (the network fitted by EM, ``missing="em"`` or
    ``"available_case"``, which holds a residual variance at its floor rather than failing)
    only warns.
    """
    if not estimator._learns_structure:
        return
    learner = _searching_learner(estimator)
    tests = learner is not None and "ci_test" in learner._plugins and _tests_the_data(learner.ci_test)
    scorer_of = refuse = None
    if learner is not None and "scorer" in learner._plugins:
        def scorer_of():  # (resolved as the search resolves it, only when a column is determined)
            return learner._resolved_plugin("scorer", data)

        if estimator.fit_parameters and refusing:
            refuse = "scorer" if learner is estimator else "estimator__scorer"
            if isinstance(learner.scorer, str):  # (the alias the user gave: 'bge', 'auto')
                refuse = f"{refuse}={learner.scorer!r}"
    elif tests and estimator.fit_parameters and refusing:  # tests alone (PC): no score keeps it away
        refuse = "fit_parameters=True"

    def reach():  # (the families the search can give a node: only when a column is determined)
        return learner._family_reach(data, learner._parsed_knowledge(data))

    check_determined_columns(data, states, type(estimator).__name__, tests=tests,
                             reader=_reads_spread(learner), scorer_of=scorer_of, refuse=refuse,
                             reach=reach if learner is not None else None,
                             rank_rule=learner is estimator and not tests)


def _regression_aliasing(data, stats, column, columns, variance, where, parent_names, bounds=None):
    """``(intercept, coefficients, sigma)`` of a learner's Gaussian family (group 0 of
    ``stats``): :func:`_aliased_regression`, R's ``lm`` rule for exactly collinear or
    constant parents, with :func:`_warn_aliased`'s warning naming ``where`` (the child).
    ``parent_names``: the names of the parents ``columns`` (positions in ``stats``)."""
    b0, b, s, aliased = _aliased_regression(stats, 0, column, columns, variance, where, parent_names,
                                            bounds)
    if aliased:
        _warn_aliased(where, parent_names, [(None, aliased)])
    return b0, b, s


def _aliased_regression(stats, group, column, columns, variance, where, parent_names, bounds=None):
    """:func:`skbn._continuous_network.aliased_family_parameters` in configuration ``group``
    of ``stats``, the parents taken in name order (``parent_names``, aligned with
    ``columns``): the parent later in name order is the one aliased, whatever the column
    order. ``(intercept, coefficients, sigma, aliased)``."""
    order = np.argsort(name_ranks(parent_names), kind="stable") if parent_names else []
    return aliased_family_parameters(stats, group, column, columns, variance, where, order, bounds,
                                     parent_names)


def _warn_aliased(where, parent_names, cases, n_configurations=None):
    """One :class:`~skbn.exceptions.DeterminedColumnsWarning` naming the parents that
    :func:`_aliased_regression` left out of the regression of ``where`` (the child) and
    the parents each is a linear function of (none: constant, a multiple of the
    intercept's column). ``cases``: ``(configuration, aliased)`` pairs, the configuration
    the repr of a CLG configuration of the child's discrete parents, of which there are
    ``n_configurations``, or None for a family with one group (a Gaussian family, the
    regression over all rows)."""
    def functions(aliased):
        return "; ".join(
            f"{parent_names[k]!r} is a linear function of {', '.join(repr(parent_names[i]) for i in given)}"
            if given else f"{parent_names[k]!r} is constant, a multiple of the intercept"
            for k, given in aliased)

    out = sorted({k for _, aliased in cases for k, _ in aliased})
    left_out = ", ".join(repr(parent_names[k]) for k in out)
    if n_configurations is None:  # (one group)
        aliased = cases[0][1]
        kept = [repr(name) for k, name in enumerate(parent_names) if k not in out]
        scope, there = f" ({functions(aliased)})", ""
        regression = f"it is the regression on {', '.join(kept) or 'no parent'}"
        rows = "the training rows"
    else:
        listed = "; ".join(f"in {config}: {functions(aliased)}" for config, aliased in cases[:5])
        scope = (f" in {len(cases)} of the {n_configurations} configurations of its discrete parents "
                 f"({listed}{'; ...' if len(cases) > 5 else ''})")
        there = " there"
        regression = "it is the regression on the other parents, fitted on the configuration's own rows"
        rows = "those rows"
    advice = (" Keep one column of each such group to avoid it."
              if any(given for _, aliased in cases for _, given in aliased) else "")
    warn_user(
        f"The parents of {where} are exactly collinear{scope}, so their coefficients are not "
        f"identifiable{there}. As R's lm (and bnlearn's bn.fit) does, the regression{there} leaves "
        f"{left_out} out, with coefficient 0 (NA in R): {regression}, whose fitted values and residual "
        f"variance are those of every least-squares solution on {rows}.{advice}",
        DeterminedColumnsWarning,
    )


def _searching_learner(estimator):
    """The learner whose search ``estimator`` runs: itself, or the learner a
    ``BootstrapStructure`` wraps (None when its search refuses it, naming it)."""
    if not hasattr(estimator, "_check_estimator"):
        return estimator
    try:
        return estimator._check_estimator()
    except TypeError:  # (refused by the search, naming it)
        return None


def _reads_spread(learner):
    """How the search of ``learner`` (:func:`_searching_learner`: the learner a
    ``BootstrapStructure`` wraps, None when refused) reads a continuous column's spread
    within the states of a discrete column: ``"score"`` (a scorer: on mixed data a CLG
    score, whose family is ``-inf`` where the child has no spread), ``"test"`` (CI tests on
    the data only: the CLG test leaves such a state out), or None (the d-separation oracle
    reads no data)."""
    if learner is None:
        return None
    if "scorer" in learner._plugins:
        return "score"
    if "ci_test" in learner._plugins and _tests_the_data(learner.ci_test):
        return "test"
    return None


def _given_ci_test(ci_test):
    """The test object of a ``ci_test`` parameter (:func:`skbn.citests.resolve_ci_test`),
    or None for ``"auto"``, which the search resolves by the data's kind (never the robust
    test nor the oracle)."""
    if isinstance(ci_test, str) and ci_test == "auto":
        return None
    return resolve_ci_test(ci_test)


def _tests_the_data(ci_test):
    """Whether the ``ci_test`` parameter is a valid test that reads the data: ``"auto"`` or
    a test other than the d-separation oracle (False for an invalid one, which the search
    then refuses, naming it)."""
    try:
        return not isinstance(_given_ci_test(ci_test), DSeparationOracle)
    except (ValueError, TypeError):
        return False


def _check_finite_scores(estimator, data):
    """Refuse a scorer whose parameters make the scores non-finite, naming the parameter.

    Three local scores are computed, from the rows where the family is observed: the
    column of fewest states without parents (the largest prior cells ``ess / r``, so the
    first to lose the counts to float64 rounding), the column of most states without
    parents, and that column with the next widest as its one parent (the smallest prior
    cells ``ess / (q r)``). An overflowing hyperparameter (``BDeu(ess=1e300)`` overflows the
    log-gamma terms of the Dirichlet prior) gives ``inf`` or ``nan`` there, or a score of 0
    that only rounding explains, which a search would otherwise carry into a NaN
    ``score_``, a crash or an endless loop. Three families instead of every column keep the
    check to a fraction of a millisecond (every column cost 4 ms on ALARM, a quarter of a
    Chow-Liu fit).
    """
    if data.has_continuous:  # (the check is of the discrete scores' priors)
        return
    params = estimator.get_params(deep=False)
    prefix, scorer, owner = "scorer", params.get("scorer"), estimator
    inner = params.get("estimator")
    if "scorer" not in params and isinstance(inner, _BaseStructureLearner):
        prefix, scorer, owner = "estimator__scorer", inner.get_params(deep=False).get("scorer"), inner
    if scorer is None:
        return
    if isinstance(scorer, str) and scorer == "auto":
        scorer = owner._auto_plugins["scorer"][0]
    scorer = resolve_scorer(scorer)
    if scorer.data_kinds != ("discrete",):  # refused on discrete data later, naming the columns
        return
    # the extremes of the prior cell: the narrowest and the widest column without parents,
    # and the widest given the next widest (ties: the first column)
    widest = np.argsort(-data.cardinalities, kind="stable")
    narrowest = int(np.argmin(data.cardinalities))
    families = list(dict.fromkeys([(narrowest, ()), (int(widest[0]), ())]))
    if data.n_variables > 1:
        families.append((int(widest[0]), (int(widest[1]),)))
    for child, parents in families:
        family = [child, *parents]
        codes, weights = data.codes[:, family], data.weights
        if codes.dtype.kind == "i":  # missing cells (-1): the rows where the family is observed
            observed = (codes >= 0).all(axis=1)
            codes, weights = codes[observed], None if weights is None else weights[observed]
        counts = family_table(codes, data.cardinalities[family], 0, list(range(1, len(family))), weights)
        q = int(np.prod(data.cardinalities[list(parents)]))
        with np.errstate(all="ignore"):  # an overflow is reported below, by name
            value = scorer.local_score(counts.astype(np.float64), q, len(parents))
        # built-in scores are log-likelihoods (penalised, or marginal): without parents
        # < 0 once two states are observed; 0 means the prior swamped the counts in float64
        varied = np.count_nonzero(counts.sum(axis=0)) > 1 and counts.sum() >= 1
        lost = not parents and varied and value >= 0 and type(scorer).__module__ == "skbn.scores"
        if np.isfinite(value) and not lost:
            continue
        numeric = {k: v for k, v in scorer.get_params(deep=False).items()
                   if isinstance(v, Real) and not isinstance(v, bool)}
        names = ", ".join(f"{prefix}__{k}={v!r}" for k, v in numeric.items()) or prefix
        given = f"given {data.names[parents[0]]!r}" if parents else "without parents"
        raise ValueError(
            f"The score of column {data.names[child]!r} {given} is {value} under {scorer!r}: "
            f"its parameters ({names}) are outside the range where float64 can compute the "
            "score (it overflows, or the prior swamps the counts). Use a moderate value (an "
            "equivalent sample size ess is usually between 0.1 and 100)."
        )


#: The learners whose ``fit`` accepts ``interventions`` (their statistics leave each
#: child's intervened rows out: FamilyCounter, MomentCounter and the subset scorer).
INTERVENTION_LEARNERS = ("HillClimbStructure", "K2Structure", "FixedStructure", "GESStructure",
                         "ExactStructure", "OrderMCMCStructure", "BootstrapStructure")

#: Why the other learners refuse ``interventions`` (see ``docs/interventions.md``).
_NO_INTERVENTIONS = {
    "PCStructure": "experimental rows are not used by PC yet: its CI tests pool every row, and rows "
                   "where a variable was set do not follow the observational distribution, so a "
                   "test on them is wrong; interventional CI tests are not implemented",
    "MMHCStructure": "experimental rows are not used by MMHC yet: its skeleton comes from CI tests "
                     "on pooled rows, which intervened rows make wrong; interventional CI tests are "
                     "not implemented",
    "ChowLiuTree": "its tree comes from pairwise statistics over every row",
}


#: The learners that read the rows themselves, not only their moments: chunked ``X`` with
#: continuous columns (kept as moments) is refused, with the reason.
_ROWS_NEEDED = {
    "BootstrapStructure": "resamples rows, and chunked X with continuous columns is kept as "
                          "moments per configuration of the discrete columns, not as rows",
}


def _chunked_refusal(estimator, data, missing):
    """Why ``estimator`` cannot fit chunked ``data`` with continuous columns (kept as the
    moments of every distinct discrete row, ``EncodedData.row_scatter``), or None."""
    name = type(estimator).__name__
    reason = (f"chunked input with continuous columns cannot be used by {name}: it "
              f"{{}}; pass a DataFrame")
    if name in _ROWS_NEEDED:
        return reason.format(_ROWS_NEEDED[name])
    if missing == "em":
        return reason.format("completes missing cells by EM, which needs the rows")
    if missing == "available_case" and data.codes.dtype.kind == "i" and (data.codes < 0).any():
        return reason.format("deletes incomplete rows test by test, which needs the rows")
    ci_test = getattr(estimator, "ci_test", None)
    if ci_test is not None and getattr(_given_ci_test(ci_test), "statistics", None) == "robust":
        return reason.format("fits a robust covariance, which needs the rows")
    return None


def _intervention_targets(data):
    """The intervention targets of ``data``: each distinct set of variables set together in
    a row (observational rows: the empty target), as sorted tuples of positions in the
    order of ``np.unique`` of the rows of ``data.intervened`` (lexicographic, column 0 first)."""
    rows = data.intervened
    p = rows.shape[1]
    if p > 62:
        return [tuple(int(i) for i in np.flatnonzero(row)) for row in np.unique(rows, axis=0)]
    # one integer per row, column 0 its highest bit: sorting the integers sorts the rows
    keys = np.unique(rows.astype(np.int64) @ (np.int64(1) << np.arange(p - 1, -1, -1, dtype=np.int64)))
    return [tuple(i for i in range(p) if key >> (p - 1 - i) & 1) for key in keys.tolist()]


def _kept_rows(data, child):
    """``(codes, weights)`` of the rows where ``child`` was not set by intervention (every
    row on observational data): the rows its conditional distribution is estimated from."""
    codes, weights = data.codes, data.weights
    if data.intervened is not None and data.intervened[:, child].any():
        keep = ~data.intervened[:, child]
        codes, weights = codes[keep], None if weights is None else weights[keep]
    return codes, weights


def _label_of(value, names, positions):
    """The label of the column ``value`` designates in ``names`` (by label, or by integer
    position when no label matches: :func:`skbn.knowledge._find_column`), else ``value``
    unchanged (something the parser will refuse, naming the parameter)."""
    position = _find_column(value, names, positions)
    return value if position is None else names[position]


def _labelled(value, data):
    """A column parameter (a column, an edge list, ``tiers``) with every integer position
    replaced by the label of that column of ``X``, for a search on permuted columns
    (``data.input_names``); unchanged otherwise, and where it is not of a known shape (the
    parser refuses it then, naming the parameter)."""
    names = data.input_names
    if names is None:
        return value
    positions = _label_positions(names)
    if isinstance(value, pd.DataFrame) and value.shape[1] == 2:
        value = list(value.itertuples(index=False, name=None))
    elif isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[1] == 2:
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        return _label_of(value, names, positions)
    return [[_label_of(v, names, positions) for v in entry] if isinstance(entry, (list, tuple)) and not
            isinstance(entry, str) else _label_of(entry, names, positions) for entry in value]


def _clear_fitted_attributes(estimator):
    """Delete every fitted attribute (name ending in ``_``) an earlier ``fit`` left on ``estimator``:
    the instance's attribute dict is refilled with the others (one pass instead of a
    ``delattr`` per attribute)."""
    state = vars(estimator)
    kept = {name: value for name, value in state.items() if name[-1:] != "_" or name[:2] == "__"}
    if len(kept) < len(state):
        state.clear()
        state.update(kept)


def _append_column(data, column_codes, cardinality, name, values=None):
    """``data`` with one more column (cardinality 0 and ``values``: a continuous one)."""
    cardinalities = np.append(data.cardinalities, cardinality)
    signed = data.codes.dtype.kind == "i" or np.min(column_codes, initial=0) < 0
    codes = np.column_stack([data.codes, column_codes])
    codes = codes.astype(np.int16 if signed else _code_dtype(cardinalities))
    all_values = data.values
    if values is not None or all_values is not None:
        old = np.zeros(data.codes.shape) if all_values is None else all_values
        new = np.zeros(len(column_codes)) if values is None else values
        all_values = np.asfortranarray(np.column_stack([old, new]))
    return replace(data, codes=np.asfortranarray(codes), cardinalities=cardinalities,
                   names=data.names + (name,), values=all_values)


def _held_regressions(network, names, child, parents):
    """The regressions ``(b0 (q,), B (q, p), sigma (q,))`` of the continuous ``child`` in
    ``network`` (EM's current parameters) when its parents there are ``parents`` (sorted
    positions) and some are discrete; else None (:meth:`_BaseStructureLearner._regressions`)."""
    node = names[child]
    if not isinstance(network, CLGBayesianNetwork) or not network.discrete_parents.get(node) or \
            list(network.parents[node]) != [names[p] for p in parents]:
        return None
    b0 = np.asarray(network.intercepts[node]).reshape(-1)
    return b0, np.asarray(network.coefficients[node]).reshape(b0.size, -1), \
        np.asarray(network.sigmas[node]).reshape(-1)


def _warn_unobserved_configurations(data, states, edges, latent):
    """After structural EM: name each column never observed in some configurations of its
    discrete parents (:func:`skbn._em.unobserved_configurations`). The data say nothing of
    its parameters there, and EM keeps those it reached from the completions of the earlier
    graphs (on mice's ``selfreport``, measured height given reported height where it was
    never measured: slope 0 and the overall mean, where ``FixedStructure(edges=...,
    missing="em")`` starts from the regression over all the rows, to the same likelihood)."""
    from skbn import _em

    parents = _em.parents_of(edges, data.n_variables)
    found = _em.unobserved_configurations(np.asarray(data.codes), data.cardinalities, parents,
                                          data.continuous, latent)
    for child, configs in found.items():
        discrete = [q for q in parents[child] if not data.continuous[q]]
        shown = ", ".join(repr({data.names[q]: states[q][k] for q, k in zip(discrete, config)})
                          for config in configs[:5]) + (", ..." if len(configs) > 5 else "")
        n = int(np.prod([data.cardinalities[q] for q in discrete]))
        what, start = (("regression", "its regression over all its rows") if data.continuous[child]
                       else ("probabilities", "the prior"))
        warn_user(
            f"Structural EM: the column {data.names[child]!r} is never observed in {len(configs)} "
            f"of the {n} configurations of its discrete parents ({shown}): the data say nothing "
            f"of its {what} there (every value gives the same likelihood), so EM kept the values "
            f"it started from: {start} if the family was in the first graph, else those the "
            f"completions of an earlier graph gave. FixedStructure(edges=model.edges_, "
            f"missing='em') always starts from {start}, to the same likelihood."
        )


def _warn_edges_observed_by_no_row(data, edges, latent, name):
    """After EM (``missing="em"``, or PC's available case, whose CPTs EM fits): one
    warning naming each edge ``parent -> child`` of the fitted graph whose two columns no
    row (of positive weight) observes together
    (:func:`skbn._data.observed_by_no_row`); edges touching a latent column are left out
    (it is never observed, by design).

    The observed-data likelihood can depend on such an edge's parameters only through the
    other columns (a row missing the parent completes it from the columns it observes, as a
    latent variable), so they may not be identified: nlme's ``Quinidine`` never observes
    ``conc`` together with ``dose`` or ``interval``. EM's answer there then depends on the
    other columns and on its start. Its first start is the available-case estimate of each
    family, fitted on the rows observing the whole family, of which such a family has none:
    a discrete child gets the prior (the same distribution in every configuration of its
    parents). With continuous columns, when some family cannot be fitted so (always so for
    a continuous child here), the whole start is the fit on the data with every missing
    cell filled with its column's weighted mean (continuous) or most frequent state
    (discrete) (:meth:`skbn._em.MomentEM.initial_cpts`). Further starts (``n_init > 1``)
    are random.
    A full identifiability check is out of reach; this is its cheap, always-correct part.
    """
    edges = [(p, c) for p, c in edges if not (latent[p] or latent[c])]
    found = [edges[k] for k in observed_by_no_row(data, edges)]
    if not found:
        return
    ranks = name_ranks(data.names)
    found = sorted(found, key=lambda edge: (ranks[edge[0]], ranks[edge[1]]))
    shown = ", ".join(f"{data.names[p]!r} -> {data.names[c]!r}" for p, c in found[:10]) + (
        f" and {len(found) - 10} more" if len(found) > 10 else "")
    warn_user(
        f"{name}: no row observes both columns of {len(found)} "
        f"edge{'s' if len(found) > 1 else ''} of the fitted graph: {shown}. The dependence "
        "along such an edge is not informed by any row observing both columns; EM's answer "
        "there comes only through the other columns, and where they do not determine it, from "
        "EM's start: the available-case fit, which has no row for the child's family, so it "
        "gives a discrete child the prior (the same distribution in every configuration of "
        "its parents); with continuous columns, when some family has too few such rows (a "
        "continuous child here always has), the start is instead the fit on the data with "
        "every missing cell filled with its column's mean or most frequent state; further "
        "starts (n_init > 1) are random. Collect rows observing both, or drop the edge or one "
        "of the columns."
    )


def _make_network(names, states, parents, cpts):
    """The fitted network: ``parents[i]`` are column positions, ``cpts`` by name."""
    return DiscreteBayesianNetwork(
        states={name: list(s) for name, s in zip(names, states)},
        parents={names[c]: [names[p] for p in sorted(pa)] for c, pa in enumerate(parents)},
        cpts=cpts,
    )


def _in_node_order(network, nodes):
    """``network`` (discrete, Gaussian or CLG) with its nodes in the order ``nodes`` and
    every node's parents listed in that order, as a network fitted on columns in that order
    lists them (:func:`_make_network`, :meth:`_BaseStructureLearner._continuous_network`):
    the same parameters, their arrays' parent axes (CPTs; a continuous node's intercepts,
    coefficients and sigmas over its discrete parents) transposed to match and the
    coefficients over its continuous parents permuted likewise. Only entries move, so the
    numbers are the same bits (:meth:`_BaseStructureLearner._fit_em`, which fits in name
    order)."""
    position = {name: k for k, name in enumerate(nodes)}
    parents = {v: sorted(network.parents[v], key=position.__getitem__) for v in nodes}

    def axes(old, new):  # the old axis of each new one
        old = list(old)
        return [old.index(p) for p in new]

    states = getattr(network, "states", {})
    cpts = {v: np.transpose(cpt, axes(network.parents[v], parents[v]) + [len(parents[v])])
            for v, cpt in getattr(network, "cpts", {}).items()}
    if isinstance(network, DiscreteBayesianNetwork):
        return DiscreteBayesianNetwork({v: states[v] for v in nodes}, parents, cpts)
    if isinstance(network, GaussianBayesianNetwork):
        return GaussianBayesianNetwork(
            list(nodes), parents, network.intercepts,
            {v: network.coefficients[v][axes(network.parents[v], parents[v])] for v in nodes},
            network.sigmas)
    intercepts, coefficients, sigmas = {}, {}, {}
    for v, dpa in network.discrete_parents.items():
        cpa = network.continuous_parents[v]
        moved = axes(dpa, [p for p in parents[v] if p in states])
        intercepts[v] = np.transpose(network.intercepts[v], moved)
        sigmas[v] = np.transpose(network.sigmas[v], moved)
        coefficients[v] = np.transpose(network.coefficients[v], moved + [len(dpa)])[
            ..., axes(cpa, [p for p in parents[v] if p not in states])]
    return CLGBayesianNetwork(list(nodes), {v: states[v] for v in nodes if v in states}, parents,
                              cpts, intercepts, coefficients, sigmas)
