#!/usr/bin/env bash
# tsgs3vm cv: fits side by side on one thread each (grid) against one fit at
# a time on all threads (fit), alternated run by run; cod-rna, 200 labels,
# a 4 x 4 grid, 5 folds, one pass each fit.
# Usage: bench/scripts/cv_parallel.sh [RUNS] > bench/results/cv-parallel.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
machine_header
printf 'mode\trun\twall_s\tbest\n'
for r in $(seq 1 "$runs"); do
    for mode in grid fit; do
        start=$(date +%s.%N)
        best=$(./build/tsgs3vm cv -q --labeled 200 --cv-parallel "$mode" \
            --grid c-total=log:0:3 --grid sigma=log:-3:0 \
            tests/data/real/cod-rna.txt.xz | tail -1)
        end=$(date +%s.%N)
        printf '%s\t%d\t%.2f\t%s\n' "$mode" "$r" \
            "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$best"
    done
done
