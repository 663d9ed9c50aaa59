"""Gaussian / CLG scores and CI tests: skbn against R bnlearn, largest relative differences.

Run ``PYTHONPATH=$PWD python benchmarks/bench_gaussian_bnlearn.py`` from the repository root.
It regenerates the test data sets of ``tests/test_gaussian.py`` (and, with ``--realdata DIR``,
reads bnlearn's ``gaussian.test.csv`` and ``clgaussian.test.csv`` from ``DIR``), computes every
score per node and every CI test in skbn and in R (``Rscript`` with bnlearn; skipped when
absent), and prints one row per score / test with the largest relative difference. pcalg's
``gaussCItest`` is its documented formula, ``sqrt(n - |S| - 3) * atanh(r)`` with a two-sided
normal p-value, i.e. bnlearn's ``"zf"``: the ``zf`` row covers both.
"""

import argparse
import importlib.util
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("test_gaussian", ROOT / "tests" / "test_gaussian.py")
data_sets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(data_sets)

R_SCRIPT = r"""
suppressPackageStartupMessages(library(bnlearn))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1], check.names = FALSE, stringsAsFactors = TRUE)
for (j in seq_along(x)) if (is.integer(x[[j]])) x[[j]] <- as.numeric(x[[j]])
dag <- model2network(args[2])
for (type in strsplit(args[3], ",")[[1]]) {
  extra <- list()
  name <- type
  if (type == "bge3") { type <- "bge"; extra <- list(iss.mu = 3, iss.w = ncol(x) + 5) }
  s <- do.call(score, c(list(dag, x, type = type, by.node = TRUE), extra))
  for (v in names(s)) cat("score", name, v, sprintf("%.17g", s[[v]]), "\n", sep = "\t")
}
tests <- if (length(args) > 3) strsplit(args[4], ";")[[1]] else character(0)
for (spec in tests) {
  f <- strsplit(spec, "|", fixed = TRUE)[[1]]
  z <- if (length(f) > 3 && nchar(f[4])) strsplit(f[4], ",")[[1]] else NULL
  r <- if (is.null(z)) ci.test(f[2], f[3], data = x, test = f[1]) else
    ci.test(f[2], f[3], z, data = x, test = f[1])
  cat("test", spec, sprintf("%.17g", r$statistic), sprintf("%.17g", r$p.value), "\n", sep = "\t")
}
"""


def model_string(dag):
    return "".join(f"[{v}{'|' + ':'.join(p) if p else ''}]" for v, p in dag.items())


def run_r(frame, dag, scores, tests=()):
    """``{("score", type, node): value, ("test", spec): (statistic, pvalue)}`` from R, or None."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        frame.to_csv(path, index=False)
        out = subprocess.run(["Rscript", "-e", R_SCRIPT, str(path), model_string(dag), ",".join(scores),
                              ";".join(tests)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    result = {}
    for line in out.stdout.splitlines():
        kind, *fields = line.split("\t")
        if kind == "score":
            result["score", fields[0], fields[1]] = float(fields[2])
        elif kind == "test":
            result["test", fields[0]] = (float(fields[1]), float(fields[2]))
    return result


GAUSSIAN_TESTS = ["{k}|x.1|d.e|x 2,c", "{k}|x.1|f g|d.e", "{k}|x 2|c|",
                  "{k}|x.1|f g|x 2,c,d.e"]
CLG_TESTS = ["mi-cg|z|u|s.1,v w", "mi-cg|z|s 2|u", "mi-cg|v w|s.1|s 2,u", "mi-cg|s.1|u|"]
REAL_GAUSSIAN_DAG = {"A": [], "B": [], "C": ["A", "B"], "D": ["B"], "E": [], "F": ["A", "D", "E", "G"],
                     "G": []}
REAL_CLG_DAG = {"A": [], "B": [], "C": [], "H": [], "D": ["A", "H"], "F": ["B", "C"], "E": ["B", "D"],
                "G": ["A", "D", "E", "F"]}


def cases(realdata):
    tests = [t.format(k=k) for k in ("zf", "mi-g", "cor") for t in GAUSSIAN_TESTS]
    yield "gaussian_data()", data_sets.gaussian_data(), data_sets.GAUSSIAN_DAG, (), tests
    yield "clg_data()", data_sets.clg_data(), data_sets.CLG_DAG, data_sets.CLG_DISCRETE, CLG_TESTS
    if realdata:
        real = Path(realdata)
        frame = pd.read_csv(real / "gaussian.test.csv")
        tests = [f"{k}|F|A|D,E" for k in ("zf", "mi-g", "cor")] + [f"{k}|B|C|A,D" for k in ("zf", "mi-g")]
        yield "gaussian.test", frame, REAL_GAUSSIAN_DAG, (), tests
        frame = pd.read_csv(real / "clgaussian.test.csv")
        tests = ["mi-cg|G|E|A,D", "mi-cg|G|A|D", "mi-cg|G|A|B,D", "mi-cg|E|B|H"]
        yield "clgaussian.test", frame, REAL_CLG_DAG, ["A", "B", "C", "F"], tests


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realdata", help="folder with bnlearn's gaussian.test.csv and clgaussian.test.csv")
    parser.add_argument("--print-reference", action="store_true", help="print R's values in full")
    options = parser.parse_args()
    worst = {}
    for label, frame, dag, discrete, tests in cases(options.realdata):
        mine = data_sets.skbn_scores(frame, dag, list(discrete))
        reference = run_r(frame, dag, sorted({k for k, _ in mine}), tests)
        for (kind, node), value in mine.items():
            ref = reference["score", kind, node]
            if options.print_reference:
                print(f"{label}\tscore\t{kind}\t{node}\t{ref!r}")
            worst[kind] = max(worst.get(kind, 0.0), abs(value - ref) / abs(ref))
        for spec in tests:
            statistic, pvalue = data_sets.skbn_test(frame, spec, list(discrete))
            ref_statistic, ref_pvalue = reference["test", spec]
            if options.print_reference:
                print(f"{label}\ttest\t{spec}\t{ref_statistic!r}\t{ref_pvalue!r}")
            kind = spec.split("|")[0]
            if statistic is not None:
                key = f"{kind} statistic"
                difference = abs(statistic - ref_statistic) / max(abs(ref_statistic), 1e-300)
                worst[key] = max(worst.get(key, 0.0), difference)
            key = f"{kind} p-value"
            worst[key] = max(worst.get(key, 0.0), abs(pvalue - ref_pvalue) / max(abs(ref_pvalue), 1e-300))
    print(f"{'score / test':<20} largest relative difference to bnlearn")
    for key, value in worst.items():
        print(f"{key:<20} {value:.2e}")


if __name__ == "__main__":
    main()
