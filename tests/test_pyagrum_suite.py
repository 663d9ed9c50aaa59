"""pyAgrum's own tests replayed on skbn: BNLearner (wrappers/pyagrum/testunits/tests/
BNLearnerTestSuite.py: chi2, G2, log-likelihood, mutual information, local scores, greedy hill
climbing and tabu search with possible / forbidden / mandatory arcs, a total order, parameter
learning with smoothing and record weights, EM), EssentialGraphTestSuite.py and
MarkovBlanketTestSuite.py (aGrUM commit 019c3f2301, pyAgrum 3.3.1 installed for the checks).

Each test runs pyAgrum's inputs (its CSV and BIF resources in tests/data/pyagrum, held as
distinct rows with counts) through skbn's public API and checks the values pyAgrum's test
asserts, or the values pyAgrum 3.3.1 computes on the same inputs when the test asserts less.
Conventions (each checked by hand or with bnlearn 4.9 on the same data, see the comments):

* pyAgrum's log-likelihoods, scores and mutual information are in bits; skbn's in nats
  (``/ log(2)`` converts). pyAgrum's AIC subtracts the number of parameters from the log2
  likelihood, skbn's (and bnlearn's) from the natural-log likelihood.
* pyAgrum's smoothing prior adds ``alpha`` to every cell of every CPT; skbn's Bayesian
  estimate spreads one equivalent sample size over a family's cells (``ess / (q r)``), so
  smoothing ``alpha`` is ``parameter_ess = alpha q r`` for a family with ``q`` parent
  configurations and ``r`` states (skbn has no per-cell prior for a whole network).
* pyAgrum's "possible edges" (``addPossibleEdge``) restrict the search to those adjacencies:
  in skbn a black list of every other pair.

pyAgrum itself is not imported.
"""

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import FixedStructure, HillClimbStructure, K2Structure
from skbn.citests import ChiSquare, GTest
from skbn.graph import dag_to_cpdag, markov_blanket
from skbn.io import read_bif
from skbn.scores import AIC, BIC, BDeu, K2Score, LogLikelihood

DATA = Path(__file__).parent / "data" / "pyagrum"
LN2 = math.log(2)

SMOKING, LUNG, BRONCHITIS, VISIT_ASIA = "smoking?", "lung_cancer?", "bronchitis?", "visit_to_Asia?"
TUBERCULOSIS, T_OR_C, DYSPNOEA, POSITIVE_XRAY = (
    "tuberculosis?", "tuberculos_or_cancer?", "dyspnoea?", "positive_XraY?")


def _resource(name):
    """pyAgrum's resource ``name``.csv (states as text, as its CSV reader reads them), rebuilt
    from its distinct rows and their counts."""
    counts = pd.read_csv(DATA / f"{name}_counts.csv.gz", dtype=str, keep_default_na=False)
    n = counts.pop("count").astype(int)
    return counts.loc[counts.index.repeat(n)].reset_index(drop=True)


@pytest.fixture(scope="module")
def asia3():
    return _resource("asia3")  # 934 rows, states "true" / "false"


@pytest.fixture(scope="module")
def chi2_csv():
    return _resource("chi2")  # 500 rows, four binary columns A, B, C, D


def _tables(frame, x, y, z=()):
    """Stratified contingency tables (strata, r_x, r_y) of columns x, y given z."""
    if not z:
        return pd.crosstab(frame[x], frame[y]).to_numpy()[None]
    return np.stack([pd.crosstab(g[x], g[y]).reindex(
        index=sorted(frame[x].unique()), columns=sorted(frame[y].unique()), fill_value=0).to_numpy()
        for _, g in frame.groupby(list(z))])


def _local(scorer, frame, child, parents):
    """Local score of child | parents from the public total score (family minus parents)."""
    parents = list(parents)
    total = scorer.score(frame[[child, *parents]], [(p, child) for p in parents])
    return total - (scorer.score(frame[parents], []) if parents else 0.0)


# ---------------------------------------------------------------- chi2, G2, mutual information

# test_chi2: (x, y, z) -> pyAgrum's asserted (statistic, p-value) and G2 (pyAgrum 3.3.1's
# BNLearner.G2 on the same calls; the test does not call G2). pyAgrum's Pearson statistic is
# uncorrected (no Yates) and its degrees of freedom (r_x - 1)(r_y - 1) q_Z (skbn
# adjust_dof=False; adjust_dof=True gives the same p-values here: only lung-tuberculosis given
# T_OR_C = false has a constant stratum, 1 degree of freedom instead of 2, p-value 0 both ways).
ASIA3_CHI2 = [
    ((SMOKING, LUNG, ()), (36.2256, 0.0), 43.032144644221205),
    ((SMOKING, VISIT_ASIA, ()), (1.1257, 0.2886), 1.1418066694930227),
    ((LUNG, TUBERCULOSIS, ()), (0.6297, 0.4274), 1.2201701395827387),
    ((LUNG, TUBERCULOSIS, (T_OR_C,)), (58.0, 0.0), 59.138621151475895),
]
CHI2_CSV_CHI2 = [
    (("A", "C", ()), (0.0007, 0.978), 0.0007609824519237418),
    (("A", "B", ()), (21.4348, 3.6e-6), 21.58467834200748),
    (("B", "A", ()), (21.4348, 3.6e-6), 21.58467834200748),
    (("B", "D", ()), (0.903, 0.341), 0.9027054549732094),
    (("A", "C", ("B",)), (15.2205, 0.0005), 16.34700776582415),
]


@pytest.mark.parametrize("resource", ["asia3", "chi2"])
def test_chi2_and_g2(resource, asia3, chi2_csv):
    frame, cases = (asia3, ASIA3_CHI2) if resource == "asia3" else (chi2_csv, CHI2_CSV_CHI2)
    for (x, y, z), (statistic, pvalue), g2 in cases:
        table = _tables(frame, x, y, z)
        n_strata = math.prod(frame[v].nunique() for v in z)
        for adjust_dof in (False, True):
            result = ChiSquare(adjust_dof=adjust_dof, min_samples_per_dof=0).test(table, n_strata)
            assert result.statistic == pytest.approx(statistic, abs=1e-3), (x, y, z)
            assert result.pvalue == pytest.approx(pvalue, abs=1e-4 if pvalue < 0.01 else 1e-3), (x, y, z)
            assert adjust_dof or result.dof == n_strata
        result = GTest(adjust_dof=False, min_samples_per_dof=0).test(table, n_strata)
        assert result.statistic == pytest.approx(g2, rel=1e-9), (x, y, z)


def test_mutual_information(asia3):
    """test_mutualInfo / test_conditionalMutualInfo: pyAgrum's I(X; Y | Z) in bits is
    G2 / (2 N log 2). Its MDL-corrected value subtracts (r_X - 1)(r_Y - 1) q_Z log2(N) / (2 N),
    so N log(2) times it is skbn's BIC gain of adding Y to X's parents Z. (The NML correction,
    0.0292368 and -0.00486096, has no skbn counterpart.)"""
    n = len(asia3)
    cases = [((LUNG, SMOKING, ()), 0.0332346154587978, 0.0279523),
             ((BRONCHITIS, LUNG, (SMOKING,)), 0.00159046091867418, -0.00897408)]
    for (x, y, z), mi, mdl in cases:
        g2 = GTest(adjust_dof=False, min_samples_per_dof=0).test(_tables(asia3, x, y, z)).statistic
        assert g2 / (2 * n * LN2) == pytest.approx(mi, abs=1e-9)
        gain = _local(BIC(), asia3, x, [*z, y]) - _local(BIC(), asia3, x, z)
        assert gain / (n * LN2) == pytest.approx(mdl, abs=1e-6)


def test_log_likelihood(chi2_csv):
    """test_loglikelihood: pyAgrum's logLikelihood(vars) / -N, the empirical entropy in bits;
    logLikelihood(X, Y) is the conditional one. skbn: the maximised log-likelihood score of the
    complete DAG on those columns (the joint), in nats."""
    frame = chi2_csv
    assert len(frame) == 500 and frame.shape[1] == 4

    def joint(columns):
        edges = [(a, b) for a, b in itertools.combinations(columns, 2)]
        return LogLikelihood().score(frame[list(columns)], edges) / (-len(frame) * LN2)

    expected = {("A",): 0.99943499, ("B",): 0.9986032, ("A", "B"): 1.9668973,
                ("C",): 0.99860302, ("D",): 0.40217919, ("C", "D"): 1.40077995}
    for columns, value in expected.items():
        assert joint(columns) == pytest.approx(value, abs=1e-5), columns
    assert joint(("A", "B")) - joint(("B",)) == pytest.approx(1.9668973 - 0.9986032, abs=1e-5)
    assert joint(("C", "D")) - joint(("D",)) == pytest.approx(1.40077995 - 0.40217919, abs=1e-5)


# ---------------------------------------------------------------- local scores (bits)

FAMILIES = [(LUNG, ()), (LUNG, (SMOKING,)), (DYSPNOEA, (BRONCHITIS, T_OR_C)),
            (BRONCHITIS, (SMOKING, LUNG))]
# pyAgrum 3.3.1 BNLearner("asia3.csv").useScore*(); score(child, parents), in bits.
PYAGRUM_SCORES = {
    "BIC": [-269.44684296116304, -243.3393514924986, -590.0243477951016, -856.4530252554024],
    "Log2Likelihood": [-264.5132035913082, -233.47207275278893, -570.2897903156822, -836.7184677759832],
    "AIC": [-265.5132035913082, -235.47207275278893, -574.2897903156822, -840.7184677759832],
    "K2": [-270.328308013178, -245.08694754738036, -584.36565320944, -849.5600055409104],
    "BDeu": [-269.774094473637, -242.75779697231, -589.5636795288495, -854.4533350303285],
}
# bnlearn 4.9 on the same data, score(g, d, type = "k2" / "bde", iss = 1, by.node = TRUE)[child]
# / log(2) (skbn equals these to 1e-9):
BNLEARN_SCORES = {
    "K2": [-270.328308335, -245.086948035, -584.365651691, -849.560004376],
    "BDeu": [-269.774094193, -242.757795881, -590.105657845, -854.919166757],
}


def test_local_scores_in_bits(asia3):
    """BIC and the log-likelihood equal pyAgrum's after / log(2). AIC: pyAgrum subtracts the
    parameters from the log2 likelihood (skbn's LL / log 2 - k). K2 equals bnlearn's to 1e-9
    and pyAgrum's to 2e-6 (pyAgrum's log-gamma is approximate). BDeu with ess 1 equals
    bnlearn's ``bde`` with iss 1, and pyAgrum's (to 2e-6) on families of at most one parent; with two
    parents pyAgrum's BDeu differs by 0.5 bit (589.56 vs bnlearn's and skbn's 590.11)."""
    for i, (child, parents) in enumerate(FAMILIES):
        k = (asia3[child].nunique() - 1) * math.prod(asia3[p].nunique() for p in parents)
        assert _local(BIC(), asia3, child, parents) / LN2 == pytest.approx(PYAGRUM_SCORES["BIC"][i], abs=1e-9)
        loglik = _local(LogLikelihood(), asia3, child, parents)
        assert loglik / LN2 == pytest.approx(PYAGRUM_SCORES["Log2Likelihood"][i], abs=1e-9)
        assert loglik / LN2 - k == pytest.approx(PYAGRUM_SCORES["AIC"][i], abs=1e-9)
        assert _local(AIC(), asia3, child, parents) == pytest.approx(loglik - k, abs=1e-9)
        k2 = _local(K2Score(), asia3, child, parents) / LN2
        assert k2 == pytest.approx(BNLEARN_SCORES["K2"][i], abs=1e-8)
        assert k2 == pytest.approx(PYAGRUM_SCORES["K2"][i], abs=1e-5)
        bdeu = _local(BDeu(ess=1.0), asia3, child, parents) / LN2
        assert bdeu == pytest.approx(BNLEARN_SCORES["BDeu"][i], abs=1e-8)
        if len(parents) <= 1:
            assert bdeu == pytest.approx(PYAGRUM_SCORES["BDeu"][i], abs=1e-5)


# ---------------------------------------------------------------- structure learning

def _exact_kl_bits(p, q, states):
    """KL(p || q) in bits by enumerating every joint state (pyAgrum's ExactBNdistance klPQ)."""
    columns = list(states)
    grid = pd.DataFrame(list(itertools.product(*(states[c] for c in columns))), columns=columns)
    log_p, log_q = p.log_likelihood(grid), q.log_likelihood(grid)
    mass = np.exp(log_p)
    support = mass > 0
    return float(np.sum(mass[support] * (log_p[support] - log_q[support])) / LN2)


@pytest.mark.filterwarnings("ignore::UserWarning")  # unseen joint states have probability 0
@pytest.mark.parametrize("search", ["hill_climb", "tabu"])
def test_local_search_accurate(search):
    """testHillClimbingAccurate / testLocalSearchWithTabuAccurate: learned from asia.csv
    (10,000 rows) with BDeu and maximum-likelihood CPTs, KL(learned || asia2) is within
    0.5 +- 0.5 bit (pyAgrum: 0.0026 and 0.0022). skbn's graphs score -22623.82 and -22623.49
    under BDeu ess 1; bnlearn: hc(d, score = "bde", iss = 1) -22625.34, tabu -22623.49."""
    reference = read_bif(DATA / "asia2.bif")
    data = _resource("asia")
    learner = HillClimbStructure(scorer=BDeu(ess=1.0), search=search,
                                 parameter_estimator="mle").fit(data)
    assert learner.score_ == pytest.approx({"hill_climb": -22623.8167, "tabu": -22623.4929}[search], abs=1e-3)
    kl = _exact_kl_bits(learner.network_, reference, reference.states)
    assert 0 <= kl <= 1.0
    assert kl == pytest.approx({"hill_climb": 0.00159, "tabu": 0.00185}[search], abs=1e-4)


def _possible_edges_only(columns, edges):
    """A black list of every ordered pair outside the adjacencies ``edges``."""
    allowed = {frozenset(e) for e in edges}
    return [(a, b) for a, b in itertools.permutations(columns, 2) if frozenset((a, b)) not in allowed]


@pytest.mark.parametrize("search", ["hill_climb", "tabu"])
def test_possible_edges(search, asia3):
    """testPossibleEdgeWithGHC / testPossibleEdgeWithTabuList: possible edges only (BDeu, the
    default score of pyAgrum's local searches), mixed with a forbidden or a mandatory arc.
    pyAgrum 3.3.1 learns S -> B, S -> L in the second case (skbn B -> S, S -> L, the same
    equivalence class) and the DAGs below in the others."""
    columns = list(asia3.columns)
    cases = [  # possible, forbidden, mandatory -> skbn's DAG
        ([(VISIT_ASIA, LUNG), (VISIT_ASIA, SMOKING)], [], [], set()),
        ([(SMOKING, LUNG), (BRONCHITIS, SMOKING)], [], [], {(BRONCHITIS, SMOKING), (SMOKING, LUNG)}),
        ([(SMOKING, LUNG), (BRONCHITIS, SMOKING)], [(SMOKING, BRONCHITIS)], [],
         {(BRONCHITIS, SMOKING), (SMOKING, LUNG)}),
        ([(SMOKING, LUNG), (BRONCHITIS, SMOKING)], [], [(VISIT_ASIA, BRONCHITIS)],
         {(BRONCHITIS, SMOKING), (SMOKING, LUNG), (VISIT_ASIA, BRONCHITIS)}),
    ]
    for possible, forbidden, mandatory, expected in cases:
        black_list = _possible_edges_only(columns, possible + mandatory) + forbidden
        learner = HillClimbStructure(scorer=BDeu(ess=1.0), search=search, black_list=black_list,
                                     white_list=mandatory, fit_parameters=False).fit(asia3)
        edges = set(learner.edges_)
        assert edges == expected
        assert {frozenset(e) for e in edges} <= {frozenset(e) for e in possible + mandatory}
        assert not edges & set(forbidden) and edges >= set(mandatory)


def test_total_order(asia3):
    """test_totalOrder_with_names: a total order; every arc goes forward in it (skbn: K2 in
    that ordering; pyAgrum's test runs its default learner, MIIC, under the order)."""
    order = [VISIT_ASIA, TUBERCULOSIS, SMOKING, BRONCHITIS, LUNG, T_OR_C, POSITIVE_XRAY, DYSPNOEA]
    edges = K2Structure(ordering=order, fit_parameters=False).fit(asia3).edges_
    assert edges and all(order.index(a) < order.index(b) for a, b in edges)


def test_hybrid_learning_data1():
    """testHybridLearning2: greedy hill climbing on data1.csv (50,000 rows) gives parents
    V: {A}, Y: {X, V}, Z: {Y} (pyAgrum 3.3.1's DAG; skbn's is the same)."""
    data = _resource("data1")
    edges = HillClimbStructure(scorer=BDeu(ess=1.0), fit_parameters=False).fit(data).edges_
    assert set(edges) == {("A", "V"), ("V", "Y"), ("X", "Y"), ("Y", "Z")}
    cpdag = dag_to_cpdag(list(data.columns), edges)
    assert set(cpdag.directed) == {("V", "Y"), ("X", "Y"), ("Y", "Z")}
    assert {frozenset(e) for e in cpdag.undirected} == {frozenset("AV")}


# ---------------------------------------------------------------- parameters

def _smoothed_cpt(frame, network, node, alpha=1.0):
    """pyAgrum's smoothing prior (alpha per cell) on one family: parameter_ess = alpha q r."""
    parents = list(network.parents[node])
    q = math.prod(len(network.states[p]) for p in parents)
    r = len(network.states[node])
    learner = FixedStructure(edges=[(p, node) for p in parents], parameter_ess=alpha * q * r,
                             categories={c: network.states[c] for c in [*parents, node]})
    return learner.fit(frame[[*parents, node]]).network_.cpts[node]


def test_parameter_learning_smoothing(asia3):
    """testParameterLearning: asia3.csv on asia_bool's DAG with smoothing 1 (pyAgrum 3.3.1's
    CPTs; by hand: P(tuberculosis = true | visit = true) = (N + 1) / (N_j + 2) = 0.0625)."""
    network = read_bif(DATA / "asia_bool.bif")
    assert network.states[SMOKING] == ["true", "false"]
    np.testing.assert_allclose(_smoothed_cpt(asia3, network, TUBERCULOSIS),
                               [[0.0625, 0.9375], [0.0140997831, 0.9859002169]], atol=1e-10)
    np.testing.assert_allclose(_smoothed_cpt(asia3, network, SMOKING), [0.5021367521, 0.4978632479],
                               atol=1e-10)
    assert network.parents[DYSPNOEA] == (T_OR_C, BRONCHITIS)
    np.testing.assert_allclose(_smoothed_cpt(asia3, network, DYSPNOEA), [
        [[0.8421052632, 0.1578947368], [0.75, 0.25]],
        [[0.7979002625, 0.2020997375], [0.1182364729, 0.8817635271]]], atol=1e-10)


def test_unknown_label_in_database():
    """testParameterLearning: asia3-faulty.csv has a state BEURK for smoking? that the network
    does not declare (pyAgrum: UnknownLabelInDatabase)."""
    network = read_bif(DATA / "asia_bool.bif")
    faulty = pd.DataFrame({c: ["true", "false"] for c in network.nodes})
    faulty.loc[1, SMOKING] = "BEURK"
    with pytest.raises(ValueError, match="unknown category 'BEURK' in column 'smoking\\?'"):
        FixedStructure(edges=network.edges, categories=network.states).fit(faulty)


def test_dbn_tonda_smoothing():
    """testDBNTonda: the CPT of c_0 (5 declared states) with smoothing 1 on DBN_Tonda.csv
    (154 rows): (N_k + 1) / (154 + 5), pyAgrum 3.3.1's; and a parent configuration never seen
    gets the uniform row (c_t given tf_0, bf_0, c_0 = 0, 0, 0 in pyAgrum: 1/3, 1/3, 1/9 x 3)."""
    data = _resource("DBN_Tonda")
    sizes = {"bf": 4, "c": 5, "h": 5, "tf": 5, "wl": 4}
    states = {c: [str(k) for k in range(sizes[c.split("_")[0]])] for c in data.columns}
    edges = [(p, c) for c in ("c_t", "h_t", "wl_t") for p in ("tf_0", "bf_0")]
    edges += [("c_0", "c_t"), ("h_0", "h_t"), ("wl_0", "wl_t")]
    alphas = {}
    for node in data.columns:
        parents = [p for p, c in edges if c == node]
        alphas[node] = math.prod(len(states[p]) for p in parents) * len(states[node])
    np.testing.assert_allclose(
        FixedStructure(edges=[], categories={"c_0": states["c_0"]}, parameter_ess=alphas["c_0"])
        .fit(data[["c_0"]]).network_.cpts["c_0"],
        [0.031446540880503145, 0.3081761006289308, 0.1949685534591195, 0.25157232704402516,
         0.2138364779874214])
    family = ["tf_0", "bf_0", "c_0", "c_t"]
    cpt = FixedStructure(edges=[(p, "c_t") for p in family[:3]], parameter_ess=alphas["c_t"],
                         categories={c: states[c] for c in family}).fit(data[family]).network_.cpts["c_t"]
    np.testing.assert_allclose(cpt[0, 0, 0], [1 / 3, 1 / 3, 1 / 9, 1 / 9, 1 / 9])


def test_record_weights():
    """test_RecordWeight: 4 rows weighted 1, 2, 4, 1 give the CPTs of the 8 unweighted rows
    (MLE; P(X = 0) = 0.625, P(Y | X) = [[0.2, 0.8], [2/3, 1/3]], pyAgrum 3.3.1's), and a
    database weight of 3 per row with smoothing 1 gives P(Y | X) = 1/2."""
    eight = pd.DataFrame({"X": [1, 0, 0, 0, 1, 0, 1, 0], "Y": [0, 1, 1, 0, 0, 1, 1, 1]})
    four = pd.DataFrame({"X": [0, 1, 0, 1], "Y": [0, 0, 1, 1]})
    learner = FixedStructure(edges=[("X", "Y")], parameter_estimator="mle")
    plain = learner.fit(eight).network_
    weighted = learner.fit(four, sample_weight=[1.0, 2.0, 4.0, 1.0]).network_
    for node in "XY":
        np.testing.assert_array_equal(plain.cpts[node], weighted.cpts[node])
    np.testing.assert_allclose(weighted.cpts["X"], [0.625, 0.375])
    np.testing.assert_allclose(weighted.cpts["Y"], [[0.2, 0.8], [2 / 3, 1 / 3]])
    smoothed = FixedStructure(edges=[("X", "Y")], parameter_ess=4.0).fit(four, sample_weight=np.full(4, 3.0))
    np.testing.assert_allclose(smoothed.network_.cpts["Y"], [[0.5, 0.5], [0.5, 0.5]])


def test_pseudo_counts():
    """testPseudoCount: counts of X (5, 2) and of (Z, X) with smoothing 0.1 added per cell,
    read back from skbn's CPTs times the configuration totals."""
    frame = pd.DataFrame({"X": [0, 0, 0, 1, 0, 1, 0], "Y": [1, 1, 0, 0, 1, 1, 1], "Z": [2, 0, 2, 2, 1, 1, 1]})
    mle = FixedStructure(edges=[("Z", "X")], parameter_estimator="mle").fit(frame).network_
    np.testing.assert_allclose(mle.cpts["Z"] * 7, [1, 3, 3])
    np.testing.assert_allclose(mle.cpts["X"] * np.array([[1], [3], [3]]), [[1, 0], [2, 1], [2, 1]])
    smoothed = FixedStructure(edges=[("Z", "X")], parameter_ess=0.1 * 6).fit(frame).network_
    np.testing.assert_allclose(smoothed.cpts["X"] * np.array([[1.2], [3.2], [3.2]]),
                               [[1.1, 0.1], [2.1, 1.1], [2.1, 1.1]])
    x_alone = FixedStructure(edges=[], parameter_ess=0.2).fit(frame[["X"]]).network_
    np.testing.assert_allclose(x_alone.cpts["X"] * 7.2, [5.1, 2.1])


# ---------------------------------------------------------------- EM (pyAgrum's skipped_EM*)

def _patterns(columns, patterns):
    rows = [row for row, n in patterns for _ in range(n)]
    return pd.DataFrame(rows, columns=columns, dtype=float)


def test_em_non_identified_joint():
    """skipped_EM2 (EM2.csv, 1800 rows; pyAgrum disables the test and, without a prior,
    refuses the data: "the conditioning set <X1=1> ... never appears"). No row observes
    both columns, so the maximum-likelihood joint is any joint with the observed margins:
    P(X1) = (1/2, 1/2), P(X2) = (1/3, 2/3), and the log-likelihood at the optimum is, by hand,
    400 log(1/2) + 300 log(1/3) + 600 log(2/3)."""
    nan = np.nan
    data = _patterns(["X1", "X2"], [((nan, 2), 600), ((nan, nan), 500), ((nan, 1), 300),
                                    ((1, nan), 200), ((2, nan), 200)])
    learner = FixedStructure(edges=[("X1", "X2")], missing="em", parameter_estimator="mle",
                             em_tol=1e-12, em_max_iter=1000).fit(data)
    np.testing.assert_allclose(learner.network_.cpts["X1"], [0.5, 0.5], atol=1e-6)
    np.testing.assert_allclose(learner.network_.query(["X2"]).to_numpy(), [1 / 3, 2 / 3], atol=1e-5)
    optimum = 400 * np.log(0.5) + 300 * np.log(1 / 3) + 600 * np.log(2 / 3)
    assert learner.em_trace_[-1] == pytest.approx(optimum, abs=1e-6)


def test_em_global_optimum_with_restarts():
    """skipped_EM (EM.csv, 500 rows in 5 patterns, DAG D -> C -> B -> A). EM from the
    available-case estimates stops at a local optimum (log-likelihood -475.1353); with 20
    starts skbn reaches -441.15546, the maximum found by Nelder-Mead from 40 random starts on
    the 7 free parameters (the observed-data likelihood by enumeration), at P(D = 1) = 0.2."""
    nan = np.nan
    data = _patterns(list("ABCD"), [((0, 1, 1, 0), 100), ((0, nan, 0, 1), 100),
                                    ((1, nan, nan, 0), 100), ((nan, nan, 1, 0), 100),
                                    ((nan, 0, nan, nan), 100)])
    dag = [("B", "A"), ("C", "B"), ("D", "C")]
    settings = dict(edges=dag, missing="em", parameter_estimator="mle", em_tol=1e-12, em_max_iter=5000)
    one = FixedStructure(**settings).fit(data)
    assert one.em_trace_[-1] == pytest.approx(-475.1352696, abs=1e-6)
    best = FixedStructure(**settings, n_init=20, random_state=0).fit(data)
    assert best.em_trace_[-1] == pytest.approx(-441.1554623, abs=1e-6)
    np.testing.assert_allclose(best.network_.cpts["D"], [0.8, 0.2], atol=1e-6)
    assert best.network_.log_likelihood(data).sum() == pytest.approx(best.em_trace_[-1], abs=1e-9)


# ---------------------------------------------------------------- graphs

@pytest.mark.parametrize(("arcs", "n_arcs", "n_edges"), [
    ("a->b;b->c", 0, 2),                                             # testChain
    ("a->b;c->b", 2, 0),                                             # testVstructure
    ("a->b;c1->b;c2->b;a->c1;a->c2", 3, 2),                          # testCaseD
    ("A->B;B->C;C->D;E->B;F->G;G->D;F->H;H->I;E->J;J->K;K->I;I->M;K->L", 8, 5),  # testNotebook1
    ("A->B;C->B;C->D;B->D;A->C", 0, 5),                              # testNotebook2
    ("Z->X;X->U;Y->X;Y->W", 3, 1),                                   # testNotebook3
])
def test_essential_graph(arcs, n_arcs, n_edges):
    """EssentialGraphTestSuite: numbers of arcs and edges of the CPDAG."""
    edges = [tuple(arc.split("->")) for arc in arcs.split(";")]
    nodes = sorted({v for e in edges for v in e})
    cpdag = dag_to_cpdag(nodes, edges)
    assert (len(cpdag.directed), len(cpdag.undirected)) == (n_arcs, n_edges)


def test_markov_blanket():
    """MarkovBlanketTestSuite::testMarkovBlanketStructure and ...SpecialArcs: the blanket's
    nodes (pyAgrum compares the blanket's subgraph, which these nodes determine)."""
    arcs = "a->b;b->c;c->d;d->e;f->d;d->g;h->i;i->g"
    edges = [tuple(arc.split("->")) for arc in arcs.split(";")]
    nodes = list("abcdefghi")
    expected = {"a": "b", "b": "ac", "c": "bdf", "d": "cefgi", "e": "d", "f": "cd", "g": "di",
                "h": "i", "i": "dgh"}
    for node, blanket in expected.items():
        assert set(markov_blanket(nodes, edges, node)) == set(blanket), node
    special = [("aa", "bb"), ("bb", "cc"), ("cc", "dd"), ("dd", "ee"), ("ff", "dd"), ("dd", "gg"),
               ("hh", "ii"), ("ii", "gg"), ("ff", "ii"), ("ff", "gg")]
    nodes = sorted({v for e in special for v in e})
    assert set(markov_blanket(nodes, special, "dd")) == {"cc", "ee", "ff", "gg", "ii"}
