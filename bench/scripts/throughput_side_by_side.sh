#!/usr/bin/env bash
# The prediction kernel's throughput (bench/throughput.c) of two builds side
# by side, in alternating rounds, so that a slow spell of a shared machine
# hits both: e.g. the commit before a kernel change built into a folder of
# its own (`git archive REV | tar -x -C /tmp/tsgs-head && make -C
# /tmp/tsgs-head build/bench_throughput`) against this one.
# Usage: bench/scripts/throughput_side_by_side.sh BEFORE_BENCH [ROUNDS] [THREADS_MAX]
#   > bench/results/kernel-float-sums.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
before=${1:?usage: throughput_side_by_side.sh BEFORE_BENCH [ROUNDS] [THREADS_MAX]}
rounds=${2:-2} tmax=${3:-1}
make -s build/bench_throughput
. bench/scripts/machine.sh
machine_header
printf '# before=%s after=build/bench_throughput; %s alternating rounds of --runs 5\n' "$before" "$rounds"
printf 'build\tround\tmap\td\tthreads\tevals_per_s_median\tevals_per_s_best\n'
for r in $(seq 1 "$rounds"); do
    for b in before after; do
        bin=$before
        [ $b = after ] && bin=./build/bench_throughput
        "$bin" --runs 5 --threads-max "$tmax" | grep -v '^#' | tail -n +2 |
            awk -v b=$b -v r=$r -F'\t' '{printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b, r, $1, $2, $3, $6, $7}'
    done
done
printf '# load_at_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
