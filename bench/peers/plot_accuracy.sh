#!/bin/sh
# plot_accuracy.sh [TSV] [PNG]: test error (mean, with the standard deviation
# as an error bar) per dataset and method, from the summary that
# bench/peers/accuracy.py writes (bench/results/accuracy.tsv).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tsv=${1:-$root/bench/results/accuracy.tsv}
png=${2:-${tsv%.tsv}.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pivot: one row per dataset; per method two columns, mean and sd ("-" = none)
awk -F'\t' -v d="$tmp" '!/^#/ && $1 != "dataset" {
        sub(/_sub[0-9]+u$/, "", $2)  # one bar colour per method, whatever its subsample
        if (!($1 in seen)) { seen[$1] = 1; ds[++nd] = $1 }
        if (!($2 in known)) { known[$2] = 1; ms[++nm] = $2 }
        mean[$1, $2] = ($3 > 0) ? $5 : "-"; sd[$1, $2] = ($3 > 0) ? $6 : "-" }
    END {
        for (j = 1; j <= nm; j++) print ms[j] > (d "/methods")
        for (i = 1; i <= nd; i++) {
            line = ds[i]
            for (j = 1; j <= nm; j++) {
                k = (ds[i] SUBSEP ms[j])
                line = line "\t" ((k in mean) ? mean[k] "\t" sd[k] : "-\t-")
            }
            print line > (d "/table")
        } }' "$tsv"
n=$(wc -l < "$tmp/methods")
machine=$(sed -n 's/^# machine: \([^;]*\); cores: \([0-9]*\).*/\1, \2 cores/p' "$tsv" | head -1)
gnuplot <<GP
set terminal pngcairo noenhanced size 1400,600
set output '$png'
set datafile separator '\t'
set datafile missing '-'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel 'test error, % (mean and sd over the trials)'
set title 'Accuracy, 200 labeled rows, every method on the same splits ($machine)'
set key outside right top
set grid ytics
set xtics rotate by -20
set yrange [0:*]
plot for [j=1:$n] '$tmp/table' using (column(2*j)):(column(2*j+1)):xtic(1) \
    title system(sprintf("sed -n %dp '$tmp/methods'", j))
GP
echo "plot_accuracy: $png"
