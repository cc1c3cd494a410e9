#!/bin/sh
# tsg on sparse rows, before and after a change: the SYNTHETIC text-like
# set of sparse_text.sh at 600 rows x 200,000 features (~100 non-zeros a
# row, Zipf-like columns, 200 labeled), `train --solver tsg --iterations
# 3000` on 1 and 2 threads, the two builds in alternating rounds (a shared
# machine's load then falls on both alike). Each run's wall and CPU seconds,
# peak memory and the model's checksum (the same model from both builds
# when a change keeps the bits), then the minimum and median per build and
# thread count. Replaces the "tsg-speed" section of
# bench/results/sparse-text.tsv.
#   bench/scripts/sparse_tsg_speed.sh BEFORE_TOOL [AFTER_TOOL [ROUNDS]]
# BEFORE_TOOL: e.g. /tmp/tsgs-before/build/tsgs3vm, built from an earlier
# commit (git archive COMMIT | tar -x -C /tmp/tsgs-before; make -C ...).
# BEFORE_REV / AFTER_REV (environment, optional): the commits the two
# builds come from, written in the header.
set -eu
cd "$(dirname "$0")/../.."
BEFORE=${1:?usage: sparse_tsg_speed.sh BEFORE_TOOL [AFTER_TOOL [ROUNDS]]}
AFTER=${2:-build/tsgs3vm}
ROUNDS=${3:-2}
OUT=bench/results/sparse-text.tsv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
python3 - "$TMP" <<'PY'
import sys, random, math
rows, feat, nnz, tmp = 600, 200000, 100, sys.argv[1]
rnd = random.Random(7)
w = {}
def weight(k):
    if k not in w:
        w[k] = random.Random(k * 2654435761 % 2**32).gauss(0, 1)
    return w[k]
with open(tmp + "/train.svm", "w") as tr:
    for i in range(rows):
        cols = set()
        while len(cols) < nnz:
            cols.add(1 + (int(rnd.paretovariate(0.35)) * 7919) % feat)
        cols = sorted(cols)
        vals = [1.0 + math.log(1 + rnd.expovariate(1.0)) for _ in cols]
        s = sum(weight(c) * v for c, v in zip(cols, vals)) / math.sqrt(nnz)
        y = (1 if s > 0 else -1) if i < 200 else 0
        tr.write("%d %s\n" % (y, " ".join("%d:%.3g" % cv for cv in zip(cols, vals))))
PY
. bench/scripts/machine.sh
# one run: wall s, user + sys s, peak KB, model checksum
run() {
    /usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$1" train --solver tsg \
        --iterations 3000 --unlabeled-label 0 --threads "$2" -q \
        "$TMP/train.svm" "$TMP/m" > "$TMP/log" 2>&1 || { cat "$TMP/log"; exit 1; }
    sum=$(sha256sum "$TMP/m" | cut -c1-12)
    awk -v s="$sum" '{printf "%s\t%.2f\t%s\t%s", $1, $2 + $3, $4, s}' "$TMP/t"
}
{
echo "# section: tsg-speed"
machine_header
echo "# SYNTHETIC sparse text-like set: 600 rows (200 labeled) x 200000 features, ~100 non-zeros a row (Zipf-like columns)"
echo "# command: tsgs3vm train --solver tsg --iterations 3000 --unlabeled-label 0 --threads T -q train.svm m"
echo "# before: $BEFORE (${BEFORE_REV:-commit not given}); after: $AFTER (${AFTER_REV:-commit not given}); $ROUNDS alternating rounds"
echo "# SHARED machine: 2 cores used by other engineers at the same time; wall seconds vary with their load, cpu_s (user + sys) less"
printf "build\tthreads\tround\twall_s\tcpu_s\tpeak_rss_kb\tmodel_sha256\n"
for r in $(seq 1 "$ROUNDS"); do
    for t in 1 2; do
        printf "before\t%s\t%s\t%s\n" "$t" "$r" "$(run "$BEFORE" "$t")"
        printf "after\t%s\t%s\t%s\n" "$t" "$r" "$(run "$AFTER" "$t")"
    done
done
} > "$TMP/runs"
{
cat "$TMP/runs"
echo "# summary: min and median wall / cpu seconds per build and threads"
printf "build\tthreads\truns\tmin_wall_s\tmedian_wall_s\tmin_cpu_s\tmedian_cpu_s\n"
grep -v '^#' "$TMP/runs" | tail -n +2 | python3 -c '
import sys, statistics
runs = {}
for line in sys.stdin:
    b, t, r, wall, cpu = line.split("\t")[:5]
    runs.setdefault((b, int(t)), []).append((float(wall), float(cpu)))
for (b, t) in sorted(runs, key=lambda k: (k[1], k[0] != "before")):
    w = [x[0] for x in runs[b, t]]
    c = [x[1] for x in runs[b, t]]
    print("%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f" % (b, t, len(w), min(w),
          statistics.median(w), min(c), statistics.median(c)))
'
} > "$TMP/section"
# keep what other scripts wrote, replace this section
if [ -f "$OUT" ]; then
    sed '/^# section: tsg-speed/,$d' "$OUT" > "$TMP/rest"
    { cat "$TMP/rest"; cat "$TMP/section"; } > "$OUT"
else
    cp "$TMP/section" "$OUT"
fi
cat "$TMP/section"
