#!/usr/bin/python3
"""The Python estimator as a benchmark method: TSGS3VMClassifier with its
defaults (as `tsgs3vm train` with no options), in one process per fit and
per predict, as the other peers.

  py_peer.py fit --labeled L.svm --unlabeled U.svm --model OUT.pkl [--seed S]
  py_peer.py predict --model OUT.pkl --test T.svm --out PRED

Reads the same raw-feature files as the tool (labels +1/-1; the unlabeled
file's labels ignored); the unlabeled rows get the target 0, passed as
unlabeled_label (-1 is a class here). The model is pickled (through its
model text). Predictions: one label a line.
"""
import argparse
import os
import pickle
import sys

import numpy as np
from sklearn.datasets import load_svmlight_file

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tsgs3vm import TSGS3VMClassifier  # noqa: E402


def dense(path, n_features=None):
    X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float32)
    return np.ascontiguousarray(X.toarray()), y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("fit", "predict"))
    ap.add_argument("--labeled")
    ap.add_argument("--unlabeled")
    ap.add_argument("--model", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--test")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.what == "fit":
        XL, yL = dense(a.labeled)
        XU, _ = dense(a.unlabeled)
        d = max(XL.shape[1], XU.shape[1])
        pad = lambda X: np.pad(X, ((0, 0), (0, d - X.shape[1])))  # noqa: E731
        X = np.ascontiguousarray(np.vstack([pad(XL), pad(XU)]))
        y = np.concatenate([yL, np.zeros(XU.shape[0])])
        clf = TSGS3VMClassifier(unlabeled_label=0, random_state=a.seed)
        clf.fit(X, y)
        with open(a.model, "wb") as f:
            pickle.dump(clf, f)
    else:
        with open(a.model, "rb") as f:
            clf = pickle.load(f)
        X, _ = dense(a.test, n_features=None)
        d = clf.n_features_in_
        X = X[:, :d] if X.shape[1] >= d else np.pad(X, ((0, 0), (0, d - X.shape[1])))
        np.savetxt(a.out, clf.predict(np.ascontiguousarray(X)), fmt="%g")


if __name__ == "__main__":
    main()
