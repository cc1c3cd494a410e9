#!/bin/bash
# What the default costs and scores with few labels on a million rows
# (issue #29: the cluster path under 100 labels): SYNTHETIC SUSY-shaped rows
# (data.sh), LABELS labels kept by --labeled (stratified by --seed), the
# rest unlabeled; the model then scores every row (transductive). Per
# seed and per tool (TOOLS, space-separated, run side by side on the same
# file): train and predict wall seconds and peak memory (/usr/bin/time),
# the accuracy, the model's features and C* (0: the supervised SVM kept).
# One process at a time.
#
# Usage (from the repository root):
#   TOOLS="/tmp/before-tsgs3vm build/tsgs3vm" SEEDS="1 2 3" LABELS=50 \
#     ROWS=1000000 bench/scripts/few_labels_cost.sh OUT.tsv
set -eu
. "$(dirname "$0")/data.sh"
TOOLS=${TOOLS:-build/tsgs3vm}
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
LABELS=${LABELS:-50}
ROWS=${ROWS:-1000000}
out=${1:?usage: few_labels_cost.sh OUT.tsv}
file=$(synth_file susy "$ROWS")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '# data\tSYNTHETIC SUSY-shaped (tsgs3vm synth), %s rows, %s labels kept by --labeled, scored on every row\n' "$ROWS" "$LABELS" >"$out"
printf '# machine\t%s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" "$(date -u +%F)" >>"$out"
printf 'tool\tseed\ttrain_s\ttrain_kb\tpredict_s\tpredict_kb\taccuracy\tfeatures\tc_star\n' >>"$out"
for seed in $SEEDS; do
    for tool in $TOOLS; do
        /usr/bin/time -f '%e %M' -o "$work/tt" "$tool" train -q --labeled "$LABELS" \
            --seed "$seed" "$file" "$work/m"
        /usr/bin/time -f '%e %M' -o "$work/pt" "$tool" predict "$work/m" "$file" \
            "$work/p" >"$work/log" 2>&1
        acc=$(grep -o 'Accuracy = [0-9.]*' "$work/log" | grep -o '[0-9.]*$')
        feat=$(awk '$1 == "max-features" {print $2}' "$work/m")
        cstar=$(awk '$1 == "c-star" {print $2}' "$work/m")
        read -r ts tk <"$work/tt"
        read -r ps pk <"$work/pt"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$seed" "$ts" "$tk" \
            "$ps" "$pk" "$acc" "$feat" "$cstar" >>"$out"
    done
done
