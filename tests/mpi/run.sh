#!/usr/bin/env bash
# The MPI tests (issue #34, docs/mpi.md), run by make test where the build
# found MPI: `mpirun -np 1, 2 and 4 tsgs3vm train` write the same model
# file, byte for byte, as the tool alone, on every path of the stochastic
# solvers (the fast path, the general one, the checking rule, regenerated
# directions, the quantile balance, sparse rows, frs) and for the default
# solver (its grid's CV tasks and its selection's path tasks spread over
# the ranks: 50 labels with the cluster arm, 200, three classes
# one-vs-rest); a rank with no rows of the
# mini-batch (4 ranks, 3 unlabeled rows); the exchanges' count and volume;
# a job that fails says why and ends non-zero with no model; a rank
# killed mid-run, then the job resumed from its checkpoint to the same
# model; a stop asked on one rank taken by every rank at the same step;
# started without mpirun, an MPI build takes no part in MPI.
# Usage: tests/mpi/run.sh TOOL    (TOOL built with MPI: make test-mpi)
set -euo pipefail
tool=$(realpath "${1:?usage: tests/mpi/run.sh TOOL}")
cd "$(dirname "$0")/../.."
command -v mpirun >/dev/null || { echo "tests/mpi: no mpirun" >&2; exit 1; }
# root (CI, containers) needs Open MPI's consent; 4 ranks on 2 cores need
# oversubscription
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# ranks (and their threads) that wait for each other yield the core
# instead of spinning on it
export OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
pass() { printf 'ok\t%s\n' "$1"; }
fail() { printf 'FAIL\t%s\n' "$1"; fails=$((fails + 1)); }

# SYNTHETIC rows fitted to cod-rna (8 features; dense), and the same rows
# spread over 2,000 columns (sparse rows)
"$tool" synth --quiet --rows 1500 --components 2 --layout libsvm \
    tests/data/real/cod-rna.txt.xz "$out/dense.svm"
awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, a, ":");
       printf " %d:%s", a[1] * 250, a[2] } print "" }' \
    "$out/dense.svm" > "$out/sparse.svm"
head -n 23 "$out/dense.svm" > "$out/three.svm" # --labeled 20: 3 unlabeled
# three classes: the positive rows split by their third feature
awk '{ split($4, a, ":"); if ($1 == 1 && a[2] + 0 > 0.25) $1 = 2; print }' \
    "$out/dense.svm" > "$out/multi.svm"
# the same rows as CSV (label first) and as a .npy pair (features and
# labels), each rank reading its share of them; 20,000 rows for the
# scaler's chunks of 16,384 rows that straddle the shares; 4 rows for
# shares with no row (6 ranks)
awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, a, ":");
       printf ",%s", a[2] } print "" }' "$out/dense.svm" > "$out/dense-csv.csv"
"$tool" convert --quiet "$out/dense.svm" "$out/dense-npy.npy"
"$tool" synth --quiet --rows 20000 --components 2 --layout libsvm \
    tests/data/real/cod-rna.txt.xz "$out/big.svm"
printf '1,0.5,0.2\n-1,-0.5,0.1\n1,0.7,0.3\n-1,-0.2,-0.4\n' > "$out/tiny.csv"

# name | data | options | rank counts (each launch costs a second or so,
# and 4 ranks on 2 cores wait on each other at every step: 4 ranks for
# the paths that share rows out)
cases=(
    "tsg|dense|--solver tsg --iterations 150|1 2 4"
    "tsg-general|dense|--solver tsg --labeled 1000 --batch-labeled 16 --max-features 64 --iterations 100|2"
    "tsg-check|dense|--solver tsg --reuse check --max-features 128 --iterations 60|2"
    "tsg-regen|dense|--solver tsg --cache-mb 0 --iterations 60|2"
    "tsg-hold|dense|--solver tsg --balance 1 --iterations 100|2"
    "tsg-sparse|sparse|--solver tsg --max-features 128 --iterations 20|2 4"
    "frs|dense|--solver frs --max-features 256 --iterations 60|2"
    "safe|three|--labeled 20|2"
    "safe-50|dense|--labeled 50|1 2 3 4"
    "safe-200|dense||1 2 3 4"
    "safe-multi|multi|--labeled 150|2 3 4"
    "tsg-empty-share|three|--solver tsg --labeled 20 --iterations 60|4"
    "tsg-csv|dense-csv.csv|--solver tsg --iterations 100|2 4"
    "tsg-npy|dense-npy.npy|--solver tsg --iterations 100|2 4"
    "tsg-chunks|big|--solver tsg --labeled 30 --iterations 60|3 4"
    "tsg-noscale|dense|--solver tsg --scale none --iterations 60|2"
    "tsg-minmax|dense-csv.csv|--solver tsg --scale minmax --balance 1 --iterations 60|3"
    "tsg-tiny|tiny.csv|--solver tsg --labeled 2 --iterations 20|6"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name data opts nps <<<"$c"
    case "$opts" in *--labeled*) ;; *) opts="--labeled 200 $opts" ;; esac
    case "$data" in *.*) file=$out/$data ;; *) file=$out/$data.svm ;; esac
    args=(--quiet --threads 0 $opts "$file")
    # (an MPI build started without mpirun: one process, no MPI, no
    # exchange to report)
    OMP_NUM_THREADS=1 TSGS3VM_MPI_STATS=1 "$tool" train "${args[@]}" \
        "$out/alone.model" 2> "$out/err"
    if grep -q "^mpi:" "$out/err"; then
        fail "$name without mpirun: the tool took part in MPI"
    fi
    for np in $nps; do
        # the threads per rank differ too: the bits do not depend on them
        t=$((np == 2 ? 2 : 1))
        rm -f "$out/np.model"
        if ! TSGS3VM_MPI_STATS=1 mpirun -np "$np" -x OMP_NUM_THREADS=$t \
                -x OMP_WAIT_POLICY -x TSGS3VM_MPI_STATS "$tool" train \
                "${args[@]}" "$out/np.model" 2> "$out/err-$name-$np"; then
            cat "$out/err-$name-$np" >&2
            fail "$name np=$np: mpirun failed"
        elif cmp -s "$out/alone.model" "$out/np.model"; then
            pass "$name np=$np: the same model file as the tool alone"
        else
            fail "$name np=$np: a different model file"
        fi
    done
done

# tsg on 2 ranks: each exchanged once a step and received the other's half
# of each 256-row mini-batch, 128 doubles, and a 4-byte flag: 1028 bytes.
for rank in 0 1; do
    if grep -q "^mpi: rank $rank of 2: 150 exchanges, 154200 bytes sent, 154200 received," "$out/err-tsg-2"; then
        pass "tsg np=2 rank $rank: 150 exchanges of 128 rows' values each way"
    else
        cat "$out/err-tsg-2" >&2
        fail "tsg np=2 rank $rank: not 150 exchanges of 154200 bytes"
    fi
done

# The default solver with 50 labels on 2 ranks: the grid's CV tasks and
# the 22 path tasks (11 of each arm) spread over the ranks, each rank
# sending the records of its own: 26 exchanges on each (the grid's
# failure check and one share per rank; the paths' failure check and one
# share per task), each sending some.
for rank in 0 1; do
    if grep -qE "^mpi: rank $rank of 2: 26 exchanges, [1-9][0-9]* bytes sent" \
            "$out/err-safe-50-2"; then
        pass "safe-50 np=2 rank $rank: ran and sent its share of the grid and the 22 path tasks"
    else
        cat "$out/err-safe-50-2" >&2
        fail "safe-50 np=2 rank $rank: not 26 exchanges with records sent"
    fi
done

# Each rank read only its share: the row ranges the ranks report tile the
# file's rows in rank order, each a part of them, and after training each
# holds about its share (plus the labeled rows' pages), not every row.
share_ranges() { # ERRFILE NP ROWS NAME
    awk -v np="$2" -v rows="$3" '
        /^mpi: rank [0-9]+ of [0-9]+: read rows \[/ {
            r = $3; split($0, a, /[\[\),]+/); lo[r] = a[2] + 0; hi[r] = a[3] + 0
            seen++ }
        END {
            if (seen != np) { print "ranks reporting: " seen; exit 1 }
            at = 0
            for (r = 0; r < np; r++) {
                if (lo[r] != at || hi[r] < lo[r]) { print "rank " r; exit 1 }
                if (np > 1 && hi[r] - lo[r] >= rows) { print "whole"; exit 1 }
                at = hi[r]
            }
            if (at != rows) { print "rows " at; exit 1 }
        }' "$1" || return 1
}
for c in "tsg 2 1500" "tsg 4 1500" "tsg-csv 4 1500" "tsg-npy 4 1500" \
    "tsg-chunks 4 20000" "tsg-tiny 6 4"; do
    read -r name np rows <<<"$c"
    if share_ranges "$out/err-$name-$np" "$np" "$rows"; then
        pass "$name np=$np: each rank read its own rows, together the file's"
    else
        cat "$out/err-$name-$np" >&2
        fail "$name np=$np: the ranks' reads are not shares of the rows"
    fi
done
# 20,000 rows, 30 labeled, 4 ranks: each holds about a quarter after the
# training (its 5,000, the labeled rows' pages, no batch left)
if awk '/trained on rows held/ { r = substr($(NF - 4), 2) + 0
                                  if (r > 12000) bad++; n++ }
        END { exit !(n == 4 && !bad) }' "$out/err-tsg-chunks-4"; then
    pass "tsg-chunks np=4: each rank holds about its share after training"
else
    cat "$out/err-tsg-chunks-4" >&2
    fail "tsg-chunks np=4: a rank holds more than its share"
fi

# A bad value deep in a share: the error names the file's line and the
# field, as the tool alone says it.
awk 'NR == 1400 { $3 = "3:nan" } { print }' "$out/dense.svm" > "$out/bad.svm"
"$tool" train --quiet --solver tsg --labeled 200 "$out/bad.svm" \
    "$out/np.model" 2> "$out/err-alone" && fail "bad value: alone trained"
if ! mpirun -np 3 "$tool" train --quiet --solver tsg --labeled 200 \
        "$out/bad.svm" "$out/np.model" 2> "$out/err" &&
    grep -qF "$(head -n 1 "$out/err-alone")" "$out/err" &&
    grep -q "bad.svm:1400:" "$out/err-alone"; then
    pass "a bad value on line 1400: the ranks say what the tool alone says"
else
    cat "$out/err-alone" "$out/err" >&2
    fail "a bad value on line 1400: not the tool alone's message"
fi

# A job that cannot train fails clearly: a message from the ranks, a
# non-zero status, no model file.
rm -f "$out/np.model"
if mpirun -np 2 "$tool" train --quiet "$out/missing.svm" "$out/np.model" \
        2> "$out/err"; then
    fail "a missing file: mpirun succeeded"
elif grep -q "ERROR: .*missing.svm" "$out/err" && [ ! -e "$out/np.model" ]
then
    pass "a missing file: ERROR from the ranks, exit non-zero, no model"
else
    cat "$out/err" >&2
    fail "a missing file: no clear message, or a model written"
fi

# A rank killed mid-run (SIGKILL): the job fails with mpirun's message
# naming the rank and the signal, no model; --resume from the checkpoint
# (rank 0 writes it every 200 steps) ends with the model file of the tool
# alone, byte for byte.
ckargs=(--quiet --threads 0 --labeled 200 --solver tsg --iterations 3000
        -c 1 -g 0.5 --max-features 256 "$out/dense.svm")
OMP_NUM_THREADS=1 "$tool" train "${ckargs[@]}" "$out/alone.model"
rm -f "$out/np.model" "$out/run.ckpt"
mpirun -np 2 -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY "$tool" train \
    "${ckargs[@]}" --checkpoint "$out/run.ckpt" --checkpoint-steps 200 \
    "$out/np.model" 2> "$out/err-kill" &
job=$!
for _ in $(seq 600); do [ -e "$out/run.ckpt" ] && break; sleep 0.05; done
victim=$(ps -o pid= --ppid "$job" | tail -n 1)
[ -n "$victim" ] && kill -9 $victim
status=0
wait "$job" || status=$?
if [ ! -e "$out/run.ckpt" ] || [ -z "$victim" ]; then
    fail "killed rank: no checkpoint written, or no rank to kill"
elif [ "$status" -eq 0 ] || [ -e "$out/np.model" ] ||
        ! grep -q "exited on signal 9" "$out/err-kill"; then
    cat "$out/err-kill" >&2
    fail "killed rank: the job did not fail clearly (status $status)"
else
    pass "killed rank: the job failed (status $status), signal 9 named"
fi
cp "$out/run.ckpt" "$out/killed.ckpt" 2>/dev/null || true
if ! mpirun -np 2 -x OMP_NUM_THREADS=2 -x OMP_WAIT_POLICY "$tool" train \
        "${ckargs[@]}" --checkpoint "$out/run.ckpt" --resume "$out/run.ckpt" \
        "$out/np.model" 2> "$out/err-resume"; then
    cat "$out/err-resume" >&2
    fail "killed rank: --resume failed"
elif cmp -s "$out/alone.model" "$out/np.model"; then
    pass "killed rank: resumed to the same model file as the tool alone"
else
    fail "killed rank: resumed to a different model file"
fi

# The same checkpoint (each rank read only its share of the rows) resumed
# by another number of ranks and by the tool alone: its fingerprint of
# the rows does not depend on who held which.
rm -f "$out/np3.model" "$out/one.model"
if mpirun -np 3 --oversubscribe -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY \
        "$tool" train "${ckargs[@]}" --resume "$out/killed.ckpt" \
        "$out/np3.model" 2> "$out/err-np3" &&
    OMP_NUM_THREADS=1 "$tool" train "${ckargs[@]}" \
        --resume "$out/killed.ckpt" "$out/one.model" 2> "$out/err-one" &&
    cmp -s "$out/alone.model" "$out/np3.model" &&
    cmp -s "$out/alone.model" "$out/one.model"; then
    pass "a 2-rank checkpoint resumed on 3 ranks and by the tool alone: same model file"
else
    cat "$out/err-np3" "$out/err-one" >&2
    fail "a 2-rank checkpoint resumed on 3 ranks or by the tool alone: refused or another model"
fi

# A stop asked on one rank alone (SIGTERM to rank 1, as a scheduler's or
# mpirun's own would come): the flag that goes round with each step's
# values carries it to every rank, every rank stops after the same step
# (the same count of exchanges), rank 0 writes the model of the steps done
# (MODEL.partial) and the run's state, the job ends with 128 + a signal;
# --resume from that state ends with the tool alone's model file, byte for
# byte (the stopped state is the one process's).
stopargs=(--quiet --threads 0 --labeled 200 --solver tsg --iterations 20000
          -c 1 -g 0.5 --max-features 256 "$out/dense.svm")
OMP_NUM_THREADS=1 "$tool" train "${stopargs[@]}" "$out/alone-stop.model"
rm -f "$out/stop.model" "$out/stop.model.partial" "$out/stop.ckpt"
TSGS3VM_MPI_STATS=1 mpirun -np 2 -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY \
    -x TSGS3VM_MPI_STATS "$tool" train "${stopargs[@]}" \
    --checkpoint "$out/stop.ckpt" --checkpoint-steps 2000 \
    "$out/stop.model" 2> "$out/err-stop" &
job=$!
for _ in $(seq 600); do [ -e "$out/stop.ckpt" ] && break; sleep 0.05; done
victim=$(ps -o pid= --ppid "$job" | tail -n 1)
[ -n "$victim" ] && kill -TERM $victim
status=0
wait "$job" || status=$?
ex=$(sed -n 's/^mpi: rank \([01]\) of 2: \([0-9]*\) exchanges.*/\2/p' \
    "$out/err-stop" | sort -u)
if [ -z "$victim" ] || [ "$status" -lt 128 ] || [ "$status" -eq 137 ] ||
        [ ! -s "$out/stop.model.partial" ] || [ -e "$out/stop.model" ] ||
        [ "$(echo "$ex" | wc -l)" -ne 1 ] || [ -z "$ex" ]; then
    cat "$out/err-stop" >&2
    fail "a stop on one rank: not every rank stopped at the same step with a partial model (status $status, exchanges $(echo $ex))"
else
    pass "a stop on one rank: every rank stopped after $ex exchanges, rank 0 wrote the partial model (status $status)"
fi
if mpirun -np 2 -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY "$tool" train \
        "${stopargs[@]}" --checkpoint "$out/stop.ckpt" \
        --resume "$out/stop.ckpt" "$out/stop.model" 2> "$out/err-stop2" &&
    cmp -s "$out/alone-stop.model" "$out/stop.model"; then
    pass "a stop on one rank: resumed to the same model file as the tool alone"
else
    cat "$out/err-stop2" >&2
    fail "a stop on one rank: --resume failed or gave another model"
fi

[ "$fails" -eq 0 ] || { echo "tests/mpi: $fails failed" >&2; exit 1; }
echo "tests/mpi: all passed"
