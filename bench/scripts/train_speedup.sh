#!/usr/bin/env bash
# Training time on 1 and 2 threads, and the 2-thread speedup, of two builds
# side by side (e.g. before and after a change: build the other commit
# into a folder of its own, `git archive REV | tar -x -C /tmp/tsgs-before &&
# make -C /tmp/tsgs-before`), on SYNTHETIC SUSY-shaped data: TSG with
# its defaults (or the solver SOLVER names: SOLVER=safe for the tool's
# default), 200 labeled rows, one pass. The time is the tool's
# "trained" time (settings, warm start, shuffles and steps; reading left
# out). Every run goes through both builds and both thread counts in turn,
# so a slow spell of a shared machine hits them all alike; medians of RUNS.
# Usage: bench/scripts/train_speedup.sh BEFORE_TOOL [ROWS...] 
#   env RUNS (default 5), AFTER (default ./build/tsgs3vm), THREADS ("1 2"),
#   SOLVER (default tsg)
#   > bench/results/train-speedup.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
before=${1:?usage: train_speedup.sh BEFORE_TOOL [ROWS...]}
shift
sizes=${*:-1000000}
runs=${RUNS:-5} after=${AFTER:-./build/tsgs3vm} threads=${THREADS:-"1 2"}
solver=${SOLVER:-tsg}
[ -x "$after" ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
machine_header
printf '# data\tSYNTHETIC SUSY-shaped (tsgs3vm synth), 18 features; 200 labeled; %s defaults, one pass\n' "$solver"
printf '# builds\tbefore=%s\tafter=%s\n' "$before" "$after"
printf 'build\trows\tthreads\ttrain_s_median\ttrain_s_min\tspeedup_median\tpaired_speedup_median\truns\n'
declare -A times
for n in $sizes; do
    file=$(synth_file susy "$n")
    for r in $(seq 1 "$runs"); do
        for b in before after; do
            tool=$before
            [ $b = after ] && tool=$after
            for t in $threads; do
                s=$("$tool" train --solver "$solver" --header no --labeled 200 \
                    --threads "$t" --test-every 0 "$file" /tmp/train_speedup.model 2>&1 |
                    sed -n 's/^trained: .*, \([0-9.]*\)s; model.*/\1/p')
                times[$b,$n,$t]+="$s "
            done
        done
    done
    # speedup_median: the first thread count's median over this one's;
    # paired_speedup_median: the median over the runs of the ratio within
    # one round (the two ran seconds apart, so a slow spell of the machine
    # hits both: steadier on a noisy machine)
    for b in before after; do
        base= first=
        for t in $threads; do
            read -r med min < <(printf '%s\n' ${times[$b,$n,$t]} | sort -g |
                awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1]}')
            [ -n "$base" ] || { base=$med; first=$t; }
            paired=$(paste <(printf '%s\n' ${times[$b,$n,$first]}) \
                           <(printf '%s\n' ${times[$b,$n,$t]}) |
                awk '{print $1 / $2}' | sort -g |
                awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
            awk -v b="$b" -v n="$n" -v t="$t" -v med="$med" -v min="$min" \
                -v base="$base" -v paired="$paired" -v runs="$runs" \
                'BEGIN {printf "%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\n", b, n, t, med, min, base/med, paired, runs}'
        done
    done
done
printf '# load_at_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
rm -f /tmp/train_speedup.model
