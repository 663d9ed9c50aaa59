"""Gaussian / CLG network parameters and log-likelihoods: skbn against R bnlearn's ``bn.fit``.

Run ``PYTHONPATH=$PWD python benchmarks/bench_continuous_network_bnlearn.py`` from the
repository root (``Rscript`` with bnlearn needed). It regenerates the data sets of
``tests/test_continuous_network.py`` (and, with ``--realdata DIR``, reads bnlearn's
``gaussian.test.csv`` and ``clgaussian.test.csv`` from ``DIR`` and fits their true DAGs), fits
the same DAG in skbn (``from_data``) and in R (``bn.fit``), and prints the largest relative
difference of the coefficients, standard deviations, per-node ``logLik(fitted, data, nodes =
v)`` and total ``logLik``.
"""

import argparse
import importlib.util
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "test_continuous_network", ROOT / "tests" / "test_continuous_network.py")
data_sets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(data_sets)

R_SCRIPT = r"""
suppressPackageStartupMessages(library(bnlearn))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1], check.names = FALSE, na.strings = character(0))
for (j in seq_along(x)) {
  # factor levels in C-locale order (radix sort), the order of Python's sorted()
  if (is.character(x[[j]])) x[[j]] <- factor(x[[j]], levels = sort(unique(x[[j]]), method = "radix"))
  if (is.integer(x[[j]])) x[[j]] <- as.numeric(x[[j]])
}
net <- empty.graph(names(x))
if (nchar(args[2])) arcs(net) <- matrix(strsplit(args[2], "\t")[[1]], ncol = 2, byrow = TRUE)
f <- bn.fit(net, x)
for (v in names(x)) {
  if (is.factor(x[[v]])) next
  cat("coef", v, sprintf("%.17g", as.vector(coef(f[[v]]))), "\n", sep = "\t")
  cat("sd", v, sprintf("%.17g", as.vector(f[[v]]$sd)), "\n", sep = "\t")
}
for (v in names(x)) cat("ll", v, sprintf("%.17g", logLik(f, x, nodes = v)), "\n", sep = "\t")
cat("total", "", sprintf("%.17g", logLik(f, x)), "\n", sep = "\t")
"""


def run_r(frame, edges):
    """``{(kind, node): ndarray}`` from R's bn.fit / logLik."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        out = frame.copy()
        for c in out.columns:  # R rebuilds the factors from the labels
            if isinstance(out[c].dtype, pd.CategoricalDtype):
                out[c] = out[c].astype(str)
        out.to_csv(path, index=False, float_format="%.17g")
        arcs = "\t".join(name for edge in edges for name in edge)
        result = subprocess.run(["Rscript", "-e", R_SCRIPT, str(path), arcs],
                                capture_output=True, text=True, check=True)
    values = {}
    for line in result.stdout.splitlines():
        kind, node, *numbers = [f for f in line.split("\t") if f.strip() or f == ""]
        values[kind, node] = np.array([float(v) for v in numbers if v.strip()])
    return values


def skbn_values(frame, edges):
    """The same quantities from skbn, in bnlearn's layouts."""
    frame = frame.copy()
    for c in frame.columns:  # bnlearn's sorted factor levels
        if not pd.api.types.is_numeric_dtype(frame[c].dtype):
            frame[c] = pd.Categorical(frame[c].astype(str), categories=sorted(set(frame[c].astype(str))))
    discrete = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    values = {}
    if discrete:
        net = CLGBayesianNetwork.from_data(frame, edges)
        for v in net.nodes:
            if v in net.states:
                continue
            b0 = np.atleast_1d(net.intercepts[v]).reshape(-1)
            # bnlearn's configurations: first discrete parent fastest (Fortran order)
            shape = net.intercepts[v].shape
            perm = np.arange(len(b0)).reshape(shape).ravel(order="F") if shape else np.arange(1)
            b = net.coefficients[v].reshape(len(b0), -1)
            values["coef", v] = np.column_stack([b0, b])[perm].ravel()
            values["sd", v] = np.atleast_1d(net.sigmas[v]).reshape(-1)[perm]
    else:
        net = GaussianBayesianNetwork.from_data(frame, edges)
        for v in net.nodes:
            values["coef", v] = np.array([net.intercepts[v], *net.coefficients[v]])
            values["sd", v] = np.array([net.sigmas[v]])
    values["total", ""] = np.array([net.log_likelihood(frame).sum()])
    for v in net.nodes:  # one node's term: the total minus the network without that term
        values["ll", v] = np.array([node_loglik(net, frame, v)])
    return values


def node_loglik(net, frame, v):
    """``sum_rows log p(x_v | x_pa(v))`` computed from the fitted parameters."""
    if isinstance(net, CLGBayesianNetwork) and v in net.states:
        codes = tuple(frame[p].cat.codes.to_numpy() for p in (*net.parents[v], v))
        return float(np.log(net.cpts[v][codes]).sum())
    if isinstance(net, CLGBayesianNetwork):
        dpa, cpa = net.discrete_parents[v], net.continuous_parents[v]
        config = tuple(frame[p].cat.codes.to_numpy() for p in dpa)
        b0 = net.intercepts[v][config] if dpa else net.intercepts[v]
        b = (net.coefficients[v][config] if dpa
             else np.broadcast_to(net.coefficients[v], (len(frame), len(cpa))))
        sd = net.sigmas[v][config] if dpa else net.sigmas[v]
        mean = b0 + np.einsum("ij,ij->i", frame[list(cpa)].to_numpy(dtype=float), b)
    else:
        mean = net.intercepts[v] + frame[list(net.parents[v])].to_numpy(dtype=float) @ net.coefficients[v]
        sd = net.sigmas[v]
    x = frame[v].to_numpy(dtype=float)
    return float(np.sum(-0.5 * np.log(2 * np.pi) - np.log(sd) - 0.5 * ((x - mean) / sd) ** 2))


def compare(name, frame, edges):
    ours, theirs = skbn_values(frame, edges), run_r(frame, edges)
    worst = {}
    for key, value in theirs.items():
        rel = np.max(np.abs(ours[key] - value) / np.maximum(np.abs(value), 1e-300))
        worst[key[0]] = max(worst.get(key[0], 0.0), float(rel))
    print(f"{name:<28} " + "  ".join(f"{k} {worst.get(k, float('nan')):.1e}"
                                      for k in ("coef", "sd", "ll", "total")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realdata", help="folder with gaussian.test.csv and clgaussian.test.csv")
    args = parser.parse_args()
    print("largest relative difference to bnlearn (coefficients, sd, per-node and total logLik)")
    compare("generated Gaussian", data_sets.gaussian_data(), data_sets.GAUSS_EDGES)
    compare("generated CLG", data_sets.clg_data(), data_sets.CLG_EDGES)
    if args.realdata:
        folder = Path(args.realdata)
        g = pd.read_csv(folder / "gaussian.test.csv")
        compare("gaussian.test", g, [("A", "C"), ("B", "C"), ("B", "D"), ("A", "F"), ("D", "F"),
                                     ("E", "F"), ("G", "F")])
        c = pd.read_csv(folder / "clgaussian.test.csv")
        compare("clgaussian.test", c, [("A", "D"), ("H", "D"), ("B", "F"), ("C", "F"), ("B", "E"),
                                       ("D", "E"), ("A", "G"), ("D", "G"), ("E", "G"), ("F", "G")])


if __name__ == "__main__":
    main()
