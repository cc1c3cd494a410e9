#!/bin/sh
# Training at given C and gamma on the SYNTHETIC sparse text set's 200
# labeled rows (sparse_text.sh's generator, as sparse_side_by_side.sh):
# tsgs3vm (and REF, a reference build) against svm-train, RUNS alternated
# runs each, wall and CPU (user + system, from wait4) in milliseconds, so
# that runs of some 40 ms are told apart (/usr/bin/time's 10 ms steps are
# a quarter of that). Model files of TOOL and REF compared (exit 1 when
# they differ).
#   [RUNS=15] [THREADS=1] [REF=PATH] bench/scripts/sparse_given_ms.sh [ROWS [FEATURES [NNZ]]]
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-5000}
FEAT=${2:-1000000}
NNZ=${3:-100}
RUNS=${RUNS:-15}
T=${THREADS:-1}
TOOL=$(realpath "${TOOL:-build/tsgs3vm}")
REF=${REF:+$(realpath "$REF")}
command -v svm-train >/dev/null || { echo "needs svm-train: apt-get install libsvm-tools" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed -n "/^python3 - /,/^PY\$/p" bench/scripts/sparse_text.sh > "$TMP/gen.sh"
. "$TMP/gen.sh"
G=$(awk -v d="$FEAT" 'BEGIN { printf "%.10g", 1 / d }')
. bench/scripts/machine.sh
machine_header
echo "# RUNS=$RUNS THREADS=$T${REF:+ REF=$REF} bench/scripts/sparse_given_ms.sh $ROWS $FEAT $NNZ: train -c 1 -g $G on the 200 labeled rows; tools alternated run by run"
/usr/bin/python3 - "$TMP" "$RUNS" "$T" "$G" "$TOOL" "${REF:-}" <<'PY'
import os, statistics, subprocess, sys, time
tmp, runs, threads, g, tool, ref = sys.argv[1:7]
lab = tmp + "/lab.svm"
tools = [("svm-train", ["svm-train", "-q", "-c", "1", "-g", g, lab, tmp + "/m.lib"])]
for name, path in (("tsgs3vm", tool), ("tsgs3vm-ref", ref)):
    if path:
        tools.append((name, [path, "train", "-q", "--threads", threads, "-c", "1",
                             "-g", g, lab, tmp + "/m." + name]))
res = {name: ([], []) for name, _ in tools}
for _ in range(int(runs)):
    for name, cmd in tools:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        res[name][0].append(1000 * (time.perf_counter() - t0))
        res[name][1].append(1000 * (ru.ru_utime + ru.ru_stime))
        if status:
            sys.exit("%s failed" % name)
print("tool\tthreads\truns\tmedian_wall_ms\tmin_wall_ms\tmedian_cpu_ms\tmin_cpu_ms")
for name, (w, c) in res.items():
    print("%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f" % (name, "1" if name == "svm-train" else threads,
          runs, statistics.median(w), min(w), statistics.median(c), min(c)))
if ref:
    same = open(tmp + "/m.tsgs3vm", "rb").read() == open(tmp + "/m.tsgs3vm-ref", "rb").read()
    print("# model files of tsgs3vm and tsgs3vm-ref: %s" % ("the same bytes" if same else "DIFFER"))
    sys.exit(0 if same else 1)
PY
