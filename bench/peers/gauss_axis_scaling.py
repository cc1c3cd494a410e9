#!/usr/bin/python3
"""Why the default falls short on SYNTHETIC gauss50axis (issue #7): the same
splits as defaults_accuracy.py (seeds 1-10, 50 labels, 500 unlabeled, the
fixed 5,000 test rows), trained by tsgs3vm with no option but --scale
(zscore = the default, minmax, none, class) with and without the unlabeled
rows, and, per scaling, the exact RBF SVC (scikit-learn) at the best
(gamma, C) of LIBSVM's grid chosen ON THE TEST ROWS (an oracle: what no
choice of C and gamma on the labels can beat) and the class-mean-difference
classifier. Writes one row per (seed, scaling, method) and prints the means.

  /usr/bin/python3 bench/peers/gauss_axis_scaling.py --tool build/tsgs3vm \\
      --out bench/results/defaults/gauss50axis-scaling.tsv
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import defaults_accuracy as D  # noqa: E402
import make_splits  # noqa: E402

CASE = "gauss50axis-SYNTHETIC"
SCALINGS = ["zscore", "minmax", "none", "class"]


def scaler(kind, Xall):
    if kind == "zscore":
        mu, sd = Xall.mean(0), Xall.std(0)
        return lambda X: (X - mu) / sd
    if kind == "minmax":
        lo, hi = Xall.min(0), Xall.max(0)
        return lambda X: 2 * (X - lo) / (hi - lo) - 1
    return lambda X: X


def tool_acc(tool, wd, labeled, unlabeled, test, scale):
    m = os.path.join(wd, "m")
    cmd = [tool, "train", "--scale", scale] + (["--unlabeled", unlabeled] if unlabeled else []) \
        + [labeled, m]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    out = subprocess.run([tool, "predict", m, test, os.path.join(wd, "p")],
                         capture_output=True, text=True, check=True)
    acc = float(re.search(r"Accuracy = ([0-9.]+)", out.stdout + out.stderr).group(1))
    note = [l for l in log.splitlines() if l.startswith("safe:")]
    return acc, note[-1] if note else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="1-10")
    a = ap.parse_args()
    lo, hi = (int(v) for v in a.seeds.split("-"))
    from sklearn.svm import SVC
    Xte, yte = D.synth(CASE, D.SYNTHETIC[CASE]["test"], np.random.RandomState(D.SYNTH_TEST_SEED))
    rows = []
    with tempfile.TemporaryDirectory() as wd:
        test = os.path.join(wd, "test.svm")
        make_splits.write_svm(test, Xte, yte)
        for seed in range(lo, hi + 1):
            # the split of defaults_accuracy.run_unit
            rng = np.random.RandomState([seed, zlib.crc32(CASE.encode())])
            Xtr, ytr = D.synth(CASE, D.SYNTHETIC[CASE]["train"],
                               np.random.RandomState([D.SYNTH_TRAIN_SEED, seed]))
            lab = make_splits.stratified_pick(ytr, D.labeled_of(CASE), rng)
            u = np.ones(len(ytr), bool)
            u[lab] = False
            L, U = os.path.join(wd, "l.svm"), os.path.join(wd, "u.svm")
            make_splits.write_svm(L, Xtr[lab], ytr[lab])
            make_splits.write_svm(U, Xtr[u], np.zeros(u.sum()))
            for s in SCALINGS:
                acc, note = tool_acc(a.tool, wd, L, U, test, s)
                rows.append((seed, s, "tsgs3vm", acc, note))
                acc, _ = tool_acc(a.tool, wd, L, None, test, s)
                rows.append((seed, s, "tsgs3vm_sup", acc, ""))
                if s == "class":
                    continue
                f = scaler(s, Xtr)
                Xl, Xt = f(Xtr[lab]), f(Xte)
                best = max((SVC(C=c, gamma=g).fit(Xl, ytr[lab]).score(Xt, yte), g, c)
                           for g in D.LIBSVM_GAMMAS for c in D.LIBSVM_CS)
                rows.append((seed, s, "svc_oracle", 100 * best[0],
                             f"gamma={best[1]:g} C={best[2]:g} (best on the test rows)"))
                w = Xl[ytr[lab] > 0].mean(0) - Xl[ytr[lab] < 0].mean(0)
                c0 = (Xl[ytr[lab] > 0].mean(0) + Xl[ytr[lab] < 0].mean(0)) / 2
                rows.append((seed, s, "mean_diff", 100 * np.mean(np.sign((Xt - c0) @ w) == yte), ""))
                sd = {"zscore": Xtr.std(0), "minmax": (Xtr.max(0) - Xtr.min(0)) / 2,
                      "none": np.ones(Xtr.shape[1])}[s]
                rows.append((seed, s, "axis1_shrink", sd[0] / np.mean(sd[1:]),
                             "axis 1's divisor / the mean of the others'"))
            print(f"seed {seed} done", flush=True)
    with open(a.out, "w") as f:
        f.write("# bench/peers/gauss_axis_scaling.py --tool %s --seeds %s\n" % (a.tool, a.seeds))
        f.write("seed\tscale\tmethod\tvalue\tnote\n")
        for r in rows:
            f.write(f"{r[0]}\t{r[1]}\t{r[2]}\t{r[3]:.2f}\t{r[4]}\n")
    keys = sorted({(r[1], r[2]) for r in rows}, key=lambda k: (SCALINGS.index(k[0]), k[1]))
    for k in keys:
        v = [r[3] for r in rows if (r[1], r[2]) == k]
        print(f"{k[0]:8s} {k[1]:13s} mean {np.mean(v):6.2f} sd {np.std(v, ddof=1):5.2f}")


if __name__ == "__main__":
    main()
