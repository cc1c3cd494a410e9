/* Reader: exact values from hand-made LIBSVM and CSV files with every
 * quirk the real data has (CRLF, blank lines, comments, no final newline,
 * +1 / 1.0 / 0.0e+00 labels), the same file plain and gzip / xz / bzip2,
 * truncated and corrupt archives, every parse error with its file, line
 * and cause, float round trips, and samples of each real dataset. */
#include <check.h>
#include <sys/resource.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"
#include "internal.h"

#define R "data/reader/"

/* Reads text written to a temporary file; returns the status. */
static char tmp_dir[64];

static void make_tmp(void)
{
    test_make_dir(tmp_dir, sizeof tmp_dir, "reader");
}

static void remove_tmp(void)
{
    rmdir(tmp_dir);
}

static tsgs_status read_text(const char *text, const char *name,
                             const tsgs_read_options *o, tsgs_dataset **out,
                             tsgs_error *err, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", tmp_dir, name);
    test_write_text(path, text);
    tsgs__error_clear(err);
    tsgs_status st = tsgs_dataset_read(path, o, out, err);
    remove(path);
    return st;
}

static void check_basic(const char *path)
{
    /* # a comment line\r\n
     * +1 1:0.5 3:-2.25 \r\n
     * -1 qid:7 2:1e3 4:.125\t# trailing comment\n
     * (blank) / (spaces, tab, \r)
     * 1.0 1:-0 2:7\n
     * 0.0e+00\n
     * -1.0 5:3.5            (no final newline) */
    static const float x[5][5] = {{0.5f, 0, -2.25f, 0, 0},
                                  {0, 1000.0f, 0, 0.125f, 0},
                                  {0, 7.0f, 0, 0, 0},
                                  {0, 0, 0, 0, 0},
                                  {0, 0, 0, 0, 3.5f}};
    static const double y[5] = {1, -1, 1, 0, -1};
    tsgs_dataset *ds = test_read_ok(path, NULL);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 5);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 5);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_double_eq(tsgs_dataset_label(ds, i), y[i]);
        for (size_t k = 0; k < 5; k++)
            ck_assert_float_eq(tsgs_dataset_row(ds, i)[k], x[i][k]);
    }
    ck_assert(signbit(tsgs_dataset_row(ds, 2)[0])); /* "-0" */
    tsgs_dataset_free(ds);
}

START_TEST(libsvm_quirks_exact)
{
    check_basic(R "basic.svm");
}
END_TEST

static const char *const compressed[] = {R "basic.svm.gz", R "basic.svm.xz",
                                         R "basic.svm.bz2"};

START_TEST(compressed_same_as_plain)
{
    check_basic(compressed[_i]);
}
END_TEST

static const char *const twice[] = {R "twice.svm.gz", R "twice.svm.xz",
                                    R "twice.svm.bz2"};

START_TEST(concatenated_members_all_read)
{
    /* `cat a.gz a.gz` style files: the second member is read too. The
     * first copy lacks a final newline, so its last line runs into the
     * second copy's "# a comment line", which then is a comment. */
    tsgs_dataset *ds = test_read_ok(twice[_i], NULL);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 10);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 5);
    ck_assert_float_eq(tsgs_dataset_row(ds, 4)[4], 3.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 9)[4], 3.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 6)[1], 1000.0f);
    tsgs_dataset_free(ds);
}
END_TEST

/* The format is told from whole lines. A gzip file of two members split
 * inside the second line ("1\n+1 " | "2:-0.5 53:2\n") gives its first
 * read only "1\n+1 ": deciding on that (no "i:v" yet, so CSV) made it read
 * otherwise than the plain text (found by tests/fuzz/fuzz_reader_packed). */
START_TEST(detection_waits_for_a_whole_line)
{
    make_tmp();
    char path[128];
    snprintf(path, sizeof path, "%s/split.svm.gz", tmp_dir);
    const char *part[2] = {"1\n+1 ", "2:-0.5 53:2\n"};
    for (int i = 0; i < 2; i++) { /* "ab": a second member */
        gzFile z = gzopen(path, i ? "ab" : "wb");
        ck_assert_ptr_nonnull(z);
        ck_assert_int_eq(gzputs(z, part[i]), (int)strlen(part[i]));
        ck_assert_int_eq(gzclose(z), Z_OK);
    }
    tsgs_dataset *ds = test_read_ok(path, NULL);
    remove(path);
    remove_tmp();
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 53);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 1.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[1], -0.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[52], 2.0f);
    tsgs_dataset_free(ds);
}
END_TEST

static const struct {
    const char *path, *kind;
} broken[] = {
    {R "trunc.svm.gz", "gzip"},   {R "trunc.svm.xz", "xz"},
    {R "trunc.svm.bz2", "bzip2"}, {R "half.svm.gz", "gzip"},
    {R "half.svm.xz", "xz"},      {R "half.svm.bz2", "bzip2"},
    {R "corrupt.svm.gz", "gzip"}, {R "corrupt.svm.xz", "xz"},
    {R "corrupt.svm.bz2", "bzip2"},
};

START_TEST(truncated_or_corrupt_archives_fail)
{
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    tsgs_status st = tsgs_dataset_read(broken[_i].path, NULL, &ds, &err);
    ck_assert_int_eq(st, TSGS_ERR_PARSE);
    ck_assert_ptr_null(ds);
    ck_assert_str_eq(err.file, broken[_i].path);
    ck_assert_int_ge(err.line, 1);
    char want[128];
    snprintf(want, sizeof want, "%s:%ld: truncated or corrupt %s data",
             broken[_i].path, err.line, broken[_i].kind);
    ck_assert_str_eq(err.message, want);
}
END_TEST

START_TEST(half_archive_fails_after_the_lines_it_had)
{
    /* The first half of a 300-line file: the error comes after the lines
     * that could be decoded, and names the line where data ran out. */
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_read(R "half.svm.gz", NULL, &ds, &err),
                     TSGS_ERR_PARSE);
    ck_assert_int_gt(err.line, 100);
    ck_assert_int_lt(err.line, 300);
}
END_TEST

/* Rows that cannot be held dense (200 rows with a feature index of 10^7,
 * 8 GB as floats, under a 2 GB address-space limit) are refused naming the
 * file, the shape and the bytes, not "out of memory (reader.c:NNN)". */
START_TEST(wide_file_reads_sparse)
{
#if defined(__SANITIZE_ADDRESS__)
    /* ASan reserves terabytes of address space: no limit can be set */
    test_skip("reader wide_file_reads_sparse", "built with ASan");
    return;
#endif
    make_tmp();
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)2 << 30;
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < lim.rlim_cur)
        lim.rlim_cur = old.rlim_cur;
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
    char *text = malloc(200 * 32);
    text[0] = '\0';
    for (int i = 0; i < 200; i++)
        strcat(text, i % 2 ? "1 10000000:0.5\n" : "-1 1:0.25\n");
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    char path[128];
    tsgs_status st = read_text(text, "wide.svm", &o, &ds, &err, path, sizeof path);
    setrlimit(RLIMIT_AS, &old);
    /* dense these rows take 8e9 bytes, beyond the limit: they are read
     * sparse (their 200 non-zeros) instead of failing */
    ck_assert_msg(st == TSGS_OK, "%s", err.message);
    ck_assert(tsgs_dataset_is_sparse(ds));
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 200);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 10000000);
    ck_assert_uint_eq(tsgs_dataset_nonzeros(ds), 200);
    tsgs_dataset_free(ds);
    free(text);
    remove_tmp();
}
END_TEST

START_TEST(empty_and_missing_files)
{
    const char *empty[] = {R "empty.svm", R "empty.svm.gz", R "blank.svm"};
    for (int i = 0; i < 3; i++) {
        tsgs_dataset *ds = NULL;
        tsgs_error err;
        ck_assert_int_eq(tsgs_dataset_read(empty[i], NULL, &ds, &err),
                         TSGS_ERR_DATA);
        ck_assert_ptr_null(ds);
        ck_assert_str_eq(err.file, empty[i]);
        ck_assert_ptr_nonnull(strstr(err.message, "no data rows"));
        ck_assert_ptr_nonnull(strstr(err.message, empty[i]));
    }
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_read(R "no-such-file.svm", NULL, &ds, &err),
                     TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no-such-file.svm"));
    ck_assert_ptr_null(ds);
    /* a NULL error struct is allowed */
    ck_assert_int_eq(tsgs_dataset_read(R "no-such-file.svm", NULL, &ds, NULL),
                     TSGS_ERR_IO);
    ck_assert_int_eq(tsgs_dataset_read(NULL, NULL, &ds, &err),
                     TSGS_ERR_PARAM);
}
END_TEST

/* Every malformed input: its code, the line and what the message says. */
static const struct {
    const char *text;
    tsgs_format format;
    int label_column;
    tsgs_status code;
    long line;
    const char *says;
} bad[] = {
    {"1 1:2 x:3\n", TSGS_FORMAT_LIBSVM, 1, TSGS_ERR_PARSE, 1,
     "token 3 \"x:3\": index is not a positive integer"},
    {"1 1:1\n-1 0:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 2,
     "token 2 \"0:1\": index is not a positive integer"},
    {"1 1:1\n\n1 3:1 2:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 3,
     "token 3 \"2:1\": index 2 is not above the previous index 3"},
    {"1 1:1 1:2\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "index 1 is not above the previous index 1"},
    {"1 10000001:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 2 \"10000001:1\": index is larger than 10000000"},
    {"1 99999999999999999999999:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "index is larger than 10000000"},
    {"1 2:abc\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 2 \"2:abc\": value is not a number"},
    {"1 2:\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 2 \"2:\": value is not a number"},
    {"1 2:1.5x\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "value is not a number"},
    {"1 2:1e\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "value is not a number"},
    {"1 1:1\n1 2:nan\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 2,
     "token 2 \"2:nan\": value is NaN or infinite"},
    {"1 2:-Inf\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 1,
     "value is NaN or infinite"},
    {"1 2:-Infinity\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 1,
     "token 2 \"2:-Infinity\": value is NaN or infinite"},
    {"infinity 2:1\n", TSGS_FORMAT_LIBSVM, 1, TSGS_ERR_DATA, 1,
     "token 1 \"infinity\": label is NaN or infinite"},
    {"1 2:infinite\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 2 \"2:infinite\": value is not a number"},
    {"1 2:1e39\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 1,
     "token 2 \"2:1e39\": value is out of range for a float"},
    /* exponents past the powers-of-ten table (an out-of-bounds read in
     * decimal_value that only the sanitizer builds saw) */
    {"+1 1:1e399\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 1,
     "token 2 \"1:1e399\": value is out of range for a float"},
    {"1 2:-7.8e401\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 1,
     "value is out of range for a float"},
    {"1,2\n0,7.8e401\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_DATA, 2,
     "column 2 \"7.8e401\": value is out of range for a float"},
    {"NaN 1:1\n", TSGS_FORMAT_LIBSVM, 1, TSGS_ERR_DATA, 1,
     "token 1 \"NaN\": label is NaN or infinite"},
    {"1e999 1:1\n", TSGS_FORMAT_LIBSVM, 1, TSGS_ERR_DATA, 1,
     "label is out of range"},
    {"yes 1:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 1 \"yes\": label is not a number"},
    {"1 1:1\n2:1 3:1\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 2,
     "token 1 \"2:1\": missing label"},
    {"1 1:1 2\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 1,
     "token 3 \"2\": expected index:value"},
    {"1,2,3\n4,5\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 2,
     "fewer columns than the first data row (3)"},
    {"1,2\r\n3,4,5\r\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 2,
     "more columns than the first data row (2)"},
    {"1,2\n3,x\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_PARSE, 2,
     "column 2 \"x\": value is not a number"},
    {"1,2\n,4\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_PARSE, 2,
     "column 1: missing label"},
    {"1,2\n5,\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_PARSE, 2,
     "column 2: empty value"},
    {"1,2\nnan,3\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_DATA, 2,
     "column 1 \"nan\": label is NaN or infinite"},
    {"1,2\n0,inf\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_DATA, 2,
     "column 2 \"inf\": value is NaN or infinite"},
    {"1 2 3\n4 5 6 7\n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_PARSE, 2,
     "more columns than the first data row (3)"},
    {"\n1,2,3\n", TSGS_FORMAT_CSV, 5, TSGS_ERR_PARAM, 2,
     "label column 5: the line has only 3 columns"},
    {"a,b\n", TSGS_FORMAT_CSV, 1, TSGS_ERR_DATA, 0, "no data rows"},
    {"", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 0, "no data rows"},
    {"# nothing\n\n  \n", TSGS_FORMAT_AUTO, 1, TSGS_ERR_DATA, 0,
     "no data rows"},
    {"1\n-1\n", TSGS_FORMAT_LIBSVM, 1, TSGS_ERR_DATA, 0, "no features"},
};

START_TEST(malformed_input_names_file_line_and_cause)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.format = bad[_i].format;
    o.label_column = bad[_i].label_column;
    char path[128], name[32];
    snprintf(name, sizeof name, "bad%d.txt", _i);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    make_tmp();
    tsgs_status st = read_text(bad[_i].text, name, &o, &ds, &err, path,
                               sizeof path);
    remove_tmp();
    ck_assert_msg(st == bad[_i].code, "case %d: status %d (%s)", _i, st,
                  err.message);
    ck_assert_ptr_null(ds);
    ck_assert_int_eq(err.code, bad[_i].code);
    ck_assert_str_eq(err.file, path);
    ck_assert_int_eq(err.line, bad[_i].line);
    char prefix[160];
    if (bad[_i].line > 0)
        snprintf(prefix, sizeof prefix, "%s:%ld: ", path, bad[_i].line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    ck_assert_msg(strncmp(err.message, prefix, strlen(prefix)) == 0,
                  "case %d: \"%s\" does not start with \"%s\"", _i,
                  err.message, prefix);
    ck_assert_msg(strstr(err.message, bad[_i].says) != NULL,
                  "case %d: \"%s\" does not say \"%s\"", _i, err.message,
                  bad[_i].says);
}
END_TEST

START_TEST(bad_options_rejected)
{
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    o.label_column = -3;
    ck_assert_int_eq(tsgs_dataset_read(R "basic.svm", &o, &ds, &err),
                     TSGS_ERR_PARAM);
    o = tsgs_read_options_default();
    o.skip_columns = -1;
    ck_assert_int_eq(tsgs_dataset_read(R "basic.svm", &o, &ds, &err),
                     TSGS_ERR_PARAM);
    o = tsgs_read_options_default();
    o.format = (tsgs_format)7;
    ck_assert_int_eq(tsgs_dataset_read(R "basic.svm", &o, &ds, &err),
                     TSGS_ERR_PARAM);
    /* the label column among the skipped ones */
    o = tsgs_read_options_default();
    o.skip_columns = 2;
    o.label_column = 2;
    make_tmp();
    char path[128];
    ck_assert_int_eq(read_text("1,2,3,4\n", "skip.csv", &o, &ds, &err, path,
                               sizeof path),
                     TSGS_ERR_PARAM);
    remove_tmp();
    ck_assert_ptr_nonnull(strstr(err.message, "skipped"));
    ck_assert_ptr_null(ds);
    /* more skipped columns than the line has */
    o = tsgs_read_options_default();
    o.skip_columns = 5;
    o.label_column = 0;
    make_tmp();
    ck_assert_int_eq(read_text("1,2,3\n", "skip5.csv", &o, &ds, &err, path,
                               sizeof path),
                     TSGS_ERR_PARAM);
    remove_tmp();
    ck_assert_str_eq(err.file, path);
    ck_assert_msg(strstr(err.message, ":1: skip columns 5: the line has "
                                      "only 3 columns"),
                  "%s", err.message);
    ck_assert_ptr_null(ds);
    /* a model's width beyond any index a file may hold */
    o = tsgs_read_options_default();
    o.min_features = 10000001;
    ck_assert_int_eq(tsgs_dataset_read(R "basic.svm", &o, &ds, &err),
                     TSGS_ERR_PARAM);
    ck_assert_msg(strstr(err.message, "min features 10000001 is larger than "
                                      "10000000"),
                  "%s", err.message);
    ck_assert_ptr_null(ds);
}
END_TEST


static tsgs_dataset *text_ok(const char *text, const tsgs_read_options *o)
{
    char path[128];
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    make_tmp();
    tsgs_status st = read_text(text, "ok.txt", o, &ds, &err, path,
                               sizeof path);
    remove_tmp();
    ck_assert_msg(st == TSGS_OK, "%s", err.message);
    return ds;
}

/* A label of 600 characters (more digits than a double holds, so it is
 * not read exactly by the fast path) is refused as a label that is not a
 * number, quoted to its first 40 characters and "..."; a long exact one
 * reads. */
START_TEST(long_tokens_quoted_short)
{
    char text[1400], want[80];
    memset(text, '1', 600);
    text[1] = '.';
    snprintf(text + 600, sizeof text - 600, " 1:1\n");
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_LIBSVM;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    char path[128];
    make_tmp();
    ck_assert_int_eq(read_text(text, "long.svm", &o, &ds, &err, path,
                               sizeof path),
                     TSGS_ERR_PARSE);
    remove_tmp();
    ck_assert_ptr_null(ds);
    snprintf(want, sizeof want, "token 1 \"%.40s...\": label is not a number",
             text);
    ck_assert_msg(strstr(err.message, want), "%s lacks %s", err.message,
                  want);
    ck_assert_int_eq(err.line, 1);
    /* 400 digits: within what the label parser copies, read as strtod does */
    snprintf(text + 400, sizeof text - 400, " 1:1\n");
    ds = text_ok(text, &o);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.1111111111111111);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(csv_header_columns_and_separators)
{
    tsgs_read_options o = tsgs_read_options_default();
    /* header detected, CRLF, spaces around fields, quoted names, label
     * last, no final newline */
    o.label_column = -1;
    tsgs_dataset *ds = text_ok("\"a\", \"b\" ,label\r\n1.5, -2 ,1\r\n"
                               "\r\n3,4e-1,0\t \r\n-0.25,8,1",
                               &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 3);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 1.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], -2.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[1], 0.4f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 2)[0], -0.25f);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 0.0);
    tsgs_dataset_free(ds);

    /* the default finds the label column by its header's name: last,
     * quoted, any case; in the middle; y; none named: the first */
    o = tsgs_read_options_default();
    ds = text_ok("a,b,\"Label\"\n1.5,-2,1\n3,4,0\n", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 0.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[0], 3.0f);
    tsgs_dataset_free(ds);
    ds = text_ok("f1, TARGET ,f2\n0.5,2,7\n0.25,3,8\n", &o);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 3.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[1], 8.0f);
    tsgs_dataset_free(ds);
    ds = text_ok("x1 x2 y\n0.5 2 -1\n0.25 3 1\n", &o);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), -1.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], 2.0f);
    tsgs_dataset_free(ds);
    ds = text_ok("labels,f1,class_id\n1,2,3\n0,5,6\n", &o);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 0.0); /* no name: first */
    tsgs_dataset_free(ds);
    /* an explicit column wins over the name */
    o.label_column = 1;
    ds = text_ok("a,b,label\n1.5,-2,1\n", &o);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.5);
    tsgs_dataset_free(ds);

    /* first column label (default), all-numeric first line is data */
    o = tsgs_read_options_default();
    ds = text_ok("2,10,20\n1,30,40\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 2.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[1], 40.0f);
    tsgs_dataset_free(ds);

    /* header forced on and off */
    o.header = 1;
    ds = text_ok("2,10,20\n1,30,40\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 1);
    tsgs_dataset_free(ds);

    /* skip an index column, label in file column 2 (the SUSY layout) */
    o = tsgs_read_options_default();
    o.skip_columns = 1;
    o.label_column = 2;
    ds = text_ok(",clase,0,1\n4782808,1.0,0.5,7\n17,0.0,-1,2\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 2);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 0.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[1], 2.0f);
    tsgs_dataset_free(ds);

    /* no label column: every row unlabeled; blank-separated columns */
    o = tsgs_read_options_default();
    o.label_column = 0;
    ds = text_ok("1 2\t3\n  4 5 6  \n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 3);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 0);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(ds, 1)));
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[2], 6.0f);
    tsgs_dataset_free(ds);

    /* a UTF-8 byte order mark before the first (data) line */
    o = tsgs_read_options_default();
    ds = text_ok("\xef\xbb\xbf" "1,2\n0,3\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    tsgs_dataset_free(ds);

    /* min_features pads CSV rows with zeros too */
    o = tsgs_read_options_default();
    o.min_features = 4;
    ds = text_ok("1,2\n-1,3\n", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 4);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[0], 3.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[3], 0.0f);
    tsgs_dataset_free(ds);
}
END_TEST

/* What tsgs_dataset_layout reports: the options as the reader resolved
 * them (the label column the header named, "last" as said, none), the
 * header seen or not, the columns; LIBSVM the format alone; the unlabeled
 * label as given; the blocks of a tsgs_reader the same; rows built in
 * memory none. TSGS_FORMAT_NPY asked of a text file reads it as AUTO. */
START_TEST(layout_as_resolved)
{
    static const char *const csv = "id,f1,target,f2\n0,1.5,1,2\n1,2.5,-1,3\n";
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1;
    tsgs_dataset *ds = text_ok(csv, &o);
    tsgs_data_layout L;
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.known, 1);
    ck_assert_int_eq(L.format, TSGS_FORMAT_CSV);
    ck_assert_int_eq(L.label_column, 3);
    ck_assert_int_eq(L.skip_columns, 1);
    ck_assert_int_eq(L.header, 1);
    ck_assert_uint_eq(L.columns, 4);
    ck_assert_int_eq(L.has_unlabeled_label, 0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), -1.0);
    tsgs_dataset_free(ds);

    /* no header, the label last (said so), 0 unlabeled */
    o = tsgs_read_options_default();
    o.label_column = -1;
    o.has_unlabeled_label = 1;
    o.unlabeled_label = 0.0;
    ds = text_ok("1,2,1\n3,4,0\n", &o);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.label_column, -1);
    ck_assert_int_eq(L.header, 0);
    ck_assert_uint_eq(L.columns, 3);
    ck_assert_int_eq(L.has_unlabeled_label, 1);
    ck_assert_double_eq(L.unlabeled_label, 0.0);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 1);
    tsgs_dataset_free(ds);

    /* no label column; an auto label column without a header: the first */
    o = tsgs_read_options_default();
    o.label_column = 0;
    ds = text_ok("1,2,1\n3,4,0\n", &o);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.label_column, 0);
    tsgs_dataset_free(ds);
    ds = text_ok("1,2,1\n3,4,0\n", NULL);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.label_column, 1);
    tsgs_dataset_free(ds);

    /* LIBSVM: the format; NPY asked of it: read as AUTO */
    o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_NPY;
    ds = text_ok("1 1:2 3:4\n-1 2:1\n", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 3);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.known, 1);
    ck_assert_int_eq(L.format, TSGS_FORMAT_LIBSVM);
    ck_assert_int_eq(L.label_column, 0);
    ck_assert_uint_eq(L.columns, 0);
    tsgs_dataset_free(ds);

    /* a block of a tsgs_reader: the same as the whole read */
    char path[128];
    make_tmp();
    snprintf(path, sizeof path, "%s/blocks.csv", tmp_dir);
    test_write_text(path, csv);
    o = tsgs_read_options_default();
    o.skip_columns = 1;
    tsgs_reader *r = NULL;
    ck_assert_int_eq(tsgs_reader_open(path, &o, &r, NULL), TSGS_OK);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(tsgs_reader_next(r, 1, &ds, NULL), TSGS_OK);
        tsgs_dataset_layout(ds, &L);
        ck_assert_int_eq(L.format, TSGS_FORMAT_CSV);
        ck_assert_int_eq(L.label_column, 3);
        ck_assert_int_eq(L.header, 1);
        ck_assert_uint_eq(L.columns, 4);
        tsgs_dataset_free(ds);
    }
    tsgs_reader_close(r);
    remove(path);
    remove_tmp();

    /* rows from memory, or no dataset: none */
    const float x[2] = {1, 2};
    ck_assert_int_eq(tsgs_dataset_from_dense(1, 2, x, NULL, &ds, NULL),
                     TSGS_OK);
    tsgs_dataset_layout(ds, &L);
    ck_assert_int_eq(L.known, 0);
    tsgs_dataset_free(ds);
    tsgs_dataset_layout(NULL, &L);
    ck_assert_int_eq(L.known, 0);
    tsgs_dataset_layout(NULL, NULL); /* nothing to write: nothing done */
}
END_TEST

START_TEST(format_detection)
{
    tsgs_read_options o = tsgs_read_options_default();
    /* a first row with no features does not make it CSV */
    tsgs_dataset *ds = text_ok("1\n# c\n-1 3:2\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 3);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[2], 2.0f);
    tsgs_dataset_free(ds);
    /* forced CSV on blank-separated numbers */
    o.format = TSGS_FORMAT_CSV;
    ds = text_ok("1 2\n3 4\n", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 1);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 3.0);
    tsgs_dataset_free(ds);
}
END_TEST

/* Values whose exponent takes decimal_value past its 23 powers of ten:
 * scaled in steps of 1e22 to the nearest float, or zero. Exponents that
 * overflow are bad[]'s cases: there the old code, once the value was
 * infinite, indexed the table with the exponent left over (only the
 * sanitizer build, make test-asan, sees that read). */
START_TEST(exponents_beyond_the_table)
{
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = text_ok("1 1:1e23 2:123456789e-30 3:1e-500 "
                               "4:0.1e39 5:1e-45\n", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 5);
    const float *x = tsgs_dataset_row(ds, 0);
    ck_assert_float_eq_tol(x[0], 1e23f, 1e23f * 1e-7f);
    ck_assert_float_eq_tol(x[1], 1.23456789e-22f, 1.23456789e-22f * 1e-7f);
    ck_assert_float_eq(x[2], 0.0f);
    ck_assert_float_eq_tol(x[3], 1e38f, 1e38f * 1e-7f);
    ck_assert_float_eq(x[4], (float)1e-45); /* the smallest subnormal */
    tsgs_dataset_free(ds);
    /* a header token with a huge exponent is still a header name */
    ds = text_ok("label,7.8e401\n1,2\n0,3\n", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 0.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[0], 3.0f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(unlabeled_marker_and_min_features)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.has_unlabeled_label = 1;
    o.unlabeled_label = 0.0; /* SVMlight's transductive rows */
    o.min_features = 8;
    tsgs_dataset *ds = test_read_ok(R "basic.svm", &o);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 8);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 4);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(ds, 3)));
    ck_assert_double_eq(tsgs_dataset_label(ds, 4), -1.0);
    ck_assert_float_eq(tsgs_dataset_row(ds, 4)[4], 3.5f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 4)[7], 0.0f);
    tsgs_dataset_free(ds);
    /* UniverSVM's -3 in a CSV */
    o = tsgs_read_options_default();
    o.has_unlabeled_label = 1;
    o.unlabeled_label = -3;
    ds = text_ok("1,0\n-3,1\n-3.0,2\n-1,3\n", &o);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 2);
    ck_assert(tsgs_is_unlabeled(tsgs_dataset_label(ds, 2)));
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(numbers_exact)
{
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = text_ok(
        "1.000000000000000000e+00 1:0.1 2:3.4028234e38 3:1e-45 "
        "4:0.12345678901234567890123 5:-1.5E+2 6:+7 7:5. 8:00012 "
        "9:123456789012345678901234567890 10:0.000000000000000000000000000031\n"
        "0.1 1:1\n"
        "+1 1:1\n"
        "-0.0e+00 1:1\n"
        "123456789012345678901 1:1\n",
        &o);
    const float *r = tsgs_dataset_row(ds, 0);
    ck_assert_float_eq(r[0], 0.1f);
    ck_assert_float_eq(r[1], FLT_MAX);
    ck_assert_float_eq(r[2], 1e-45f);
    ck_assert_float_eq(r[3], 0.12345678901234567890123f);
    ck_assert_float_eq(r[4], -150.0f);
    ck_assert_float_eq(r[5], 7.0f);
    ck_assert_float_eq(r[6], 5.0f);
    ck_assert_float_eq(r[7], 12.0f);
    ck_assert_float_eq(r[8], 123456789012345678901234567890.0f);
    ck_assert_float_eq(r[9], 3.1e-29f);
    ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), 0.1); /* exact double */
    ck_assert_double_eq(tsgs_dataset_label(ds, 2), 1.0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 3), 0.0);
    ck_assert_double_eq(tsgs_dataset_label(ds, 4), 123456789012345678901.0);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(random_floats_round_trip)
{
    /* Any finite float printed with 9 digits reads back bit for bit,
     * denormals and extremes included. */
    enum { N = 3000 };
    size_t cap = (size_t)N * 24 + 64;
    char *text = malloc(cap);
    float *want = malloc(sizeof(float) * N);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(want);
    size_t len = 0;
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t bits = (uint32_t)(s >> 32);
        float f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f))
            f = (float)i;
        want[i] = f;
        len += (size_t)snprintf(text + len, cap - len, "%d,%.9g\n", i % 2, f);
    }
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = text_ok(text, &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(memcmp(tsgs_dataset_row(ds, (size_t)i), &want[i],
                             sizeof(float)) == 0 ||
                          (want[i] == 0 && tsgs_dataset_row(ds, (size_t)i)[0] == 0),
                      "row %d: %.9g read as %.9g", i, want[i],
                      tsgs_dataset_row(ds, (size_t)i)[0]);
    tsgs_dataset_free(ds);
    free(text);
    free(want);
}
END_TEST

START_TEST(long_lines_grow_the_buffer)
{
    /* One 5 MB line (wider than the first read buffer). */
    const size_t d = 400000;
    size_t cap = d * 16 + 64, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text, cap, "-1");
    for (size_t k = 1; k <= d; k++)
        len += (size_t)snprintf(text + len, cap - len, " %zu:%zu", k, k % 97);
    snprintf(text + len, cap - len, "\n1 7:1\n");
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = text_ok(text, &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_uint_eq(tsgs_dataset_features(ds), d);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[d - 1], (float)(d % 97));
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[6], 1.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 1)[7], 0.0f);
    tsgs_dataset_free(ds);
    free(text);
}
END_TEST

/* A line longer than the reader's limit (set low through the test hook)
 * is an error naming the file and the line, and nothing is read; a line
 * of exactly the limit reads. */
START_TEST(line_over_the_limit_fails)
{
    char text[512], path[128], want[160];
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    const size_t old = tsgs__read_line_max(64);
    /* line 3: a row padded with blanks to 64 bytes; then line 4: 65 */
    size_t k = (size_t)snprintf(text, sizeof text, "-1 1:1\n# c\n%-64s\n",
                                "1 1:0.5");
    ck_assert_uint_eq(k, 7 + 4 + 65);
    make_tmp();
    tsgs_status st = read_text(text, "limit.svm", NULL, &ds, &err, path,
                               sizeof path);
    ck_assert_msg(st == TSGS_OK, "%s", err.message);
    tsgs_dataset_free(ds);
    ds = NULL;
    snprintf(text + k, sizeof text - k, "%-65s\n1 2:1\n", "1 1:2");
    st = read_text(text, "limit.svm", NULL, &ds, &err, path, sizeof path);
    remove_tmp();
    tsgs__read_line_max(old);
    ck_assert_int_eq(st, TSGS_ERR_PARSE);
    ck_assert_ptr_null(ds);
    ck_assert_int_eq(err.line, 4);
    snprintf(want, sizeof want, "%s:4: line longer than 64 bytes", path);
    ck_assert_msg(strstr(err.message, want), "%s", err.message);
}
END_TEST

/* The same through a compressed stream, where the buffer grows for a long
 * line: up to the limit (a 4.5 MiB line reads under a 5 MiB limit), not
 * past it (a 6 MiB line fails, and no more than ~5 MiB is held for it). */
START_TEST(long_compressed_line_stops_at_the_limit)
{
    const size_t mib = (size_t)1 << 20, old = tsgs__read_line_max(5 * mib);
    char path[128];
    make_tmp();
    snprintf(path, sizeof path, "%s/long.csv.gz", tmp_dir);
    for (int over = 0; over <= 1; over++) {
        const size_t len = over ? 6 * mib : 4 * mib + mib / 2;
        char *line = malloc(len + 1);
        ck_assert_ptr_nonnull(line);
        for (size_t i = 0; i < len; i += 2)
            memcpy(line + i, "1,", 2);
        line[len - 1] = '\n';
        gzFile z = gzopen(path, "wb");
        ck_assert_ptr_nonnull(z);
        ck_assert_int_eq(gzputs(z, "1,2,3\n"), 6);
        ck_assert_int_eq(gzwrite(z, line, (unsigned)len), (int)len);
        ck_assert_int_eq(gzclose(z), Z_OK);
        free(line);
        tsgs_read_options o = tsgs_read_options_default();
        o.header = 0;
        tsgs_dataset *ds = NULL;
        tsgs_error err;
        tsgs_status st = tsgs_dataset_read(path, &o, &ds, &err);
        if (over) {
            ck_assert_int_eq(st, TSGS_ERR_PARSE);
            ck_assert_int_eq(err.line, 2);
            ck_assert_msg(strstr(err.message, "long.csv.gz:2: line longer "
                                              "than 5242880 bytes"),
                          "%s", err.message);
        } else {
            /* the long row has more columns than the first: read to its
             * end, it fails on its columns, not on its length */
            ck_assert_int_eq(st, TSGS_ERR_PARSE);
            ck_assert_msg(strstr(err.message, ":2: more columns"), "%s",
                          err.message);
        }
    }
    remove(path);
    remove_tmp();
    tsgs__read_line_max(old);
}
END_TEST

/* ------------------------------------------------------- real samples */

static void count_labels(const tsgs_dataset *ds, double a, size_t na,
                         double b, size_t nb)
{
    size_t ca = 0, cb = 0;
    for (size_t i = 0; i < tsgs_dataset_rows(ds); i++) {
        double y = tsgs_dataset_label(ds, i);
        ca += y == a;
        cb += y == b;
    }
    ck_assert_uint_eq(ca, na);
    ck_assert_uint_eq(cb, nb);
}

START_TEST(real_cod_rna_full)
{
    tsgs_dataset *ds = test_read_ok("data/real/cod-rna.txt.xz", NULL);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 59535);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 8);
    count_labels(ds, -1, 39690, 1, 19845);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], -766.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], 128.0f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(real_ijcnn1_sample)
{
    /* labels written -1.0 / 1.0, bzip2 as the source ships it */
    tsgs_dataset *ds = test_read_ok(R "real/ijcnn1_300.svm.bz2", NULL);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 22);
    count_labels(ds, -1, 295, 1, 5);
    /* -1.0 6:1 11:-0.731854 12:0.173431 13:0.0 14:0.00027 ... */
    const float *r = tsgs_dataset_row(ds, 0);
    ck_assert_float_eq(r[5], 1.0f);
    ck_assert_float_eq(r[10], -0.731854f);
    ck_assert_float_eq(r[13], 0.00027f);
    ck_assert_float_eq(r[0], 0.0f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(real_w8a_sample)
{
    /* +1 labels, trailing spaces, a final empty line */
    tsgs_read_options o = tsgs_read_options_default();
    o.min_features = 300; /* the sample's largest index is 299 */
    tsgs_dataset *ds = test_read_ok(R "real/w8a_300.svm.xz", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 299);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 300);
    count_labels(ds, -1, 249, 1, 50);
    /* line 101: +1 185:1 196:1 205:1 245:1 290:1 291:1 295:1 */
    const float *r = tsgs_dataset_row(ds, 100);
    ck_assert_double_eq(tsgs_dataset_label(ds, 100), 1.0);
    ck_assert_float_eq(r[184], 1.0f);
    ck_assert_float_eq(r[294], 1.0f);
    ck_assert_float_eq(r[183], 0.0f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(real_skin_sample)
{
    /* CRLF, header r,g,b,skin, labels 1 / 2 last, no final newline */
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_CSV;
    o.label_column = -1;
    tsgs_dataset *ds = test_read_ok(R "real/skin_301.csv.xz", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 3);
    count_labels(ds, 1, 150, 2, 150);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 74.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[2], 123.0f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 299)[0], 255.0f); /* last line */
    ck_assert_double_eq(tsgs_dataset_label(ds, 299), 2.0);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(real_higgs_samples)
{
    /* this copy moved the label last, under the header name "label": the
     * default finds it there, as --label-column last does */
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds = test_read_ok(R "real/higgs_301.csv.gz", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 28);
    count_labels(ds, 0, 143, 1, 157);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 0.34186098f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], -1.313937902f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[27], 0.770485938f);
    tsgs_dataset_free(ds);
    /* UCI layout: label first, %.18e numbers, no header */
    o = tsgs_read_options_default();
    ds = test_read_ok(R "real/higgs_uci_300.csv.bz2", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 28);
    count_labels(ds, 0, 153, 1, 147);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 6.238780021667480469e-01f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(real_susy_sample)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1; /* the UCI row index */
    o.label_column = 2;
    tsgs_dataset *ds = test_read_ok(R "real/susy_301.csv.xz", &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 18);
    count_labels(ds, 0, 175, 1, 125);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 0.5147738456726073f);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], 1.0648096799850464f);
    tsgs_dataset_free(ds);
}
END_TEST

/* The published layouts of the full UCI files, in SYNTHETIC fixtures that
 * `tsgs3vm synth` wrote (see data/SOURCE.md): SUSY.csv (no header, label
 * first as %.18e, 18 features), plain and gzip, and HEPMASS all_train.csv
 * (header "# label,f0,...,f26,mass", labels 1 / 0 or 1.0 / 0.0). */
START_TEST(susy_published_layout)
{
    const char *files[] = {R "synth_susy_100.csv", R "synth_susy_100.csv.gz"};
    for (int t = 0; t < 2; t++) {
        tsgs_dataset *ds = test_read_ok(files[t], NULL); /* the defaults do */
        ck_assert_uint_eq(tsgs_dataset_rows(ds), 100);
        ck_assert_uint_eq(tsgs_dataset_features(ds), 18);
        count_labels(ds, 0, 59, 1, 41);
        ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
        ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0],
                           2.536422252655029297e+00f);
        tsgs_dataset_free(ds);
    }
}
END_TEST

START_TEST(hepmass_published_layout)
{
    const char *files[] = {R "synth_hepmass_100.csv",
                           R "synth_hepmass_100_float.csv"};
    for (int t = 0; t < 2; t++) {
        /* the '#' header is neither data nor in the way, whatever the
         * header setting: yes must not take the first data row for it */
        for (int header = -1; header <= 1; header++) {
            tsgs_read_options o = tsgs_read_options_default();
            o.header = header;
            tsgs_dataset *ds = test_read_ok(files[t], &o);
            ck_assert_uint_eq(tsgs_dataset_rows(ds), 100);
            ck_assert_uint_eq(tsgs_dataset_features(ds), 28);
            count_labels(ds, 0, 47, 1, 53);
            ck_assert_double_eq(tsgs_dataset_label(ds, 0), 1.0);
            ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 1.374407f);
            tsgs_dataset_free(ds);
        }
    }
}
END_TEST

START_TEST(hash_header_with_header_yes)
{
    /* header = yes: a first "# a,b,c" line with as many fields as the
     * data is the header; otherwise the next line still is. */
    char path[256];
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs_read_options o = tsgs_read_options_default();
    o.header = 1;
    make_tmp();
    ck_assert_int_eq(read_text("# label,a,b\n1,2,3\n0,4,5\n", "h1.csv", &o,
                               &ds, &err, path, sizeof path),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[0], 2.0f);
    tsgs_dataset_free(ds);
    ck_assert_int_eq(read_text("# made by hand, today\nlabel,a,b\n1,2,3\n",
                               "h2.csv", &o, &ds, &err, path, sizeof path),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 1);
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[1], 3.0f);
    tsgs_dataset_free(ds);
    ck_assert_int_eq(read_text("# a comment\n2,20\n1,2\n", "h3.csv", &o,
                               &ds, &err, path, sizeof path),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 1); /* 2,20 was the header */
    tsgs_dataset_free(ds);
    remove_tmp();
}
END_TEST

/* The full files in the project's shared data folder, when this checkout
 * sits next to it (TSGS_SHARED_DATA overrides; skipped when absent). */
static const struct {
    const char *file;
    int label_column, skip;
    size_t rows, features;
    double a, b;
    size_t na, nb;
} shared[] = {
    {"cod-rna/cod-rna.txt.xz", 1, 0, 59535, 8, -1, 1, 39690, 19845},
    {"cod-rna/cod-rna.t.xz", 1, 0, 271617, 8, -1, 1, 181078, 90539},
    {"ijcnn1/ijcnn1.trn.bz2", 1, 0, 49990, 22, -1, 1, 45137, 4853},
    {"ijcnn1/ijcnn1.tst.bz2", 1, 0, 91701, 22, -1, 1, 82989, 8712},
    {"w8a/w8a.xz", 1, 0, 49749, 300, -1, 1, 48270, 1479},
    {"skin_nonskin/Skin_NonSkin.txt.xz", -1, 0, 245057, 3, 1, 2, 50859,
     194198},
    {"higgs/higgs.csv.xz", -1, 0, 10984, 28, 0, 1, 5163, 5821},
    {"higgs/higgs_test_5k.csv.xz", 1, 0, 5000, 28, 0, 1, 2315, 2685},
    {"susy/SUSY_test.csv.xz", 2, 1, 10000, 18, 0, 1, 5409, 4591},
    {"coil20/COIL20.csv.xz", 1, 0, 1440, 1024, 1, 20, 72, 72},
    {"susy_lowlevel8_zscore/susy_10Kn_train_label.csv.xz", 1, 0, 10000, 0,
     -1, 1, 5372, 4628},
};

START_TEST(shared_data_full_files)
{
    const char *dir = getenv("TSGS_SHARED_DATA");
    if (!dir)
        dir = "../../shared/data";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, shared[_i].file);
    if (access(path, R_OK) != 0) {
        test_skip("reader shared_data_full_files", path); /* no ../shared */
        return;
    }
    tsgs_read_options o = tsgs_read_options_default();
    o.label_column = shared[_i].label_column;
    o.skip_columns = shared[_i].skip;
    o.min_features = shared[_i].features ? 0 : 1; /* a label-only file */
    tsgs_dataset *ds = test_read_ok(path, &o);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), shared[_i].rows);
    ck_assert_uint_eq(tsgs_dataset_features(ds),
                      shared[_i].features ? shared[_i].features : 1);
    count_labels(ds, shared[_i].a, shared[_i].na, shared[_i].b,
                 shared[_i].nb);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *reader_suite(void)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("libsvm");
    tcase_add_test(tc, libsvm_quirks_exact);
    tcase_add_test(tc, unlabeled_marker_and_min_features);
    tcase_add_test(tc, numbers_exact);
    tcase_add_test(tc, random_floats_round_trip);
    tcase_add_test(tc, long_lines_grow_the_buffer);
    tcase_add_test(tc, format_detection);
    tcase_add_test(tc, exponents_beyond_the_table);
    suite_add_tcase(s, tc);
    tc = tcase_create("csv");
    tcase_add_test(tc, csv_header_columns_and_separators);
    tcase_add_test(tc, layout_as_resolved);
    suite_add_tcase(s, tc);
    tc = tcase_create("compressed");
    tcase_add_loop_test(tc, compressed_same_as_plain, 0, 3);
    tcase_add_loop_test(tc, concatenated_members_all_read, 0, 3);
    tcase_add_test(tc, detection_waits_for_a_whole_line);
    tcase_add_loop_test(tc, truncated_or_corrupt_archives_fail, 0,
                        (int)(sizeof broken / sizeof broken[0]));
    tcase_add_test(tc, half_archive_fails_after_the_lines_it_had);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, malformed_input_names_file_line_and_cause, 0,
                        (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, empty_and_missing_files);
    tcase_add_test(tc, wide_file_reads_sparse);
    tcase_add_test(tc, bad_options_rejected);
    tcase_add_test(tc, long_tokens_quoted_short);
    tcase_add_test(tc, line_over_the_limit_fails);
    tcase_add_test(tc, long_compressed_line_stops_at_the_limit);
    suite_add_tcase(s, tc);
    tc = tcase_create("real");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, real_cod_rna_full);
    tcase_add_test(tc, real_ijcnn1_sample);
    tcase_add_test(tc, real_w8a_sample);
    tcase_add_test(tc, real_skin_sample);
    tcase_add_test(tc, real_higgs_samples);
    tcase_add_test(tc, real_susy_sample);
    tcase_add_test(tc, susy_published_layout);
    tcase_add_test(tc, hepmass_published_layout);
    tcase_add_test(tc, hash_header_with_header_yes);
    tcase_add_loop_test(tc, shared_data_full_files, 0,
                        (int)(sizeof shared / sizeof shared[0]));
    suite_add_tcase(s, tc);
    return s;
}
