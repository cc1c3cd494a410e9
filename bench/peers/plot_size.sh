#!/bin/sh
# plot_size.sh [TSV] [PNG]: wall seconds vs rows (log-log) of the peers in
# bench/results/peers/size-susy.tsv or size-hepmass.tsv (size_peers.py), one line per
# method; runs that are not ok (timeout) are drawn as open points at the limit;
# rows without a wall time (skipped, not run) are left out.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tsv=${1:-$root/bench/results/peers/size-susy.tsv}
png=${2:-${tsv%.tsv}.png}
shape=$(basename "$tsv" .tsv | sed 's/^size-//' | tr a-z A-Z)  # SUSY or HEPMASS
limit=$(sed -n 's/^# per-run limit \([0-9]*\)s.*/\1/p' "$tsv" | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# columns: rows method solver_options n_labeled n_train n_test seed accuracy wall_s ... status
awk -F'\t' -v d="$tmp" '!/^#/ && $1 != "rows" && $9 != "" {
    m = $2; gsub(/[^A-Za-z0-9_]/, "_", m)
    f = d "/" m (($11 == "ok") ? ".ok" : ".bad")
    print $1, $9 > f
    names[m] = $2 }
    END { for (m in names) print m "\t" names[m] > (d "/names") }' "$tsv"
plots=""
while IFS="$(printf '\t')" read -r key name; do
    [ -s "$tmp/$key.ok" ] && plots="$plots${plots:+, }'$tmp/$key.ok' using 1:2 with linespoints lw 2 title '$name'"
    [ -s "$tmp/$key.bad" ] && plots="$plots${plots:+, }'$tmp/$key.bad' using 1:2 with points pt 6 ps 2 title '$name (timeout)'"
done < "$tmp/names"
gnuplot <<GP
set terminal pngcairo noenhanced size 900,600
set output '$png'
set logscale xy
set xlabel 'training rows N (SYNTHETIC $shape-shaped, 200 labels)'
set ylabel 'wall seconds (fit + predict 20,000 test rows)'
set title 'Peers vs size on SYNTHETIC $shape-shaped data (1 thread, per-run limit ${limit:-300} s)'
set key top left
set grid
plot $plots
GP
echo "plot_size: $png"
