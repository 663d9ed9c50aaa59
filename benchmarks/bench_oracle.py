"""Benchmark the d-separation oracle: microseconds per query, and PC run on the oracle.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_oracle.py [--quick]

Part 1: ``DSeparationOracle`` on random networks of 50, 200, 400 and 1,000 variables
(``make_random_network(n, max_indegree=3)``, about ``n`` edges). For each graph it draws
20,000 queries ``x _||_ y | Z`` -- uniformly random triples (``|Z|`` uniform in 0..3; mostly
separated, easy), then PC-like ones (``y`` within two steps of ``x``, ``Z`` among their
neighbours; mostly d-connected, longer walks) -- and reports the compile time,
the microseconds per *first* query (the Bayes-ball walk; the cache is cleared between
repetitions) and per *repeated* query (answered from the cache), and the same queries through
``skbn.graph.d_separated`` (which recompiles the DAG every call) and networkx's
``is_d_separator`` on a sample, for scale.

Part 2: ``PCStructure(ci_test=DSeparationOracle(dag))`` on a 400-variable random network
(max in-degree 3, and 1,000 variables with --full): wall time of ``fit`` (on 10 rows: the
oracle never looks at the data), number of tests, and whether the result is the true CPDAG.
"""

import argparse
import time

import numpy as np
from _common import print_table  # first: puts the checkout on sys.path

from skbn.citests import DSeparationOracle
from skbn.datasets import make_random_network
from skbn.estimators._pc import PCStructure
from skbn.graph import d_separated, dag_to_cpdag


def queries(n, n_queries, seed=0):
    """Random triples: x, y and 0-3 conditioning nodes drawn uniformly."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n_queries):
        picked = rng.choice(n, size=2 + rng.randint(0, 4), replace=False).tolist()
        out.append((picked[0], picked[1], tuple(picked[2:])))
    return out


def local_queries(net, n_queries, seed=0):
    """PC-like triples: y within two steps of x in the skeleton, Z drawn among the
    neighbours of x and y (the hard, mostly d-connected queries)."""
    rng = np.random.RandomState(seed)
    index = {v: i for i, v in enumerate(net.nodes)}
    nbrs = [set() for _ in net.nodes]
    for u, v in net.edges:
        nbrs[index[u]].add(index[v])
        nbrs[index[v]].add(index[u])
    nbrs = [sorted(a) for a in nbrs]
    out = []
    while len(out) < n_queries:
        x = int(rng.randint(len(nbrs)))
        near = sorted(({w for v in nbrs[x] for w in nbrs[v]} | set(nbrs[x])) - {x})
        if not near:
            continue
        y = near[rng.randint(len(near))]
        pool = sorted((set(nbrs[x]) | set(nbrs[y])) - {x, y})
        z = rng.choice(pool, size=min(len(pool), rng.randint(0, 4)), replace=False).tolist()
        out.append((x, y, tuple(z)))
    return out


def bench_queries(sizes, n_queries, local):
    import networkx as nx

    is_d_separator = getattr(nx, "is_d_separator", None) or nx.d_separated
    rows = []
    for n in sizes:
        net = make_random_network(n, max_indegree=3, random_state=0)
        nodes = net.nodes
        qs = local_queries(net, n_queries) if local else queries(n, n_queries)
        start = time.perf_counter()
        oracle = DSeparationOracle(net)
        oracle._validate()  # compile
        compile_ms = 1e3 * (time.perf_counter() - start)
        best_first = best_repeat = np.inf
        for _ in range(3):
            oracle._answers.clear()
            start = time.perf_counter()
            answers = [oracle._answer(x, y, z) for x, y, z in qs]
            best_first = min(best_first, time.perf_counter() - start)
            start = time.perf_counter()
            for x, y, z in qs:
                oracle._answer(x, y, z)
            best_repeat = min(best_repeat, time.perf_counter() - start)
        sample = qs[:500]
        start = time.perf_counter()
        slow = [d_separated(nodes, net.edges, nodes[x], nodes[y], [nodes[v] for v in z])
                for x, y, z in sample]
        per_call = (time.perf_counter() - start) / len(sample)
        graph = nx.DiGraph(net.edges)
        graph.add_nodes_from(nodes)
        start = time.perf_counter()
        ref = [is_d_separator(graph, {nodes[x]}, {nodes[y]}, {nodes[v] for v in z})
               for x, y, z in sample]
        per_nx = (time.perf_counter() - start) / len(sample)
        assert ref == slow == answers[:len(sample)]
        rows.append({
            "variables": n, "edges": len(net.edges), "compile ms": compile_ms,
            "us/query": 1e6 * best_first / len(qs), "us/cached": 1e6 * best_repeat / len(qs),
            "separated %": 100.0 * np.mean(answers),
            "d_separated us": 1e6 * per_call, "networkx us": 1e6 * per_nx,
        })
    print_table(rows, list(rows[0]))


def bench_pc(sizes):
    rows = []
    for n in sizes:
        net = make_random_network(n, max_indegree=3, random_state=0)
        X = net.sample(10, random_state=0)
        start = time.perf_counter()
        pc = PCStructure(ci_test=DSeparationOracle(net)).fit(X)
        seconds = time.perf_counter() - start
        truth = dag_to_cpdag(net.nodes, net.edges)
        exact = (sorted(pc.directed_edges_) == sorted(truth.directed)
                 and {frozenset(e) for e in pc.undirected_edges_}
                 == {frozenset(e) for e in truth.undirected})
        rows.append({"variables": n, "edges": len(net.edges), "fit s": seconds,
                     "tests": pc.n_tests_, "us/test": 1e6 * seconds / max(pc.n_tests_, 1),
                     "true CPDAG": exact})
    print_table(rows, list(rows[0]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer queries, PC on 200 nodes")
    parser.add_argument("--full", action="store_true", help="PC on 1,000 nodes too")
    args = parser.parse_args()
    n_queries = 2000 if args.quick else 20000
    print("random d-separation queries (x, y, and |Z| uniform in 0..3 nodes)")
    bench_queries([50, 200, 400, 1000], n_queries, local=False)
    print("\nPC-like queries (y within two steps of x, Z among their neighbours)")
    bench_queries([50, 200, 400, 1000], n_queries, local=True)
    print("\nPCStructure(ci_test=DSeparationOracle(net)) on make_random_network(n, max_indegree=3)")
    bench_pc([200] if args.quick else [400, 1000] if args.full else [400])


if __name__ == "__main__":
    main()
