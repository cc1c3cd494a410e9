#!/usr/bin/env bash
# LIBSVM's easy.py (Debian's libsvm-tools: svm-easy) drives the tool
# unchanged: svm-easy runs ../svm-scale, ./grid.py -svmtrain ../svm-train,
# then ../svm-train -c C -g G and ../svm-predict TEST MODEL OUTPUT, paths
# fixed in the script; a folder laid out so holds wrappers that exec
# `tsgs3vm train "$@"` and `tsgs3vm predict MODEL TEST OUTPUT` (svm-predict
# takes the test file first), and a second folder LIBSVM's own programs.
# Both run on the same rows (issue #30: "easy.py's steps likewise").
# usage: bench/scripts/svm_easy_drives.sh [TSGS3VM] [ROWS]
#   (ROWS training rows spread evenly over the shipped cod-rna file,
#   default 1000; the test rows: every 100th of cod-rna.t)
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=$(realpath "${1:-build/tsgs3vm}")
rows=${2:-1000}
command -v svm-easy >/dev/null || { echo "needs svm-easy: apt-get install libsvm-tools" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xz -dc tests/data/real/cod-rna.txt.xz | awk -v r="$rows" '{a[NR] = $0} END {k = int(NR / r); for (i = 1; i <= r; i++) print a[(i - 1) * k + 1]}' >"$work/train"
xz -dc tests/data/real/cod-rna.t.xz | awk 'NR % 100 == 1' >"$work/test"
printf 'driver\tbest_c\tbest_gamma\tcv_rate\ttest_accuracy\tseconds\n'
for v in tsgs3vm libsvm; do
    d=$work/$v
    mkdir -p "$d/tools"
    ln -s "$(command -v svm-scale)" "$d/svm-scale"
    ln -s "$(command -v svm-grid)" "$d/tools/grid.py"
    if [ $v = tsgs3vm ]; then
        printf '#!/bin/sh\nexec %s train "$@"\n' "$tool" >"$d/svm-train"
        printf '#!/bin/sh\nexec %s predict "$2" "$1" "$3"\n' "$tool" >"$d/svm-predict"
        chmod +x "$d/svm-train" "$d/svm-predict"
    else
        ln -s "$(command -v svm-train)" "$d/svm-train"
        ln -s "$(command -v svm-predict)" "$d/svm-predict"
    fi
    (cd "$d/tools" && /usr/bin/time -f %e -o ../t python3 "$(command -v svm-easy)" "$work/train" "$work/test" >../log 2>&1)
    best=$(sed -n 's/^Best c=\([^,]*\), g=\([^ ]*\) CV rate=\(.*\)$/\1\t\2\t\3/p' "$d/log")
    acc=$(sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p' "$d/log")
    printf '%s\t%s\t%s\t%s\n' "$v" "$best" "$acc" "$(cat "$d/t")"
done
