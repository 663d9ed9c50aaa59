"""Time every learner on ALARM and CHILD at 10k and 100k rows, for one checkout of skbn.

Each row also carries a digest of the fitted result (``edges_`` and, where the learner has
them, ``score_``, ``n_tests_``, ``cpdag_``, ``edge_strength_``), so ``--against`` says
whether the two checkouts learned the same thing bit for bit (column ``same``).

Run it once per revision, in the same minute, and compare the two tables (issue: "no
learner gets slower"):

    git worktree add /tmp/skbn-old <old revision>
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_regression.py --checkout /tmp/skbn-old
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_regression.py --checkout .

or let it alternate the two checkouts (one subprocess each per round, ``--rounds`` rounds,
the minimum of every learner kept) and print the ratio new / old:

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_regression.py --checkout . --against /tmp/skbn-old

With ``--against`` the old checkout draws the rows once and both checkouts fit those rows
(``--rows-file``): since 2026-11-29 ``sample()`` breaks its ties by node name, so ALARM and
CHILD draw other rows for the same seed than older revisions did.

Only parameters that every revision accepts are used, so the same script times old and new
code (``search="multistart_tabu"`` where the revision has it). Each fit is the whole ``fit``
(encoding, search, CPTs), best of ``--repeats``. On a shared machine, ``--clock cpu``
(process CPU time, single-threaded BLAS) compares revisions more steadily than wall time;
alternate the checkouts a few times and keep the minima.
"""

import argparse
import hashlib
import json
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    parser.add_argument("--against", help="an older checkout: alternate it with --checkout")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --against")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--sort-columns", action="store_true",
                        help="fit on the columns sorted by name (what a search sees since the tie rule "
                             "of docs/reproducibility.md)")
    parser.add_argument("--rows-file",
                        help="a pickle of the sampled rows: read when it exists, else written; with "
                             "--against the old checkout draws the rows once and both checkouts fit "
                             "them (their samplers may differ: sample() has broken its ties by node "
                             "name since 2026-11-29)")
    parser.add_argument("--sort-against", action="store_true",
                        help="with --against: run the old checkout with --sort-columns, so that 'same' "
                             "tells whether a changed result is only a tie broken by name")
    args = parser.parse_args()
    if args.against:
        return compare(args)
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    sys.path.insert(0, str(Path(args.checkout).resolve()))
    import skbn  # noqa: PLC0415  (first: _common's own imports then resolve inside this checkout)

    # isort: split
    from _common import best_time, load_shared, print_table  # noqa: PLC0415

    from skbn import (  # noqa: PLC0415
        BootstrapStructure,
        ChowLiuTree,
        ExactStructure,
        FixedStructure,
        GESStructure,
        HillClimbStructure,
        K2Structure,
        MMHCStructure,
        OrderMCMCStructure,
        PCStructure,
    )
    from skbn.graph import topological_order  # noqa: PLC0415

    print(f"skbn from {Path(skbn.__file__).parent}")
    samples = {}
    if args.rows_file and Path(args.rows_file).exists():
        with open(args.rows_file, "rb") as f:
            samples = pickle.load(f)
    drawn = False
    rows = []
    for name in ("alarm", "child"):
        net = load_shared(name)
        order = topological_order(net.nodes, net.edges)
        for n in args.rows:
            if (name, n) not in samples:
                samples[name, n], drawn = net.sample(n, random_state=0), True
            data = samples[name, n]
            cases = {
                "hill_climb": HillClimbStructure(),
                "tabu": HillClimbStructure(search="tabu"),
                "ges": GESStructure(),
                "pc": PCStructure(),
                "k2": K2Structure(ordering=order),
                "chow_liu": ChowLiuTree(),
                "mmhc": MMHCStructure(),
                "mmhc (restrict=pc)": MMHCStructure(restrict="pc"),
                "fixed (true DAG)": FixedStructure(edges=list(net.edges)),
                "memetic": HillClimbStructure(search="memetic", random_state=0),
                "bootstrap (5 HC)": BootstrapStructure(n_resamples=5, random_state=0),
            }
            searches = set().union(*(getattr(c, "options", ()) for c in
                                     HillClimbStructure._parameter_constraints["search"]))
            if "multistart_tabu" in searches:
                cases["multistart_tabu"] = HillClimbStructure(search="multistart_tabu")
            if n == args.rows[0]:
                cases["exact (12 vars)"] = ExactStructure(max_indegree=3)
                cases["order_mcmc (12 vars)"] = OrderMCMCStructure(max_indegree=3, n_iter=5_000,
                                                                   random_state=0)
            for label, estimator in cases.items():
                X = data[order[:12]] if "12 vars" in label else data
                if args.sort_columns:
                    X = X[sorted(X.columns)]
                seconds, fitted = best_time(lambda e=estimator, X=X: e.fit(X), args.repeats, clock)
                rows.append({"network": name, "rows": n, "learner": label, "seconds": seconds,
                             "edges": len(fitted.edges_), "digest": digest(fitted),
                             "score": float(getattr(fitted, "score_", float("nan")))})
                print(f"  {name} {n} {label}: {seconds:.3f} s", file=sys.stderr)
    if args.rows_file and drawn:
        with open(args.rows_file, "wb") as f:
            pickle.dump(samples, f)
    if args.json:
        print(json.dumps(rows))
    else:
        print_table(rows, ["network", "rows", "learner", "seconds", "edges"])


def digest(fitted):
    """A short hash of what a fit learned: its edges and the fitted attributes that say how."""
    parts = [repr(sorted(map(tuple, fitted.edges_)))]
    for attribute in ("score_", "n_tests_", "cpdag_", "edge_strength_", "log_likelihood_"):
        value = getattr(fitted, attribute, None)
        if value is not None:
            parts.append(f"{attribute}={value!r}" if not hasattr(value, "to_csv")
                         else f"{attribute}={value.to_csv()}")  # a frame: its text, not its pointers
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


def compare(args):
    """Alternate ``--against`` (old) and ``--checkout`` (new) in subprocesses; print the
    best seconds of each learner and their ratio."""
    from _common import print_table  # noqa: PLC0415

    best = {}
    rows_file = args.rows_file or str(Path(tempfile.mkdtemp()) / "rows.pkl")  # (the old checkout draws them)
    for _ in range(args.rounds):
        for label, checkout in (("old", args.against), ("new", args.checkout)):
            command = [sys.executable, __file__, "--checkout", checkout, "--json", "--clock", args.clock,
                       "--repeats", str(args.repeats), "--rows", *map(str, args.rows),
                       "--rows-file", rows_file]
            if label == "old" and args.sort_against:
                command.append("--sort-columns")
            output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            for row in json.loads(output.splitlines()[-1]):
                key = (row["network"], row["rows"], row["learner"])
                entry = best.setdefault(key, {"network": key[0], "rows": key[1], "learner": key[2]})
                if row["seconds"] < entry.get(f"{label} s", float("inf")):
                    entry[f"{label} s"], entry[f"{label} edges"] = row["seconds"], row["edges"]
                entry[f"{label} score"] = row.get("score", float("nan"))
                entry[f"{label} digest"] = row["digest"]
    rows = [dict(entry, ratio=entry["new s"] / entry["old s"],
                 same="yes" if entry["new digest"] == entry["old digest"] else "NO")
            for entry in best.values() if "old s" in entry and "new s" in entry]
    print(f"old: {args.against}; new: {args.checkout}; best of {args.rounds} x {args.repeats}, "
          f"{args.clock} clock")
    print_table(rows, ["network", "rows", "learner", "old s", "new s", "ratio", "old edges", "new edges",
                       "old score", "new score", "same"])


if __name__ == "__main__":
    main()
