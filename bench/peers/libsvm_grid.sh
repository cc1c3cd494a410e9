#!/bin/sh
# libsvm_grid.sh CV_FILE TRAIN_FILE MODEL_FILE "GAMMAS" "CS" [FOLDS]
# Picks (gamma, C) by FOLDS-fold cross-validation (svm-train -v) on CV_FILE over
# the grid GAMMAS x CS (space-separated lists), then trains svm-train -g -c on
# TRAIN_FILE into MODEL_FILE. Ties go to the earlier gamma of the list, then the
# smaller C. Prints one "cv gamma=G c=C acc=A" line per grid point and
# "best gamma=G c=C acc=A". With one gamma and one C, no CV is run.
set -eu
cv=$1 train=$2 model=$3 gammas=$4 cs=$5 folds=${6:-5}
best_acc=-1 best_g="" best_c=""
set -- $gammas
ng=$#
set -- $cs
nc=$#
if [ "$ng" -eq 1 ] && [ "$nc" -eq 1 ]; then
    best_g=$gammas best_c=$cs best_acc=NA
else
    for g in $gammas; do
        for c in $cs; do
            acc=$(svm-train -q -v "$folds" -g "$g" -c "$c" "$cv" |
                  sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p')
            echo "cv gamma=$g c=$c acc=$acc"
            if awk -v a="$acc" -v b="$best_acc" 'BEGIN { exit !(a > b) }'; then
                best_acc=$acc best_g=$g best_c=$c
            fi
        done
    done
fi
echo "best gamma=$best_g c=$best_c acc=$best_acc"
svm-train -q -g "$best_g" -c "$best_c" "$train" "$model"
