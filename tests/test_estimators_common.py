"""The scikit-learn contract for every structure learner, and model selection on top of it."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency, parametrize_with_checks

from skbn import ChowLiuTree, ExactStructure, FixedStructure, GESStructure, HillClimbStructure, K2Structure, PCStructure
from skbn.citests import GTest
from skbn.datasets import sample_asia
from skbn.scores import BDeu

ESTIMATORS = [
    ChowLiuTree(),
    ChowLiuTree(target=0),
    K2Structure(scorer=BDeu(ess=5)),
    HillClimbStructure(scorer=BDeu(ess=5)),
    HillClimbStructure(search="tabu", n_restarts=1, random_state=0),
    GESStructure(),
    ExactStructure(scorer="bic"),
    FixedStructure(edges=((0, 1),)),
    PCStructure(ci_test=GTest(alpha=0.01)),
]

# No expected failures: every check that applies passes (check_array_api_input skips itself
# unless SCIPY_ARRAY_API is set). check_dataframe_column_names_consistency is not generated
# by parametrize_with_checks; it is called below.
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: repr(e))
def test_dataframe_column_names_consistency(estimator):
    check_dataframe_column_names_consistency(type(estimator).__name__, estimator)


@pytest.fixture(scope="module")
def asia():
    return sample_asia(3000, random_state=0)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: repr(e))
def test_pickle_round_trip_gives_identical_scores(estimator, asia):
    model = clone(estimator).set_params(target=None).fit(asia)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.score_samples(asia), model.score_samples(asia))
    assert restored.edges_ == model.edges_


def test_grid_search_over_nested_scorer_parameter(asia):
    search = GridSearchCV(K2Structure(scorer=BDeu()), {"scorer__ess": [0.1, 1.0, 10.0]}, cv=3)
    search.fit(asia)
    assert search.best_params_["scorer__ess"] in (0.1, 1.0, 10.0)
    assert np.isfinite(search.best_score_)
    assert search.best_estimator_.scorer_.ess == search.best_params_["scorer__ess"]
    assert search.best_estimator_.scorer.ess == search.best_params_["scorer__ess"]


def test_pipeline_with_discretizer_on_continuous_data():
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(
        KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="quantile", quantile_method="averaged_inverted_cdf"),
        ChowLiuTree(variant="tan"),
    )
    cv = KFold(5, shuffle=True, random_state=0)
    accuracy = cross_val_score(pipe, X, y, cv=cv).mean()  # score(X, y): mean log p(x, y)
    log_loss = cross_val_score(pipe, X, y, cv=cv, scoring="neg_log_loss").mean()
    assert np.isfinite(accuracy) and -0.6 < log_loss < 0
    assert (pipe.fit(X, y).predict(X) == y).mean() > 0.9


def test_cross_val_score_default_is_held_out_log_likelihood(asia):
    scores = cross_val_score(ChowLiuTree(), asia, cv=3)
    model = ChowLiuTree().fit(asia.iloc[1000:])
    assert scores[0] == pytest.approx(model.score(asia.iloc[:1000]))
    assert np.all(scores < 0)


def test_predict_proba_needs_a_target(asia):
    model = ChowLiuTree().fit(asia)
    assert not hasattr(model, "predict_proba")
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'") as excinfo:
        model.predict_proba(asia)
    assert "predict_proba needs a target" in str(excinfo.value.__cause__)


def test_target_column_and_y_give_the_same_classifier(asia):
    X, y = asia.drop(columns="lung"), asia["lung"]
    with_y = ChowLiuTree().fit(X, y)
    with_target = ChowLiuTree(target="lung").fit(asia)
    assert list(with_y.classes_) == list(with_target.classes_) == ["yes", "no"]
    np.testing.assert_allclose(with_y.predict_proba(X), with_target.predict_proba(X))
    np.testing.assert_allclose(with_target.predict_proba(asia), with_target.predict_proba(X))
    # score(X, y) is log p(x, y); score(X) marginalises y
    assert with_y.score(X, y) == pytest.approx(with_target.score(asia))
    assert with_y.score(X) > with_y.score(X, y)


def test_missing_cells_are_marginalised_at_score_time(asia):
    model = K2Structure().fit(asia)
    rows = asia.iloc[:3].astype(object)
    rows.iloc[0, 2] = np.nan
    full = model.score_samples(asia.iloc[:3])
    partial = model.score_samples(rows)
    assert partial[0] > full[0] and partial[1:] == pytest.approx(full[1:])


def test_unknown_state_error_and_marginalize(asia):
    bad = asia.iloc[:2].astype(object)
    bad.iloc[0, 0] = "maybe"
    with pytest.raises(ValueError, match="unknown category 'maybe' in column 'asia'"):
        ChowLiuTree().fit(asia).score_samples(bad)
    model = ChowLiuTree(handle_unknown="marginalize").fit(asia)
    assert np.all(np.isfinite(model.score_samples(bad)))


def test_declared_but_unseen_state_gets_prior_mass():
    X = pd.DataFrame({"a": pd.Categorical(["x", "y"] * 20, categories=["x", "y", "z"]), "b": [0, 1] * 20})
    model = ChowLiuTree().fit(X)
    unseen = pd.DataFrame({"a": pd.Categorical(["z"], categories=["x", "y", "z"]), "b": [0]})
    assert np.isfinite(model.score_samples(unseen)).all()


def test_fitting_twice_gives_the_same_model(asia):
    model = K2Structure()
    first = model.fit(asia).edges_
    assert model.fit(asia).edges_ == first


@pytest.mark.parametrize("params, match", [
    ({"handle_unknown": "ignore"}, "handle_unknown"),
    ({"parameter_ess": 0}, "parameter_ess"),
    ({"parameter_estimator": "map"}, "parameter_estimator"),
    ({"target": "nope"}, "target='nope' is not a column"),
])
def test_bad_parameters(params, match, asia):
    with pytest.raises(ValueError, match=match):
        ChowLiuTree(**params).fit(asia)


def test_sample_returns_categorical_frame(asia):
    draws = ChowLiuTree().fit(asia).sample(50, random_state=0)
    assert draws.shape == (50, 8) and all(isinstance(t, pd.CategoricalDtype) for t in draws.dtypes)
    assert draws.equals(ChowLiuTree().fit(asia).sample(50, random_state=0))


def test_nested_plugin_parameters_work_on_string_aliases(asia):
    search = GridSearchCV(HillClimbStructure(), {"scorer__ess": [1.0, 10.0]}, cv=2).fit(asia)
    assert search.best_estimator_.scorer.ess == search.best_params_["scorer__ess"]
    pc = PCStructure().set_params(ci_test__alpha=0.01)
    assert pc.ci_test.alpha == 0.01 and type(pc.ci_test).__name__ == "ChiSquare"
    model = HillClimbStructure(scorer="bic")
    assert model.set_params(scorer__edge_penalty=1.0).scorer.get_params()["edge_penalty"] == 1.0
    assert HillClimbStructure().get_params()["scorer"] == "bdeu"  # defaults stay plain strings


def test_nan_target_is_refused_clearly(asia):
    X, y = asia.drop(columns="lung"), asia["lung"].astype(object)
    y.iloc[3] = None
    with pytest.raises(ValueError, match="Input y contains NaN"):
        ChowLiuTree().fit(X, y)


# ----------------------------------------------------------------- the user layer (issue 12)
def test_refit_resets_every_fitted_attribute(asia):
    model = ChowLiuTree().fit(asia.drop(columns="lung"), asia["lung"])
    assert hasattr(model, "classes_")
    model.fit(asia)
    assert not hasattr(model, "classes_")
    assert not hasattr(model, "predict_proba")
    fresh = ChowLiuTree().fit(asia)
    assert sorted(vars(model)) == sorted(vars(fresh))


@pytest.mark.parametrize("method", ["score_samples", "score", "predict_proba", "predict", "sample"])
def test_unfitted_estimator_raises_not_fitted_error(method, asia):
    from sklearn.exceptions import NotFittedError

    model = HillClimbStructure(target="lung")
    args = () if method == "sample" else (asia,)
    with pytest.raises(NotFittedError):
        getattr(model, method)(*args)


def test_unknown_target_label_in_score_is_named(asia):
    model = ChowLiuTree().fit(asia.drop(columns="lung"), asia["lung"])
    y = np.array(asia["lung"], dtype=object)
    y[3] = "maybe"
    with pytest.raises(ValueError, match="'maybe' in column 'lung'"):
        model.score(asia.drop(columns="lung"), y)


def _wide_frame(n_parents=4, n_states=60):
    """Tiny data whose declared state spaces make the CPT of 'child' given all others huge."""
    rng = np.random.default_rng(0)
    names = [f"p{i}" for i in range(n_parents)] + ["child"]
    X = pd.DataFrame({name: rng.integers(0, 2, 20) for name in names})
    categories = {name: list(range(n_states)) for name in names}
    edges = [(name, "child") for name in names[:-1]]
    return X, categories, edges


def test_huge_cpt_error_names_the_column_and_a_fix_that_exists(asia):
    X, categories, edges = _wide_frame()
    with pytest.raises(ValueError, match=r"column 'child'.*fewer parents in edges.*fit_parameters=False"):
        FixedStructure(edges=edges, categories=categories).fit(X)
    # a learner with max_indegree suggests it; the check is the same shared guard
    from skbn._data import encode_fit

    data, _ = encode_fit(X, categories)
    with pytest.raises(ValueError, match=r"column 'child'.*max_indegree=.*fit_parameters=False"):
        HillClimbStructure()._check_cpt_size(data, 4, [0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"column 'child'.*4 parents.*fit_parameters=False"):
        PCStructure()._check_cpt_size(data, 4, [0, 1, 2, 3])


def test_fit_parameters_false_learns_the_structure_only(asia):
    from sklearn.exceptions import NotFittedError

    X, categories, edges = _wide_frame()
    model = FixedStructure(edges=edges, categories=categories, fit_parameters=False).fit(X)
    assert model.edges_ == edges and model.network_ is None
    with pytest.raises(NotFittedError, match="fit_parameters=False"):
        model.score(X)
    with pytest.raises(NotFittedError, match="fit_parameters=False"):
        model.sample(3)
    pc = PCStructure(fit_parameters=False).fit(asia)
    full = PCStructure().fit(asia)
    assert pc.network_ is None and pc.cpdag_ == full.cpdag_ and pc.edges_ == full.edges_
    with pytest.raises(NotFittedError, match="fit_parameters=False"):
        PCStructure(target="lung", fit_parameters=False).fit(asia).predict_proba(asia)


def test_dense_pc_cpdag_keeps_its_structure_with_fit_parameters_false():
    # five noisy copies of one hidden binary cause: every pair stays dependent given any
    # subset, so PC returns the complete undirected graph; with 40 declared states per
    # column the CPT of the sink of its DAG extension has 40**5 > MAX_CPT_SIZE cells
    rng = np.random.default_rng(0)
    hidden = rng.integers(0, 2, 1000)
    X = pd.DataFrame({f"x{i}": np.where(rng.random(1000) < 0.85, hidden, 1 - hidden) for i in range(5)})
    categories = {column: list(range(40)) for column in X}
    with pytest.raises(ValueError, match=r"column 'x0'.*4 parents.*fit_parameters=False"):
        PCStructure(categories=categories).fit(X)
    model = PCStructure(categories=categories, fit_parameters=False).fit(X)
    assert len(model.undirected_edges_) == 10 and not model.directed_edges_
    assert len(model.edges_) == 10 and model.network_ is None
