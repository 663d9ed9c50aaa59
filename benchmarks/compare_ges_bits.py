"""Compare GESStructure results of two skbn checkouts bit for bit.

Run once per checkout (``PYTHONPATH=<checkout> python benchmarks/compare_ges_bits.py dump OUT.pkl``),
then ``python benchmarks/compare_ges_bits.py diff A.pkl B.pkl``. Cases: random Gaussian networks
(p 5-10 and 15; bic-g and aic-g; 100-10,000 rows, with and without shifted / scaled columns),
bnlearn's gaussian.test, and chunked input (an iterator of DataFrames) against in-memory input.
Also a few discrete networks (bdeu, bic: the search without the table of scores), and the
search's other paths (:func:`variants`): GIES on Gaussian and discrete experimental rows,
white / black lists (one way, both ways, as tiers), ``max_indegree``, ``max_subset_size``, phase subsets,
``max_iter``, edge and random restarts, 16-24 nodes, bnlearn's clgaussian.test (mixed data). Each
result is ``(cpdag_ directed, cpdag_ undirected, score_ as hex, n_steps_)``.
"""
import pickle
import sys

import numpy as np
import pandas as pd


def cases():
    out = []
    for seed in range(int(sys.argv[3]) if len(sys.argv) > 3 else 60):
        p = [5, 6, 7, 8, 9, 10, 15][seed % 7]
        n = [100, 300, 1000, 3000, 10000][seed % 5]
        scorer = ["bic-g", "aic-g"][seed % 2]
        out.append((f"rand{seed}", p, n, scorer, seed % 3))
    return out


def frame(p, n, seed, transform):
    from skbn.datasets import make_random_network
    x = make_random_network(p, kind="gaussian", random_state=seed).sample(n, random_state=seed + 1)
    if transform == 1:  # shifted, scaled columns
        x = x * np.logspace(-6, 6, p) + 1e6
    elif transform == 2:  # column order and str names
        x = x[list(x.columns[::-1])]
    return x


def fit(x, scorer, interventions=None, **params):
    from skbn import GESStructure
    e = GESStructure(scorer=scorer, fit_parameters=False, **params).fit(x, interventions=interventions)
    return (e.cpdag_.directed, e.cpdag_.undirected, float(e.score_).hex(), e.n_steps_)


def experiments(p, seed, kind="gaussian", n_obs=1000, n_int=300):
    """Rows of a random network and of two single-node interventions (the target drawn
    afresh: standard normal, or uniform over the observed states), with their mask."""
    from skbn.datasets import make_random_network
    rng = np.random.default_rng(seed)
    net = make_random_network(p, kind=kind, random_state=seed)
    blocks, masks = [net.sample(n_obs, random_state=seed + 1)], [np.zeros((n_obs, p), dtype=bool)]
    names = list(blocks[0].columns)
    for k, target in enumerate(rng.choice(p, 2, replace=False).tolist()):
        x = net.sample(n_int, random_state=seed + 2 + k)
        column = names[target]
        if kind == "gaussian":
            x[column] = rng.normal(0.0, 2.0, n_int)
        else:
            x[column] = rng.choice(blocks[0][column].unique(), n_int)
        # (the target's children are not resampled: the rows need not follow the network)
        mask = np.zeros((n_int, p), dtype=bool)
        mask[:, target] = True
        blocks.append(x)
        masks.append(mask)
    return pd.concat(blocks, ignore_index=True), np.vstack(masks)


def variants():
    """Fits of the search's other paths: GIES, background knowledge, bounds, phase subsets,
    restarts, mixed data. ``(name, frame, scorer, interventions, params)``."""
    from skbn.datasets import make_random_network
    out = []
    for seed in range(4):  # GIES (Gaussian: no edge restarts; discrete: 10 by default)
        x, mask = experiments([5, 7, 9, 6][seed], seed)
        out.append((f"gies-g{seed}", x, "bic-g", mask, {}))
        x, mask = experiments([5, 6, 7, 5][seed], seed, kind="discrete", n_obs=800, n_int=200)
        out.append((f"gies-d{seed}", x, "bdeu", mask, {}))
    for seed in range(6):
        p = [6, 7, 8, 9, 10, 12][seed]
        x = make_random_network(p, kind="gaussian", random_state=100 + seed).sample(2000, random_state=seed)
        names = list(x.columns)
        out += [
            (f"white{seed}", x, "bic-g", None, {"white_list": [(names[0], names[-1])]}),
            (f"black{seed}", x, "bic-g", None, {"black_list": [(names[1], names[2]), (names[2], names[1]),
                                                              (names[3], names[0])]}),
            (f"tiers{seed}", x, "bic-g", None,  # (two tiers: no edge from the second half to the first)
             {"black_list": [(u, v) for u in names[p // 2:] for v in names[:p // 2]]}),
            (f"indegree{seed}", x, "aic-g", None, {"max_indegree": 1 + seed % 2}),
            (f"subset{seed}", x, "bic-g", None, {"max_subset_size": seed % 2}),
            (f"forward{seed}", x, "bic-g", None, {"phases": ("forward",)}),
            (f"fwd-turn{seed}", x, "bic-g", None, {"phases": ("forward", "turning")}),
            (f"fwd-back{seed}", x, "aic-g", None, {"phases": ("forward", "backward")}),
            (f"edge-restarts{seed}", x, "aic-g", None, {"edge_restarts": 3}),
            (f"restarts{seed}", x, "bic-g", None, {"n_restarts": 2, "random_state": seed}),
            (f"max-iter{seed}", x, "bic-g", None, {"max_iter": 3}),
        ]
    for seed in range(3):  # discrete data with knowledge and bounds (the search without the table)
        x = make_random_network([6, 8, 9][seed], random_state=200 + seed).sample(1500, random_state=seed)
        names = list(x.columns)
        out += [(f"d-black{seed}", x, "bdeu", None, {"black_list": [(names[0], names[1])]}),
                (f"d-indegree{seed}", x, "bic", None, {"max_indegree": 2}),
                (f"d-edge-restarts{seed}", x, "bdeu", None, {"edge_restarts": 2})]
    for seed in range(4):  # more than 15 nodes (a step merges the targets' lists kept sorted)
        x = make_random_network([16, 20, 24, 20][seed], kind="gaussian", random_state=300 + seed).sample(
            [1000, 10000][seed % 2], random_state=seed)
        out.append((f"many{seed}", x, ["bic-g", "aic-g"][seed % 2], None, {}))
    x = make_random_network(18, random_state=310).sample(3000, random_state=1)
    out.append(("d-many", x, "bdeu", None, {}))
    m = pd.read_csv("/work/rdata/bn_clgaussian.test.csv").dropna()
    for k, params in enumerate([{}, {"max_indegree": 2}, {"phases": ("forward", "turning")}]):
        out.append((f"mixed{k}", m.iloc[:3000], "auto", None, params))
    return out


def dump(path):
    import skbn
    print("skbn from", skbn.__file__, file=sys.stderr)
    res = {}
    for name, p, n, scorer, transform in cases():
        x = frame(p, n, int(name[4:]), transform)
        res[name] = fit(x, scorer)
        if int(name[4:]) % 4 == 0:  # chunked input: same bits as in memory
            chunks = [x.iloc[i:i + 777] for i in range(0, len(x), 777)]
            res[name + "-chunks"] = fit(iter(chunks), scorer)
    from skbn.datasets import make_random_network
    for seed in range(12):  # discrete data: scored family by family (no table)
        x = make_random_network([5, 7, 9][seed % 3], random_state=seed).sample(
            [300, 2000][seed % 2], random_state=seed + 1)
        res[f"discrete{seed}"] = fit(x, ["bdeu", "bic"][seed % 2])
    g = pd.read_csv("/work/rdata/bn_gaussian.test.csv").dropna()
    for scorer in ("bic-g", "aic-g"):
        res[f"gaussian.test-{scorer}"] = fit(g, scorer)
    for name, x, scorer, mask, params in variants():
        res[name] = fit(x, scorer, mask, **params)
    with open(path, "wb") as f:
        pickle.dump(res, f)


def diff(a, b):
    with open(a, "rb") as f:
        ra = pickle.load(f)
    with open(b, "rb") as f:
        rb = pickle.load(f)
    bad = [k for k in ra if ra[k] != rb.get(k)]
    chunk_bad = [k for k in ra if k.endswith("-chunks") and ra[k] != ra[k[:-7]]]
    print(f"{len(ra)} results, {len(bad)} differ: {bad}; chunked != in-memory in A "
          f"(reported, not compared): {chunk_bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        sys.exit(diff(sys.argv[2], sys.argv[3]))
