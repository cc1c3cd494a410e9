/* The prediction kernel: sums of weighted random features over tiles of
 * (rows x directions), spread over OpenMP threads.
 *
 * Precision: omega, x and the phase omega . x are float; cos and sin are a
 * float polynomial with Cody-Waite range reduction (max error ~1e-7 for
 * |phase| < 1e4, bounded in tests/check_kernel.c). Within a tile of at most
 * GROUP_TILE groups the weighted features are summed in float (each lane
 * adds at most 16 terms), with the tile's coefficients scaled by a power
 * of two so that the largest is about 1 (no overflow, whatever the lazy
 * scale); the tiles' sums and everything after them are double. The
 * error this adds is bounded in tests/check_kernel.c. */
#include "kernel/kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* One binary, the widest vector unit of the machine it runs on: each hot
 * function is compiled once per x86-64 level (TSGS__FOR_ISAS, isa.h) and
 * the call runs the one tsgs__isa_now() names. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define ROW_TILE 48    /* rows per tile: 4 blocks of 12 rows, 8 of 6 */
#define GROUP_TILE 16  /* groups of 16 directions per tile (256 directions) */

/* Rows evaluated together, and vectors of directions per pass of them
 * (kernel_lanes.h, tile_pass): each omega load feeds RB independent
 * dot-product chains, enough to hide the FMA latency, and each coordinate
 * of a row, broadcast once, feeds NV of them, while their phases and float
 * sums stay in registers. AVX-512 (32 registers): 8 rows x 2 vectors, 16
 * phases and 8 sums; with 12 rows x 1 vector it loaded as many broadcasts
 * as it ran FMAs and reached 0.91x of bench/kernel_probe.c's best tile at
 * d = 28 (1.03x now, 0.98x -> 1.02x at d = 18; the sums are the same
 * bits). AVX2 and SSE2 have 16 registers: 6 rows x 1 vector. */
#define RB_MAX 12
#define RB_avx512 8
#define RB_avx2 6
#define RB_base 6
#define NV_MAX 2
#define NV_avx512 2
#define NV_avx2 1
#define NV_base 1

/* The vector code for each width: 16 floats (AVX-512), 8 (AVX2), 4 (SSE2),
 * so that every path keeps its vectors in registers (GCC spills wider
 * vectors than the unit through memory: AVX2 ran slower than SSE2). */
#define KW 16
#define KN(name) name##_16
#include "kernel/kernel_lanes.h"
#undef KW
#undef KN
#define KW 8
#define KN(name) name##_8
#include "kernel/kernel_lanes.h"
#undef KW
#undef KN
#define KW 4
#define KN(name) name##_4
#include "kernel/kernel_lanes.h"
#undef KW
#undef KN
/* The width each path uses. */
#define LANES_avx512(name) name##_16
#define LANES_avx2(name) name##_8
#define LANES_base(name) name##_4

/* tile_sums_cos_avx512, _avx2, _base and the same for pair. */
#define DEFINE_TILE_SUMS(suffix, target)                                  \
    target static void tile_sums_cos##suffix(                             \
        size_t d, const float *W, const float *P, const double *ac,       \
        long ng, const float *X, size_t n, double *out)                   \
    {                                                                     \
        LANES##suffix(tile_body)(d, W, P, ac, NULL, ng, X, n, out, 0,     \
                                 RB##suffix, NV##suffix);                 \
    }                                                                     \
    target static void tile_sums_pair##suffix(                            \
        size_t d, const float *W, const float *P, const double *ac,       \
        const double *as, long ng, const float *X, size_t n, double *out) \
    {                                                                     \
        LANES##suffix(tile_body)(d, W, P, ac, as, ng, X, n, out, 1,       \
                                 RB##suffix, NV##suffix);                 \
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

double tsgs__kernel_ws_bytes(size_t d)
{
    return sizeof(float) * GROUP_TILE * TSGS__LANES * ((double)d + 1.0);
}

void tsgs__kernel_ws_free(tsgs__kernel_ws *ws)
{
    free(ws->W);
    free(ws->P);
    ws->W = ws->P = NULL;
}

/* Tasks each thread should have to pick from, so that the dynamic
 * schedule evens the load out. */
#define TASKS_PER_THREAD 3

/* Rows per task: ROW_TILE, or fewer (whole blocks of RB_MAX rows) while
 * the team would have fewer than TASKS_PER_THREAD tasks a thread: a
 * mini-batch of 256 rows over 1024 features is 12 tasks of 48 rows,
 * which left 4 of 16 threads idle and the rest waiting for the slowest.
 * Each row's sums are the same whatever the tile: the model keeps its
 * bits. */
static size_t row_tile(long ngt, size_t n)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_num_threads();
#endif
    size_t rows = ROW_TILE;
    while (rows > RB_MAX &&
           ngt * (long)((n + rows - 1) / rows) < TASKS_PER_THREAD * threads)
        rows -= RB_MAX;
    return rows;
}

/* The rows ahead that this thread asks for, a few with each of its tasks
 * (at once, the misses stall the tasks longer: the walks of the page
 * tables hold the arithmetic up), and those left when it runs out of tasks
 * after them (prefetch_rest). Each thread asks for the rows it will
 * gather after the kernel (a row another core asked for misses this
 * core's TLB again): the master (thread 0), which runs the serial section
 * first, the last ahead->tail rows; the other threads split the rows
 * among them, each asking for its share but the master's tail. A team of
 * one asks for them all. */
typedef struct {
    size_t next, end; /* its rows still to ask for */
    size_t per_task;
} ahead_share;

static ahead_share ahead_share_of(const tsgs__rows_ahead *ahead,
                                  long ntasks)
{
    ahead_share a = {0, 0, 0};
    if (!ahead || ahead->n == 0)
        return a;
    size_t team = 1, tid = 0;
#ifdef _OPENMP
    team = (size_t)omp_get_num_threads();
    tid = (size_t)omp_get_thread_num();
#endif
    tsgs__rows_ahead_share(ahead, team, tid, &a.next, &a.end);
    /* its tasks: about ntasks / team of them */
    size_t tasks = (size_t)ntasks / team > 0 ? (size_t)ntasks / team : 1;
    a.per_task = (a.end - a.next + tasks - 1) / tasks;
    return a;
}

static void prefetch_share(const tsgs__rows_ahead *ahead, ahead_share *a)
{
    if (a->next >= a->end)
        return;
    size_t to = a->end - a->next < a->per_task ? a->end
                                               : a->next + a->per_task;
    tsgs__rows_prefetch(ahead, a->next, to);
    a->next = to;
}

/* What is left of this thread's share once the tasks are out (the master
 * may have taken more of them than its share): every row of the share is
 * asked for, however the tasks fell. */
static void prefetch_rest(const tsgs__rows_ahead *ahead, ahead_share *a)
{
    if (a->next < a->end)
        tsgs__rows_prefetch(ahead, a->next, a->end);
    a->next = a->end;
}

static inline double combined_row(const double *part, long ngt, size_t n,
                                  size_t i);

/* Task (row tile rt, rows r0 .. r0 + rn) of ngt group tiles written:
 * the last of its row tile combines the rows into out (when the tiles
 * are in part) and hands them to done. */
static void row_tile_written(const tsgs__rows_done *done, long ngt,
                             const double *part, double *out, size_t n,
                             long rt, size_t r0, size_t rn)
{
    int c;
#ifdef _OPENMP
#pragma omp atomic capture seq_cst
#endif
    c = ++done->count[rt];
    if (c < ngt)
        return;
    done->count[rt] = 0; /* every tile of it counted: no other thread
                            touches it again in this call */
    if (part != out)
        for (size_t i = r0; i < r0 + rn; i++)
            out[i] = combined_row(part, ngt, n, i);
    done->fn(done->ctx, r0, r0 + rn);
}

/* Cached omega: every (group tile, row tile) is one task. */
static void cached_tiles(const tsgs__fview *v, const float *X, size_t n,
                         long ng, double *part,
                         const tsgs__rows_ahead *ahead,
                         const tsgs__rows_done *done, double *out)
{
    const size_t d = v->fs->d;
    const tsgs__isa isa = tsgs__isa_now();
    const long ngt = (ng + GROUP_TILE - 1) / GROUP_TILE;
    const size_t rows = row_tile(ngt, n);
    const long nrt = (long)((n + rows - 1) / rows);
    const long ntasks = ngt * nrt;
    ahead_share mine = ahead_share_of(ahead, ntasks);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
    for (long t = 0; t < ntasks; t++) {
        long gt = t / nrt, rt = t % nrt;
        long g0 = gt * GROUP_TILE;
        long gn = ng - g0 < GROUP_TILE ? ng - g0 : GROUP_TILE;
        size_t r0 = (size_t)rt * rows;
        size_t rn = n - r0 < rows ? n - r0 : rows;
        prefetch_share(ahead, &mine);
        tile_sums(isa, d, v->panel + (size_t)g0 * d * TSGS__LANES,
                  v->phase + g0 * TSGS__LANES, v->ac + g0 * TSGS__LANES,
                  v->as ? v->as + g0 * TSGS__LANES : NULL, gn, X + r0 * d,
                  rn, part + (size_t)gt * n + r0);
        if (done)
            row_tile_written(done, ngt, part, out, n, rt, r0, rn);
    }
    prefetch_rest(ahead, &mine);
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* Regenerated omega: a task is a whole group tile, so each direction is
 * generated once per call and reused for every row. */
static void regenerated_tiles(const tsgs__fview *v, const float *X, size_t n,
                              long ng, double *part, tsgs__kernel_ws *ws,
                              int *failed, const tsgs__rows_ahead *ahead)
{
    const size_t d = v->fs->d;
    const tsgs__isa isa = tsgs__isa_now();
    const long ngt = (ng + GROUP_TILE - 1) / GROUP_TILE;
    const long nrt = (long)((n + ROW_TILE - 1) / ROW_TILE);
    ahead_share mine = ahead_share_of(ahead, ngt);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
    for (long gt = 0; gt < ngt; gt++) {
        long g0 = gt * GROUP_TILE;
        long gn = ng - g0 < GROUP_TILE ? ng - g0 : GROUP_TILE;
        long count = v->ndirs - g0 * TSGS__LANES;
        prefetch_share(ahead, &mine);
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
    prefetch_rest(ahead, &mine);
#ifdef _OPENMP
#pragma omp barrier
#endif
}

int tsgs__eval_tiles_team(const tsgs__fview *v, const float *X, size_t n,
                          double *part, tsgs__kernel_ws *ws, double *out,
                          int *failed, const tsgs__rows_ahead *ahead,
                          const tsgs__rows_done *done)
{
    const long ng = (v->ndirs + TSGS__LANES - 1) / TSGS__LANES;
    if (n == 0 || ng == 0) {
#ifdef _OPENMP
#pragma omp barrier
#endif
        return 0;
    }
    double *sums = group_tiles(v->ndirs) > 1 ? part : out;
    if (v->panel) {
        cached_tiles(v, X, n, ng, sums, ahead, done, out);
        return done != NULL;
    }
    regenerated_tiles(v, X, n, ng, sums, ws, failed, ahead);
    return 0;
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
    tsgs__eval_tiles_team(v, X, n, part, ws, out, failed, NULL, NULL);
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

/* features_rows_avx512, _avx2 and _base. */
#define DEFINE_FEATURES_ROWS(suffix, target)                                \
    target static void features_rows##suffix(                               \
        size_t d, const float *panel, const float *phase, long ngroups,     \
        const float *X, size_t i0, size_t i1, float *cosv, float *sinv)     \
    {                                                                       \
        LANES##suffix(features_body)(d, panel, phase, ngroups, X, i0, i1,   \
                                     cosv, sinv);                           \
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

void tsgs__eval_features_rows(size_t d, const float *panel,
                              const float *phase, long ngroups,
                              const float *X, size_t i0, size_t i1,
                              float *cosv, float *sinv)
{
    features_rows(tsgs__isa_now(), d, panel, phase, ngroups, X, i0, i1, cosv,
                  sinv);
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
        vf_16 vc = cos_16(load_16(buf));
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
        vf_16 vs, vc;
        sincos_16(load_16(buf), &vs, &vc);
        memcpy(buf, &vs, sizeof buf);
        memcpy(s + i, buf, m * sizeof(float));
        memcpy(buf, &vc, sizeof buf);
        memcpy(c + i, buf, m * sizeof(float));
    }
}
