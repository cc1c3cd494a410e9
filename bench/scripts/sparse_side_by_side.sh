#!/bin/sh
# SYNTHETIC sparse text-like set (sparse_text.sh's rows): tsgs3vm's sparse
# train and predict against svm-train / svm-predict on the same files,
# medians of RUNS runs, the tools alternated run by run (issue #30).
#   bench/scripts/sparse_side_by_side.sh [ROWS [FEATURES [NNZ]]]
# Writes the table to standard output; bench/results/sparse-text.tsv keeps
# it as its section "side-by-side" (sparse_text.sh keeps every section). Rows:
#   train, 200 labeled rows, given C = 1 and gamma = 1/FEATURES (LIBSVM's
#     defaults): tsgs3vm train -c 1 -g G lab.svm / svm-train -c 1 -g G lab.svm
#   train, 200 labeled rows, tsgs3vm's default (CV over sigma and C; LIBSVM
#     has no such step: its row is the same svm-train run)
#   train, ROWS rows of which 200 labeled, tsgs3vm's default (the
#     semi-supervised setting; svm-train cannot use unlabeled rows)
#   predict the 2000 held-out rows with the given-C/gamma models
# Seconds are wall time; cpu_s is user + sys (tsgs3vm uses --threads T,
# default 2; svm-train and svm-predict one thread).
# REF=PATH (optional): a reference build of tsgs3vm (e.g. main's) timed in
# the same runs, alternated with the others, as tool "tsgs3vm-REF_NAME"
# (default "ref"); its model files and decision values must be the same
# bits as TOOL's (checked after the runs: exit 1 when not).
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-5000}
FEAT=${2:-1000000}
NNZ=${3:-100}
RUNS=${RUNS:-5}
T=${THREADS:-2}
TOOL=$(realpath "${TOOL:-build/tsgs3vm}")
REF=${REF:+$(realpath "$REF")}
RN=tsgs3vm-${REF_NAME:-ref}
command -v svm-train >/dev/null || { echo "needs svm-train: apt-get install libsvm-tools" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# sparse_text.sh's generator, verbatim: the same rows for the same arguments
sed -n "/^python3 - /,/^PY\$/p" bench/scripts/sparse_text.sh > "$TMP/gen.sh"
. "$TMP/gen.sh"
G=$(awk -v d="$FEAT" 'BEGIN { printf "%.10g", 1 / d }')
. bench/scripts/machine.sh
# one timed run: name, then the command; appends "name seconds cpu_s"
timed() {
    name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$TMP/t" "$@" > "$TMP/log" 2>&1 || { cat "$TMP/log" >&2; exit 1; }
    awk -v n="$name" '{ printf "%s\t%s\t%.2f\n", n, $1, $2 + $3 }' "$TMP/t" >> "$TMP/times"
}
for r in $(seq 1 "$RUNS"); do
    timed "train-given tsgs3vm" "$TOOL" train -q --threads "$T" -c 1 -g "$G" "$TMP/lab.svm" "$TMP/m.tsgs"
    timed "train-given svm-train" svm-train -q -c 1 -g "$G" "$TMP/lab.svm" "$TMP/m.libsvm"
    timed "train-default tsgs3vm" "$TOOL" train -q --threads "$T" "$TMP/lab.svm" "$TMP/m.def"
    timed "train-semi tsgs3vm" "$TOOL" train -q --threads "$T" --unlabeled-label 0 "$TMP/train.svm" "$TMP/m.semi"
    timed "predict tsgs3vm" "$TOOL" predict --threads "$T" "$TMP/m.tsgs" "$TMP/test.svm" "$TMP/p.tsgs"
    timed "predict svm-predict" svm-predict "$TMP/test.svm" "$TMP/m.libsvm" "$TMP/p.libsvm"
    if [ -n "$REF" ]; then
        timed "train-given $RN" "$REF" train -q --threads "$T" -c 1 -g "$G" "$TMP/lab.svm" "$TMP/m.ref"
        timed "train-default $RN" "$REF" train -q --threads "$T" "$TMP/lab.svm" "$TMP/m.refdef"
        timed "train-semi $RN" "$REF" train -q --threads "$T" --unlabeled-label 0 "$TMP/train.svm" "$TMP/m.refsemi"
        timed "predict $RN" "$REF" predict --threads "$T" "$TMP/m.tsgs" "$TMP/test.svm" "$TMP/p.ref"
    fi
done
same=""
if [ -n "$REF" ]; then # the same bits: models, and decision values on 1 and T threads
    for t in 1 "$T"; do
        "$TOOL" predict -q --threads "$t" --decision-values "$TMP/m.tsgs" "$TMP/test.svm" "$TMP/dv.tool" > /dev/null 2>&1
        "$REF" predict -q --threads "$t" --decision-values "$TMP/m.tsgs" "$TMP/test.svm" "$TMP/dv.ref" > /dev/null 2>&1
        cmp -s "$TMP/dv.tool" "$TMP/dv.ref" || { echo "decision values differ from REF's on $t threads" >&2; exit 1; }
    done
    for f in "m.tsgs m.ref" "m.def m.refdef" "m.semi m.refsemi"; do
        set -- $f
        cmp -s "$TMP/$1" "$TMP/$2" || { echo "model $1 differs from REF's" >&2; exit 1; }
    done
    same="; REF=$REF: the same model files (3) and decision values (1 and $T threads) as TOOL's"
fi
acc() { # accuracy of a prediction file's first column against test.svm's labels
    awk 'NR == FNR { y[FNR] = $1; next } { n++; c += ($1 == y[FNR]) } END { printf "%.2f", 100 * c / n }' "$TMP/test.svm" "$1"
}
nz=$(wc -w < "$TMP/train.svm")
echo "# section: side-by-side"
machine_header
echo "# SYNTHETIC sparse text-like set (sparse_text.sh's generator): $ROWS rows (200 labeled), $FEAT features, ~$NNZ non-zeros a row, $((nz - ROWS)) non-zeros in all; 2000 held-out rows"
echo "# RUNS=$RUNS THREADS=$T${REF:+ REF=$REF REF_NAME=${REF_NAME:-ref}} bench/scripts/sparse_side_by_side.sh $ROWS $FEAT $NNZ; tools alternated run by run; medians; gamma = 1/$FEAT$same"
echo "# SHARED machine: its cores also run other engineers' jobs (see load_at_start): seconds are upper bounds, cpu_s less so"
printf "step\ttool\truns\tmedian_s\tmin_s\tmedian_cpu_s\ttest_accuracy_pct\n"
keys="train-given_tsgs3vm train-given_svm-train train-default_tsgs3vm train-semi_tsgs3vm predict_tsgs3vm predict_svm-predict"
[ -z "$REF" ] || keys="train-given_tsgs3vm train-given_$RN train-given_svm-train train-default_tsgs3vm train-default_$RN train-semi_tsgs3vm train-semi_$RN predict_tsgs3vm predict_$RN predict_svm-predict"
for key in $keys; do
    key=$(echo "$key" | tr _ ' ')
    step=${key% *}; tool=${key#* }
    col() { awk -F'\t' -v k="$key" -v f="$1" '$1 == k { print $f }' "$TMP/times" | sort -n; }
    med() { awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    stats=$(printf "%s\t%s\t%s\t%s" "$(col 2 | wc -l)" "$(col 2 | med)" "$(col 2 | head -1)" "$(col 3 | med)")
    case $key in
        "train-given tsgs3vm"|"predict tsgs3vm") a=$(acc "$TMP/p.tsgs") ;;
        "predict $RN") a=$(acc "$TMP/p.ref") ;;
        "train-given svm-train"|"predict svm-predict") a=$(acc "$TMP/p.libsvm") ;;
        *) a=- ;;
    esac
    printf "%s\t%s\t%s\t%s\n" "$step" "$tool" "$stats" "$a"
done
