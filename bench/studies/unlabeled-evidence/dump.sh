#!/bin/sh
# usage: dump.sh TOOL UNITDIR: trains the unit once with a build of
# instrumentation.patch (one thread), which appends the selection's
# candidates (dump.txt: each one's decision values on the unlabeled sample)
# and each CV fold's labelling of that sample (fold.txt) to the unit.
u=$2
rm -f "$u/dump.txt" "$u/fold.txt"
TSGS_DUMP="$u/dump.txt" TSGS_FOLDDUMP="$u/fold.txt" OMP_NUM_THREADS=1 \
    "$1" train --threads 1 -q --unlabeled "$u/unlabeled.svm" \
    "$u/labeled.svm" "$u/evidence.model" 2>"$u/evidence.log" || echo "FAIL $u"
