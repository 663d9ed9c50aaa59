"""Continuous and mixed learners on R's own data sets, against R bnlearn 4.9 and pcalg 2.7-12.

Run ``PYTHONPATH=$PWD python benchmarks/bench_real_data_peers.py`` from the repository root
(R with bnlearn and pcalg installed: ``benchmarks/install_bnlearn.sh``,
``benchmarks/install_pcalg.sh``). R writes the data sets it ships (base R's ``datasets``,
bnlearn's ``gaussian.test``, ``clgaussian.test`` and ``marks``, pcalg's ``gmG``, ``gmI``,
``gmL``, and MASS's ``Boston`` with ``rad`` and ``chas`` as factors) to a temporary folder;
nobody here wrote them, and they have the shapes real files have: whole numbers in
measurements, column names with dots and spaces, a few dozen rows, collinear columns
(``longley``), factors beside numbers, a column constant within a configuration
(``Boston``). Incomplete rows are dropped. Numeric
columns are declared continuous and factors discrete (what bnlearn does), so that both sides
model the same variables. R gets the columns sorted by name, the order skbn's searches and
``PCSelect`` use whatever the column order (``docs/reproducibility.md``); bnlearn and pcalg
break ties and drop variables in column order, so ``--file-order``, which gives R the file's
order, shows where that order leads them elsewhere.

``--contributed`` takes instead 16 numeric data sets of contributed CRAN packages (AER,
HSAUR3, dslabs, ade4, survival; their measurements only) and 5 of them with their factors,
when R has them. ``--more`` takes 46 numeric and 20 mixed data sets of 13 more packages
(robustbase, ggm, quantreg, boot, cluster, lattice, lmtest, sandwich, ipred, nlme, sp, rpart,
pROC): gross outliers (``hbk``, ``wood``, ``starsCYG``), 5 to 8,088 rows, more columns than
complete rows (``votes.repub``: 19 rows, 31 columns), columns on scales 1e5 apart
(``breslow``), heavy tails (``Animals2``), factors with a level seen once (``meuse``'s
``landuse``, ``car90``'s ``Country``), logical columns (``Mammals``).

``--export DIR`` only writes the data sets to ``DIR`` (as R exports them, incomplete rows
kept), e.g. for ``bench_gaussian_learners.py hc --sizes --real DIR/freeny.csv ...``.

Every numeric data set (one row each):

- **scores**: the largest relative difference between ``scorer.score(X, edges)`` and
  bnlearn's ``score(dag, x, type)`` for ``loglik-g``, ``bic-g``, ``aic-g`` and ``bge``, on
  the DAG bnlearn's ``hc`` learned;
- **PC**: whether the skeleton of ``PCStructure(ci_test="zf")`` equals pcalg's
  ``pc(skel.method = "stable")`` and bnlearn's ``pc.stable(test = "zf")`` (alpha 0.05);
- **pcSelect**: with every column as the target in turn, how many selected sets of
  ``PCSelect()`` differ from pcalg's ``pcSelect``;
- **IDA**: ``skbn.causal.ida`` (local) on pcalg's CPDAG against pcalg's ``ida`` for every
  ordered pair: the largest relative difference of the sorted multisets;
- **hc**: whether ``HillClimbStructure(scorer="bic-g")`` learns bnlearn's ``hc`` graph, and
  both scores;
- **GES**: the bic-g score of ``GESStructure()``, with ``edge_restarts=10``, and the best
  of bnlearn's ``hc`` / ``tabu`` and pcalg's ``ges`` (scored by bnlearn).

Every data set with factors (one row each): the largest relative difference of
``loglik-cg``, ``bic-cg``, ``aic-cg``; whether ``HillClimbStructure(scorer="bic-cg")`` learns
bnlearn's graph (both scores); whether ``PCStructure(ci_test="mi-cg")`` has bnlearn's
``pc.stable(test = "mi-cg")`` skeleton.
"""

import argparse
import subprocess
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from skbn import GESStructure, HillClimbStructure, PCSelect, PCStructure
from skbn.causal import ida
from skbn.graph import PDAG
from skbn.scores import resolve_scorer

EXPORT = r"""
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
base <- c("mtcars", "airquality", "iris", "swiss", "longley", "USArrests", "trees", "attitude",
          "stackloss", "quakes", "faithful", "LifeCycleSavings", "rock", "freeny", "cars", "morley",
          "state.x77", "esoph", "warpbreaks", "infert", "CO2", "PlantGrowth", "ToothGrowth", "chickwts")
for (s in base) {
  x <- as.data.frame(get(s))
  for (j in seq_along(x)) if (is.factor(x[[j]])) x[[j]] <- factor(as.character(x[[j]]))
  write.csv(x, file.path(out, paste0(s, ".csv")), row.names = FALSE)
}
# MASS's Boston (a recommended package) with its two coded columns as factors: ptratio is
# 20.2 in all 132 tracts with rad 24, a column constant within a configuration
Boston <- MASS::Boston
Boston$rad <- factor(paste0("rad", Boston$rad))  # (text labels: a CSV of numbers reads back numeric)
Boston$chas <- factor(paste0("chas", Boston$chas))
write.csv(Boston, file.path(out, "Boston.csv"), row.names = FALSE)
suppressPackageStartupMessages({library(bnlearn); library(pcalg)})
for (s in c("gaussian.test", "clgaussian.test", "marks")) {
  data(list = s, package = "bnlearn", envir = environment())
  write.csv(get(s), file.path(out, paste0(s, ".csv")), row.names = FALSE)
}
for (s in c("gmG", "gmI", "gmL")) {
  data(list = s, package = "pcalg", envir = environment())
  write.csv(as.data.frame(get(s)$x), file.path(out, paste0(s, ".csv")), row.names = FALSE)
}
"""

# ``--contributed``: 16 numeric data sets of contributed CRAN packages (AER, HSAUR3, dslabs,
# ade4, survival; Debian's r-cran-* packages), their measurements only (identifiers, factors and
# constant columns left out), exported as R holds them
CONTRIBUTED = r"""
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
suppressPackageStartupMessages({library(AER); library(HSAUR3); library(dslabs); library(ade4);
                                library(survival)})
keep <- function(x, name, columns = NULL) {
  x <- as.data.frame(x)
  if (!is.null(columns)) x <- x[, columns]
  x <- x[, sapply(x, is.numeric), drop = FALSE]
  write.csv(x, file.path(out, paste0(name, ".csv")), row.names = FALSE)
}
aer <- list(
  CigarettesSW = c("cpi", "population", "packs", "income", "tax", "price", "taxs"),
  CASchools = c("students", "teachers", "calworks", "lunch", "computer", "expenditure", "income",
                "english", "read", "math"),
  PSID1976 = c("hours", "youngkids", "oldkids", "age", "education", "wage", "hhours", "hage",
               "heducation", "hwage", "fincome", "experience"),
  MurderRates = c("rate", "convictions", "executions", "time", "income", "lfp", "noncauc"),
  HousePrices = c("price", "lotsize", "bedrooms", "bathrooms", "stories", "garage"),
  Journals = c("price", "pages", "charpp", "citations", "foundingyear", "subs"))
for (s in names(aer)) {
  data(list = s, package = "AER", envir = environment())
  keep(get(s), s, aer[[s]])
}
keep(HSAUR3::USairpollution, "USairpollution")
keep(HSAUR3::clouds, "clouds", c("time", "sne", "cloudcover", "prewetness", "echomotion", "rainfall"))
keep(HSAUR3::water, "water", c("mortality", "hardness"))
keep(HSAUR3::plasma, "plasma", c("fibrinogen", "globulin"))
keep(dslabs::temp_carbon, "temp_carbon")
keep(dslabs::olive, "olive", c("palmitic", "palmitoleic", "stearic", "oleic", "linoleic", "linolenic",
                               "arachidic", "eicosenoic"))
data(doubs, package = "ade4", envir = environment())
keep(doubs$env, "doubs")
data(mafragh, package = "ade4", envir = environment())
keep(mafragh$env, "mafragh_env")
keep(survival::lung, "lung", c("age", "ph.karno", "pat.karno", "meal.cal", "wt.loss", "time"))
keep(survival::pbc, "pbc", c("age", "bili", "chol", "albumin", "copper", "alk.phos", "ast", "trig",
                             "platelet", "protime", "time"))
# and with their factors (R's factor levels as text; integer codes as text labels)
mixed <- function(x, name, columns) {
  x <- as.data.frame(x)[, columns]
  for (j in seq_along(x)) if (is.factor(x[[j]]) || is.logical(x[[j]])) x[[j]] <- as.character(x[[j]])
  write.csv(x, file.path(out, paste0(name, ".csv")), row.names = FALSE)
}
data(HousePrices, package = "AER", envir = environment())
mixed(HousePrices, "HousePrices_mixed", names(HousePrices))
data(Journals, package = "AER", envir = environment())
mixed(Journals, "Journals_mixed", c("price", "pages", "charpp", "citations", "foundingyear", "subs",
                                    "society"))
data(PSID1976, package = "AER", envir = environment())
mixed(PSID1976, "PSID1976_mixed", c("participation", "hours", "age", "education", "wage", "hhours",
                                    "hage", "hwage", "fincome", "experience", "city"))
lung <- survival::lung
lung$sex <- c("male", "female")[lung$sex]
lung$status <- c("censored", "dead")[lung$status]
lung$ph.ecog <- paste0("ecog", lung$ph.ecog)
lung$ph.ecog[lung$ph.ecog == "ecogNA"] <- NA
mixed(lung, "lung_mixed", c("age", "sex", "status", "ph.ecog", "ph.karno", "meal.cal", "wt.loss", "time"))
pbc <- survival::pbc
pbc$stage <- paste0("stage", pbc$stage)
pbc$stage[pbc$stage == "stageNA"] <- NA
mixed(pbc, "pbc_mixed", c("age", "sex", "stage", "bili", "albumin", "copper", "alk.phos", "protime",
                          "time"))
"""

# ``--more``: data sets of 13 more CRAN packages (Debian's r-cran-* packages), their
# measurements only (identifiers and constant columns left out), and 20 with their factors
MORE = r"""
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
get.data <- function(package, name) {
  e <- new.env()
  data(list = name, package = package, envir = e)
  as.data.frame(get(name, envir = e))
}
keep <- function(package, name, columns = NULL) {
  x <- get.data(package, name)
  if (!is.null(columns)) x <- x[, columns]
  x <- x[, sapply(x, function(v) is.numeric(v) && length(unique(v[!is.na(v)])) > 1), drop = FALSE]
  write.csv(x, file.path(out, paste0(name, ".csv")), row.names = FALSE)
}
for (s in c("hbk", "starsCYG", "wood", "Animals2", "milk", "phosphor", "pulpfiber", "salinity",
            "vaso", "coleman", "aircraft", "delivery", "alcohol", "bushfire", "toxicity", "steamUse",
            "wagnerGrowth", "NOxEmissions", "radarImage"))
  keep("robustbase", s)
for (s in c("glucose", "marks", "surdata")) keep("ggm", s)
keep("quantreg", "barro")
keep("quantreg", "engel")
for (s in c("nodal", "nuclear", "frets", "urine", "breslow", "melanoma")) keep("boot", s)
for (s in c("flower", "pluton", "votes.repub", "chorSub")) keep("cluster", s)
for (s in c("environmental", "ethanol")) keep("lattice", s)
for (s in c("bondyield", "moneydemand", "valueofstocks", "unemployment")) keep("lmtest", s)
keep("sandwich", "Investment")
keep("ipred", "Smoking")
for (s in c("Gasoline", "Wafer", "Oxboys", "Dialyzer")) keep("nlme", s)
# and with their factors (levels and logicals as text; integer codes as text labels)
mixed <- function(x, name, columns = names(x)) {
  x <- as.data.frame(x)[, columns]
  for (j in seq_along(x)) if (is.factor(x[[j]]) || is.logical(x[[j]])) x[[j]] <- as.character(x[[j]])
  write.csv(x, file.path(out, paste0(name, "_mixed.csv")), row.names = FALSE)
}
meuse <- get.data("sp", "meuse")
meuse$ffreq <- paste0("ffreq", meuse$ffreq)
meuse$soil <- paste0("soil", meuse$soil)
meuse$lime <- paste0("lime", meuse$lime)
mixed(meuse, "meuse", c("cadmium", "copper", "lead", "zinc", "elev", "dist", "om", "ffreq", "soil",
                        "lime", "landuse"))
mixed(get.data("pROC", "aSAH"), "aSAH", c("gos6", "outcome", "gender", "age", "wfns", "s100b", "ndka"))
mixed(get.data("rpart", "stagec"), "stagec")
mixed(get.data("rpart", "kyphosis"), "kyphosis")
mixed(get.data("rpart", "car.test.frame"), "car.test.frame")
mixed(get.data("rpart", "cu.summary"), "cu.summary")
mixed(get.data("rpart", "car90"), "car90", c("Country", "Type", "Price", "HP", "Weight", "Disp", "Tank",
                                              "Turning", "Length", "Width", "Height", "Steering", "Rim"))
mixed(get.data("robustbase", "possumDiv"), "possumDiv")
education <- get.data("robustbase", "education")
education$Region <- paste0("region", education$Region)
mixed(education, "education", c("Region", "X1", "X2", "X3", "Y"))
mixed(get.data("nlme", "Orthodont"), "Orthodont", c("distance", "age", "Sex"))
mixed(get.data("nlme", "Milk"), "Milk", c("protein", "Time", "Diet"))
mixed(get.data("nlme", "Oats"), "Oats", c("Block", "Variety", "nitro", "yield"))
mixed(get.data("nlme", "RatPupWeight"), "RatPupWeight", c("weight", "sex", "Lsize", "Treatment"))
mixed(get.data("boot", "poisons"), "poisons")
mixed(get.data("boot", "catsM"), "catsM")
mixed(get.data("lattice", "barley"), "barley")
dystrophy <- get.data("ipred", "dystrophy")
mixed(dystrophy, "dystrophy", c("AGE", "CK", "H", "PK", "LD", "Class"))
mixed(get.data("quantreg", "Mammals"), "Mammals")
mixed(get.data("nlme", "MathAchSchool"), "MathAchSchool", c("Size", "Sector", "PRACAD", "DISCLIM",
                                                            "HIMINTY", "MEANSES"))
mixed(get.data("robustbase", "CrohnD"), "CrohnD", c("nrAdvE", "BMI", "height", "country", "sex", "age",
                                                    "weight", "treat"))
"""

PEERS = r"""
suppressPackageStartupMessages({library(bnlearn); library(pcalg)})
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1], check.names = FALSE, stringsAsFactors = TRUE)
for (j in seq_along(x)) if (is.integer(x[[j]])) x[[j]] <- as.numeric(x[[j]])
mixed <- any(sapply(x, is.factor))
say <- function(...) cat(..., "\n", sep = "\t")
arcs.of <- function(fit) { a <- arcs(fit); for (i in seq_len(nrow(a))) say("arc", a[i, 1], a[i, 2]) }
if (!mixed) {
  h <- hc(x, score = "bic-g")
  arcs.of(h)
  for (ty in c("loglik-g", "bic-g", "aic-g", "bge"))
    say("score", ty, sprintf("%.17g", score(h, x, type = ty)))
  say("best", "hc", sprintf("%.17g", score(h, x, type = "bic-g")))
  say("best", "tabu", sprintf("%.17g", score(tabu(x, score = "bic-g"), x, type = "bic-g")))
  g <- ges(new("GaussL0penObsScore", as.matrix(x)))
  m <- as(as(g$repr, "graphNEL"), "matrix")
  dag <- empty.graph(names(x)); amat(dag) <- (m != 0) * 1
  say("best", "pcalg_ges", sprintf("%.17g", score(dag, x, type = "bic-g")))
  s <- arcs(bnlearn::skeleton(pc.stable(x, test = "zf", alpha = 0.05)))
  for (i in seq_len(nrow(s))) say("bnlearn_pc", s[i, 1], s[i, 2])
  p <- pc(list(C = cor(as.matrix(x)), n = nrow(x)), indepTest = gaussCItest, alpha = 0.05,
          labels = names(x), skel.method = "stable")
  a <- as(p@graph, "matrix")
  for (i in seq_len(ncol(a))) for (j in seq_len(ncol(a))) if (i < j && (a[i, j] | a[j, i]))
    say("pcalg_pc", names(x)[i], names(x)[j])
  for (i in seq_len(ncol(a))) for (j in seq_len(ncol(a))) if (a[i, j])
    say("pcalg_arc", names(x)[i], names(x)[j])
  for (i in seq_len(ncol(x))) for (j in seq_len(ncol(x))) if (i != j)
    say("ida", names(x)[i], names(x)[j], sprintf("%.17g", sort(ida(i, j, cov(x), p@graph, method = "local"))))
  for (t in seq_len(ncol(x))) {
    r <- pcSelect(x[[t]], as.matrix(x[, -t, drop = FALSE]), alpha = 0.05)
    say("select", names(x)[t], paste(names(x)[-t][r$G], collapse = "|"))
  }
} else {
  h <- hc(x, score = "bic-cg")
  arcs.of(h)
  for (ty in c("loglik-cg", "bic-cg", "aic-cg")) say("score", ty, sprintf("%.17g", score(h, x, type = ty)))
  s <- arcs(bnlearn::skeleton(pc.stable(x, test = "mi-cg", alpha = 0.05)))
  for (i in seq_len(nrow(s))) say("bnlearn_pc", s[i, 1], s[i, 2])
}
"""


def peers(path):
    """What R says of one data set: tagged fields per line."""
    out = subprocess.run(["Rscript", "-e", PEERS, str(path)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    said = {}
    for line in out.stdout.splitlines():
        tag, *fields = line.rstrip("\t").split("\t")
        said.setdefault(tag, []).append(fields)
    return said


def skeleton(model):
    return {frozenset(e) for e in list(model.directed_edges_) + list(model.undirected_edges_)}


def pairs(said, tag):
    return {frozenset(f) for f in said.get(tag, [])}


def largest_score_difference(x, said, types):
    """bnlearn's ``hc`` DAG and the largest relative difference of its scores."""
    edges = sorted(tuple(f) for f in said.get("arc", []))  # (none: bnlearn learned no arc)
    return edges, max(abs(resolve_scorer(kind).score(x, edges, column_types=types) - float(value))
                      / abs(float(value)) for kind, value in said["score"])


def ida_difference(x, said):
    """Local IDA on pcalg's CPDAG against pcalg's ``ida`` for every ordered pair: the
    largest difference relative to the largest effect of the pair (an effect that is 0 up
    to rounding, 1e-15 against -1e-16, is no relative difference of 10), or how many pairs
    give a multiset of another size (or why skbn refuses pcalg's graph: pcalg's PC can
    return one with a directed cycle)."""
    arcs = {tuple(f) for f in said.get("pcalg_arc", [])}
    directed = sorted((u, v) for u, v in arcs if (v, u) not in arcs)
    undirected = sorted((u, v) for u, v in arcs if (v, u) in arcs and u < v)
    cpdag = PDAG(list(x.columns), directed, undirected)
    worst, other = 0.0, 0
    for source, target, *theirs in said["ida"]:
        try:
            mine = sorted(ida(x, cpdag, source, target, column_types="continuous")["effect"])
        except ValueError as error:  # (pcalg's PC graph with a directed cycle: skbn refuses it)
            return f"pcalg's graph refused ({error})"
        if len(mine) != len(theirs):
            other += 1
            continue
        theirs = sorted(float(v) for v in theirs)
        scale = max(abs(v) for v in theirs)
        for ours, reference in zip(mine, theirs):
            worst = max(worst, abs(ours - reference) / scale if scale else abs(ours))
    return f"{len(said['ida'])} pairs, {worst:.1e}" + (f" ({other} of another size)" if other else "")


def continuous_row(name, x, said, types):
    edges, worst = largest_score_difference(x, said, types)
    pc = skeleton(PCStructure(ci_test="zf", column_types=types).fit(x))
    selected_differ = 0
    for target, *chosen in said["select"]:  # (an empty selection: no second field)
        features = x.drop(columns=target)
        mask = PCSelect(column_types="continuous").fit(features, x[target]).get_support()
        theirs = sorted(c for c in "|".join(chosen).split("|") if c)
        selected_differ += sorted(features.columns[mask]) != theirs
    worst_ida = ida_difference(x, said)
    hc = HillClimbStructure(scorer="bic-g", column_types=types).fit(x)
    r_hc = float(dict(said["best"])["hc"])
    best = max(float(v) for _, v in said["best"])
    ges = GESStructure(column_types=types).fit(x).score_
    ges_restarts = GESStructure(column_types=types, edge_restarts=10).fit(x).score_
    return (f"{name}, {x.shape[0]}, {x.shape[1]}, {worst:.1e}, {pc == pairs(said, 'pcalg_pc')}, "
            f"{pc == pairs(said, 'bnlearn_pc')}, {selected_differ}/{len(said['select'])}, {worst_ida}, "
            f"{set(hc.edges_) == set(edges)}, {hc.score_:.4f}, {r_hc:.4f}, {ges:.4f}, {ges_restarts:.4f}, "
            f"{best:.4f}")


def mixed_row(name, x, said, types):
    edges, worst = largest_score_difference(x, said, types)
    hc = HillClimbStructure(scorer="bic-cg", column_types=types).fit(x)
    r_hc = float(dict(said["score"])["bic-cg"])
    pc = skeleton(PCStructure(ci_test="mi-cg", column_types=types).fit(x))
    return (f"{name}, {x.shape[0]}, {x.shape[1]}, {worst:.1e}, {set(hc.edges_) == set(edges)}, "
            f"{hc.score_:.4f}, {r_hc:.4f}, {pc == pairs(said, 'bnlearn_pc')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="data set names (default: all)")
    parser.add_argument("--export", type=Path, default=None,
                        help="write R's data sets as CSV to this folder and stop (for other benchmarks, "
                             "e.g. bench_gaussian_learners.py hc --real)")
    parser.add_argument("--contributed", action="store_true",
                        help="instead of the data R, bnlearn and pcalg ship: 16 numeric data sets of "
                             "AER, HSAUR3, dslabs, ade4 and survival (installed in R)")
    parser.add_argument("--more", action="store_true",
                        help="instead: 46 numeric and 20 mixed data sets of robustbase, ggm, quantreg, "
                             "boot, cluster, lattice, lmtest, sandwich, ipred, nlme, sp, rpart and pROC")
    parser.add_argument("--file-order", action="store_true",
                        help="give R the columns in the file's order (default: sorted by name, the order "
                             "skbn's searches and pcSelect use whatever the column order)")
    args = parser.parse_args()
    export = CONTRIBUTED if args.contributed else MORE if args.more else EXPORT
    if args.export:
        args.export.mkdir(parents=True, exist_ok=True)
        subprocess.run(["Rscript", "-e", export, str(args.export)], check=True, capture_output=True)
        return
    warnings.simplefilter("ignore")  # (few-values warnings, orientation conflicts: not what is measured)
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["Rscript", "-e", export, folder], check=True, capture_output=True)
        continuous_rows, mixed_rows = [], []
        for path in sorted(Path(folder).glob("*.csv")):
            name = path.stem
            if args.only and name not in args.only:
                continue
            # (R marks missing cells NA; "None" is a state, as nlme's Alfalfa's first date)
            x = pd.read_csv(path, keep_default_na=False, na_values=["", "NA"]).dropna().reset_index(drop=True)
            x.columns = [str(c) for c in x.columns]
            if not args.file_order:  # (skbn searches in name order whatever the column order)
                x = x[sorted(x.columns)]
            numeric = [c for c in x.columns  # (R's logicals read back as bool: discrete, as in R)
                       if pd.api.types.is_numeric_dtype(x[c]) and not pd.api.types.is_bool_dtype(x[c])]
            if len(numeric) < 2 or x[numeric].nunique().min() < 2:
                continue
            types = {c: "continuous" if c in numeric else "discrete" for c in x.columns}
            clean = Path(folder) / f"{name}.complete.csv"
            x.to_csv(clean, index=False)
            try:
                said = peers(clean)
            except RuntimeError as error:  # (a peer refusing the data: reported, not measured)
                print(f"# {name}: R refused: {error}")
                continue
            if len(numeric) == x.shape[1]:
                continuous_rows.append(continuous_row(name, x, said, types))
            else:
                mixed_rows.append(mixed_row(name, x, said, types))
            clean.unlink()
    print("continuous: data, rows, columns, largest score rel. diff, PC skeleton = pcalg, = bnlearn, "
          "pcSelect sets differing, local IDA on pcalg's CPDAG against pcalg (pairs, largest rel. diff), "
          "hc graph = bnlearn, skbn hc bic-g, bnlearn hc bic-g, skbn GES, "
          "skbn GES edge_restarts=10, best of bnlearn hc/tabu and pcalg ges")
    print("\n".join(continuous_rows))
    print("\nmixed: data, rows, columns, largest score rel. diff, hc graph = bnlearn, skbn hc bic-cg, "
          "bnlearn hc bic-cg, PC mi-cg skeleton = bnlearn")
    print("\n".join(mixed_rows))


if __name__ == "__main__":
    main()
