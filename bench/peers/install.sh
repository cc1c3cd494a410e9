#!/bin/sh
# Installs the peer methods of the benchmark from Debian and prints their versions.
# Run as root (or through sudo). Idempotent: packages already present are left as they are.
set -eu
PKGS="libsvm-tools python3-sklearn python3-numpy python3-scipy gnuplot-nox time"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "install.sh: need root to install:$missing" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing
fi
echo "# installed versions"
dpkg-query -W $PKGS
# Debian's interpreter, not whatever python3 comes first in PATH (e.g. pyenv)
/usr/bin/python3 -c 'import sys, numpy, scipy, sklearn; print("python", sys.version.split()[0]); print("numpy", numpy.__version__); print("scipy", scipy.__version__); print("sklearn", sklearn.__version__)'
