#!/usr/bin/env bash
# Accuracy with the TSGS3VM paper's protocol (its Figure 3): 200 labeled
# rows, the rest of the training split unlabeled; C and sigma chosen by
# 5-fold cross-validation (tsgs3vm cv) over the 7 x 7 grid log10 C, log10
# sigma in [-3, 3] on the seed-1 labels, then eta in {10, 100, 1000}; then
# TRIALS trials (seeds 1..TRIALS: labels kept and features drawn anew) with
# the chosen values; mean and standard deviation of the test error. One
# pass over the data, ceil(sqrt(n)) features, as in the paper.
# Datasets without a test split get a seeded hold-out (HOLD rows).
# Usage: bench/scripts/accuracy.sh [DATASETS] [SOLVERS] [TRIALS]
#   > bench/results/accuracy.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
datasets=${1:-"cod-rna ijcnn1 w8a skin higgs susy"} solvers=${2:-"tsg dsg"}
trials=${3:-10}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
D=$TSGS_SHARED/data
work=${BENCH_DATA}/accuracy
mkdir -p "$work"

# holdout NAME FILE HOLD [header_lines]: seeded shuffle, then split
holdout() {
    local name=$1 file=$2 hold=$3 skip=${4:-0}
    if [ ! -s "$work/$name.test" ]; then
        local tmp="$work/$name.all"
        case $file in
        *.xz) xz -dc "$file" ;; *.bz2) bzcat "$file" ;; *) cat "$file" ;;
        esac | tr -d '\r' | tail -n +$((skip + 1)) | grep -v '^$' |
            awk 'BEGIN {srand(1)} {printf "%.12f\t%s\n", rand(), $0}' |
            sort -k1,1 | cut -f2- > "$tmp"
        head -n "$hold" "$tmp" > "$work/$name.test"
        tail -n +$((hold + 1)) "$tmp" > "$work/$name.train"
        rm -f "$tmp"
    fi
    echo "$work/$name.train $work/$name.test"
}

# dataset NAME -> "TRAIN TEST READ_OPTIONS"
dataset() {
    case $1 in
    cod-rna) echo "tests/data/real/cod-rna.txt.xz tests/data/real/cod-rna.t.xz" ;;
    ijcnn1) echo "$D/ijcnn1/ijcnn1.trn.bz2 $D/ijcnn1/ijcnn1.tst.bz2" ;;
    w8a) echo "$(holdout w8a "$D/w8a/w8a.xz" 10000)" ;;
    skin) echo "$(holdout skin "$D/skin_nonskin/Skin_NonSkin.txt.xz" 50000 1) --label-column last --header no" ;;
    higgs) echo "$(holdout higgs "$D/higgs/higgs.csv.xz" 2000 1) --label-column last --header no" ;;
    susy) echo "$(holdout susy "$D/susy/SUSY_test.csv.xz" 2000 1) --skip-columns 1 --label-column 2 --header no" ;;
    esac
}

machine_header
printf '# protocol\t200 labels; 5-fold CV over log10 C, log10 sigma in [-3,3] (7x7), then eta in {10,100,1000}, on seed 1; %s trials; one pass; ceil(sqrt(n)) features\n' "$trials"
printf 'dataset\tsolver\tc\tsigma\teta\tcv_accuracy\ttrials\ttest_error_mean\ttest_error_sd\ttrain_s_mean\n'
for name in $datasets; do
    read -r train test opts <<<"$(dataset "$name")"
    # shellcheck disable=SC2086
    set -- $opts
    rd=("$@")
    for solver in $solvers; do
        best=$(./build/tsgs3vm cv -q "${rd[@]}" --solver "$solver" --labeled 200 \
            --grid c=log:-3:3 --grid sigma=log:-3:3 "$train" | tail -1)
        c=$(sed -n 's/.*--c \([^ ]*\).*/\1/p' <<<"$best")
        sigma=$(sed -n 's/.*--sigma \([^ ]*\).*/\1/p' <<<"$best")
        best=$(./build/tsgs3vm cv -q "${rd[@]}" --solver "$solver" --labeled 200 \
            --c "$c" --sigma "$sigma" --grid eta=10,100,1000 "$train" | tail -1)
        eta=$(sed -n 's/.*--eta \([^ ]*\).*/\1/p' <<<"$best")
        cvacc=$(sed -n 's/.*accuracy \([0-9.]*\)%.*/\1/p' <<<"$best")
        errs=() secs=()
        for seed in $(seq 1 "$trials"); do
            extra=()
            [ "$solver" = tsg ] || extra=(--iterations 250)
            out=$(./build/tsgs3vm train "${rd[@]}" --solver "$solver" --labeled 200 \
                --seed "$seed" --c "$c" --sigma "$sigma" --eta "$eta" \
                --test "$test" --test-every 1000000000 "${extra[@]}" \
                "$train" /tmp/accuracy.model 2>&1)
            acc=$(sed -n 's/^Test accuracy = \([0-9.]*\)%.*/\1/p' <<<"$out")
            errs+=("$(awk -v a="$acc" 'BEGIN {print 1 - a / 100}')")
            secs+=("$(sed -n 's/.*, \([0-9.]*\)s; model.*/\1/p' <<<"$out")")
        done
        stats=$(printf '%s\n' "${errs[@]}" | awk '{s += $1; q += $1 * $1; n++}
            END {m = s / n; v = q / n - m * m; printf "%.4f\t%.4f", m, sqrt(v > 0 ? v : 0)}')
        tmean=$(printf '%s\n' "${secs[@]}" | awk '{s += $1; n++} END {printf "%.3f", s / n}')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$solver" "$c" \
            "$sigma" "$eta" "$cvacc" "$trials" "$stats" "$tmean"
    done
done
rm -f /tmp/accuracy.model
