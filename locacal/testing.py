"""Helpers for testing code that uses locacal's calibrators with scikit-learn's tools.

scikit-learn's estimator checks (:func:`sklearn.utils.estimator_checks.parametrize_with_checks`)
feed estimators generic data: several feature columns, values far outside [0, 1]. A
calibrator takes one column of scores in [0, 1] and refuses anything else on purpose (it is
the contract, and silently using the first column or clipping would hide a user's mistake).
:func:`expected_failed_checks` names the checks that fail only for that reason, with the
reason, so that a test suite can declare them::

    from sklearn.utils.estimator_checks import parametrize_with_checks
    from locacal.testing import expected_failed_checks

    @parametrize_with_checks([PlattCalibrator()],
                             expected_failed_checks=expected_failed_checks)
    def test_sklearn_compatible(estimator, check):
        check(estimator)

Every other check passes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["expected_failed_checks"]

_SEVERAL_COLUMNS = ("fits X with several feature columns; a calibrator takes one column of "
                    "scores (1-D or (n, 1)) and refuses more, by contract")
_OUT_OF_RANGE = ("fits X holding values outside [0, 1]; scores are probabilities and are "
                 "refused outside [0, 1], by contract")

#: Checks that only fail because of the input they generate.
_CONTRACT_FAILURES = {
    **dict.fromkeys([
        "check_all_zero_sample_weights_error",  # the zero-weight error comes after X's check
        "check_dict_unchanged",
        "check_dont_overwrite_parameters",
        "check_dtype_object",
        "check_estimators_dtypes",
        "check_estimators_fit_returns_self",
        "check_estimators_nan_inf",  # NaN is refused by name, but the finite X has 3 columns
        "check_estimators_overwrite_params",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_fit2d_predict1d",
        "check_fit_check_is_fitted",
        "check_fit_idempotent",
        "check_fit_score_takes_y",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_n_features_in",
        "check_n_features_in_after_fitting",
        "check_pipeline_consistency",
        "check_readonly_memmap_input",
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weights_list",
        "check_sample_weights_not_an_array",
        "check_sample_weights_not_overwritten",
        "check_sample_weights_pandas_series",
        "check_sample_weights_shape",
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_preserve_dtypes",
    ], _SEVERAL_COLUMNS),
    "check_fit2d_1feature": _OUT_OF_RANGE,
    "check_positive_only_tag_during_fit": _OUT_OF_RANGE,
}


def expected_failed_checks(estimator: Any) -> dict[str, str]:
    """scikit-learn estimator checks a locacal calibrator fails by contract, with the reason.

    Parameters
    ----------
    estimator : object
        Any estimator; only locacal's calibrators
        (:class:`locacal.curves._base.BaseCalibrator`) have expected failures.

    Returns
    -------
    dict
        ``{check name: reason}``, for ``parametrize_with_checks(expected_failed_checks=...)``.
    """
    from locacal.curves._base import BaseCalibrator

    return dict(_CONTRACT_FAILURES) if isinstance(estimator, BaseCalibrator) else {}
