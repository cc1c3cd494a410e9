/* A process's share of a training file (tsgs__dataset_read_share, issue
 * #34): for 1..9 parts, brute force against the whole read, the shares in
 * part order hold the file's rows in order, none lost or read twice, their
 * byte ranges tile the file after its first data row at line starts, and
 * their line counts add up to the file's lines (LIBSVM and CSV with
 * comments, blank lines, CRLF, a header, a BOM, no final newline, a line
 * longer than a share); the first bad line is reported with the file's
 * line number once the lines of the parts before are added; .npy shares
 * are row ranges (with more parts than rows: empty shares); a compressed
 * file is read whole and cut by rows. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

static char tmp_dir[64], path[128];

static void setup(void)
{
    test_make_dir(tmp_dir, sizeof tmp_dir, "share");
    snprintf(path, sizeof path, "%s/data.txt", tmp_dir);
}

static void teardown(void)
{
    test_remove_dir(tmp_dir);
}

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Rows of LIBSVM (csv 0) or CSV (1) text, quirks chosen by the seed; one
 * line of `long_line` bytes or more in the middle when it is not 0. */
static char *make_text(int csv, int rows, uint64_t seed, size_t long_line)
{
    size_t cap = ((size_t)1 << 20) + 2 * long_line, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    if (seed % 3 == 0)
        k += (size_t)sprintf(t + k, "\xef\xbb\xbf");
    k += (size_t)sprintf(t + k, "# made for check_share\n\n");
    if (csv && seed % 2)
        k += (size_t)sprintf(t + k, "label,a,b,c,d\n");
    for (int i = 0; i < rows; i++) {
        ck_assert_uint_lt(k, cap - 4096 - long_line);
        uint64_t r = next(&seed);
        if (r % 11 == 0)
            k += (size_t)sprintf(t + k, r % 2 ? "\n" : "\r\n");
        if (r % 13 == 0)
            k += (size_t)sprintf(t + k, "  # comment %d\n", i);
        int label = (int)(r >> 8) % 3 - 1;
        if (csv) {
            k += (size_t)sprintf(t + k, "%d", label);
            for (int f = 0; f < 4; f++)
                k += (size_t)sprintf(t + k, ",%.6g",
                                     (double)(next(&seed) % 20001) / 997.0 -
                                         10.0);
            if (long_line && i == rows / 2) /* blanks before the newline */
                for (size_t b = 0; b < long_line; b++)
                    t[k++] = ' ';
        } else {
            k += (size_t)sprintf(t + k, "%+d", label);
            int width = long_line && i == rows / 2 ? (int)(long_line / 8)
                        : r % 17 == 0             ? 300
                                                  : 6;
            for (int f = 1; f <= width; f++)
                if (next(&seed) % 3 || width > 300)
                    k += (size_t)sprintf(t + k, " %d:%.7g", f,
                                         (double)(next(&seed) % 100001) /
                                             1e3);
        }
        k += (size_t)sprintf(t + k, r % 5 == 0 ? "\r\n" : "\n");
    }
    if (seed % 2 && k > 0 && t[k - 1] == '\n')
        k -= k > 1 && t[k - 2] == '\r' ? 2 : 1; /* no final newline */
    t[k] = '\0';
    return t;
}

/* The lines of text as the reader counts them (a last one without '\n'
 * counts). */
static long text_lines(const char *t)
{
    long n = 0;
    size_t len = strlen(t);
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    return n + (len > 0 && t[len - 1] != '\n');
}

/* Reads `parts` shares of file and checks them against the whole read:
 * rows and labels in order (dense, at the whole's width), ranges, lines;
 * total_lines < 0: not checked (a .npy). */
static void check_shares(const char *file, tsgs_read_options o, int parts,
                         long total_lines, const char *what)
{
    tsgs_dataset *all;
    tsgs_error e;
    ck_assert_int_eq(tsgs_dataset_read(file, &o, &all, &e), TSGS_OK);
    const size_t d = all->d;
    float *a = malloc(sizeof(float) * (d ? d : 1));
    float *b = malloc(sizeof(float) * (d ? d : 1));
    ck_assert(a && b);
    size_t row = 0;
    long lines = 0;
    uint64_t prev_to = 0;
    for (int k = 0; k < parts; k++) {
        tsgs__share sh;
        ck_assert_msg(tsgs__dataset_read_share(file, &o, k, parts, &sh,
                                               &e) == TSGS_OK,
                      "%s: part %d of %d: %s", what, k, parts, e.message);
        tsgs_dataset *s = sh.ds;
        ck_assert_msg(s->d <= d, "%s: part %d wider than the file", what, k);
        if (k > 0)
            ck_assert_msg(sh.from == prev_to,
                          "%s: part %d starts at %llu, part %d ended at "
                          "%llu",
                          what, k, (unsigned long long)sh.from, k - 1,
                          (unsigned long long)prev_to);
        ck_assert_uint_le(sh.from, sh.to);
        prev_to = sh.to;
        lines += sh.lines;
        ck_assert_int_eq(sh.relative, k > 0 && !sh.whole &&
                                          all->layout.format !=
                                              TSGS_FORMAT_NPY);
        for (size_t i = 0; i < s->n; i++, row++) {
            ck_assert_msg(row < all->n, "%s: part %d: more rows than the "
                                        "file's %zu",
                          what, k, all->n);
            tsgs__row_dense(all, row, a);
            memset(b, 0, sizeof(float) * d);
            tsgs__row_dense(s, i, b);
            ck_assert_msg(memcmp(a, b, sizeof(float) * d) == 0,
                          "%s: part %d of %d, its row %zu (the file's %zu) "
                          "differs",
                          what, k, parts, i, row);
            ck_assert_msg(memcmp(&all->y[row], &s->y[i], sizeof(double)) ==
                              0,
                          "%s: part %d, row %zu: label differs", what, k, i);
        }
        ck_assert_int_eq(s->layout.format, all->layout.format);
        ck_assert_int_eq(s->layout.header, all->layout.header);
        tsgs_dataset_free(s);
    }
    ck_assert_msg(row == all->n, "%s: %zu rows in %d parts, the file has "
                                 "%zu",
                  what, row, parts, all->n);
    if (total_lines >= 0)
        ck_assert_msg(lines == total_lines, "%s: %ld lines counted, the "
                                            "file has %ld",
                      what, lines, total_lines);
    free(a);
    free(b);
    tsgs_dataset_free(all);
}

START_TEST(text_shares_are_the_file_rows_in_order)
{
    for (int csv = 0; csv <= 1; csv++) {
        char *text = make_text(csv, 40 + 23 * _i, (uint64_t)_i, 0);
        test_write_text(path, text);
        tsgs_read_options o = tsgs_read_options_default();
        o.threads = 1 + _i % 2; /* each share split again over threads */
        for (int parts = 1; parts <= 9; parts++) {
            char what[64];
            snprintf(what, sizeof what, "%s seed %d", csv ? "csv" : "libsvm",
                     _i);
            check_shares(path, o, parts, text_lines(text), what);
        }
        free(text);
    }
}
END_TEST

/* A line longer than a whole share: the parts whose ranges start inside
 * it move on past it, their shares empty; no row is read twice. */
START_TEST(a_line_longer_than_a_share)
{
    for (int csv = 0; csv <= 1; csv++) {
        char *text = make_text(csv, 30, 4 + (uint64_t)csv, 20000);
        test_write_text(path, text);
        tsgs_read_options o = tsgs_read_options_default();
        for (int parts = 2; parts <= 9; parts += 3)
            check_shares(path, o, parts, text_lines(text),
                         csv ? "csv long line" : "libsvm long line");
        free(text);
    }
}
END_TEST

/* A tiny file over many parts: most shares empty, the rows once each. */
START_TEST(more_parts_than_rows)
{
    test_write_text(path, "1 1:1 2:2\n-1 2:3\n");
    tsgs_read_options o = tsgs_read_options_default();
    check_shares(path, o, 7, 2, "two rows");
    test_write_text(path, "1,2,3");
    check_shares(path, o, 4, 1, "one row, no newline");
}
END_TEST

/* The first bad line of the file, wherever it lies: the lowest part that
 * fails reports it with the file's line once the lines of the parts
 * before it are added (as a caller over processes does). */
START_TEST(first_error_names_the_file_line)
{
    char *text = make_text(_i % 2, 80, 7, 0);
    size_t len = strlen(text), at = 0, nl = 0;
    const size_t target = (size_t)(_i / 2 == 0 ? 5 : _i / 2 == 1 ? 40 : 78);
    for (at = 0; at < len && nl < target; at++)
        nl += text[at] == '\n';
    char *t = malloc(len + 64);
    ck_assert_ptr_nonnull(t);
    memcpy(t, text, at);
    size_t k = at + (size_t)sprintf(t + at, "%s\n",
                                    _i % 2 ? "1,2,x,4,5" : "1 2:1 1:1");
    memcpy(t + k, text + at, len - at + 1);
    test_write_text(path, t);
    tsgs_read_options o = tsgs_read_options_default();
    tsgs_dataset *ds;
    tsgs_error ref;
    ck_assert_int_ne(tsgs_dataset_read(path, &o, &ds, &ref), TSGS_OK);
    for (int parts = 1; parts <= 6; parts++) {
        long base = 0;
        int reported = 0;
        for (int p = 0; p < parts && !reported; p++) {
            tsgs__share sh;
            tsgs_error e;
            tsgs_status st = tsgs__dataset_read_share(path, &o, p, parts, &sh,
                                                      &e);
            if (st == TSGS_OK) {
                base += sh.lines;
                tsgs_dataset_free(sh.ds);
                continue;
            }
            if (sh.relative)
                tsgs__read_error_relocate(path, base, st, &e);
            ck_assert_msg(e.line == ref.line &&
                              strcmp(e.message, ref.message) == 0,
                          "%d parts, part %d: \"%s\" (line %ld), the whole "
                          "read: \"%s\" (line %ld)",
                          parts, p, e.message, e.line, ref.message,
                          ref.line);
            reported = 1;
        }
        ck_assert_msg(reported, "%d parts: no part failed", parts);
    }
    free(t);
    free(text);
}
END_TEST

/* A .npy's shares are row ranges: features and the companion's labels. */
START_TEST(npy_shares_are_row_ranges)
{
    const size_t n = 37, d = 5;
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    ck_assert(x && y);
    uint64_t seed = 3;
    for (size_t i = 0; i < n * d; i++)
        x[i] = (float)(next(&seed) % 1000) / 7.0f - 50.0f;
    for (size_t i = 0; i < n; i++)
        y[i] = i % 4 == 3 ? TSGS_UNLABELED : (double)(i % 2) * 2 - 1;
    tsgs_dataset *ds;
    tsgs_error e;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, &e), TSGS_OK);
    char npy[160];
    snprintf(npy, sizeof npy, "%s/x.npy", tmp_dir);
    ck_assert_int_eq(tsgs_dataset_save_npy(ds, npy, &e), TSGS_OK);
    tsgs_dataset_free(ds);
    tsgs_read_options o = tsgs_read_options_default();
    for (int parts = 1; parts <= 45; parts += parts < 9 ? 1 : 18) {
        check_shares(npy, o, parts, -1, "npy");
        for (int k = 0; k < parts; k++) { /* rows [n k / P, n (k + 1) / P) */
            tsgs__share sh;
            ck_assert_int_eq(tsgs__dataset_read_share(npy, &o, k, parts, &sh,
                                                      &e),
                             TSGS_OK);
            ck_assert_uint_eq(sh.from, n * (size_t)k / (size_t)parts);
            ck_assert_uint_eq(sh.to, n * (size_t)(k + 1) / (size_t)parts);
            tsgs_dataset_free(sh.ds);
        }
    }
    free(x);
    free(y);
}
END_TEST

/* A compressed file cannot be read by byte ranges: each part reads it
 * whole and keeps its rows. */
START_TEST(compressed_file_read_whole_and_cut)
{
    char *text = make_text(0, 50, 2, 0);
    test_write_text(path, text);
    char gz[160], cmd[400];
    snprintf(gz, sizeof gz, "%s.gz", path);
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", path, gz);
    if (system(cmd) != 0) {
        free(text);
        return; /* no gzip here */
    }
    tsgs_read_options o = tsgs_read_options_default();
    check_shares(gz, o, 3, -1, "gzip");
    tsgs__share sh;
    tsgs_error e;
    ck_assert_int_eq(tsgs__dataset_read_share(gz, &o, 1, 3, &sh, &e),
                     TSGS_OK);
    ck_assert(sh.whole);
    tsgs_dataset_free(sh.ds);
    free(text);
}
END_TEST

Suite *share_suite(void)
{
    Suite *s = suite_create("share");
    TCase *tc = tcase_create("share");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, text_shares_are_the_file_rows_in_order, 0, 6);
    tcase_add_test(tc, a_line_longer_than_a_share);
    tcase_add_test(tc, more_parts_than_rows);
    tcase_add_loop_test(tc, first_error_names_the_file_line, 0, 6);
    tcase_add_test(tc, npy_shares_are_row_ranges);
    tcase_add_test(tc, compressed_file_read_whole_and_cut);
    suite_add_tcase(s, tc);
    return s;
}
