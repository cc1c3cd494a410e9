/* Compressed input beyond gzip/bzip2: zstd (one frame, frames one after
 * another, a skippable frame first; truncated and corrupt frames fail
 * naming the file and the line), and xz files of several blocks decoded by
 * liblzma's threads giving what one thread gives, truncated or corrupt
 * ones failing the same way. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

#define R "data/reader/"

static tsgs_dataset *read_ok(const char *path, int threads)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.threads = threads;
    return test_read_ok(path, &o);
}

static void assert_same(const tsgs_dataset *a, const tsgs_dataset *b)
{
    ck_assert_uint_eq(a->n, b->n);
    ck_assert_uint_eq(a->d, b->d);
    ck_assert_int_eq(memcmp(a->x, b->x, sizeof(float) * a->n * a->d), 0);
    ck_assert_int_eq(memcmp(a->y, b->y, sizeof(double) * a->n), 0);
}

static void assert_fails(const char *path, const char *kind, int threads)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.threads = threads;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err), TSGS_ERR_PARSE);
    ck_assert_ptr_null(ds);
    ck_assert_str_eq(err.file, path);
    ck_assert_int_ge(err.line, 1);
    char want[300];
    snprintf(want, sizeof want, "%s:%ld: truncated or corrupt %s data", path,
             err.line, kind);
    ck_assert_str_eq(err.message, want);
}

START_TEST(zstd_same_as_plain)
{
    tsgs_dataset *plain = read_ok(R "basic.svm", 1);
    tsgs_dataset *z = read_ok(R "basic.svm.zst", 1);
    assert_same(plain, z);
    tsgs_dataset_free(z);

    /* two frames (cat a.zst a.zst): the first copy's last line runs into
     * the second's "# a comment line", as for gzip members */
    z = read_ok(R "twice.svm.zst", 1);
    ck_assert_uint_eq(tsgs_dataset_rows(z), 2 * tsgs_dataset_rows(plain));
    ck_assert_int_eq(memcmp(z->x + plain->n * plain->d, plain->x,
                            sizeof(float) * plain->n * plain->d),
                     0);
    tsgs_dataset_free(z);

    /* a skippable frame (metadata some tools write) before the data */
    char dir[] = "/tmp/tsgs_zstd_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/skip.svm.zst", dir);
    size_t len = 0;
    char *frame = test_read_file(R "basic.svm.zst", &len);
    ck_assert_ptr_nonnull(frame);
    FILE *f = fopen(path, "wb");
    static const unsigned char skip[12] = {0x53, 0x2a, 0x4d, 0x18, 4, 0, 0, 0,
                                           'm',  'e',  't',  'a'};
    fwrite(skip, 1, sizeof skip, f);
    fwrite(frame, 1, len, f);
    fclose(f);
    z = read_ok(path, 1);
    assert_same(plain, z);
    tsgs_dataset_free(z);
    remove(path);
    rmdir(dir);
    free(frame);
    tsgs_dataset_free(plain);
}
END_TEST

START_TEST(zstd_truncated_or_corrupt_fail)
{
    assert_fails(R "trunc.svm.zst", "zstd", 1);
    assert_fails(R "corrupt.svm.zst", "zstd", 1);
    assert_fails(R "half.svm.zst", "zstd", 1); /* one block: no lines */
}
END_TEST

/* A folder opens (fopen takes it) but cannot be read: an I/O error naming
 * it and the system's reason, from the stream and from the reader; NULL
 * arguments are refused. */
START_TEST(unreadable_input_fails_naming_it)
{
    char dir[] = "/tmp/tsgs_compress_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    tsgs__istream *in = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    ck_assert_int_eq(tsgs__istream_open(dir, 1, &in, &err), TSGS_ERR_IO);
    ck_assert_ptr_null(in);
    ck_assert_str_eq(err.file, dir);
    ck_assert_ptr_nonnull(strstr(err.message, "read failed: "));
    ck_assert_ptr_nonnull(strstr(err.message, strerror(EISDIR)));
    tsgs_dataset *ds = NULL;
    tsgs_read_options o = tsgs_read_options_default();
    ck_assert_int_eq(tsgs_dataset_read(dir, &o, &ds, &err), TSGS_ERR_IO);
    ck_assert_ptr_null(ds);
    ck_assert_int_eq(tsgs__istream_open(NULL, 1, &in, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs__istream_open(dir, 1, NULL, &err), TSGS_ERR_PARAM);
    rmdir(dir);
}
END_TEST

/* A text of many rows, compressed by xz -T2 in 16 KiB blocks. */
static int make_xz_blocks(const char *dir, char *text, char *xz, size_t n)
{
    snprintf(text, n, "%s/rows.svm", dir);
    snprintf(xz, n, "%s/rows.svm.xz", dir);
    FILE *f = fopen(text, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%d 1:%d 3:%.5g 7:%d\n", i % 2 ? 1 : -1, i % 97,
                (double)i / 7.0, i % 13);
    fclose(f);
    char cmd[400];
    snprintf(cmd, sizeof cmd,
             "xz -T2 --block-size=16384 -c %s > %s 2>/dev/null", text, xz);
    return system(cmd) == 0;
}

START_TEST(xz_blocks_decoded_by_threads)
{
    char dir[] = "/tmp/tsgs_xzmt_XXXXXX", text[80], xz[80], cut[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    if (!make_xz_blocks(dir, text, xz, sizeof text)) {
        test_skip("xz_blocks_decoded_by_threads", "no xz on the PATH");
        rmdir(dir);
        return;
    }
    char cmd[300]; /* several blocks, or the threads have nothing to do */
    snprintf(cmd, sizeof cmd,
             "xz --robot -l %s | awk '$1 == \"totals\" && $3 > 4 { ok = 1 } "
             "END { exit !ok }'",
             xz);
    ck_assert_msg(system(cmd) == 0, "%s has fewer than 5 blocks", xz);
    tsgs_dataset *plain = read_ok(text, 1);
    ck_assert_uint_eq(plain->n, 4000);
    for (int t = 1; t <= 4; t++) {
        tsgs_dataset *ds = read_ok(xz, t);
        assert_same(plain, ds);
        tsgs_dataset_free(ds);
    }
    /* cut inside a later block, and a byte flipped inside one */
    size_t len = 0;
    char *bytes = test_read_file(xz, &len);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_gt(len, 4096);
    snprintf(cut, sizeof cut, "%s/cut.svm.xz", dir);
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(cut, "wb");
        if (k == 0) {
            fwrite(bytes, 1, len * 2 / 3, f);
        } else {
            bytes[len / 2] ^= 0x5a;
            fwrite(bytes, 1, len, f);
        }
        fclose(f);
        for (int t = 1; t <= 4; t += 3)
            assert_fails(cut, "xz", t);
    }
    free(bytes);
    tsgs_dataset_free(plain);
    remove(cut);
    remove(xz);
    remove(text);
    rmdir(dir);
}
END_TEST

/* A byte order mark split over two gzip members: the decoder's first read
 * hands over one byte of it, and the file still reads as the same text
 * plain (a fuzz finding: the mark was looked for in the first read only,
 * so the label became "\xef\xbb\xbf+1"). */
START_TEST(bom_split_across_gzip_members)
{
    ck_assert_int_eq(system("printf '\\357' | gzip -c > tmp_bom.gz && "
                            "printf '\\273\\277+1 1:1\\n-1 1:2\\n' | "
                            "gzip -c >> tmp_bom.gz && "
                            "printf '\\357\\273\\277+1 1:1\\n-1 1:2\\n' "
                            "> tmp_bom.svm"),
                     0);
    tsgs_dataset *gz = read_ok("tmp_bom.gz", 1), *plain = read_ok("tmp_bom.svm", 1);
    ck_assert_uint_eq(gz->n, 2);
    ck_assert_double_eq(gz->y[0], 1.0);
    assert_same(gz, plain);
    tsgs_dataset_free(gz);
    tsgs_dataset_free(plain);
    remove("tmp_bom.gz");
    remove("tmp_bom.svm");
}
END_TEST

Suite *compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *tc = tcase_create("compress");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, zstd_same_as_plain);
    tcase_add_test(tc, zstd_truncated_or_corrupt_fail);
    tcase_add_test(tc, xz_blocks_decoded_by_threads);
    tcase_add_test(tc, bom_split_across_gzip_members);
    tcase_add_test(tc, unreadable_input_fails_naming_it);
    suite_add_tcase(s, tc);
    return s;
}
