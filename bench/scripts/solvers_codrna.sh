#!/usr/bin/env bash
# Accuracy and training time of each solver on cod-rna, the papers'
# protocol: 200 labeled rows (stratified, by seed), the other 59,335
# unlabeled, tested on cod-rna.t (271,617 rows). Settings from
# configs/cod-rna.conf; DSG/CDSG run as many steps as TSG (2318).
# Usage: bench/scripts/solvers_codrna.sh [SEEDS] > bench/results/solvers-codrna.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-"1 2 3"}
tool=./build/tsgs3vm
data=tests/data/real
[ -x "$tool" ] || make -s
. bench/scripts/machine.sh
machine_header
printf 'solver\tseed\tthreads\ttest_accuracy\ttrain_s\textra_options\n'
run() { # solver seed extra...
    local solver=$1 seed=$2; shift 2
    local out
    out=$("$tool" train --config configs/cod-rna.conf --solver "$solver" \
        --labeled 200 --seed "$seed" --test "$data/cod-rna.t.xz" \
        --test-every 1000000000 "$@" "$data/cod-rna.txt.xz" /tmp/solvers_codrna.model 2>&1)
    local acc secs
    acc=$(printf '%s\n' "$out" | sed -n 's/^Test accuracy = \([0-9.]*\)%.*/\1/p')
    secs=$(printf '%s\n' "$out" | sed -n 's/.*, \([0-9.]*\)s; model.*/\1/p')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$solver" "$seed" "$(nproc)" "$acc" \
        "$secs" "$*"
}
for seed in $seeds; do
    run tsg "$seed"
    run tsg "$seed" --reuse check
    run dsg "$seed" --iterations 2318
    run cdsg "$seed" --iterations 2318
    run frs "$seed"
done
rm -f /tmp/solvers_codrna.model
