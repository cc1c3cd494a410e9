#!/usr/bin/env bash
# The Python binding's overhead against the tool's training time, on
# SYNTHETIC SUSY-shaped rows (1M by default), solvers tsg and safe, REPS
# alternating runs each: bench/results/python-overhead.tsv.
#   bench/scripts/python_overhead.sh [ROWS] [REPS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/scripts/data.sh
. bench/scripts/machine.sh
rows=${1:-1000000} reps=${2:-5} threads=${3:-2}
csv=$(synth_file susy "$rows")
dir="$BENCH_DATA/python-overhead-$rows"
[ -s "$dir/X.npy" ] || /usr/bin/python3 bench/peers/py_overhead.py prepare "$csv" "$dir"
out=bench/results/python-overhead.tsv
{
    echo "# Python binding overhead: TSGS3VMClassifier.fit vs the tool's training time"
    echo "# SYNTHETIC SUSY-shaped rows ($rows, 1000 labeled), $reps alternating runs, medians"
    echo "# bench/scripts/python_overhead.sh $rows $reps $threads; $(date -u '+%Y-%m-%d %H:%M UTC')"
    machine_header
    printf 'solver\tthreads\trows\ttool_train_s\tpython_fit_s\toverhead\ttool_runs\tpython_runs\n'
    for s in tsg safe; do
        /usr/bin/python3 bench/peers/py_overhead.py run "$dir" build/tsgs3vm "$s" "$threads" "$reps"
    done
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
