#!/usr/bin/env bash
# The MPI exchange of tsg (docs/mpi.md): per rank count, what one step
# sends and receives (rank 0) and the time the ranks spend in the
# exchange per step (their mean: the wait for the slowest rank included),
# the job's wall time (mpirun's start included) and whether the model file
# is the one-process tool's. SYNTHETIC rows (tsgs3vm synth, fitted to the
# shipped cod-rna sample), 200 labeled.
# Usage: bench/scripts/mpi_steps.sh ROWS ITERATIONS "RANKS..." [THREADS]
#   e.g. bench/scripts/mpi_steps.sh 20000 1000 "1 2 3 4" 1
#   > bench/results/mpi-steps.tsv (a tool built with MPI: make)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:?usage: mpi_steps.sh ROWS ITERATIONS RANKS [THREADS]}
iters=${2:?} nps=${3:?} threads=${4:-1}
tool=$(realpath ./build/tsgs3vm)
. bench/scripts/machine.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tool" synth --quiet --rows "$rows" --layout libsvm \
    tests/data/real/cod-rna.txt.xz "$out/data.svm"
args=(train --quiet --threads 0 --labeled 200 --solver tsg
      --iterations "$iters" "$out/data.svm")
machine_header # (before OMP_NUM_THREADS, which nproc obeys)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$threads
printf '# data\tSYNTHETIC %s rows x 8 (cod-rna fit), tsg, %s steps, %s thread(s) per rank\n' \
    "$rows" "$iters" "$threads"
printf '# mpirun\t%s\n' "$(mpirun --version | head -1)"
printf 'ranks\tbytes_sent_per_step\tbytes_received_per_step\texchange_us_per_step\twall_s\tsame_model\n'
t0=$(date +%s.%N)
"$tool" "${args[@]}" "$out/alone.model"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "alone\t0\t0\t0\t%.2f\tyes\n", b - a }'
for np in $nps; do
    t0=$(date +%s.%N)
    TSGS3VM_MPI_STATS=1 mpirun -np "$np" -x TSGS3VM_MPI_STATS \
        -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tool" "${args[@]}" \
        "$out/np.model" 2> "$out/err"
    t1=$(date +%s.%N)
    same=no
    cmp -s "$out/alone.model" "$out/np.model" && same=yes
    # mpi: rank R of N: E exchanges, S bytes sent, R received, T s
    awk -v np="$np" -v a="$t0" -v b="$t1" -v same="$same" '
        /^mpi: rank .* exchanges,/ { e = $6; t += $13; n++
                       if ($3 == 0) { s = $8; r = $11 } }
        END { if (!e) e = 1 # one rank: no exchange
              printf "%d\t%.0f\t%.0f\t%.1f\t%.2f\t%s\n", np, s / e, r / e,
                     1e6 * t / n / e, b - a, same }' "$out/err"
done
