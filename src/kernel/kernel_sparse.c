/* The kernel on sparse rows: random features from the non-zeros alone.
 *
 * w . x over a row's non-zeros needs omega's coordinates at the row's
 * columns only, and an iid direction's coordinate k is a pure function of
 * (seed, block, j, k) (tsgs__omega_coord). Work goes in tasks of
 * ROW_CHUNK rows x DIR_CHUNK directions: a task makes the directions of
 * the distinct columns its rows use (once each, however many rows share
 * a column) or reads them from a column cache, then accumulates each
 * row's phases over its non-zeros, a row at a time, in column order (the
 * dense kernel's order, so the phases agree with it to rounding).
 *
 * Making a coordinate (Philox and a Box-Muller half) costs some ten
 * times a multiply-add even in vectors (tsgs__omega_column, columns.c;
 * a hundred one by one): the cache of the most frequent columns
 * (tsgs__colcache) is what makes repeated evaluation (training) cheap;
 * a word's rare columns are made again when met. */
#include "kernel/kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define ROW_CHUNK 32
/* the dense kernel's group tile (16 groups of 16): the same partial-sum
 * scratch (tsgs__sums_scratch) serves both */
#define DIR_CHUNK TSGS__SPARSE_DIR_CHUNK
/* generated directions a task holds at once (floats): a task with many
 * distinct columns works on fewer directions at a time */
#define TASK_FLOATS ((size_t)1 << 20)
/* below this many multiply-adds a call stays on one thread */
#define PARALLEL_MIN_WORK 65536
/* columns whose directions a task makes between two polls of the stop:
 * some 15 ms at most (a coordinate takes about 55 ns, a task makes up
 * to 256 directions a column) */
#define STOP_EVERY_COLS 1024
/* entries of a task's rows looked up, or keys sorted, between two polls
 * (a few ms); and the keys from which a task with a stop sorts them by
 * sort_keys_polled, not qsort (a row of 10^7 non-zeros: 0.5 s in qsort) */
#define STOP_EVERY_KEYS 65536
#define POLLED_SORT_MIN 65536

static long round_up(long n, long k) { return (n + k - 1) / k * k; }

/* ------------------------------------------------------- column cache */

/* Column k's slot, -1 when not cached: an open-addressing table (every
 * non-zero of every task looks its column up; a binary search over the
 * columns was most of a step's time on a block's features). */
static uint32_t hash_col(uint32_t k, uint32_t mask)
{
    const uint32_t x = k * 0x9e3779b1u;
    return (x ^ x >> 15) & mask;
}

static long cache_slot(const tsgs__colcache *cc, uint32_t k)
{
    for (uint32_t h = hash_col(k, cc->hmask);; h = (h + 1) & cc->hmask) {
        uint32_t s = cc->hslot[h];
        if (s == UINT32_MAX)
            return -1;
        if (cc->cols[s] == k)
            return (long)s;
    }
}

/* The table for cc->cols: at most half full. -1: out of memory. */
static int build_table(tsgs__colcache *cc)
{
    size_t size = 16;
    while (size < 2 * cc->ncols)
        size *= 2;
    cc->hslot = malloc(sizeof(uint32_t) * size);
    if (!cc->hslot)
        return -1;
    cc->hmask = (uint32_t)(size - 1);
    memset(cc->hslot, 0xff, sizeof(uint32_t) * size);
    for (size_t s = 0; s < cc->ncols; s++) {
        uint32_t h = hash_col(cc->cols[s], cc->hmask);
        while (cc->hslot[h] != UINT32_MAX)
            h = (h + 1) & cc->hmask;
        cc->hslot[h] = (uint32_t)s;
    }
    return 0;
}

/* Directions [g, g + n) of fs at column k into out. */
static void column_dirs(const tsgs__fspec *fs, uint32_t k, long g, long n,
                        float *out)
{
    tsgs__omega_column(fs, k, g, n, out);
}

/* The same for column cols[s] of ascending distinct cols[0 .. ncols),
 * into W + s * stride: an even column whose odd neighbour follows makes
 * both (the two halves of the same draws), that neighbour then nothing. */
static void column_dirs_at(const tsgs__fspec *fs, const uint32_t *cols,
                           size_t ncols, size_t s, long g, long n, float *W,
                           size_t stride)
{
    const uint32_t k = cols[s];
    if (k & 1 && s > 0 && cols[s - 1] == k - 1)
        return; /* made with k - 1 */
    if (!(k & 1) && s + 1 < ncols && cols[s + 1] == k + 1)
        tsgs__omega_column_pair(fs, k / 2, g, n, W + s * stride,
                                W + (s + 1) * stride);
    else
        column_dirs(fs, k, g, n, W + s * stride);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A cache for the columns of the nnz column indices col that occur at
 * least min_uses times, most frequent first (see tsgs__colcache_new). */
static tsgs_status cache_for(const uint32_t *col, size_t nnz, long max_dirs,
                             double bytes, size_t min_uses,
                             tsgs__colcache **out, tsgs_error *err)
{
    *out = NULL;
    const long stride = round_up(max_dirs > 0 ? max_dirs : 1, TSGS__LANES);
    const double per_col = (double)stride * sizeof(float);
    if (bytes < per_col || nnz == 0)
        return TSGS_OK;
    /* column frequencies from a sorted copy of the column indices: memory
     * that grows with the non-zeros, not with d */
    uint32_t *c = malloc(sizeof(uint32_t) * nnz);
    if (!c)
        return TSGS__NOMEM(err);
    memcpy(c, col, sizeof(uint32_t) * nnz);
    qsort(c, nnz, sizeof *c, cmp_u32);
    size_t nd = 0;
    for (size_t j = 0; j < nnz; j++)
        nd += j == 0 || c[j] != c[j - 1];
    /* (uses descending, column) as one key: ~count << 32 | column */
    uint64_t *f = malloc(sizeof(uint64_t) * nd);
    if (!f) {
        free(c);
        return TSGS__NOMEM(err);
    }
    size_t u = 0;
    for (size_t j = 0, run = 0; j < nnz; j++) {
        run++;
        if (j + 1 == nnz || c[j + 1] != c[j]) {
            uint64_t cnt = run > 0xffffffffu ? 0xffffffffu : run;
            f[u++] = (uint64_t)(0xffffffffu - cnt) << 32 | c[j];
            run = 0;
        }
    }
    free(c);
    qsort(f, nd, sizeof *f, cmp_u64);
    size_t used = 0; /* the columns met min_uses times or more: a prefix */
    while (used < nd && 0xffffffffu - (f[used] >> 32) >= min_uses)
        used++;
    double fit = floor(bytes / per_col);
    size_t m = fit < (double)used ? (size_t)fit : used;
    if (m == 0) { /* no column worth keeping */
        free(f);
        return TSGS_OK;
    }
    tsgs__colcache *cc = calloc(1, sizeof *cc);
    if (cc) {
        cc->cols = malloc(sizeof(uint32_t) * m);
        cc->W = malloc(sizeof(float) * m * (size_t)stride);
    }
    if (!cc || !cc->cols || !cc->W) {
        free(f);
        tsgs__colcache_free(cc);
        return TSGS__NOMEM(err);
    }
    for (size_t s = 0; s < m; s++)
        cc->cols[s] = (uint32_t)f[s];
    free(f);
    qsort(cc->cols, m, sizeof(uint32_t), cmp_u32);
    cc->ncols = m;
    if (build_table(cc)) {
        tsgs__colcache_free(cc);
        return TSGS__NOMEM(err);
    }
    cc->stride = stride;
    cc->filled = 0;
    *out = cc;
    return TSGS_OK;
}

tsgs_status tsgs__colcache_new(const tsgs_dataset *ds, long max_dirs,
                               double bytes, tsgs__colcache **out,
                               tsgs_error *err)
{
    *out = NULL;
    if (!tsgs__sparse(ds))
        return TSGS_OK;
    return cache_for(ds->col, ds->ptr[ds->n], max_dirs, bytes, 1, out, err);
}

tsgs_status tsgs__colcache_new_shared(const tsgs_dataset *ds, long max_dirs,
                                      double bytes, tsgs__colcache **out,
                                      tsgs_error *err)
{
    *out = NULL;
    if (!tsgs__sparse(ds))
        return TSGS_OK;
    return cache_for(ds->col, ds->ptr[ds->n], max_dirs, bytes, 2, out, err);
}

tsgs_status tsgs__colcache_for_rows(const tsgs__rows *R, long max_dirs,
                                    double bytes, tsgs__colcache **out,
                                    tsgs_error *err)
{
    *out = NULL;
    if (R->x || R->n == 0)
        return TSGS_OK;
    const size_t e0 = R->ptr[0];
    return cache_for(R->col + e0, R->ptr[R->n] - e0, max_dirs, bytes, 1, out,
                     err);
}

void tsgs__colcache_fill(tsgs__colcache *cc, const tsgs__fspec *fs,
                         long ndirs, int threads)
{
    if (!cc || ndirs <= cc->filled)
        return;
    if (ndirs > cc->stride)
        ndirs = cc->stride;
    const long g = cc->filled, n = ndirs - cc->filled;
    const double work = (double)cc->ncols * (double)n;
    const int nt = work < 4096 ? 1 : (threads > 0 ? threads : 1);
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 64)
#endif
    for (size_t s = 0; s < cc->ncols; s++)
        column_dirs_at(fs, cc->cols, cc->ncols, s, g, n, cc->W + g,
                       (size_t)cc->stride);
    cc->filled = ndirs;
}

int tsgs__colcache_fill_polled(tsgs__colcache *cc, const tsgs__fspec *fs,
                               long ndirs, tsgs__stop *stop, double grace)
{
    if (!cc || ndirs <= cc->filled)
        return 0;
    if (ndirs > cc->stride)
        ndirs = cc->stride;
    const long g = cc->filled, n = ndirs - cc->filled;
    for (size_t s = 0; s < cc->ncols; s++) {
        if (s % STOP_EVERY_COLS == STOP_EVERY_COLS - 1 &&
            tsgs__stop_due(stop, grace))
            return 1; /* filled as it was: the columns made are not used */
        column_dirs_at(fs, cc->cols, cc->ncols, s, g, n, cc->W + g,
                       (size_t)cc->stride);
    }
    cc->filled = ndirs;
    return 0;
}

tsgs_status tsgs__colcache_fill_stop(tsgs__colcache *cc,
                                     const tsgs__fspec *fs, long ndirs,
                                     int threads, double work,
                                     tsgs__stop *stop, double grace,
                                     tsgs_error *err)
{
    if (!cc)
        return TSGS_OK;
    const long want = ndirs < cc->stride ? ndirs : cc->stride;
    const double fit = work / (double)(cc->ncols ? cc->ncols : 1);
    const long step = fit >= (double)want ? want : fit >= 1.0 ? (long)fit : 1;
    while (cc->filled < want) {
        if (tsgs__stop_due(stop, grace))
            return tsgs__stopped(err, "the feature rows' directions");
        const long next = cc->filled + step;
        tsgs__colcache_fill(cc, fs, next < want ? next : want, threads);
    }
    return TSGS_OK;
}

tsgs_status tsgs__colcache_units(const tsgs__colcache *cc,
                                 const tsgs__fspec *fs, long ndirs,
                                 int threads, double **out, tsgs_error *err)
{
    const size_t stride = (size_t)cc->stride;
    double *U = malloc(sizeof(double) * (cc->ncols ? cc->ncols : 1) * stride);
    if (!U)
        return TSGS__NOMEM(err);
    const int nt = (double)cc->ncols * (double)ndirs < 4096 ? 1 : threads;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 64)
#endif
    for (size_t s = 0; s < cc->ncols; s++)
        tsgs__omega_column_units(fs, cc->cols[s], 0, ndirs, U + s * stride);
    *out = U;
    return TSGS_OK;
}

tsgs_status tsgs__colcache_scaled(const tsgs__colcache *cc,
                                  const double *units, const tsgs__fspec *fs,
                                  long ndirs, tsgs__colcache **out,
                                  tsgs_error *err)
{
    const size_t stride = (size_t)cc->stride, nc = cc->ncols ? cc->ncols : 1;
    const size_t nh = (size_t)cc->hmask + 1;
    tsgs__colcache *c = calloc(1, sizeof *c);
    if (c) {
        c->cols = malloc(sizeof(uint32_t) * nc);
        c->hslot = malloc(sizeof(uint32_t) * nh);
        c->W = malloc(sizeof(float) * nc * stride);
    }
    if (!c || !c->cols || !c->hslot || !c->W) {
        tsgs__colcache_free(c);
        return TSGS__NOMEM(err);
    }
    memcpy(c->cols, cc->cols, sizeof(uint32_t) * cc->ncols);
    memcpy(c->hslot, cc->hslot, sizeof(uint32_t) * nh);
    c->ncols = cc->ncols;
    c->hmask = cc->hmask;
    c->stride = cc->stride;
    ndirs = ndirs < cc->stride ? ndirs : cc->stride;
    /* tsgs__omega_scaled's factor, once (it was a sqrt a coordinate) */
    const double f =
        fs->kernel == TSGS_KERNEL_RBF ? sqrt(2.0 * fs->sigma) : fs->sigma;
    for (size_t s = 0; s < c->ncols; s++)
        for (long g = 0; g < ndirs; g++)
            c->W[s * stride + (size_t)g] = tsgs__omega_scaled_proved(
                fs, units[s * stride + (size_t)g], f, g, c->cols[s]);
    c->filled = ndirs;
    *out = c;
    return TSGS_OK;
}

void tsgs__colcache_free(tsgs__colcache *cc)
{
    if (!cc)
        return;
    free(cc->cols);
    free(cc->hslot);
    free(cc->W);
    free(cc->made);
    free(cc);
}

tsgs_status tsgs__colcache_all(size_t d, long ndirs, double bytes,
                               tsgs__colcache **out,
                               tsgs_error *err)
{
    *out = NULL;
    const long stride = round_up(ndirs > 0 ? ndirs : 1, TSGS__LANES);
    if (d == 0 || d > UINT32_MAX / 2 ||
        (double)d * (double)stride * sizeof(float) > bytes)
        return TSGS_OK;
    tsgs__colcache *cc = calloc(1, sizeof *cc);
    if (cc) {
        cc->cols = malloc(sizeof(uint32_t) * d);
        cc->made = calloc(d, 1);
        /* malloc, not calloc: pages of columns never made stay unused */
        cc->W = malloc(sizeof(float) * d * (size_t)stride);
    }
    if (!cc || !cc->cols || !cc->made || !cc->W) {
        tsgs__colcache_free(cc);
        return TSGS__NOMEM(err);
    }
    for (size_t s = 0; s < d; s++)
        cc->cols[s] = (uint32_t)s;
    cc->ncols = d;
    cc->stride = stride;
    /* every direction counts as made: a reader only meets made columns */
    cc->filled = ndirs < stride ? ndirs : stride;
    if (build_table(cc)) {
        tsgs__colcache_free(cc);
        return TSGS__NOMEM(err);
    }
    *out = cc;
    return TSGS_OK;
}

tsgs_status tsgs__colcache_make_for(tsgs__colcache *cc, const tsgs__fspec *fs,
                                    const tsgs_dataset *ds, int threads,
                                    tsgs_error *err)
{
    if (!cc || !cc->made || !tsgs__sparse(ds))
        return TSGS_OK;
    const size_t nnz = ds->ptr[ds->n];
    size_t nnew = 0;
    for (size_t j = 0; j < nnz; j++)
        nnew += ds->col[j] < cc->ncols && !cc->made[ds->col[j]];
    if (nnew == 0)
        return TSGS_OK; /* a block whose columns earlier blocks made */
    uint32_t *todo = malloc(sizeof(uint32_t) * nnew);
    if (!todo)
        return TSGS__NOMEM(err);
    size_t k = 0;
    for (size_t j = 0; j < nnz; j++) {
        const uint32_t c = ds->col[j];
        if (c < cc->ncols && !cc->made[c]) {
            cc->made[c] = 1; /* listed once */
            todo[k++] = c;
        }
    }
    const long n = cc->filled;
    const int nt = (double)k * (double)n < 4096 ? 1 : threads > 0 ? threads : 1;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 64)
#endif
    for (size_t t = 0; t < k; t++)
        column_dirs(fs, todo[t], 0, n, cc->W + (size_t)todo[t] *
                                                   (size_t)cc->stride);
    free(todo);
    return TSGS_OK;
}

/* ------------------------------------------------------------- tasks */

/* What a call evaluates: directions [g0, g0 + count) of fs on rows R,
 * as features (cosv / sinv, width apart) or as sums weighted by ac / as
 * (into out, or part per direction chunk when there are several). */
typedef struct {
    const tsgs__fspec *fs;
    const tsgs__colcache *cc;
    const tsgs__rows *R;
    long g0, count;
    long padded;        /* count rounded up to whole lane groups */
    size_t width;
    float *cosv, *sinv;
    const double *ac, *as;
    double *sums;       /* out (one chunk) or part */
    int pair;
    /* The caller's stop, polled while a task makes its columns'
     * directions (one row of 10^7 non-zeros took 4 s a call); NULL:
     * none. */
    tsgs__stop *stop;
    double grace;
} job_t;

/* A thread's scratch, grown as tasks need. */
typedef struct {
    size_t cap_nz, cap_w;
    const float **cbase; /* per entry: its cached column, or NULL */
    uint32_t *uid;       /* per entry: its generated column */
    uint64_t *key;       /* column << 32 | entry of uncached entries */
    uint64_t *tmp;       /* sort_keys_polled's scratch */
    size_t cap_tmp;
    uint32_t *ucol;      /* distinct uncached columns */
    float *Wt;           /* their directions, u x sub */
} scratch_t;

static void scratch_free(scratch_t *S)
{
    free(S->cbase);
    free(S->uid);
    free(S->key);
    free(S->tmp);
    free(S->ucol);
    free(S->Wt);
    memset(S, 0, sizeof *S);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap && *p)
        return 0;
    size_t c = need > 2 * *cap ? need : 2 * *cap;
    void *q = realloc(*p, elem * (c ? c : 1));
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int scratch_nz(scratch_t *S, size_t ne)
{
    size_t c1 = S->cap_nz, c2 = S->cap_nz, c3 = S->cap_nz, c4 = S->cap_nz;
    if (grow((void **)&S->cbase, &c1, ne, sizeof(float *)) ||
        grow((void **)&S->uid, &c2, ne, sizeof(uint32_t)) ||
        grow((void **)&S->key, &c3, ne, sizeof(uint64_t)) ||
        grow((void **)&S->ucol, &c4, ne, sizeof(uint32_t)))
        return -1;
    S->cap_nz = c1 < c2 ? c1 : c2;
    S->cap_nz = S->cap_nz < c3 ? S->cap_nz : c3;
    S->cap_nz = S->cap_nz < c4 ? S->cap_nz : c4;
    return 0;
}

/* key[0 .. n) (distinct) ascending, as qsort sorts them, by merging its
 * ascending runs (each row's entries make one: its columns ascend) two by
 * two through tmp (n entries), polling stop every STOP_EVERY_KEYS keys
 * written. 0, or 1 when the stop cut it (key then in some order). */
static int sort_keys_polled(uint64_t *key, uint64_t *tmp, size_t n,
                            tsgs__stop *stop, double grace)
{
    uint64_t *src = key, *dst = tmp;
    if (n < 2)
        return 0;
    for (;;) {
        size_t lo = 0;
        while (lo < n) {
            size_t mid = lo + 1;
            while (mid < n && src[mid - 1] < src[mid])
                mid++;
            if (lo == 0 && mid == n) { /* one run: sorted */
                if (src != key)
                    memcpy(key, src, sizeof *key * n);
                return 0;
            }
            size_t hi = mid < n ? mid + 1 : n;
            while (hi < n && src[hi - 1] < src[hi])
                hi++;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                const size_t end = o + STOP_EVERY_KEYS;
                while (a < mid && b < hi && o < end)
                    dst[o++] = src[a] < src[b] ? src[a++] : src[b++];
                if (tsgs__stop_due(stop, grace))
                    return 1;
            }
            memcpy(dst + o, src + a, sizeof *key * (mid - a));
            o += mid - a;
            memcpy(dst + o, src + b, sizeof *key * (hi - b));
            lo = hi;
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
}

/* Rows [r0, r1), directions [c0, c1) of the job (relative to g0).
 * Returns 0, -1 out of memory, 1 cut by the job's stop. */
static int run_task(const job_t *J, size_t r0, size_t r1, long c0, long c1,
                    long chunk, scratch_t *S)
{
    const tsgs__rows *R = J->R;
    const tsgs__fspec *fs = J->fs;
    const size_t e0 = R->ptr[r0], ne = R->ptr[r1] - e0;
    if (scratch_nz(S, ne))
        return -1;
    const long real_end = c1 < J->count ? c1 : J->count;
    const tsgs__colcache *cc = J->cc;
    const int cached = cc && cc->filled >= J->g0 + real_end;
    size_t nk = 0;
    for (size_t e = 0; e < ne; e++) {
        if (e % STOP_EVERY_KEYS == STOP_EVERY_KEYS - 1 &&
            tsgs__stop_due(J->stop, J->grace))
            return 1;
        uint32_t k = R->col[e0 + e];
        long slot = cached ? cache_slot(cc, k) : -1;
        S->cbase[e] = slot >= 0 ? cc->W + (size_t)slot * (size_t)cc->stride
                                : NULL;
        if (slot < 0)
            S->key[nk++] = (uint64_t)k << 32 | e;
    }
    if (J->stop && nk >= POLLED_SORT_MIN) {
        if (grow((void **)&S->tmp, &S->cap_tmp, nk, sizeof(uint64_t)))
            return -1;
        if (sort_keys_polled(S->key, S->tmp, nk, J->stop, J->grace))
            return 1;
    } else {
        qsort(S->key, nk, sizeof *S->key, cmp_u64);
    }
    size_t u = 0;
    for (size_t j = 0; j < nk; j++) {
        uint32_t k = (uint32_t)(S->key[j] >> 32);
        if (u == 0 || S->ucol[u - 1] != k)
            S->ucol[u++] = k;
        S->uid[(uint32_t)S->key[j]] = (uint32_t)(u - 1);
    }
    long sub = DIR_CHUNK;
    while (sub > TSGS__LANES && (size_t)sub * u > TASK_FLOATS)
        sub /= 2;
    if (grow((void **)&S->Wt, &S->cap_w, u * (size_t)sub, sizeof(float)))
        return -1;
    double acc[ROW_CHUNK] = {0};
    float ph0[DIR_CHUNK], ph[DIR_CHUNK], cv[DIR_CHUNK], sv[DIR_CHUNK];
    for (long s0 = c0; s0 < c1; s0 += sub) {
        const long s1 = s0 + sub < c1 ? s0 + sub : c1, sn = s1 - s0;
        const long real = (s1 < real_end ? s1 : real_end) - s0;
        const long g = J->g0 + s0; /* global index of direction s0 */
        for (size_t j = 0; j < u && real > 0; j++) {
            if (j % STOP_EVERY_COLS == STOP_EVERY_COLS - 1 &&
                tsgs__stop_due(J->stop, J->grace))
                return 1;
            column_dirs_at(fs, S->ucol, u, j, g, real, S->Wt, (size_t)sub);
        }
        for (long t = 0; t < sn; t++)
            ph0[t] = t < real ? tsgs__direction_phase(fs, (g + t) / fs->dirs,
                                                      (g + t) % fs->dirs)
                              : 0.0f;
        for (size_t i = r0; i < r1; i++) {
            memcpy(ph, ph0, sizeof(float) * (size_t)sn);
            for (size_t e = R->ptr[i]; e < R->ptr[i + 1]; e++) {
                const size_t le = e - e0;
                const float v = R->val[e];
                const float *w = S->cbase[le]
                                     ? S->cbase[le] + g
                                     : S->Wt + (size_t)S->uid[le] * (size_t)sub;
                for (long t = 0; t < real; t++)
                    ph[t] += w[t] * v;
            }
            if (J->pair)
                tsgs__sincos_f(ph, (size_t)sn, sv, cv);
            else
                tsgs__cos_f(ph, (size_t)sn, cv);
            if (J->cosv) {
                float *oc = J->cosv + i * J->width + s0;
                memcpy(oc, cv, sizeof(float) * (size_t)sn);
                if (J->sinv)
                    memcpy(J->sinv + i * J->width + s0, sv,
                           sizeof(float) * (size_t)sn);
            } else {
                double a = 0.0;
                for (long t = 0; t < real; t++) {
                    a += J->ac[g + t] * cv[t];
                    if (J->pair)
                        a += J->as[g + t] * sv[t];
                }
                acc[i - r0] += a;
            }
        }
    }
    if (!J->cosv)
        for (size_t i = r0; i < r1; i++)
            J->sums[(size_t)chunk * R->n + i] = acc[i - r0];
    return 0;
}

/* Every task of the job by the team: rows chunks x direction chunks.
 * *failed: 1 out of memory, 2 stopped (the tasks after a stop are
 * skipped). */
static void run_tasks(const job_t *J, int *failed)
{
    const size_t n = J->R->n;
    const long nrc = (long)((n + ROW_CHUNK - 1) / ROW_CHUNK);
    const long ndc = (J->padded + DIR_CHUNK - 1) / DIR_CHUNK;
    scratch_t S;
    memset(&S, 0, sizeof S);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
    for (long t = 0; t < nrc * ndc; t++) {
        const long rc = t % nrc, dc = t / nrc;
        const size_t r0 = (size_t)rc * ROW_CHUNK;
        const size_t r1 = r0 + ROW_CHUNK < n ? r0 + ROW_CHUNK : n;
        const long c0 = dc * DIR_CHUNK;
        const long c1 = c0 + DIR_CHUNK < J->padded ? c0 + DIR_CHUNK
                                                   : J->padded;
        if (J->stop && tsgs__stop_due(J->stop, J->grace)) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            *failed = 2;
            continue;
        }
        const int cut = run_task(J, r0, r1, c0, c1, dc, &S);
        if (cut) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            *failed = cut < 0 ? 1 : 2;
        }
    }
    scratch_free(&S);
}

void tsgs__sparse_sums_team(const tsgs__fview *v, const tsgs__colcache *cc,
                            const tsgs__rows *R, double *part, double *out,
                            tsgs__stop *stop, int *failed)
{
    const size_t n = R->n;
    if (n == 0)
        return;
    const long ndirs = v->ndirs;
    const long ndc = (ndirs + DIR_CHUNK - 1) / DIR_CHUNK;
    if (ndirs == 0) {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t i = 0; i < n; i++)
            out[i] = 0.0;
        return;
    }
    job_t J = {v->fs, cc, R, 0, ndirs, ndirs, 0, NULL, NULL, v->ac, v->as,
               ndc > 1 ? part : out, v->as != NULL, stop,
               TSGS__STOP_OPTIONAL};
    run_tasks(&J, failed);
#ifdef _OPENMP
#pragma omp barrier
#endif
    if (ndc == 1)
        return;
    /* chunks combined in a fixed order: the same on any thread count */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (long c = 0; c < ndc; c++)
            s += part[(size_t)c * n + i];
        out[i] = s;
    }
}

/* Threads for nnz x ndirs multiply-adds. */
static int threads_for(const tsgs__rows *R, long ndirs, int threads)
{
    const double work = (double)R->ptr[R->n] * (double)ndirs;
    return work < PARALLEL_MIN_WORK ? 1 : (threads > 0 ? threads : 1);
}

tsgs_status tsgs__sparse_sums(const tsgs__fview *v, const tsgs__colcache *cc,
                              const tsgs__rows *R, int threads, double *out,
                              tsgs_error *err)
{
    const size_t nparts = tsgs__sums_scratch(v->ndirs, R->n);
    double *part = NULL;
    if (nparts && !(part = malloc(sizeof(double) * nparts)))
        return TSGS__NOMEM(err);
    int failed = 0;
    const int nt = threads_for(R, v->ndirs, threads);
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    tsgs__sparse_sums_team(v, cc, R, part, out, NULL, &failed);
    free(part);
    return failed ? TSGS__NOMEM(err) : TSGS_OK;
}

static void features_team(const tsgs__fspec *fs, const tsgs__colcache *cc,
                          long g0, long count, const tsgs__rows *R,
                          size_t width, float *cosv, float *sinv,
                          tsgs__stop *stop, double grace, int *failed)
{
    job_t J = {fs, cc, R, g0, count, round_up(count, TSGS__LANES), width,
               cosv, sinv, NULL, NULL, NULL, sinv != NULL, stop, grace};
    run_tasks(&J, failed);
}

void tsgs__sparse_features_team(const tsgs__fspec *fs,
                                const tsgs__colcache *cc, long g0,
                                long count, const tsgs__rows *R,
                                size_t width, float *cosv, float *sinv,
                                tsgs__stop *stop, int *failed)
{
    features_team(fs, cc, g0, count, R, width, cosv, sinv, stop,
                  TSGS__STOP_OPTIONAL, failed);
}

tsgs_status tsgs__sparse_features(const tsgs__fspec *fs,
                                  const tsgs__colcache *cc, long g0,
                                  long count, const tsgs__rows *R,
                                  size_t width, int threads, float *cosv,
                                  float *sinv, tsgs__stop *stop,
                                  double grace, tsgs_error *err)
{
    int failed = 0;
    const int nt = threads_for(R, count, threads);
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    features_team(fs, cc, g0, count, R, width, cosv, sinv, stop, grace,
                  &failed);
    if (failed == 2)
        return tsgs__stopped(err, "the feature rows");
    return failed ? TSGS__NOMEM(err) : TSGS_OK;
}

tsgs_status tsgs__rows_eval_sums(const tsgs__fview *v,
                                 const tsgs__colcache *cc,
                                 const tsgs__rows *R, int threads,
                                 double *out, tsgs_error *err)
{
    if (R->x)
        return tsgs__eval_sums(v, R->x, R->n, threads, out, err);
    return tsgs__sparse_sums(v, cc, R, threads, out, err);
}

void tsgs__rows_eval_sums_team(const tsgs__fview *v,
                               const tsgs__colcache *cc, const tsgs__rows *R,
                               double *part, tsgs__kernel_ws *ws, double *out,
                               tsgs__stop *stop, int *failed)
{
    if (R->x)
        tsgs__eval_sums_team(v, R->x, R->n, part, ws, out, failed);
    else
        tsgs__sparse_sums_team(v, cc, R, part, out, stop, failed);
}

/* ------------------------------------------------ feature rows by column */

/* Phases a thread of tsgs__sparse_feature_rows holds (floats): rows x
 * directions of a chunk */
#define BYCOL_FLOATS ((size_t)1 << 21)
#define BYCOL_MIN_CHUNK 32

/* Directions a chunk of tsgs__sparse_feature_rows over n rows: the
 * kernel's chunk, halved while n rows' phases exceed BYCOL_FLOATS or the
 * chunks are fewer than the threads; 0 when even BYCOL_MIN_CHUNK is too
 * many. */
static long bycol_chunk(size_t n, long ndirs, int threads)
{
    long chunk = DIR_CHUNK;
    const long padded = round_up(ndirs > 0 ? ndirs : 1, TSGS__LANES);
    while (chunk > BYCOL_MIN_CHUNK &&
           ((double)n * (double)chunk > (double)BYCOL_FLOATS ||
            (padded + chunk - 1) / chunk < threads))
        chunk /= 2;
    return (double)n * (double)chunk > (double)BYCOL_FLOATS ? 0 : chunk;
}

int tsgs__sparse_feature_rows_fit(const tsgs__rows *R, long ndirs,
                                  int threads)
{
    if (R->x || R->n == 0 || R->ptr[R->n] - R->ptr[0] >= UINT32_MAX ||
        R->n >= UINT32_MAX || !bycol_chunk(R->n, ndirs, threads))
        return 0;
    for (size_t i = 0; i < R->n; i++)
        for (size_t e = R->ptr[i] + 1; e < R->ptr[i + 1]; e++)
            if (R->col[e] <= R->col[e - 1])
                return 0;
    return 1;
}

/* The entries of R grouped by column: the distinct columns ucol[0 .. *nu)
 * ascending, column j's entries at [start[j], start[j + 1]) of erow
 * (their rows, ascending) and eval. A stable two-pass radix sort of the
 * entries by column. -1: out of memory. */
typedef struct {
    size_t nu;
    uint32_t *ucol, *erow;
    size_t *start;
    float *eval;
} bycol_t;

static void bycol_free(bycol_t *B)
{
    free(B->ucol);
    free(B->erow);
    free(B->start);
    free(B->eval);
}

static int bycol_make(const tsgs__rows *R, bycol_t *B)
{
    const size_t e0 = R->ptr[0], ne = R->ptr[R->n] - e0;
    memset(B, 0, sizeof *B);
    uint32_t *a = malloc(sizeof(uint32_t) * (ne ? ne : 1));
    uint32_t *b = malloc(sizeof(uint32_t) * (ne ? ne : 1));
    size_t *cnt = malloc(sizeof(size_t) * 65536);
    B->ucol = malloc(sizeof(uint32_t) * (ne ? ne : 1));
    B->erow = malloc(sizeof(uint32_t) * (ne ? ne : 1));
    B->start = malloc(sizeof(size_t) * (ne + 1));
    B->eval = malloc(sizeof(float) * (ne ? ne : 1));
    if (!a || !b || !cnt || !B->ucol || !B->erow || !B->start || !B->eval) {
        free(a);
        free(b);
        free(cnt);
        bycol_free(B);
        return -1;
    }
    for (size_t e = 0; e < ne; e++)
        a[e] = (uint32_t)e;
    /* entries a -> b by the column's low 16 bits, b -> a by its high
     * ones: stable, so each column's entries keep their (row) order */
    for (int pass = 0; pass < 2; pass++) {
        const int shift = 16 * pass;
        const uint32_t *src = pass ? b : a;
        uint32_t *dst = pass ? a : b;
        memset(cnt, 0, sizeof(size_t) * 65536);
        for (size_t e = 0; e < ne; e++)
            cnt[(R->col[e0 + src[e]] >> shift) & 0xffffu]++;
        size_t sum = 0;
        for (size_t v = 0; v < 65536; v++) {
            const size_t c = cnt[v];
            cnt[v] = sum;
            sum += c;
        }
        for (size_t e = 0; e < ne; e++)
            dst[cnt[(R->col[e0 + src[e]] >> shift) & 0xffffu]++] = src[e];
    }
    free(b);
    free(cnt);
    /* the row of each entry, then the groups */
    uint32_t *row = malloc(sizeof(uint32_t) * (ne ? ne : 1));
    if (!row) {
        free(a);
        bycol_free(B);
        return -1;
    }
    for (size_t i = 0; i < R->n; i++)
        for (size_t e = R->ptr[i]; e < R->ptr[i + 1]; e++)
            row[e - e0] = (uint32_t)i;
    size_t u = 0;
    for (size_t t = 0; t < ne; t++) {
        const uint32_t k = R->col[e0 + a[t]];
        if (u == 0 || B->ucol[u - 1] != k) {
            B->ucol[u] = k;
            B->start[u++] = t;
        }
        B->erow[t] = row[a[t]];
        B->eval[t] = R->val[e0 + a[t]];
    }
    B->start[u] = ne;
    B->nu = u;
    free(row);
    free(a);
    return 0;
}

/* Chunk [s0, s0 + sn) of the directions (real of them below ndirs) for
 * every row into P (rows x sn): each column's directions made once, in a
 * buffer a column long, and added to the phases of the rows that hold it
 * (ascending columns: each row's own order, as run_task adds them). 1:
 * cut by the stop. */
static int bycol_chunk_phases(const tsgs__fspec *fs, const bycol_t *B,
                              size_t n, long s0, long sn, long real,
                              float *P, float *wa, float *wb,
                              tsgs__stop *stop, double grace)
{
    for (long t = 0; t < sn; t++)
        P[t] = t < real ? tsgs__direction_phase(fs, (s0 + t) / fs->dirs,
                                                (s0 + t) % fs->dirs)
                        : 0.0f;
    for (size_t i = 1; i < n; i++)
        memcpy(P + i * (size_t)sn, P, sizeof(float) * (size_t)sn);
    if (real <= 0)
        return 0;
    for (size_t j = 0; j < B->nu; j++) {
        if (j % STOP_EVERY_COLS == STOP_EVERY_COLS - 1 &&
            tsgs__stop_due(stop, grace))
            return 1;
        const uint32_t k = B->ucol[j];
        const float *w = wa;
        if (k & 1 && j > 0 && B->ucol[j - 1] == k - 1)
            w = wb; /* made with k - 1 */
        else if (!(k & 1) && j + 1 < B->nu && B->ucol[j + 1] == k + 1)
            tsgs__omega_column_pair(fs, k / 2, s0, real, wa, wb);
        else
            tsgs__omega_column(fs, k, s0, real, wa);
        for (size_t e = B->start[j]; e < B->start[j + 1]; e++) {
            float *ph = P + (size_t)B->erow[e] * (size_t)sn;
            const float v = B->eval[e];
            for (long t = 0; t < real; t++)
                ph[t] += w[t] * v;
        }
    }
    return 0;
}

/* The features of chunk [s0, s0 + sn) from its phases P (rows x sn):
 * cos (and sin, pair) scaled by k into out, as put_features lays them. */
static void bycol_put(const float *P, size_t n, long s0, long sn, long real,
                      long ndirs, float k, size_t D, int pair, float *cv,
                      float *sv, float *out)
{
    for (size_t i = 0; i < n; i++) {
        const float *ph = P + i * (size_t)sn;
        if (pair)
            tsgs__sincos_f(ph, (size_t)sn, sv, cv);
        else
            tsgs__cos_f(ph, (size_t)sn, cv);
        float *o = out + i * D + s0;
        for (long j = 0; j < real; j++) {
            o[j] = k * cv[j];
            if (pair)
                o[ndirs + j] = k * sv[j];
        }
    }
}

tsgs_status tsgs__sparse_feature_rows(const tsgs__fspec *fs, long ndirs,
                                      const tsgs__rows *R, int threads,
                                      float k, size_t D, int pair,
                                      tsgs__stop *stop, double grace,
                                      float *out, tsgs_error *err)
{
    const size_t n = R->n;
    const long padded = round_up(ndirs, TSGS__LANES);
    const long chunk = bycol_chunk(n, ndirs, threads);
    const long nch = (padded + chunk - 1) / chunk;
    bycol_t B;
    if (bycol_make(R, &B))
        return TSGS__NOMEM(err);
    int failed = 0;
    const int nt = threads > 1 && nch > 1 ? (threads < nch ? threads
                                                           : (int)nch)
                                          : 1;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        float *P = malloc(sizeof(float) * n * (size_t)chunk);
        float *wa = malloc(sizeof(float) * (size_t)chunk);
        float *wb = malloc(sizeof(float) * (size_t)chunk);
        float *cv = malloc(sizeof(float) * (size_t)chunk);
        float *sv = malloc(sizeof(float) * (size_t)chunk);
        if (!P || !wa || !wb || !cv || !sv) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            failed = 1;
        }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (long c = 0; c < nch; c++) {
            int f;
#ifdef _OPENMP
#pragma omp atomic read
#endif
            f = failed;
            if (f || tsgs__stop_due(stop, grace)) {
                if (!f) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                    failed = 2;
                }
                continue;
            }
            const long s0 = c * chunk;
            const long sn = s0 + chunk < padded ? chunk : padded - s0;
            const long real = (s0 + sn < ndirs ? s0 + sn : ndirs) - s0;
            if (bycol_chunk_phases(fs, &B, n, s0, sn, real, P, wa, wb, stop,
                                   grace)) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                failed = 2;
                continue;
            }
            bycol_put(P, n, s0, sn, real, ndirs, k, D, pair, cv, sv, out);
        }
        free(P);
        free(wa);
        free(wb);
        free(cv);
        free(sv);
    }
    bycol_free(&B);
    if (failed == 2)
        return tsgs__stopped(err, "the feature rows");
    return failed ? TSGS__NOMEM(err) : TSGS_OK;
}
