#!/usr/bin/env bash
# Draws a PNG beside a results file with gnuplot (Debian gnuplot-nox).
# Usage: bench/scripts/plot.sh RESULTS.tsv XCOL YCOL GROUPCOL XLABEL YLABEL [x|y|xy: log axes]
set -euo pipefail
tsv=$1 x=$2 y=$3 g=$4 xl=$5 yl=$6 logx=${7:-}
png=${tsv%.tsv}.png
groups=$(grep -v '^#' "$tsv" | tail -n +2 | cut -f"$g" | sort -u)
cmd="set terminal pngcairo size 800,500 noenhanced; set output '$png';"
cmd+=" set datafile separator '\t'; set key left top; set grid;"
cmd+=" set xlabel '$xl'; set ylabel '$yl';"
cmd+=" set title '$(basename "$tsv" .tsv) ($(sed -n 's/^# machine\tcpu=\([^\t]*\).*cores=\([0-9]*\).*/\1, \2 cores/p' "$tsv"))';"
case $logx in *x*) cmd+=" set logscale x;" ;; esac
case $logx in *y*) cmd+=" set logscale y;" ;; esac
plots=()
for grp in $groups; do
    plots+=("'< grep -v \"^#\" $tsv | awk -F\"\\t\" \"NR>1 && \\\$$g==\\\"$grp\\\"\"' using $x:$y with linespoints title '$grp'")
done
cmd+=" plot $(IFS=,; echo "${plots[*]}")"
gnuplot -e "$cmd"
echo "$png"
