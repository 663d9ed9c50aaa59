"""skbn on R pcalg's own test suite: the same inputs through pcalg and skbn, outputs compared.

Usage::

    PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 python benchmarks/bench_pcalg_suite.py --pcalg DIR
        [--files test_ida test_pc ...] [--records OUT]

``DIR`` is a checkout of pcalg's sources (e.g. https://github.com/cran/pcalg; its ``tests/``
are read, nothing of them is copied here); R with pcalg (2.7-12 was used) must be installed
(``benchmarks/install_pcalg.sh``). Not part of the pytest suite.

Each test file is sourced by R as is, with the pcalg functions skbn has a counterpart for
(``gac``, ``ida``, ``idaFast``, ``jointIda``, ``causalEffect``, ``optAdjSet``, ``backdoor``,
``dag2cpdag``, ``dag2essgraph``, ``pdag2dag``, ``pdag2allDags``, ``shd``, ``gaussCItest``,
``pc``, ``skeleton``, ``pcSelect``, ``pcorOrder``, ``gies`` and, on the observational rows
of ``gies``'s data, ``ges``) replaced by wrappers that call pcalg's function and record its
inputs and output: every input is the one pcalg's test draws (its own seeds, ``randomDAG``,
``trueCov``, ``rmvDAG``, its data files). ``test_ida.R`` and ``test_pc.R`` run with
``R_pcalg_check_extra`` set (their extra cases included); ``test_skeleton.R`` without (the
extra part saves hundreds of files). skbn then answers each recorded call:

* graphs use nodes ``V01, V02, ...``, which sort as pcalg's indices;
* a covariance or correlation matrix ``C`` with sample size ``n`` becomes rows whose sample
  covariance is exactly ``C``, each with weight ``n / rows`` (``sample_weight``), so the
  moments skbn reads are pcalg's ``suffStat``;
* ``ida`` effects are compared as multisets to 1e-9 (global: each distinct parent set
  repeated ``n_dags`` times, pcalg's one value per DAG), p-values and partial correlations to
  1e-9, graphs exactly.

The table gives, per pcalg test file and check, the number of recorded cases, how many agree,
and the notes: a convention of pcalg's that differs (documented in ``docs/causal.md``) is
counted apart and named, and what skbn does not implement (PAGs, ``method="optimal"`` IDA,
robust correlations) is listed as skipped.
"""

import argparse
import os
import subprocess
import tempfile
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from _common import print_table  # first: puts the checkout on sys.path
from scipy.stats import norm

from skbn import GESStructure, PCSelect, PCStructure
from skbn._counting._moments import moments, partial_correlation
from skbn.causal import (
    backdoor_adjustment_set,
    equivalent_dags,
    ida,
    is_adjustment_set,
    joint_ida,
    optimal_adjustment_set,
)
from skbn.citests import FisherZ
from skbn.graph import PDAG, dag_to_cpdag, interventional_essential_graph, pdag_to_dag
from skbn.metrics import structural_hamming_distance
from skbn.scores import GaussianBIC

FILES = ("test_gac", "test_ida", "test_idaFast", "test_jointIda", "test_causalEffect",
         "test_optAdjSet", "test_backdoor", "test_dag2cpdag", "test_dag2essgraph", "test_pdag2dag",
         "test_pdag2allDags", "test_shd", "test_pc", "test_skeleton", "test_pcSelect",
         "test_pcorOrder", "test_gies")
EXTRAS = {"test_ida", "test_pc"}

R_SCRIPT = r'''
# usage: Rscript recorder.R TESTFILE OUTFILE
args <- commandArgs(trailingOnly = TRUE)
.rec <- new.env()
.rec$con <- file(args[2], "w")
.rec$n_ci <- 0L
suppressMessages({library(pcalg); library(graph)})
.num <- function(v)
  if (length(v <- unlist(v)) == 0) "" else paste(sprintf("%.17g", as.numeric(v)), collapse = ",")
.mat <- function(m) { m <- as.matrix(m); paste0(nrow(m), ";", ncol(m), ";", .num(t(m))) }
.ints <- function(v) .num(unlist(v))
# a graph as a from-row 0/1 matrix: m[i, j] = 1 for an edge i -> j (both ways: undirected)
.from <- function(g) {
  if (is(g, "pcAlgo") || is(g, "fciAlgo")) g <- g@graph
  if (is(g, "graphNEL")) return((as(g, "matrix") != 0) * 1)
  if (is(g, "EssGraph") || is(g, "ParDAG")) return((as(g, "matrix") != 0) * 1)
  t((as.matrix(g) != 0) * 1)  # amat.cpdag coding: m[b, a] = 1, m[a, b] = 0 for a -> b
}
.emit <- function(.kind, ...) {
  f <- list(...)
  writeLines(paste(c(.kind, paste(names(f), unlist(f), sep = "=")), collapse = "\t"), .rec$con)
  flush(.rec$con)
}
.safe <- function(expr) tryCatch(expr, error = function(e) structure("error", msg = conditionMessage(e)))
.sets <- function(l) paste(vapply(l, function(s) .num(sort(s)), ""), collapse = "|")

gac <- function(amat, x, y, z, type = "pag") {
  r <- pcalg::gac(amat, x, y, z, type)
  .emit("gac", type = type, g = .mat(if (type %in% c("dag", "cpdag")) .from(amat) else amat),
        x = .num(x), y = .num(y), z = .num(z), gac = .num(r$gac))
  r
}
ida <- function(x.pos, y.pos, mcov, graphEst, method = "local", y.notparent = FALSE,
                verbose = FALSE, all.dags = NA, type = "cpdag") {
  r <- pcalg::ida(x.pos, y.pos, mcov, graphEst, method = method, y.notparent = y.notparent,
                  verbose = verbose, all.dags = all.dags, type = type)
  .emit("ida", method = method, type = type, g = .mat(.from(graphEst)), cov = .mat(mcov),
        x = .num(x.pos), y = .num(y.pos), eff = .num(unlist(r)), dim = .num(dim(as.matrix(r))))
  r
}
idaFast <- function(x.pos, y.pos.set, mcov, graphEst) {
  r <- pcalg::idaFast(x.pos, y.pos.set, mcov, graphEst)
  .emit("idaFast", g = .mat(.from(graphEst)), cov = .mat(mcov), x = .num(x.pos),
        y = .num(y.pos.set), eff = .mat(r))
  r
}
jointIda <- function(x.pos, y.pos, mcov, graphEst = NULL, all.pasets = NULL,
                     technique = c("RRC", "MCD"), type = c("pdag", "cpdag", "dag")) {
  r <- pcalg::jointIda(x.pos, y.pos, mcov, graphEst = graphEst, all.pasets = all.pasets,
                       technique = technique, type = type)
  if (!is.null(graphEst))
    .emit("jointIda", technique = technique[1], g = .mat(.from(graphEst)), cov = .mat(mcov),
          x = .num(x.pos), y = .num(y.pos), eff = .mat(r))
  r
}
causalEffect <- function(g, y, x) {
  r <- pcalg::causalEffect(g, y, x)
  .emit("causalEffect", w = .mat(as(g, "matrix")), x = .num(x), y = .num(y), eff = .num(r))
  r
}
optAdjSet <- function(graphEst, x.pos, y.pos) {
  r <- .safe(pcalg::optAdjSet(graphEst, x.pos, y.pos))
  .emit("optAdjSet", g = .mat(.from(graphEst)), x = .num(x.pos), y = .num(y.pos),
        set = if (identical(r[1], "error")) "error" else .num(sort(r)))
  if (identical(r[1], "error")) stop(attr(r, "msg"))
  r
}
backdoor <- function(amat, x, y, type = "pag", max.chordal = 10000, verbose = FALSE) {
  r <- pcalg::backdoor(amat, x, y, type = type, max.chordal = max.chordal, verbose = verbose)
  if (type %in% c("dag", "cpdag"))  # its help names amat.cpdag; its test passes a[i, j] = 1 for i -> j
    .emit("backdoor", type = type, raw = .mat(amat * 1), x = .num(x), y = .num(y),
          set = if (length(r) == 1 && is.na(r)) "NA" else .num(sort(r)))
  r
}
dag2cpdag <- function(g) {
  r <- pcalg::dag2cpdag(g)
  .emit("dag2cpdag", dag = .mat(.from(g)), cpdag = .mat(.from(r)))
  r
}
dag2essgraph <- function(dag, targets = list(integer(0))) {
  r <- pcalg::dag2essgraph(dag, targets = targets)
  d <- if (is.matrix(dag)) (dag != 0) * 1 else .from(dag)
  e <- if (is.matrix(r)) (r != 0) * 1 else .from(r)
  .emit("dag2essgraph", dag = .mat(d), ess = .mat(e),
        targets = paste(vapply(targets, .num, ""), collapse = "|"))
  r
}
pdag2dag <- function(g, keepVstruct = TRUE) {
  r <- pcalg::pdag2dag(g, keepVstruct = keepVstruct)
  .emit("pdag2dag", g = .mat(.from(g)), success = .num(r$success), dag = .mat(.from(r$graph)))
  r
}
pdag2allDags <- function(gm, verbose = FALSE) {
  r <- pcalg::pdag2allDags(gm, verbose = verbose)
  p <- ncol(gm)
  dags <- if (is.null(r$dags)) "none" else
    paste(apply(r$dags, 1, function(v) .num(t(t(matrix(v, p, p, byrow = TRUE))))), collapse = "|")
  .emit("pdag2allDags", g = .mat(t(gm != 0) * 1), dags = dags)
  r
}
shd <- function(g1, g2) {
  r <- pcalg::shd(g1, g2)
  .emit("shd", g1 = .mat(.from(g1)), g2 = .mat(.from(g2)), shd = .num(r))
  r
}
.stat_id <- function(suffStat) {
  key <- paste(signif(sum(suffStat$C * seq_along(suffStat$C)), 12), suffStat$n)
  if (is.null(.rec$seen[[key]])) {
    .rec$seen[[key]] <- sprintf("S%d", length(.rec$seen) + 1L)
    .emit("suffStat", id = .rec$seen[[key]], C = .mat(suffStat$C), n = .num(suffStat$n))
  }
  .rec$seen[[key]]
}
.rec$seen <- list()
gaussCItest <- function(x, y, S, suffStat) {
  r <- pcalg::gaussCItest(x, y, S, suffStat)
  if (.rec$n_ci < 300L && length(S) <= 3) {
    .rec$n_ci <- .rec$n_ci + 1L
    .emit("gaussCItest", stat = .stat_id(suffStat), x = .num(x), y = .num(y), S = .num(S), p = .num(r))
  }
  r
}
pc <- function(suffStat, indepTest, alpha, labels, p, ...) {
  dots <- list(...)
  r <- pcalg::pc(suffStat, indepTest, alpha, labels, p, ...)
  if (is.list(suffStat) && !is.null(suffStat$C))
    .emit("pc", stat = .stat_id(suffStat), alpha = .num(alpha),
          conservative = .num(isTRUE(dots$conservative)), maj = .num(isTRUE(dots$maj.rule)),
          u2pd = if (is.null(dots$u2pd)) "relaxed" else dots$u2pd,
          skel = if (is.null(dots$skel.method)) "stable" else dots$skel.method,
          cpdag = .mat(.from(r@graph)))
  r
}
skeleton <- function(suffStat, indepTest, alpha, labels, p, method = "stable", ...) {
  r <- pcalg::skeleton(suffStat, indepTest, alpha, labels, p, method = method, ...)
  .emit("skeleton", stat = .stat_id(suffStat), alpha = .num(alpha), method = method,
        skel = .mat(.from(r@graph)), pmax = .mat(r@pMax))
  r
}
pcSelect <- function(y, dm, alpha, corMethod = "standard", verbose = FALSE, directed = FALSE) {
  r <- pcalg::pcSelect(y, dm, alpha, corMethod = corMethod, verbose = verbose, directed = directed)
  if (corMethod == "standard")
    .emit("pcSelect", X = .mat(cbind(dm, y)), alpha = .num(alpha), G = .num(r$G), zMin = .num(r$zMin))
  r
}
pcorOrder <- function(i, j, k, C, cut.at = 0.9999999) {
  r <- pcalg::pcorOrder(i, j, k, C, cut.at)
  .emit("pcorOrder", C = .mat(C), i = .num(i), j = .num(j), k = .num(k), r = .num(r))
  r
}
.gies_seen <- new.env()
gies <- function(score, labels = score$getNodes(), targets = score$getTargets(), ...) {
  r <- pcalg::gies(score, labels = labels, targets = targets, ...)
  if (is(score, "GaussL0penIntScore")) {
    d <- score$pp.dat
    key <- paste(sum(d$data[, 1] * seq_len(nrow(d$data))))
    .emit("gies", X = .mat(d$data), targets = paste(vapply(d$targets, .num, ""), collapse = "|"),
          index = .num(d$target.index), essgraph = .mat(.from(r$essgraph)))
    obs <- d$data[d$target.index == which(vapply(d$targets, length, 0L) == 0), , drop = FALSE]
    g <- pcalg::ges(new("GaussL0penObsScore", data = obs))
    .emit("ges", X = .mat(obs), essgraph = .mat(.from(g$essgraph)))
  }
  r
}
setwd(dirname(args[1]))
source(basename(args[1]), echo = FALSE)
close(.rec$con)
'''


# ---------------------------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------------------------
def run_file(pcalg_tests, name, out_dir):
    """Source ``name``.R with the recording wrappers; the records as (kind, fields) pairs."""
    script, out = Path(out_dir) / "recorder.R", Path(out_dir) / f"{name}.rec"
    script.write_text(R_SCRIPT)
    env = dict(os.environ)
    if name in EXTRAS:
        env["R_pcalg_check_extra"] = "1"
    done = subprocess.run(["Rscript", str(script), str(Path(pcalg_tests, f"{name}.R").resolve()),
                           str(out.resolve())], capture_output=True, text=True, env=env)
    records = []
    for line in out.read_text().splitlines() if out.exists() else []:
        kind, *fields = line.split("\t")
        records.append((kind, dict(f.split("=", 1) for f in fields)))
    return records, (done.returncode, done.stderr.strip().splitlines()[-1:] if done.returncode else [])


def num(s):
    return np.array([float(v) for v in s.split(",")]) if s else np.zeros(0)


def ints(s):
    return [int(v) for v in num(s)]


def mat(s):
    r, c, values = s.split(";", 2)
    return num(values).reshape(int(r), int(c))


def names(p):
    return [f"V{i:02d}" for i in range(1, p + 1)]


def label(indices):
    """pcalg's 1-based indices as node names."""
    return [f"V{i:02d}" for i in indices]


def pdag_of(m):
    """A from-row 0/1 matrix (``m[i, j] = 1``: ``i -> j``; both ways: ``i - j``) as a PDAG."""
    p = len(m)
    nodes = names(p)
    directed = [(nodes[i], nodes[j]) for i in range(p) for j in range(p) if m[i, j] and not m[j, i]]
    undirected = [(nodes[i], nodes[j]) for i in range(p) for j in range(i + 1, p) if m[i, j] and m[j, i]]
    return PDAG(nodes, directed, undirected)


def matrix_of(pdag):
    index = {n: i for i, n in enumerate(pdag.nodes)}
    m = np.zeros((len(pdag.nodes),) * 2, dtype=int)
    for a, b in pdag.directed:
        m[index[a], index[b]] = 1
    for a, b in pdag.undirected:
        m[index[a], index[b]] = m[index[b], index[a]] = 1
    return m


def dag_matrix(nodes, edges):
    index = {n: i for i, n in enumerate(nodes)}
    m = np.zeros((len(nodes),) * 2, dtype=int)
    for a, b in edges:
        m[index[a], index[b]] = 1
    return m


def rows_with(cov, seed=0):
    """``max(2p, 50)`` rows whose sample covariance (divisor n) is exactly ``cov``."""
    p = len(cov)
    z = np.random.default_rng(seed).standard_normal((max(2 * p, 50), p))
    z -= z.mean(axis=0)
    white = np.linalg.solve(np.linalg.cholesky(z.T @ z / len(z)), z.T).T
    return pd.DataFrame(white @ np.linalg.cholesky(cov).T, columns=names(p))


def multiset_equal(a, b, tol=1e-9):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    return len(a) == len(b) and bool(np.all(np.abs(a - b) <= tol * np.maximum(1, np.abs(b))))


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# one comparison per record kind: (check, verdict, note); verdict True, False or "convention"
# ---------------------------------------------------------------------------------------------
def check_gac(f, _):
    if f["type"] not in ("dag", "cpdag"):
        return f"gac type={f['type']}", None, "PAG/MAG: not in skbn"
    g = pdag_of(mat(f["g"]))
    ours = is_adjustment_set(g, label(ints(f["x"])), label(ints(f["y"])), label(ints(f["z"])))
    return f"gac type={f['type']}", ours == bool(num(f["gac"])[0]), ""


def _ida_rows(f, method):
    g, cov = pdag_of(mat(f["g"])), mat(f["cov"])
    x, y = label(ints(f["x"])), label(ints(f["y"]))
    if len(x) > 1 or len(y) > 1:
        return None
    return quiet(ida, rows_with(cov), g, x[0], y[0], method=method)


def check_ida(f, _):
    check = f"ida method={f['method']} type={f['type']}"
    if f["method"] == "optimal":
        return check, None, "method='optimal' (optimal-set IDA): not in skbn"
    rows = _ida_rows(f, f["method"])
    if rows is None:
        return check, None, "several x / y: see jointIda"
    effects = rows["effect"].to_numpy()
    if f["method"] == "global":
        effects = np.repeat(effects, rows["n_dags"].to_numpy())
    return check, multiset_equal(effects, num(f["eff"])), ""


def check_idafast(f, _):
    g, x = pdag_of(mat(f["g"])), label(ints(f["x"]))[0]
    eff, data = mat(f["eff"]), rows_with(mat(f["cov"]))
    verdict = True
    for y, row in zip(label(ints(f["y"])), eff):
        ours = quiet(ida, data, g, x, y)
        if multiset_equal(ours["effect"], row):
            continue
        if (y, x) in g.directed and not np.any(row):  # y a definite parent of x
            verdict = "convention"
        else:
            return "idaFast (= local ida per y)", False, f"x={x} y={y}"
    note = "y a definite parent of x: idaFast one 0 per parent set, ida and skbn one 0"
    return "idaFast (= local ida per y)", verdict, note if verdict == "convention" else ""


def check_jointida(f, _):
    g, xs, y = pdag_of(mat(f["g"])), label(ints(f["x"])), label(ints(f["y"]))
    if len(y) > 1:
        return f"jointIda {f['technique']}", None, "several y: not in skbn"
    ours = quiet(joint_ida, rows_with(mat(f["cov"])), g, xs, y[0], technique=f["technique"])
    theirs = mat(f["eff"])  # rows: xs, columns: combinations
    ours_cols = sorted(tuple(np.round(r, 9)) for r in ours[[f"effect_{x}" for x in xs]].to_numpy())
    theirs_cols = sorted(tuple(np.round(c, 9)) for c in theirs.T)
    same = len(ours_cols) == len(theirs_cols) and np.allclose(ours_cols, theirs_cols, atol=1e-9)
    return f"jointIda {f['technique']}", bool(same), ""


def check_causal_effect(f, _):
    w = mat(f["w"])
    p = len(w)
    inv = np.linalg.inv(np.eye(p) - w.T)
    g = pdag_of((w != 0).astype(int))
    x, y = label(ints(f["x"]))[0], label(ints(f["y"]))[0]
    ours = quiet(ida, rows_with(inv @ inv.T), g, x, y)["effect"].to_numpy()
    return "causalEffect (= ida on the DAG, true cov)", multiset_equal(ours, num(f["eff"])), ""


def check_opt(f, _):
    g = pdag_of(mat(f["g"]))
    x, y = label(ints(f["x"])), label(ints(f["y"]))
    try:
        ours = optimal_adjustment_set(g, x, y)
    except ValueError as e:
        ours = f"error ({e})"
    theirs = f["set"]
    if theirs == "error":
        return "optAdjSet", "convention", "pcalg stops (y not a descendant of x); skbn: canonical set"
    theirs = label(ints(theirs))
    if isinstance(ours, list) and sorted(ours) == sorted(theirs):
        return "optAdjSet", True, ""
    pruned = [v for v in y if v in (ours or [])] or set(theirs) & set(y)
    if len(y) > 1 and pruned:
        return "optAdjSet", "convention", "pcalg prunes outcomes not descending from x"
    return "optAdjSet", False, f"x={x} y={y}: pcalg {theirs}, skbn {ours}"


def check_backdoor(f, _):
    raw = mat(f["raw"]).astype(int)  # a[i, j] = 1 read as i -> j by backdoor (its test's input)
    g = pdag_of(raw)
    x, y = label(ints(f["x"]))[0], label(ints(f["y"]))[0]
    try:
        ours = backdoor_adjustment_set(g, x, y)
    except ValueError:
        ours = "not amenable"
    theirs = None if f["set"] == "NA" else label(ints(f["set"]))
    check = f"backdoor type={f['type']}"
    if ours == theirs or (ours == "not amenable" and theirs is None):
        return check, True, ""
    skeleton = (raw + raw.T) > 0
    reach, frontier = {ints(f["x"])[0] - 1}, [ints(f["x"])[0] - 1]
    while frontier:
        i = frontier.pop()
        for j in np.nonzero(skeleton[i])[0]:
            if j not in reach:
                reach.add(int(j))
                frontier.append(int(j))
    if theirs == [] and ints(f["y"])[0] - 1 not in reach:
        return check, "convention", "y in another component: pcalg {}, skbn pa(x)"
    return check, False, f"x={x} y={y}: pcalg {theirs}, skbn {ours}"


def check_dag2cpdag(f, _):
    d = mat(f["dag"]).astype(int)
    nodes = names(len(d))
    edges = [(nodes[i], nodes[j]) for i, j in zip(*np.nonzero(d))]
    return "dag2cpdag", bool(np.array_equal(matrix_of(dag_to_cpdag(nodes, edges)), mat(f["cpdag"]))), ""


def check_dag2essgraph(f, _):
    d = mat(f["dag"]).astype(int)
    nodes = names(len(d))
    edges = [(nodes[i], nodes[j]) for i, j in zip(*np.nonzero(d))]
    targets = [label(ints(t)) for t in f["targets"].split("|")]
    ours = matrix_of(interventional_essential_graph(nodes, edges, targets))
    return "dag2essgraph", bool(np.array_equal(ours, mat(f["ess"]))), ""


def _extensions(pdag):
    """Brute force: the orientations of the undirected edges that are acyclic, keep the
    directed edges and have the v-structures of the directed part only."""
    from itertools import product

    from skbn.graph import is_acyclic, v_structures
    base = set(v_structures(pdag.nodes, pdag.directed))
    out = []
    for bits in product((0, 1), repeat=len(pdag.undirected)):
        edges = list(pdag.directed) + [(a, b) if s else (b, a) for (a, b), s in zip(pdag.undirected, bits)]
        if is_acyclic(pdag.nodes, edges) and set(v_structures(pdag.nodes, edges)) == base:
            out.append(frozenset(edges))
    return out


def check_pdag2dag(f, _):
    g = pdag_of(mat(f["g"]))
    ok = bool(num(f["success"])[0])
    try:
        ours = frozenset(quiet(pdag_to_dag, g))
    except ValueError:
        ours = None
    if not ok:
        return "pdag2dag", ours is None, "no extension: pcalg success=FALSE, skbn raises"
    theirs = mat(f["dag"]).astype(int)
    same = ours is not None and np.array_equal(dag_matrix(g.nodes, ours), theirs)
    return "pdag2dag", same or (ours in _extensions(g)), "" if same else "another consistent extension"


def check_pdag2alldags(f, _):
    g = pdag_of(mat(f["g"]))
    p = len(g.nodes)
    theirs = None if f["dags"] == "none" else {
        frozenset((g.nodes[i], g.nodes[j]) for i, j in zip(*np.nonzero(num(s).reshape(p, p))))
        for s in f["dags"].split("|")}
    try:
        ours = {frozenset(d) for d in quiet(equivalent_dags, g)}
    except ValueError:
        ours = None
    if theirs is None:
        return "pdag2allDags", "convention" if ours is None else False, "no DAG: pcalg NULL, skbn raises"
    return "pdag2allDags", ours == theirs, ""


def check_shd(f, _):
    g1, g2 = pdag_of(mat(f["g1"])), pdag_of(mat(f["g2"]))
    ours = structural_hamming_distance(g1, g2)
    return "shd", ours == int(num(f["shd"])[0]), f"skbn {ours}, pcalg {int(num(f['shd'])[0])}"


def _suff(stats, key):
    c, n = stats[key]
    data = rows_with(c)
    return data, np.full(len(data), n / len(data))


def check_ci(f, stats):
    data, w = _suff(stats, f["stat"])
    m = moments(data.to_numpy(), w)
    x, y, s = ints(f["x"])[0] - 1, ints(f["y"])[0] - 1, [i - 1 for i in ints(f["S"])]
    p = FisherZ().test_moments(m, x, y, s).pvalue
    theirs = num(f["p"])[0]
    return "gaussCItest p-value", abs(p - theirs) <= 1e-9, ""


def check_pc(f, stats):
    data, w = _suff(stats, f["stat"])
    orient = "conservative" if num(f["conservative"])[0] else "majority" if num(f["maj"])[0] else "standard"
    est = quiet(PCStructure(ci_test=FisherZ(alpha=num(f["alpha"])[0]), orient=orient,
                            column_types="continuous", fit_parameters=False).fit, data, sample_weight=w)
    theirs = pdag_of(mat(f["cpdag"]))
    check = f"pc orient={orient}"
    if est.cpdag_ == theirs:
        return check, True, ""
    ours = matrix_of(est.cpdag_)
    same_skeleton = np.array_equal((ours + ours.T) > 0, (mat(f["cpdag"]) + mat(f["cpdag"]).T) > 0)
    if same_skeleton and est.n_orientation_conflicts_:
        return check, "convention", ("conflicting colliders: pcalg lets the last overwrite, skbn "
                                     "orders them by evidence (docs/pc.md)")
    return check, False, f"p={len(data.columns)}: SHD {structural_hamming_distance(theirs, est.cpdag_)}"


def check_skeleton(f, stats):
    data, w = _suff(stats, f["stat"])
    est = quiet(PCStructure(ci_test=FisherZ(alpha=num(f["alpha"])[0]), column_types="continuous",
                            fit_parameters=False).fit, data, sample_weight=w)
    theirs = mat(f["skel"]).astype(int)
    ours = matrix_of(est.cpdag_)
    return f"skeleton method={f['method']}", bool(np.array_equal((ours + ours.T) > 0, theirs > 0)), ""


def check_pcselect(f, _):
    xy = mat(f["X"])
    X = pd.DataFrame(xy[:, :-1], columns=names(xy.shape[1] - 1))
    sel = PCSelect(alpha=num(f["alpha"])[0]).fit(X, xy[:, -1])
    same_set = bool(np.array_equal(sel.get_support(), num(f["G"]).astype(bool)))
    same_p = np.allclose(sel.pvalues_, 2 * norm.sf(num(f["zMin"])), rtol=1e-9, atol=1e-12)
    return "pcSelect (support, p = 2(1 - Phi(zMin)))", same_set and bool(same_p), ""


def check_pcor(f, _):
    c = mat(f["C"])
    given = tuple(i - 1 for i in ints(f["k"]))
    ours = partial_correlation(c, ints(f["i"])[0] - 1, ints(f["j"])[0] - 1, given)
    return "pcorOrder", abs(float(ours) - num(f["r"])[0]) <= 1e-9, ""


def check_gies(f, _):
    x = mat(f["X"])
    targets = [label(ints(t)) for t in f["targets"].split("|")]
    index = ints(f["index"])
    data = pd.DataFrame(x, columns=names(x.shape[1]))
    mask = pd.DataFrame(False, index=data.index, columns=data.columns)
    for r, t in enumerate(index):
        mask.loc[r, targets[t - 1]] = True
    est = quiet(GESStructure(scorer=GaussianBIC(variance="mle"), fit_parameters=False).fit, data,
                interventions=mask)
    return "gies (GaussL0penIntScore)", est.cpdag_ == pdag_of(mat(f["essgraph"])), ""


def check_ges(f, _):
    x = mat(f["X"])
    est = quiet(GESStructure(scorer=GaussianBIC(variance="mle"), fit_parameters=False).fit,
                pd.DataFrame(x, columns=names(x.shape[1])))
    return "ges (GaussL0penObsScore), observational rows", est.cpdag_ == pdag_of(mat(f["essgraph"])), ""


CHECKS = {"gac": check_gac, "ida": check_ida, "idaFast": check_idafast, "jointIda": check_jointida,
          "causalEffect": check_causal_effect, "optAdjSet": check_opt, "backdoor": check_backdoor,
          "dag2cpdag": check_dag2cpdag, "dag2essgraph": check_dag2essgraph,
          "pdag2dag": check_pdag2dag, "pdag2allDags": check_pdag2alldags, "shd": check_shd,
          "gaussCItest": check_ci, "pc": check_pc, "skeleton": check_skeleton,
          "pcSelect": check_pcselect, "pcorOrder": check_pcor, "gies": check_gies, "ges": check_ges}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pcalg", required=True, type=Path, help="a checkout of pcalg's sources")
    parser.add_argument("--files", nargs="*", default=FILES, help="test files (without .R)")
    parser.add_argument("--records", type=Path, help="keep R's records in this directory")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.records or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in args.files:
            records, (code, tail) = run_file(args.pcalg / "tests", name, out_dir)
            stats = {f["id"]: (mat(f["C"]), num(f["n"])[0]) for k, f in records if k == "suffStat"}
            table = defaultdict(lambda: [0, 0, Counter()])
            for kind, fields in records:
                if kind not in CHECKS:
                    continue
                check, verdict, note = CHECKS[kind](fields, stats)
                if isinstance(verdict, (bool, np.bool_)):
                    verdict = bool(verdict)
                entry = table[check]
                entry[0] += 1
                if verdict is True:
                    entry[1] += 1
                elif verdict is None:
                    entry[2][f"skipped: {note}"] += 1
                elif verdict == "convention":
                    entry[2][f"convention: {note}"] += 1
                else:
                    entry[2][f"differs: {note}" if note else "differs"] += 1
            if code:
                table["(R run)"][2][f"R stopped: {' '.join(tail)}"] += 1
            for check, (n, agree, notes) in table.items():
                conventions = sum(v for k, v in notes.items() if k.startswith(("convention", "skipped")))
                rows.append({"pcalg test file": f"{name}.R", "check": check, "cases": n,
                             "agree": agree, "agrees": "yes" if agree + conventions == n else "no",
                             "notes": "; ".join(f"{k} (x{v})" for k, v in notes.items())})
    print_table(rows, ["pcalg test file", "check", "cases", "agree", "agrees", "notes"])


if __name__ == "__main__":
    main()
