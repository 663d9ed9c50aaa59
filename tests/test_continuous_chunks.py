"""Chunked X with continuous columns: the column types are decided over all the chunks by the
in-memory rule, and the Gaussian / CLG statistics (weighted means and cross-products per
configuration of the discrete columns) are added chunk by chunk, so a chunked fit equals the
in-memory fit (same graph, same scores and parameters up to rounding)."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn import (
    BootstrapStructure,
    ChowLiuTree,
    ExactStructure,
    GESStructure,
    HillClimbStructure,
    OrderMCMCStructure,
    PCStructure,
)
from skbn._chunks import encode_chunks
from skbn._counting import MomentCounter
from skbn._data import encode_fit
from skbn.exceptions import DeterminedColumnsWarning

RTOL = 1e-10


def _gaussian(n=3000, seed=0):
    """a -> b -> c <- a, c -> d: a linear Gaussian network (column names with a dot and a space)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = 0.8 * a + rng.normal(size=n)
    c = 0.5 * b + 0.4 * a + rng.normal(size=n)
    d = c + rng.normal(size=n)
    return pd.DataFrame({"a": a, "b.1": b, "c c": c, "d": d})


def _mixed(n=3000, seed=1):
    """A CLG network: discrete g (a rare state "None" in rows 990..1009 only) and s, continuous
    x, y, z; g -> y <- x, s -> z <- y. Rows are sorted by s (so chunks see s's states in turn)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["lo", "hi"], dtype=object), size=n)
    g[990:1010] = "None"  # a rare state, cut by the chunk boundaries at 1000
    s = np.sort(rng.integers(0, 3, size=n))
    x = rng.normal(size=n)
    shift = pd.Series(g).map({"lo": -1.0, "hi": 1.0, "None": 3.0}).to_numpy()
    y = 0.7 * x + shift + rng.normal(size=n)
    z = 0.5 * y + s + rng.normal(size=n)
    return pd.DataFrame({"g": g, "s": s, "x": x, "y": y, "z": z})


def _chunks(frame, cuts):
    return (frame.iloc[start:stop] for start, stop in pairwise(cuts))


CUTS = [0, 1, 1, 500, 1000, 1995, 3000]  # a one-row chunk, an empty chunk, a cut inside "None"


def _assert_same_fit(chunked, in_memory, frame):
    assert chunked.edges_ == in_memory.edges_
    assert chunked.column_types_ == in_memory.column_types_
    if hasattr(in_memory, "score_"):
        np.testing.assert_allclose(chunked.score_, in_memory.score_, rtol=RTOL)
    np.testing.assert_allclose(chunked.score_samples(frame), in_memory.score_samples(frame), rtol=RTOL)
    for mine, theirs in zip(chunked.categories_, in_memory.categories_):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert mine.tolist() == theirs.tolist()


# ------------------------------------------------------------------ the statistics themselves
def test_chunk_moments_equal_brute_force_moments_per_configuration():
    """The moments a chunked fit reads equal numpy's mean and covariance of the concatenated
    rows of every configuration of the discrete columns (the definition)."""
    frame = _mixed()
    data, states = encode_chunks(HillClimbStructure(), _chunks(frame, CUTS), allow_continuous=True)
    assert states[2:] == [None, None, None] and data.row_scatter is not None
    counter = MomentCounter(data)
    stats = counter.moments_given([0, 1])  # g (states "None", "hi", "lo" sorted), s (0, 1, 2)
    values = frame[["x", "y", "z"]].to_numpy()
    for gi, g in enumerate(states[0]):
        for si, s in enumerate(states[1]):
            rows = (frame["g"] == g).to_numpy() & (frame["s"] == s).to_numpy()
            group = gi * 3 + si
            assert stats.weight[group] == rows.sum()
            if rows.sum() == 0:
                continue
            np.testing.assert_allclose(stats.mean[group], values[rows].mean(axis=0), rtol=RTOL)
            if rows.sum() > 1:
                np.testing.assert_allclose(stats.scatter[group], np.cov(values[rows].T, ddof=0) * rows.sum(),
                                           rtol=1e-9, atol=1e-9)
    whole = counter.moments_given()
    np.testing.assert_allclose(whole.scatter[0], np.cov(values.T, ddof=0) * len(frame), rtol=RTOL)
    in_memory = MomentCounter(encode_fit(frame, allow_continuous=True)[0])
    for discrete in ([], [0], [1], [0, 1]):
        mine, theirs = counter.moments_given(discrete), in_memory.moments_given(discrete)
        np.testing.assert_array_equal(mine.weight, theirs.weight)
        np.testing.assert_allclose(mine.mean, theirs.mean, rtol=RTOL, atol=1e-13)
        np.testing.assert_allclose(mine.scatter, theirs.scatter, rtol=RTOL, atol=1e-10)


def test_gaussian_chunks_are_one_row_whatever_the_chunking():
    frame = _gaussian()
    for cuts in (CUTS, [0, 3000], list(range(0, 3001, 7)) + [3000]):
        data, _ = encode_chunks(HillClimbStructure(), _chunks(frame, cuts), allow_continuous=True)
        assert data.n_samples == 1 and data.total_weight == 3000
        np.testing.assert_allclose(data.values[0], frame.mean().to_numpy(), rtol=RTOL)
        np.testing.assert_allclose(data.row_scatter[0], np.cov(frame.to_numpy().T, ddof=0) * 3000, rtol=RTOL)


# ------------------------------------------------------------------ learners: chunked == in memory
@pytest.mark.parametrize("learner", [PCStructure(ci_test="zf"), HillClimbStructure(scorer="bic-g"),
                                     GESStructure(scorer="bic-g"), ExactStructure(scorer="bic-g")],
                         ids=repr)
def test_gaussian_learners_chunked_equal_in_memory(learner):
    frame = _gaussian()
    in_memory = clone(learner).fit(frame)
    chunked = clone(learner).fit(_chunks(frame, CUTS))
    _assert_same_fit(chunked, in_memory, frame)
    if isinstance(learner, PCStructure):
        assert chunked.sepsets_ == in_memory.sepsets_
        assert len(in_memory.edges_) >= 4  # a real graph, not an empty one


@pytest.mark.parametrize("learner", [HillClimbStructure(scorer="bic-cg"), PCStructure(ci_test="mi-cg"),
                                     ChowLiuTree()], ids=repr)
def test_clg_learners_chunked_equal_in_memory(learner):
    frame = _mixed()
    in_memory = clone(learner).fit(frame)
    assert in_memory.column_types_ == {"g": "discrete", "s": "discrete", "x": "continuous",
                                       "y": "continuous", "z": "continuous"}
    _assert_same_fit(clone(learner).fit(_chunks(frame, CUTS)), in_memory, frame)
    _assert_same_fit(clone(learner).fit([frame.iloc[:1000], frame.iloc[1000:]]), in_memory, frame)


def test_read_csv_chunks_equal_in_memory(tmp_path):
    """pd.read_csv(chunksize=...): a column written as whole numbers in the first rows and
    with fractions later is int64 in the first chunks and float64 in the last, and is
    continuous as when the whole file is read."""
    frame = _mixed()
    frame["w"] = np.round(frame["x"] * 3).astype(int).astype(object)  # whole numbers (7 of them) ...
    frame.loc[2500:, "w"] = frame.loc[2500:, "x"] * 3  # ... and fractions in the last rows only
    path = tmp_path / "mixed data.csv"
    frame.to_csv(path, index=False)
    whole = pd.read_csv(path, keep_default_na=False)  # "None" is a state
    assert whole["w"].dtype == np.float64
    chunks = list(pd.read_csv(path, chunksize=700, keep_default_na=False))
    assert chunks[0]["w"].dtype == np.int64 and chunks[-1]["w"].dtype == np.float64
    learner = HillClimbStructure(scorer="bic-cg")
    in_memory = clone(learner).fit(whole)
    assert in_memory.column_types_["w"] == "continuous"
    chunked = clone(learner).fit(pd.read_csv(path, chunksize=700, keep_default_na=False))
    _assert_same_fit(chunked, in_memory, whole)


def test_whole_numbers_then_fractions_in_later_chunks():
    """A numeric column held as discrete codes while its chunks show at most 32 whole values,
    then made continuous by a fraction (or by a 33rd value and a later fraction): the rows read
    before keep their values, and the model is the in-memory one."""
    frame = _gaussian()
    frame["e"] = np.round(frame["a"] * 2) + frame["d"] * 0.5
    frame.loc[:1499, "e"] = np.round(frame.loc[:1499, "a"] * 2)  # ~10 whole values first
    many = frame.copy()
    many.loc[:1499, "e"] = np.arange(1500) % 50  # 50 whole values, fractions from row 1500
    for data in (frame, many):
        learner = HillClimbStructure(scorer="bic-g")
        in_memory = clone(learner).fit(data)
        assert in_memory.column_types_["e"] == "continuous"
        _assert_same_fit(clone(learner).fit(_chunks(data, CUTS)), in_memory, data)


def test_dask_dataframe_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    frame = _mixed()
    learner = HillClimbStructure(scorer="bic-cg")
    chunked = clone(learner).fit(dd.from_pandas(frame, npartitions=4))
    _assert_same_fit(chunked, clone(learner).fit(frame), frame)


def test_declared_column_types_in_chunks():
    frame = _gaussian()
    frame["k"] = np.arange(len(frame)) % 40  # 40 whole values: refused, declared: accepted
    frame["c c"] = np.round(frame["c c"] * 2)  # whole values, continuous only when declared
    declared = {"k": "discrete", "c c": "continuous"}
    learner = HillClimbStructure(scorer="bic-cg", column_types=declared)
    in_memory = clone(learner).fit(frame)
    assert in_memory.column_types_["k"] == "discrete" and in_memory.column_types_["c c"] == "continuous"
    _assert_same_fit(clone(learner).fit(_chunks(frame, CUTS)), in_memory, frame)


def test_complete_case_with_missing_discrete_cells():
    frame = _mixed()
    frame.loc[frame.index % 97 == 3, "g"] = None
    learner = HillClimbStructure(scorer="bic-cg", missing="complete_case")
    with pytest.warns(UserWarning, match="dropped 31 of 3000 rows"):
        in_memory = clone(learner).fit(frame)
    with pytest.warns(UserWarning, match="dropped 31 of 3000 rows"):
        chunked = clone(learner).fit(_chunks(frame, CUTS))
    kept = frame.dropna()
    _assert_same_fit(chunked, in_memory, kept)


# ------------------------------------------------------------------ the type rule across chunks
def _message(fit):
    with pytest.raises(ValueError) as info:
        fit()
    return str(info.value)


def test_type_rule_errors_as_in_memory():
    frame = _gaussian()
    learner = HillClimbStructure(scorer="bic-g")
    for column, values in (("b.1", np.where(np.arange(3000) == 2200, np.inf, frame["b.1"])),
                           ("d", np.full(3000, 2.5))):
        bad = frame.assign(**{column: values})
        in_memory = _message(lambda: clone(learner).fit(bad))
        assert _message(lambda: clone(learner).fit(_chunks(bad, CUTS))) == in_memory
    assert "infinity in column 'b.1'" in _message(
        lambda: learner.fit(_chunks(frame.assign(**{"b.1": np.where(np.arange(3000) == 2200, np.inf, 1.5)}),
                                    CUTS)))
    assert "'d' is continuous and constant" in in_memory
    whole = frame.assign(d=np.arange(3000) % 40)  # whole numbers, 40 values, in every chunk
    assert "column_types={'d': 'continuous'}" in _message(lambda: clone(learner).fit(whole))
    chunked = _message(lambda: clone(learner).fit(_chunks(whole, CUTS)))
    assert "Column 'd' is numeric with at least 40 distinct values (in the first 500 rows read)" in chunked
    assert "column_types={'d': 'continuous'}" in chunked


def test_every_undeclared_whole_number_column_is_named_in_one_error_as_in_memory():
    # exam marks out of 100 (the shape of bnlearn's `marks`) beside a 25-value count read as
    # categories: chunked input named only the first mark column; now the same refusal as
    # in memory, with every column, the dict to declare them and the count read as codes
    rng = np.random.default_rng(1)
    names = ["MECH.x", "VECT y", "ALG"]
    marks = pd.DataFrame({name: rng.integers(0, 100, 600).astype(float) for name in names})
    marks.insert(1, "grade", rng.integers(0, 3, 600))
    marks["weeks"] = rng.integers(20, 45, 600)
    learner = HillClimbStructure()
    in_memory = _message(lambda: clone(learner).fit(marks))
    chunked = _message(lambda: clone(learner).fit([marks.iloc[i:i + 200] for i in range(0, 600, 200)]))
    assert chunked == in_memory
    assert chunked.startswith("Columns 'MECH.x', 'VECT y', 'ALG' are numeric")
    assert "column_types={'MECH.x': 'continuous', 'VECT y': 'continuous', 'ALG': 'continuous'}" in chunked
    assert "Column 'weeks' (25 values) also holds whole numbers" in chunked
    # the dict the message gives is a working declaration, chunked as in memory
    declared = HillClimbStructure(column_types=dict.fromkeys(names, "continuous"))
    assert clone(declared).fit([marks.iloc[i:i + 200] for i in range(0, 600, 200)]).column_types_ == \
        clone(declared).fit(marks).column_types_


def test_few_distinct_values_warn_as_in_memory():
    frame = _gaussian()
    frame["d"] = np.where(frame["d"] > 0, 1.5, -0.5)
    frame.loc[2999, "d"] = 7.25  # a third value in the last chunk only
    expected = r"'d' is continuous but has only 3 distinct values \(\[-0.5, 1.5, 7.25\]\)"
    with pytest.warns(UserWarning, match=expected):
        HillClimbStructure(scorer="bic-g").fit(_chunks(frame, CUTS))


def test_text_after_continuous_chunks_refused_naming_the_chunks():
    frame = _gaussian()
    chunks = [frame.iloc[:1000], frame.iloc[1000:].astype({"d": str})]
    with pytest.raises(ValueError, match="Column 'd' holds numbers in chunk 0 but text in chunk 1"):
        HillClimbStructure(scorer="bic-g").fit(iter(chunks))


def test_order_mcmc_keeps_the_first_of_equivalent_best_dags_chunked_or_not():
    """Markov-equivalent DAGs score the same under BGe up to rounding, and chunked moments
    round differently: the best DAG was the last of the near-ties met (``a -> b`` chunked,
    ``b -> a`` in memory on these data); it is the first, so both agree."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=900)
    rng.choice(["u", "v"], 900)
    frame = pd.DataFrame({"a": a, "b": 0.5 * a + rng.normal(size=900), "c": a + rng.normal(size=900)})
    learner = OrderMCMCStructure(n_iter=200, burn_in=50, random_state=0)
    in_memory = clone(learner).fit(frame)
    _assert_same_fit(clone(learner).fit(_chunks(frame, [0, 300, 600, 900])), in_memory, frame)


def test_pc_with_the_default_test_fits_chunks():
    """``ci_test="auto"`` was resolved as an alias when chunks were checked ("Unknown ci_test
    'auto'"), so PC with its default test refused every chunked input with continuous
    columns."""
    frame = _gaussian()
    _assert_same_fit(PCStructure().fit(_chunks(frame, CUTS)), PCStructure().fit(frame), frame)


def test_chunks_report_a_column_determined_by_others():
    frame = _gaussian()
    frame["a twice"] = 2.0 * frame["a"] + 1.0
    for X in (frame, _chunks(frame, CUTS)):
        with pytest.warns(DeterminedColumnsWarning, match=r"'a twice' \(a linear function of 'a'\)"):
            HillClimbStructure(scorer="bic-g", fit_parameters=False).fit(X)


# ------------------------------------------------------------------ what chunks cannot do
def test_learners_that_need_rows_refuse_chunked_continuous_data():
    frame = _gaussian()
    with pytest.raises(ValueError, match="cannot be used by BootstrapStructure: it resamples rows"):
        BootstrapStructure(HillClimbStructure(scorer="bic-g"), n_resamples=2).fit(_chunks(frame, CUTS))
    with pytest.raises(ValueError, match="robust covariance, which needs the rows"):
        PCStructure(ci_test="robust_fisher_z").fit(_chunks(frame, CUTS))
    frame.loc[2100, "a"] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN in column 'a'"):
        PCStructure(ci_test="zf").fit(_chunks(frame, CUTS))
    with pytest.raises(ValueError, match="'a' is continuous and has missing cells: chunked X keeps its"):
        PCStructure(ci_test="zf", missing="available_case").fit(_chunks(frame, CUTS))
    # the same learners on the discrete columns of chunks are unaffected
    discrete = pd.DataFrame({"u": np.arange(3000) % 3, "v": np.arange(3000) % 2})
    assert BootstrapStructure(n_resamples=2, random_state=0).fit(_chunks(discrete, CUTS)).edges_ is not None
