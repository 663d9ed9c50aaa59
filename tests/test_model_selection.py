"""Model selection on real-shaped data: sorted classes, sorted rows, unseen states (issue 18)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _learners import make
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_iris
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from skbn import (
    ChowLiuTree,
    DiscreteBayesianNetwork,
    FixedStructure,
    HillClimbStructure,
    OrderMCMCStructure,
    PCSelect,
)
from skbn.datasets import sample_asia
from skbn.exceptions import UnseenStateWarning, ZeroProbabilityWarning

LEARNERS = [make(name) for name in ("hill_climb", "tabu", "ges", "pc", "k2", "chow_liu", "tan", "mmhc",
                                     "exact", "order_mcmc", "bootstrap")] + [
    make("fixed", edges=[("smoke", "lung"), ("lung", "y"), ("tub", "y"), ("y", "xray")]),
]


@pytest.fixture(scope="module")
def asia():
    X = sample_asia(2000, random_state=0)
    return X.drop(columns=["either", "dysp"]), X["either"]  # categories ["yes", "no"]


def _targets(y):
    """The same labels as a reversed-category, sorted-category, string and integer target."""
    unsorted = y.cat.reorder_categories(["yes", "no"])
    return {
        "categorical_unsorted": unsorted,
        "categorical_sorted": unsorted.cat.reorder_categories(["no", "yes"]),
        "string": unsorted.astype(str),
        "integer": unsorted.map({"yes": 10, "no": 2}).astype(int),  # 10 > 2, "10" < "2"
    }


@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_classes_are_sorted_and_predict_proba_follows_them(learner, asia):
    X, y = asia
    probas = {}
    for kind, target in _targets(y).items():
        model = clone(learner).fit(X, target.rename("y"))
        expected = np.unique(np.asarray(target))
        np.testing.assert_array_equal(model.classes_, expected)  # np.unique order
        proba = model.predict_proba(X.iloc[:300])
        assert proba.shape == (300, 2)
        np.testing.assert_array_equal(model.predict(X.iloc[:300]), model.classes_[np.argmax(proba, axis=1)])
        # columns in classes_ order: the column of "no" (or 2) is P(no | x), whatever the coding
        no = list(model.classes_).index(2 if kind == "integer" else "no")
        probas[kind] = proba[:, no]
    for kind, p_no in probas.items():
        np.testing.assert_allclose(p_no, probas["categorical_sorted"], rtol=1e-9, atol=1e-12, err_msg=kind)
    # and they are right: P(no | x) is high where the truth is "no"
    truth = np.asarray(y.iloc[:300]) == "no"
    assert probas["string"][truth].mean() > probas["string"][~truth].mean()


@pytest.mark.parametrize("learner", [HillClimbStructure(target="either"),
                                     ChowLiuTree(variant="tan", target="either")], ids=repr)
def test_classes_are_sorted_with_a_target_column(learner, asia):
    X, y = asia
    data = X.assign(either=y.cat.reorder_categories(["yes", "no"]))
    model = clone(learner).fit(data)
    assert list(model.classes_) == ["no", "yes"]
    assert list(model.categories_[list(data.columns).index("either")]) == ["yes", "no"]  # as declared
    proba = model.predict_proba(X)
    resorted = clone(learner).fit(data.assign(either=data["either"].cat.reorder_categories(["no", "yes"])))
    np.testing.assert_allclose(proba, resorted.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("learner", [ChowLiuTree(variant="tan"), HillClimbStructure()], ids=repr)
def test_labels_of_mixed_types_are_predicted_as_given(learner, asia):
    """Labels 1 and "yes" (an int beside a string) stay themselves in classes_ and predict:
    np.asarray once turned classes_ into the strings "1" and "yes", so predict returned
    "1" where y holds 1 and accuracy counted every such row wrong."""
    X, y = asia
    mixed = pd.Series([1 if v == "no" else "yes" for v in y], dtype=object, name="y")
    assert {type(v) for v in mixed} == {int, str}
    model = clone(learner).fit(X, mixed)
    assert [type(c) for c in model.classes_] in ([int, str], [str, int])
    labelled = clone(learner).fit(X, mixed.astype(str))  # the same labels, one type
    predicted = model.predict(X)
    np.testing.assert_array_equal(predicted.astype(str), labelled.predict(X))
    assert (predicted == mixed).mean() == (labelled.predict(X) == mixed.astype(str)).mean() > 0.9


def test_a_one_column_frame_y_keeps_its_name(asia):
    """fit(X, y[["either"]]) fits the column (with scikit-learn's column-vector warning) under
    its own name, as fit(X, y["either"]) does; the node was named "y"."""
    X, y = asia
    with pytest.warns(DataConversionWarning):
        framed = ChowLiuTree(variant="tan").fit(X, y.to_frame())
    series = ChowLiuTree(variant="tan").fit(X, y)
    assert framed.edges_ == series.edges_ and ("either", "asia") in framed.edges_
    assert framed.network_.nodes == series.network_.nodes
    np.testing.assert_array_equal(framed.predict_proba(X), series.predict_proba(X))



def test_a_y_named_as_a_column_of_x_is_warned_about_as_a_target_leak(asia):
    """fit(df, df["deny"]) (AER's HMDA with the label left in X) fitted silently: the target
    was renamed "y" and the classifier read the label from X's copy of it (held-out
    probabilities of 0.9999 for the true class). The warning names the column, says when it
    holds y's values in every row, and the fit is unchanged (the target is "y")."""
    X, y = asia
    leaky = X.assign(either=y)
    for learner in (ChowLiuTree(variant="tan"), PCSelect()):
        with pytest.warns(UserWarning, match=r"y is named 'either', as a column of X; the target is "
                                             r"fitted as 'y'\. X\['either'\] holds y's values in every "
                                             r"row: it is the label itself.*target leak.*"
                                             r"X\.drop\(columns='either'\)"):
            learner.fit(leaky, y)
    with pytest.warns(UserWarning, match=r"If X\['either'\] is the label itself"):
        model = ChowLiuTree(variant="tan").fit(leaky, y.rename("either").sample(frac=1, random_state=0)
                                               .set_axis(y.index))
    assert model.network_.nodes[-1] == "y"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ChowLiuTree(variant="tan").fit(X, y)  # no clash, no warning

def test_a_y_that_target_does_not_read_is_warned_about_naming_both(asia):
    """With target= naming a column of X, fit(X, y) fits that column and dropped y without a
    word, even when y was another label. scikit-learn passes y through (Pipeline,
    cross_val_score), so y equal to the column stays silent (the same labels as another
    dtype, a one-column frame, missing cells in the same rows); any other y is warned
    about, naming target=, the column and how y differs, and the fit is unchanged."""
    X, y = asia
    Xy = X.assign(either=y)
    alone = ChowLiuTree(variant="tan", target="either").fit(Xy)
    shuffled = pd.Series(y.to_numpy()[::-1], index=y.index)
    n_differ = int((shuffled != y).sum())
    with pytest.warns(UserWarning, match=rf"y is not read: target='either' names the column 'either' "
                                         rf"of X as the target, and y differs from X\['either'\] in "
                                         rf"{n_differ} of its 2000 rows\. To fit y as the target, pass "
                                         rf"fit\(X\.drop\(columns='either'\), y\) without target="):
        model = ChowLiuTree(variant="tan", target="either").fit(Xy, shuffled)
    assert model.edges_ == alone.edges_
    np.testing.assert_array_equal(model.predict_proba(Xy), alone.predict_proba(Xy))
    with pytest.warns(UserWarning, match=r"y has shape \(1999,\), not X\['either'\]'s \(2000,\)"):
        ChowLiuTree(variant="tan", target="either").fit(Xy, y.iloc[1:])
    gappy = Xy.assign(either=y.astype(object).where(np.arange(len(y)) % 7 > 0))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="y is not read")
        for same in (y, y.astype(str), y.to_frame(), y.to_numpy()):
            ChowLiuTree(variant="tan", target="either").fit(Xy, same)
        HillClimbStructure(target="either", missing="complete_case").fit(gappy, gappy["either"].to_numpy())
        cross_val_score(ChowLiuTree(variant="tan", target="either"), Xy, Xy["either"], cv=3)


def test_neg_log_loss_equals_log_loss_by_hand_and_ignores_category_order(asia):
    X, y = asia
    unsorted = y.cat.reorder_categories(["yes", "no"])
    cv = KFold(5, shuffle=True, random_state=0)
    scores = {}
    for name, target in [("unsorted", unsorted), ("sorted", unsorted.cat.reorder_categories(["no", "yes"]))]:
        scores[name] = cross_val_score(HillClimbStructure(), X, target, cv=cv, scoring="neg_log_loss")
        by_hand = []
        for train, test in cv.split(X):
            model = HillClimbStructure().fit(X.iloc[train], target.iloc[train])
            proba = model.predict_proba(X.iloc[test])
            # the definition: -mean log P(true class | x), the column found through classes_
            column = pd.Index(model.classes_).get_indexer(np.asarray(target.iloc[test]))
            by_hand.append(np.mean(np.log(proba[np.arange(len(test)), column])))
            assert by_hand[-1] == pytest.approx(-log_loss(target.iloc[test], proba, labels=model.classes_))
        np.testing.assert_allclose(scores[name], by_hand, rtol=1e-12)
    np.testing.assert_allclose(scores["unsorted"], scores["sorted"], rtol=1e-12)
    assert np.all(scores["sorted"] > -0.5)  # far better than guessing (-log 2)


# ----------------------------------------------------------- sorted rows, unseen states
def coronary_like(n=1841, seed=0):
    """A frame shaped like bnlearn's ``coronary`` (6 binary columns, one named with a dot and
    a space), sampled from a small network and sorted by a column with a rare state, as many
    real files are sorted: the last fold then holds every row of that state."""
    names = ["Smoking", "M. Work", "P. Work", "Pressure", "Proteins", "Family"]
    states = {name: ["neg", "pos"] for name in names}
    parents = {"M. Work": ["Smoking"], "P. Work": ["M. Work"], "Pressure": ["Smoking"],
               "Proteins": ["M. Work", "Smoking"], "Family": []}
    cpts = {
        "Smoking": np.array([0.55, 0.45]),
        "M. Work": np.array([[0.7, 0.3], [0.4, 0.6]]),
        "P. Work": np.array([[0.8, 0.2], [0.3, 0.7]]),
        "Pressure": np.array([[0.6, 0.4], [0.4, 0.6]]),
        "Proteins": np.array([[[0.7, 0.3], [0.5, 0.5]], [[0.6, 0.4], [0.3, 0.7]]]),
        "Family": np.array([0.92, 0.08]),  # the rare state: 8% of the rows, all in the last fold
    }
    network = DiscreteBayesianNetwork(states, parents, cpts)
    X = network.sample(n, random_state=seed).astype(str)  # plain text columns, as read from a CSV
    return X.sort_values("Family", kind="stable").reset_index(drop=True)


def test_grid_search_on_sorted_rows_gives_finite_scores_and_warns():
    X = coronary_like()
    assert (X["Family"].iloc[-int(0.2 * len(X)):] == "pos").any()
    assert (X["Family"].iloc[: int(0.8 * len(X))] == "neg").all()  # the training rows of fold 5
    search = GridSearchCV(HillClimbStructure(), {"scorer__ess": [0.1, 1, 10]}, cv=5)
    with pytest.warns(UnseenStateWarning, match=r"column 'Family': 'pos' \(\d+ of \d+ rows\).*KFold\(5, "
                                                r"shuffle=True, random_state=0\)"):
        search.fit(X)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    # the unseen cells are summed out: fold 5 scores log p(x without Family) on those rows
    train, test = list(KFold(5).split(X))[-1]
    model = clone(search.estimator).set_params(**search.best_params_).fit(X.iloc[train])
    rows = X.iloc[test]
    unseen_as_missing = rows.assign(Family=np.where(rows["Family"] == "pos", None, rows["Family"]))
    expected = model.score_samples(unseen_as_missing)
    with pytest.warns(UnseenStateWarning):
        np.testing.assert_array_equal(model.score_samples(rows), expected)
    # "error" keeps raising, so the candidates are NaN (what the sorted file gave before)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strict = GridSearchCV(HillClimbStructure(handle_unknown="error"), {"scorer__ess": [0.1, 1, 10]}, cv=5)
        assert np.all(np.isnan(strict.fit(X).cv_results_["mean_test_score"]))
    # shuffled folds see every state: no warning at all
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenStateWarning)
        shuffled = GridSearchCV(HillClimbStructure(), {"scorer__ess": [0.1, 1, 10]},
                                cv=KFold(5, shuffle=True, random_state=0)).fit(X)
    assert np.all(np.isfinite(shuffled.cv_results_["mean_test_score"]))


def test_the_unseen_state_warning_of_shuffled_folds_names_rare_states_and_groups():
    """A state held by one row is never in a training and a test fold at once, so shuffled
    folds warn too (AER's CreditCard: 'reports' 14 in 1 of 1,319 rows), and GroupKFold
    holds out every state of its column by design; the warning advised only to shuffle the
    folds. It now names both cases and the remedy: the states declared from the whole data,
    which then get prior mass (no warning, finite scores)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], 300), "b": rng.choice(["u", "v"], 300)})
    X.loc[7, "a"] = "rare"  # one row
    cv = KFold(5, shuffle=True, random_state=0)
    with pytest.warns(UnseenStateWarning, match=r"'rare' \(1 of 60 rows\).* the state is rare .*"
                                                r"GroupKFold.*X\[column\]\.astype\('category'\)"):
        cross_val_score(HillClimbStructure(), X, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenStateWarning)
        scores = cross_val_score(HillClimbStructure(), X.astype("category"), cv=cv)
    assert np.all(np.isfinite(scores))


def test_tan_is_a_classifier_so_sorted_labels_get_stratified_folds():
    assert is_classifier(ChowLiuTree(variant="tan"))
    assert not is_classifier(ChowLiuTree()) and not is_classifier(HillClimbStructure())
    assert not is_classifier(ChowLiuTree(variant="tan", target="y"))  # y is ignored then
    X, y = load_iris(return_X_y=True)
    assert np.all(np.diff(y) >= 0)  # iris is sorted by its label
    # the README line, verbatim: default cv=5 becomes StratifiedKFold(5) for a classifier
    clf = make_pipeline(KBinsDiscretizer(encode="ordinal"), ChowLiuTree(variant="tan"))
    scores = cross_val_score(clf, X, y, scoring="neg_log_loss")
    assert np.all(np.isfinite(scores)) and np.all(scores > -1.0)
    np.testing.assert_array_equal(scores, cross_val_score(clf, X, y, scoring="neg_log_loss",
                                                          cv=StratifiedKFold(5)))


def test_tan_without_y_says_y_is_required():
    with pytest.raises(ValueError, match="requires y to be passed"):
        ChowLiuTree(variant="tan").fit(sample_asia(100, random_state=0))


def test_unseen_state_of_a_score_time_array_column_is_named_by_position():
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 10)
    model = ChowLiuTree().fit(X)
    with pytest.warns(UnseenStateWarning, match=r"column 1: 7 \(1 of 2 rows\)"):
        assert np.isfinite(model.score_samples(np.array([[0, 7], [1, 1]]))).all()
    with pytest.raises(ValueError, match="continuous"):
        model.score_samples(np.array([[0, 0.5], [1, 1]]))


def _zero_probability_rows():
    """Training rows without the declared state 'z' of a (and without b='v' given a='x'),
    and held-out rows holding them: 3 with a='z', 1 with b='v' given a='x', 1 with a
    missing and b='v' (impossible once a is summed out: b is always 'u' in training)."""
    train = pd.DataFrame({"a": ["x", "y"] * 20, "b": ["u"] * 40})
    rows = pd.DataFrame({"a": ["z", "z", "z", "x", "x", "y", None],
                         "b": ["u", "u", "u", "v", "u", "u", "v"]})
    return train, rows


def test_mle_zero_probability_rows_are_warned_about_once_per_call():
    # a state or parent configuration never seen in training has probability 0 under
    # maximum likelihood, so the row's log-likelihood is -inf: the value is right, but it
    # was silent (GridSearchCV never selected the candidate, cross_val_score gave -inf)
    train, rows = _zero_probability_rows()
    mle = FixedStructure(edges=[("a", "b")], parameter_estimator="mle",
                         categories={"a": ["x", "y", "z"], "b": ["u", "v"]}).fit(train)
    message = (r"5 of 7 rows have probability 0 \(log-likelihood -inf\): the CPT gives probability 0 to "
               r"their state of column 'a' \(3 rows\) and column 'b' \(1 row\), a state never seen in fit "
               r"with its parents' states; 1 row more once their missing cells are summed out\. "
               r"parameter_estimator='mle'.*parameter_estimator='bayes'")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        log_likelihood = mle.score_samples(rows)
        score = mle.score(rows)
    assert [w.category for w in record] == [ZeroProbabilityWarning] * 2  # one per call, not per row
    for warning in record:
        assert re.search(message, str(warning.message)), str(warning.message)
    # the values are maximum likelihood's, unchanged
    assert np.isneginf(log_likelihood).tolist() == [True, True, True, True, False, False, True]
    expected = np.log([0.5, 0.5])  # p(a) for a = 'x', 'y' (b = 'u' has probability 1)
    np.testing.assert_allclose(log_likelihood[4:6], expected)
    assert score == -np.inf
    with pytest.warns(ZeroProbabilityWarning, match="column 'a' \\(3 rows\\)"):
        assert cross_val_score(mle, pd.concat([train, rows.iloc[:3]], ignore_index=True),
                               cv=KFold(2)).min() == -np.inf
    # no row affected: no warning; the Bayesian estimate: no zero, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroProbabilityWarning)
        assert np.isfinite(mle.score_samples(rows.iloc[4:6])).all()
        bayes = clone(mle).set_params(parameter_estimator="bayes").fit(train)
        assert np.isfinite(bayes.score_samples(rows)).all()


def test_predict_proba_warns_about_rows_whose_evidence_has_probability_0():
    # under maximum likelihood a row's evidence can have probability 0 whatever the target's
    # state; predict_proba then has no posterior and gives the uniform distribution (its
    # documented rule), which was silent: predict returned the first class as if chosen
    train = pd.DataFrame({"a": ["x", "y"] * 20, "b": ["p", "q"] * 20, "c": ["u", "u", "v", "v"] * 10})
    held_out = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["q", "p", "q", "p"]})
    chain = FixedStructure(edges=[("a", "b"), ("b", "c")], parameter_estimator="mle", target="c").fit(train)
    collider = FixedStructure(edges=[("a", "b"), ("c", "b")], parameter_estimator="mle",
                              target="c").fit(train)
    for model, expected in ((chain, "column 'b' \\(2 rows\\)"), (collider, "column 'b' \\(2 rows\\)")):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            proba = model.predict_proba(held_out)
            labels = model.predict(held_out)
        assert [w.category for w in record] == [ZeroProbabilityWarning] * 2  # one per call
        assert re.search("2 of 4 rows have evidence of probability 0: whatever the state of 'c', the "
                         f"CPT gives probability 0 to their state of {expected}.*uniform distribution",
                         str(record[0].message)), str(record[0].message)
        np.testing.assert_array_equal(proba[[0, 3]], 0.5)  # the documented rule, unchanged
        assert labels[0] == labels[3] == "u"
        np.testing.assert_allclose(proba[[1, 2]].sum(axis=1), 1.0)
    # with the target given in X, the same (its cell is left out of the evidence)
    with pytest.warns(ZeroProbabilityWarning, match="2 of 4 rows"):
        chain.predict_proba(held_out.assign(c="u"))
    # no impossible row, or the Bayesian estimate (every probability positive): no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroProbabilityWarning)
        chain.predict_proba(held_out.iloc[1:3])
        clone(collider).set_params(parameter_estimator="bayes").fit(train).predict_proba(held_out)


def _impossible_evidence_data():
    """Training rows in which b = 'q' never comes with a = 'x' (so maximum likelihood gives it
    probability 0), c a discrete child of a, z and w continuous; held-out rows, the first
    with a = 'x' and b = 'q'."""
    rng = np.random.default_rng(0)
    n = 400
    a = rng.choice(["x", "y"], n)
    b = np.where(a == "x", "p", rng.choice(["p", "q"], n))
    c = np.where(rng.random(n) < np.where(a == "x", 0.8, 0.3), "u", "v")
    z = rng.normal(size=n) + 2.0 * (b == "p")
    train = pd.DataFrame({"a": a, "b": b, "c": c, "z": z, "w": 0.5 * z + rng.normal(size=n)})
    held_out = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["q", "p", "q", "p"], "c": ["u", "v", "u", "v"],
                             "z": [0.5, 1.0, -0.3, 2.5], "w": [0.1, 0.2, 0.3, 0.4]})
    return train, held_out


def _one_warning(call):
    """``call()`` and the text of the single ZeroProbabilityWarning it gives."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = call()
    assert [w.category for w in record] == [ZeroProbabilityWarning], [str(w.message) for w in record]
    return result, str(record[0].message)


@pytest.mark.parametrize("target", ["w", "z", "c"])
def test_the_learner_and_its_network_agree_on_rows_of_impossible_evidence(target):
    # one rule (skbn._zero_probability) for the learner and the network object it holds: the
    # same rows have no posterior, they get NaN (a continuous target) or the uniform
    # distribution (a discrete one), the others the same predictions, and each call gives one
    # warning naming the same column. The CLG network's predict raised for the whole call and
    # its predict_proba was silent
    train, held_out = _impossible_evidence_data()
    model = FixedStructure(edges=[("a", "b"), ("a", "c"), ("b", "z"), ("z", "w")], parameter_estimator="mle",
                           target=target).fit(train)
    network = model.network_
    X = held_out.drop(columns=target)
    whatever = "whatever the state of 'c', " if target == "c" else ""
    cause = (f"1 of 4 rows have evidence of probability 0: {whatever}the CPT gives probability 0 to their "
             "state of column 'b' \\(1 row\\)")
    learner, learner_message = _one_warning(lambda: model.predict(X))
    mine, network_message = _one_warning(lambda: network.predict(X, target))
    for message in (learner_message, network_message):
        assert re.match(cause, message), message
    assert "parameter_estimator='bayes'" in learner_message  # (the learner's advice)
    if target == "c":
        np.testing.assert_array_equal(mine.to_numpy(), learner)
        assert learner[0] == model.classes_[0]
        proba, _ = _one_warning(lambda: model.predict_proba(X))
        network_proba, message = _one_warning(lambda: network.predict_proba(X, target))
        assert re.match(cause, message), message
        np.testing.assert_allclose(network_proba.to_numpy(), proba, rtol=1e-12)
        np.testing.assert_array_equal(proba[0], 0.5)
        assert list(network_proba.columns) == list(model.classes_)
    else:
        np.testing.assert_array_equal(np.isnan(learner), [True, False, False, False])
        np.testing.assert_allclose(mine.to_numpy(), learner, rtol=1e-12)
    with warnings.catch_warnings():  # the possible rows alone: the same answers, no warning
        warnings.simplefilter("error", ZeroProbabilityWarning)
        np.testing.assert_array_equal(network.predict(X.iloc[1:], target).to_numpy(), mine.to_numpy()[1:])
        np.testing.assert_array_equal(model.predict(X.iloc[1:]), learner[1:])


def test_the_discrete_learner_and_its_network_agree_on_rows_of_impossible_evidence():
    train, held_out = _impossible_evidence_data()
    train, held_out = train[["a", "b", "c"]], held_out[["a", "b", "c"]]
    model = FixedStructure(edges=[("a", "b"), ("a", "c")], parameter_estimator="mle", target="c").fit(train)
    proba, learner_message = _one_warning(lambda: model.predict_proba(held_out))
    codes = model._encode(held_out)
    target = model.network_.nodes.index("c")
    network_proba, network_message = _one_warning(lambda: model.network_.predict_proba_codes(codes, target))
    np.testing.assert_allclose(network_proba, proba, rtol=1e-12)  # (states u, v: classes_ order)
    np.testing.assert_array_equal(proba[0], 0.5)
    cause = ("1 of 4 rows have evidence of probability 0: whatever the state of 'c', the CPT gives "
             "probability 0 to their state of column 'b' (1 row)")
    assert learner_message.startswith(cause) and network_message.startswith(cause)



@pytest.mark.parametrize("kind", ["discrete", "clg"])
def test_the_learner_and_its_network_agree_on_rows_of_probability_0(kind):
    # score_samples and score of a learner, log_likelihood of its network_: the same values
    # row by row and, for each call, exactly one ZeroProbabilityWarning naming the same
    # column (the network's log_likelihood was silent; the learner's must not warn twice)
    if kind == "discrete":
        train, rows = _zero_probability_rows()
        model = FixedStructure(edges=[("a", "b")], parameter_estimator="mle",
                               categories={"a": ["x", "y", "z"], "b": ["u", "v"]}).fit(train)
        cause = ("the CPT gives probability 0 to their state of column 'a' (3 rows) and column 'b' (1 row)")
    else:  # a discrete configuration (a = 'x', b = 'q') never seen in fit
        train, rows = _impossible_evidence_data()
        model = FixedStructure(edges=[("a", "b"), ("a", "c"), ("b", "z"), ("z", "w")],
                               parameter_estimator="mle").fit(train)
        cause = "the CPT gives probability 0 to their state of column 'b' (1 row)"
    learner, learner_message = _one_warning(lambda: model.score_samples(rows))
    score, score_message = _one_warning(lambda: model.score(rows))
    network, network_message = _one_warning(lambda: model.network_.log_likelihood(rows))
    np.testing.assert_array_equal(network, learner)
    assert score == -np.inf and np.isneginf(learner).any() and np.isfinite(learner).any()
    assert score_message == learner_message
    assert learner_message.startswith(f"{np.isneginf(learner).sum()} of {len(rows)} rows have probability 0 "
                                      f"(log-likelihood -inf): {cause}, a state never seen in fit")
    assert network_message.startswith(f"{np.isneginf(learner).sum()} of {len(rows)} rows have probability 0 "
                                      f"(log-likelihood -inf): {cause}")
    assert "parameter_estimator='bayes'" in learner_message and "parameter_estimator" not in network_message
    if kind == "discrete":
        codes, _ = model._encode_rows(rows)
        codes_values, codes_message = _one_warning(lambda: model.network_.log_likelihood_codes(codes))
        np.testing.assert_array_equal(codes_values, learner)
        assert codes_message == network_message
    with warnings.catch_warnings():  # the possible rows alone: no warning anywhere
        warnings.simplefilter("error", ZeroProbabilityWarning)
        possible = rows[np.isfinite(learner)]
        np.testing.assert_array_equal(model.network_.log_likelihood(possible), model.score_samples(possible))


def test_a_model_average_warns_once_per_call_about_rows_of_probability_0():
    # several averaged networks, each computed without its own warning: one per call
    train, rows = _zero_probability_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the chains' convergence: not the point here)
        averaged = OrderMCMCStructure(parameter_estimator="mle", random_state=0,
                                      categories={"a": ["x", "y", "z"], "b": ["u", "v"]}).fit(train)
    assert len(averaged.averaged_networks_) > 1
    log_likelihood, message = _one_warning(lambda: averaged.score_samples(rows))
    assert np.isneginf(log_likelihood[:3]).all() and message.startswith("5 of 7 rows have probability 0")
    _one_warning(lambda: averaged.score(rows))


def test_score_warns_about_rows_of_probability_0_only_once_summed_out():
    # b = 'v' is declared but never seen: under mle its CPT column is 0 whatever a, so a row
    # with a missing and b = 'v' has probability 0, though no observed family has a CPT entry
    # of 0 (score_samples was silent then)
    train, _ = _zero_probability_rows()
    model = FixedStructure(edges=[("a", "b")], parameter_estimator="mle",
                           categories={"a": ["x", "y"], "b": ["u", "v"]}).fit(train)
    rows = pd.DataFrame({"a": [None, "x"], "b": ["v", "u"]})
    log_likelihood, message = _one_warning(lambda: model.score_samples(rows))
    np.testing.assert_allclose(log_likelihood, [-np.inf, np.log(0.5)])
    assert message.startswith("1 of 2 rows have probability 0 (log-likelihood -inf) once their missing cells "
                              "are summed out. parameter_estimator='mle'"), message


def test_predict_of_a_continuous_target_gives_nan_to_rows_of_impossible_evidence():
    # a continuous target's conditional mean is undefined where the evidence has probability
    # 0 (mle): predict raised for the whole call, and a model average raised as soon as one
    # averaged DAG found a row impossible, even with its posterior weight 0
    rng = np.random.default_rng(0)
    a = rng.choice(["x", "y"], 300)
    b = np.where(a == "x", "p", "q")
    train = pd.DataFrame({"a": a, "b": b, "z": rng.normal(size=300) + 2.0 * (b == "p")})
    held_out = pd.DataFrame({"a": ["x", "x", "y"], "b": ["q", "p", "q"]})
    single = FixedStructure(edges=[("a", "b"), ("b", "z")], parameter_estimator="mle", target="z").fit(train)
    averaged = OrderMCMCStructure(parameter_estimator="mle", target="z", random_state=0).fit(train)
    assert len(averaged.averaged_networks_) > 1
    for model in (single, averaged):
        with pytest.warns(ZeroProbabilityWarning, match="1 of 3 rows have evidence of probability 0.*column "
                                                        "'b'.*predict gives them NaN"):
            prediction = model.predict(held_out)
        assert np.isnan(prediction[0]) and np.isfinite(prediction[1:]).all()
        with warnings.catch_warnings():
            warnings.simplefilter("error", ZeroProbabilityWarning)
            np.testing.assert_array_equal(model.predict(held_out.iloc[1:]), prediction[1:])
    # the possible rows keep the network's conditional means
    np.testing.assert_allclose(single.predict(held_out.iloc[1:]),
                               single.network_.predict(held_out.iloc[1:], "z").to_numpy(), rtol=1e-12)


def test_categories_naming_y_says_how_to_declare_the_target_states():
    """``categories={y_name: [...]}`` was refused as "not columns of X", without the way to
    declare y's states; now the message gives it, and that way keeps an unseen class."""
    X = pd.DataFrame({"a": ["x", "y"] * 20, "b": ["u", "v", "v", "u"] * 10})
    y = pd.Series(["no", "yes"] * 20, name="label")
    with pytest.raises(ValueError, match=r"categories has the key 'label', the name of y.*"
                                         r"y\.astype\(pd\.CategoricalDtype\(\['no', 'yes', 'maybe'\]\)\)"):
        HillClimbStructure(categories={"label": ["no", "yes", "maybe"]}).fit(X, y)
    model = HillClimbStructure().fit(X, y.astype(pd.CategoricalDtype(["no", "yes", "maybe"])))
    assert list(model.classes_) == ["maybe", "no", "yes"]
    assert model.predict_proba(X).shape == (40, 3)
