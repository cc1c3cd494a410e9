/* NumPy .npy input: files written by np.save (data/npy/make.py) read to
 * exact values, float32 used in place and everything else converted, the
 * labels companion and the label column, round trips through
 * tsgs_dataset_save_npy, and every header, size and value error naming the
 * file and the field. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

#define NPY "data/npy/"

static const float X[3][4] = {{0.5f, -2.25f, 0.0f, 1e-3f},
                              {3.0f, 4.5f, -0.0f, 7.0f},
                              {-1.0f, 0.125f, 2.0f, 1e3f}};

static void check_x(const tsgs_dataset *ds, size_t skip, size_t d_out)
{
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 3);
    ck_assert_uint_eq(tsgs_dataset_features(ds), d_out);
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < d_out; k++) {
            float want = k + skip < 4 ? X[i][k + skip] : 0.0f;
            float got = tsgs_dataset_row(ds, i)[k];
            ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                          "[%zu, %zu]: %.9g, expected %.9g", i, k, got, want);
        }
}

static void check_y(const tsgs_dataset *ds, const double *y)
{
    for (size_t i = 0; i < 3; i++) {
        double got = tsgs_dataset_label(ds, i);
        if (isnan(y[i]))
            ck_assert_msg(isnan(got), "label %zu: %g, expected none", i, got);
        else
            ck_assert_double_eq(got, y[i]);
    }
}

/* Every fixture numpy wrote reads to the same values. */
static const struct {
    const char *file;
    double y[3];
    int mapped; /* used in place */
} good[] = {
    {NPY "f4.npy", {1, -1, NAN}, 1},       /* '<f4', labels float64 */
    {NPY "f8.npy", {1, -1, 0}, 0},         /* '<f8', labels int64 */
    {NPY "fortran.npy", {1, -1, NAN}, 0},  /* fortran_order True */
    {NPY "v2.npy", {1, -1, NAN}, 1},       /* format version 2.0 */
    {NPY "table_be.npy", {1, -1, 2}, 0},   /* '>f4', label column 1 */
};

START_TEST(numpy_files_read_exact)
{
    tsgs_dataset *ds = test_read_ok(good[_i].file, NULL);
    check_x(ds, 0, 4);
    check_y(ds, good[_i].y);
    ck_assert_msg((ds->map != NULL) == good[_i].mapped, "%s: mapped %d",
                  good[_i].file, ds->map != NULL);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(options_apply_and_convert)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.min_features = 6; /* a model's dimension: pad with zeros */
    tsgs_dataset *ds = test_read_ok(NPY "f4.npy", &o);
    ck_assert_ptr_null(ds->map);
    check_x(ds, 0, 6);
    tsgs_dataset_free(ds);

    o = tsgs_read_options_default();
    o.skip_columns = 1;
    ds = test_read_ok(NPY "f4.npy", &o);
    check_x(ds, 1, 3);
    tsgs_dataset_free(ds);

    o = tsgs_read_options_default();
    o.has_unlabeled_label = 1;
    o.unlabeled_label = -1;
    ds = test_read_ok(NPY "f8.npy", &o);
    check_y(ds, (const double[]){1, NAN, 0});
    tsgs_dataset_free(ds);

    /* The table without companion: label column last, or none. */
    o = tsgs_read_options_default();
    o.label_column = 0;
    ds = test_read_ok(NPY "table_be.npy", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 5);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 2)[0], 2.0f);
    tsgs_data_layout L;
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.label_column, 0);
    tsgs_dataset_free(ds);
    o.label_column = -1;
    ds = test_read_ok(NPY "table_be.npy", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 4);
    check_y(ds, (const double[]){1e-3f, 7, 1e3});
    /* the layout as read: the label last, 5 columns */
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.known, 1);
    ck_assert_int_eq(L.format, TSGS_FORMAT_NPY);
    ck_assert_int_eq(L.label_column, -1);
    ck_assert_int_eq(L.skip_columns, 0);
    ck_assert_int_eq(L.header, 0);
    ck_assert_uint_eq(L.columns, 5);
    tsgs_dataset_free(ds);
    /* labels from the companion: no label column */
    o = tsgs_read_options_default();
    o.skip_columns = 1;
    ds = test_read_ok(NPY "f4.npy", &o);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.format, TSGS_FORMAT_NPY);
    ck_assert_int_eq(L.label_column, 0);
    ck_assert_int_eq(L.skip_columns, 1);
    ck_assert_uint_eq(L.columns, 4);
    tsgs_dataset_free(ds);

    /* Any thread count gives the same dataset. */
    for (int t = 1; t <= 3; t++) {
        o = tsgs_read_options_default();
        o.threads = t;
        ds = test_read_ok(NPY "fortran.npy", &o);
        check_x(ds, 0, 4);
        tsgs_dataset_free(ds);
    }
}
END_TEST

/* A mapped dataset grows and shrinks like any other. */
START_TEST(mapped_rows_append_and_drop)
{
    tsgs_dataset *a = test_read_ok(NPY "f4.npy", NULL);
    tsgs_dataset *b = test_read_ok(NPY "v2.npy", NULL);
    ck_assert_ptr_nonnull(a->map);
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(a, b, &err), TSGS_OK);
    ck_assert_ptr_null(a->map);
    ck_assert_uint_eq(tsgs_dataset_rows(a), 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_int_eq(memcmp(tsgs_dataset_row(a, i), X[i % 3],
                                sizeof X[0]), 0);
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(b, b, &err), TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(b), 6);
    ck_assert_int_eq(memcmp(tsgs_dataset_row(b, 4), X[1], sizeof X[0]), 0);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);

    /* Dropping features writes into the private mapping, not the file. */
    a = test_read_ok(NPY "f4.npy", NULL);
    size_t dropped;
    ck_assert_int_eq(tsgs_dataset_drop_features(a, 2, &dropped, &err),
                     TSGS_OK);
    ck_assert_uint_eq(dropped, 4);
    ck_assert_float_eq(tsgs_dataset_row(a, 1)[0], 3.0f);
    tsgs_dataset_free(a);
    a = test_read_ok(NPY "f4.npy", NULL);
    check_x(a, 0, 4);
    tsgs_dataset_free(a);
}
END_TEST

static char tmp_dir[64];

static void make_tmp(void)
{
    test_make_dir(tmp_dir, sizeof tmp_dir, "npy");
}

static const char *tmp_path(const char *name)
{
    static char buf[4][160];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmp_dir, name);
    return p;
}

static void same_dataset(const tsgs_dataset *a, const tsgs_dataset *b)
{
    ck_assert_uint_eq(a->n, b->n);
    ck_assert_uint_eq(a->d, b->d);
    ck_assert_int_eq(memcmp(a->x, b->x, sizeof(float) * a->n * a->d), 0);
    ck_assert_int_eq(memcmp(a->y, b->y, sizeof(double) * a->n), 0);
}

/* Text to .npy and back: the same bytes, NaN labels included. */
START_TEST(save_and_read_back_identical)
{
    static const char *const files[] = {
        "data/reader/basic.svm", "data/reader/synth_susy_100.csv",
        "data/reader/synth_hepmass_100.csv"};
    make_tmp();
    for (size_t f = 0; f < 3; f++) {
        tsgs_read_options o = tsgs_read_options_default();
        o.has_unlabeled_label = f == 0; /* basic.svm's 0 label: none */
        o.unlabeled_label = 0;
        tsgs_dataset *a = test_read_ok(files[f], &o), *b;
        const char *out = tmp_path("x.npy");
        tsgs_error err;
        ck_assert_int_eq(tsgs_dataset_save_npy(a, out, &err), TSGS_OK);
        b = test_read_ok(out, NULL);
        ck_assert_ptr_nonnull(b->map);
        same_dataset(a, b);
        tsgs_dataset_free(b);
        remove(out);
        remove(tmp_path("x.labels.npy"));
        tsgs_dataset_free(a);
    }
    rmdir(tmp_dir);
}
END_TEST

START_TEST(labels_path_convention)
{
    char buf[64];
    ck_assert_uint_eq(tsgs_npy_labels_path("a/train.npy", buf, sizeof buf),
                      strlen("a/train.labels.npy"));
    ck_assert_str_eq(buf, "a/train.labels.npy");
    tsgs_npy_labels_path("data", buf, sizeof buf);
    ck_assert_str_eq(buf, "data.labels.npy");
    ck_assert_uint_eq(tsgs_npy_labels_path("x.npy", buf, 4), 12);
    ck_assert_str_eq(buf, "x.l");

    tsgs_dataset *ds = test_read_ok(NPY "f4.npy", NULL);
    tsgs_error err;
    make_tmp();
    ck_assert_int_eq(tsgs_dataset_save_npy(ds, tmp_path("x.txt"), &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "must end in .npy"));
    ck_assert_int_eq(tsgs_dataset_save_npy(ds, "/nonexistent/x.npy", &err),
                     TSGS_ERR_IO);
    ck_assert_str_eq(err.file, "/nonexistent/x.npy");
    rmdir(tmp_dir);
    tsgs_dataset_free(ds);
}
END_TEST

/* ------------------------------------------------------------ errors */

/* Writes a .npy of version (major, 0) with this header text (padded to 64
 * bytes and ended by a newline unless raw) and data. */
static void write_npy(const char *path, int major, const char *dict, int raw,
                      const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    size_t lb = major == 1 ? 2 : 4, pre = 8 + lb, n = strlen(dict);
    size_t total = raw ? pre + n : (pre + n + 1 + 63) / 64 * 64;
    size_t hlen = total - pre;
    unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y',
                              (unsigned char)major, 0,
                              (unsigned char)(hlen & 0xff),
                              (unsigned char)(hlen >> 8), 0, 0};
    fwrite(head, 1, pre, f);
    fwrite(dict, 1, n, f);
    for (size_t i = n; !raw && i + 1 < hlen; i++)
        fputc(' ', f);
    if (!raw)
        fputc('\n', f);
    if (bytes)
        fwrite(data, 1, bytes, f);
    fclose(f);
}

#define F4_34 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"

static const struct {
    const char *dict; /* NULL: F4_34 */
    int major;
    int raw;
    long bytes;       /* of data: -1 = 48 (3 x 4 floats) */
    const char *labels_dict; /* a companion, or NULL */
    long label_bytes;
    tsgs_status code;
    int in_labels;    /* the error names the companion */
    const char *says;
} bad[] = {
    {NULL, 4, 0, -1, NULL, 0, TSGS_ERR_PARSE, 0, "version 4.0"},
    {"{'descr': '<c8', 'fortran_order': False, 'shape': (3, 4), }", 1, 0, 96,
     NULL, 0, TSGS_ERR_PARSE, 0, "header field 'descr' = '<c8'"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }", 1, 0, 48,
     NULL, 0, TSGS_ERR_PARSE, 0, "features must be float32"},
    {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 1,
     0, 12, NULL, 0, TSGS_ERR_PARSE, 0, "structured dtype"},
    {"{'descr': '|f4', 'fortran_order': False, 'shape': (3, 4), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0, "'descr' = '|f4'"},
    {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3, 4), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0, "field 'fortran_order'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, x), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0, "field 'shape'"},
    {"{'descr': '<f4', 'fortran_order': False, }", 1, 0, -1, NULL, 0,
     TSGS_ERR_PARSE, 0, "field 'shape' is missing"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1, }", 1,
     0, -1, NULL, 0, TSGS_ERR_PARSE, 0, "key 'x' is not one of"},
    {"{'descr': '<f4', 'descr': '<f4', 'shape': (3, 4), }", 1, 0, -1, NULL, 0,
     TSGS_ERR_PARSE, 0, "key 'descr' is given twice"},
    {F4_34, 1, 1, -1, NULL, 0, TSGS_ERR_PARSE, 0,
     "does not end with a newline"},
    {F4_34 " x\n", 1, 1, -1, NULL, 0, TSGS_ERR_PARSE, 0,
     "text after the dictionary"},
    {"[1, 2]", 1, 0, -1, NULL, 0, TSGS_ERR_PARSE, 0, "expected a dictionary"},
    {F4_34, 1, 0, 44, NULL, 0, TSGS_ERR_PARSE, 0,
     "truncated: shape (3, 4) of '<f4' needs 48 bytes of data after the "
     "header, the file has 44"},
    {F4_34, 2, 0, 52, NULL, 0, TSGS_ERR_PARSE, 0, "bytes after the array"},
    {F4_34, 1, 0, 0, NULL, 0, TSGS_ERR_PARSE, 0, "truncated"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 1, 0, 12,
     NULL, 0, TSGS_ERR_PARSE, 0, "'shape' = (3,): expected 2 dimensions"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", 1, 0, 0,
     NULL, 0, TSGS_ERR_DATA, 0, "no data rows"},
    {"{'descr': '<f4', 'fortran_order': False, "
     "'shape': (4294967296, 4294967296, 4294967296), }",
     1, 0, 0, NULL, 0, TSGS_ERR_PARSE, 0, "the sizes overflow"},
    {"{1: '<f4', 'fortran_order': False, 'shape': (3, 4), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0, "expected 'key': value"},
    {"{'descr': 4, 'fortran_order': False, 'shape': (3, 4), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0,
     "field 'descr': expected a dtype string such as '<f4'"},
    {"{'descr': '<f4' 'fortran_order': False, 'shape': (3, 4), }", 1, 0, -1,
     NULL, 0, TSGS_ERR_PARSE, 0, "expected ',' or '}' after a value"},
    /* the companion's own faults name the companion */
    {NULL, 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (2,), }",
     16, TSGS_ERR_DIM, 1, "'shape' = (2,): expected (3,)"},
    {NULL, 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (3,), }",
     20, TSGS_ERR_PARSE, 1, "truncated: shape (3,) of '<f8'"},
    {NULL, 1, 0, -1, "{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (3, 1), }",
     24, TSGS_ERR_DATA, 1, "element [1] = inf: label is infinite"},
};

START_TEST(bad_files_name_file_and_field)
{
    float data[24] = {0};
    double labels[3] = {1, INFINITY, -1};
    make_tmp();
    const char *path = tmp_path("bad.npy"), *lpath = tmp_path("bad.labels.npy");
    long bytes = bad[_i].bytes < 0 ? 48 : bad[_i].bytes;
    write_npy(path, bad[_i].major, bad[_i].dict ? bad[_i].dict : F4_34,
              bad[_i].raw, data, (size_t)bytes);
    if (bad[_i].labels_dict)
        write_npy(lpath, 1, bad[_i].labels_dict, 0, labels,
                  (size_t)bad[_i].label_bytes);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    tsgs_status st = tsgs_dataset_read(path, NULL, &ds, &err);
    ck_assert_msg(st == bad[_i].code, "case %d: status %d (%s)", _i, st,
                  err.message);
    ck_assert_ptr_null(ds);
    const char *named = bad[_i].in_labels ? lpath : path;
    ck_assert_str_eq(err.file, named);
    ck_assert_msg(strncmp(err.message, named, strlen(named)) == 0 &&
                      strstr(err.message, bad[_i].says),
                  "case %d: \"%s\" does not name %s and say \"%s\"", _i,
                  err.message, named, bad[_i].says);
    remove(path);
    remove(lpath);
    rmdir(tmp_dir);
}
END_TEST

/* Cut anywhere, a real file fails with the file named; the magic itself is
 * checked by the .npy reader. */
START_TEST(truncated_anywhere_fails)
{
    size_t len = 0;
    char *whole = test_read_file(NPY "f4.npy", &len);
    ck_assert_ptr_nonnull(whole);
    make_tmp();
    const char *path = tmp_path("cut.npy");
    for (size_t cut = 6; cut < len; cut += cut < 140 ? 1 : 7) {
        FILE *f = fopen(path, "wb");
        fwrite(whole, 1, cut, f);
        fclose(f);
        tsgs_dataset *ds = NULL;
        tsgs_error err;
        tsgs_status st = tsgs_dataset_read(path, NULL, &ds, &err);
        ck_assert_msg(st == TSGS_ERR_PARSE, "cut at %zu: status %d (%s)", cut,
                      st, err.message);
        ck_assert_ptr_null(ds);
        ck_assert_str_eq(err.file, path);
        ck_assert_ptr_nonnull(strstr(err.message, "truncated"));
    }
    FILE *f = fopen(path, "wb");
    fwrite("\x93NUMPZ\x01\x00", 1, 8, f);
    fclose(f);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs__npy_read(path, &(tsgs_read_options){0}, &ds, &err),
                     TSGS_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err.message, "magic: not a NumPy"));
    remove(path);
    rmdir(tmp_dir);
    free(whole);
}
END_TEST

/* Values a float cannot hold, in place and converted, and compressed
 * .npy files, are refused with the element named. */
START_TEST(bad_values_named_by_element)
{
    make_tmp();
    const char *path = tmp_path("v.npy");
    float f4[12] = {0};
    f4[6] = NAN; /* [1, 2] */
    write_npy(path, 1, F4_34, 0, f4, sizeof f4);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs_read_options o = tsgs_read_options_default();
    o.label_column = 0;
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err), TSGS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(err.message, "element [1, 2] = nan: value "
                                              "is NaN or infinite"));
    double f8[12] = {0};
    f8[11] = 1e300; /* [2, 3] */
    write_npy(path, 1,
              "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 0,
              f8, sizeof f8);
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err), TSGS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(err.message, "element [2, 3] = 1e+300: value "
                                              "is out of range for a float"));
    f8[11] = 0;
    f8[4] = -INFINITY; /* [1, 0], the label column */
    write_npy(path, 1,
              "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 0,
              f8, sizeof f8);
    ck_assert_int_eq(tsgs_dataset_read(path, NULL, &ds, &err), TSGS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(err.message, "element [1, 0] = -inf: label "
                                              "is infinite"));
    ck_assert_ptr_null(ds);
    remove(path);

    /* Large enough for threads and whole scan blocks: the first bad value
     * in row-major order is named, whatever the thread count. */
    size_t big = 3 * 40000;
    float *many = calloc(big, sizeof(float));
    ck_assert_ptr_nonnull(many);
    many[big - 1] = NAN;          /* [2, 39999], a later block */
    many[2 * 40000 + 5] = INFINITY; /* [2, 5]: first */
    many[4095] = 1e30f;           /* finite, last of a block */
    write_npy(path, 1,
              "{'descr': '<f4', 'fortran_order': False, "
              "'shape': (3, 40000), }",
              0, many, sizeof(float) * big);
    for (int t = 1; t <= 4; t++) {
        o.threads = t;
        ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err),
                         TSGS_ERR_DATA);
        ck_assert_msg(strstr(err.message, "element [2, 5] = inf"), "%d: %s",
                      t, err.message);
    }
    many[2 * 40000 + 5] = 0;
    many[big - 1] = 0;
    write_npy(path, 1,
              "{'descr': '<f4', 'fortran_order': False, "
              "'shape': (3, 40000), }",
              0, many, sizeof(float) * big);
    o.threads = 3;
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err), TSGS_OK);
    ck_assert_ptr_nonnull(ds->map);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[4095], 1e30f);
    tsgs_dataset_free(ds);
    ds = NULL;
    free(many);
    remove(path);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "gzip -c " NPY "f4.npy > %s/z.npy.gz",
             tmp_dir);
    if (system(cmd) == 0) {
        const char *gz = tmp_path("z.npy.gz");
        ck_assert_int_eq(tsgs_dataset_read(gz, NULL, &ds, &err),
                         TSGS_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(err.message, "gzip-compressed .npy"));
        remove(gz);
    } else {
        test_skip("bad_values_named_by_element (gzip)", "no gzip");
    }
    rmdir(tmp_dir);
}
END_TEST

/* NumPy's older spellings and label types: shape entries with a Python 2
 * 'L', no trailing comma before '}', unsigned integer labels. */
START_TEST(old_spellings_and_unsigned_labels)
{
    make_tmp();
    const char *path = tmp_path("u.npy"), *lpath = tmp_path("u.labels.npy");
    write_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3L, 4L)}", 0, X, sizeof X);
    const unsigned short u2[3] = {7, 0, 65535};
    write_npy(lpath, 1, "{'descr': '<u2', 'fortran_order': False, "
                        "'shape': (3,), }", 0, u2, sizeof u2);
    tsgs_dataset *ds = test_read_ok(path, NULL);
    check_x(ds, 0, 4);
    check_y(ds, (const double[]){7, 0, 65535});
    tsgs_dataset_free(ds);
    remove(path);
    remove(lpath);
    rmdir(tmp_dir);
}
END_TEST

/* The label and skipped columns must fit the array's columns; a table
 * whose only column is the label has no features; each refusal names the
 * file and the option. */
START_TEST(columns_must_fit_the_array)
{
    static const struct {
        int label_column, skip;
        tsgs_status code;
        const char *says;
    } cases[] = {
        {6, 0, TSGS_ERR_PARAM, "label column 6: the array has only 5 columns"},
        {1, 2, TSGS_ERR_PARAM, "label column 1 is among the 2 skipped columns"},
        {0, 6, TSGS_ERR_PARAM, "skip columns 6: the array has only 5 columns"},
        {-1, 5, TSGS_ERR_PARAM, "label column 5 is among the 5 skipped"},
        {0, 5, TSGS_ERR_DATA, "no features: shape (3, 5)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsgs_read_options o = tsgs_read_options_default();
        o.label_column = cases[i].label_column;
        o.skip_columns = cases[i].skip;
        tsgs_dataset *ds = NULL;
        tsgs_error err;
        ck_assert_int_eq(tsgs_dataset_read(NPY "table_be.npy", &o, &ds, &err),
                         cases[i].code);
        ck_assert_ptr_null(ds);
        ck_assert_str_eq(err.file, NPY "table_be.npy");
        ck_assert_msg(strstr(err.message, cases[i].says), "case %zu: %s", i,
                      err.message);
    }
    make_tmp();
    const char *path = tmp_path("one.npy");
    const float col[3] = {1, -1, 1};
    write_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3, 1), }", 0, col, sizeof col);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_read(path, NULL, &ds, &err), TSGS_ERR_DATA);
    ck_assert_ptr_null(ds);
    ck_assert_msg(strstr(err.message, "no features: shape (3, 1)"), "%s",
                  err.message);
    remove(path);
    rmdir(tmp_dir);
}
END_TEST

/* A header length beyond what a .npy header may be is refused before it
 * is allocated; a directory is not a .npy file; saving needs a dataset
 * and a path. */
START_TEST(header_size_and_file_kind)
{
    make_tmp();
    const char *path = tmp_path("huge.npy");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    /* version 2: a 4-byte length, here 0x7fffff00 */
    static const unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2,
                                           0, 0x00, 0xff, 0xff, 0x7f};
    fwrite(head, 1, sizeof head, f);
    fputs("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n", f);
    fclose(f);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_read(path, NULL, &ds, &err),
                     TSGS_ERR_PARSE);
    ck_assert_ptr_null(ds);
    ck_assert_str_eq(err.file, path);
    ck_assert_msg(strstr(err.message, "header length 2147483392: larger "
                                      "than"),
                  "%s", err.message);
    remove(path);
    ck_assert_int_eq(tsgs__npy_read(tmp_dir, &(tsgs_read_options){0}, &ds,
                                    &err),
                     TSGS_ERR_UNSUPPORTED);
    ck_assert_ptr_null(ds);
    ck_assert_msg(strstr(err.message, "must be a regular file"), "%s",
                  err.message);
    rmdir(tmp_dir);
    ds = test_read_ok(NPY "f4.npy", NULL);
    ck_assert_int_eq(tsgs_dataset_save_npy(NULL, "x.npy", &err),
                     TSGS_ERR_PARAM);
    ck_assert_str_eq(err.message, "tsgs_dataset_save_npy: NULL argument");
    ck_assert_int_eq(tsgs_dataset_save_npy(ds, NULL, &err), TSGS_ERR_PARAM);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("npy");
    tcase_add_loop_test(tc, numpy_files_read_exact, 0,
                        (int)(sizeof good / sizeof good[0]));
    tcase_add_test(tc, options_apply_and_convert);
    tcase_add_test(tc, mapped_rows_append_and_drop);
    tcase_add_test(tc, save_and_read_back_identical);
    tcase_add_test(tc, labels_path_convention);
    tcase_add_loop_test(tc, bad_files_name_file_and_field, 0,
                        (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, truncated_anywhere_fails);
    tcase_add_test(tc, bad_values_named_by_element);
    tcase_add_test(tc, old_spellings_and_unsigned_labels);
    tcase_add_test(tc, columns_must_fit_the_array);
    tcase_add_test(tc, header_size_and_file_kind);
    suite_add_tcase(s, tc);
    return s;
}
