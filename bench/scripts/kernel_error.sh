#!/usr/bin/env bash
# Gram-matrix error of iid against orthogonal random directions at equal
# feature counts (build/bench_kernel_error) on the test rows of the fixed
# splits in ../shared/checks/defaults (moons is SYNTHETIC) and on COIL-20
# (1,024 features: orthogonal groups of 128).
# usage: make bench && bench/scripts/kernel_error.sh > bench/results/kernel-error.tsv
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${BIN:-$here/../../build/bench_kernel_error}
shared=${SHARED:-$here/../../../shared}
files=()
for f in "$shared"/checks/defaults/*.test.svm.xz; do
    case $f in *-small.*) continue;; esac
    files+=("$f")
done
files+=("$shared/data/coil20/COIL20.csv.xz")
"$bin" --rows "${ROWS:-400}" --seeds "${SEEDS:-10}" "${files[@]}"
