"""CPT estimation formulas."""

import numpy as np
import pytest

from skbn.parameters import MAX_CPT_SIZE, estimate_cpt


def test_bayesian_and_maximum_likelihood_cpts_by_hand():
    # parent p (2 states, second never seen), child x (3 states)
    codes = np.array([[0, 0], [0, 0], [0, 1], [0, 2]], dtype=np.uint8)
    cards = np.array([2, 3])
    ml = estimate_cpt(codes, cards, child=1, parents=[0], method="mle")
    np.testing.assert_allclose(ml, [[0.5, 0.25, 0.25], [1 / 3, 1 / 3, 1 / 3]])
    bayes = estimate_cpt(codes, cards, child=1, parents=[0], method="bayes", ess=6.0)
    # pseudo-count ess/(q r) = 1 per cell, ess/q = 3 per row
    np.testing.assert_allclose(bayes, [[3 / 7, 2 / 7, 2 / 7], [1 / 3, 1 / 3, 1 / 3]])
    root = estimate_cpt(codes, cards, child=0, parents=[], method="bayes", ess=2.0)
    np.testing.assert_allclose(root, [5 / 6, 1 / 6])


def test_cpt_axes_follow_the_parent_order():
    rng = np.random.default_rng(0)
    codes = np.column_stack([rng.integers(0, r, 300) for r in (2, 3, 4)]).astype(np.uint8)
    cpt = estimate_cpt(codes, np.array([2, 3, 4]), child=0, parents=[2, 1], method="mle")
    assert cpt.shape == (4, 3, 2)
    rows = codes[(codes[:, 2] == 3) & (codes[:, 1] == 1)]
    np.testing.assert_allclose(cpt[3, 1], np.bincount(rows[:, 0], minlength=2) / len(rows))


def test_huge_cpt_is_refused():
    codes = np.zeros((2, 6), dtype=np.uint8)
    with pytest.raises(ValueError, match="limit the in-degree"):
        estimate_cpt(codes, np.array([50] * 6), child=5, parents=[0, 1, 2, 3, 4])
    assert MAX_CPT_SIZE < 50**6


@pytest.mark.parametrize("method", ["bayes", "mle"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_family_with_more_configurations_than_rows_is_counted_over_the_observed_ones(
        monkeypatch, method, weighted):
    """Above the dense-table rule (``prod r`` cells > max(4 rows, 2**16)), the counts are
    taken over the observed parent configurations only (memory O(rows), not O(prod r): on
    munin1's 10,000 rows hill climbing with BDeu ess 1 learns CPTs of up to 9.3 million
    cells with 1-16 observed parent configurations) and every other row of the CPT is that
    of zero counts. The CPT is the dense computation's, bit for bit."""
    from skbn import _counting, parameters

    rng = np.random.default_rng(0)
    cards = np.array([7, 6, 5, 9, 4, 3])
    codes = np.column_stack([rng.integers(0, r, 60) for r in cards])
    codes[:, 5] = (codes[:, 0] + codes[:, 1]) % 3  # a child the parents nearly determine
    weights = rng.random(60) * 3 if weighted else None
    families = [(5, [0, 1, 2, 3]), (5, [3, 1, 0]), (4, [0, 1, 2, 3, 5]), (2, [])]
    for child, parents in families:
        dense = estimate_cpt(codes, cards, child, parents, method=method, ess=2.5, weights=weights)
        observed = _counting.observed_cpt_counts(codes, cards, child, parents, weights)[0]
        monkeypatch.setattr(parameters, "dense_is_small", lambda n_cells, n_rows: False)
        sparse = estimate_cpt(codes, cards, child, parents, method=method, ess=2.5, weights=weights)
        monkeypatch.undo()
        assert sparse.shape == dense.shape and sparse.flags.owndata
        np.testing.assert_array_equal(sparse, dense)
        unobserved = np.setdiff1d(np.arange(dense.size // cards[child]), observed)
        if parents:  # 60 rows observe at most 60 of the 7 * 6 * 5 * 9 = 1,890 configurations
            assert observed.size <= 60 and unobserved.size
            np.testing.assert_array_equal(dense.reshape(-1, cards[child])[unobserved],
                                          np.broadcast_to(dense.reshape(-1, cards[child])[unobserved[0]],
                                                          (unobserved.size, cards[child])))
