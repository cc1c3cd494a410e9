#!/usr/bin/env bash
# Training time against training size (the TSGS3VM paper's Figure 2) on
# SYNTHETIC SUSY-shaped (18 features, up to 5M rows) and HEPMASS-shaped
# (28 features, up to 10.5M rows) data: 200 labeled rows, the rest
# unlabeled, one pass, ceil(sqrt(n)) features. Solvers tsg, dsg (labeled
# rows only, as many steps), frs (FRS3VM, same budget); each run is a whole
# process with a time limit (LIMIT seconds, default 600): a run past it is
# recorded as "timeout" and larger sizes of that solver are skipped.
# The external peers on the same files: bench/peers/ (see its README).
# Usage: bench/scripts/size_scaling.sh [KIND] [SIZES] [SOLVERS] [LIMIT]
#   KIND susy|hepmass; > bench/results/size-scaling-KIND.tsv
set -euo pipefail
cd "$(dirname "$0")/../.."
kind=${1:-susy}
if [ "$kind" = susy ]; then def="10000 100000 1000000 5000000"; else
    def="10000 100000 1000000 10500000"; fi
sizes=${2:-$def} solvers=${3:-"tsg dsg frs"} limit=${4:-600}
[ -x build/tsgs3vm ] || make -s
. bench/scripts/machine.sh
. bench/scripts/data.sh
machine_header
printf '# data\tSYNTHETIC %s-shaped (tsgs3vm synth); 200 labeled rows; one pass over the unlabeled rows; per-run limit %ss\n' "$kind" "$limit"
printf 'solver\trows\tfeatures\tread_s\ttrain_s\twall_s\tmax_rss_kb\tsteps_per_s\tstatus\n'
declare -A dead
for n in $sizes; do
    file=$(synth_file "$kind" "$n")
    for solver in $solvers; do
        [ -z "${dead[$solver]:-}" ] || { printf '%s\t%s\t\t\t\t\t\t\tskipped\n' "$solver" "$n"; continue; }
        extra=()
        [ "$solver" = dsg ] && extra=(--iterations $(( (n - 200 + 255) / 256 )))
        log=$(mktemp)
        status=ok
        /usr/bin/time -f 'TIME %e %M' timeout "$limit" ./build/tsgs3vm train \
            $(synth_read_opts "$kind") --labeled 200 --solver "$solver" \
            --test-every 0 "${extra[@]}" "$file" /tmp/size_scaling.model \
            >"$log" 2>&1 || status=timeout
        read_s=$(sed -n 's/^read .* in \([0-9.]*\)s$/\1/p' "$log")
        train_s=$(sed -n 's/.*, \([0-9.]*\)s; model.*/\1/p' "$log")
        feats=$(sed -n 's/^trained: \([0-9]*\) .*/\1/p' "$log")
        steps=$(sed -n 's/^iter [0-9]*\/\([0-9]*\) .*/\1/p' "$log" | tail -1)
        read -r wall rss < <(sed -n 's/^TIME \([0-9.]*\) \([0-9]*\)$/\1 \2/p' "$log")
        [ -n "$train_s" ] || status=${status/ok/failed}
        sps=$(awk -v s="${steps:-0}" -v t="${train_s:-0}" 'BEGIN {if (t > 0) printf "%.0f", s / t}')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$solver" "$n" "$feats" \
            "$read_s" "$train_s" "$wall" "$rss" "$sps" "$status"
        [ "$status" = ok ] || dead[$solver]=1
        rm -f "$log"
    done
done
rm -f /tmp/size_scaling.model
