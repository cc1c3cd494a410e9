/* Scaling: z-score gives mean 0 / std 1 and min-max gives [-1, 1] per
 * column over every row (labeled or not); constant columns map to 0
 * without dividing by zero; narrower rows are padded before scaling. The
 * class kind stretches each z-scored column by sqrt(total / pooled
 * within-class variance) of the labeled rows, in [1, 4]. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* n x d seeded values with very different scales per column; half the
 * rows unlabeled; column `flat` constant. */
static tsgs_dataset *data(size_t n, size_t d, size_t flat)
{
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    uint64_t s = 99;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < d; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = (double)(s >> 11) / 9007199254740992.0;
            x[i * d + k] = k == flat ? 3.25f
                                     : (float)((u - 0.3) * pow(10.0, (double)k - 1) + 1000.0 * (double)k);
        }
        y[i] = i % 2 ? TSGS_UNLABELED : (i % 4 ? 1.0 : -1.0);
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

static void scaled_columns(const tsgs__scaler *sc, const tsgs_dataset *ds,
                           double *mean, double *sd, double *lo, double *hi)
{
    size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    float *out = malloc(sizeof(float) * d);
    for (size_t k = 0; k < d; k++) {
        mean[k] = sd[k] = 0;
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++) {
        tsgs__scaler_apply(sc, tsgs_dataset_row(ds, i), d, out);
        for (size_t k = 0; k < d; k++) {
            mean[k] += out[k];
            lo[k] = fmin(lo[k], out[k]);
            hi[k] = fmax(hi[k], out[k]);
        }
    }
    for (size_t k = 0; k < d; k++)
        mean[k] /= (double)n;
    for (size_t i = 0; i < n; i++) {
        tsgs__scaler_apply(sc, tsgs_dataset_row(ds, i), d, out);
        for (size_t k = 0; k < d; k++)
            sd[k] += (out[k] - mean[k]) * (out[k] - mean[k]);
    }
    for (size_t k = 0; k < d; k++)
        sd[k] = sqrt(sd[k] / (double)n);
    free(out);
}

START_TEST(zscore_mean_zero_std_one)
{
    const size_t d = 6, flat = 4;
    tsgs_dataset *ds = data(1001, d, flat);
    tsgs__scaler sc;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &sc, NULL), TSGS_OK);
    ck_assert_int_eq(sc.kind, TSGS_SCALE_ZSCORE);
    ck_assert_uint_eq(sc.d, d);
    double mean[6], sd[6], lo[6], hi[6];
    scaled_columns(&sc, ds, mean, sd, lo, hi);
    for (size_t k = 0; k < d; k++) {
        ck_assert(isfinite(sc.mul[k]));
        if (k == flat) {
            ck_assert_double_eq(sc.mul[k], 1.0);
            ck_assert_double_eq(lo[k], 0.0);
            ck_assert_double_eq(hi[k], 0.0);
            continue;
        }
        ck_assert_double_eq_tol(mean[k], 0.0, 1e-4);
        ck_assert_double_eq_tol(sd[k], 1.0, 1e-4);
    }
    tsgs__scaler_clear(&sc);
    tsgs__scaler_clear(&sc); /* twice is fine */
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(minmax_to_minus_one_one)
{
    const size_t d = 6, flat = 0;
    tsgs_dataset *ds = data(777, d, flat);
    tsgs__scaler sc;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_MINMAX, &sc, NULL), TSGS_OK);
    double mean[6], sd[6], lo[6], hi[6];
    scaled_columns(&sc, ds, mean, sd, lo, hi);
    ck_assert_double_eq(lo[flat], 0.0);
    ck_assert_double_eq(hi[flat], 0.0);
    for (size_t k = 1; k < d; k++) {
        ck_assert_double_eq_tol(lo[k], -1.0, 1e-5);
        ck_assert_double_eq_tol(hi[k], 1.0, 1e-5);
        ck_assert_double_ge(lo[k], -1.0 - 1e-6);
        ck_assert_double_le(hi[k], 1.0 + 1e-6);
    }
    tsgs__scaler_clear(&sc);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(fit_uses_unlabeled_rows_too)
{
    /* one labeled row at 0, three unlabeled at 4: mean 3, not 0 */
    float x[4] = {0, 4, 4, 4};
    double y[4] = {1, TSGS_UNLABELED, TSGS_UNLABELED, TSGS_UNLABELED};
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(4, 1, x, y, &ds, NULL), TSGS_OK);
    tsgs__scaler sc;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &sc, NULL), TSGS_OK);
    ck_assert_double_eq(sc.shift[0], 3.0);
    ck_assert_double_eq_tol(sc.mul[0], 1.0 / sqrt(3.0), 1e-15);
    tsgs__scaler_clear(&sc);
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_MINMAX, &sc, NULL), TSGS_OK);
    ck_assert_double_eq(sc.shift[0], 2.0);
    ck_assert_double_eq(sc.mul[0], 0.5);
    tsgs__scaler_clear(&sc);
    tsgs_dataset_free(ds);
}
END_TEST

/* The class kind's stretch, worked by hand. n_pos labeled rows of class 7
 * and 10 of class 0 repeat the pattern (7: 1, 5; 0: -5, -1) in column 0,
 * then 2 unlabeled rows (at 30 and -30) enter the z-score only. With 10
 * rows a class, column 0 has labeled variance 260 / 19 and pooled
 * within-class variance 80 / 18: stretch sqrt((260 / 19) / (80 / 18)).
 * Column 1 is the same within each class (w = 0): the cap 4. Column 2 is
 * the same on every labeled row (t = 0): 1. Column 3 varies more inside
 * the classes than across them (t < w): 1, never a shrink. With 9 rows
 * in a class, or one class, every stretch is 1: plain z-score. */
static tsgs_dataset *class_rows(int n_pos, int n_neg, int one_class)
{
    const int n = n_pos + n_neg + 2;
    float *x = malloc(sizeof(float) * (size_t)n * 4);
    double *y = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        float *r = x + i * 4;
        int pos = i < n_pos, j = pos ? i : i - n_pos;
        if (i >= n_pos + n_neg) { /* unlabeled */
            float v = i % 2 ? 30.0f : -30.0f;
            r[0] = v, r[1] = v / 10, r[2] = v / 15, r[3] = v / 6;
            y[i] = TSGS_UNLABELED;
            continue;
        }
        r[0] = pos ? (j % 2 ? 5.0f : 1.0f) : (j % 2 ? -1.0f : -5.0f);
        r[1] = pos ? 1.0f : 0.0f;
        r[2] = 7.0f;
        r[3] = j % 2 ? 1.0f : -1.0f;
        y[i] = pos || one_class ? 7.0 : 0.0;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense((size_t)n, 4, x, y, &ds, NULL),
                     TSGS_OK);
    free(x);
    free(y);
    return ds;
}

START_TEST(class_stretch_by_hand)
{
    const double want[4] = {sqrt((260.0 / 19.0) / (80.0 / 18.0)),
                            TSGS__CLASS_STRETCH_MAX, 1, 1};
    ck_assert_int_eq(TSGS__CLASS_MIN_ROWS, 10);
    for (int v = 0; v < 3; v++) {
        tsgs_dataset *ds = class_rows(v == 1 ? 9 : 10, 10, v == 2);
        tsgs__scaler z, c;
        ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &z, NULL),
                         TSGS_OK);
        ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_CLASS, &c, NULL),
                         TSGS_OK);
        ck_assert_int_eq(c.kind, TSGS_SCALE_CLASS);
        for (int k = 0; k < 4; k++) {
            ck_assert_double_eq(c.shift[k], z.shift[k]);
            ck_assert_double_eq_tol(c.mul[k] / z.mul[k], v ? 1.0 : want[k],
                                    1e-12);
        }
        tsgs__scaler_clear(&z);
        tsgs__scaler_clear(&c);
        tsgs_dataset_free(ds);
    }
}
END_TEST

/* What the class kind is for: two unit Gaussians with means +-m on axis 0
 * only (m = 1.645, Bayes error 5%). z-score divides axis 0 by its total
 * sd sqrt(1 + m^2) = 1.92 and so shrinks the classes' separation there;
 * the class kind, from 100 labeled of 2,000 rows, puts every axis at
 * about unit within-class sd, like the raw data, and is invariant to each
 * column's units. */
START_TEST(class_restores_separating_axis)
{
    const size_t n = 2000, d = 5, nl = 100;
    const double m = 1.645;
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    uint64_t s = 4242;
    for (size_t i = 0; i < n; i++) {
        double cls = i % 2 ? 1.0 : -1.0;
        for (size_t k = 0; k < d; k++) {
            double g = 0.0; /* Irwin-Hall: 12 uniforms - 6, about N(0, 1) */
            for (int j = 0; j < 12; j++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                g += (double)(s >> 11) / 9007199254740992.0;
            }
            x[i * d + k] = (float)((g - 6.0 + (k == 0 ? m * cls : 0.0)) *
                                   pow(10.0, (double)k)); /* any units */
        }
        y[i] = i < nl ? cls : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    tsgs__scaler z, c;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &z, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_CLASS, &c, NULL), TSGS_OK);
    for (size_t k = 0; k < d; k++) {
        /* unit sd of the raw within-class noise, 10^k */
        double zk = z.mul[k] * pow(10.0, (double)k);
        double ck = c.mul[k] * pow(10.0, (double)k);
        if (k == 0) {
            ck_assert_double_eq_tol(zk, 1.0 / sqrt(1.0 + m * m), 0.05);
            ck_assert_double_eq_tol(ck, 1.0, 0.15);
        } else {
            ck_assert_double_eq_tol(zk, 1.0, 0.05);
            ck_assert_double_ge(ck, zk);
            ck_assert_double_le(ck, 1.15);
        }
    }
    tsgs__scaler_clear(&z);
    tsgs__scaler_clear(&c);
    tsgs_dataset_free(ds);
    free(x);
    free(y);
}
END_TEST

START_TEST(constant_and_single_row_safe)
{
    float x[3] = {-7.5f, 0.0f, 1e30f};
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(1, 3, x, NULL, &ds, NULL), TSGS_OK);
    for (int kind = TSGS_SCALE_ZSCORE; kind <= TSGS_SCALE_CLASS; kind++) {
        tsgs__scaler sc;
        ck_assert_int_eq(tsgs__scaler_fit(ds, (tsgs_scaling)kind, &sc, NULL),
                         TSGS_OK);
        float out[3];
        tsgs__scaler_apply(&sc, x, 3, out);
        for (int k = 0; k < 3; k++) {
            ck_assert_double_eq(sc.mul[k], 1.0);
            ck_assert_float_eq(out[k], 0.0f);
        }
        tsgs__scaler_clear(&sc);
    }
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(apply_pads_and_none_copies)
{
    float x[4] = {1, 10, 3, 30};
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(2, 2, x, NULL, &ds, NULL), TSGS_OK);
    tsgs__scaler sc;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_MINMAX, &sc, NULL), TSGS_OK);
    /* shift (2, 20), mul (1, 0.1) */
    float row[1] = {3}, out[2];
    tsgs__scaler_apply(&sc, row, 1, out);
    ck_assert_float_eq(out[0], 1.0f);
    ck_assert_float_eq(out[1], -2.0f); /* the missing 0, scaled */
    tsgs__scaler_clear(&sc);

    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_NONE, &sc, NULL), TSGS_OK);
    ck_assert_uint_eq(sc.d, 2);
    tsgs__scaler_apply(&sc, row, 1, out);
    ck_assert_float_eq(out[0], 3.0f);
    ck_assert_float_eq(out[1], 0.0f);
    tsgs__scaler_apply(&sc, x + 2, 2, out);
    ck_assert_float_eq(out[0], 3.0f);
    ck_assert_float_eq(out[1], 30.0f);
    tsgs__scaler_clear(&sc);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(non_finite_rejected_output_untouched)
{
    float x[4] = {1, 2, NAN, 4};
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(2, 2, x, NULL, &ds, NULL), TSGS_OK);
    tsgs__scaler sc;
    memset(&sc, 0xab, sizeof sc);
    tsgs__scaler before = sc;
    tsgs_error err;
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &sc, &err),
                     TSGS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(err.message, "row 2, feature 1"));
    ck_assert_int_eq(memcmp(&sc, &before, sizeof sc), 0);
    tsgs_dataset_free(ds);
}
END_TEST

/* Over several of the fit's fixed row chunks (16,384 rows): the same bits
 * on 1, 2 and 3 threads, the mean and sd of every feature as a brute-force
 * long double sum gives them, and the first non-finite value in row order
 * named even when a later chunk also has one. */
START_TEST(fit_on_threads_same_bits_as_brute_force)
{
    const size_t n = 40000, d = 3;
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < d; k++) /* offsets: cancellation would show */
            x[i * d + k] = (float)(1000.0 * (double)k +
                                   (double)((i * 7919 + k * 104729) % 1000) /
                                       100.0);
        y[i] = i < 100 ? (i % 2 ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    tsgs__scaler one, two, three;
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 1, &one,
                                              NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 2, &two,
                                              NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 3,
                                              &three, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(one.shift, two.shift, sizeof(double) * d), 0);
    ck_assert_int_eq(memcmp(one.mul, two.mul, sizeof(double) * d), 0);
    ck_assert_int_eq(memcmp(one.shift, three.shift, sizeof(double) * d), 0);
    ck_assert_int_eq(memcmp(one.mul, three.mul, sizeof(double) * d), 0);
    for (size_t k = 0; k < d; k++) {
        long double s = 0.0L, q = 0.0L;
        for (size_t i = 0; i < n; i++)
            s += x[i * d + k];
        const long double mean = s / (long double)n;
        for (size_t i = 0; i < n; i++)
            q += ((long double)x[i * d + k] - mean) *
                 ((long double)x[i * d + k] - mean);
        const double sd = (double)sqrtl(q / (long double)n);
        ck_assert_double_eq_tol(one.shift[k], (double)mean,
                                1e-12 * fabs((double)mean) + 1e-12);
        ck_assert_double_eq_tol(1.0 / one.mul[k], sd, 1e-10 * sd);
    }
    tsgs__scaler_clear(&one);
    tsgs__scaler_clear(&two);
    tsgs__scaler_clear(&three);
    tsgs_dataset_free(ds);
    /* non-finite values in chunks 2 and 3: the first is named */
    x[30000 * d + 1] = NAN;
    x[20000 * d + 2] = INFINITY;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    tsgs_error err;
    memset(&one, 0, sizeof one);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 2, &one,
                                              &err), TSGS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(err.message, "row 20001, feature 3"));
    ck_assert_ptr_null(one.shift);
    tsgs_dataset_free(ds);
    free(x);
    free(y);
}
END_TEST

/* zero_cols (scale auto): a column zero on at least half the rows is
 * divided by its max |x| with shift 0, whatever the thread count; the
 * other columns keep their z-score bits; the class stretch multiplies on
 * top; minmax ignores the flag. Columns: 0 zero on exactly half the rows
 * (the threshold), 1 on one row fewer, 2 never, 3 on 90% with its largest
 * magnitude negative. 40,000 rows: three fit chunks. */
START_TEST(mostly_zero_columns_by_max_abs)
{
    const size_t n = 40000, d = 4;
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        const double u = (double)((i * 7919) % 1000) / 1000.0; /* [0, 1) */
        x[i * d + 0] = i % 2 ? (float)(8.0 * u - 5.0) : 0.0f;
        x[i * d + 1] = i % 2 || i == 0 ? (float)(2.0 + u) : 0.0f;
        x[i * d + 2] = (float)(10.0 + u);
        x[i * d + 3] = i % 10 ? 0.0f : (i % 20 ? 7.0f * (float)u : -9.0f);
        y[i] = i < 200 ? (x[i * d + 2] > 10.5f ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    tsgs__scaler z, zc[3], c, cc;
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 2, &z,
                                              NULL), TSGS_OK);
    for (int t = 0; t < 3; t++)
        ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 1,
                                                  t + 1, &zc[t], NULL),
                         TSGS_OK);
    for (int t = 1; t < 3; t++) {
        ck_assert_int_eq(memcmp(zc[0].shift, zc[t].shift, sizeof(double) * d), 0);
        ck_assert_int_eq(memcmp(zc[0].mul, zc[t].mul, sizeof(double) * d), 0);
    }
    double top0 = 0.0;
    for (size_t i = 0; i < n; i++)
        top0 = fmax(top0, fabs((double)x[i * d + 0]));
    ck_assert_double_eq(zc[0].shift[0], 0.0);
    ck_assert_double_eq(zc[0].mul[0], 1.0 / top0);
    ck_assert_double_eq(zc[0].shift[3], 0.0);
    ck_assert_double_eq(zc[0].mul[3], 1.0 / 9.0);
    for (size_t k = 1; k < 3; k++) { /* z-scored as without the flag */
        ck_assert_double_eq(zc[0].shift[k], z.shift[k]);
        ck_assert_double_eq(zc[0].mul[k], z.mul[k]);
    }
    ck_assert_double_ne(z.mul[0], zc[0].mul[0]); /* the flag did something */
    ck_assert_double_ne(z.shift[0], 0.0);
    /* zeros stay zero, the rest within [-1, 1] */
    float out[4];
    for (size_t i = 0; i < n; i++) {
        tsgs__scaler_apply(&zc[0], x + i * d, d, out);
        for (size_t k = 0; k < d; k += 3) {
            if (x[i * d + k] == 0.0f)
                ck_assert_float_eq(out[k], 0.0f);
            ck_assert(fabsf(out[k]) <= 1.0f);
        }
    }
    /* class: the same stretch as without the flag, on either base */
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_CLASS, 0, 1, &c,
                                              NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_CLASS, 1, 1, &cc,
                                              NULL), TSGS_OK);
    for (size_t k = 0; k < d; k++) {
        const double r = c.mul[k] / z.mul[k];
        ck_assert(r >= 1.0 && r <= TSGS__CLASS_STRETCH_MAX);
        ck_assert_double_eq_tol(cc.mul[k], zc[0].mul[k] * r, 1e-12 * cc.mul[k]);
        ck_assert_double_eq(cc.shift[k], zc[0].shift[k]);
    }
    ck_assert(c.mul[2] / z.mul[2] > 1.5); /* column 2 carries the labels */
    tsgs__scaler mm, mmz;
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_MINMAX, 0, 1, &mm,
                                              NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_MINMAX, 1, 1, &mmz,
                                              NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(mm.shift, mmz.shift, sizeof(double) * d), 0);
    ck_assert_int_eq(memcmp(mm.mul, mmz.mul, sizeof(double) * d), 0);
    tsgs__scaler_clear(&z);
    for (int t = 0; t < 3; t++)
        tsgs__scaler_clear(&zc[t]);
    tsgs__scaler_clear(&c);
    tsgs__scaler_clear(&cc);
    tsgs__scaler_clear(&mm);
    tsgs__scaler_clear(&mmz);
    tsgs_dataset_free(ds);
    free(x);
    free(y);
}
END_TEST

/* Training: scale auto (the default) passes the flag down, an explicit
 * --scale zscore does not; a one-vs-rest model's classes all get it. */
START_TEST(auto_scale_keeps_mostly_zero_columns_zero)
{
    const size_t n = 600, d = 3;
    for (int classes = 2; classes <= 3; classes++) {
        float *x = malloc(sizeof(float) * n * d);
        double *y = malloc(sizeof(double) * n);
        for (size_t i = 0; i < n; i++) {
            const double u = (double)((i * 7919) % 600) / 600.0;
            const int c = (int)(i % (size_t)classes);
            x[i * d + 0] = (float)(c + 0.3 * u);
            x[i * d + 1] = (float)(1.0 - u);
            x[i * d + 2] = i % 5 ? 0.0f : (float)(3.0 * u); /* 80% zeros */
            y[i] = i < 60 ? (double)c : TSGS_UNLABELED;
        }
        tsgs_dataset *ds = NULL;
        ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL),
                         TSGS_OK);
        tsgs_params p = tsgs_params_default();
        p.solver = TSGS_SOLVER_DSG;
        p.iterations = 20;
        p.sigma = 0.5;
        p.c = 10.0;
        p.threads = 1;
        tsgs_model *a = NULL, *z = NULL;
        ck_assert_int_eq(p.scale, TSGS_SCALE_AUTO);
        ck_assert_int_eq(tsgs_train(ds, &p, NULL, &a, NULL, NULL), TSGS_OK);
        p.scale = TSGS_SCALE_ZSCORE;
        ck_assert_int_eq(tsgs_train(ds, &p, NULL, &z, NULL, NULL), TSGS_OK);
        const size_t nm = classes == 2 ? 1 : (size_t)classes;
        for (size_t j = 0; j < nm; j++) {
            const tsgs_model *ma = classes == 2 ? a : a->ovr[j];
            const tsgs_model *mz = classes == 2 ? z : z->ovr[j];
            ck_assert_int_eq(ma->scaler.kind, TSGS_SCALE_ZSCORE);
            ck_assert_double_eq(ma->scaler.shift[2], 0.0);
            ck_assert_double_ne(mz->scaler.shift[2], 0.0);
            ck_assert_double_eq(ma->scaler.shift[0], mz->scaler.shift[0]);
            ck_assert_double_eq(ma->scaler.mul[1], mz->scaler.mul[1]);
        }
        tsgs_model_free(a);
        tsgs_model_free(z);
        tsgs_dataset_free(ds);
        free(x);
        free(y);
    }
}
END_TEST

Suite *scaler_suite(void)
{
    Suite *s = suite_create("scaler");
    TCase *tc = tcase_create("scaler");
    tcase_add_test(tc, zscore_mean_zero_std_one);
    tcase_add_test(tc, minmax_to_minus_one_one);
    tcase_add_test(tc, fit_uses_unlabeled_rows_too);
    tcase_add_test(tc, class_stretch_by_hand);
    tcase_add_test(tc, class_restores_separating_axis);
    tcase_add_test(tc, constant_and_single_row_safe);
    tcase_add_test(tc, apply_pads_and_none_copies);
    tcase_add_test(tc, non_finite_rejected_output_untouched);
    tcase_add_test(tc, fit_on_threads_same_bits_as_brute_force);
    tcase_add_test(tc, mostly_zero_columns_by_max_abs);
    tcase_add_test(tc, auto_scale_keeps_mostly_zero_columns_zero);
    suite_add_tcase(s, tc);
    return s;
}
