"""Fit time of every learner with default BLAS threading against ``OPENBLAS_NUM_THREADS=1``.

Every measurement is one fresh process (the BLAS thread pool is sized when numpy is
imported, so the two settings cannot share a process): it samples the data, fits once to
warm up (imports, caches), then times ``--fits`` fits, CPU time (``time.process_time``, all
threads of the process) and wall time. The processes of the two settings take turns, one
of each per round, so that a busy spell of a shared machine touches both alike; the table
gives the medians and the ratio default / single-threaded (target: <= 1.1). Each process
also prints a fingerprint of its result (edges, ``score_``, a sum of ``score_samples``), and
the two settings must agree bit for bit.

Usage::

    python benchmarks/bench_threads.py [--rounds 3] [--fits 1] [--learners hc pc ...]
                                      [--checkout PATH]   # measure another checkout

``--checkout`` runs the workers on the skbn package of another directory (e.g. an export of
an older commit, ``git archive HEAD | tar -x -C /tmp/skbn-old``) to compare before / after.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROWS = 10_000

#: name -> (network, rows, constructor source, missing fraction)
LEARNERS = {
    "hc": ("alarm", ROWS, "HillClimbStructure()", 0.0),
    "tabu": ("alarm", ROWS, "HillClimbStructure(search='tabu', random_state=0)", 0.0),
    "multistart_tabu": ("alarm", ROWS, "HillClimbStructure(search='multistart_tabu', random_state=0)", 0.0),
    "ges": ("alarm", ROWS, "GESStructure()", 0.0),
    "pc": ("alarm", ROWS, "PCStructure()", 0.0),
    "k2": ("alarm", ROWS, "K2Structure()", 0.0),
    "chow_liu": ("alarm", ROWS, "ChowLiuTree()", 0.0),
    "mmhc": ("alarm", ROWS, "MMHCStructure()", 0.0),
    "exact": ("asia", ROWS, "ExactStructure()", 0.0),
    "fixed_em": ("alarm", ROWS, "FixedStructure(edges=TRUE_EDGES, missing='em')", 0.05),
    "bootstrap": ("alarm", ROWS, "BootstrapStructure(HillClimbStructure(), n_resamples=4, random_state=0)",
                  0.0),
    "order_mcmc": ("asia", ROWS, "OrderMCMCStructure(random_state=0)", 0.0),
}


def worker(name, fits, checkout):
    sys.path.insert(0, str(checkout))
    import numpy as np

    import skbn
    from skbn.io import read_bif

    network_name, rows, source, missing = LEARNERS[name]
    shared = Path(os.environ.get("SKBN_SHARED_NETWORKS", HERE.parents[2] / "shared" / "networks"))
    network = read_bif(shared / f"{network_name}.bif")
    X = network.sample(rows, random_state=0)
    if missing:
        rng = np.random.default_rng(0)
        X = X.astype(object).mask(rng.random(X.shape) < missing)
    namespace = {k: getattr(skbn, k) for k in skbn.__all__}
    namespace["TRUE_EDGES"] = [(p, c) for c in network.nodes for p in network.parents[c]]
    make = eval(source, namespace)  # noqa: S307 (the table above, not user input)
    make.fit(X)  # warm-up
    cpu, wall = [], []
    for _ in range(fits):
        model = eval(source, namespace)  # noqa: S307
        c0, w0 = time.process_time(), time.perf_counter()
        model.fit(X)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    complete = X.dropna() if missing else X
    fingerprint = [sorted(map(list, model.edges_)), repr(getattr(model, "score_", None)),
                   float(np.sum(model.score_samples(complete.iloc[:2000]))).hex()]
    print(json.dumps({"cpu": cpu, "wall": wall, "fingerprint": fingerprint}))


def run(name, env_threads, fits, checkout):
    env = dict(os.environ)
    if env_threads is None:
        env.pop("OPENBLAS_NUM_THREADS", None)
    else:
        env["OPENBLAS_NUM_THREADS"] = str(env_threads)
    out = subprocess.run([sys.executable, str(HERE), "--worker", name, "--fits", str(fits),
                          "--checkout", str(checkout)], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fits", type=int, default=1, help="timed fits per process")
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS), choices=list(LEARNERS))
    parser.add_argument("--checkout", default=str(HERE.parents[1]))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.fits, args.checkout)
        return
    print(f"checkout {args.checkout}; {args.rounds} rounds x {args.fits} fit(s); medians in seconds")
    header = ("learner", "cpu_default", "cpu_1thread", "cpu_ratio", "wall_default", "wall_1thread",
              "wall_ratio", "identical")
    print("  ".join(f"{h:>15}" for h in header), flush=True)
    for name in args.learners:
        times = {None: {"cpu": [], "wall": []}, 1: {"cpu": [], "wall": []}}
        prints = set()
        for _ in range(args.rounds):
            for threads in (None, 1):
                result = run(name, threads, args.fits, args.checkout)
                times[threads]["cpu"] += result["cpu"]
                times[threads]["wall"] += result["wall"]
                prints.add(json.dumps(result["fingerprint"]))
        med = {t: {k: statistics.median(v) for k, v in d.items()} for t, d in times.items()}
        row = [name, med[None]["cpu"], med[1]["cpu"], med[None]["cpu"] / med[1]["cpu"],
               med[None]["wall"], med[1]["wall"], med[None]["wall"] / med[1]["wall"], len(prints) == 1]
        print("  ".join(f"{v:>15.3f}" if isinstance(v, float) else f"{v!s:>15}" for v in row), flush=True)


if __name__ == "__main__":
    main()
