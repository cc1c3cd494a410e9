/* The prediction kernel: sums of weighted random features over tiles of
 * (rows x directions), spread over OpenMP threads.
 *
 * Precision: omega, x and the phase omega . x are float; cos and sin are a
 * float polynomial with Cody-Waite range reduction (max error ~1e-7 for
 * |phase| < 1e4, bounded in tests/check_kernel.c); products with the
 * coefficients and every sum are double. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* One vector holds TSGS__LANES (16) floats: one AVX-512 register, two
 * AVX2 ones; the double sums take half as many lanes per vector. */
typedef float vf8 __attribute__((vector_size(4 * TSGS__LANES)));
typedef float vf4 __attribute__((vector_size(2 * TSGS__LANES)));
typedef int vi8 __attribute__((vector_size(4 * TSGS__LANES)));
typedef unsigned int vu8 __attribute__((vector_size(4 * TSGS__LANES)));
typedef double vd4 __attribute__((vector_size(4 * TSGS__LANES)));

/* One binary, the widest vector unit of the machine it runs on: each hot
 * function is compiled once per x86-64 level (TSGS__FOR_ISAS, isa.h) and
 * the call runs the one tsgs__isa_now() names. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define ROW_TILE 32    /* rows per tile */
#define GROUP_TILE 16  /* groups of 16 directions per tile (256 directions) */

ALWAYS_INLINE vf8 load8(const float *p)
{
    vf8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

ALWAYS_INLINE vd4 load4d(const double *p)
{
    vd4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

ALWAYS_INLINE vf8 splat(float f)
{
    return (vf8){0} + f;
}

/* sin and cos of 16 floats: reduce by the nearest multiple of pi/2 (pi/2 in
 * three parts, so q * P1 and q * P2 are exact for |q| < 2^13), evaluate
 * minimax polynomials on [-pi/4, pi/4], then swap and negate by quadrant. */
ALWAYS_INLINE void sincos8(vf8 x, vf8 *s, vf8 *c)
{
    const vf8 magic = splat(12582912.0f); /* 1.5 * 2^23: round to integer */
    vf8 q = x * splat(0.636619772367581343f) + magic;
    q = q - magic;
    vi8 qi = __builtin_convertvector(q, vi8);
    vf8 r = x - q * splat(1.5703125f);
    r = r - q * splat(4.837512969970703125e-4f);
    r = r - q * splat(7.54978995489188216e-8f);
    vf8 r2 = r * r;
    vf8 ps = r + r * r2 * (splat(-1.6666654611e-1f) +
                           r2 * (splat(8.3321608736e-3f) +
                                 r2 * splat(-1.9515295891e-4f)));
    vf8 pc = splat(1.0f) - splat(0.5f) * r2 +
             r2 * r2 * (splat(4.166664568298827e-2f) +
                        r2 * (splat(-1.388731625493765e-3f) +
                              r2 * splat(2.443315711809948e-5f)));
    vi8 odd = (qi & 1) == 1;
    vi8 bs = (vi8)ps, bc = (vi8)pc;
    vi8 sv = (bs & ~odd) | (bc & odd);
    vi8 cv = (bc & ~odd) | (bs & odd);
    /* quadrant bit 1 becomes the sign bit (unsigned: no signed overflow) */
    vu8 qu = (vu8)qi;
    *s = (vf8)((vu8)sv ^ ((qu & 2u) << 30));
    *c = (vf8)((vu8)cv ^ (((qu + 1u) & 2u) << 30));
}

/* cos alone (COS features): reduce by the nearest multiple of pi, then
 * cos(x) = (-1)^q cos(r) with |r| <= pi/2 and one even polynomial (Taylor
 * to r^12, truncation error below 1e-8). Fewer operations than sincos8,
 * which needs both polynomials and a blend. */
ALWAYS_INLINE vf8 cos8(vf8 x)
{
    const vf8 magic = splat(12582912.0f);
    vf8 q = x * splat(0.318309886183790672f) + magic;
    q = q - magic;
    vi8 qi = __builtin_convertvector(q, vi8);
    vf8 r = x - q * splat(3.140625f);
    r = r - q * splat(9.67502593994140625e-4f);
    r = r - q * splat(1.509957990978376432e-7f);
    vf8 r2 = r * r;
    vf8 c = splat(2.08767569878680990e-9f);
    c = c * r2 + splat(-2.75573192239858907e-7f);
    c = c * r2 + splat(2.48015873015873016e-5f);
    c = c * r2 + splat(-1.38888888888888889e-3f);
    c = c * r2 + splat(4.16666666666666667e-2f);
    c = c * r2 + splat(-0.5f);
    c = c * r2 + splat(1.0f);
    return (vf8)((vu8)c ^ ((vu8)qi << 31));
}

ALWAYS_INLINE vd4 lo4(vf8 v)
{
    vf4 h = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
    return __builtin_convertvector(h, vd4);
}

ALWAYS_INLINE vd4 hi4(vf8 v)
{
    vf4 h = __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    return __builtin_convertvector(h, vd4);
}

ALWAYS_INLINE double hsum4(vd4 v)
{
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* Rows evaluated together: each omega load feeds this many independent
 * dot-product chains, enough to hide the FMA latency. */
#define RB 8

/* out[i] = sum over ng groups of the weighted features of row i. */
ALWAYS_INLINE void tile_body(size_t d, const float *W, const float *P,
                             const double *ac, const double *as, long ng,
                             const float *X, size_t n, double *out,
                             const int pair)
{
    for (size_t i = 0; i < n; i += RB) {
        size_t nr = n - i < RB ? n - i : RB;
        const float *x[RB];
        for (int r = 0; r < RB; r++)
            x[r] = X + (i + ((size_t)r < nr ? (size_t)r : 0)) * d;
        vd4 A[RB];
        for (int r = 0; r < RB; r++)
            A[r] = (vd4){0};
        for (long g = 0; g < ng; g++) {
            const float *w = W + (size_t)g * d * TSGS__LANES;
            vf8 ph[RB];
            vf8 p0 = load8(P + g * TSGS__LANES);
#pragma GCC unroll 8
            for (int r = 0; r < RB; r++)
                ph[r] = p0;
            for (size_t k = 0; k < d; k++) {
                vf8 wk = load8(w + k * TSGS__LANES);
#pragma GCC unroll 8
                for (int r = 0; r < RB; r++)
                    ph[r] += wk * x[r][k];
            }
            vd4 clo = load4d(ac + g * TSGS__LANES);
            vd4 chi = load4d(ac + g * TSGS__LANES + TSGS__LANES / 2);
            vd4 slo = {0}, shi = {0};
            if (pair) {
                slo = load4d(as + g * TSGS__LANES);
                shi = load4d(as + g * TSGS__LANES + TSGS__LANES / 2);
            }
#pragma GCC unroll 8
            for (int r = 0; r < RB; r++) {
                if (pair) {
                    vf8 sv, cv;
                    sincos8(ph[r], &sv, &cv);
                    A[r] += lo4(cv) * clo + hi4(cv) * chi;
                    A[r] += lo4(sv) * slo + hi4(sv) * shi;
                } else {
                    vf8 cv = cos8(ph[r]);
                    A[r] += lo4(cv) * clo + hi4(cv) * chi;
                }
            }
        }
        for (size_t r = 0; r < nr; r++)
            out[i + r] = hsum4(A[r]);
    }
}

/* tile_sums_cos_avx512, _avx2, _base and the same for pair. */
#define DEFINE_TILE_SUMS(suffix, target)                                  \
    target static void tile_sums_cos##suffix(                             \
        size_t d, const float *W, const float *P, const double *ac,       \
        long ng, const float *X, size_t n, double *out)                   \
    {                                                                     \
        tile_body(d, W, P, ac, NULL, ng, X, n, out, 0);                   \
    }                                                                     \
    target static void tile_sums_pair##suffix(                            \
        size_t d, const float *W, const float *P, const double *ac,       \
        const double *as, long ng, const float *X, size_t n, double *out) \
    {                                                                     \
        tile_body(d, W, P, ac, as, ng, X, n, out, 1);                     \
    }
TSGS__FOR_ISAS(DEFINE_TILE_SUMS)

static void tile_sums(tsgs__isa isa, size_t d, const float *W,
                      const float *P, const double *ac, const double *as,
                      long ng, const float *X, size_t n, double *out)
{
#if TSGS__HAVE_ISA_PATHS
    if (isa == TSGS__ISA_AVX512) {
        if (as)
            tile_sums_pair_avx512(d, W, P, ac, as, ng, X, n, out);
        else
            tile_sums_cos_avx512(d, W, P, ac, ng, X, n, out);
        return;
    }
    if (isa == TSGS__ISA_AVX2) {
        if (as)
            tile_sums_pair_avx2(d, W, P, ac, as, ng, X, n, out);
        else
            tile_sums_cos_avx2(d, W, P, ac, ng, X, n, out);
        return;
    }
#else
    (void)isa;
#endif
    if (as)
        tile_sums_pair_base(d, W, P, ac, as, ng, X, n, out);
    else
        tile_sums_cos_base(d, W, P, ac, ng, X, n, out);
}

/* Below this many feature evaluations a call stays on one thread: waking
 * the team costs more than it saves. */
#define PARALLEL_MIN_WORK 65536

static long group_tiles(long ndirs)
{
    const long ng = (ndirs + TSGS__LANES - 1) / TSGS__LANES;
    return (ng + GROUP_TILE - 1) / GROUP_TILE;
}

size_t tsgs__sums_scratch(long ndirs, size_t n)
{
    const long ngt = group_tiles(ndirs);
    return ngt > 1 ? (size_t)ngt * n : 0;
}

int tsgs__kernel_ws_init(tsgs__kernel_ws *ws, size_t d)
{
    ws->W = malloc(sizeof(float) * GROUP_TILE * TSGS__LANES * (d ? d : 1));
    ws->P = malloc(sizeof(float) * GROUP_TILE * TSGS__LANES);
    if (ws->W && ws->P)
        return 0;
    tsgs__kernel_ws_free(ws);
    return -1;
}

void tsgs__kernel_ws_free(tsgs__kernel_ws *ws)
{
    free(ws->W);
    free(ws->P);
    ws->W = ws->P = NULL;
}

/* Cached omega: every (group tile, row tile) is one task. */
static void cached_tiles(const tsgs__fview *v, const float *X, size_t n,
                         long ng, double *part)
{
    const size_t d = v->fs->d;
    const tsgs__isa isa = tsgs__isa_now();
    const long ngt = (ng + GROUP_TILE - 1) / GROUP_TILE;
    const long nrt = (long)((n + ROW_TILE - 1) / ROW_TILE);
    const long ntasks = ngt * nrt;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (long t = 0; t < ntasks; t++) {
        long gt = t / nrt, rt = t % nrt;
        long g0 = gt * GROUP_TILE;
        long gn = ng - g0 < GROUP_TILE ? ng - g0 : GROUP_TILE;
        size_t r0 = (size_t)rt * ROW_TILE;
        size_t rn = n - r0 < ROW_TILE ? n - r0 : ROW_TILE;
        tile_sums(isa, d, v->panel + (size_t)g0 * d * TSGS__LANES,
                  v->phase + g0 * TSGS__LANES, v->ac + g0 * TSGS__LANES,
                  v->as ? v->as + g0 * TSGS__LANES : NULL, gn, X + r0 * d,
                  rn, part + (size_t)gt * n + r0);
    }
}

/* Regenerated omega: a task is a whole group tile, so each direction is
 * generated once per call and reused for every row. */
static void regenerated_tiles(const tsgs__fview *v, const float *X, size_t n,
                              long ng, double *part, tsgs__kernel_ws *ws,
                              int *failed)
{
    const size_t d = v->fs->d;
    const tsgs__isa isa = tsgs__isa_now();
    const long ngt = (ng + GROUP_TILE - 1) / GROUP_TILE;
    const long nrt = (long)((n + ROW_TILE - 1) / ROW_TILE);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (long gt = 0; gt < ngt; gt++) {
        long g0 = gt * GROUP_TILE;
        long gn = ng - g0 < GROUP_TILE ? ng - g0 : GROUP_TILE;
        long count = v->ndirs - g0 * TSGS__LANES;
        if (count > gn * TSGS__LANES)
            count = gn * TSGS__LANES;
        if (!ws || !ws->W ||
            tsgs__pack_directions(v->fs, g0 * TSGS__LANES, count, ws->W,
                                  ws->P)) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            *failed = 1;
            continue;
        }
        for (long rt = 0; rt < nrt; rt++) {
            size_t r0 = (size_t)rt * ROW_TILE;
            size_t rn = n - r0 < ROW_TILE ? n - r0 : ROW_TILE;
            tile_sums(isa, d, ws->W, ws->P, v->ac + g0 * TSGS__LANES,
                      v->as ? v->as + g0 * TSGS__LANES : NULL, gn,
                      X + r0 * d, rn, part + (size_t)gt * n + r0);
        }
    }
}

void tsgs__eval_tiles_team(const tsgs__fview *v, const float *X, size_t n,
                           double *part, tsgs__kernel_ws *ws, double *out,
                           int *failed)
{
    const long ng = (v->ndirs + TSGS__LANES - 1) / TSGS__LANES;
    if (n == 0 || ng == 0) {
#ifdef _OPENMP
#pragma omp barrier
#endif
        return;
    }
    double *sums = group_tiles(v->ndirs) > 1 ? part : out;
    if (v->panel)
        cached_tiles(v, X, n, ng, sums);
    else
        regenerated_tiles(v, X, n, ng, sums, ws, failed);
}

/* The group tiles of row i added in a fixed order: the same sums on any
 * number of threads. */
static inline double combined_row(const double *part, long ngt, size_t n,
                                  size_t i)
{
    double s = 0.0;
    for (long gt = 0; gt < ngt; gt++)
        s += part[(size_t)gt * n + i];
    return s;
}

void tsgs__combine_tiles(long ndirs, const double *part, size_t n,
                         double *out)
{
    const long ngt = group_tiles(ndirs);
    if (ndirs == 0)
        memset(out, 0, n * sizeof *out);
    else if (ngt > 1)
        for (size_t i = 0; i < n; i++)
            out[i] = combined_row(part, ngt, n, i);
}

void tsgs__eval_sums_team(const tsgs__fview *v, const float *X, size_t n,
                          double *part, tsgs__kernel_ws *ws, double *out,
                          int *failed)
{
    const long ngt = group_tiles(v->ndirs);
    tsgs__eval_tiles_team(v, X, n, part, ws, out, failed);
    if (n == 0)
        return;
    if (v->ndirs > 0 && ngt == 1)
        return;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = v->ndirs ? combined_row(part, ngt, n, i) : 0.0;
}

tsgs_status tsgs__eval_sums(const tsgs__fview *v, const float *X, size_t n,
                            int threads, double *out, tsgs_error *err)
{
    const long ng = (v->ndirs + TSGS__LANES - 1) / TSGS__LANES;
    const size_t nparts = tsgs__sums_scratch(v->ndirs, n);
    double *part = NULL;
    if (nparts && !(part = malloc(sizeof(double) * nparts)))
        return TSGS__NOMEM(err);
    const double work = (double)n * (double)ng * TSGS__LANES;
    const int nt = work < PARALLEL_MIN_WORK ? 1 : (threads > 0 ? threads : 1);
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        /* scratch for regenerated directions, one per thread */
        tsgs__kernel_ws ws = {NULL, NULL};
        if (!v->panel)
            tsgs__kernel_ws_init(&ws, v->fs->d);
        tsgs__eval_sums_team(v, X, n, part, &ws, out, &failed);
        tsgs__kernel_ws_free(&ws);
    }
    free(part);
    return failed ? TSGS__NOMEM(err) : TSGS_OK;
}

ALWAYS_INLINE void features_body(size_t d, const float *panel,
                                 const float *phase, long ngroups,
                                 const float *X, size_t i0, size_t i1,
                                 float *cosv, float *sinv)
{
    const size_t width = (size_t)ngroups * TSGS__LANES;
    for (size_t i = i0; i < i1; i++) {
        const float *x = X + i * d;
        for (long g = 0; g < ngroups; g++) {
            const float *w = panel + (size_t)g * d * TSGS__LANES;
            vf8 p = load8(phase + g * TSGS__LANES);
            for (size_t k = 0; k < d; k++)
                p += load8(w + k * TSGS__LANES) * x[k];
            if (sinv) {
                vf8 s, c;
                sincos8(p, &s, &c);
                memcpy(cosv + i * width + g * TSGS__LANES, &c, sizeof c);
                memcpy(sinv + i * width + g * TSGS__LANES, &s, sizeof s);
            } else {
                vf8 c = cos8(p);
                memcpy(cosv + i * width + g * TSGS__LANES, &c, sizeof c);
            }
        }
    }
}

/* features_rows_avx512, _avx2 and _base. */
#define DEFINE_FEATURES_ROWS(suffix, target)                                \
    target static void features_rows##suffix(                               \
        size_t d, const float *panel, const float *phase, long ngroups,     \
        const float *X, size_t i0, size_t i1, float *cosv, float *sinv)     \
    {                                                                       \
        features_body(d, panel, phase, ngroups, X, i0, i1, cosv, sinv);     \
    }
TSGS__FOR_ISAS(DEFINE_FEATURES_ROWS)

static void features_rows(tsgs__isa isa, size_t d, const float *panel,
                          const float *phase, long ngroups, const float *X,
                          size_t i0, size_t i1, float *cosv, float *sinv)
{
#if TSGS__HAVE_ISA_PATHS
    if (isa == TSGS__ISA_AVX512) {
        features_rows_avx512(d, panel, phase, ngroups, X, i0, i1, cosv, sinv);
        return;
    }
    if (isa == TSGS__ISA_AVX2) {
        features_rows_avx2(d, panel, phase, ngroups, X, i0, i1, cosv, sinv);
        return;
    }
#else
    (void)isa;
#endif
    features_rows_base(d, panel, phase, ngroups, X, i0, i1, cosv, sinv);
}

void tsgs__eval_features_team(size_t d, const float *panel,
                              const float *phase, long ngroups,
                              const float *X, size_t n, float *cosv,
                              float *sinv)
{
    const size_t chunk = 16;
    const long nchunks = (long)((n + chunk - 1) / chunk);
    const tsgs__isa isa = tsgs__isa_now();
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
    for (long c = 0; c < nchunks; c++) {
        size_t i0 = (size_t)c * chunk;
        size_t i1 = i0 + chunk < n ? i0 + chunk : n;
        features_rows(isa, d, panel, phase, ngroups, X, i0, i1, cosv, sinv);
    }
}

void tsgs__eval_features(size_t d, const float *panel, const float *phase,
                         long ngroups, const float *X, size_t n, int threads,
                         float *cosv, float *sinv)
{
    const double work = (double)n * (double)ngroups * TSGS__LANES;
    const int nt = work < PARALLEL_MIN_WORK ? 1 : (threads > 0 ? threads : 1);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    tsgs__eval_features_team(d, panel, phase, ngroups, X, n, cosv, sinv);
}

void tsgs__cos_f(const float *x, size_t n, float *c)
{
    for (size_t i = 0; i < n; i += TSGS__LANES) {
        float buf[TSGS__LANES] = {0};
        size_t m = n - i < TSGS__LANES ? n - i : TSGS__LANES;
        memcpy(buf, x + i, m * sizeof(float));
        vf8 vc = cos8(load8(buf));
        memcpy(buf, &vc, sizeof buf);
        memcpy(c + i, buf, m * sizeof(float));
    }
}

void tsgs__sincos_f(const float *x, size_t n, float *s, float *c)
{
    for (size_t i = 0; i < n; i += TSGS__LANES) {
        float buf[TSGS__LANES] = {0};
        size_t m = n - i < TSGS__LANES ? n - i : TSGS__LANES;
        memcpy(buf, x + i, m * sizeof(float));
        vf8 vs, vc;
        sincos8(load8(buf), &vs, &vc);
        memcpy(buf, &vs, sizeof buf);
        memcpy(s + i, buf, m * sizeof(float));
        memcpy(buf, &vc, sizeof buf);
        memcpy(c + i, buf, m * sizeof(float));
    }
}
