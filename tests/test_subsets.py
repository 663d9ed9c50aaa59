"""The subset scorer (skbn/_engines/_subsets.py) against brute force on 4-5 variables:
every parent set's local score from its own family table, the best-parent-set (subset max)
and log-sum (subset logsumexp) tables from their definitions, and the memory refusal."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from skbn._counting import DistinctRows, family_table
from skbn._dag import popcounts
from skbn._data import EncodedData, encode_fit
from skbn._engines import _subsets
from skbn.estimators import ExactStructure
from skbn.posterior import edge_posteriors
from skbn.scores import BIC, BDeu
from skbn.utils._memory import format_bytes, parse_memory


def _data(p, n, seed, weighted=False):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 4, p)
    codes = np.zeros((n, p), dtype=np.int64)
    for v in range(p):  # each variable a noisy copy of the previous one: real dependences
        noise = rng.integers(0, cards[v], n)
        codes[:, v] = noise if v == 0 else np.where(rng.random(n) < 0.6, codes[:, v - 1] % cards[v], noise)
    weights = rng.random(n) * 2 if weighted else None
    return EncodedData(np.asfortranarray(codes.astype(np.uint8)), cards.astype(np.int64),
                       tuple(f"x{v}" for v in range(p)), weights)


def _direct(data, scorer, v, parents):
    """The definition: the scorer on the family's own count table."""
    counts = family_table(data.codes, data.cardinalities, v, list(parents), weights=data.weights)
    q = int(np.prod([data.cardinalities[u] for u in parents])) if parents else 1
    return scorer.local_score(counts, q, len(parents))


def _brute_tables(data, scorer, max_indegree, allowed=None):
    """Dense tables by brute force: every subset of the other variables, its bitmask with
    bit ``v`` squeezed out written by hand."""
    p = data.n_variables
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    for v in range(p):
        others = [u for u in range(p) if u != v]
        for index in range(1 << (p - 1)):
            parents = [others[b] for b in range(p - 1) if (index >> b) & 1]
            if len(parents) <= max_indegree and (allowed is None or all(allowed[v, u] for u in parents)):
                tables[v, index] = _direct(data, scorer, v, parents)
    return tables


@pytest.mark.parametrize("p, max_indegree, weighted", [(4, 3, False), (5, 4, True), (5, 2, False)])
def test_every_parent_set_score_equals_the_family_table_score(p, max_indegree, weighted):
    data = _data(p, 300, seed=p + max_indegree, weighted=weighted)
    scorer = BDeu(ess=2.0)
    expected = _brute_tables(data, scorer, max_indegree)
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    distinct = DistinctRows(data.codes, data.cardinalities, data.weights)
    n = _subsets.local_scores(distinct, scorer, range(p), p, max_indegree, tables, prune=False)
    assert n == p * sum(math.comb(p - 1, j) for j in range(max_indegree + 1))
    assert np.array_equal(np.isfinite(tables), np.isfinite(expected))
    np.testing.assert_allclose(tables, expected, rtol=1e-12, atol=1e-9)
    # the sparse layout holds the same values, its dense form equal to the bit
    families = _subsets.parent_set_scores(data, scorer, max_indegree)
    assert families.n_families == n == _subsets.count_parent_sets(p, max_indegree)
    np.testing.assert_array_equal(_subsets.local_score_table(families), tables)


def test_allowed_parents_restrict_every_child():
    p = 5
    data = _data(p, 200, seed=3)
    candidates = [[u for u in range(p) if u != v and (u + 2 * v) % 3] for v in range(p)]
    allowed = np.zeros((p, p), dtype=bool)
    for v, c in enumerate(candidates):
        allowed[v, c] = True
    scorer = BDeu()
    families = _subsets.parent_set_scores(data, scorer, 3, candidate_parents=candidates)
    expected = _brute_tables(data, scorer, 3, allowed)
    np.testing.assert_allclose(_subsets.local_score_table(families), expected, rtol=1e-12, atol=1e-9)
    assert families.n_families == _subsets.count_parent_sets(p, 3, candidates) == np.isfinite(expected).sum()
    for v in range(p):  # each set once, members increasing, padded with -1
        rows = [tuple(int(u) for u in row if u >= 0) for row in families.parents[v]]
        assert len(set(rows)) == len(rows) and all(list(r) == sorted(r) for r in rows)


def test_visitor_reports_each_set_once_with_its_takers():
    p = 5
    data = _data(p, 150, seed=1)
    distinct = DistinctRows(data.codes, data.cardinalities)
    allowed = ~np.eye(p, dtype=bool)
    allowed[2, 0] = allowed[4, 1] = False
    seen = []

    def record(mask, members, live, scored, values):
        assert mask == sum(1 << u for u in members)
        children = np.arange(p)[live]
        assert np.array_equal(children, scored) and len(values) == len(scored)
        assert all(allowed[v, list(members)].all() and v not in members for v in children)
        seen.append((mask, tuple(children)))

    _subsets.visit_parent_sets(distinct, BDeu(), range(p), 2, record, allowed=allowed)
    masks = [m for m, _ in seen]
    assert len(set(masks)) == len(masks)
    for mask, children in seen:  # every child allowed the set is scored
        members = [u for u in range(p) if (mask >> u) & 1]
        assert children == tuple(v for v in range(p) if v not in members and allowed[v, members].all())
    for mask in masks:  # depth first: every subset of a set comes before it
        for sub in masks:
            if sub != mask and sub & mask == sub:
                assert masks.index(sub) < masks.index(mask)


@pytest.mark.parametrize("scorer", [BDeu(), BIC()])
def test_best_parent_tables_equal_brute_force_max(scorer):
    p = 5
    data = _data(p, 60, seed=4)
    local = _brute_tables(data, scorer, 3)
    distinct = DistinctRows(data.codes, data.cardinalities)
    pruned = np.full_like(local, -np.inf)
    _subsets.local_scores(distinct, scorer, range(p), p, 3, pruned)  # with pruning
    for table in pruned:
        _subsets.subset_max(table)
    for v in range(p):
        for c in range(1 << (p - 1)):
            best = max(local[v, s] for s in range(1 << (p - 1)) if s & c == s)
            assert pruned[v, c] == pytest.approx(best, rel=1e-12)
            # best_parent_set recovers a set reaching it, minimal: no member can go
            full_mask = _subsets.insert_bit(c, v)
            chosen = _subsets.best_parent_set(pruned[v], full_mask, v)
            index = _subsets.drop_bit(sum(1 << u for u in chosen), v)
            assert set(chosen) <= {u for u in range(p) if (full_mask >> u) & 1}
            assert local[v, index] == pytest.approx(best, rel=1e-12)
            for u in chosen:
                assert local[v, _subsets.drop_bit(sum(1 << w for w in chosen if w != u), v)] < best - 1e-9


def test_log_sum_tables_equal_brute_force_logsumexp():
    p = 5
    data = _data(p, 100, seed=6, weighted=True)
    local = _brute_tables(data, BDeu(), 2)
    alpha = _subsets.log_subset_sums(local)
    assert not np.shares_memory(alpha, local)
    upper = local.copy()
    for table in upper:
        _subsets.superset_logsumexp(table)
    n = 1 << (p - 1)
    for v in range(p):
        for c in range(n):
            below = [local[v, s] for s in range(n) if s & c == s]
            above = [local[v, s] for s in range(n) if s & c == c]
            assert alpha[v, c] == pytest.approx(logsumexp(below), rel=1e-12)
            assert upper[v, c] == pytest.approx(logsumexp(above), rel=1e-12)


def test_bits_and_popcounts():
    masks = np.arange(1 << 6, dtype=np.int64)
    for v in range(6):
        without_v = masks[(masks >> v) & 1 == 0]
        np.testing.assert_array_equal(_subsets.drop_bit(without_v, v), np.arange(1 << 5))
        np.testing.assert_array_equal(_subsets.insert_bit(np.arange(1 << 5), v), without_v)
    for n in (0, 6, 10, 12):  # (the shared table up to 10 variables, a new array beyond)
        np.testing.assert_array_equal(popcounts(n), [bin(m).count("1") for m in range(1 << n)])
    assert not popcounts(6).flags.writeable
    assert _subsets.drop_bit(0b10110, 2) == 0b1010 and _subsets.insert_bit(0b1010, 2) == 0b10010


def test_memory_sizes_parse_and_print():
    assert parse_memory(1000) == 1000
    assert parse_memory("4GB") == 4 * 2**30 == parse_memory(" 4 gb ") == parse_memory("4G")
    assert parse_memory("1.5KB") == 1536 and parse_memory("512") == 512
    for bad in (0, -1, True, "0GB", "lots", "4 PB", 2.5):
        with pytest.raises(ValueError, match="max_memory"):
            parse_memory(bad)
    assert format_bytes(512) == "512 B" and format_bytes(1536) == "1.5 KB"
    assert format_bytes(3 * 2**30) == "3.0 GB"


def test_memory_refusal_is_the_same_value_error_for_exact_search_and_posteriors():
    X = pd.DataFrame({f"c{i}": [0, 1, 1, 0] * 5 for i in range(6)})
    for run in (lambda m: ExactStructure(max_memory=m).fit(X), lambda m: edge_posteriors(X, max_memory=m)):
        with pytest.raises(ValueError, match=r"max_memory=1000"):
            run(1000)
        with pytest.raises(ValueError, match="max_memory must be"):
            run("plenty")
        run("1MB")  # enough: no refusal


def test_posterior_scores_equal_parent_set_scores_bitwise():
    """edge_posteriors' dense tables and the sparse layout come from one scorer."""
    data, _ = encode_fit(pd.DataFrame(_data(5, 200, seed=9).codes, columns=list("abcde")))
    families = _subsets.parent_set_scores(data, BDeu(), 3)
    dense = np.full((5, 16), -np.inf)
    _subsets.local_scores(DistinctRows(data.codes, data.cardinalities), BDeu(), range(5), 5, 3, dense,
                          prune=False)
    np.testing.assert_array_equal(_subsets.local_score_table(families), dense)
    assert set(itertools.chain.from_iterable(map(tuple, families.parents[0]))) <= {-1, 1, 2, 3, 4}
