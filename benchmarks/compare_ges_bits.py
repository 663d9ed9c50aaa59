"""Compare GESStructure results of two skbn checkouts bit for bit.

Run once per checkout (``PYTHONPATH=<checkout> python benchmarks/compare_ges_bits.py dump OUT.pkl``),
then ``python benchmarks/compare_ges_bits.py diff A.pkl B.pkl``. Cases: random Gaussian networks
(p 5-10 and 15; bic-g and aic-g; 100-10,000 rows, with and without shifted / scaled columns),
bnlearn's gaussian.test, and chunked input (an iterator of DataFrames) against in-memory input.
Also a few discrete networks (bdeu, bic: the search without the table of scores). Each
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


def fit(x, scorer):
    from skbn import GESStructure
    e = GESStructure(scorer=scorer, fit_parameters=False).fit(x)
    return (e.cpdag_.directed, e.cpdag_.undirected, float(e.score_).hex(), e.n_steps_)


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
