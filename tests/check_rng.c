/* Counter-based generator and feature directions: known answers, ranges,
 * moments, and regeneration in any order. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Philox4x32-10 known-answer vectors (Random123's kat_vectors). */
START_TEST(philox_known_answers)
{
    tsgs__u32x4 r = tsgs__philox(0, 0, 0, 0, 0);
    ck_assert_uint_eq(r.v[0], 0x6627e8d5u);
    ck_assert_uint_eq(r.v[1], 0xe169c58du);
    ck_assert_uint_eq(r.v[2], 0xbc57ac4cu);
    ck_assert_uint_eq(r.v[3], 0x9b00dbd8u);
    r = tsgs__philox(UINT64_MAX, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                     0xffffffffu);
    ck_assert_uint_eq(r.v[0], 0x408f276du);
    ck_assert_uint_eq(r.v[1], 0x41c83b0eu);
    ck_assert_uint_eq(r.v[2], 0xa20bc7c6u);
    ck_assert_uint_eq(r.v[3], 0x6d5451fdu);
    r = tsgs__philox(UINT64_C(0x299f31d0a4093822), 0x243f6a88u, 0x85a308d3u,
                     0x13198a2eu, 0x03707344u);
    ck_assert_uint_eq(r.v[0], 0xd16cfe09u);
    ck_assert_uint_eq(r.v[1], 0x94fdccebu);
    ck_assert_uint_eq(r.v[2], 0x5001e420u);
    ck_assert_uint_eq(r.v[3], 0x24126ea1u);
}
END_TEST

START_TEST(uniform_open_interval)
{
    ck_assert(tsgs__u01(0, 0) > 0.0);
    ck_assert(tsgs__u01(0xffffffffu, 0xffffffffu) < 1.0);
    double sum = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        tsgs__u32x4 r = tsgs__philox(7, (uint32_t)i, 0, 0, 9);
        double u = tsgs__u01(r.v[0], r.v[1]);
        ck_assert(u > 0.0 && u < 1.0);
        sum += u;
    }
    ck_assert_double_eq_tol(sum / n, 0.5, 0.005);
}
END_TEST

START_TEST(normal_moments)
{
    const int n = 100000;
    double s1 = 0, s2 = 0, s4 = 0;
    for (int i = 0; i < n; i++) {
        double z[2];
        tsgs__normal_pair(tsgs__philox(3, (uint32_t)i, 1, 2, 3), &z[0], &z[1]);
        for (int k = 0; k < 2; k++) {
            s1 += z[k];
            s2 += z[k] * z[k];
            s4 += z[k] * z[k] * z[k] * z[k];
        }
    }
    ck_assert_double_eq_tol(s1 / (2 * n), 0.0, 0.01);
    ck_assert_double_eq_tol(s2 / (2 * n), 1.0, 0.02);
    ck_assert_double_eq_tol(s4 / (2 * n), 3.0, 0.1); /* kurtosis */
}
END_TEST

START_TEST(below_in_range_and_uniform)
{
    int counts[7] = {0};
    for (uint64_t i = 0; i < 70000; i++) {
        uint64_t v = tsgs__below(11, 5, i, 7);
        ck_assert_uint_lt(v, 7);
        counts[v]++;
    }
    for (int k = 0; k < 7; k++)
        ck_assert_int_lt(abs(counts[k] - 10000), 400);
}
END_TEST

static tsgs__fspec spec(tsgs_kernel kernel, tsgs_feature_map map, size_t d)
{
    tsgs__fspec fs = {kernel, map, 0.5, d, 12345, 6, map == TSGS_FEATURES_PAIR ? 3 : 6, 0, 1};
    return fs;
}

/* Block b's directions depend only on (seed, b, j): generating blocks
 * forwards, backwards or in another process gives the same floats. */
/* The remainder by a precomputed magic equals z % i: at the edges (z 0,
 * 2^64 - 1, multiples of i and their neighbours; i 1, 2, 3, 2^32 - 1,
 * 2^32, 2^63 + 1) and on a million hashed pairs. */
START_TEST(mod_fast_equals_remainder)
{
    const uint64_t divisors[] = {1, 2, 3, 7, 160, 1000003, 4294967295u,
                                 4294967296u, 9223372036854775809u};
    for (size_t k = 0; k < sizeof divisors / sizeof *divisors; k++) {
        const uint64_t i = divisors[k], m = tsgs__mod_magic(i);
        const uint64_t q_max = UINT64_MAX / i;
        const uint64_t zs[] = {0, 1, i - 1, i, i + 1, UINT64_MAX,
                               UINT64_MAX - 1, q_max * i, q_max * i - 1,
                               (q_max / 2) * i + i / 2};
        for (size_t z = 0; z < sizeof zs / sizeof *zs; z++)
            ck_assert_msg(tsgs__mod_fast(zs[z], i, m) == zs[z] % i,
                          "%llu %% %llu", (unsigned long long)zs[z],
                          (unsigned long long)i);
    }
    for (uint32_t t = 0; t < 1000000; t++) {
        tsgs__u32x4 r = tsgs__philox(5, t, 0, 1, 2);
        uint64_t z = ((uint64_t)r.v[0] << 32) | r.v[1];
        uint64_t i = (r.v[2] >> (r.v[3] % 32)) | 1u; /* every size */
        ck_assert(tsgs__mod_fast(z, i, tsgs__mod_magic(i)) == z % i);
    }
}
END_TEST

START_TEST(directions_regenerate_in_any_order)
{
    const size_t d = 7;
    tsgs__fspec fs = spec(TSGS_KERNEL_RBF, TSGS_FEATURES_COS, d);
    enum { B = 20, J = 6 };
    static float fw[B][J][7], bw[B][J][7];
    float pf[B][J], pb[B][J];
    for (long b = 0; b < B; b++)
        for (long j = 0; j < J; j++)
            tsgs__direction(&fs, b, j, fw[b][j], &pf[b][j]);
    for (long b = B - 1; b >= 0; b--)
        for (long j = J - 1; j >= 0; j--)
            tsgs__direction(&fs, b, j, bw[b][j], &pb[b][j]);
    ck_assert_int_eq(memcmp(fw, bw, sizeof fw), 0);
    ck_assert_int_eq(memcmp(pf, pb, sizeof pf), 0);
    /* Different blocks differ; a different seed differs. */
    ck_assert(memcmp(fw[0], fw[1], sizeof fw[0]) != 0);
    tsgs__fspec other = fs;
    other.seed = 12346;
    float o[7], op;
    tsgs__direction(&other, 0, 0, o, &op);
    ck_assert(memcmp(o, fw[0][0], sizeof o) != 0);
}
END_TEST

/* omega ~ N(0, 2 sigma) for RBF, Cauchy(0, sigma) for Laplacian, b ~ U. */
START_TEST(direction_distributions)
{
    const size_t d = 4;
    tsgs__fspec g = spec(TSGS_KERNEL_RBF, TSGS_FEATURES_COS, d);
    tsgs__fspec l = spec(TSGS_KERNEL_LAPLACIAN, TSGS_FEATURES_COS, d);
    double var = 0, pmean = 0;
    long n = 0, inside = 0;
    for (long b = 0; b < 5000; b++) {
        float w[4], p;
        tsgs__direction(&g, b, 0, w, &p);
        for (size_t k = 0; k < d; k++)
            var += (double)w[k] * w[k];
        pmean += p;
        ck_assert(p >= 0.0f && p < 2 * TSGS__PI + 1e-6);
        tsgs__direction(&l, b, 0, w, &p);
        for (size_t k = 0; k < d; k++)
            inside += fabs(w[k]) < l.sigma; /* P(|C| < scale) = 1/2 */
        n += (long)d;
    }
    ck_assert_double_eq_tol(var / (double)n, 2 * g.sigma, 0.03);
    ck_assert_double_eq_tol(pmean / 5000, TSGS__PI, 0.1);
    ck_assert_double_eq_tol((double)inside / (double)n, 0.5, 0.02);
}
END_TEST

START_TEST(pack_matches_directions)
{
    const size_t d = 5;
    tsgs__fspec fs = spec(TSGS_KERNEL_RBF, TSGS_FEATURES_PAIR, d);
    const long count = 11, g0 = 4; /* starts mid-block, spans blocks */
    float panel[2 * 5 * TSGS__LANES], phase[2 * TSGS__LANES];
    tsgs__pack_directions(&fs, g0, count, panel, phase);
    const long ngroups = (count + TSGS__LANES - 1) / TSGS__LANES;
    for (long i = 0; i < ngroups * TSGS__LANES; i++) {
        float w[5], p = 0;
        if (i < count)
            tsgs__direction(&fs, (g0 + i) / fs.dirs, (g0 + i) % fs.dirs, w, &p);
        else
            memset(w, 0, sizeof w);
        for (size_t k = 0; k < d; k++)
            ck_assert(panel[(i / TSGS__LANES) * d * TSGS__LANES +
                            k * TSGS__LANES + i % TSGS__LANES] == w[k]);
        ck_assert(phase[i] == p);
    }
}
END_TEST

/* The shuffle's draws four at a time are tsgs__below's, one by one: runs
 * of lengths 0-9 (whole and part fours), a key with high bits, counters
 * across 2^32. */
START_TEST(below_run_equals_below)
{
    const uint64_t key = UINT64_C(0x5a) << 40;
    const size_t his[] = {9, 1000, (size_t)UINT32_MAX + 5};
    size_t out[9];
    for (size_t h = 0; h < sizeof his / sizeof his[0]; h++)
        for (size_t len = 0; len <= 9; len++) {
            tsgs__below_run(77, 3, key, his[h], len, out);
            for (size_t q = 0; q < len; q++) {
                const size_t i = his[h] - q;
                ck_assert_uint_eq(out[q], tsgs__below(77, 3, key ^ i, i));
            }
        }
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, philox_known_answers);
    tcase_add_test(tc, mod_fast_equals_remainder);
    tcase_add_test(tc, uniform_open_interval);
    tcase_add_test(tc, normal_moments);
    tcase_add_test(tc, below_in_range_and_uniform);
    tcase_add_test(tc, below_run_equals_below);
    tcase_add_test(tc, directions_regenerate_in_any_order);
    tcase_add_test(tc, direction_distributions);
    tcase_add_test(tc, pack_matches_directions);
    suite_add_tcase(s, tc);
    return s;
}
