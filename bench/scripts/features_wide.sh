#!/usr/bin/env bash
# The default (`train --unlabeled U L M`, nothing else) at several feature
# counts (--max-features F), on the units of the defaults benchmark: the
# same labeled, unlabeled and test rows per (case, seed) as its table.
# Make the units first, e.g. for the class-balance cases:
#   /usr/bin/python3 bench/peers/defaults_accuracy.py --cases 'w8a@2000/50' \
#       --seeds 1-10 --methods tsgs3vm --keep-work --results /tmp/u --workdir /tmp/u/work
# then
#   bench/scripts/features_wide.sh TOOL '/tmp/u/work/*/units' 'w8a@2000/50' 1-10 1024 2048 4096
# One line per (case, features, seed): test accuracy in % and fit seconds
# (whole process, one at a time, OMP_NUM_THREADS as the caller's); a
# summary line per (case, features) with the mean over the seeds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 5 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
tool=$1 units=$2 case=$3 seeds=$4
shift 4
# shellcheck source=machine.sh
. "$here/machine.sh"
machine_header
printf '# tool\t%s\tsha256=%s\n' "$tool" "$(sha256sum "$tool" | cut -c1-16)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
dir=${case//\//%}   # defaults_accuracy.py writes NAME@N/P as NAME@N%P
first=${seeds%-*} last=${seeds#*-}
printf 'case\tfeatures\tseed\taccuracy\tseconds\n'
for f in "$@"; do
    sum=0 n=0
    for s in $(seq "$first" "$last"); do
        # shellcheck disable=SC2086
        u=$(ls -d $units/"$dir".seed"$s" | head -1)
        test=$u/test.svm
        [ -e "$test" ] || test=$(dirname "$u")/../data/${dir%%@*}.test.svm
        t0=$(date +%s.%N)
        "$tool" train -q --max-features "$f" --unlabeled "$u/unlabeled.svm" \
            "$u/labeled.svm" "$work/m"
        t1=$(date +%s.%N)
        acc=$("$tool" predict "$work/m" "$test" "$work/p" 2>/dev/null |
              sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
        printf '%s\t%s\t%s\t%s\t%.2f\n' "$case" "$f" "$s" "$acc" \
            "$(echo "$t1 - $t0" | bc -l)"
        sum=$(echo "$sum + $acc" | bc -l) n=$((n + 1))
    done
    printf '# mean\t%s\t%s\t%.2f\tover %d seeds\n' "$case" "$f" \
        "$(echo "$sum / $n" | bc -l)" "$n"
done
