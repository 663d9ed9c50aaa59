"""Encoding of the data, once, column by column: integer codes for discrete columns,
float values for continuous ones.

Every learner works on an :class:`EncodedData`: one Fortran-ordered array of
non-negative integer codes (``codes[n, i]`` is the state index of discrete variable ``i``
in row ``n``), the declared number of states of every variable (0 for a continuous one),
and, when some column is continuous, a float array ``values`` holding its values. State
labels are kept separately (``categories_``) so that results can be reported by name.

Which columns are discrete and which continuous (the column-type rule)
----------------------------------------------------------------------
A column is **declared discrete** when it has a pandas ``category`` dtype, when
``categories=`` gives its states, when ``column_types=`` says ``"discrete"``, or when it
holds text (``str``/string dtype, numpy strings, an ``object`` column of strings or of
mixed types) or bools (``bool`` or the nullable ``boolean`` dtype). Its states are the
declared ones, else the sorted observed values.

A column is **declared continuous** by ``column_types={name: "continuous"}`` (every column:
``column_types="continuous"``); it must hold numbers (any numeric dtype, or an ``object``
column of numbers).

An undeclared **numeric** column (integer or float dtype, numpy or pandas nullable, or an
``object`` column whose values are all numbers) is

* **continuous** when some of its values are not whole numbers (``2.5``);
* **discrete**, with its sorted values as states, when every value is a whole number and
  it has at most :data:`MAX_INTEGER_STATES` distinct values (codes ``0, 1, 2``, Likert
  scales, counts of a few);
* otherwise refused, naming the column: whole numbers with more distinct values may be a
  rounded measurement (continuous) or an identifier or code (discrete); the user says
  which with ``column_types=``. One error names every such column of the data. Whole
  numbers with more than :data:`SPARSE_INTEGER_STATES` distinct values and fewer than two
  rows per value on average are refused in the same way, however few they are: most of
  their categories would be seen once (mtcars' ``hp``, 22 values in 32 rows; longley's
  ``Year``, 16 values in 16 rows), which no discrete model estimates, and on so few rows
  such a column is a rounded measurement far more often than a set of categories.

Whole numbers with more than :data:`SPARSE_INTEGER_STATES` and at most
:data:`MAX_INTEGER_STATES` distinct values, and at least two rows per value, are made
discrete, each value a state, but not silently: they too may be a rounded measurement
(HSAUR3's ``skulls``: four skull sizes in mm, 16 to 27 values in 150 rows). The encoder
collects these columns where the rule decides (:func:`_read_as_codes`, in memory and in
chunks: ``EncodedData.whole_number_codes``), and every learner's ``fit`` (and
:class:`skbn.PCSelect`'s) names them in one
:class:`~skbn.exceptions.WholeNumberStatesWarning`, in name order, with their numbers of
values and rows. A column declared by ``column_types=`` or ``categories=``, a pandas
categorical and the target are never named.

What counts as a number (:func:`value_kind`) is one rule in fit, in chunks and at score
time: text (``"3.5"``), bools and a pandas categorical never are; a continuous column's
cells given as such at score time are refused, naming the column and a cell.

A continuous column must be finite (``inf`` is refused, naming the column) and must vary
(a constant column is refused; a feature selector, which sets such a feature aside, encodes
it with ``allow_constant=True`` and finds it with :func:`single_valued`). One with fewer
than :data:`MIN_CONTINUOUS_VALUES` distinct values is kept continuous with a warning that
names it, since a Gaussian model of a few values is poor. Functions that need discrete
data (``allow_continuous=False``) refuse a continuous column, naming it.

No discrete column may have more than :data:`MAX_STATES` states. Missing cells are
``None``, ``NaN``, ``pd.NA`` and ``NaT`` only: the strings ``"None"``, ``"NA"``,
``"nan"``, ``"null"`` are ordinary states (but a column of numbers written as text beside
such a marker, as R's ``write.csv`` writes a missing cell, is refused or warned about,
naming it: :func:`_check_marked_numbers`). A missing cell has code ``-1`` in either kind
of column (and NaN in ``values`` for a continuous one).

States of a column whose values have different types (an ``object`` column with numbers,
strings and bools) are ordered bools first, then numbers, then strings, then any other
values (by type name, then text), each group sorted; ``1`` and ``1.0`` are one state (a
float). Two values of different types that are equal (``True`` and ``1``) or print the
same (``1`` and ``"1"``) are refused, naming the column: they cannot be two states.
"""

import contextlib
import contextvars
import functools
import math
import numbers
import os
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype
from scipy import sparse

from skbn.utils._text import MISSING_MARKERS, PANDAS_NA_TEXTS, spelled_number
from skbn.utils._warnings import warn_user

__all__ = [
    "CONTINUOUS", "DISCRETE", "EncodedData", "MAX_INTEGER_STATES", "MAX_STATES",
    "MIN_CONTINUOUS_VALUES", "RowGroups", "SPARSE_INTEGER_STATES", "check_sample_weight", "encode_columns",
    "encode_fit",
    "encode_target", "encode_transform", "intervention_matrix", "name_order", "name_ranks",
    "no_observed_value_message", "permute_columns",
    "row_copies", "single_valued", "target_series", "weights_are_integral",
]

#: The two column types (``column_types=`` and the fitted ``column_types_``).
DISCRETE, CONTINUOUS = "discrete", "continuous"

#: Largest number of states accepted for one variable. Columns with more distinct values
#: are almost always continuous measurements or identifiers, not categories.
MAX_STATES = 1000

#: Largest number of distinct values of a numeric column taken as discrete codes without a
#: declaration. Integer codes of discrete variables are small (ALARM's variables have at
#: most 4 states, CHILD's 6, HAILFINDER's 11; Likert and rating scales up to 11 points,
#: months 12, hours 24, days of a month 31), while counts, ages, marks out of 100 and rounded
#: measurements usually have more. A larger numeric state space must be declared.
MAX_INTEGER_STATES = 32

#: Whole numbers with more distinct values than this and fewer than two rows per value are
#: not taken for categories without a declaration either (a rating out of 10 has 11 values:
#: it needs 22 rows): most of the states would hold one row.
SPARSE_INTEGER_STATES = 10

#: A continuous column with fewer distinct values than this is kept continuous with a
#: warning naming it (a Gaussian model of two or three values is a poor one; declare the
#: column discrete with ``column_types=`` if its values are categories).
MIN_CONTINUOUS_VALUES = 5


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
    """Encoded data: integer codes of the discrete columns, float values of the continuous ones.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_variables)
        Fortran-ordered integer codes; ``codes[:, i] < cardinalities[i]`` for a discrete
        variable, 0 for a continuous one; ``-1`` (signed codes) marks a missing cell of
        either kind.
    cardinalities : ndarray of shape (n_variables,), dtype int64
        Declared number of states ``r_i`` of every discrete variable (unobserved states
        included); 0 marks a continuous variable.
    names : tuple
        Column labels, in column order.
    weights : ndarray of shape (n_samples,), float64, or None
        Row weights (``sample_weight``): every count is the sum of the weights of the rows
        it counts. ``None`` means every row has weight 1, which keeps the integer fast path.
    groups : RowGroups or None
        Optional description of rows that share cells (the completions of one incomplete
        row, from EM's E-step); a counting shortcut only, every count is the same without it.
    target : int or None
        Position of the target variable (``fit(X, y)`` or ``target=``), None without one.
    target_from_y : bool
        Whether the target is ``y``, appended after the columns of ``X`` (rather than a
        column of ``X`` named by ``target=``). Set once, by the estimators' ``fit``.
    intervened : ndarray of shape (n_samples, n_variables), dtype bool, or None
        ``intervened[t, i]``: row ``t``'s value of variable ``i`` was set by a hard
        intervention (``fit(X, interventions=...)``), so row ``t`` is left out of every count
        of a family whose child is ``i``. ``None``: observational data (nothing left out).
    values : ndarray of shape (n_samples, n_variables), float64, or None
        Fortran-ordered values of the continuous variables (``values[:, i]`` for ``i`` with
        ``cardinalities[i] == 0``; NaN marks a missing cell; the entries of discrete
        columns are 0 and never read). ``None`` when every variable is discrete.
    row_scatter : ndarray of shape (n_samples, k, k), float64, or None
        Set only for *summarised* rows (chunked ``X`` with continuous columns,
        :func:`skbn._chunks.encode_chunks`): row ``t`` then stands for ``weights[t]`` rows of
        ``X`` (one distinct configuration of the discrete columns) whose continuous values
        have the mean ``values[t]`` and the centred cross-products ``row_scatter[t]`` (over
        the ``k`` continuous columns, in column order). Only the moments
        (:class:`skbn._counting.MomentCounter`) may read such data; anything that needs the
        rows themselves refuses it. ``None``: every row is a row of ``X``.
    input_names : tuple or None
        The column names in the order of ``X`` when the columns were permuted (the searches
        run on the columns in name order, :func:`permute_columns`): a parameter that names a
        column by its integer position in ``X`` is read against it. ``None``: ``names`` is
        the order of ``X``.
    value_sums : ColumnSums or None
        The unweighted column sums of ``values`` that :func:`encode_fit` computed for its
        check of finite values, held with the very array they were computed on
        (:meth:`ColumnSums.of`), so the one-group moments do not sum the columns again.
        ``None``: not computed.
    whole_number_codes : tuple
        ``(name, number of values, rows counted)`` of each undeclared numeric column of
        whole numbers that the column-type rule made discrete with more than
        :data:`SPARSE_INTEGER_STATES` values (:func:`_read_as_codes`), in column order, as
        :func:`encode_fit` and :func:`skbn._chunks.encode_chunks` found them: the learners
        name them in a warning (they may be measurements). Empty otherwise.
    """

    codes: np.ndarray
    cardinalities: np.ndarray
    names: tuple
    weights: np.ndarray | None = None
    groups: "RowGroups | None" = None
    target: int | None = None
    target_from_y: bool = False
    intervened: np.ndarray | None = None
    values: np.ndarray | None = None
    row_scatter: np.ndarray | None = None
    input_names: tuple | None = None
    value_sums: "ColumnSums | None" = None
    whole_number_codes: tuple = ()

    @property
    def continuous(self):
        """Boolean mask of the continuous variables (``cardinalities == 0``)."""
        return self.cardinalities == 0

    @property
    def has_continuous(self):
        """Whether some variable is continuous."""
        return self.values is not None

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


def weights_are_integral(weights):
    """Whether every count will be a whole number (no weights, or integer weights)."""
    return weights is None or bool(np.all(weights == np.floor(weights)))


def row_copies(weights):
    """The row weights as numbers of rows, for the rules that count rows (the rows per value
    of the column-type rule, :func:`encode_fit`; two rows per state of a discrete column;
    the identifier rule of :func:`skbn._determined_columns.functional_pairs`; a continuous
    column with no spread in a state): integer weights are copies of their row (the
    distinct rows of chunked data weighted by their copies, a frequency column), so they
    are returned; fractional weights (importance weights) say nothing of how many rows
    were seen, so each row counts once, as without weights: None.

    Count with :func:`skbn._counting.count_cells` (``count_cells(cells, n,
    row_copies(weights))``: rows per cell), or total them (``n_samples`` when None).
    """
    return weights if weights is not None and weights_are_integral(weights) else None


def counted_rows(n_samples, weights):
    """The number of rows the column-type rule counts in ``n_samples`` rows of row
    ``weights``: the total of integer weights (:func:`row_copies`: copies of their row, a
    frequency table's counts), else ``n_samples``; an int, or ``inf`` for weights whose sum
    overflows (refused later, naming ``sample_weight``)."""
    copies = row_copies(weights)
    if copies is None:
        return n_samples
    total = float(copies.sum())
    return int(total) if math.isfinite(total) else total


def positive_weight_rows(X, sample_weight, *others):
    """``(X, weights, *others)`` as a fit or a score reads them: ``sample_weight`` validated
    (:func:`check_sample_weight`) and, when some weight is 0, the rows of weight 0 dropped
    from ``X`` and from each of ``others`` (``y``, ``interventions``: :func:`take_rows`)
    before anything reads them, since a weight 0 means the row is not there: its values add
    no state, decide no column type and may be missing."""
    array = check_container(X)  # (None for a DataFrame)
    weights = check_sample_weight(sample_weight, len(X) if array is None else array.shape[0])
    if weights is not None:
        _check_weights_against_rows(X, sample_weight, weights)
    if weights is None or weights.all():
        return (X, weights, *others)
    keep = weights > 0
    return (take_rows(X if array is None else array, keep), weights[keep],
            *(take_rows(values, keep) for values in others))


def _check_weights_against_rows(X, sample_weight, weights):
    """Catch the two ways a frequency table's counts go wrong as ``sample_weight``.

    * A pandas Series whose index holds the row labels of a DataFrame ``X`` in another
      order is refused: weights are read by position (as scikit-learn reads them), so every
      row would get another row's count (``X`` sorted or filtered after the counts were
      taken out of it).
    * A numeric column of ``X`` equal to the weights (the count column of
      ``as.data.frame(table)``, ``Freq``/``n``/``count``, left in ``X``) is warned about,
      naming it: it would be one more variable, learned from and scored. A variable may
      equal the weights on purpose, so this is a warning, not an error.
    """
    if isinstance(X, pd.DataFrame) and isinstance(sample_weight, pd.Series):
        rows, labels = X.index, sample_weight.index
        if (not rows.equals(labels) and rows.is_unique and labels.is_unique
                and labels.isin(rows).all()):
            raise ValueError(
                "sample_weight is a Series whose index holds the row labels of X in another "
                "order; weights are read by position (as in scikit-learn), so each row would get "
                "another row's weight. Align them first: sample_weight.reindex(X.index).")
    names, columns = _as_columns(X)
    for name, column in zip(names, columns):
        if column.dtype.kind not in "iuf":  # (text, bools, categories: not a count)
            continue
        if np.array_equal(pd.Series(column).to_numpy(dtype=np.float64, na_value=np.nan), weights):
            warn_user(
                f"Column {name!r} of X holds the sample_weight values row for row: if it is the "
                "count of each row (a frequency table, e.g. R's as.data.frame(table) 'Freq'), "
                "drop it from X, or it is one more variable of the model.", UserWarning)
            return


def take_rows(values, keep):
    """The rows ``keep`` (a bool mask) of ``X``, ``y`` or ``interventions`` as given (a
    DataFrame, Series, array, list...), their types kept. None, and anything whose length
    is not the mask's (refused later, by name), are returned unchanged."""
    if values is None or len(values) != len(keep):
        return values
    if isinstance(values, (pd.DataFrame, pd.Series)):
        return values.iloc[keep]
    if isinstance(values, (np.ndarray, pd.Categorical, pd.Index)):
        return values[keep]
    return [value for value, kept in zip(values, keep) if kept]


def check_total_weight(data):
    """Refuse row weights whose sum overflows, or is below 2, naming ``sample_weight`` (each
    weight is checked by :func:`check_sample_weight`): the encoded ``data`` of a fit, of
    :func:`skbn.posterior.edge_posteriors` or of a CI test.

    Every count is a sum of weights, so a weight is read as that many copies of its row (a
    frequency weight) and the total weight is the sample size ``N``. A total below 2 is the
    evidence of fewer than two rows, which a fit refuses without weights: with weights
    normalised to sum to 1, BIC's penalty ``log(N) / 2`` per parameter is 0 (a reward
    below 1) and hill climbing adds every edge, and no test has rows enough to be trusted.
    """
    if data.weights is None:
        return
    with np.errstate(over="ignore"):
        total = data.total_weight
    if not np.isfinite(total):
        raise ValueError(
            "sample_weight sums to infinity in float64 (largest weight "
            f"{float(np.max(data.weights)):.3g}); rescale the weights, e.g. sample_weight / "
            "sample_weight.max(): every count is a sum of weights and must stay finite."
        )
    if total < 2:
        raise ValueError(
            f"sample_weight sums to {total:.6g}, the evidence of fewer than two rows: every count "
            "is a sum of weights, a weight read as that many copies of its row. Weights that "
            "sum to 1 make BIC's penalty log(N)/2 zero and no test trustworthy. If they are "
            "relative weights, scale them to the number of rows they stand for, e.g. "
            "sample_weight * len(X) / sample_weight.sum()."
        )


def _code_dtype(cardinalities):
    return np.uint8 if max(cardinalities, default=1) <= 256 else np.uint16


def complete_cases(data, copies=False):
    """``missing="complete_case"``: the rows without a missing cell, with a warning; fewer
    than two such rows are refused, as ``X`` of fewer than two rows is.

    The warning counts the missing cells of each column (most first), and when a discrete
    column has some, adds :data:`READ_CSV_HINT`: a state spelled "None" or "NA" that
    ``pandas.read_csv``'s defaults read as missing would otherwise be dropped with its rows
    without a word (MASS's ``survey``: ``Exer``'s 24 rows of "None"). With ``copies``
    (chunked ``X``: distinct rows weighted by their numbers of copies) the warning counts the
    rows of ``X``, the weights, as the in-memory fit does.
    """
    keep = complete_row_mask(data)
    if keep is None:
        return data
    if copies and data.weights is not None:
        n_rows, n_kept = int(data.total_weight), int(data.weights[keep].sum())
    else:
        n_rows, n_kept = data.n_samples, int(keep.sum())
    n_dropped = n_rows - n_kept
    if n_dropped == n_rows:
        raise ValueError(
            "missing='complete_case': every row of X has a missing cell; nothing is left to fit."
        )
    if n_kept < 2:  # (X of one row is refused as such: _check_shape)
        raise ValueError(
            f"missing='complete_case': {n_kept} of {n_rows} rows of X has no missing cell, while a "
            "minimum of 2 is required; impute the missing cells or use missing='em' (a learner that "
            "accepts it) instead."
        )
    if n_dropped:
        missing = data.codes < 0
        per_column = (data.weights @ missing if copies and data.weights is not None
                      else missing.sum(axis=0))
        shown = sorted(np.flatnonzero(per_column), key=lambda j: -per_column[j])  # (stable)
        counts = ", ".join(f"{data.names[j]!r} {per_column[j]:.0f}" for j in shown[:10])
        more = f", and {len(shown) - 10} more columns" if len(shown) > 10 else ""
        discrete = any(data.cardinalities[j] > 0 for j in shown)
        warn_user(
            f"missing='complete_case': dropped {n_dropped} of {n_rows} rows with missing cells "
            f"(missing cells per column: {counts}{more})."
            + (" " + READ_CSV_HINT if discrete else ""),
            UserWarning,
        )
    return kept_rows(data, keep)


def complete_row_mask(data):
    """The rows of the encoded ``data`` without a missing cell (a bool mask), or None when
    it has none to miss (unsigned codes: encoded without missing cells)."""
    if data.codes.dtype.kind != "i":
        return None
    return ~(data.codes < 0).any(axis=1)


def observed_by_no_row(data, column_sets):
    """The positions ``k`` of the sets ``column_sets[k]`` (column positions) that no row of
    positive weight observes whole (every cell a code ``>= 0``), in order.

    Empty for data without a missing cell. Rows are read only for the sets that the union
    bound does not settle: when the rows missing some column of a set, summed over its
    columns, are fewer than the rows, some row observes them all. The same for chunked
    input (weighted distinct rows observe the same column sets as the rows they stand for).
    Used for PC's available-case tests and for the edges EM fits (``missing="em"``).
    """
    observed = data.codes >= 0
    if observed.all():
        return []
    weight = np.ones(data.n_samples) if data.weights is None else data.weights
    positive = weight > 0
    n_rows = int(np.count_nonzero(positive))
    missing = np.count_nonzero(~observed & positive[:, None], axis=0).tolist()
    found = []
    for k, columns in enumerate(column_sets):
        columns = list(columns)
        if sum(missing[v] for v in columns) < n_rows:  # (the union bound: some row observes all)
            continue
        if not (observed[:, columns].all(axis=1) & positive).any():
            found.append(k)
    return found


def kept_rows(data, keep):
    """The rows ``keep`` (a bool mask) of the encoded ``data``, codes unsigned again (for
    rows without a missing cell: :func:`complete_cases`, structural EM's start)."""
    codes = np.asfortranarray(data.codes[keep].astype(_code_dtype(data.cardinalities)))
    weights = None if data.weights is None else data.weights[keep]
    values = None if data.values is None else np.asfortranarray(data.values[keep])
    scatter = None if data.row_scatter is None else data.row_scatter[keep]
    return replace(data, codes=codes, weights=weights, values=values, row_scatter=scatter)


def column_names(X):
    """``X.columns.tolist()`` of a DataFrame ``X``: its column names as a list of Python
    objects.

    Column names of pandas' Arrow-backed string dtype (``StringDtype`` with
    ``storage="pyarrow"``, the default ``str`` dtype of pandas 3) are read through the
    Arrow array protocol (``__arrow_array__``, then ``to_pylist``): the same Python strings,
    without pandas' conversion through a NumPy object array. That conversion was the
    largest cost of a small fit's validation (about 50-100 us of a fit, most of it in
    code that the fit's other work has evicted from the CPU caches, against 5 us when
    repeated at once). Names with a missing one (which ``tolist`` gives as NaN or
    ``pd.NA``, Arrow as None) and every other dtype go through ``tolist``.
    """
    columns = X.columns
    dtype = columns.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        names = columns.array.__arrow_array__()
        if not names.null_count:
            return names.to_pylist()
    return columns.tolist()


def _as_columns(X):
    """Return ``(names, columns)`` for a DataFrame or a 2-D array-like, refusing bad shapes."""
    array = check_container(X)
    if isinstance(X, pd.DataFrame):
        return list(X.columns), [column for _, column in X.items()]
    return list(range(array.shape[1])), [array[:, j] for j in range(array.shape[1])]


def check_container(X):
    """Refuse what is not a DataFrame or a 2-D array-like (sparse matrices, Series, other
    dimensions, duplicate column names, a file path) without splitting it into columns;
    returns the array of a non-DataFrame (None for a DataFrame)."""
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
    # os.PathLike checks the type, not the instance: a DataFrame with a column named
    # "__fspath__" has that attribute (the column) but is data, not a path
    if isinstance(X, (str, bytes, os.PathLike)):
        raise TypeError(
            f"X is a path or a string ({str(X)[:80]!r}), not data: read the file first, e.g. "
            "pd.read_csv(path), or pass pyarrow.dataset.dataset(path) to fit a directory of "
            "parquet files chunk by chunk."
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


def _check_shape(n_features, n_samples):
    if not n_features:
        raise ValueError(
            f"Found array with 0 feature(s) (shape=({n_samples}, 0)) while a minimum of 1 is required."
        )
    if n_samples < 2:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape=({n_samples}, {n_features})) while a "
            "minimum of 2 is required to learn a Bayesian network."
        )


# ------------------------------------------------------------------ column kinds and values
#: pandas' ``infer_dtype`` of an object column (missing cells skipped) -> the column's kind.
_OBJECT_KINDS = {
    "string": "text", "bytes": "text", "empty": "empty", "boolean": "bool",
    "integer": "numeric", "floating": "numeric", "mixed-integer-float": "numeric",
    "mixed-integer": "mixed", "mixed": "mixed", "complex": "complex",
    "datetime": "time", "datetime64": "time", "date": "time", "time": "time",
    "timedelta": "time", "timedelta64": "time", "period": "time",
}

# Type groups of single values, in the order their states are sorted in a mixed column.
_BOOL, _NUMBER, _STRING, _OTHER = 0, 1, 2, 3


def _group(value):
    """Type group of one value: bool, real number, string or anything else."""
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, numbers.Real):
        return _NUMBER
    return _STRING if isinstance(value, str) else _OTHER


def _typed_key(value):
    """Dictionary key of a state: equal for equal values of one type group only, so that a
    bool never matches a number (``1`` is not the state ``True``) while ``1`` matches ``1.0``."""
    group = _group(value)
    if group == _BOOL:
        return group, bool(value)
    return (group, value) if group != _OTHER else (group, type(value).__name__, value)


def _column_kind(series):
    """Kind of a column from its dtype: "categorical", "bool", "numeric", "text", "object"
    (decided from the values by :func:`_factorize`), "complex", "time" or "other"."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_object_dtype(dtype):
        return "object"
    if isinstance(dtype, pd.StringDtype):
        return "text"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
        return "numeric"
    if pd.api.types.is_complex_dtype(dtype):
        return "complex"
    if getattr(dtype, "kind", None) in ("m", "M") or isinstance(dtype, (pd.DatetimeTZDtype, pd.PeriodDtype)):
        return "time"
    if pd.api.types.is_string_dtype(dtype):
        return "text"
    return "other"


def _plain(value):
    """A numpy scalar as the Python scalar it holds (labels of object columns)."""
    return value.item() if isinstance(value, np.generic) else value


def _factorize(name, series):
    """``(codes, labels, kind)`` of one column in one hashing pass.

    ``codes`` (int64, one per row) index ``labels`` (a list of distinct values, in the order
    they first occur; a categorical column's categories, in order); ``-1`` marks a missing
    cell (None, NaN, pd.NA, NaT). ``kind`` is that of :func:`_column_kind`, an object
    column's decided from its values: "text", "bool", "numeric" (all numbers), "mixed"
    (several type groups), "empty" (no observed value), "complex", "time" or "other". Values
    of different type groups are never merged (a mixed column is factorized group by group,
    so ``True`` and ``1`` are two labels, which :func:`_infer_states` then refuses), and the
    numbers of an object column share one Python type (float when any value is a float).
    """
    kind = _column_kind(series)
    if kind == "categorical":
        values = series.array  # a Categorical: its own codes, -1 = missing
        return values.codes.astype(np.int64), values.categories.tolist(), kind
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except TypeError as error:  # unhashable cells (lists, dicts)
        raise ValueError(
            f"Column {name!r} holds values that cannot be states ({error}); every cell must be "
            "a hashable value such as a string or a number."
        ) from None
    codes = np.asarray(codes, dtype=np.int64)
    # a numpy-typed array or index's tolist() already holds Python scalars (a float column's
    # 10**4 labels: no Python step per label)
    plain = isinstance(uniques.dtype, np.dtype) and uniques.dtype.kind in "biuf"
    labels = uniques.tolist() if plain else [_plain(v) for v in uniques.tolist()]
    if kind != "object":
        return codes, labels, kind
    groups = {_group(v) for v in labels}
    if groups & {_BOOL, _NUMBER}:  # equal bools and numbers (True == 1) may have been merged
        kind = _OBJECT_KINDS.get(infer_dtype(series, skipna=True), "other")
        if kind == "mixed":
            return (*_factorize_mixed(series.to_numpy(dtype=object)), kind)
        if kind == "numeric" and any(isinstance(v, float) for v in labels):
            labels = [float(v) for v in labels]
        elif kind == "bool":
            labels = [bool(v) for v in labels]
        return codes, labels, kind
    if len(groups) > 1:
        return codes, labels, "mixed"
    kind = _OBJECT_KINDS.get(infer_dtype(uniques, skipna=True), "other") if labels else "empty"
    return codes, labels, kind


def _sorted_integer_codes(values):
    """``(codes, labels)`` of a non-empty numpy integer array: ``labels`` its distinct values
    in increasing order (Python ints), ``codes`` (int64) the position of each row's value.

    When the values span few integers (at most ``4 n + 1024``) one ``np.bincount`` marks the
    values present and a cumulative sum numbers them, in O(n + span); otherwise (or for
    uint64, whose offsets may not fit an int64) ``np.unique`` sorts them."""
    low, high = int(values.min()), int(values.max())
    span = high - low + 1
    if span > 4 * len(values) + 1024 or values.dtype == np.uint64:
        labels, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.int64).ravel(), labels.tolist()
    offsets = values.astype(np.int64) - low
    present = np.bincount(offsets, minlength=span) > 0
    number = np.cumsum(present, dtype=np.int64) - 1
    return number[offsets], (np.flatnonzero(present) + low).tolist()


def _factorize_mixed(values):
    """:func:`_factorize` of an object array whose values belong to several type groups."""
    missing = np.asarray(pd.isna(values), dtype=bool)
    groups = np.fromiter((_group(v) for v in values), dtype=np.int8, count=len(values))
    groups[missing] = -1
    codes = np.full(len(values), -1, dtype=np.int64)
    labels = []
    for group in (_BOOL, _NUMBER, _STRING, _OTHER):
        rows = np.flatnonzero(groups == group)
        if not len(rows):
            continue
        part, uniques = pd.factorize(values[rows], use_na_sentinel=True)
        codes[rows] = part + len(labels)
        found = [_plain(v) for v in uniques.tolist()]
        if group == _BOOL:
            found = [bool(v) for v in found]
        elif group == _NUMBER and any(isinstance(_plain(v), float) for v in values[rows]):
            found = [float(v) for v in found]
        labels.extend(found)
    return codes, labels


def _sort_key(value):
    group = _group(value)
    return (group, value) if group != _OTHER else (group, type(value).__name__, str(value))


def name_ranks(names):
    """Each column's position when the columns are sorted by name (as states are sorted:
    bools, then numbers, then strings, then other labels by type name and text; column
    position only between names that compare equal).

    The tie rule of the orientation steps that must not depend on the column order: two
    fits of the same data with the columns in another order rank every column the same.

    Returns
    -------
    ranks : int64 ndarray of shape (len(names),)
        Read-only when every name is a string (the common case, computed once per tuple of
        names: a fit reads them several times).
    """
    if all(type(name) is str for name in names):  # (the common case: one group, sorted by text)
        return _text_name_ranks(tuple(names))
    order = sorted(range(len(names)), key=lambda i: (_sort_key(names[i]), i))
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[order] = np.arange(len(names))
    return ranks


@functools.lru_cache(maxsize=64)
def _text_name_ranks(names):
    """:func:`name_ranks` of a tuple of strings (sorted by text; stable), read-only and
    cached: a tuple of exact ``str`` equals another only when every name is the same text,
    so the cached ranks are those of ``names`` (names of mixed types are not cached: ``1``,
    ``1.0`` and ``True`` compare equal but sort in different groups)."""
    order = sorted(range(len(names)), key=names.__getitem__)
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[order] = np.arange(len(names))
    ranks.flags.writeable = False
    return ranks


def name_order(names):
    """The columns' positions in name order (the :func:`name_ranks` rule), or None when
    ``names`` are already in that order.

    The learners' searches run on the columns in this order (:func:`permute_columns`), so
    that every tie between moves, pairs or parents is broken by column name, never by
    column position: the same data give the same result for any column order. None
    spares the copy in the common case of columns already in name order.

    Returns
    -------
    order : int64 ndarray of shape (len(names),) or None
        ``order[k]``: the position in ``names`` of the ``k``-th column in name order.
    """
    if all(type(name) is str for name in names):  # (the common case, cached)
        return _text_name_order(tuple(names))
    return _order_of(name_ranks(names))


def _order_of(ranks):
    """:func:`name_order` from the ranks: their argsort, None when it is the identity."""
    order = np.argsort(ranks)
    return None if np.array_equal(order, np.arange(len(ranks))) else order


@functools.lru_cache(maxsize=64)
def _text_name_order(names):
    """:func:`name_order` of a tuple of strings, read-only and cached as
    :func:`_text_name_ranks` is."""
    order = _order_of(_text_name_ranks(names))
    if order is not None:
        order.flags.writeable = False
    return order


def permute_columns(data, order):
    """``data`` with its columns in the order ``order`` (positions in ``data``): codes,
    cardinalities, names, values, the intervention mask, the target's position, the
    observed-cell masks of row groups and the scatter matrices of summarised rows follow.

    Parameters
    ----------
    data : EncodedData
    order : sequence of int
        A permutation of ``range(data.n_variables)``, or of a part of it (the columns left
        out are dropped; the target, if ``data`` has one, must be kept); column ``k`` of
        the result is column ``order[k]`` of ``data``.

    Returns
    -------
    EncodedData
        A copy (the row weights are shared, being the same for every column order), whose
        ``input_names`` are the names of ``data`` (its own ``input_names`` if it has them).
    """
    order = np.asarray(order, dtype=np.int64)
    position = np.full(data.n_variables, -1, dtype=np.int64)
    position[order] = np.arange(len(order))  # position[i]: the new position of column i
    if data.target is not None and position[data.target] < 0:
        raise ValueError("permute_columns cannot drop the target column")

    def columns(array):  # Fortran-ordered: gather whole columns (rows of the transpose)
        return array.T[order].T if array.flags.f_contiguous else np.asfortranarray(array[:, order])

    values = scatter = groups = intervened = None
    if data.values is not None:
        values = columns(data.values)
    if data.row_scatter is not None:  # over the continuous columns, in column order
        rank = np.cumsum(data.continuous) - 1  # rank[i]: column i's place among the continuous
        inner = rank[order[data.continuous[order]]]  # the kept ones, in their new order
        scatter = np.ascontiguousarray(data.row_scatter[:, inner][:, :, inner])
    if data.groups is not None:
        groups = RowGroups(data.groups.group, data.groups.shared[:, order])
    if data.intervened is not None:
        intervened = np.ascontiguousarray(data.intervened[:, order])
    return replace(
        data, codes=columns(data.codes), cardinalities=data.cardinalities[order],
        names=tuple(data.names[i] for i in order), values=values, row_scatter=scatter,
        groups=groups, intervened=intervened,
        target=None if data.target is None else int(position[data.target]),
        input_names=data.names if data.input_names is None else data.input_names,
    )


def _refuse_kind(name, kind):
    """Refuse the kinds that are never discrete without a declaration."""
    if kind == "complex":
        raise ValueError(f"Complex data not supported (column {name!r}): skbn takes discrete states "
                         "(text, categories, whole numbers) or real numbers (a continuous column). Split "
                         "it into two real columns (its real and imaginary parts, or its modulus and "
                         "argument).")
    if kind == "time":
        raise TypeError(f"Column {name!r} holds dates/times, which skbn does not read as states or "
                        f"numbers: make it categories (X[{name!r}].astype('category'), or a coarser label "
                        "such as the month), or numbers for a continuous column (e.g. days since a "
                        "reference date).")


def _declare_hint(name, what):
    if what == "target":
        return "pass y as a pandas categorical, e.g. y.astype('category')"
    return (f"pass categories={{{name!r}: [...]}} (the states in their order) or give it a pandas "
            f"'category' dtype, e.g. X[{name!r}] = X[{name!r}].astype('category')")


def _fractional(labels):
    """Whether some (finite) numeric label is not a whole number."""
    values = np.fromiter(labels, dtype=np.float64, count=len(labels))  # float() of each label
    with np.errstate(invalid="ignore"):
        fractional = values != np.round(values)  # NaN: True, infinite: False
    return bool(np.any(fractional & ~np.isnan(values)))


def _too_many_integer_states(n_values, n_rows):
    """Whether ``n_values`` distinct whole numbers in ``n_rows`` rows are too many to be
    taken for categories without a declaration (the column-type rule)."""
    return n_values > MAX_INTEGER_STATES or (n_values > SPARSE_INTEGER_STATES and n_rows < 2 * n_values)


def numeric_column(series):
    """Whether the encoder reads the Series ``series`` as numbers (:func:`_factorize`'s kind
    "numeric": a numeric dtype, or an object column of numbers only; not bools, a pandas
    categorical or text)."""
    return value_kind(series.name, series) == "numeric"


def value_kind(name, series):
    """The kind :func:`_factorize` gives the Series ``series`` (column ``name``), without
    factorizing a column whose dtype decides it: the one rule of what counts as a number
    ("numeric": a numeric dtype, or an ``object`` column of numbers only; never text such
    as ``"3.5"``, bools or a pandas categorical), in fit, at score time and in chunks."""
    kind = _column_kind(series)
    return _factorize(name, series)[2] if kind == "object" else kind


def numeric_codes(values, weights=None):
    """Whether the column-type rule takes the numeric ``values`` (1-D, finite) for discrete
    codes: whole numbers, not too many of them (:func:`_too_many_integer_states`) in rows
    counted as :func:`encode_fit` counts them under the row ``weights``."""
    labels = np.unique(values)
    n_rows = counted_rows(len(values), weights)
    return not _fractional(labels) and not _too_many_integer_states(len(labels), n_rows)


def _check_numeric(name, labels, n_rows, *, what="column", partial=False, continuous_ok=False):
    """The numeric-column rule for a discrete column: whole values, at most
    :data:`MAX_INTEGER_STATES` of them, and at least two rows per value when there are more
    than :data:`SPARSE_INTEGER_STATES` (:func:`_too_many_integer_states`).

    ``partial``: ``labels`` and ``n_rows`` are those of the rows read so far (chunks).
    ``continuous_ok``: the caller accepts continuous columns (the message then says how to
    declare one)."""
    values = np.asarray([float(v) for v in labels], dtype=np.float64)
    label = "Input y" if what == "target" else f"Column {name!r}"
    if not np.all(np.isfinite(values)):
        raise ValueError("Input y contains infinity." if what == "target"
                         else f"Input X contains infinity in column {name!r}.")
    fractional = np.flatnonzero(values != np.round(values))
    if len(fractional):
        raise ValueError(
            f"{label} holds continuous (non-integer) numbers, e.g. {labels[fractional[0]]!r}, and "
            "continuous columns are not supported here: discretize it first, e.g. with "
            "sklearn.preprocessing.KBinsDiscretizer(encode='ordinal'), or, if its values are "
            f"categories, declare them: {_declare_hint(name, what)}."
        )
    if _too_many_integer_states(len(labels), n_rows):
        counted = (f"at least {len(labels)} distinct values (in the first {n_rows} rows read)"
                   if partial else f"{len(labels)} distinct values in {n_rows} rows")
        reason = (f"more than {MAX_INTEGER_STATES} distinct values" if len(labels) > MAX_INTEGER_STATES
                  else "fewer than two rows per value (most categories would hold one row)")
        if continuous_ok:
            declare = (f"Declare which it is: column_types={{{name!r}: 'continuous'}} for a "
                       f"measurement, or column_types={{{name!r}: 'discrete'}} (or "
                       f"{_declare_hint(name, what)}) if its values are categories.")
        else:
            declare = ("Discretize it, e.g. with sklearn.preprocessing.KBinsDiscretizer(encode='ordinal'), "
                       f"or, if its values really are categories, declare them: {_declare_hint(name, what)}.")
        message = (f"{label} is numeric with {counted}: whole numbers with {reason} are not "
                   f"taken for categories without a declaration (they may be a rounded measurement "
                   f"or an identifier). {declare}")
        if what == "column" and all(float(value) >= 0 for value in labels):
            message += (" If it is the count of each row (a frequency table, e.g. R's "
                        "as.data.frame(table) 'Freq'), drop it from X and pass it as sample_weight.")
        if continuous_ok and what == "column":
            raise _UndeclaredWholeNumbers(message, name)
        raise ValueError(message)


class _UndeclaredWholeNumbers(ValueError):
    """A numeric column of too many whole numbers (:func:`_too_many_integer_states`), undeclared,
    where continuous columns are accepted (``column`` names it). :func:`encode_fit` (and
    chunked input, :func:`skbn._chunks.encode_chunks`) reads every column before raising,
    so that one error names all such columns (:func:`_refuse_undeclared`)."""

    def __init__(self, message, column=None):
        super().__init__(message)
        self.column = column


def _refuse_undeclared(errors, read_as_codes=()):
    """Raise the refusal of the undeclared whole-number columns: the column's own message
    for one, a message naming every column (and the one-line declarations) for several.

    ``read_as_codes``: ``(name, number of states, rows counted)`` of the other undeclared
    columns of whole numbers that the rule reads as categories although they have more than
    :data:`SPARSE_INTEGER_STATES` values (:func:`_read_as_codes`). The refusal names
    them too: a user who declares only the refused columns continuous would otherwise get
    ages or weeks of gestation as categories beside them without a word (openintro's
    ``ncbirths``: ``fage`` refused, ``mage``, 31 values, taken as categories)."""
    also = ""
    if errors and read_as_codes:
        listed = ", ".join(f"{name!r} ({count} values)" for name, count, _ in read_as_codes)
        one = len(read_as_codes) == 1
        also = (f" {'Column' if one else 'Columns'} {listed} also {'holds' if one else 'hold'} "
                f"whole numbers and, undeclared, {'is' if one else 'are'} read as categories "
                f"(at most {MAX_INTEGER_STATES} distinct values): declare "
                f"{'it' if one else 'them'} 'continuous' in column_types too if "
                f"{'it is a measurement' if one else 'they are measurements'}.")
    if len(errors) == 1:  # (a plain ValueError: the private class is the collector's)
        raise ValueError(str(errors[0]) + also) from None
    if errors:
        names = [error.column for error in errors]
        listed = ", ".join(repr(name) for name in names)
        as_dict = ", ".join(f"{name!r}: 'continuous'" for name in names)
        raise ValueError(
            f"Columns {listed} are numeric, each with more than {MAX_INTEGER_STATES} distinct "
            f"whole numbers or with more than {SPARSE_INTEGER_STATES} and fewer than two rows per "
            "value, which are not taken for categories without a declaration (they may "
            "be rounded measurements or identifiers). Declare which they are: "
            f"column_types={{{as_dict}}} for measurements (column_types='continuous' declares "
            "every column), or column_types={name: 'discrete'} for a column whose values are "
            "categories." + also
        ) from None


def _read_as_codes(states, declared_states, declared_type, allow_continuous, categorical):
    """Whether a discrete column's ``states`` are whole numbers the rule read as categories
    although they may be a measurement (:func:`_many_whole_numbers`), undeclared (not by
    ``categories=``, ``column_types=`` or a pandas ``categorical`` dtype), where continuous
    columns are accepted: named beside the refused columns by :func:`_refuse_undeclared`,
    else in the learners' warning (``EncodedData.whole_number_codes``), in memory and in
    chunks alike."""
    return (allow_continuous and states is not None and declared_type is None
            and declared_states is None and not categorical and _many_whole_numbers(states))


def _many_whole_numbers(states):
    """Whether the states the rule gave an undeclared column are more than
    :data:`SPARSE_INTEGER_STATES` numbers (bools and text are not numbers): whole numbers
    read as categories that may well be a measurement (:func:`_refuse_undeclared`)."""
    return len(states) > SPARSE_INTEGER_STATES and all(
        isinstance(state, numbers.Number) and not isinstance(state, (bool, np.bool_)) for state in states)


def _first_distinct(values, limit):
    """Positions of the first occurrences of up to ``limit`` distinct values of a float
    array (NaN skipped), in the order they occur: at most ``limit`` vectorised passes, no
    Python step per value."""
    rest = np.flatnonzero(~np.isnan(values))
    head = rest[:64]  # a measurement has its first distinct values among its first rows
    _, first = np.unique(values[head], return_index=True)
    if len(first) >= limit:
        return head[np.sort(first)[:limit]].tolist()
    found = []
    while len(rest) and len(found) < limit:
        found.append(int(rest[0]))
        rest = rest[values[rest] != values[rest[0]]]
    return found


def _fractional_values(values):
    """:func:`_fractional` of a float array (NaN and infinite values skipped)."""
    with np.errstate(invalid="ignore"):
        fractional = values != np.round(values)  # NaN: True, infinite: False
    return bool(np.any(fractional & ~np.isnan(values)))


def _single_value(labels):
    """The constant-column rule: a column whose first distinct observed values (``labels``,
    :func:`_first_distinct` or :func:`_distinct_labels`) are fewer than two has a single
    value (or none observed), so no variance."""
    return len(labels) < 2


def _check_spread(name, labels, *, what="column", allow_constant=False):
    """Refuse a constant continuous column (:func:`_single_value`; kept silently when
    ``allow_constant``: its caller sets it aside, :func:`single_valued`) and warn, naming
    it, when it has fewer than :data:`MIN_CONTINUOUS_VALUES` distinct values; ``labels``:
    its first distinct values (up to :data:`MIN_CONTINUOUS_VALUES` of them), the first
    observed one first."""
    label = "Input y" if what == "target" else f"Column {name!r}"
    if _single_value(labels):
        if allow_constant:
            return
        raise ValueError(
            f"{label} is continuous and constant (every observed value is {labels[0]!r}): it carries "
            "no information and has no variance to model; drop it before fitting."
        )
    if len(labels) < MIN_CONTINUOUS_VALUES:
        declare = (_declare_hint(name, what) if what == "target"
                   else f"declare column_types={{{name!r}: 'discrete'}}")
        warn_user(
            f"{label} is continuous but has only {len(labels)} distinct values "
            f"({sorted(float(v) for v in labels)}); a Gaussian model of so few values is poor. If "
            f"they are categories, {declare}."
        )


def _held(kind, series=None):
    """What a column of ``kind`` that is not numbers holds, for a message, with an example
    cell of ``series`` that is not a number (when given)."""
    held = {"categorical": "a pandas 'category' dtype", "bool": "bools"}.get(kind, f"{kind} values")
    if series is None:
        return held
    observed = series.dropna()
    if kind not in ("categorical", "bool"):  # the first cell that is not a number
        observed = observed[[_group(_plain(v)) != _NUMBER for v in observed]]
    return f"{held} (e.g. {_plain(observed.iloc[0])!r})" if len(observed) else held


def _refuse_not_numbers(name, kind, what="column", series=None):
    """Refuse a column declared continuous that does not hold numbers (``series``: the
    column, for an example cell in the message)."""
    if kind != "numeric":
        label = "Input y" if what == "target" else f"Column {name!r}"
        raise ValueError(f"{label} is declared continuous but holds {_held(kind, series)}; a "
                         "continuous column must hold numbers.")


def _check_finite(name, values, what="column"):
    """Refuse infinite values of a continuous column, naming it."""
    if np.isinf(values).any():
        raise ValueError("Input y contains infinity." if what == "target"
                         else f"Input X contains infinity in column {name!r}.")


def _continuous_values(name, series, kind, *, what="column", values=None, allow_constant=False):
    """Float values (NaN: missing) of a continuous column, refusing what cannot be one:
    non-numbers, infinite values and a constant column (unless ``allow_constant``);
    warning, naming the column, when it has fewer than :data:`MIN_CONTINUOUS_VALUES`
    distinct values.

    Vectorised: the distinct values are looked for only up to
    :data:`MIN_CONTINUOUS_VALUES` (:func:`_first_distinct`), never listed; ``values``:
    the column as float64 when the caller has it already."""
    _refuse_not_numbers(name, kind, what, series)
    if values is None:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    _check_finite(name, values, what)
    _check_spread(name, _distinct_labels(series, values), what=what, allow_constant=allow_constant)
    return values


def _distinct_labels(series, values, limit=MIN_CONTINUOUS_VALUES):
    """The first (up to ``limit``) distinct values of a numeric column, as
    :func:`_factorize` labels them (ints stay ints; a float makes every number a float);
    ``values``: the column as float64."""
    first = _first_distinct(values, limit)
    if pd.api.types.is_float_dtype(series.dtype):
        return values[first].tolist()
    labels = [_plain(series.iloc[i]) for i in first]
    return [float(v) for v in labels] if any(isinstance(v, float) for v in labels) else labels


def _marked_numbers(labels, decimal="."):
    """``(numbers, markers)`` when every label is a number (or a number written as text,
    spaces around it allowed, with the decimal mark ``decimal``:
    :func:`~skbn.utils._text.spelled_number`) except at least one text of
    :data:`MISSING_MARKERS`, and at least one is a number; else None. ``numbers``: their
    float values."""
    numbers, markers = [], []
    for label in labels:
        group = _group(label)
        if group == _NUMBER:
            numbers.append(float(label))
        elif group != _STRING:
            return None
        elif (spelled := spelled_number(label, decimal)) is not None:
            numbers.append(float(spelled))
        elif label.strip() in MISSING_MARKERS:
            markers.append(label)
        else:
            return None
    return (numbers, markers) if numbers and markers else None


def _check_marked_numbers(name, labels, n_rows, *, what="column", declared=False, decimal="."):
    """Refuse, or warn about, an undeclared discrete column whose states are numbers (mostly
    written as text) plus a missing-value marker such as ``"NA"``: how a file written by R,
    read with ``keep_default_na=False`` to keep states called "None" or "NA", shows a column
    of numbers with missing cells.

    When its numbers would be continuous or too many whole numbers for categories (the
    numeric rule, :func:`_too_many_integer_states`), every distinct value would silently
    become a state of a discrete variable: refused, naming the column and the marker. Whole
    numbers few enough to be codes (``"1"``, ``"2"``, ``"NA"``) are kept, the marker as a
    state, with a warning; so is a column with a pandas ``category`` dtype (``declared``:
    its categories are declared states). ``decimal``: the decimal mark of the numbers written
    as text (``","``: the command line's ``--decimal ,``, which runs this check on the columns
    of a file before ``fit``, which reads only decimal points)."""
    found = _marked_numbers(labels, decimal)
    if found is None:
        return
    numbers, markers = found
    # (a number as the file writes it, '77', not as its float value, 77.0)
    example = next(label for label in labels if not (isinstance(label, str) and label in markers))
    example = example if isinstance(example, str) else float(example)
    label = "Input y" if what == "target" else f"Column {name!r}"
    shown = " and ".join(repr(m) for m in markers[:2])
    values = np.asarray(numbers, dtype=np.float64)
    measured = bool(np.any(values != np.round(values))) or _too_many_integer_states(
        len(np.unique(values)), n_rows)
    read = (f"If {shown} marks missing cells (R's write.csv writes NA), read the file with "
            f"pd.read_csv(path, keep_default_na=False, na_values=['', {markers[0]!r}]): only empty "
            f"cells and {markers[0]!r} are then missing, and the learner's missing= mode handles them")
    if what == "target":
        keep = "y.astype('category')"
    else:
        keep = f"column_types={{{name!r}: 'discrete'}}"
    if measured and not declared:
        raise ValueError(
            f"{label} holds numbers written as text ({len(numbers)} distinct, e.g. "
            f"{example!r}) and the text {shown}, so every distinct number would be a state "
            f"of a discrete variable ({len(labels)} states). {read}. If the column really is "
            f"categories, declare it: {keep}."
        )
    warn_user(
        f"{label} holds numbers and the text {shown}, taken as {'a state' if len(markers) == 1 else 'states'}"
        f" of a discrete variable ({len(labels)} states"
        f"{', its numbers taken as categories' if measured else ''}). {read}. To keep the "
        f"states as they are without this warning, declare {keep}.")


def _check_padded_twins(name, labels, *, what="column"):
    """Warn when two text states of a column differ only by spaces or double quotes at their
    ends (``"yes"`` and ``" yes"``, ``"yes"`` and ``'yes"'``): how a space after each separator
    (``yes, no``) or a stray quote in a CSV file shows once read (pandas and R's ``read.csv``
    keep both; so does ``pd.read_csv(path, dtype="category")``, whose categories are checked
    too). They stay two states, as written; the warning names them. States declared with
    ``categories=`` are not checked."""
    twins = {}
    for label in labels:
        if isinstance(label, str):
            twins.setdefault(label.strip().strip('"').strip(), []).append(label)
    groups = [sorted(group) for group in twins.values() if len(group) > 1]
    if not groups:
        return
    label = "Input y" if what == "target" else f"Column {name!r}"
    shown = " and ".join(repr(t) for t in groups[0][:2])
    more = f"; {len(groups) - 1} more such group(s)" if len(groups) > 1 else ""
    warn_user(
        f"{label} holds states that differ only by spaces or double quotes at their ends "
        f"({shown}{more}), kept as distinct states. If they come from a CSV file (a space "
        f"after each separator, a stray quote), clean the column, e.g. "
        f"X[{name!r}].str.strip(), or read the file with pd.read_csv(path, "
        f"skipinitialspace=True); declaring the states with categories= keeps them as they "
        f"are without this warning.")


def _infer_states(name, labels, kind, n_rows, *, what="column", partial=False, numeric_rule=True,
                  continuous_ok=False):
    """States of a column without declared states, and where each label goes.

    Applies the column-type rule (numeric columns: :func:`_check_numeric`, unless
    ``numeric_rule`` is False, for a column declared discrete; every column: at most
    :data:`MAX_STATES` states) and sorts the states (a mixed column by type group, refusing
    two states that print the same).

    Returns
    -------
    states : list, sorted
    rank : int64 ndarray of shape (len(labels),), the position of each label in ``states``
    """
    _refuse_kind(name, kind)
    if kind == "numeric" and numeric_rule:
        _check_numeric(name, labels, n_rows, what=what, partial=partial, continuous_ok=continuous_ok)
    if kind in ("text", "mixed") and numeric_rule and not partial:
        _check_marked_numbers(name, labels, n_rows, what=what)
    if kind in ("text", "mixed") and not partial:
        _check_padded_twins(name, labels, what=what)
    if len(labels) > MAX_STATES:
        hint = (" Is it an identifier column? Drop it before fitting." if kind != "numeric" else "")
        counted = (f"at least {len(labels)} distinct values (in the first {n_rows} rows read)"
                   if partial else f"{len(labels)} distinct values")
        raise ValueError(
            f"{'Input y' if what == 'target' else f'Column {name!r}'} has {counted}, more than the "
            f"{MAX_STATES} states skbn accepts for one variable.{hint}"
        )
    positions = range(len(labels))
    if kind == "mixed":
        order = sorted(positions, key=lambda i: _sort_key(labels[i]))
    else:
        try:
            order = sorted(positions, key=labels.__getitem__)
        except TypeError:  # unorderable values of one kind ("other")
            order = sorted(positions, key=lambda i: _sort_key(labels[i]))
    states = [labels[i] for i in order]
    if kind in ("mixed", "other"):
        _check_distinct(name, states)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels))
    return states, rank


def _check_distinct(name, states):
    """Refuse states of different types that are equal (``True`` and ``1``) or print the same
    (``1`` and ``"1"``): they cannot be told apart as states."""
    equal, text = {}, {}
    for state in states:
        for seen, key in ((equal, state), (text, str(state))):
            other = seen.setdefault(key, state)
            if other is not state:
                how = "are equal" if seen is equal else "read the same"
                raise ValueError(
                    f"Column {name!r} holds values of different types that {how}, {other!r} "
                    f"({type(other).__name__}) and {state!r} ({type(state).__name__}); they cannot "
                    f"be two states. Give the column one type first, e.g. X[{name!r}].astype(str)."
                )


def _state_index(name, declared):
    """``{typed key: position}`` of declared states, refusing equal states."""
    index, plain = {}, set()
    for position, state in enumerate(declared):
        if np.ndim(state) == 0 and pd.isna(state):  # None, NaN, pd.NA, NaT
            raise ValueError(
                f"categories for column {name!r} hold a missing value ({state!r}): a cell that "
                "is None or NaN is missing, never a state, so it cannot be declared as one. "
                f"Leave it out (e.g. categories={{{name!r}: X[{name!r}].dropna().unique()}}); "
                "missing cells are handled by the learner's missing= mode."
            )
        try:
            key = _typed_key(state)
            hash(key)
        except TypeError:
            raise ValueError(f"categories for column {name!r} hold an unhashable state {state!r}.") from None
        if key in index or state in plain:
            raise ValueError(f"categories for column {name!r} contain duplicates ({state!r}).")
        index[key] = position
        plain.add(state)
    return index


def _declared_lookup(name, declared, labels, first_seen):
    """Position among the declared states of every label (``-1``: not declared).

    ``first_seen``: the positions of the observed labels in the order they first occur in
    the rows; the first of them that is not declared is reported (same message in memory
    and in chunks)."""
    index = _state_index(name, declared)
    lookup = np.array([index.get(_typed_key(v), -1) for v in labels], dtype=np.int64)
    first_seen = np.asarray(first_seen, dtype=np.int64)
    bad = first_seen[lookup[first_seen] < 0] if len(first_seen) else first_seen
    if len(bad):
        raise ValueError(
            f"Found unknown category {labels[bad[0]]!r} in column {name!r}: it is not among the "
            f"states declared for it with categories= ({_shown(declared)}). Add it to "
            "categories= or correct the data."
        )
    return lookup


def _shown(states, limit=20):
    states = list(states)
    return repr(states[:limit])[:-1] + (f", ... ({len(states)} states)]" if len(states) > limit else "]")


#: The advice on a state that pandas.read_csv's defaults read as missing (the refusal of a
#: missing cell, the warning of missing="complete_case"; the command line, which reads cells
#: as written, replaces it with its own).
READ_CSV_HINT = (
    "If the file spells a state \"None\", \"NA\", \"NaN\" or \"null\", pandas.read_csv read it "
    "as missing: read the file with keep_default_na=False, na_values=[''] to keep such states "
    "(only empty cells missing; a file written by R marks its missing cells NA: "
    "na_values=['', 'NA'])."
)


def _nan_message(name, text=False, what="column"):
    """The refusal of a missing cell in training data; ``text``: the column holds text, whose
    states spelled "None", "NA" or "null" pandas.read_csv reads as missing by default;
    ``what="target"``: the cell is a label of ``y`` (``fit(X, y)``), the target ``name``."""
    hint = " " + READ_CSV_HINT if text else ""
    if what == "target":
        return (
            f"Input y contains NaN (target {name!r}); fitting with missing='error' needs a label in "
            "every row. Drop those rows, or use missing='em' / 'complete_case' on a learner that "
            "accepts them: the target is a column of the network, so a missing label is a "
            "missing cell of that column (the same model as passing it in X with "
            f"target={name!r}).{hint}"
        )
    return (
        f"Input X contains NaN in column {name!r}; fitting assumes complete data. "
        "Impute or drop incomplete rows, or use missing='em' / 'complete_case' on a learner "
        f"that accepts them (missing values are supported at score time).{hint}"
    )


def _check_n_states(name, states):
    if not len(states):
        raise ValueError("Every variable needs at least one state.")
    if len(states) > MAX_STATES:
        raise ValueError(
            f"Column {name!r} has {len(states)} declared states, more than the {MAX_STATES} "
            "states skbn accepts for one variable."
        )


def _as_series(column):
    return column if isinstance(column, pd.Series) else pd.Series(column, copy=False)


def _fit_column(name, column, declared, declared_type, *, allow_missing, allow_continuous,
                allow_constant=False, n_rows=None):
    """``(states, codes, values)`` of one training column: codes int64 (``-1`` = missing);
    for a continuous column ``states`` is None, codes are 0 / ``-1`` and ``values`` its
    floats (NaN = missing); ``values`` is None for a discrete column. ``allow_constant``:
    a constant continuous column is encoded instead of refused. ``n_rows``: the number of
    rows the column-type rule counts (:func:`row_copies`; None: the column's length)."""
    series = _as_series(column)
    if n_rows is None:
        n_rows = len(series)
    if (declared is None and declared_type in (None, CONTINUOUS) and allow_continuous
            and pd.api.types.is_float_dtype(series.dtype)):
        # a float column: the type rule and the checks on the float array, vectorised (no
        # label per distinct value); a whole-valued one goes on to the discrete path below
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)  # no copy of a float64 column
        missing = np.isnan(values)
        _check_missing(name, missing, allow_missing)
        if declared_type == CONTINUOUS or _fractional_values(values):
            return None, np.where(missing, -1, 0), _continuous_values(
                name, series, "numeric", values=values, allow_constant=allow_constant)
    if (declared is None and declared_type != CONTINUOUS and isinstance(series.dtype, np.dtype)
            and series.dtype.kind in "iu" and len(series)):
        # a numpy integer column (no missing cell) taken as discrete: its distinct values
        # sorted by one counting pass instead of a hash table (the same states and codes)
        codes, labels = _sorted_integer_codes(series.to_numpy())
        states, lookup = _infer_states(name, labels, "numeric", n_rows,
                                       numeric_rule=declared_type is None, continuous_ok=allow_continuous)
        _check_n_states(name, states)
        return states, _apply(lookup, codes), None
    codes, labels, kind = _factorize(name, series)
    missing = codes < 0
    _check_missing(name, missing, allow_missing, text=kind in ("text", "mixed", "categorical"))
    continuous = declared_type == CONTINUOUS or (
        declared is None and declared_type is None and kind == "numeric" and allow_continuous
        and _fractional(labels))
    if continuous:
        if declared is not None:
            raise ValueError(f"Column {name!r} is declared continuous by column_types= and given "
                             "states by categories=; declare it one way only.")
        if not allow_continuous:
            raise ValueError(f"Column {name!r} is declared continuous, but this function needs "
                             "discrete columns.")
        values = _continuous_values(name, series, kind, allow_constant=allow_constant)
        return None, np.where(missing, -1, 0), values
    if declared is not None:
        first_seen = (pd.unique(codes[~missing]) if kind == "categorical" else np.arange(len(labels)))
        lookup = _declared_lookup(name, declared, labels, first_seen)
        states = declared
    elif kind == "categorical":
        _check_n_states(name, labels)
        if declared_type is None:
            _check_marked_numbers(name, labels, n_rows, declared=True)
        _check_padded_twins(name, labels)  # pd.read_csv(dtype="category") states from a file
        return labels, codes, None
    else:
        states, lookup = _infer_states(name, labels, kind, n_rows, numeric_rule=declared_type is None,
                                       continuous_ok=allow_continuous)
    _check_n_states(name, states)
    return states, _apply(lookup, codes), None


#: The dtypes :func:`_measured_columns` reads as measurements without a declaration.
_FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def _measured_columns(X, names, categories, column_types, array=None):
    """``{position: float64 values}`` of the numeric columns of a DataFrame ``X`` that
    :func:`_fit_column` makes continuous without a warning, checked all at once.

    A column qualifies when it has no declared states and either a float64 or float32 dtype
    with the type ``"continuous"`` or none, or an integer dtype declared ``"continuous"``
    (measured whole numbers, as many of R's data sets hold; undeclared, the rule makes
    them discrete), and, on the block of such columns (one float64 array): no missing
    cell, no infinite value, a value that is not whole (unless declared continuous), and at
    least :data:`MIN_CONTINUOUS_VALUES` distinct values among its first 64 rows. Its values
    are then those :func:`_fit_column` returns (the same float64 conversion). Any other
    column is left to :func:`_fit_column` (which refuses, warns or encodes it discrete as
    the rule says): the checks here only decide which columns may skip it, on a few
    vectorised passes instead of a dozen numpy calls per column. The dict's ``block``
    attribute (a :class:`_Measured`) holds the float64 block of the candidates, read once
    (``X.to_numpy`` of every column when all are candidates, else stacked from the
    columns of the split frame, its ``series``).

    ``X`` may also be a 2-D numpy array (``array``: what :func:`check_container` returned
    for it), whose columns all have its dtype; the block is then the array itself
    (float64) or its float64 copy, never written to. A block that is not column-major is
    copied to column-major order when every candidate has a value that is not whole (or is
    declared continuous), before its sums are taken: the block of a fit whose columns are
    all kept is column-major, and its ``sums`` are set.
    """
    if isinstance(X, pd.DataFrame):
        dtypes = X.dtypes.tolist()
    elif isinstance(array, np.ndarray) and array.dtype in _FLOAT_DTYPES:
        dtypes = [array.dtype] * array.shape[1]
    else:
        return _Measured()
    candidates, declared = [], []
    for j, dtype in enumerate(dtypes):
        if not isinstance(dtype, np.dtype):
            continue
        kind = _user_type(column_types, j, names[j])
        float_type = dtype in _FLOAT_DTYPES
        if not (float_type or dtype.kind in "iu" and kind == CONTINUOUS):
            continue
        if kind in (None, CONTINUOUS) and _user_states(categories, j, names[j]) is None:
            candidates.append(j)
            declared.append(kind == CONTINUOUS)
    if not candidates:
        return _Measured()
    series = None
    if isinstance(X, pd.DataFrame) and len(candidates) == len(names):
        block = X.to_numpy(dtype=np.float64)
    elif isinstance(X, pd.DataFrame):
        # some column is not a candidate: the frame is split into its columns, which
        # encode_fit passes on to _fit_column, and the block stacked from the candidates'
        # (a column-major transpose; X.iloc[:, candidates] took ~40 times longer)
        series = [column for _, column in X.items()]
        block = np.stack([series[j].to_numpy(dtype=np.float64) for j in candidates]).T
    else:
        block = array.astype(np.float64, copy=False)
        block = block if len(candidates) == len(names) else block[:, candidates]
    with np.errstate(over="ignore", invalid="ignore"):
        # (each check's per-column result is read as a list: combining a few values per
        # column is cheaper in Python than in more numpy calls)
        # a value that is not whole (np.rint: np.round's rounding to whole numbers): first
        # looked for in the first 64 rows (where a measured column has one), the other rows
        # read only for the columns with none there
        head = block[:64]
        fractional = [f or d for f, d in zip((head != np.rint(head)).any(axis=0).tolist(), declared)]
        whole = [k for k, f in enumerate(fractional) if not f]
        if whole and len(block) > len(head):
            tail = block[len(head):, whole]
            for k, f in zip(whole, (tail != np.rint(tail)).any(axis=0).tolist()):
                fractional[k] = f
        head = np.sort(head, axis=0)
        if all(fractional) and not block.flags.f_contiguous:
            # every column measured so far: a row-major block (a numpy array) is copied to
            # the column-major one encode_fit keeps as the values (the copy made here
            # instead of there), whose column sums are then the moments'
            block = np.asfortranarray(block)
        # NaN (missing) and infinity: _fit_column's case. A finite column sum means every
        # value is finite (a NaN or an infinity makes the sum NaN or infinite); the cells
        # are read only for a column whose sum is not (a missing cell, an infinity, or an
        # overflow). A row-major block (some column whole: not all kept) is summed as one
        # vector instead: numpy sums its columns row by row, several times slower, and
        # their sums (unlike those of a column-major block) are not the moments' (every
        # cell is then read when it is not)
        if block.flags.f_contiguous:
            sums = np.add.reduce(block, axis=0)
            finite = np.isfinite(sums).tolist()
        else:
            sums = None
            finite = [bool(np.isfinite(np.add.reduce(block, axis=None)))] * block.shape[1]
    unsure = [k for k, f in enumerate(finite) if not f]
    if unsure:
        for k, f in zip(unsure, np.isfinite(block[:, unsure]).all(axis=0).tolist()):
            finite[k] = f
    changes = (head[1:] != head[:-1]).sum(axis=0).tolist()  # (compared, not subtracted: inf - inf)
    return _Measured({j: block[:, k] for k, j in enumerate(candidates)
                      if fractional[k] and finite[k] and 1 + changes[k] >= MIN_CONTINUOUS_VALUES},
                     block, sums, series)


class _Measured(dict):
    """:func:`_measured_columns`' ``{position: values}``, with the ``block`` they were read
    from (None when no column was a candidate) and its column ``sums`` (``np.add.reduce``
    down its columns, the finiteness check's; None for a block that is not column-major),
    and the ``series`` of a DataFrame split into its columns (``X.items()``) to read the
    block from (None when it was not split)."""

    def __init__(self, columns=(), block=None, sums=None, series=None):
        super().__init__(columns)
        self.block = block
        self.sums = sums
        self.series = series


@dataclass(frozen=True)
class ColumnSums:
    """The column sums ``sums`` of the float64 array ``values``, each numpy's pairwise sum
    of its column as one vector (``np.add.reduce(values, axis=0)`` of a column-major array),
    as :func:`encode_fit`'s check of finite values computed them: the column sums the
    one-group moments start from (:func:`skbn._counting._moments.moments`), computed once
    per fit.

    They belong to that very array (read-only): :meth:`of` gives them only for it, so data
    derived with other values (rows taken, columns permuted or appended, completed cells:
    new arrays) never read them."""

    values: np.ndarray
    sums: np.ndarray

    def of(self, values):
        """The column sums of ``values`` when it is the array they were computed on, else None."""
        return self.sums if values is self.values else None


def _check_missing(name, missing, allow_missing, text=False, what="column"):
    """Refuse missing cells (unless ``allow_missing``) and a column without an observed value
    (``text``, ``what``: :func:`_nan_message`)."""
    if missing.any():
        if not allow_missing:
            raise ValueError(_nan_message(name, text, what))
        if missing.all():
            if what == "target":
                raise ValueError(f"Input y (target {name!r}) has no observed value (every cell "
                                 "is missing).")
            raise _NoObservedValue(no_observed_value_message([name]), column=name)


class _NoObservedValue(ValueError):
    """A column without an observed value (``column`` names it): :func:`encode_fit` reads
    every column before raising, so that one error names all such columns."""

    def __init__(self, message, column=None):
        super().__init__(message)
        self.column = column


#: the columns one "no observed value" error names before "and N more"
_EMPTY_COLUMNS_SHOWN = 10


def no_observed_value_message(names, why="every cell is missing"):
    """The refusal of the columns ``names`` (at least one), none of which has an observed
    value (``why``: in which rows, said in brackets): every one named up to
    :data:`_EMPTY_COLUMNS_SHOWN`, then how many more (the message of :func:`encode_fit`, of
    chunked input and of EM on continuous columns)."""
    if len(names) == 1:
        return f"Column {names[0]!r} has no observed value ({why})."
    listed = ", ".join(repr(name) for name in names[:_EMPTY_COLUMNS_SHOWN])
    more = (f" and {len(names) - _EMPTY_COLUMNS_SHOWN} more" if len(names) > _EMPTY_COLUMNS_SHOWN
            else "")
    return (f"{len(names)} columns have no observed value ({why}): "
            f"{listed}{more}. Drop them.")


def _apply(lookup, codes):
    """``lookup[codes]``, keeping ``-1`` (missing) as ``-1``."""
    return np.append(lookup, -1)[codes]


def _check_per_column(value, names, parameter):
    """Refuse a per-column declaration (``categories=``, ``column_types=``) that does not fit
    the columns: a dict key that is not a column, a list of the wrong length."""
    if isinstance(value, dict):
        unknown = [key for key in value if key not in names]
        if unknown:
            raise ValueError(
                f"{parameter} has key(s) {unknown!r} that are not columns of X (columns: {names})."
            )
    elif len(value) != len(names):
        raise ValueError(f"{parameter} has {len(value)} entries but X has {len(names)} columns.")


def _check_categories(categories, names):
    """Refuse a ``categories=`` that does not fit the columns (in memory and in chunks)."""
    if not (isinstance(categories, str) and categories == "auto"):
        _check_per_column(categories, names, "categories")


def _user_states(categories, j, name):
    """The states ``categories=`` declares for column ``j`` (None: not declared)."""
    if isinstance(categories, str) and categories == "auto":
        return None
    if isinstance(categories, dict):
        return None if name not in categories else list(categories[name])
    return list(categories[j])


def _check_column_types(column_types, names):
    """Refuse a ``column_types=`` that does not fit the columns or names an unknown type."""
    if isinstance(column_types, str):
        if column_types not in ("auto", DISCRETE, CONTINUOUS):
            raise ValueError("column_types must be 'auto', 'discrete', 'continuous', a list (one "
                             f"type per column) or a dict column -> type, got {column_types!r}.")
        return
    _check_per_column(column_types, names, "column_types")
    given = column_types.items() if isinstance(column_types, dict) else zip(names, column_types)
    for name, kind in given:
        if kind not in (DISCRETE, CONTINUOUS, "auto"):
            raise ValueError(f"column_types[{name!r}] must be 'discrete', 'continuous' or 'auto', "
                             f"got {kind!r}.")


def _user_type(column_types, j, name):
    """The type ``column_types=`` declares for column ``j`` (None: the rule decides)."""
    if isinstance(column_types, str):
        return None if column_types == "auto" else column_types
    kind = column_types.get(name, "auto") if isinstance(column_types, dict) else column_types[j]
    return None if kind == "auto" else kind


def encode_fit(X, categories="auto", *, allow_missing=False, column_types="auto",
               allow_continuous=False, allow_constant=False, weights=None, names=None):
    """Encode training data (the column-type rule of the module docstring).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
    categories : "auto", list of sequences (one per column), or dict column -> sequence
        Declared states; "auto" takes pandas categories, else the sorted observed values.
    allow_missing : bool, default=False
        Keep missing cells (NaN/None) as code ``-1`` (the codes are then signed int16)
        instead of refusing them; a column with no observed value is still refused.
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        ``"discrete"``, ``"continuous"`` or ``"auto"`` (the rule) per column (a list: one
        per column; a dict: column -> type); one of them as a string applies to every column.
    allow_continuous : bool, default=False
        Accept continuous columns; when False (functions that need discrete data) a
        column the rule makes continuous is refused, naming it.
    allow_constant : bool, default=False
        Encode a constant continuous column (a single observed value) instead of refusing
        it: for a caller that sets such columns aside (a feature selector), which finds
        them with :func:`single_valued`. A learner cannot model one.
    weights : ndarray of shape (n_samples,) or None, default=None
        The positive row weights of ``X`` (:func:`positive_weight_rows`), stored as the
        data's ``weights``. The column-type rule counts rows as :func:`row_copies` does: an
        integer weight is that many rows (a frequency table's 13 cells of counts 0..12
        summing to 6,115 are 6,115 rows per 13 values, as the rows written out).
    names : list or None, default=None
        The column names of the DataFrame ``X`` (:func:`column_names`) when the caller
        has read them (None: read here).

    Returns
    -------
    data : EncodedData
    states : list
        State labels per column (``categories_``); None for a continuous column.
    """
    # split into columns only if a column is not a measured float one
    array = check_container(X)  # (None for a DataFrame)
    if array is not None:
        names = list(range(array.shape[1]))
    elif names is None:
        names = column_names(X)
    n_samples = (len(X) if array is None else array.shape[0]) if names else 0
    _check_shape(len(names), n_samples)
    n_rows = counted_rows(n_samples, weights)
    _check_categories(categories, names)
    _check_column_types(column_types, names)
    measured = (_measured_columns(X, names, categories, column_types, array) if allow_continuous
                else _Measured())
    columns = measured.series  # (a frame's columns, when _measured_columns split it)
    if columns is None and len(measured) < len(names):  # some column goes through _fit_column
        columns = ([column for _, column in X.items()] if array is None
                   else [array[:, j] for j in range(array.shape[1])])
    states, column_codes, column_values, undeclared, read_as_codes, empty = [], [], {}, [], [], []
    for j, name in enumerate(names):
        if j in measured:  # continuous, every check passed on the whole block at once
            column_states, codes, values = None, None, measured[j]  # (codes: 0, filled below)
        else:
            declared_states = _user_states(categories, j, name)
            declared_type = _user_type(column_types, j, name)
            try:
                column_states, codes, values = _fit_column(
                    name, columns[j], declared_states, declared_type,
                    allow_missing=allow_missing, allow_continuous=allow_continuous,
                    allow_constant=allow_constant, n_rows=n_rows)
            except _UndeclaredWholeNumbers as error:
                undeclared.append(error)
                continue
            except _NoObservedValue:
                empty.append(name)
                continue
            if _read_as_codes(column_states, declared_states, declared_type, allow_continuous,
                              isinstance(getattr(columns[j], "dtype", None), pd.CategoricalDtype)):
                read_as_codes.append((name, len(column_states), n_rows))
        states.append(column_states)
        column_codes.append(codes)
        if values is not None:
            column_values[j] = values
    if empty:
        raise ValueError(no_observed_value_message(empty))
    _refuse_undeclared(undeclared, read_as_codes)
    cardinalities = np.array([0 if s is None else len(s) for s in states], dtype=np.int64)
    missing = allow_missing and any(codes.min() < 0 for codes in column_codes if codes is not None)
    out = np.zeros((n_samples, len(names)), dtype=np.int16 if missing else _code_dtype(cardinalities),
                   order="F")
    for j, codes in enumerate(column_codes):
        if codes is not None:  # (a measured column's codes stay 0)
            out[:, j] = codes
    values = value_sums = None
    if len(measured) == len(names) and names:
        # every column a measured float one: the float64 block _measured_columns read (the
        # same conversion, a read-only view of X when it is one float64 block: nothing to
        # copy, and nothing in a fit can write into X through it)
        # (column-major, and summed: _measured_columns made it so when every column is kept)
        values = measured.block.view()  # (a view: the caller's own float64 array keeps its flags)
        values.flags.writeable = False  # (read-only whatever pandas' copy-on-write mode)
        value_sums = ColumnSums(values, measured.sums)
    elif column_values:
        values = np.zeros(out.shape, dtype=np.float64, order="F")
        for j, column in column_values.items():
            values[:, j] = column
    return EncodedData(codes=out, cardinalities=cardinalities, names=tuple(names), values=values,
                       weights=weights, value_sums=value_sums,
                       whole_number_codes=tuple(read_as_codes)), states


def single_valued(data):
    """Which columns of ``data`` take a single observed value: a constant continuous column
    (the encoder's rule, :func:`_single_value`, which refuses it unless
    ``encode_fit(..., allow_constant=True)``) or a discrete column with one observed state
    (declared states that no row holds do not count). Missing cells are not values.

    Parameters
    ----------
    data : EncodedData

    Returns
    -------
    ndarray of shape (n_variables,), bool
    """
    codes = data.codes
    flat = np.empty(data.n_variables, dtype=bool)
    for j, continuous in enumerate(data.continuous):
        if continuous:
            flat[j] = _single_value(_first_distinct(data.values[:, j], 2))
        else:
            observed = codes[:, j][codes[:, j] >= 0] if codes.dtype.kind == "i" else codes[:, j]
            flat[j] = not len(observed) or bool(np.all(observed == observed[0]))
    return flat


def _declared_for(value, names, used, parameter):
    """A per-column declaration (``categories=``, ``column_types=``) given for every column
    ``names`` of ``X``, checked against them and restricted to the ``used`` ones (a dict
    keyed by the used labels; a string applies to every column and is kept)."""
    if isinstance(value, str):
        return value
    _check_per_column(value, names, parameter)
    if isinstance(value, dict):
        return {name: value[name] for name in used if name in value}
    position = {name: j for j, name in enumerate(names)}
    return {name: value[position[name]] for name in used}


def encode_columns(X, columns, sample_weight, *, what="columns", categories="auto",
                   column_types="auto", **options):
    """``(data, states, weights)``: the ``columns`` of ``X`` (labels of a DataFrame,
    positions of an array), in that order, encoded as a fit encodes its columns.

    The input path of a fit restricted to some columns (the functions that read a few
    columns of the user's data: :func:`skbn.checking.ci_test`, the effects of
    :mod:`skbn.causal`): ``X`` checked as a container, the rows of weight 0 dropped
    (:func:`positive_weight_rows`: such a row is not there, so it adds no state, decides no
    column type and may be missing), then :func:`encode_fit` on the columns used only, so
    that another column's missing cells or types do not matter. ``categories`` and
    ``column_types`` are given for the columns of ``X`` (a dict by label, a list with one
    entry per column of ``X``, or one string for all) and checked against them; ``options``
    go to :func:`encode_fit` (``allow_missing``, ``allow_continuous``). ``what`` names the
    labels in the error for one that is not a column of ``X``, and an ``X`` with no rows is
    refused as such (a fit's wording, "a minimum of 2 is required to learn a Bayesian
    network", would not fit these functions). ``weights`` are the validated weights of the
    rows kept (not yet set on ``data``).
    """
    array = check_container(X)  # (None for a DataFrame)
    if array is None:
        names = list(X.columns)
        absent = [c for c in columns if c not in X.columns]
        if absent:
            shown = f"{names[:20]}" + (f" and {len(names) - 20} more" if len(names) > 20 else "")
            raise ValueError(f"{what} {absent!r} are not columns of X (columns: {shown})")
        frame = X[list(columns)]
    else:
        array = np.asarray(X, dtype=object)
        names = list(range(array.shape[1]))
        bad = [c for c in columns
               if not (isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_))
                       and 0 <= c < array.shape[1])]
        if bad:
            raise ValueError(f"{what} {bad!r} are not column positions of X "
                             f"(an array has columns 0 .. {array.shape[1] - 1})")
        frame = pd.DataFrame({int(c): array[:, c] for c in columns})
    if not len(frame):
        raise ValueError(f"X has no rows: the columns {list(columns)!r} hold no data.")
    categories = _declared_for(categories, names, list(columns), "categories")
    column_types = _declared_for(column_types, names, list(columns), "column_types")
    frame, weights = positive_weight_rows(frame, sample_weight)
    if array is not None and options.get("allow_continuous"):
        frame = frame.infer_objects()  # numbers held as objects: let the column-type rule see them
    data, states = encode_fit(frame, categories, column_types=column_types, weights=weights, **options)
    return data, states, weights


def _values_for(name, column):
    """Float values (NaN: missing) of a continuous column at score time.

    What counts as a number is fit's rule (:func:`value_kind`): text (``"3.5"``), bools and
    a pandas categorical are refused, naming the column and a cell, as fit never reads
    them as numbers (undeclared they are categories; declared continuous, refused)."""
    series = _as_series(column)
    kind = value_kind(name, series)
    if kind not in ("numeric", "empty"):  # ("empty": every cell missing)
        raise ValueError(
            f"Column {name!r} was continuous in fit but holds {_held(kind, series)}; a continuous "
            "column must hold numbers, as in fit, which never reads text or bools as numbers. "
            f"Convert it first if its cells are numbers, e.g. X[{name!r}] = X[{name!r}].astype(float)."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        raise ValueError(f"Input X contains infinity in column {name!r}.")
    return values


def _codes_for(name, column, states, *, allow_missing, allow_unknown):
    """Map a column's values to the indices of known ``states``; ``-1`` marks a missing cell
    (and, with ``allow_unknown``, a value outside ``states``)."""
    series = _as_series(column)
    if isinstance(series.dtype, pd.CategoricalDtype) and list(
        map(_typed_key, series.array.categories.tolist())
    ) == list(map(_typed_key, states)):
        codes = series.array.codes.astype(np.int64)  # the Categorical's own codes
    else:
        codes, labels, kind = _factorize(name, series)
        if kind == "numeric" and not all(np.isfinite(float(v)) for v in labels):
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        index = {}
        for position, state in enumerate(states):
            index.setdefault(_typed_key(state), position)
        lookup = np.array([index.get(_typed_key(v), -1) for v in labels], dtype=np.int64)
        observed = np.zeros(len(labels), dtype=bool)
        observed[codes[codes >= 0]] = True
        unknown = np.flatnonzero((lookup < 0) & observed)
        if len(unknown) and not allow_unknown:
            bad = labels[codes[np.isin(codes, unknown)][0]]
            raise ValueError(
                f"Found unknown category {bad!r} in column {name!r} (known states: "
                f"{list(states)[:20]}). Missing cells (NaN/None) are marginalised, unknown states "
                "are not: declare the full state space at fit time with a pandas "
                "CategoricalDtype or the `categories=` parameter, or pass "
                "handle_unknown='marginalize' to marginalise unknown cells out too."
            )
        codes = _apply(lookup, codes)
    if not allow_missing and (codes < 0).any():
        raise ValueError(_nan_message(name))
    warn_state_read_as_missing(name, states, series)
    return codes


#: True while a network reads rows an estimator encoded itself (:func:`reading_encoded_rows`).
_ENCODED_ROWS = contextvars.ContextVar("skbn_encoded_rows", default=False)


@contextlib.contextmanager
def reading_encoded_rows():
    """Within the block, :func:`warn_state_read_as_missing` is silent: the frames the
    networks read there are ones an estimator built from rows it already encoded (checking
    the user's columns with that warning), where None marks every cell it marginalises, a
    missing cell or a state never seen in fit, not a text ``pandas.read_csv`` read as missing.
    (Without it, a column whose states include "None" would be said to hold missing cells
    that the user's rows do not have, e.g. a cross-validation fold holding a state its
    training fold lacks.)"""
    token = _ENCODED_ROWS.set(True)
    try:
        yield
    finally:
        _ENCODED_ROWS.reset(token)


def warn_state_read_as_missing(name, states, values):
    """Warn when a column scored with a model has missing cells where ``pandas.read_csv``
    probably read one of its states: a state spelled as a text pandas reads as missing by
    default (:data:`PANDAS_NA_TEXTS`: "None", "NA", "null", ...), missing cells in the
    column, other cells holding text, and none of them that state (the first such state is
    named). Such cells are then
    marginalised (scored as unobserved), not scored as the state.

    A column whose cells are all missing (evidence left out on purpose) or that holds the
    state somewhere (read as written) is not warned of, nor is anything within
    :func:`reading_encoded_rows`. ``values``: the column's cells (a
    Series or an array; read only when a state is spelled so). The score-time encoders of
    the estimators (:func:`encode_transform`) and of ``DiscreteBayesianNetwork`` call it.
    """
    spelled = [s for s in states if isinstance(s, str) and s in PANDAS_NA_TEXTS]
    if not spelled or _ENCODED_ROWS.get():
        return
    values = np.asarray(values, dtype=object)
    missing = np.asarray(pd.isna(values), dtype=bool)
    if not missing.any() or missing.all():
        return
    present = set(values[~missing].tolist())
    absent = [s for s in spelled if s not in present]
    if not absent or not any(isinstance(v, str) for v in present):
        return
    warn_user(
        f"Column {name!r} has {int(missing.sum())} missing cells and none spelled "
        f"{absent[0]!r}, a state of the model: pandas.read_csv reads the text {absent[0]!r} "
        "as missing by default, and missing cells are marginalised, not scored as that state. "
        "If the file spells the state so, read it with keep_default_na=False, na_values=[''] "
        "(a file written by R marks its missing cells NA: na_values=['', 'NA']).",
        UserWarning,
    )


def encode_transform(X, names, states, *, handle_unknown="error", allow_missing=True, return_values=False):
    """Encode data at score time with the states learned in fit.

    Columns are matched by name for DataFrames (extra columns are an error, absent
    network variables are *not* allowed here: the caller decides) and by position for
    arrays. Missing cells (NaN/None) and, with ``handle_unknown='marginalize'``, unknown
    states become ``-1``.

    A column whose ``states`` entry is None is continuous: its codes are 0 (``-1`` for a
    missing cell) and, with ``return_values``, its floats are returned too.

    Returns
    -------
    codes : ndarray of shape (n_samples, len(names)), int64, ``-1`` = marginalise.
    values : ndarray of shape (n_samples, len(names)), float64 (``return_values`` only)
        The continuous columns' values (NaN: missing); 0 in the discrete columns.
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
                f"missing {missing}, not seen in fit {extra}."
            )
        columns = [by_name[n] for n in names]
    elif len(columns) != len(names):
        raise ValueError(
            f"X has {len(columns)} features, but the model was fitted with {len(names)} features."
        )
    codes = np.empty((len(columns[0]), len(columns)), dtype=np.int64, order="F")
    values = np.zeros(codes.shape, dtype=np.float64, order="F") if return_values else None
    for j, (name, column, column_states) in enumerate(zip(names, columns, states)):
        if column_states is None:  # continuous
            column_values = _values_for(name, column)
            if not allow_missing and np.isnan(column_values).any():
                raise ValueError(_nan_message(name))
            codes[:, j] = np.where(np.isnan(column_values), -1, 0)
            if return_values:
                values[:, j] = column_values
            continue
        codes[:, j] = _codes_for(name, column, column_states, allow_missing=allow_missing,
                                 allow_unknown=handle_unknown == "marginalize")
    return (codes, values) if return_values else codes


def target_series(y):
    """The 1-D target ``y`` (an array, list, Series, one-column DataFrame, pandas
    Categorical or Index) as a Series, without a copy where possible; refuses a sparse or
    multi-column ``y``."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be 1-D; got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    if sparse.issparse(y):
        raise TypeError("y must be a dense 1-D array; a sparse matrix was passed.")
    if isinstance(y, (pd.Categorical, pd.Index)):  # (np.asarray would drop a categorical's categories)
        y = pd.Series(y, copy=False)
    if not isinstance(y, pd.Series):
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim != 1:
            raise ValueError(f"y must be 1-D (one target variable); got shape {values.shape}.")
        y = pd.Series(values, copy=False)
    return y


def encode_target(y, name="target", *, column_type=None, allow_continuous=False, allow_missing=False,
                  weights=None):
    """Encode a 1-D target (the column-type rule, as for a column of ``X``, with its rows
    counted as :func:`encode_fit` counts them under the row ``weights``).

    ``allow_missing``: keep a missing label (NaN/None) as code ``-1`` (NaN in ``values`` of
    a continuous target), as :func:`encode_fit` keeps a missing cell of ``X``; else it is
    refused (:func:`_nan_message`), and so is a target without an observed label.

    Returns
    -------
    codes : int64 ndarray (0 for a continuous target; ``-1`` = missing)
    states : list, or None for a continuous target
    values : float64 ndarray of a continuous target (NaN = missing), else None
    """
    y = target_series(y)
    codes, labels, kind = _factorize(name, y)
    n_rows = counted_rows(len(codes), weights)
    missing = codes < 0
    _check_missing(name, missing, allow_missing, text=kind in ("text", "mixed", "categorical"),
                   what="target")
    if column_type == CONTINUOUS or (column_type is None and allow_continuous and kind == "numeric"
                                     and _fractional(labels)):
        if not allow_continuous:
            raise ValueError("y is declared continuous, but this estimator needs a discrete target.")
        return (np.where(missing, -1, 0).astype(np.int64), None,
                _continuous_values(name, y, kind, what="target"))
    if kind == "categorical":
        states, lookup = labels, np.arange(len(labels))
        if column_type is None:
            _check_marked_numbers(name, labels, n_rows, what="target", declared=True)
    else:
        states, lookup = _infer_states(name, labels, kind, n_rows, what="target",
                                       numeric_rule=column_type is None, continuous_ok=allow_continuous)
    _check_n_states(name, states)
    return _apply(lookup, codes), states, None


def intervention_matrix(interventions, data, n_features):
    """``interventions`` as a boolean ``(n_samples, n_variables)`` matrix over ``data``'s
    columns (a target ``y`` after ``X``: never intervened on), or None when no cell is set.

    Refuses, naming the problem: a wrong number of rows or columns, an unknown column,
    non-boolean values, a row's entry that is not a collection of column names, and a
    column intervened on in every row (no row left for its conditional distribution).
    """
    n, names = data.n_samples, data.names[:n_features]
    positions = {name: i for i, name in enumerate(names)}
    matrix = np.zeros((n, data.n_variables), dtype=bool)
    if isinstance(interventions, pd.DataFrame):
        if len(interventions) != n:
            raise ValueError(f"interventions has {len(interventions)} rows but X has {n}; they must match.")
        for column in interventions.columns:
            position = positions.get(column, positions.get(str(column)))
            if position is None:
                raise ValueError(f"interventions has column {column!r}, which is not a column of X "
                                 f"(columns: {list(names)}).")
            values = interventions[column]
            if not (pd.api.types.is_bool_dtype(values.dtype) and not values.isna().any()):
                raise ValueError(f"interventions column {column!r} must be boolean (True: the row's value "
                                 f"was set by intervention), got dtype {values.dtype}.")
            matrix[:, position] = values.to_numpy(dtype=bool)
    elif isinstance(interventions, (list, tuple)):
        if len(interventions) != n:
            raise ValueError(f"interventions has {len(interventions)} rows but X has {n}; they must match.")
        for row, targets in enumerate(interventions):
            if targets is None:
                continue
            if isinstance(targets, (str, bytes)) or not hasattr(targets, "__iter__"):
                raise ValueError(f"interventions[{row}] must be a collection of column names (e.g. "
                                 f"['A'] or set()), got {targets!r}.")
            for column in targets:
                position = positions.get(column, positions.get(str(column)))
                if position is None:
                    raise ValueError(f"interventions[{row}] names {column!r}, which is not a column of X "
                                     f"(columns: {list(names)}).")
                matrix[row, position] = True
    else:
        array = np.asarray(interventions)
        if array.shape != (n, n_features):
            raise ValueError(f"interventions must have shape (n_samples, n_features) = {(n, n_features)}, "
                             f"got {array.shape}.")
        if array.dtype != bool:
            raise ValueError(f"interventions must be boolean (True: the value was set by intervention), "
                             f"got dtype {array.dtype}.")
        matrix[:, :n_features] = array
    full = np.flatnonzero(matrix.all(axis=0) if data.weights is None
                          else ~(data.weights[:, None] * ~matrix).any(axis=0))
    if len(full):
        raise ValueError(f"column {names[full[0]]!r} is intervened on in every row (of positive weight): "
                         "no observational row is left to learn how it depends on its parents.")
    return matrix if matrix.any() else None
