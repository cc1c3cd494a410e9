#!/usr/bin/env bash
# Memory and read time of tsg over MPI ranks (docs/mpi.md, issue #34):
# each rank reading its share of the rows (the tool's default under
# mpirun) against every rank reading the whole file (TSGS3VM_MPI_READ=whole,
# the tool before), and the tool alone. Per job: the largest and smallest
# maximum resident set of its ranks (/usr/bin/time -v's "Maximum resident
# set size", MPI's own memory included: the first line, an MPI job on a
# 4-row file, says how much that is), the slowest rank's read (the tool's
# "read ... in S s" line: parsing, exchanges and layout), the rows rank 0
# holds once trained (mincore of its row pages), the job's wall time and
# whether the model file is the tool alone's. SYNTHETIC SUSY-shaped rows
# (bench/scripts/data.sh's synth_file: tsgs3vm synth fitted to the real
# SUSY sample), 200 labeled, one thread per rank.
# Usage: bench/scripts/mpi_read.sh ROWS ITERATIONS "RANKS..."
#   e.g. bench/scripts/mpi_read.sh 1000000 300 "1 2 4"
#   > bench/results/mpi-read.tsv (a tool built with MPI: make)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:?usage: mpi_read.sh ROWS ITERATIONS RANKS}
iters=${2:?} nps=${3:?}
tool=$(realpath ./build/tsgs3vm)
. bench/scripts/machine.sh
. bench/scripts/data.sh
data=$(synth_file susy "$rows")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(train --threads 1 $(synth_read_opts susy) --labeled 200 --solver tsg
      --iterations "$iters" "$data")
machine_header
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1
printf '# data\tSYNTHETIC %s rows x 18 (SUSY fit, %s), %s bytes, tsg, 200 labeled, %s steps, 1 thread per rank\n' \
    "$rows" "$(basename "$data")" "$(stat -c %s "$data")" "$iters"
printf '# mpirun\t%s\n' "$(mpirun --version | head -1)"
printf '# command\tbench/scripts/mpi_read.sh %s %s "%s"\n' "$rows" "$iters" "$nps"
# MPI's own memory: a job of one rank on a 4-row file
printf '1,0.5,0.2\n-1,-0.5,0.1\n1,0.7,0.3\n-1,-0.2,-0.4\n' > "$out/tiny.csv"
mpirun -np 1 /usr/bin/time -f 'rank_rss_kb %M' \
    "$tool" train --quiet --solver tsg --labeled 2 --iterations 20 \
    "$out/tiny.csv" "$out/tiny.model" 2> "$out/err" > /dev/null
awk '/^rank_rss_kb/ { k[n++] = $2 / 1024 }
     END { printf "# mpi_rank_baseline\tone rank on a 4-row file: %.1f MB\n", k[0] }' \
    "$out/err"
printf 'read\tranks\tmax_rss_mb_largest\tmax_rss_mb_smallest\tread_s\trows_held_rank0\twall_s\tsame_model\n'

# summary of one job's stderr ($1): RSS (time -f lines), read lines
summary() { # ERR MODE NP WALL SAME
    awk -v mode="$2" -v np="$3" -v wall="$4" -v same="$5" '
        /^rss_kb / { k = $2 / 1024; if (k > hi) hi = k
                     if (lo == "" || k < lo) lo = k }
        /^read [0-9]+ rows/ { s = $(NF) + 0; if (s > rd) rd = s }
        /^mpi: rank 0 of .*trained on rows held/ { held = substr($(NF - 4), 2) }
        END { if (held == "") held = "all"
              printf "%s\t%s\t%.1f\t%.1f\t%.2f\t%s\t%.2f\t%s\n", mode, np,
                     hi, lo, rd, held, wall, same }' "$1"
}

run() { # MODE NP MODEL (NP 0: the tool alone)
    local mode=$1 np=$2 t0 t1 same=yes
    t0=$(date +%s.%N)
    if [ "$np" = 0 ]; then
        /usr/bin/time -f 'rss_kb %M' "$tool" "${args[@]}" "$3" \
            2> "$out/err" > /dev/null
    else
        TSGS3VM_MPI_STATS=1 TSGS3VM_MPI_READ=$mode mpirun -np "$np" \
            -x TSGS3VM_MPI_STATS -x TSGS3VM_MPI_READ -x OMP_NUM_THREADS \
            -x OMP_WAIT_POLICY /usr/bin/time -f 'rss_kb %M' \
            "$tool" "${args[@]}" "$3" 2> "$out/err" > /dev/null
    fi
    t1=$(date +%s.%N)
    [ "$3" = "$out/alone.model" ] || cmp -s "$out/alone.model" "$3" ||
        same=no
    summary "$out/err" "$mode" "$np" "$(echo "$t1 - $t0" | bc)" "$same"
}

run alone 0 "$out/alone.model"
for np in $nps; do
    run shares "$np" "$out/np.model"
    run whole "$np" "$out/np.model"
done
