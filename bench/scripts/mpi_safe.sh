#!/usr/bin/env bash
# The default solver over MPI ranks (docs/mpi.md): its selection's path
# tasks spread over the ranks. Per labeled-row count and layout (the tool
# alone on T threads, or N ranks of T threads), the job's wall time (best
# and median of REPEATS; mpirun's start included), the time rank 0 spent
# in the exchanges (the wait for the other ranks' tasks included), the
# bytes rank 0 sent and received, and whether the model file is the tool
# alone's. SYNTHETIC rows (tsgs3vm synth, fitted to the shipped cod-rna
# sample).
# Usage: bench/scripts/mpi_safe.sh ROWS "LABELED..." REPEATS
#   e.g. bench/scripts/mpi_safe.sh 1500 "50 200" 3
#   > bench/results/mpi-safe.tsv (a tool built with MPI: make)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:?usage: mpi_safe.sh ROWS LABELED REPEATS} labeled=${2:?}
reps=${3:-3}
tool=$(realpath ./build/tsgs3vm)
. bench/scripts/machine.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tool" synth --quiet --rows "$rows" --components 2 --layout libsvm \
    tests/data/real/cod-rna.txt.xz "$out/data.svm"
machine_header
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMP_WAIT_POLICY=passive
printf '# data\tSYNTHETIC %s rows x 8 (cod-rna fit), the default solver\n' "$rows"
printf '# mpirun\t%s\n' "$(mpirun --version | head -1)"
printf 'labeled\tlayout\tranks\tthreads_per_rank\tbind_to\tbest_s\tmedian_s\trank0_exchange_s\trank0_bytes_sent\trank0_bytes_received\tsame_model\n'
# layout | ranks (0: the tool alone) | threads per rank | mpirun's
# --bind-to (Open MPI binds each of 1 or 2 ranks to one core by default:
# a rank's threads then share that core)
layouts=("alone|0|1|-" "alone|0|2|-" "mpirun|1|2|core" "mpirun|1|2|none"
         "mpirun|2|1|core" "mpirun|2|1|none")
for nl in $labeled; do
    args=(train --quiet --threads 0 --labeled "$nl" "$out/data.svm")
    OMP_NUM_THREADS=2 "$tool" "${args[@]}" "$out/ref.model"
    for l in "${layouts[@]}"; do
        IFS='|' read -r name np t bind <<<"$l"
        : > "$out/times"
        for _ in $(seq "$reps"); do
            rm -f "$out/m.model"
            t0=$(date +%s.%N)
            if [ "$np" = 0 ]; then
                OMP_NUM_THREADS=$t "$tool" "${args[@]}" "$out/m.model"
                : > "$out/err"
            else
                TSGS3VM_MPI_STATS=1 OMP_NUM_THREADS=$t mpirun -np "$np" \
                    --bind-to "$bind" -x TSGS3VM_MPI_STATS -x OMP_NUM_THREADS \
                    -x OMP_WAIT_POLICY "$tool" "${args[@]}" \
                    "$out/m.model" 2> "$out/err"
            fi
            t1=$(date +%s.%N)
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' \
                >> "$out/times"
        done
        same=no
        cmp -s "$out/ref.model" "$out/m.model" && same=yes
        # mpi: rank R of N: E exchanges, S bytes sent, R received, T s
        stats=$(awk '/^mpi: rank 0 of .* exchanges,/ {
                         printf "%.3f\t%s\t%s", $13, $8, $11; found = 1 }
                     END { if (!found) printf "0\t0\t0" }' "$out/err")
        sort -n "$out/times" | awk -v nl="$nl" -v name="$name" -v np="$np" \
            -v t="$t" -v bind="$bind" -v stats="$stats" -v same="$same" '
            { v[NR] = $1 }
            END { printf "%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\n", nl,
                         name, np == 0 ? 1 : np, t, bind, v[1],
                         v[int((NR + 1) / 2)], stats, same }'
    done
done
