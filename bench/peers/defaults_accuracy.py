#!/usr/bin/python3
"""Accuracy of DEFAULT settings: tsgs3vm with no config file and no tuning,
against LIBSVM (tuned by CV, as its guide says) and scikit-learn's
semi-supervised methods, on every dataset of /work/shared/data (full size and
subsampled) and on two SYNTHETIC sets.

A case is a dataset at one training size: NAME (every training row) or
NAME@N (a seeded stratified subsample of N training rows; sizes in
SUBSAMPLE_SIZES, skipped when N >= the full size), plus moons-SYNTHETIC and
gauss50-SYNTHETIC. A unit is one (case, seed): the seed draws the subsample
(or the synthetic training rows) and the labeled rows (stratified; LABELED
rows per case, table below); the other training rows are unlabeled. The test
rows are fixed per dataset (its own test file, else a seeded stratified
hold-out; at most TEST_CAP rows, a seeded stratified sample), the same for
every seed and every size.

Class balance: NAME@N/P draws N training rows of which P% are class +1 (the
larger label value) and scores on the most of the fixed test rows that have
the same share (the same rows for every seed), so the majority rate is
max(P, 100 - P). These cases (BALANCE_SHARES at BALANCE_SIZE rows) run only
when a --cases pattern with a "/" asks for them: --cases '*/*' runs them all.

Files. Our tool reads the RAW features (it z-scores by default):
labeled.svm, unlabeled.svm, test.svm. LIBSVM and scikit-learn read features
scaled to [-1, 1] with the min and max of the unit's training rows (labeled and
unlabeled), as svm-scale does (--peer-scale none: raw): labeled_s.svm,
masked_s.svm (the labeled rows and a random at most SK_UNLABELED unlabeled rows,
marked 0), test_s.svm.

Methods (--methods), each fit and predict a whole process, timed together:
  tsgs3vm      TOOL train --unlabeled unlabeled.svm labeled.svm MODEL (nothing
               else; its last stderr line starting "safe:" goes to the note),
               then TOOL predict MODEL test.svm OUT
  tsgs3vm_sup  TOOL train -q labeled.svm MODEL: our supervised default
  dsg          TOOL train -q --solver dsg --unlabeled unlabeled.svm labeled.svm MODEL
  tsg          TOOL train -q --solver tsg --unlabeled unlabeled.svm labeled.svm MODEL:
               the triply stochastic solver with its own defaults
  libsvm       libsvm_grid.sh: svm-train -v 5 over gamma 2^-15..2^3 x C 2^-5..2^15
               (steps of 2^2; the first best), then svm-train; svm-predict
  selftrain    sk_peer.py selftrain_svc with LIBSVM's (gamma, C) on the labeled
               rows + at most 10,000 unlabeled ones (SelfTrainingClassifier,
               k_best = ceil(n_u / 10), 10 rounds, around an SVC whose
               probability is a logistic of its decision value, not a Platt fit)
  labelspread  sk_peer.py labelspread_knn (7 neighbours) on the labeled rows +
               at most 5,000 unlabeled ones
  python       py_peer.py: the Python estimator TSGS3VMClassifier with its
               defaults on the tool's files (the same model as tsgs3vm with
               the same seed), fit and predict each a Python process
  majority     the majority-class rate of the test rows (no process)
The peers run with OMP/OPENBLAS/MKL_NUM_THREADS=1; the tool with the caller's
environment (its default thread count).

Output: every run is appended to RESULTS/runs.tsv (case, size, seed, method,
accuracy, seconds, note); RESULTS/summary.tsv has, per case and method, the
mean and sd of the accuracy over seeds and the median seconds (the latest run
of each (case, seed, method) counts), with tsgs3vm - libsvm, the majority rate
and a verdict per case.

  /usr/bin/python3 bench/peers/defaults_accuracy.py                 # everything
  /usr/bin/python3 bench/peers/defaults_accuracy.py --cases 'cod-rna*,moons-SYNTHETIC' \\
      --seeds 1,2 --jobs 2 --tool /tmp/tsgs3vm-bench --append
  /usr/bin/python3 bench/peers/defaults_accuracy.py --summary-only
  /usr/bin/python3 bench/peers/defaults_accuracy.py --markdown      # the table in docs/results.md
  /usr/bin/python3 bench/peers/defaults_accuracy.py --list          # the cases
"""
import argparse
import fnmatch
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
sys.dont_write_bytecode = True   # no __pycache__ in bench/peers
import accuracy  # noqa: E402  (dataset table and loaders: accuracy.dataset, accuracy.prepared)
import make_splits  # noqa: E402  (read_any, stratified_pick, write_svm)
import peers_common as pc  # noqa: E402  (runs.tsv, summaries, provenance)
import run_peers  # noqa: E402  (timed, labels_of)

ROOT = accuracy.ROOT
PY = "/usr/bin/python3"

# ---------------------------------------------------------------- the cases
# Real datasets (files and read options: accuracy.dataset()). "labeled": labeled
# rows per trial (stratified); every subsample NAME@N takes its dataset's value
# unless CASE_LABELED names the case itself.
REAL = {
    "cod-rna": dict(labeled=200),                # test file cod-rna.t
    "coil20": dict(labeled=200),                 # objects 1-10 vs 11-20; hold-out 288
    "higgs": dict(labeled=200),                  # hold-out 2,000
    "ijcnn1": dict(labeled=200),                 # test file ijcnn1.tst
    "skin_nonskin": dict(labeled=200),           # hold-out 20,000 (accuracy.py: 50,000; capped)
    "susy": dict(labeled=200),                   # hold-out 2,000
    "susy_lowlevel8_zscore": dict(labeled=200),  # test file susy_100Kn_test
    "w8a": dict(labeled=200),                    # hold-out 10,000
}
# SYNTHETIC sets, generated here with numpy (see synth()); the test rows come
# from SYNTH_TEST_SEED (the same at every trial seed), the training rows from
# (SYNTH_TRAIN_SEED, seed).
SYNTHETIC = {
    # two interleaved half circles, Gaussian noise sd 0.12 (as the quick check)
    "moons-SYNTHETIC": dict(labeled=10, train=1010, test=2000),
    # N(+-mu, I) in 50-d, equal priors, |mu| = m = 1.6449 spread over every
    # coordinate (mu_k = m / sqrt(50)): Bayes error Phi(-m) = 5%
    "gauss50-SYNTHETIC": dict(labeled=50, train=550, test=5000),
    # the same with mu = m e1 (one informative axis): a rotation of the
    # above, but per-feature scaling (z-score, [-1, 1]) shrinks that axis
    "gauss50axis-SYNTHETIC": dict(labeled=50, train=550, test=5000),
}
CASE_LABELED = {}          # e.g. {"cod-rna@600": 100}: overrides per case name
LABELED_REAL = None        # --labeled N: every real case's labeled rows
SUBSAMPLE_SIZES = (600, 2000, 20000)
# Class-balance cases NAME@N/P: N training rows of which P% are class +1, and
# the fixed test rows subsampled to the same share (the most rows that allow
# it, seeded by TEST_SEED), so that the majority rate is 100 - P or P. Run only
# when asked for by a pattern with a "/" (e.g. --cases '*/*').
BALANCE_SHARES = (5, 20, 50)
BALANCE_SIZE = 2000
BALANCE_SIZE_OF = {"coil20": 1000}   # 1,152 training rows
TEST_CAP = 20000           # test rows at most (a seeded stratified sample)
TEST_SEED = 0              # seed of the hold-out and of the test sample
SYNTH_TEST_SEED = 20240601
SYNTH_TRAIN_SEED = 777
MOONS_NOISE = 0.12
GAUSS_D, GAUSS_M = 50, 1.6449
SK_UNLABELED = {"selftrain": 10000, "labelspread": 5000}
LIBSVM_GAMMAS = [2.0 ** k for k in range(-15, 4, 2)]   # 2^-15 .. 2^3
LIBSVM_CS = [2.0 ** k for k in range(-5, 16, 2)]       # 2^-5 .. 2^15
METHODS = ["tsgs3vm", "tsgs3vm_sup", "dsg", "tsg", "python", "libsvm", "selftrain", "labelspread",
           "majority"]
COLS = pc.COLS


def labeled_str(case):
    try:
        return str(labeled_of(case))
    except KeyError:   # a case of an older table
        return ""


def parse_case(case):
    """NAME, NAME@N or NAME@N/P -> (NAME, N or None, P or None)."""
    base, _, rest = case.partition("@")
    sub, _, share = rest.partition("/")
    return base, (int(sub) if sub else None), (float(share) if share else None)


def labeled_of(case):
    if case in CASE_LABELED:
        return CASE_LABELED[case]
    base = parse_case(case)[0]
    if LABELED_REAL and base in REAL:
        return LABELED_REAL
    return (SYNTHETIC.get(base) or REAL[base])["labeled"]


# ------------------------------------------------------------------- data
def synth(kind, n, rng):
    """n rows of a SYNTHETIC set, classes as equal as n allows; (X, y in +-1)."""
    n_pos = n // 2 + (n % 2) * rng.randint(2)
    y = np.concatenate([np.ones(n_pos), -np.ones(n - n_pos)])
    y = y[rng.permutation(n)]
    if kind == "moons-SYNTHETIC":
        t = rng.uniform(0.0, math.pi, n)
        upper = np.column_stack([np.cos(t), np.sin(t)])
        lower = np.column_stack([1.0 - np.cos(t), 0.5 - np.sin(t)])
        X = np.where((y > 0)[:, None], upper, lower)
        X = X + rng.normal(0.0, MOONS_NOISE, X.shape)
    elif kind == "gauss50-SYNTHETIC":
        X = rng.normal(0.0, 1.0, (n, GAUSS_D))
        X += (GAUSS_M / math.sqrt(GAUSS_D)) * y[:, None]
    elif kind == "gauss50axis-SYNTHETIC":
        X = rng.normal(0.0, 1.0, (n, GAUSS_D))
        X[:, 0] += GAUSS_M * y
    else:
        raise ValueError(kind)
    return X, y


def read_opts(rd):
    """make_splits/run_peers CLI options (accuracy.dataset()) -> read_any namespace."""
    o = dict(format="auto", label_column="1", skip_columns=0, header="auto")
    for k, v in zip(rd[::2], rd[1::2]):
        key = k.lstrip("-").replace("-", "_")
        o[key] = int(v) if key == "skip_columns" else v
    return argparse.Namespace(**o)


def write_svm(path, X, y, dim=0):
    """make_splits.write_svm, plus (dim > 0) an explicit zero "dim:0" on the
    first row when it lacks feature dim, so the file declares dim features."""
    if not dim:
        return make_splits.write_svm(path, X, y)
    with open(path, "w") as f:
        for i, (xi, yi) in enumerate(zip(X, y)):
            nz = np.flatnonzero(xi)
            feats = " ".join(f"{k + 1}:{xi[k]:.9g}" for k in nz)
            if i == 0 and (len(nz) == 0 or nz[-1] != dim - 1):
                feats = (feats + f" {dim}:0").strip()
            f.write(f"{int(yi):d} {feats}\n" if feats else f"{int(yi):d}\n")


def prepare_real(name, data_dir, explicit_dim=False):
    """Load dataset NAME once: training pool and the fixed test rows, saved as
    NAME.npz and the raw test file NAME.test.svm in data_dir."""
    npz = os.path.join(data_dir, name + ".npz")
    if os.path.exists(npz):
        return npz
    train, test, test_rows, rd, _ = accuracy.dataset(os.path.join(data_dir, "prepared"), name)
    ro = read_opts(rd)
    Xtr, ytr = make_splits.read_any(train, ro)
    rng = np.random.RandomState(TEST_SEED)
    if test:
        Xte, yte = make_splits.read_any(test, ro)
        d = max(Xtr.shape[1], Xte.shape[1])
        Xtr = np.pad(Xtr, ((0, 0), (0, d - Xtr.shape[1])))
        Xte = np.pad(Xte, ((0, 0), (0, d - Xte.shape[1])))
    else:
        te = make_splits.stratified_pick(ytr, min(test_rows, TEST_CAP), rng)
        keep = np.ones(len(ytr), bool)
        keep[te] = False
        Xte, yte = Xtr[te], ytr[te]
        Xtr, ytr = Xtr[keep], ytr[keep]
    values = np.unique(np.concatenate([ytr, yte]))
    if len(values) != 2:
        sys.exit(f"defaults_accuracy: {name}: need two label values, found {values[:10]}")
    ytr = np.where(ytr == values[1], 1.0, -1.0)   # the larger value is +1
    yte = np.where(yte == values[1], 1.0, -1.0)
    if len(yte) > TEST_CAP:
        te = make_splits.stratified_pick(yte, TEST_CAP, rng)
        Xte, yte = Xte[te], yte[te]
    write_svm(os.path.join(data_dir, name + ".test.svm"), Xte, yte,
              Xte.shape[1] if explicit_dim else 0)
    np.savez(npz, Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte)
    return npz


def prepare_synth(name, data_dir):
    npz = os.path.join(data_dir, name + ".npz")
    if not os.path.exists(npz):
        Xte, yte = synth(name, SYNTHETIC[name]["test"], np.random.RandomState(SYNTH_TEST_SEED))
        make_splits.write_svm(os.path.join(data_dir, name + ".test.svm"), Xte, yte)
        np.savez(npz, Xte=Xte, yte=yte)
    return npz


def all_case_names():
    out = []
    for n in REAL:
        out += [f"{n}@{s}" for s in SUBSAMPLE_SIZES] + [n]
    return out + list(SYNTHETIC)


def balance_case_names():
    return [f"{n}@{BALANCE_SIZE_OF.get(n, BALANCE_SIZE)}/{p}"
            for n in REAL for p in BALANCE_SHARES]


def share_fits(n, share, n_pos, n_neg):
    """Whether n rows with share % positive can be drawn from n_pos
    positive and n_neg negative rows."""
    k = int(round(n * share / 100.0))
    return k <= n_pos and n - k <= n_neg


def pick_with_share(y, n, share, rng):
    """n indices (sorted) of which round(n share / 100) have y > 0, or None
    when y has too few of a class."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    if not share_fits(n, share, len(pos), len(neg)):
        return None
    n_pos = int(round(n * share / 100.0))
    return np.sort(np.concatenate([rng.choice(pos, n_pos, replace=False),
                                   rng.choice(neg, n - n_pos, replace=False)]))


def test_with_share(y, share):
    """The most of the test rows y (indices, sorted) with share % of y > 0,
    the same for every seed."""
    n_pos, n_neg = int(np.sum(y > 0)), int(np.sum(y < 0))
    n = int(min(n_pos / (share / 100.0) if share > 0 else np.inf,
                n_neg / (1.0 - share / 100.0) if share < 100 else np.inf))
    while not share_fits(n, share, n_pos, n_neg):
        n -= 1
    return pick_with_share(y, n, share, np.random.RandomState(TEST_SEED))


def select_cases(patterns, data_dir, explicit_dim=False):
    """Case names matching the patterns, in table order, with their sizes;
    loads (and caches) the datasets they need."""
    pats = [p for p in patterns.split(",") if p] if patterns else ["*"]

    def names_for(p):   # a "/" in a pattern asks for the class-balance cases
        return balance_case_names() if "/" in p else all_case_names()
    wanted = [c for c in all_case_names() + balance_case_names()
              if any(fnmatch.fnmatchcase(c, p) for p in pats if c in names_for(p))]
    for p in pats:
        if not any(fnmatch.fnmatchcase(c, p) for c in names_for(p)):
            sys.exit(f"defaults_accuracy: no case matches {p!r} (--list shows them)")
    cases, full = [], {}
    for c in wanted:
        base, sub, share = parse_case(c)
        if base in SYNTHETIC:
            prepare_synth(base, data_dir)
            cases.append((c, SYNTHETIC[base]["train"]))
            continue
        if base not in full:   # rows, positive rows, negative rows
            with np.load(prepare_real(base, data_dir, explicit_dim)) as z:
                y = z["ytr"]
                full[base] = (len(y), int(np.sum(y > 0)), int(np.sum(y < 0)))
        if share is not None:
            if not share_fits(sub, share, *full[base][1:]):
                print(f"defaults_accuracy: skip {c}: {base} has too few rows of a class",
                      flush=True)
                continue
            cases.append((c, sub))
        elif sub:
            if sub >= full[base][0]:
                print(f"defaults_accuracy: skip {c}: {base} has only {full[base][0]} training rows",
                      flush=True)
                continue
            cases.append((c, sub))
        else:
            cases.append((c, full[base][0]))
    return cases


def scale_pm1(Xtr, *others):
    """[-1, 1] with the min and max of Xtr (svm-scale -l -1 -u 1); constant
    features become 0."""
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    span = hi - lo
    const = span == 0
    span[const] = 1.0
    f = lambda X: np.where(const, 0.0, 2.0 * (X - lo) / span - 1.0)
    return [f(Xtr)] + [f(X) for X in others]


# ---------------------------------------------------------------- one unit
def acc_of(pred_path, y):
    try:
        p = np.array(run_peers.labels_of(pred_path))
    except (OSError, ValueError):
        return None
    if len(p) != len(y):
        return None
    return 100.0 * float(np.mean(np.where(p > 0, 1.0, -1.0) == y))


def last_line(log, prefix):
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return ""
    hits = [l.strip() for l in re.split(r"[\r\n]+", text) if l.strip().startswith(prefix)]
    return hits[-1] if hits else ""


def tail(log, n=200):
    try:
        lines = [l for l in open(log, errors="replace").read().splitlines() if l.strip()]
        return lines[-1][:n] if lines else ""
    except OSError:
        return ""


def run_unit(case, size, seed, cfg):
    """All methods of one (case, seed); rows are appended to runs.tsv as they finish."""
    base, _, share = parse_case(case)
    wd = os.path.join(cfg["work"], "units", f"{case}.seed{seed}".replace("/", "%"))
    os.makedirs(wd, exist_ok=True)
    peer_env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                    MKL_NUM_THREADS="1")
    tool_env = dict(os.environ)
    timeout = cfg["timeout"]

    def emit(method, acc=None, secs=None, note=""):
        pc.append_row(cfg["runs"], dict(case=case, size=size, seed=seed, method=method,
                                        accuracy="" if acc is None else f"{acc:.2f}",
                                        seconds="" if secs is None else f"{secs:.2f}",
                                        note=note))

    try:
        rng = np.random.RandomState([seed, zlib.crc32(case.encode())])
        with np.load(os.path.join(cfg["data"], base + ".npz")) as z:
            Xte, yte = z["Xte"], z["yte"]
            if base in SYNTHETIC:
                Xtr, ytr = synth(base, size, np.random.RandomState([SYNTH_TRAIN_SEED, seed]))
            else:
                Xtr, ytr = z["Xtr"], z["ytr"]
                if share is not None:
                    sub = pick_with_share(ytr, size, share, rng)
                    Xtr, ytr = Xtr[sub], ytr[sub]
                elif size < len(ytr):
                    sub = make_splits.stratified_pick(ytr, size, rng)
                    Xtr, ytr = Xtr[sub], ytr[sub]
        test_raw = os.path.join(cfg["data"], base + ".test.svm")
        if share is not None:   # this case's own test rows, the same every seed
            te = test_with_share(yte, share)
            Xte, yte = Xte[te], yte[te]
            test_raw = os.path.join(wd, "test.svm")
            write_svm(test_raw, Xte, yte, Xte.shape[1] if cfg["explicit_dim"] else 0)
        n_l = min(labeled_of(case), len(ytr))
        lab = make_splits.stratified_pick(ytr, n_l, rng)
        is_u = np.ones(len(ytr), bool)
        is_u[lab] = False
        unl = np.flatnonzero(is_u)
        f = {k: os.path.join(wd, k + ".svm") for k in
             ("labeled", "unlabeled", "labeled_s", "masked_s", "test_s")}
        methods = cfg["methods"]
        if any(m in methods for m in ("tsgs3vm", "tsgs3vm_sup", "dsg", "tsg", "python")):
            dim = Xtr.shape[1] if cfg["explicit_dim"] else 0
            write_svm(f["labeled"], Xtr[lab], ytr[lab], dim)
            write_svm(f["unlabeled"], Xtr[unl], np.zeros(len(unl)), dim)
        peers = [m for m in methods if m in ("libsvm", "selftrain", "labelspread")]
        if peers:
            sk_u = unl
            if len(unl) > SK_UNLABELED["selftrain"]:
                sk_u = np.sort(rng.choice(unl, SK_UNLABELED["selftrain"], replace=False))
            Xs, Xte_s = scale_pm1(Xtr, Xte) if cfg["peer_scale"] == "minmax" else (Xtr, Xte)
            make_splits.write_svm(f["labeled_s"], Xs[lab], ytr[lab])
            make_splits.write_svm(f["test_s"], Xte_s, yte)
            if "selftrain" in peers or "labelspread" in peers:
                rows = np.concatenate([lab, sk_u])
                make_splits.write_svm(f["masked_s"], Xs[rows],
                                      np.concatenate([ytr[lab], np.zeros(len(sk_u))]))
            del Xs, Xte_s
    except Exception:
        msg = "unit setup failed: " + traceback.format_exc().strip().splitlines()[-1]
        for m in cfg["methods"]:
            emit(m, note=msg)
        return

    def pair(name, fit, pred, pred_out, y, fit_env, pred_env):
        """fit then predict, whole processes; (accuracy or None, seconds, status, fit log)."""
        log = os.path.join(wd, name)
        st, w1, _ = run_peers.timed(fit, log + ".fit.log", timeout, fit_env)
        if st != "ok":
            return None, w1, ("timeout" if st == "timeout" else f"fit {st}: "
                              + tail(log + ".fit.log")), log + ".fit.log"
        st2, w2, _ = run_peers.timed(pred, log + ".predict.log", timeout, pred_env)
        if st2 != "ok":
            return None, w1 + w2, ("predict timeout" if st2 == "timeout" else
                                   f"predict {st2}: " + tail(log + ".predict.log")), \
                log + ".fit.log"
        a = acc_of(pred_out, y)
        return a, w1 + w2, ("ok" if a is not None else "bad predictions"), log + ".fit.log"

    tool = cfg["tool"]
    chosen = None   # LIBSVM's (gamma, C, cv acc)

    def libsvm_grid(timed_run):
        model, pred = os.path.join(wd, "libsvm.model"), os.path.join(wd, "libsvm.pred")
        grid = [os.path.join(HERE, "libsvm_grid.sh"), f["labeled_s"], f["labeled_s"], model,
                " ".join(repr(g) for g in LIBSVM_GAMMAS), " ".join(repr(c) for c in LIBSVM_CS)]
        if timed_run:
            res = pair("libsvm", grid, ["svm-predict", "-q", f["test_s"], model, pred], pred,
                       yte, peer_env, peer_env)
            log = res[3]
        else:
            log = os.path.join(wd, "libsvm_cv_only.log")
            st, _, _ = run_peers.timed(grid, log, timeout, peer_env)
            res = None
        m = re.search(r"best gamma=(\S+) c=(\S+) acc=(\S+)", open(log, errors="replace").read()) \
            if os.path.exists(log) else None
        ch = (float(m.group(1)), float(m.group(2)), m.group(3)) if m else None
        return res, ch

    for m in methods:
        try:
            if m == "majority":
                emit(m, 100.0 * max(np.mean(yte > 0), np.mean(yte < 0)), 0.0,
                     f"{len(yte)} test rows, {100.0 * np.mean(yte > 0):.2f}% positive")
            elif m in ("tsgs3vm", "tsgs3vm_sup", "dsg", "tsg"):
                model, pred = os.path.join(wd, m + ".model"), os.path.join(wd, m + ".pred")
                if m == "tsgs3vm":
                    fit = [tool, "train", "--unlabeled", f["unlabeled"], f["labeled"], model]
                elif m == "tsgs3vm_sup":
                    fit = [tool, "train", "-q", f["labeled"], model]
                else:
                    fit = [tool, "train", "-q", "--solver", m, "--unlabeled",
                           f["unlabeled"], f["labeled"], model]
                a, secs, st, log = pair(m, fit, [tool, "predict", model, test_raw, pred], pred,
                                        yte, tool_env, tool_env)
                note = "" if st == "ok" else st
                if m == "tsgs3vm":
                    safe = last_line(log, "safe:")
                    note = "; ".join(x for x in (note, safe) if x)
                emit(m, a, secs, note)
            elif m == "python":
                model, pred = os.path.join(wd, "python.pkl"), os.path.join(wd, "python.pred")
                peer = os.path.join(HERE, "py_peer.py")
                a, secs, st, _ = pair(m, [PY, peer, "fit", "--labeled", f["labeled"],
                                          "--unlabeled", f["unlabeled"], "--model", model],
                                      [PY, peer, "predict", "--model", model, "--test",
                                       test_raw, "--out", pred], pred, yte, tool_env, tool_env)
                emit(m, a, secs, "" if st == "ok" else st)
            elif m == "libsvm":
                (a, secs, st, _), chosen = libsvm_grid(True)
                note = (f"gamma={chosen[0]:g} C={chosen[1]:g} (5-fold CV {chosen[2]}%)"
                        if chosen else "")
                emit(m, a, secs, "; ".join(x for x in ("" if st == "ok" else st, note) if x))
            elif m in ("selftrain", "labelspread"):
                n_u = min(len(unl), SK_UNLABELED[m])
                model, pred = os.path.join(wd, m + ".pkl"), os.path.join(wd, m + ".pred")
                fit = [PY, os.path.join(HERE, "sk_peer.py"), "--masked", f["masked_s"],
                       "--model", model, "--marker", "0", "--seed", str(seed),
                       "--max-unlabeled", str(n_u)]
                if m == "selftrain":
                    if chosen is None:
                        _, chosen = libsvm_grid(False)   # untimed: LIBSVM's choice
                    if chosen is None:
                        emit(m, None, None, "no (gamma, C) from LIBSVM's CV")
                        continue
                    fit[2:2] = ["selftrain_svc"]
                    fit += ["--gamma", repr(chosen[0]), "--C", repr(chosen[1])]
                    opts = f"SVC gamma={chosen[0]:g} C={chosen[1]:g}; {n_u} unlabeled rows"
                else:
                    fit[2:2] = ["labelspread_knn"]
                    fit += ["--gamma", "1"]   # unused by the knn kernel
                    opts = f"knn 7; {n_u} unlabeled rows"
                a, secs, st, _ = pair(m, fit, [PY, os.path.join(HERE, "sk_peer.py"), "predict",
                                               "--model", model, "--test", f["test_s"],
                                               "--out", pred], pred, yte, peer_env, peer_env)
                emit(m, a, secs, "; ".join(x for x in ("" if st == "ok" else st, opts) if x))
        except Exception:
            emit(m, None, None, "error: " + traceback.format_exc().strip().splitlines()[-1])
    if not cfg["keep"]:
        shutil.rmtree(wd, ignore_errors=True)


# ------------------------------------------------------------------ header
def header(a):
    cpu = ""
    for line in pc.sh(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
            break
    lines = [
        "tsgs3vm DEFAULT settings vs peers: bench/peers/defaults_accuracy.py",
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"machine: {cpu or '?'}; nproc: {pc.sh(['nproc'])}",
        f"commit: {pc.commit_of(ROOT)} of {ROOT}",
        f"tool: {a.tool} sha256:{pc.sha256_16(a.tool)} ({pc.sh([a.tool, '--version']) or '?'}); "
        f"OMP_NUM_THREADS for the tool: {os.environ.get('OMP_NUM_THREADS', 'unset')}",
        pc.peer_versions(PY),
        f"run: {shlex.join(sys.argv[1:]) or '(defaults)'}; jobs={a.jobs} timeout={a.timeout}s "
        "per process",
        "protocol: labeled rows stratified per seed (200; moons-SYNTHETIC 10, "
        "gauss50-SYNTHETIC 50), the other training rows unlabeled; fixed test rows per "
        f"dataset (<= {TEST_CAP}); seconds = fit + predict wall, whole processes "
        "(libsvm: with its CV grid); accuracy in % of the test rows; tsgs3vm reads raw "
        f"features, the peers {'[-1, 1] (training min/max)' if a.peer_scale == 'minmax' else 'raw'}"
        " ones",
    ]
    return ["# " + l for l in lines]


# ----------------------------------------------------------------- summary
def summarise(runs_path, out_path):
    by = pc.by_case(pc.read_runs(runs_path))
    shown = os.path.relpath(runs_path, ROOT) if os.path.abspath(runs_path).startswith(
        ROOT + os.sep) else runs_path
    out = [f"# summary of {shown} (latest run of each case, seed, "
           f"method); written {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
           "# acc_mean, acc_sd: test accuracy in % over the seeds that finished (sample sd); "
           "seconds_median: fit + predict wall seconds",
           "# tsgs3vm_minus_libsvm: mean accuracy difference in points; majority: the "
           "majority-class rate of the test rows; verdict: ok when tsgs3vm >= libsvm - 1 "
           "and >= majority",
           "\t".join(["case", "size", "labeled", "method", "runs_ok", "runs", "acc_mean",
                      "acc_sd", "seconds_median", "tsgs3vm_minus_libsvm", "majority",
                      "verdict"])]
    table, f2 = [], pc.f2
    for case in pc.case_order(by, all_case_names() + balance_case_names()):
        stats = pc.method_stats(by[case], sd_of_one=0.0)
        ts, lb, mj = (stats.get(k, {}).get("mean") for k in ("tsgs3vm", "libsvm", "majority"))
        diff = ts - lb if ts is not None and lb is not None else None
        short, missing = [], []
        if ts is not None and lb is not None and ts < lb - 1.0:
            short.append(f"{lb - ts:.2f} points below libsvm")
        if ts is not None and mj is not None and ts < mj:
            short.append(f"{mj - ts:.2f} points below majority")
        t = stats.get("tsgs3vm")
        if t and t["ok"] < t["n"]:
            short.append(f"tsgs3vm failed {t['n'] - t['ok']} of {t['n']} runs")
        for k, v in (("tsgs3vm", ts), ("libsvm", lb), ("majority", mj)):
            if v is None:
                missing.append(f"no {k} result")
        verdict = ("SHORT: " + "; ".join(short)) if short else "ok"
        if missing:
            verdict = ("" if verdict == "ok" else verdict + "; ") + "incomplete: " + \
                ", ".join(missing)
        size = next(iter(stats.values()))["size"]
        for m in pc.methods_in(stats, METHODS):
            s = stats[m]
            out.append("\t".join([case, size, labeled_str(case), m, str(s["ok"]), str(s["n"]),
                                  f2(s["mean"]), f2(s["sd"]), f2(s["sec"]), f2(diff), f2(mj),
                                  verdict]))
        table.append((case, size, stats, diff, mj, verdict))
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")
    return out, table


def markdown(table):
    methods = [m for m in METHODS if m != "majority" and any(m in t[2] for t in table)]
    print("Test accuracy in % (mean ± sd over seeds); Δ = tsgs3vm − libsvm (points).\n")
    print("| case | rows | labeled | " + " | ".join(methods) +
          " | majority | Δ libsvm | verdict |")
    print("|---" * (len(methods) + 6) + "|")
    for case, size, stats, diff, mj, verdict in table:
        cells = [pc.acc_cell(stats.get(m)) for m in methods]
        print(f"| {case} | {size} | {labeled_str(case)} | " + " | ".join(cells) +
              f" | {'' if mj is None else f'{mj:.1f}'} | "
              f"{'' if diff is None else f'{diff:+.1f}'} | {verdict} |")
    print("\nMedian seconds (fit + predict, whole processes):\n")
    pc.seconds_table([(t[0], t[2]) for t in table], methods)


# -------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default="",
                    help="comma-separated case names or shell patterns (default: all), "
                         "e.g. cod-rna,cod-rna@600,'w8a*',moons-SYNTHETIC")
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7,8,9,10",
                    help="comma-separated seeds or ranges (1-10)")
    ap.add_argument("--methods", default=",".join(METHODS),
                    help="comma-separated, of " + ",".join(METHODS))
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "tsgs3vm"),
                    help="tsgs3vm binary (default build/tsgs3vm; a copy keeps a long run "
                         "safe from rebuilds)")
    ap.add_argument("--jobs", type=int, default=1, help="(case, seed) units run in parallel")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per process")
    ap.add_argument("--peer-scale", choices=["minmax", "none"], default="minmax",
                    help="features of LIBSVM and scikit-learn: minmax = [-1, 1] with the "
                         "training rows' min and max (svm-scale), none = raw")
    ap.add_argument("--explicit-dim", action="store_true",
                    help="write a zero 'D:0' on the first row of tsgs3vm's files that lack "
                         "the last feature D, so that every file declares all D features "
                         "(default: plain sparse files; a model trained on fewer features "
                         "than the test file has may then fail in predict)")
    ap.add_argument("--labeled", type=int, default=0,
                    help="labeled rows of every real case (default: the table's, 200); "
                         "keep such runs in a --results folder of their own: runs.tsv "
                         "keys rows by case, seed and method")
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results", "defaults"),
                    help="folder of runs.tsv and summary.tsv (default bench/results/defaults)")
    ap.add_argument("--workdir", help="parent of the temporary folder (default: $TMPDIR or /tmp)")
    ap.add_argument("--keep-work", action="store_true", help="do not delete the temporary files")
    ap.add_argument("--append", action="store_true",
                    help="add to runs.tsv (default: start it afresh)")
    ap.add_argument("--summary-only", action="store_true",
                    help="rebuild summary.tsv from runs.tsv, print it, run nothing")
    ap.add_argument("--markdown", action="store_true",
                    help="rebuild summary.tsv from runs.tsv and print it as Markdown tables")
    ap.add_argument("--list", action="store_true",
                    help="print the case names and exit (a NAME@N with N >= the full size "
                         "is skipped when run; the NAME@N/P class-balance cases run only "
                         "when a pattern with a '/' asks for them)")
    a = ap.parse_args()
    global LABELED_REAL
    LABELED_REAL = a.labeled if a.labeled > 0 else None

    runs = os.path.join(a.results, "runs.tsv")
    summ = os.path.join(a.results, "summary.tsv")
    if a.list:
        print("\n".join(all_case_names() + balance_case_names()))
        return
    if a.summary_only or a.markdown:
        if not os.path.exists(runs):
            sys.exit(f"defaults_accuracy: no {runs}")
        out, table = summarise(runs, summ)
        if a.markdown:
            markdown(table)
        else:
            print("\n".join(out))
        return

    methods = [m for m in a.methods.split(",") if m]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        sys.exit(f"defaults_accuracy: unknown method(s) {bad}; known: {METHODS}")
    seeds = pc.parse_seeds(a.seeds)
    a.tool = os.path.abspath(a.tool)
    if any(m.startswith("tsgs3vm") or m in ("dsg", "tsg") for m in methods) and \
            not os.access(a.tool, os.X_OK):
        sys.exit(f"defaults_accuracy: {a.tool} is not an executable (make -C {ROOT})")
    methods = [m for m in METHODS if m in methods]   # LIBSVM before self-training
    if ("libsvm" in methods or "selftrain" in methods) and not shutil.which("svm-train"):
        sys.exit("defaults_accuracy: svm-train missing: run bench/peers/install.sh as root")
    if ("selftrain" in methods or "labelspread" in methods) and \
            subprocess.run([PY, "-c", "import sklearn"], capture_output=True).returncode:
        sys.exit("defaults_accuracy: no scikit-learn for /usr/bin/python3: run "
                 "bench/peers/install.sh as root")

    os.makedirs(a.results, exist_ok=True)
    if a.workdir:
        os.makedirs(a.workdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tsgs3vm-defaults-", dir=a.workdir)
    data = os.path.join(work, "data")
    os.makedirs(data)
    t0 = time.time()
    try:
        cases = select_cases(a.cases, data, a.explicit_dim)
        fresh = not (a.append and os.path.exists(runs))
        with open(runs, "w" if fresh else "a") as f:
            f.write("\n".join(header(a)) + "\n")
            if fresh:
                f.write("\t".join(COLS) + "\n")
        cfg = dict(work=work, data=data, runs=runs, tool=a.tool, methods=methods,
                   timeout=a.timeout, keep=a.keep_work, peer_scale=a.peer_scale,
                   explicit_dim=a.explicit_dim)
        units = [(c, n, s) for c, n in cases for s in seeds]
        print(f"defaults_accuracy: {len(cases)} cases x {len(seeds)} seeds = {len(units)} "
              f"units, methods {','.join(methods)}, {a.jobs} job(s); work in {work}",
              flush=True)
        pc.run_units(run_unit, units, cfg, a.jobs)
    finally:
        if a.keep_work:
            print(f"defaults_accuracy: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    out, _ = summarise(runs, summ)
    print("\n".join(l for l in out if not l.startswith("#")))
    print(f"defaults_accuracy: {time.time() - t0:.0f} s; {runs}, {summ}")


if __name__ == "__main__":
    main()
