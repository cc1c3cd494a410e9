"""pandas input, as scikit-learn estimators take it: a DataFrame's column
names are kept (feature_names_in_) and checked at predict time, a Series
is a target like any other, and the model is the one the same rows as a
NumPy array give (tests/setup.sh test installs Debian's python3-pandas)."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_moons

from tsgs3vm import TSGS3VMClassifier


def moons_frame(n=300, labeled=30, seed=0):
    """SYNTHETIC two moons as a DataFrame; rows from `labeled` on are -1."""
    X, y = make_moons(n, noise=0.1, random_state=seed)
    X = X.astype(np.float32)
    y_semi = y.copy()
    y_semi[labeled:] = -1
    return X, y, y_semi, pd.DataFrame(X, columns=["mass", "pt"])


def test_frame_gives_the_array_model_and_keeps_names():
    X, y, y_semi, df = moons_frame()
    from_frame = TSGS3VMClassifier(random_state=3).fit(df, pd.Series(y_semi))
    from_array = TSGS3VMClassifier(random_state=3).fit(X, y_semi)
    assert list(from_frame.feature_names_in_) == ["mass", "pt"]
    assert from_frame.n_features_in_ == 2
    assert not hasattr(from_array, "feature_names_in_")
    np.testing.assert_array_equal(from_frame.decision_function(df),
                                  from_array.decision_function(X))
    assert from_frame.score(df, y) > 0.8  # 0.877 at this seed


def test_other_or_reordered_columns_are_refused():
    _, _, y_semi, df = moons_frame()
    clf = TSGS3VMClassifier(random_state=0).fit(df, y_semi)
    with pytest.raises(ValueError, match="Feature names unseen at fit"):
        clf.predict(df.rename(columns={"pt": "eta"}))
    with pytest.raises(ValueError, match="same order"):
        clf.predict(df[["pt", "mass"]])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        clf.predict(df.to_numpy())
    assert any("feature names" in str(w.message) for w in seen)


def test_string_classes_and_mixed_column_types():
    X, y, y_semi, df = moons_frame()
    mixed = pd.DataFrame({"mass": X[:, 0], "pt": (X[:, 1] * 10).round(),
                          "flag": (X[:, 0] > 0).astype(int)})
    names = pd.Series(np.where(y == 1, "signal", "background"),
                      dtype=object)
    clf = TSGS3VMClassifier(random_state=0, unlabeled_label=None)
    clf.fit(mixed.iloc[:60], names.iloc[:60])
    assert list(clf.classes_) == ["background", "signal"]
    assert set(clf.predict(mixed)) <= {"background", "signal"}
    assert clf.score(mixed, names) > 0.8
