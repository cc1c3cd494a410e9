/* Coordinate k of many iid directions at once: what sparse rows' columns
 * need (kernel_sparse.c), the bits of tsgs__omega_coord, made a vector of
 * directions at a time.
 *
 * tsgs__omega_coord makes each coordinate alone: a Philox draw, then
 * libm's log, sqrt and cos or sin, some 45 ns a coordinate, three
 * quarters of a sparse prediction's time (issue #30). Here the draws of
 * BATCH directions go through the ten rounds side by side in vectors, and
 * the log, cos and sin are polynomials of our own in the same vectors.
 *
 * Same bits. Our w = rad * cos(ang) * sd differs from the exact value by
 * less than 2^-44 of it (measured over 2 x 10^7 draws; bounded below),
 * libm's (the reference path) by a few units in the last place (2^-50).
 * The float is proved when w - margin and w + margin round to the float w
 * rounds to, margin = 2^-40 |w| (+ a tiny absolute part): both values lie
 * in that interval and rounding is monotonic, so tsgs__omega_coord rounds
 * to the same float. The few lanes not proved (some 2 in 10^5: a value
 * within 2^-40 of halfway between two floats) take tsgs__omega_coord's
 * own path. The angle is tsgs__omega_unit's (one product, the same bits),
 * so that cos near its zeros starts from the same argument.
 *
 * The errors: log: the series' rest below 2^-48 (|s| < 0.1716, to s^17),
 * e log 2 in two parts, a few roundings of 2^-53; cos and sin: Taylor to
 * r^14 and r^13 on |r| <= pi/4, rests below 2^-45 relative; r = ang -
 * q pi/2 with pi/2 in three parts (2^-117), exact first subtraction. */
#include "kernel/kernel.h"

#include <math.h>
#include <string.h>
#if TSGS__HAVE_ISA_PATHS || defined(__SSE2__)
#include <immintrin.h>
#endif

#define BATCH 32 /* directions a batch */

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

#define MANT52 UINT64_C(0x000fffffffffffff)
#define ONE_BITS UINT64_C(0x3ff0000000000000)
#define TWO52_BITS UINT64_C(0x4330000000000000)
#define SIGN_BIT UINT64_C(0x8000000000000000)
#define TINY_BITS UINT64_C(0x3c30000000000000) /* 2^-60 */
#define SQRT2_MANT UINT64_C(0x6a09e667f3bcd) /* sqrt(2)'s mantissa bits */
#define TWO52 4503599627370496.0
#define ROUND_SHIFT 0x1.8p52
/* log 2 and pi / 2 in parts whose products by small integers are exact */
#define LN2_HI 0x1.62e42fee00000p-1
#define LN2_LO 0x1.a39ef35793c76p-33
#define PIO2_1 0x1.921fb54400000p+0
#define PIO2_2 0x1.0b4611a600000p-34
#define PIO2_3 0x1.3198a2e037073p-69

#if TSGS__HAVE_ISA_PATHS
#define CW 8
#define CN(name) name##_avx512
#define CATTR __attribute__((target("arch=x86-64-v4")))
#define CMUL(a, b) \
    ((vu_avx512)_mm512_mul_epu32((__m512i)(a), (__m512i)(b)))
#include "kernel/column_lanes.h"
#undef CW
#undef CN
#undef CATTR
#undef CMUL
#define CW 4
#define CN(name) name##_avx2
#define CATTR __attribute__((target("arch=x86-64-v3")))
#define CMUL(a, b) \
    ((vu_avx2)_mm256_mul_epu32((__m256i)(a), (__m256i)(b)))
#include "kernel/column_lanes.h"
#undef CW
#undef CN
#undef CATTR
#undef CMUL
#endif
#define CW 2
#define CN(name) name##_base
#define CATTR
#if defined(__SSE2__)
#define CMUL(a, b) ((vu_base)_mm_mul_epu32((__m128i)(a), (__m128i)(b)))
#else
#define CMUL(a, b) (((a) & 0xffffffffu) * ((b) & 0xffffffffu))
#endif
#include "kernel/column_lanes.h"
#undef CW
#undef CN
#undef CATTR
#undef CMUL

typedef void (*batch_fn)(uint64_t, const uint32_t *, const uint32_t *,
                         uint32_t, uint64_t, double, float *, uint32_t *);
typedef void (*batch2_fn)(uint64_t, const uint32_t *, const uint32_t *,
                          uint32_t, double, float *, uint32_t *, float *,
                          uint32_t *);

typedef void (*units_fn)(uint64_t, const uint32_t *, const uint32_t *,
                         uint32_t, uint64_t, double *, uint32_t *);

static void batch_for(tsgs__isa isa, batch_fn *one, batch2_fn *two,
                      units_fn *units)
{
#if TSGS__HAVE_ISA_PATHS
    if (isa == TSGS__ISA_AVX512) {
        *one = batch_avx512;
        *two = batch2_avx512;
        *units = batch_units_avx512;
        return;
    }
    if (isa == TSGS__ISA_AVX2) {
        *one = batch_avx2;
        *two = batch2_avx2;
        *units = batch_units_avx2;
        return;
    }
#else
    (void)isa;
#endif
    *one = batch_base;
    *two = batch2_base;
    *units = batch_units_base;
}

/* The counters of directions [g, ...) batch by batch: (block, j) of lane
 * 0 in *block, *j on entry, of the next batch's lane 0 on return; lanes
 * past m repeat lane m - 1's. */
static void counters(const tsgs__fspec *fs, long m, long *block, long *j,
                     uint32_t *c0, uint32_t *c1)
{
    /* in locals: through the pointers, each lane's stores made the
     * compiler reload *j and *block (they might alias c0 and c1), most of
     * make's own time */
    const long dirs = fs->dirs;
    long b = *block, jj = *j;
    for (long l = 0; l < BATCH; l++) {
        c0[l] = (uint32_t)b;
        c1[l] = (uint32_t)jj;
        if (l + 1 < m && ++jj == dirs) {
            jj = 0;
            ++b;
        }
    }
    if (m == BATCH && ++jj == dirs) {
        jj = 0;
        ++b;
    }
    *block = b;
    *j = jj;
}

/* Tests only: nonzero makes every coordinate tsgs__omega_coord's way. */
static int one_by_one;

void tsgs__omega_column_one_by_one(int on) { one_by_one = on; }

/* Coordinates k (out) and, when out2 is not NULL, k + 1 (k even: the two
 * halves of the same draws) of directions [g, g + n). */
static void make(const tsgs__fspec *fs, uint32_t k, long g, long n,
                 float *out, float *out2)
{
    /* Cauchy coordinates (tan): one by one */
    if (fs->kernel != TSGS_KERNEL_RBF || one_by_one) {
        for (long t = 0; t < n; t++) {
            out[t] = tsgs__omega_coord(fs, (g + t) / fs->dirs,
                                       (g + t) % fs->dirs, k);
            if (out2)
                out2[t] = tsgs__omega_coord(fs, (g + t) / fs->dirs,
                                            (g + t) % fs->dirs, k + 1);
        }
        return;
    }
    batch_fn batch;
    batch2_fn batch2;
    units_fn units;
    batch_for(tsgs__isa_now(), &batch, &batch2, &units);
    /* tsgs__omega_scaled's factor, the same bits */
    const double sd = sqrt(2.0 * fs->sigma);
    uint32_t c0[BATCH], c1[BATCH], bad[BATCH], bad2[BATCH];
    float v[BATCH], v2[BATCH];
    long block = g / fs->dirs, j = g % fs->dirs; /* of lane 0 */
    for (long t0 = 0; t0 < n; t0 += BATCH) {
        const long m = n - t0 < BATCH ? n - t0 : BATCH;
        counters(fs, m, &block, &j, c0, c1);
        if (out2)
            batch2(fs->seed, c0, c1, k / 2, sd, v, bad, v2, bad2);
        else
            batch(fs->seed, c0, c1, k / 2, k & 1, sd, v, bad);
        uint32_t any = 0;
        for (long l = 0; l < BATCH; l++)
            any |= bad[l] | (out2 ? bad2[l] : 0);
        if (m == BATCH && !any) { /* every lane proved: the common case */
            memcpy(out + t0, v, sizeof v);
            if (out2)
                memcpy(out2 + t0, v2, sizeof v2);
            continue;
        }
        for (long l = 0; l < m; l++) {
            out[t0 + l] = bad[l] ? tsgs__omega_coord(fs, (long)c0[l],
                                                     (long)c1[l], k)
                                 : v[l];
            if (out2)
                out2[t0 + l] = bad2[l] ? tsgs__omega_coord(fs, (long)c0[l],
                                                           (long)c1[l], k + 1)
                                       : v2[l];
        }
    }
}

void tsgs__omega_column(const tsgs__fspec *fs, uint32_t k, long g, long n,
                        float *out)
{
    make(fs, k, g, n, out, NULL);
}

void tsgs__omega_column_pair(const tsgs__fspec *fs, uint32_t h, long g,
                             long n, float *even, float *odd)
{
    make(fs, 2 * h, g, n, even, odd);
}

void tsgs__omega_column_units(const tsgs__fspec *fs, uint32_t k, long g,
                              long n, double *out)
{
    if (fs->kernel != TSGS_KERNEL_RBF || one_by_one) {
        for (long t = 0; t < n; t++)
            out[t] = tsgs__omega_unit(fs, (g + t) / fs->dirs,
                                      (g + t) % fs->dirs, k);
        return;
    }
    batch_fn batch;
    batch2_fn batch2;
    units_fn units;
    batch_for(tsgs__isa_now(), &batch, &batch2, &units);
    uint32_t c0[BATCH], c1[BATCH], bad[BATCH];
    double u[BATCH];
    long block = g / fs->dirs, j = g % fs->dirs;
    for (long t0 = 0; t0 < n; t0 += BATCH) {
        const long m = n - t0 < BATCH ? n - t0 : BATCH;
        counters(fs, m, &block, &j, c0, c1);
        units(fs->seed, c0, c1, k / 2, k & 1, u, bad);
        for (long l = 0; l < m; l++)
            out[t0 + l] = bad[l] ? tsgs__omega_unit(fs, (long)c0[l],
                                                    (long)c1[l], k)
                                 : u[l];
    }
}

float tsgs__omega_scaled_proved(const tsgs__fspec *fs, double unit, double f,
                                long g, uint32_t k)
{
    const double w = unit * f;
    const float fw = (float)w;
    const double margin = fabs(w) * 0x1p-40;
    if ((float)(w - margin) == fw && (float)(w + margin) == fw)
        return fw;
    return tsgs__omega_coord(fs, g / fs->dirs, g % fs->dirs, k);
}
