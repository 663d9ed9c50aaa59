"""Run R's bnlearn on a pandas DataFrame, as a peer of the benchmarks (never of the package).

:func:`run` writes the frame to a temporary CSV of integer codes (missing cells empty), starts
``Rscript``, rebuilds every column as a factor with all its levels (pandas categories
included, observed or not, so that scores such as BDeu see the same number of states as
skbn), then evaluates a bnlearn call on ``x`` ``repeats`` times and returns the arcs of the
last result and the best times. Only the call is timed, inside R with ``proc.time()``: wall
(``elapsed``) and CPU (``user.self + sys.self``); writing, reading the data and starting R are
not. ``set.seed(0)`` precedes every repeat, so random calls (``structural.em``'s imputation)
are reproducible. Install R and bnlearn 4.9 with ``benchmarks/install_bnlearn.sh``; without
them :func:`run` prints a note once and returns ``None``.

bnlearn gets the columns in skbn's name order, the order skbn's searches run in
(``docs/reproducibility.md``): both break ties between moves of equal gain (the two
orientations of an edge under a score-equivalent score) by column position, so on the same
order they take the same moves, while bnlearn on another order may climb to another local
optimum (on ALARM's 10,000 rows of ``bench_best.py``, in the BIF's order: 52 arcs against 64).
"""

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from skbn._data import name_ranks

SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(bnlearn))
x <- read.csv(args[1], check.names = FALSE, na.strings = "", colClasses = "integer")
n.levels <- as.integer(strsplit(args[2], ",")[[1]])
for (j in seq_along(x)) x[[j]] <- factor(x[[j]], levels = seq_len(n.levels[j]) - 1L)
call <- parse(text = args[3])[[1]]
wall <- cpu <- Inf
for (r in seq_len(as.integer(args[4]))) {
  set.seed(0)
  start <- proc.time()
  fit <- tryCatch(eval(call), error = function(e) {
    cat("error", gsub("\\s+", " ", conditionMessage(e)), "\n", sep = "\t")
    quit(status = 1)
  })
  used <- proc.time() - start
  wall <- min(wall, used[["elapsed"]])
  cpu <- min(cpu, used[["user.self"]] + used[["sys.self"]])
}
status <- readLines("/proc/self/status")
peak <- sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", status, value = TRUE))
cat("time", wall, cpu, if (length(peak)) as.numeric(peak) / 1024 else NA, "\n", sep = "\t")
for (kind in c("directed", "undirected")) {
  arcs <- if (kind == "directed") directed.arcs(fit) else undirected.arcs(fit)
  for (i in seq_len(nrow(arcs))) cat(kind, arcs[i, 1], arcs[i, 2], "\n", sep = "\t")
}
"""


@dataclass(frozen=True)
class Result:
    """Directed arcs, undirected arcs (each pair once; CPDAG outputs), best wall and CPU
    seconds of the call, peak resident memory of the R process in MB (``VmHWM``)."""

    directed: list
    undirected: list
    wall: float
    cpu: float
    peak_mb: float

    def seconds(self, clock):
        """The time for the benchmark's ``--clock`` (``"wall"`` or ``"cpu"``)."""
        return self.wall if clock == "wall" else self.cpu


@cache
def available():
    """``True`` when ``Rscript`` runs and loads bnlearn; otherwise print why, once."""
    if shutil.which("Rscript") is None:
        print("# bnlearn: Rscript not found (benchmarks/install_bnlearn.sh); its columns show '-'")
        return False
    check = subprocess.run(["Rscript", "-e", "library(bnlearn)"], capture_output=True, text=True)
    if check.returncode:
        print("# bnlearn: R cannot load bnlearn (benchmarks/install_bnlearn.sh); its columns "
              "show '-'")
    return check.returncode == 0


def version():
    """``"bnlearn 4.9, R 4.2.2"`` (or ``None`` without R and bnlearn)."""
    if not available():
        return None
    out = subprocess.run(["Rscript", "-e", 'cat(format(packageVersion("bnlearn")), '
                          'paste(R.version$major, R.version$minor, sep = "."))'],
                         capture_output=True, text=True).stdout.split()
    return f"bnlearn {out[0]}, R {out[1]}"


def run(X, call, repeats=1, timeout=None, categories=None):
    """Evaluate ``call`` (R code on the data ``x``, e.g. ``'hc(x, score = "bde", iss = 1)'``)
    ``repeats`` times; a :class:`Result`, or ``None`` without R / bnlearn or after
    ``timeout`` seconds (the whole R process); a failing call raises ``RuntimeError`` with
    bnlearn's message. ``categories``: ``{column: states}`` for
    columns that are not pandas categoricals (as skbn's ``categories=``)."""
    if not available():
        return None
    X = X.iloc[:, np.argsort(name_ranks(list(X.columns)))]  # (skbn's search order: see above)
    codes, n_levels = {}, []
    for column in X.columns:
        values = X[column]
        if categories and column in categories:
            values = pd.Series(pd.Categorical(values, categories=categories[column]))
        elif not isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype("category")
        codes[column] = values.cat.codes.where(values.notna())  # NaN for missing -> empty cell
        n_levels.append(len(values.cat.categories))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        pd.DataFrame(codes).astype("Int64").to_csv(path, index=False, na_rep="")
        command = ["Rscript", "-e", SCRIPT, str(path), ",".join(map(str, n_levels)), call,
                   str(repeats)]
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"# bnlearn {call}: no result within {timeout} s")
            return None
    if out.returncode:  # bnlearn's error message, or R's output
        errors = [line.split("\t")[1] for line in out.stdout.splitlines() if line.startswith("error\t")]
        raise RuntimeError(errors[0].strip() if errors else out.stderr)
    arcs = {"directed": [], "undirected": set()}
    for line in out.stdout.splitlines():
        kind, *fields = line.rstrip("\n").split("\t")
        if kind == "time":
            wall, cpu, peak = (float(f) for f in fields[:3])
        elif kind == "directed":
            arcs[kind].append((fields[0], fields[1]))
        elif kind == "undirected":
            arcs[kind].add(tuple(sorted(fields[:2])))  # bnlearn lists both directions
    return Result(arcs["directed"], sorted(arcs["undirected"]), wall, cpu, peak)
