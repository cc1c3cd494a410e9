"""Semi-supervised training from Python on the shipped cod-rna data, and a
plot of the decision function.

cod-rna (tests/data/real, 59,535 training rows of 8 features) keeps the
labels of 200 rows, stratified; the others are unlabeled (-1). The script
trains on all 8 features and reports test accuracy on cod-rna's test file,
next to an SVC trained on the same 200 labels; then it trains again on the
two features most correlated with the label among the labeled rows, so the
decision function can be drawn, and writes the plot to a PNG.

    PYTHONPATH=python /usr/bin/python3 python/examples/plot_codrna.py [out.png]

(`--quick` skips the 271,617-row test file.)
"""
import lzma
import os
import sys
import time

import matplotlib
matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from tsgs3vm import TSGS3VMClassifier

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "real")


def load(name, n_features=8):
    with lzma.open(os.path.join(DATA, name), "rb") as f:
        X, y = load_svmlight_file(f, n_features=n_features)
    return X.toarray().astype(np.float32), y.astype(int)


def hide_labels(y, keep, seed):
    """Keeps `keep` labels, in proportion per class; the rest become -1."""
    rng = np.random.RandomState(seed)
    chosen = []
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        share = max(1, round(keep * rows.size / y.size))
        chosen.append(rng.choice(rows, share, replace=False))
    y_semi = np.full_like(y, -1)
    idx = np.concatenate(chosen)
    y_semi[idx] = y[idx]
    return y_semi


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    out = args[0] if args else "cod-rna-decision.png"
    # cod-rna's classes are -1 and +1, and -1 marks unlabeled rows (as in
    # sklearn.semi_supervised): name the classes 0 and 1 first.
    X, y = load("cod-rna.txt.xz")
    y = (y > 0).astype(int)
    y_semi = hide_labels(y, 200, seed=1)
    labeled = y_semi != -1
    print("cod-rna: %d rows, %d labeled" % (len(y), labeled.sum()))

    start = time.time()
    clf = TSGS3VMClassifier(random_state=1).fit(X, y_semi)
    print("trained in %.1f s: %s" % (time.time() - start, clf.note_))
    if not quick:
        X_test, y_test = load("cod-rna.t.xz")
        y_test = (y_test > 0).astype(int)
        scaler = StandardScaler().fit(X[labeled])
        svc = SVC().fit(scaler.transform(X[labeled]), y[labeled])
        print("test accuracy: TSGS3VM %.2f%%, SVC (its defaults) on the 200 "
              "labels %.2f%%"
              % (100 * clf.score(X_test, y_test),
                 100 * svc.score(scaler.transform(X_test), y_test)))

    # Two features, for a picture: those most correlated with the label.
    corr = [abs(np.corrcoef(X[labeled, j], y[labeled])[0, 1])
            for j in range(X.shape[1])]
    pair = list(np.argsort(corr)[-2:])
    clf2 = TSGS3VMClassifier(random_state=1).fit(X[:, pair], y_semi)
    lo = np.percentile(X[:, pair], 1, axis=0)
    hi = np.percentile(X[:, pair], 99, axis=0)
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 200),
                         np.linspace(lo[1], hi[1], 200))
    grid = np.column_stack([g0.ravel(), g1.ravel()]).astype(np.float32)
    z = clf2.decision_function(grid).reshape(g0.shape)

    fig, ax = plt.subplots(figsize=(7, 5.5))
    bound = np.abs(z).max()
    mesh = ax.contourf(g0, g1, z, levels=20, cmap="RdBu", vmin=-bound,
                       vmax=bound, alpha=0.8)
    ax.contour(g0, g1, z, levels=[0], colors="k", linewidths=1.5)
    sample = np.random.RandomState(0).choice(np.flatnonzero(~labeled), 3000,
                                             replace=False)
    ax.scatter(X[sample, pair[0]], X[sample, pair[1]], s=2, c="0.4",
               label="unlabeled (sample)")
    for c, colour in zip(clf2.classes_, ("tab:red", "tab:blue")):
        rows = labeled & (y_semi == c)
        ax.scatter(X[rows, pair[0]], X[rows, pair[1]], s=25, c=colour,
                   edgecolors="k", label="labeled %d" % c)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_xlabel("feature %d" % (pair[0] + 1))
    ax.set_ylabel("feature %d" % (pair[1] + 1))
    ax.set_title("TSGS3VM on cod-rna, 200 labels: decision function over "
                 "two features")
    fig.colorbar(mesh, label="decision value")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print("wrote", out)


if __name__ == "__main__":
    main()
