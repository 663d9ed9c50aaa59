"""A/B CPU time of ``GESStructure(scorer="bic-g", fit_parameters=False).fit`` for two skbn
checkouts loaded in one process, fits alternated (the other core may be busy).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_ges_ab.py A_DIR B_DIR [--fits 300]

Each checkout's ``skbn`` modules are imported once and swapped into ``sys.modules`` before each
of its fits (outside the timed region). Cases: 7x1k, gaussian.test (7x5k), 7x10k, 10x1k,
10x10k, 15x1k, rows sampled as bench_gaussian_learners.py does (seed 0). Prints the median CPU
ms of each and B/A.
"""
import argparse
import statistics
import sys
import time

import pandas as pd


def load(path):
    for name in [m for m in sys.modules if m == "skbn" or m.startswith("skbn.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    import skbn  # noqa: F401
    import skbn.datasets  # noqa: F401
    sys.path.remove(path)
    mods = {m: sys.modules[m] for m in sys.modules if m == "skbn" or m.startswith("skbn.")}
    assert sys.modules["skbn"].__file__.startswith(path), sys.modules["skbn"].__file__
    return mods


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--fits", type=int, default=300)
    args = parser.parse_args()
    mods = [load(args.a), load(args.b)]
    make = mods[0]["skbn.datasets"].make_random_network
    cases = [("7x1k", make(7, kind="gaussian", random_state=0).sample(1000, random_state=1)),
             ("7x5k gaussian.test", pd.read_csv("/work/rdata/bn_gaussian.test.csv").dropna()),
             ("7x10k", make(7, kind="gaussian", random_state=0).sample(10000, random_state=1)),
             ("10x1k", make(10, kind="gaussian", random_state=0).sample(1000, random_state=1)),
             ("10x10k", make(10, kind="gaussian", random_state=0).sample(10000, random_state=1)),
             ("15x1k", make(15, kind="gaussian", random_state=0).sample(1000, random_state=1))]
    print("case, A ms, B ms, B/A, same result")
    for name, x in cases:
        times = [[], []]
        results = [None, None]
        learners = []
        for m in mods:
            sys.modules.update(m)
            learners.append(m["skbn"].GESStructure(scorer="bic-g", fit_parameters=False))
        for _ in range(10):
            for k in (0, 1):
                sys.modules.update(mods[k])
                learners[k].fit(x)
        for _ in range(args.fits):
            for k in (0, 1):
                sys.modules.update(mods[k])
                start = time.process_time()
                learners[k].fit(x)
                times[k].append(time.process_time() - start)
                results[k] = (learners[k].cpdag_.directed, learners[k].cpdag_.undirected,
                              float(learners[k].score_).hex())
        a, b = (1e3 * statistics.median(t) for t in times)
        print(f"{name}, {a:.3f}, {b:.3f}, {b / a:.3f}, {results[0] == results[1]}", flush=True)


if __name__ == "__main__":
    main()
