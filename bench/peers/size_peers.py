#!/usr/bin/python3
"""Size scaling of the external peers on SYNTHETIC SUSY- or HEPMASS-shaped data.

  size_peers.py --tool T --tool-commit C [--shape susy|hepmass]
                [--sizes 10000,100000,1000000] [--timeout 300] [--data DIR]
                [--out bench/results/peers/size-SHAPE.tsv]

--shape hepmass: 28 features, HEPMASS's CSV layout (header, label first),
fitted to the real HIGGS sample (HEPMASS itself is not available offline),
with the sigma of configs/higgs.conf.

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
SHARED = os.environ.get("TSGS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
# shape -> (real sample, synth read options, layout, header of the written files, conf)
SHAPES = {
    "susy": (os.path.join(SHARED, "data/susy/SUSY_test.csv.xz"),
             ["--skip-columns", "1", "--label-column", "2"], "susy", "no", "susy.conf"),
    "hepmass": (os.path.join(SHARED, "data/higgs/higgs.csv.xz"),
                ["--label-column", "last", "--header", "yes"], "hepmass", "yes", "higgs.conf"),
}
# run_peers method key -> method name in the TSV
NAMES = {"libsvm_labeled": "libsvm_labeled", "libsvm_all": "libsvm_all (ceiling)",
         "rff_sgd": "sklearn_rff_sgd", "selftrain_svc": "sklearn_selftrain_svc",
         "labelspread_knn": "sklearn_labelspread_knn"}


def synth(tool, shape, rows, seed, out):
    sample, opts, layout = SHAPES[shape][:3]
    if not os.path.exists(out):
        subprocess.run([tool, "synth", "--quiet", "--rows", str(rows), "--layout", layout]
                       + opts + ["--seed", str(seed), "--threads", "1", sample, out],
                       check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--tool-commit", required=True)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="susy")
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--test-rows", type=int, default=20000)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--methods", default=",".join(NAMES))
    ap.add_argument("--data", default="/tmp/tsgs3vm-size-peers")
    ap.add_argument("--out", help="default: bench/results/peers/size-SHAPE.tsv")
    a = ap.parse_args()
    a.out = a.out or os.path.join(ROOT, "bench", "results", "peers", f"size-{a.shape}.tsv")
    sample, _, layout, header, conf = SHAPES[a.shape]
    # SUSY-shaped files keep their earlier names (train_N.csv)
    pre = "" if a.shape == "susy" else a.shape + "_"
    os.makedirs(a.data, exist_ok=True)
    test = os.path.join(a.data, f"{pre}test_{a.test_rows}_seed2.csv")
    synth(a.tool, a.shape, a.test_rows, 2, test)
    live = [m for m in a.methods.split(",") if m]
    real = {"susy": "SUSY", "hepmass": "HEPMASS (nor HIGGS)"}[a.shape]
    notes = (f"# SYNTHETIC data: {layout.upper()}-shaped rows from `tsgs3vm synth --layout "
             f"{layout}` (a Gaussian mixture fitted to {sample}); NOT real {real} data\n"
             f"# train: N rows with --seed 1 (N = {a.sizes}); test: {a.test_rows} "
             "rows with --seed 2 (the same test file at every N); rows = N\n"
             f"# per-run limit {a.timeout}s per process; a method that is not ok at "
             "one N is skipped at larger N (status skipped)\n"
             f"# our own solvers at the same sizes: bench/results/size-scaling-{a.shape}.tsv "
             "(different files of the same shape and generator)\n")
    fresh = not os.path.exists(a.out)
    for n in [int(s) for s in a.sizes.split(",")]:
        train = os.path.join(a.data, f"{pre}train_{n}.csv")
        synth(a.tool, a.shape, n, 1, train)
        run = [m for m in NAMES if m in live]
        done = 0
        if os.path.exists(a.out):
            with open(a.out) as f:
                done = len(f.read().splitlines())
        skipped = [m for m in NAMES if m in a.methods.split(",") and m not in live]
        if run:
            subprocess.run([PY, os.path.join(HERE, "run_peers.py"), "--dataset",
                            f"{a.shape}-synth-{n}", "--train", train, "--test", test,
                            "--format", "csv", "--label-column", "1", "--header", header,
                            "--conf", os.path.join(ROOT, "configs", conf),
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
