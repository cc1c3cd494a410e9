#!/usr/bin/env bash
# LIBSVM's own grid search (Debian's libsvm-tools: svm-grid, which is
# grid.py) drives the tool unchanged through a two-line wrapper that
# execs `tsgs3vm train "$@"`: svm-grid calls `train -c C -g G -v 5 FILE`
# and reads "Cross Validation Accuracy = X%". The same grid runs over
# svm-train itself, on the same svm-scale'd rows, and both best points are
# printed side by side (issue #30 asks for the best rates within 2 points).
# usage: bench/scripts/svm_grid_drives.sh [TSGS3VM] [ROWS]
#   (ROWS: that many rows spread evenly over the shipped cod-rna file,
#   default 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=$(realpath "${1:-build/tsgs3vm}")
rows=${2:-200}
command -v svm-grid >/dev/null || { echo "needs svm-grid: apt-get install libsvm-tools" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# every k-th row: the file is sorted by class
xz -dc tests/data/real/cod-rna.txt.xz | awk -v r="$rows" '{a[NR] = $0} END {k = int(NR / r); for (i = 1; i <= r; i++) print a[(i - 1) * k + 1]}' >"$work/raw"
svm-scale -l -1 -u 1 "$work/raw" >"$work/scaled" 2>/dev/null
printf '#!/bin/sh\nexec %s train "$@"\n' "$tool" >"$work/wrap"
chmod +x "$work/wrap"
grid="-log2c -1,9,2 -log2g -7,1,2 -v 5 -gnuplot null -out null"
cd "$work"
/usr/bin/time -f %e -o t1 svm-grid $grid -svmtrain "$work/wrap" scaled >tsgs.txt
/usr/bin/time -f %e -o t2 svm-grid $grid -svmtrain "$(command -v svm-train)" scaled >libsvm.txt
printf 'driver\tbest_c\tbest_gamma\tcv_rate\tseconds\n'
printf 'tsgs3vm\t%s\t%s\n' "$(tail -1 tsgs.txt | tr ' ' '\t')" "$(cat t1)"
printf 'svm-train\t%s\t%s\n' "$(tail -1 libsvm.txt | tr ' ' '\t')" "$(cat t2)"
