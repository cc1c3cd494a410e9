#!/usr/bin/python3
"""Write the exact files every method of the peer benchmark reads.

From a binary-labelled dataset (LIBSVM or CSV, plain or .gz/.xz/.bz2) and a
seed, writes into OUT_DIR, all in LIBSVM format with labels -1/+1:

  train_all.svm      every training row with its label (the supervised ceiling)
  train_labeled.svm  the labeled subset only (stratified, --labeled rows)
  train_masked.svm   every training row; the rows outside the labeled subset
                     carry the label --marker (default 0) instead of their own
                     (read by tsgs3vm with --unlabeled-label MARKER)
  test.svm           the test rows (from --test, or a stratified hold-out of
                     --test-rows rows, else --test-fraction, of the training
                     file chosen by the seed)
  split.json         counts, label mapping, scaling, the labeled row indices

Scaling (--scale): zscore (default) fits mean and standard deviation on all
training rows (labeled and unlabeled; no test row) and writes the scaled values,
so every method reads the same numbers; none copies the values as they are.
Features with zero standard deviation are only centered. Zero values are
omitted from the sparse lines as LIBSVM allows.

Uses only the standard library and numpy (run with Debian's /usr/bin/python3).
"""
import argparse
import bz2
import gzip
import io
import json
import lzma
import os
import sys

import numpy as np


def open_text(path):
    if path.endswith(".xz"):
        raw = lzma.open(path, "rb")
    elif path.endswith(".gz"):
        raw = gzip.open(path, "rb")
    elif path.endswith(".bz2"):
        raw = bz2.open(path, "rb")
    else:
        raw = open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline=None)


def guess_format(path):
    with open_text(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            toks = s.split()
            if len(toks) > 1 and ":" in toks[1]:
                return "libsvm"
            if len(toks) == 1 and "," not in s:
                return "libsvm"  # label-only row
            return "csv"
    return "libsvm"


def read_libsvm(path):
    labels, rows, dmax = [], [], 0
    with open_text(path) as f:
        for line in f:
            s = line.split("#", 1)[0].strip()
            if not s:
                continue
            toks = s.split()
            labels.append(float(toks[0]))
            feats = {}
            for t in toks[1:]:
                k, v = t.split(":", 1)
                k = int(k)
                feats[k] = float(v)
                if k > dmax:
                    dmax = k
            rows.append(feats)
    X = np.zeros((len(rows), dmax), dtype=np.float64)
    for i, feats in enumerate(rows):
        for k, v in feats.items():
            X[i, k - 1] = v
    return X, np.array(labels)


def is_number(tok):
    try:
        float(tok)
        return True
    except ValueError:
        return False


def read_csv(path, label_column, skip_columns, header):
    data = []
    with open_text(path) as f:
        first = True
        for line in f:
            s = line.strip()
            if not s:
                continue
            toks = [t.strip().strip('"') for t in s.split(",")]
            if first:
                first = False
                is_header = header == "yes" or (
                    header == "auto" and not all(is_number(t) for t in toks if t))
                if is_header:
                    continue
            data.append(toks[skip_columns:])
    if not data:
        sys.exit(f"make_splits: {path}: no rows")
    ncol = len(data[0])
    lc = ncol - 1 if label_column == "last" else int(label_column) - 1
    if lc < 0 or lc >= ncol:
        sys.exit(f"make_splits: label column {label_column} out of range "
                 f"({ncol} columns after skipping {skip_columns})")
    y = np.array([float(r[lc]) for r in data])
    X = np.array([[float(v) if v else 0.0 for j, v in enumerate(r) if j != lc]
                  for r in data], dtype=np.float64)
    return X, y


def read_any(path, a):
    fmt = a.format if a.format != "auto" else guess_format(path)
    if fmt == "libsvm":
        return read_libsvm(path)
    return read_csv(path, a.label_column, a.skip_columns, a.header)


def stratified_pick(y, n, rng):
    """n indices (sorted) with each class in proportion, at least one each."""
    classes = np.unique(y)
    idx_by = [np.flatnonzero(y == c) for c in classes]
    exact = np.array([n * len(ix) / len(y) for ix in idx_by])
    take = np.maximum(np.floor(exact).astype(int), 1)
    rest = n - take.sum()
    order = np.argsort(-(exact - np.floor(exact)))
    for j in order[:max(rest, 0)]:
        take[j] += 1
    out = []
    for ix, t in zip(idx_by, take):
        out.append(rng.choice(ix, size=min(t, len(ix)), replace=False))
    return np.sort(np.concatenate(out))


def write_svm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            nz = np.flatnonzero(xi)
            feats = " ".join(f"{k + 1}:{xi[k]:.9g}" for k in nz)
            f.write(f"{int(yi):d} {feats}\n" if feats else f"{int(yi):d}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("train", help="training file (all labels)")
    ap.add_argument("--test", help="test file; without it a hold-out of the training file")
    ap.add_argument("--test-fraction", type=float, default=0.3)
    ap.add_argument("--test-rows", type=int, default=0,
                    help="hold out this many rows (stratified, seeded); overrides --test-fraction")
    ap.add_argument("--labeled", type=int, default=200, help="labeled rows n_l (stratified)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", choices=["zscore", "none"], default="zscore")
    ap.add_argument("--marker", type=int, default=0,
                    help="label written on the unlabeled rows of train_masked.svm")
    ap.add_argument("--format", choices=["auto", "libsvm", "csv"], default="auto")
    ap.add_argument("--label-column", default="1", help="CSV: 1 = first, 'last', ...")
    ap.add_argument("--skip-columns", type=int, default=0)
    ap.add_argument("--header", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--out", required=True, help="output folder")
    a = ap.parse_args()

    rng = np.random.RandomState(a.seed)
    Xtr, ytr_raw = read_any(a.train, a)
    if a.test:
        Xte, yte_raw = read_any(a.test, a)
        d = max(Xtr.shape[1], Xte.shape[1])
        Xtr = np.pad(Xtr, ((0, 0), (0, d - Xtr.shape[1])))
        Xte = np.pad(Xte, ((0, 0), (0, d - Xte.shape[1])))
    else:
        n_te = a.test_rows if a.test_rows > 0 else int(round(a.test_fraction * len(ytr_raw)))
        te = stratified_pick(ytr_raw, n_te, rng)
        mask = np.ones(len(ytr_raw), bool)
        mask[te] = False
        Xte, yte_raw = Xtr[te], ytr_raw[te]
        Xtr, ytr_raw = Xtr[mask], ytr_raw[mask]

    values = np.unique(np.concatenate([ytr_raw, yte_raw]))
    if len(values) != 2:
        sys.exit(f"make_splits: need two label values, found {values[:10]}")
    ytr = np.where(ytr_raw == values[1], 1, -1)
    yte = np.where(yte_raw == values[1], 1, -1)
    if a.marker in (1, -1):
        sys.exit("make_splits: --marker must differ from -1 and +1")

    if a.scale == "zscore":
        mu = Xtr.mean(axis=0)
        sd = Xtr.std(axis=0)
        sd[sd == 0] = 1.0
        Xtr = (Xtr - mu) / sd
        Xte = (Xte - mu) / sd

    lab = stratified_pick(ytr, min(a.labeled, len(ytr)), rng)
    masked = np.full(len(ytr), a.marker)
    masked[lab] = ytr[lab]

    os.makedirs(a.out, exist_ok=True)
    write_svm(os.path.join(a.out, "train_all.svm"), Xtr, ytr)
    write_svm(os.path.join(a.out, "train_labeled.svm"), Xtr[lab], ytr[lab])
    write_svm(os.path.join(a.out, "train_masked.svm"), Xtr, masked)
    write_svm(os.path.join(a.out, "test.svm"), Xte, yte)
    info = {
        "train": a.train, "test": a.test, "seed": a.seed, "scale": a.scale,
        "marker": a.marker, "label_minus1": float(values[0]), "label_plus1": float(values[1]),
        "n_train": int(len(ytr)), "n_test": int(len(yte)), "n_labeled": int(len(lab)),
        "n_features": int(Xtr.shape[1]),
        "labeled_positive": int((ytr[lab] == 1).sum()),
        "train_positive_fraction": float((ytr == 1).mean()),
        "labeled_rows": [int(i) for i in lab],
    }
    with open(os.path.join(a.out, "split.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"make_splits: n_train={len(ytr)} n_labeled={len(lab)} n_test={len(yte)} "
          f"d={Xtr.shape[1]} scale={a.scale} -> {a.out}")


if __name__ == "__main__":
    main()
