"""PC with test-wise deletion on R's incomplete data sets, against pcalg 2.7-12.

Run ``PYTHONPATH=$PWD python benchmarks/bench_available_case_pcalg.py`` from the repository
root (R with pcalg, robustbase, cluster, boot and sandwich installed). R writes the numeric
columns of six data sets with missing cells (robustbase's ``airmay`` and ``ambientNOxCH``,
cluster's ``votes.repub``: 50 rows, 31 columns, 217 missing cells; boot's ``neuro`` and
``urine``, sandwich's ``Investment``) as it holds them, constant columns left out.

skbn: ``PCStructure(ci_test="zf", missing="available_case")``, every test on the rows that
observe its variables (Tu et al. 2019). pcalg has no such option; its ``pc`` takes any
``indepTest``, here ``gaussCItest`` on the correlation matrix and row count of the rows
complete for the test's variables (PC-stable, alpha 0.05). R gets the columns sorted by
name (``docs/reproducibility.md``). One row per data set: rows, columns, missing cells,
whether the skeletons are equal, and the edges only one side has. bnlearn is not compared:
its ``pc.stable`` on incomplete data loses separating sets (``docs/missing.md``).
"""

import subprocess
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from skbn import PCStructure

EXPORT = r"""
out <- commandArgs(trailingOnly = TRUE)[1]
sets <- list(c("robustbase", "airmay"), c("robustbase", "ambientNOxCH"), c("cluster", "votes.repub"),
             c("boot", "neuro"), c("boot", "urine"), c("sandwich", "Investment"))
for (s in sets) {
  e <- new.env()
  data(list = s[2], package = s[1], envir = e)
  x <- as.data.frame(get(s[2], envir = e))
  x <- x[, sapply(x, function(v) is.numeric(v) && length(unique(v[!is.na(v)])) > 1), drop = FALSE]
  write.csv(x[, sort(names(x))], file.path(out, paste0(s[2], ".csv")), row.names = FALSE)
}
"""

PCALG = r"""
suppressPackageStartupMessages(library(pcalg))
x <- read.csv(commandArgs(trailingOnly = TRUE)[1], check.names = FALSE)
testwise <- function(a, b, S, suffStat) {  # gaussCItest on the rows complete for a, b and S
  d <- suffStat$data[, c(a, b, S), drop = FALSE]
  d <- d[complete.cases(d), , drop = FALSE]
  gaussCItest(1, 2, seq_along(S) + 2, list(C = cor(d), n = nrow(d)))
}
p <- pc(list(data = as.matrix(x)), indepTest = testwise, alpha = 0.05, labels = names(x),
        skel.method = "stable")
a <- as(p@graph, "matrix")
for (i in seq_len(ncol(a))) for (j in seq_len(ncol(a))) if (i < j && (a[i, j] | a[j, i]))
  cat(names(x)[i], names(x)[j], "\n", sep = "\t")
"""


def main():
    warnings.simplefilter("ignore")  # (few-values warnings, orientation conflicts: not what is measured)
    print("data, rows, columns, missing cells, skeleton = pcalg, only skbn, only pcalg")
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["Rscript", "-e", EXPORT, folder], check=True, capture_output=True)
        for path in sorted(Path(folder).glob("*.csv")):
            x = pd.read_csv(path, keep_default_na=False, na_values=["", "NA"])
            said = subprocess.run(["Rscript", "-e", PCALG, str(path)], check=True, capture_output=True,
                                  text=True).stdout
            theirs = {frozenset(line.strip().split("\t")) for line in said.splitlines() if line.strip()}
            model = PCStructure(ci_test="zf", column_types="continuous", missing="available_case",
                                fit_parameters=False).fit(x)
            mine = {frozenset(e) for e in list(model.directed_edges_) + list(model.undirected_edges_)}
            only = [sorted(sorted(e) for e in edges) for edges in (mine - theirs, theirs - mine)]
            print(f"{path.stem}, {x.shape[0]}, {x.shape[1]}, {int(x.isna().sum().sum())}, "
                  f"{mine == theirs}, {only[0]}, {only[1]}")


if __name__ == "__main__":
    main()
