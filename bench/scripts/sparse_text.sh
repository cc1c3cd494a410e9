#!/bin/sh
# SYNTHETIC sparse text-like set: peak memory and time of tsgs3vm (safe, the
# default; dsg) against LIBLINEAR and LIBSVM on the same labeled rows.
#   bench/scripts/sparse_text.sh [ROWS [FEATURES [NNZ]]]
# Rows have about NNZ non-zeros (term-frequency-like values), columns drawn
# Zipf-like over FEATURES (a few frequent words, a long tail); the label is
# the sign of a fixed random linear score (a linear-ish rule). 200 rows
# keep their label (as tsgs3vm's semi-supervised setting), the rest are
# unlabeled; LIBLINEAR / LIBSVM train on the 200 labeled rows. Accuracy is
# measured on 2000 held-out rows. Writes bench/results/sparse-text.tsv.
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-20000}
FEAT=${2:-1000000}
NNZ=${3:-100}
TOOL=build/tsgs3vm
OUT=bench/results/sparse-text.tsv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
python3 - "$ROWS" "$FEAT" "$NNZ" "$TMP" <<'PY'
import sys, random, math
rows, feat, nnz, tmp = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rnd = random.Random(7)
w = {}
def weight(k):
    if k not in w:
        w[k] = random.Random(k * 2654435761 % 2**32).gauss(0, 1)
    return w[k]
def row():
    cols = set()
    while len(cols) < nnz:
        # Zipf-like: index ~ u^-1.1, scattered over the feature range
        r = int(rnd.paretovariate(0.35))
        cols.add(1 + (r * 7919) % feat)
    cols = sorted(cols)
    vals = [1.0 + math.log(1 + rnd.expovariate(1.0)) for _ in cols]
    s = sum(weight(c) * v for c, v in zip(cols, vals)) / math.sqrt(len(cols))
    return cols, vals, 1 if s > 0 else -1
def line(lab, cols, vals):
    return "%d %s\n" % (lab, " ".join("%d:%.3g" % (c, v) for c, v in zip(cols, vals)))
with open(tmp + "/train.svm", "w") as tr, open(tmp + "/lab.svm", "w") as lb, \
     open(tmp + "/test.svm", "w") as te:
    for i in range(rows):
        c, v, y = row()
        tr.write(line(y if i < 200 else 0, c, v))
        if i < 200:
            lb.write(line(y, c, v))
    for i in range(2000):
        c, v, y = row()
        te.write(line(y, c, v))
PY
COMMIT=$(git rev-parse --short HEAD)
. bench/scripts/machine.sh
nz=$(wc -w < "$TMP/train.svm")
# one run: label, then the command; prints "seconds<TAB>peak KB"
run() {
    /usr/bin/time -f "%e %M" -o "$TMP/t" "$@" > "$TMP/log" 2>&1 || { cat "$TMP/log"; exit 1; }
    awk '{printf "%s\t%s", $1, $2}' "$TMP/t"
}
acc_tsgs() {
    $TOOL predict "$1" "$TMP/test.svm" "$TMP/p" 2>&1 | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p'
}
{
machine_header
echo "# SYNTHETIC sparse text-like set: $ROWS rows (200 labeled), $FEAT features, ~$NNZ non-zeros a row (Zipf-like columns), $((nz - ROWS)) non-zeros in all; commit $COMMIT"
echo "# SHARED machine: its cores also run other engineers' jobs (see load_at_start): seconds are upper bounds"
printf "method\ttrain_rows\tseconds\tpeak_rss_kb\ttest_accuracy_pct\n"
r=$(run $TOOL train --unlabeled-label 0 --threads 2 "$TMP/train.svm" "$TMP/m.safe")
printf "tsgs3vm safe (default)\t%s\t%s\t%s\n" "$ROWS" "$r" "$(acc_tsgs "$TMP/m.safe")"
r=$(run $TOOL train --solver dsg --unlabeled-label 0 --threads 2 "$TMP/train.svm" "$TMP/m.dsg")
printf "tsgs3vm dsg (labeled only)\t%s\t%s\t%s\n" "$ROWS" "$r" "$(acc_tsgs "$TMP/m.dsg")"
r=$(run liblinear-train -q "$TMP/lab.svm" "$TMP/m.ll")
a=$(liblinear-predict "$TMP/test.svm" "$TMP/m.ll" "$TMP/p" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
printf "LIBLINEAR (L2 hinge dual, C=1)\t200\t%s\t%s\n" "$r" "$a"
r=$(run svm-train -q "$TMP/lab.svm" "$TMP/m.svm")
a=$(svm-predict "$TMP/test.svm" "$TMP/m.svm" "$TMP/p" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
printf "LIBSVM (RBF, C=1, gamma=1/d)\t200\t%s\t%s\n" "$r" "$a"
} > "$TMP/table"
# the sections after this table (sparse_tsg_speed.sh's, sparse_side_by_side.sh's) are kept
{
    cat "$TMP/table"
    if [ -f "$OUT" ]; then sed -n '/^# section: /,$p' "$OUT"; fi
} > "$TMP/all"
cp "$TMP/all" "$OUT"
cat "$TMP/table"
