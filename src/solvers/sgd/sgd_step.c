/* One step of the stochastic solvers (sgd.c sets a run up and runs its
 * steps).
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
#include "solvers/sgd/sgd_step.h"
#include "common/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The decision value below which a share (1 - ratio) of v lies: the
 * midpoint of the two order statistics around it (v is reordered). */
double tsgs__sgd_quantile(double *v, size_t n, double ratio)
{
    double pos = (1.0 - ratio) * (double)n;
    size_t lo = pos < 1.0 ? 0 : (size_t)pos - 1;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double a = tsgs__select_kth(v, n, lo);
    double b = tsgs__select_kth(v, n, hi);
    return 0.5 * (a + b);
}

/* A new random order of the unlabeled rows for pass `epoch` (team). */
void tsgs__sgd_shuffle_pass(run_t *r)
{
    const tsgs__shuffle_key k = {r->p.seed, TSGS__STREAM_EPOCH,
                                 (uint64_t)r->unlabeled.pass << 40};
    tsgs__shuffle_team(r->unlabeled.order, r->unlabeled.n, &k,
                       r->unlabeled.shuffle_draws);
}

void tsgs__held_batch(run_t *r, const size_t *rows)
{
    if (!r->ds->held || !r->ahead.held_batches)
        return;
    size_t *slot = r->ahead.held_batches +
                   (size_t)(r->ahead.batches_fetched % TSGS__HELD_BATCHES) *
                       r->unlabeled.batch_size;
    if (r->ahead.batches_fetched >= TSGS__HELD_BATCHES)
        tsgs__held_release(r->ds, slot, r->unlabeled.batch_size);
    memcpy(slot, rows, sizeof(size_t) * r->unlabeled.batch_size);
    r->ahead.batches_fetched++;
    if (tsgs__held_fetch(r->ds, rows, r->unlabeled.batch_size, 0))
        r->step.failed = 1;
}

void tsgs__held_batch_end(run_t *r)
{
    if (!r->ds || !r->ds->held || !r->ahead.held_batches)
        return;
    long held = r->ahead.batches_fetched < TSGS__HELD_BATCHES
                    ? r->ahead.batches_fetched
                    : TSGS__HELD_BATCHES;
    for (long k = 0; k < held; k++)
        tsgs__held_release(r->ds,
                           r->ahead.held_batches +
                               (size_t)((r->ahead.batches_fetched - 1 - k) %
                                        TSGS__HELD_BATCHES) *
                                   r->unlabeled.batch_size,
                           r->unlabeled.batch_size);
    free(r->ahead.held_batches);
    r->ahead.held_batches = NULL;
    r->ahead.batches_fetched = 0;
}

/* Rows of the pass order from position unlabeled.pass_position into rows[from
 * ..), up to a whole mini-batch or the end of the pass; returns the rows
 * filled. */
static size_t take_rows(run_t *r, size_t *rows, size_t from)
{
    size_t want = r->unlabeled.batch_size - from,
           left = r->unlabeled.n - r->unlabeled.pass_position;
    size_t k = want < left ? want : left;
    /* one copy: a loop through r->unlabeled.pass_position made the misses on
     * unlabeled.order wait for each other (4-5 us a step on 5M rows) */
    memcpy(rows + from, r->unlabeled.order + r->unlabeled.pass_position,
           sizeof(size_t) * k);
    r->unlabeled.pass_position += k;
    return from + k;
}

/* The rows of the next unlabeled mini-batch into `rows` (team); a pass
 * that ends inside it is followed by a new shuffle. */
static void pick_unlabeled_rows(run_t *r, size_t *rows)
{
    size_t got;
#ifdef _OPENMP
#pragma omp single copyprivate(got)
#endif
    {
        got = take_rows(r, rows, 0);
        if (got == r->unlabeled.batch_size)
            tsgs__held_batch(r, rows);
    }
    if (got == r->unlabeled.batch_size)
        return;
#ifdef _OPENMP
#pragma omp single
#endif
    {
        r->unlabeled.pass++;
        r->unlabeled.pass_position = 0;
    }
    tsgs__sgd_shuffle_pass(r);
#ifdef _OPENMP
#pragma omp single
#endif
    {
        take_rows(r, rows, got);
        tsgs__held_batch(r, rows);
    }
}

/* Scaled copies of the mini-batch's rows (team, no barrier): each is a
 * cache miss on a large set. */
static void gather_rows(run_t *r, const tsgs_model *m,
                        const size_t *rows, tsgs__rows *X)
{
    if (r->unlabeled.feature_cache)
        return; /* their features are cached: the rows are not read */
    tsgs__rows_gather_team(X, r->ds, &m->scaler, rows, r->unlabeled.batch_size,
                           &r->step.failed);
}

/* The team's size where the caller runs (1 outside a parallel region). */
static int team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* Whether the rows read ahead are gathered by the threads that wait out
 * the fast path's serial section (read_rows_ahead) rather than by the
 * team beside the kernel: with a team, on the fast path. The same answer
 * on every thread of a team. */
static int waiters_read_rows(const run_t *r)
{
    return r->settings.fast && team_size() > 1;
}

/* The rows after the ones taken (pass positions unlabeled.pass_position ..
 * unlabeled.pass_position + unlabeled.batch_size, within the pass), to ask the
 * memory for a step before their gather; none when the rows are not read
 * (sparse rows, or their features cached). */
static tsgs__rows_ahead rows_after(const run_t *r)
{
    const size_t left = r->unlabeled.n - r->unlabeled.pass_position;
    tsgs__rows_ahead a = {
        r->unlabeled.feature_cache ? NULL : r->ds->x,
        r->unlabeled.order + r->unlabeled.pass_position,
        left < r->unlabeled.batch_size ? left : r->unlabeled.batch_size, r->d,
        r->ahead.master_rows};
    return a;
}

/* Serial, as step t is planned with its rows in unlabeled.batch_rows: the rows
 * of step t + 1 are taken now when they lie in the current pass (the same rows
 * the step would take), so that they are gathered while the team predicts step
 * t (or, see waiters_read_rows, in step t's serial section). */
static void plan_rows(run_t *r, long t)
{
    r->ahead.step = 0;
    if (r->unlabeled.batch_size && t < r->T &&
        r->unlabeled.n - r->unlabeled.pass_position >=
            r->unlabeled.batch_size) {
        take_rows(r, r->ahead.batch, 0);
        tsgs__held_batch(r, r->ahead.batch);
        r->ahead.step = t + 1;
    }
    /* Ask for the rows after them now: their cache misses then overlap a
     * whole step's work instead of stalling the gather (on one thread,
     * nothing else hides them; without it the gather took 4x as long).
     * A team on the fast path asks in its kernel instead (step_fast). */
    if (!waiters_read_rows(r)) {
        tsgs__rows_ahead a = rows_after(r);
        tsgs__rows_prefetch(&a, 0, a.n);
    }
}

/* What the threads that wait out step t's serial section read ahead:
 * step t + 1's rows (gathered into ahead.batch_rows). Taken before the kernel's
 * barrier, since the serial section changes the fields it comes from. */
typedef struct {
    tsgs__rows dst;      /* ahead.batch_rows's storage */
    const size_t *idx;   /* step t + 1's rows */
    size_t n;            /* 0: none read ahead */
} rows_ahead_job;

static rows_ahead_job rows_ahead_of(const run_t *r, long t)
{
    rows_ahead_job j = {r->ahead.batch_rows, r->ahead.batch,
                        r->ahead.step == t + 1 ? r->unlabeled.batch_size : 0};
    return j;
}

/* Rows per chunk of a worker's share of the rows read ahead: the unit the
 * master may take over (read_rows_left). */
#define GATHER_CHUNK 16

/* The chunks of worker w's share (of W) of job j, and the rows of its
 * chunk c. */
static size_t share_chunks(const rows_ahead_job *j, size_t w, size_t W)
{
    size_t n = j->n * (w + 1) / W - j->n * w / W;
    return (n + GATHER_CHUNK - 1) / GATHER_CHUNK;
}

/* Gathers chunk c of worker w's share; returns its rows. */
static size_t gather_chunk(const run_t *r, const tsgs_model *m,
                           const rows_ahead_job *j, size_t w, size_t W,
                           size_t c)
{
    size_t lo = j->n * w / W + c * GATHER_CHUNK, hi = j->n * (w + 1) / W;
    if (lo + GATHER_CHUNK < hi)
        hi = lo + GATHER_CHUNK;
    tsgs__rows dst = j->dst; /* the same storage: rows lo .. hi of it */
    tsgs__rows_put_dense(&dst, r->ds, &m->scaler, j->idx, lo, hi);
    return hi - lo;
}

/* Takes the next chunk of worker w's share: whether one was left. The
 * worker takes its chunks from the front, the master from the back; one
 * count of both keeps them apart. */
static int take_chunk(run_t *r, size_t w, size_t nch)
{
    int taken;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    taken = r->ahead.chunks_taken[w]++;
    return (size_t)taken < nch;
}

/* A waiting thread's share of job j: worker w of W (the team but its
 * master) gathers its share of step t + 1's rows, the share its kernel
 * tasks asked the memory for a step before (the kernel splits the rows
 * ahead over the same workers the same way: the lines and the page
 * translations are then in this core's caches), chunk by chunk from the
 * front while the master has not taken them. */
static void read_rows_ahead(run_t *r, const tsgs_model *m,
                            const rows_ahead_job *j, size_t w, size_t W)
{
    const size_t nch = share_chunks(j, w, W);
    for (size_t c = 0; take_chunk(r, w, nch); c++)
        gather_chunk(r, m, j, w, W, c);
}

/* The master, its serial section done while rows are still to gather:
 * it takes chunks from the back of each worker's share, the last
 * worker's first, so that what it takes is about the tail of the rows
 * that it asked the memory for in its kernel (as many as it took in the
 * step before: r->ahead.master_rows). On 2 threads the worker's gather (10-14
 * us a step) outlasts the section (5-6 us). */
static void read_rows_left(run_t *r, const tsgs_model *m,
                           const rows_ahead_job *j, size_t W)
{
    size_t rows = 0;
    for (size_t w = W; w-- > 0;) {
        const size_t nch = share_chunks(j, w, W);
        for (size_t b = 0; take_chunk(r, w, nch); b++)
            rows += gather_chunk(r, m, j, w, W, nch - 1 - b);
    }
    r->ahead.master_rows = rows;
}

/* Serial: unlabeled.batch_rows takes step t's rows, read ahead; 0 when there
 * are none. */
static int rows_ahead_in(run_t *r, long t)
{
    if (r->ahead.step != t)
        return 0;
    tsgs__rows x = r->unlabeled.batch_rows;
    r->unlabeled.batch_rows = r->ahead.batch_rows;
    r->unlabeled.batch_rows.n =
        r->unlabeled
            .batch_size; /* a whole batch (read_rows_ahead leaves n alone) */
    r->ahead.batch_rows = x;
    size_t *b = r->unlabeled.batch;
    r->unlabeled.batch = r->ahead.batch;
    r->ahead.batch = b;
    return 1;
}

/* The next unlabeled mini-batch's rows picked and gathered into
 * unlabeled.batch_rows (team), where they were not read ahead. */
static void fetch_unlabeled_rows(run_t *r, const tsgs_model *m)
{
    pick_unlabeled_rows(r, r->unlabeled.batch);
    gather_rows(r, m, r->unlabeled.batch, &r->unlabeled.batch_rows);
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* Picks the labeled mini-batch of step t: the first labeled.batch_size entries
 * of labeled.order after a partial shuffle (all rows when labeled.batch_size ==
 * labeled.n). */
static void next_labeled_batch(run_t *r, long t)
{
    if (r->labeled.batch_size == r->labeled.n)
        return;
    for (size_t i = 0; i < r->labeled.batch_size; i++) {
        size_t j =
            i + (size_t)tsgs__below(r->p.seed, TSGS__STREAM_LABELED,
                                    ((uint64_t)t << 24) ^ i, r->labeled.n - i);
        size_t tmp = r->labeled.order[i];
        r->labeled.order[i] = r->labeled.order[j];
        r->labeled.order[j] = tmp;
    }
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
    weighted_rows(n, r->frs.dirs, m->ac, m->as, cv, sv,
                  (size_t)r->frs.groups * TSGS__LANES, 0, out);
}

/* What the team's kernels left in r->failed (read by one thread after
 * their barrier): TSGS_ERR_STOPPED when r->halt cut them (the step is
 * abandoned: no message, tsgs__sgd_step), else out of memory. */
static tsgs_status failed_status(run_t *r)
{
    return r->step.failed == 2 ? TSGS_ERR_STOPPED : TSGS__NOMEM(r->step.err);
}

/* The kernel's raw sums of n rows as decision values (the lazy scale and
 * the feature normalisation applied), or failed_status when the team
 * could not make them. One thread calls it. */
static tsgs_status scale_sums(run_t *r, const tsgs_model *m, double *g,
                              size_t n)
{
    if (r->step.failed)
        return failed_status(r);
    const double k = m->scale * m->norm;
    for (size_t i = 0; i < n; i++)
        g[i] *= k;
    return TSGS_OK;
}

/* One thread, after the kernel: the decision values of the unlabeled
 * mini-batch (unlabeled.decision, without bias) scaled, and the balance bias
 * from them. */
static tsgs_status finish_unlabeled(run_t *r, tsgs_model *m, long t)
{
    const tsgs_params *p = &r->p;
    tsgs_status st =
        scale_sums(r, m, r->unlabeled.decision, r->unlabeled.batch_size);
    if (st == TSGS_OK && p->balance == TSGS__BALANCE_HOLD) {
        /* Hold the share of unlabeled rows predicted positive to the class
         * ratio: the bias puts the (1 - ratio) quantile of the mini-batch's
         * decision values at 0. A running mean over recent mini-batches
         * tracks the model's drift. (Holding the mean decision value
         * instead, as TSVMs do, lets a few large values drag the
         * boundary.) */
        memcpy(r->unlabeled.sorted_decisions, r->unlabeled.decision,
               sizeof(double) * r->unlabeled.batch_size);
        double q =
            tsgs__sgd_quantile(r->unlabeled.sorted_decisions,
                               r->unlabeled.batch_size, p->balance_ratio);
        double rho = 1.0 / (double)t > 0.1 ? 1.0 / (double)t : 0.1;
        r->unlabeled.balance_threshold =
            (1.0 - rho) * r->unlabeled.balance_threshold + rho * q;
        m->bias = -r->unlabeled.balance_threshold;
    }
    return st;
}

/* Whether the unlabeled rows' feature cache holds directions [0, ndirs):
 * the same answer on every thread (the model's blocks change in serial
 * sections only). */
static int featcache_covers(const run_t *r, long ndirs)
{
    return r->unlabeled.feature_cache &&
           ndirs <= r->unlabeled.feature_cache->cap;
}

/* Decision values of the unlabeled mini-batch with the model so far
 * (team): finish_unlabeled's. */
static tsgs_status predict_unlabeled(run_t *r, tsgs_model *m, long t,
                                     lane_t *me)
{
    if (r->frs.on) {
        /* FRS: the batch's features over every direction are needed for
         * the gradient anyway; the decision values are their sums. */
        tsgs__eval_features_team(
            r->d, m->panel, m->phase, r->frs.groups, r->unlabeled.batch_rows.x,
            r->unlabeled.batch_size, r->unlabeled.block_cos,
            r->settings.cos_sin ? r->unlabeled.block_sin : NULL);
#ifdef _OPENMP
#pragma omp barrier
#endif
        feature_sums(r, m, r->unlabeled.block_cos, r->unlabeled.block_sin,
                     r->unlabeled.batch_size, r->unlabeled.decision);
    } else if (featcache_covers(r, tsgs__model_dirs(m))) {
        tsgs__fview v = tsgs__model_view(m);
        tsgs__featcache_fill_team(r->unlabeled.feature_cache, &m->fs, m->cc,
                                  v.ndirs, r->halt, &r->step.failed);
        /* (filled: written before the fill's last barrier; a cut fill
         * leaves the sums to finish_unlabeled's failure) */
        if (r->unlabeled.feature_cache->filled >= v.ndirs)
            tsgs__featcache_sums_team(
                r->unlabeled.feature_cache, &v, r->unlabeled.batch,
                r->unlabeled.batch_size, r->unlabeled.decision);
    } else {
        tsgs__fview v = tsgs__model_view(m);
        /* split over processes (dense rows): this one's share */
        tsgs__rows X = r->unlabeled.batch_rows;
        size_t lo = 0, hi = r->unlabeled.batch_size;
        if (X.x && r->opt.split) {
            tsgs__split_range(r->opt.split, r->unlabeled.batch_size, &lo, &hi);
            X.x += lo * r->d;
            X.n = hi - lo;
        }
        tsgs__rows_eval_sums_team(&v, m->cc, &X, r->step.partial_sums, &me->ws,
                                  r->unlabeled.decision + lo, r->halt,
                                  &r->step.failed);
    }
    tsgs_status st;
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    {
        const int own = !r->frs.on &&
                        !featcache_covers(r, tsgs__model_dirs(m)) &&
                        r->unlabeled.batch_rows.x;
        r->step.failed =
            tsgs__split_gather(r->opt.split, r->unlabeled.decision,
                               r->unlabeled.batch_size, own, r->step.failed);
        st = finish_unlabeled(r, m, t);
    }
    return st;
}

/* Without the cache (many labeled rows): the labeled mini-batch's rows and
 * their decision values, through the same kernel as the unlabeled ones
 * (team). */
static tsgs_status predict_labeled(run_t *r, const tsgs_model *m,
                                   lane_t *me)
{
    if (r->labeled.rows.x) {
        /* each thread copies its rows; the single's barrier then waits
         * for all of them, and one thread sets the count (shared) */
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (size_t i = 0; i < r->labeled.batch_size; i++)
            memcpy(r->labeled.batch_rows.x + i * r->d,
                   r->labeled.rows.x + r->labeled.order[i] * r->d,
                   sizeof(float) * r->d);
#ifdef _OPENMP
#pragma omp single
#endif
        r->labeled.batch_rows.n = r->labeled.batch_size;
    } else {
#ifdef _OPENMP
#pragma omp single
#endif
        if (tsgs__rows_copy(&r->labeled.batch_rows, &r->labeled.rows,
                            r->labeled.order, r->labeled.batch_size))
            r->step.failed = 1;
    }
    tsgs__fview v = tsgs__model_view(m);
    tsgs__rows_eval_sums_team(
        &v, m->cc, &r->labeled.batch_rows, r->step.partial_sums, &me->ws,
        r->labeled.batch_decision, r->halt, &r->step.failed);
    tsgs_status st = TSGS_OK;
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    st = scale_sums(r, m, r->labeled.batch_decision, r->labeled.batch_size);
    return st;
}

/* Loss derivatives, weighted as the objective's mini-batch means. Rows
 * outside the labeled mini-batch weigh 0. The labeled rows' and the
 * unlabeled rows' apart (a split step makes them on different threads). */
static void labeled_weights(run_t *r, const tsgs_model *m)
{
    const tsgs_params *p = &r->p;
    const double k = m->scale * m->norm;
    if (r->settings.labeled_cache) {
        memset(r->labeled.loss_weight, 0, sizeof(double) * r->labeled.n);
        for (size_t i = 0; i < r->labeled.batch_size; i++) {
            size_t row = r->labeled.order[i];
            double f = k * r->labeled.sums[row] + m->bias;
            r->labeled.loss_weight[row] =
                p->c / (double)r->labeled.batch_size *
                tsgs__hinge_grad(f, r->labeled.y[row]);
            if (r->labeled.class_weight)
                r->labeled.loss_weight[row] *= r->labeled.class_weight[row];
        }
    } else {
        /* weights by batch position: labeled.loss_weight[i] for the row
         * labeled.order[i] */
        for (size_t i = 0; i < r->labeled.batch_size; i++) {
            double f = r->labeled.batch_decision[i] + m->bias;
            r->labeled.loss_weight[i] =
                p->c / (double)r->labeled.batch_size *
                tsgs__hinge_grad(f, r->labeled.y[r->labeled.order[i]]);
            if (r->labeled.class_weight)
                r->labeled.loss_weight[i] *=
                    r->labeled.class_weight[r->labeled.order[i]];
        }
    }
}

static void unlabeled_weights(run_t *r, const tsgs_model *m, double cstar)
{
    const tsgs_params *p = &r->p;
    tsgs__uloss_grads(p->uloss, p->ramp_s, r->unlabeled.decision, m->bias,
                      cstar / (double)r->unlabeled.batch_size,
                      r->unlabeled.batch_size, r->unlabeled.loss_weight);
    if (p->balance == TSGS__BALANCE_CENTRED && r->unlabeled.batch_size > 0) {
        /* The unlabeled loss pushes each row away from the boundary; the
         * part of that push common to the whole mini-batch moves every
         * row the same way, towards one class for all (the collapse S3VMs
         * guard against with a balance constraint). Centred weights drop
         * it: the loss separates rows, it cannot shift them all. */
        double mean = 0.0;
        for (size_t i = 0; i < r->unlabeled.batch_size; i++)
            mean += r->unlabeled.loss_weight[i];
        mean /= (double)r->unlabeled.batch_size;
        for (size_t i = 0; i < r->unlabeled.batch_size; i++)
            r->unlabeled.loss_weight[i] -= mean;
    }
}

static void loss_weights(run_t *r, const tsgs_model *m, double cstar)
{
    labeled_weights(r, m);
    unlabeled_weights(r, m, cstar);
}

static void block_sums(const run_t *r, const tsgs_model *m, double *gc,
                       double *gs, double *var);

/* Features of the labeled rows (every one with the cache, else the
 * mini-batch's) and of the unlabeled mini-batch on the block whose
 * directions are in Wb / Pb (team, no barrier). */
static void block_features(run_t *r)
{
    const int pair = r->settings.cos_sin;
    if (r->settings.labeled_cache)
        tsgs__eval_features_team(
            r->d, r->block.panel, r->block.phase, r->settings.groups_per_block,
            r->labeled.rows.x, r->labeled.n, r->labeled.block_cos,
            pair ? r->labeled.block_sin : NULL);
    else
        tsgs__eval_features_team(
            r->d, r->block.panel, r->block.phase, r->settings.groups_per_block,
            r->labeled.batch_rows.x, r->labeled.batch_size,
            r->labeled.block_cos, pair ? r->labeled.block_sin : NULL);
    tsgs__eval_features_team(
        r->d, r->block.panel, r->block.phase, r->settings.groups_per_block,
        r->unlabeled.batch_rows.x, r->unlabeled.batch_size,
        r->unlabeled.block_cos, pair ? r->unlabeled.block_sin : NULL);
}

/* Features of the batch rows on block b (into cl/sl for every labeled
 * row, cu/su for the unlabeled mini-batch) and the gradient per unit step
 * of the block's actual coefficients (those of the bare cos / sin, so
 * f = sum_j beta_j cos_j), g_j = -(norm^2 / D) sum_i w_i cos_j(x_i): the
 * functional gradient sum_i w_i k(x_i, .) with k estimated by
 * (1 / D) sum_j phi_j(x_i) phi_j(.), phi_j = norm cos_j. Into gc/gs, and
 * the sampling variance of g summed over the block (the checking rule's
 * noise term) into r->step.variance. Team. */
static tsgs_status block_gradient(run_t *r, const tsgs_model *m, long b,
                                  double *gc, double *gs)
{
    const int pair = r->settings.cos_sin;
    tsgs_status st = TSGS_OK;
    if (!r->labeled.rows.x) { /* sparse rows */
        const long g0 = b * m->fs.dirs, n = m->fs.dirs;
        const int cached = featcache_covers(r, tsgs__model_dirs(m));
        /* (a fill cut by r->halt: the copies below read features not
         * made, which the failure then leaves unused) */
        if (cached)
            tsgs__featcache_fill_team(r->unlabeled.feature_cache, &m->fs, m->cc,
                                      tsgs__model_dirs(m), r->halt,
                                      &r->step.failed);
        if (cached && r->labeled.dataset_rows)
            tsgs__featcache_block_team(
                r->unlabeled.feature_cache, r->labeled.dataset_rows,
                r->labeled.n, g0, n, r->settings.block_width,
                r->labeled.block_cos, pair ? r->labeled.block_sin : NULL);
        else if (r->settings.labeled_cache)
            tsgs__sparse_features_team(
                &m->fs, m->cc, g0, n, &r->labeled.rows, r->settings.block_width,
                r->labeled.block_cos, pair ? r->labeled.block_sin : NULL,
                r->halt, &r->step.failed);
        else
            tsgs__sparse_features_team(
                &m->fs, m->cc, g0, n, &r->labeled.batch_rows,
                r->settings.block_width, r->labeled.block_cos,
                pair ? r->labeled.block_sin : NULL, r->halt, &r->step.failed);
        if (cached) {
            tsgs__featcache_block_team(
                r->unlabeled.feature_cache, r->unlabeled.batch,
                r->unlabeled.batch_size, g0, n, r->settings.block_width,
                r->unlabeled.block_cos, pair ? r->unlabeled.block_sin : NULL);
        } else {
            tsgs__sparse_features_team(
                &m->fs, m->cc, g0, n, &r->unlabeled.batch_rows,
                r->settings.block_width, r->unlabeled.block_cos,
                pair ? r->unlabeled.block_sin : NULL, r->halt, &r->step.failed);
        }
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single copyprivate(st)
#endif
        {
            if (r->step.failed)
                st = failed_status(r);
            else
                block_sums(r, m, gc, gs, &r->step.variance);
        }
        return st;
    }
#ifdef _OPENMP
#pragma omp single copyprivate(st)
#endif
    if (tsgs__model_block_directions(m, b, r->block.panel, r->block.phase))
        st = TSGS__NOMEM(r->step.err);
    if (st != TSGS_OK)
        return st;
    block_features(r);
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single
#endif
    block_sums(r, m, gc, gs, &r->step.variance);
    return TSGS_OK;
}

/* Columns summed together in block_sums: their running sums stay in
 * registers through the row loop. */
#define SUM_COLS 4

/* a[k] += w f[k] (and q[k] += (w f[k])^2 when want_sq) for the `cols`
 * columns of one row's features; cols is SUM_COLS or, at a block's end,
 * fewer. */
static inline void add_row_cols(double w, const float *f, int cols,
                                int want_sq, double *a, double *q)
{
    for (int k = 0; k < cols; k++) {
        double t = w * f[k];
        a[k] += t;
        if (want_sq)
            q[k] += t * t;
    }
}

/* Columns j0 .. j0 + cols - 1 of the batch's weighted features, summed
 * over its rows (the labeled rows first, in batch order, then the
 * unlabeled ones) from the features in lab / unl: into a (and their
 * squares into q when want_sq). */
static inline void labeled_column_sums(const run_t *r, const float *lab,
                                       size_t j0, int cols, int want_sq,
                                       double *a, double *q)
{
    const size_t wb = r->settings.block_width;
    for (size_t i = 0; i < r->labeled.batch_size; i++) {
        size_t row = r->settings.labeled_cache ? r->labeled.order[i] : i;
        add_row_cols(r->labeled.loss_weight[row], lab + row * wb + j0, cols,
                     want_sq, a, q);
    }
}

static inline void unlabeled_column_sums(const run_t *r, const float *unl,
                                         size_t j0, int cols, int want_sq,
                                         double *a, double *q)
{
    const size_t wb = r->settings.block_width;
    for (size_t i = 0; i < r->unlabeled.batch_size; i++)
        add_row_cols(r->unlabeled.loss_weight[i], unl + i * wb + j0, cols,
                     want_sq, a, q);
}

static inline void column_sums(const run_t *r, const float *lab,
                               const float *unl, size_t j0, int cols,
                               int want_sq, double *a, double *q)
{
    for (int k = 0; k < cols; k++)
        a[k] = q[k] = 0.0;
    labeled_column_sums(r, lab, j0, cols, want_sq, a, q);
    unlabeled_column_sums(r, unl, j0, cols, want_sq, a, q);
}

/* column_sums of every column of a block's cos (or sin) features into
 * sum and, when sq is not NULL, their squares into sq. Whole groups of
 * SUM_COLS (a constant count: the sums stay in registers), then the rest
 * one at a time; each column's sum keeps the rows' order, so the model
 * has the same bits as with one column at a time. */
static void block_column_sums(const run_t *r, long dirs, const float *lab,
                              const float *unl, double *sum, double *sq)
{
    double a[SUM_COLS], q[SUM_COLS];
    size_t j = 0;
    for (; j + SUM_COLS <= (size_t)dirs; j += SUM_COLS) {
        if (sq)
            column_sums(r, lab, unl, j, SUM_COLS, 1, a, q);
        else
            column_sums(r, lab, unl, j, SUM_COLS, 0, a, q);
        for (int k = 0; k < SUM_COLS; k++) {
            sum[j + (size_t)k] = a[k];
            if (sq)
                sq[j + (size_t)k] = q[k];
        }
    }
    for (; j < (size_t)dirs; j++) {
        column_sums(r, lab, unl, j, 1, sq != NULL, a, q);
        sum[j] = a[0];
        if (sq)
            sq[j] = q[0];
    }
}

/* The gradient sums of block_gradient over the features it computed; the
 * sampling variance into *var when var is not NULL (the squares are
 * summed only then). */
static void block_sums(const run_t *r, const tsgs_model *m, double *gc,
                       double *gs, double *var)
{
    const long dirs = m->fs.dirs;
    const double unit = -m->norm * m->norm / (double)dirs;
    const double nrows =
        (double)(r->labeled.batch_size + r->unlabeled.batch_size);
    double *qc = r->block.squares_cos, *qs = r->block.squares_sin;
    for (long j = 0; j < dirs; j++)
        gs[j] = qc[j] = qs[j] = 0.0;
    block_column_sums(r, dirs, r->labeled.block_cos, r->unlabeled.block_cos, gc,
                      var ? qc : NULL);
    if (r->settings.cos_sin)
        block_column_sums(r, dirs, r->labeled.block_sin, r->unlabeled.block_sin,
                          gs, var ? qs : NULL);
    double v = 0.0;
    for (long j = 0; j < dirs; j++) {
        const double sc = gc[j], ss = gs[j];
        gc[j] = unit * sc;
        gs[j] = unit * ss;
        /* per-row terms u_i = unit * n * w_i phi_i have mean g; the mean of
         * n of them varies by (E u^2 - g^2) / n */
        double vc = unit * unit * (nrows * qc[j] - sc * sc) / nrows;
        double vs = unit * unit * (nrows * qs[j] - ss * ss) / nrows;
        v += (vc > 0 ? vc : 0) + (vs > 0 ? vs : 0);
    }
    if (var)
        *var = v;
}

/* The step itself, serial part: decay every coefficient by (1 - eta)
 * through the lazy scale (the explicit loop is the tests' reference) and
 * add eta * g to block b's actual coefficients, keeping the increments in
 * block.increment_cos / block.increment_sin for the labeled cache. */
static void apply_coefficients(run_t *r, tsgs_model *m, long b, long dirs,
                               double eta, const double *gc, const double *gs)
{
    const int pair = r->settings.cos_sin;
    if (r->opt.explicit_decay) {
        long n = tsgs__model_dirs(m);
        for (long g = 0; g < n; g++) {
            m->ac[g] *= 1.0 - eta;
            if (pair)
                m->as[g] *= 1.0 - eta;
        }
        for (size_t i = 0; i < r->labeled.n; i++)
            r->labeled.sums[i] *= 1.0 - eta;
    } else {
        m->scale *= 1.0 - eta;
    }
    /* actual coefficient = scale * norm * a, so a += eta g / (scale norm) */
    const double to_a = eta / (m->scale * m->norm);
    for (long j = 0; j < dirs; j++) {
        r->block.increment_cos[j] = to_a * gc[j];
        r->block.increment_sin[j] = pair ? to_a * gs[j] : 0.0;
        m->ac[b * dirs + j] += r->block.increment_cos[j];
        if (pair)
            m->as[b * dirs + j] += r->block.increment_sin[j];
    }
}

/* The cached labeled sums kept current with the block's features in
 * cl / sl (O(n_l r); team). */
static void update_labeled_cache(run_t *r, long dirs, const float *cl,
                                 const float *sl, size_t stride)
{
    if (r->settings.labeled_cache)
        weighted_rows(
            r->labeled.n, dirs, r->block.increment_cos, r->block.increment_sin,
            cl, r->settings.cos_sin ? sl : NULL, stride, 1, r->labeled.sums);
}

/* The same on one thread (inside a serial section: no worksharing). */
static void update_labeled_cache_serial(run_t *r, long dirs, const float *cl,
                                        const float *sl, size_t stride)
{
    for (size_t i = 0; i < r->labeled.n; i++)
        r->labeled.sums[i] += weighted_row(
            dirs, r->block.increment_cos, r->block.increment_sin,
            cl + i * stride, r->settings.cos_sin ? sl + i * stride : NULL);
}

/* Serial: the lazy scale folded in when it nears double's limits. */
static void fold_scale_if_small(run_t *r, tsgs_model *m)
{
    if (m->scale < r->opt.scale_floor) {
        double s = m->scale;
        tsgs__model_fold_scale(m);
        for (size_t i = 0; i < r->labeled.n; i++)
            r->labeled.sums[i] *= s;
    }
}

void tsgs__sgd_flush(run_t *r, const tsgs_model *m)
{
    if (!r->labeled.sums_pending)
        return;
    update_labeled_cache_serial(r, m->fs.dirs, r->labeled.block_cos,
                                r->labeled.block_sin, r->settings.block_width);
    r->labeled.sums_pending = 0;
}

/* A split step's sums over the labeled rows of a block's cos (or sin)
 * columns, the first terms of block_column_sums' (its rows in the same
 * order), into sum; the serial section adds the unlabeled rows' to them
 * (unlabeled_block_sums): each column's sum the same bits. */
static void labeled_block_sums(const run_t *r, long dirs, const float *lab,
                               double *sum)
{
    double a[SUM_COLS], q[SUM_COLS];
    size_t j = 0;
    for (; j + SUM_COLS <= (size_t)dirs; j += SUM_COLS) {
        for (int k = 0; k < SUM_COLS; k++)
            a[k] = q[k] = 0.0;
        labeled_column_sums(r, lab, j, SUM_COLS, 0, a, q);
        for (int k = 0; k < SUM_COLS; k++)
            sum[j + (size_t)k] = a[k];
    }
    for (; j < (size_t)dirs; j++) {
        a[0] = q[0] = 0.0;
        labeled_column_sums(r, lab, j, 1, 0, a, q);
        sum[j] = a[0];
    }
}

/* The mean that centred weights take off every unlabeled row's weight
 * (unlabeled_weights' sum, in its order); 0 when they are not centred. */
static double centred_mean(const run_t *r)
{
    if (r->p.balance != TSGS__BALANCE_CENTRED || r->unlabeled.batch_size == 0)
        return 0.0;
    double mean = 0.0;
    for (size_t i = 0; i < r->unlabeled.batch_size; i++)
        mean += r->unlabeled.loss_weight[i];
    return mean / (double)r->unlabeled.batch_size;
}

/* a[k] += w_i f_ik over the unlabeled rows i in order, for the `cols`
 * columns from unl (the weights centred by `mean` as they are read). */
static inline void unlabeled_rest(const run_t *r, const float *unl, int cols,
                                  int centred, double mean, double *a)
{
    for (size_t i = 0; i < r->unlabeled.batch_size; i++) {
        const double w = centred ? r->unlabeled.loss_weight[i] - mean
                                 : r->unlabeled.loss_weight[i];
        const float *f = unl + i * r->settings.block_width;
        for (int k = 0; k < cols; k++) {
            double t = w * f[k];
            a[k] += t;
        }
    }
}

/* unlabeled_rest for 2 SUM_COLS columns, with the sums in named locals
 * (an array of 8 was kept in memory, a store and a load per row). */
static inline void unlabeled_rest2(const run_t *r, const float *unl,
                                   int centred, double mean, double *a)
{
    double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    double a4 = a[4], a5 = a[5], a6 = a[6], a7 = a[7];
    for (size_t i = 0; i < r->unlabeled.batch_size; i++) {
        const double w = centred ? r->unlabeled.loss_weight[i] - mean
                                 : r->unlabeled.loss_weight[i];
        const float *f = unl + i * r->settings.block_width;
        double t[2 * SUM_COLS]; /* (products apart from the sums: never fused) */
        for (int k = 0; k < 2 * SUM_COLS; k++)
            t[k] = w * f[k];
        a0 += t[0], a1 += t[1], a2 += t[2], a3 += t[3];
        a4 += t[4], a5 += t[5], a6 += t[6], a7 += t[7];
    }
    a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
    a[4] = a4, a[5] = a5, a[6] = a6, a[7] = a7;
}

/* Columns j0 .. j0 + cols - 1 of a split step's cos (or sin, `sin_part`)
 * half: the rest of their gradient sums over the unlabeled rows from the
 * labeled task's sums in block.squares_cos / _sin, then block_sums' unit
 * and apply_coefficients' step, to_a = eta / (the decayed scale x norm).
 * Whole runs of 4 or 8 columns with a constant count (the sums in
 * registers, several chains at once); each column's operations and their
 * order are the serial step's. */
static void split_run(run_t *r, tsgs_model *m, long b, int sin_part,
                      size_t j0, int cols, double mean, double to_a)
{
    const size_t at = (size_t)b * (size_t)m->fs.dirs;
    const double unit = -m->norm * m->norm / (double)m->fs.dirs;
    const int centred = r->p.balance == TSGS__BALANCE_CENTRED;
    const double *lab = sin_part ? r->block.squares_sin : r->block.squares_cos;
    const float *unl =
        (sin_part ? r->unlabeled.block_sin : r->unlabeled.block_cos) + j0;
    double a[2 * SUM_COLS];
    for (int k = 0; k < cols; k++)
        a[k] = lab[j0 + (size_t)k];
    if (cols == 2 * SUM_COLS) /* two groups' chains side by side */
        unlabeled_rest2(r, unl, centred, mean, a);
    else if (cols == SUM_COLS)
        unlabeled_rest(r, unl, SUM_COLS, centred, mean, a);
    else
        unlabeled_rest(r, unl, cols, centred, mean, a);
    for (int k = 0; k < cols; k++) {
        const size_t j = j0 + (size_t)k;
        const double step = to_a * (unit * a[k]);
        if (sin_part) {
            r->block.increment_sin[j] = step;
            m->as[at + j] += step;
        } else {
            r->block.increment_cos[j] = step;
            m->ac[at + j] += step;
            if (!r->settings.cos_sin)
                r->block.increment_sin[j] = 0.0;
        }
    }
}

/* A split step's runs of gradient columns: SUM_COLS columns or two
 * groups of them (split_run), the block's cos half, then its sin half. */
static size_t split_runs(const run_t *r, long dirs, size_t *per_half)
{
    *per_half = ((size_t)dirs + 2 * SUM_COLS - 1) / (2 * SUM_COLS);
    return r->settings.cos_sin ? 2 * *per_half : *per_half;
}

/* Run u of split_runs (its columns on one thread: the serial step's
 * operations in its order, whichever thread takes it). */
static void split_run_at(run_t *r, tsgs_model *m, long b, size_t u,
                         size_t per_half, double mean, double to_a)
{
    const int sin_part = u >= per_half;
    const size_t j0 = (sin_part ? u - per_half : u) * 2 * SUM_COLS;
    const size_t left = (size_t)m->fs.dirs - j0;
    split_run(r, m, b, sin_part, j0,
              (int)(left < 2 * SUM_COLS ? left : 2 * SUM_COLS), mean, to_a);
}

/* A split step's column runs taken one at a time by the threads that
 * come (team, no barrier; all of them on one thread): a thread that
 * another process holds back then holds back no more than the run it
 * took. The weights centred by `mean` as they are read (the values
 * unlabeled_weights stores), the mean made when a thread takes its
 * first run. */
static void split_columns(run_t *r, tsgs_model *m, long b, double to_a)
{
    size_t per_half;
    const size_t runs = split_runs(r, m->fs.dirs, &per_half);
    double mean = 0.0;
    for (int first = 1;; first = 0) {
        int u;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
        u = r->step.runs_taken++;
        if ((size_t)u >= runs)
            return;
        if (first)
            mean = centred_mean(r);
        split_run_at(r, m, b, (size_t)u, per_half, mean, to_a);
    }
}

/* A split step's labeled part: one thread of the team, beside the kernel
 * (read after the kernel's barrier). The cache's update by the step
 * before's block when pending (its features still in cl / sl), the
 * labeled rows' features on this step's block (Wb / Pb), the labeled
 * mini-batch, its loss weights, the block's gradient sums over it (into
 * qc / qs) and the learned bias's gradient (sum labeled.loss_weight,
 * learn_bias's): each the operations of the serial step in its order, so the
 * model has the same bits. Everything it reads (labeled.sums, the bias, the
 * scale, the block) was last written before the end of the step before. */
static void labeled_part(run_t *r, const tsgs_model *m, long t)
{
    const long dirs = m->fs.dirs;
    const int pair = r->settings.cos_sin;
    if (r->labeled.sums_pending) {
        update_labeled_cache_serial(r, dirs, r->labeled.block_cos,
                                    r->labeled.block_sin,
                                    r->settings.block_width);
        r->labeled.sums_pending = 0;
    }
    tsgs__eval_features_rows(r->d, r->block.panel, r->block.phase,
                             r->settings.groups_per_block, r->labeled.rows.x, 0,
                             r->labeled.n, r->labeled.block_cos,
                             pair ? r->labeled.block_sin : NULL);
    next_labeled_batch(r, t);
    labeled_weights(r, m);
    labeled_block_sums(r, dirs, r->labeled.block_cos, r->block.squares_cos);
    if (pair)
        labeled_block_sums(r, dirs, r->labeled.block_sin, r->block.squares_sin);
    double g = 0.0;
    for (size_t i = 0; i < r->labeled.n; i++)
        g += r->labeled.loss_weight[i];
    r->labeled.bias_gradient = g;
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

/* Examines reuse_candidates old blocks: the best one into r->step.best and its
 * step into r->best_eta (<= 0: none passes), leaving its gradient in gc/gs
 * and its features in block.best_labeled_cos/block.best_labeled_sin (team). */
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
        r->step.best_eta = -INFINITY;
        r->step.best = -1;
    }
    for (long c = 0; c < K; c++) {
        long b = (long)tsgs__below(r->p.seed, TSGS__STREAM_CHECK,
                                   ((uint64_t)t << 20) ^ (uint64_t)c,
                                   (uint64_t)m->nblocks);
        tsgs_status st = block_gradient(r, m, b, r->block.check_gradient_cos,
                                        r->block.check_gradient_sin);
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
                beta_g += bc * r->block.check_gradient_cos[j];
                g2 += r->block.check_gradient_cos[j] *
                      r->block.check_gradient_cos[j];
                if (r->settings.cos_sin) {
                    double bs = k * m->as[b * dirs + j];
                    beta2 += bs * bs;
                    beta_g += bs * r->block.check_gradient_sin[j];
                    g2 += r->block.check_gradient_sin[j] *
                          r->block.check_gradient_sin[j];
                }
            }
            double e =
                tsgs__checked_step(beta2, beta_g, g2, r->step.variance, gamma);
            if (e > r->step.best_eta) {
                r->step.best_eta = e;
                r->step.best = b;
                memcpy(r->block.gradient_cos, r->block.check_gradient_cos,
                       sizeof(double) * (size_t)dirs);
                memcpy(r->block.gradient_sin, r->block.check_gradient_sin,
                       sizeof(double) * (size_t)dirs);
                /* keep the winner's features for the labeled-cache
                 * update */
                float *tmp;
                tmp = r->labeled.block_cos;
                r->labeled.block_cos = r->block.best_labeled_cos;
                r->block.best_labeled_cos = tmp;
                tmp = r->labeled.block_sin;
                r->labeled.block_sin = r->block.best_labeled_sin;
                r->block.best_labeled_sin = tmp;
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
    const size_t n =
        r->settings.labeled_cache ? r->labeled.n : r->labeled.batch_size;
    double g = 0.0;
    for (size_t i = 0; i < n; i++)
        g += r->labeled.loss_weight[i];
    m->bias -= gamma * g;
}

/* A progress report at step t of T (the monitor measured when asked). */
void tsgs__sgd_report_progress(run_t *r, const tsgs_model *m,
                               const tsgs_train_hooks *hooks, long t, long T,
                               int measure)
{
    tsgs_progress pr;
    memset(&pr, 0, sizeof pr);
    pr.iteration = t;
    pr.iterations = T;
    pr.elapsed_s = tsgs__now_s() - r->t_start;
    /* rows per second of training, test measurements left out (the
     * steps of this process: a resumed run's from its checkpoint) */
    double busy = pr.elapsed_s - r->monitor_s;
    pr.rows_per_s = (double)(t - r->ckpt.steps_resumed) *
                    (double)(r->labeled.batch_size + r->unlabeled.batch_size) /
                    (busy > 0 ? busy : 1e-9);
    pr.features = tsgs_model_feature_count(m);
    double t_mon = tsgs__now_s();
    pr.monitor_accuracy =
        measure ? r->job->monitor_accuracy(r->job, m) : -1.0;
    r->monitor_s += tsgs__now_s() - t_mon;
    hooks->progress(&pr, hooks->user);
}

/* Whether the hooks ask for a progress report, and for a monitor
 * measurement, after step t. */
static int report_due(const tsgs_train_hooks *hooks, long t)
{
    return hooks && hooks->progress && hooks->progress_every > 0 &&
           t % hooks->progress_every == 0;
}

int tsgs__sgd_measure_due(const tsgs_train_hooks *hooks, long t)
{
    return hooks && hooks->progress && hooks->monitor &&
           hooks->monitor_every > 0 && t % hooks->monitor_every == 0;
}

/* Serial: the block step t writes, into r->step.block, and its step into
 * r->step.block_eta: a new one while the budget allows (added to the model and
 * its cache now), else an old one, drawn uniformly (UDSG) or by the
 * checking rule (CDSG, when `check`: r->step.best and r->step.best_eta), which
 * also reuses before the budget is full when an old block takes the full step.
 * *checked: the checking rule's block, whose gradient and features are at
 * hand. */
static tsgs_status choose_block(run_t *r, tsgs_model *m, long t, int check,
                                int *checked)
{
    const tsgs_params *p = &r->p;
    const double gamma = tsgs__step_size(p, t, r->T);
    long b = -1;
    double eta = gamma;
    int fresh = m->nblocks < r->settings.max_blocks;
    tsgs_status st = TSGS_OK;
    *checked = 0;
    if (check) {
        double e = r->step.best_eta;
        if (e >= gamma || (!fresh && e > 0.0)) {
            b = r->step.best;
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
         * reads them from there; the column cache's (10^6 columns: half a
         * second) with the stop polled, which abandons the step. */
        if ((st = tsgs__model_add_block(m, r->step.err)) == TSGS_OK &&
            r->halt &&
            tsgs__colcache_fill_polled(m->cc, &m->fs, m->nblocks * m->fs.dirs,
                                       r->halt, TSGS__STOP_OPTIONAL))
            st = TSGS_ERR_STOPPED;
        if (st == TSGS_OK)
            st = tsgs__model_cache_sync(m, r->step.err);
        b = m->nblocks - 1;
    } else if (b == -2) {
        b = (long)tsgs__below(p->seed, TSGS__STREAM_REUSE, (uint64_t)t,
                              (uint64_t)m->nblocks);
    }
    r->step.block = b;
    r->step.block_eta = eta;
    return st;
}

/* Serial: plans step t, its unlabeled rows in unlabeled.batch_rows: the next
 * step's rows to read ahead and, on the fast path, the block the step writes
 * (chosen before the predictions, which see only the blocks before a new one:
 * the same sums as predicting first) and its directions. */
static tsgs_status plan_step(run_t *r, tsgs_model *m, long t)
{
    plan_rows(r, t);
    r->step.planned = t;
    if (!r->settings.fast)
        return TSGS_OK;
    int checked;
    r->step.view_blocks = m->nblocks;
    tsgs_status st = choose_block(r, m, t, 0, &checked);
    if (st == TSGS_OK && tsgs__model_block_directions(
                             m, r->step.block, r->block.panel, r->block.phase))
        st = TSGS__NOMEM(r->step.err);
    return st;
}

/* The start of step t (team): planned in the step before, or here (its
 * rows picked and gathered); then the next step's rows, when planned, are
 * gathered without a barrier (the next worksharing loop absorbs them). */
static tsgs_status begin_step(run_t *r, tsgs_model *m, long t)
{
    /* step.planned was written before the barrier that ended the last step and
     * is written next in a serial section after this step's barriers: a
     * stable value for every thread here */
    if (r->step.planned != t) {
        /* rows read ahead in the stretch before, or new ones */
        int have;
#ifdef _OPENMP
#pragma omp single copyprivate(have)
#endif
        have = r->unlabeled.batch_size == 0 || rows_ahead_in(r, t);
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
    if (r->ahead.step == t + 1 && !waiters_read_rows(r))
        gather_rows(r, m, r->ahead.batch, &r->ahead.batch_rows);
    return TSGS_OK;
}

/* Whether a checkpoint (checkpoint.c, written by sgd.c) is due after step
 * t < T: every opt.ckpt_write->every_steps steps, or its every_seconds
 * passed since the last one (r->ckpt.next_due_s). */
static int checkpoint_due(const run_t *r, long t)
{
    const tsgs_checkpoint *ck = r->opt.ckpt_write;
    if (!ck || t >= r->T)
        return 0;
    if (ck->every_steps > 0 && t % ck->every_steps == 0)
        return 1;
    return ck->every_seconds > 0.0 && tsgs__now_s() >= r->ckpt.next_due_s;
}

/* Serial, on the master thread (the caller's) at the end of step t, unless
 * the step failed: the bias step (when learned), the hooks, then the next
 * step's plan when its rows were read ahead and the stretch goes on. */
static void after_step(run_t *r, tsgs_model *m, long t, int bias)
{
    const tsgs_train_hooks *hooks = r->hooks;
    if (r->step.status != TSGS_OK)
        return;
    if (bias && r->settings.split_step) /* its gradient from the labeled task */
        m->bias -= tsgs__step_size(&r->p, t, r->T) * r->labeled.bias_gradient;
    else if (bias)
        learn_bias(r, m, tsgs__step_size(&r->p, t, r->T));
    r->step.last_done = t;
    /* what step t + 1 goes back to if a stop cuts it (before its plan) */
    if (r->halt)
        tsgs__sgd_mark(r, m);
    r->step.stop =
        hooks && hooks->should_stop && hooks->should_stop(hooks->user);
    if (!r->step.stop && t < r->T && report_due(hooks, t) &&
        !tsgs__sgd_measure_due(hooks, t))
        tsgs__sgd_report_progress(r, m, hooks, t, r->T, 0);
    /* a checkpoint due: the stretch ends here, unplanned (sgd.c writes
     * it between two stretches) */
    r->ckpt.due = !r->step.stop && checkpoint_due(r, t);
    if (!r->step.stop && !r->ckpt.due && t < r->t1 &&
        (r->unlabeled.batch_size == 0 || rows_ahead_in(r, t + 1)))
        r->step.status = plan_step(r, m, t + 1);
}

/* after_step on the master (a tracing build: its time, apart from its
 * wait at the end barrier; trace.h). */
static void master_after_step(run_t *r, tsgs_model *m, long t, int bias)
{
    TSGS_TRACE_START(t_after);
    after_step(r, m, t, bias);
    TSGS_TRACE_ADD("step_after", t_after);
}

/* The end of a step (team): after_step on the master thread, then a
 * barrier; the run's status. */
static tsgs_status end_step(run_t *r, tsgs_model *m, long t, int bias)
{
#ifdef _OPENMP
#pragma omp master
#endif
    master_after_step(r, m, t, bias);
#ifdef _OPENMP
#pragma omp barrier
#endif
    return r->step.status;
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
    if (st == TSGS_OK && r->unlabeled.batch_size)
        st = predict_unlabeled(r, m, t, me);
    return st;
}

/* One step of FRS3VM: mini-batch SGD on the same objective over one fixed
 * set of random features, every coefficient updated at every step (so a
 * step costs O(B M), the features never change, and the labeled rows'
 * features are computed once). t is 1-based. Team. */
static tsgs_status step_frs(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    const long D = r->frs.dirs;
    const size_t W = (size_t)r->frs.groups * TSGS__LANES;
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
        for (size_t i = 0; i < r->labeled.batch_size; i++) {
            size_t row = r->labeled.order[i];
            sc += r->labeled.loss_weight[row] *
                  r->frs.labeled_cos[row * W + (size_t)j];
            if (r->settings.cos_sin)
                ss += r->labeled.loss_weight[row] *
                      r->frs.labeled_sin[row * W + (size_t)j];
        }
        for (size_t i = 0; i < r->unlabeled.batch_size; i++) {
            sc += r->unlabeled.loss_weight[i] *
                  r->unlabeled.block_cos[i * W + (size_t)j];
            if (r->settings.cos_sin)
                ss += r->unlabeled.loss_weight[i] *
                      r->unlabeled.block_sin[i * W + (size_t)j];
        }
        r->block.gradient_cos[j] = unit * sc;
        r->block.gradient_sin[j] = unit * ss;
    }
    apply_step(r, m, 0, D, r->frs.labeled_cos, r->frs.labeled_sin, W, gamma,
               r->block.gradient_cos, r->block.gradient_sin);
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
    if (!r->settings.labeled_cache &&
        (st = predict_labeled(r, m, me)) != TSGS_OK)
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
        (st = block_gradient(r, m, r->step.block, r->block.gradient_cos,
                             r->block.gradient_sin)) != TSGS_OK)
        return st;
    /* the checking rule's winner keeps its features in
     * block.best_labeled_cos/block.best_labeled_sin */
    apply_step(r, m, r->step.block, dirs,
               checked ? r->block.best_labeled_cos : r->labeled.block_cos,
               checked ? r->block.best_labeled_sin : r->labeled.block_sin,
               r->settings.block_width, r->step.block_eta,
               r->block.gradient_cos, r->block.gradient_sin);
    return end_step(r, m, t, p->balance != TSGS__BALANCE_HOLD);
}

/* Serial, after the fast path's kernel: the decision values, the loss
 * weights, the block's gradient and the step (the labeled cache too when
 * it is small). */
static tsgs_status fast_serial(run_t *r, tsgs_model *m, long t)
{
    const long dirs = m->fs.dirs;
    const double cstar = annealed_cstar(r, t);
    if (r->unlabeled.batch_size) {
        size_t lo, hi; /* split over processes: this one's share */
        tsgs__split_range(r->opt.split, r->unlabeled.batch_size, &lo, &hi);
        tsgs__combine_tiles(r->step.view_blocks * dirs, r->step.partial_sums,
                            hi - lo, r->unlabeled.decision + lo);
        r->step.failed =
            tsgs__split_gather(r->opt.split, r->unlabeled.decision,
                               r->unlabeled.batch_size, 1, r->step.failed);
        tsgs_status st = finish_unlabeled(r, m, t);
        if (st != TSGS_OK)
            return st;
    }
    next_labeled_batch(r, t);
    loss_weights(r, m, cstar);
    block_sums(r, m, r->block.gradient_cos, r->block.gradient_sin, NULL);
    apply_coefficients(r, m, r->step.block, dirs, r->step.block_eta,
                       r->block.gradient_cos, r->block.gradient_sin);
    if (!r->settings.team_updates_cache) {
        update_labeled_cache_serial(r, dirs, r->labeled.block_cos,
                                    r->labeled.block_sin,
                                    r->settings.block_width);
        fold_scale_if_small(r, m);
    }
    return TSGS_OK;
}

/* The fast path's kernel over the unlabeled mini-batch, when the step is
 * not a split step (team; ends with a barrier): over this process's share
 * of it when the run is split over processes (fast_serial gathers the
 * others'). Returns 0: no row's weights made. */
static int eval_share_team(run_t *r, const tsgs__fview *v, lane_t *me,
                           const tsgs__rows_ahead *after)
{
    size_t lo, hi;
    tsgs__split_range(r->opt.split, r->unlabeled.batch_size, &lo, &hi);
    return tsgs__eval_tiles_team(
        v,
        r->unlabeled.batch_rows.x ? r->unlabeled.batch_rows.x + lo * r->d
                                  : NULL,
        hi - lo, r->step.partial_sums, &me->ws, r->unlabeled.decision + lo,
        &r->step.failed, after, NULL);
}

/* What a split step's kernel does with unlabeled rows whose sums are
 * complete (tsgs__rows_done; any thread of the team): their decision
 * values scaled (scale_sums) and their loss weights (unlabeled_weights'
 * uloss_grads): per row, the serial step's operations. Everything it
 * reads was written before the step. */
typedef struct {
    run_t *r;
    double k, bias, weight;
} rows_done_ctx;

static void unlabeled_rows_done(void *ctx, size_t i0, size_t i1)
{
    const rows_done_ctx *c = ctx;
    run_t *r = c->r;
    for (size_t i = i0; i < i1; i++)
        r->unlabeled.decision[i] *= c->k;
    tsgs__uloss_grads(r->p.uloss, r->p.ramp_s, r->unlabeled.decision + i0,
                      c->bias, c->weight, i1 - i0,
                      r->unlabeled.loss_weight + i0);
}

/* What every thread of a split step takes before the kernel's barrier:
 * after it the master plans the next step (r->step.block, r->step.block_eta)
 * and sets the scale while the others may still write this step's columns. */
typedef struct {
    long blk;     /* the block the step writes */
    double scale; /* the lazy scale it decays to */
    double to_a;  /* its step per unit gradient: apply_coefficients' */
} split_plan;

static split_plan split_plan_of(const run_t *r, const tsgs_model *m)
{
    split_plan s;
    s.blk = r->step.block;
    s.scale = m->scale * (1.0 - r->step.block_eta);
    s.to_a = r->step.block_eta / (s.scale * m->norm);
    return s;
}

/* After a split step's kernel (team): the block's gradient columns and
 * their step when the kernel made the unlabeled rows' weights
 * (`rows_done`) and the scale is not folded now: on one thread all of
 * them; on a team taken by the threads but the master, which plans the
 * next step meanwhile and then takes what is left (split_rest: the
 * coefficients it may add a block to do not move, the model was made with
 * room for every block a run adds, sgd.c). Else all on the master, which
 * then makes the weights first.
 * The master sets the decayed scale and leaves the labeled cache's update
 * to the next step's labeled task, or, when the scale is folded now,
 * makes it and folds. The others return at once when the master does it
 * all. */
static tsgs_status split_team(run_t *r, tsgs_model *m, long t, int rows_done,
                              const split_plan *sp)
{
    const int fold = sp->scale < r->opt.scale_floor;
    const double to_a = sp->to_a;
    size_t me = 0, team = 1;
#ifdef _OPENMP
    me = (size_t)omp_get_thread_num();
    team = (size_t)omp_get_num_threads();
#endif
    if (rows_done && !fold) {
        if (team == 1 || me > 0)
            split_columns(r, m, sp->blk, to_a);
    } else if (me == 0) {
        if (!rows_done && r->unlabeled.batch_size) {
            tsgs__combine_tiles(r->step.view_blocks * m->fs.dirs,
                                r->step.partial_sums, r->unlabeled.batch_size,
                                r->unlabeled.decision);
            tsgs_status st = scale_sums(r, m, r->unlabeled.decision,
                                        r->unlabeled.batch_size);
            if (st != TSGS_OK)
                return st;
            tsgs__uloss_grads(
                r->p.uloss, r->p.ramp_s, r->unlabeled.decision, m->bias,
                annealed_cstar(r, t) / (double)r->unlabeled.batch_size,
                r->unlabeled.batch_size, r->unlabeled.loss_weight);
        }
        split_columns(r, m, sp->blk, to_a);
    }
    if (me != 0)
        return TSGS_OK;
    m->scale = sp->scale;
    if (fold) {
        update_labeled_cache_serial(r, m->fs.dirs, r->labeled.block_cos,
                                    r->labeled.block_sin,
                                    r->settings.block_width);
        fold_scale_if_small(r, m);
    } else {
        r->labeled.sums_pending = 1;
    }
    return TSGS_OK;
}

/* The master's parts of a fast step in a tracing build (trace.h), each
 * part the time since the mark before it; after_step, which a split step
 * makes before the rows read ahead, is counted into step_end (where the
 * other steps make it) by clock_skip and clock_end. Empty otherwise. */
typedef struct {
    int on;
    double mark, skipped;
} step_clock;

#ifdef TSGS_TRACE
static void clock_start(step_clock *c)
{
    c->on = omp_get_thread_num() == 0;
    c->mark = tsgs__trace_now();
    c->skipped = 0.0;
}

static void clock_part(step_clock *c, const char *what)
{
    if (!c->on)
        return;
    const double now = tsgs__trace_now();
    tsgs__trace_add(what, c->mark);
    c->mark = now;
}

/* step_end's part, with the time clock_skip set aside. */
static void clock_end(step_clock *c)
{
    if (!c->on)
        return;
    tsgs__trace_add("step_end", c->mark - c->skipped);
}

static void clock_skip(step_clock *c)
{
    if (!c->on)
        return;
    const double now = tsgs__trace_now();
    c->skipped += now - c->mark;
    c->mark = now;
}
#else
static inline void clock_start(step_clock *c) { (void)c; }
static inline void clock_part(step_clock *c, const char *what)
{
    (void)c;
    (void)what;
}
static inline void clock_skip(step_clock *c) { (void)c; }
static inline void clock_end(step_clock *c) { (void)c; }
#endif

/* What the threads that wait out a step's serial section read ahead
 * (none without a team), with none of its chunks taken yet. Here, between
 * the last step's end and this kernel's barrier, no thread takes any: a
 * worker's last (failed) take of the step before came before that step's
 * end. */
static rows_ahead_job read_ahead_job(run_t *r, long t, int waiters)
{
#ifdef _OPENMP
#pragma omp master
#endif
    {
        r->step.runs_taken = 0; /* (split_columns': the same holds) */
        if (waiters)
            memset(r->ahead.chunks_taken, 0,
                   sizeof(int) * (size_t)team_size());
    }
    return waiters ? rows_ahead_of(r, t) : (rows_ahead_job){0};
}

/* The block's features for the fast step's kernel (team, no barrier): on
 * a split step the unlabeled rows' by the team and the labeled part by
 * its last thread, which then joins the kernel's tiles late (they are
 * taken dynamically). */
static void fast_features(run_t *r, const tsgs_model *m, long t)
{
    if (!r->settings.split_step) {
        block_features(r);
        return;
    }
    tsgs__eval_features_team(
        r->d, r->block.panel, r->block.phase, r->settings.groups_per_block,
        r->unlabeled.batch_rows.x, r->unlabeled.batch_size,
        r->unlabeled.block_cos,
        r->settings.cos_sin ? r->unlabeled.block_sin : NULL);
#ifdef _OPENMP
    if (omp_get_thread_num() == team_size() - 1)
#endif
        labeled_part(r, m, t);
}

/* The fast step's block features and kernel (team; ends with a barrier).
 * A team's kernel asks for the rows gathered a step from now, a share in
 * each task. Asked for at once by the threads that wait out the serial
 * section, their misses stalled on the line-fill buffers and made the wait
 * longer than the section (15 against 11 us a step on 5M rows, 2
 * threads). On one thread the plan asks (plan_rows): the same prefetches
 * in the kernel cost it twice as much. On a split step the kernel's tasks
 * make the unlabeled rows' decision values and weights as their rows are
 * complete, with the scale this step decays from (read before the master
 * sets it); returns whether they did. */
static int fast_kernel(run_t *r, tsgs_model *m, long t, lane_t *me,
                       int waiters)
{
    const tsgs__rows_ahead after =
        waiters ? rows_after(r) : (tsgs__rows_ahead){0};
    fast_features(r, m, t);
    tsgs__fview v = tsgs__model_view_blocks(m, r->step.view_blocks);
    if (!r->settings.split_step)
        return eval_share_team(r, &v, me, &after);
    rows_done_ctx rc = {r, m->scale * m->norm, m->bias,
                        r->unlabeled.batch_size
                            ? annealed_cstar(r, t) /
                                  (double)r->unlabeled.batch_size
                            : 0.0};
    const tsgs__rows_done done = {unlabeled_rows_done, &rc, r->step.tile_count};
    return tsgs__eval_tiles_team(&v, r->unlabeled.batch_rows.x,
                                 r->unlabeled.batch_size, r->step.partial_sums,
                                 &me->ws, r->unlabeled.decision,
                                 &r->step.failed, &after, &done);
}

/* The rows read ahead after the kernel (team, no barrier): the threads
 * but the master gather their shares, the master takes what is left when
 * it is done with its serial part. */
static void read_ahead(run_t *r, const tsgs_model *m, const rows_ahead_job *j,
                       int waiters)
{
#ifdef _OPENMP
    const int tid = omp_get_thread_num();
    if (waiters && tid > 0) {
        /* (a tracing build: the workers' gather, summed over them) */
        TSGS_TRACE_START(t_gather);
        read_rows_ahead(r, m, j, (size_t)tid - 1, (size_t)team_size() - 1);
        TSGS_TRACE_ADD("step_workers_gather", t_gather);
    }
    if (waiters && tid == 0)
        read_rows_left(r, m, j, (size_t)team_size() - 1);
#else
    (void)r, (void)m, (void)j, (void)waiters;
#endif
}

/* The rest of a split step after its kernel (team): split_team, then on
 * the master at once after_step (its plan of the next step beside the
 * others' columns) and the columns still left, then the rows read ahead,
 * then the end barrier. */
static tsgs_status split_rest(run_t *r, tsgs_model *m, long t, int rows_done,
                              const split_plan *sp, const rows_ahead_job *j,
                              int waiters, step_clock *c)
{
    const tsgs_status st = split_team(r, m, t, rows_done, sp);
    int master = 1;
#ifdef _OPENMP
    master = omp_get_thread_num() == 0;
#endif
    if (master)
        r->step.status = st;
    clock_part(c, "step_serial");
    if (master) {
        master_after_step(r, m, t, r->p.balance != TSGS__BALANCE_HOLD);
        clock_skip(c);
        if (r->step.status == TSGS_OK) /* (a failed step writes none) */
            split_columns(r, m, sp->blk, sp->to_a); /* the runs left */
    }
    read_ahead(r, m, j, waiters);
    clock_part(c, "step_read_ahead_update");
#ifdef _OPENMP
    /* (a failure: every thread reads it after the barrier) */
#pragma omp barrier
#endif
    clock_end(c);
    return r->step.status;
}

/* The rest of a step that is not split, after its kernel (team): the
 * master's serial section (fast_serial) while the others read rows ahead;
 * the labeled cache's update by the team when it is large; end_step. */
static tsgs_status serial_rest(run_t *r, tsgs_model *m, long t,
                               const rows_ahead_job *j, int waiters,
                               step_clock *c)
{
#ifdef _OPENMP
#pragma omp master
#endif
    r->step.status = fast_serial(r, m, t);
    clock_part(c, "step_serial");
    read_ahead(r, m, j, waiters);
    if (r->settings.team_updates_cache) {
#ifdef _OPENMP
#pragma omp barrier
#endif
        if (r->step.status != TSGS_OK)
            return r->step.status;
        update_labeled_cache(r, m->fs.dirs, r->labeled.block_cos,
                             r->labeled.block_sin, r->settings.block_width);
#ifdef _OPENMP
#pragma omp master
#endif
        fold_scale_if_small(r, m);
    }
    clock_part(c, "step_read_ahead_update");
    /* (a failure: end_step's barrier tells every thread) */
    const tsgs_status st = end_step(r, m, t, r->p.balance != TSGS__BALANCE_HOLD);
    clock_end(c);
    return st;
}

/* One step on the fast path (team): its block and the next step's rows
 * are planned before it, so the block's features and the next rows are
 * computed while the team predicts the mini-batch; two barriers a step
 * (the kernel's and the end's). */
static tsgs_status step_fast(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    step_clock c;
    clock_start(&c);
    tsgs_status st = begin_step(r, m, t);
    clock_part(&c, "step_begin");
    if (st != TSGS_OK)
        return st;
    const int waiters = waiters_read_rows(r);
    const rows_ahead_job j = read_ahead_job(r, t, waiters);
    const split_plan sp = split_plan_of(r, m);
    const int rows_done = fast_kernel(r, m, t, me, waiters);
    clock_part(&c, "step_kernel");
    return r->settings.split_step
               ? split_rest(r, m, t, rows_done, &sp, &j, waiters, &c)
               : serial_rest(r, m, t, &j, waiters, &c);
}

void tsgs__sgd_mark(run_t *r, const tsgs_model *m)
{
    step_mark *k = &r->mark;
    k->nblocks = m->nblocks;
    k->cached_dirs = m->cached_dirs;
    k->cc_filled = m->cc ? m->cc->filled : 0;
    k->fc_filled =
        r->unlabeled.feature_cache ? r->unlabeled.feature_cache->filled : 0;
    k->bias = m->bias;
    k->mean_ema = r->unlabeled.balance_threshold;
    k->upos = r->unlabeled.pass_position;
    k->epoch = r->unlabeled.pass;
    k->next_t = r->ahead.step;
}

/* Serial, once every thread has left a step that r->halt cut: the model
 * and the run back to r->mark, as if the stop had come at the end of the
 * step before. Whatever point the cut came at, the step had not yet
 * touched the coefficients, the lazy scale, the labeled cache or the
 * learned bias (apply_step and after_step come after its last kernel);
 * it may have added its block (choose_block, and the caches' fills), set
 * the balance rule's bias and begun a pass (a new order of the unlabeled
 * rows, which final_balance samples). */
static void abandon_step(run_t *r, tsgs_model *m)
{
    const step_mark *k = &r->mark;
    /* the dropped block's coefficients are still 0, as add_block made
     * them */
    m->nblocks = k->nblocks;
    m->cached_dirs = k->cached_dirs;
    if (m->cc)
        m->cc->filled = k->cc_filled;
    if (r->unlabeled.feature_cache)
        r->unlabeled.feature_cache->filled = k->fc_filled;
    m->bias = k->bias;
    r->unlabeled.balance_threshold = k->mean_ema;
    for (; r->unlabeled.pass > k->epoch; r->unlabeled.pass--) {
        const tsgs__shuffle_key key = {r->p.seed, TSGS__STREAM_EPOCH,
                                       (uint64_t)r->unlabeled.pass << 40};
        tsgs__unshuffle(r->unlabeled.order, r->unlabeled.n, &key);
    }
    r->unlabeled.pass_position = k->upos;
    r->ahead.step = k->next_t; /* (the rows taken ahead: a checkpoint's pass) */
    r->step.planned = 0;
    r->step.stop = 1;
}

/* Step t by the path the run takes (team); a step cut by r->halt is
 * abandoned here. */
tsgs_status tsgs__sgd_step(run_t *r, tsgs_model *m, long t, lane_t *me)
{
    const tsgs_status st = r->settings.fast ? step_fast(r, m, t, me)
                           : r->frs.on      ? step_frs(r, m, t, me)
                                            : step(r, m, t, me);
    if (st != TSGS_ERR_STOPPED)
        return st;
    /* Every thread has it: it comes from a serial section's decision
     * (copyprivate) or from what the kernels left after their barrier. */
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
    abandon_step(r, m);
#ifdef _OPENMP
#pragma omp barrier
#endif
    return TSGS_OK;
}
