#!/usr/bin/env bash
# The default solver under 100 labels (the cluster path: 22 paths in the
# selection's team instead of 11) on the lent many-core machine, against
# the build before it, thread counts and builds interleaved.
#   bench/scripts/device_few_labels.sh --bundle DIR BEFORE_TOOL   (here)
#   bench/scripts/device_few_labels.sh DIR OUTDIR                 (there)
# The bundle is device_sweep.sh's (lib/ with the loader and the libraries
# ldd lists, tsgs3vm, tsgs3vm-before, COMMIT) and the units (labeled.svm +
# unlabeled.svm) named in UNITS, copied from a gain_study.py work folder
# (GAIN_WORK).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --bundle ]; then
    b=${2:?}; before=${3:?}
    w=${GAIN_WORK:?a gain_study.py work folder}
    # the tools, their libraries and the loader, as the sweep bundles them
    bench/scripts/device_sweep.sh --bundle "$b" "$before"
    for u in ${UNITS:-susy50 gauss50@50.s01}; do
        mkdir -p "$b/$u"
        if [ "$u" = susy50 ]; then # the first 50 labels of a SUSY unit
            head -50 "$w/susy@200.s01/labeled.svm" >"$b/$u/labeled.svm"
            cp "$w/susy@200.s01/unlabeled.svm" "$b/$u/"
        else
            cp "$w/$u/labeled.svm" "$w/$u/unlabeled.svm" "$b/$u/"
        fi
    done
    exit 0
fi
b=$(cd "${1:?}" && pwd); out=${2:?}; mkdir -p "$out"
run() { "$b/lib/ld-linux-x86-64.so.2" --library-path "$b/lib" "$@"; }
trained() { # exe threads unit
    run "$b/$1" train --threads "$2" --unlabeled "$b/$3/unlabeled.svm" \
        "$b/$3/labeled.svm" /tmp/few.$$.model 2>&1 |
        sed -n 's/^trained: .*, \([0-9.]*\)s; model.*/\1/p'
}
{ sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1; nproc; cat "$b/COMMIT"; } >"$out/machine.txt"
printf 'unit\tbuild\tthreads\trun\ttrain_s\n' >"$out/few-labels-raw.tsv"
for r in 1 2 3; do
    for u in $(ls -d "$b"/*/ | xargs -n1 basename | grep -v '^lib$'); do
        for th in 1 2 4 8 16; do
            for exe in tsgs3vm-before tsgs3vm; do
                printf '%s\t%s\t%s\t%s\t%s\n' "$u" "$exe" "$th" "$r" \
                    "$(trained $exe $th $u)" >>"$out/few-labels-raw.tsv"
            done
        done
    done
done
cat "$out/few-labels-raw.tsv"
