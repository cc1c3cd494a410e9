/* The prediction kernel: its cosine against libm, random features against
 * the kernels' closed forms, tiled sums against brute force, and the same
 * bits on 1 and 2 threads and with cached or regenerated directions. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

static double max_sincos_error(double lo, double hi, int n)
{
    float *x = malloc(sizeof(float) * (size_t)n);
    float *s = malloc(sizeof(float) * (size_t)n);
    float *c = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(lo + (hi - lo) * (i + 0.5) / n);
    tsgs__sincos_f(x, (size_t)n, s, c);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double es = fabs(s[i] - sin((double)x[i]));
        double ec = fabs(c[i] - cos((double)x[i]));
        worst = fmax(worst, fmax(es, ec));
    }
    tsgs__cos_f(x, (size_t)n, c); /* the cos-only path of COS features */
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(c[i] - cos((double)x[i])));
    free(x);
    free(s);
    free(c);
    return worst;
}

START_TEST(sincos_matches_libm)
{
    ck_assert_double_le(max_sincos_error(-10, 10, 200003), 2e-7);
    ck_assert_double_le(max_sincos_error(-200, 200, 200003), 3e-7);
    ck_assert_double_le(max_sincos_error(-1e4, 1e4, 200003), 1e-6);
}
END_TEST

static void random_rows(float *X, size_t n, size_t d, unsigned seed)
{
    for (size_t i = 0; i < n * d; i++) {
        tsgs__u32x4 r = tsgs__philox(seed, (uint32_t)i, 0, 0, 77);
        X[i] = (float)(2.0 * tsgs__u01(r.v[0], r.v[1]) - 1.0);
    }
}

static double closed_form(tsgs_kernel k, double sigma, const float *x,
                          const float *y, size_t d)
{
    double s = 0;
    for (size_t i = 0; i < d; i++) {
        double t = (double)x[i] - y[i];
        s += k == TSGS_KERNEL_RBF ? t * t : fabs(t);
    }
    return exp(-sigma * s);
}

/* RMS error over pairs of the kernel estimate from D directions, where
 * the estimate of k(x, y) is the kernel's weighted sum at y with the
 * coefficients that put x's features on each direction. */
static double rff_error(tsgs_kernel kernel, tsgs_feature_map map, long D)
{
    const size_t d = 6;
    tsgs__fspec fs = {kernel, map, 0.7, d, 99, 8, 0, 0, 1};
    fs.dirs = map == TSGS_FEATURES_PAIR ? 4 : 8;
    const long ng = (D + TSGS__LANES - 1) / TSGS__LANES;
    float *panel = malloc(sizeof(float) * (size_t)ng * TSGS__LANES * d);
    float *phase = malloc(sizeof(float) * (size_t)ng * TSGS__LANES);
    double *ac = calloc((size_t)ng * TSGS__LANES, sizeof(double));
    double *as = calloc((size_t)ng * TSGS__LANES, sizeof(double));
    tsgs__pack_directions(&fs, 0, D, panel, phase);
    enum { PAIRS = 40 };
    float X[PAIRS * 6], Y[PAIRS * 6];
    random_rows(X, PAIRS, d, 1);
    random_rows(Y, PAIRS, d, 2);
    double se = 0;
    for (int p = 0; p < PAIRS; p++) {
        for (long g = 0; g < D; g++) {
            float w[6], b;
            tsgs__direction(&fs, g / fs.dirs, g % fs.dirs, w, &b);
            double ph = b;
            for (size_t k = 0; k < d; k++)
                ph += (double)w[k] * X[p * d + k];
            /* COS: phi = sqrt(2) cos(.), and f = sqrt(2) sum a cos(.) */
            ac[g] = (map == TSGS_FEATURES_COS ? 2.0 : 1.0) * cos(ph) / (double)D;
            as[g] = sin(ph) / (double)D;
        }
        tsgs__fview v = {&fs, D, panel, phase, ac,
                         map == TSGS_FEATURES_PAIR ? as : NULL};
        double est;
        ck_assert_int_eq(tsgs__eval_sums(&v, Y + p * d, 1, 1, &est, NULL),
                         TSGS_OK);
        double e = est - closed_form(kernel, fs.sigma, X + p * d, Y + p * d, d);
        se += e * e;
    }
    free(panel);
    free(phase);
    free(ac);
    free(as);
    return sqrt(se / PAIRS);
}

/* Error ~ 1/sqrt(D): 64x more directions, about 8x less error. */
START_TEST(features_approximate_kernels)
{
    static const tsgs_kernel kernels[] = {TSGS_KERNEL_RBF, TSGS_KERNEL_LAPLACIAN};
    static const tsgs_feature_map maps[] = {TSGS_FEATURES_PAIR, TSGS_FEATURES_COS};
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 2; m++) {
            double e_small = rff_error(kernels[k], maps[m], 64);
            double e_big = rff_error(kernels[k], maps[m], 4096);
            ck_assert_double_lt(e_big, 0.03);
            ck_assert_double_lt(e_big, e_small / 4.0);
            ck_assert_double_gt(e_big, e_small / 16.0);
        }
}
END_TEST

typedef struct {
    tsgs__fspec fs;
    long ndirs, ng;
    float *panel, *phase, *X;
    double *ac, *as;
    size_t n;
} bench_case;

static void case_init(bench_case *c, tsgs_feature_map map, size_t n, size_t d,
                      long ndirs)
{
    tsgs__fspec fs = {TSGS_KERNEL_RBF, map, 0.3, d, 5, 10, 0, 0, 1};
    fs.dirs = map == TSGS_FEATURES_PAIR ? 5 : 10;
    c->fs = fs;
    c->ndirs = ndirs;
    c->ng = (ndirs + TSGS__LANES - 1) / TSGS__LANES;
    c->n = n;
    c->panel = malloc(sizeof(float) * (size_t)c->ng * TSGS__LANES * d);
    c->phase = malloc(sizeof(float) * (size_t)c->ng * TSGS__LANES);
    c->ac = calloc((size_t)c->ng * TSGS__LANES, sizeof(double));
    c->as = calloc((size_t)c->ng * TSGS__LANES, sizeof(double));
    c->X = malloc(sizeof(float) * n * d);
    tsgs__pack_directions(&c->fs, 0, ndirs, c->panel, c->phase);
    for (long g = 0; g < ndirs; g++) {
        c->ac[g] = sin(0.37 * (double)g) / 10;
        c->as[g] = cos(0.11 * (double)g) / 10;
    }
    random_rows(c->X, n, d, 3);
}

static void case_free(bench_case *c)
{
    free(c->panel);
    free(c->phase);
    free(c->ac);
    free(c->as);
    free(c->X);
}

static tsgs__fview case_view(const bench_case *c, int cached)
{
    tsgs__fview v = {&c->fs, c->ndirs, cached ? c->panel : NULL,
                     cached ? c->phase : NULL, c->ac,
                     c->fs.map == TSGS_FEATURES_PAIR ? c->as : NULL};
    return v;
}

/* Row i's weighted sum in double precision, straight from the directions
 * (no packing, no tiles, no vectors); *mag gets the sum of |coefficient|,
 * the scale of its rounding error. */
static double brute_force_sum(const bench_case *c, size_t i, double *mag)
{
    const size_t d = c->fs.d;
    float w[64], b;
    ck_assert_uint_le(d, 64);
    double ref = 0;
    *mag = 0;
    for (long g = 0; g < c->ndirs; g++) {
        tsgs__direction(&c->fs, g / c->fs.dirs, g % c->fs.dirs, w, &b);
        double ph = b;
        for (size_t k = 0; k < d; k++)
            ph += (double)w[k] * c->X[i * d + k];
        ref += c->ac[g] * cos(ph);
        *mag += fabs(c->ac[g]);
        if (c->fs.map == TSGS_FEATURES_PAIR) {
            ref += c->as[g] * sin(ph);
            *mag += fabs(c->as[g]);
        }
    }
    return ref;
}

/* Odd sizes: rows not a multiple of 4 or 32, directions spanning two group
 * tiles with a partial last group. */
START_TEST(sums_match_brute_force)
{
    for (int m = 0; m < 2; m++) {
        bench_case c;
        tsgs_feature_map map = m ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR;
        case_init(&c, map, 77, 9, 301);
        double *out = malloc(sizeof(double) * c.n);
        tsgs__fview v = case_view(&c, 1);
        ck_assert_int_eq(tsgs__eval_sums(&v, c.X, c.n, 1, out, NULL), TSGS_OK);
        for (size_t i = 0; i < c.n; i++) {
            double mag, ref = brute_force_sum(&c, i, &mag);
            ck_assert_double_eq_tol(out[i], ref, 2e-6 * mag);
        }
        free(out);
        case_free(&c);
    }
}
END_TEST

/* The sums against a double reference (double phase and libm's cos and
 * sin), on 600 directions (two full tiles of 16 groups and a part) with
 * coefficients of one sign (the worst case for rounding): their error
 * stays within the float features' own error (the float phase and the
 * polynomial, measured here with the same features summed in double), at
 * most twice it, and the part the sums add is below 5e-8 of the sum of
 * |coefficients| (the kernel sums in float within a tile: 16 terms a lane
 * on AVX-512, 64 on SSE2's 4-float vectors). On every code path this CPU
 * has; one it lacks is SKIPPED. */
START_TEST(sums_within_feature_error)
{
    tsgs_feature_map map = _i % 2 ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR;
    const tsgs__isa isa = (tsgs__isa)(_i / 2);
    if (!test_force_isa(isa, "kernel sums' error"))
        return;
    const size_t d = 18, n = 64;
    bench_case c;
    case_init(&c, map, n, d, 600); /* three tiles, two of them full */
    for (long g = 0; g < c.ndirs; g++) { /* one sign, the worst case */
        c.ac[g] = fabs(c.ac[g]) + 0.01;
        c.as[g] = fabs(c.as[g]) + 0.01;
    }
    const int pair = map == TSGS_FEATURES_PAIR;
    double *out = malloc(sizeof(double) * n);
    float *fc = malloc(sizeof(float) * n * (size_t)c.ng * TSGS__LANES);
    float *fs = malloc(sizeof(float) * n * (size_t)c.ng * TSGS__LANES);
    tsgs__fview v = case_view(&c, 1);
    ck_assert_int_eq(tsgs__eval_sums(&v, c.X, n, 1, out, NULL), TSGS_OK);
    tsgs__eval_features(d, c.panel, c.phase, c.ng, c.X, n, 1, fc,
                        pair ? fs : NULL);
    double worst_feat = 0, worst_sum = 0, worst_added = 0;
    for (size_t i = 0; i < n; i++) {
        double ref = 0, feat = 0, mag = 0;
        for (long g = 0; g < c.ndirs; g++) {
            long grp = g / TSGS__LANES, lane = g % TSGS__LANES;
            double ph = c.phase[g];
            for (size_t k = 0; k < d; k++)
                ph += (double)c.panel[(size_t)grp * d * TSGS__LANES +
                                      k * TSGS__LANES + (size_t)lane] *
                      c.X[i * d + k];
            size_t at = i * (size_t)c.ng * TSGS__LANES + (size_t)g;
            ref += c.ac[g] * cos(ph);
            feat += c.ac[g] * fc[at];
            mag += fabs(c.ac[g]);
            if (pair) {
                ref += c.as[g] * sin(ph);
                feat += c.as[g] * fs[at];
                mag += fabs(c.as[g]);
            }
        }
        worst_feat = fmax(worst_feat, fabs(feat - ref) / mag);
        worst_sum = fmax(worst_sum, fabs(out[i] - ref) / mag);
        worst_added = fmax(worst_added, fabs(out[i] - feat) / mag);
    }
    printf("kernel sums (%s, %s): error %.2e of sum |a|, features alone "
           "%.2e, added by the sums %.2e\n",
           pair ? "pair" : "cos", tsgs__isa_name(isa), worst_sum, worst_feat,
           worst_added);
    ck_assert_int_eq(tsgs__isa_force(-1), 0);
    ck_assert_double_gt(worst_feat, 0.0);
    ck_assert_double_le(worst_sum, 2.0 * worst_feat);
    ck_assert_double_le(worst_added, 5e-8);
    free(out);
    free(fc);
    free(fs);
    case_free(&c);
}
END_TEST

/* Same bits whatever the thread count, and whether omega is cached or
 * regenerated tile by tile. */
START_TEST(sums_identical_across_threads_and_cache)
{
    for (int m = 0; m < 2; m++) {
        bench_case c;
        case_init(&c, m ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR, 301, 18, 777);
        double *o1 = malloc(sizeof(double) * c.n);
        double *o2 = malloc(sizeof(double) * c.n);
        double *o3 = malloc(sizeof(double) * c.n);
        tsgs__fview cached = case_view(&c, 1), regen = case_view(&c, 0);
        ck_assert_int_eq(tsgs__eval_sums(&cached, c.X, c.n, 1, o1, NULL), TSGS_OK);
        ck_assert_int_eq(tsgs__eval_sums(&cached, c.X, c.n, 2, o2, NULL), TSGS_OK);
        ck_assert_int_eq(tsgs__eval_sums(&regen, c.X, c.n, 2, o3, NULL), TSGS_OK);
        ck_assert_int_eq(memcmp(o1, o2, sizeof(double) * c.n), 0);
        ck_assert_int_eq(memcmp(o1, o3, sizeof(double) * c.n), 0);
        free(o1);
        free(o2);
        free(o3);
        case_free(&c);
    }
}
END_TEST

/* A mini-batch too small to give every thread of a large team three
 * tasks of 48 rows (256 rows over two group tiles on 16 threads) is cut
 * into tiles of 12 rows: the sums keep their bits (rows not a multiple of
 * 12 too). */
START_TEST(small_batches_on_many_threads_keep_their_bits)
{
    const size_t rows[] = {256, 301, 40};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        bench_case c;
        case_init(&c, TSGS_FEATURES_PAIR, rows[k], 18, 512);
        double *o1 = malloc(sizeof(double) * c.n);
        double *o16 = malloc(sizeof(double) * c.n);
        tsgs__fview v = case_view(&c, 1);
        ck_assert_int_eq(tsgs__eval_sums(&v, c.X, c.n, 1, o1, NULL), TSGS_OK);
        for (size_t i = 0; i < c.n; i++)
            o16[i] = NAN;
        ck_assert_int_eq(tsgs__eval_sums(&v, c.X, c.n, 16, o16, NULL),
                         TSGS_OK);
        ck_assert_int_eq(memcmp(o1, o16, sizeof(double) * c.n), 0);
        free(o1);
        free(o16);
        case_free(&c);
    }
}
END_TEST

/* Block features equal the kernel's own: one direction with coefficient 1
 * summed by the kernel gives the feature value. */
START_TEST(block_features_match_sums)
{
    bench_case c;
    case_init(&c, TSGS_FEATURES_PAIR, 45, 7, 24);
    const long ng = (24 + TSGS__LANES - 1) / TSGS__LANES;
    const size_t w = (size_t)ng * TSGS__LANES;
    float *cv = malloc(sizeof(float) * c.n * w), *sv = malloc(sizeof(float) * c.n * w);
    float *cv2 = malloc(sizeof(float) * c.n * w);
    tsgs__eval_features(7, c.panel, c.phase, ng, c.X, c.n, 2, cv, sv);
    tsgs__eval_features(7, c.panel, c.phase, ng, c.X, c.n, 1, cv2, NULL);
    for (size_t i = 0; i < c.n; i++)
        for (long g = 0; g < 24; g++) {
            float wv[7], b;
            tsgs__direction(&c.fs, g / c.fs.dirs, g % c.fs.dirs, wv, &b);
            double ph = b;
            for (size_t k = 0; k < 7; k++)
                ph += (double)wv[k] * c.X[i * 7 + k];
            ck_assert_double_eq_tol(cv[i * w + (size_t)g], cos(ph), 1e-6);
            ck_assert_double_eq_tol(cv2[i * w + (size_t)g], cos(ph), 1e-6);
            ck_assert_double_eq_tol(sv[i * w + (size_t)g], sin(ph), 1e-6);
        }
    free(cv2);
    free(cv);
    free(sv);
    case_free(&c);
}
END_TEST

/* Each code path of the kernel (baseline, AVX2, AVX-512: one is chosen
 * per CPU, so on a given machine the others never run unless forced)
 * against the scalar double-precision reference: sums with cached and
 * regenerated directions, on 1 and 2 threads, both feature maps, and the
 * feature values of block rows. A path this CPU cannot run is SKIPPED. */
START_TEST(every_code_path_matches_reference)
{
    const tsgs__isa isa = (tsgs__isa)_i;
    if (!tsgs__isa_supported(isa)) {
        char test[96];
        snprintf(test, sizeof test, "kernel code path %s",
                 tsgs__isa_name(isa));
        test_skip(test, isa == TSGS__ISA_BASELINE
                            ? "not built"
                            : "this CPU (or build) does not have it");
        return;
    }
    ck_assert_int_eq(tsgs__isa_force(isa), 0);
    for (int m = 0; m < 2; m++) {
        bench_case c;
        tsgs_feature_map map = m ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR;
        /* 2 group tiles (a partial one), 8 row tiles (a partial
         * one), enough work (rows x groups x 16 > 65536) for 2 threads */
        case_init(&c, map, 230, 13, 300);
        double *out = malloc(sizeof(double) * c.n);
        for (int run = 0; run < 4; run++) {
            tsgs__fview v = case_view(&c, run & 1);
            int threads = run < 2 ? 1 : 2;
            ck_assert_int_eq(tsgs__eval_sums(&v, c.X, c.n, threads, out, NULL),
                             TSGS_OK);
            for (size_t i = 0; i < c.n; i++) {
                double mag, ref = brute_force_sum(&c, i, &mag);
                ck_assert_msg(fabs(out[i] - ref) <= 2e-6 * mag,
                              "%s, %s, run %d, row %zu: %.9g vs %.9g",
                              tsgs__isa_name(isa), m ? "cos" : "pair", run,
                              i, out[i], ref);
            }
        }
        const long ng = c.ng;
        const size_t width = (size_t)ng * TSGS__LANES;
        float *cv = malloc(sizeof(float) * c.n * width);
        float *sv = malloc(sizeof(float) * c.n * width);
        tsgs__eval_features(c.fs.d, c.panel, c.phase, ng, c.X, c.n, 2, cv,
                            map == TSGS_FEATURES_PAIR ? sv : NULL);
        for (size_t i = 0; i < c.n; i++)
            for (long g = 0; g < c.ndirs; g++) {
                float w[13], b;
                tsgs__direction(&c.fs, g / c.fs.dirs, g % c.fs.dirs, w, &b);
                double ph = b;
                for (size_t k = 0; k < 13; k++)
                    ph += (double)w[k] * c.X[i * 13 + k];
                size_t at = i * width + (size_t)g;
                /* float phases of 13 terms: errors to about 2e-6 */
                ck_assert_msg(fabs(cv[at] - cos(ph)) <= 3e-6,
                              "%s: cos feature %ld of row %zu: %.9g vs %.9g",
                              tsgs__isa_name(isa), g, i, cv[at], cos(ph));
                if (map == TSGS_FEATURES_PAIR)
                    ck_assert_double_eq_tol(sv[at], sin(ph), 3e-6);
            }
        free(cv);
        free(sv);
        free(out);
        case_free(&c);
    }
    ck_assert_int_eq(tsgs__isa_force(-1), 0);
}
END_TEST

/* Forcing refuses what cannot run and leaves the choice unchanged. */
START_TEST(isa_force_refuses_unknown_paths)
{
    ck_assert_int_eq(tsgs__isa_force(TSGS__ISA_COUNT), -1);
    ck_assert_int_eq(tsgs__isa_force(-2), -1);
    ck_assert(tsgs__isa_supported(TSGS__ISA_BASELINE));
    ck_assert_int_eq(tsgs__isa_force(TSGS__ISA_BASELINE), 0);
    ck_assert_int_eq(tsgs__isa_force(-1), 0);
    ck_assert_str_eq(tsgs__isa_name(TSGS__ISA_COUNT), "unknown");
}
END_TEST

/* The rows read ahead split over a kernel's team: every row asked for by
 * exactly one thread; the master the last `tail` (all of them when tail
 * passes n), each other thread only rows of its own gather share; a team
 * of one all of them. */
START_TEST(rows_ahead_shares_cover_each_row_once)
{
    const size_t ns[] = {0, 1, 17, 256, 1000};
    const size_t tails[] = {0, 1, 16, 100, 256, 5000};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof tails / sizeof tails[0]; b++)
            for (size_t team = 1; team <= 6; team++) {
                const size_t n = ns[a], tail = tails[b];
                tsgs__rows_ahead ahead = {NULL, NULL, n, 18, tail};
                unsigned char *seen = calloc(n ? n : 1, 1);
                for (size_t tid = 0; tid < team; tid++) {
                    size_t lo = 0, hi = 0;
                    tsgs__rows_ahead_share(&ahead, team, tid, &lo, &hi);
                    ck_assert_uint_le(lo, hi);
                    ck_assert_uint_le(hi, n);
                    if (team == 1) {
                        ck_assert_uint_eq(lo, 0);
                        ck_assert_uint_eq(hi, n);
                    } else if (tid == 0) {
                        ck_assert_uint_eq(hi, n);
                        ck_assert_uint_eq(hi - lo, tail < n ? tail : n);
                    } else if (lo < hi) { /* within its gather share */
                        const size_t w = tid - 1, W = team - 1;
                        ck_assert_uint_ge(lo, n * w / W);
                        ck_assert_uint_le(hi, n * (w + 1) / W);
                    }
                    for (size_t i = lo; i < hi; i++)
                        seen[i]++;
                }
                for (size_t i = 0; i < n; i++)
                    ck_assert_msg(seen[i] == 1,
                                  "n %zu tail %zu team %zu: row %zu asked "
                                  "for %d times",
                                  n, tail, team, i, seen[i]);
                free(seen);
            }
}
END_TEST

Suite *kernel_suite(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sincos_matches_libm);
    tcase_add_test(tc, features_approximate_kernels);
    tcase_add_test(tc, sums_match_brute_force);
    tcase_add_test(tc, sums_identical_across_threads_and_cache);
    tcase_add_test(tc, rows_ahead_shares_cover_each_row_once);
    tcase_add_test(tc, small_batches_on_many_threads_keep_their_bits);
    tcase_add_loop_test(tc, sums_within_feature_error, 0,
                        2 * TSGS__ISA_COUNT);
    tcase_add_test(tc, block_features_match_sums);
    tcase_add_loop_test(tc, every_code_path_matches_reference, 0,
                        TSGS__ISA_COUNT);
    tcase_add_test(tc, isa_force_refuses_unknown_paths);
    suite_add_tcase(s, tc);
    return s;
}
