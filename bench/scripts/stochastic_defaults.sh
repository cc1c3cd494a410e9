#!/usr/bin/env bash
# The stochastic solvers' automatic settings, one ingredient at a time, on
# the fixed splits of ../shared/checks/defaults (one split per case: +-1-2
# points is noise; the wide benchmark is bench/peers/defaults_accuracy.py):
#   dsg, tsg             no options (C, sigma by the grid; eta = C; bias learned;
#                        tsg: centred unlabeled weights, balance 2)
#   dsg_zero, tsg_zero   from zero (--warm-start 0) instead of the exact SVM
#   dsg_eta200           the same with the former fixed eta = 200
#   tsg_balance          tsg with the quantile balance on (the default before bcefb7d)
#   tsg_uncentred        tsg with --balance 0: the papers' gradient (the default
#                        from bcefb7d until 6c481d0)
#   tsg_u400, tsg_u400_uncentred, dsg_u400
#                        the same on the split's first 400 unlabeled rows, where
#                        C* = C n_l / n_u gives the unlabeled loss half the weight
#   iid_dsg, iid_tsg     dsg and tsg with iid directions (--directions iid)
#   dsg_30k              dsg with 30,000 steps instead of the 3,000 floor
#   safe_sup             the exact supervised SVM (safe on the labeled rows)
# usage: bench/scripts/stochastic_defaults.sh [TOOL] > bench/results/stochastic-defaults.tsv
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../../build/tsgs3vm}
splits=${SPLITS:-$here/../../../shared/checks/defaults}
# shellcheck source=machine.sh
. "$here/machine.sh"
machine_header
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf 'case\tvariant\taccuracy\tseconds\tsettings\n'
while IFS=$'\t' read -r name _; do
    [ "$name" = case ] && continue
    for p in labeled unlabeled test; do xz -dc "$splits/$name.$p.svm.xz" >"$work/$p.svm"; done
    run() { # variant, then train options
        local v=$1; shift
        local t0 t1 acc
        t0=$(date +%s.%N)
        "$tool" train -q "$@" "$work/labeled.svm" "$work/m" >"$work/log" 2>&1
        t1=$(date +%s.%N)
        acc=$("$tool" predict "$work/m" "$work/test.svm" /dev/null | grep -o 'Accuracy = [0-9.]*' | grep -o '[0-9.]*$')
        printf '%s\t%s\t%s\t%.2f\t%s\n' "$name" "$v" "$acc" "$(echo "$t1 - $t0" | bc)" \
            "$(grep -E '^(c|sigma|eta|iterations|balance|directions|warm-start) ' "$work/m" | tr '\n' ' ')"
    }
    U=(--unlabeled "$work/unlabeled.svm")
    run dsg --solver dsg "${U[@]}"
    run dsg_zero --solver dsg --warm-start 0 "${U[@]}"
    run tsg_zero --solver tsg --warm-start 0 "${U[@]}"
    run dsg_eta200 --solver dsg --eta 200 "${U[@]}"
    run dsg_30k --solver dsg --iterations 30000 "${U[@]}"
    run tsg --solver tsg "${U[@]}"
    run tsg_balance --solver tsg --balance 1 "${U[@]}"
    run tsg_uncentred --solver tsg --balance 0 "${U[@]}"
    run iid_dsg --solver dsg --directions iid "${U[@]}"
    run iid_tsg --solver tsg --directions iid "${U[@]}"
    head -n 400 "$work/unlabeled.svm" >"$work/u400.svm"
    U4=(--unlabeled "$work/u400.svm")
    run dsg_u400 --solver dsg "${U4[@]}"
    run tsg_u400 --solver tsg "${U4[@]}"
    run tsg_u400_uncentred --solver tsg --balance 0 "${U4[@]}"
    run safe_sup --solver safe
done <"$splits/reference.tsv"
