"""pcalg 2.7-12's IDA tests (test_ida.R, test_idaFast.R, test_jointIda.R, test_causalEffect.R,
test_pcorOrder.R) replayed on skbn.causal.ida / joint_ida and skbn.citests.

pcalg's tests pass the true covariance ``trueCov(myDAG)`` to ``ida``; skbn's ``ida`` reads
rows, so the tests here build rows whose sample covariance is exactly that matrix
(``rows_with_covariance``): every regression is then the population one, and the true total
effect (pcalg ``causalEffect``: the sum over directed paths of the products of the weights)
must be in the multiset to rounding.
"""

import numpy as np
import pytest
from _pcalg_suite import (
    edges_of,
    random_weighted_dag,
    rows_with_covariance,
    sample_linear_gaussian,
    total_effects,
    true_cov,
)

from skbn.causal import ida, joint_ida
from skbn.citests import FisherZ
from skbn.graph import PDAG, dag_to_cpdag


def _population_rows(weights, seed):
    p = len(weights)
    return rows_with_covariance(true_cov(weights), max(50, 3 * p), seed)


def _effects(table, method="local"):
    effects = table["effect"].to_numpy()
    return np.repeat(effects, table["n_dags"].to_numpy()) if method == "global" else effects


def test_ida_true_effect_in_the_local_multiset():
    """test_ida.R: on 100 random DAGs (p = 2 + Poisson(8) nodes, edge probability 0.2) with
    the true covariance, the true effect of a random x on a random y is in the multiset of
    local IDA on the true CPDAG (pcalg rounds both to 14 digits); and local and global give
    the same distinct effects (pcalg checks one case)."""
    rng = np.random.default_rng(123)
    for rep in range(100):
        p = 2 + rng.poisson(8)
        weights = random_weighted_dag(p, 0.2, 1000 + rep)
        cpdag = dag_to_cpdag(range(p), edges_of(weights))
        x, y = (int(v) for v in rng.choice(p, 2, replace=False))
        rows = _population_rows(weights, rep)
        truth = total_effects(weights)[x, y]
        local = _effects(ida(rows, cpdag, x, y))
        assert np.min(np.abs(local - truth)) < 1e-10, (rep, x, y)
        if rep % 10 == 0:
            global_ = _effects(ida(rows, cpdag, x, y, method="global"), "global")
            np.testing.assert_allclose(np.unique(global_.round(10)), np.unique(local.round(10)))


def test_idafast_several_outcomes():
    """test_idaFast.R: 50 random 10-node DAGs (edge probability 0.4): for a random x and three
    outcomes, the true effect is in each local multiset to 1e-13 relative (pcalg's tolerance;
    here 1e-10 since the covariance is rebuilt from rows), and the per-outcome results are
    pcalg's ``idaFast`` rows (one ``ida`` call per outcome in skbn)."""
    for seed in range(1, 51):
        weights = random_weighted_dag(10, 0.4, seed)
        cpdag = dag_to_cpdag(range(10), edges_of(weights))
        rng = np.random.default_rng(seed)
        x, *ys = (int(v) for v in rng.choice(10, 4, replace=False))
        rows = _population_rows(weights, seed)
        for y in ys:
            truth = total_effects(weights)[x, y]
            local = _effects(ida(rows, cpdag, x, y))
            assert np.min(np.abs(local - truth)) <= 1e-10 * max(abs(truth), 1.0), (seed, x, y)


def test_ida_example_with_data_and_pc():
    """test_ida.R (examples block): 10,000 rows of a random 10-node DAG, the CPDAG estimated
    by PC (Fisher's z, alpha = 0.01): local and global IDA give the same distinct effects, and
    the true effect is within 0.04 relative of one of them (pcalg: of the smallest);
    with background knowledge (an edge of the class directed, the maximally oriented PDAG)
    global IDA still contains the truth."""
    from skbn import PCStructure
    from skbn.graph import meek_orient

    # pcalg's pair (3, 10) is x = 2, y = 9; seed 134: x causes y (0.111) and has two
    # undirected edges in the true CPDAG
    weights = random_weighted_dag(10, 0.2, 134)
    x, y = 2, 9
    truth = total_effects(weights)[x, y]
    rows = sample_linear_gaussian(weights, 10_000, 0)
    learner = PCStructure(ci_test=FisherZ(alpha=0.01)).fit(rows)
    local = _effects(ida(rows, learner.cpdag_, x, y))
    global_ = _effects(ida(rows, learner.cpdag_, x, y, method="global"), "global")
    np.testing.assert_allclose(np.unique(local.round(7)), np.unique(global_.round(7)))
    assert np.min(np.abs(local - truth)) <= 0.04 * abs(truth) + 1e-3
    # background knowledge: the true orientation of one undirected edge of the estimate
    true_edges = set(edges_of(weights))
    known = [e for e in learner.cpdag_.undirected if e in true_edges][:1]
    pdag = meek_orient(learner.cpdag_, required=known)
    with_knowledge = _effects(ida(rows, pdag, x, y, method="global"), "global")
    assert set(np.unique(with_knowledge.round(7))) <= set(np.unique(global_.round(7)))
    assert np.min(np.abs(with_knowledge - truth)) <= 0.04 * abs(truth) + 1e-3


def test_causal_effect_hand_computed():
    """test_causalEffect.R: on pcalg's 5-node DAG with weights 1->5: 0.305, 1->4: 0.863,
    1->2: 0.354, 2->4: 0.392, 2->5: 0.495, 3->4: 0.278, the effect of 1 on 5 is
    0.305 + 0.354 * 0.495 (IDA on the true DAG with the true covariance)."""
    weights = np.zeros((5, 5))
    for (u, v), w in {(1, 5): 0.305, (1, 4): 0.863, (1, 2): 0.354, (2, 4): 0.392,
                      (2, 5): 0.495, (3, 4): 0.278}.items():
        weights[u - 1, v - 1] = w
    rows = _population_rows(weights, 34)
    table = ida(rows, PDAG(range(5), directed=edges_of(weights)), 0, 4)
    assert table["effect"].tolist() == pytest.approx([0.305 + 0.354 * 0.495], abs=1e-12)


# test_jointIda.R's DAG: 1 -> 3 (1.1), 1 -> 4 (0.3), 2 -> 6 (0.4), 3 -> 2 (0.6), 3 -> 4 (0.8),
# 3 -> 6 (0.9), 4 -> 2 (0.5), 5 -> 1 (0.2), 5 -> 4 (0.7) (nodes 1..6 here 0..5)
JOINT_DAG = {(1, 3): 1.1, (1, 4): 0.3, (2, 6): 0.4, (3, 2): 0.6, (3, 4): 0.8, (3, 6): 0.9,
             (4, 2): 0.5, (5, 1): 0.2, (5, 4): 0.7}


def _joint_weights():
    weights = np.zeros((6, 6))
    for (u, v), w in JOINT_DAG.items():
        weights[u - 1, v - 1] = w
    return weights


@pytest.mark.parametrize("technique", ["RRC", "MCD"])
def test_joint_ida_true_effects(technique):
    """test_jointIda.R: the joint effect of (1, 2) on 6 with the true covariance, on the true
    CPDAG: three combinations of parent sets, with effects (0, 0.4), (0.99, 0.4) and
    (0.99, 0.4) (pcalg's ``mTrue`` to 7 digits; 0.99 = 1.1 * 0.9, the path 1 -> 3 -> 6
    avoiding 2), equal for RRC and MCD; the same on the true DAG (one combination,
    (0.99, 0.4)); and jointIda of x = 1 alone equals global IDA's distinct effects."""
    weights = _joint_weights()
    rows = rows_with_covariance(true_cov(weights), 60, 123)
    nodes = list(range(6))
    dag = edges_of(weights)
    cpdag = dag_to_cpdag(nodes, dag)
    table = joint_ida(rows, cpdag, [0, 1], 5, technique=technique)
    got = sorted(zip(table["effect_0"].round(7), table["effect_1"].round(7)))
    assert got == [(0.0, 0.4), (0.99, 0.4), (0.99, 0.4)]
    on_dag = joint_ida(rows, PDAG(nodes, directed=dag), [0, 1], 5, technique=technique)
    assert list(zip(on_dag["effect_0"].round(7), on_dag["effect_1"].round(7))) == [(0.99, 0.4)]
    single = joint_ida(rows, cpdag, [0], 5, technique=technique)["effect_0"].round(7)
    global_ = ida(rows, cpdag, 0, 5, method="global")["effect"].round(7)
    assert sorted(set(single)) == sorted(set(global_))


# test_pcorOrder.R on rows regenerated here: sample_linear_gaussian(random_weighted_dag(4, 0.6,
# 123), 1000, 1) written to CSV as d, then in R (1-based)
#   C <- cor(d); c(pcorOrder(3, 4, c(2, 1), C), pcorOrder(3, 4, 2, C), pcorOrder(2, 3, c(1, 4), C),
#                 pcorOrder(1, 4, 2:3, C), pcorOrder(2, 3, integer(0), C))
PCOR_PCALG = {(2, 3, (1, 0)): 0.56105352828626831, (2, 3, (1,)): 0.73842620818025317,
              (1, 2, (0, 3)): -0.30655355914866256, (0, 3, (1, 2)): 0.41348957973090211,
              (1, 2, ()): 0.18120839449552592}


def test_pcor_order_equals_pcalg():
    """test_pcorOrder.R: partial correlations of order 0, 1 and 2 (recovered from Fisher's z
    statistic, z = sqrt(n - |S| - 3) atanh(r)) equal pcalg's ``pcorOrder``."""
    rows = sample_linear_gaussian(random_weighted_dag(4, 0.6, 123), 1000, 1)
    test = FisherZ()
    stats = test.moments_of(rows)
    for (x, y, s), expected in PCOR_PCALG.items():
        result = test.test_moments(stats, x, y, s)
        r = np.tanh(result.statistic / np.sqrt(result.dof))
        assert r == pytest.approx(expected, rel=1e-12, abs=1e-14)


def _knowledge_pdags(n_graphs):
    """Random CPDAGs with the true orientation of one or two undirected edges added as
    background knowledge (the maximally oriented PDAG, pcalg's ``addBgKnowledge``)."""
    from skbn.graph import meek_orient

    rng = np.random.default_rng(7)
    found = 0
    for seed in range(10_000):
        weights = random_weighted_dag(8, 0.4, 2000 + seed)
        dag = edges_of(weights)
        cpdag = dag_to_cpdag(range(8), dag)
        if len(cpdag.undirected) < 3:
            continue
        candidates = [e for e in cpdag.undirected if e in set(dag)] + [
            e[::-1] for e in cpdag.undirected if e[::-1] in set(dag)]
        picks = rng.choice(len(candidates), min(len(candidates), 1 + seed % 2), replace=False)
        pdag = meek_orient(cpdag, required=[candidates[i] for i in picks])
        if pdag == cpdag or not pdag.undirected:
            continue
        yield weights, pdag
        found += 1
        if found == n_graphs:
            return


def test_local_ida_on_a_pdag_with_background_knowledge():
    """test_ida.R (examples): local IDA on a PDAG with background knowledge
    (``addBgKnowledge``; pcalg ``type = "pdag"``) gives the same distinct effects as global
    IDA. Checked here on every node pair of 15 random maximally oriented PDAGs: local gives
    exactly the distinct parent sets of the DAGs the PDAG represents (global's list), and the
    true effect is among them; when ``y`` is a definite parent of ``x`` (``y -> x``) every
    set gives 0, and local gives one row, the definite parents (pcalg's single 0)."""
    n_definite = 0
    for weights, pdag in _knowledge_pdags(15):
        rows = _population_rows(weights, 0)
        for x in range(8):
            y = (x + 3) % 8
            local = ida(rows, pdag, x, y)
            global_ = ida(rows, pdag, x, y, method="global")
            if (y, x) in pdag.directed:
                n_definite += 1
                assert local["parents"].tolist() == [tuple(sorted(u for u, v in pdag.directed if v == x))]
                assert local["effect"].tolist() == [0.0] and set(global_["effect"]) == {0.0}
            else:
                assert sorted(local["parents"]) == sorted(global_["parents"]), (pdag, x)
            truth = total_effects(weights)[x, y]
            assert np.min(np.abs(local["effect"].to_numpy() - truth)) < 1e-10
    assert n_definite  # (the case occurs among these PDAGs)


# pcalg on the fourth PDAG of _knowledge_pdags (directed 0->2, 0->6, 1->5, 1->6, 3->5, 3->6,
# 4->5, 4->6, 5->6; undirected 0-1, 0-3, 1-2, 1-3, 2-3, 4-7) with its DAG's true covariance S,
# the PDAG written as a 0/1 matrix M (M[i, j] = 1: i -> j, both ways: undirected), then
#   sort(ida(x, y, S, as(M, "graphNEL"), method = "local", type = "pdag"))   # 1-based x, y
PDAG_LOCAL_IDA_PCALG = {
    (0, 3): [0.0, 0.0, 1.35773153331055, 1.65785917261143],
    (1, 4): [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    (2, 5): [6.25994454467596e-16, 0.137878213527796, 0.655429962901879, 1.05515887422803],
    (3, 6): [0.835457235105796, 0.835457235105796, 0.946469901842998, 1.07908853067638,
             1.13238687326006, 1.23624672517447],
    (4, 7): [0.0, 0.861723274777388],
    (5, 0): [4.12314282470604e-17],
    (6, 1): [0.0],
    (7, 2): [0.0, 0.0],
}


def test_local_ida_on_a_pdag_equals_pcalg():
    """test_ida.R (examples): ``ida(method = "local", type = "pdag")`` on a PDAG with
    background knowledge: skbn's local multiset (one effect per valid parent set of x) equals
    pcalg's, including the two sets of x = 1 and x = 3 that the no-new-collider rule alone
    would accept but no DAG of the PDAG has."""
    weights, pdag = list(_knowledge_pdags(4))[3]
    assert pdag == PDAG(range(8), [(0, 2), (0, 6), (1, 5), (1, 6), (3, 5), (3, 6), (4, 5), (4, 6),
                                   (5, 6)], [(0, 1), (0, 3), (1, 2), (1, 3), (2, 3), (4, 7)])
    rows = _population_rows(weights, 0)
    for (x, y), expected in PDAG_LOCAL_IDA_PCALG.items():
        got = np.sort(ida(rows, pdag, x, y)["effect"].to_numpy())
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
