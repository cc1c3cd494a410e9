#!/usr/bin/env bash
# A tsg step's time under mpirun, per rank, from a tracing build
# (src/common/trace.h: the span of the steps, sgd_steps, and the master's
# parts of each step, step_kernel etc.), for the scaling model
# (bench/scripts/mpi_scaling.py). One thread per rank, --sigma given (no
# grid for the kernel width), --warm-start 0 (the model starts empty, so
# step t predicts with min(t - 1, M / r) blocks of r features: the sums
# the fit needs), 200 labeled rows, the rows read in shares. Ranks
# unbound (mpirun --bind-to none, the tool's --bind none; BIND_TO=core
# binds as Open MPI does by default): on this shared 2-vCPU machine a rank
# bound to the core another job runs on gets half of it; unbound, the
# scheduler moves it to the freer core.
#   RUNS=3 DIMS="susy hep" FEATURES="512 1024 2048 4096" BATCHES="16 64 256 1024" \
#   RANKS="1" ITERS=2000 bench/scripts/mpi_step_cost.sh OUT.tsv
# Data: SYNTHETIC SUSY-shaped (18 columns) and HEPMASS-shaped (28) rows,
# 1,000,000 each, as .npy in $DATA (/tmp/mpiscale-data), made once with
# `tsgs3vm synth` (bench/scripts/data.sh's way). Each training waits for a
# quiet machine (at most QUIET_TRIES x 1.5 s) and notes the load average
# and the cores other processes used during it (the machine's busy time
# less the job's own CPU time).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: mpi_step_cost.sh OUT.tsv}
data=${DATA:-/tmp/mpiscale-data}
mkdir -p "$data"
. bench/scripts/machine.sh
. bench/scripts/data.sh
[ -x build/tsgs3vm ] || make -s
make -s B=build-trace CFLAGS="-O2 -g -DTSGS_TRACE" build-trace/tsgs3vm
tool=$PWD/build-trace/tsgs3vm
if [ ! -s "$data/susy-1M.npy" ]; then
    ./build/tsgs3vm synth --quiet --rows 1000000 --layout susy \
        --skip-columns 1 --label-column 2 \
        "$TSGS_SHARED/data/susy/SUSY_test.csv.xz" "$data/s.csv"
    ./build/tsgs3vm convert -q --header no "$data/s.csv" "$data/susy-1M.npy"
    rm "$data/s.csv"
fi
if [ ! -s "$data/hep-1M.npy" ]; then
    ./build/tsgs3vm synth --quiet --rows 1000000 --layout hepmass \
        --label-column last --header yes \
        "$TSGS_SHARED/data/higgs/higgs.csv.xz" "$data/h.csv"
    ./build/tsgs3vm convert -q --header yes "$data/h.csv" "$data/hep-1M.npy"
    rm "$data/h.csv"
fi
jiffies() { awk '/^cpu /{b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6}' /proc/stat; }
quiet() {
    local a b used waited=0
    while :; do
        a=$(jiffies); sleep 0.5; b=$(jiffies)
        used=$(echo "$a $b" | awk -v c="$(nproc)" '{print ($3 - $1) / (($4 - $2) / c)}')
        awk -v u="$used" 'BEGIN {exit !(u < 0.1)}' && break
        [ $waited -ge "${QUIET_TRIES:-6}" ] && break
        sleep 1; waited=$((waited + 1))
    done
}
iters=${ITERS:-2000}
{
    machine_header # (before OMP_NUM_THREADS, which nproc obeys)
    printf '# mpirun\t%s\n' "$(mpirun --version | head -1)"
    printf '# data\tSYNTHETIC 1,000,000 rows (susy: 18 columns, hep: 28) .npy; tsg, --threads 1 per rank, --sigma 0.1, --warm-start 0, --labeled 200, --block-size 8, %s steps\n' "$iters"
    printf 'run\tdata\td\tfeatures\tbatch\tranks\trank\tsteps\tload1\tothers_cores\twall_s\twhat\tcount\tseconds\n'
} > "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
for r in $(seq "${RUNS:-3}"); do
for kind in ${DIMS:-susy hep}; do
    d=18; [ "$kind" = hep ] && d=28
    for M in ${FEATURES:-512 1024 2048 4096}; do
    for B in ${BATCHES:-16 64 256 1024}; do
    for np in ${RANKS:-1}; do
        quiet
        load=$(cut -d' ' -f1 /proc/loadavg)
        rm -f "$data"/tr.*
        a=$(jiffies)
        /usr/bin/time -f '%U %S %e' -o "$data/time.txt" \
            mpirun -np "$np" --bind-to "${BIND_TO:-none}" -x OMP_NUM_THREADS bash -c \
            'TSGS3VM_TRACE='"$data"'/tr.$OMPI_COMM_WORLD_RANK exec "$@"' _ \
            "$tool" train --quiet --threads 1 --bind none --labeled 200 --solver tsg \
            --sigma 0.1 --warm-start 0 --test-every 0 --iterations "$iters" \
            --max-features "$M" --batch-unlabeled "$B" \
            "$data/$kind-1M.npy" "$data/m.model"
        b=$(jiffies)
        others=$(echo "$a $b $(cat "$data/time.txt")" | awk -v c="$(nproc)" \
            -v hz="$(getconf CLK_TCK)" '{w = ($4 - $2) / c / hz;
            printf "%.2f", (($3 - $1) / hz - $5 - $6) / w}')
        wall=$(awk '{print $3}' "$data/time.txt")
        for k in $(seq 0 $((np - 1))); do
            awk -F'\t' -v p="$r	$kind	$d	$M	$B	$np	$k	$iters	$load	$others	$wall" '
                $1 == "total" { print p "\t" $2 "\t" $3 "\t" $4 }
                $1 == "span" && $2 == "sgd_steps" { print p "\tsgd_steps\t" $3 "\t" $6 - $5 }' \
                "$data/tr.$k" >> "$out"
        done
        echo "run $r $kind M $M B $B np $np load $load others $others wall $wall" >&2
    done
    done
    done
done
done
