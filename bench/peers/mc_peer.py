#!/usr/bin/python3
"""Multi-class scikit-learn peers of bench/peers/multiclass_accuracy.py, one
process per fit and one per predict (as sk_peer.py, which is binary).

  mc_peer.py METHOD --labeled L.svm [--unlabeled U.svm] --model OUT.pkl [options]
  mc_peer.py predict --model OUT.pkl --test T.svm --out PRED

The files hold the class labels as they are (any numbers); the labels of
--unlabeled's rows are ignored. Predictions: one class label a line.

METHOD:
  svc            SVC() with every default (rbf, gamma='scale', C=1; one-vs-one)
                 on the labeled rows
  svc_grid       GridSearchCV(SVC(rbf)) over --gammas x --Cs (the LIBSVM grid),
                 5-fold StratifiedKFold (shuffled with --seed), accuracy; ties to
                 the first point of the grid (gamma major, then C), as
                 libsvm_grid.sh
  linearsvc      LinearSVC() with its defaults (C=1, squared hinge; one-vs-rest)
  svc_ovr        OneVsRestClassifier(SVC(rbf, --gamma, --C)): the exact kernel SVM
                 trained one-vs-rest as tsgs3vm does (an investigation method)
  selftrain_svc  SelfTrainingClassifier(SVC(rbf, --gamma, --C)), criterion
                 k_best with k = ceil(n_u / 10), 10 rounds, on the labeled +
                 unlabeled rows; the SVC's "probabilities" are a softmax of its
                 one-vs-rest decision values (decision_function_shape='ovr'),
                 not a Platt fit: k_best only ranks the rows by confidence
  labelspread_knn  LabelSpreading(kernel='knn', n_neighbors=7) on the labeled +
                 unlabeled rows
"""
import argparse
import math
import os
import sys

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.svm import SVC, LinearSVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True   # no __pycache__ in bench/peers
import peers_common as pc  # noqa: E402  (load_svm, save_model, predict_rows, peer_main)

METHODS = ["svc", "svc_grid", "linearsvc", "svc_ovr", "selftrain_svc", "labelspread_knn"]


class SoftmaxSVC(SVC):
    """SVC whose predict_proba is a softmax of its one-vs-rest decision values."""

    def predict_proba(self, X):
        f = self.decision_function(X)
        if f.ndim == 1:   # two classes
            f = np.column_stack([-f, f])
        f = f - f.max(axis=1, keepdims=True)
        e = np.exp(f)
        return e / e.sum(axis=1, keepdims=True)


def floats(s):
    return [float(v) for v in s.split()]


def fit(a):
    Xl, yl = pc.load_svm(a.labeled)
    d = Xl.shape[1]
    if a.unlabeled:
        Xu, _ = pc.load_svm(a.unlabeled, d)
        d = max(d, Xu.shape[1])
        Xl, _ = pc.load_svm(a.labeled, d)
        Xu, _ = pc.load_svm(a.unlabeled, d)
    note = ""
    if a.method == "svc":
        model = SVC()
        model.fit(Xl, yl)
    elif a.method == "svc_grid":
        cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=a.seed)
        model = GridSearchCV(SVC(kernel="rbf"), {"gamma": floats(a.gammas), "C": floats(a.Cs)},
                             cv=cv, scoring="accuracy", n_jobs=1)
        model.fit(Xl, yl)
        note = (f"best gamma={model.best_params_['gamma']:g} C={model.best_params_['C']:g} "
                f"cv={100.0 * model.best_score_:.2f}%")
    elif a.method == "linearsvc":
        model = LinearSVC()
        model.fit(Xl, yl)
    elif a.method == "svc_ovr":
        model = OneVsRestClassifier(SVC(kernel="rbf", gamma=a.gamma, C=a.C))
        model.fit(Xl, yl)
    elif a.method in ("selftrain_svc", "labelspread_knn"):
        if not a.unlabeled:
            sys.exit(f"mc_peer: {a.method} needs --unlabeled")
        # scikit-learn's semi-supervised convention: unlabeled = -1, so the
        # classes are mapped to 0..K-1 and back
        classes = np.unique(yl)
        X = np.vstack([Xl, Xu])
        y = np.concatenate([np.searchsorted(classes, yl), np.full(len(Xu), -1)])
        if a.method == "selftrain_svc":
            inner = SoftmaxSVC(kernel="rbf", gamma=a.gamma, C=a.C, cache_size=500,
                               decision_function_shape="ovr")
            model = SelfTrainingClassifier(inner, criterion="k_best",
                                           k_best=max(1, math.ceil(len(Xu) / 10)),
                                           max_iter=10)
        else:
            model = LabelSpreading(kernel="knn", n_neighbors=7, max_iter=100)
        model.fit(X, y)
        model = _Relabel(model, classes)
    else:
        sys.exit(f"mc_peer: unknown method {a.method}")
    pc.save_model(a.model, model, d)
    print(f"mc_peer: {a.method} fitted on n_labeled={len(yl)} "
          f"n_unlabeled={len(Xu) if a.unlabeled else 0} d={d}" + (f"; {note}" if note else ""))


class _Relabel:
    """A fitted model on classes 0..K-1 that predicts the original labels."""

    def __init__(self, model, classes):
        self.model, self.classes = model, classes

    def predict(self, X):
        return self.classes[np.asarray(self.model.predict(X), dtype=int)]


def predict(a):
    pc.predict_rows(a, lambda v: f"{v:g}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("method", choices=METHODS)
    ap.add_argument("--labeled", required=True)
    ap.add_argument("--unlabeled")
    ap.add_argument("--model", required=True)
    ap.add_argument("--gamma", type=float, default=1.0, help="selftrain_svc, svc_ovr")
    ap.add_argument("--C", type=float, default=1.0, help="selftrain_svc, svc_ovr")
    ap.add_argument("--gammas", default="", help="svc_grid: space-separated")
    ap.add_argument("--Cs", default="", help="svc_grid: space-separated")
    ap.add_argument("--seed", type=int, default=1)
    pc.peer_main("mc_peer.py", ap, fit, predict)


if __name__ == "__main__":
    main()
