"""The residual lattice of the moment engine (``skbn._counting.ResidualLattice``) and the
Gaussian family scores a search takes from it (issue 20).

Checked against independent answers: least-squares residuals from ``numpy.linalg.lstsq`` on
the rows themselves for every parent set of a few columns (collinear, constant and rescaled
columns included), the regression path of the engine (``regression_rss``,
``added_parent_rss``), the scorers' own ``local_score_moments`` / ``local_scores_added``,
and GES run with the lattice and with every family regressed on its own block.
"""

import itertools

import numpy as np
import pytest

import skbn._engines._local_scores as local_scores
from skbn import GESStructure, HillClimbStructure
from skbn._counting import ResidualLattice, added_parent_rss, moments
from skbn._counting._moments import _added_rss, regression_rss
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import make_random_network
from skbn.scores import (
    CLGBIC,
    BGe,
    GaussianAIC,
    GaussianBIC,
    GaussianLogLikelihood,
    is_rss_score,
    resolve_scorer,
)


def awkward_values(n=300, seed=0):
    """Six columns: two free, one exactly collinear with them, one constant, one rescaled
    by 1e12 and one by 1e-12 (each depending on the others)."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    collinear = a - 2 * b
    constant = np.full(n, 3.5)
    big = 1e12 * (0.5 * a + rng.normal(size=n))
    small = 1e-12 * (b - 0.3 * big / 1e12 + rng.normal(size=n))
    return np.column_stack([a, b, collinear, constant, big, small])


def lstsq_rss(values, child, parents):
    """Residual sum of squares of ``child`` on ``parents`` and an intercept, from the rows
    (each parent column divided by its spread first: the fit is the same, and lstsq's
    rank cut-off is then not decided by a column of magnitude 1e12; a constant parent is
    the intercept's column)."""
    spread = values.std(axis=0)
    design = np.column_stack([np.ones(len(values))]
                             + [values[:, j] / spread[j] for j in parents if spread[j] > 0])
    coef = np.linalg.lstsq(design, values[:, child], rcond=None)[0]
    residual = values[:, child] - design @ coef
    return float(residual @ residual)


def lattice_of(values):
    stats = moments(values)
    d, scaled = stats.unit
    return stats, ResidualLattice((d[0], scaled[0]))


def test_every_residual_equals_least_squares_on_the_rows():
    values = awkward_values()
    stats, lattice = lattice_of(values)
    k = values.shape[1]
    compared = 0
    for child in range(k):
        variance = float(stats.scatter[0, child, child])
        others = [j for j in range(k) if j != child]
        for size in range(len(others) + 1):
            for parents in itertools.combinations(others, size):
                mask = sum(1 << j for j in parents)
                got = lattice.rss(child, mask)
                want = lstsq_rss(values, child, parents)
                if child == 3 or want <= 1e-12 * variance:  # constant or exactly explained: 0
                    assert got == 0.0
                else:
                    assert got == pytest.approx(want, rel=1e-8)
                    compared += 1
                # the engine's regression path: the same value up to rounding
                assert got == pytest.approx(regression_rss(stats.scatter, child, list(parents))[0],
                                            rel=1e-12, abs=0)
    assert compared > 100
    assert len(lattice) == 2 ** k - 1  # one matrix per parent set (all but the full set)


def test_added_residuals_equal_each_family_and_the_schur_path():
    values = awkward_values(seed=1)
    stats, lattice = lattice_of(values)
    k = values.shape[1]
    for child in range(k):
        others = [j for j in range(k) if j != child]
        for parents in itertools.chain.from_iterable(itertools.combinations(others, s) for s in range(4)):
            mask = sum(1 << j for j in parents)
            added = lattice.added_rss(child, mask)
            assert isinstance(added, list) and len(added) == k
            schur = added_parent_rss(stats.scatter[0], child, list(parents))
            for j in range(k):
                if j == child or j in parents:
                    assert np.isnan(added[j]) and np.isnan(schur[j])
                    continue
                family = lattice.rss(child, mask | 1 << j)
                assert added[j] == pytest.approx(family, rel=1e-10, abs=1e-300)
                assert added[j] == pytest.approx(schur[j], rel=1e-12, abs=1e-300)


def test_the_added_residuals_of_several_children_have_the_bits_of_each_child():
    # ResidualLattice.added_rss_of (the first step of GES: every child of the empty set, in
    # one batch) against added_rss child by child, on collinear, constant and rescaled columns
    for seed in range(3):
        _, lattice = lattice_of(awkward_values(seed=seed))
        for mask in (0, 0b1, 0b100, 0b10010, 0b111000):
            children = [c for c in range(6) if not mask >> c & 1]
            batch = lattice.added_rss_of(children, mask)
            assert batch.shape == (len(children), 6)
            for row, child in zip(batch, children):
                np.testing.assert_array_equal(row, np.array(lattice.added_rss(child, mask)))


def test_added_columns_computed_together_have_the_bits_of_each_column():
    # FamilyScoreCache.added_columns (a batch for BATCHED_CHILDREN or more children of one
    # parent set) leaves the columns added_column computes one at a time, and the family
    # scores of the bases
    data = gaussian_data(7, 300, 5)
    requests = ([(child, ()) for child in range(7)] + [(child, (1, 4)) for child in (0, 2, 3, 5, 6)]
                + [(6, (0,)), (3, (2, 5))])
    for scorer in (GaussianBIC(), GaussianAIC(), GaussianLogLikelihood(variance="mle")):
        together, alone = FamilyScoreCache(data, scorer), FamilyScoreCache(data, scorer)
        together.added_columns(requests)
        assert len(together._added) == 12  # (the two sets of at least BATCHED_CHILDREN children)
        for child, base in requests:
            np.testing.assert_array_equal(together.added_column(child, base), alone.added_column(child, base))
            assert together.local_score(child, base) == alone.local_score(child, base)


def test_the_list_form_of_the_added_residuals_has_the_bits_of_the_array_form():
    # _added_rss on lists (the lattice's few columns) and on arrays (added_parent_rss): one
    # formula, the same IEEE operations; spreads and residuals around the singular threshold
    rng = np.random.default_rng(6)
    for trial in range(200):
        k = int(rng.integers(2, 12))
        column = rng.normal(size=k) * 10.0 ** rng.integers(-8, 2, size=k)
        diagonal = np.abs(rng.normal(size=k)) * 10.0 ** rng.integers(-14, 1, size=k)
        child = int(rng.integers(k))
        column[child] = diagonal[child] = abs(column[child])
        if trial % 3 == 0:
            column[child] = 1e-12 * (1 + rng.random())
        scale = np.float64(10.0 ** rng.uniform(-6, 6))
        as_array = _added_rss(column, diagonal, child, scale)
        as_list = _added_rss(column.tolist(), diagonal.tolist(), child, scale)
        assert isinstance(as_list, list)
        np.testing.assert_array_equal(np.array(as_list), as_array)


def test_a_collinear_or_constant_column_is_not_swept():
    values = awkward_values(seed=2)
    _, lattice = lattice_of(values)
    # column 2 = a - 2b is collinear with columns 0 and 1; column 3 is constant: adding either
    # leaves the residual matrix as it was (the projection on the span)
    assert lattice.residual(0b0111) is lattice.residual(0b0011)
    assert lattice.residual(0b1011) is lattice.residual(0b0011)
    assert lattice.residual(0b1000) is lattice.residual(0)
    # a swept column has no residual left
    assert lattice.residual(0b0001)[0, 0] == 0.0


def test_a_pivot_below_the_singular_threshold_counts_as_collinear():
    # c = a - 2b + 1e-7 e: its residual variance given (a, b) is about 1e-14 of its
    # variance, below SINGULAR_RCOND, so it is collinear by the documented rule (as the
    # pseudo-inverse of the regression path decides), although y depends on e
    rng = np.random.default_rng(5)
    a, b, e = rng.normal(size=(3, 400))
    values = np.column_stack([a, b, a - 2 * b + 1e-7 * e, a + e + 0.1 * rng.normal(size=400)])
    stats, lattice = lattice_of(values)
    assert lattice.residual(0b0111) is lattice.residual(0b0011)
    assert lattice.rss(3, 0b0111) == lattice.rss(3, 0b0011)
    # the regression path's pseudo-inverse drops an eigen-direction instead of the pivot's
    # direction: the same projection up to the size of what is dropped
    assert lattice.rss(3, 0b0111) == pytest.approx(regression_rss(stats.scatter, 3, [0, 1, 2])[0], rel=1e-6)
    assert lattice.added_rss(3, 0b0011)[2] == pytest.approx(lattice.rss(3, 0b0011), rel=1e-12)


@pytest.mark.parametrize("scorer", [GaussianBIC(), GaussianAIC(), GaussianLogLikelihood(),
                                    GaussianLogLikelihood(variance="mle"),
                                    GaussianBIC(edge_penalty=0.7), CLGBIC()],
                         ids=["bic", "aic", "loglik", "loglik-mle", "bic-penalty", "bic-cg"])
def test_scores_from_residuals_equal_the_scorers_own(scorer):
    values = awkward_values(seed=3)
    stats, lattice = lattice_of(values)
    weight = float(stats.weight[0])
    for child, parents in [(4, ()), (4, (0,)), (5, (0, 1, 4)), (2, (0, 1)), (3, (1,))]:
        mask = sum(1 << j for j in parents)
        single = scorer.local_scores_rss(weight, lattice.rss(child, mask), len(parents))
        want = scorer.local_score_moments(stats, child, list(parents))
        assert single == pytest.approx(want, rel=1e-12) or single == want == -np.inf
        batch = scorer.local_scores_rss(weight, lattice.added_rss(child, mask), len(parents) + 1)
        expected = scorer.local_scores_added(stats, child, list(parents))
        assert isinstance(batch, list)
        for j, (got, value) in enumerate(zip(batch, expected)):
            if np.isnan(value):
                assert np.isnan(got)
            elif np.isinf(value):
                assert got == value
            else:
                assert got == pytest.approx(value, rel=1e-12), j


def test_a_zero_residual_scores_minus_infinity_and_nan_stays_nan():
    bic = GaussianBIC()
    got = bic.local_scores_rss(100.0, [np.nan, 0.0, 2.5], 1)
    assert np.isnan(got[0]) and got[1] == -np.inf
    assert got[2] == pytest.approx(bic.local_scores_rss(100.0, 2.5, 1), rel=1e-15)
    assert bic.local_scores_rss(100.0, 0.0, 1) == -np.inf


def test_the_list_form_of_the_gaussian_loglik_has_the_bits_of_the_array_form():
    # _gaussian_loglik on a list (a batch of the lattice) and on an array: one formula
    from skbn.scores import _gaussian_loglik

    rng = np.random.default_rng(7)
    for variance in ("unbiased", "mle"):
        for n_coef in (1, 3, 6):
            rss = (np.abs(rng.normal(size=40)) * 10.0 ** rng.integers(-20, 20, size=40)).tolist()
            as_list = _gaussian_loglik(500.0, rss, n_coef, variance)
            as_array = _gaussian_loglik(500.0, np.array(rss), n_coef, variance)
            np.testing.assert_array_equal(np.array(as_list), as_array)
    got = _gaussian_loglik(500.0, [np.nan, 0.0, 2.0], 2, "unbiased")
    assert np.isnan(got[0]) and got[1] == -np.inf
    np.testing.assert_array_equal(got, _gaussian_loglik(500.0, np.array([np.nan, 0.0, 2.0]), 2, "unbiased"))


def test_only_residual_scores_take_the_lattice():
    class Redefined(GaussianBIC):
        def _data_from_rss(self, weight, rss, n_coef, n_groups):
            return 0.0

    assert all(is_rss_score(s) for s in (GaussianBIC(), GaussianAIC(), GaussianLogLikelihood(), CLGBIC()))
    assert not is_rss_score(BGe()) and not is_rss_score(Redefined())
    assert not is_rss_score(resolve_scorer("bdeu"))


def gaussian_data(p, n, seed):
    frame = make_random_network(p, kind="gaussian", random_state=seed).sample(n, random_state=seed + 1)
    return encode_fit(frame, allow_continuous=True)[0]


@pytest.mark.parametrize("scorer, used", [("bic-g", True), ("aic-g", True), ("bge", False)])
def test_family_cache_uses_the_lattice_for_residual_scores_on_few_columns(scorer, used, monkeypatch):
    data = gaussian_data(6, 200, 4)
    resolved = resolve_scorer(scorer)
    cache = FamilyScoreCache(data, resolved)
    monkeypatch.setattr(local_scores, "LATTICE_MAX_COLUMNS", 0)
    regressed = FamilyScoreCache(data, resolved)  # above the cap: every family on its own block
    monkeypatch.undo()
    for child, parents in [(0, ()), (0, (1, 2)), (5, (0, 3, 4)), (3, (1,))]:
        assert cache.local_score(child, parents) == pytest.approx(regressed.local_score(child, parents),
                                                                  rel=1e-12)
        np.testing.assert_allclose(cache.added_column(child, parents), regressed.added_column(child, parents),
                                   rtol=1e-12)
    assert (cache._lattice is not None) == used
    assert regressed._lattice is None


@pytest.mark.parametrize("seed", range(6))
def test_ges_with_the_lattice_equals_ges_regressing_every_family(seed, monkeypatch):
    frame = make_random_network(8 + seed, kind="gaussian", random_state=seed).sample(
        [60, 400, 3000][seed % 3], random_state=seed + 1)
    if seed % 2:
        frame.iloc[:, 2] = frame.iloc[:, 0] - 2 * frame.iloc[:, 1]  # exactly collinear
        frame.iloc[:, 3] = frame.iloc[:, 3] * 1e12
    scorer = ["bic-g", "aic-g"][seed % 2]
    lattice = GESStructure(scorer=scorer, fit_parameters=False).fit(frame)
    monkeypatch.setattr(local_scores, "LATTICE_MAX_COLUMNS", 0)
    regressed = GESStructure(scorer=scorer, fit_parameters=False).fit(frame)
    assert lattice.cpdag_ == regressed.cpdag_
    assert lattice.n_steps_ == regressed.n_steps_
    assert lattice.score_ == pytest.approx(regressed.score_, rel=1e-12)
    # the class's score, family by family on the regression path
    names, stats = list(frame.columns), moments(frame.to_numpy(dtype=float))
    parents = {v: sorted(names.index(u) for u, w in lattice.edges_ if w == v) for v in names}
    total = sum(resolve_scorer(scorer).local_score_moments(stats, names.index(v), parents[v]) for v in names)
    assert lattice.score_ == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_ges_with_its_first_step_batched_equals_ges_column_by_column(seed, monkeypatch):
    # the first step's columns (every child of the empty set) in one batch, or each alone:
    # the same steps, gains and score, bit for bit (the family cache's path: without the
    # table of every local score, which a Gaussian network of 9 columns would otherwise read)
    monkeypatch.setattr(local_scores, "DENSE_MAX_COLUMNS", 0)
    frame = make_random_network(9, kind="gaussian", random_state=seed).sample(500, random_state=seed)
    if seed == 2:
        frame.iloc[:, 2] = frame.iloc[:, 0] - 2 * frame.iloc[:, 1]  # exactly collinear
    batches = []
    batched_columns = local_scores._MixedFamilyScoreCache.added_columns

    def counted(self, requests):
        batches.append(len(requests))
        return batched_columns(self, requests)

    monkeypatch.setattr(local_scores._MixedFamilyScoreCache, "added_columns", counted)
    batched = GESStructure(scorer="bic-g", fit_parameters=False).fit(frame)
    assert batches[0] == 9
    monkeypatch.setattr(local_scores, "BATCHED_CHILDREN", 10 ** 6)
    alone = GESStructure(scorer="bic-g", fit_parameters=False).fit(frame)
    assert batched.cpdag_ == alone.cpdag_ and batched.n_steps_ == alone.n_steps_
    assert batched.score_ == alone.score_


@pytest.mark.parametrize("search", ["hill_climb", "tabu"])
@pytest.mark.parametrize("seed", range(4))
def test_hill_climbing_toggle_columns_from_the_lattice_equal_the_regressions(seed, search, monkeypatch):
    # the hill climber's toggle columns read the family cache's added-parent batch (the
    # lattice's residuals on a Gaussian network): the same moves as regressing every family
    frame = make_random_network(7 + 2 * seed, kind="gaussian", random_state=seed).sample(
        [40, 300, 2000, 120][seed], random_state=seed + 5)
    if seed % 2:
        frame.iloc[:, 1] = 3 * frame.iloc[:, 0]  # exactly collinear
    calls = []
    added_rss = ResidualLattice.added_rss
    monkeypatch.setattr(ResidualLattice, "added_rss", lambda self, *a: calls.append(a) or added_rss(self, *a))
    lattice = HillClimbStructure(scorer="bic-g", search=search, fit_parameters=False).fit(frame)
    assert calls  # (the toggle columns came from the lattice)
    monkeypatch.setattr(local_scores, "LATTICE_MAX_COLUMNS", 0)
    regressed = HillClimbStructure(scorer="bic-g", search=search, fit_parameters=False).fit(frame)
    assert sorted(lattice.edges_) == sorted(regressed.edges_)
    assert lattice.n_iter_ == regressed.n_iter_
    assert lattice.score_ == pytest.approx(regressed.score_, rel=1e-12)


def test_weighted_rows_take_the_lattice_with_their_total_weight(monkeypatch):
    frame = make_random_network(9, kind="gaussian", random_state=3).sample(400, random_state=4)
    weights = np.random.default_rng(5).integers(0, 4, size=len(frame)).astype(float)
    lattice = GESStructure(scorer="bic-g", fit_parameters=False).fit(frame, sample_weight=weights)
    # integer weights are replicated rows
    replicated = frame.loc[frame.index.repeat(weights.astype(int))]
    copies = GESStructure(scorer="bic-g", fit_parameters=False).fit(replicated)
    assert lattice.cpdag_ == copies.cpdag_
    assert lattice.score_ == pytest.approx(copies.score_, rel=1e-10)
    monkeypatch.setattr(local_scores, "LATTICE_MAX_COLUMNS", 0)
    regressed = GESStructure(scorer="bic-g", fit_parameters=False).fit(frame, sample_weight=weights)
    assert lattice.cpdag_ == regressed.cpdag_
    assert lattice.score_ == pytest.approx(regressed.score_, rel=1e-12)
