#!/usr/bin/env bash
# Test error against iterations (the TSGS3VM paper's Figure 4) on cod-rna:
# 200 labels, configs/cod-rna.conf, the test accuracy measured every STEP
# steps (on a seeded sample of 20,000 test rows, the final one on all
# 271,617). Solvers tsg, dsg, frs; same seed.
# Usage: bench/scripts/convergence.sh [STEP] > bench/results/convergence-codrna.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
every=${1:-100}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
machine_header
printf 'solver\titeration\ttest_error\n'
for solver in tsg dsg frs; do
    extra=()
    [ "$solver" = dsg ] && extra=(--iterations 2318)
    ./build/tsgs3vm train --config configs/cod-rna.conf --solver "$solver" \
        --labeled 200 --test tests/data/real/cod-rna.t.xz --test-every "$every" \
        "${extra[@]}" tests/data/real/cod-rna.txt.xz /tmp/convergence.model 2>&1 |
        tr '\r' '\n' |
        sed -n 's/^iter \([0-9]*\)\/[0-9]* .*test accuracy[^0-9]*[0-9]*-row sample) \([0-9.]*\)%.*/\1 \2/p;
                s/^iter \([0-9]*\)\/[0-9]* .*test accuracy \([0-9.]*\)%.*/\1 \2/p' |
        awk -v s="$solver" '{printf "%s\t%d\t%.4f\n", s, $1, 1 - $2 / 100}'
done
rm -f /tmp/convergence.model
