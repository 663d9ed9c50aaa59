"""Encoding of discrete data into small integer codes, once, column by column.

Every learner works on an :class:`EncodedData`: one Fortran-ordered array of
non-negative integer codes (``codes[n, i]`` is the state index of variable ``i`` in
row ``n``) and the declared number of states of every variable. State labels are
kept separately (``categories_``) so that results can be reported by name.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

__all__ = [
    "EncodedData", "MAX_STATES", "RowGroups", "check_sample_weight", "encode_fit", "encode_transform",
    "encode_target",
]

#: Largest number of states accepted for one variable. Columns with more distinct values
#: are almost always continuous measurements or identifiers, not categories.
MAX_STATES = 1000


@dataclass(frozen=True)
class RowGroups:
    """Rows in groups that agree on some columns: the completions of one incomplete row.

    Row ``t`` belongs to group ``group[t]``; every row of group ``g`` has the same code in
    each column ``k`` with ``shared[g, k]`` (the observed cells of the row it completes).
    The counting engine counts a shared cell once per (group, family cell) pair instead of
    once per row (:meth:`skbn._counting.FamilyCounter.added_parent_tables`).

    Attributes
    ----------
    group : int64 ndarray of shape (n_samples,), values ``0 .. n_groups - 1``
    shared : bool ndarray of shape (n_groups, n_variables)
    """

    group: np.ndarray
    shared: np.ndarray


@dataclass(frozen=True)
class EncodedData:
    """Discrete data as integer codes.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_variables)
        Fortran-ordered unsigned integer codes; ``codes[:, i] < cardinalities[i]``.
    cardinalities : ndarray of shape (n_variables,), dtype int64
        Declared number of states ``r_i`` of every variable (unobserved states included).
    names : tuple
        Column labels, in column order.
    weights : ndarray of shape (n_samples,), float64, or None
        Row weights (``sample_weight``): every count is the sum of the weights of the rows
        it counts. ``None`` means every row has weight 1, which keeps the integer fast path.
    groups : RowGroups or None
        Optional description of rows that share cells (the completions of one incomplete
        row, from EM's E-step); a counting shortcut only, every count is the same without it.
    """

    codes: np.ndarray
    cardinalities: np.ndarray
    names: tuple
    weights: np.ndarray | None = None
    groups: "RowGroups | None" = None

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def n_variables(self):
        return self.codes.shape[1]

    @property
    def total_weight(self):
        """Number of rows, or the sum of the row weights when the data are weighted."""
        return float(self.n_samples) if self.weights is None else float(self.weights.sum())


def check_sample_weight(sample_weight, n_samples):
    """Validated row weights: ``None`` when absent or all 1, else a float64 copy.

    Refuses, naming ``sample_weight``: a wrong shape or length, non-numeric, NaN or
    infinite values, negative values and an all-zero vector.
    """
    if sample_weight is None:
        return None
    try:
        given = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be a 1-D array of non-negative numbers.") from None
    if given.ndim > 1 and given.shape[1:] != (1,) * (given.ndim - 1):
        raise ValueError(f"sample_weight must be 1-D, got shape {given.shape}.")
    weights = given.reshape(-1).copy()
    if weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {weights.shape[0]} entries but X has {n_samples} rows; they must match."
        )
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight contains NaN or infinite values.")
    if np.any(weights < 0):
        raise ValueError("sample_weight contains negative values; weights must be >= 0.")
    if not np.any(weights > 0):
        raise ValueError("sample_weight is zero for every row; at least one row needs a positive weight.")
    if np.all(weights == 1.0):
        return None
    return weights


def _code_dtype(cardinalities):
    return np.uint8 if max(cardinalities, default=1) <= 256 else np.uint16


def _as_columns(X):
    """Return ``(names, columns)`` for a DataFrame or a 2-D array-like, refusing bad shapes."""
    array = check_container(X)
    if isinstance(X, pd.DataFrame):
        return list(X.columns), [column for _, column in X.items()]
    return list(range(array.shape[1])), [array[:, j] for j in range(array.shape[1])]


def check_container(X):
    """Refuse what is not a DataFrame or a 2-D array-like (sparse matrices, Series, other
    dimensions, duplicate column names) without splitting it into columns; returns the
    array of a non-DataFrame (None for a DataFrame)."""
    if sparse.issparse(X):
        raise TypeError(
            "skbn estimators need dense discrete data, but a sparse matrix was passed; "
            "convert it with X.toarray() or pass a pandas DataFrame."
        )
    if isinstance(X, pd.Series):
        raise ValueError(
            "Expected 2D data (a DataFrame or 2-D array), got a Series; "
            "use series.to_frame() for a single variable."
        )
    if isinstance(X, pd.DataFrame):
        if X.columns.has_duplicates:
            dup = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"Duplicate column names are not allowed: {dup}.")
        return None
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {array.ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it "
            "contains a single sample."
        )
    return array


def _check_shape(names, columns):
    n_samples = len(columns[0]) if columns else 0
    if not columns:
        raise ValueError(
            f"Found array with 0 feature(s) (shape=({n_samples}, 0)) while a minimum of 1 is required."
        )
    if n_samples < 2:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape=({n_samples}, {len(columns)})) while a "
            "minimum of 2 is required to learn a Bayesian network."
        )


def _sorted_states(values):
    """Observed states in a deterministic order: sorted, or by string form for mixed types."""
    unique = pd.unique(values)
    try:
        return sorted(unique.tolist())
    except TypeError:
        return sorted(unique.tolist(), key=lambda v: (type(v).__name__, str(v)))


def _infer_states(name, column):
    """States of one training column, refusing NaN, continuous and huge-state columns."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        if (column.array.codes < 0).any():  # code -1: a missing cell
            raise ValueError(_nan_message(name))
        return column.dtype.categories.tolist()
    values = np.asarray(column)
    if values.dtype.kind == "c":
        raise ValueError(f"Complex data not supported (column {name!r}); skbn needs discrete states.")
    if values.dtype.kind in "mM":
        raise TypeError(f"Column {name!r} holds dates/times; encode them as categories first.")
    if pd.isna(values).any():
        raise ValueError(_nan_message(name))
    if values.dtype.kind == "f":
        if not np.all(np.isfinite(values)):
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        if not np.all(values == np.round(values)):
            raise ValueError(
                f"Column {name!r} holds continuous (non-integer) floats; skbn learns networks of "
                "discrete variables: discretize it first, e.g. with "
                "sklearn.preprocessing.KBinsDiscretizer(encode='ordinal')."
            )
    states = _sorted_states(values)
    if len(states) > MAX_STATES:
        hint = (
            " It looks continuous: discretize it first, e.g. with "
            "sklearn.preprocessing.KBinsDiscretizer(encode='ordinal')."
            if values.dtype.kind in "fiu"
            else " Is it an identifier column? Drop it before fitting."
        )
        raise ValueError(
            f"Column {name!r} has {len(states)} distinct values, more than the {MAX_STATES} "
            f"states skbn accepts for one variable.{hint}"
        )
    return states


def _nan_message(name):
    return (
        f"Input X contains NaN in column {name!r}; fitting assumes complete data. "
        "Impute or drop incomplete rows, or use missing='em' / 'complete_case' on a learner "
        "that accepts them (missing values are supported at score time)."
    )


def _codes_for(name, column, states, *, allow_missing, allow_unknown, states_are_categories=False):
    """Map a column's values to state indices; -1 marks missing (and, if allowed, unknown).
    ``states_are_categories``: ``states`` are known to be the column's categories, in order
    (then they are not compared again)."""
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype) and (
        states_are_categories or column.dtype.categories.tolist() == list(states)
    ):
        codes = column.array.codes.astype(np.int64)  # the Categorical's own codes, -1 = missing
        missing = codes < 0
    else:
        values = np.asarray(column, dtype=object) if not isinstance(column, np.ndarray) else column
        missing = np.asarray(pd.isna(values))
        if values.dtype.kind == "f" and np.isinf(values).any():
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        codes = pd.Index(states, dtype=object).get_indexer(pd.Index(values, dtype=object))
        codes = np.asarray(codes, dtype=np.int64)
        unknown = (codes < 0) & ~missing
        if unknown.any() and not allow_unknown:
            bad = values[np.flatnonzero(unknown)[0]]
            raise ValueError(
                f"Found unknown category {bad!r} in column {name!r} (known states: "
                f"{list(states)[:20]}). Missing cells (NaN/None) are marginalised, unknown states "
                "are not: declare the full state space at fit time with a pandas "
                "CategoricalDtype or the `categories=` parameter, or pass "
                "handle_unknown='marginalize' to marginalise unknown cells out too."
            )
    if missing.any() and not allow_missing:
        raise ValueError(_nan_message(name))
    return codes


def _user_states(categories, names, j, name):
    if isinstance(categories, dict):
        return None if name not in categories else list(categories[name])
    return list(categories[j])


def encode_fit(X, categories="auto", *, allow_missing=False):
    """Encode training data.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
    categories : "auto", list of sequences (one per column), or dict column -> sequence
        Declared states; "auto" takes pandas categories, else the sorted observed values.
    allow_missing : bool, default=False
        Keep missing cells (NaN/None) as code ``-1`` (the codes are then signed int16)
        instead of refusing them; a column with no observed value is still refused.

    Returns
    -------
    data : EncodedData
    states : list of lists
        State labels per column (``categories_``).
    """
    names, columns = _as_columns(X)
    _check_shape(names, columns)
    if not (isinstance(categories, str) and categories == "auto"):
        if not isinstance(categories, dict) and len(categories) != len(columns):
            raise ValueError(
                f"categories has {len(categories)} entries but X has {len(columns)} columns."
            )
        if isinstance(categories, dict):
            unknown = [key for key in categories if key not in names]
            if unknown:
                raise ValueError(
                    f"categories has key(s) {unknown!r} that are not columns of X (columns: {names})."
                )
    states, from_categories = [], []
    for j, (name, column) in enumerate(zip(names, columns)):
        declared = None
        if not (isinstance(categories, str) and categories == "auto"):
            declared = _user_states(categories, names, j, name)
        series = column if isinstance(column, pd.Series) else pd.Series(column)
        if allow_missing and len(series) and series.isna().all():
            raise ValueError(f"Column {name!r} has no observed value (every cell is missing).")
        observed = _infer_states(name, series.dropna() if allow_missing else series)
        from_categories.append(declared is None and series is column
                               and isinstance(column.dtype, pd.CategoricalDtype))
        if declared is None:
            states.append(observed)
            continue
        if len(set(map(repr, declared))) != len(declared):
            raise ValueError(f"categories for column {name!r} contain duplicates.")
        states.append(declared)
    codes = _encode(names, columns, states, allow_missing=allow_missing, allow_unknown=False,
                    states_are_categories=from_categories)
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    if np.any(cardinalities == 0):
        raise ValueError("Every variable needs at least one state.")
    dtype = np.int16 if allow_missing and (codes < 0).any() else _code_dtype(cardinalities)
    return EncodedData(
        codes=np.asfortranarray(codes.astype(dtype)),
        cardinalities=cardinalities,
        names=tuple(names),
    ), states


def _encode(names, columns, states, *, allow_missing, allow_unknown, states_are_categories=None):
    n_samples = len(columns[0])
    codes = np.empty((n_samples, len(columns)), dtype=np.int64, order="F")
    known = states_are_categories or [False] * len(columns)
    for j, (name, column, col_states) in enumerate(zip(names, columns, states)):
        codes[:, j] = _codes_for(
            name, column, col_states, allow_missing=allow_missing, allow_unknown=allow_unknown,
            states_are_categories=known[j],
        )
    return codes


def encode_transform(X, names, states, *, handle_unknown="error", allow_missing=True):
    """Encode data at score time with the states learned in fit.

    Columns are matched by name for DataFrames (extra columns are an error, absent
    network variables are *not* allowed here: the caller decides) and by position for
    arrays. Missing cells (NaN/None) and, with ``handle_unknown='marginalize'``, unknown
    states become ``-1``.

    Returns
    -------
    codes : ndarray of shape (n_samples, len(names)), int64, ``-1`` = marginalise.
    """
    got_names, columns = _as_columns(X)
    if not columns or len(columns[0]) == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape=({len(columns[0]) if columns else 0}, "
            f"{len(columns)})) while a minimum of 1 is required."
        )
    if isinstance(X, pd.DataFrame):
        by_name = dict(zip(got_names, columns))
        if set(got_names) != set(names) or len(got_names) != len(names):
            missing = [n for n in names if n not in by_name]
            extra = [n for n in got_names if n not in set(names)]
            raise ValueError(
                "The columns of X do not match those seen in fit: "
                f"missing {missing}, unexpected {extra}."
            )
        columns = [by_name[n] for n in names]
    elif len(columns) != len(names):
        raise ValueError(
            f"X has {len(columns)} features, but the model was fitted with {len(names)} features."
        )
    return _encode(
        names, columns, states,
        allow_missing=allow_missing, allow_unknown=handle_unknown == "marginalize",
    )


def encode_target(y, name="target"):
    """Encode a 1-D target; returns ``(codes, states)``."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be 1-D; got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    if sparse.issparse(y):
        raise TypeError("y must be a dense 1-D array; a sparse matrix was passed.")
    if not isinstance(y, pd.Series):
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim != 1:
            raise ValueError(f"y must be 1-D (one target variable); got shape {values.shape}.")
        y = pd.Series(values)
    series = y
    if series.isna().any():
        raise ValueError("Input y contains NaN; fitting needs a complete target: drop those rows.")
    states = _infer_states(name, series)
    codes = _codes_for(name, series, states, allow_missing=False, allow_unknown=False)
    return codes, states
