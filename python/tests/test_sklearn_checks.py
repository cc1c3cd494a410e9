"""scikit-learn's estimator checks (sklearn.utils.estimator_checks), every
one that check_estimator generates for the default estimator.

One runs with another setting, for a reason: check_classifiers_classes
trains on labels -1 and 1, and -1 marks unlabeled rows here as in
sklearn.semi_supervised (scikit-learn gives its own LabelSpreading and
SelfTrainingClassifier other labels in that check, by name). It runs with
unlabeled_label=None, every row labeled, so -1 is an ordinary class.
"""
import pytest
from sklearn.utils.estimator_checks import check_estimator

from tsgs3vm import TSGS3VMClassifier

ALL_LABELED = {"check_classifiers_classes"}


def _checks():
    for estimator, check in check_estimator(TSGS3VMClassifier(),
                                            generate_only=True):
        name = getattr(check, "func", check).__name__
        if name in ALL_LABELED:
            estimator = TSGS3VMClassifier(unlabeled_label=None)
        yield pytest.param(estimator, check, id=name)


@pytest.mark.parametrize("estimator, check", list(_checks()))
def test_sklearn_check(estimator, check):
    check(estimator)
