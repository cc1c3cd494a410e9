/* Reading in blocks (tsgs_reader_*): the blocks, one after another, hold
 * tsgs_dataset_read's rows and labels, whatever the block size, for text
 * plain and compressed, CSV with its header quirks and .npy; the errors
 * are the whole read's, with the file's own line numbers, after the
 * blocks before them; a file without rows fails at once; a long line
 * stops the read as it stops the whole one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

#define R "data/reader/"

static char tmp_dir[64], path[128];

static void setup(void)
{
    test_make_dir(tmp_dir, sizeof tmp_dir, "stream");
    snprintf(path, sizeof path, "%s/data.txt", tmp_dir);
}

static void teardown(void)
{
    test_remove_dir(tmp_dir);
}

static void write_text(const char *text)
{
    test_write_text(path, text);
}

/* Labels equal, NaN (unlabeled) included. */
static int same_label(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Reads file in blocks of `rows` and checks them against the whole
 * read `ref`: every row in order, zeros beyond a block's width. Returns
 * the number of blocks. */
static size_t check_blocks(const char *file, const tsgs_read_options *o,
                           size_t rows, const tsgs_dataset *ref)
{
    tsgs_reader *r = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_reader_open(file, o, &r, &err) == TSGS_OK, "%s: %s",
                  file, err.message);
    const size_t d = ref->d;
    float *a = malloc(sizeof(float) * d), *b = malloc(sizeof(float) * d);
    ck_assert(a && b);
    size_t i = 0, blocks = 0;
    for (;;) {
        tsgs_dataset *blk = NULL;
        ck_assert_msg(tsgs_reader_next(r, rows, &blk, &err) == TSGS_OK,
                      "%s: %s", file, err.message);
        if (!blk)
            break;
        blocks++;
        ck_assert_uint_gt(blk->n, 0);
        ck_assert_uint_le(blk->n, rows);
        ck_assert_uint_le(blk->d, d);
        /* only the last block is short */
        ck_assert_msg(blk->n == rows || i + blk->n == ref->n,
                      "%s: a block of %zu rows at row %zu of %zu", file,
                      blk->n, i, ref->n);
        for (size_t k = 0; k < blk->n; k++, i++) {
            ck_assert_uint_lt(i, ref->n);
            tsgs__row_dense(ref, i, a);
            memset(b, 0, sizeof(float) * d);
            tsgs__row_dense(blk, k, b);
            ck_assert_msg(memcmp(a, b, sizeof(float) * d) == 0,
                          "%s: row %zu differs (blocks of %zu)", file, i,
                          rows);
            ck_assert_msg(same_label(ref->y[i], blk->y[k]),
                          "%s: label %zu: %g vs %g", file, i, ref->y[i],
                          blk->y[k]);
        }
        tsgs_dataset_free(blk);
    }
    ck_assert_uint_eq(i, ref->n);
    /* the end stays the end */
    tsgs_dataset *blk = (tsgs_dataset *)1;
    ck_assert_int_eq(tsgs_reader_next(r, rows, &blk, &err), TSGS_OK);
    ck_assert_ptr_null(blk);
    tsgs_reader_close(r);
    free(a);
    free(b);
    return blocks;
}

static void check_file(const char *file, const tsgs_read_options *o)
{
    tsgs_dataset *ref = test_read_ok(file, o);
    static const size_t sizes[] = {1, 2, 3, 7, 64, 100000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t blocks = check_blocks(file, o, sizes[s], ref);
        ck_assert_uint_eq(blocks, (ref->n + sizes[s] - 1) / sizes[s]);
    }
    tsgs_dataset_free(ref);
}

static const struct {
    const char *file;
    int header, label_column, skip;
} files[] = {
    {R "basic.svm", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "basic.svm.gz", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "basic.svm.xz", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "basic.svm.bz2", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "basic.svm.zst", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "twice.svm.gz", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "synth_hepmass_100.csv", 1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "synth_susy_100.csv.gz", 0, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "real/skin_301.csv.xz", -1, -1, 0},
    {R "real/w8a_300.svm.xz", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {R "real/ijcnn1_300.svm.bz2", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {"data/npy/f4.npy", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {"data/npy/f8.npy", -1, TSGS_LABEL_COLUMN_AUTO, 0},
    {"data/npy/fortran.npy", -1, TSGS_LABEL_COLUMN_AUTO, 0},
};

START_TEST(blocks_hold_the_whole_read)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.header = files[_i].header;
    o.label_column = files[_i].label_column;
    o.skip_columns = files[_i].skip;
    o.threads = 2;
    check_file(files[_i].file, &o);
    /* padded to a model's width, as predict reads */
    o.min_features = 4000;
    check_file(files[_i].file, &o);
}
END_TEST

/* The CSV header decided on the first lines (a "# label,..." comment, a
 * header by name, a BOM) only once: later blocks' first lines are rows. */
START_TEST(csv_header_only_at_the_start)
{
    write_text("\xef\xbb\xbf# y,a,b\n"
               "a,b,y\n"
               "1,2,1\n"
               "3,4,-1\n"
               "\n"
               "5,6,1\n"
               "# note\n"
               "7,8,-1\n"
               "9,10,1\n");
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ref = test_read_ok(path, &o);
    ck_assert_uint_eq(ref->n, 5);
    ck_assert_uint_eq(ref->d, 2);
    ck_assert_double_eq(ref->y[1], -1.0); /* the header named column 3 */
    for (size_t rows = 1; rows <= 6; rows++)
        check_blocks(path, &o, rows, ref);
    tsgs_dataset_free(ref);
}
END_TEST

/* A bad line deep in the file: the blocks before it arrive whole, then
 * the same error as the whole read's, with the file's line number; the
 * reader then refuses to go on. */
START_TEST(error_after_the_blocks_before_it)
{
    char text[8192];
    size_t k = 0;
    for (int i = 1; i <= 100; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, i == 77 ? "1 2:x\n"
                                                         : "%d 1:%d\n",
                              i % 2 ? 1 : -1, i);
    write_text(text);
    tsgs_dataset *ds = NULL;
    tsgs_error whole, err;
    ck_assert_int_eq(tsgs_dataset_read(path, NULL, &ds, &whole),
                     TSGS_ERR_PARSE);
    ck_assert_int_eq(whole.line, 77);
    for (size_t rows = 1; rows <= 100; rows += 9) {
        tsgs_reader *r = NULL;
        ck_assert_int_eq(tsgs_reader_open(path, NULL, &r, &err), TSGS_OK);
        size_t got = 0;
        tsgs_status st;
        tsgs_dataset *blk = NULL;
        while ((st = tsgs_reader_next(r, rows, &blk, &err)) == TSGS_OK) {
            ck_assert_ptr_nonnull(blk);
            got += blk->n;
            tsgs_dataset_free(blk);
        }
        ck_assert_int_eq(st, TSGS_ERR_PARSE);
        ck_assert_uint_eq(got, 76 / rows * rows);
        ck_assert_int_eq(err.line, 77);
        ck_assert_str_eq(err.message, whole.message);
        blk = NULL;
        ck_assert_int_ne(tsgs_reader_next(r, rows, &blk, &err), TSGS_OK);
        ck_assert_ptr_null(blk);
        tsgs_reader_close(r);
    }
}
END_TEST

/* A file without data rows fails at the first block with the whole
 * read's message; a file that cannot be opened fails at open. */
START_TEST(no_rows_fail_at_once)
{
    static const char *const texts[] = {"", "# only a comment\n\n",
                                        "a,b,c\n"};
    for (size_t t = 0; t < 3; t++) {
        write_text(texts[t]);
        tsgs_dataset *ds = NULL;
        tsgs_error whole, err;
        tsgs_status sw = tsgs_dataset_read(path, NULL, &ds, &whole);
        ck_assert_int_ne(sw, TSGS_OK);
        tsgs_reader *r = NULL;
        ck_assert_int_eq(tsgs_reader_open(path, NULL, &r, &err), TSGS_OK);
        ck_assert_int_eq(tsgs_reader_next(r, 10, &ds, &err), sw);
        ck_assert_ptr_null(ds);
        ck_assert_str_eq(err.message, whole.message);
        tsgs_reader_close(r);
    }
    tsgs_reader *r = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_reader_open(R "no-such-file.svm", NULL, &r, &err),
                     TSGS_ERR_IO);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err.message, "no-such-file.svm"));
    tsgs_read_options o = tsgs_read_options_default();
    o.header = 3;
    ck_assert_int_eq(tsgs_reader_open(R "basic.svm", &o, &r, &err),
                     TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_reader_open(NULL, NULL, &r, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_reader_open(R "basic.svm", NULL, &r, &err),
                     TSGS_OK);
    tsgs_dataset *blk = NULL;
    ck_assert_int_eq(tsgs_reader_next(r, 0, &blk, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_reader_next(r, 1, NULL, &err), TSGS_ERR_PARAM);
    tsgs_reader_close(r);
    tsgs_reader_close(NULL);
}
END_TEST

/* LIBSVM rows without a feature: blocks one feature wide, of zeros,
 * while later rows may have features (they then widen the blocks); a file
 * of such rows only fails at its end with the whole read's message. */
START_TEST(empty_rows_fail_at_the_end)
{
    write_text("1\n-1 qid:2\n1\n-1\n1\n");
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_LIBSVM;
    tsgs_dataset *ds = NULL;
    tsgs_error whole, err;
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &whole),
                     TSGS_ERR_DATA);
    tsgs_reader *r = NULL;
    ck_assert_int_eq(tsgs_reader_open(path, &o, &r, &err), TSGS_OK);
    for (int b = 0; b < 2; b++) {
        ck_assert_int_eq(tsgs_reader_next(r, 2, &ds, &err), TSGS_OK);
        ck_assert_uint_eq(tsgs_dataset_rows(ds), 2);
        ck_assert_uint_eq(tsgs_dataset_features(ds), 1);
        ck_assert_float_eq(tsgs_dataset_row(ds, 1)[0], 0.0f);
        tsgs_dataset_free(ds);
    }
    ck_assert_int_eq(tsgs_reader_next(r, 2, &ds, &err), TSGS_OK);
    tsgs_dataset_free(ds);
    ds = NULL;
    ck_assert_int_eq(tsgs_reader_next(r, 2, &ds, &err), TSGS_ERR_DATA);
    ck_assert_str_eq(err.message, whole.message);
    tsgs_reader_close(r);
    /* a feature later: the whole read's rows */
    write_text("1\n-1\n1\n-1 4:2\n1\n");
    ds = test_read_ok(path, &o);
    for (size_t rows = 1; rows <= 3; rows++)
        check_blocks(path, &o, rows, ds);
    tsgs_dataset_free(ds);
}
END_TEST

/* A line over the length limit (set low through the test hook) ends the
 * read in blocks too, naming the file's line. */
START_TEST(long_line_stops_the_blocks)
{
    char text[4096];
    size_t k = 0;
    for (int i = 1; i <= 30; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%d 1:%d\n",
                              i % 2 ? 1 : -1, i);
    snprintf(text + k, sizeof text - k, "%-200s\n1 1:1\n", "1 1:0.5");
    write_text(text);
    const size_t old = tsgs__read_line_max(100);
    tsgs_reader *r = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_reader_open(path, NULL, &r, &err), TSGS_OK);
    tsgs_dataset *blk = NULL;
    size_t got = 0;
    tsgs_status st;
    while ((st = tsgs_reader_next(r, 8, &blk, &err)) == TSGS_OK) {
        got += blk->n;
        tsgs_dataset_free(blk);
    }
    tsgs_reader_close(r);
    tsgs__read_line_max(old);
    ck_assert_int_eq(st, TSGS_ERR_PARSE);
    ck_assert_uint_eq(got, 24);
    ck_assert_int_eq(err.line, 31);
    ck_assert_msg(strstr(err.message, ":31: line longer than 100 bytes"), "%s",
                  err.message);
}
END_TEST

/* Wide rows are sparse in every block, a block of a few dense rows too
 * (read whole, the file is dense): the storage, and so the kernel that
 * scores a row, never depends on where the blocks break. */
START_TEST(wide_blocks_all_sparse)
{
    size_t cap = 1 << 20, k = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(text + k, cap - k, "%d 3:1 %d:2 9000:0.5\n",
                              i % 2 ? 1 : -1, 10 + i);
    for (int i = 0; i < 4; i++) { /* every feature: dense */
        k += (size_t)snprintf(text + k, cap - k, "1");
        for (int f = 1; f <= 9000; f++)
            k += (size_t)snprintf(text + k, cap - k, " %d:1", f);
        k += (size_t)snprintf(text + k, cap - k, "\n");
    }
    write_text(text);
    free(text);
    tsgs_dataset *ref = test_read_ok(path, NULL);
    ck_assert(!tsgs_dataset_is_sparse(ref));
    check_blocks(path, NULL, 20, ref);
    tsgs_dataset_free(ref);
    tsgs_reader *r = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_reader_open(path, NULL, &r, &err), TSGS_OK);
    tsgs_dataset *blk = NULL;
    for (int b = 0; b < 3; b++) {
        ck_assert_int_eq(tsgs_reader_next(r, 20, &blk, &err), TSGS_OK);
        ck_assert(tsgs_dataset_is_sparse(blk));
        tsgs_dataset_free(blk);
    }
    tsgs_reader_close(r);
}
END_TEST

Suite *reader_stream_suite(void)
{
    Suite *s = suite_create("reader_stream");
    TCase *tc = tcase_create("reader_stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, blocks_hold_the_whole_read, 0,
                        (int)(sizeof files / sizeof files[0]));
    tcase_add_test(tc, csv_header_only_at_the_start);
    tcase_add_test(tc, error_after_the_blocks_before_it);
    tcase_add_test(tc, no_rows_fail_at_once);
    tcase_add_test(tc, empty_rows_fail_at_the_end);
    tcase_add_test(tc, long_line_stops_the_blocks);
    tcase_add_test(tc, wide_blocks_all_sparse);
    suite_add_tcase(s, tc);
    return s;
}
