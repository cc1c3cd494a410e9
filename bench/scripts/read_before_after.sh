#!/usr/bin/env bash
# The reader before and after issue 9's parallel split, side by side: the
# library at commit BASE (default 23e7053, the branch point; one thread)
# and at the working tree (1 and 2 threads), each read a fresh process,
# the three interleaved round by round so that they see the same load.
# FILE defaults to the SYNTHETIC SUSY-shaped CSV of 5M rows (2.4 GB, tsgs3vm
# synth); warm page cache. Prints every read, then the medians.
# Usage: bench/scripts/read_before_after.sh [FILE] [RUNS] [BASE]
#            > bench/results/read-before-after.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/scripts/machine.sh
. bench/scripts/data.sh
make -s build/libtsgs3vm.a build/tsgs3vm >&2
file=${1:-$(synth_file susy 5000000)} runs=${2:-5} base=${3:-23e7053}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git archive "$base" | tar -x -C "$tmp"
make -s -C "$tmp" build/libtsgs3vm.a >&2
libs="$(pkg-config --libs hwloc zlib liblzma libzstd) -lbz2 -lm"
flags="-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp"
cc $flags -I"$tmp/include" bench/scripts/read_once.c \
    "$tmp/build/libtsgs3vm.a" $libs -o "$tmp/read_before"
cc $flags -DHAS_THREADS -Iinclude bench/scripts/read_once.c \
    build/libtsgs3vm.a $libs -o "$tmp/read_after"
machine_header
bytes=$(stat -c %s "$file")
printf '# file\t%s\t%s bytes (SYNTHETIC unless named otherwise)\n' "$file" "$bytes"
printf '# before = commit %s, after = working tree at %s\n' "$base" \
    "$(git rev-parse --short HEAD)"
cat "$file" > /dev/null # into the page cache
printf 'version\tthreads\tseconds\tcpu_seconds\trows\n'
for _ in $(seq "$runs"); do
    "$tmp/read_before" "$file" 1 before
    "$tmp/read_after" "$file" 1 after
    "$tmp/read_after" "$file" 2 after
done | tee "$tmp/runs"
printf '# medians\tversion\tthreads\tseconds\tmb_per_s\tcpu_seconds\n'
col() { # the sorted values of column $3 of the reads of version $1, $2 threads
    awk -v v="$1" -v t="$2" -v k="$3" '$1 == v && $2 == t { print $k }' \
        "$tmp/runs" | sort -n
}
for v in "before 1" "after 1" "after 2"; do
    set -- $v
    secs=$(col "$1" "$2" 3) cpus=$(col "$1" "$2" 4)
    mid=$(( ($(printf '%s\n' "$secs" | wc -l) + 1) / 2 ))
    awk -v v="$1" -v t="$2" -v b="$bytes" \
        -v m="$(printf '%s\n' "$secs" | sed -n "${mid}p")" \
        -v c="$(printf '%s\n' "$cpus" | sed -n "${mid}p")" \
        'BEGIN { printf "# median\t%s\t%s\t%.3f\t%.0f\t%.3f\n", v, t, m,
                 b / 1e6 / m, c }'
done
printf '# load_after_run\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
