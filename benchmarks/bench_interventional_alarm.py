"""How much do hard interventions on 5 nodes of ALARM orient? (discrete data)

Target: "on ALARM with hard interventions on 5 nodes, the interventional class leaves <= 50%
of the undirected edges that the observational CPDAG leaves."

Data: ``n_obs`` observational rows of ALARM (``../shared/networks/alarm.bif``) plus, for
each of the 5 target nodes, ``n_int`` rows with ``do(node = s)``, the state ``s`` cycling
through the node's states (equal numbers of rows per state). Two ways of choosing the 5
nodes:

* ``most-undirected``: the nodes with the most undirected incident edges in the CPDAG of
  the true DAG (ties: column order);
* ``random``: 5 nodes drawn uniformly, one draw per seed;

each with several data seeds (a learned class on ALARM varies a lot with the sample: the
ventilation block's near-deterministic families are sometimes learned with extra,
unorientable edges, with or without interventions).

For each choice the table gives the undirected edges of

* ``true CPDAG`` / ``true I-EG``: the CPDAG of the true DAG and its interventional
  essential graph for the targets (the observational rows are the empty target);
* ``GES`` / ``GIES``: ``GESStructure().fit(obs)`` on observational rows only (the same
  total number of rows), and ``GESStructure().fit(X, interventions=mask)`` (GIES);
* ``HC`` / ``HC+I``: ``HillClimbStructure()`` the same way (its ``interventional_cpdag_``);

and the ratio (interventional / observational) of each pair (per run in ``GES+I/GES``, ...,
and of the sums over the data seeds), with the structural Hamming distance of each learned
graph to the true one's class (CPDAG or I-essential graph), and the score each learner's
graph reaches minus the true DAG's score on the same rows
(``GES-true``, ``GES+I-true``, ...: a negative number is a search failure, since the truth
scores higher), and the CPU time of each fit (``GES s``, ``GES+I s``, ...).
BDeu(ess=1) everywhere (the interventional BDe of Cooper & Yoo for the experimental rows).
Further learners: ``--restarts k`` adds ``GESStructure(n_restarts=k, random_state=0)``
(``GESr``); ``--edge-restarts k`` adds ``GESStructure(edge_restarts=k)`` (``GESe``,
deterministic restarts from the best class with one edge deleted, weakest edge first);
``--no-hc`` leaves hill climbing out. Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_interventional_alarm.py [--quick]
        [--n-obs 5000 --n-int 1000] [--choices most-undirected] [--seeds 0 1 2] [--restarts 5]
        [--edge-restarts 10] [--no-hc]
"""

import argparse
import time

import numpy as np
import pandas as pd
from _common import load_shared

from skbn import GESStructure, HillClimbStructure
from skbn.graph import dag_to_cpdag, interventional_essential_graph
from skbn.metrics import structural_hamming_distance


def sample_with_targets(net, targets, n_obs, n_int, seed):
    """Observational rows, then ``n_int`` rows per target with the target set (its states in
    turn); the boolean intervention mask over the columns."""
    parts, masks = [net.sample(n_obs, random_state=seed)], [np.zeros((n_obs, len(net.nodes)), dtype=bool)]
    column = {node: i for i, node in enumerate(net.nodes)}
    for k, node in enumerate(targets):
        states = net.states[node]
        counts = np.full(len(states), n_int // len(states))
        counts[: n_int - counts.sum()] += 1
        for j, (state, n) in enumerate(zip(states, counts)):
            parts.append(net.sample(int(n), random_state=seed + 1 + 100 * k + j, do={node: state}))
            mask = np.zeros((int(n), len(net.nodes)), dtype=bool)
            mask[:, column[node]] = True
            masks.append(mask)
    X = pd.concat(parts, ignore_index=True)
    for c in X.columns:  # every state declared, whatever the rows hold
        X[c] = pd.Categorical(X[c], categories=net.states[c])
    return X, np.vstack(masks)


def observational(net, n, seed):
    X = net.sample(n, random_state=seed)
    for c in X.columns:
        X[c] = pd.Categorical(X[c], categories=net.states[c])
    return X


def run(net, targets, n_obs, n_int, seed, learners):
    edges = list(net.edges)
    true_cpdag = dag_to_cpdag(net.nodes, edges)
    true_ieg = interventional_essential_graph(net.nodes, edges, [(), *[(t,) for t in targets]])
    X, mask = sample_with_targets(net, targets, n_obs, n_int, seed)
    obs = observational(net, len(X), seed + 7)
    row = {"true CPDAG": len(true_cpdag.undirected), "true I-EG": len(true_ieg.undirected)}
    # the true DAG's score on each data set: a hill climb from it that takes no step
    truth = HillClimbStructure(start=edges, max_iter=0, fit_parameters=False)
    true_obs = truth.fit(obs).score_
    true_int = truth.fit(X, interventions=mask).score_
    for name, make in learners.items():
        start = time.process_time()
        fitted = make().fit(obs)
        plain = fitted.interventional_cpdag_
        t_obs = time.process_time() - start
        row[name + "-true"] = fitted.score_ - true_obs
        start = time.process_time()
        fitted = make().fit(X, interventions=mask)
        inter = fitted.interventional_cpdag_
        t_int = time.process_time() - start
        row[name + "+I-true"] = fitted.score_ - true_int
        row[name] = len(plain.undirected)
        row[name + "+I"] = len(inter.undirected)
        row[name + " SHD"] = structural_hamming_distance(true_cpdag, plain)
        row[name + "+I SHD"] = structural_hamming_distance(true_ieg, inter)
        row[name + " s"] = t_obs
        row[name + "+I s"] = t_int
        row[f"{name}+I/{name}"] = row[name + "+I"] / row[name] if row[name] else np.inf
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-obs", type=int, default=5000)
    parser.add_argument("--n-int", type=int, default=1000)
    parser.add_argument("--choices", nargs="*", default=None,
                        help="only these target choices (e.g. most-undirected 'random 0')")
    parser.add_argument("--seeds", type=int, nargs="*", default=None, help="data seeds")
    parser.add_argument("--restarts", type=int, default=0,
                        help="also GESStructure(n_restarts=k, random_state=0) (GESr)")
    parser.add_argument("--edge-restarts", type=int, default=0,
                        help="also GESStructure(edge_restarts=k) (GESe)")
    parser.add_argument("--no-hc", action="store_true", help="leave out HillClimbStructure")
    args = parser.parse_args()
    net = load_shared("alarm")
    nodes = list(net.nodes)
    cpdag = dag_to_cpdag(nodes, list(net.edges))
    degree = {v: 0 for v in nodes}
    for u, v in cpdag.undirected:
        degree[u] += 1
        degree[v] += 1
    ranked = sorted(nodes, key=lambda v: (-degree[v], nodes.index(v)))
    choices = [("most-undirected", ranked[:5])]
    for seed in range(2 if args.quick else 5):
        rng = np.random.default_rng(seed)
        drawn = rng.choice(nodes, 5, replace=False).tolist()
        choices.append((f"random {seed}", sorted(drawn, key=nodes.index)))
    if args.choices is not None:
        choices = [(label, targets) for label, targets in choices if label in args.choices]
    data_seeds = range(2 if args.quick else 3) if args.seeds is None else args.seeds
    learners = {"GES": GESStructure}
    if args.edge_restarts:
        learners["GESe"] = lambda: GESStructure(edge_restarts=args.edge_restarts)
    if args.restarts:
        learners["GESr"] = lambda: GESStructure(n_restarts=args.restarts, random_state=0)
    if not args.no_hc:
        learners["HC"] = HillClimbStructure
    print(f"ALARM: {args.n_obs} observational rows + {args.n_int} rows per target (5 targets); "
          f"observational fits on as many observational rows; data seeds {list(data_seeds)}")
    names = list(learners)
    header = (["choice", "data seed", "true CPDAG", "true I-EG"]
              + [f"{n}{i}" for n in names for i in ("", "+I")]
              + [f"{n}{i} SHD" for n in names for i in ("", "+I")]
              + [f"{n}{i}-true" for n in names for i in ("", "+I")]
              + [f"{n}+I/{n}" for n in names]
              + [f"{n}{i} s" for n in names for i in ("", "+I")])
    counted = 4 + 2 * len(names)  # the undirected-edge columns end here
    rows = []
    for label, targets in choices:
        print(f"{label}: {', '.join(targets)}")
        for data_seed in data_seeds:
            row = run(net, targets, args.n_obs, args.n_int, 1000 * data_seed, learners)
            row["choice"], row["data seed"] = label, data_seed
            rows.append(row)
    frame = pd.DataFrame(rows)[header]
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    pairs = [("true I-EG", "true CPDAG")] + [(n + "+I", n) for n in names]
    totals = frame.groupby("choice", sort=False)[header[2:counted]].sum()
    for a, b in pairs:
        totals[f"{a}/{b}"] = (totals[a] / totals[b]).round(2)
    print("\nundirected edges summed over the data seeds, and the ratios of the sums:")
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(totals.to_string())
    medians = frame.groupby("choice", sort=False)[header[2:counted]].median()
    print("\nmedian undirected edges over the data seeds:")
    print(medians.to_string())
    every = frame[header[2:counted]].sum()
    print("all choices: " + ", ".join(f"{a}/{b} = {every[a] / every[b]:.2f}" for a, b in pairs))


if __name__ == "__main__":
    main()
