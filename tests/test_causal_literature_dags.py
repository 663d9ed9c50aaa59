"""skbn.causal on causal DAGs of the literature, written in dagitty's syntax.

The graphs are dagitty models shipped as example models in the pgmpy 1.1.2 wheel
(``Schipf_2010.txt``, ``Thoemmes_2013.txt``, ``Shrier_2008.txt``, ``Sebastiani_2005.txt``,
``confounding.txt``, ``mediator.txt``), reduced here to their edges and exposure/outcome marks.
Node names keep their dots (Sebastiani's ``EDN1.3``); Thoemmes et al.'s ``e0, e1, e3, e4``
are marked ``latent`` there. The expected values are pcalg 2.7-12's, from its adjacency
matrices over the nodes in sorted name order (amat[i, j] = 1: i -> j, as in
``as(amat, "graphNEL")``), with the calls in the comments; the class sizes by brute force
over every orientation of the CPDAG's undirected edges (kept when acyclic with the DAG's
v-structures); the effects by the sums over directed paths of edge-weight products.
"""

from itertools import chain, combinations

import numpy as np
import pandas as pd
import pytest
from _pcalg_suite import rows_with_covariance

from skbn.causal import (
    backdoor_adjustment_set,
    equivalent_dags,
    ida,
    is_adjustment_set,
    joint_ida,
    optimal_adjustment_set,
)
from skbn.graph import dag_to_cpdag

DAGITTY = {
    "Schipf_2010": """A -> PA  A -> S  A -> TT  A -> U  A -> WC  PA -> T2DM  PA -> WC  S -> T2DM
        S -> TT  U -> T2DM  U -> TT  WC -> T2DM  WC -> TT  WC -> U""",
    "Thoemmes_2013": """e0 -> x  e1 -> s1  e2 -> s2  e2 -> y  e3 -> s3  e4 -> y  s1 -> s2  s1 -> z
        s2 -> s3  s2 -> z2  s3 -> y  x -> s1  x -> y  y -> z3""",
    "confounding": "A -> E  A -> Z  B -> D  B -> Z  E -> D  Z -> D  Z -> E",
    "mediator": "I -> Y  X -> I  X -> Y  Z -> I  Z -> X",
    "Shrier_2008": """Coach -> FitnessLevel  Coach -> TeamMotivation
        ConnectiveTissueDisorder -> NeuromuscularFatigue  ConnectiveTissueDisorder -> TissueWeakness
        ContactSport -> IntraGameProprioception  ContactSport -> PreviousInjury
        FitnessLevel -> NeuromuscularFatigue  FitnessLevel -> PreGameProprioception
        Genetics -> ConnectiveTissueDisorder  Genetics -> FitnessLevel
        Genetics -> NeuromuscularFatigue  IntraGameProprioception -> Injury
        NeuromuscularFatigue -> Injury  NeuromuscularFatigue -> IntraGameProprioception
        PreGameProprioception -> WarmUpExercises  TeamMotivation -> PreviousInjury
        TeamMotivation -> WarmUpExercises  TissueWeakness -> Injury
        WarmUpExercises -> IntraGameProprioception""",
    "Sebastiani_2005": """ANXA2.12 -> ANXA2.11  ANXA2.12 -> ANXA2.13  ANXA2.12 -> ANXA2.5
        ANXA2.12 -> ANXA2.7  ANXA2.13 -> ANXA2.11  ANXA2.7 -> ANXA2.11  ANXA2.7 -> ANXA2.5
        ANXA2.8 -> ADCY9.8  ANXA2.8 -> ANXA2.13  ANXA2.8 -> BMP6  ANXA2.8 -> CAT
        ANXA2.8 -> ECE1.12  ANXA2.8 -> EDN1.3  ANXA2.8 -> EDNI1.6  BMP6 -> BMP6.10
        BMP6.10 -> BMP6.11  BMP6.10 -> BMP6.13  BMP6.11 -> BMP6.9  BMP6.13 -> BMP6.12
        BMP6.13 -> BMP6.9  BMP6.14 -> BMP6.12  CAT -> MET.5  CSF2.3 -> CSF2.4
        ECE1.12 -> ECE1.13  ECE1.13 -> SELP.17  EDN1.10 -> EDNI1.7  EDN1.3 -> ANXA2.12
        EDN1.3 -> EDNI1.7  EDN1.9 -> BMP6.14  EDN1.9 -> EDN1.10  EDN1.9 -> EDN1.3
        EDNI1.6 -> EDN1.10  EDNI1.6 -> EDNI1.7  MET.5 -> MET.6  MET.5 -> SELP.14
        MET.5 -> TGFBR3.7  MET.6 -> SELP.12  SELP.17 -> SELP.22  Stroke -> ADCY9.8
        Stroke -> BMP6.10  Stroke -> BMP6.11  Stroke -> BMP6.12  Stroke -> BMP6.13
        Stroke -> CSF2.4  Stroke -> ECE1.12  Stroke -> ECE1.13  Stroke -> MET.5
        Stroke -> MET.6  Stroke -> SELP.12  Stroke -> SELP.14  Stroke -> SELP.22
        Stroke -> TGFBR3.10  Stroke -> TGFBR3.8  TGFBR3.10 -> TGFBR3.2  TGFBR3.10 -> TGFBR3.9
        TGFBR3.2 -> TGFBR3.9  TGFBR3.7 -> CSF2.3  TGFBR3.7 -> TGFBR3.10
        TGFBR3.8 -> TGFBR3.2  TGFBR3.8 -> TGFBR3.9""",
}
EXPOSURE_OUTCOME = {"Schipf_2010": ("TT", "T2DM"), "Thoemmes_2013": ("x", "y"),
                    "confounding": ("E", "D"), "mediator": ("X", "Y"),
                    "Shrier_2008": ("WarmUpExercises", "Injury"),
                    "Sebastiani_2005": ("EDN1.3", "EDNI1.7")}


def dagitty_edges(name):
    """``(nodes sorted by name, edges)`` of the dagitty edge statements ``a -> b``."""
    tokens = DAGITTY[name].split()
    edges = [(tokens[k], tokens[k + 2]) for k in range(0, len(tokens), 3)]
    assert all(tokens[k + 1] == "->" for k in range(0, len(tokens), 3))
    return sorted(set(chain.from_iterable(edges))), edges


# pcalg: for every subset z of the other nodes,
#   gac(t(amat), x, y, z, type = "dag")$gac and gac(t(cpdag), x, y, z, type = "cpdag")$gac
# with cpdag <- as(dag2cpdag(as(amat, "graphNEL")), "matrix"); the sets it finds valid:
GAC_VALID = {
    # Schipf et al.: TT (testosterone) has no directed path to T2DM, yet only 3 of the 32 sets
    # adjust (the effect, 0, is identified only when the four confounding paths are blocked)
    "Schipf_2010": ({"A", "S", "U", "WC"}, {"PA", "S", "U", "WC"}, {"A", "PA", "S", "U", "WC"}),
    # Thoemmes et al.: every subset of e0..e4 and nothing else (s2, marked "adjusted" in the
    # dagitty file, is a mediator)
    "Thoemmes_2013": tuple(set(c) for k in range(6)
                           for c in combinations(["e0", "e1", "e2", "e3", "e4"], k)),
    "confounding": ({"A", "Z"}, {"B", "Z"}, {"A", "B", "Z"}),
    "mediator": ({"Z"},),
}
GAC_VALID_CPDAG = {**GAC_VALID, "mediator": ()}  # mediator's CPDAG is not amenable


@pytest.mark.parametrize("name", sorted(GAC_VALID))
def test_every_adjustment_set_equals_pcalg_gac(name):
    nodes, edges = dagitty_edges(name)
    x, y = EXPOSURE_OUTCOME[name]
    rest = [v for v in nodes if v not in (x, y)]
    subsets = [set(c) for k in range(len(rest) + 1) for c in combinations(rest, k)]
    cpdag = dag_to_cpdag(nodes, edges)
    for graph, expected in ((edges, GAC_VALID[name]), (cpdag, GAC_VALID_CPDAG[name])):
        found = [z for z in subsets if is_adjustment_set(graph, x, y, sorted(z), nodes=nodes)]
        assert sorted(map(sorted, found)) == sorted(map(sorted, expected))


# pcalg: n[optAdjSet(as(amat, "graphNEL"), x, y)] and n[backdoor(amat, x, y, type = "dag")]
# (and the same on the CPDAG matrix with type = "cpdag"); n = the sorted node names
OPTIMAL_BACKDOOR = {
    "Shrier_2008": (["ContactSport", "NeuromuscularFatigue", "TissueWeakness"],
                    ["PreGameProprioception", "TeamMotivation"]),
    "Sebastiani_2005": (["EDN1.10", "EDNI1.6"], ["ANXA2.8", "EDN1.9"]),
    "confounding": (["B", "Z"], ["A", "Z"]),
    # the O-set holds the latent e1, e3, e4 (every node is observed without latent=; see
    # test_thoemmes_latent_error_terms); Pearl's set {e0} on the DAG, {} on the CPDAG, where
    # e0 - x is undirected
    "Thoemmes_2013": (["e1", "e2", "e3", "e4"], ["e0"]),
}


@pytest.mark.parametrize("name", sorted(OPTIMAL_BACKDOOR))
def test_optimal_and_backdoor_sets_equal_pcalg(name):
    nodes, edges = dagitty_edges(name)
    x, y = EXPOSURE_OUTCOME[name]
    optimal, backdoor = OPTIMAL_BACKDOOR[name]
    cpdag = dag_to_cpdag(nodes, edges)
    assert sorted(optimal_adjustment_set(edges, x, y)) == optimal
    assert sorted(optimal_adjustment_set(cpdag, x, y)) == optimal
    assert sorted(backdoor_adjustment_set(edges, x, y)) == backdoor
    assert sorted(backdoor_adjustment_set(cpdag, x, y)) == (
        [] if name == "Thoemmes_2013" else backdoor)


def test_no_causal_path_and_no_amenable_class():
    """Schipf et al.'s exposure does not cause the outcome: pcalg's optAdjSet refuses ("No
    node in Y is a descendant of X"); skbn returns the canonical set, one of gac's 3 valid
    sets. mediator.txt's CPDAG leaves X - I undirected: no set (pcalg: "There is no valid
    adjustment set"), refused naming the edge."""
    nodes, edges = dagitty_edges("Schipf_2010")
    assert optimal_adjustment_set(edges, "TT", "T2DM") == ["A", "PA", "S", "U", "WC"]
    nodes, edges = dagitty_edges("mediator")
    with pytest.raises(ValueError, match="'X' - 'I'"):
        optimal_adjustment_set(dag_to_cpdag(nodes, edges), "X", "Y")


def test_thoemmes_latent_error_terms():
    """dagitty marks e0, e1, e3, e4 latent. Of gac's valid sets (GAC_VALID: every subset of
    e0..e4), the measured ones are {} and {e2}. With latent=, the back-door set {e0} is
    replaced by the measured canonical set An({x, y}) \\ ({x, y} u Forb u latent) = {e2}
    (on the CPDAG, x has no directed parent: the empty set, as before); the O-set holds
    e1, e3, e4, so optimal_adjustment_set refuses, naming them and the valid {e2}."""
    nodes, edges = dagitty_edges("Thoemmes_2013")
    latent = ["e0", "e1", "e3", "e4"]
    measured = [v for v in nodes if v not in latent + ["x", "y"]]
    valid = [sorted(z) for z in GAC_VALID["Thoemmes_2013"] if not z & set(latent)]
    assert sorted(valid) == [[], ["e2"]]
    found = [sorted(z) for k in range(len(measured) + 1) for z in combinations(measured, k)
             if is_adjustment_set(edges, "x", "y", z, latent=latent)]
    assert sorted(found) == sorted(valid)
    cpdag = dag_to_cpdag(nodes, edges)
    assert backdoor_adjustment_set(edges, "x", "y", latent=latent) == ["e2"]
    assert backdoor_adjustment_set(cpdag, "x", "y", latent=latent) == []
    for graph in (edges, cpdag):
        with pytest.raises(ValueError, match=r"\['e1', 'e3', 'e4'\].*measured set \['e2'\]"):
            optimal_adjustment_set(graph, "x", "y", latent=latent)
    with pytest.raises(ValueError, match=r"z and latent must be disjoint; both contain \['e0'\]"):
        is_adjustment_set(edges, "x", "y", ["e0"], latent=latent)


def test_equivalence_class_sizes_by_brute_force():
    expected = {"Schipf_2010": 13, "Thoemmes_2013": 2, "confounding": 1, "mediator": 10,
                "Shrier_2008": 6, "Sebastiani_2005": 64}
    for name, size in expected.items():
        nodes, edges = dagitty_edges(name)
        dags = equivalent_dags(dag_to_cpdag(nodes, edges))
        assert len(dags) == size
        assert sorted(edges) in [sorted(d) for d in dags]


def test_gaussian_ida_on_the_exact_covariance_is_the_path_sum():
    """Sebastiani et al.'s 36 genes (names with dots): rows whose sample covariance is exactly
    the model's, so the row of the true parent set is the total effect (the sum over
    directed paths of edge-weight products) to rounding, for ida and for joint_ida."""
    nodes, edges = dagitty_edges("Sebastiani_2005")
    rng = np.random.default_rng(0)
    idx = {v: i for i, v in enumerate(nodes)}
    weights = np.zeros((len(nodes), len(nodes)))
    for a, b in edges:
        weights[idx[b], idx[a]] = rng.uniform(0.5, 1.5) * rng.choice([-1, 1])
    total = np.linalg.inv(np.eye(len(nodes)) - weights)  # total[y, x]: the path sums
    data = pd.DataFrame(rows_with_covariance(total @ total.T, 200, 0), columns=nodes)
    cpdag = dag_to_cpdag(nodes, edges)
    parents = {v: {a for a, b in edges if b == v} for v in nodes}
    for x, y in [("EDN1.3", "EDNI1.7"), ("EDN1.9", "EDNI1.7"), ("ANXA2.8", "ANXA2.11"),
                 ("Stroke", "BMP6.9"), ("MET.5", "TGFBR3.9"), ("BMP6.12", "BMP6.14")]:
        effects = ida(data, cpdag, x, y, method="global")
        row = effects[[set(p) == parents[x] for p in effects["parents"]]]
        assert row["effect"].item() == pytest.approx(total[idx[y], idx[x]], abs=1e-10)
    # joint: do(EDN1.9, EDN1.3) on EDNI1.7; EDN1.9's effect avoids EDN1.3 (cut its parents)
    cut = weights.copy()
    cut[[idx["EDN1.9"], idx["EDN1.3"]], :] = 0
    joint = np.linalg.inv(np.eye(len(nodes)) - cut)
    effects = joint_ida(data, cpdag, ["EDN1.9", "EDN1.3"], "EDNI1.7", method="global")
    row = effects[[set(a) == parents["EDN1.9"] and set(b) == parents["EDN1.3"]
                   for a, b in effects["parents"]]]
    for x in ("EDN1.9", "EDN1.3"):
        assert row[f"effect_{x}"].item() == pytest.approx(
            joint[idx["EDNI1.7"], idx[x]], abs=1e-10)
