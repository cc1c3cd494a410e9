#!/usr/bin/env bash
# Peak resident size of a training run against training size and feature
# budget, on SYNTHETIC SUSY-shaped data (18 features): the rows are held as
# float (72 bytes a row); the model is O(M) numbers. /usr/bin/time's max RSS
# of the whole process, 200 labeled rows, one pass.
# Usage: bench/scripts/memory.sh [SIZES] [BUDGETS] > bench/results/memory.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${1:-"100000 1000000 5000000"} budgets=${2:-"-1 4096 16384"}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
machine_header
printf '# data\tSYNTHETIC SUSY-shaped (tsgs3vm synth)\n'
printf 'rows\tmax_features\tfeatures\tmax_rss_kb\tdata_kb\ttrain_s\n'
for n in $sizes; do
    file=$(synth_file susy "$n")
    for m in $budgets; do
        log=$(mktemp)
        /usr/bin/time -f 'TIME %e %M' ./build/tsgs3vm train --solver tsg --header no \
            --labeled 200 --max-features "$m" --block-size 64 --test-every 0 \
            "$file" /tmp/memory.model >"$log" 2>&1
        rss=$(sed -n 's/^TIME [0-9.]* \([0-9]*\)$/\1/p' "$log")
        feats=$(sed -n 's/^trained: \([0-9]*\) .*/\1/p' "$log")
        train_s=$(sed -n 's/.*, \([0-9.]*\)s; model.*/\1/p' "$log")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$feats" "$rss" \
            $(( n * 18 * 4 / 1024 )) "$train_s"
        rm -f "$log"
    done
done
rm -f /tmp/memory.model
