/* The stochastic solvers: TSGS3VM (triply stochastic functional
 * gradients: labeled rows, unlabeled rows and random features sampled at
 * every step), its supervised special case DSG, DSG reusing old blocks
 * (UDSG uniformly, CDSG by the checking rule) and FRS3VM (SGD over one
 * fixed set of random features).
 *
 * Per step t: predict the unlabeled mini-batch with the model so far (the
 * kernel, parallel over tiles); read the labeled predictions from a cache
 * of unscaled sums; form the loss derivatives; add a block of random
 * features (or, once the feature budget is full, update an old block:
 * UDSG / CDSG); decay every older coefficient through the lazy global
 * scale.
 *
 * Threads: a step is short (a fraction of a millisecond), so the team is
 * started once around the steps (one parallel region per run, or per
 * stretch between two monitor measurements), not once per phase of a
 * step. The functions marked "team" are called by every thread of it with
 * the same arguments: loops are shared by orphaned `omp for`, the serial
 * parts run on one thread (`omp single`, which ends in a barrier), and what
 * one thread decides for all is kept in run_t. Outside a parallel region
 * the same code runs on one thread. Every sum has a fixed order, so the
 * model has the same bits on any number of threads. */
#include "solver.h"

#include "model_select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Below this the lazy scale is folded into the coefficients: far from
 * double's limits, and rare (amortised O(1) per step). */
#define SCALE_FLOOR 1e-150

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything a run needs besides the model. */
typedef struct {
    const tsgs_dataset *ds;
    tsgs_params p;      /* resolved */
    int threads;
    size_t d;
    size_t nl, nu;      /* labeled and unlabeled rows */
    size_t *lidx;       /* labeled row indices (in batch order) */
    size_t *uidx;       /* unlabeled row indices, reshuffled each pass */
    size_t *ubatch;     /* the rows of the current unlabeled mini-batch */
    tsgs__rows XL;      /* scaled labeled rows, nl x d (dense or sparse) */
    double *yl;         /* +1 / -1 */
    double *hl;         /* cached unscaled sums of the labeled rows */
    double *wl;         /* loss derivative weights of the labeled rows */
    tsgs__rows XU;      /* scaled unlabeled mini-batch, bu x d */
    double *gu;         /* its decision values */
    double *wu;
    size_t bl, bu;      /* mini-batch sizes */
    size_t upos;        /* position in the current pass over uidx */
    long epoch;
    float *Wb, *Pb;     /* packed directions of the block being updated */
    float *cl, *sl;     /* block features of the labeled rows */
    float *cu, *su;     /* block features of the unlabeled mini-batch */
    double *dac, *das;  /* coefficient increments of the block */
    int lcache;         /* labeled sums cached (n_l small), else the
                           labeled mini-batch is predicted every step */
    tsgs__rows XLb;     /* no cache: the labeled mini-batch's rows */
    double *gl;         /* no cache: its decision values */
    int pair;           /* PAIR features: cos and sin per direction */
    long ngb;           /* packed groups per block */
    size_t wb;          /* their width, ngb * LANES */
    double *gc, *gs;    /* gradient of the block being written */
    double *cgc, *cgs;  /* the checking rule's candidate gradient */
    float *bcl, *bsl;   /* the best candidate's labeled features */
    int frs;            /* FRS3VM: one fixed set of features */
    long frs_dirs;      /* its directions */
    long frs_groups;    /* and packed groups */
    float *fcl, *fsl;   /* FRS: features of every labeled row, fixed */
    double *sorted;     /* balance: the mini-batch's sorted decisions */
    double mean_ema;    /* balance: running threshold */
    tsgs__train_opts opt;
    double t_start;     /* when the steps started */
    double monitor_s;   /* time spent measuring the monitor set since */
    size_t *ubatch_next; /* the next mini-batch's rows, read ahead */
    tsgs__rows XU_next; /* and their scaled copies */
    tsgs__featcache *fc; /* sparse rows: every unlabeled row's features
                            (then XU and XU_next are not gathered) */
    size_t *lrow;       /* with the labeled cache: the labeled rows' rows
                           in the dataset, XL's order (also in fc) */
    long next_t;        /* the step whose rows ubatch_next holds (0: none) */
    long plan_t;        /* the step planned (its rows in XU; on the fast
                           path its block chosen too), 0: none */
    int fast;           /* the fast path: a step's block is chosen before
                           its predictions (no checking rule, labeled
                           cache, not FRS) */
    int big_update;     /* the labeled-cache update is worth a team */
    long view_blocks;   /* fast path: the blocks the predictions see */
    const tsgs_train_hooks *hooks;
    long T, t1;         /* the run's steps; the last of this stretch */
    long max_blocks;
    size_t *draws;      /* the shuffle's draws: two chunks */
    double *part;       /* the kernel's partial sums, shared by the team */
    size_t npart;       /* their size */
    /* Shared by the team within a step: what one thread decided for all. */
    tsgs_error *err;    /* where a failure is described */
    int failed;         /* the kernel could not generate directions */
    int stop;           /* the hooks asked to stop */
    long t_last;        /* the last step run */
    tsgs_status run_st; /* TSGS_OK, or why a step failed */
    long blk;           /* the block this step writes */
    double blk_eta;     /* and its step */
    int blk_checked;    /* its gradient is the checking rule's */
    double var;         /* block_gradient's sampling variance */
    long best;          /* the checking rule's best candidate */
    double best_eta;    /* and its step */
} run_t;

/* What each thread of the team keeps for itself. */
typedef struct {
    tsgs__kernel_ws ws; /* scratch for regenerated directions */
} lane_t;

static void run_free(run_t *r)
{
    free(r->lidx); free(r->uidx); tsgs__rows_free(&r->XL); free(r->yl);
    free(r->hl); free(r->wl); tsgs__rows_free(&r->XU); free(r->gu);
    free(r->wu); free(r->Wb);
    free(r->Pb); free(r->cl); free(r->sl); free(r->cu); free(r->su);
    free(r->dac); free(r->das); free(r->sorted); free(r->gc); free(r->gs);
    free(r->cgc); free(r->cgs); free(r->bcl); free(r->bsl); free(r->fcl);
    free(r->fsl); tsgs__rows_free(&r->XLb); free(r->gl); free(r->ubatch);
    free(r->ubatch_next); tsgs__rows_free(&r->XU_next); free(r->draws);
    free(r->part); tsgs__featcache_free(r->fc); free(r->lrow);
}

/* k-th smallest of v[0..n) (0-based), reordering v: quickselect, O(n). */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The decision value below which a share (1 - ratio) of v lies: the
 * midpoint of the two order statistics around it (v is reordered). */
static double quantile_threshold(double *v, size_t n, double ratio)
{
    double pos = (1.0 - ratio) * (double)n;
    size_t lo = pos < 1.0 ? 0 : (size_t)pos - 1;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double a = select_kth(v, n, lo);
    double b = select_kth(v, n, hi);
    return 0.5 * (a + b);
}

/* A new random order of the unlabeled rows for pass `epoch` (team):
 * Fisher-Yates from the top, swapping i - 1 with draw j_i < i for i = n ..
 * 2. The swaps must run in order, but the draws are independent
 * (counter-based): the team draws the next chunk of them while one thread
 * applies this chunk's swaps, which prefetch the rows they will touch. */
#define SHUFFLE_CHUNK 65536

/* j_i for i = hi, hi - 1, .., hi - len + 1 into J (team, no barrier). */
static void shuffle_draws(const run_t *r, size_t hi, size_t len, size_t *J)
{
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1024) nowait
#endif
    for (size_t k = 0; k < len; k++) {
        size_t i = hi - k;
        J[k] = (size_t)tsgs__below(r->p.seed, TSGS__STREAM_EPOCH,
                                   ((uint64_t)r->epoch << 40) ^ i, i);
    }
}

static void shuffle_swaps(run_t *r, size_t hi, size_t len, const size_t *J)
{
    const size_t ahead = 16;
    for (size_t k = 0; k < len; k++) {
        if (k + ahead < len)
            __builtin_prefetch(r->uidx + J[k + ahead], 1);
        size_t i = hi - k, j = J[k];
        size_t t = r->uidx[i - 1];
        r->uidx[i - 1] = r->uidx[j];
        r->uidx[j] = t;
    }
}

static void shuffle_pass(run_t *r)
{
    if (r->nu < 2)
        return;
    size_t *J[2] = {r->draws, r->draws + SHUFFLE_CHUNK};
    size_t hi = r->nu, len = hi - 1 < SHUFFLE_CHUNK ? hi - 1 : SHUFFLE_CHUNK;
    shuffle_draws(r, hi, len, J[0]);
    for (int c = 0; hi > 1; c ^= 1) {
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single nowait
#endif
        shuffle_swaps(r, hi, len, J[c]);
        hi -= len;
        len = hi - 1 < SHUFFLE_CHUNK ? hi - 1 : SHUFFLE_CHUNK;
        if (hi > 1)
            shuffle_draws(r, hi, len, J[c ^ 1]);
    }
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* Rows of the pass order from position upos into rows[from ..), up to a
 * whole mini-batch or the end of the pass; returns the rows filled. */
static size_t take_rows(run_t *r, size_t *rows, size_t from)
{
    size_t i = from;
    while (i < r->bu && r->upos < r->nu)
        rows[i++] = r->uidx[r->upos++];
    return i;
}

/* The rows of the next unlabeled mini-batch into `rows` (team); a pass
 * that ends inside it is followed by a new shuffle. */
static void pick_unlabeled_rows(run_t *r, size_t *rows)
{
    size_t got;
#ifdef _OPENMP
#pragma omp single copyprivate(got)
#endif
    got = take_rows(r, rows, 0);
    if (got == r->bu)
        return;
#ifdef _OPENMP
#pragma omp single
#endif
    {
        r->epoch++;
        r->upos = 0;
    }
    shuffle_pass(r);
#ifdef _OPENMP
#pragma omp single
#endif
    take_rows(r, rows, got);
}

/* Scaled copies of the mini-batch's rows (team, no barrier): each is a
 * cache miss on a large set. */
static void gather_rows(run_t *r, const tsgs_model *m,
                        const size_t *rows, tsgs__rows *X)
{
    if (r->fc)
        return; /* their features are cached: the rows are not read */
    tsgs__rows_gather_team(X, r->ds, &m->scaler, rows, r->bu, &r->failed);
}

/* Serial, as step t is planned with its rows in XU: the rows of step t + 1
 * are taken now when they lie in the current pass (the same rows the step
 * would take), so that the team gathers them while it predicts step t. */
static void plan_rows(run_t *r, long t)
{
    r->next_t = 0;
    if (r->bu && t < r->T && r->nu - r->upos >= r->bu) {
        take_rows(r, r->ubatch_next, 0);
        r->next_t = t + 1;
    }
    /* Ask for the rows after them now: their cache misses then overlap a
     * whole step's work instead of stalling the gather (on one thread,
     * nothing else hides them). */
    const size_t line = 64 / sizeof(float);
    for (size_t i = r->upos; r->ds->x && i < r->nu && i < r->upos + r->bu;
         i++) {
        const float *row = r->ds->x + r->uidx[i] * r->d;
        for (size_t k = 0; k < r->d; k += line)
            __builtin_prefetch(row + k);
        __builtin_prefetch(row + r->d - 1);
    }
}

/* Serial: XU takes step t's rows, read ahead; 0 when there are none. */
static int rows_ahead_in(run_t *r, long t)
{
    if (r->next_t != t)
        return 0;
    tsgs__rows x = r->XU;
    r->XU = r->XU_next;
    r->XU_next = x;
    size_t *b = r->ubatch;
    r->ubatch = r->ubatch_next;
    r->ubatch_next = b;
    return 1;
}

/* The next unlabeled mini-batch's rows picked and gathered into XU (team),
 * where they were not read ahead. */
static void fetch_unlabeled_rows(run_t *r, const tsgs_model *m)
{
    pick_unlabeled_rows(r, r->ubatch);
    gather_rows(r, m, r->ubatch, &r->XU);
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* Picks the labeled mini-batch of step t: the first bl entries of lidx
 * after a partial shuffle (all rows when bl == nl). */
static void next_labeled_batch(run_t *r, long t)
{
    if (r->bl == r->nl)
        return;
    for (size_t i = 0; i < r->bl; i++) {
        size_t j = i + (size_t)tsgs__below(r->p.seed, TSGS__STREAM_LABELED,
                                           ((uint64_t)t << 24) ^ i,
                                           r->nl - i);
        size_t tmp = r->lidx[i];
        r->lidx[i] = r->lidx[j];
        r->lidx[j] = tmp;
    }
}

/* The scaled labeled rows and their classes (+1 / -1), in file order;
 * read by the model selection before the model exists, then by the
 * steps. */
static tsgs_status gather_labeled(run_t *r, const tsgs__train_job *job,
                                  tsgs_error *err)
{
    const tsgs_dataset *ds = r->ds;
    const size_t nl1 = r->nl ? r->nl : 1;
    r->lidx = malloc(sizeof(size_t) * nl1);
    r->yl = malloc(sizeof(double) * nl1);
    if (!r->lidx || !r->yl ||
        tsgs__rows_init(&r->XL, ds, &job->scaler, r->nl))
        return TSGS__NOMEM(err);
    size_t il = 0;
    for (size_t i = 0; i < ds->n; i++) {
        if (isnan(ds->y[i]))
            continue;
        r->yl[il] = ds->y[i] == job->label_pos ? 1.0 : -1.0;
        r->lidx[il] = i; /* the file's rows to gather, then batch order */
        il++;
    }
    if (tsgs__rows_gather(&r->XL, ds, &job->scaler, r->lidx, r->nl))
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < r->nl; i++)
        r->lidx[i] = i;
    return TSGS_OK;
}

static tsgs_status run_setup(run_t *r, tsgs_model *m, long max_blocks,
                             tsgs_error *err)
{
    const tsgs_dataset *ds = r->ds;
    const size_t d = r->d;
    const size_t nl1 = r->nl ? r->nl : 1, bu1 = r->bu ? r->bu : 1;
    r->pair = m->fs.map == TSGS_FEATURES_PAIR;
    r->ngb = (m->fs.dirs + TSGS__LANES - 1) / TSGS__LANES;
    r->wb = (size_t)r->ngb * TSGS__LANES;
    /* FRS evaluates every direction at every step, the others one block */
    const size_t wide = r->frs ? (size_t)r->frs_groups * TSGS__LANES : r->wb;

    r->uidx = malloc(sizeof(size_t) * (r->nu ? r->nu : 1));
    r->hl = calloc(nl1, sizeof(double));
    r->wl = calloc(nl1, sizeof(double));
    const int sparse = !r->XL.x; /* the rows' storage decides */
    int bad = tsgs__rows_init(&r->XU, ds, &m->scaler, bu1) |
              tsgs__rows_init(&r->XU_next, ds, &m->scaler, bu1) |
              tsgs__rows_init(&r->XLb, ds, &m->scaler, r->bl ? r->bl : 1);
    r->ubatch = malloc(sizeof(size_t) * bu1);
    r->ubatch_next = malloc(sizeof(size_t) * bu1);
    r->draws = malloc(sizeof(size_t) * 2 * SHUFFLE_CHUNK);
    /* the kernel's partial sums for the largest model and batch */
    const long most_dirs = (r->frs ? 1 : max_blocks) * m->fs.dirs;
    r->npart = tsgs__sums_scratch(most_dirs, bu1 > nl1 ? bu1 : nl1);
    r->part = malloc(sizeof(double) * (r->npart ? r->npart : 1));
    r->gu = malloc(sizeof(double) * bu1);
    r->wu = malloc(sizeof(double) * bu1);
    r->sorted = malloc(sizeof(double) * bu1);
    /* sparse rows: block features from the non-zeros, no d-wide panel */
    r->Wb = malloc(sizeof(float) * r->wb * (sparse ? 1 : d));
    r->Pb = malloc(sizeof(float) * r->wb);
    /* block features of every labeled row (cache) or of the batch only */
    const size_t lrows = r->lcache ? nl1 : (r->bl ? r->bl : 1);
    r->cl = malloc(sizeof(float) * r->wb * lrows);
    r->sl = malloc(sizeof(float) * r->wb * lrows);
    r->bcl = malloc(sizeof(float) * r->wb * lrows);
    r->bsl = malloc(sizeof(float) * r->wb * lrows);
    r->gl = malloc(sizeof(double) * (r->bl ? r->bl : 1));
    r->cu = malloc(sizeof(float) * wide * bu1);
    r->su = malloc(sizeof(float) * wide * bu1);
    r->dac = calloc(wide, sizeof(double));
    r->das = calloc(wide, sizeof(double));
    r->gc = calloc(wide, sizeof(double));
    r->gs = calloc(wide, sizeof(double));
    r->cgc = calloc(r->wb, sizeof(double));
    r->cgs = calloc(r->wb, sizeof(double));
    if (r->frs) {
        r->fcl = malloc(sizeof(float) * wide * nl1);
        r->fsl = malloc(sizeof(float) * wide * nl1);
        if (!r->fcl || !r->fsl)
            return TSGS__NOMEM(err);
    }
    if (bad || !r->uidx || !r->hl || !r->wl || !r->gu || !r->wu || !r->Wb ||
        !r->Pb || !r->cl || !r->sl ||
        !r->bcl || !r->bsl || !r->cu || !r->su || !r->dac || !r->das ||
        !r->sorted || !r->gc || !r->gs || !r->cgc || !r->cgs ||
        !r->gl || !r->ubatch || !r->ubatch_next ||
        !r->draws || !r->part)
        return TSGS__NOMEM(err);
    size_t iu = 0;
    for (size_t i = 0; i < ds->n && r->nu; i++) /* DSG leaves them out */
        if (isnan(ds->y[i]))
            r->uidx[iu++] = i;
    if (r->frs)
        tsgs__eval_features(d, m->panel, m->phase, r->frs_groups, r->XL.x,
                            r->nl, r->threads, r->fcl,
                            r->pair ? r->fsl : NULL);
    r->epoch = 0;
    r->upos = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(r->threads) if (r->threads > 1)
#endif
    shuffle_pass(r);
    return TSGS_OK;
}

/* out[i] (+)= sum_j wc[j] cv[i][j] + ws[j] sv[i][j] for n rows of a
 * feature matrix with the given row stride (sv, ws NULL for COS): the FRS
 * decision values and the update of the cached labeled sums (team). Each
 * row on one thread, so the sums do not depend on the thread count. */
static inline double weighted_row(long ncols, const double *wc,
                                   const double *ws, const float *cv,
                                   const float *sv)
{
    double s = 0.0;
    for (long j = 0; j < ncols; j++) {
        s += wc[j] * cv[j];
        if (sv)
            s += ws[j] * sv[j];
    }
    return s;
}

static void weighted_rows(size_t n, long ncols, const double *wc,
                          const double *ws, const float *cv, const float *sv,
                          size_t stride, int accumulate, double *out)
{
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (size_t i = 0; i < n; i++) {
        double s = weighted_row(ncols, wc, ws, cv + i * stride,
                                sv ? sv + i * stride : NULL);
        out[i] = accumulate ? out[i] + s : s;
    }
}

/* Unscaled sums of FRS features: out[i] = sum_j a_j phi_j(x_i) (team). */
static void feature_sums(const run_t *r, const tsgs_model *m, const float *cv,
                         const float *sv, size_t n, double *out)
{
    weighted_rows(n, r->frs_dirs, m->ac, m->as, cv, sv,
                  (size_t)r->frs_groups * TSGS__LANES, 0, out);
}

/* The kernel's raw sums of n rows as decision values (the lazy scale and
 * the feature normalisation applied), or out of memory when the team could
 * not generate directions. One thread calls it. */
static tsgs_status scale_sums(run_t *r, const tsgs_model *m, double *g,
                              size_t n)
{
    if (r->failed)
        return TSGS__NOMEM(r->err);
    const double k = m->scale * m->norm;
    for (size_t i = 0; i < n; i++)
        g[i] *= k;
    return TSGS_OK;
}

/* One thread, after the kernel: the decision values of the unlabeled
 * mini-batch (gu, without bias) scaled, and the balance bias from them. */
static tsgs_status finish_unlabeled(run_t *r, tsgs_model *m, long t)
{
    const tsgs_params *p = &r->p;
    tsgs_status st = scale_sums(r, m, r->gu, r->bu);
    if (st == TSGS_OK && p->balance == TSGS__BALANCE_HOLD) {
        /* Hold the share of unlabeled rows predicted positive to the class
         * ratio: the bias puts the (1 - ratio) quantile of the mini-batch's
         * decision values at 0. A running mean over recent mini-batches
         * tracks the model's drift. (Holding the mean decision value
         * instead, as TSVMs do, lets a few large values drag the
         * boundary.) */
        memcpy(r->sorted, r->gu, sizeof(double) * r->bu);
        double q = quantile_threshold(r->sorted, r->bu, p->balance_ratio);
        double rho = 1.0 / (double)t > 0.1 ? 1.0 / (double)t : 0.1;
        r->mean_ema = (1.0 - rho) * r->mean_ema + rho * q;
        m->bias = -r->mean_ema;
    }
    return st;
}

/* Whether the unlabeled rows' feature cache holds directions [0, ndirs):
 * the same answer on every thread (the model's blocks change in serial
 * sections only). */
static int featcache_covers(const run_t *r, long ndirs)
{
    return r->fc && ndirs <= r->fc->cap;
}

/* Decision values of the unlabeled mini-batch with the model so far
 * (team): finish_unlabeled's. */
static tsgs_status predict_unlabeled(run_t *r, tsgs_model *m, long t,
                                     lane_t *me)
{
    if (r->frs) {
        /* FRS: the batch's features over every direction are needed for
         * the gradient anyway; the decision values are their sums. */
        tsgs__eval_features_team(r->d, m->panel, m->phase, r->frs_groups,
                                 r->XU.x, r->bu, r->cu,
                                 r->pair ? r->su : NULL);
#ifdef _OPENMP
#pragma omp barrier
#endif
        feature_sums(r, m, r->cu, r->su, r->bu, r->gu);
    } else if (featcache_covers(r, tsgs__model_dirs(m))) {
        tsgs__fview v = tsgs__model_view(m);
        tsgs__featcache_fill_team(r->fc, &m->fs, m->cc, v.ndirs,
                                  &r->failed);
        tsgs__featcache_sums_team(r->fc, &v, r->ubatch, r->bu, r->gu);
    } else {
        tsgs__fview v = tsgs__model_view(m);
        tsgs__rows_eval_sums_team(&v, m->cc, &r->XU, r->part, &me->ws,
                                  r->gu, &r->failed);
    }
    tsgs_status st;
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    st = finish_unlabeled(r, m, t);
    return st;
}

/* Without the cache (many labeled rows): the labeled mini-batch's rows and
 * their decision values, through the same kernel as the unlabeled ones
 * (team). */
static tsgs_status predict_labeled(run_t *r, const tsgs_model *m,
                                   lane_t *me)
{
    if (r->XL.x) {
        /* each thread copies its rows; the single's barrier then waits
         * for all of them, and one thread sets the count (shared) */
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (size_t i = 0; i < r->bl; i++)
            memcpy(r->XLb.x + i * r->d, r->XL.x + r->lidx[i] * r->d,
                   sizeof(float) * r->d);
#ifdef _OPENMP
#pragma omp single
#endif
        r->XLb.n = r->bl;
    } else {
#ifdef _OPENMP
#pragma omp single
#endif
        if (tsgs__rows_copy(&r->XLb, &r->XL, r->lidx, r->bl))
            r->failed = 1;
    }
    tsgs__fview v = tsgs__model_view(m);
    tsgs__rows_eval_sums_team(&v, m->cc, &r->XLb, r->part, &me->ws, r->gl,
                              &r->failed);
    tsgs_status st = TSGS_OK;
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    st = scale_sums(r, m, r->gl, r->bl);
    return st;
}

/* Loss derivatives, weighted as the objective's mini-batch means. Rows
 * outside the labeled mini-batch weigh 0. */
static void loss_weights(run_t *r, const tsgs_model *m, double cstar)
{
    const tsgs_params *p = &r->p;
    const double k = m->scale * m->norm;
    if (r->lcache) {
        memset(r->wl, 0, sizeof(double) * r->nl);
        for (size_t i = 0; i < r->bl; i++) {
            size_t row = r->lidx[i];
            double f = k * r->hl[row] + m->bias;
            r->wl[row] = p->c / (double)r->bl *
                         tsgs__hinge_grad(f, r->yl[row]);
        }
    } else {
        /* weights by batch position: wl[i] for the row lidx[i] */
        for (size_t i = 0; i < r->bl; i++) {
            double f = r->gl[i] + m->bias;
            r->wl[i] = p->c / (double)r->bl *
                       tsgs__hinge_grad(f, r->yl[r->lidx[i]]);
        }
    }
    for (size_t i = 0; i < r->bu; i++) {
        double f = r->gu[i] + m->bias;
        r->wu[i] = cstar / (double)r->bu *
                   tsgs__uloss_grad(p->uloss, p->ramp_s, f);
    }
    if (p->balance == TSGS__BALANCE_CENTRED && r->bu > 0) {
        /* The unlabeled loss pushes each row away from the boundary; the
         * part of that push common to the whole mini-batch moves every
         * row the same way, towards one class for all (the collapse S3VMs
         * guard against with a balance constraint). Centred weights drop
         * it: the loss separates rows, it cannot shift them all. */
        double mean = 0.0;
        for (size_t i = 0; i < r->bu; i++)
            mean += r->wu[i];
        mean /= (double)r->bu;
        for (size_t i = 0; i < r->bu; i++)
            r->wu[i] -= mean;
    }
}

static void block_sums(const run_t *r, const tsgs_model *m, double *gc,
                       double *gs, double *var);

/* Features of the labeled rows (every one with the cache, else the
 * mini-batch's) and of the unlabeled mini-batch on the block whose
 * directions are in Wb / Pb (team, no barrier). */
static void block_features(run_t *r)
{
    const int pair = r->pair;
    if (r->lcache)
        tsgs__eval_features_team(r->d, r->Wb, r->Pb, r->ngb, r->XL.x, r->nl,
                                 r->cl, pair ? r->sl : NULL);
    else
        tsgs__eval_features_team(r->d, r->Wb, r->Pb, r->ngb, r->XLb.x, r->bl,
                                 r->cl, pair ? r->sl : NULL);
    tsgs__eval_features_team(r->d, r->Wb, r->Pb, r->ngb, r->XU.x, r->bu,
                             r->cu, pair ? r->su : NULL);
}

/* Features of the batch rows on block b (into cl/sl for every labeled
 * row, cu/su for the unlabeled mini-batch) and the gradient per unit step
 * of the block's actual coefficients (those of the bare cos / sin, so
 * f = sum_j beta_j cos_j), g_j = -(norm^2 / D) sum_i w_i cos_j(x_i): the
 * functional gradient sum_i w_i k(x_i, .) with k estimated by
 * (1 / D) sum_j phi_j(x_i) phi_j(.), phi_j = norm cos_j. Into gc/gs, and
 * the sampling variance of g summed over the block (the checking rule's
 * noise term) into r->var. Team. */
static tsgs_status block_gradient(run_t *r, const tsgs_model *m, long b,
                                  double *gc, double *gs)
{
    const int pair = r->pair;
    tsgs_status st = TSGS_OK;
    if (!r->XL.x) { /* sparse rows */
        const long g0 = b * m->fs.dirs, n = m->fs.dirs;
        const int cached = featcache_covers(r, tsgs__model_dirs(m));
        if (cached)
            tsgs__featcache_fill_team(r->fc, &m->fs, m->cc,
                                      tsgs__model_dirs(m), &r->failed);
        if (cached && r->lrow)
            tsgs__featcache_block_team(r->fc, r->lrow, r->nl, g0, n, r->wb,
                                       r->cl, pair ? r->sl : NULL);
        else if (r->lcache)
            tsgs__sparse_features_team(&m->fs, m->cc, g0, n, &r->XL, r->wb,
                                       r->cl, pair ? r->sl : NULL,
                                       &r->failed);
        else
            tsgs__sparse_features_team(&m->fs, m->cc, g0, n, &r->XLb, r->wb,
                                       r->cl, pair ? r->sl : NULL,
                                       &r->failed);
        if (cached) {
            tsgs__featcache_block_team(r->fc, r->ubatch, r->bu, g0, n, r->wb,
                                       r->cu, pair ? r->su : NULL);
        } else {
            tsgs__sparse_features_team(&m->fs, m->cc, g0, n, &r->XU, r->wb,
                                       r->cu, pair ? r->su : NULL,
                                       &r->failed);
        }
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single copyprivate(st)
#endif
        {
            if (r->failed)
                st = TSGS__NOMEM(r->err);
            else
                block_sums(r, m, gc, gs, &r->var);
        }
        return st;
    }
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    if (tsgs__model_block_directions(m, b, r->Wb, r->Pb))
        st = TSGS__NOMEM(r->err);
    if (st != TSGS_OK)
        return st;
    block_features(r);
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single
#endif
    block_sums(r, m, gc, gs, &r->var);
    return TSGS_OK;
}

/* The gradient sums of block_gradient over the features it computed. */
static void block_sums(const run_t *r, const tsgs_model *m, double *gc,
                       double *gs, double *var)
{
    const long dirs = m->fs.dirs;
    const size_t wb = r->wb;
    const int pair = r->pair;
    const double unit = -m->norm * m->norm / (double)dirs;
    const double nrows = (double)(r->bl + r->bu);
    double v = 0.0;
    for (long j = 0; j < dirs; j++) {
        double sc = 0.0, ss = 0.0, qc = 0.0, qs = 0.0;
        for (size_t i = 0; i < r->bl; i++) {
            size_t row = r->lcache ? r->lidx[i] : i;
            double tc = r->wl[row] * r->cl[row * wb + (size_t)j];
            sc += tc;
            qc += tc * tc;
            if (pair) {
                double ts = r->wl[row] * r->sl[row * wb + (size_t)j];
                ss += ts;
                qs += ts * ts;
            }
        }
        for (size_t i = 0; i < r->bu; i++) {
            double tc = r->wu[i] * r->cu[i * wb + (size_t)j];
            sc += tc;
            qc += tc * tc;
            if (pair) {
                double ts = r->wu[i] * r->su[i * wb + (size_t)j];
                ss += ts;
                qs += ts * ts;
            }
        }
        gc[j] = unit * sc;
        gs[j] = unit * ss;
        /* per-row terms u_i = unit * n * w_i phi_i have mean g; the mean of
         * n of them varies by (E u^2 - g^2) / n */
        double vc = unit * unit * (nrows * qc - sc * sc) / nrows;
        double vs = unit * unit * (nrows * qs - ss * ss) / nrows;
        v += (vc > 0 ? vc : 0) + (vs > 0 ? vs : 0);
    }
    if (var)
        *var = v;
}

/* The step itself, serial part: decay every coefficient by (1 - eta)
 * through the lazy scale (the explicit loop is the tests' reference) and
 * add eta * g to block b's actual coefficients, keeping the increments in
 * dac / das for the labeled cache. */
static void apply_coefficients(run_t *r, tsgs_model *m, long b, long dirs,
                               double eta, const double *gc, const double *gs)
{
    const int pair = r->pair;
    if (r->opt.explicit_decay) {
        long n = tsgs__model_dirs(m);
        for (long g = 0; g < n; g++) {
            m->ac[g] *= 1.0 - eta;
            if (pair)
                m->as[g] *= 1.0 - eta;
        }
        for (size_t i = 0; i < r->nl; i++)
            r->hl[i] *= 1.0 - eta;
    } else {
        m->scale *= 1.0 - eta;
    }
    /* actual coefficient = scale * norm * a, so a += eta g / (scale norm) */
    const double to_a = eta / (m->scale * m->norm);
    for (long j = 0; j < dirs; j++) {
        r->dac[j] = to_a * gc[j];
        r->das[j] = pair ? to_a * gs[j] : 0.0;
        m->ac[b * dirs + j] += r->dac[j];
        if (pair)
            m->as[b * dirs + j] += r->das[j];
    }
}

/* The cached labeled sums kept current with the block's features in
 * cl / sl (O(n_l r); team). */
static void update_labeled_cache(run_t *r, long dirs, const float *cl,
                                 const float *sl, size_t stride)
{
    if (r->lcache)
        weighted_rows(r->nl, dirs, r->dac, r->das, cl, r->pair ? sl : NULL,
                      stride, 1, r->hl);
}

/* The same on one thread (inside a serial section: no worksharing). */
static void update_labeled_cache_serial(run_t *r, long dirs, const float *cl,
                                        const float *sl, size_t stride)
{
    for (size_t i = 0; i < r->nl; i++)
        r->hl[i] += weighted_row(dirs, r->dac, r->das, cl + i * stride,
                                 r->pair ? sl + i * stride : NULL);
}

/* Serial: the lazy scale folded in when it nears double's limits. */
static void fold_scale_if_small(run_t *r, tsgs_model *m)
{
    if (m->scale < r->opt.scale_floor) {
        double s = m->scale;
        tsgs__model_fold_scale(m);
        for (size_t i = 0; i < r->nl; i++)
            r->hl[i] *= s;
    }
}

/* The step (team): apply_coefficients, update_labeled_cache and
 * fold_scale_if_small. */
static void apply_step(run_t *r, tsgs_model *m, long b, long dirs,
                       const float *cl, const float *sl, size_t stride,
                       double eta, const double *gc, const double *gs)
{
#ifdef _OPENMP
#pragma omp single
#endif
    apply_coefficients(r, m, b, dirs, eta, gc, gs);
    update_labeled_cache(r, dirs, cl, sl, stride);
#ifdef _OPENMP
#pragma omp single
#endif
    fold_scale_if_small(r, m);
}

/* The checking rule (CDSG, Algorithm 4 and criteria (8)-(9) of the
 * DSG-reuse paper), on blocks: updating old block k by a step eta must not
 * raise the error bound above that of a fresh block with step gamma,
 *   2 |beta + eta g|^2 + 2 eta^2 V <= |beta|^2 + gamma^2 |g|^2,
 * with beta the block's actual coefficients, g its gradient per unit step
 * and V the gradient's sampling variance. The largest eta <= gamma that
 * satisfies it is the expected line search; it is <= 0 when none does. */
double tsgs__checked_step(double beta2, double beta_g, double g2, double V,
                          double gamma)
{
    double A = 2.0 * g2 + 2.0 * V, B = 4.0 * beta_g;
    double C = beta2 - gamma * gamma * g2;
    if (A <= 0.0)
        return C <= 0.0 ? gamma : 0.0;
    double disc = B * B - 4.0 * A * C;
    if (disc < 0.0)
        return 0.0;
    double lo = (-B - sqrt(disc)) / (2.0 * A);
    double hi = (-B + sqrt(disc)) / (2.0 * A);
    if (lo > gamma)
        return 0.0; /* only steps longer than gamma pass */
    return hi < gamma ? hi : gamma;
}

/* Examines reuse_candidates old blocks: the best one into r->best and its
 * step into r->best_eta (<= 0: none passes), leaving its gradient in gc/gs
 * and its features in bcl/bsl (team). */
static tsgs_status check_candidates(run_t *r, tsgs_model *m, long t,
                                    double gamma)
{
    const long dirs = m->fs.dirs;
    const long K = r->p.reuse_candidates;
    const double k = m->scale * m->norm;
#ifdef _OPENMP
#pragma omp single
#endif
    {
        r->best_eta = -INFINITY;
        r->best = -1;
    }
    for (long c = 0; c < K; c++) {
        long b = (long)tsgs__below(r->p.seed, TSGS__STREAM_CHECK,
                                   ((uint64_t)t << 20) ^ (uint64_t)c,
                                   (uint64_t)m->nblocks);
        tsgs_status st = block_gradient(r, m, b, r->cgc, r->cgs);
        if (st != TSGS_OK)
            return st;
#ifdef _OPENMP
#pragma omp single
#endif
        {
            double beta2 = 0, beta_g = 0, g2 = 0;
            for (long j = 0; j < dirs; j++) {
                double bc = k * m->ac[b * dirs + j];
                beta2 += bc * bc;
                beta_g += bc * r->cgc[j];
                g2 += r->cgc[j] * r->cgc[j];
                if (r->pair) {
                    double bs = k * m->as[b * dirs + j];
                    beta2 += bs * bs;
                    beta_g += bs * r->cgs[j];
                    g2 += r->cgs[j] * r->cgs[j];
                }
            }
            double e = tsgs__checked_step(beta2, beta_g, g2, r->var, gamma);
            if (e > r->best_eta) {
                r->best_eta = e;
                r->best = b;
                memcpy(r->gc, r->cgc, sizeof(double) * (size_t)dirs);
                memcpy(r->gs, r->cgs, sizeof(double) * (size_t)dirs);
                /* keep the winner's features for the labeled-cache
                 * update */
                float *tmp;
                tmp = r->cl; r->cl = r->bcl; r->bcl = tmp;
                tmp = r->sl; r->sl = r->bsl; r->bsl = tmp;
            }
        }
    }
    return TSGS_OK;
}

/* Unless the balance rule sets it, the bias is learned: a step of the
 * (unregularised) objective's gradient in b from the labeled loss alone,
 * sum_i wl_i = C mean l'. The unlabeled loss is left out of it: pushing
 * every unlabeled row away from the boundary through b alone moves them
 * all to one side. */
static void learn_bias(run_t *r, tsgs_model *m, double gamma)
{
    const size_t n = r->lcache ? r->nl : r->bl;
    double g = 0.0;
    for (size_t i = 0; i < n; i++)
        g += r->wl[i];
    m->bias -= gamma * g;
}

/* A progress report at step t of T (the monitor measured when asked). */
static void report_progress(run_t *r, const tsgs_model *m,
                            const tsgs_train_hooks *hooks, long t, long T,
                            int measure)
{
    tsgs_progress pr;
    memset(&pr, 0, sizeof pr);
    pr.iteration = t;
    pr.iterations = T;
    pr.elapsed_s = now_s() - r->t_start;
    /* rows per second of training, test measurements left out */
    double busy = pr.elapsed_s - r->monitor_s;
    pr.rows_per_s = (double)t * (double)(r->bl + r->bu) /
                    (busy > 0 ? busy : 1e-9);
    pr.features = tsgs_model_feature_count(m);
    double t_mon = now_s();
    pr.monitor_accuracy =
        measure ? tsgs__accuracy_on(m, hooks->monitor, r->threads, NULL)
                : -1.0;
    r->monitor_s += now_s() - t_mon;
    hooks->progress(&pr, hooks->user);
}

/* Whether the hooks ask for a progress report, and for a monitor
 * measurement, after step t. */
static int report_due(const tsgs_train_hooks *hooks, long t)
{
    return hooks && hooks->progress && hooks->progress_every > 0 &&
           t % hooks->progress_every == 0;
}

static int measure_due(const tsgs_train_hooks *hooks, long t)
{
    return hooks && hooks->progress && hooks->monitor &&
           hooks->monitor_every > 0 && t % hooks->monitor_every == 0;
}

/* Serial: the block step t writes, into r->blk, and its step into
 * r->blk_eta: a new one while the budget allows (added to the model and
 * its cache now), else an old one, drawn uniformly (UDSG) or by the
 * checking rule (CDSG, when `check`: r->best and r->best_eta), which also
 * reuses before the budget is full when an old block takes the full step.
 * *checked: the checking rule's block, whose gradient and features are at
 * hand. */
static tsgs_status choose_block(run_t *r, tsgs_model *m, long t, int check,
                                int *checked)
{
    const tsgs_params *p = &r->p;
    const double gamma = tsgs__step_size(p, t, r->T);
    long b = -1;
    double eta = gamma;
    int fresh = m->nblocks < r->max_blocks;
    tsgs_status st = TSGS_OK;
    *checked = 0;
    if (check) {
        double e = r->best_eta;
        if (e >= gamma || (!fresh && e > 0.0)) {
            b = r->best;
            eta = e;
            fresh = 0;
            *checked = 1;
        } else if (!fresh) {
            b = -2; /* nothing passes: fall back to a uniform pick */
        }
    } else if (!fresh) {
        b = -2;
    }
    if (fresh) {
        /* The cache takes the new block's directions before its gradient
         * reads them from there. */
        if ((st = tsgs__model_add_block(m, r->err)) == TSGS_OK)
            st = tsgs__model_cache_sync(m, r->err);
        b = m->nblocks - 1;
    } else if (b == -2) {
        b = (long)tsgs__below(p->seed, TSGS__STREAM_REUSE, (uint64_t)t,
                              (uint64_t)m->nblocks);
    }
    r->blk = b;
    r->blk_eta = eta;
    return st;
}

/* Serial: plans step t, its unlabeled rows in XU: the next step's rows to
 * read ahead and, on the fast path, the block the step writes (chosen
 * before the predictions, which see only the blocks before a new one: the
 * same sums as predicting first) and its directions. */
static tsgs_status plan_step(run_t *r, tsgs_model *m, long t)
{
    plan_rows(r, t);
    r->plan_t = t;
    if (!r->fast)
        return TSGS_OK;
    int checked;
    r->view_blocks = m->nblocks;
    tsgs_status st = choose_block(r, m, t, 0, &checked);
    if (st == TSGS_OK &&
        tsgs__model_block_directions(m, r->blk, r->Wb, r->Pb))
        st = TSGS__NOMEM(r->err);
    return st;
}

/* The start of step t (team): planned in the step before, or here (its
 * rows picked and gathered); then the next step's rows, when planned, are
 * gathered without a barrier (the next worksharing loop absorbs them). */
static tsgs_status begin_step(run_t *r, tsgs_model *m, long t)
{
    /* plan_t was written before the barrier that ended the last step and
     * is written next in a serial section after this step's barriers: a
     * stable value for every thread here */
    if (r->plan_t != t) {
        /* rows read ahead in the stretch before, or new ones */
        int have;
#ifdef _OPENMP
#pragma omp single copyprivate(have)
#endif
        have = r->bu == 0 || rows_ahead_in(r, t);
        if (!have)
            fetch_unlabeled_rows(r, m);
        tsgs_status st;
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
        st = plan_step(r, m, t);
        if (st != TSGS_OK)
            return st;
    }
    if (r->next_t == t + 1)
        gather_rows(r, m, r->ubatch_next, &r->XU_next);
    return TSGS_OK;
}

/* Serial, on the master thread (the caller's) at the end of step t, unless
 * the step failed: the bias step (when learned), the hooks, then the next
 * step's plan when its rows were read ahead and the stretch goes on. */
static void after_step(run_t *r, tsgs_model *m, long t, int bias)
{
    const tsgs_train_hooks *hooks = r->hooks;
    if (r->run_st != TSGS_OK)
        return;
    if (bias)
        learn_bias(r, m, tsgs__step_size(&r->p, t, r->T));
    r->t_last = t;
    r->stop = hooks && hooks->should_stop && hooks->should_stop(hooks->user);
    if (!r->stop && t < r->T && report_due(hooks, t) &&
        !measure_due(hooks, t))
        report_progress(r, m, hooks, t, r->T, 0);
    if (!r->stop && t < r->t1 && (r->bu == 0 || rows_ahead_in(r, t + 1)))
        r->run_st = plan_step(r, m, t + 1);
}

/* The end of a step (team): after_step on the master thread, then a
 * barrier; the run's status. */
static tsgs_status end_step(run_t *r, tsgs_model *m, long t, int bias)
{
#ifdef _OPENMP
#pragma omp master
#endif
    after_step(r, m, t, bias);
#ifdef _OPENMP
#pragma omp barrier
#endif
    return r->run_st;
}

/* C* at step t, annealed (the unlabeled loss's weight). */
static double annealed_cstar(const run_t *r, long t)
{
    return r->p.c_star * tsgs__anneal_factor(&r->p, t, r->T);
}

/* The opening of a step on the general and FRS paths (team): step t's
 * step size and annealed C* into *gamma and *cstar, begin_step, and the
 * unlabeled mini-batch's decision values (predict_unlabeled). */
static tsgs_status open_step(run_t *r, tsgs_model *m, long t, lane_t *me,
                             double *gamma, double *cstar)
{
    *gamma = tsgs__step_size(&r->p, t, r->T);
    *cstar = annealed_cstar(r, t);
    tsgs_status st = begin_step(r, m, t);
    if (st == TSGS_OK && r->bu)
        st = predict_unlabeled(r, m, t, me);
    return st;
}

/* One step of FRS3VM: mini-batch SGD on the same objective over one fixed
 * set of random features, every coefficient updated at every step (so a
 * step costs O(B M), the features never change, and the labeled rows'
 * features are computed once). t is 1-based. Team. */
static tsgs_status step_frs(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    const long D = r->frs_dirs;
    const size_t W = (size_t)r->frs_groups * TSGS__LANES;
    double gamma, cstar;
    tsgs_status st = open_step(r, m, t, me, &gamma, &cstar);
    if (st != TSGS_OK)
        return st;
#ifdef _OPENMP
#pragma omp single
#endif
    {
        next_labeled_batch(r, t);
        loss_weights(r, m, cstar);
    }
    /* as in block_gradient: norm^2 / D, the kernel estimate's weight */
    const double unit = -m->norm * m->norm / (double)D;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long j = 0; j < D; j++) {
        double sc = 0.0, ss = 0.0;
        for (size_t i = 0; i < r->bl; i++) {
            size_t row = r->lidx[i];
            sc += r->wl[row] * r->fcl[row * W + (size_t)j];
            if (r->pair)
                ss += r->wl[row] * r->fsl[row * W + (size_t)j];
        }
        for (size_t i = 0; i < r->bu; i++) {
            sc += r->wu[i] * r->cu[i * W + (size_t)j];
            if (r->pair)
                ss += r->wu[i] * r->su[i * W + (size_t)j];
        }
        r->gc[j] = unit * sc;
        r->gs[j] = unit * ss;
    }
    apply_step(r, m, 0, D, r->fcl, r->fsl, W, gamma, r->gc, r->gs);
    return end_step(r, m, t, 0);
}

/* One step of TSG, DSG or CDSG (t is 1-based; team): the general path,
 * for the checking rule and for a labeled mini-batch predicted without the
 * cache. */
static tsgs_status step(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    const tsgs_params *p = &r->p;
    const long dirs = m->fs.dirs;
    double gamma, cstar;
    tsgs_status st = open_step(r, m, t, me, &gamma, &cstar);
    if (st != TSGS_OK)
        return st;
#ifdef _OPENMP
#pragma omp single
#endif
    next_labeled_batch(r, t);
    if (!r->lcache && (st = predict_labeled(r, m, me)) != TSGS_OK)
        return st;
    int check;
#ifdef _OPENMP
#pragma omp single copyprivate(check)
#endif
    {
        loss_weights(r, m, cstar);
        check = p->reuse == TSGS_REUSE_CHECK && m->nblocks > 0;
    }
    if (check && (st = check_candidates(r, m, t, gamma)) != TSGS_OK)
        return st;
    int checked;
#ifdef _OPENMP
#pragma omp single copyprivate(st, checked)
#endif
    st = choose_block(r, m, t, check, &checked);
    if (st != TSGS_OK)
        return st;
    if (!checked &&
        (st = block_gradient(r, m, r->blk, r->gc, r->gs)) != TSGS_OK)
        return st;
    /* the checking rule's winner keeps its features in bcl/bsl */
    apply_step(r, m, r->blk, dirs, checked ? r->bcl : r->cl,
               checked ? r->bsl : r->sl, r->wb, r->blk_eta, r->gc, r->gs);
    return end_step(r, m, t, p->balance != TSGS__BALANCE_HOLD);
}

/* Serial, after the fast path's kernel: the decision values, the loss
 * weights, the block's gradient and the step (the labeled cache too when
 * it is small). */
static tsgs_status fast_serial(run_t *r, tsgs_model *m, long t)
{
    const long dirs = m->fs.dirs;
    const double cstar = annealed_cstar(r, t);
    if (r->bu) {
        tsgs__combine_tiles(r->view_blocks * dirs, r->part, r->bu, r->gu);
        tsgs_status st = finish_unlabeled(r, m, t);
        if (st != TSGS_OK)
            return st;
    }
    next_labeled_batch(r, t);
    loss_weights(r, m, cstar);
    block_sums(r, m, r->gc, r->gs, NULL);
    apply_coefficients(r, m, r->blk, dirs, r->blk_eta, r->gc, r->gs);
    if (!r->big_update) {
        update_labeled_cache_serial(r, dirs, r->cl, r->sl, r->wb);
        fold_scale_if_small(r, m);
    }
    return TSGS_OK;
}

/* One step on the fast path (team): its block and the next step's rows
 * are planned before it, so the block's features and the next rows are
 * computed while the team predicts the mini-batch, and the rest of the
 * step is one serial section: two barriers a step. */
static tsgs_status step_fast(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    tsgs_status st = begin_step(r, m, t);
    if (st != TSGS_OK)
        return st;
    block_features(r);
    tsgs__fview v = tsgs__model_view_blocks(m, r->view_blocks);
    tsgs__eval_tiles_team(&v, r->XU.x, r->bu, r->part, &me->ws, r->gu,
                          &r->failed); /* ends with a barrier */
#ifdef _OPENMP
#pragma omp master
#endif
    r->run_st = fast_serial(r, m, t);
    if (r->big_update) {
#ifdef _OPENMP
#pragma omp barrier
#endif
        if (r->run_st != TSGS_OK)
            return r->run_st;
        update_labeled_cache(r, m->fs.dirs, r->cl, r->sl, r->wb);
#ifdef _OPENMP
#pragma omp master
#endif
        fold_scale_if_small(r, m);
    }
    /* (a failure: end_step's barrier tells every thread) */
    return end_step(r, m, t, r->p.balance != TSGS__BALANCE_HOLD);
}

/* The running threshold lags a model that still moves; the returned model
 * meets the balance exactly on a sample of unlabeled rows. */
#define BALANCE_SAMPLE 8192

static tsgs_status final_balance(run_t *r, tsgs_model *m, tsgs_error *err)
{
    size_t n = r->nu < BALANCE_SAMPLE ? r->nu : BALANCE_SAMPLE;
    tsgs__rows X;
    int bad = tsgs__rows_init(&X, r->ds, &m->scaler, n);
    double *g = malloc(sizeof(double) * n);
    size_t *rows = malloc(sizeof(size_t) * (n ? n : 1));
    tsgs_status st = TSGS_OK;
    if (bad || !g || !rows) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    /* Spread over the whole current pass order: a seeded sample. */
    for (size_t i = 0; i < n; i++)
        rows[i] = r->uidx[i * (r->nu / n)];
    if (tsgs__rows_gather(&X, r->ds, &m->scaler, rows, n)) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    double bias = m->bias;
    m->bias = 0.0;
    st = tsgs__model_decision_rows(m, NULL, &X, r->threads, g, err);
    m->bias = bias;
    if (st != TSGS_OK)
        goto done;
    m->bias = -quantile_threshold(g, n, r->p.balance_ratio);
done:
    tsgs__rows_free(&X);
    free(g);
    free(rows);
    return st;
}

/* Passes over the unlabeled rows of the file, for every stochastic
 * solver: DSG and CDSG, which leave those rows out, run as many steps as
 * TSG would, so one config compares them step for step. With no unlabeled
 * rows, passes over the labeled ones. passes = 0 (the default): one pass,
 * and at least MIN_AUTO_STEPS steps, so that a small set still takes the
 * steps the labeled fit needs (each step sees up to 256 labeled rows: on a
 * few hundred labels that is thousands of epochs) while a large one makes
 * one pass. */
#define MIN_AUTO_STEPS 3000
static long sgd_steps(const tsgs_dataset *ds, const tsgs_params *p)
{
    if (p->iterations > 0)
        return p->iterations;
    size_t nl = tsgs_dataset_labeled_count(ds), nu = ds->n - nl;
    double rows, batch;
    if (nu) {
        rows = (double)nu;
        batch = (double)((size_t)p->batch_unlabeled < nu
                             ? (size_t)p->batch_unlabeled : nu);
    } else {
        rows = (double)nl;
        batch = (double)((size_t)p->batch_labeled < nl
                             ? (size_t)p->batch_labeled : nl);
    }
    double passes = p->passes > 0.0 ? p->passes : 1.0;
    double T = ceil(passes * rows / (batch > 0 ? batch : 1.0));
    if (p->passes <= 0.0 && T < MIN_AUTO_STEPS)
        T = MIN_AUTO_STEPS;
    return T < 1.0 ? 1 : T > 1e15 ? (long)1e15 : (long)T;
}

/* Unlabeled rows the median distance sees besides the labeled ones. */
#define MEDIAN_UNLABELED 1000

/* The first blocks, on which the grid chooses C and sigma and which the
 * supervised start fills: the budget's (max-features), or with no budget
 * the automatic one's. */
static long first_blocks(const tsgs_params *p)
{
    return tsgs__blocks_for(p, tsgs__first_features(p));
}

/* C and sigma, where not given, by the grid CV on the labeled rows that
 * the safe solver runs (model_select.c), on the model's own first
 * features (blocks 0, 1, ... up to the budget): C is the grid's per-row C
 * times n_l (the objective's mean hinge). */
static tsgs_status choose_c_sigma(run_t *r, const tsgs__train_job *job,
                                  tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    tsgs_params *p = &r->p;
    const size_t d = ds->d, nl = r->nl;
    const size_t nu_all = ds->n - nl;
    const size_t nm = nu_all < MEDIAN_UNLABELED ? nu_all : MEDIAN_UNLABELED;
    tsgs__rows XM;
    size_t *rows = malloc(sizeof(size_t) * (nm ? nm : 1));
    tsgs_status st = TSGS_OK;
    if (tsgs__rows_init(&XM, ds, &job->scaler, nm) || !rows) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    size_t iu = 0, seen = 0;
    for (size_t i = 0; i < ds->n && iu < nm; i++)
        /* every (nu_all / nm)-th unlabeled row */
        if (isnan(ds->y[i]) && seen++ == iu * (nu_all / nm))
            rows[iu++] = i;
    if (tsgs__rows_gather(&XM, ds, &job->scaler, rows, iu)) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    double sigma0 = p->sigma;
    if (sigma0 <= 0.0 &&
        (st = tsgs__median_sigma(&r->XL, &XM, d, p->seed, &sigma0, err)) !=
            TSGS_OK)
        goto done;
    tsgs__fspec fs = tsgs__fspec_of(p, d); /* its sigma: the grid's */
    size_t ndirs = (size_t)(first_blocks(p) * fs.dirs);
    size_t D = tsgs__feature_columns(&fs, ndirs);
    tsgs__grid_job g = {&r->XL, r->yl, nl, d, &fs, ndirs, D, sigma0, p->sigma,
                        p->c > 0.0 ? p->c / (double)nl : 0.0, p->seed,
                        tsgs__threads_resolve(p->threads)};
    tsgs__grid_choice choice;
    if ((st = tsgs__select_grid(&g, &choice, err)) != TSGS_OK)
        goto done;
    p->sigma = choice.sigma;
    p->c = choice.c_lib * (double)nl;
done:
    tsgs__rows_free(&XM);
    free(rows);
    return st;
}

/* Feature rows the supervised start may hold (n_l x features floats):
 * 256 MB; and labeled rows, which bound the dual's passes (n_l x features
 * each): with more labels the steps converge on their own. */
#define WARM_MAX_FLOATS ((size_t)1 << 26)
#define WARM_MAX_LABELED 5000

/* The blocks the supervised start fills: the grid's, within the model's
 * room (max_blocks). */
static long start_blocks(const tsgs_params *p, long max_blocks)
{
    long blocks = first_blocks(p);
    return blocks < max_blocks ? blocks : max_blocks;
}

/* Whether the supervised start fits: its feature rows in memory. */
static int warm_start_fits(const run_t *r, const tsgs_params *p, size_t d,
                           long max_blocks)
{
    const tsgs__fspec fs = tsgs__fspec_of(p, d);
    size_t D = tsgs__feature_columns(
        &fs, (size_t)(start_blocks(p, max_blocks) * fs.dirs));
    return r->nl > 0 && r->nl <= WARM_MAX_LABELED && D > 0 &&
           r->nl <= WARM_MAX_FLOATS / D;
}

/* The model starts as the exact SVM on the labeled rows over its first
 * blocks (tsgs__warm_start); the labeled cache gets its sums. */
static tsgs_status start_supervised(run_t *r, tsgs_model *m, long max_blocks,
                                    tsgs_error *err)
{
    const long blocks = start_blocks(&r->p, max_blocks);
    tsgs_status st = tsgs__warm_start(m, blocks, &r->XL, r->yl, r->nl,
                                      r->p.c / (double)r->nl, r->p.seed,
                                      r->threads, err);
    if (st != TSGS_OK || !r->lcache)
        return st;
    tsgs__fview v = tsgs__model_view(m);
    return tsgs__rows_eval_sums(&v, m->cc, &r->XL, r->threads, r->hl, err);
}

/* The run's derived settings (the model records them): C, sigma, C*, the
 * balance ratio and the feature budget; the mini-batch sizes, the steps T
 * and the blocks the budget allows. */
static tsgs_status resolve_settings(run_t *r, const tsgs__train_job *job,
                                    long *T, long *max_blocks,
                                    tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    tsgs_params *p = &r->p;
    tsgs_status st;
    if (p->max_features < 0) /* all rows */
        p->max_features = tsgs__default_features(p, ds->n);
    if ((p->c <= 0.0 || p->sigma <= 0.0) &&
        (st = choose_c_sigma(r, job, err)) != TSGS_OK)
        return st;
    if (p->eta <= 0.0)
        p->eta = p->c > 2.0 ? p->c : 2.0;
    if (p->c_star < 0.0)
        p->c_star = r->nu ? p->c * (double)r->nl / (double)r->nu : 0.0;
    if (p->balance_ratio < 0.0)
        p->balance_ratio = (double)job->n_pos / (double)r->nl;
    /* auto: centred unlabeled weights, the bias learned. The quantile
     * rule, tuned C and sigma given, cost 10-15 points on ijcnn1 (9.5%
     * positive) and susy; with no rule at all tsg put every row in one
     * class on the 50-d Gaussians (README, "The stochastic solvers'
     * defaults"). */
    if (r->nu == 0)
        p->balance = 0;
    else if (p->balance < 0)
        p->balance = TSGS__BALANCE_CENTRED;
    r->bl = (size_t)p->batch_labeled < r->nl ? (size_t)p->batch_labeled
                                             : r->nl;
    r->bu = (size_t)p->batch_unlabeled < r->nu ? (size_t)p->batch_unlabeled
                                               : r->nu;
    *T = sgd_steps(ds, p);
    if (p->step == TSGS_STEP_THEORY && tsgs__step_size(p, 1, *T) >= 1.0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "theta = %g: the theory step theta * T^-3/4 = %g "
                          "for T = %ld must be below 1",
                          p->theta, tsgs__step_size(p, 1, *T), *T);
    *max_blocks = p->max_features > 0
                      ? tsgs__blocks_for(p, p->max_features)
                      : *T;
    if (*max_blocks < 1)
        *max_blocks = 1;
    if (p->warm_start < 0)
        p->warm_start = warm_start_fits(r, p, ds->d, *max_blocks);
    if (p->solver == TSGS_SOLVER_CDSG)
        p->reuse = TSGS_REUSE_CHECK;
    if (p->solver == TSGS_SOLVER_FRS && p->max_features == 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "max-features = 0: frs trains one fixed set of "
                          "features and needs a budget");
    r->threads = tsgs__threads_resolve(p->threads);
    r->mean_ema = 0.0;
    r->frs = p->solver == TSGS_SOLVER_FRS;
    return TSGS_OK;
}

/* Sparse rows: every unlabeled row's features (and, with the labeled
 * cache, every labeled row's: their block's features are needed at every
 * step), in what the column cache leaves of the cache budget, for as many
 * directions as the run can make; none when they do not fit. */
static tsgs_status start_featcache(run_t *r, const tsgs_model *m, long T,
                                   long max_blocks, tsgs_error *err)
{
    long blocks = T + start_blocks(&r->p, max_blocks);
    blocks = blocks < max_blocks ? blocks : max_blocks;
    double left = r->p.cache_mb * 1048576.0;
    if (m->cc)
        left -= (double)m->cc->ncols * (double)m->cc->stride * sizeof(float);
    const size_t nl = r->lcache ? r->nl : 0, n = r->nu + nl;
    if (tsgs__featcache_bytes(n, blocks * m->fs.dirs, r->pair) > left)
        return TSGS_OK;
    size_t *rows = malloc(sizeof(size_t) * (n ? n : 1));
    if (!rows)
        return TSGS__NOMEM(err);
    memcpy(rows, r->uidx, sizeof(size_t) * r->nu);
    for (size_t i = 0, k = r->nu; i < r->ds->n && k < n; i++)
        if (!isnan(r->ds->y[i])) /* XL's order (gather_labeled) */
            rows[k++] = i;
    tsgs_status st = tsgs__featcache_new(r->ds, &m->scaler, rows, n,
                                         blocks * m->fs.dirs, r->pair, left,
                                         &r->fc, err);
    if (st == TSGS_OK && r->fc && nl) {
        r->lrow = malloc(sizeof(size_t) * nl);
        if (!r->lrow)
            st = TSGS__NOMEM(err);
        else
            memcpy(r->lrow, rows + r->nu, sizeof(size_t) * nl);
    }
    free(rows);
    return st;
}

/* The empty model (FRS: all its fixed features, cached), the labeled
 * cache decision and the run's buffers. */
static tsgs_status start_model(run_t *r, tsgs__train_job *job, long T,
                               long max_blocks, tsgs_model **out,
                               tsgs_error *err)
{
    tsgs_model *m = NULL;
    tsgs_status st = tsgs__model_new(&r->p, job->ds->d,
                                     r->frs || max_blocks < T ? max_blocks
                                                              : T,
                                     &m, err);
    if (st != TSGS_OK)
        return st;
    m->label_neg = job->label_neg;
    m->label_pos = job->label_pos;
    m->scaler = job->scaler; /* the model owns it from here */
    memset(&job->scaler, 0, sizeof job->scaler);
    if (!r->XL.x) {
        /* sparse rows: the cache budget goes to the directions of their
         * most frequent columns instead of d-wide panels */
        m->cache_enabled = 0;
        long most = (max_blocks < T ? max_blocks : T) * m->fs.dirs;
        if ((st = tsgs__colcache_new(job->ds, most,
                                     r->p.cache_mb * 1048576.0, &m->cc,
                                     err)) != TSGS_OK)
            goto fail;
    }
    if (r->frs) {
        /* all features from the start, cached whatever cache-mb says: FRS
         * reads every one of them at every step */
        for (long b = 0; b < max_blocks; b++)
            if ((st = tsgs__model_add_block(m, err)) != TSGS_OK)
                goto fail;
        m->cache_enabled = 1;
        if ((st = tsgs__model_cache_sync(m, err)) != TSGS_OK)
            goto fail;
        r->frs_dirs = m->nblocks * m->fs.dirs;
        r->frs_groups = (r->frs_dirs + TSGS__LANES - 1) / TSGS__LANES;
    }
    /* Cache the labeled sums when keeping them current (n_l x r per step)
     * costs less than predicting the labeled mini-batch (B_l x M). */
    r->lcache = r->frs || (r->opt.labeled_cache >= 0
                               ? r->opt.labeled_cache
                               : (double)r->nl * (double)m->fs.dirs <=
                                     (double)r->bl * (double)max_blocks *
                                         (double)m->fs.dirs);
    if ((st = run_setup(r, m, max_blocks, err)) != TSGS_OK)
        goto fail;
    if (!r->XL.x && !r->frs && (r->bu || r->lcache) &&
        (st = start_featcache(r, m, T, max_blocks, err)) != TSGS_OK)
        goto fail;
    *out = m;
    return TSGS_OK;
fail:
    tsgs_model_free(m);
    return st;
}

/* Steps t0 .. t1 by the team (team), until a step fails (r->run_st) or
 * the hooks ask to stop (r->stop); r->t_last gets the last step run. The
 * hooks are called on the calling thread (the team's master), as progress
 * reports without a monitor measurement: the measurement, which has a
 * team of its own, comes between two such stretches. */
static void run_stretch(run_t *r, tsgs_model *m, long t0, long t1)
{
    lane_t me;
    /* without it, the kernel reports a failure if it needs the scratch */
    tsgs__kernel_ws_init(&me.ws, r->d);
    for (long t = t0; t <= t1; t++) {
        tsgs_status st = r->fast  ? step_fast(r, m, t, &me)
                         : r->frs ? step_frs(r, m, t, &me)
                                  : step(r, m, t, &me);
        /* st and r->stop: the same on every thread after the step's last
         * barrier */
        if (st != TSGS_OK) {
#ifdef _OPENMP
#pragma omp master
#endif
            r->run_st = st;
            break;
        }
        if (r->stop)
            break;
    }
    tsgs__kernel_ws_free(&me.ws);
}

/* Steps 1 .. T (or until the hooks ask to stop: *t_done gets the steps
 * run), with progress reports and monitor measurements as asked; the last
 * report is the caller's, once the model is final. One parallel region
 * per stretch of steps between two monitor measurements (one per run
 * without a monitor). */
static tsgs_status run_steps(run_t *r, tsgs_model *m,
                             const tsgs_train_hooks *hooks, long T,
                             long max_blocks, long *t_done, int *stopped,
                             tsgs_error *err)
{
    r->t_start = now_s();
    r->monitor_s = 0.0;
    r->err = err;
    r->hooks = hooks;
    r->T = T;
    r->max_blocks = max_blocks;
    r->stop = 0;
    r->run_st = TSGS_OK;
    r->failed = 0;
    r->plan_t = r->next_t = 0;
    /* (dense rows only: the fast path plans a block's d-wide panel) */
    r->fast = !r->frs && r->lcache && r->p.reuse != TSGS_REUSE_CHECK &&
              r->XL.x;
    /* the labeled cache's update (n_l x r) on the team when it is large */
    r->big_update = (double)r->nl * (double)m->fs.dirs > 65536.0;
    *stopped = 0;
    const long every = measure_due(hooks, 0) ? hooks->monitor_every : 0;
    for (long t = 1; t <= T;) {
        long last = every ? (t + every - 1) / every * every : T;
        r->t1 = last = last > T ? T : last;
#ifdef _OPENMP
#pragma omp parallel num_threads(r->threads) if (r->threads > 1)
#endif
        run_stretch(r, m, t, last);
        if (r->run_st != TSGS_OK)
            return r->run_st;
        if (r->stop) {
            *stopped = 1;
            *t_done = r->t_last;
            return TSGS_OK;
        }
        if (last < T) /* a measurement is due after it */
            report_progress(r, m, hooks, last, T, 1);
        t = last + 1;
    }
    *t_done = T;
    return TSGS_OK;
}

static tsgs_status sgd_train(tsgs__train_job *job, tsgs_model **out,
                             int *stopped_early, tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    run_t r;
    memset(&r, 0, sizeof r);
    r.ds = ds;
    r.p = job->p;
    r.opt = job->opt;
    r.d = ds->d;
    r.nl = tsgs_dataset_labeled_count(ds);
    const int supervised = r.p.solver == TSGS_SOLVER_DSG ||
                           r.p.solver == TSGS_SOLVER_CDSG;
    r.nu = supervised ? 0 : ds->n - r.nl; /* DSG leaves them out */
    long T = 0, max_blocks = 0, t_done = 0;
    int stopped = 0;
    tsgs_model *m = NULL;
    tsgs_status st = gather_labeled(&r, job, err);
    if (st == TSGS_OK)
        st = resolve_settings(&r, job, &T, &max_blocks, err);
    if (st != TSGS_OK) {
        run_free(&r);
        return st;
    }
    if ((st = start_model(&r, job, T, max_blocks, &m, err)) != TSGS_OK)
        goto fail;
    if (r.p.warm_start && (st = start_supervised(&r, m, max_blocks, err)))
        goto fail;
    const tsgs_params *p = &r.p;
    tsgs__binding *pinned = tsgs__bind_threads(
        r.threads, p->bind, job->hooks ? job->hooks->warn : NULL,
        job->hooks ? job->hooks->user : NULL);
    /* Every thread reads random rows: spread their pages over the NUMA
     * nodes the threads run on (a no-op on one node). They are the
     * caller's: moved only when the caller asked for a binding. */
    if (ds->x && (p->bind == TSGS_BIND_COMPACT || p->bind == TSGS_BIND_SCATTER))
        tsgs__place_interleaved(ds->x, ds->n * ds->d * sizeof(float),
                                r.threads, p->bind);
    st = run_steps(&r, m, job->hooks, T, max_blocks, &t_done, &stopped, err);
    tsgs__restore_binding(pinned); /* the caller's threads as they were */
    if (st != TSGS_OK)
        goto fail;
    if ((st = tsgs__model_cache_sync(m, err)) != TSGS_OK)
        goto fail;
    if (m->panel)
        tsgs__place_interleaved(m->panel, sizeof(float) * m->d *
                                              (size_t)m->cap_cached_dirs,
                                r.threads, p->bind);
    if (p->balance == TSGS__BALANCE_HOLD &&
        (st = final_balance(&r, m, err)) != TSGS_OK)
        goto fail;
    if (job->hooks && job->hooks->progress)
        report_progress(&r, m, job->hooks, t_done, T,
                        job->hooks->monitor != NULL);
    r.p.iterations = T; /* the model records the steps it was planned for */
    m->params = r.p;
    run_free(&r);
    if (stopped_early)
        *stopped_early = stopped;
    *out = m;
    return TSGS_OK;
fail:
    run_free(&r);
    tsgs_model_free(m);
    return st;
}

const tsgs__solver tsgs__solver_sgd = {sgd_train, sgd_steps};
