/* Datasets: copies and accessors, CSR rows (tsgs_dataset_from_csr against
 * the reader's same rows, and its checks), appending unlabeled rows (with
 * zero padding either way), and stratified, seeded label subsampling. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

START_TEST(from_dense_copies_and_accessors)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    double y[3] = {1, TSGS_UNLABELED, 2};
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_from_dense(3, 2, x, y, &ds, &err), TSGS_OK);
    x[0] = 99; /* a copy, not a view */
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 3);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 1.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 2)[1], 6.0f);
    ck_assert_double_eq(tsgs_dataset_label(ds, 2), 2.0);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(ds, 1)));
    ck_assert(!tsgs_is_unlabeled(0.0));
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 2);
    double *classes = NULL;
    size_t k = 9;
    ck_assert_int_eq(tsgs_dataset_classes(ds, &classes, &k, &err), TSGS_OK);
    ck_assert_uint_eq(k, 2); /* ascending, the unlabeled row left out */
    ck_assert_double_eq(classes[0], 1.0);
    ck_assert_double_eq(classes[1], 2.0);
    free(classes);
    ck_assert_int_eq(tsgs_dataset_classes(ds, NULL, &k, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_null(tsgs_dataset_row(ds, 3));
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(ds, 3)));
    tsgs_dataset_free(ds);

    /* no labels at all */
    ck_assert_int_eq(tsgs_dataset_from_dense(3, 2, x, NULL, &ds, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 0);
    ck_assert_int_eq(tsgs_dataset_classes(ds, &classes, &k, &err), TSGS_OK);
    ck_assert_uint_eq(k, 0);
    free(classes);
    tsgs_dataset_free(ds);
    tsgs_dataset_free(NULL);

    /* an empty dataset is fine; a missing x for rows is not */
    ck_assert_int_eq(tsgs_dataset_from_dense(0, 4, NULL, NULL, &ds, &err),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 0);
    tsgs_dataset_free(ds);
    ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(2, 2, NULL, NULL, &ds, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_null(ds);
    ck_assert_int_eq(tsgs_dataset_from_dense(SIZE_MAX / 2, 4, x, NULL, &ds,
                                             &err),
                     TSGS_ERR_NOMEM);
    ck_assert_ptr_null(ds);
}
END_TEST

START_TEST(internal_new_is_empty)
{
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs__dataset_new(5, 10, &ds, NULL), TSGS_OK);
    ck_assert_uint_eq(ds->n, 0);
    ck_assert_uint_eq(ds->d, 5);
    ck_assert_uint_ge(ds->cap, 10);
    tsgs_dataset_free(ds);
}
END_TEST

static tsgs_dataset *make(size_t n, size_t d, float base, double label)
{
    float *x = malloc(sizeof(float) * (n && d ? n * d : 1));
    double *y = malloc(sizeof(double) * (n ? n : 1));
    for (size_t i = 0; i < n * d; i++)
        x[i] = base + (float)i;
    for (size_t i = 0; i < n; i++)
        y[i] = label;
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

START_TEST(append_pads_narrower_source)
{
    tsgs_dataset *a = make(2, 3, 0, 1.0), *b = make(2, 2, 100, 7.0);
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, b, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(a), 4);
    ck_assert_uint_eq(tsgs_dataset_features(a), 3);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(a), 2);
    ck_assert_double_eq(tsgs_dataset_label(a, 1), 1.0);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(a, 2)));
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(a, 3)));
    const float *r = tsgs_dataset_row(a, 3);
    ck_assert_float_eq(r[0], 102.0f);
    ck_assert_float_eq(r[1], 103.0f);
    ck_assert_float_eq(r[2], 0.0f);
    ck_assert_float_eq(tsgs_dataset_row(a, 1)[2], 5.0f);
    /* the source is untouched */
    ck_assert_uint_eq(tsgs_dataset_rows(b), 2);
    ck_assert_double_eq(tsgs_dataset_label(b, 0), 7.0);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
}
END_TEST

START_TEST(append_widens_destination)
{
    tsgs_dataset *a = make(2, 2, 0, -1.0), *b = make(1, 4, 50, 1.0);
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, b, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(a), 3);
    ck_assert_uint_eq(tsgs_dataset_features(a), 4);
    static const float want[3][4] = {{0, 1, 0, 0}, {2, 3, 0, 0},
                                     {50, 51, 52, 53}};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 4; k++)
            ck_assert_float_eq(tsgs_dataset_row(a, i)[k], want[i][k]);
    ck_assert_double_eq(tsgs_dataset_label(a, 0), -1.0);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(a, 2)));
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
}
END_TEST

START_TEST(append_to_itself_and_repeatedly)
{
    tsgs_dataset *a = make(3, 2, 0, 1.0);
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, a, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(a), 6);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(memcmp(tsgs_dataset_row(a, i),
                                tsgs_dataset_row(a, i + 3), 2 * sizeof(float)),
                         0);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(a), 3);
    tsgs_dataset *b = make(1, 2, 9, 1.0);
    for (int k = 0; k < 100; k++)
        ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, b, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(a), 106);
    ck_assert_float_eq(tsgs_dataset_row(a, 105)[1], 10.0f);
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, NULL, NULL),
                     TSGS_ERR_PARAM);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
}
END_TEST

/* n rows; labels by class sizes (label value = class index + 1, scaled
 * by `mult` to check labels stay raw), rows interleaved; some unlabeled. */
static tsgs_dataset *classes(const size_t *sizes, size_t k, size_t n_unl,
                             double mult)
{
    size_t n = n_unl;
    for (size_t c = 0; c < k; c++)
        n += sizes[c];
    float *x = malloc(sizeof(float) * n);
    double *y = malloc(sizeof(double) * n);
    size_t left[16];
    memcpy(left, sizes, sizeof(size_t) * k);
    size_t i = 0, c = 0;
    while (i < n) {
        x[i] = (float)i;
        if (i % 7 == 3 && n_unl) {
            y[i++] = TSGS_UNLABELED;
            n_unl--;
            continue;
        }
        for (size_t t = 0; t < k && left[c] == 0; t++)
            c = (c + 1) % k;
        if (left[c] == 0) { /* only unlabeled rows remain */
            y[i++] = TSGS_UNLABELED;
            continue;
        }
        left[c]--;
        y[i++] = (double)(c + 1) * mult;
        c = (c + 1) % k;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, 1, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

static size_t count_label(const tsgs_dataset *ds, double label)
{
    size_t c = 0;
    for (size_t i = 0; i < tsgs_dataset_rows(ds); i++)
        c += tsgs_dataset_label(ds, i) == label;
    return c;
}

START_TEST(keep_labels_stratified)
{
    size_t sizes[2] = {30, 70};
    tsgs_dataset *ds = classes(sizes, 2, 25, -1.5);
    tsgs_dataset *orig = classes(sizes, 2, 25, -1.5);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 100);
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 10, 42, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 10);
    ck_assert_uint_eq(count_label(ds, -1.5), 3);
    ck_assert_uint_eq(count_label(ds, -3.0), 7);
    /* kept rows keep their raw label; rows unlabeled before stay so */
    for (size_t i = 0; i < tsgs_dataset_rows(ds); i++) {
        double y = tsgs_dataset_label(ds, i), y0 = tsgs_dataset_label(orig, i);
        if (!tsgs_is_unlabeled(y))
            ck_assert_double_eq(y, y0);
        if (tsgs_is_unlabeled(y0))
            ck_assert(tsgs_is_unlabeled(y));
        ck_assert_float_eq(tsgs_dataset_row(ds, i)[0],
                           tsgs_dataset_row(orig, i)[0]);
    }
    tsgs_dataset_free(ds);
    tsgs_dataset_free(orig);
}
END_TEST

START_TEST(keep_labels_deterministic_by_seed)
{
    size_t sizes[2] = {400, 600};
    tsgs_dataset *a = classes(sizes, 2, 0, 1), *b = classes(sizes, 2, 0, 1),
                 *c = classes(sizes, 2, 0, 1);
    ck_assert_int_eq(tsgs_dataset_keep_labels(a, 50, 7, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_dataset_keep_labels(b, 50, 7, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_dataset_keep_labels(c, 50, 8, NULL), TSGS_OK);
    size_t same_ab = 0, same_ac = 0, first = 0;
    for (size_t i = 0; i < 1000; i++) {
        int ka = !tsgs_is_unlabeled(tsgs_dataset_label(a, i));
        int kb = !tsgs_is_unlabeled(tsgs_dataset_label(b, i));
        int kc = !tsgs_is_unlabeled(tsgs_dataset_label(c, i));
        same_ab += ka == kb;
        same_ac += ka && kc;
        first += ka && i < 100;
    }
    ck_assert_uint_eq(same_ab, 1000);  /* same seed, same rows */
    ck_assert_uint_lt(same_ac, 20);    /* another seed, other rows */
    ck_assert_uint_lt(first, 20);      /* spread, not the first rows */
    ck_assert_uint_eq(count_label(a, 1.0), 20);
    ck_assert_uint_eq(count_label(a, 2.0), 30);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
    tsgs_dataset_free(c);
}
END_TEST

/* Classes interleaved row by row, K of them, 3 rows each; keeping 2K
 * keeps 2 of every class, with few classes (grouped in one counting pass)
 * and with more than 64 (grouped by the sort): exact quotas either way. */
START_TEST(keep_labels_few_and_many_classes)
{
    const size_t ks[2] = {5, 70};
    for (int t = 0; t < 2; t++) {
        const size_t k = ks[t], n = 3 * k;
        float *x = calloc(n, sizeof(float));
        double *y = malloc(sizeof(double) * n);
        ck_assert(x && y);
        for (size_t i = 0; i < n; i++)
            y[i] = (double)(k - 1 - (i * 3) % k); /* every label 3 times */
        tsgs_dataset *ds = NULL;
        ck_assert_int_eq(tsgs_dataset_from_dense(n, 1, x, y, &ds, NULL),
                         TSGS_OK);
        ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 2 * k, 5, NULL),
                         TSGS_OK);
        ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 2 * k);
        for (size_t c = 0; c < k; c++)
            ck_assert_uint_eq(count_label(ds, (double)c), 2);
        tsgs_dataset_free(ds);
        free(x);
        free(y);
    }
}
END_TEST

START_TEST(keep_labels_at_least_one_per_class)
{
    /* 98 / 1 / 1: rounding gives 3 / 0 / 0; each class still gets one */
    size_t sizes[3] = {98, 1, 1};
    tsgs_dataset *ds = classes(sizes, 3, 0, 1);
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 3, 1, NULL), TSGS_OK);
    ck_assert_uint_eq(count_label(ds, 1.0), 1);
    ck_assert_uint_eq(count_label(ds, 2.0), 1);
    ck_assert_uint_eq(count_label(ds, 3.0), 1);
    tsgs_dataset_free(ds);
    /* fewer to keep than classes: the total is still exact */
    ds = classes(sizes, 3, 0, 1);
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 2, 1, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 2);
    tsgs_dataset_free(ds);
    /* totals are exact for every n_keep, with every class present */
    size_t sz[4] = {13, 29, 5, 53};
    for (size_t keep = 4; keep <= 100; keep++) {
        ds = classes(sz, 4, 0, 1);
        ck_assert_int_eq(tsgs_dataset_keep_labels(ds, keep, keep, NULL),
                         TSGS_OK);
        ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), keep);
        for (int c = 1; c <= 4; c++) {
            size_t got = count_label(ds, c);
            double ideal = (double)keep * (double)sz[c - 1] / 100.0;
            ck_assert_uint_ge(got, 1);
            ck_assert_double_le(fabs((double)got - ideal), 2.0);
        }
        tsgs_dataset_free(ds);
    }
    /* keeping all of them keeps all */
    ds = classes(sz, 4, 10, 1);
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 100, 3, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 100);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(keep_labels_rejects_bad_counts)
{
    size_t sizes[2] = {5, 5};
    tsgs_dataset *ds = classes(sizes, 2, 3, 1);
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 0, 1, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_dataset_keep_labels(ds, 11, 1, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "11"));
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 10); /* untouched */
    ck_assert_int_eq(tsgs_dataset_keep_labels(NULL, 1, 1, &err),
                     TSGS_ERR_PARAM);
    tsgs_dataset_free(ds);
}
END_TEST

/* Features past d_keep go (a test file with indices the model never saw):
 * the rows keep their first d_keep values; nonzeros dropped are counted. */
START_TEST(drop_features_keeps_prefix)
{
    const float x[] = {1, 2, 3, 0,  5, 6, 0, 0,  9, 10, 11, 12};
    const double y[] = {1, -1, 1};
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(3, 4, x, y, &ds, NULL), TSGS_OK);
    size_t dropped = 99;
    ck_assert_int_eq(tsgs_dataset_drop_features(ds, 2, &dropped, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_uint_eq(dropped, 3);
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 2; k++)
            ck_assert_float_eq(tsgs_dataset_row(ds, i)[k], x[i * 4 + k]);
    ck_assert_int_eq(tsgs_dataset_drop_features(ds, 5, &dropped, NULL), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_uint_eq(dropped, 0);
    ck_assert_int_eq(tsgs_dataset_drop_features(NULL, 1, NULL, NULL), TSGS_ERR_PARAM);
    tsgs_dataset_free(ds);
}
END_TEST

/* A wrapped dataset reads the caller's rows in place, copies the labels,
 * never frees or writes the rows, and copies them before a change. */
START_TEST(wrap_dense_borrows_rows)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    const float keep[6] = {1, 2, 3, 4, 5, 6};
    double y[3] = {1, TSGS_UNLABELED, 2};
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_wrap_dense(3, 2, x, y, &ds, &err), TSGS_OK);
    ck_assert_ptr_eq(tsgs_dataset_row(ds, 1), x + 2); /* no copy */
    y[0] = 7;                                          /* labels copied */
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 2);

    /* appending to itself copies first: x is untouched */
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(ds, ds, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 6);
    ck_assert_ptr_ne(tsgs_dataset_row(ds, 0), x);
    ck_assert_float_eq(tsgs_dataset_row(ds, 5)[1], 6.0f);
    ck_assert_mem_eq(x, keep, sizeof keep);
    tsgs_dataset_free(ds); /* x is on the stack: freeing it would crash */

    /* dropping features copies first too */
    ck_assert_int_eq(tsgs_dataset_wrap_dense(3, 2, x, NULL, &ds, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 0);
    size_t dropped = 0;
    ck_assert_int_eq(tsgs_dataset_drop_features(ds, 1, &dropped, &err),
                     TSGS_OK);
    ck_assert_uint_eq(dropped, 3);
    ck_assert_float_eq(tsgs_dataset_row(ds, 2)[0], 5.0f);
    ck_assert_mem_eq(x, keep, sizeof keep);
    tsgs_dataset_free(ds);

    /* appending a wider source to a wrapped one lays it out afresh */
    float wide[3] = {7, 8, 9};
    tsgs_dataset *src = NULL;
    ck_assert_int_eq(tsgs_dataset_wrap_dense(1, 3, wide, NULL, &src, &err),
                     TSGS_OK);
    ck_assert_int_eq(tsgs_dataset_wrap_dense(3, 2, x, y, &ds, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(ds, src, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 3);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[2], 0.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 3)[2], 9.0f);
    ck_assert_mem_eq(x, keep, sizeof keep);
    tsgs_dataset_free(ds);
    tsgs_dataset_free(src);

    ck_assert_int_eq(tsgs_dataset_wrap_dense(3, 2, NULL, y, &ds, &err),
                     TSGS_ERR_PARAM);
}
END_TEST

/* The labeled and unlabeled rows' lists against one loop written out:
 * several chunks of the team's split (65,536 rows) and a part one, a
 * chunk with no labels, one all labeled, 1-3 threads, either list left
 * out; and unlabeled rows found by their ordinals. */
START_TEST(label_split_matches_a_plain_loop)
{
    const size_t n = 3 * 65536 + 1234;
    double *y = malloc(sizeof(double) * n);
    size_t *want_l = malloc(sizeof(size_t) * n);
    size_t *want_u = malloc(sizeof(size_t) * n);
    size_t *l = malloc(sizeof(size_t) * n), *u = malloc(sizeof(size_t) * n);
    ck_assert(y && want_l && want_u && l && u);
    size_t nl = 0, nu = 0;
    for (size_t i = 0; i < n; i++) {
        const int chunk = (int)(i / 65536);
        const int labeled = chunk == 1   ? 0             /* none */
                            : chunk == 2 ? 1             /* all */
                                         : (i * 7919u) % 13u < 3u;
        y[i] = labeled ? (double)(i % 3) - 1.0 : NAN;
        if (labeled)
            want_l[nl++] = i;
        else
            want_u[nu++] = i;
    }
    for (int threads = 1; threads <= 3; threads++) {
        memset(l, 0xff, sizeof(size_t) * n);
        memset(u, 0xff, sizeof(size_t) * n);
        ck_assert_uint_eq(tsgs__label_split(y, n, threads, l, u), nl);
        ck_assert_mem_eq(l, want_l, sizeof(size_t) * nl);
        ck_assert_mem_eq(u, want_u, sizeof(size_t) * nu);
        ck_assert_uint_eq(tsgs__label_split(y, n, threads, NULL, NULL), nl);
        memset(u, 0xff, sizeof(size_t) * n);
        ck_assert_uint_eq(tsgs__label_split(y, n, threads, NULL, u), nl);
        ck_assert_mem_eq(u, want_u, sizeof(size_t) * nu);
        size_t few = 0; /* fewer rows than a chunk: one loop */
        while (few < nl && want_l[few] < 100)
            few++;
        memset(l, 0xff, sizeof(size_t) * n);
        ck_assert_uint_eq(tsgs__label_split(y, 100, threads, l, NULL), few);
        ck_assert_mem_eq(l, want_l, sizeof(size_t) * few);
    }
    /* unlabeled rows by their ordinals, from the labeled rows' list:
     * every 997th, the first and the last */
    size_t m = 0;
    for (size_t q = 0; q < nu; q += 997)
        u[m++] = q;
    if (u[m - 1] != nu - 1)
        u[m++] = nu - 1;
    for (size_t q = 0; q < m; q++)
        l[q] = u[q];
    tsgs__unlabeled_rows(want_l, nl, u, m);
    for (size_t q = 0; q < m; q++)
        ck_assert_uint_eq(u[q], want_u[l[q]]);
    ck_assert_uint_eq(l[m - 1], nu - 1);
    free(y); free(want_l); free(want_u); free(l); free(u);
}
END_TEST

/* ------------------------------------------------------ from CSR */

/* A LIBSVM text in a temporary file, read with labels -3 unlabeled. */
static tsgs_dataset *read_libsvm_text(const char *text)
{
    char path[] = "/tmp/check_dataset_csr_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_LIBSVM;
    o.has_unlabeled_label = 1;
    o.unlabeled_label = -3;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_dataset_read(path, &o, &ds, &err);
    remove(path);
    ck_assert_msg(st == TSGS_OK, "%s", err.message);
    return ds;
}

/* Two datasets hold the same rows, labels and storage. */
static void assert_same_dataset(const tsgs_dataset *a, const tsgs_dataset *b)
{
    ck_assert_uint_eq(tsgs_dataset_rows(a), tsgs_dataset_rows(b));
    ck_assert_uint_eq(tsgs_dataset_features(a), tsgs_dataset_features(b));
    ck_assert_int_eq(tsgs_dataset_is_sparse(a), tsgs_dataset_is_sparse(b));
    ck_assert_uint_eq(tsgs_dataset_nonzeros(a), tsgs_dataset_nonzeros(b));
    const size_t n = a->n, d = a->d;
    if (tsgs_dataset_is_sparse(a)) {
        ck_assert_mem_eq(a->ptr, b->ptr, sizeof(size_t) * (n + 1));
        ck_assert_mem_eq(a->col, b->col, sizeof(uint32_t) * a->ptr[n]);
        ck_assert_mem_eq(a->val, b->val, sizeof(float) * a->ptr[n]);
    } else {
        ck_assert_mem_eq(a->x, b->x, sizeof(float) * n * d);
    }
    for (size_t i = 0; i < n; i++) {
        const double ya = tsgs_dataset_label(a, i), yb = tsgs_dataset_label(b, i);
        ck_assert(isnan(ya) ? isnan(yb) : ya == yb);
    }
}

/* Narrow rows are stored dense, as the reader stores the same file:
 * an empty row, an explicit zero, a negative zero, an unlabeled row. */
START_TEST(from_csr_equals_the_libsvm_file_dense)
{
    static const char text[] = "1 1:0.5 3:-2.25\n"
                               "-3\n"
                               "2 2:1e3 3:0 4:.125\n"
                               "1 1:-0 4:7\n";
    const size_t indptr[] = {0, 2, 2, 5, 7};
    const uint32_t indices[] = {0, 2, 1, 2, 3, 0, 3};
    const float values[] = {0.5f, -2.25f, 1000.0f, 0.0f, 0.125f, -0.0f, 7.0f};
    const double y[] = {1, NAN, 2, 1};
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_from_csr(4, 4, 7, indptr, indices, values,
                                           y, &ds, &err),
                     TSGS_OK);
    tsgs_dataset *file = read_libsvm_text(text);
    ck_assert(!tsgs_dataset_is_sparse(ds));
    assert_same_dataset(ds, file);
    ck_assert(signbit(tsgs_dataset_row(ds, 3)[0]));
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 3);
    tsgs_dataset_free(file);
    tsgs_dataset_free(ds);

    /* no labels: every row unlabeled; no entries: NULL arrays will do */
    const size_t none[] = {0, 0, 0};
    ck_assert_int_eq(tsgs_dataset_from_csr(2, 3, 0, none, NULL, NULL, NULL,
                                           &ds, &err),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[2], 0.0f);
    tsgs_dataset_free(ds);
    ck_assert_int_eq(tsgs_dataset_from_csr(0, 3, 0, none, NULL, NULL, NULL,
                                           &ds, &err),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 0);
    tsgs_dataset_free(ds);
}
END_TEST

/* Wide rows of few non-zeros are stored sparse, as the reader stores the
 * same file: the same CSR arrays, and a copy (the caller's may go). */
START_TEST(from_csr_equals_the_libsvm_file_sparse)
{
    enum { N = 40, D = 5000, K = 3 };
    size_t indptr[N + 1];
    uint32_t *indices = malloc(sizeof(uint32_t) * N * K);
    float *values = malloc(sizeof(float) * N * K);
    double y[N];
    char *text = malloc(N * 80);
    ck_assert(indices && values && text);
    size_t w = 0, len = 0;
    indptr[0] = 0;
    for (size_t i = 0; i < N; i++) {
        y[i] = i % 4 == 3 ? NAN : (double)(i % 2) * 2 - 1;
        len += (size_t)sprintf(text + len, "%d", isnan(y[i]) ? -3 : (int)y[i]);
        const size_t k = i % 5 == 1 ? 0 : K; /* some empty rows */
        for (size_t j = 0; j < k; j++) {
            indices[w] = (uint32_t)((i * 131 + j * 1663) % (D / K) + j * (D / K));
            if (i == N - 1 && j == k - 1)
                indices[w] = D - 1; /* the file's width is its last index */
            values[w] = (float)((double)(i + 1) / (j + 3));
            len += (size_t)sprintf(text + len, " %u:%.9g", indices[w] + 1,
                                   values[w]);
            w++;
        }
        indptr[i + 1] = w;
        text[len++] = '\n';
    }
    text[len] = '\0';
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_from_csr(N, D, w, indptr, indices, values,
                                           y, &ds, &err),
                     TSGS_OK);
    memset(values, 0, sizeof(float) * w); /* copied, not borrowed */
    tsgs_dataset *file = read_libsvm_text(text);
    ck_assert(tsgs_dataset_is_sparse(ds));
    assert_same_dataset(ds, file);
    ck_assert_ptr_null(tsgs_dataset_row(ds, 0));
    tsgs_dataset_free(file);
    tsgs_dataset_free(ds);
    free(indices);
    free(values);
    free(text);
}
END_TEST

/* One refused CSR: the status, a message holding `what` and no dataset. */
static void refused(tsgs_status want, const char *what, size_t n, size_t d,
                    size_t nnz, const size_t *indptr, const uint32_t *indices,
                    const float *values, const double *y)
{
    tsgs_dataset *ds = (tsgs_dataset *)0x1;
    tsgs_error err;
    memset(&err, 0, sizeof err);
    tsgs_status st = tsgs_dataset_from_csr(n, d, nnz, indptr, indices, values,
                                           y, &ds, &err);
    ck_assert_msg(st == want, "%s: status %s (%s)", what,
                  tsgs_status_name(st), err.message);
    ck_assert_int_eq(err.code, want);
    ck_assert_msg(strstr(err.message, what), "want \"%s\" in \"%s\"", what,
                  err.message);
    ck_assert_ptr_eq(ds, (tsgs_dataset *)0x1);
    /* and without an error struct */
    ck_assert_int_eq(tsgs_dataset_from_csr(n, d, nnz, indptr, indices, values,
                                           y, &ds, NULL),
                     want);
}

START_TEST(from_csr_refuses_bad_input)
{
    const size_t ptr[] = {0, 2, 3};
    const uint32_t col[] = {0, 2, 1};
    const float val[] = {1, 2, 3};
    const double y[] = {1, 2};
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_from_csr(2, 3, 3, ptr, col, val, y, &ds,
                                           &err),
                     TSGS_OK); /* the valid one the others break */
    tsgs_dataset_free(ds);

    refused(TSGS_ERR_PARAM, "NULL argument", 2, 3, 3, NULL, col, val, y);
    refused(TSGS_ERR_PARAM, "NULL argument", 2, 3, 3, ptr, NULL, val, y);
    refused(TSGS_ERR_PARAM, "NULL argument", 2, 3, 3, ptr, col, NULL, y);
    ck_assert_int_eq(tsgs_dataset_from_csr(2, 3, 3, ptr, col, val, y, NULL,
                                           &err),
                     TSGS_ERR_PARAM);

    const size_t start1[] = {1, 2, 3};
    refused(TSGS_ERR_PARAM, "indptr[0] = 1", 2, 3, 3, start1, col, val, y);
    refused(TSGS_ERR_PARAM, "indptr[2] = 3: the last row ends at nnz = 2",
            2, 3, 2, ptr, col, val, y);
    const size_t down[] = {0, 2, 1, 3};
    refused(TSGS_ERR_PARAM, "row 1: indptr[2] = 1 is below indptr[1] = 2",
            3, 3, 3, down, col, val, NULL);
    const size_t past[] = {0, 5, 3};
    refused(TSGS_ERR_PARAM, "row 0: indptr[1] = 5 is above indptr[2] = 3",
            2, 3, 3, past, col, val, y);

    const uint32_t wide[] = {0, 3, 1};
    refused(TSGS_ERR_DIM, "row 0: indices[1] = 3 is not below d = 3", 2, 3,
            3, ptr, wide, val, y);
    const uint32_t negative[] = {0, 2, UINT32_MAX}; /* an int32 -1 */
    refused(TSGS_ERR_DIM, "row 1: indices[2] = 4294967295", 2, 3, 3, ptr,
            negative, val, y);
    const uint32_t unsorted[] = {2, 0, 1};
    refused(TSGS_ERR_PARAM, "row 0: indices[1] = 0 is not above the previous "
                            "index 2",
            2, 3, 3, ptr, unsorted, val, y);
    const uint32_t twice[] = {2, 2, 1};
    refused(TSGS_ERR_PARAM, "row 0: indices[1] = 2 is not above", 2, 3, 3,
            ptr, twice, val, y);

    const float nan_val[] = {1, 2, NAN};
    refused(TSGS_ERR_DATA, "row 1, column 1: values[2] is NaN or infinite",
            2, 3, 3, ptr, col, nan_val, y);
    const float inf_val[] = {1, -INFINITY, 3};
    refused(TSGS_ERR_DATA, "row 0, column 2: values[1] is NaN or infinite",
            2, 3, 3, ptr, col, inf_val, y);
    const double inf_y[] = {1, INFINITY};
    refused(TSGS_ERR_DATA, "row 1: y[1] is infinite", 2, 3, 3, ptr, col, val,
            inf_y);
    refused(TSGS_ERR_NOMEM, "too large", SIZE_MAX, 3, 3, ptr, col, val, y);
    refused(TSGS_ERR_NOMEM, "too large", 2, 3, SIZE_MAX, ptr, col, val, y);
}
END_TEST

Suite *dataset_suite(void)
{
    Suite *s = suite_create("dataset");
    TCase *tc = tcase_create("basics");
    tcase_add_test(tc, from_dense_copies_and_accessors);
    tcase_add_test(tc, internal_new_is_empty);
    tcase_add_test(tc, wrap_dense_borrows_rows);
    tcase_add_test(tc, label_split_matches_a_plain_loop);
    suite_add_tcase(s, tc);
    tc = tcase_create("from_csr");
    tcase_add_test(tc, from_csr_equals_the_libsvm_file_dense);
    tcase_add_test(tc, from_csr_equals_the_libsvm_file_sparse);
    tcase_add_test(tc, from_csr_refuses_bad_input);
    suite_add_tcase(s, tc);
    tc = tcase_create("append");
    tcase_add_test(tc, append_pads_narrower_source);
    tcase_add_test(tc, append_widens_destination);
    tcase_add_test(tc, append_to_itself_and_repeatedly);
    suite_add_tcase(s, tc);
    tc = tcase_create("keep_labels");
    tcase_add_test(tc, keep_labels_stratified);
    tcase_add_test(tc, keep_labels_deterministic_by_seed);
    tcase_add_test(tc, keep_labels_at_least_one_per_class);
    tcase_add_test(tc, keep_labels_few_and_many_classes);
    tcase_add_test(tc, keep_labels_rejects_bad_counts);
    tcase_add_test(tc, drop_features_keeps_prefix);
    suite_add_tcase(s, tc);
    return s;
}
