#!/bin/sh
# SYNTHETIC sparse LIBSVM file: tsgs3vm predict's wall time, builds
# alternated run by run (so that a slow spell of a shared machine falls on
# each alike), medians of RUNS.
#   bench/scripts/predict_sparse.sh [ROWS [FEATURES [NNZ]]] -- TOOL...
# Rows have about NNZ non-zeros, columns drawn Zipf-like over FEATURES,
# the label the sign of a fixed random linear score. A model is trained by
# the first TOOL on the first 2000 rows; every TOOL predicts the whole
# file. Prints "tool  run  seconds" lines, then "tool  median  seconds"
# and whether the prediction files are byte-identical to the first TOOL's.
set -eu
ROWS=200000 FEAT=20000 NNZ=30
[ "${1:-}" != "--" ] && { ROWS=$1; shift; }
[ "${1:-}" != "--" ] && { FEAT=$1; shift; }
[ "${1:-}" != "--" ] && { NNZ=$1; shift; }
[ "${1:-}" = "--" ] && shift
[ $# -ge 1 ] || { echo "usage: $0 [ROWS [FEATURES [NNZ]]] -- TOOL..."; exit 2; }
RUNS=${RUNS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$ROWS" "$FEAT" "$NNZ" "$TMP/data.svm" <<'PY'
import sys, random, bisect
rows, feat, nnz, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rnd = random.Random(7)
cum, s = [], 0.0
for k in range(1, feat + 1):  # Zipf-like column frequencies
    s += 1.0 / k ** 0.8
    cum.append(s)
wr = random.Random(11)
w = [wr.gauss(0, 1) for _ in range(feat)]
with open(path, "w") as f:
    for i in range(rows):
        cols = {bisect.bisect_left(cum, rnd.random() * s) for _ in range(nnz)}
        if i == 0:
            cols.add(feat - 1)  # the model is as wide as the file
        cols = sorted(cols)
        vals = [rnd.randint(1, 5) / 5.0 for _ in cols]
        y = 1 if sum(w[c] * v for c, v in zip(cols, vals)) > 0 else -1
        f.write("%d %s\n" % (y, " ".join("%d:%g" % (c + 1, v)
                                          for c, v in zip(cols, vals))))
PY
head -n 2000 "$TMP/data.svm" > "$TMP/train.svm"
"$1" train -q "$TMP/train.svm" "$TMP/model" >/dev/null
for r in $(seq 1 "$RUNS"); do
    i=0
    for tool in "$@"; do
        i=$((i + 1))
        t0=$(date +%s.%N)
        "$tool" predict -q "$TMP/model" "$TMP/data.svm" "$TMP/out.$i"
        t1=$(date +%s.%N)
        echo "$tool	$r	$(echo "$t1 - $t0" | bc)" | tee -a "$TMP/times"
    done
done
i=0
for tool in "$@"; do
    i=$((i + 1))
    med=$(awk -v t="$tool" -F'\t' '$1 == t { print $3 }' "$TMP/times" |
          sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    same=no
    cmp -s "$TMP/out.1" "$TMP/out.$i" && same=yes
    echo "$tool	median	$med	same_output: $same"
done
