#!/usr/bin/env bash
# Models are the same bits on 1, 2 and 3 threads, and the same bits as a
# reference build's (e.g. the commit before a speed change), for every
# stochastic solver path: tsg (learned bias, quantile balance, no budget,
# regenerated directions, cos features, several passes, no labeled cache),
# dsg, cdsg, udsg, frs, and the default safe solver on cod-rna. Threads are
# given through OMP_NUM_THREADS (--threads 0), so the model files, which
# record the threads option, compare whole.
# Usage: bench/scripts/same_models.sh REFERENCE_TOOL [TOOL]
#   REFERENCE_TOOL: e.g. /tmp/tsgs-before/build/tsgs3vm (built from the
#   parent commit with `git archive HEAD~1 | tar -x -C /tmp/tsgs-before &&
#   make -C /tmp/tsgs-before`). Prints one line per case and run; exits 1
#   when any model differs.
set -euo pipefail
cd "$(dirname "$0")/../.."
ref=${1:?usage: same_models.sh REFERENCE_TOOL [TOOL]} tool=${2:-./build/tsgs3vm}
[ -x "$tool" ] || make -s
. bench/scripts/data.sh
susy=$(synth_file susy 100000)
codrna=(tests/data/real/cod-rna.txt.xz)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bad=0
# name | data | options
cases=(
    "tsg|susy|--solver tsg"
    "tsg-hold|susy|--solver tsg --balance 1"
    "tsg-nobudget|susy|--solver tsg --max-features 0 --iterations 400"
    "tsg-regen|susy|--solver tsg --cache-mb 0 --iterations 300"
    "tsg-cos|susy|--solver tsg --feature-map cos --block-size 16"
    "tsg-passes|susy|--solver tsg --passes 2.5 --max-features 512"
    "tsg-nocache|susy|--solver tsg --labeled 5000 --batch-labeled 16 --max-features 64 --iterations 300"
    "tsg-cold|susy|--solver tsg --warm-start 0 --iterations 500"
    "dsg|susy|--solver dsg --iterations 500"
    "cdsg|susy|--solver cdsg --max-features 256 --iterations 400"
    "udsg-laplace|susy|--solver tsg --kernel laplacian --max-features 128 --iterations 400"
    "frs|susy|--solver frs --max-features 512 --iterations 300"
    "safe|codrna|"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name data opts <<<"$c"
    if [ "$data" = susy ]; then
        args=(--header no --labeled 200 --quiet $opts "$susy")
    else
        args=(--labeled 200 --quiet $opts "${codrna[@]}")
    fi
    OMP_NUM_THREADS=1 "$ref" train --threads 0 "${args[@]}" "$out/ref.model"
    for t in 1 2 3; do
        OMP_NUM_THREADS=$t "$tool" train --threads 0 "${args[@]}" "$out/$t.model"
        if cmp -s "$out/ref.model" "$out/$t.model"; then s=same; else s=DIFFERENT; bad=1; fi
        printf '%s\tthreads=%d\t%s\n' "$name" "$t" "$s"
    done
done
exit $bad
