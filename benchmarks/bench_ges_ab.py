"""A/B CPU time of ``GESStructure(scorer="bic-g", fit_parameters=False).fit`` for two skbn
checkouts loaded in one process, fits alternated (the other core may be busy).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_ges_ab.py A_DIR B_DIR [--fits 300]

Each checkout's ``skbn`` modules are imported once and swapped into ``sys.modules`` before each
of its fits (outside the timed region); every module of the package is imported at load
(before 2026-11-29 a module imported lazily, ``skbn.estimators._ges`` among them, was the
first checkout's for both: both columns timed the same code, and the "2% slower when loaded
second" of an A/A run was the order effect alone). Cases: those of ``bench_ges_fit.py``
(7x1k, gaussian.test as 7x5k, 7x10k, 10x1k, 10x10k, 15x1k). Prints the median CPU ms of each
and B/A; run both orders. A change of what a fit leaves in the CPU caches is better measured
by ``bench_ges_fit.py`` in alternate processes.
"""
import argparse
import importlib
import os
import pkgutil
import statistics
import sys
import time


def load(path):
    """Every module of the checkout's ``skbn`` (each imported now: a module first imported
    during a fit, e.g. ``skbn.estimators._ges`` behind ``skbn``'s lazy attributes, would
    otherwise be the first checkout's for both)."""
    for name in [m for m in sys.modules if m == "skbn" or m.startswith("skbn.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    import skbn
    for info in pkgutil.walk_packages(skbn.__path__, "skbn."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    sys.path.remove(path)
    mods = {m: sys.modules[m] for m in sys.modules if m == "skbn" or m.startswith("skbn.")}
    bad = [m for m, module in mods.items() if not getattr(module, "__file__", path).startswith(path)]
    assert not bad, bad
    return mods


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--fits", type=int, default=300)
    args = parser.parse_args()
    mods = [load(args.a), load(args.b)]
    sys.modules.update(mods[0])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_ges_fit import CASES, case_frame

    make = mods[0]["skbn.datasets"].make_random_network
    cases = [(name, case_frame(name, make)) for name in CASES]
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
