#!/usr/bin/env bash
# Proxies on 2 cores for the tsg solver's 16-thread efficiency (issue #33):
# the master's parts of each step (a tracing build: src/common/trace.h,
# step_fast's STEP_PART and end_step's step_after), the serial time per
# step (the master alone between the team's barriers: step_serial +
# step_after), the barriers per step (counted: libgomp's entry points
# interposed by bench/scripts/gomp_count.c, in runs of their own, the
# difference between a full run and one of half the steps), and one
# barrier's cost on its own (bench/scripts/barrier_cost.c); then bench/scripts/step_model.py fits
# T(p) and predicts 16 threads beside bench/results/device-16core.
#   RUNS=5 ROWS="1000000 5000000" THREADS="1 2" PARTS="times barriers" \
#   bench/scripts/step_proxies.sh OUTDIR
# (PARTS=times: the timed runs into OUTDIR/raw.tsv, PARTS=barriers: the
# counts into OUTDIR/barriers.tsv; the barrier cost and the model always.)
# Data: SYNTHETIC SUSY-shaped rows (`tsgs3vm synth`, as .npy, made as
# device_sweep.sh makes them) in $DATA (/tmp/tsgs-proxy); tsg with its
# defaults, 200 labels, one pass, --bind auto; thread counts alternate in
# each run (1 2, then 2 1), the load average noted before each training;
# each waits a while for a quiet machine (quiet below) and notes the
# cores other processes used during it; step_model.py leaves out the runs
# they slowed down.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: step_proxies.sh OUTDIR}
mkdir -p "$out"
data=${DATA:-/tmp/tsgs-proxy}
mkdir -p "$data"
. bench/scripts/machine.sh
. bench/scripts/data.sh
make -s B=build-trace CFLAGS="-O2 -g -DTSGS_TRACE" build-trace/tsgs3vm
[ -x build/tsgs3vm ] || make -s
tool=build-trace/tsgs3vm
cc -O2 -shared -fPIC -o build-trace/gomp_count.so bench/scripts/gomp_count.c -ldl
cc -O2 -fopenmp -o build-trace/barrier_cost bench/scripts/barrier_cost.c
for n in ${ROWS:-1000000}; do
    [ -s "$data/susy-$n.npy" ] && continue
    ./build/tsgs3vm synth --quiet --rows "$n" --layout susy --skip-columns 1 \
        --label-column 2 "$TSGS_SHARED/data/susy/SUSY_test.csv.xz" "$data/s.csv"
    ./build/tsgs3vm convert -q --header no "$data/s.csv" "$data/susy-$n.npy"
    rm "$data/s.csv"
done
# busy jiffies and all jiffies of the machine (/proc/stat)
jiffies() { awk '/^cpu /{b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6}' /proc/stat; }
# quiet: waits (at most QUIET_TRIES tries of 1.5 s, 40) until other processes use less
# than a tenth of a core over half a second; prints what they used
quiet() {
    local a b used waited=0
    while :; do
        a=$(jiffies); sleep 0.5; b=$(jiffies)
        used=$(echo "$a $b" | awk -v c="$(nproc)" '{print ($3 - $1) / (($4 - $2) / c)}')
        awk -v u="$used" 'BEGIN {exit !(u < 0.1)}' && break
        [ $waited -ge "${QUIET_TRIES:-40}" ] && break
        sleep 1; waited=$((waited + 1))
    done
    echo "$used"
}
# train ROWS THREADS [more options]: one traced training, the trace in
# $data/trace.tsv (with COUNT=1 the barrier counter too: the counts in
# $data/gomp.txt); prints "seconds features others", others: the cores
# that other processes used during it (the machine's busy time less the
# tool's own CPU time, over its wall time)
train() {
    local n=$1 th=$2 a b s pre=
    shift 2
    [ "${COUNT:-0}" = 1 ] && pre=$PWD/build-trace/gomp_count.so
    a=$(jiffies)
    s=$(TSGS3VM_TRACE=$data/trace.tsv GOMP_COUNT_OUT=$data/gomp.txt \
        LD_PRELOAD=$pre /usr/bin/time -f '%U %S %e' -o "$data/time.txt" $tool train --solver tsg --labeled 200 --threads "$th" --bind auto \
        --test-every 0 "$@" "$data/susy-$n.npy" "$data/m.model" 2>&1 |
        sed -n 's/^trained: \([0-9]*\) random features, \([0-9.]*\)s; model.*/\2 \1/p')
    b=$(jiffies)
    echo "$s $(echo "$a $b $(cat "$data/time.txt")" | awk -v c="$(nproc)" -v hz="$(getconf CLK_TCK)" \
        '{w = ($4 - $2) / c / hz; printf "%.2f", (($3 - $1) / hz - $5 - $6) / w}')"
}
parts=${PARTS:-times barriers}
raw=$out/raw.tsv
[[ " $parts " = *" times "* ]] && {
    machine_header
    printf '# data\tSYNTHETIC SUSY-shaped .npy (tsgs3vm synth); tsg defaults, 200 labeled, one pass, --bind auto\n'
    printf 'run\trows\tthreads\tload1\ttrain_s\tkind\twhat\tcount\tvalue\n'
} >"$raw"
# record RUN ROWS THREADS LOAD "SECONDS FEATURES OTHERS" KIND: the trace's
# totals, the model's features and the others' cores
record() {
    local v=($5)
    local p="$1	$2	$3	$4	${v[0]}"
    printf '%s\t%s\tfeatures\t1\t%s\n' "$p" "$6" "${v[1]}" >>"$raw"
    printf '%s\t%s\tothers_cores\t1\t%s\n' "$p" "$6" "${v[2]}" >>"$raw"
    awk -v p="$p" -v k="$6" -F'\t' '$1 == "total" {print p "\t" k "\t" $2 "\t" $3 "\t" $4}' \
        "$data/trace.tsv" >>"$raw"
}
runs=${RUNS:-5} threads=(${THREADS:-1 2})
[[ " $parts " = *" times "* ]] || runs=0
for r in $(seq "$runs"); do
    order=("${threads[@]}")
    [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${threads[@]}" | tac))
    for n in ${ROWS:-1000000}; do
        for th in "${order[@]}"; do
            before=$(quiet)
            load=$(cut -d' ' -f1 /proc/loadavg)
            s=$(train "$n" "$th")
            record "$r" "$n" "$th" "$load" "$s" full
            echo "run $r rows $n threads $th load $load others before $before trained (s, features, others' cores) $s" >&2
        done
    done
done
# the barriers of a step: a full run and one of half the steps, counted
if [[ " $parts " = *" barriers "* ]]; then
    printf 'rows\tthreads\tkind\tsteps\tbarriers\tsingles\tcopyprivate\tloop_ends\tregions\n' \
        >"$out/barriers.tsv"
    for n in ${ROWS:-1000000}; do
        for th in "${threads[@]}"; do
            steps=
            for kind in full half; do
                if [ $kind = full ]; then
                    COUNT=1 train "$n" "$th" >/dev/null
                    steps=$(awk -F'\t' '$1 == "total" && $2 == "step_kernel" {print $3}' "$data/trace.tsv")
                else
                    COUNT=1 train "$n" "$th" --iterations $((steps / 2)) >/dev/null
                fi
                printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$th" $kind \
                    "$(awk -F'\t' '$1 == "total" && $2 == "step_kernel" {print $3}' "$data/trace.tsv")" \
                    "$(awk '{print $2 "\t" $4 "\t" $6 "\t" $8 "\t" $10}' "$data/gomp.txt")" \
                    >>"$out/barriers.tsv"
            done
        done
    done
fi
for th in "${threads[@]}"; do build-trace/barrier_cost "$th"; done >"$out/barrier-cost.txt"
/usr/bin/python3 bench/scripts/step_model.py --barrier-cost "$out/barrier-cost.txt" \
    --barriers "$out/barriers.tsv" \
    --device bench/results/device-16core/phases-per-step.txt "$raw" | tee "$out/model.txt"
