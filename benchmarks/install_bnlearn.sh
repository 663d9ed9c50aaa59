#!/bin/sh
# Install R and bnlearn 4.9, the peer of the benchmarks (benchmarks/_bnlearn.py); never
# needed by skbn itself or its tests. Debian/Ubuntu, as root (or with sudo).
#
#   sh benchmarks/install_bnlearn.sh                 # bnlearn 4.9 source from GitHub (cran/bnlearn)
#   BNLEARN_SOURCE=/path/to/bnlearn sh benchmarks/install_bnlearn.sh   # a local source
#       directory or .tar.gz instead (e.g. `git archive 6eb0291` of cran/bnlearn, "version 4.9")
#   SKIP_APT=1 ...                                   # R is installed already
set -eu

VERSION=4.9
URL="https://github.com/cran/bnlearn/archive/refs/tags/$VERSION.tar.gz"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

if [ -z "${SKIP_APT:-}" ]; then
    $SUDO apt-get install -y --no-install-recommends r-base-core r-base-dev
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SOURCE=${BNLEARN_SOURCE:-}
if [ -z "$SOURCE" ]; then
    SOURCE="$WORK/bnlearn-$VERSION.tar.gz"
    curl -fsSL -o "$SOURCE" "$URL"
fi
if [ -f "$SOURCE" ]; then  # a tarball: R CMD INSTALL wants the package directory
    tar -xzf "$SOURCE" -C "$WORK"
    SOURCE=$(find "$WORK" -mindepth 2 -maxdepth 2 -name DESCRIPTION -exec dirname {} \; | head -n 1)
fi
grep -q "^Version: $VERSION\$" "$SOURCE/DESCRIPTION" \
    || echo "warning: $SOURCE/DESCRIPTION is not bnlearn $VERSION" >&2

$SUDO R CMD INSTALL "$SOURCE"
Rscript -e 'library(bnlearn); cat("bnlearn", format(packageVersion("bnlearn")), "on", R.version.string, "\n")'
