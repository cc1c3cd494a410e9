#!/usr/bin/env bash
# The collectives of one tsg step over MPI, timed alone at each rank count
# (bench/scripts/mpi_collectives.c: an int all-reduce, all-gathers of S
# bytes, the step's four collectives in a row), for the scaling model
# (bench/scripts/mpi_scaling.py). Builds the program with mpicc where it
# exists; without it says so and does nothing (exit 0).
# Usage: bench/scripts/mpi_collectives.sh OUT.tsv ["RANKS..."] [REPS]
#   e.g. bench/scripts/mpi_collectives.sh \
#        bench/results/mpi-scaling/collectives.tsv "1 2 3 4" 2000
# Ranks on one node talk through shared memory (Open MPI's vader BTL);
# more ranks than cores oversubscribe them (Open MPI then yields the core
# while it waits): those figures are not a clean per-call cost.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: mpi_collectives.sh OUT.tsv [RANKS] [REPS]}
nps=${2:-"1 2 3 4"} reps=${3:-2000}
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "mpi_collectives.sh: no mpicc/mpirun: nothing measured" >&2
    exit 0
fi
. bench/scripts/machine.sh
mkdir -p build
mpicc -O2 -o build/mpi_collectives bench/scripts/mpi_collectives.c
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
{
    machine_header
    printf '# mpirun\t%s\n' "$(mpirun --version | head -1)"
    printf '# what\tper size: REPS repetitions after a barrier each, the slowest rank'"'"'s time; min, p10, median, p90 in us; step: B_u = 256 rows x 18 floats, the 4 collectives of a step\n'
    first=1
    for np in $nps; do
        printf '# load_before_np%s\t%s\n' "$np" "$(cut -d' ' -f1-3 /proc/loadavg)"
        mpirun -np "$np" build/mpi_collectives --reps "$reps" \
            --batch 256 --dims 18 | { if [ $first = 1 ]; then cat; else tail -n +2; fi; }
        first=0
    done
} > "$out"
