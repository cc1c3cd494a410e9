#!/usr/bin/env bash
# Before and after, side by side (issue #33): step_proxies.sh's timed runs
# (PARTS=times) of two source trees, alternated: each round runs tree A,
# then tree B (the order swapped every other round), RUNS=1 each, so both
# see the same spells of a shared machine. Then step_ab.py prints the
# medians per tree, rows and threads (train seconds, the master's parts
# of a step, the serial section).
#   ROUNDS=5 ROWS="1000000 5000000" bench/scripts/step_ab.sh OUTDIR \
#       /tmp/tsgs-before /work/tree-after
# OUTDIR/a-N and OUTDIR/b-N get each round's raw.tsv; the summary goes to
# OUTDIR/summary.txt. Each tree builds its own tracing tool.
set -euo pipefail
out=${1:?usage: step_ab.sh OUTDIR TREE_A TREE_B}
a=$(cd "${2:?}" && pwd) b=$(cd "${3:?}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
for r in $(seq "${ROUNDS:-5}"); do
    order=(a b)
    [ $((r % 2)) = 0 ] && order=(b a)
    for k in "${order[@]}"; do
        tree=$a
        [ "$k" = b ] && tree=$b
        mkdir -p "$out/$k-$r"
        # step_proxies.sh fits its model after the runs: give it the
        # barrier counts it reads (not measured here)
        cp "$here/../results/step-proxies/barriers.tsv" "$out/$k-$r/"
        (cd "$tree" && RUNS=1 PARTS=times QUIET_TRIES=${QUIET_TRIES:-2} \
            ROWS="${ROWS:-1000000 5000000}" \
            bench/scripts/step_proxies.sh "$out/$k-$r" >/dev/null 2>"$out/$k-$r/log") ||
            echo "round $r tree $k: step_proxies.sh failed (see $out/$k-$r/log)" >&2
    done
done
/usr/bin/python3 "$here/step_ab.py" "$out" | tee "$out/summary.txt"
