#!/usr/bin/env bash
# The many-core sweep of issue #9 in one call of a lent machine (16 cores
# where this was written): the tool and bench_read_rate built on the
# 2-core machine and carried with their shared libraries (the lent
# machine has no Debian packages), run through the carried loader.
#   1. whole training (the tool's "trained" time: (sigma, C) grid, warm
#      start, shuffles and steps; reading left out), with the defaults of
#      each solver SOLVERS names (default "tsg safe": safe is the tool's
#      default), 200 labels, one pass, SYNTHETIC SUSY-shaped rows as .npy,
#      thread counts interleaved run by run: 1M rows at 1..N threads, 5M
#      rows at a few;
#   2. the same at N threads under each --bind policy;
#   3. JOBS concurrent 1-thread runs against one alone (the binding
#      default must not pile jobs onto one core);
#   4. reading the 2.4 GB CSV at several thread counts.
# Usage (on the lent machine, from the repository root):
#   bench/scripts/device_sweep.sh BUNDLE OUTDIR
# BUNDLE holds lib/ (ld-linux and the libraries ldd lists), tsgs3vm,
# bench_read_rate and the source sample (SUSY_test.csv.xz); with a
# tsgs3vm-before beside them, step 1 runs both builds side by side.
# Make one here with: bench/scripts/device_sweep.sh --bundle BUNDLE [BEFORE_TOOL]
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --bundle ]; then
    b=${2:?usage: device_sweep.sh --bundle DIR}
    mkdir -p "$b/lib"
    make -s build/tsgs3vm build/bench_read_rate
    cp build/tsgs3vm build/bench_read_rate "$b/"
    for f in build/tsgs3vm build/bench_read_rate; do
        ldd "$f" | awk '/=> \//{print $3} /^\t\/lib64/{print $1}'
    done | sort -u | xargs -I{} cp -L {} "$b/lib/"
    cp "${TSGS_SHARED:-../shared}/data/susy/SUSY_test.csv.xz" "$b/"
    [ -z "${3:-}" ] || cp "$3" "$b/tsgs3vm-before"
    git rev-parse --short HEAD >"$b/COMMIT" # the lent machine's copy has no history of its own
    exit 0
fi
bundle=$(cd "${1:?usage: device_sweep.sh BUNDLE OUTDIR}" && pwd)
out=${2:?usage: device_sweep.sh BUNDLE OUTDIR}
mkdir -p "$out"
run() { # program args...: through the carried loader and libraries
    "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$bundle/lib" "$@"
}
tool() { run "$bundle/tsgs3vm" "$@"; }
builds=after
[ -x "$bundle/tsgs3vm-before" ] && builds="before after"
cores=$(nproc)
runs=${RUNS:-3}
small=${SMALL_ROWS:-1000000} big=${BIG_ROWS:-5000000}
data=${DATA:-/tmp/tsgs-device}
mkdir -p "$data"
header() {
    printf '# machine\tcpu=%s\tcores=%s\tnuma_nodes=%s\n' \
        "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
        "$cores" "$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
    printf '# build\tDebian 12 gcc 12.2 on the 2-core machine, carried; commit=%s\tdate=%s\n' \
        "$(cat "$bundle/COMMIT" 2>/dev/null || echo unknown)" \
        "$(date -u +%Y-%m-%dT%H:%MZ)"
    printf '# load_at_start\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}
trained() { # threads bind file [build [solver]]: seconds of training
    local exe=$bundle/tsgs3vm
    [ "${4:-after}" = before ] && exe=$bundle/tsgs3vm-before
    run "$exe" train --solver "${5:-tsg}" --labeled 200 --threads "$1" \
        --bind "$2" \
        --test-every 0 "$3" "$data/m.$$.model" 2>&1 |
        sed -n 's/^trained: .*, \([0-9.]*\)s; model.*/\1/p'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

{ header; lscpu; tool topology --threads "$cores"; } >"$out/machine.txt" 2>&1
held=200000 # held-out rows after the big set's (row i depends on i alone)
for n in $small $big; do
    [ -s "$data/susy-$n.npy" ] && continue
    tool synth --quiet --rows $((n + held)) --layout susy --skip-columns 1 \
        --label-column 2 "$bundle/SUSY_test.csv.xz" "$data/all.csv"
    head -n "$n" "$data/all.csv" >"$data/susy-$n.csv"
    [ $n = $big ] && tail -n "$held" "$data/all.csv" >"$data/susy-test.csv"
    rm "$data/all.csv"
    tool convert -q --header no "$data/susy-$n.csv" "$data/susy-$n.npy"
done
echo "data ready $(date -u +%T)" >&2
parts=${PARTS:-sweep bind concurrent read batch}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# 1. thread sweep of the whole training
declare -A t
solvers=${SOLVERS:-tsg safe}
if want sweep; then
printf 'run\tsolver\tbuild\trows\tthreads\ttrain_s\n' >"$out/sweep-raw.tsv"
sweep1=$(seq 1 "$cores")
sweep5="1 2 4 8 12 $cores"
for r in $(seq "$runs"); do
    for n in $small $big; do
        list=$sweep1
        [ $n = $big ] && list=$sweep5
        for th in $list; do
            for sv in $solvers; do
                for b in $builds; do
                    v=$(trained "$th" auto "$data/susy-$n.npy" $b $sv)
                    t[$sv,$b,$n,$th]+="$v "
                    # each time as it comes, so a call cut short keeps them
                    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $r $sv $b $n $th "$v" >>"$out/sweep-raw.tsv"
                done
            done
        done
    done
done
{
    header
    printf '# data\tSYNTHETIC SUSY-shaped .npy (tsgs3vm synth), 18 features; 200 labeled; each solver with its defaults, one pass, --bind auto\n'
    printf 'solver\tbuild\trows\tthreads\ttrain_s_median\tspeedup\tefficiency\truns\n'
    for sv in $solvers; do
    for b in $builds; do
        for n in $small $big; do
            list=$sweep1
            [ $n = $big ] && list=$sweep5
            base=
            for th in $list; do
                med=$(printf '%s\n' ${t[$sv,$b,$n,$th]} | median)
                [ -n "$base" ] || base=$med
                awk -v sv=$sv -v bd=$b -v n=$n -v th=$th -v m=$med -v b=$base -v r=$runs \
                    'BEGIN {printf "%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\n", sv, bd, n, th, m, b/m, b/m/th, r}'
            done
        done
    done
    done
} >"$out/thread-sweep.tsv"
echo "sweep done $(date -u +%T)" >&2
fi

# 2. binding policies at every core
declare -A p
if want bind; then
for r in $(seq "$runs"); do
    for pol in auto compact scatter none; do
        p[$pol]+="$(trained "$cores" $pol "$data/susy-$big.npy") "
    done
done
{
    header
    printf '# data\tSYNTHETIC SUSY-shaped 5M x 18 .npy; tsg defaults, one pass, %s threads\n' "$cores"
    printf 'bind\ttrain_s_median\truns\n'
    for pol in auto compact scatter none; do
        printf '%s\t%s\t%s\n' $pol "$(printf '%s\n' ${p[$pol]} | median)" "$runs"
    done
} >"$out/bind-policies.tsv"
fi

# 3. concurrent 1-thread jobs against one alone
jobs=${JOBS:-$cores}
want concurrent && {
    header
    printf '# data\tSYNTHETIC SUSY-shaped 1M x 18 .npy; tsg defaults, --threads 1, --bind auto\n'
    printf 'round\tkind\ttrain_s\n'
    for r in $(seq "$runs"); do
        printf '%s\talone\t%s\n' "$r" "$(trained 1 auto "$data/susy-$small.npy")"
        for j in $(seq "$jobs"); do
            (trained 1 auto "$data/susy-$small.npy" >"$data/job.$j") &
        done
        wait
        for j in $(seq "$jobs"); do
            printf '%s\tconcurrent_%s\t%s\n' "$r" "$jobs" "$(cat "$data/job.$j")"
        done
    done
} >"$out/concurrent.tsv"
echo "concurrent done $(date -u +%T)" >&2

# 4. reading the CSV
want read && cat "$data/susy-$big.csv" >/dev/null
want read && {
    header
    printf '# SYNTHETIC SUSY-shaped CSV (tsgs3vm synth, %s rows)\n' "$big"
    run "$bundle/bench_read_rate" --file "$data/susy-$big.csv" --runs "$runs" \
        --threads "1,2,4,8,$cores"
} >"$out/read-rate.tsv" 2>&1
echo "read done $(date -u +%T)" >&2
# 5. the unlabeled mini-batch: a step's work against the team's
# synchronisation, and what a larger one does to accuracy
batch_run() { # threads batch: "seconds accuracy"
    run "$bundle/tsgs3vm" train --solver tsg --labeled 200 --threads "$1" \
        --batch-unlabeled "$2" --test "$data/susy-test.csv" --header no \
        --test-every 0 "$data/susy-$big.npy" "$data/m.$$.model" 2>&1 |
        awk '/^trained:/ {sub(/s;.*/, ""); s = $NF}
             /^Test accuracy/ {a = $4; sub(/%/, "", a)}
             END {print s, a}'
}
declare -A bt ba
if want batch; then
    for r in $(seq "$runs"); do
        for bu in 256 1024 4096; do
            for th in 1 "$cores"; do
                read -r s a < <(batch_run "$th" "$bu")
                bt[$bu,$th]+="$s "
                ba[$bu,$th]=$a
            done
        done
    done
    {
        header
        printf '# data\tSYNTHETIC SUSY-shaped %s x 18 .npy, tested on the %s rows after them; tsg defaults but --batch-unlabeled, one pass\n' "$big" "$held"
        printf 'batch_unlabeled\tthreads\ttrain_s_median\tspeedup\tefficiency\ttest_accuracy\truns\n'
        for bu in 256 1024 4096; do
            base=
            for th in 1 "$cores"; do
                med=$(printf '%s\n' ${bt[$bu,$th]} | median)
                [ -n "$base" ] || base=$med
                awk -v bu=$bu -v th=$th -v m=$med -v b=$base -v a="${ba[$bu,$th]}" -v r=$runs \
                    'BEGIN {printf "%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\n", bu, th, m, b/m, b/m/th, a, r}'
            done
        done
    } >"$out/batch-size.tsv"
    echo "batch done $(date -u +%T)" >&2
fi
cat "$out"/*.tsv
