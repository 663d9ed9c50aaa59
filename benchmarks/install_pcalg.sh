#!/bin/sh
# Install R pcalg 2.7-12 and causal-learn, peers of the Gaussian benchmarks
# (bench_gaussian_*.py, bench_pc_select.py); never needed by skbn itself or its tests.
# Debian/Ubuntu, as root (or with sudo); R and bnlearn first: benchmarks/install_bnlearn.sh.
#
#   sh benchmarks/install_pcalg.sh                  # pcalg 2.7-12 source from GitHub (cran/pcalg)
#   PCALG_SOURCE=/path/to/pcalg sh benchmarks/install_pcalg.sh   # a local source directory
#       or .tar.gz instead (e.g. `git archive 930fe47` of cran/pcalg, "version 2.7-12")
#   PEER_VENV=/path/to/venv ...                     # where causal-learn goes (default ./peervenv)
#   SKIP_APT=1 ...                                  # pcalg's R dependencies are installed already
set -eu

VERSION=2.7-12
URL="https://github.com/cran/pcalg/archive/refs/tags/$VERSION.tar.gz"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

if [ -z "${SKIP_APT:-}" ]; then
    # pcalg's R dependencies, from the distribution (Bioconductor graph/RBGL included)
    $SUDO apt-get install -y --no-install-recommends r-bioc-graph r-bioc-rbgl r-cran-igraph \
        r-cran-ggm r-cran-corpcor r-cran-robustbase r-cran-vcd r-cran-abind r-cran-sfsmisc \
        r-cran-fastica r-cran-clue r-cran-bdsmatrix r-cran-rcpp r-cran-rcpparmadillo r-cran-bh
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SOURCE=${PCALG_SOURCE:-}
if [ -z "$SOURCE" ]; then
    SOURCE="$WORK/pcalg-$VERSION.tar.gz"
    curl -fsSL -o "$SOURCE" "$URL"
fi
if [ -f "$SOURCE" ]; then  # a tarball: R CMD INSTALL wants the package directory
    tar -xzf "$SOURCE" -C "$WORK"
    SOURCE=$(find "$WORK" -mindepth 2 -maxdepth 2 -name DESCRIPTION -exec dirname {} \; | head -n 1)
fi
grep -q "^Version: $VERSION\$" "$SOURCE/DESCRIPTION" \
    || echo "warning: $SOURCE/DESCRIPTION is not pcalg $VERSION" >&2
$SUDO R CMD INSTALL "$SOURCE"
Rscript -e 'library(pcalg); cat("pcalg", format(packageVersion("pcalg")), "on", R.version.string, "\n")'

# causal-learn in its own environment (the benchmarks call it as a separate process)
VENV=${PEER_VENV:-peervenv}
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q causal-learn
"$VENV/bin/python" -c 'import importlib.metadata as m; print("causal-learn", m.version("causal-learn"))'
