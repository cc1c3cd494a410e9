#!/usr/bin/python3
"""Size scaling of the external peers on SYNTHETIC SUSY-shaped data.

  size_peers.py --tool T --tool-commit C [--sizes 10000,100000,1000000]
                [--timeout 300] [--data DIR] [--out bench/results/peers/size-susy.tsv]

For each size N (ascending): writes N synthetic rows with
`tsgs3vm synth --rows N --layout susy --skip-columns 1 --label-column 2
/work/shared/data/susy/SUSY_test.csv.xz` (seed 1) and, once, a test file of
--test-rows rows with --seed 2; then runs run_peers.py on them (seed 1, 200
labels, the sigma of configs/susy.conf, one process at a time, --timeout per
process). A method whose run at some size is not `ok` (timeout, error) is
skipped at every larger size and gets a row with status `skipped`.
The TSV has run_peers.py's columns with a first column `rows` = N added.
Self-training and LabelSpreading(knn) use every unlabeled row (no subsample),
so their cost grows with N. Our own solvers are not run here (see
bench/results/size-scaling-susy.tsv).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
SAMPLE = "/work/shared/data/susy/SUSY_test.csv.xz"
# run_peers method key -> method name in the TSV
NAMES = {"libsvm_labeled": "libsvm_labeled", "libsvm_all": "libsvm_all (ceiling)",
         "rff_sgd": "sklearn_rff_sgd", "selftrain_svc": "sklearn_selftrain_svc",
         "labelspread_knn": "sklearn_labelspread_knn"}


def synth(tool, rows, seed, out):
    if not os.path.exists(out):
        subprocess.run([tool, "synth", "--quiet", "--rows", str(rows), "--layout", "susy",
                        "--skip-columns", "1", "--label-column", "2", "--seed", str(seed),
                        "--threads", "1", SAMPLE, out], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--tool-commit", required=True)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--test-rows", type=int, default=20000)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--methods", default=",".join(NAMES))
    ap.add_argument("--data", default="/tmp/tsgs3vm-size-peers")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "peers",
                                                  "size-susy.tsv"))
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    test = os.path.join(a.data, f"test_{a.test_rows}_seed2.csv")
    synth(a.tool, a.test_rows, 2, test)
    live = [m for m in a.methods.split(",") if m]
    notes = ("# SYNTHETIC data: SUSY-shaped rows from `tsgs3vm synth --layout susy` "
             f"(a Gaussian mixture fitted to {SAMPLE}); NOT real SUSY data\n"
             f"# train: N rows with --seed 1 (N = {a.sizes}); test: {a.test_rows} "
             "rows with --seed 2 (the same test file at every N); rows = N\n"
             f"# per-run limit {a.timeout}s per process; a method that is not ok at "
             "one N is skipped at larger N (status skipped)\n"
             "# our own solvers at the same sizes: bench/results/size-scaling-susy.tsv "
             "(different files of the same shape and generator)\n")
    fresh = not os.path.exists(a.out)
    for n in [int(s) for s in a.sizes.split(",")]:
        train = os.path.join(a.data, f"train_{n}.csv")
        synth(a.tool, n, 1, train)
        run = [m for m in NAMES if m in live]
        done = 0
        if os.path.exists(a.out):
            with open(a.out) as f:
                done = len(f.read().splitlines())
        skipped = [m for m in NAMES if m in a.methods.split(",") and m not in live]
        if run:
            subprocess.run([PY, os.path.join(HERE, "run_peers.py"), "--dataset",
                            f"susy-synth-{n}", "--train", train, "--test", test,
                            "--format", "csv", "--label-column", "1", "--header", "no",
                            "--conf", os.path.join(ROOT, "configs", "susy.conf"),
                            "--seeds", "1", "--methods", ",".join(run),
                            "--selftrain-unlabeled", "0", "--knn-unlabeled", "0",
                            "--timeout", str(a.timeout), "--tool", a.tool,
                            "--tool-commit", a.tool_commit, "--work", a.data,
                            "--out", a.out, "--append"], check=True)
            if fresh:  # put the notes above run_peers.py's header
                with open(a.out) as f:
                    body = f.read()
                with open(a.out, "w") as f:
                    f.write(notes + body)
                done += notes.count("\n")
                fresh = False
        with open(a.out, "a") as f:
            for m in skipped:
                f.write(f"{NAMES[m]}\tskipped (not ok at a smaller N)\t\t{n}\t\t1"
                        "\t\t\t\tskipped\t\t\n")
        # first column rows = N on the rows of this size; drop the methods that
        # failed at this size
        with open(a.out) as f:
            lines = f.read().splitlines()
        for i in range(done, len(lines)):
            if lines[i].startswith("method\t"):
                lines[i] = "rows\t" + lines[i]
            elif lines[i] and not lines[i].startswith("#"):
                lines[i] = f"{n}\t" + lines[i]
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
        for line in lines[done:]:
            c = line.split("\t")[1:]
            if len(c) > 9 and c[9] not in ("ok", "skipped", "status"):
                    for k, v in NAMES.items():
                        if c[0] == v and k in live:
                            live.remove(k)
        if not live:
            break


if __name__ == "__main__":
    main()
