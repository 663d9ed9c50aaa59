"""GES on a small Gaussian network reads every local score from one table.

The table (``FamilyScoreCache.dense_scores``, from ``ResidualLattice.rss_table``) holds the
score of every family at once; it must equal the family cache's per-family scores bit for
bit (so ``score_`` and the Delete / Turn score changes are unchanged), and GES with it must
learn the class it learns without it (its Insert gains differ from the cache's batched
added-parent scores only in the last bits: s(v, P + x) is read as the sweep of P + x,
where the batch computes R_vv - R_vx^2 / R_xx from the sweep of P).
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from skbn import GESStructure
from skbn._counting import ResidualLattice, _moments, moments
from skbn._data import encode_fit
from skbn._engines import _local_scores
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import make_random_network
from skbn.scores import GaussianAIC, GaussianBIC, GaussianLogLikelihood


def awkward_columns(p, n, seed, case):
    """Correlated Gaussian columns, one of them made awkward by ``case``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p)) @ rng.normal(size=(p, p))
    if case == "collinear":  # exactly a linear function of two others
        x[:, 3] = 2 * x[:, 1] - x[:, 0]
    elif case == "near collinear":  # a linear function up to a relative 1e-9
        x[:, 4] = x[:, 0] + 1e-9 * rng.normal(size=n) * x[:, 0].std()
    elif case == "magnitudes":
        x[:, 0] *= 1e12
        x[:, 1] *= 1e-12
    elif case == "constant":
        x[:, 2] = 5.0
    return x


CASES = ["plain", "collinear", "near collinear", "magnitudes", "constant"]


@pytest.mark.parametrize("p", [5, 7])
@pytest.mark.parametrize("case", CASES)
def test_the_rss_table_equals_the_lattice_set_by_set(p, case):
    # every residual sum of squares of the table equals the lattice's own sweep of that set
    # (ResidualLattice.rss), bit for bit: constant and collinear columns (pivots at or below
    # SINGULAR_RCOND, not swept) included
    stats = moments(awkward_columns(p, 200, p, case))
    d, scaled = stats.unit
    table = ResidualLattice((d[0], scaled[0])).rss_table()
    lattice = ResidualLattice((d[0], scaled[0]))
    assert table.shape == (1 << p, p)
    for mask, child in itertools.product(range(1 << p), range(p)):
        if mask >> child & 1:
            assert np.isnan(table[mask, child])
        else:
            assert table[mask, child] == lattice.rss(child, mask), (mask, child)


@pytest.mark.parametrize("full_round_products", [0, _moments.FULL_ROUND_PRODUCTS, 1 << 30],
                         ids=["no-full-round", "default", "every-round-full"])
@pytest.mark.parametrize("singular", [False, True], ids=["plain", "collinear-and-constant"])
@pytest.mark.parametrize("p", range(1, 11))
def test_the_rss_table_equals_the_lattice_on_1_to_10_columns(p, singular, full_round_products, monkeypatch):
    # both kinds of round of the sweep (whole matrices, then columns above the top bit),
    # switched at any round, give ResidualLattice.rss bit for bit; with a column that is a
    # linear function of two others and a constant one (the rule applied round by round)
    monkeypatch.setattr(_moments, "FULL_ROUND_PRODUCTS", full_round_products)
    rng = np.random.default_rng(100 + p)
    x = rng.normal(size=(60, p)) @ rng.normal(size=(p, p))
    if singular and p >= 2:
        x[:, p - 1] = 3.0  # constant
    if singular and p >= 4:
        x[:, 1] = 2 * x[:, 0] - x[:, 2]  # (collinear with a larger column: its pivot fails later)
    d, scaled = moments(x).unit
    table = ResidualLattice((d[0], scaled[0])).rss_table()
    lattice = ResidualLattice((d[0], scaled[0]))
    assert table.shape == (1 << p, p) and table.T.flags.c_contiguous
    for mask, child in itertools.product(range(1 << p), range(p)):
        if mask >> child & 1:
            assert np.isnan(table[mask, child])
        else:
            assert table[mask, child] == lattice.rss(child, mask), (mask, child)


@pytest.mark.parametrize("scorer", [GaussianBIC(), GaussianAIC(), GaussianLogLikelihood(),
                                    GaussianBIC(variance="mle"), GaussianBIC(edge_penalty=0.5)],
                         ids=["bic", "aic", "loglik", "bic-mle", "bic-edge-penalty"])
@pytest.mark.parametrize("case", [c for c in CASES if c != "constant"])  # (refused by a learner)
@pytest.mark.parametrize("p", [5, 6, 7])
def test_the_score_table_equals_every_family_score(p, case, scorer):
    # brute force over every family: the table's value is the cache's local score, bit for bit
    frame = pd.DataFrame(awkward_columns(p, 150, 10 + p, case), columns=[f"x{i}" for i in range(p)])
    data, _ = encode_fit(frame, allow_continuous=True)
    table = FamilyScoreCache(data, scorer).dense_scores()
    fresh = FamilyScoreCache(data, scorer)
    for mask, child in itertools.product(range(1 << p), range(p)):
        if mask >> child & 1:
            continue
        expected = fresh.local_score(child, [v for v in range(p) if mask >> v & 1])
        assert table[child][mask] == expected or (np.isnan(expected) and np.isnan(table[child][mask]))


def test_weighted_rows_take_the_table_with_their_total_weight():
    frame = make_random_network(6, kind="gaussian", random_state=3).sample(300, random_state=4)
    weights = np.random.default_rng(0).uniform(0.2, 3.0, len(frame))
    data, _ = encode_fit(frame, allow_continuous=True, weights=weights)
    table = FamilyScoreCache(data, GaussianBIC()).dense_scores()
    fresh = FamilyScoreCache(data, GaussianBIC())
    for mask, child in itertools.product(range(1 << 6), range(6)):
        if not mask >> child & 1:
            assert table[child][mask] == fresh.local_score(child, [v for v in range(6) if mask >> v & 1])


def test_no_table_beyond_its_columns_or_for_other_scores(monkeypatch):
    frame = make_random_network(6, kind="gaussian", random_state=0).sample(200, random_state=1)
    data, _ = encode_fit(frame, allow_continuous=True)
    assert FamilyScoreCache(data, GaussianBIC()).dense_scores() is not None
    assert FamilyScoreCache(data, "bge").dense_scores() is None  # (not a score of the residuals)
    monkeypatch.setattr(_local_scores, "DENSE_MAX_COLUMNS", 5)
    assert FamilyScoreCache(data, GaussianBIC()).dense_scores() is None


def _variants(p, rng):
    """Parameter sets of GES on ``p`` columns named ``X0000 ...``: bounds, lists, phases."""
    names = [f"X{i:04d}" for i in range(p)]
    pairs = [(a, b) for a in names for b in names if a != b]
    picks = rng.choice(len(pairs), 4, replace=False)
    return [
        {},
        {"max_indegree": 2},
        {"max_subset_size": 1},
        {"black_list": [pairs[i] for i in picks[:2]]},
        {"white_list": [pairs[picks[2]]]},
        {"black_list": [pairs[picks[0]]], "white_list": [pairs[picks[3]]], "max_indegree": 3},
        {"phases": ("forward", "backward")},
        {"phases": ("forward", "turning", "backward")},
        {"scorer": "aic-g"},
        {"scorer": "loglik-g", "max_indegree": 2},
    ]


@pytest.mark.filterwarnings("ignore::skbn.exceptions.DeterminedColumnsWarning")  # (the collinear ones)
@pytest.mark.parametrize("seed", range(32))
def test_ges_with_and_without_the_table_learns_the_same_class(seed, monkeypatch):
    # 32 random linear-Gaussian networks of 5-10 columns, each under several parameter sets:
    # the same class, steps and score (score_ bit for bit: the same families, the same values)
    p = 5 + seed % 6
    n = [200, 1000, 5000][seed % 3]
    frame = make_random_network(p, kind="gaussian", random_state=seed).sample(n, random_state=seed + 100)
    if seed % 8 == 7:  # an exactly collinear column
        frame.iloc[:, 2] = frame.iloc[:, 0] - 2 * frame.iloc[:, 1]
    for params in _variants(p, np.random.default_rng(seed)):
        params = {"scorer": "bic-g", **params}
        with_table = GESStructure(fit_parameters=False, **params).fit(frame)
        with monkeypatch.context() as m:
            m.setattr(_local_scores, "DENSE_MAX_COLUMNS", 0)
            without = GESStructure(fit_parameters=False, **params).fit(frame)
        assert with_table.cpdag_ == without.cpdag_, params
        assert with_table.score_ == without.score_, params
        assert with_table.n_steps_ == without.n_steps_, params


class _HalfBIC(GaussianBIC):
    """A score of the residuals with its own penalty, written for one family at a time."""

    def _penalty(self, n_params, n_total):
        return 0.25 * float(n_params) * float(np.log(n_total))


def test_a_scorer_with_its_own_penalty_gets_the_table_of_its_scores():
    # the table asks the penalty once per number of parents, as one family's score does
    frame = make_random_network(6, kind="gaussian", random_state=5).sample(400, random_state=6)
    data, _ = encode_fit(frame, allow_continuous=True)
    table = FamilyScoreCache(data, _HalfBIC()).dense_scores()
    fresh = FamilyScoreCache(data, _HalfBIC())
    for mask, child in itertools.product(range(1 << 6), range(6)):
        if not mask >> child & 1:
            assert table[child][mask] == fresh.local_score(child, [v for v in range(6) if mask >> v & 1])
    with_table = GESStructure(scorer=_HalfBIC(), fit_parameters=False).fit(frame)
    assert with_table.score_ == pytest.approx(sum(
        fresh.local_score(data.names.index(v), [data.names.index(u) for u, w in with_table.edges_ if w == v])
        for v in data.names), rel=1e-12)


@pytest.mark.filterwarnings("ignore::UserWarning")  # (so few distinct values per column)
@pytest.mark.parametrize("n", [4, 6, 8])
def test_fewer_rows_than_the_largest_families_coefficients(n):
    # families with too many parents for the rows (variance undefined: -inf) in the table too
    p = 7
    frame = pd.DataFrame(np.random.default_rng(n).normal(size=(n, p)), columns=[f"x{i}" for i in range(p)])
    data, _ = encode_fit(frame, allow_continuous=True)
    for scorer in (GaussianBIC(), GaussianLogLikelihood()):
        table = FamilyScoreCache(data, scorer).dense_scores()
        fresh = FamilyScoreCache(data, scorer)
        for mask, child in itertools.product(range(1 << p), range(p)):
            if not mask >> child & 1:
                assert table[child][mask] == fresh.local_score(child, [v for v in range(p) if mask >> v & 1])
