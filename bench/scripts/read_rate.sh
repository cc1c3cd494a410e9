#!/usr/bin/env bash
# Read rate of tsgs_dataset_read at 1 and 2 threads, side by side (the
# thread counts interleaved run by run, so they see the same load): with 1
# thread the serial reader runs unchanged (the "before" of the parallel
# split), with 2 the split parse (the "after"); then the same rows as a
# .npy (converted once, mapped), and the LIBSVM file compressed (gzip,
# zstd: one thread; xz -T2: liblzma's threads). SYNTHETIC data: the 1M x 18
# hashed rows of bench_read_rate, and a SUSY-shaped CSV written by tsgs3vm
# synth (label first, values as %.18e: 5M rows are 2.4 GB). Warm page
# cache.
# Usage: bench/scripts/read_rate.sh [RUNS] [SUSY_ROWS] [THREADS]
#            > bench/results/read-rate.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5} susy_rows=${2:-5000000} threads=${3:-1,2}
make -s build/bench_read_rate build/tsgs3vm >&2
. bench/scripts/machine.sh
. bench/scripts/data.sh
machine_header
./build/bench_read_rate --rows 1000000 --runs "$runs" --threads "$threads"
file=$(synth_file susy "$susy_rows")
cat "$file" > /dev/null # into the page cache
printf '# SYNTHETIC SUSY-shaped CSV (tsgs3vm synth, %s rows)\n' "$susy_rows"
./build/bench_read_rate --file "$file" --runs "$runs" --threads "$threads"
printf '# load_after_run\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
