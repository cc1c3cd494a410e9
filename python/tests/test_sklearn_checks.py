"""scikit-learn's estimator checks (sklearn.utils.estimator_checks), every
one that check_estimator generates for the default estimator.

One runs with another setting, for a reason: check_classifiers_classes
trains on labels -1 and 1, and -1 marks unlabeled rows here as in
sklearn.semi_supervised. The estimator declares that (its _xfail_checks
tag, so that a user's plain check_estimator skips the check with the
reason instead of failing); here the check runs with unlabeled_label=None,
every row labeled, so -1 is an ordinary class, and must pass.
"""
import warnings

import pytest
from sklearn.exceptions import SkipTestWarning
from sklearn.utils.estimator_checks import check_estimator

from tsgs3vm import TSGS3VMClassifier

ALL_LABELED = {"check_classifiers_classes"}


def _name(check):
    return getattr(check, "func", check).__name__


def _checks():
    # the checks of the all-labeled estimator carry no skip: generate them
    # from it, so that check_classifiers_classes itself runs
    all_labeled = {_name(check): (estimator, check)
                   for estimator, check in check_estimator(
                       TSGS3VMClassifier(unlabeled_label=None),
                       generate_only=True)
                   if _name(check) in ALL_LABELED}
    assert set(all_labeled) == ALL_LABELED
    for estimator, check in check_estimator(TSGS3VMClassifier(),
                                            generate_only=True):
        name = _name(check)
        if name in ALL_LABELED:
            estimator, check = all_labeled[name]
        yield pytest.param(estimator, check, id=name)


@pytest.mark.parametrize("estimator, check", list(_checks()))
def test_sklearn_check(estimator, check):
    check(estimator)


def test_plain_check_estimator_passes():
    """What a user runs first: it raises nothing, and says why it skips
    check_classifiers_classes (a SkipTestWarning with the tag's reason)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_estimator(TSGS3VMClassifier())
    skipped = [str(w.message) for w in caught
               if issubclass(w.category, SkipTestWarning)]
    assert any("check_classifiers_classes" in m and "unlabeled_label" in m
               for m in skipped), skipped


def test_the_tag_names_only_that_check():
    tags = TSGS3VMClassifier()._get_tags()
    assert set(tags["_xfail_checks"]) == ALL_LABELED
    assert not TSGS3VMClassifier(unlabeled_label=None)._get_tags()[
        "_xfail_checks"]
