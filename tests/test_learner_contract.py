"""The fit contract of every learner configuration (tests/_learners.py), kept by the base class.

* ``fit_parameters=False`` learns the structure only: ``network_`` is None, no CPT is
  estimated, and ``edges_`` are those of ``fit_parameters=True``.
* An integer ``sample_weight`` ``w`` is ``w`` copies of the row: same ``edges_`` and same
  ``score_`` (where the learner has one) as the replicated rows.
* Every learner takes its knowledge with the same types: a numpy array ``white_list``.

Each learner runs complete data, and incomplete data under every ``missing`` mode it supports.
"""

import numpy as np
import pandas as pd
import pytest
from _learners import ASIA_ORDER, CONFIGURATIONS, ONE_PER_CLASS, make, missing_modes
from sklearn.exceptions import NotFittedError

import skbn.estimators._base as base_module
from skbn.citests import DSeparationOracle
from skbn.datasets import asia_network, sample_asia

#: Parameters that make a configuration fit ASIA quickly and without a needed warning.
ASIA_PARAMS = {
    "k2": {"ordering": ASIA_ORDER},
    "tan": {"target": "either"},
    "exact": {"max_indegree": 2},
}
#: Structural EM kept short: the contract is about the search's result, not convergence.
EM_PARAMS = {"em_max_iter": 2}

CASES = (
    [(name, {}) for name in CONFIGURATIONS]
    + [("pc", {"ci_test": DSeparationOracle(asia_network())})]  # PC with the oracle too
    + [(name, {"missing": mode}) for name in ONE_PER_CLASS for mode in missing_modes(name)]
)


def _case_id(case):
    name, params = case
    extra = ",".join(f"{k}={type(v).__name__ if not isinstance(v, str) else v}" for k, v in params.items())
    return f"{name}[{extra}]" if extra else name


def _learner(name, params, **more):
    extra = dict(ASIA_PARAMS.get(name, {}))
    if params.get("missing") == "em":
        extra.update(EM_PARAMS)
    return make(name, **{**extra, **params, **more})


@pytest.fixture(scope="module")
def asia():
    return sample_asia(400, random_state=3)[ASIA_ORDER]


@pytest.fixture(scope="module")
def asia_missing(asia):
    """ASIA with missing cells (NaN in categorical columns, the categories kept)."""
    X = asia.copy()
    rng = np.random.default_rng(4)
    for column in ("smoke", "bronc", "xray"):
        X.loc[rng.random(len(X)) < 0.08, column] = np.nan
    return X


def _data(params, asia, asia_missing):
    return asia if params.get("missing", "error") == "error" else asia_missing


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_structure_only_fits_no_cpt_and_the_same_edges(case, asia, asia_missing, monkeypatch):
    name, params = case
    X = _data(params, asia, asia_missing)
    calls = []
    real = base_module.estimate_cpt

    def spy(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(base_module, "estimate_cpt", spy)
    full = _learner(name, params).fit(X)
    assert full.network_ is not None
    if params.get("missing") not in ("em", "available_case"):
        assert calls  # the spy sees the CPT fit (EM's own M-step estimates elsewhere)
    calls.clear()
    structure = _learner(name, params, fit_parameters=False).fit(X)
    assert calls == []
    assert structure.network_ is None
    assert not hasattr(structure, "averaged_networks_")
    assert structure.edges_ == full.edges_
    with pytest.raises(NotFittedError, match="fit_parameters=False"):
        structure.score_samples(X)


#: Learners whose weighted fit is equal in distribution only: the bootstrap draws a
#: weighted row's copies with one multinomial draw, the replicated rows one by one.
IN_DISTRIBUTION_ONLY = {"bootstrap"}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in IN_DISTRIBUTION_ONLY], ids=_case_id)
def test_integer_weights_equal_replicated_rows(case, asia, asia_missing):
    name, params = case
    X = _data(params, asia, asia_missing)
    weights = np.random.default_rng(5).integers(0, 4, len(X))  # 0 drops the row
    replicated = X.iloc[np.repeat(np.arange(len(X)), weights)]
    weighted = _learner(name, params).fit(X, sample_weight=weights)
    copies = _learner(name, params).fit(replicated)
    assert weighted.edges_ == copies.edges_
    if hasattr(copies, "score_"):
        assert weighted.score_ == pytest.approx(copies.score_, rel=1e-9)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", [name for name, (cls, _) in CONFIGURATIONS.items()
                                  if "white_list" in cls._knowledge])
def test_every_learner_takes_a_numpy_white_list(name, asia):
    """One set of accepted types for the knowledge: an ``(n_edges, 2)`` array (and a
    two-column DataFrame) is the same white list as a list of pairs."""
    pairs = [("smoke", "lung"), ("lung", "smoke")] if name == "ges" else [("smoke", "lung")]
    as_list = _learner(name, {}, white_list=pairs).fit(asia)
    as_array = _learner(name, {}, white_list=np.array(pairs)).fit(asia)
    as_frame = _learner(name, {}, white_list=pd.DataFrame(pairs, columns=["from", "to"])).fit(asia)
    assert as_array.edges_ == as_list.edges_ == as_frame.edges_
    assert {("smoke", "lung"), ("lung", "smoke")} & set(as_array.edges_)


def test_a_knowledge_frame_needs_two_columns(asia):
    with pytest.raises(ValueError, match="white_list as a DataFrame must have two columns"):
        make("hill_climb", white_list=pd.DataFrame({"a": ["smoke"], "b": ["lung"], "c": [1]})).fit(asia)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", ["hill_climb", "ges", "exact", "k2", "mmhc", "order_mcmc"])
def test_the_bounded_likelihood_rule_names_the_learner(name, asia):
    """LogLikelihood needs a binding in-degree bound (below p - 1), whatever the learner."""
    learner = _learner(name, {}, scorer="loglik", max_indegree=len(ASIA_ORDER) - 1)
    with pytest.raises(ValueError, match=f"{type(learner).__name__}: scorer=LogLikelihood"):
        learner.fit(asia)
    _learner(name, {}, scorer="loglik", max_indegree=1).fit(asia)  # a binding bound is accepted


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_model_averaged_density_is_the_mixture_of_the_sampled_dags(asia):
    """Order MCMC's sampled DAGs (weighted by frequency) make the density: ``score_samples``
    is ``log sum_m w_m p(x | G_m)`` and ``predict_proba`` its conditional, checked here from
    the joint likelihoods of every completion of the target."""
    model = make("order_mcmc", target="either").fit(asia)
    counts = pd.Series([tuple(sorted(dag)) for dag in model.dag_samples_]).value_counts()
    assert len(model.averaged_networks_) == len(counts)
    np.testing.assert_allclose(np.sort(model.averaged_weights_), np.sort(counts.to_numpy() / counts.sum()))
    assert len(model.averaged_networks_) > 1  # a real mixture
    rows = asia.iloc[:50]
    mixture = [w * np.exp(net.log_likelihood(rows)) for net, w in
               zip(model.averaged_networks_, model.averaged_weights_)]
    np.testing.assert_allclose(model.score_samples(rows), np.log(np.sum(mixture, axis=0)), rtol=1e-10)
    joint = {}
    for state in model.classes_:
        column = pd.Categorical([state] * len(rows), categories=asia["either"].cat.categories)
        completed = rows.assign(either=column)
        joint[state] = sum(w * np.exp(net.log_likelihood(completed)) for net, w in
                           zip(model.averaged_networks_, model.averaged_weights_))
    total = sum(joint.values())
    expected = np.column_stack([joint[state] / total for state in model.classes_])
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ONE_PER_CLASS)
def test_parameter_names_are_read_from_the_constructor_once_per_class(name, monkeypatch):
    import inspect

    from sklearn.base import BaseEstimator

    estimator = make(name)
    cls = type(estimator)
    expected = sorted(p for p in inspect.signature(cls.__init__).parameters if p != "self")
    assert cls._get_param_names() == expected
    assert cls._get_param_names() == BaseEstimator._get_param_names.__func__(cls)
    assert sorted(estimator.get_params(deep=False)) == expected
    calls = []
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: calls.append(1))
    estimator.get_params()
    assert calls == []  # cached: no signature read per call


def test_a_subclass_with_its_own_parameters_gets_its_own_names():
    from skbn import PCStructure

    class Narrow(PCStructure):
        def __init__(self, *, alpha_extra=1.0, ci_test="zf"):
            self.alpha_extra = alpha_extra
            self.ci_test = ci_test

    assert Narrow._get_param_names() == ["alpha_extra", "ci_test"]
    assert "alpha_extra" not in PCStructure._get_param_names()
