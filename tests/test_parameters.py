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
