#!/usr/bin/env bash
# One-vs-rest training time of two builds side by side (issue #8: what the
# classes share): COIL-20 (../shared/data, all 20 objects), 1,080 rows
# drawn for training with 10 labeled rows per object (200 labels, the
# rest given as unlabeled rows), the default solver, THREADS threads; the runs
# alternate between the builds; medians of RUNS wall times, and whether
# the two builds wrote the same model file.
# Usage: bench/scripts/ovr_time.sh BEFORE_TOOL [AFTER_TOOL]
#   env RUNS (default 3), THREADS (default 2), PYTHON (with NumPy; default
#   Debian's /usr/bin/python3)  > bench/results/ovr-time.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
before=${1:?usage: ovr_time.sh BEFORE_TOOL [AFTER_TOOL]}
after=${2:-./build/tsgs3vm}
runs=${RUNS:-3} threads=${THREADS:-2}
[ -x "$after" ] || make -s
: "${TSGS_SHARED:=$(cd .. && pwd)/shared}"
. bench/scripts/machine.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${PYTHON:-/usr/bin/python3}" - "$TSGS_SHARED/data/coil20/COIL20.csv.xz" "$work" <<'EOF'
import lzma, sys
import numpy as np
X = np.loadtxt(lzma.open(sys.argv[1], "rt"), delimiter=",")
y, X = X[:, 0].astype(int), X[:, 1:]
rng = np.random.default_rng(1)
train = rng.permutation(len(y))[:1080]
labeled = set()
for c in np.unique(y):
    labeled |= set(rng.permutation(train[y[train] == c])[:10].tolist())
def write(name, rows):
    with open(f"{sys.argv[2]}/{name}", "w") as f:
        for i in rows:
            f.write(f"{y[i]} " + " ".join(f"{j + 1}:{v:g}" for j, v in
                                          enumerate(X[i]) if v != 0) + "\n")
write("L.svm", [i for i in train if i in labeled])
write("U.svm", [i for i in train if i not in labeled])
EOF
machine_header
printf '# data\tCOIL-20 (real), 20 classes, 200 labeled + 880 unlabeled rows, 1024 features; defaults, --threads %s\n' "$threads"
printf '# builds\tbefore=%s\tafter=%s\n' "$before" "$after"
printf 'build\tseconds_median\tseconds_min\truns\n'
declare -A t
now() { date +%s.%N; }
for r in $(seq "$runs"); do
    for b in before after; do
        tool=$before
        [ $b = after ] && tool=$after
        s=$(now)
        "$tool" train -q --threads "$threads" --unlabeled "$work/U.svm" "$work/L.svm" \
            "$work/$b.model"
        t[$b]+="$(awk -v e="$(now)" -v s="$s" 'BEGIN {print e - s}') "
    done
done
for b in before after; do
    printf '%s\t%s\n' "$b" "$(printf '%s\n' ${t[$b]} | sort -g |
        awk '{v[NR]=$1} END {printf "%.2f\t%.2f\t%d", v[int((NR+1)/2)], v[1], NR}')"
done
if cmp -s "$work/before.model" "$work/after.model"; then
    printf '# models\tbyte-identical\n'
else
    printf '# models\tDIFFER\n'
fi
printf '# load_at_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
