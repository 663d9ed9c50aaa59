"""sample_weight on every learner: an integer weight w is w copies of the row, 0 drops it."""

import re
import warnings

import numpy as np
import pytest
from _learners import ONE_PER_CLASS, make
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from skbn import (
    FixedStructure,
    HillClimbStructure,
    K2Structure,
)
from skbn.datasets import sample_asia
from skbn.scores import BDeu

LEARNERS = [
    make("hill_climb"),
    make("tabu", scorer="bic"),
    make("annealing", scorer="k2", max_iter=200),
    make("first_improvement", scorer="aic"),
    make("hill_climb", scorer=BDeu(ess=5), n_restarts=2, random_state=0),
    make("ges"),
    make("ges", scorer="bic"),
    make("exact", scorer="bdeu"),
    make("exact", scorer="bic", max_indegree=2),
    make("k2"),
    make("k2", scorer="bic"),
    make("chow_liu"),
    make("chow_liu", scorer="bdeu"),
    make("tan", target="either"),
    make("fixed", edges=[("smoke", "lung"), ("lung", "either"), ("tub", "either")]),
    make("fixed", parameter_estimator="mle"),
]


@pytest.fixture(scope="module")
def asia():
    X = sample_asia(600, random_state=0)
    return X[["asia", "smoke", "tub", "lung", "bronc", "either", "xray"]]


def _assert_same_model(a, b):
    assert a.edges_ == b.edges_
    if hasattr(a, "score_"):
        assert a.score_ == pytest.approx(b.score_, rel=1e-9)
    for node, cpt in a.network_.cpts.items():
        np.testing.assert_allclose(cpt, b.network_.cpts[node], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_integer_weights_equal_repeated_rows_and_zero_drops(learner, asia):
    rng = np.random.default_rng(0)
    weights = rng.integers(0, 4, len(asia))  # 0 drops the row
    repeated = asia.iloc[np.repeat(np.arange(len(asia)), weights)]
    expected = clone(learner).fit(repeated)
    weighted = clone(learner).fit(asia, sample_weight=weights)
    _assert_same_model(weighted, expected)
    as_floats = clone(learner).fit(asia, sample_weight=weights.astype(float))
    _assert_same_model(as_floats, expected)


@pytest.mark.parametrize("learner", [make("hill_climb"), make("ges", scorer="bic"),
                                     make("exact", scorer="bic"), make("k2"), make("chow_liu")], ids=repr)
def test_unit_weights_are_no_weights(learner, asia):
    plain = clone(learner).fit(asia)
    _assert_same_model(clone(learner).fit(asia, sample_weight=np.ones(len(asia))), plain)


@pytest.mark.parametrize("learner", [make("hill_climb", scorer="bic"), make("ges", scorer="bdeu"),
                                     make("exact", scorer="bdeu"), make("k2"), make("chow_liu")], ids=repr)
def test_fractional_weights_are_scale_free_for_bic_and_finite(learner, asia):
    """Real-valued weights give finite scores and CPTs; halving every weight of doubled
    data changes nothing (counts are sums of weights)."""
    rng = np.random.default_rng(1)
    weights = rng.uniform(0.1, 2.0, len(asia))
    model = clone(learner).fit(asia, sample_weight=weights)
    assert np.all(np.isfinite(model.score_samples(asia)))
    doubled = asia.iloc[np.repeat(np.arange(len(asia)), 2)]
    _assert_same_model(clone(learner).fit(doubled, sample_weight=np.repeat(weights, 2) / 2), model)


def test_weights_change_the_cpts_as_counts(asia):
    weights = np.where(asia["smoke"] == "yes", 3.0, 1.0)
    model = FixedStructure(parameter_estimator="mle").fit(asia, sample_weight=weights)
    smoke = model.network_.cpts["smoke"]
    states = list(model.network_.states["smoke"])
    yes = 3.0 * (asia["smoke"] == "yes").sum()
    no = (asia["smoke"] == "no").sum()
    assert smoke[states.index("yes")] == pytest.approx(yes / (yes + no))


def test_bad_sample_weight_names_the_parameter(asia):
    with pytest.raises(ValueError, match="sample_weight"):
        HillClimbStructure().fit(asia, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight"):
        HillClimbStructure().fit(asia, sample_weight=-np.ones(len(asia)))


def test_fit_keeps_no_weights_and_refit_resets(asia):
    weights = np.arange(len(asia)) % 3
    model = HillClimbStructure().fit(asia, sample_weight=weights)
    assert not any(isinstance(v, np.ndarray) and v.shape == (len(asia),) for v in vars(model).values())
    _assert_same_model(model.fit(asia), HillClimbStructure().fit(asia))


def test_cross_val_score_and_grid_search_route_sample_weight(asia):
    weights = np.random.default_rng(2).integers(1, 3, len(asia))
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(K2Structure(), asia, cv=cv, params={"sample_weight": weights})
    repeated = []
    for train, test in cv.split(asia):
        model = K2Structure().fit(asia.iloc[np.repeat(train, weights[train])])
        repeated.append(model.score(asia.iloc[test]))
    np.testing.assert_allclose(scores, repeated, rtol=1e-12)
    order = list(asia.columns)  # given: no warning about the column-order default
    search = GridSearchCV(K2Structure(scorer=BDeu(), ordering=order), {"scorer__ess": [1.0, 10.0]}, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # score takes sample_weight: no "does not support" warning
        search.fit(asia, sample_weight=weights)
    best = K2Structure(scorer=BDeu(ess=search.best_params_["scorer__ess"]), ordering=order)
    _assert_same_model(search.best_estimator_, best.fit(asia, sample_weight=weights))


def test_score_is_the_weighted_mean_log_likelihood(asia):
    model = K2Structure().fit(asia)
    weights = np.arange(len(asia)) % 4
    expected = np.average(model.score_samples(asia), weights=weights)
    assert model.score(asia, sample_weight=weights) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_fit_leaves_only_parameters_and_fitted_attributes(learner, asia):
    """Per-fit scratch (counters, caches, operator tables) lives in a local fit context."""
    model = clone(learner).fit(asia, sample_weight=np.arange(len(asia)) % 3)
    params = set(model.get_params(deep=False))
    assert {k for k in vars(model) if k not in params and not k.endswith("_")} == {"_target_index"}


# ------------------------------------------------------------------ overflow (issue 18)
ALL_LEARNERS = {
    name: make(name, **{"k2": {"scorer": "bdeu"}, "chow_liu": {"scorer": "bdeu"},
                        "mmhc": {"scorer": "bdeu"}}.get(name, {}))
    for name in ("hill_climb", "tabu", *ONE_PER_CLASS[1:])
}


@pytest.mark.parametrize("name", list(ALL_LEARNERS))
def test_weights_whose_sum_overflows_are_refused(name, asia):
    weights = np.full(len(asia), 1e306)  # each finite, the sum is not
    with pytest.raises(ValueError, match="sample_weight sums to infinity"):
        clone(ALL_LEARNERS[name]).fit(asia, sample_weight=weights)


@pytest.mark.parametrize("name", list(ALL_LEARNERS))
def test_weights_that_sum_to_less_than_two_rows_are_refused(name, asia):
    """Weights normalised to sum to 1 are the evidence of one row: hill climbing with BIC
    (penalty log(1)/2 = 0) added every edge of vcd's DanishWelfare, PC kept every adjacency
    (no test trusted); now refused like X of one row, naming sample_weight and the fix.
    Weights summing to 2 are accepted."""
    weights = np.random.default_rng(0).uniform(0.5, 1.5, len(asia))
    with pytest.raises(ValueError, match=r"sample_weight sums to 1, the evidence of fewer than two "
                                         r"rows.*sample_weight \* len\(X\) / sample_weight.sum\(\)"):
        clone(ALL_LEARNERS[name]).fit(asia, sample_weight=weights / weights.sum())
    clone(ALL_LEARNERS[name]).fit(asia, sample_weight=2 * weights / weights.sum())


def test_ci_test_and_edge_posteriors_refuse_a_total_weight_below_two(asia):
    from skbn.checking import ci_test
    from skbn.posterior import edge_posteriors

    weights = np.full(len(asia), 1.0 / len(asia))
    with pytest.raises(ValueError, match="sample_weight sums to 1, the evidence of fewer than two rows"):
        ci_test(asia, "smoke", "lung", [], sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight sums to 1, the evidence of fewer than two rows"):
        edge_posteriors(asia[["smoke", "lung", "either"]], sample_weight=weights)


@pytest.mark.parametrize("name", [n for n in ALL_LEARNERS if n not in ("pc", "fixed")])
@pytest.mark.parametrize("ess", [1e300, 1e308])
def test_overflowing_ess_is_refused_naming_the_parameter(name, ess, asia):
    learner = clone(ALL_LEARNERS[name])
    key = "estimator__scorer__ess" if name == "bootstrap" else "scorer__ess"
    learner.set_params(**{key: ess})
    with pytest.raises(ValueError, match=re.escape(f"{key}={ess!r}") + ".*outside the range"):
        learner.fit(asia)
    learner.set_params(**{key: 10.0}).fit(asia)  # a moderate value fits


def test_overflow_check_sees_missing_cells_and_custom_scorers(asia):
    rows = asia.astype(object)
    rows.iloc[::7, 1] = None
    with pytest.raises(ValueError, match=r"scorer__ess=1e\+300"):
        HillClimbStructure(scorer=BDeu(ess=1e300), missing="em").fit(rows)
    HillClimbStructure(scorer=BDeu(ess=1.0), missing="em", em_max_iter=2).fit(rows)
    # finite garbage of a user's own score is its business, not a NaN: accepted
    from skbn.scores import BaseScore

    class Zero(BaseScore):
        score_equivalent = True

        def local_score(self, counts, n_parent_configs, n_parents):
            return 0.0

    assert HillClimbStructure(scorer=Zero()).fit(asia).edges_ == []


def _with_odd_zero_weight_rows(asia):
    """ASIA rows followed by rows of weight 0 that hold what no other row does: a state
    seen nowhere else, a missing cell, and a fractional number in an integer column."""
    import pandas as pd

    X = asia.astype(object).assign(count=np.arange(len(asia)) % 3)  # a small integer column (discrete)
    odd = X.iloc[:3].copy()
    odd.loc[odd.index[0], "smoke"] = "cigar"  # a state of no kept row
    odd.loc[odd.index[1], "lung"] = None  # a missing cell
    odd["count"] = odd["count"].astype(float)
    odd.loc[odd.index[2], "count"] = 0.5  # would make the column continuous
    X = pd.concat([X.astype({"count": float}), odd], ignore_index=True)
    weights = np.r_[np.random.default_rng(1).integers(1, 3, len(asia)), np.zeros(3)]
    return X, weights


@pytest.mark.parametrize("learner", [make("hill_climb"), make("pc"), make("chow_liu"), make("fixed")],
                         ids=repr)
def test_rows_of_weight_zero_are_dropped_before_the_data_are_read(learner, asia):
    """A weight 0 is the same as dropping the row, also for what the encoder decides from
    the values: before, a state seen only in such a row joined ``categories_`` (and took
    prior mass), a fractional value in one made an integer column continuous, and a missing
    cell in one was refused."""
    X, weights = _with_odd_zero_weight_rows(asia)
    kept = weights > 0
    expected = clone(learner).fit(X[kept], sample_weight=weights[kept])
    weighted = clone(learner).fit(X, sample_weight=weights)
    _assert_same_model(weighted, expected)
    assert [list(c) for c in weighted.categories_] == [list(c) for c in expected.categories_]
    assert "cigar" not in weighted.categories_[list(X.columns).index("smoke")]
    assert weighted.column_types_ == expected.column_types_ == {name: "discrete" for name in X.columns}
    if not isinstance(learner, FixedStructure):  # (its edges name the columns)
        as_array = clone(learner).fit(X.to_numpy(), sample_weight=weights)
        _assert_same_model(as_array, clone(learner).fit(X[kept].to_numpy(), sample_weight=weights[kept]))


def test_rows_of_weight_zero_are_dropped_from_y_and_interventions_alike(asia):
    import pandas as pd

    X, weights = _with_odd_zero_weight_rows(asia)
    kept = weights > 0
    y = pd.Series(np.where(np.arange(len(X)) < len(asia), X["either"], "maybe"), name="label")
    for given in (y, y.tolist(), y.to_numpy()):
        model = make("hill_climb").fit(X.drop(columns="either"), given, sample_weight=weights)
        assert list(model.classes_) == ["no", "yes"]
    # (declared categories are states whatever the rows: a categorical target keeps "maybe")
    declared = make("hill_climb").fit(X.drop(columns="either"), pd.Categorical(y), sample_weight=weights)
    assert list(declared.classes_) == ["maybe", "no", "yes"]
    targets = [["smoke"] if i % 7 == 0 else [] for i in range(len(X))]
    expected = make("hill_climb").fit(X[kept], sample_weight=weights[kept],
                                      interventions=[t for t, k in zip(targets, kept) if k])
    for given in (targets, pd.DataFrame({"smoke": [bool(t) for t in targets]})):
        _assert_same_model(make("hill_climb").fit(X, sample_weight=weights, interventions=given), expected)


def test_score_reads_nothing_in_rows_of_weight_zero(asia):
    import warnings

    model = make("hill_climb", parameter_estimator="mle").fit(asia)
    odd = asia.astype(object).copy()
    odd.iloc[0, 1] = "cigar"  # an unseen state: a warning if read
    weights = np.r_[0.0, np.ones(len(asia) - 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.score(odd, sample_weight=weights) == model.score(asia.iloc[1:])


def _counts_table():
    """A small frequency table (as R's ``as.data.frame(table)`` writes one): a row per cell,
    its count in ``n``, and counts that repeat (so ``n`` passes for a discrete column)."""
    import pandas as pd

    return pd.DataFrame({"a": list("xxyyxxyy"), "b": list("uvuvuvuv"), "c": list("ppppqqqq"),
                         "n": [10, 20, 10, 20, 20, 10, 20, 10]})


@pytest.mark.parametrize("call", ["fit", "ci_test"])
def test_count_column_left_in_X_is_warned_naming_it(call):
    """Before, the count column of a frequency table left in X beside sample_weight was
    silently one more variable (HillClimbStructure learned the edge n -> c)."""
    from skbn.checking import ci_test

    table = _counts_table()
    with pytest.warns(UserWarning, match=r"Column 'n' of X holds the sample_weight values.*drop it from X"):
        if call == "fit":
            HillClimbStructure().fit(table, sample_weight=table["n"])
        else:
            ci_test(table, "a", "n", sample_weight=table["n"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HillClimbStructure().fit(table.drop(columns="n"), sample_weight=table["n"])
        HillClimbStructure().fit(table, sample_weight=table["n"] + 1)  # not the weights: no warning
        table = table.assign(n=table["n"].astype(str))  # (text is not a count)
        HillClimbStructure().fit(table, sample_weight=_counts_table()["n"])


def test_series_weights_indexed_like_X_in_another_order_are_refused():
    """Weights are read by position (as scikit-learn reads them); before, a Series holding
    X's row labels in another order (X sorted after the counts were taken out) silently
    gave each row another row's weight."""
    table = _counts_table()
    X = table.drop(columns="n").sort_values("c", ascending=False)
    with pytest.raises(ValueError, match=r"row labels of X in another order.*reindex\(X.index\)"):
        HillClimbStructure().fit(X, sample_weight=table["n"])
    with pytest.raises(ValueError, match="row labels of X in another order"):
        HillClimbStructure().fit(table.drop(columns="n"), sample_weight=table["n"]).score(
            X, sample_weight=table["n"])
    aligned = HillClimbStructure().fit(X, sample_weight=table["n"].reindex(X.index))
    expected = HillClimbStructure().fit(table.drop(columns="n"), sample_weight=table["n"])
    assert aligned.edges_ == expected.edges_ and aligned.score_ == pytest.approx(expected.score_, rel=1e-12)
    # a Series with other labels (here a fresh range) is read by position, as before
    other = table["n"].set_axis(range(100, 108))
    assert HillClimbStructure().fit(table.drop(columns="n"), sample_weight=other).score_ == pytest.approx(
        expected.score_, rel=1e-12)


def test_refused_count_column_suggests_sample_weight():
    import pandas as pd

    rows = pd.DataFrame({"a": list("xy") * 8, "b": list("uuvv") * 4, "Freq": np.arange(16) * 3})
    with pytest.raises(ValueError, match=r"'Freq' is numeric.*pass it as sample_weight"):
        HillClimbStructure().fit(rows)


#: R vcd's ``Saxony`` (``as.data.frame(Saxony)``): the number of boys among the 12 children
#: of 6,115 Saxon families, 0 to 12, one row per value with its count.
SAXONY_COUNTS = [3, 24, 104, 286, 670, 1033, 1343, 1112, 829, 478, 181, 45, 7]


def _saxony_table():
    """Saxony's counts split by a made-up two-state column ``g`` (half of each count in a
    row of its own, except for 0 boys): 25 rows for the 13 values of ``nMales``, fewer
    than two rows per value, while the 6,115 families written out have 470 per value."""
    import pandas as pd

    rows = [(k, "a", c - c // 2 if k > 0 else c) for k, c in enumerate(SAXONY_COUNTS)]
    rows += [(k, "b", c // 2) for k, c in enumerate(SAXONY_COUNTS) if k > 0]
    table = pd.DataFrame(rows, columns=["nMales", "g", "Freq"])
    return table[["g", "nMales"]], table["Freq"].to_numpy()


def test_the_column_type_rule_counts_integer_weights_as_rows():
    # Fewer than two rows per value of a column of more than 10 whole numbers is refused
    # undeclared; a frequency table's rows are its cells, and an integer weight is that many
    # rows (docs/core.md), so the rule counts the weights: fit(table, sample_weight=counts)
    # takes nMales for codes, as the fit on the rows written out does (it refused it before)
    from skbn import ChowLiuTree, PCSelect
    from skbn.checking import ci_test
    from skbn.scores import BIC

    X, counts = _saxony_table()
    expanded = X.loc[X.index.repeat(counts)].reset_index(drop=True)
    for make_learner in (HillClimbStructure, lambda: ChowLiuTree(variant="tan", target="nMales")):
        weighted = make_learner().fit(X, sample_weight=counts)
        written_out = make_learner().fit(expanded)
        assert weighted.column_types_ == written_out.column_types_ == {"g": "discrete", "nMales": "discrete"}
        assert list(weighted.categories_[1]) == list(range(13))
        _assert_same_model(weighted, written_out)
    # the target of fit(X, y), a score, a test and PCSelect read the column the same way
    tan = ChowLiuTree(variant="tan").fit(X[["g"]], X["nMales"], sample_weight=counts)
    assert list(tan.classes_) == list(range(13))
    assert BIC().score(X, [], sample_weight=counts) == pytest.approx(BIC().score(expanded, []), rel=1e-12)
    assert ci_test(X, "g", "nMales", sample_weight=counts).statistic == pytest.approx(
        ci_test(expanded, "g", "nMales").statistic, rel=1e-12)
    selector = PCSelect().fit(X[["g"]], X["nMales"], sample_weight=counts)
    assert selector.n_features_in_ == 1
    # fractional weights say nothing of how many rows were seen: each row counts once
    with pytest.raises(ValueError, match="'nMales' is numeric with 13 distinct values in 25 rows"):
        HillClimbStructure().fit(X, sample_weight=counts / 2.5)
