/* Model files: save -> load -> predict gives the same bits; truncated,
 * corrupt, foreign and wrong-version files are refused with a message
 * that names the file and line; a dataset of another width is refused. */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
            size_t n = tsgs_dataset_rows(ds);
            double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
            ck_assert_int_eq(tsgs_predict(m, ds, 1, a, NULL), TSGS_OK);
            ck_assert_int_eq(tsgs_predict(back, ds, 2, b, NULL), TSGS_OK);
            ck_assert_int_eq(memcmp(a, b, sizeof(double) * n), 0);
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
    expect_refused(v2, len, TSGS_ERR_FORMAT, "version 7");
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
    expect_patch_refused(good, "tsgs3vm-model 1\n", "tsgs3vm-model1\n", 0,
                         "not a tsgs3vm model");
    expect_patch_refused(good, "tsgs3vm-model 1\n", "tsgs3vm-model 1.0\n", 0,
                         "not a tsgs3vm model");
    expect_patch_refused(good, "tsgs3vm-model 1\n", "tsgs3vm-model 1 x\n", 0,
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
         "scaler-shift: value 3 of 5"},
        {"\ncoefficients ", "\nsupport-vectors 3\ncoefficients ",
         "support-vectors: the bs3vm solver's models (only)"},
        {"\nprobability 0\n", "\nprobability 1\n",
         "probability 1 but no \"probability-ab\" line"},
        {"\nbias ", "\nprobability-ab 1 2\nbias ",
         "probability 0 but a \"probability-ab\" line"},
        {"\nkernel rbf", "\nkernel rbf\nbogus-key 1", "bogus-key"},
        {"\nseed ", "\nseed -5\nseed ", "seed"},
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
    p.c = 10;
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

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, save_load_predict_identical);
    tcase_add_test(tc, corrupt_files_refused);
    tcase_add_test(tc, strict_header_refused);
    tcase_add_test(tc, every_header_error_refused);
    tcase_add_test(tc, stale_temporaries_removed);
    tcase_add_test(tc, check_path_before_training);
    tcase_add_test(tc, save_failure_leaves_old_file);
    tcase_add_test(tc, predict_refuses_other_width);
    tcase_add_test(tc, maxabs_model_round_trip);
    tcase_add_test(tc, ovr_header_errors_refused);
    tcase_add_test(tc, null_arguments_refused);
    tcase_add_test(tc, load_frees_what_it_parsed);
    suite_add_tcase(s, tc);
    return s;
}
