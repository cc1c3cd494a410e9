#!/usr/bin/python3
"""scikit-learn peers of the benchmark, one process per fit and per predict.

  sk_peer.py METHOD --masked M.svm --model OUT.pkl [options]
  sk_peer.py predict --model OUT.pkl --test T.svm --out PRED

METHOD:
  rff_sgd          RBFSampler(gamma, n_components) + SGDClassifier(hinge) on the
                   labeled rows only (supervised random features);
                   alpha = 1 / (C * n_labeled)
  selftrain_svc    SelfTrainingClassifier around SVC(rbf, gamma, C); SVC scores
                   are its decision values passed through a logistic function
                   (no Platt fit), criterion k_best with k = ceil(n_u / 10), so
                   at most 10 rounds label every unlabeled row used
  labelspread_rbf  LabelSpreading(kernel='rbf', gamma) (dense n x n kernel)
  labelspread_knn  LabelSpreading(kernel='knn', n_neighbors=7)

--max-unlabeled N keeps a random N of the unlabeled rows (0: all of them); the
labeled rows are always kept. Labels: +1/-1 in the files; rows labeled
--marker (default 0) in the masked file are the unlabeled ones.
Predictions are written one label (+1/-1) a line; test rows are processed in
chunks so that no n_test x n_train matrix is held at once.
"""
import argparse
import math
import os
import sys

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.svm import SVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True   # no __pycache__ in bench/peers
import peers_common as pc  # noqa: E402  (load_svm, save_model, predict_rows, peer_main)

CHUNK = 5000


class DecisionSVC(SVC):
    """SVC whose predict_proba is a logistic of the decision value (binary)."""

    def predict_proba(self, X):
        f = self.decision_function(X)
        p = 1.0 / (1.0 + np.exp(-np.clip(f, -50, 50)))
        return np.column_stack([1.0 - p, p])


def fit(a):
    Xm, ym = pc.load_svm(a.masked)
    d = Xm.shape[1]
    rng = np.random.RandomState(a.seed)
    lab = np.flatnonzero(ym != a.marker)
    unl = np.flatnonzero(ym == a.marker)
    if a.max_unlabeled and len(unl) > a.max_unlabeled:
        unl = np.sort(rng.choice(unl, a.max_unlabeled, replace=False))
    # sklearn's semi-supervised convention: classes 0/1, unlabeled -1
    cls = np.where(ym > 0, 1, 0)
    n_l, n_u = len(lab), len(unl)
    if a.method == "rff_sgd":
        X, y = Xm[lab], cls[lab]
        model = make_pipeline(
            RBFSampler(gamma=a.gamma, n_components=a.n_components, random_state=a.seed),
            SGDClassifier(loss="hinge", alpha=1.0 / (a.C * n_l), max_iter=1000,
                          tol=1e-4, random_state=a.seed))
    else:
        rows = np.concatenate([lab, unl])
        X = Xm[rows]
        y = np.concatenate([cls[lab], np.full(n_u, -1)])
        if a.method == "selftrain_svc":
            model = SelfTrainingClassifier(
                DecisionSVC(kernel="rbf", gamma=a.gamma, C=a.C, cache_size=1000),
                criterion="k_best", k_best=max(1, math.ceil(n_u / 10)), max_iter=10)
        elif a.method == "labelspread_rbf":
            model = LabelSpreading(kernel="rbf", gamma=a.gamma, max_iter=100)
        elif a.method == "labelspread_knn":
            model = LabelSpreading(kernel="knn", n_neighbors=7, max_iter=100)
        else:
            sys.exit(f"sk_peer: unknown method {a.method}")
    model.fit(X, y)
    pc.save_model(a.model, model, d)
    print(f"sk_peer: {a.method} fitted on n_labeled={n_l} n_unlabeled={n_u} d={d}")


def predict(a):
    pc.predict_rows(a, lambda v: "1\n" if v == 1 else "-1\n", CHUNK)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("method", choices=["rff_sgd", "selftrain_svc", "labelspread_rbf",
                                       "labelspread_knn"])
    ap.add_argument("--masked", required=True, help="training rows, unlabeled ones marked")
    ap.add_argument("--model", required=True)
    ap.add_argument("--marker", type=float, default=0)
    ap.add_argument("--gamma", type=float, required=True)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--n-components", type=int, default=1000)
    ap.add_argument("--max-unlabeled", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    pc.peer_main("sk_peer.py", ap, fit, predict)


if __name__ == "__main__":
    main()
