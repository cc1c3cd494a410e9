#!/usr/bin/env bash
# One core kept busy by another process (issue #33): the training time of
# tsg and the default with `yes` pinned to the last core, on 1M SYNTHETIC
# SUSY-shaped rows (.npy), against the same with the machine quiet.
# Modes: t1 (--threads 1), tN (--threads N, every core: the team has a
# thread on the busy core), auto (no --threads: the library's team of the
# free cores), tN-1 (--threads N-1), none (--threads N --bind none).
#   bench/scripts/device_sweep.sh --bundle DIR        (here: the bundle)
#   RUNS=3 bench/scripts/device_busy_core.sh DIR OUT  (on the lent machine)
# OUT/busy-core.tsv: run, solver, mode, load (busy or quiet), seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=$(cd "${1:?usage: device_busy_core.sh BUNDLE OUTDIR}" && pwd)
out=${2:?usage: device_busy_core.sh BUNDLE OUTDIR}
mkdir -p "$out"
data=${DATA:-/tmp/tsgs-device}
SMALL_ROWS=1000000 BIG_ROWS=1000000 PARTS=data DATA=$data \
    bench/scripts/device_sweep.sh "$bundle" "$out" >&2 || true
n=$(nproc)
last=$((n - 1))
trained() { # solver args...: seconds of training
    local sv=$1
    shift
    "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$bundle/lib" \
        "$bundle/tsgs3vm" train --solver "$sv" --labeled 200 "$@" \
        "$data/susy-1000000.npy" "$data/m.model" 2>&1 |
        sed -n 's/^trained: .*, \([0-9.]*\)s; model.*/\1/p'
}
args_of() {
    case $1 in
    t1) echo "--threads 1" ;;
    tN) echo "--threads $n" ;;
    auto) echo "" ;;
    tN-1) echo "--threads $last" ;;
    none) echo "--threads $n --bind none" ;;
    esac
}
printf 'run\tsolver\tmode\tload\ttrain_s\n' >"$out/busy-core.tsv"
for sv in tsg safe; do
    printf '0\t%s\ttN\tquiet\t%s\n' $sv "$(trained $sv --threads $n)" >>"$out/busy-core.tsv"
done
taskset -c "$last" yes >/dev/null &
busy=$!
trap 'kill $busy 2>/dev/null || true' EXIT
sleep 1
for r in $(seq "${RUNS:-3}"); do
    for mode in t1 tN auto tN-1 none; do
        for sv in tsg safe; do
            # shellcheck disable=SC2046
            s=$(trained $sv $(args_of $mode))
            printf '%s\t%s\t%s\tbusy\t%s\n' "$r" $sv $mode "$s" >>"$out/busy-core.tsv"
            echo "$r $sv $mode $s" >&2
        done
    done
done
