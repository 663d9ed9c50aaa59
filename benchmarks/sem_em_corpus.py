"""Structural EM on a small corpus, for comparing two versions of skbn fit by fit.

Run once per version (``PYTHONPATH`` picks the checkout), then compare::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=/path/to/A python benchmarks/sem_em_corpus.py run > a.jsonl
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=/path/to/B python benchmarks/sem_em_corpus.py run > b.jsonl

(the script imports the ``skbn`` that ``PYTHONPATH`` gives, so it can run version A from B's
checkout).
    python benchmarks/sem_em_corpus.py compare a.jsonl b.jsonl

Data (seeds 0 and 1): ASIA (500 rows, 15% of the cells missing completely at random), SURVEY
(400, 20%), CHILD (500, 10%), bnlearn's ``gaussian.test`` and ``clgaussian.test`` (400 rows
drawn, 10%; CSVs given by ``--gaussian`` and ``--clg``, skipped when absent), ASIA (300, 5%)
with a latent binary node ``H``. Learners, all ``missing="em"``, ``random_state=0``: hill
climbing, tabu search, GES, MMHC, K2, Chow-Liu, the exact search (at most 8 columns). One
JSON line per fit: edges, ``em_n_iter_``, ``em_trace_`` (exact, as hex floats), CPU time and
the warnings; ``compare`` lists the fits whose edges, ``em_n_iter_`` or ``em_trace_`` differ.
"""

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import skbn
from skbn import ChowLiuTree, ExactStructure, GESStructure, HillClimbStructure, K2Structure, MMHCStructure
from skbn.io import read_bif

#: The networks (not benchmarks/_common.py's, which imports the checkout it lies in: this
#: script runs the skbn that PYTHONPATH gives); SKBN_SHARED_NETWORKS overrides them.
NETWORKS = Path(os.environ.get("SKBN_SHARED_NETWORKS", Path(skbn.__file__).parent / "_networks"))

LEARNERS = {
    "hc": lambda: HillClimbStructure(missing="em", random_state=0),
    "tabu": lambda: HillClimbStructure(search="tabu", missing="em", random_state=0),
    "ges": lambda: GESStructure(missing="em", random_state=0),
    "mmhc": lambda: MMHCStructure(missing="em", random_state=0),
    "k2": lambda: K2Structure(missing="em", random_state=0),
    "chowliu": lambda: ChowLiuTree(missing="em", random_state=0),
    "exact": lambda: ExactStructure(missing="em", random_state=0),
}
KEYS = ("edges", "n_iter", "trace", "error")


def mcar(frame, rate, seed):
    mask = np.random.default_rng(seed).random(frame.shape) < rate
    return frame.astype(object).mask(mask)


def corpus(gaussian, clg):
    data = {}
    for seed in (0, 1):
        for name, n, rate in (("asia", 500, 0.15), ("survey", 400, 0.2), ("child", 500, 0.1)):
            net = read_bif(NETWORKS / f"{name}.bif")
            rows = mcar(net.sample(n, random_state=seed), rate, seed + 1)
            data[f"{name}{n}-{rate:.0%}-s{seed}"] = (rows, {})
        for name, path in (("gauss", gaussian), ("clg", clg)):
            try:
                x = pd.read_csv(path).sample(400, random_state=seed).reset_index(drop=True)
            except FileNotFoundError:
                continue
            x = mcar(x, 0.1, seed + 1).infer_objects()
            data[f"{name}400-10%-s{seed}"] = (x.astype(float) if name == "gauss" else x, {})
        data[f"asia300-latent-s{seed}"] = (
            mcar(read_bif(NETWORKS / "asia.bif").sample(300, random_state=seed), 0.05, seed + 1),
            {"latent": {"H": 2}})
    return data


def run(args):
    for dname, (x, extra) in corpus(args.gaussian, args.clg).items():
        for lname, make in LEARNERS.items():
            if lname == "exact" and x.shape[1] > 8:
                continue
            est = make().set_params(**extra)
            start = time.process_time()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    est.fit(x)
                    out = dict(edges=sorted(map(list, est.edges_)), n_iter=int(est.em_n_iter_),
                               trace=[float(v).hex() for v in est.em_trace_])
                except Exception as exc:  # (reported per fit, compared like a result)
                    out = dict(error=f"{type(exc).__name__}: {exc}"[:200])
            out.update(data=dname, learner=lname, cpu=round(time.process_time() - start, 2),
                       warnings=sorted({f"{w.category.__name__}: {str(w.message)[:80]}" for w in caught}))
            print(json.dumps(out), flush=True)


def compare(args):
    a = [json.loads(line) for line in open(args.a)]
    b = [json.loads(line) for line in open(args.b)]
    same_by_learner = {}
    for x, y in zip(a, b, strict=True):
        same = all(x.get(k) == y.get(k) for k in KEYS)
        same_by_learner.setdefault(x["learner"], []).append(same)
        if not same:
            objective = [float.fromhex(r["trace"][-1]) if "trace" in r else float("nan") for r in (x, y)]
            print(f"{x['data']:24s} {x['learner']:8s} em_n_iter_ {x.get('n_iter')} -> {y.get('n_iter')}, "
                  f"edges {len(x.get('edges', []))} -> {len(y.get('edges', []))}, final objective "
                  f"{objective[0]:.2f} -> {objective[1]:.2f}, CPU {x['cpu']} -> {y['cpu']} s")
    n_same = sum(sum(v) for v in same_by_learner.values())
    print(f"{n_same} of {len(a)} fits identical (edges, em_n_iter_, em_trace_):",
          ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in same_by_learner.items()))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--gaussian", default="/work/rdata/bn_gaussian.test.csv")
    r.add_argument("--clg", default="/work/rdata/bn_clgaussian.test.csv")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = parser.parse_args()
    run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    main()
