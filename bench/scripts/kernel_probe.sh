#!/usr/bin/env bash
# The prediction kernel against the probe (bench/kernel_probe.c: the
# fastest simple tile for the same sums), one thread, in turns within one
# process; ROUNDS runs of the program, each with --runs 5, on every code
# path this CPU has (AVX-512, AVX2, baseline). The probe is the issue's
# reference on the widest path; it keeps 16-float vectors everywhere, which
# GCC spills on AVX2 and SSE2, so there the kernel (native widths) is far
# ahead of it and the ratio says only that.
# Usage: bench/scripts/kernel_probe.sh [ROUNDS] > bench/results/kernel-vs-probe.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
make -s build/bench_kernel_probe
. bench/scripts/machine.sh
machine_header
printf 'isa\tround\td\tkernel_evals_per_s\tprobe8_evals_per_s\tprobe12_evals_per_s\tkernel_over_best_probe\tmax_abs_difference\n'
for isa in 2 1 0; do
    for r in $(seq 1 "$rounds"); do
        ./build/bench_kernel_probe --runs 5 --isa "$isa" 2>/dev/null |
            awk -v isa="$isa" -v r="$r" -F'\t' '!/^#/ && NR > 2 {
                printf "%s\t%s\t%s\n", isa == 2 ? "avx512" : isa == 1 ? "avx2" : "baseline", r, $0 }'
    done
done
printf '# load_at_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
