#!/usr/bin/python3
"""Multi-class accuracy of DEFAULT settings: tsgs3vm (one-vs-rest) with no
config file and no tuning, against LIBSVM (one-vs-one, tuned by CV on the
labels) and scikit-learn, every method on the same labels.

Datasets (a fixed pool of training rows and fixed test rows each):
  coil20            COIL-20, /work/shared/data/coil20/COIL20.csv.xz: 1,440 grey
                    32x32 images (1,024 pixel features, 0-255), 20 objects x 72
                    poses; test = 18 rows per class (360), drawn with TEST_SEED;
                    pool = the other 1,080 (54 per class)
  digits            scikit-learn's load_digits (REAL: the UCI optdigits test
                    set, 1,797 8x8 images, 64 features 0-16, 10 classes, shipped
                    with scikit-learn); test = 50 rows per class (500), pool =
                    the other 1,297
  digits-SYNTHETIC  SYNTHETIC 8x8 digits drawn here (synth_digits()): a stroke
                    template per digit, randomly bent, rotated, sheared,
                    scaled, shifted and thickened, rendered on 32x32 and
                    averaged to 8x8, scaled to 0-16 with noise, rounded;
                    pool 200 and test 100 per class
A case is DATASET@Kpc: K labeled rows per class (exactly, drawn per seed from
the pool), every other pool row unlabeled. Seeds 1-10 by default.

Files. tsgs3vm reads the RAW features (it z-scores by default): labeled.svm,
unlabeled.svm, test.svm. LIBSVM and scikit-learn read features scaled to
[-1, 1] with the min and max of the pool (labeled + unlabeled rows), as
svm-scale does (defaults_accuracy.scale_pm1). Labels are the class ids as
the dataset has them (coil20 1-20, digits 0-9).

Methods (--methods), each fit then predict, whole processes, timed together:
  tsgs3vm      TOOL train --unlabeled unlabeled.svm labeled.svm MODEL (nothing
               else), then TOOL predict MODEL test.svm OUT
  tsgs3vm_sup  TOOL train labeled.svm MODEL: the supervised default
  libsvm       libsvm_grid.sh: svm-train -v 5 over gamma 2^-15..2^3 x C
               2^-5..2^15 (steps of 2^2, defaults_accuracy's grid; the first
               best), then svm-train, svm-predict (one-vs-one)
  svc          scikit-learn SVC() with every default (gamma='scale', C=1)
  svc_grid     GridSearchCV(SVC) over the same gamma x C grid, 5 folds
  linearsvc    LinearSVC() with its defaults (one-vs-rest)
  selftrain    SelfTrainingClassifier(SVC) at LIBSVM's (gamma, C), on every
               unlabeled row (k_best = ceil(n_u / 10), 10 rounds)
  labelspread  LabelSpreading(knn, 7 neighbours) on every unlabeled row
  majority     the rate of the test's largest class (no process)
  svc_ovr      (not by default) OneVsRestClassifier(SVC) at LIBSVM's (gamma, C):
               the exact kernel SVM one-vs-rest, as tsgs3vm trains
(mc_peer.py runs the scikit-learn ones.) The peers run with
OMP/OPENBLAS/MKL_NUM_THREADS=1; the tool with the caller's environment (its
default thread count: one per core).

Output: RESULTS/runs.tsv (every run: case, size, seed, method, accuracy %,
seconds, note) and RESULTS/summary.tsv (per case and method: mean and sd of
the accuracy over seeds, median seconds, tsgs3vm - libsvm), both headed by
bench/scripts/machine.sh's lines. RESULTS defaults to
bench/results/multiclass.

  /usr/bin/python3 bench/peers/multiclass_accuracy.py --tool /tmp/tsgs3vm-mc
  /usr/bin/python3 bench/peers/multiclass_accuracy.py --cases 'coil20@*' --seeds 1-3 --append
  /usr/bin/python3 bench/peers/multiclass_accuracy.py --markdown    # the table in docs/results.md
"""
import argparse
import fnmatch
import lzma
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import defaults_accuracy as da  # noqa: E402  (write_svm, scale_pm1, tail, last_line, grid)
import peers_common as pc  # noqa: E402  (runs.tsv, summaries, provenance)
import run_peers  # noqa: E402  (timed, labels_of)

ROOT = da.ROOT
PY = da.PY
SHARED = os.environ.get("TSGS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))

DATASETS = {
    "coil20": dict(test_per_class=18),
    "digits": dict(test_per_class=50),
    "digits-SYNTHETIC": dict(train_per_class=200, test_per_class=100),
}
PER_CLASS = (10, 20)                 # labeled rows per class: the cases DATASET@Kpc
TEST_SEED = 0
SYNTH_SEED = 20240607                # the SYNTHETIC pool; the test rows use SYNTH_SEED + 1
METHODS = ["tsgs3vm", "tsgs3vm_sup", "libsvm", "svc", "svc_grid", "linearsvc", "selftrain",
           "labelspread", "majority", "svc_ovr"]
DEFAULT_METHODS = METHODS[:-1]       # svc_ovr: for investigations
COLS = pc.COLS                       # case size seed method accuracy seconds note


# ------------------------------------------------------------------- data
# Stroke templates of the SYNTHETIC digits: polylines in the unit square (x to
# the right, y down); a digit is one or more polylines.
def _arc(cx, cy, rx, ry, a0, a1, n=14):
    t = np.linspace(a0, a1, n)
    return np.column_stack([cx + rx * np.cos(t), cy + ry * np.sin(t)])


TEMPLATES = {
    0: [_arc(0.5, 0.5, 0.24, 0.38, 0, 2 * math.pi, 24)],
    1: [np.array([[0.36, 0.26], [0.52, 0.1], [0.52, 0.9]])],
    2: [np.vstack([_arc(0.5, 0.32, 0.22, 0.2, math.pi * 1.1, math.pi * 2.15, 10),
                   [[0.25, 0.9], [0.78, 0.9]]])],
    3: [np.vstack([_arc(0.48, 0.3, 0.22, 0.18, -math.pi * 0.9, math.pi * 0.5, 10),
                   _arc(0.48, 0.68, 0.25, 0.2, -math.pi * 0.5, math.pi * 0.9, 10)])],
    4: [np.array([[0.62, 0.9], [0.62, 0.1], [0.22, 0.64], [0.8, 0.64]])],
    5: [np.vstack([[[0.74, 0.1], [0.32, 0.1], [0.28, 0.45]],
                   _arc(0.5, 0.65, 0.25, 0.22, -math.pi * 0.75, math.pi * 0.8, 10)])],
    6: [np.vstack([[[0.68, 0.1]], _arc(0.5, 0.66, 0.23, 0.22, math.pi * 1.05, -math.pi * 0.95,
                                       20)])],
    7: [np.array([[0.22, 0.12], [0.78, 0.12], [0.42, 0.9]])],
    8: [_arc(0.5, 0.29, 0.18, 0.18, 0, 2 * math.pi, 16),
        _arc(0.5, 0.7, 0.22, 0.2, 0, 2 * math.pi, 16)],
    9: [np.vstack([_arc(0.48, 0.32, 0.22, 0.21, 0.2, 2 * math.pi + 0.2, 18),
                   [[0.62, 0.9]]])],
}


def _densify(poly, step=0.012):
    out = [poly[:1]]
    for p, q in zip(poly[:-1], poly[1:]):
        k = max(1, int(np.ceil(np.linalg.norm(q - p) / step)))
        t = np.arange(1, k + 1)[:, None] / k
        out.append(p + t * (q - p))
    return np.vstack(out)


def synth_digits(per_class, rng):
    """SYNTHETIC 8x8 digit images, per_class of each of 0-9, shuffled: (X, y)."""
    g = (np.arange(32) + 0.5) / 32.0
    gx, gy = np.meshgrid(g, g)                     # pixel centres, row = y
    pix = np.column_stack([gx.ravel(), gy.ravel()])
    X, y = [], []
    for digit, polys in TEMPLATES.items():
        for _ in range(per_class):
            ang = rng.normal(0.0, 0.15)
            sx, sy = rng.uniform(0.8, 1.1, 2)
            sh = rng.normal(0.0, 0.15)
            A = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]]) @ \
                np.array([[sx, sh], [0.0, sy]])
            shift = rng.normal(0.0, 0.05, 2)
            width = rng.uniform(0.035, 0.065)
            pts = []
            for poly in polys:
                bent = poly + rng.normal(0.0, 0.025, poly.shape)   # control points jitter
                pts.append(_densify(bent))
            P = (np.vstack(pts) - 0.5) @ A.T + 0.5 + shift
            d2 = ((pix[:, None, :] - P[None, :, :]) ** 2).sum(axis=2).min(axis=1)
            img = np.exp(-d2 / (2.0 * width ** 2)).reshape(32, 32)
            small = img.reshape(8, 4, 8, 4).mean(axis=(1, 3))
            small = 16.0 * small / max(small.max(), 1e-9) + rng.normal(0.0, 1.0, (8, 8))
            X.append(np.clip(np.rint(small), 0, 16).ravel())
            y.append(digit)
    X, y = np.array(X), np.array(y, dtype=float)
    p = rng.permutation(len(y))
    return X[p], y[p]


def per_class_pick(y, k, rng):
    """k row indices of every class (sorted); all of a class that has fewer."""
    out = []
    for c in np.unique(y):
        ix = np.flatnonzero(y == c)
        out.append(rng.choice(ix, min(k, len(ix)), replace=False))
    return np.sort(np.concatenate(out))


def load_dataset(name):
    """(Xpool, ypool, Xte, yte) of a dataset; the test rows are fixed."""
    if name == "digits-SYNTHETIC":
        c = DATASETS[name]
        Xp, yp = synth_digits(c["train_per_class"], np.random.RandomState(SYNTH_SEED))
        Xt, yt = synth_digits(c["test_per_class"], np.random.RandomState(SYNTH_SEED + 1))
        return Xp, yp, Xt, yt
    if name == "coil20":
        with lzma.open(os.path.join(SHARED, "data", "coil20", "COIL20.csv.xz"), "rt") as f:
            A = np.loadtxt(f, delimiter=",")
        X, y = A[:, 1:], A[:, 0]
    elif name == "digits":
        from sklearn.datasets import load_digits
        X, y = load_digits(return_X_y=True)
        X, y = X.astype(float), y.astype(float)
    else:
        raise ValueError(name)
    te = per_class_pick(y, DATASETS[name]["test_per_class"], np.random.RandomState(TEST_SEED))
    keep = np.ones(len(y), bool)
    keep[te] = False
    return X[keep], y[keep], X[te], y[te]


def all_case_names():
    return [f"{d}@{k}pc" for d in DATASETS for k in PER_CLASS]


def per_class_of(case):
    return int(case.split("@")[1][:-2])


# ---------------------------------------------------------------- one unit
def run_unit(case, seed, cfg):
    base, k = case.split("@")[0], per_class_of(case)
    wd = os.path.join(cfg["work"], "units", f"{case}.seed{seed}")
    os.makedirs(wd, exist_ok=True)
    peer_env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                    MKL_NUM_THREADS="1")
    tool_env = dict(os.environ)
    timeout, tool = cfg["timeout"], cfg["tool"]
    with np.load(os.path.join(cfg["data"], base + ".npz")) as z:
        Xp, yp, Xte, yte = z["Xp"], z["yp"], z["Xte"], z["yte"]
    size = len(yp)

    def emit(method, acc=None, secs=None, note=""):
        pc.append_row(cfg["runs"], dict(case=case, size=size, seed=seed, method=method,
                                        accuracy="" if acc is None else f"{acc:.2f}",
                                        seconds="" if secs is None else f"{secs:.2f}",
                                        note=note))

    rng = np.random.RandomState([seed, zlib.crc32(case.encode())])
    lab = per_class_pick(yp, k, rng)
    unl = np.setdiff1d(np.arange(len(yp)), lab)
    f = {n: os.path.join(wd, n + ".svm") for n in
         ("labeled", "unlabeled", "labeled_s", "unlabeled_s", "test_s")}
    test_raw = os.path.join(cfg["data"], base + ".test.svm")
    dim = Xp.shape[1]
    da.write_svm(f["labeled"], Xp[lab], yp[lab], dim)
    da.write_svm(f["unlabeled"], Xp[unl], np.zeros(len(unl)), dim)
    Xs, Xte_s = da.scale_pm1(Xp, Xte)
    da.write_svm(f["labeled_s"], Xs[lab], yp[lab], dim)
    da.write_svm(f["unlabeled_s"], Xs[unl], np.zeros(len(unl)), dim)
    da.write_svm(f["test_s"], Xte_s, yte, dim)

    def acc_of(pred):
        try:
            p = np.array(run_peers.labels_of(pred))
        except (OSError, ValueError):
            return None
        return 100.0 * float(np.mean(p == yte)) if len(p) == len(yte) else None

    def pair(name, fit, pred_cmd, pred, env):
        log = os.path.join(wd, name)
        st, w1, _ = run_peers.timed(fit, log + ".fit.log", timeout, env)
        if st != "ok":
            return None, w1, ("timeout" if st == "timeout" else
                              f"fit {st}: " + da.tail(log + ".fit.log")), log + ".fit.log"
        st2, w2, _ = run_peers.timed(pred_cmd, log + ".predict.log", timeout, env)
        if st2 != "ok":
            return None, w1 + w2, f"predict {st2}: " + da.tail(log + ".predict.log"), \
                log + ".fit.log"
        a = acc_of(pred)
        return a, w1 + w2, ("ok" if a is not None else "bad predictions"), log + ".fit.log"

    chosen = cfg["libsvm_from"].get((case, str(seed)))   # LIBSVM's (gamma, C, cv acc)
    grid_g = " ".join(repr(g) for g in da.LIBSVM_GAMMAS)
    grid_c = " ".join(repr(c) for c in da.LIBSVM_CS)

    def libsvm(timed_run):
        model, pred = os.path.join(wd, "libsvm.model"), os.path.join(wd, "libsvm.pred")
        grid = [os.path.join(HERE, "libsvm_grid.sh"), f["labeled_s"], f["labeled_s"], model,
                grid_g, grid_c]
        if timed_run:
            res = pair("libsvm", grid, ["svm-predict", "-q", f["test_s"], model, pred], pred,
                       peer_env)
            log = res[3]
        else:
            log = os.path.join(wd, "libsvm_cv_only.log")
            run_peers.timed(grid, log, timeout, peer_env)
            res = None
        m = re.search(r"best gamma=(\S+) c=(\S+) acc=(\S+)", open(log, errors="replace").read()) \
            if os.path.exists(log) else None
        return res, ((float(m.group(1)), float(m.group(2)), m.group(3)) if m else None)

    mc = os.path.join(HERE, "mc_peer.py")
    for m in cfg["methods"]:
        try:
            if m == "majority":
                vals, counts = np.unique(yte, return_counts=True)
                emit(m, 100.0 * counts.max() / len(yte), 0.0,
                     f"{len(yte)} test rows, {len(vals)} classes")
            elif m in ("tsgs3vm", "tsgs3vm_sup"):
                model, pred = os.path.join(wd, m + ".model"), os.path.join(wd, m + ".pred")
                fit = [tool, "train", "--unlabeled", f["unlabeled"], f["labeled"], model] \
                    if m == "tsgs3vm" else [tool, "train", f["labeled"], model]
                a, secs, st, log = pair(m, fit, [tool, "predict", model, test_raw, pred], pred,
                                        tool_env)
                note = "" if st == "ok" else st
                ovr = da.last_line(log, "one-vs-rest over")   # class 1's choices
                note = "; ".join(x for x in (note, ovr[:200]) if x)
                emit(m, a, secs, note)
            elif m in cfg["extra"]:
                # a variant of the tool (--extra NAME=ARGS); {libsvm} becomes
                # LIBSVM's CV choice as "-g G -c C"
                args = cfg["extra"][m]
                if "{libsvm}" in args:
                    if chosen is None:
                        _, chosen = libsvm(False)
                    args = args.replace("{libsvm}", f"-g {chosen[0]!r} -c {chosen[1]!r}")
                model, pred = os.path.join(wd, m + ".model"), os.path.join(wd, m + ".pred")
                fit = [tool, "train"] + shlex.split(args)
                if not m.startswith("tsgs3vm_sup"):
                    fit += ["--unlabeled", f["unlabeled"]]
                fit += [f["labeled"], model]
                a, secs, st, log = pair(m, fit, [tool, "predict", model, test_raw, pred], pred,
                                        tool_env)
                emit(m, a, secs, "; ".join(x for x in ("" if st == "ok" else st, args) if x))
            elif m == "libsvm":
                (a, secs, st, _), chosen = libsvm(True)
                note = (f"gamma={chosen[0]:g} C={chosen[1]:g} (5-fold CV {chosen[2]}%)"
                        if chosen else "")
                emit(m, a, secs, "; ".join(x for x in ("" if st == "ok" else st, note) if x))
            else:
                meth = {"svc": "svc", "svc_grid": "svc_grid", "linearsvc": "linearsvc",
                        "svc_ovr": "svc_ovr", "selftrain": "selftrain_svc",
                        "labelspread": "labelspread_knn"}[m]
                model, pred = os.path.join(wd, m + ".pkl"), os.path.join(wd, m + ".pred")
                fit = [PY, mc, meth, "--labeled", f["labeled_s"], "--model", model,
                       "--seed", str(seed)]
                opts = ""
                if m in ("selftrain", "labelspread"):
                    fit += ["--unlabeled", f["unlabeled_s"]]
                if m in ("selftrain", "svc_ovr"):
                    if chosen is None:
                        _, chosen = libsvm(False)   # untimed: LIBSVM's choice
                    if chosen is None:
                        emit(m, None, None, "no (gamma, C) from LIBSVM's CV")
                        continue
                    fit += ["--gamma", repr(chosen[0]), "--C", repr(chosen[1])]
                    opts = f"SVC gamma={chosen[0]:g} C={chosen[1]:g}" + \
                        (f"; {len(unl)} unlabeled rows" if m == "selftrain" else "")
                if m == "svc_grid":
                    fit += ["--gammas", grid_g, "--Cs", grid_c]
                a, secs, st, log = pair(m, fit, [PY, mc, "predict", "--model", model, "--test",
                                                 f["test_s"], "--out", pred], pred, peer_env)
                if m == "svc_grid":
                    opts = da.last_line(log, "mc_peer:").partition("; ")[2]
                emit(m, a, secs, "; ".join(x for x in ("" if st == "ok" else st, opts) if x))
        except Exception:
            emit(m, None, None, "error: " + traceback.format_exc().strip().splitlines()[-1])
    if not cfg["keep"]:
        shutil.rmtree(wd, ignore_errors=True)


# ------------------------------------------------------------------ header
def machine_lines():
    out = subprocess.run(["bash", "-c", ". bench/scripts/machine.sh && machine_header"],
                         cwd=ROOT, capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.startswith("#")]


def header(a):
    lines = [
        "tsgs3vm DEFAULT settings, multi-class, vs peers: bench/peers/multiclass_accuracy.py",
        f"commit: {pc.commit_of(ROOT)}",
        f"tool: {a.tool} sha256:{pc.sha256_16(a.tool)}; OMP_NUM_THREADS for the tool: "
        f"{os.environ.get('OMP_NUM_THREADS', 'unset')}",
        pc.peer_versions(PY),
        f"run: {shlex.join(sys.argv[1:]) or '(defaults)'}; jobs={a.jobs} "
        f"timeout={a.timeout}s per process; SHARED machine (other engineers' jobs ran beside)",
        "protocol: DATASET@Kpc = K labeled rows per class (drawn per seed), the rest of the "
        "fixed pool unlabeled; fixed test rows; seconds = fit + predict wall of whole "
        "processes (libsvm and svc_grid: with their CV grid); tsgs3vm reads raw features, "
        "the peers [-1, 1] ones",
    ]
    return machine_lines() + ["# " + l for l in lines]


# ----------------------------------------------------------------- summary
def summarise(runs_path, out_path):
    by = pc.by_case(pc.read_runs(runs_path))
    out = machine_lines() + [
        f"# summary of {os.path.relpath(runs_path, ROOT)} (latest run of each case, seed, "
        f"method); commit {pc.sh(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'])}",
        "# acc_mean, acc_sd: test accuracy % over the seeds that finished (sample sd); "
        "seconds_median: fit + predict wall seconds (SHARED 2-core machine); "
        "tsgs3vm_minus_libsvm: mean difference in points",
        "\t".join(["case", "pool_rows", "labeled_per_class", "method", "runs_ok", "runs",
                   "acc_mean", "acc_sd", "seconds_median", "tsgs3vm_minus_libsvm"])]
    table, f2 = [], pc.f2
    for case in pc.case_order(by, all_case_names()):
        stats = pc.method_stats(by[case])
        ts, lb = (stats.get(k, {}).get("mean") for k in ("tsgs3vm", "libsvm"))
        diff = ts - lb if ts is not None and lb is not None else None
        for m in pc.methods_in(stats, METHODS):
            s = stats[m]
            out.append("\t".join([case, s["size"], str(per_class_of(case)), m, str(s["ok"]),
                                  str(s["n"]), f2(s["mean"]), f2(s["sd"]), f2(s["sec"]),
                                  f2(diff)]))
        table.append((case, stats, diff))
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")
    return out, table


def cell(method, s):
    """A Markdown cell: the majority rate alone, else pc.acc_cell's."""
    if method == "majority" and s and s["mean"] is not None:
        return f"{s['mean']:.1f}"
    return pc.acc_cell(s)


def markdown(table):
    methods = [m for m in METHODS if any(m in t[1] for t in table)] + \
        sorted({m for t in table for m in t[1]} - set(METHODS))
    print("Test accuracy in % (mean ± sd over seeds); Δ = tsgs3vm − libsvm (points).\n")
    print("| case | " + " | ".join(methods) + " | Δ libsvm |")
    print("|---" * (len(methods) + 2) + "|")
    for case, stats, diff in table:
        cells = [cell(m, stats.get(m)) for m in methods]
        print(f"| {case} | " + " | ".join(cells) + f" | {'' if diff is None else f'{diff:+.1f}'} |")
    print("\nMedian seconds (fit + predict, whole processes, shared 2-core machine):\n")
    pc.seconds_table([(t[0], t[1]) for t in table], [m for m in methods if m != "majority"])


# -------------------------------------------------------------------- main
def libsvm_choices(path):
    """{(case, seed): (gamma, C, cv)} from the libsvm rows of a runs.tsv."""
    if not path:
        return {}
    out = {}
    for r in pc.read_runs(path):
        m = re.search(r"gamma=(\S+) C=(\S+) \(5-fold CV (\S+)%\)", r["note"])
        if r["method"] == "libsvm" and m:
            out[(r["case"], r["seed"])] = (float(m.group(1)), float(m.group(2)), m.group(3))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default="", help="comma-separated names or patterns "
                    "(default: all; --list shows them)")
    ap.add_argument("--seeds", default="1-10", help="e.g. 1-10 or 1,2,5")
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                    help=",".join(METHODS) + " (default: all but svc_ovr)")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=ARGS",
                    help="also run TOOL train ARGS [--unlabeled U] L M as method NAME "
                         "(NAME tsgs3vm_sup*: the labeled rows only; '{libsvm}' in ARGS: "
                         "LIBSVM's CV choice as '-g G -c C'), e.g. "
                         "tsgs3vm_minmax='--scale minmax'; for investigations")
    ap.add_argument("--libsvm-from", metavar="RUNS.tsv",
                    help="take LIBSVM's (gamma, C) for selftrain and {libsvm} from the libsvm "
                         "rows of this runs.tsv (same case and seed) instead of running its grid")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "tsgs3vm"),
                    help="tsgs3vm binary (a copy keeps a long run safe from rebuilds)")
    ap.add_argument("--jobs", type=int, default=1, help="(case, seed) units in parallel")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per process")
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results", "multiclass"))
    ap.add_argument("--workdir", help="parent of the temporary folder")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--append", action="store_true", help="add to runs.tsv")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    runs, summ = (os.path.join(a.results, n) for n in ("runs.tsv", "summary.tsv"))
    if a.list:
        print("\n".join(all_case_names()))
        return
    if a.summary_only or a.markdown:
        out, table = summarise(runs, summ)
        markdown(table) if a.markdown else print("\n".join(out))
        return
    methods = [m for m in a.methods.split(",") if m]
    extra = dict(e.split("=", 1) for e in a.extra)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        sys.exit(f"multiclass_accuracy: unknown method(s) {bad}; known: {METHODS}")
    methods = [m for m in METHODS if m in methods] + list(extra)   # LIBSVM before self-training
    pats = [p for p in a.cases.split(",") if p] or ["*"]
    cases = [c for c in all_case_names() if any(fnmatch.fnmatchcase(c, p) for p in pats)]
    if not cases:
        sys.exit(f"multiclass_accuracy: no case matches {a.cases!r}")
    a.tool = os.path.abspath(a.tool)
    if any(m.startswith("tsgs3vm") for m in methods) and not os.access(a.tool, os.X_OK):
        sys.exit(f"multiclass_accuracy: {a.tool} is not an executable (make -C {ROOT})")
    os.makedirs(a.results, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tsgs3vm-multiclass-", dir=a.workdir)
    data = os.path.join(work, "data")
    os.makedirs(data)
    t0 = time.time()
    try:
        for base in sorted({c.split("@")[0] for c in cases}):
            Xp, yp, Xte, yte = load_dataset(base)
            np.savez(os.path.join(data, base + ".npz"), Xp=Xp, yp=yp, Xte=Xte, yte=yte)
            da.write_svm(os.path.join(data, base + ".test.svm"), Xte, yte, Xte.shape[1])
            print(f"multiclass_accuracy: {base}: pool {Xp.shape}, test {Xte.shape}, "
                  f"{len(np.unique(yp))} classes", flush=True)
        fresh = not (a.append and os.path.exists(runs))
        with open(runs, "w" if fresh else "a") as f:
            f.write("\n".join(header(a)) + "\n")
            if fresh:
                f.write("\t".join(COLS) + "\n")
        cfg = dict(work=work, data=data, runs=runs, tool=a.tool, methods=methods,
                   timeout=a.timeout, keep=a.keep_work, extra=extra,
                   libsvm_from=libsvm_choices(a.libsvm_from))
        units = [(c, s) for c in cases for s in pc.parse_seeds(a.seeds)]
        print(f"multiclass_accuracy: {len(units)} units, methods {','.join(methods)}, "
              f"{a.jobs} job(s); work in {work}", flush=True)
        pc.run_units(run_unit, units, cfg, a.jobs)
    finally:
        if a.keep_work:
            print(f"multiclass_accuracy: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    out, _ = summarise(runs, summ)
    print("\n".join(l for l in out if not l.startswith("#")))
    print(f"multiclass_accuracy: {time.time() - t0:.0f} s; {runs}, {summ}")


if __name__ == "__main__":
    main()
