#!/usr/bin/env bash
# Peak resident size and time of `tsgs3vm predict` against the rows of the
# file scored, on SYNTHETIC SUSY-shaped data (tsgs3vm synth, 18 features,
# ~480 bytes a row of text). A predict that reads the whole file holds its
# rows (72 bytes a row as floats); one that streams holds the model and a
# block of rows, whatever the file's length. Each tool scores each file
# RUNS times (medians); the outputs of every tool are compared with the
# first tool's, byte for byte.
# Usage: bench/scripts/predict_memory.sh "ROWS..." TOOL... \
#            > bench/results/predict-memory/NAME.tsv
# e.g.   bench/scripts/predict_memory.sh "1000000 5000000" build/tsgs3vm \
#            /tmp/tsgs-before/build/tsgs3vm
# (the reference build: git worktree add /tmp/tsgs-before REV &&
#  make -C /tmp/tsgs-before)
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${1:-"1000000 5000000"}
shift || true
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(build/tsgs3vm)
runs=${RUNS:-3}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The model: the default (safe) solver on the first 20,000 rows.
first=$(synth_file susy 1000000)
head -20000 "$first" > "$work/train.csv"
./build/tsgs3vm train -q --header no "$work/train.csv" "$work/susy.model" \
    >/dev/null 2>&1

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

machine_header
printf '# data\tSYNTHETIC SUSY-shaped (tsgs3vm synth), model: safe on 20000 rows\n'
printf '# command\t/usr/bin/time -f "%%e %%U %%M" TOOL predict -q --header no MODEL FILE OUT\n'
printf '# runs\t%s (medians; OMP_NUM_THREADS unset: one thread per core)\n' "$runs"
printf 'tool\trows\tfile_mb\tmax_rss_kb\twall_s\tuser_s\tsame_output\n'
for n in $sizes; do
    file=$(synth_file susy "$n")
    mb=$(( $(stat -c %s "$file") / 1000000 ))
    for i in "${!tools[@]}"; do
        tool=${tools[$i]}
        : > "$work/times"
        for r in $(seq "$runs"); do
            /usr/bin/time -o "$work/t" -f '%e %U %M' "$tool" predict -q \
                --header no "$work/susy.model" "$file" "$work/out.$i"
            cat "$work/t" >> "$work/times"
        done
        same=first
        [ "$i" -eq 0 ] || { cmp -s "$work/out.0" "$work/out.$i" && same=yes ||
            same=no; }
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$n" "$mb" \
            "$(cut -d' ' -f3 "$work/times" | median)" \
            "$(cut -d' ' -f1 "$work/times" | median)" \
            "$(cut -d' ' -f2 "$work/times" | median)" "$same"
    done
    for i in "${!tools[@]}"; do rm -f "$work/out.$i"; done
done
