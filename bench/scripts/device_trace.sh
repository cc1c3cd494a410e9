#!/usr/bin/env bash
# Where a run's time goes at 1..16 threads (issue #33): a tracing build
# (src/common/trace.h, -DTSGS_TRACE) of the tool, carried to the lent machine
# with its shared libraries as in device_sweep.sh, writes the spans of
# each run (the default's stages, its grid and path tasks per thread, tsg's
# phases and the master's parts of each step) to one TSV per run;
# bench/scripts/trace_model.py reads them.
#   bench/scripts/device_trace.sh --bundle DIR [BEFORE_TRACE_TOOL]
#       here: the bundle (build-trace/tsgs3vm as tsgs3vm, the libraries,
#       the SUSY sample; with a second tracing tool as tsgs3vm-before)
#   RUNS=N THREADS="1 2 4 8 16" ROWS="1000000 5000000" SOLVERS="safe tsg" \
#   bench/scripts/device_trace.sh DIR OUTDIR
#       there: makes the data (device_sweep.sh PARTS=data), then for each
#       run, rows, threads, solver and build one traced training, the
#       spans of all in OUTDIR/traces.tsv (a column per setting).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --bundle ]; then
    b=${2:?usage: device_trace.sh --bundle DIR [BEFORE_TRACE_TOOL]}
    mkdir -p "$b/lib"
    make -s B=build-trace CFLAGS="-O2 -g -DTSGS_TRACE" build-trace/tsgs3vm
    cp build-trace/tsgs3vm "$b/"
    ldd build-trace/tsgs3vm | awk '/=> \//{print $3} /^\t\/lib64/{print $1}' |
        sort -u | xargs -I{} cp -L {} "$b/lib/"
    cp "${TSGS_SHARED:-../shared}/data/susy/SUSY_test.csv.xz" "$b/"
    [ -z "${3:-}" ] || cp "$3" "$b/tsgs3vm-before"
    git rev-parse --short HEAD >"$b/COMMIT"
    exit 0
fi
bundle=$(cd "${1:?usage: device_trace.sh BUNDLE OUTDIR}" && pwd)
out=${2:?usage: device_trace.sh BUNDLE OUTDIR}
mkdir -p "$out"
data=${DATA:-/tmp/tsgs-device}
PARTS=data DATA=$data bench/scripts/device_sweep.sh "$bundle" "$out" >&2 || true # (it ends on a cat of tables this part does not make)
builds=after
[ -x "$bundle/tsgs3vm-before" ] && builds="before after"
printf 'run\trows\tthreads\tsolver\tbuild\ttrain_s\tkind\twhat\tindex\tthread\tstart_s\tend_s\n' \
    >"$out/traces.tsv"
for r in $(seq "${RUNS:-2}"); do
    for n in ${ROWS:-1000000 5000000}; do
        for th in ${THREADS:-1 2 4 8 16}; do
            for sv in ${SOLVERS:-safe tsg}; do
                for b in $builds; do
                    exe=$bundle/tsgs3vm
                    [ $b = before ] && exe=$bundle/tsgs3vm-before
                    s=$(TSGS3VM_TRACE=$data/trace.tsv \
                        "$bundle/lib/ld-linux-x86-64.so.2" \
                        --library-path "$bundle/lib" "$exe" train \
                        --solver "$sv" --labeled 200 --threads "$th" \
                        --test-every 0 "$data/susy-$n.npy" "$data/m.model" 2>&1 |
                        sed -n 's/^trained: .*, \([0-9.]*\)s; model.*/\1/p')
                    grep -v '^#' "$data/trace.tsv" |
                        awk -v p="$r	$n	$th	$sv	$b	$s" '{print p "\t" $0}' \
                            >>"$out/traces.tsv"
                    echo "$r $n $th $sv $b $s" >&2
                done
            done
        done
    done
done
