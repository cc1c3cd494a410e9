"""scikit-learn's estimator checks (sklearn.utils.estimator_checks), every
one that check_estimator generates for the default estimator, with no
expected failure declared.

check_classifiers_classes trains on the labels -1 and 1: targets of two
values, one of them unlabeled_label (-1), are two classes (SVC's reading),
so it runs on the default estimator and must pass; -1 still marks
unlabeled rows beside two classes or more (sklearn.semi_supervised's
convention: test_classifier.py checks both readings).
"""
import warnings

import pytest
from sklearn.exceptions import SkipTestWarning
from sklearn.utils.estimator_checks import check_estimator

from tsgs3vm import TSGS3VMClassifier


def _name(check):
    return getattr(check, "func", check).__name__


def _checks():
    for estimator, check in check_estimator(TSGS3VMClassifier(),
                                            generate_only=True):
        yield pytest.param(estimator, check, id=_name(check))


def test_classes_check_is_generated():
    assert "check_classifiers_classes" in {
        _name(check) for _, check in check_estimator(TSGS3VMClassifier(),
                                                     generate_only=True)}


@pytest.mark.parametrize("estimator, check", list(_checks()))
def test_sklearn_check(estimator, check):
    check(estimator)


def test_plain_check_estimator_passes():
    """What a user runs first: it raises nothing and skips nothing."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_estimator(TSGS3VMClassifier())
    skipped = [str(w.message) for w in caught
               if issubclass(w.category, SkipTestWarning)]
    assert not skipped, skipped


def test_no_expected_failure_declared():
    for est in (TSGS3VMClassifier(), TSGS3VMClassifier(unlabeled_label=None)):
        assert not est._get_tags()["_xfail_checks"]
