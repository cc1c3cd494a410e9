#!/usr/bin/env bash
# Thread-count sweep: time per training step of TSG on SUSY-shaped
# SYNTHETIC data for 1..N threads (N = this machine's cores) under each
# pinning policy; speedup and parallel efficiency against 1 thread of the
# same policy. Median of RUNS runs per point.
# Usage: bench/scripts/thread_sweep.sh [ROWS] [STEPS] [RUNS]
#   > bench/results/thread-sweep.tsv   (and a PNG beside it with plot=1)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000} steps=${2:-2000} runs=${3:-5}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
file=$(synth_file susy "$rows")
machine_header
printf '# data\tSYNTHETIC SUSY-shaped, %s rows x 18 (tsgs3vm synth); 200 labeled; %s steps of 256 unlabeled rows; max-features %s\n' \
    "$rows" "$steps" 2236
printf 'policy\tthreads\tsec_per_step_median\tsec_per_step_min\tspeedup\tefficiency\n'
cores=$(nproc)
declare -A times
# Side by side: every run goes through all policies and thread counts, so
# a slow spell of this shared machine hits them all alike.
for r in $(seq 1 "$runs"); do
    for policy in compact scatter none; do
        for t in $(seq 1 "$cores"); do
            s=$(./build/tsgs3vm train --solver tsg --header no --labeled 200 --threads "$t" \
                --bind "$policy" --iterations "$steps" --max-features 2236 \
                --block-size 8 "$file" /tmp/thread_sweep.model 2>&1 |
                sed -n 's/.*, \([0-9.]*\)s; model.*/\1/p')
            times[$policy,$t]+="$s "
        done
    done
done
for policy in compact scatter none; do
    base=
    for t in $(seq 1 "$cores"); do
        read -r med min < <(printf '%s\n' ${times[$policy,$t]} | sort -g |
            awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1]}')
        per=$(awk -v s="$med" -v n="$steps" 'BEGIN {printf "%.6g", s / n}')
        permin=$(awk -v s="$min" -v n="$steps" 'BEGIN {printf "%.6g", s / n}')
        [ -n "$base" ] || base=$per
        awk -v p="$policy" -v t="$t" -v per="$per" -v pm="$permin" -v b="$base" \
            'BEGIN {printf "%s\t%d\t%s\t%s\t%.3f\t%.3f\n", p, t, per, pm, b/per, b/per/t}'
    done
done
rm -f /tmp/thread_sweep.model
