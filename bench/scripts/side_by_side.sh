#!/usr/bin/env bash
# Two 1-thread training runs started together against one alone (issue #9:
# each should take within 10% of the lone run): the shipped cod-rna data,
# 200 labels, tsg with fixed C and sigma (no grid), 20 passes, --threads 1,
# the default --bind auto. Runs REPEATS rounds of (alone, pair) side by
# side for each binary given and prints every wall time and the medians.
# usage: bench/scripts/side_by_side.sh [TOOL...] > bench/results/side-by-side.tsv
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=("$root/build/tsgs3vm")
repeats=${REPEATS:-5}
# shellcheck source=machine.sh
. "$here/machine.sh"
machine_header
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
xz -dc "$root/tests/data/real/cod-rna.txt.xz" >"$work/train.svm"
# C = 2000 x the 200 labeled rows, through a config file's c (C x n_l in
# every version of the tool: --c is C per labeled row since model format 2)
printf 'c = 2000\n' >"$work/c.conf"
train() { # tool, model
    "$1" train -q --solver tsg --config "$work/c.conf" --sigma 0.05 \
        --passes 20 --threads 1 --labeled 200 "$work/train.svm" "$2"
}
now() { date +%s.%N; }
printf 'tool\tround\tkind\tseconds\n'
for t in "${tools[@]}"; do
    for r in $(seq "$repeats"); do
        t0=$(now); train "$t" "$work/a"; t1=$(now)
        printf '%s\t%d\talone\t%.3f\n' "$t" "$r" "$(echo "$t1 - $t0" | bc)"
        ( s=$(now); train "$t" "$work/b"; e=$(now); echo "$e - $s" | bc >"$work/t1" ) &
        ( s=$(now); train "$t" "$work/c"; e=$(now); echo "$e - $s" | bc >"$work/t2" ) &
        wait
        printf '%s\t%d\tpair\t%.3f\n' "$t" "$r" "$(cat "$work/t1")"
        printf '%s\t%d\tpair\t%.3f\n' "$t" "$r" "$(cat "$work/t2")"
    done
done | tee "$work/rows"
# medians per tool and kind, and pair / alone
python3 - "$work/rows" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("tool\t")]
for tool in dict.fromkeys(r[0] for r in rows):
    med = {k: statistics.median(float(r[3]) for r in rows if r[0] == tool and r[2] == k)
           for k in ("alone", "pair")}
    print(f"# median\t{tool}\talone {med['alone']:.3f} s\tpair {med['pair']:.3f} s"
          f"\tpair / alone {med['pair'] / med['alone']:.2f}")
PY
