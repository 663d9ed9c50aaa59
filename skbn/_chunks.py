"""Out-of-core fitting: data given as chunks, compressed to weighted distinct rows.

A discrete data set is summarised exactly by its distinct rows and their numbers of copies:
every count table of every family is

    N_ijk = sum over rows n of [x_n in cell ijk] = sum over distinct rows d of c_d [x_d in cell ijk],

where ``c_d`` is the number of copies of the distinct row ``d``. With the weighted counting
engine (integer row weight ``w`` == ``w`` copies of the row, bit for bit), learning on the
distinct rows with weights ``c_d`` therefore gives the same scores, tests, graph and CPTs as
learning on all the rows, while memory grows with the number of *distinct* rows only.

:func:`encode_chunks` reads the chunks one at a time. Every chunk is encoded column by
column with the checks of the in-memory encoder (:mod:`skbn._data`), reduced to its distinct
rows, and its codes are mapped into a running state table per column (states numbered in the
order first seen). The accumulated distinct rows are merged again whenever they have doubled
since the last merge. At the end the state spaces are fixed exactly as the in-memory encoder
fixes them for the concatenated data (pandas categories, the ``categories=`` parameter, or
the sorted observed values), the codes are renumbered and duplicates merged a last time.

Missing cells (NaN/None), when the learner's ``missing`` mode accepts them, keep the code
``-1`` of the in-memory encoder: a distinct row is then a pattern of observed values *and*
missing cells (``-1`` is one more value of its column for the compression), so
``missing="complete_case"`` drops exactly the rows it drops in memory, PC's test-wise
deletion counts exactly the same rows, and EM completes every distinct incomplete row once,
weighted by its number of copies (the expected counts of ``c`` copies of a row are ``c``
times those of one copy).

What is a chunked ``X`` (:func:`is_chunked`)
-------------------------------------------
* an iterator (a generator, ``map``, ``iter(list)``, a pyarrow ``RecordBatchReader``);
* a list or tuple that is not empty and whose items are all pandas DataFrames or have a
  ``to_pandas()`` method (pyarrow ``RecordBatch`` or ``Table``: ``table.to_batches()``);
* an object with a ``to_batches()`` method (pyarrow ``Table`` and ``dataset.Dataset``):
  its record batches are the chunks;
* a dask DataFrame (an object with ``to_delayed()`` and ``npartitions``): its partitions
  are the chunks, computed one at a time.

Everything else (DataFrame, ndarray, list of rows, ...) is in-memory data as before. Each
chunk must be a pandas DataFrame or have a ``to_pandas()`` method (pyarrow ``RecordBatch``
or ``Table``, polars); all chunks must have the same column labels (in any order; the
first chunk's order is used). An empty chunk holds no value and is skipped: its dtypes do
not count (``pd.concat`` would let an empty object chunk turn categorical columns into
object ones and drop their unobserved categories).

Continuous columns
------------------
With continuous columns (the learner takes them: ``allow_continuous``) a distinct row is a
configuration of the discrete columns, and the continuous values of its rows are kept as
their moments (number of rows, means, centred cross-products), added chunk by chunk and
merged by the exact pairwise update of :class:`skbn._counting.Moments`. Every Gaussian or
CLG statistic is a function of the moments per configuration of some discrete columns,
which :class:`skbn._counting.MomentCounter` pools from these groups, so the fit equals the
in-memory fit up to rounding. A missing cell of a continuous column is refused (moments need
complete rows).

Column types across chunks
--------------------------
The column-type rule of :mod:`skbn._data` is applied to the union of the chunks' values, so
a column is typed, refused or accepted exactly as in memory. An undeclared numeric column is
held as discrete codes while it shows at most :data:`~skbn._data.MAX_INTEGER_STATES` whole
values; a non-whole number or more whole values make it continuous (the rows read before
know its value from their code), and after the last chunk a column of whole numbers only is
refused, naming ``column_types=``. Without ``allow_continuous`` a numeric column is refused
as soon as the values read so far break the rule. A column must hold the same type class in every
chunk (numbers, bools or text; integer and float chunks are both numbers, and empty chunks
do not count): ``pd.read_csv(..., chunksize=...)`` guesses every chunk's types separately,
so a column of digits that turns textual in a later chunk would get both ``0`` and ``'0'``
as states, while reading the whole file gives text. That is refused, naming the column and
the two chunks. A categorical column needs the same categories in every chunk, except for
chunks converted with ``to_pandas()`` (pyarrow record batches, whose dictionaries differ
from file to file of a dataset): their categories are united in the order first seen, as
``dataset.to_table().to_pandas()`` unites them. With ``categories=`` for a column, its
chunks may have any dtypes.
"""

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pandas as pd

from skbn._counting import config_ids, count_cells
from skbn._counting._moments import Moments, moments
from skbn._data import (
    _NUMBER,
    CONTINUOUS,
    MAX_INTEGER_STATES,
    MAX_STATES,
    MIN_CONTINUOUS_VALUES,
    EncodedData,
    _apply,
    _as_columns,
    _check_categories,
    _check_column_types,
    _check_finite,
    _check_marked_numbers,
    _check_n_states,
    _check_numeric,
    _check_spread,
    _code_dtype,
    _declared_lookup,
    _distinct_labels,
    _factorize,
    _fractional,
    _fractional_values,
    _group,
    _infer_states,
    _nan_message,
    _read_as_codes,
    _refuse_kind,
    _refuse_not_numbers,
    _refuse_undeclared,
    _typed_key,
    _UndeclaredWholeNumbers,
    _user_states,
    _user_type,
    no_observed_value_message,
    value_kind,
)
from skbn.utils._sklearn_compat import validate_data

__all__ = ["encode_chunks", "is_chunked"]

#: The accumulated distinct rows are merged when they exceed this many rows and have
#: doubled since the last merge (amortised O(distinct rows) work per row).
MERGE_FLOOR = 1 << 18


def is_chunked(X):
    """Whether ``X`` is chunked data (see the module docstring for the rule)."""
    if isinstance(X, (pd.DataFrame, pd.Series, np.ndarray)):
        return False
    if isinstance(X, Iterator):
        return True
    if isinstance(X, (list, tuple)):
        return len(X) > 0 and all(isinstance(item, pd.DataFrame) or callable(getattr(item, "to_pandas", None))
                                  for item in X)
    if callable(getattr(X, "to_batches", None)):
        return True
    return callable(getattr(X, "to_delayed", None)) and hasattr(X, "npartitions")


def _iter_chunks(X):
    """The chunks of ``X`` as ``(index, DataFrame, converted)``, read lazily; ``converted``:
    the chunk was converted with ``to_pandas()`` (its categoricals are dictionary encodings)."""
    if isinstance(X, (Iterator, list, tuple)):
        items = X
    elif callable(getattr(X, "to_batches", None)):
        items = X.to_batches()
    else:  # dask DataFrame: one partition at a time
        items = (partition.compute() for partition in X.to_delayed())
    for index, chunk in enumerate(items):
        if isinstance(chunk, pd.DataFrame):
            yield index, chunk, False
        elif callable(getattr(chunk, "to_pandas", None)):
            yield index, chunk.to_pandas(), True
        else:
            raise TypeError(
                f"Chunk {index} of X is a {type(chunk).__name__}; every chunk of chunked X must "
                "be a pandas DataFrame or have a to_pandas() method (pyarrow RecordBatch/Table)."
            )


def _type_class(kind, dtype):
    """What a chunk's column holds for the agreement of chunks: "numbers" or "bools" (a
    numeric or bool dtype), "text" (text dtype, or an object column of strings), or None for
    other object columns (their values' types are kept as they are, as pandas concatenates
    them)."""
    if pd.api.types.is_object_dtype(dtype):
        return "text" if kind == "text" else None
    return {"numeric": "numbers", "complex": "numbers", "bool": "bools"}.get(kind, "text")


class _RunningStates:
    """States of one column seen so far, numbered in the order first seen.

    A column the type rule may make continuous (an undeclared numeric column, when the
    learner takes continuous columns) is held as discrete codes until a chunk shows a
    non-whole number or more than :data:`~skbn._data.MAX_INTEGER_STATES` whole ones
    (:meth:`should_promote`); it is then continuous (:meth:`promote`): the rows read so far
    know its value from their code, later chunks give their floats (:meth:`values`), and
    the rule is finished after the last chunk (:meth:`finish_continuous`).

    Parameters
    ----------
    name : column label
    declared : list or None
        The states ``categories=`` gives the column (no column-type rule then).
    declared_type : {"discrete", "continuous"} or None
        The type ``column_types=`` gives the column (None: the rule decides).
    allow_continuous : bool
        Whether the rule may make the column continuous.
    """

    def __init__(self, name, declared=None, declared_type=None, allow_continuous=False):
        self.name = name
        self.declared = declared
        self.declared_type = declared_type
        self.allow_continuous = allow_continuous
        #: the type rule decides after the last chunk whether the column is continuous
        self.promotable = allow_continuous and declared is None and declared_type is None
        self.continuous = declared_type == CONTINUOUS
        self.fractional = False  # a chunk held a non-whole number
        self.spread = []  # a continuous column's first distinct values (up to MIN_CONTINUOUS_VALUES)
        self.promoted = None  # (labels, rows read) when whole numbers made it continuous
        self.n_missing = 0
        self.labels = []  # running code -> label
        self.index = {}  # typed key -> running code
        self.first_seen = []  # running codes of observed labels, in the order first observed
        self.seen = set()
        self.observed = False  # some chunk has an observed (non-missing) cell
        self.kind = None  # "categorical", or the kind of the non-empty chunks ("mixed" if several)
        self.classes = {}  # type class (see _type_class) -> the first chunk that held it
        self.categories = None  # a categorical column's categories (so far)
        self.float_seen = False  # a chunk held float numbers
        self.n_rows = 0

    def codes(self, column, chunk_index, allow_missing=False, unify_categories=False):
        """Running codes of one chunk's column (checked as the in-memory encoder checks);
        ``-1`` marks a missing cell when ``allow_missing``, else a missing cell is refused."""
        codes, labels, kind = _factorize(self.name, column)
        missing = codes < 0
        if not allow_missing and missing.any():
            raise ValueError(_nan_message(self.name))
        self.n_rows += len(codes)
        self.n_missing += int(missing.sum())
        self._check_kind(kind, column.dtype, labels, chunk_index, unify_categories)
        if self.promotable and kind == "numeric" and column.dtype.kind not in "iu":
            self.fractional = self.fractional or _fractional(labels)
        lookup = np.empty(len(labels), dtype=np.int64)
        for position, label in enumerate(labels):
            code = self.index.setdefault(_typed_key(label), len(self.labels))
            if code == len(self.labels):
                self.labels.append(label)
            lookup[position] = code
        self.observed = self.observed or not missing.all()
        if kind != "categorical":
            observed = np.arange(len(labels))
        elif self.declared is not None:  # the error for an undeclared value names the first one
            observed = self._observed_categories(codes, missing, lookup)
        else:
            observed = ()
        for code in lookup[observed].tolist():
            if code not in self.seen:
                self.seen.add(code)
                self.first_seen.append(code)
        if kind != "categorical":
            self.float_seen = self.float_seen or any(
                isinstance(v, float) and _group(v) == _NUMBER for v in labels)
        self._check_so_far()
        return _apply(lookup, codes)

    def _observed_categories(self, codes, missing, lookup):
        """The categories a chunk observes that no earlier chunk did, in the order of their
        first row."""
        present = np.flatnonzero(np.bincount(codes[~missing], minlength=len(lookup)))
        new = [c for c in present.tolist() if lookup[c] not in self.seen]
        return np.array(sorted(new, key=lambda c: int(np.argmax(codes == c))), dtype=np.int64)

    def _check_kind(self, kind, dtype, labels, chunk_index, unify_categories):
        """Refuse chunks that disagree on the column's type; unite the kinds."""
        if self.declared is None:
            _refuse_kind(self.name, kind)
        categorical = kind == "categorical"
        if self.declared is not None and categorical:
            return  # declared states: a categorical chunk is only a container of values
        if categorical or self.kind == "categorical":
            if self.kind is None:
                self.kind, self.categories = kind, list(labels)
            elif categorical and self.kind == "categorical":
                if list(map(_typed_key, labels)) != list(map(_typed_key, self.categories)):
                    if not unify_categories:
                        raise ValueError(
                            f"Column {self.name!r} of chunk {chunk_index} has categories "
                            f"{labels[:20]} but the first chunk declared categories "
                            f"{self.categories[:20]}; declare one CategoricalDtype for every chunk "
                            "(or pass categories=)."
                        )
                    known = set(map(_typed_key, self.categories))
                    self.categories += [v for v in labels if _typed_key(v) not in known]
            else:
                raise ValueError(
                    f"Column {self.name!r} of chunk {chunk_index} has "
                    + (f"categories {labels[:20]}" if categorical else "no categorical dtype")
                    + " but the first chunk "
                    + (f"declared categories {self.categories[:20]}" if not categorical
                       else "is not categorical")
                    + "; declare one CategoricalDtype for every chunk (or pass categories=)."
                )
            return
        if kind == "empty" or not labels:
            return
        held = _type_class(kind, dtype)
        for before, first in self.classes.items():
            if held is not None and held != before:
                raise ValueError(
                    f"Column {self.name!r} holds {before} in chunk {first} but {held} in chunk "
                    f"{chunk_index}: the chunks disagree on its type (pd.read_csv(..., chunksize=...) "
                    "guesses the types of every chunk separately; reading the whole file would give "
                    f"text). Give it one type in every chunk, e.g. pd.read_csv(..., dtype={{{self.name!r}: "
                    "str}), or declare its states with categories=."
                )
        if held is not None:
            self.classes.setdefault(held, chunk_index)
        if self.kind is None or self.kind == kind:
            self.kind = kind
        else:  # e.g. text and mixed object chunks, or bools and numbers of object chunks
            self.kind = "mixed"

    def final_labels(self):
        """The labels, numbers as floats when some chunk held floats (as pandas would
        concatenate them)."""
        if not self.float_seen or self.kind == "categorical":
            return list(self.labels)
        return [float(v) if _group(v) == _NUMBER else v for v in self.labels]

    def _check_so_far(self):
        """The column-type rule on the values read so far (a continuous or identifier column
        is refused before the rows of every chunk are kept)."""
        if self.promotable and self.kind == "numeric":  # the rule waits for the last chunk
            _check_finite(self.name, np.array([float(v) for v in self.labels], dtype=np.float64))
            return
        numeric_rule = self.declared_type is None
        if self.declared is None and self.kind not in (None, "categorical"):
            if self.kind == "numeric" and numeric_rule:
                _check_numeric(self.name, self.final_labels(), self.n_rows, partial=True)
            if len(self.labels) > MAX_STATES:
                _infer_states(self.name, self.final_labels(), self.kind, self.n_rows, partial=True,
                              numeric_rule=numeric_rule)
        if len(self.labels) > MAX_STATES:
            raise ValueError(
                f"Column {self.name!r} has more than {MAX_STATES} distinct values or categories "
                f"in the first {self.n_rows} rows read, more than skbn accepts for one variable."
            )

    def states(self):
        """Final states and the lookup from running codes to final codes (``-1``: a
        category outside ``categories=``, never observed)."""
        labels = self.final_labels()
        if self.declared is not None:
            return self.declared, _declared_lookup(self.name, self.declared, labels, self.first_seen)
        if self.kind == "categorical":
            if self.declared_type is None:
                _check_marked_numbers(self.name, labels, self.n_rows, declared=True)
            return labels, np.arange(len(labels), dtype=np.int64)
        return _infer_states(self.name, labels, self.kind, self.n_rows,
                             numeric_rule=self.declared_type is None, continuous_ok=self.allow_continuous)

    # ------------------------------------------------------------ continuous columns
    def should_promote(self):
        """Whether the type rule can no longer make this column discrete: a non-whole number,
        or more than :data:`~skbn._data.MAX_INTEGER_STATES` whole ones."""
        return (self.promotable and not self.continuous and self.kind == "numeric"
                and (self.fractional or len(self.labels) > MAX_INTEGER_STATES))

    def promote(self):
        """Make the column continuous; returns the value of each running code (the rows read
        so far hold it as a code: one value per code, so its moments within a distinct row
        are that value and no spread)."""
        if self.n_missing:
            raise ValueError(_missing_continuous(self.name))
        labels = self.final_labels()
        values = np.array([float(v) for v in labels], dtype=np.float64)
        if not self.fractional:
            self.promoted = (labels, self.n_rows)
        self.continuous = True
        self._add_spread(labels[:MIN_CONTINUOUS_VALUES])
        self.labels, self.index = [], {}
        return values

    def values(self, column, chunk_index, allow_missing=False, values=None):
        """Float values of one chunk's continuous column (checked as in memory: numbers,
        finite; a missing cell is refused)."""
        kind = value_kind(self.name, column)
        if kind not in ("numeric", "empty") and len(column):
            if self.declared_type == CONTINUOUS:
                _refuse_not_numbers(self.name, kind, series=column)
            held = column.array.categories.tolist() if kind == "categorical" else [None]
            self._check_kind(kind, column.dtype, held, chunk_index, False)  # names the chunks
            raise ValueError(
                f"Column {self.name!r} holds {kind} values in chunk {chunk_index} but numbers, "
                "continuous ones, in the chunks before; give it one type in every chunk."
            )
        if values is None:
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(values).any():
            if not allow_missing:
                raise ValueError(_nan_message(self.name))
            raise ValueError(_missing_continuous(self.name))
        _check_finite(self.name, values)
        self.fractional = self.fractional or _fractional_values(values)
        if len(self.spread) < MIN_CONTINUOUS_VALUES and len(values):
            self._add_spread(_distinct_labels(column, values))
        self.n_rows += len(values)
        self.observed = self.observed or len(values) > 0
        return values

    def _add_spread(self, labels):
        seen = {float(v) for v in self.spread}
        for label in labels:
            if len(self.spread) < MIN_CONTINUOUS_VALUES and float(label) not in seen:
                self.spread.append(label)
                seen.add(float(label))

    def finish_continuous(self):
        """The type rule after the last chunk, as in memory: whole numbers only (more than
        :data:`~skbn._data.MAX_INTEGER_STATES` of them) are refused, naming
        ``column_types=``; a constant column is refused, one with few values warned about."""
        if self.declared_type is None and not self.fractional:
            labels, n_rows = self.promoted
            _check_numeric(self.name, labels, n_rows, partial=True, continuous_ok=True)
        _check_spread(self.name, self.spread)


def _missing_continuous(name):
    return (f"Column {name!r} is continuous and has missing cells: chunked X keeps its moments, "
            "not its rows, and moments need complete rows. Drop the incomplete rows, or pass a "
            "DataFrame to use a learner's missing= mode.")


def _distinct(codes, cardinalities, counts, stats=None):
    """Distinct rows of ``codes``, their total ``counts`` (one mixed-radix id per row) and,
    with ``stats`` (the moments of every row's continuous values), the moments of each
    distinct row's rows (:meth:`skbn._counting.Moments.pooled`).

    Signed codes may hold ``-1`` (a missing cell): the ids are then those of ``codes + 1``
    over ``cardinalities + 1`` states, so a missing cell is one more value of its column.
    """
    _, first, inverse = _unique_rows(codes, cardinalities)
    pooled = None if stats is None else stats.pooled(inverse, len(first))
    return codes[first], count_cells(inverse, len(first), counts), pooled


def _chunk_code_dtype(codes, cardinalities):
    """The in-memory encoder's code dtype: signed ``int16`` when a cell is missing (``-1``),
    else the smallest unsigned type."""
    return np.int16 if codes.dtype.kind == "i" and (codes < 0).any() else _code_dtype(cardinalities)


def _concat_moments(blocks):
    """The moments of consecutive blocks of rows, one group per row (None: no continuous
    column)."""
    if blocks[0] is None:
        return None
    return Moments(np.concatenate([b.weight for b in blocks]), np.concatenate([b.mean for b in blocks]),
                   np.concatenate([b.scatter for b in blocks]))


def _add_column(stats, counts, column_values):
    """Moments with one more continuous column, constant within every group (its mean is the
    group's value, its cross-products 0)."""
    if stats is None:
        n = len(column_values)
        return Moments(np.asarray(counts, dtype=np.float64), column_values[:, None], np.zeros((n, 1, 1)))
    n, k = stats.mean.shape
    scatter = np.zeros((n, k + 1, k + 1))
    scatter[:, :k, :k] = stats.scatter
    return Moments(stats.weight, np.column_stack([stats.mean, column_values]), scatter)


def encode_chunks(estimator, X, y=None, sample_weight=None, categories="auto", *, allow_missing=False,
                  column_types="auto", allow_continuous=False, merge_floor=MERGE_FLOOR):
    """Encode chunked ``X`` to its weighted distinct rows.

    Sets ``n_features_in_`` and ``feature_names_in_`` on ``estimator`` from the first
    chunk, as an in-memory DataFrame would.

    Continuous columns (``allow_continuous``; the column-type rule of :mod:`skbn._data`,
    decided over all the chunks): a distinct row is then a configuration of the discrete
    columns, and its continuous values are kept as their moments -- the weighted mean
    (``EncodedData.values``) and the centred cross-products (``EncodedData.row_scatter``)
    of its rows -- accumulated chunk by chunk with the exact pairwise update of
    :class:`skbn._counting.Moments`. Memory: the distinct discrete rows times ``k x k``
    (``k`` continuous columns); one ``k x k`` matrix when every column is continuous.

    Parameters
    ----------
    estimator : the estimator being fitted
    X : chunked data (see :func:`is_chunked`)
    y, sample_weight : must be None (name a target column with ``target=`` instead)
    categories : "auto", list of sequences or dict, as in :func:`skbn._data.encode_fit`
    allow_missing : bool, default=False
        Keep missing cells (NaN/None) of discrete columns as code ``-1`` (signed ``int16``
        codes, as :func:`skbn._data.encode_fit` does) instead of refusing them, naming the
        column; a column with no observed value in any chunk is still refused, and so is a
        missing cell of a continuous column (its moments need complete rows).
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        As in :func:`skbn._data.encode_fit`.
    allow_continuous : bool, default=False
        Accept continuous columns (else a non-whole number is refused, naming the column).
    merge_floor : int, default=MERGE_FLOOR
        The distinct rows accumulated from the chunks are merged once they exceed this many
        rows and have doubled since the last merge (:data:`MERGE_FLOOR`); the result does
        not depend on it, the memory does.

    Returns
    -------
    data : EncodedData
        One row per distinct row of the concatenated chunks; ``weights`` holds the number of
        copies of each (``None`` when every row is distinct); with continuous columns,
        ``values`` and ``row_scatter`` hold the moments of each distinct row's rows.
    states : list
        State labels per column (None for a continuous one), as
        :func:`skbn._data.encode_fit` would return for the concatenated chunks.
    """
    if y is not None:
        raise ValueError(
            "y is not supported with chunked X: make the target a column of the chunks and "
            "pass target=<column name>."
        )
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported with chunked X: every row of a chunk has weight 1 "
            "(repeat rows to weight them)."
        )
    names = running = None
    order = []  # the continuous columns, in the order they became continuous (moments' columns)
    buffered, buffered_counts, buffered_stats, n_buffered, n_merged = [], [], [], 0, 0
    for index, chunk, converted in _iter_chunks(X):
        chunk_names, columns = _as_columns(chunk)
        if names is None:
            validate_data(estimator, chunk, skip_check_array=True, reset=True)
            names = chunk_names
            if not names:
                raise ValueError("Found array with 0 feature(s) while a minimum of 1 is required.")
            _check_categories(categories, names)  # the in-memory checks and messages
            _check_column_types(column_types, names)
            running = []
            for j, name in enumerate(names):
                declared, declared_type = _user_states(categories, j, name), _user_type(column_types, j, name)
                if declared_type == CONTINUOUS and declared is not None:
                    raise ValueError(f"Column {name!r} is declared continuous by column_types= and given "
                                     "states by categories=; declare it one way only.")
                if declared_type == CONTINUOUS and not allow_continuous:
                    raise ValueError(f"Column {name!r} is declared continuous, but this function needs "
                                     "discrete columns.")
                running.append(_RunningStates(name, declared, declared_type, allow_continuous))
                if running[-1].continuous:
                    order.append(j)
        elif chunk_names != names:
            if set(chunk_names) != set(names) or len(chunk_names) != len(names):
                missing = [n for n in names if n not in set(chunk_names)]
                extra = [n for n in chunk_names if n not in set(names)]
                raise ValueError(
                    f"The columns of chunk {index} of X differ from those of chunk 0: missing "
                    f"{missing}, extra {extra}. Every chunk needs the same columns."
                )
            columns = [columns[chunk_names.index(n)] for n in names]
        if len(columns[0]) == 0:
            continue
        # < MAX_STATES states; signed when a missing cell may be -1
        codes = np.empty((len(columns[0]), len(names)), dtype=np.int16 if allow_missing else np.uint16)
        chunk_values, promoted = {}, {}
        for j, (state, column) in enumerate(zip(running, columns)):
            values = None
            if state.promotable and not state.continuous and pd.api.types.is_float_dtype(column.dtype):
                values = column.to_numpy(dtype=np.float64, na_value=np.nan)  # the rule, vectorised
                if _fractional_values(values):
                    state._check_kind("numeric", column.dtype, [None], index, converted)
                    state.fractional = True
                    promoted[j] = state.promote()
            if state.continuous:
                chunk_values[j] = state.values(column, index, allow_missing, values)
                codes[:, j] = 0
                continue
            running_codes = state.codes(column, index, allow_missing, unify_categories=converted)
            if state.should_promote():
                promoted[j] = state.promote()
                chunk_values[j] = promoted[j][running_codes]
                running_codes = 0
            codes[:, j] = running_codes
        for j, column_values in promoted.items():  # the rows read so far: value of the code
            order.append(j)
            for b, rows in enumerate(buffered):
                buffered_stats[b] = _add_column(buffered_stats[b], buffered_counts[b],
                                                column_values[rows[:, j].astype(np.intp)])
                rows[:, j] = 0
        cards = np.array([1 if state.continuous else max(len(state.labels), 1) for state in running],
                         dtype=np.int64)
        codes = codes.astype(_chunk_code_dtype(codes, cards), copy=False)  # 1 byte a cell if they fit
        if order:
            block = np.column_stack([chunk_values[j] for j in order])
            _, first, inverse = _unique_rows(codes, cards)
            stats = moments(block, None, inverse, len(first))
            rows, counts = codes[first], stats.weight.copy()
        else:
            (rows, counts, _), stats = _distinct(codes, cards, None), None
        buffered.append(rows)
        buffered_counts.append(counts.astype(np.float64))
        buffered_stats.append(stats)
        n_buffered += len(rows)
        if n_buffered > max(merge_floor, 2 * n_merged) or promoted:
            merged = _distinct(np.concatenate(buffered), cards, np.concatenate(buffered_counts),
                               _concat_moments(buffered_stats))
            buffered, buffered_counts, buffered_stats = [merged[0]], [merged[1]], [merged[2]]
            n_buffered = n_merged = len(merged[0])
    if names is None:
        raise ValueError("X is an empty sequence of chunks; fitting needs at least one chunk of rows.")
    n_samples = int(sum(c.sum() for c in buffered_counts))
    if n_samples < 2:
        raise ValueError(
            f"The chunks of X hold {n_samples} row(s) in total while a minimum of 2 is required "
            "to learn a Bayesian network."
        )
    empty = [state.name for state in running if not state.observed]
    if empty:
        raise ValueError(no_observed_value_message(empty))
    # the type rule on every column before refusing: one error names every undeclared
    # column of too many whole numbers, as in memory
    states, renumber, undeclared, read_as_codes = [], [], [], []
    for state in running:
        column_states, lookup = None, None
        try:
            if state.continuous:
                state.finish_continuous()
            else:
                column_states, lookup = state.states()
        except _UndeclaredWholeNumbers as error:
            undeclared.append(error)
        if column_states is not None:
            _check_n_states(state.name, column_states)
            if _read_as_codes(column_states, state.declared, state.declared_type, state.allow_continuous,
                              state.kind == "categorical"):
                read_as_codes.append((state.name, len(column_states), state.n_rows))
            column_states = list(column_states)
        states.append(column_states)
        renumber.append(lookup)
    _refuse_undeclared(undeclared, read_as_codes)
    running_rows, counts = np.concatenate(buffered), np.concatenate(buffered_counts)
    stats = _concat_moments(buffered_stats)
    del buffered, buffered_counts, buffered_stats
    cardinalities = np.array([0 if s is None else len(s) for s in states], dtype=np.int64)
    rows = np.empty(running_rows.shape, dtype=_chunk_code_dtype(running_rows, cardinalities))
    for j in range(len(names)):  # a missing cell (-1) stays -1; a continuous column's code is 0
        rows[:, j] = 0 if renumber[j] is None else _apply(renumber[j], running_rows[:, j].astype(np.int64))
    del running_rows
    rows, counts, stats = _distinct(rows, np.maximum(cardinalities, 1), counts, stats)
    weights = None if np.all(counts == 1) else counts
    data = EncodedData(
        codes=np.asfortranarray(rows.astype(_chunk_code_dtype(rows, cardinalities))),
        cardinalities=cardinalities,
        names=tuple(names),
        weights=weights,
        whole_number_codes=tuple(read_as_codes),
    )
    if stats is None:
        return data, states
    continuous = np.flatnonzero(cardinalities == 0)  # the moments' columns in column order
    stats = stats.select([order.index(j) for j in continuous])
    values = np.zeros(rows.shape, dtype=np.float64, order="F")
    values[:, continuous] = stats.mean
    return replace(data, values=values, row_scatter=np.ascontiguousarray(stats.scatter)), states


def _unique_rows(codes, cardinalities):
    """``(ids, first, inverse)`` of the distinct rows of ``codes`` (see :func:`_distinct`)."""
    shift = int(codes.dtype.kind == "i")
    ids, _ = config_ids(codes + shift if shift else codes, np.asarray(cardinalities) + shift,
                        range(codes.shape[1]))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    return ids, first, inverse.reshape(-1)
