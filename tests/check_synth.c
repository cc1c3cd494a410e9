/* Synthetic data: EM recovers a known mixture, the fitted class balance is
 * the sample's, row i is a pure function of (seed, i) whatever the range
 * or thread count, generated files read back in the SUSY and HEPMASS
 * layouts, moments of a large generated set match the real sample's, the
 * %.18e and %.6f formatters match printf, and bad inputs fail. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define SUSY_SAMPLE "data/reader/real/susy_301.csv.xz"
#define TEST_STREAM 0x7e57u

static tsgs_dataset *susy_sample(void)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.skip_columns = 1; /* UCI row index */
    o.label_column = 2;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_dataset_read(SUSY_SAMPLE, &o, &ds, &err) == TSGS_OK,
                  "%s", err.message);
    return ds;
}

static tsgs_mixture *fit_ok(const tsgs_dataset *ds, int k, uint64_t seed)
{
    tsgs_mixture *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_mixture_fit(ds, k, seed, &m, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* Reads a whole FILE (rewound) into a NUL-terminated string. */
static char *slurp(FILE *f, size_t *len)
{
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    *len = (size_t)n;
    return s;
}

static char *write_rows(const tsgs_mixture *m, uint64_t seed, uint64_t first,
                        uint64_t count, tsgs_layout layout, int header,
                        int threads, size_t *len)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tsgs_error err;
    ck_assert_msg(tsgs_synth_write(m, seed, first, count, layout, header,
                                   threads, f, &err) == TSGS_OK,
                  "%s", err.message);
    char *s = slurp(f, len);
    fclose(f);
    return s;
}

/* ------------------------------------------------------------------ EM */

/* Two classes in 2-d, each a known 2-component diagonal mixture. */
static const double TRUE_W[2][2] = {{0.3, 0.7}, {0.6, 0.4}};
static const double TRUE_MU[2][2][2] = {{{-4.0, 0.0}, {2.0, 1.0}},
                                        {{0.0, 5.0}, {3.0, -3.0}}};
static const double TRUE_VAR[2][2][2] = {{{1.0, 0.25}, {0.5, 2.0}},
                                         {{0.8, 0.3}, {1.5, 0.6}}};

static tsgs_dataset *known_mixture(size_t n0, size_t n1)
{
    size_t n = n0 + n1;
    float *x = malloc(sizeof(float) * 2 * n);
    double *y = malloc(sizeof(double) * n);
    ck_assert(x && y);
    for (size_t i = 0; i < n; i++) {
        int c = i >= n0;
        tsgs__u32x4 r = tsgs__philox(42, (uint32_t)i, 0, 0, TEST_STREAM);
        int j = tsgs__u01(r.v[0], r.v[1]) >= TRUE_W[c][0];
        double z0, z1;
        tsgs__normal_pair(tsgs__philox(42, (uint32_t)i, 1, 0, TEST_STREAM),
                          &z0, &z1);
        x[2 * i] = (float)(TRUE_MU[c][j][0] + sqrt(TRUE_VAR[c][j][0]) * z0);
        x[2 * i + 1] = (float)(TRUE_MU[c][j][1] + sqrt(TRUE_VAR[c][j][1]) * z1);
        y[i] = c ? 1.0 : -1.0;
    }
    tsgs_dataset *ds = NULL;
    ck_assert(tsgs_dataset_from_dense(n, 2, x, y, &ds, NULL) == TSGS_OK);
    free(x);
    free(y);
    return ds;
}

START_TEST(em_recovers_known_mixture)
{
    tsgs_dataset *ds = known_mixture(20000, 30000);
    tsgs_mixture *m = fit_ok(ds, 2, 7);
    ck_assert_double_eq(m->label[0], -1.0);
    ck_assert_double_eq(m->label[1], 1.0);
    for (int c = 0; c < 2; c++) {
        /* match fitted components to true ones by the first mean */
        for (int t = 0; t < 2; t++) {
            int j = fabs(m->mu[(size_t)(c * 2) * 2] - TRUE_MU[c][t][0]) <
                            fabs(m->mu[(size_t)(c * 2 + 1) * 2] -
                                 TRUE_MU[c][t][0])
                        ? 0
                        : 1;
            size_t b = (size_t)(c * 2 + j);
            ck_assert_double_eq_tol(m->w[b], TRUE_W[c][t], 0.015);
            for (int f = 0; f < 2; f++) {
                ck_assert_double_eq_tol(m->mu[b * 2 + f], TRUE_MU[c][t][f],
                                        0.05);
                ck_assert_double_eq_tol(m->var[b * 2 + f] / TRUE_VAR[c][t][f],
                                        1.0, 0.06);
            }
        }
        ck_assert_int_lt(m->iters[c], 500); /* converged */
    }
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(fit_is_seeded_and_balance_is_the_samples)
{
    tsgs_dataset *ds = susy_sample(); /* 175 x 0.0, 125 x 1.0 */
    tsgs_mixture *a = fit_ok(ds, 3, 11), *b = fit_ok(ds, 3, 11);
    ck_assert_uint_eq(tsgs_mixture_features(a), 18);
    ck_assert_double_eq(tsgs_mixture_class_label(a, 0), 0.0);
    ck_assert_double_eq(tsgs_mixture_class_label(a, 1), 1.0);
    ck_assert_double_eq(tsgs_mixture_class_fraction(a, 1), 125.0 / 300.0);
    ck_assert_double_eq(tsgs_mixture_class_fraction(a, 0), 175.0 / 300.0);
    ck_assert_uint_eq(a->count[0], 175);
    ck_assert_uint_eq(a->count[1], 125);
    /* same seed, same model, bit for bit */
    ck_assert_mem_eq(a->mu, b->mu, sizeof(double) * 2 * 3 * 18);
    ck_assert_mem_eq(a->var, b->var, sizeof(double) * 2 * 3 * 18);
    ck_assert_mem_eq(a->w, b->w, sizeof(double) * 2 * 3);
    /* unlabeled rows do not count */
    tsgs_dataset_keep_labels(ds, 150, 3, NULL);
    tsgs_mixture *c = fit_ok(ds, 2, 11);
    ck_assert_uint_eq(c->count[0] + c->count[1], 150);
    ck_assert_double_eq(tsgs_mixture_class_fraction(c, 1),
                        (double)c->count[1] / 150.0);
    tsgs_mixture_free(a);
    tsgs_mixture_free(b);
    tsgs_mixture_free(c);
    tsgs_dataset_free(ds);
}
END_TEST

/* ------------------------------------------------------------- sampling */

/* The start of line `line` (0-based) of s. */
static const char *line_at(const char *s, size_t line)
{
    for (size_t i = 0; i < line; i++) {
        s = strchr(s, '\n');
        ck_assert_ptr_nonnull(s);
        s++;
    }
    return s;
}

START_TEST(rows_are_a_function_of_seed_and_index)
{
    tsgs_dataset *ds = susy_sample();
    tsgs_mixture *m = fit_ok(ds, 3, 5);
    float a[18], b[18];
    int ca = tsgs_mixture_row(m, 99, 1234, a);
    int cb = tsgs_mixture_row(m, 99, 1234, b);
    ck_assert_int_eq(ca, cb);
    ck_assert_mem_eq(a, b, sizeof a);
    tsgs_mixture_row(m, 100, 1234, b); /* another seed, another row */
    ck_assert(memcmp(a, b, sizeof a) != 0);
    for (int layout = 0; layout < 3; layout++) {
        if (layout == TSGS_LAYOUT_HEPMASS)
            continue; /* 18 features: not HEPMASS-shaped */
        size_t lfull, lpart, l1;
        char *full = write_rows(m, 99, 0, 5000, (tsgs_layout)layout, 1, 3,
                                &lfull);
        char *part = write_rows(m, 99, 1000, 100, (tsgs_layout)layout, 0, 1,
                                &lpart);
        char *one = write_rows(m, 99, 0, 5000, (tsgs_layout)layout, 1, 1,
                               &l1);
        const char *s = line_at(full, 1000), *e = line_at(full, 1100);
        ck_assert_uint_eq((size_t)(e - s), lpart);
        ck_assert_mem_eq(s, part, lpart);
        /* the thread count changes nothing */
        ck_assert_uint_eq(lfull, l1);
        ck_assert_mem_eq(full, one, lfull);
        free(full);
        free(part);
        free(one);
    }
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(susy_layout_reads_back)
{
    tsgs_dataset *ds = susy_sample();
    tsgs_mixture *m = fit_ok(ds, 2, 1);
    char path[] = "/tmp/tsgs_synth_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const size_t n = 20000;
    tsgs_error err;
    ck_assert_msg(tsgs_synth_write_file(m, 3, n, TSGS_LAYOUT_SUSY, 2, path,
                                        &err) == TSGS_OK,
                  "%s", err.message);
    FILE *f = fopen(path, "rb");
    char head[32] = "";
    ck_assert_ptr_nonnull(fgets(head, sizeof head, f));
    fclose(f);
    /* UCI's number format: label first as %.18e, no header */
    ck_assert(strncmp(head, "1.000000000000000000e+00,", 25) == 0 ||
              strncmp(head, "0.000000000000000000e+00,", 25) == 0);
    tsgs_dataset *back = NULL;
    ck_assert_msg(tsgs_dataset_read(path, NULL, &back, &err) == TSGS_OK, "%s",
                  err.message);
    remove(path);
    ck_assert_uint_eq(tsgs_dataset_rows(back), n);
    ck_assert_uint_eq(tsgs_dataset_features(back), 18);
    size_t pos = 0;
    float x[18];
    for (size_t i = 0; i < n; i++) {
        double y = tsgs_dataset_label(back, i);
        ck_assert(y == 0.0 || y == 1.0);
        pos += y == 1.0;
        /* the file holds the floats exactly */
        ck_assert_int_eq(tsgs_mixture_row(m, 3, i, x), (int)y);
        ck_assert_mem_eq(tsgs_dataset_row(back, i), x, sizeof x);
    }
    double p = 125.0 / 300.0, se = sqrt(p * (1 - p) / (double)n);
    ck_assert_double_eq_tol((double)pos / (double)n, p, 4 * se);
    tsgs_dataset_free(back);
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(hepmass_layout_reads_back)
{
    /* 28 features: the HIGGS sample stands in for HEPMASS */
    tsgs_read_options o = tsgs_read_options_default();
    o.label_column = -1;
    tsgs_dataset *ds = NULL;
    ck_assert(tsgs_dataset_read("data/reader/real/higgs_301.csv.gz", &o, &ds,
                                NULL) == TSGS_OK);
    tsgs_mixture *m = fit_ok(ds, 2, 1);
    size_t len;
    char *s = write_rows(m, 8, 0, 500, TSGS_LAYOUT_HEPMASS, 1, 2, &len);
    const char *want = "# label,f0,f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,"
                       "f13,f14,f15,f16,f17,f18,f19,f20,f21,f22,f23,f24,f25,"
                       "f26,mass\n";
    ck_assert(strncmp(s, want, strlen(want)) == 0);
    const char *r1 = s + strlen(want);
    ck_assert((r1[0] == '0' || r1[0] == '1') && r1[1] == ',');
    char path[] = "/tmp/tsgs_synth_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert(write(fd, s, len) == (ssize_t)len);
    close(fd);
    for (int header = -1; header <= 1; header++) {
        o = tsgs_read_options_default();
        o.header = header;
        tsgs_dataset *back = NULL;
        tsgs_error err;
        ck_assert_msg(tsgs_dataset_read(path, &o, &back, &err) == TSGS_OK,
                      "%s", err.message);
        ck_assert_uint_eq(tsgs_dataset_rows(back), 500);
        ck_assert_uint_eq(tsgs_dataset_features(back), 28);
        float x[28];
        int c = tsgs_mixture_row(m, 8, 0, x);
        ck_assert_double_eq(tsgs_dataset_label(back, 0), (double)c);
        ck_assert_float_eq_tol(tsgs_dataset_row(back, 0)[5], x[5], 1e-6);
        tsgs_dataset_free(back);
    }
    remove(path);
    free(s);
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(moments_match_the_sample)
{
    tsgs_dataset *ds = susy_sample();
    tsgs_mixture *m = fit_ok(ds, 4, 2);
    const size_t d = 18, ns = tsgs_dataset_rows(ds), n = 400000;
    double smean[18] = {0}, svar[18] = {0}, gmean[18] = {0}, gvar[18] = {0};
    for (size_t i = 0; i < ns; i++)
        for (size_t f = 0; f < d; f++)
            smean[f] += tsgs_dataset_row(ds, i)[f] / (double)ns;
    for (size_t i = 0; i < ns; i++)
        for (size_t f = 0; f < d; f++) {
            double t = tsgs_dataset_row(ds, i)[f] - smean[f];
            svar[f] += t * t / (double)ns;
        }
    float *x = malloc(sizeof(float) * n * d);
    ck_assert_ptr_nonnull(x);
    size_t pos = 0;
    for (size_t i = 0; i < n; i++)
        pos += (size_t)tsgs_mixture_row(m, 17, i, x + i * d);
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < d; f++)
            gmean[f] += x[i * d + f] / (double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < d; f++) {
            double t = x[i * d + f] - gmean[f];
            gvar[f] += t * t / (double)n;
        }
    for (size_t f = 0; f < d; f++) {
        /* EM keeps the mixture's mean and variance equal to the sample's;
         * what is left is sampling error of n rows */
        ck_assert_msg(fabs(gmean[f] - smean[f]) <= 5 * sqrt(svar[f] / n),
                      "feature %zu: mean %g, sample %g", f, gmean[f],
                      smean[f]);
        ck_assert_msg(fabs(gvar[f] / svar[f] - 1) <= 0.03,
                      "feature %zu: variance %g, sample %g", f, gvar[f],
                      svar[f]);
    }
    double p = 125.0 / 300.0;
    ck_assert_double_eq_tol((double)pos / n, p, 5 * sqrt(p * (1 - p) / n));
    free(x);
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* ---------------------------------------------------------- formatting */

static void same_as_printf(float v)
{
    char a[64], b[64];
    int n = tsgs__format_e18(v, a);
    a[n] = '\0';
    snprintf(b, sizeof b, "%.18e", (double)v);
    ck_assert_str_eq(a, b);
    if (fabsf(v) < 1e30f) { /* %.6f of larger values is long */
        n = tsgs__format_f6(v, a);
        a[n] = '\0';
        snprintf(b, sizeof b, "%.6f", (double)v);
        ck_assert_str_eq(a, b);
    }
}

START_TEST(formats_match_printf)
{
    static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 10.0f,
                                 1e-3f, 9.999999f, 0.1f, FLT_MAX, -FLT_MAX,
                                 FLT_MIN, 1e-45f, 3e-39f, 16777216.0f,
                                 1e10f, 1e20f, 1e30f, 6.2387800216674805e-01f,
                                 5.9604645e-08f, 2.384185791015625e-07f,
                                 0.0000005f, 0.0000015f, 0.9999995f,
                                 -0.0000004f, 999999.9999f, 1e-12f};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        same_as_printf(edge[i]);
    for (uint32_t i = 0; i < 300000; i++) {
        tsgs__u32x4 r = tsgs__philox(1, i, 0, 0, TEST_STREAM);
        float v;
        uint32_t bits = r.v[0];
        if (i % 2) /* half of them in the range real data has */
            bits = (bits & 0x807fffffu) | ((110u + r.v[1] % 40u) << 23);
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            same_as_printf(v);
    }
}
END_TEST

/* ----------------------------------------------------------- bad input */

START_TEST(bad_inputs_fail)
{
    tsgs_dataset *ds = susy_sample();
    tsgs_mixture *m = NULL;
    tsgs_error err;
    /* 125 rows of class 1: too few for 30 components */
    ck_assert_int_eq(tsgs_mixture_fit(ds, 30, 1, &m, &err), TSGS_ERR_DATA);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "too few"));
    ck_assert_int_eq(tsgs_mixture_fit(ds, 0, 1, &m, &err), TSGS_ERR_PARAM);
    tsgs_layout layout = TSGS_LAYOUT_LIBSVM;
    ck_assert_int_eq(tsgs_layout_from_name("csv", &layout, &err),
                     TSGS_ERR_PARAM);
    ck_assert_int_eq(layout, TSGS_LAYOUT_LIBSVM); /* untouched */
    ck_assert_ptr_nonnull(strstr(err.message, "susy, hepmass or libsvm"));
    ck_assert_int_eq(tsgs_layout_from_name("hepmass", &layout, &err),
                     TSGS_OK);
    ck_assert_int_eq(layout, TSGS_LAYOUT_HEPMASS);
    m = fit_ok(ds, 1, 1);
    /* 18 features are not HEPMASS-shaped */
    FILE *f = tmpfile();
    ck_assert_int_eq(tsgs_synth_write(m, 1, 0, 10, TSGS_LAYOUT_HEPMASS, 1, 1,
                                      f, &err),
                     TSGS_ERR_DIM);
    ck_assert_int_eq(ftell(f), 0);
    fclose(f);
    ck_assert_int_eq(tsgs_synth_write_file(m, 1, 10, TSGS_LAYOUT_SUSY, 1,
                                           "/nonexistent/dir/x.csv", &err),
                     TSGS_ERR_IO);
    ck_assert_str_eq(err.message,
                     "/nonexistent/dir/x.csv: cannot open for writing");
    /* a device that fails every write, named through a link: an I/O
     * error naming the path, and the link is still there (only a regular
     * file of partial rows is removed) */
    char dir[] = "/tmp/tsgs-synth-XXXXXX", link[64], plain[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/full.csv", dir);
    ck_assert_int_eq(symlink("/dev/full", link), 0);
    ck_assert_int_eq(tsgs_synth_write_file(m, 1, 5000, TSGS_LAYOUT_SUSY, 1,
                                           link, &err),
                     TSGS_ERR_IO);
    ck_assert_str_eq(err.file, link);
    ck_assert_ptr_nonnull(strstr(err.message, "writing"));
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(unlink(link), 0);
    /* a regular file that is written: kept, with its header-less rows */
    snprintf(plain, sizeof plain, "%s/ok.csv", dir);
    ck_assert_int_eq(tsgs_synth_write_file(m, 1, 3, TSGS_LAYOUT_SUSY, 1,
                                           plain, &err),
                     TSGS_OK);
    ck_assert_int_eq(stat(plain, &st), 0);
    ck_assert(S_ISREG(st.st_mode) && st.st_size > 0);
    ck_assert_int_eq(unlink(plain), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    tsgs_mixture_free(m);
    /* one class only */
    float x[40] = {0};
    double y[20];
    for (int i = 0; i < 20; i++) {
        x[2 * i] = (float)i;
        y[i] = 1.0;
    }
    tsgs_dataset *one = NULL;
    ck_assert(tsgs_dataset_from_dense(20, 2, x, y, &one, NULL) == TSGS_OK);
    ck_assert_int_eq(tsgs_mixture_fit(one, 1, 1, &m, &err), TSGS_ERR_DATA);
    tsgs_dataset_free(one);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(cli_synth)
{
    /* The tool: a bad layout name is an error; a good run writes rows. */
    /* make test builds the tool first */
    ck_assert_msg(access(TEST_TOOL, X_OK) == 0,
                  TEST_TOOL " missing: run make test");
    int rc = system(TEST_TOOL " synth --layout csv --skip-columns 1 "
                    "--label-column 2 " SUSY_SAMPLE " /tmp/tsgs_synth_cli.csv "
                    "2>/dev/null");
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    ck_assert_int_ne(access("/tmp/tsgs_synth_cli.csv", F_OK), 0);
    rc = system(TEST_TOOL " synth --rows 250 --components 2 --seed 4 "
                "--threads 1 --quiet --skip-columns 1 --label-column 2 "
                SUSY_SAMPLE " /tmp/tsgs_synth_cli.csv");
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    tsgs_dataset *back = NULL;
    ck_assert(tsgs_dataset_read("/tmp/tsgs_synth_cli.csv", NULL, &back,
                                NULL) == TSGS_OK);
    remove("/tmp/tsgs_synth_cli.csv");
    ck_assert_uint_eq(tsgs_dataset_rows(back), 250);
    ck_assert_uint_eq(tsgs_dataset_features(back), 18);
    tsgs_dataset_free(back);
}
END_TEST

Suite *synth_suite(void)
{
    Suite *s = suite_create("synth");
    TCase *tc = tcase_create("fit");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, em_recovers_known_mixture);
    tcase_add_test(tc, fit_is_seeded_and_balance_is_the_samples);
    tcase_add_test(tc, bad_inputs_fail);
    suite_add_tcase(s, tc);
    tc = tcase_create("sample");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, rows_are_a_function_of_seed_and_index);
    tcase_add_test(tc, susy_layout_reads_back);
    tcase_add_test(tc, hepmass_layout_reads_back);
    tcase_add_test(tc, moments_match_the_sample);
    tcase_add_test(tc, formats_match_printf);
    tcase_add_test(tc, cli_synth);
    suite_add_tcase(s, tc);
    return s;
}
