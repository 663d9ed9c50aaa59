"""Column-wise encoding of discrete data and its error messages."""

import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from skbn._data import (
    MAX_INTEGER_STATES,
    MAX_STATES,
    SPARSE_INTEGER_STATES,
    encode_fit,
    encode_target,
    encode_transform,
    permute_columns,
    single_valued,
)


def test_mixed_dtypes_encode_to_small_codes():
    X = pd.DataFrame({
        "cat": pd.Categorical(["b", "a", "b"], categories=["a", "b", "unseen"]),
        "obj": np.array(["x", "y", "x"], dtype=object),
        "flag": [True, False, True],
        "int": [3, 1, 3],
        "intfloat": [1.0, 0.0, 1.0],
    })
    data, states = encode_fit(X)
    assert data.codes.dtype == np.uint8 and data.codes.flags.f_contiguous
    assert states[0] == ["a", "b", "unseen"]  # unobserved pandas category kept
    assert states[1] == ["x", "y"] and states[2] == [False, True] and states[3] == [1, 3]
    assert data.cardinalities.tolist() == [3, 2, 2, 2, 2]
    np.testing.assert_array_equal(data.codes[:, 0], [1, 0, 1])
    np.testing.assert_array_equal(data.codes[:, 3], [1, 0, 1])
    assert data.names == ("cat", "obj", "flag", "int", "intfloat")


def test_numpy_array_columns_are_positions():
    data, states = encode_fit(np.array([[0, 5], [1, 5], [1, 7]]))
    assert data.names == (0, 1)
    assert states == [[0, 1], [5, 7]]


def test_user_categories_list_and_dict():
    X = pd.DataFrame({"a": ["x", "y"], "b": [0, 1]})
    data, states = encode_fit(X, {"a": ["y", "x", "z"]})
    assert states[0] == ["y", "x", "z"] and data.codes[:, 0].tolist() == [1, 0]
    with pytest.raises(ValueError, match="unknown category 'y' in column 'a'"):
        encode_fit(X, [["x"], [0, 1]])
    with pytest.raises(ValueError, match="duplicates"):
        encode_fit(X, {"a": ["x", "x", "y"]})


@pytest.mark.parametrize(
    "X, error, match",
    [
        (pd.DataFrame({"t": [0.5, 1.25, 2.0]}), ValueError, "KBinsDiscretizer"),
        (pd.DataFrame({"t": np.arange(MAX_STATES + 1)}), ValueError, "distinct values"),
        (pd.DataFrame({"xray": ["yes", None, "no"]}), ValueError, "NaN in column 'xray'"),
        (pd.DataFrame({"x": [1.0, np.nan, 0.0]}), ValueError, "NaN in column 'x'"),
        (pd.DataFrame({"x": [1.0, np.inf, 0.0]}), ValueError, "infinity"),
        (pd.DataFrame({"x": [1]}), ValueError, "minimum of 2"),
        (pd.DataFrame(index=range(3)), ValueError, "0 feature"),
        (np.arange(4), ValueError, "Reshape your data"),
        (sparse.csr_matrix(np.eye(3)), TypeError, "sparse"),
        (pd.Series([1, 2]), ValueError, "Series"),
        (pd.DataFrame([[0, 1], [1, 0]], columns=["a", "a"]), ValueError, "Duplicate column"),
        (pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02"])}), TypeError, "dates"),
        (np.array([[1 + 1j], [2]]), ValueError, "Complex data"),
    ],
)
def test_bad_training_input_is_refused_clearly(X, error, match):
    with pytest.raises(error, match=match):
        encode_fit(X)


def test_transform_missing_unknown_and_column_matching():
    X = pd.DataFrame({"a": ["x", "y"], "b": [0, 1]})
    data, states = encode_fit(X)
    new = pd.DataFrame({"b": [1, np.nan, 0], "a": ["y", "x", None]})
    codes = encode_transform(new, data.names, states)
    np.testing.assert_array_equal(codes, [[1, 1], [0, -1], [-1, 0]])
    unknown = pd.DataFrame({"a": ["z", "x"], "b": [0, 1]})
    with pytest.raises(ValueError, match="unknown category 'z' in column 'a'.*categories="):
        encode_transform(unknown, data.names, states)
    codes = encode_transform(unknown, data.names, states, handle_unknown="marginalize")
    assert codes[0, 0] == -1
    with pytest.raises(ValueError, match=r"missing \['b'\], not seen in fit \['c'\]"):
        encode_transform(pd.DataFrame({"a": ["x"], "c": [0]}), data.names, states)
    with pytest.raises(ValueError, match="3 features"):
        encode_transform(np.zeros((2, 3)), data.names, states)


def test_target_encoding():
    codes, states, _ = encode_target(pd.Series(["b", "a", "b"]))
    assert states == ["a", "b"] and codes.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="1-D"):
        encode_target(np.zeros((3, 2)))


def test_misspelt_categories_key_is_an_error_naming_it():
    X = pd.DataFrame({"xray": ["yes", "no"], "lung": ["no", "no"]})
    with pytest.raises(ValueError, match=r"\['xrya'\].*not columns of X"):
        encode_fit(X, {"xrya": ["yes", "no"]})
    _, states = encode_fit(X, {"xray": ["yes", "no", "unsure"]})
    assert states == [["yes", "no", "unsure"], ["no"]]


# ------------------------------------------------------------------ the column-type rule
def gaussian_like(n=500, seed=0):
    """Continuous columns of a linear Gaussian network (the shape of bnlearn's gaussian.test)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(1, 1, n)
    b = rng.normal(2, 3, n)
    c = 2 * a + b + rng.normal(0, 0.5, n)
    d = rng.normal(6, 1.5, n) + 1.5 * c
    return pd.DataFrame({"A": a, "B": b, "C": c, "D": d})


def marks_like(n=88, seed=0):
    """Exam marks out of 100 of n students, five correlated subjects (the shape of bnlearn's
    ``marks``): integer columns with many distinct values."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1, n)
    means, sds = [39, 51, 51, 47, 42], [17, 13, 11, 15, 17]
    columns = {}
    for name, mean, sd in zip(["mechanics", "vectors", "algebra", "analysis", "statistics"], means, sds):
        mark = mean + sd * (0.7 * ability + 0.7 * rng.normal(0, 1, n))
        columns[name] = np.clip(np.round(mark), 0, 100).astype(np.int64)
    return pd.DataFrame(columns)


def test_continuous_columns_are_refused_naming_the_column():
    X = gaussian_like()
    with pytest.raises(ValueError, match=r"Column 'A' holds continuous .*KBinsDiscretizer.*categories="):
        encode_fit(X)
    # the same values in an object column (e.g. df.to_numpy() of a mixed frame) are numbers too
    mixed = X.assign(label=np.where(X["A"] > 1, "hi", "lo")).to_numpy()
    assert mixed.dtype == object
    with pytest.raises(ValueError, match="Column 0 holds continuous"):
        encode_fit(mixed)


def test_integer_columns_with_many_values_are_refused_naming_counts_and_fixes():
    X = marks_like()
    n_values = X["mechanics"].nunique()
    assert n_values > MAX_INTEGER_STATES  # the kind of data that gave 0 edges silently
    with pytest.raises(ValueError, match=(
            rf"Column 'mechanics' is numeric with {n_values} distinct values in 88 rows.*"
            r"KBinsDiscretizer.*categories=\{'mechanics': \[\.\.\.\]\}.*astype\('category'\)")):
        encode_fit(X)


def test_declared_numeric_columns_are_discrete():
    X = marks_like()
    as_categories = X.astype("category")
    _, states = encode_fit(as_categories)
    assert states[0] == sorted(X["mechanics"].unique().tolist())
    declared = {name: list(range(101)) for name in X}
    data, states = encode_fit(X, declared)
    assert states[0] == list(range(101)) and data.cardinalities.tolist() == [101] * 5
    np.testing.assert_array_equal(data.codes, X.to_numpy())  # state k is the mark k
    # non-integral values are accepted when declared
    data, states = encode_fit(pd.DataFrame({"dose": [0.5, 1.5, 0.5]}), {"dose": [0.5, 1.5, 2.5]})
    assert states == [[0.5, 1.5, 2.5]] and data.codes[:, 0].tolist() == [0, 1, 0]


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint16", "float64", "Int64", "Float64"])
def test_integer_threshold_is_inclusive(dtype):
    at_limit = pd.DataFrame({"x": np.arange(2 * MAX_INTEGER_STATES) % MAX_INTEGER_STATES}).astype(dtype)
    data, states = encode_fit(at_limit)
    assert data.cardinalities.tolist() == [MAX_INTEGER_STATES]
    assert states[0] == list(range(MAX_INTEGER_STATES))
    assert all(isinstance(s, float if "loat" in dtype else int) for s in states[0])
    over = pd.DataFrame({"x": np.arange(MAX_INTEGER_STATES + 1)}).astype(dtype)
    with pytest.raises(ValueError, match=rf"'x' is numeric with {MAX_INTEGER_STATES + 1} distinct values in "
                                         rf"{MAX_INTEGER_STATES + 1} rows"):
        encode_fit(over)


@pytest.mark.parametrize("dtype", ["int64", "float64", "Int64"])
def test_whole_numbers_with_about_one_row_per_value_are_refused(dtype):
    # mtcars' hp: 22 distinct whole numbers in 32 rows, nearly a value per row; taken as a
    # 22-state variable most of its states hold one row (a CLG child of it cannot be fitted)
    rng = np.random.default_rng(0)
    hp = rng.choice(np.arange(50, 340, 10), size=22, replace=False)
    X = pd.DataFrame({"hp": np.concatenate([hp, hp[:10]]), "am": rng.integers(0, 2, 32)}).astype(dtype)
    with pytest.raises(ValueError, match=r"Column 'hp' is numeric with 22 distinct values in 32 rows: "
                                         r"whole numbers with fewer than two rows per value") as error:
        encode_fit(X, allow_continuous=True)
    assert type(error.value) is ValueError  # (not the private collector class)
    assert "column_types={'hp': 'continuous'}" in str(error.value)
    data, _ = encode_fit(X, allow_continuous=True, column_types={"hp": "continuous"})
    assert data.cardinalities.tolist() == [0, 2]
    data, _ = encode_fit(X, allow_continuous=True, column_types={"hp": "discrete"})
    assert data.cardinalities.tolist() == [22, 2]


def test_the_sparse_integer_rule_starts_above_its_threshold_with_two_rows_per_value():
    values = np.arange(SPARSE_INTEGER_STATES + 1)  # a rating out of 10: 11 values
    enough = pd.DataFrame({"rating": np.tile(values, 2)})  # 22 rows: two per value
    assert encode_fit(enough)[0].cardinalities.tolist() == [SPARSE_INTEGER_STATES + 1]
    with pytest.raises(ValueError, match="'rating' is numeric with 11 distinct values in 21 rows"):
        encode_fit(enough.iloc[:21])
    few = pd.DataFrame({"code": np.arange(SPARSE_INTEGER_STATES)})  # 10 values, one row each
    assert encode_fit(few)[0].cardinalities.tolist() == [SPARSE_INTEGER_STATES]


def test_one_error_names_every_undeclared_whole_number_column_of_either_kind():
    X = pd.DataFrame({"mark": np.arange(40) * 2, "hp": np.arange(40) % 21 + 100, "cyl": np.arange(40) % 3,
                      "wt": np.linspace(1.5, 5.5, 40)})
    with pytest.raises(ValueError, match=r"Columns 'mark', 'hp' are numeric") as error:
        encode_fit(X, allow_continuous=True)
    assert type(error.value) is ValueError and error.value.__cause__ is None
    assert "column_types={'mark': 'continuous', 'hp': 'continuous'}" in str(error.value)


def test_numpy_integer_codes_keep_working():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(200, 5))  # ALARM-like integer codes
    data, states = encode_fit(codes)
    assert states == [[0, 1, 2, 3]] * 5
    np.testing.assert_array_equal(data.codes, codes)
    wide = codes.copy()
    wide[:, 3] = np.arange(200)  # an index-like column
    with pytest.raises(ValueError, match="Column 3 is numeric with 200 distinct values in 200 rows"):
        encode_fit(wide)


def test_text_bool_and_categorical_columns_are_declared_discrete():
    n = 300
    X = pd.DataFrame({
        "name": [f"s{i % 150}" for i in range(n)],  # 150 text states: text declares a state space
        "flag": np.arange(n) % 3 == 0,
        "code": pd.Categorical(np.arange(n) % 100),  # 100 numeric categories, declared
    })
    data, states = encode_fit(X)
    assert data.cardinalities.tolist() == [150, 2, 100]
    assert states[0] == sorted(f"s{i}" for i in range(150))
    with pytest.raises(ValueError, match=rf"'name' has {MAX_STATES + 1} distinct values.*identifier"):
        encode_fit(pd.DataFrame({"name": [f"id{i}" for i in range(MAX_STATES + 1)]}))


def test_numeric_target_follows_the_same_rule():
    with pytest.raises(ValueError, match=r"Input y is numeric with 40 distinct values in 40 rows.*"
                                         r"y.astype\('category'\)"):
        encode_target(np.arange(40))
    with pytest.raises(ValueError, match="Input y holds continuous"):
        encode_target(np.linspace(0, 1, 5))
    codes, states, _ = encode_target(pd.Series(np.arange(40)).astype("category"))
    assert states == list(range(40)) and codes.tolist() == list(range(40))


def test_learners_take_continuous_columns_and_refuse_many_whole_numbers():
    from skbn import HillClimbStructure
    from skbn.network import GaussianBayesianNetwork

    model = HillClimbStructure().fit(gaussian_like())
    assert set(model.column_types_.values()) == {"continuous"}
    assert isinstance(model.network_, GaussianBayesianNetwork)
    assert type(model.scorer_).__name__ == "GaussianBIC"
    with pytest.raises(ValueError, match="Columns 'mechanics', 'vectors', .* are numeric"):
        HillClimbStructure().fit(marks_like())
    declared = HillClimbStructure(column_types="continuous").fit(marks_like())
    assert isinstance(declared.network_, GaussianBayesianNetwork)
    from sklearn.preprocessing import KBinsDiscretizer

    binned = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="quantile").fit_transform(marks_like())
    model = HillClimbStructure().fit(binned)
    assert [c.tolist() for c in model.categories_] == [[0.0, 1.0, 2.0]] * 5


# ------------------------------------------------------------------ missing cells and NA-like strings
NA_STRINGS = ["None", "NA", "nan", "null", "NaN", "N/A", "", "NULL"]


@pytest.mark.parametrize("dtype", [object, "str", "string"])
def test_na_like_strings_are_states_and_real_missing_values_are_missing(dtype):
    X = pd.DataFrame({"s": pd.Series(NA_STRINGS + ["x"], dtype=dtype), "t": ["a", "b"] * 4 + ["a"]})
    data, states = encode_fit(X)
    assert states[0] == sorted(NA_STRINGS + ["x"])
    np.testing.assert_array_equal(data.codes[:, 0], [sorted(NA_STRINGS + ["x"]).index(v)
                                                      for v in NA_STRINGS + ["x"]])
    # real missing values are missing
    for missing in (None, np.nan, pd.NA):
        Y = X.copy()
        Y["s"] = pd.Series(["None", missing, "NA", "x", "nan", "null", "x", "x", "x"], dtype=dtype)
        with pytest.raises(ValueError, match="NaN in column 's'"):
            encode_fit(Y)
        data, states = encode_fit(Y, allow_missing=True)
        assert states[0] == ["NA", "None", "nan", "null", "x"]
        assert data.codes[:, 0].tolist() == [1, -1, 0, 4, 2, 3, 4, 4, 4]
    # the same at score time
    new = pd.DataFrame({"s": pd.Series(["None", None, "nan"], dtype=dtype), "t": ["a", "b", "a"]})
    codes = encode_transform(new, ("s", "t"), [NA_STRINGS + ["x"], ["a", "b"]])
    assert codes[:, 0].tolist() == [0, -1, 2]


@pytest.mark.parametrize("twin, shown", [(" yes", "(' yes' and 'yes')"), ("yes ", "('yes' and 'yes ')"),
                                         ('yes"', """('yes' and 'yes"')""")])
def test_states_that_differ_only_by_spaces_or_quotes_at_their_ends_are_named(twin, shown):
    # a space after each separator ("a, yes") or a stray quote: pd.read_csv keeps both texts,
    # so one state became two without a word
    X = pd.DataFrame({"s": ["yes", "no", twin, "no", "yes", "no"], "t": ["a", "b"] * 3})
    with pytest.warns(UserWarning, match="Column 's' holds states that differ only by spaces or double "
                                         "quotes at their ends") as caught:
        data, states = encode_fit(X)
    assert len(caught) == 1 and shown in str(caught[0].message)
    assert states[0] == sorted(["no", "yes", twin])             # kept as written
    with pytest.warns(UserWarning, match="Column 's' holds states that differ only"):
        encode_fit(X.astype("category"))                        # pd.read_csv(dtype="category")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encode_fit(X, categories={"s": ["no", "yes", twin]})  # declared: no warning
        encode_fit(X.assign(s=["yes", "no", " a", "no", "yes", "no"]))  # " a" alone is a state


def test_python_none_and_nat_in_object_columns_are_missing():
    X = pd.DataFrame({"s": np.array(["a", None, "b", pd.NaT, "a", float("nan")], dtype=object)})
    data, states = encode_fit(X, allow_missing=True)
    assert states == [["a", "b"]] and data.codes[:, 0].tolist() == [0, -1, 1, -1, 0, -1]


# ------------------------------------------------------------------ text as fast as categorical, same codes
def test_text_columns_encode_exactly_as_sorted_categoricals():
    rng = np.random.default_rng(3)
    values = np.array(["low", "HIGH", "normal", "Zero", "état", "10", "9"])
    frame = pd.DataFrame({f"v{j}": values[rng.integers(0, len(values) - j % 3, 2000)] for j in range(6)})
    reference, ref_states = encode_fit(frame.astype("category"))  # pandas sorts the categories
    for dtype in (object, "str", "string"):
        data, states = encode_fit(frame.astype(dtype))
        assert states == ref_states
        assert data.codes.dtype == reference.codes.dtype and data.codes.flags.f_contiguous
        np.testing.assert_array_equal(data.codes, reference.codes)


# ------------------------------------------------------------------ mixed-type object columns
def test_mixed_type_columns_have_typed_states_in_a_documented_order():
    values = [True, 3, "b", 2, False, "a", 10, 3.0, "a", True, 2]
    X = pd.DataFrame({"m": np.array(values, dtype=object)})
    data, states = encode_fit(X)
    # bools, then numbers, then strings, each sorted; 3 and 3.0 one state (a float: 3.0 seen)
    assert states[0] == [False, True, 2.0, 3.0, 10.0, "a", "b"]
    assert [type(s) for s in states[0]] == [bool, bool, float, float, float, str, str]
    assert data.codes[:, 0].tolist() == [1, 3, 6, 2, 0, 5, 4, 3, 5, 1, 2]
    # the order of the rows does not change the states
    order = np.random.default_rng(0).permutation(len(values))
    _, shuffled = encode_fit(X.iloc[order])
    assert shuffled == states
    # at score time a bool matches only a bool, a number only a number
    codes = encode_transform(pd.DataFrame({"m": np.array([3, True, "b", 2.0, 1], dtype=object)}),
                             ("m",), states, handle_unknown="marginalize")
    assert codes[:, 0].tolist() == [3, 1, 6, 2, -1]
    # ints and strings: numbers sorted as numbers
    _, states = encode_fit(pd.DataFrame({"m": np.array([10, "x", 2, 9, "x"], dtype=object)}))
    assert states == [[2, 9, 10, "x"]]


@pytest.mark.parametrize("values, first, second, how", [
    ([1, "1", 2], "1", "'1'", "read the same"), ([True, "True", "x"], "True", "'True'", "read the same"),
    ([1.5, "1.5"], "1.5", "'1.5'", "read the same"), ([True, 1, "x"], "True", "1", "are equal"),
    ([0, "x", False], "False", "0", "are equal"),
])
def test_mixed_states_that_cannot_be_told_apart_are_refused(values, first, second, how):
    with pytest.raises(ValueError, match=rf"Column 'm' holds values of different types that {how}, "
                                         rf"{first} .* and {second} .*cannot be two states"):
        encode_fit(pd.DataFrame({"m": np.array(values * 2, dtype=object)}))


def test_unorderable_and_unhashable_values():
    tuples = pd.Series([(1, "a"), (0, "b"), (1, "a"), None], dtype=object)
    _, states = encode_fit(pd.DataFrame({"t": tuples}), allow_missing=True)
    assert states == [[(0, "b"), (1, "a")]]
    _, states = encode_fit(pd.DataFrame({"t": pd.Series([(1, 2), "x", (0,), "x"], dtype=object)}))
    assert states == [["x", (0,), (1, 2)]]  # strings, then other types by type name
    with pytest.raises(ValueError, match="Column 'u' holds values that cannot be states"):
        encode_fit(pd.DataFrame({"u": pd.Series([[1], [2]], dtype=object)}))


def test_declared_states_are_typed_and_checked():
    X = pd.DataFrame({"b": np.array([True, 2, True], dtype=object)})
    data, states = encode_fit(X, {"b": [2, True, False]})
    assert data.codes[:, 0].tolist() == [1, 0, 1]
    for duplicated in ([1, 1.0, True], [True, 1], ["a", "b", "a"]):
        with pytest.raises(ValueError, match="categories for column 'b' contain duplicates"):
            encode_fit(X, {"b": duplicated})
    with pytest.raises(ValueError, match=r"unknown category True in column 'b'.*categories="):
        encode_fit(X, {"b": [2]})
    with pytest.raises(ValueError, match=r"unknown category True in column 'b'"):
        encode_fit(X, {"b": [1, 2]})  # a bool is not the number 1


# ------------------------------------------------------------------ a battery of unusual inputs
def _asia(n=400):
    from skbn.datasets import sample_asia

    return sample_asia(n, random_state=1)


@pytest.mark.parametrize("names", [
    ["M. Work", "a.b", "with space", " lead", "trail ", "tab\tname", "ünïcødé", "名前"],
    [0, 1, 2, 3, 4, 5, 6, 7],
    [7, 3, 5, 1, 0, 2, 6, 4],
    ["0", "1", "x.y", "2.5", " ", "None", "nan", ""],
])
def test_unusual_column_names_round_trip_through_a_learner(names):
    from skbn import ChowLiuTree
    from skbn._data import name_ranks

    # the reference: plain names that sort as ``names`` do (ties go by name: the same tree)
    plain = [f"c{rank:02d}" for rank in name_ranks(names)]
    frame = _asia().set_axis(plain, axis=1)
    X = frame.set_axis(names, axis=1)
    model = ChowLiuTree().fit(X)
    reference = ChowLiuTree().fit(frame)
    rename = dict(zip(plain, names))
    assert model.edges_ == [(rename[a], rename[b]) for a, b in reference.edges_]
    if isinstance(names[0], str):
        assert list(model.feature_names_in_) == names
    else:  # scikit-learn records string names only
        assert not hasattr(model, "feature_names_in_") and list(model.network_.nodes) == names
    np.testing.assert_array_equal(model.score_samples(X), reference.score_samples(frame))


def test_column_names_of_mixed_types_get_scikit_learns_error():
    from skbn import ChowLiuTree

    with pytest.raises(TypeError, match="string names"):
        ChowLiuTree().fit(_asia().set_axis(["a", 1, "b", 2.5, "c", "d", "e", "f"], axis=1))


def test_duplicate_and_missing_shapes_are_refused():
    X = _asia(10)
    with pytest.raises(ValueError, match=r"Duplicate column names are not allowed: \['a'\]"):
        encode_fit(X.set_axis(["a", "b", "a", "c", "d", "e", "f", "g"], axis=1))
    with pytest.raises(ValueError, match="0 sample"):
        encode_fit(X.iloc[:0])
    with pytest.raises(ValueError, match="0 feature"):
        encode_fit(X.iloc[:, :0])
    with pytest.raises(ValueError, match="1 sample"):
        encode_fit(X.iloc[:1])
    with pytest.raises(ValueError, match="0 feature"):
        encode_fit(np.empty((5, 0)))
    with pytest.raises(TypeError, match="path or a string.*pd.read_csv.*pyarrow.dataset"):
        encode_fit("data/asia.csv")
    with pytest.raises(TypeError, match="path or a string"):
        encode_fit(Path("data/asia.csv"))


def test_a_column_named_like_a_path_protocol_is_data():
    # a DataFrame's columns are attributes: one named "__fspath__" once made the frame
    # look like a path and be refused
    from skbn import HillClimbStructure

    X = _asia(200).rename(columns={"asia": "__fspath__"})
    model = HillClimbStructure().fit(X)
    assert model.feature_names_in_.tolist() == X.columns.tolist()
    data, _ = encode_fit(X)
    assert data.codes.shape == X.shape


def test_every_column_without_an_observed_value_is_named_in_one_error():
    # statsmodels 0.15.0's fertility.csv has two empty year columns, '2012' and '2013'; the
    # error named only '2012', so dropping it led to a second error for '2013'.
    X = pd.DataFrame({"2011": [1.5, 2.5, 3.5, 4.5], "2012": [np.nan] * 4, "2013": [None] * 4,
                      "a": ["x", "y", "x", "y"]})
    message = "2 columns have no observed value (every cell is missing): '2012', '2013'. Drop them."
    with pytest.raises(ValueError, match=re.escape(message)):
        encode_fit(X, allow_missing=True, allow_continuous=True)
    many = pd.DataFrame({f"c{i:02d}": [None] * 3 for i in range(12)}).assign(a=["x", "y", "x"])
    with pytest.raises(ValueError, match=re.escape("12 columns have no observed value (every cell "
                                                   "is missing): 'c00', 'c01', ") + r".*'c09' and 2 more\."):
        encode_fit(many, allow_missing=True)

def test_all_missing_and_single_state_columns():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"], "gone": [None] * 4, "one": ["k"] * 4})
    with pytest.raises(ValueError, match="NaN in column 'gone'"):
        encode_fit(X)
    with pytest.raises(ValueError, match="Column 'gone' has no observed value"):
        encode_fit(X, allow_missing=True)
    with pytest.raises(ValueError, match="Column 'gone' has no observed value"):
        encode_fit(X.astype({"gone": float}), allow_missing=True)
    data, states = encode_fit(X[["a", "one"]])
    assert states == [["x", "y"], ["k"]] and data.codes[:, 1].tolist() == [0] * 4
    from skbn import HillClimbStructure

    model = HillClimbStructure().fit(X[["a", "one"]])
    assert model.edges_ == [] and np.allclose(np.exp(model.score_samples(X[["a", "one"]])), 0.5, atol=0.1)


def test_categorical_with_unused_categories_keeps_them():
    column = pd.Categorical(["b", "a", "b"], categories=["c", "b", "a", "unused"])
    data, states = encode_fit(pd.DataFrame({"x": column, "y": [0, 1, 0]}))
    assert states[0] == ["c", "b", "a", "unused"] and data.codes[:, 0].tolist() == [1, 2, 1]
    assert data.cardinalities.tolist() == [4, 2]


def test_read_only_and_non_contiguous_arrays():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 3, size=(100, 8))
    expected, expected_states = encode_fit(base[:, ::2].copy())
    read_only = base.copy()
    read_only.setflags(write=False)
    for X in (base[:, ::2], np.asfortranarray(base)[:, ::2], read_only[:, ::2], base.T.copy().T[:, ::2]):
        data, states = encode_fit(X)
        np.testing.assert_array_equal(data.codes, expected.codes)
        assert states == expected_states
    text = np.array(["a", "b", "c"])[base]
    text.setflags(write=False)
    data, _ = encode_fit(text[::2, 1::3])
    np.testing.assert_array_equal(data.codes, base[::2, 1::3])
    frame = pd.DataFrame(read_only, columns=list("abcdefgh"))
    data, _ = encode_fit(frame)
    np.testing.assert_array_equal(data.codes, base)
    codes = encode_transform(read_only[:, ::2], data.names[:4], [[0, 1, 2]] * 4)
    np.testing.assert_array_equal(codes, base[:, ::2])


def test_nullable_dtypes_with_pd_na():
    X = pd.DataFrame({
        "i": pd.array([1, 3, pd.NA, 1], dtype="Int64"),
        "b": pd.array([True, pd.NA, False, True], dtype="boolean"),
        "f": pd.array([0.0, 2.0, 2.0, pd.NA], dtype="Float64"),
        "s": pd.array(["x", pd.NA, "None", "x"], dtype="string"),
    })
    with pytest.raises(ValueError, match="NaN in column 'i'"):
        encode_fit(X)
    data, states = encode_fit(X, allow_missing=True)
    assert states == [[1, 3], [False, True], [0.0, 2.0], ["None", "x"]]
    assert [type(s[0]) for s in states] == [int, bool, float, str]
    np.testing.assert_array_equal(data.codes, [[0, 1, 0, 1], [1, -1, 1, -1], [-1, 0, 1, 0], [0, 1, -1, 1]])
    codes = encode_transform(X, data.names, states)
    np.testing.assert_array_equal(codes, data.codes)
    complete = pd.concat([X.iloc[[0]], X.iloc[[0]]])
    data, states = encode_fit(complete)
    assert data.codes.dtype == np.uint8 and states[0] == [1]


def test_target_series_with_a_non_default_index_is_positional():
    from skbn import ChowLiuTree

    frame = _asia().sample(frac=1, random_state=0)  # shuffled index
    X, y = frame.drop(columns="either"), frame["either"]
    assert not y.index.equals(pd.RangeIndex(len(y)))
    model = ChowLiuTree(variant="tan").fit(X, y.set_axis(np.arange(len(y))[::-1] * 3))
    reference = ChowLiuTree(variant="tan", target="either").fit(frame)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), rtol=1e-12)
    codes, states, _ = encode_target(pd.Series(["b", "a", "b"], index=[10, 5, 7]))
    assert codes.tolist() == [1, 0, 1] and states == ["a", "b"]


def test_fit_never_modifies_the_callers_data():
    from skbn import HillClimbStructure, PCStructure

    frame = _asia(300)
    X = pd.DataFrame({
        "cat": frame["tub"], "obj": frame["lung"].astype(str).astype(object),
        "str": frame["either"].astype(str), "flag": frame["xray"] == "yes",
        "int": (frame["dysp"] == "yes").astype(int), "float": (frame["smoke"] == "yes").astype(float),
        "nullable": pd.array((frame["bronc"] == "yes").astype(int), dtype="Int64"),
    })
    X.loc[X.index[::17], "obj"] = None
    before = X.copy(deep=True)
    array = X.drop(columns="obj").to_numpy()
    array_before = array.copy()
    for learner in (HillClimbStructure(missing="em", em_max_iter=2), PCStructure(missing="available_case")):
        model = learner.fit(X)
        model.score_samples(X)
    HillClimbStructure().fit(array)
    encode_fit(X, {"int": [1, 0]}, allow_missing=True)
    pd.testing.assert_frame_equal(X, before)
    assert [X[c].dtype for c in X] == [before[c].dtype for c in before]
    np.testing.assert_array_equal(array, array_before)


def test_arrow_backed_and_other_dtypes():
    pa = pytest.importorskip("pyarrow")
    X = pd.DataFrame({
        "i": pd.array([3, 1, 3, 1], dtype=pd.ArrowDtype(pa.int64())),
        "s": pd.array(["None", "b", None, "b"], dtype=pd.ArrowDtype(pa.string())),
        "b": pd.array([True, False, None, True], dtype=pd.ArrowDtype(pa.bool_())),
        "sparse": pd.arrays.SparseArray([0, 2, 0, 0]),
    })
    data, states = encode_fit(X, allow_missing=True)
    assert states == [[1, 3], ["None", "b"], [False, True], [0, 2]]
    assert all(type(v) in (int, str, bool) for column in states for v in column)
    np.testing.assert_array_equal(data.codes.T, [[1, 0, 1, 0], [0, 1, -1, 1], [1, 0, -1, 1], [0, 1, 0, 0]])
    with pytest.raises(ValueError, match="Column 'f' holds continuous"):
        encode_fit(pd.DataFrame({"f": pd.array([0.5, 1.0], dtype=pd.ArrowDtype(pa.float64()))}))


def test_dates_are_refused_unless_declared_and_huge_categoricals_refused():
    import datetime

    days = [datetime.date(2020, 1, d) for d in (1, 2, 1)]
    for column in (pd.Series(days, dtype=object), pd.to_datetime(pd.Series(days))):
        with pytest.raises(TypeError, match="'d' holds dates/times.*categories.*numbers for a continuous"):
            encode_fit(pd.DataFrame({"d": column}))
        data, states = encode_fit(pd.DataFrame({"d": column.astype("category")}))
        assert data.codes[:, 0].tolist() == [0, 1, 0]
    categories = [f"c{i}" for i in range(MAX_STATES + 1)]
    with pytest.raises(ValueError, match=rf"Column 'x' has {MAX_STATES + 1} declared states"):
        encode_fit(pd.DataFrame({"x": pd.Categorical(["c0", "c1"], categories=categories)}))
    with pytest.raises(ValueError, match=rf"Column 'x' has {MAX_STATES + 1} declared states"):
        encode_fit(pd.DataFrame({"x": ["c0", "c1"]}), {"x": categories})


def test_a_text_column_read_as_missing_by_pandas_names_the_fix():
    # bnlearn's insurance: ThisCarDam has the state "None", which pandas.read_csv reads as
    # missing by default; the refusal says how to keep it a state
    import io

    cells = zip(["None", "Mild", "Severe", "None"] * 5, ["Adult", "Senior"] * 10)
    text = "ThisCarDam,Age\n" + "\n".join(f"{d},{a}" for d, a in cells)
    read = pd.read_csv(io.StringIO(text))
    assert read["ThisCarDam"].isna().any()
    with pytest.raises(ValueError, match=r"'ThisCarDam'.*keep_default_na=False, na_values=\[''\]"):
        encode_fit(read)
    kept = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    assert encode_fit(kept)[1][0] == ["Mild", "None", "Severe"]
    with pytest.raises(ValueError) as error:  # (a numeric column's NaN: no such hint)
        encode_fit(pd.DataFrame({"x": [1.0, np.nan, 2.0]}))
    assert "keep_default_na" not in str(error.value)


@pytest.mark.parametrize("missing_value", [np.nan, None, pd.NA, float("nan")], ids=repr)
@pytest.mark.parametrize("chunked", [False, True])
def test_a_declared_missing_state_is_refused_naming_the_column(missing_value, chunked):
    """``categories={c: X[c].unique()}`` on a column with missing cells lists NaN: before,
    it became a state no cell could ever take (prior mass, a sample() that failed)."""
    from skbn import HillClimbStructure

    X = pd.DataFrame({"a": ["x", "y", None, "x"] * 5, "b": ["u", "v", "v", "u"] * 5})
    model = HillClimbStructure(missing="complete_case", categories={"a": ["x", "y", missing_value]})
    data = [X.iloc[:10], X.iloc[10:]] if chunked else X
    with pytest.raises(ValueError, match=r"categories for column 'a' hold a missing value"):
        model.fit(data)
    declared = HillClimbStructure(missing="complete_case", categories={"a": ["x", "y", "NA"]}).fit(X)
    assert declared.categories_[0].tolist() == ["x", "y", "NA"]  # (a state spelled "NA" is a state)


def test_a_categorical_target_keeps_its_categories_in_every_container():
    """A target follows the column rule (pandas categories kept, unused ones too): a bare
    ``pd.Categorical`` lost its unused categories, a Series of it or ``target=`` kept them."""
    from skbn import HillClimbStructure

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 300), "b": rng.integers(0, 3, 300)})
    label = pd.Categorical(np.where(X["a"] == 1, "yes", "no"), categories=["no", "yes", "maybe"])
    fitted = [HillClimbStructure().fit(X, given)
              for given in (label, pd.Series(label), pd.CategoricalIndex(label))]
    fitted.append(HillClimbStructure(target="label").fit(X.assign(label=label)))
    for model in fitted:
        assert model.classes_.tolist() == ["maybe", "no", "yes"]
        np.testing.assert_allclose(model.predict_proba(X.head(20)), fitted[0].predict_proba(X.head(20)))


def test_a_fraction_in_a_column_of_whole_numbers_names_the_declaration():
    """A column of whole numbers in the training fold is discrete; a test fold holding
    fractions is refused under every ``handle_unknown`` (a fraction is a measurement, not a
    state), naming the column and the declaration that makes it continuous."""
    from skbn import HillClimbStructure

    rng = np.random.default_rng(0)
    D = pd.DataFrame({"a": rng.choice(["x", "y"], 600), "v": rng.integers(0, 3, 600).astype(float)})
    D.loc[:39, "v"] += 0.5
    for handle in ("warn", "marginalize", "error"):
        model = HillClimbStructure(handle_unknown=handle).fit(D.iloc[120:])
        assert model.column_types_["v"] == "discrete"
        expected = r"'v'" if handle == "error" else r"'v'.*1\.5.*column_types=\{'v': 'continuous'\}"
        with pytest.raises(ValueError, match=expected):
            model.score(D.iloc[:120])
    declared = HillClimbStructure(column_types={"v": "continuous"}).fit(D.iloc[120:])
    assert np.isfinite(declared.score(D.iloc[:120]))


def test_predicting_without_the_target_column_in_another_order_names_the_order():
    from skbn import HillClimbStructure

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.integers(0, 2, (200, 3)), columns=["a", "b", "t"])
    model = HillClimbStructure(target="t").fit(X)
    assert model.predict_proba(X[["a", "b"]]).shape == (200, 2)  # the target may be left out
    expected = r"leaves out the target 't' \(allowed\).*another order.*\['a', 'b'\]"
    with pytest.raises(ValueError, match=expected):
        model.predict_proba(X[["b", "a"]])
    with pytest.raises(ValueError, match="missing"):  # (another column left out: sklearn's words)
        model.predict_proba(X[["a"]])


def test_constant_columns_allowed_found_and_dropped():
    """``allow_constant=True`` encodes a constant continuous column the encoder otherwise
    refuses; :func:`single_valued` finds it and a discrete column with one observed state
    (missing cells and unobserved declared states do not count); ``permute_columns`` with
    a part of the columns gives the encoding of those columns."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=6), "k": [np.nan, 0.5, 0.5, 0.5, 0.5, 0.5],
                      "d": pd.Categorical(["u"] * 6, categories=["u", "v"]), "e": [0, 1] * 3,
                      "m": ["a", None, "a", "a", "a", "a"]})
    with pytest.raises(ValueError, match="Column 'k' is continuous and constant"):
        encode_fit(X, column_types={"k": "continuous"}, allow_continuous=True, allow_missing=True)
    data, _ = encode_fit(X, column_types={"k": "continuous"}, allow_continuous=True, allow_missing=True,
                         allow_constant=True)
    np.testing.assert_array_equal(single_valued(data), [False, True, True, False, True])
    part = permute_columns(data, [3, 0])
    alone, _ = encode_fit(X[["e", "x"]], allow_continuous=True)
    assert part.names == ("e", "x")
    np.testing.assert_array_equal(part.cardinalities, alone.cardinalities)
    np.testing.assert_array_equal(part.codes, alone.codes)
    np.testing.assert_array_equal(part.values, alone.values)
    with pytest.raises(ValueError, match="cannot drop the target"):
        permute_columns(replace(data, target=1), [3, 0])


def test_score_warns_when_pandas_read_a_state_as_missing(tmp_path):
    """bnlearn's ``insurance`` has the state "None" (``Accident``, ``ThisCarDam``). A model
    fitted on the file read as written, then given test rows read with ``pd.read_csv``'s
    defaults, which read "None" as missing, marginalised those cells without a word: the
    mean log-likelihood rose (-13.11 to -13.03 on 3,000 rows) and ``predict_proba`` used
    less evidence. Now a warning names the column and the state, for the estimators and for
    the network; the file read as written, or a row given NaN on purpose, is not warned of."""
    from skbn import HillClimbStructure

    rng = np.random.default_rng(0)
    damage = rng.choice(["None", "Mild", "Severe"], size=300)
    frame = pd.DataFrame({"damage": damage,
                          "cost": np.where(damage == "None", "low", rng.choice(["low", "high"], size=300))})
    path = tmp_path / "cars.csv"
    frame.to_csv(path, index=False)
    literal = pd.read_csv(path, keep_default_na=False, na_values=[""])
    model = HillClimbStructure().fit(literal)
    default = pd.read_csv(path)  # "None" -> NaN
    assert default["damage"].isna().sum() == (damage == "None").sum()
    pattern = r"Column 'damage' has \d+ missing cells and none spelled 'None', a state of the model"
    with pytest.warns(UserWarning, match=pattern):
        model.score(default)
    with pytest.warns(UserWarning, match=pattern):
        model.network_.log_likelihood(default)
    with pytest.warns(UserWarning, match=pattern):
        HillClimbStructure(target="cost").fit(literal).predict_proba(default[["damage"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.score(literal)
        model.network_.log_likelihood(literal)
        model.score_samples(pd.DataFrame({"damage": [np.nan], "cost": ["low"]}))  # evidence left out
        model.score_samples(literal.head(3).assign(damage=["None", np.nan, "Mild"]))  # read as written


def test_unseen_state_beside_a_none_state_is_not_called_missing():
    """MASS ``Cars93``' ``AirBags`` (states "Driver & Passenger", "Driver only", "None",
    read with ``keep_default_na=False``) with continuous columns, rows sorted by
    ``AirBags`` in unshuffled folds: a test fold holding "Driver & Passenger", which its
    training fold lacks, was scored with the right UnseenStateWarning and also with a false
    "Column 'AirBags' has 16 missing cells and none spelled 'None'" (the file has no missing
    cell): a conditional-Gaussian network re-read the estimator's own frame, where the
    marginalised cells are None. The frame the estimator builds is not checked again; the
    user's rows still are, once."""
    from skbn import HillClimbStructure
    from skbn.exceptions import UnseenStateWarning

    rng = np.random.default_rng(0)
    bags = rng.choice(["None", "Driver", "Both"], size=120)
    x = rng.normal(size=120) + (bags == "None")
    train = pd.DataFrame({"bags": bags, "x": x, "y": 2 * x + rng.normal(size=120)})
    seen = train[train["bags"] != "Both"]
    model = HillClimbStructure().fit(seen.drop(columns="y"), seen["y"])
    unseen = train[train["bags"] != "None"]  # "Both" (unseen) and "Driver": no "None" row
    false_message = "missing cells and none spelled"
    for call in (lambda: model.score(unseen.drop(columns="y"), unseen["y"]),
                 lambda: model.score_samples(unseen.drop(columns="y")),
                 lambda: model.predict(unseen.drop(columns="y"))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        messages = [str(w.message) for w in caught]
        assert any(issubclass(w.category, UnseenStateWarning) for w in caught), messages
        assert not any(false_message in m for m in messages), messages
    labels = (seen["y"] > 0).map({True: "hi", False: "lo"})
    classifier = HillClimbStructure().fit(seen.drop(columns="y"), labels)
    assert list(classifier.classes_) == ["hi", "lo"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proba = classifier.predict_proba(unseen.drop(columns="y"))
    assert not any(false_message in str(w.message) for w in caught)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # the user's rows with "None" read as missing: warned of once (not again by the network)
    read_default = seen.assign(bags=seen["bags"].replace({"None": np.nan}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = model.score_samples(read_default.drop(columns="y"))
    assert sum(false_message in str(w.message) for w in caught) == 1
    assert np.isfinite(scores).all()
