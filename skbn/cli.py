"""The ``skbn`` command line: learn, score, query, sample and compare Bayesian networks.

``skbn <command> --help`` shows each command's options and examples; docs/cli.md is the
guide. Run as the console script ``skbn`` or as ``python -m skbn``; without a command
(``python -m skbn``, ``python -m skbn --n-samples 2000``) it runs :func:`run_demo`.

Every error is one line on stderr and a non-zero exit status: 1 for a problem with the
input (a missing file, an unknown column, a parameter the method cannot honour), 2 for a
malformed command line (argparse), 3 for an unexpected failure (``--debug`` shows the
traceback).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["main", "run_demo"]

#: ``skbn learn --method`` -> (estimator class name in skbn.estimators, fixed parameters).
METHODS = {
    "hill_climb": ("HillClimbStructure", {"search": "hill_climb"}),
    "tabu": ("HillClimbStructure", {"search": "tabu"}),
    "multistart_tabu": ("HillClimbStructure", {"search": "multistart_tabu"}),
    "ges": ("GESStructure", {}),
    "pc": ("PCStructure", {}),
    "exact": ("ExactStructure", {}),
    "k2": ("K2Structure", {}),
    "chow_liu": ("ChowLiuTree", {}),
    "mmhc": ("MMHCStructure", {}),
}
SCORES = ("bdeu", "k2", "bic", "aic", "loglik")
CI_TESTS = ("chi_square", "g_test", "bayes_factor")
COMMANDS = ("demo", "learn", "score", "query", "sample", "compare")

#: Exit statuses.
EXIT_INPUT_ERROR, EXIT_USAGE, EXIT_UNEXPECTED = 1, 2, 3


class CommandError(Exception):
    """A problem with the command line or its input, reported as one line."""


# ---------------------------------------------------------------------- reading / writing
def read_table(path, sep=","):
    """Read a data file: CSV (every column as text labels, empty cells missing) or Parquet.

    CSV cells are read as strings so that the labels match a model's states exactly
    (``"1"`` stays ``"1"``); Parquet keeps its column types. Parquet needs pyarrow.
    """
    path = Path(path)
    if not path.is_file():
        raise CommandError(f"no such data file: {str(path)!r}")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise CommandError("reading Parquet needs pyarrow: pip install pyarrow") from None
        return pd.read_parquet(path)
    try:
        return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=True)
    except pd.errors.ParserError as exc:
        raise CommandError(f"cannot parse {str(path)!r} as CSV: {exc}".strip()) from None
    except pd.errors.EmptyDataError:
        raise CommandError(f"{str(path)!r} is empty") from None


def read_model(path):
    """A network from a ``.bif`` or ``.json`` file (or a built-in name such as ``asia``)."""
    from skbn.datasets import load_network
    from skbn.io import read_json

    text = str(path)
    if text.lower().endswith(".json"):
        if not Path(text).is_file():
            raise CommandError(f"no such model file: {text!r}")
        return read_json(text)
    return load_network(text)


def write_model(network, path):
    """Write ``network`` as BIF or JSON, chosen by the file extension."""
    from skbn.io import write_bif, write_json

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        write_json(network, path)
    elif suffix == ".bif":
        write_bif(network, path)
    else:
        raise CommandError(f"cannot tell the model format of {str(path)!r}: use a .bif or "
                           f".json file name")


def write_dot(nodes, directed, undirected, path):
    """Graphviz DOT: directed edges as arrows, undirected (CPDAG) edges with ``dir=none``."""
    def quote(name):
        return '"' + str(name).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph {"]
    lines += [f"  {quote(v)};" for v in nodes]
    lines += [f"  {quote(u)} -> {quote(v)};" for u, v in directed]
    lines += [f"  {quote(u)} -> {quote(v)} [dir=none];" for u, v in undirected]
    Path(path).write_text("\n".join(lines + ["}"]) + "\n")


def align_to_model(frame, network):
    """Map each cell to the model state whose ``str`` equals the cell's ``str``.

    CSV cells are strings while a JSON model may have integer or boolean states (and a
    Parquet column integers against a BIF model's string states): matching by text makes
    both work. Missing cells stay missing; unknown labels are left for the network to
    report by column and value.
    """
    unknown = [c for c in frame.columns if c not in network.states]
    if unknown:
        raise CommandError(f"column(s) {unknown!r} are not nodes of the model "
                           f"(nodes: {network.nodes!r})")
    aligned = {}
    for column in frame.columns:
        by_text = {str(state): state for state in network.states[column]}
        aligned[column] = [value if pd.isna(value) else by_text.get(str(value), value)
                           for value in frame[column].astype(object)]
    return pd.DataFrame(aligned, index=frame.index)


def node_of(network, text):
    """The node whose text is ``text`` (node names of a JSON model may be numbers)."""
    for node in network.nodes:
        if str(node) == text:
            return node
    raise CommandError(f"unknown node {text!r} (nodes: {[str(v) for v in network.nodes]!r})")


def state_of(network, node, text):
    """The state of ``node`` whose text is ``text`` (for --evidence)."""
    for state in network.states[node]:
        if str(state) == text:
            return state
    raise CommandError(f"unknown state {text!r} of {node!r} (states: "
                       f"{[str(s) for s in network.states[node]]!r})")


def read_edge_list(path, option):
    """(from, to) pairs from a CSV file with two columns; a header row is optional."""
    frame = read_table(path)
    if frame.shape[1] != 2:
        raise CommandError(f"{option} {str(path)!r}: expected two columns (from, to), "
                           f"found {frame.shape[1]}")
    pairs = [tuple(row) for row in frame.itertuples(index=False, name=None)]
    header = [str(c) for c in frame.columns]
    if [h.lower() for h in header] not in (["from", "to"], ["parent", "child"],
                                            ["source", "target"]):
        pairs.insert(0, tuple(header))
    return pairs


def read_tiers(spec):
    """``--tiers``: a CSV file of ``column,tier`` rows, or inline ``"a,b > c > d,e"``.

    Inline: tiers separated by ``>``, columns within a tier by commas; earlier tiers come
    first (no edge from a later tier into an earlier one). File: tier numbers (smaller =
    earlier), any order; a header row ``column,tier`` is optional.
    """
    if Path(spec).is_file():
        frame = pd.read_csv(spec, dtype=str, header=None)
        if frame.shape[1] != 2:
            raise CommandError(f"--tiers {spec!r}: expected two columns (column, tier)")
        rows = [tuple(r) for r in frame.itertuples(index=False, name=None)]
        if rows and str(rows[0][1]).strip().lower() == "tier":
            rows = rows[1:]  # header
        ranks = {}
        for column, tier in rows:
            try:
                ranks.setdefault(int(tier), []).append(str(column).strip())
            except ValueError:
                raise CommandError(f"--tiers {spec!r}: tier of {column!r} is {tier!r}, "
                                   f"not an integer") from None
        if not ranks:
            raise CommandError(f"--tiers {spec!r}: the file lists no column")
        return [ranks[k] for k in sorted(ranks)]
    if ">" not in spec and "," not in spec:
        raise CommandError(f"--tiers {spec!r}: no such file, and not the inline form "
                           f"'a,b > c > d'")
    tiers = [[c.strip() for c in tier.split(",") if c.strip()] for tier in spec.split(">")]
    if any(not tier for tier in tiers):
        raise CommandError(f"--tiers {spec!r}: a tier is empty")
    return tiers


# ---------------------------------------------------------------------- learn
def _estimator_class(method):
    import skbn.estimators

    class_name, fixed = METHODS[method]
    cls = getattr(skbn.estimators, class_name, None)
    if cls is None:
        raise CommandError(f"--method {method}: {class_name} is not available in this "
                           f"version of skbn")
    return cls, dict(fixed)


def build_estimator(args, data):
    """The estimator for ``skbn learn``: only parameters the method accepts, else an error."""
    from skbn.citests import resolve_ci_test
    from skbn.scores import resolve_scorer

    cls, params = _estimator_class(args.method)
    accepted = cls().get_params()

    def need(parameter, option, value):
        if parameter not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"({cls.__name__} has no {parameter!r} parameter)")
        params[parameter] = value

    if args.score is not None or args.ess is not None:
        option = "--score" if args.score is not None else "--ess"
        if "scorer" not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"(it is not score-based)")
        scorer = resolve_scorer(args.score if args.score is not None else accepted["scorer"])
        if args.ess is not None:
            if "ess" not in scorer.get_params():
                raise CommandError(f"--ess needs a score with an equivalent sample size "
                                   f"(--score bdeu), not {type(scorer).__name__}")
            scorer.set_params(ess=args.ess)
        params["scorer"] = scorer
    if args.alpha is not None or args.ci_test is not None:
        option = "--alpha" if args.alpha is not None else "--ci-test"
        if "ci_test" not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"(it uses no conditional independence test)")
        test = resolve_ci_test(args.ci_test if args.ci_test is not None
                               else accepted["ci_test"])
        if args.alpha is not None:
            if "alpha" not in test.get_params():
                raise CommandError(f"--alpha does not apply to the {type(test).__name__} "
                                   f"test")
            test.set_params(alpha=args.alpha)
        params["ci_test"] = test
    if args.max_indegree is not None:
        name = "max_parents" if "max_parents" in accepted else "max_indegree"
        need(name, "--max-indegree", args.max_indegree)
    if args.black_list is not None:
        need("black_list", "--black-list", read_edge_list(args.black_list, "--black-list"))
    if args.white_list is not None:
        need("white_list", "--white-list", read_edge_list(args.white_list, "--white-list"))
    if args.tiers is not None:
        need("tiers", "--tiers", read_tiers(args.tiers))
    if args.ordering is not None:
        need("ordering", "--ordering", [c.strip() for c in args.ordering.split(",")])
    if args.target is not None:
        need("target", "--target", args.target)
    if args.missing is not None:
        need("missing", "--missing", args.missing)
    if args.n_jobs is not None:
        need("n_jobs", "--n-jobs", args.n_jobs)
    if args.random_state is not None and "random_state" in accepted:
        params["random_state"] = args.random_state  # deterministic methods need none
    if args.missing is None and "missing" not in accepted and data.isna().to_numpy().any():
        column = data.columns[data.isna().any().to_numpy()][0]
        raise CommandError(f"the data have missing values (first in column {column!r}) and "
                           f"--method {args.method} cannot handle them: drop or impute them")
    return cls(**params)


def undirected_edges(model):
    """CPDAG learners' reversible edges (empty for DAG learners)."""
    return list(getattr(model, "undirected_edges_", ()))


def directed_edges(model):
    """Edges to draw as arrows: the compelled ones for CPDAG learners, else ``edges_``."""
    if hasattr(model, "undirected_edges_"):
        return list(model.directed_edges_)
    return list(model.edges_)


def cmd_learn(args, log):
    if args.png is not None:  # fail before fitting; files only, never a window
        try:
            import matplotlib
        except ImportError:
            raise CommandError("--png needs matplotlib: pip install skbn[plot]") from None
        matplotlib.use("Agg")
    start = time.perf_counter()
    data = read_table(args.data, sep=args.sep)
    log(f"read {args.data}: {data.shape[0]} rows, {data.shape[1]} columns "
        f"({time.perf_counter() - start:.2f} s)")
    model = build_estimator(args, data)
    log(f"fitting {model!r}")
    start = time.perf_counter()
    model.fit(data)
    log(f"fitted in {time.perf_counter() - start:.2f} s")

    directed, undirected = directed_edges(model), undirected_edges(model)
    print(f"{type(model).__name__} ({args.method}) on {args.data}: {data.shape[0]} rows, "
          f"{data.shape[1]} variables, {len(directed) + len(undirected)} edges")
    for parent, child in directed:
        print(f"  {parent} -> {child}")
    for u, v in undirected:
        print(f"  {u} -- {v}   (direction not identifiable)")
    if hasattr(model, "score_"):
        print(f"score ({type(model.scorer_).__name__}): {model.score_:.4f}")
    print(f"mean log-likelihood of the training rows: {model.score(data):.4f}")

    if args.output is not None:
        write_model(model.network_, args.output)
        log(f"model written to {args.output}")
    if args.dot is not None:
        write_dot(model.network_.nodes, directed, undirected, args.dot)
        log(f"DOT written to {args.dot}")
    if args.png is not None:
        import matplotlib.pyplot as plt

        from skbn.plotting import plot_network

        ax = plot_network(model, title=f"{args.method} on {Path(args.data).name}")
        ax.figure.savefig(args.png, dpi=120, bbox_inches="tight")
        plt.close(ax.figure)
        log(f"picture written to {args.png}")
    return 0


# ---------------------------------------------------------------------- other commands
def cmd_score(args, log):
    network = read_model(args.model)
    data = align_to_model(read_table(args.data, sep=args.sep), network)
    start = time.perf_counter()
    log_likelihood = network.log_likelihood(data)
    log(f"scored {len(data)} rows in {time.perf_counter() - start:.2f} s")
    finite = np.isfinite(log_likelihood)
    print(f"rows: {len(data)}")
    print(f"mean log-likelihood: {np.mean(log_likelihood):.6f}")
    if not finite.all():
        print(f"rows with probability 0: {int((~finite).sum())}")
    if args.per_row is not None:
        pd.DataFrame({"log_likelihood": log_likelihood}).to_csv(args.per_row, index=False)
        log(f"per-row log-likelihoods written to {args.per_row}")
    return 0


def parse_evidence(network, items):
    evidence = {}
    for item in items:
        node, sep, text = item.partition("=")
        if not sep or not node:
            raise CommandError(f"--evidence {item!r}: expected NODE=STATE")
        node = node_of(network, node)
        evidence[node] = state_of(network, node, text)
    return evidence


def cmd_query(args, log):
    network = read_model(args.model)
    evidence = parse_evidence(network, args.evidence)
    targets = [node_of(network, text) for text in args.target]
    start = time.perf_counter()
    posterior = network.query(targets, evidence=evidence)
    log(f"query answered in {time.perf_counter() - start:.3f} s")
    given = ", ".join(f"{k}={v}" for k, v in evidence.items())
    print(f"P({', '.join(args.target)}{' | ' + given if given else ''})")
    print(posterior.to_frame().to_string(float_format=lambda x: f"{x:.6f}"))
    return 0


def cmd_sample(args, log):
    network = read_model(args.model)
    if args.n_samples < 0:
        raise CommandError(f"-n must be non-negative, got {args.n_samples}")
    start = time.perf_counter()
    rows = network.sample(args.n_samples, random_state=args.random_state)
    log(f"sampled {args.n_samples} rows in {time.perf_counter() - start:.2f} s")
    if args.output is None:
        rows.to_csv(sys.stdout, index=False)
    elif Path(args.output).suffix.lower() in (".parquet", ".pq"):
        rows.to_parquet(args.output, index=False)
    else:
        rows.to_csv(args.output, index=False, sep=args.sep)
        print(f"{args.n_samples} rows written to {args.output}")
    return 0


def cmd_compare(args, log):
    from skbn.metrics import (
        arrowhead_scores,
        skeleton_scores,
        structural_hamming_distance,
    )

    truth, learned = read_model(args.true), read_model(args.learned)
    if set(truth.nodes) != set(learned.nodes):
        extra = sorted(map(str, set(learned.nodes) ^ set(truth.nodes)))
        raise CommandError(f"the two models have different nodes (not in both: {extra!r})")
    nodes = truth.nodes
    shd = structural_hamming_distance(truth.edges, learned.edges, nodes=nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, learned.edges, nodes=nodes, cpdag=True)
    print(f"true: {args.true} ({len(truth.edges)} edges); learned: {args.learned} "
          f"({len(learned.edges)} edges)")
    print(f"SHD: {shd}")
    print(f"CPDAG SHD: {cpdag_shd}")
    print(f"{'':10s} {'precision':>9s} {'recall':>7s} {'F1':>7s}")
    for label, scores in (("skeleton", skeleton_scores(truth.edges, learned.edges)),
                          ("arrowhead", arrowhead_scores(truth.edges, learned.edges))):
        print(f"{label:10s} {scores['precision']:9.3f} {scores['recall']:7.3f} "
              f"{scores['f1']:7.3f}")
    return 0


# ---------------------------------------------------------------------- demo
DEMO_ESTIMATORS = ("hill_climb", "tabu", "ges", "pc", "exact", "k2", "chow_liu")


def run_demo(network="asia", estimator="hill_climb", n_samples=10_000, random_state=0):
    """Learn a known network back from rows sampled from it and print how close it got.

    Prints the learned edges, the structural Hamming distance to the truth and the
    held-out mean log-likelihood next to the true network's. ``k2`` uses the true
    topological ordering.

    Parameters
    ----------
    network : str or path-like, default="asia"
        A built-in network name or a ``.bif`` file (:func:`skbn.datasets.load_network`).
    estimator : str, default="hill_climb"
        A learner of ``skbn learn --method``: "hill_climb", "tabu", "ges", "pc", "exact",
        "k2", "chow_liu" or "mmhc".
    n_samples : int, default=10_000
        Number of training rows sampled from the network (the held-out set has
        ``max(n_samples // 2, 1000)`` rows).
    random_state : int, default=0
        Seed of the training sample; the held-out sample uses ``random_state + 1``.
    """
    from skbn.datasets import load_network
    from skbn.metrics import structural_hamming_distance

    truth = load_network(network)
    train = truth.sample(n_samples, random_state=random_state)
    test = truth.sample(max(n_samples // 2, 1000), random_state=random_state + 1)
    cls, params = _estimator_class(estimator)
    if estimator == "k2":
        params.update(ordering=truth.topological_order(), scorer="bdeu")
    model = cls(**params)
    start = time.perf_counter()
    model.fit(train)
    elapsed = time.perf_counter() - start

    print(f"{type(model).__name__} on {network}: {len(truth.nodes)} variables, "
          f"{n_samples} rows, fit in {elapsed:.3f} s")
    print("learned edges:")
    true_edges = set(truth.edges)
    for parent, child in model.edges_:
        mark = "" if (parent, child) in true_edges else "   (not in the true network)"
        print(f"  {parent} -> {child}{mark}")
    shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes,
                                            cpdag=True)
    print(f"structural Hamming distance to the truth: {shd} "
          f"(between equivalence classes: {cpdag_shd})")
    print(f"held-out mean log-likelihood: learned {model.score(test):.4f}, "
          f"true network {np.mean(truth.log_likelihood(test)):.4f}")


def cmd_demo(args, log):
    run_demo(args.network, args.estimator, args.n_samples, args.random_state)
    return 0


# ---------------------------------------------------------------------- parser
MAIN_EPILOG = """\
examples:
  skbn demo --n-samples 2000                      learn ASIA back from 2000 sampled rows
  skbn learn survey.csv --method tabu -o m.bif --png m.png
  skbn score m.bif test.csv --per-row ll.csv
  skbn query m.bif --target T --evidence A=young S=F
  skbn sample m.bif -n 1000 -o rows.csv --random-state 0
  skbn compare true.bif m.bif

Without a command, `skbn [--n-samples N ...]` runs the demo. docs/cli.md has the details.
"""

LEARN_EPILOG = """\
examples:
  skbn learn data.csv                                  hill climbing with BDeu
  skbn learn data.csv --method tabu --score bic -o model.bif --png model.png
  skbn learn data.csv --method pc --alpha 0.01 --dot cpdag.dot
  skbn learn data.csv --score bdeu --ess 10 --max-indegree 3 --black-list forbidden.csv
  skbn learn data.csv --tiers "age,sex > education > occupation,residence > travel"

--black-list / --white-list: CSV files of (from, to) rows, header optional.
--tiers: a CSV file of column,tier rows (smaller tier = earlier), or inline tiers
separated by '>' with commas inside a tier; no edge may point into an earlier tier.
Options a method cannot honour are errors (e.g. --alpha with hill_climb).
"""


def _add_common(parser):
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="progress and timings on stderr")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an unexpected error")


def build_parser():
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="skbn", formatter_class=formatter, epilog=MAIN_EPILOG,
        description="Learn, score, query, sample and compare discrete Bayesian networks.")
    from skbn import __version__

    parser.add_argument("--version", action="version", version=f"skbn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo", formatter_class=formatter, help="learn a known network back from samples",
        description=run_demo.__doc__.splitlines()[0],
        epilog="examples:\n  skbn demo\n  skbn demo --network alarm.bif --estimator pc "
               "--n-samples 5000\n")
    demo.add_argument("--network", default="asia", help="built-in name or path to a .bif file")
    demo.add_argument("--estimator", choices=DEMO_ESTIMATORS, default="hill_climb",
                      help="k2 uses the true topological ordering")
    demo.add_argument("--n-samples", type=int, default=10_000)
    demo.add_argument("--random-state", type=int, default=0)
    _add_common(demo)
    demo.set_defaults(handler=cmd_demo)

    learn = commands.add_parser(
        "learn", formatter_class=formatter, help="learn a network from a data file",
        description="Learn the structure and the CPTs of a network from a CSV or Parquet "
                    "file of discrete columns; print the edges and the score.",
        epilog=LEARN_EPILOG)
    learn.add_argument("data", help="CSV (read as text labels) or Parquet file")
    learn.add_argument("--method", choices=list(METHODS), default="hill_climb")
    learn.add_argument("--score", choices=SCORES, help="score of score-based methods")
    learn.add_argument("--ess", type=float, help="equivalent sample size of --score bdeu")
    learn.add_argument("--ci-test", choices=CI_TESTS,
                       help="independence test of constraint-based methods")
    learn.add_argument("--alpha", type=float, help="level of the independence test")
    learn.add_argument("--max-indegree", type=int, help="largest number of parents")
    learn.add_argument("--black-list", metavar="CSV", help="forbidden (from, to) edges")
    learn.add_argument("--white-list", metavar="CSV", help="required (from, to) edges")
    learn.add_argument("--tiers", metavar="CSV_OR_SPEC", help="temporal tiers (see below)")
    learn.add_argument("--ordering", metavar="A,B,...", help="variable ordering for k2")
    learn.add_argument("--target", help="column to predict (predict_proba of the model)")
    learn.add_argument("--missing", metavar="STRATEGY",
                       help="how the method handles missing values (methods with a "
                            "'missing' parameter only)")
    learn.add_argument("--n-jobs", type=int, help="parallel workers (joblib)")
    learn.add_argument("--random-state", type=int,
                       help="seed of randomised methods (ignored by deterministic ones)")
    learn.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    learn.add_argument("-o", "--output", metavar="MODEL", help="write the model (.bif or .json)")
    learn.add_argument("--dot", metavar="FILE", help="write the graph in Graphviz DOT")
    learn.add_argument("--png", metavar="FILE",
                       help="draw the graph (needs matplotlib: pip install skbn[plot])")
    _add_common(learn)
    learn.set_defaults(handler=cmd_learn)

    score = commands.add_parser(
        "score", formatter_class=formatter, help="log-likelihood of data under a model",
        description="Mean (and per-row) log-likelihood of a data file under a model; "
                    "missing cells and absent columns are summed out.",
        epilog="examples:\n  skbn score model.bif test.csv\n"
               "  skbn score model.json test.parquet --per-row ll.csv\n")
    score.add_argument("model", help=".bif or .json model")
    score.add_argument("data", help="CSV or Parquet file")
    score.add_argument("--per-row", metavar="CSV", help="write one log-likelihood per row")
    score.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    _add_common(score)
    score.set_defaults(handler=cmd_score)

    query = commands.add_parser(
        "query", formatter_class=formatter, help="posterior of variables given evidence",
        description="Exact posterior distribution of --target given --evidence.",
        epilog="examples:\n  skbn query asia.bif --target lung --evidence smoke=yes xray=yes\n"
               "  skbn query model.json --target T R\n")
    query.add_argument("model", help=".bif or .json model")
    query.add_argument("--target", nargs="+", required=True, metavar="NODE")
    query.add_argument("--evidence", nargs="*", default=[], metavar="NODE=STATE")
    _add_common(query)
    query.set_defaults(handler=cmd_query)

    sample = commands.add_parser(
        "sample", formatter_class=formatter, help="draw rows from a model",
        description="Forward sampling: rows drawn from the model's joint distribution.",
        epilog="examples:\n  skbn sample survey.bif -n 1000 -o survey.csv --random-state 0\n")
    sample.add_argument("model", help=".bif or .json model")
    sample.add_argument("-n", "--n-samples", type=int, default=1000)
    sample.add_argument("-o", "--output", metavar="FILE",
                        help="CSV or Parquet file (default: CSV on stdout)")
    sample.add_argument("--random-state", type=int)
    sample.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    _add_common(sample)
    sample.set_defaults(handler=cmd_sample)

    compare = commands.add_parser(
        "compare", formatter_class=formatter, help="structural distance between two models",
        description="SHD, CPDAG SHD, skeleton and arrowhead precision/recall/F1 of a "
                    "learned model against the true one.",
        epilog="examples:\n  skbn compare true.bif learned.bif\n")
    compare.add_argument("true", help="true .bif or .json model")
    compare.add_argument("learned", help="learned .bif or .json model")
    _add_common(compare)
    compare.set_defaults(handler=cmd_compare)
    return parser


# ---------------------------------------------------------------------- entry point
def main(argv=None):
    """Run the command line; return the exit status (0 on success).

    Without a command the demo runs, so ``python -m skbn --n-samples 2000`` works as before
    the subcommands existed.

    Parameters
    ----------
    argv : list of str or None, default=None
        The command-line arguments, without the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        The exit status: 0 on success, 1 for a problem with the input, 2 for a malformed
        command line, 3 for an unexpected failure (130 when interrupted).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    leading = 0  # `skbn -v learn ...` means `skbn learn ... -v`
    while leading < len(argv) and argv[leading] in ("-v", "--verbose", "--debug"):
        leading += 1
    if leading < len(argv) and argv[leading] in COMMANDS:
        argv = argv[leading:] + argv[:leading]
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "demo")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE

    def log(message):
        if args.verbose:
            print(f"[skbn {args.command}] {message}", file=sys.stderr, flush=True)

    try:
        return args.handler(args, log)
    except KeyboardInterrupt:
        print("skbn: interrupted", file=sys.stderr)
        return 130
    except (CommandError, ValueError, TypeError, KeyError, OSError, ImportError,
            NotImplementedError) as exc:
        if args.debug:
            raise
        print(f"skbn {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except Exception as exc:
        if args.debug:
            raise
        print(f"skbn {args.command}: unexpected {type(exc).__name__}: {_one_line(exc)} "
              f"(run again with --debug for the traceback)", file=sys.stderr)
        return EXIT_UNEXPECTED


def _one_line(exc):
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    text = " ".join(text.split())
    return text or type(exc).__name__
