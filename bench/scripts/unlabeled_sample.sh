#!/bin/sh
# Does the default gain from more unlabeled rows? (issue #29) cod-rna with
# 200 labels (stratified by --seed, seeds SEEDS), the other 59,335 training
# rows unlabeled, scored on the 271,617-row test file, at settings of the
# semi-supervised phase's seeded sample of unlabeled rows (SAMPLES, default
# "2000 20000 all"):
#   2000         the default (--unlabeled-sample 2000)
#   20000, all   --unlabeled-sample 20000, or every unlabeled row (59,335)
# and, with SAME_TOTAL=1, also
#   20000-same   --unlabeled-sample 20000 with --c-star set to the 2000
#                run's C per row x 2000: the unlabeled rows' total weight of
#                the default run (what the default itself does beyond 2,000
#                rows since C_STAR_ROWS in src/solvers/safe/safe.c; before
#                it, C* was C per unlabeled row however many)
# One process at a time; wall seconds and peak memory by /usr/bin/time.
#
# Usage (from the repository root):
#   TOOL=build/tsgs3vm SEEDS="1 2 3 4 5" THREADS=2 [SAMPLES="2000 20000 all"] \
#     [SAME_TOTAL=1] bench/scripts/unlabeled_sample.sh OUT.tsv
set -eu
TOOL=${TOOL:-build/tsgs3vm}
SEEDS=${SEEDS:-1 2 3 4 5}
THREADS=${THREADS:-2}
SAMPLES=${SAMPLES:-2000 20000 all}
SAME_TOTAL=${SAME_TOTAL:-0}
OUT=${1:?usage: unlabeled_sample.sh OUT.tsv}
TRAIN=tests/data/real/cod-rna.txt.xz
TEST=tests/data/real/cod-rna.t.xz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

printf 'seed\tsetting\tsample\tc_star_total\taccuracy\tseconds\tmax_kb\tnote\n' >"$OUT"
run() { # seed setting sample [c-star total]
    extra=""
    [ -n "${4:-}" ] && extra="--c-star $4"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$TOOL" train --threads "$THREADS" \
        --seed "$1" --labeled 200 --unlabeled-sample "$3" $extra \
        --test "$TEST" "$TRAIN" "$WORK/model" >"$WORK/log" 2>&1
    acc=$(grep -o 'Test accuracy = [0-9.]*' "$WORK/log" | grep -o '[0-9.]*$')
    note=$(grep '^safe:' "$WORK/log" | head -1)
    read -r sec kb <"$WORK/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-default}" \
        "$acc" "$sec" "$kb" "$note" >>"$OUT"
    echo "$1 $2: $acc% ${sec}s" >&2
}
for seed in $SEEDS; do
    for n in $SAMPLES; do
        rows=$n
        [ "$n" = all ] && rows=1000000000
        run "$seed" "$n" "$rows"
        if [ "$n" = 2000 ]; then # its C per row, from its note ("C 2048 (per row)")
            c=$(tail -1 "$OUT" | grep -o 'C [0-9.e+-]* (per row)' | head -1 | awk '{print $2}')
        fi
    done
    if [ "$SAME_TOTAL" = 1 ]; then
        run "$seed" 20000-same 20000 "$(awk -v c="$c" 'BEGIN{printf "%.10g", c * 2000}')"
    fi
done
