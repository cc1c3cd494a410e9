/* Parallel reading of plain text: the file split at line starts over 2..8
 * threads, in chunks as small as one byte, gives the serial read's dataset
 * byte for byte (LIBSVM and CSV with every quirk: comments, blank lines,
 * CRLF, a header, a BOM, qid, no final newline, long lines) and the serial
 * read's first error, with its line number, wherever the bad row lies. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

static char tmp_dir[64], path[128];

static void setup(void)
{
    test_make_dir(tmp_dir, sizeof tmp_dir, "split");
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

static tsgs_status read_with(const char *file, tsgs_read_options o,
                             int threads, size_t min_chunk,
                             tsgs_dataset **ds, tsgs_error *err)
{
    o.threads = threads;
    *ds = NULL;
    tsgs__error_clear(err);
    return tsgs__dataset_read_split(file, &o, min_chunk, ds, err);
}

static void assert_same(const tsgs_dataset *a, const tsgs_dataset *b,
                        const char *what)
{
    ck_assert_msg(a->n == b->n && a->d == b->d, "%s: %zu x %zu vs %zu x %zu",
                  what, a->n, a->d, b->n, b->d);
    ck_assert_msg(tsgs__sparse(a) == tsgs__sparse(b), "%s: sparse %d vs %d",
                  what, tsgs__sparse(a), tsgs__sparse(b));
    if (tsgs__sparse(a)) {
        size_t nz = a->ptr[a->n];
        ck_assert_msg(memcmp(a->ptr, b->ptr, sizeof(size_t) * (a->n + 1)) ==
                              0 &&
                          memcmp(a->col, b->col, sizeof(uint32_t) * nz) == 0 &&
                          memcmp(a->val, b->val, sizeof(float) * nz) == 0,
                      "%s: sparse rows differ", what);
    } else {
        ck_assert_msg(memcmp(a->x, b->x, sizeof(float) * a->n * a->d) == 0,
                      "%s: features differ", what);
    }
    ck_assert_msg(memcmp(a->y, b->y, sizeof(double) * a->n) == 0,
                  "%s: labels differ", what);
    /* the layout the first row settled, whoever read the rest */
    ck_assert_msg(a->layout.known && a->layout.format == b->layout.format &&
                      a->layout.label_column == b->layout.label_column &&
                      a->layout.header == b->layout.header &&
                      a->layout.columns == b->layout.columns,
                  "%s: layouts differ", what);
}

/* Serial against every split: same dataset, or the same error. */
static void check_splits(const char *file, tsgs_read_options o)
{
    tsgs_dataset *ref, *ds;
    tsgs_error e_ref, e;
    tsgs_status s_ref = read_with(file, o, 1, 1, &ref, &e_ref);
    static const size_t chunks[] = {1, 5, 64, 1000};
    for (int t = 2; t <= 8; t++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            char what[96];
            snprintf(what, sizeof what, "%d threads, chunks >= %zu", t,
                     chunks[c]);
            tsgs_status s = read_with(file, o, t, chunks[c], &ds, &e);
            ck_assert_msg(s == s_ref, "%s: status %d vs %d (%s)", what, s,
                          s_ref, e.message);
            if (s == TSGS_OK) {
                assert_same(ref, ds, what);
                tsgs_dataset_free(ds);
            } else {
                ck_assert_msg(e.line == e_ref.line &&
                                  strcmp(e.message, e_ref.message) == 0,
                              "%s: \"%s\" vs serial \"%s\"", what, e.message,
                              e_ref.message);
                ck_assert_ptr_null(ds);
            }
        }
    tsgs_dataset_free(ref);
}

/* splitmix64 */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* rows of LIBSVM (csv 0) or CSV (1) with quirks sprinkled by the seed. */
static char *make_text(int csv, int rows, uint64_t seed)
{
    size_t cap = 1 << 20, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    if (seed % 3 == 0)
        k += (size_t)sprintf(t + k, "\xef\xbb\xbf");
    k += (size_t)sprintf(t + k, "# made for check_reader_split\n");
    if (csv && seed % 2)
        k += (size_t)sprintf(t + k, "label,a,b,c,d\n");
    for (int i = 0; i < rows; i++) {
        ck_assert_uint_lt(k, cap - 4096);
        uint64_t r = next(&seed);
        if (r % 11 == 0)
            k += (size_t)sprintf(t + k, "\n");
        if (r % 13 == 0)
            k += (size_t)sprintf(t + k, "  # comment %d\n", i);
        int label = (int)(r >> 8) % 3 - 1;
        if (csv) {
            k += (size_t)sprintf(t + k, "%d", label);
            for (int f = 0; f < 4; f++)
                k += (size_t)sprintf(t + k, ",%.6g",
                                     (double)(next(&seed) % 20001) / 997.0 -
                                         10.0);
        } else {
            k += (size_t)sprintf(t + k, "%+d", label);
            if (r % 7 == 0)
                k += (size_t)sprintf(t + k, " qid:%d", i);
            int width = r % 17 == 0 ? 300 : 6; /* some long lines */
            for (int f = 1; f <= width; f++)
                if (next(&seed) % 3)
                    k += (size_t)sprintf(t + k, " %d:%.7g", f,
                                         (double)(next(&seed) % 100001) /
                                             1e3);
        }
        k += (size_t)sprintf(t + k, r % 5 == 0 ? "\r\n" : "\n");
    }
    if (seed % 2 && k > 0 && t[k - 1] == '\n')
        k -= t[k - 2] == '\r' ? 2 : 1; /* no final newline */
    t[k] = '\0';
    return t;
}

START_TEST(any_split_reads_the_serial_dataset)
{
    for (int csv = 0; csv <= 1; csv++) {
        char *text = make_text(csv, 60 + 7 * _i, (uint64_t)_i);
        write_text(text);
        tsgs_read_options o = tsgs_read_options_default();
        o.has_unlabeled_label = _i % 2;
        o.unlabeled_label = 0;
        o.min_features = _i >= 4 ? 400 : 0; /* rows padded with zeros */
        check_splits(path, o);
        /* and the split really happened: the dataset is the text's */
        tsgs_dataset *ds;
        tsgs_error e;
        ck_assert_int_eq(read_with(path, o, 4, 1, &ds, &e), TSGS_OK);
        ck_assert_uint_eq(ds->n, 60 + 7 * (size_t)_i);
        tsgs_dataset_free(ds);
        free(text);
    }
}
END_TEST

/* One or two bad rows anywhere: the first is reported, line and all. */
START_TEST(first_error_and_its_line_whatever_the_split)
{
    static const char *const bad[] = {"1 2:x", "1 3:1 2:1", "1 1:nan",
                                      "1,2,3", "a,1,2,3,4", "1,2,3,4,5,6"};
    for (int csv = 0; csv <= 1; csv++) {
        char *text = make_text(csv, 120, 5);
        size_t len = strlen(text);
        /* put a bad line after the n-th newline */
        for (int which = 0; which < 3; which++) {
            size_t nl = 0, at = 0;
            size_t target = (size_t)(which == 0 ? 3 : which == 1 ? 60 : 118);
            for (at = 0; at < len && nl < target; at++)
                nl += text[at] == '\n';
            const char *b = bad[3 * csv + (size_t)(which + _i) % 3];
            char *t = malloc(len + 64);
            ck_assert_ptr_nonnull(t);
            memcpy(t, text, at);
            size_t k = at + (size_t)sprintf(t + at, "%s\n", b);
            memcpy(t + k, text + at, len - at + 1);
            if (_i == 1) { /* and a second one later: not reported */
                size_t l2 = strlen(t);
                memcpy(t + l2, "\n1 q:1\n,,\n", 11);
            }
            write_text(t);
            tsgs_read_options o = tsgs_read_options_default();
            check_splits(path, o);
            tsgs_dataset *ds;
            tsgs_error e;
            ck_assert_int_ne(read_with(path, o, 3, 1, &ds, &e), TSGS_OK);
            ck_assert_int_gt(e.line, 0);
            free(t);
        }
        free(text);
    }
}
END_TEST

/* The real samples (decompressed by the system's tools), split in small
 * chunks. */
START_TEST(real_files_split_the_same)
{
    static const char *const files[] = {
        "gzip -dc data/reader/real/higgs_301.csv.gz",
        "bzip2 -dc data/reader/real/ijcnn1_300.svm.bz2",
        "xz -dc data/reader/real/skin_301.csv.xz",
        "xz -dc data/reader/real/susy_301.csv.xz",
        "xz -dc data/reader/real/w8a_300.svm.xz",
        "cat data/reader/synth_hepmass_100.csv",
        "cat data/reader/basic.svm", "cat data/cli/train.svm"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s > %s", files[f], path);
        if (system(cmd) != 0) {
            test_skip("real_files_split_the_same", files[f]);
            continue;
        }
        tsgs_read_options o = tsgs_read_options_default();
        check_splits(path, o);
    }
}
END_TEST

/* Rows that stay sparse (a few non-zeros among 200,000 columns): every
 * split gives the serial read's CSR rows; a minimum chunk of 0 is one
 * byte. */
START_TEST(sparse_rows_split_the_same)
{
    size_t cap = 1 << 16, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    uint64_t seed = 99;
    for (int i = 0; i < 300; i++) {
        uint64_t r = next(&seed);
        k += (size_t)sprintf(t + k, "%+d", r % 2 ? 1 : -1);
        unsigned c = 1 + (unsigned)(r >> 8) % 50;
        for (int j = 0; j < 4; j++) {
            k += (size_t)sprintf(t + k, " %u:%.3g", c,
                                 (double)((r >> (12 + 4 * j)) % 97) / 8 - 5);
            c += 1 + (unsigned)(next(&seed) % 60000);
        }
        k += (size_t)sprintf(t + k, "\n");
        ck_assert_uint_lt(k, cap - 256);
    }
    k += (size_t)sprintf(t + k, "1 200000:1\n");
    write_text(t);
    free(t);
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds;
    tsgs_error e;
    ck_assert_int_eq(read_with(path, o, 3, 0, &ds, &e), TSGS_OK);
    ck_assert(tsgs__sparse(ds));
    ck_assert_uint_eq(ds->n, 301);
    ck_assert_uint_eq(ds->d, 200000);
    ck_assert_uint_eq(ds->ptr[ds->n], 4 * 300 + 1);
    tsgs_dataset_free(ds);
    check_splits(path, o);
}
END_TEST

/* A line over the length limit (the test hook's 100 bytes) deep in the
 * file fails every split as the serial read does: the file's own line
 * number, not the chunk's. */
START_TEST(line_over_the_limit_whatever_the_split)
{
    char *text = make_text(0, 120, 4);
    const size_t len = strlen(text);
    size_t nl = 0, at = 0;
    for (; at < len && nl < 90; at++)
        nl += text[at] == '\n';
    char *t = malloc(len + 256);
    ck_assert_ptr_nonnull(t);
    memcpy(t, text, at);
    size_t k = at + (size_t)sprintf(t + at, "%-101s\n", "1 1:1");
    memcpy(t + k, text + at, len - at + 1);
    /* the file's own long lines (300 pairs) are longer still: cut them */
    char *w = t;
    for (char *p = t; *p;) {
        char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
        if (n > 101 && p != t + at) { /* up to a blank: whole pairs */
            size_t cut = 60;
            while (p[cut] != ' ')
                cut--;
            memmove(w, p, cut);
            w[cut] = '\n';
            w += cut + 1;
        } else {
            memmove(w, p, n);
            w += n;
        }
        p += n;
    }
    *w = '\0';
    write_text(t);
    const size_t old = tsgs__read_line_max(100);
    tsgs_read_options o = tsgs_read_options_default();
    check_splits(path, o);
    tsgs_dataset *ds;
    tsgs_error e;
    ck_assert_int_eq(read_with(path, o, 4, 1, &ds, &e), TSGS_ERR_PARSE);
    tsgs__read_line_max(old);
    long want = 1;
    for (const char *p = t; (p = strchr(p, '\n')) && p < strstr(t, "1 1:1   ");
         p++)
        want++;
    ck_assert_int_eq(e.line, want);
    ck_assert_msg(strstr(e.message, "line longer than 100 bytes"), "%s",
                  e.message);
    free(t);
    free(text);
}
END_TEST

Suite *reader_split_suite(void)
{
    Suite *s = suite_create("reader_split");
    TCase *tc = tcase_create("reader_split");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, any_split_reads_the_serial_dataset, 0, 6);
    tcase_add_loop_test(tc, first_error_and_its_line_whatever_the_split, 0,
                        2);
    tcase_add_test(tc, real_files_split_the_same);
    tcase_add_test(tc, sparse_rows_split_the_same);
    tcase_add_test(tc, line_over_the_limit_whatever_the_split);
    suite_add_tcase(s, tc);
    return s;
}
