/* Model files: save -> load -> predict gives the same bits; truncated,
 * corrupt, foreign and wrong-version files are refused with a message
 * that names the file and line; a dataset of another width is refused. */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

static tsgs_model *trained(tsgs_feature_map map, tsgs_scaling scale, tsgs_dataset **ds_out)
{
    tsgs_dataset *ds = fixture_blobs(1500, 5, 2.0, 0.4, 30, 12, 9, NULL);
    tsgs_params p = tsgs_params_default();
    p.feature_map = map;
    p.scale = scale;
    p.max_features = 64;
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    *ds_out = ds;
    return m;
}

static char *slurp(const char *path, size_t *len)
{
    char *buf = test_read_file(path, len);
    ck_assert_ptr_nonnull(buf);
    return buf;
}

static void spit(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(buf, 1, len, f);
    fclose(f);
}

START_TEST(save_load_predict_identical)
{
    static const tsgs_feature_map maps[] = {TSGS_FEATURES_PAIR, TSGS_FEATURES_COS};
    static const tsgs_scaling scales[] = {TSGS_SCALE_ZSCORE, TSGS_SCALE_MINMAX, TSGS_SCALE_NONE};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            tsgs_dataset *ds;
            tsgs_model *m = trained(maps[i], scales[j], &ds), *back = NULL;
            tsgs_error err;
            ck_assert_int_eq(tsgs_model_save(m, "tmp_model.txt", &err), TSGS_OK);
            ck_assert_int_eq(tsgs_model_load("tmp_model.txt", &back, &err), TSGS_OK);
            /* the direction panel is made by the first dense predict, not
             * at load (sparse rows never read it) */
            ck_assert_int_eq(back->cache_enabled, 1);
            ck_assert_int_eq(back->cached_dirs, 0);
            size_t n = tsgs_dataset_rows(ds);
            double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
            ck_assert_int_eq(tsgs_predict(m, ds, 1, a, NULL), TSGS_OK);
            ck_assert_int_eq(tsgs_predict(back, ds, 2, b, NULL), TSGS_OK);
            ck_assert_int_eq(memcmp(a, b, sizeof(double) * n), 0);
            ck_assert_int_eq(back->cached_dirs, tsgs__model_dirs(back));
            ck_assert(tsgs_model_label(back, 1.0) == 1.0);
            ck_assert(tsgs_model_label(back, -1.0) == -1.0);
            ck_assert_int_eq(tsgs_model_feature_count(back), tsgs_model_feature_count(m));
            /* saving the loaded model gives the same file */
            ck_assert_int_eq(tsgs_model_save(back, "tmp_model2.txt", &err), TSGS_OK);
            size_t l1, l2;
            char *f1 = slurp("tmp_model.txt", &l1), *f2 = slurp("tmp_model2.txt", &l2);
            ck_assert_uint_eq(l1, l2);
            ck_assert_int_eq(memcmp(f1, f2, l1), 0);
            free(f1);
            free(f2);
            free(a);
            free(b);
            tsgs_model_free(m);
            tsgs_model_free(back);
            tsgs_dataset_free(ds);
        }
    remove("tmp_model.txt");
    remove("tmp_model2.txt");
}
END_TEST

/* Loads `text` and expects `code` with `needle` and "bad.model:" in the
 * message. */
static void expect_refused(const char *text, size_t len, tsgs_status code,
                           const char *needle)
{
    spit("bad.model", text, len);
    tsgs_model *m = (tsgs_model *)0x1;
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_load("bad.model", &m, &err), code);
    ck_assert_ptr_eq(m, (tsgs_model *)0x1); /* untouched on failure */
    ck_assert_msg(strstr(err.message, "bad.model:") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, needle) != NULL, "%s", err.message);
}

START_TEST(corrupt_files_refused)
{
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_PAIR, TSGS_SCALE_ZSCORE, &ds);
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    size_t len;
    char *good = slurp("good.model", &len);
    /* truncated anywhere: in the header, in the coefficients, no "end" */
    for (size_t cut = 1; cut < len; cut += len / 37 + 1) {
        spit("bad.model", good, cut);
        tsgs_model *x = NULL;
        tsgs_error err;
        ck_assert_int_eq(tsgs_model_load("bad.model", &x, &err), TSGS_ERR_FORMAT);
        ck_assert_ptr_null(x);
    }
    expect_refused(good, len - 4, TSGS_ERR_FORMAT, "truncated");
    /* another kind of file, another version */
    expect_refused("svm_type c_svc\nkernel_type rbf\n", 32, TSGS_ERR_FORMAT, "not a tsgs3vm model");
    expect_refused("", 0, TSGS_ERR_FORMAT, "not a tsgs3vm model");
    char *v2 = strdup(good);
    v2[strlen("tsgs3vm-model ")] = '7';
    expect_refused(v2, len, TSGS_ERR_FORMAT, "version 7; this build reads "
                                             "versions 1 to 2");
    v2[strlen("tsgs3vm-model ")] = '3';
    expect_refused(v2, len, TSGS_ERR_FORMAT, "version 3");
    v2[strlen("tsgs3vm-model ")] = '0';
    expect_refused(v2, len, TSGS_ERR_FORMAT, "version 0");
    free(v2);
    /* the version as the writer writes it: "01" is not "1" */
    char *v01 = malloc(len + 2);
    const size_t at = strlen("tsgs3vm-model ");
    memcpy(v01, good, at);
    v01[at] = '0';
    memcpy(v01 + at + 1, good + at, len - at);
    expect_refused(v01, len + 1, TSGS_ERR_FORMAT, "not a tsgs3vm model");
    free(v01);
    /* a corrupt number and a bad header value, with their line */
    char *bad = strdup(good);
    char *coef = strstr(bad, "coefficients ");
    char *nl = strchr(coef, '\n');
    nl[1] = 'x';
    expect_refused(bad, len, TSGS_ERR_FORMAT, "coefficient");
    free(bad);
    bad = strdup(good);
    char *k = strstr(bad, "\nkernel rbf");
    memcpy(k, "\nkernel zzz", 11);
    expect_refused(bad, len, TSGS_ERR_FORMAT, "kernel");
    free(bad);
    /* a second features-in after the scaler lines (heap overflow once) */
    bad = malloc(len + 64);
    char *mul = strstr(good, "scaler-mul");
    char *eol = strchr(mul, '\n') + 1;
    size_t head = (size_t)(eol - good);
    memcpy(bad, good, head);
    int extra = sprintf(bad + head, "features-in 4000\n");
    memcpy(bad + head + extra, eol, len - head);
    expect_refused(bad, len + (size_t)extra, TSGS_ERR_FORMAT, "features-in");
    free(bad);
    /* an absurd block count is refused before anything is allocated */
    bad = strdup(good);
    char *bl = strstr(bad, "\nblocks ");
    char *ble = strchr(bl + 1, '\n');
    char patched[4096];
    snprintf(patched, sizeof patched, "%.*s\nblocks 268435456%s",
             (int)(bl - bad), bad, ble);
    expect_refused(patched, strlen(patched), TSGS_ERR_FORMAT, "coefficients");
    free(bad);
    /* a wrong coefficient count */
    bad = strdup(good);
    coef = strstr(bad, "coefficients ");
    coef[13] = coef[13] == '9' ? '8' : coef[13] + 1;
    expect_refused(bad, len, TSGS_ERR_FORMAT, "coefficients");
    free(bad);
    tsgs_error err;
    tsgs_model *x = NULL;
    ck_assert_int_eq(tsgs_model_load("no/such/file", &x, &err), TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/file"));
    free(good);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("good.model");
    remove("bad.model");
}
END_TEST

/* good with its first `old` replaced by `new` (len bytes of it, NULs
 * allowed), into a fresh buffer; *out_len gets its length. */
static char *patch(const char *good, const char *old, const char *new,
                   size_t new_len, size_t *out_len)
{
    const char *at = strstr(good, old);
    ck_assert_ptr_nonnull(at);
    size_t head = (size_t)(at - good), tail = strlen(at + strlen(old));
    char *bad = malloc(head + new_len + tail + 1);
    memcpy(bad, good, head);
    memcpy(bad + head, new, new_len);
    memcpy(bad + head + new_len, at + strlen(old), tail + 1);
    *out_len = head + new_len + tail;
    return bad;
}

/* new_len 0: strlen(new). */
static void expect_patch_refused(const char *good, const char *old,
                                 const char *new, size_t new_len,
                                 const char *needle)
{
    if (new_len == 0)
        new_len = strlen(new);
    size_t len;
    char *bad = patch(good, old, new, new_len, &len);
    expect_refused(bad, len, TSGS_ERR_FORMAT, needle);
    free(bad);
}

/* What save never writes is refused, each with the line and what is
 * wrong: a first line that only starts like the format's, equal labels,
 * a key given twice, text after "end", a NUL byte; a directory is named
 * as such. Blank lines after "end" are harmless. */
START_TEST(strict_header_refused)
{
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_PAIR, TSGS_SCALE_ZSCORE, &ds);
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    size_t len;
    char *good = slurp("good.model", &len);
    expect_patch_refused(good, "tsgs3vm-model 2\n", "tsgs3vm-model1\n", 0,
                         "not a tsgs3vm model");
    expect_patch_refused(good, "tsgs3vm-model 2\n", "tsgs3vm-model 1.0\n", 0,
                         "not a tsgs3vm model");
    expect_patch_refused(good, "tsgs3vm-model 2\n", "tsgs3vm-model 1 x\n", 0,
                         "not a tsgs3vm model");
    expect_patch_refused(good, "\nlabels -1 1\n", "\nlabels 1 1\n", 0,
                         "labels must differ");
    expect_patch_refused(good, "\nseed ", "\nseed 5\nseed ", 0,
                         "seed given twice");
    expect_patch_refused(good, "\nbias ", "\nbias 0\nbias ", 0,
                         "bias given twice");
    expect_patch_refused(good, "\nend\n", "\nend\nmore\n", 0,
                         "after the \"end\"");
    expect_patch_refused(good, "\nseed ", "\nse\0ed ", 7, "NUL byte");

    size_t blen;
    char *blank = patch(good, "\nend\n", "\nend\n\n  \n", 9, &blen);
    spit("blank.model", blank, blen);
    tsgs_model *x = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("blank.model", &x, &err) == TSGS_OK, "%s",
                  err.message);
    tsgs_model_free(x);
    x = NULL;
    ck_assert_int_eq(tsgs_model_load(".", &x, &err), TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "is a directory"));
    ck_assert_ptr_null(x);
    free(blank);
    free(good);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("good.model");
    remove("bad.model");
    remove("blank.model");
}
END_TEST

/* The decision values of a prediction file written by the tool at b115dc7
 * ("label decision" per row) into v (n rows). */
static void read_decisions(const char *path, double *v, size_t n)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < n; i++) {
        double label;
        ck_assert_int_eq(fscanf(f, "%lf %lf", &label, &v[i]), 2);
    }
    fclose(f);
}

/* A model file of format 1 (written by the tool at b115dc7, before C was
 * per labeled row: its "c 3.2e+02" was C x n_l) loads with that value as
 * c-total and cost 0, predicts the decision values that tool wrote, bit
 * for bit, and saves as format 2 keeping c-total; that file reads back
 * the same. */
START_TEST(format_1_files_load)
{
    tsgs_model *m = NULL, *back = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("data/cli/v1_default.model", &m, &err) ==
                      TSGS_OK,
                  "%s", err.message);
    const tsgs_params *p = tsgs_model_params(m);
    ck_assert_double_eq(p->c, 0.0);
    ck_assert_double_eq(p->c_total, 320.0);
    ck_assert_int_eq(p->n_class_weights, 0);
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_read("data/cli/test.svm", NULL, &ds, &err),
                     TSGS_OK);
    const size_t n = tsgs_dataset_rows(ds);
    double *want = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
    read_decisions("data/cli/v1_default.pred", want, n);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, got, NULL), TSGS_OK);
    /* the same bits from gcc's build, which made the .pred file; clang
     * (the TSan build) contracts the kernel's float sums otherwise: the
     * 7th-9th digit */
#ifdef __clang__
    const double tol = 1e-6;
#else
    const double tol = 0.0;
#endif
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(fabs(got[i] - want[i]) <= tol * fabs(want[i]),
                      "row %zu: %.17g, format 1 tool %.17g", i + 1, got[i],
                      want[i]);
    ck_assert_int_eq(tsgs_model_save(m, "tmp_v2.model", &err), TSGS_OK);
    char *text = slurp("tmp_v2.model", NULL);
    ck_assert_int_eq(strncmp(text, "tsgs3vm-model 2\n", 16), 0);
    ck_assert_ptr_nonnull(strstr(text, "\ncost 0\nc-total 3.2e+02\n"
                                       "class-weight none\n"));
    free(text);
    ck_assert_int_eq(tsgs_model_load("tmp_v2.model", &back, &err), TSGS_OK);
    ck_assert_double_eq(tsgs_model_params(back)->c_total, 320.0);
    /* saved as format 2 and read back: this build's bits, as loaded */
    double *first = malloc(sizeof(double) * n);
    memcpy(first, got, sizeof(double) * n);
    ck_assert_int_eq(tsgs_predict(back, ds, 2, got, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(got, first, sizeof(double) * n), 0);
    free(first);
    /* a one-vs-rest file of format 1: every class's c */
    tsgs_model *ovr = NULL;
    ck_assert_int_eq(tsgs_model_load("data/cli/v1_ovr.model", &ovr, &err),
                     TSGS_OK);
    ck_assert_int_eq((int)tsgs_model_classes(ovr, NULL), 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq(ovr->ovr[k]->params.c_total, 50.0);
        ck_assert_double_eq(ovr->ovr[k]->params.c, 0.0);
    }
    free(want);
    free(got);
    tsgs_model_free(m);
    tsgs_model_free(back);
    tsgs_model_free(ovr);
    tsgs_dataset_free(ds);
    remove("tmp_v2.model");
}
END_TEST

/* A save killed midway leaves "<model>.tmp.<pid>.<n>"; the next save
 * beside it removes it when that process is gone, and leaves the
 * temporary file of a process still alive (a save in progress). */
START_TEST(stale_temporaries_removed)
{
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    ck_assert_int_gt(child, 0);
    waitpid(child, NULL, 0);
    char dead[64], alive[64];
    snprintf(dead, sizeof dead, "stale.model.tmp.%ld.3", (long)child);
    snprintf(alive, sizeof alive, "stale.model.tmp.%ld.9", (long)getpid());
    spit(dead, "half a model", 12);
    spit(alive, "a save in progress", 18);
    spit("stale.model.tmp.notapid", "someone else's", 14);
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_PAIR, TSGS_SCALE_ZSCORE, &ds);
    ck_assert_int_eq(tsgs_model_save(m, "stale.model", NULL), TSGS_OK);
    ck_assert_int_ne(access(dead, F_OK), 0);
    ck_assert_int_eq(access(alive, F_OK), 0);
    ck_assert_int_eq(access("stale.model.tmp.notapid", F_OK), 0);
    remove(alive);
    remove("stale.model.tmp.notapid");
    remove("stale.model");
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* Where a model could not be saved is said before any training: a folder
 * that does not exist, a path that is a directory; a new file in an
 * existing folder is fine. */
START_TEST(check_path_before_training)
{
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_check_path("fresh.model", &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_check_path("no/such/dir/m.model", &err),
                     TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/dir/m.model: the folder "
                                              "no/such/dir does not exist"));
    ck_assert_int_eq(tsgs_model_check_path(".", &err), TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    ck_assert_int_eq(access("fresh.model", F_OK), -1); /* nothing written */
}
END_TEST

START_TEST(save_failure_leaves_old_file)
{
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_COS, TSGS_SCALE_NONE, &ds);
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_save(m, "no/such/dir/model", &err), TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such/dir/model"));
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* good without the line that starts with `start` ("\nkey "). */
static char *drop_line(const char *good, const char *start, size_t *out_len)
{
    const char *at = strstr(good, start);
    ck_assert_ptr_nonnull(at);
    const char *eol = strchr(at + 1, '\n');
    ck_assert_ptr_nonnull(eol);
    size_t head = (size_t)(at - good), tail = strlen(eol);
    char *bad = malloc(head + tail + 1);
    memcpy(bad, good, head);
    memcpy(bad + head, eol, tail + 1);
    *out_len = head + tail;
    return bad;
}

/* Every header error the loader knows, each refused with the file, the
 * line and what is wrong (never a model that predicts nonsense). */
START_TEST(every_header_error_refused)
{
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_PAIR, TSGS_SCALE_ZSCORE, &ds);
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    size_t len;
    char *good = slurp("good.model", &len);
    static const struct {
        const char *old, *new, *says;
    } cases[] = {
        {"\nbias ", "\nnospace\nbias ", "\"nospace\" is not a \"key value\""},
        {"\ncoefficients ", "\ncoefficients x\ncoefficients ",
         "coefficients: \"x\" is not a count"},
        {"\nfeatures-in ", "\nfeatures-in -3\nfeatures-in ",
         "features-in: \"-3\" is not a count"},
        {"\nblocks ", "\nblocks 12x\nblocks ", "blocks: \"12x\" is not a count"},
        {"\nlazy-scale ", "\nlazy-scale abc\nlazy-scale ",
         "lazy-scale: value 1 of 1 is missing"},
        {"\nbias ", "\nbias 1 2\nbias ", "bias: unexpected text \"2\""},
        {"\nlabels ", "\nlabels -1\nlabels ", "labels: value 2 of 2"},
        {"\nlabels ", "\nlabels -1 inf\nlabels ", "not a finite number"},
        {"\nbias ", "\nprobability-ab 1 x\nbias ", "probability-ab: value 2"},
        {"\nscaler zscore", "\nscaler wild", "scaler: unknown kind \"wild\""},
        {"\nfeatures-in ", "\nscaler-mul 1\nfeatures-in ",
         "scaler-mul before features-in"},
        {"\nscaler-shift ", "\nscaler-shift 1 2\nscaler-shift ",
         "scaler-shift: 2 values, but features-in (line 43) is 5"},
        {"\ncoefficients ", "\nsupport-vectors 3\ncoefficients ",
         "support-vectors: the bs3vm solver's models (only)"},
        {"\nprobability 0\n", "\nprobability 1\n",
         "probability 1 but no \"probability-ab\" line"},
        {"\nbias ", "\nprobability-ab 1 2\nbias ",
         "probability 0 but a \"probability-ab\" line"},
        {"\nkernel rbf", "\nkernel rbf\nbogus-key 1", "bogus-key"},
        {"\nseed ", "\nseed -5\nseed ", "seed"},
        {"\nclass-weight none", "\nclass-weight 1:0",
         "class-weight = \"1:0\": entry 1: the weight must be a positive"},
        {"\nclass-weight none", "\nclass-weight 1:2,1:3",
         "the label is given twice"},
        {"\ncost ", "\nc 5\ncost ", "cost given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_patch_refused(good, cases[i].old, cases[i].new, 0,
                             cases[i].says);
    }
    /* a value the header check finds wrong, not the key parser */
    size_t blen;
    char *dropped = drop_line(good, "\nlazy-scale ", &blen);
    char *bad = patch(dropped, "\nbias ", "\nlazy-scale 0\nbias ",
                      strlen("\nlazy-scale 0\nbias "), &blen);
    expect_refused(bad, blen, TSGS_ERR_FORMAT, "lazy-scale must be positive");
    free(bad);
    free(dropped);
    dropped = drop_line(good, "\nsigma ", &blen);
    bad = patch(dropped, "\nbias ", "\nsigma 0\nbias ",
                strlen("\nsigma 0\nbias "), &blen);
    expect_refused(bad, blen, TSGS_ERR_FORMAT, "sigma must be positive");
    free(bad);
    free(dropped);
    /* each required key missing */
    static const char *const required[] = {"\nfeatures-in ", "\nblocks ",
                                           "\nlazy-scale ", "\nbias ",
                                           "\nlabels ", "\nscaler ",
                                           "\nscaler-mul "};
    for (int k = 0; k < 7; k++) {
        dropped = drop_line(good, required[k], &blen);
        expect_refused(dropped, blen, TSGS_ERR_FORMAT,
                       k == 0 ? "scaler-shift before features-in"
                              : "header: missing one of features-in");
        free(dropped);
    }
    free(good);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("good.model");
    remove("bad.model");
}
END_TEST

/* A small fast model: n rows of d features, tsg, given C and sigma. */
static tsgs_model *small_model(size_t d, tsgs_scaling scale,
                               tsgs_dataset **ds_out)
{
    tsgs_dataset *ds = fixture_blobs(200, d, 2.0, 0.5, 40, 20, 3, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.scale = scale;
    p.sigma = 0.5;
    p.c_total = 10;
    p.iterations = 40;
    p.max_features = 32;
    p.threads = 1;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    if (ds_out)
        *ds_out = ds;
    else
        tsgs_dataset_free(ds);
    return m;
}

/* A MAXABS scaler (the sparse rows' scaler, or asked for) is saved as its
 * "scaler-maxabs" line: the loaded model predicts the same bits and saves
 * the same file; each malformed "scaler-maxabs" line is refused with the
 * line and what is wrong. */
START_TEST(maxabs_model_round_trip)
{
    tsgs_dataset *ds;
    tsgs_model *m = small_model(5, TSGS_SCALE_MAXABS, &ds), *back = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_save(m, "maxabs.model", &err), TSGS_OK);
    size_t len;
    char *good = slurp("maxabs.model", &len);
    /* every column of the blobs has max |x| != 1: all five listed */
    ck_assert_msg(strstr(good, "\nscaler maxabs\nscaler-maxabs 5 1:"), "%s",
                  good);
    ck_assert_ptr_null(strstr(good, "scaler-shift"));
    ck_assert_msg(tsgs_model_load("maxabs.model", &back, &err) == TSGS_OK,
                  "%s", err.message);
    size_t n = tsgs_dataset_rows(ds);
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, a, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(back, ds, 1, b, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(a, b, sizeof(double) * n), 0);
    ck_assert_int_eq(tsgs_model_save(back, "maxabs2.model", &err), TSGS_OK);
    size_t len2;
    char *again = slurp("maxabs2.model", &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_int_eq(memcmp(good, again, len), 0);
    free(again);
    tsgs_model_free(back);

    /* the line replaced by each bad one */
    size_t blen;
    char *dropped = drop_line(good, "\nscaler-maxabs ", &blen);
    static const struct {
        const char *line, *says;
    } cases[] = {
        {"scaler-maxabs x", "scaler-maxabs: bad count"},
        {"scaler-maxabs 6", "scaler-maxabs: bad count"},
        {"scaler-maxabs 1 1;0.5", "entry 1: expected column:multiplier"},
        {"scaler-maxabs 1 0:0.5", "entry 1: expected column:multiplier"},
        {"scaler-maxabs 1 6:0.5", "entry 1: expected column:multiplier"},
        {"scaler-maxabs 2 2:0.5 2:0.5", "entry 2: expected column:multiplier, "
                                        "columns ascending"},
        {"scaler-maxabs 2 3:0.5 1:0.5", "entry 2: expected column:"},
        {"scaler-maxabs 1 1:0", "entry 1: bad multiplier"},
        {"scaler-maxabs 1 1:-2", "entry 1: bad multiplier"},
        {"scaler-maxabs 1 1:nan", "entry 1: bad multiplier"},
        {"scaler-maxabs 1 1:", "entry 1: bad multiplier"},
        {"scaler-maxabs 1 1:0.5 2:0.5", "more entries than 1"},
        {"scaler-maxabs 1 1:0.5x", "more entries than 1"},
        {"scaler-maxabs 3 1:0.5", "scaler-maxabs: count 3, but 1 entries "
                                  "on the line"},
        {"scaler-maxabs 1 1:1e101", "entry 1: bad multiplier (expected a "
                                    "number in (0, 1e+100])"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char repl[128];
        snprintf(repl, sizeof repl, "\nscaler maxabs\n%s", cases[i].line);
        char *bad = patch(dropped, "\nscaler maxabs", repl, strlen(repl),
                          &blen);
        expect_refused(bad, blen, TSGS_ERR_FORMAT, cases[i].says);
        free(bad);
    }
    /* no scaler-maxabs line at all, or one before features-in */
    expect_refused(dropped, strlen(dropped), TSGS_ERR_FORMAT,
                   "header: missing one of");
    char *early = patch(dropped, "\nseed ", "\nscaler-maxabs 0\nseed ",
                        strlen("\nscaler-maxabs 0\nseed "), &blen);
    expect_refused(early, blen, TSGS_ERR_FORMAT,
                   "scaler-maxabs before features-in");
    free(early);
    /* "0 columns" (every multiplier 1), trailing blanks: a model that
     * predicts the unscaled rows' values */
    char *none = patch(dropped, "\nscaler maxabs",
                       "\nscaler maxabs\nscaler-maxabs 0 \t",
                       strlen("\nscaler maxabs\nscaler-maxabs 0 \t"), &blen);
    spit("maxabs0.model", none, blen);
    ck_assert_msg(tsgs_model_load("maxabs0.model", &back, &err) == TSGS_OK,
                  "%s", err.message);
    ck_assert_int_eq(tsgs_predict(back, ds, 1, b, NULL), TSGS_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert(isfinite(b[i]));
    ck_assert_int_ne(memcmp(a, b, sizeof(double) * n), 0);
    tsgs_model_free(back);
    free(none);
    free(dropped);
    free(a);
    free(b);
    free(good);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("maxabs.model");
    remove("maxabs2.model");
    remove("maxabs0.model");
    remove("bad.model");
}
END_TEST

/* A one-vs-rest file put together by hand from binary models: what save
 * writes loads; another version, fewer than 3 classes, labels missing or
 * out of order, and a class model of another width are refused. */
START_TEST(ovr_header_errors_refused)
{
    tsgs_model *m5 = small_model(5, TSGS_SCALE_ZSCORE, NULL);
    tsgs_model *m4 = small_model(4, TSGS_SCALE_ZSCORE, NULL);
    ck_assert_int_eq(tsgs_model_save(m5, "b5.model", NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(m4, "b4.model", NULL), TSGS_OK);
    size_t l5, l4;
    char *t5 = slurp("b5.model", &l5), *t4 = slurp("b4.model", &l4);
    char *buf = malloc(256 + 3 * (l5 + l4));
    static const struct {
        const char *head;
        int narrow; /* the second class's model has 4 features */
        const char *says;
    } cases[] = {
        {"tsgs3vm-ovr 1\nclasses 3\nlabels 1 2 3\n", 0, NULL},
        {"tsgs3vm-ovr 2\nclasses 3\nlabels 1 2 3\n", 0,
         "one-vs-rest model format \"tsgs3vm-ovr 2\""},
        {"tsgs3vm-ovr 1x\nclasses 3\nlabels 1 2 3\n", 0,
         "one-vs-rest model format"},
        {"tsgs3vm-ovr 1\nclasses 2\nlabels 1 2\n", 0,
         "classes: expected \"classes K\" with K >= 3"},
        {"tsgs3vm-ovr 1\nkinds 3\nlabels 1 2 3\n", 0,
         "classes: expected \"classes K\""},
        {"tsgs3vm-ovr 1\nclasses 3\nlabel 1 2 3\n", 0,
         "labels: expected the 3 class labels"},
        {"tsgs3vm-ovr 1\nclasses 3\nlabels 1 2\n", 0, "labels: value 3 of 3"},
        {"tsgs3vm-ovr 1\nclasses 3\nlabels 1 3 2\n", 0,
         "labels: the class labels must be distinct and ascending"},
        {"tsgs3vm-ovr 1\nclasses 3\nlabels 1 1 2\n", 0,
         "distinct and ascending"},
        {"tsgs3vm-ovr 1\nclasses 3\nlabels 1 2 3\n", 1,
         "class 2's model has 4 features-in, class 1's 5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].head);
        memcpy(buf, cases[i].head, len);
        for (int c = 0; c < 3; c++) {
            const char *t = c == 1 && cases[i].narrow ? t4 : t5;
            size_t l = c == 1 && cases[i].narrow ? l4 : l5;
            memcpy(buf + len, t, l);
            len += l;
        }
        if (!cases[i].says) {
            spit("ovr.model", buf, len);
            tsgs_model *m = NULL;
            tsgs_error err;
            ck_assert_msg(tsgs_model_load("ovr.model", &m, &err) == TSGS_OK,
                          "%s", err.message);
            ck_assert_uint_eq(tsgs_model_classes(m, NULL), 3);
            ck_assert_uint_eq(tsgs_model_features_in(m), 5);
            /* three binary models' features */
            ck_assert_int_eq(tsgs_model_feature_count(m),
                             3 * tsgs_model_feature_count(m5));
            tsgs_model_free(m);
        } else {
            expect_refused(buf, len, TSGS_ERR_FORMAT, cases[i].says);
        }
    }
    free(buf);
    free(t5);
    free(t4);
    tsgs_model_free(m5);
    tsgs_model_free(m4);
    remove("b5.model");
    remove("b4.model");
    remove("ovr.model");
    remove("bad.model");
}
END_TEST

/* NULL where an object is needed: TSGS_ERR_PARAM naming the call, and no
 * output written. */
START_TEST(null_arguments_refused)
{
    tsgs_dataset *ds;
    tsgs_model *m = small_model(3, TSGS_SCALE_ZSCORE, &ds);
    tsgs_error err;
    double out[400];
    tsgs_model *back = (tsgs_model *)0x1;
    ck_assert_int_eq(tsgs_model_save(NULL, "x.model", &err), TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_model_save: NULL argument");
    ck_assert_int_eq(tsgs_model_save(m, NULL, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_model_check_path(NULL, &err), TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_model_check_path: NULL argument");
    ck_assert_int_eq(tsgs_model_load(NULL, &back, &err), TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_model_load: NULL argument");
    ck_assert_ptr_eq(back, (tsgs_model *)0x1);
    ck_assert_int_eq(tsgs_model_load("x.model", NULL, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_predict(NULL, ds, 1, out, &err), TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_predict: NULL argument");
    ck_assert_int_eq(tsgs_predict(m, NULL, 1, out, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, NULL, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_predict_scores(NULL, ds, 1, out, &err),
                     TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_predict_scores: NULL argument");
    ck_assert_int_eq(tsgs_predict_proba(m, ds, 1, NULL, &err),
                     TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_predict_proba: NULL argument");
    ck_assert_int_eq(access("x.model", F_OK), -1);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* Bytes the main heap holds now (glibc; 0 under a sanitizer's allocator,
 * which finds leaks by itself). */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks;
}

/* Heap growth over `rounds` loads and frees of path (which must load). */
static size_t load_growth(const char *path, int rounds)
{
    tsgs_model *m = NULL;
    tsgs_error err;
    size_t before = heap_in_use();
    for (int i = 0; i < rounds; i++) {
        ck_assert_msg(tsgs_model_load(path, &m, &err) == TSGS_OK, "%s: %s",
                      path, err.message);
        tsgs_model_free(m);
    }
    size_t after = heap_in_use();
    return after > before ? after - before : 0;
}

/* Loading and freeing a model gives back everything the loader took, also
 * for a header with scaler lines another scaler kind does not use (a
 * scaler-maxabs line beside "scaler zscore" leaked its columns once). */
START_TEST(load_frees_what_it_parsed)
{
    tsgs_model *m = small_model(3, TSGS_SCALE_ZSCORE, NULL);
    ck_assert_int_eq(tsgs_model_save(m, "heap.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    m = small_model(3, TSGS_SCALE_MAXABS, NULL);
    ck_assert_int_eq(tsgs_model_save(m, "heapmax.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t len, blen;
    char *good = slurp("heap.model", &len);
    char *extra = patch(good, "\nscaler zscore\n",
                        "\nscaler zscore\nscaler-maxabs 2 1:2 3:0.5\n",
                        strlen("\nscaler zscore\nscaler-maxabs 2 1:2 3:0.5\n"),
                        &blen);
    spit("heapx.model", extra, blen);
    char *gmax = slurp("heapmax.model", &len);
    char *extra2 = patch(gmax, "\nscaler maxabs\n",
                         "\nscaler maxabs\nscaler-shift 1 2 3\n"
                         "scaler-mul 1 2 3\n",
                         strlen("\nscaler maxabs\nscaler-shift 1 2 3\n"
                                "scaler-mul 1 2 3\n"),
                         &blen);
    spit("heapx2.model", extra2, blen);
    /* A leak costs every load a block; whatever a first call sets up once
     * (and allocator noise) does not recur: the least growth of three
     * rounds of 50 loads, after a first round, is below one block. */
    static const char *const files[] = {"heap.model", "heapmax.model",
                                        "heapx.model", "heapx2.model"};
    for (int i = 0; i < 4; i++) {
        size_t least = SIZE_MAX;
        for (int round = 0; round < 4; round++) {
            size_t grew = load_growth(files[i], 50);
            if (round > 0 && grew < least)
                least = grew;
        }
        ck_assert_msg(least < 16, "%s: the heap grew by %zu bytes over 50 "
                                  "loads",
                      files[i], least);
        remove(files[i]);
    }
    free(good);
    free(gmax);
    free(extra);
    free(extra2);
}
END_TEST

/* ------------------------------------------------- counts and values */

/* The line of text that the first `key` ("\nkey ") starts. */
static long line_of(const char *text, const char *key)
{
    const char *at = strstr(text, key);
    ck_assert_ptr_nonnull(at);
    long line = 2; /* key's own newline ends the line before it */
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    return line;
}

/* good with the line that `key` ("\nkey ") starts replaced by `line`;
 * malloc'd, *len set. */
static char *set_line(const char *good, const char *key, const char *line,
                      size_t *len)
{
    const char *at = strstr(good, key);
    ck_assert_ptr_nonnull(at);
    const char *eol = strchr(at + 1, '\n');
    ck_assert_ptr_nonnull(eol);
    size_t head = (size_t)(at - good) + 1, n = strlen(line),
           tail = strlen(eol);
    char *out = malloc(head + n + tail + 1);
    memcpy(out, good, head);
    memcpy(out + head, line, n);
    memcpy(out + head + n, eol, tail + 1);
    *len = head + n + tail;
    return out;
}

/* Loads text as "bad.model" (max_bytes 0: tsgs_model_load, else the
 * internal loader with that memory limit) and expects a bad model file
 * refused on `line`: the message starts "bad.model:LINE: " and holds
 * needle. */
static void expect_refused_on(const char *text, size_t len, double max_bytes,
                              long line, const char *needle)
{
    spit("bad.model", text, len);
    tsgs_model *m = (tsgs_model *)0x1;
    tsgs_error err;
    tsgs_status st = max_bytes > 0
                         ? tsgs__model_load_within("bad.model", max_bytes, &m,
                                                   &err)
                         : tsgs_model_load("bad.model", &m, &err);
    ck_assert_msg(st == TSGS_ERR_FORMAT, "status %d: %s", st, err.message);
    ck_assert_ptr_eq(m, (tsgs_model *)0x1);
    char at[64];
    snprintf(at, sizeof at, "bad.model:%ld: ", line);
    ck_assert_int_eq(err.line, line);
    ck_assert_msg(strncmp(err.message, at, strlen(at)) == 0 &&
                      strstr(err.message, needle),
                  "expected \"%s...%s\": %s", at, needle, err.message);
}

/* The memory a loaded model's counts commit the process to, as the
 * loader reckons it: dense scaler, then coefficients and directions. */
static double reckoned_bytes(const tsgs_model *m, size_t d)
{
    double scaler = m->scaler.shift ? 2.0 * (double)d * sizeof(double) : 0.0;
    return scaler + tsgs__model_bytes(&m->params, d, m->nblocks);
}

/* Declared counts are checked before they size anything: features-in
 * against the memory an orthogonal model of that width needs (exactly
 * the estimate: a limit of it loads, a byte less is refused), blocks and
 * coefficients against the bytes left in the file, each refused on its
 * own line, naming its field. */
START_TEST(huge_counts_refused_on_their_line)
{
    tsgs_model *m = small_model(5, TSGS_SCALE_NONE, NULL), *back = NULL;
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t len, blen;
    char *good = slurp("good.model", &len);
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_load("good.model", &back, &err), TSGS_OK);
    ck_assert_int_eq(back->fs.orthogonal, 1);
    const long fin = line_of(good, "\nfeatures-in ");
    const long coef = line_of(good, "\ncoefficients ");
    /* 2^30 features: one orthogonal group alone is 128 x 2^30 doubles */
    char *bad = set_line(good, "\nfeatures-in ", "features-in 1073741824",
                         &blen);
    expect_refused_on(bad, blen, 0, fin,
                      "features-in: 1073741824 features-in x 32 random "
                      "features (4 blocks, orthogonal directions");
    expect_refused_on(bad, blen, 0, fin, "MiB this process may hold (");
    free(bad);
    /* a width that fits: the limit is the estimate, to the byte */
    bad = set_line(good, "\nfeatures-in ", "features-in 2000", &blen);
    spit("wide.model", bad, blen);
    const double need = reckoned_bytes(back, 2000);
    tsgs_model *wide = NULL;
    ck_assert_msg(tsgs__model_load_within("wide.model", need, &wide, &err) ==
                      TSGS_OK,
                  "%s", err.message);
    ck_assert_uint_eq(tsgs_model_features_in(wide), 2000);
    tsgs_model_free(wide);
    expect_refused_on(bad, blen, need - 1.0, fin,
                      "features-in: 2000 features-in x 32 random features");
    expect_refused_on(bad, blen, need - 1.0, fin,
                      "MiB this process may hold (the caller's limit)");
    free(bad);
    /* 10^8 blocks: their coefficients cannot be in a file this size */
    char *blocks = set_line(good, "\nblocks ", "blocks 100000000", &blen);
    char count[64];
    snprintf(count, sizeof count, "coefficients %ld",
             100000000L * back->fs.dirs);
    bad = set_line(blocks, "\ncoefficients ", count, &blen);
    char says[96];
    snprintf(says, sizeof says, "coefficients: %ld announced, but the ",
             100000000L * back->fs.dirs);
    expect_refused_on(bad, blen, 0, coef, says);
    expect_refused_on(bad, blen, 0, coef,
                      "(a line of 2 values takes 4 bytes at least)");
    free(bad);
    /* blocks alone: no longer what the coefficients line announces */
    expect_refused_on(blocks, strlen(blocks), 0, coef,
                      "blocks of 4 directions need 400000000");
    free(blocks);
    free(good);
    tsgs_model_free(back);
    remove("good.model");
    remove("wide.model");
    remove("bad.model");
}
END_TEST

/* A small bs3vm model's text (support vectors over 3 features). */
static char *bs3vm_text(size_t *len)
{
    tsgs_dataset *ds = fixture_blobs(200, 3, 2.0, 0.5, 20, 10, 8, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_BS3VM;
    p.c_total = 100.0;
    p.budget_labeled = 8;
    p.budget_unlabeled = 8;
    p.iterations = 200;
    p.threads = 1;
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(m, "sv.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    char *text = slurp("sv.model", len);
    remove("sv.model");
    return text;
}

/* bs3vm models: a support-vector count the file cannot hold, blocks
 * beside support vectors, support vectors beyond the memory limit and an
 * absurd weight are refused on their line; the model itself loads. */
START_TEST(bs3vm_counts_refused_on_their_line)
{
    size_t len, blen;
    char *good = bs3vm_text(&len);
    spit("sv.model", good, len);
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("sv.model", &m, &err) == TSGS_OK, "%s",
                  err.message);
    const long nsv = tsgs_model_feature_count(m);
    ck_assert_int_gt(nsv, 0);
    tsgs_model_free(m);
    const long svl = line_of(good, "\nsupport-vectors ");
    char *bad = set_line(good, "\nsupport-vectors ",
                         "support-vectors 1000000", &blen);
    expect_refused_on(bad, blen, 0, svl,
                      "support-vectors: 1000000 announced, but the ");
    expect_refused_on(bad, blen, 0, svl,
                      "(a line of 4 values takes 8 bytes at least)");
    free(bad);
    bad = set_line(good, "\nblocks ", "blocks 3", &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nblocks "),
                      "blocks: 3, but a bs3vm model has support vectors");
    free(bad);
    char says[96];
    snprintf(says, sizeof says, "support-vectors: %ld support vectors of 3 "
                                "features need about",
             nsv);
    expect_refused_on(good, len, 100.0, svl, says);
    /* the first support vector's weight */
    const char *first = strchr(strstr(good, "\nsupport-vectors ") + 1, '\n');
    const char *after = strchr(first + 1, ' ');
    size_t head = (size_t)(first + 1 - good);
    bad = malloc(len + 16);
    memcpy(bad, good, head);
    blen = head + (size_t)sprintf(bad + head, "-1e101");
    memcpy(bad + blen, after, len - (size_t)(after - good) + 1);
    blen += len - (size_t)(after - good);
    expect_refused_on(bad, blen, 0, svl + 1,
                      "support vector: its weight -1e+101 is beyond +-1e+100");
    free(bad);
    free(good);
    remove("sv.model");
    remove("bad.model");
}
END_TEST

/* Values no trained model has are refused on their line: coefficients,
 * bias, lazy-scale, scaler values, Platt parameters beyond +-1e100, a
 * sigma that is not positive (on sigma's line, not the header's end).
 * +-1e100 itself loads and predicts finite values. */
START_TEST(absurd_values_refused_on_their_line)
{
    tsgs_dataset *ds;
    tsgs_model *m = small_model(5, TSGS_SCALE_ZSCORE, &ds);
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t len, blen;
    char *good = slurp("good.model", &len);
    /* the first coefficient line (PAIR: two values) */
    const long c1 = line_of(good, "\ncoefficients ") + 1;
    const char *cl = strchr(strstr(good, "\ncoefficients ") + 1, '\n');
    char key[64];
    snprintf(key, sizeof key, "\n%.*s", (int)strcspn(cl + 1, " "), cl + 1);
    static const struct {
        const char *line, *says;
    } coefs[] = {
        {"1e308 0", "coefficient: value 1 of 2, 1e+308, is beyond +-"},
        {"0 -1e103", "coefficient: value 2 of 2, -1e+103, is beyond"},
        {"inf 0", "coefficient: value 1 of 2 is missing or not a finite"},
    };
    for (size_t i = 0; i < sizeof coefs / sizeof coefs[0]; i++) {
        char *bad = set_line(good, key, coefs[i].line, &blen);
        expect_refused_on(bad, blen, 0, c1, coefs[i].says);
        free(bad);
    }
    static const struct {
        const char *key, *line, *says;
    } header[] = {
        {"\nbias ", "bias 1e200", "bias: value 1 of 1, 1e+200, is beyond"},
        {"\nlazy-scale ", "lazy-scale 1e101", "lazy-scale: value 1 of 1"},
        {"\nlazy-scale ", "lazy-scale 0", "lazy-scale must be positive"},
        {"\nlazy-scale ", "lazy-scale -2", "lazy-scale must be positive"},
        {"\nscaler-mul ", "scaler-mul 1 1 -1e101 1 1",
         "scaler-mul: value 3 of 5, -1e+101, is beyond"},
        {"\nscaler-shift ", "scaler-shift 1e300 0 0 0 0",
         "scaler-shift: value 1 of 5"},
        {"\nsigma ", "sigma 0", "sigma: 0: sigma must be positive"},
        {"\nsigma ", "sigma 1e101", "sigma must be positive (and at most"},
        {"\nsigma ", "sigma -1", "sigma"},
        {"\nsigma ", "sigma nan", "not a finite number"},
    };
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) {
        char *bad = set_line(good, header[i].key, header[i].line, &blen);
        expect_refused_on(bad, blen, 0, line_of(good, header[i].key),
                          header[i].says);
        free(bad);
    }
    /* the case: sigma 0 named on line 4, where sigma is */
    ck_assert_int_eq(line_of(good, "\nsigma "), 4);
    /* Platt parameters, and gamma: sigma's other name, given twice */
    char *bad = patch(good, "\nbias ", "\nprobability-ab 1e101 0\nbias ",
                      strlen("\nprobability-ab 1e101 0\nbias "), &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nbias "),
                      "probability-ab: value 1 of 2, 1e+101, is beyond");
    free(bad);
    bad = patch(good, "\nbias ", "\ngamma 0.5\nbias ",
                strlen("\ngamma 0.5\nbias "), &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nbias "),
                      "gamma given twice");
    free(bad);
    /* no sigma at all: refused where the header ends */
    bad = drop_line(good, "\nsigma ", &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\ncoefficients ") - 1,
                      "no sigma line (sigma must be positive)");
    free(bad);
    /* the bound is on a coefficient times the lazy scale: a run stopped
     * before the scale is folded in saves large ones beside a tiny scale
     * (1e114 at 1e-20 loads; at this model's own scale, about 0.01, it
     * does not) */
    bad = set_line(good, key, "1e114 -1e114", &blen);
    char *tiny = set_line(bad, "\nlazy-scale ", "lazy-scale 1e-20", &blen);
    spit("tiny.model", tiny, blen);
    tsgs_error terr;
    ck_assert_msg(tsgs_model_load("tiny.model", &m, &terr) == TSGS_OK, "%s",
                  terr.message);
    tsgs_model_free(m);
    free(tiny);
    free(bad);
    remove("tiny.model");
    bad = set_line(good, key, "1e114 -1e114", &blen);
    expect_refused_on(bad, blen, 0, c1,
                      "coefficient: value 1 of 2, 1e+114, is beyond");
    free(bad);
    /* the bound itself is a value a model may have */
    bad = set_line(good, key, "1e100 -1e100", &blen);
    spit("edge.model", bad, blen);
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("edge.model", &m, &err) == TSGS_OK, "%s",
                  err.message);
    size_t n = tsgs_dataset_rows(ds);
    double *dec = malloc(sizeof(double) * n);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, dec, NULL), TSGS_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(isfinite(dec[i]), "row %zu: %g", i, dec[i]);
    free(dec);
    free(bad);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    free(good);
    remove("good.model");
    remove("edge.model");
    remove("bad.model");
}
END_TEST

/* Scaler rows must hold features-in values, counted on their line before
 * anything is allocated: fewer, more, or a features-in of 2^30 beside a
 * 5-value row, each refused on the scaler line naming features-in's. */
START_TEST(scaler_length_mismatch_refused)
{
    tsgs_model *m = small_model(5, TSGS_SCALE_ZSCORE, NULL);
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t len, blen;
    char *good = slurp("good.model", &len);
    const long fin = line_of(good, "\nfeatures-in ");
    char says[96];
    snprintf(says, sizeof says, "scaler-mul: 6 values, but features-in (line "
                                "%ld) is 5",
             fin);
    char *bad = set_line(good, "\nscaler-mul ", "scaler-mul 1 1 1 1 1 1",
                         &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nscaler-mul "), says);
    free(bad);
    snprintf(says, sizeof says, "scaler-shift: 4 values, but features-in "
                                "(line %ld) is 5",
             fin);
    bad = set_line(good, "\nscaler-shift ", "scaler-shift 0 0 0 0", &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nscaler-shift "), says);
    free(bad);
    snprintf(says, sizeof says, "scaler-shift: 5 values, but features-in "
                                "(line %ld) is 1073741824",
             fin);
    bad = set_line(good, "\nfeatures-in ", "features-in 1073741824", &blen);
    expect_refused_on(bad, blen, 0, line_of(good, "\nscaler-shift "), says);
    free(bad);
    free(good);
    remove("good.model");
    remove("bad.model");
}
END_TEST

/* One-vs-rest: a class count the file cannot hold is refused on the
 * classes line; the memory limit covers the classes together, so a limit
 * that holds two classes refuses the third on its features-in line. */
START_TEST(ovr_counts_refused_on_their_line)
{
    tsgs_model *m5 = small_model(5, TSGS_SCALE_ZSCORE, NULL);
    ck_assert_int_eq(tsgs_model_save(m5, "b5.model", NULL), TSGS_OK);
    size_t l5;
    char *t5 = slurp("b5.model", &l5);
    static const char head[] = "tsgs3vm-ovr 1\nclasses 3\nlabels 1 2 3\n";
    const size_t hl = strlen(head);
    char *buf = malloc(hl + 3 * l5 + 1);
    memcpy(buf, head, hl);
    for (int c = 0; c < 3; c++)
        memcpy(buf + hl + (size_t)c * l5, t5, l5);
    const size_t len = hl + 3 * l5;
    buf[len] = '\0';
    size_t blen;
    char *bad = set_line(buf, "\nclasses ", "classes 1048576", &blen);
    expect_refused_on(bad, blen, 0, 2,
                      "classes: 1048576 announced, but the ");
    free(bad);
    tsgs_model *back = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_load("b5.model", &back, &err), TSGS_OK);
    const double one = reckoned_bytes(back, 5);
    tsgs_model_free(back);
    spit("ovr.model", buf, len);
    ck_assert_msg(tsgs__model_load_within("ovr.model", 3 * one, &back, &err) ==
                      TSGS_OK,
                  "%s", err.message);
    ck_assert_uint_eq(tsgs_model_classes(back, NULL), 3);
    tsgs_model_free(back);
    long lines = 0;
    for (size_t i = 0; i < l5; i++)
        lines += t5[i] == '\n';
    expect_refused_on(buf, len, 3 * one - 1.0,
                      3 + 2 * lines + line_of(t5, "\nfeatures-in "),
                      "MiB the classes before leave of the ");
    free(buf);
    free(t5);
    tsgs_model_free(m5);
    remove("b5.model");
    remove("ovr.model");
    remove("bad.model");
}
END_TEST

/* Writes len bytes of text into the FIFO path from a child process;
 * returns its pid. */
static pid_t write_fifo(const char *path, const char *text, size_t len)
{
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(text, 1, len, f);
            fclose(f);
        }
        _exit(0);
    }
    return child;
}

/* Loads a model from a FIFO holding text (max_bytes as
 * tsgs__model_load_within's); the status, err filled. */
static tsgs_status load_fifo(const char *text, size_t len, double max_bytes,
                             tsgs_model **m, tsgs_error *err)
{
    remove("fifo.model");
    ck_assert_int_eq(mkfifo("fifo.model", 0600), 0);
    pid_t child = write_fifo("fifo.model", text, len);
    tsgs_status st = tsgs__model_load_within("fifo.model", max_bytes, m, err);
    waitpid(child, NULL, 0);
    remove("fifo.model");
    return st;
}

/* A model read from a pipe (which has no size to check counts against) is
 * read whole first: it loads as from a file, its counts meet the bound
 * of the bytes it has, an empty one is named so, and one larger than the
 * memory limit is refused. */
START_TEST(model_from_pipe)
{
    tsgs_model *m = small_model(5, TSGS_SCALE_ZSCORE, NULL), *back = NULL;
    ck_assert_int_eq(tsgs_model_save(m, "good.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t len, len2, blen;
    char *good = slurp("good.model", &len);
    tsgs_error err;
    ck_assert_msg(load_fifo(good, len, 1e9, &back, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_int_eq(tsgs_model_save(back, "again.model", NULL), TSGS_OK);
    tsgs_model_free(back);
    char *again = slurp("again.model", &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_int_eq(memcmp(good, again, len), 0);
    char *bad = set_line(good, "\ncoefficients ", "coefficients 100000",
                         &blen);
    ck_assert_int_eq(load_fifo(bad, blen, 1e9, &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_int_eq(err.line, line_of(good, "\ncoefficients "));
    ck_assert_msg(strstr(err.message, "fifo.model:") &&
                      strstr(err.message, "coefficients: 100000 announced"),
                  "%s", err.message);
    ck_assert_int_eq(load_fifo("", 0, 1e9, &back, &err), TSGS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "fifo.model: not a tsgs3vm model file (it "
                                  "is empty)");
    ck_assert_int_eq(load_fifo(good, len, 1000.0, &back, &err),
                     TSGS_ERR_NOMEM);
    ck_assert_msg(strstr(err.message, "fifo.model: more than the ") &&
                      strstr(err.message, "(the caller's limit)"),
                  "%s", err.message);
    free(bad);
    free(again);
    free(good);
    remove("good.model");
    remove("again.model");
}
END_TEST

/* Each kind of model the solvers write loads and saves the same bytes:
 * iid laplacian COS features unscaled, DSG with minmax scaling, bs3vm's
 * support vectors (the others have their round trips above and in the
 * multiclass and probability suites). */
START_TEST(every_kind_round_trips)
{
    tsgs_dataset *ds = fixture_blobs(200, 4, 2.0, 0.5, 40, 20, 5, NULL);
    tsgs_params kinds[2] = {tsgs_params_default(), tsgs_params_default()};
    kinds[0].solver = TSGS_SOLVER_TSG;
    kinds[0].kernel = TSGS_KERNEL_LAPLACIAN;
    kinds[0].feature_map = TSGS_FEATURES_COS;
    kinds[0].scale = TSGS_SCALE_NONE;
    kinds[1].solver = TSGS_SOLVER_DSG;
    kinds[1].scale = TSGS_SCALE_MINMAX;
    char *texts[3];
    size_t lens[3];
    for (int k = 0; k < 2; k++) {
        kinds[k].sigma = 0.5;
        kinds[k].c_total = 10;
        kinds[k].iterations = 40;
        kinds[k].max_features = 32;
        kinds[k].threads = 1;
        tsgs_model *m = NULL;
        ck_assert_int_eq(tsgs_train(ds, &kinds[k], NULL, &m, NULL, NULL),
                         TSGS_OK);
        ck_assert_int_eq(tsgs_model_save(m, "kind.model", NULL), TSGS_OK);
        tsgs_model_free(m);
        texts[k] = slurp("kind.model", &lens[k]);
    }
    texts[2] = bs3vm_text(&lens[2]);
    for (int k = 0; k < 3; k++) {
        spit("kind.model", texts[k], lens[k]);
        tsgs_model *back = NULL;
        tsgs_error err;
        ck_assert_msg(tsgs_model_load("kind.model", &back, &err) == TSGS_OK,
                      "kind %d: %s", k, err.message);
        ck_assert_int_eq(tsgs_model_save(back, "kind2.model", NULL), TSGS_OK);
        tsgs_model_free(back);
        size_t l2;
        char *t2 = slurp("kind2.model", &l2);
        ck_assert_uint_eq(l2, lens[k]);
        ck_assert_int_eq(memcmp(t2, texts[k], l2), 0);
        free(t2);
        free(texts[k]);
    }
    tsgs_dataset_free(ds);
    remove("kind.model");
    remove("kind2.model");
}
END_TEST

/* A one-vs-rest model over three binary ones (the subs taken). */
static tsgs_model *ovr_of(tsgs_model *a, tsgs_model *b, tsgs_model *c,
                          const double *classes)
{
    tsgs_model *subs[3] = {a, b, c}, *m = NULL;
    ck_assert_int_eq(tsgs__model_ovr(subs, classes, 3, &m, NULL), TSGS_OK);
    return m;
}

static tsgs_model *load_text(const char *text, size_t len)
{
    spit("text.model", text, len);
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("text.model", &m, &err) == TSGS_OK, "%s",
                  err.message);
    remove("text.model");
    return m;
}

/* m's kind's own write gives the bytes tsgs_model_save writes; a binary
 * kind's section key is the line that ends its header; the file loads as
 * a model of the same kind, which saves the same bytes, counts the same
 * features and gives the same decision values on ds. */
static void check_kind_table(const tsgs_model *m, const tsgs__model_kind *want,
                             const tsgs_dataset *ds)
{
    const tsgs__model_kind *kind = m->kind;
    ck_assert_ptr_eq(kind, want);
    ck_assert_int_eq(tsgs_model_save(m, "k1.model", NULL), TSGS_OK);
    FILE *f = fopen("k2.model", "w");
    ck_assert_ptr_nonnull(f);
    kind->write(f, m, &m->layout);
    fclose(f);
    size_t l1, l2, l3;
    char *t1 = slurp("k1.model", &l1), *t2 = slurp("k2.model", &l2);
    ck_assert_uint_eq(l1, l2);
    ck_assert_int_eq(memcmp(t1, t2, l1), 0);
    ck_assert_int_eq(kind->per_class, !kind->section);
    if (kind->section) {
        char key[64];
        snprintf(key, sizeof key, "\n%s ", kind->section);
        ck_assert_msg(strstr(t1, key), "%s: no %s line", kind->name,
                      kind->section);
    }
    tsgs_model *back = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load("k1.model", &back, &err) == TSGS_OK,
                  "%s: %s", kind->name, err.message);
    ck_assert_ptr_eq(back->kind, kind);
    ck_assert_int_eq(tsgs_model_save(back, "k3.model", NULL), TSGS_OK);
    char *t3 = slurp("k3.model", &l3);
    ck_assert_uint_eq(l1, l3);
    ck_assert_int_eq(memcmp(t1, t3, l1), 0);
    ck_assert_int_gt(kind->feature_count(back), 0);
    ck_assert_int_eq(kind->feature_count(back), tsgs_model_feature_count(m));
    const size_t n = tsgs_dataset_rows(ds), k = tsgs_model_score_columns(m);
    double *a = malloc(sizeof(double) * n * k);
    double *b = malloc(sizeof(double) * n * k);
    ck_assert_int_eq(kind->decision(back, ds, 1, 1e8, a, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict_scores(m, ds, 2, b, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(a, b, sizeof(double) * n * k), 0);
    free(a);
    free(b);
    free(t1);
    free(t2);
    free(t3);
    tsgs_model_free(back);
    remove("k1.model");
    remove("k2.model");
    remove("k3.model");
}

/* Each kind's table of operations (model.h) round-trips its file:
 * random features, support vectors, one-vs-rest over either. */
START_TEST(every_kind_table_round_trips)
{
    tsgs_dataset *d5 = NULL;
    tsgs_dataset *d3 = fixture_blobs(60, 3, 2.0, 0.5, 10, 5, 4, NULL);
    tsgs_model *rf = small_model(5, TSGS_SCALE_ZSCORE, &d5);
    size_t len;
    char *sv_text = bs3vm_text(&len);
    tsgs_model *sv = load_text(sv_text, len);
    static const double cl[3] = {1.0, 2.0, 3.0}, cl2[3] = {-1.0, 0.5, 4.0};
    tsgs_model *ovr = ovr_of(small_model(5, TSGS_SCALE_ZSCORE, NULL),
                             small_model(5, TSGS_SCALE_MINMAX, NULL),
                             small_model(5, TSGS_SCALE_NONE, NULL), cl);
    tsgs_model *ovr_sv = ovr_of(load_text(sv_text, len),
                                load_text(sv_text, len),
                                load_text(sv_text, len), cl2);
    check_kind_table(rf, &tsgs__kind_rf, d5);
    check_kind_table(sv, &tsgs__kind_sv, d3);
    check_kind_table(ovr, &tsgs__kind_ovr, d5);
    check_kind_table(ovr_sv, &tsgs__kind_ovr, d3);
    ck_assert_int_eq(tsgs_model_feature_count(ovr_sv),
                     3 * tsgs_model_feature_count(sv));
    /* one-vs-rest takes no binary prediction call */
    double f[60];
    tsgs_error err;
    ck_assert_int_eq(tsgs_predict(ovr_sv, d3, 1, f, &err), TSGS_ERR_PARAM);
    ck_assert_msg(strstr(err.message, "a model of 3 classes"), "%s",
                  err.message);
    tsgs_model_free(rf);
    tsgs_model_free(sv);
    tsgs_model_free(ovr);
    tsgs_model_free(ovr_sv);
    free(sv_text);
    tsgs_dataset_free(d3);
    tsgs_dataset_free(d5);
}
END_TEST

/* tsgs__model_adopt: the model takes both labels and the scaler, which
 * the caller then no longer holds (freeing it frees nothing twice). */
START_TEST(adopt_takes_labels_and_scaler)
{
    tsgs_params p = tsgs_params_default();
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs__model_new(&p, 3, 1, &m, NULL), TSGS_OK);
    ck_assert_ptr_eq(m->kind, &tsgs__kind_rf);
    tsgs__scaler sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = TSGS_SCALE_ZSCORE;
    sc.d = 3;
    sc.shift = calloc(3, sizeof(double));
    sc.mul = calloc(3, sizeof(double));
    double *shift = sc.shift;
    tsgs__model_adopt(m, 2.0, 7.0, &sc);
    ck_assert(m->label_neg == 2.0 && m->label_pos == 7.0);
    ck_assert(tsgs_model_label(m, 0.5) == 7.0);
    ck_assert(tsgs_model_label(m, -0.5) == 2.0);
    ck_assert_ptr_eq(m->scaler.shift, shift);
    ck_assert_int_eq(m->scaler.kind, TSGS_SCALE_ZSCORE);
    ck_assert_ptr_null(sc.shift);
    ck_assert_ptr_null(sc.mul);
    ck_assert_int_eq(sc.kind, TSGS_SCALE_NONE);
    tsgs__scaler_clear(&sc);
    tsgs_model_free(m);
}
END_TEST

START_TEST(predict_refuses_other_width)
{
    tsgs_dataset *ds;
    tsgs_model *m = trained(TSGS_FEATURES_PAIR, TSGS_SCALE_ZSCORE, &ds);
    float x[4] = {0};
    tsgs_dataset *narrow;
    ck_assert_int_eq(tsgs_dataset_from_dense(1, 4, x, NULL, &narrow, NULL), TSGS_OK);
    double dec;
    tsgs_error err;
    ck_assert_int_eq(tsgs_predict(m, narrow, 1, &dec, &err), TSGS_ERR_DIM);
    ck_assert_ptr_nonnull(strstr(err.message, "4 features"));
    tsgs_dataset_free(narrow);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* ------------------------------------------------------- data layout */

/* A CSV of 60 rows: a row index, two features, the label (+1 / -1) in a
 * column named "target", a third feature: "id,f1,f2,target,f3". */
static void write_layout_csv(const char *path)
{
    char text[8192];
    size_t k = (size_t)snprintf(text, sizeof text, "id,f1,f2,target,f3\n");
    for (int i = 0; i < 60; i++) {
        const int pos = i % 2;
        k += (size_t)snprintf(text + k, sizeof text - k,
                              "%d,%.3f,%.3f,%d,%.3f\n", i,
                              (pos ? 1.2 : -1.2) + 0.01 * (i % 7),
                              0.1 * (i % 5), pos ? 1 : -1,
                              (pos ? -0.8 : 0.8) + 0.02 * (i % 3));
    }
    ck_assert_uint_lt(k, sizeof text);
    test_write_text(path, text);
}

/* small_model's settings on the rows of a file. */
static tsgs_model *model_of_file(const tsgs_dataset *ds)
{
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.sigma = 0.5;
    p.c = 10;
    p.iterations = 40;
    p.max_features = 32;
    p.threads = 1;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    return m;
}

static void assert_same_layout(const tsgs_data_layout *a,
                               const tsgs_data_layout *b)
{
    ck_assert_int_eq(a->known, b->known);
    ck_assert_int_eq(a->format, b->format);
    ck_assert_int_eq(a->label_column, b->label_column);
    ck_assert_int_eq(a->skip_columns, b->skip_columns);
    ck_assert_int_eq(a->header, b->header);
    ck_assert_uint_eq(a->columns, b->columns);
    ck_assert_int_eq(a->has_unlabeled_label, b->has_unlabeled_label);
    ck_assert(a->unlabeled_label == b->unlabeled_label);
}

/* Trains on `path` read with o, saves "layout.model" and returns its
 * text; the model's layout is the dataset's, and the loaded model's too
 * (saving it again gives the same bytes). */
static char *layout_round_trip(const char *path, const tsgs_read_options *o)
{
    tsgs_dataset *ds = test_read_ok(path, o);
    tsgs_data_layout want, got;
    tsgs_dataset_layout(ds, &want);
    tsgs_model *m = model_of_file(ds), *back = NULL;
    tsgs_model_layout(m, &got);
    assert_same_layout(&got, &want);
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_save(m, "layout.model", &err), TSGS_OK);
    ck_assert_msg(tsgs_model_load("layout.model", &back, &err) == TSGS_OK,
                  "%s", err.message);
    tsgs_model_layout(back, &got);
    assert_same_layout(&got, &want);
    ck_assert_int_eq(tsgs_model_save(back, "layout2.model", &err), TSGS_OK);
    size_t l1, l2;
    char *t1 = slurp("layout.model", &l1), *t2 = slurp("layout2.model", &l2);
    ck_assert_uint_eq(l1, l2);
    ck_assert_int_eq(memcmp(t1, t2, l1), 0);
    free(t2);
    tsgs_model_free(back);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("layout2.model");
    return t1;
}

/* The model records the layout its training file was read with, as
 * resolved (the label column found by the header's name), and the
 * version that wrote it; the layout survives save and load, for CSV
 * (label found, or "last", with an unlabeled label) and LIBSVM; rows
 * built in memory record none, and the file says so by having no data-*
 * line. */
START_TEST(layout_round_trips)
{
    write_layout_csv("layout.csv");
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1;
    char *t = layout_round_trip("layout.csv", &o);
    ck_assert_msg(strstr(t, "\nwritten-by tsgs3vm " TSGS_VERSION_STRING "\n"),
                  "%s", t);
    ck_assert_msg(strstr(t, "\ndata-format csv\ndata-label-column 4\n"
                            "data-skip-columns 1\ndata-header yes\n"
                            "data-columns 5\n"),
                  "%s", t);
    ck_assert_ptr_null(strstr(t, "data-unlabeled-label"));
    free(t);

    /* the label last, said so; 0 marks unlabeled rows (none here) */
    test_write_text("layout.csv", "1,2,1\n2,1,-1\n1.5,2.5,1\n2.2,0.9,-1\n"
                                  "1.1,2.1,1\n2.1,1.2,-1\n");
    o = tsgs_read_options_default();
    o.label_column = -1;
    o.has_unlabeled_label = 1;
    o.unlabeled_label = 0.0;
    t = layout_round_trip("layout.csv", &o);
    ck_assert_msg(strstr(t, "\ndata-format csv\ndata-label-column last\n"
                            "data-skip-columns 0\ndata-header no\n"
                            "data-columns 3\ndata-unlabeled-label 0\n"),
                  "%s", t);
    free(t);

    /* LIBSVM: the format only */
    test_write_text("layout.svm", "1 1:1 2:2\n-1 1:2 2:1\n1 1:1.5 2:2.5\n"
                                  "-1 1:2.2 2:0.9\n1 2:2.1\n-1 1:2.1\n");
    t = layout_round_trip("layout.svm", NULL);
    ck_assert_msg(strstr(t, "\ndata-format libsvm\nblocks "), "%s", t);
    ck_assert_ptr_null(strstr(t, "data-columns"));
    free(t);

    /* rows from memory: no layout, the version all the same */
    tsgs_model *m = small_model(3, TSGS_SCALE_ZSCORE, NULL), *back = NULL;
    tsgs_data_layout L;
    tsgs_model_layout(m, &L);
    ck_assert_int_eq(L.known, 0);
    ck_assert_int_eq(tsgs_model_save(m, "layout.model", NULL), TSGS_OK);
    t = slurp("layout.model", NULL);
    ck_assert_ptr_null(strstr(t, "\ndata-"));
    ck_assert_ptr_nonnull(strstr(t, "\nwritten-by tsgs3vm "));
    ck_assert_int_eq(tsgs_model_load("layout.model", &back, NULL), TSGS_OK);
    tsgs_model_layout(back, &L);
    ck_assert_int_eq(L.known, 0);
    tsgs_model_layout(NULL, &L); /* no model: none */
    ck_assert_int_eq(L.known, 0);
    free(t);
    tsgs_model_free(back);
    tsgs_model_free(m);
    remove("layout.csv");
    remove("layout.svm");
    remove("layout.model");
}
END_TEST

/* text without every line that starts with `start` (after a newline). */
static char *drop_lines(const char *text, const char *start, size_t *len)
{
    char *out = malloc(strlen(text) + 1);
    size_t k = 0;
    for (const char *l = text; *l;) {
        const char *eol = strchr(l, '\n');
        size_t n = eol ? (size_t)(eol - l) + 1 : strlen(l);
        if (strncmp(l, start, strlen(start)) != 0) {
            memcpy(out + k, l, n);
            k += n;
        }
        l += n;
    }
    out[k] = '\0';
    *len = k;
    return out;
}

/* A model file written before the layout lines (the same file without
 * its written-by and data-* lines) loads, with no layout, and predicts
 * the same bits as the file with them. */
START_TEST(file_without_layout_predicts_the_same)
{
    write_layout_csv("layout.csv");
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1;
    char *t = layout_round_trip("layout.csv", &o);
    size_t l1, l2;
    char *a = drop_lines(t, "written-by ", &l1);
    char *old = drop_lines(a, "data-", &l2);
    ck_assert_uint_lt(l2, strlen(t));
    ck_assert_ptr_null(strstr(old, "data-"));
    spit("old.model", old, l2);
    tsgs_model *m = NULL, *back = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_load("layout.model", &m, &err), TSGS_OK);
    ck_assert_msg(tsgs_model_load("old.model", &back, &err) == TSGS_OK, "%s",
                  err.message);
    tsgs_data_layout L;
    tsgs_model_layout(back, &L);
    ck_assert_int_eq(L.known, 0);
    tsgs_dataset *ds = test_read_ok("layout.csv", &o);
    const size_t n = tsgs_dataset_rows(ds);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, x, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(back, ds, 1, y, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(x, y, sizeof(double) * n), 0);
    free(x);
    free(y);
    free(a);
    free(old);
    free(t);
    tsgs_dataset_free(ds);
    tsgs_model_free(m);
    tsgs_model_free(back);
    remove("layout.csv");
    remove("layout.model");
    remove("old.model");
}
END_TEST

/* Each malformed written-by or data-* line, and each layout that does not
 * hold together or with features-in, is refused with the file, the line
 * and the field. */
START_TEST(layout_errors_refused)
{
    write_layout_csv("layout.csv");
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1;
    char *good = layout_round_trip("layout.csv", &o);
    static const struct {
        const char *old, *new, *says;
    } cases[] = {
        {"\nwritten-by tsgs3vm " TSGS_VERSION_STRING "\n",
         "\nwritten-by someone\n",
         "written-by: \"someone\": expected \"tsgs3vm VERSION\""},
        {"\nwritten-by tsgs3vm " TSGS_VERSION_STRING "\n",
         "\nwritten-by tsgs3vm \n", "written-by: \"tsgs3vm \""},
        {"\nwritten-by tsgs3vm " TSGS_VERSION_STRING "\n",
         "\nwritten-by tsgs3vm 1.0 beta\n", "written-by: \"tsgs3vm 1.0 beta\""},
        {"\ndata-format csv\n", "\ndata-format xml\n",
         "data-format: \"xml\": expected libsvm, csv or npy"},
        {"\ndata-format csv\n", "\ndata-format csv\ndata-format csv\n",
         "data-format given twice"},
        {"\ndata-label-column 4\n", "\ndata-label-column first\n",
         "data-label-column: \"first\": expected last, none or a column"},
        {"\ndata-label-column 4\n", "\ndata-label-column 0\n",
         "data-label-column: \"0\""},
        {"\ndata-skip-columns 1\n", "\ndata-skip-columns -1\n",
         "data-skip-columns: \"-1\" is not a count"},
        {"\ndata-header yes\n", "\ndata-header maybe\n",
         "data-header: \"maybe\": expected yes or no"},
        {"\ndata-columns 5\n", "\ndata-columns 5x\n",
         "data-columns: \"5x\" is not a count"},
        {"\ndata-columns 5\n", "\ndata-columns 5\ndata-unlabeled-label z\n",
         "data-unlabeled-label: value 1 of 1 is missing"},
        {"\ndata-columns 5\n", "\ndata-columns 5\ndata-rows 60\n",
         "unknown parameter \"data-rows\""},
        {"\ndata-format csv\n", "\n", "data-* lines without a data-format"},
        {"\ndata-format csv\n", "\ndata-format libsvm\n",
         "a LIBSVM file has no columns"},
        {"\ndata-columns 5\n", "\n",
         "needs the data-label-column, data-skip-columns and data-columns"},
        {"\ndata-skip-columns 1\n", "\n", "needs the data-label-column"},
        {"\ndata-format csv\n", "\ndata-format npy\n",
         "a .npy has no header line"},
        {"\ndata-label-column 4\n", "\ndata-label-column 6\n",
         "data-label-column 6: beyond the 5 data-columns"},
        {"\ndata-label-column 4\n", "\ndata-label-column 1\n",
         "data-label-column 1 is among the 1 data-skip-columns"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_patch_refused(good, cases[i].old, cases[i].new, 0,
                             cases[i].says);
    char wider[128]; /* features-in's line, wherever the options end */
    snprintf(wider, sizeof wider,
             "data-columns 9: 7 features a row, more than features-in (line "
             "%ld), 3",
             line_of(good, "\nfeatures-in "));
    expect_patch_refused(good, "\ndata-columns 5\n", "\ndata-columns 9\n", 0,
                         wider);
    /* columns that leave no feature: the label last of 2, 1 skipped */
    size_t len;
    char *a = patch(good, "\ndata-label-column 4\n",
                    "\ndata-label-column last\n", 24, &len);
    char *b = patch(a, "\ndata-columns 5\n", "\ndata-columns 2\n", 16, &len);
    expect_refused_on(b, len, 0, line_of(b, "\ncoefficients "),
                      "data-columns 2: no feature left after 1 skipped "
                      "columns and the label column");
    free(a);
    free(b);
    free(good);
    remove("layout.csv");
    remove("layout.model");
    remove("bad.model");
}
END_TEST

/* A one-vs-rest file records its layout in each class's model: loaded,
 * the model's layout is theirs, and saved again, every class has it;
 * classes whose lines differ are refused. */
START_TEST(ovr_layout)
{
    tsgs_model *m = small_model(5, TSGS_SCALE_ZSCORE, NULL);
    ck_assert_int_eq(tsgs_model_save(m, "b5.model", NULL), TSGS_OK);
    tsgs_model_free(m);
    size_t l5, lx;
    char *t5 = slurp("b5.model", &l5);
    char *tx = patch(t5, "\nblocks ", "\ndata-format libsvm\nblocks ",
                     strlen("\ndata-format libsvm\nblocks "), &lx);
    const char *head = "tsgs3vm-ovr 1\nclasses 3\nlabels 1 2 3\n";
    char *buf = malloc(strlen(head) + 3 * lx + 1);
    for (int mixed = 0; mixed < 2; mixed++) {
        size_t len = strlen(head);
        memcpy(buf, head, len);
        for (int c = 0; c < 3; c++) {
            const char *t = mixed && c == 2 ? t5 : tx;
            size_t l = mixed && c == 2 ? l5 : lx;
            memcpy(buf + len, t, l);
            len += l;
        }
        if (mixed) {
            expect_refused(buf, len, TSGS_ERR_FORMAT,
                           "class 3's model has other data-* lines than "
                           "class 1's");
            continue;
        }
        spit("ovr.model", buf, len);
        tsgs_model *ovr = NULL;
        tsgs_error err;
        ck_assert_msg(tsgs_model_load("ovr.model", &ovr, &err) == TSGS_OK,
                      "%s", err.message);
        tsgs_data_layout L;
        tsgs_model_layout(ovr, &L);
        ck_assert_int_eq(L.known, 1);
        ck_assert_int_eq(L.format, TSGS_FORMAT_LIBSVM);
        ck_assert_int_eq(tsgs_model_save(ovr, "ovr2.model", &err), TSGS_OK);
        size_t l2;
        char *t2 = slurp("ovr2.model", &l2);
        ck_assert_uint_eq(l2, len);
        ck_assert_int_eq(memcmp(t2, buf, len), 0);
        free(t2);
        tsgs_model_free(ovr);
    }
    free(buf);
    free(tx);
    free(t5);
    remove("b5.model");
    remove("ovr.model");
    remove("ovr2.model");
    remove("bad.model");
}
END_TEST

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, save_load_predict_identical);
    tcase_add_test(tc, corrupt_files_refused);
    tcase_add_test(tc, strict_header_refused);
    tcase_add_test(tc, every_header_error_refused);
    tcase_add_test(tc, format_1_files_load);
    tcase_add_test(tc, stale_temporaries_removed);
    tcase_add_test(tc, check_path_before_training);
    tcase_add_test(tc, save_failure_leaves_old_file);
    tcase_add_test(tc, predict_refuses_other_width);
    tcase_add_test(tc, maxabs_model_round_trip);
    tcase_add_test(tc, ovr_header_errors_refused);
    tcase_add_test(tc, null_arguments_refused);
    tcase_add_test(tc, load_frees_what_it_parsed);
    tcase_add_test(tc, huge_counts_refused_on_their_line);
    tcase_add_test(tc, bs3vm_counts_refused_on_their_line);
    tcase_add_test(tc, absurd_values_refused_on_their_line);
    tcase_add_test(tc, scaler_length_mismatch_refused);
    tcase_add_test(tc, ovr_counts_refused_on_their_line);
    tcase_add_test(tc, model_from_pipe);
    tcase_add_test(tc, every_kind_round_trips);
    tcase_add_test(tc, every_kind_table_round_trips);
    tcase_add_test(tc, adopt_takes_labels_and_scaler);
    tcase_add_test(tc, layout_round_trips);
    tcase_add_test(tc, file_without_layout_predicts_the_same);
    tcase_add_test(tc, layout_errors_refused);
    tcase_add_test(tc, ovr_layout);
    suite_add_tcase(s, tc);
    return s;
}
