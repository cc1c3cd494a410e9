/* The stochastic solvers: TSGS3VM (triply stochastic functional
 * gradients: labeled rows, unlabeled rows and random features sampled at
 * every step), its supervised special case DSG, DSG reusing old blocks
 * (UDSG uniformly, CDSG by the checking rule) and FRS3VM (SGD over one
 * fixed set of random features).
 *
 * This file sets a run up (its settings, C and sigma where not given, the
 * model, the supervised start, the buffers), runs the steps (sgd_step.c)
 * in stretches, one parallel region each, and finishes the model. */
#include "solvers/sgd/sgd_step.h"

#include "select/model_select.h"
#include "common/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void run_free(run_t *r)
{
    free(r->labeled.order);
    free(r->unlabeled.order);
    tsgs__rows_free(&r->labeled.rows);
    free(r->labeled.y);
    free(r->labeled.class_weight);
    free(r->labeled.sums);
    free(r->labeled.loss_weight);
    tsgs__rows_free(&r->unlabeled.batch_rows);
    free(r->unlabeled.decision);
    free(r->unlabeled.loss_weight);
    free(r->block.panel);
    free(r->block.phase);
    free(r->labeled.block_cos);
    free(r->labeled.block_sin);
    free(r->unlabeled.block_cos);
    free(r->unlabeled.block_sin);
    free(r->block.increment_cos);
    free(r->block.increment_sin);
    free(r->unlabeled.sorted_decisions);
    free(r->block.gradient_cos);
    free(r->block.gradient_sin);
    free(r->block.check_gradient_cos);
    free(r->block.check_gradient_sin);
    free(r->block.squares_cos);
    free(r->block.squares_sin);
    free(r->block.best_labeled_cos);
    free(r->block.best_labeled_sin);
    free(r->frs.labeled_cos);
    free(r->frs.labeled_sin);
    tsgs__rows_free(&r->labeled.batch_rows);
    free(r->labeled.batch_decision);
    free(r->unlabeled.batch);
    free(r->ahead.batch);
    tsgs__rows_free(&r->ahead.batch_rows);
    free(r->unlabeled.shuffle_draws);
    tsgs__held_batch_end(r);
    free(r->ahead.chunks_taken);
    free(r->step.partial_sums);
    tsgs__featcache_free(r->unlabeled.feature_cache);
    free(r->labeled.dataset_rows);
    free(r->step.tile_count);
    free(r->ckpt.settings);
}

/* The scaled labeled rows and their classes (+1 / -1), in file order;
 * read by the model selection before the model exists, then by the
 * steps. */
static tsgs_status gather_labeled(run_t *r, const tsgs__train_job *job,
                                  tsgs_error *err)
{
    const tsgs_dataset *ds = r->ds;
    const size_t nl1 = r->labeled.n ? r->labeled.n : 1;
    const double *row_w = job->opt.row_w;
    r->labeled.order = malloc(sizeof(size_t) * nl1);
    r->labeled.y = malloc(sizeof(double) * nl1);
    r->labeled.class_weight = row_w ? malloc(sizeof(double) * nl1) : NULL;
    if (!r->labeled.order || !r->labeled.y ||
        (row_w && !r->labeled.class_weight) ||
        tsgs__rows_init(&r->labeled.rows, ds, &job->scaler, r->labeled.n))
        return TSGS__NOMEM(err);
    /* the file's rows to gather (the job's), then batch order */
    memcpy(r->labeled.order, job->lidx, sizeof(size_t) * r->labeled.n);
    for (size_t il = 0; il < r->labeled.n; il++) {
        r->labeled.y[il] =
            ds->y[r->labeled.order[il]] == job->label_pos ? 1.0 : -1.0;
        if (row_w)
            r->labeled.class_weight[il] = row_w[r->labeled.order[il]];
    }
    if (tsgs__rows_gather(&r->labeled.rows, ds, &job->scaler, r->labeled.order,
                          r->labeled.n))
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < r->labeled.n; i++)
        r->labeled.order[i] = i;
    return TSGS_OK;
}

/* The unlabeled part's buffers: the pass order, the mini-batch (rows,
 * decision values, loss weights, sorted decisions, block features, `wide`
 * of them per row) and the read-ahead's (with rows held in shares, the
 * ring of mini-batches fetched). 0, or -1 when out of memory. */
static int unlabeled_alloc(run_t *r, const tsgs_model *m, size_t bu1,
                           size_t wide)
{
    run_unlabeled *u = &r->unlabeled;
    run_read_ahead *ahead = &r->ahead;
    u->order = malloc(sizeof(size_t) * (u->n ? u->n : 1));
    int bad = tsgs__rows_init(&u->batch_rows, r->ds, &m->scaler, bu1) |
              tsgs__rows_init(&ahead->batch_rows, r->ds, &m->scaler, bu1);
    u->batch = malloc(sizeof(size_t) * bu1);
    ahead->batch = malloc(sizeof(size_t) * bu1);
    if (r->ds->held)
        bad |= !(ahead->held_batches =
                     malloc(sizeof(size_t) * bu1 * TSGS__HELD_BATCHES));
    u->shuffle_draws = malloc(sizeof(size_t) * 2 * TSGS__SHUFFLE_CHUNK);
    ahead->chunks_taken =
        calloc((size_t)(r->threads > 1 ? r->threads : 1), sizeof(int));
    u->decision = malloc(sizeof(double) * bu1);
    u->loss_weight = malloc(sizeof(double) * bu1);
    u->sorted_decisions = malloc(sizeof(double) * bu1);
    u->block_cos = malloc(sizeof(float) * wide * bu1);
    u->block_sin = malloc(sizeof(float) * wide * bu1);
    return bad || !u->order || !u->batch || !ahead->batch ||
                   !u->shuffle_draws || !ahead->chunks_taken ||
                   !u->decision || !u->loss_weight || !u->sorted_decisions ||
                   !u->block_cos || !u->block_sin
               ? -1
               : 0;
}

/* The labeled part's buffers: cached sums and loss weights of the nl1
 * rows, the mini-batch's rows and decision values (no cache), block
 * features of `lrows` rows, `width` per row. 0, or -1. */
static int labeled_alloc(run_t *r, const tsgs_model *m, size_t nl1,
                         size_t lrows, size_t width)
{
    run_labeled *l = &r->labeled;
    const size_t bl1 = l->batch_size ? l->batch_size : 1;
    l->sums = calloc(nl1, sizeof(double));
    l->loss_weight = calloc(nl1, sizeof(double));
    int bad = tsgs__rows_init(&l->batch_rows, r->ds, &m->scaler, bl1);
    l->batch_decision = malloc(sizeof(double) * bl1);
    l->block_cos = malloc(sizeof(float) * width * lrows);
    l->block_sin = malloc(sizeof(float) * width * lrows);
    return bad || !l->sums || !l->loss_weight || !l->batch_decision ||
                   !l->block_cos || !l->block_sin
               ? -1
               : 0;
}

/* The block's buffers: its packed directions (`panel_rows` floats per
 * direction), increments and gradients (`wide`), the checking rule's
 * (`width`) and the best candidate's labeled features (`lrows` rows).
 * 0, or -1. */
static int block_alloc(run_block *b, size_t width, size_t wide,
                       size_t panel_rows, size_t lrows)
{
    b->panel = malloc(sizeof(float) * width * panel_rows);
    b->phase = malloc(sizeof(float) * width);
    b->best_labeled_cos = malloc(sizeof(float) * width * lrows);
    b->best_labeled_sin = malloc(sizeof(float) * width * lrows);
    b->increment_cos = calloc(wide, sizeof(double));
    b->increment_sin = calloc(wide, sizeof(double));
    b->gradient_cos = calloc(wide, sizeof(double));
    b->gradient_sin = calloc(wide, sizeof(double));
    b->check_gradient_cos = calloc(width, sizeof(double));
    b->check_gradient_sin = calloc(width, sizeof(double));
    b->squares_cos = calloc(width, sizeof(double));
    b->squares_sin = calloc(width, sizeof(double));
    return !b->panel || !b->phase || !b->best_labeled_cos ||
                   !b->best_labeled_sin || !b->increment_cos ||
                   !b->increment_sin || !b->gradient_cos ||
                   !b->gradient_sin || !b->check_gradient_cos ||
                   !b->check_gradient_sin || !b->squares_cos ||
                   !b->squares_sin
               ? -1
               : 0;
}

static tsgs_status run_setup(run_t *r, tsgs_model *m, long max_blocks,
                             tsgs_error *err)
{
    const tsgs_dataset *ds = r->ds;
    const size_t d = r->d;
    const size_t nl1 = r->labeled.n ? r->labeled.n : 1,
                 bu1 = r->unlabeled.batch_size ? r->unlabeled.batch_size : 1;
    run_settings *set = &r->settings;
    set->cos_sin = m->fs.map == TSGS_FEATURES_PAIR;
    set->groups_per_block = (m->fs.dirs + TSGS__LANES - 1) / TSGS__LANES;
    set->block_width = (size_t)set->groups_per_block * TSGS__LANES;
    /* FRS evaluates every direction at every step, the others one block */
    const size_t wide = r->frs.on ? (size_t)r->frs.groups * TSGS__LANES
                                  : set->block_width;
    /* block features of every labeled row (cache) or of the batch only */
    const size_t lrows =
        set->labeled_cache
            ? nl1
            : (r->labeled.batch_size ? r->labeled.batch_size : 1);
    /* sparse rows: block features from the non-zeros, no d-wide panel */
    const int sparse = !r->labeled.rows.x; /* the rows' storage decides */
    /* the kernel's partial sums for the largest model and batch */
    const long most_dirs = (r->frs.on ? 1 : max_blocks) * m->fs.dirs;
    r->step.n_partial = tsgs__sums_scratch(most_dirs, bu1 > nl1 ? bu1 : nl1);
    r->step.partial_sums =
        malloc(sizeof(double) * (r->step.n_partial ? r->step.n_partial : 1));
    r->step.tile_count = calloc(bu1 / 12 + 1, sizeof(int));
    if (r->frs.on) {
        r->frs.labeled_cos = malloc(sizeof(float) * wide * nl1);
        r->frs.labeled_sin = malloc(sizeof(float) * wide * nl1);
        if (!r->frs.labeled_cos || !r->frs.labeled_sin)
            return TSGS__NOMEM(err);
    }
    if (unlabeled_alloc(r, m, bu1, wide) ||
        labeled_alloc(r, m, nl1, lrows, set->block_width) ||
        block_alloc(&r->block, set->block_width, wide, sparse ? 1 : d,
                    lrows) ||
        !r->step.partial_sums || !r->step.tile_count)
        return TSGS__NOMEM(err);
    if (r->unlabeled.n) /* (DSG leaves them out) */
        tsgs__label_split(ds->y, ds->n, r->threads, NULL, r->unlabeled.order);
    if (r->frs.on)
        tsgs__eval_features(d, m->panel, m->phase, r->frs.groups,
                            r->labeled.rows.x, r->labeled.n, r->threads,
                            r->frs.labeled_cos,
                            r->settings.cos_sin ? r->frs.labeled_sin : NULL);
    r->unlabeled.pass = 0;
    r->unlabeled.pass_position = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(r->threads) if (r->threads > 1)
#endif
    tsgs__sgd_shuffle_pass(r);
    return TSGS_OK;
}

/* The running threshold lags a model that still moves; the returned model
 * meets the balance exactly on a sample of unlabeled rows. */
#define BALANCE_SAMPLE 8192

static tsgs_status final_balance(run_t *r, tsgs_model *m, tsgs_error *err)
{
    size_t n =
        r->unlabeled.n < BALANCE_SAMPLE ? r->unlabeled.n : BALANCE_SAMPLE;
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
        rows[i] = r->unlabeled.order[i * (r->unlabeled.n / n)];
    if (tsgs__held_fetch(r->ds, rows, n, 0)) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    bad = tsgs__rows_gather(&X, r->ds, &m->scaler, rows, n);
    tsgs__held_release(r->ds, rows, n);
    if (bad) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    double bias = m->bias;
    m->bias = 0.0;
    st = tsgs__model_decision_rows(m, NULL, &X, r->threads, g, err);
    m->bias = bias;
    if (st != TSGS_OK)
        goto done;
    m->bias = -tsgs__sgd_quantile(g, n, r->p.balance_ratio);
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
static long first_blocks(const tsgs_params *p, size_t d)
{
    return tsgs__blocks_for(p, tsgs__first_features(p, d));
}

/* C and sigma, where not given, by the grid CV on the labeled rows that
 * the safe solver runs (model_select.c), on the model's own first
 * features (blocks 0, 1, ... up to the budget): C is the grid's per-row C
 * times n_l (the objective's mean hinge). */
static tsgs_status choose_c_sigma(run_t *r, tsgs__train_job *job,
                                  tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    tsgs_params *p = &r->p;
    const size_t d = ds->d, nl = r->labeled.n;
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
    if (tsgs__held_fetch(ds, rows, iu, 0)) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    int bad = tsgs__rows_gather(&XM, ds, &job->scaler, rows, iu);
    tsgs__held_release(ds, rows, iu);
    if (bad) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    double sigma0 = p->sigma;
    if (sigma0 <= 0.0 &&
        (st = tsgs__median_sigma(&r->labeled.rows, &XM, d, p->seed, r->threads,
                                 &sigma0, err)) != TSGS_OK)
        goto done;
    tsgs__fspec fs = tsgs__fspec_of(p, d); /* its sigma: the grid's */
    size_t ndirs = (size_t)(first_blocks(p, d) * fs.dirs);
    size_t D = tsgs__feature_columns(&fs, ndirs);
    tsgs__grid_job g = {&r->labeled.rows, r->labeled.y, nl, d, &fs, ndirs,
                        D, sigma0, p->sigma,
                        p->c > 0.0 ? p->c / (double)nl : 0.0, p->seed,
                        r->threads, NULL, r->labeled.class_weight,
                        &job->stop, NULL};
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
static long start_blocks(const tsgs_params *p, size_t d, long max_blocks)
{
    long blocks = first_blocks(p, d);
    return blocks < max_blocks ? blocks : max_blocks;
}

/* Whether the supervised start fits: its feature rows in memory. */
static int warm_start_fits(const run_t *r, const tsgs_params *p, size_t d,
                           long max_blocks)
{
    const tsgs__fspec fs = tsgs__fspec_of(p, d);
    size_t D = tsgs__feature_columns(
        &fs, (size_t)(start_blocks(p, d, max_blocks) * fs.dirs));
    return r->labeled.n > 0 && r->labeled.n <= WARM_MAX_LABELED && D > 0 &&
           r->labeled.n <= WARM_MAX_FLOATS / D;
}

/* The model starts as the exact SVM on the labeled rows over its first
 * blocks (tsgs__warm_start); the labeled cache gets its sums. */
static tsgs_status start_supervised(run_t *r, tsgs_model *m, long max_blocks,
                                    tsgs__stop *stop, tsgs_error *err)
{
    const long blocks = start_blocks(&r->p, m->d, max_blocks);
    tsgs_status st = tsgs__warm_start(m, blocks, &r->labeled.rows, r->labeled.y,
                                      r->labeled.class_weight, r->labeled.n,
                                      r->p.c / (double)r->labeled.n, r->p.seed,
                                      r->threads, stop, err);
    if (st != TSGS_OK || !r->settings.labeled_cache)
        return st;
    tsgs__fview v = tsgs__model_view(m);
    return tsgs__rows_eval_sums(&v, m->cc, &r->labeled.rows, r->threads,
                                r->labeled.sums, err);
}

/* The run's derived settings (the model records them): C, sigma, C*, the
 * balance ratio and the feature budget; the mini-batch sizes, the steps T
 * and the blocks the budget allows. */
static tsgs_status resolve_settings(run_t *r, tsgs__train_job *job,
                                    long *T, long *max_blocks,
                                    tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    tsgs_params *p = &r->p;
    tsgs_status st;
    if (p->max_features < 0) /* all rows */
        p->max_features = tsgs__default_features(p, ds->n, ds->d);
    if ((p->c <= 0.0 || p->sigma <= 0.0) &&
        (st = choose_c_sigma(r, job, err)) != TSGS_OK)
        return st;
    if (p->eta <= 0.0)
        p->eta = p->c > 2.0 ? p->c : 2.0;
    if (p->c_star < 0.0)
        p->c_star = r->unlabeled.n
                        ? p->c * (double)r->labeled.n / (double)r->unlabeled.n
                        : 0.0;
    if (p->balance_ratio < 0.0)
        p->balance_ratio = (double)job->n_pos / (double)r->labeled.n;
    /* auto: centred unlabeled weights, the bias learned. The quantile
     * rule, tuned C and sigma given, cost 10-15 points on ijcnn1 (9.5%
     * positive) and susy; with no rule at all tsg put every row in one
     * class on the 50-d Gaussians (docs/stochastic-solvers.md, "The
     * stochastic solvers' defaults"). */
    if (r->unlabeled.n == 0)
        p->balance = 0;
    else if (p->balance < 0)
        p->balance = TSGS__BALANCE_CENTRED;
    r->labeled.batch_size = (size_t)p->batch_labeled < r->labeled.n
                                ? (size_t)p->batch_labeled
                                : r->labeled.n;
    r->unlabeled.batch_size = (size_t)p->batch_unlabeled < r->unlabeled.n
                                  ? (size_t)p->batch_unlabeled
                                  : r->unlabeled.n;
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
    r->unlabeled.balance_threshold = 0.0;
    r->frs.on = p->solver == TSGS_SOLVER_FRS;
    return TSGS_OK;
}

/* Sparse rows: every unlabeled row's features (and, with the labeled
 * cache, every labeled row's: their block's features are needed at every
 * step), in what the column cache leaves of the cache budget, for as many
 * directions as the run can make; none when they do not fit. */
static tsgs_status start_featcache(run_t *r, const tsgs_model *m, long T,
                                   long max_blocks, tsgs_error *err)
{
    long blocks = T + start_blocks(&r->p, m->d, max_blocks);
    blocks = blocks < max_blocks ? blocks : max_blocks;
    double left = r->p.cache_mb * 1048576.0;
    if (m->cc)
        left -= (double)m->cc->ncols * (double)m->cc->stride * sizeof(float);
    const size_t nl = r->settings.labeled_cache ? r->labeled.n : 0,
                 n = r->unlabeled.n + nl;
    if (tsgs__featcache_bytes(n, blocks * m->fs.dirs, r->settings.cos_sin) >
        left)
        return TSGS_OK;
    size_t *rows = malloc(sizeof(size_t) * (n ? n : 1));
    if (!rows)
        return TSGS__NOMEM(err);
    memcpy(rows, r->unlabeled.order, sizeof(size_t) * r->unlabeled.n);
    for (size_t i = 0, k = r->unlabeled.n; i < r->ds->n && k < n; i++)
        if (!isnan(r->ds->y[i])) /* labeled.rows's order (gather_labeled) */
            rows[k++] = i;
    tsgs_status st = tsgs__featcache_new(
        r->ds, &m->scaler, rows, n, blocks * m->fs.dirs, r->settings.cos_sin,
        left, &r->unlabeled.feature_cache, err);
    if (st == TSGS_OK && r->unlabeled.feature_cache && nl) {
        r->labeled.dataset_rows = malloc(sizeof(size_t) * nl);
        if (!r->labeled.dataset_rows)
            st = TSGS__NOMEM(err);
        else
            memcpy(r->labeled.dataset_rows, rows + r->unlabeled.n,
                   sizeof(size_t) * nl);
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
    tsgs_status st =
        tsgs__model_new(&r->p, job->ds->d,
                        r->frs.on || max_blocks < T ? max_blocks : T, &m, err);
    if (st != TSGS_OK)
        return st;
    /* the model owns the scaler from here */
    tsgs__model_adopt(m, job->label_neg, job->label_pos, &job->scaler);
    if (!r->labeled.rows.x) {
        /* sparse rows: the cache budget goes to the directions of their
         * most frequent columns instead of d-wide panels */
        m->cache_enabled = 0;
        long most = (max_blocks < T ? max_blocks : T) * m->fs.dirs;
        if ((st = tsgs__colcache_new(job->ds, most,
                                     r->p.cache_mb * 1048576.0, &m->cc,
                                     err)) != TSGS_OK)
            goto fail;
    }
    if (r->frs.on) {
        /* all features from the start, cached whatever cache-mb says: FRS
         * reads every one of them at every step */
        for (long b = 0; b < max_blocks; b++)
            if ((st = tsgs__model_add_block(m, err)) != TSGS_OK)
                goto fail;
        m->cache_enabled = 1;
        if ((st = tsgs__model_cache_sync(m, err)) != TSGS_OK)
            goto fail;
        r->frs.dirs = m->nblocks * m->fs.dirs;
        r->frs.groups = (r->frs.dirs + TSGS__LANES - 1) / TSGS__LANES;
    }
    /* Cache the labeled sums when keeping them current (n_l x r per step)
     * costs less than predicting the labeled mini-batch (B_l x M). */
    r->settings.labeled_cache =
        r->frs.on || (r->opt.labeled_cache >= 0
                          ? r->opt.labeled_cache
                          : (double)r->labeled.n * (double)m->fs.dirs <=
                                (double)r->labeled.batch_size *
                                    (double)max_blocks * (double)m->fs.dirs);
    if ((st = run_setup(r, m, max_blocks, err)) != TSGS_OK)
        goto fail;
    if (!r->labeled.rows.x && !r->frs.on &&
        (r->unlabeled.batch_size || r->settings.labeled_cache) &&
        (st = start_featcache(r, m, T, max_blocks, err)) != TSGS_OK)
        goto fail;
    *out = m;
    return TSGS_OK;
fail:
    tsgs_model_free(m);
    return st;
}

/* Steps t0 .. t1 by the team (team), until a step fails (r->step.status) or
 * the hooks ask to stop (r->step.stop); r->step.last_done gets the last step
 * run. The hooks are called on the calling thread (the team's master), as
 * progress reports without a monitor measurement: the measurement, which has a
 * team of its own, comes between two such stretches. */
static void run_stretch(run_t *r, tsgs_model *m, long t0, long t1)
{
    lane_t me;
    /* without it, the kernel reports a failure if it needs the scratch */
    tsgs__kernel_ws_init(&me.ws, r->d);
    for (long t = t0; t <= t1; t++) {
        tsgs_status st = tsgs__sgd_step(r, m, t, &me);
        /* st and r->step.stop: the same on every thread after the step's last
         * barrier */
        if (st != TSGS_OK) {
#ifdef _OPENMP
#pragma omp master
#endif
            r->step.status = st;
            break;
        }
        if (r->step.stop || r->ckpt.due)
            break;
    }
    tsgs__kernel_ws_free(&me.ws);
}

/* The checkpoint after step t (between two stretches), when the run
 * writes them; a failed write is said through the hooks' warn and the
 * run goes on (the checkpoint before it stays). */
static void write_checkpoint(run_t *r, const tsgs_model *m, long t,
                             const tsgs_train_hooks *hooks)
{
    const tsgs_checkpoint *ck = r->opt.ckpt_write;
    if (!ck)
        return;
    tsgs_error e;
    memset(&e, 0, sizeof e);
    if (tsgs__ckpt_write(r, m, t, &e) != TSGS_OK && hooks && hooks->warn) {
        char msg[sizeof e.message + 64];
        snprintf(msg, sizeof msg, "%s (training goes on)", e.message);
        hooks->warn(msg, hooks->user);
    }
    r->ckpt.next_due_s = tsgs__now_s() + ck->every_seconds;
}

/* What a run of steps decides once before its first step: the paths
 * its steps take (fast, split, the cache's update on the team), where a
 * stop is polled, and the step, stop and checkpoint states from t_first. */
static void steps_setup(run_t *r, const tsgs_model *m,
                        const tsgs_train_hooks *hooks, tsgs__stop *stop,
                        long T, long max_blocks, long t_first,
                        tsgs_error *err)
{
    r->t_start = tsgs__now_s();
    r->monitor_s = 0.0;
    r->step.err = err;
    r->hooks = hooks;
    r->T = T;
    r->settings.max_blocks = max_blocks;
    r->step.stop = 0;
    r->step.status = TSGS_OK;
    r->step.failed = 0;
    r->step.planned = r->ahead.step = 0;
    /* (dense rows only: the fast path plans a block's d-wide panel) */
    r->settings.fast = !r->frs.on && r->settings.labeled_cache &&
                       r->p.reuse != TSGS_REUSE_CHECK && r->labeled.rows.x;
    /* A step's work grows with the rows' width on sparse rows only (a row
     * of 10^7 non-zeros: 3.4 s a step): there the stop is polled inside
     * a step too; dense steps take milliseconds. Split over processes,
     * never inside a step: the stop is agreed in a step's exchange and
     * taken after that step on every process (src/mpi/train_mpi.c). */
    r->halt = !r->labeled.rows.x && !r->opt.steps_unpolled && !r->opt.split &&
                      stop->ask
                  ? stop
                  : NULL;
    /* the labeled cache's update (n_l x r) on the team when it is large */
    r->settings.team_updates_cache =
        (double)r->labeled.n * (double)m->fs.dirs > 65536.0;
    /* (a run split over processes gathers the unlabeled rows' values in
     * the serial section: its steps are not split steps) */
    r->settings.split_step =
        r->settings.fast && !r->settings.team_updates_cache &&
        !r->opt.explicit_decay && !r->opt.serial_labeled && !r->opt.split &&
        r->p.balance != TSGS__BALANCE_HOLD;
    r->labeled.sums_pending = 0;
    r->ckpt.due = 0;
    r->step.last_done = r->ckpt.steps_resumed = t_first - 1;
    if (r->opt.ckpt_write)
        r->ckpt.next_due_s = r->t_start + r->opt.ckpt_write->every_seconds;
}

/* Steps 1 .. T (or until the hooks ask to stop: *t_done gets the steps
 * run; on sparse rows `stop`, the run's, is polled inside a step too,
 * which a stop then abandons: *t_done the steps before it), with progress
 * reports and monitor measurements as asked; the last report is the
 * caller's, once the model is final. One parallel region per stretch of
 * steps between two monitor measurements (one per run without a
 * monitor). */
static tsgs_status run_steps(run_t *r, tsgs_model *m,
                             const tsgs_train_hooks *hooks, tsgs__stop *stop,
                             long T, long max_blocks, long t_first,
                             long *t_done, int *stopped, tsgs_error *err)
{
    const long long steps_ns = tsgs__now_ns();
    steps_setup(r, m, hooks, stop, T, max_blocks, t_first, err);
    *stopped = 0;
    const long every =
        tsgs__sgd_measure_due(hooks, 0) ? hooks->monitor_every : 0;
    for (long t = t_first; t <= T;) {
        long last = every ? (t + every - 1) / every * every : T;
        r->t1 = last = last > T ? T : last;
        if (r->halt)
            tsgs__sgd_mark(r, m);
#ifdef _OPENMP
#pragma omp parallel num_threads(r->threads) if (r->threads > 1)
#endif
        run_stretch(r, m, t, last);
        tsgs__sgd_flush(r, m);
        if (r->step.status != TSGS_OK)
            return r->step.status;
        if (r->step.stop) {
            *stopped = 1;
            *t_done = r->step.last_done;
            /* (not when the stop cut work before the steps short, such as
             * the grid or the supervised start: a run resumed from it
             * would not be the run uninterrupted) */
            const long long at = atomic_load(&stop->asked_ns);
            if (at == 0 || at >= steps_ns)
                write_checkpoint(r, m, r->step.last_done, hooks);
            return TSGS_OK;
        }
        if (r->ckpt.due) { /* a checkpoint: the stretch goes on after it */
            r->ckpt.due = 0;
            write_checkpoint(r, m, r->step.last_done, hooks);
            if (r->step.last_done < last) {
                t = r->step.last_done + 1;
                continue;
            }
        }
        if (last < T) /* a measurement is due after it */
            tsgs__sgd_report_progress(r, m, hooks, last, T, 1);
        t = last + 1;
    }
    *t_done = T;
    return TSGS_OK;
}

/* The model to step (start_model) and the state it starts from: a
 * checkpoint's (*t_resumed: its steps), the supervised warm start, or
 * none. */
static tsgs_status start_run(run_t *r, tsgs__train_job *job, long T,
                             long max_blocks, tsgs_model **m,
                             long *t_resumed, tsgs_error *err)
{
    TSGS_TRACE_START(t_model);
    tsgs_status st = start_model(r, job, T, max_blocks, m, err);
    if (st != TSGS_OK)
        return st;
    TSGS_TRACE_SPAN("sgd_start_model", 0, t_model);
    TSGS_TRACE_START(t_warm);
    if (r->opt.resume)
        st = tsgs__ckpt_restore(r, *m, T, max_blocks, t_resumed, err);
    else if (r->p.warm_start)
        st = start_supervised(r, *m, max_blocks, &job->stop, err);
    if (st != TSGS_OK)
        return st;
    TSGS_TRACE_SPAN("sgd_warm_start", 0, t_warm);
    return TSGS_OK;
}

static tsgs_status sgd_train(tsgs__train_job *job, tsgs_model **out,
                             int *stopped_early, tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    run_t r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.ds = ds;
    r.p = job->p;
    r.threads = job->team.threads;
    r.opt = job->opt;
    r.d = ds->d;
    r.labeled.n = job->nl;
    const int supervised = r.p.solver == TSGS_SOLVER_DSG ||
                           r.p.solver == TSGS_SOLVER_CDSG;
    r.unlabeled.n =
        supervised ? 0 : ds->n - r.labeled.n; /* DSG leaves them out */
    long T = 0, max_blocks = 0, t_done = 0, t_resumed = 0;
    int stopped = 0;
    tsgs_model *m = NULL;
    TSGS_TRACE_START(t_set);
    tsgs_status st = gather_labeled(&r, job, err);
    /* (resuming: C and sigma the checkpoint's) */
    if (st == TSGS_OK)
        st = tsgs__ckpt_match(&r, job, err);
    if (st == TSGS_OK)
        st = resolve_settings(&r, job, &T, &max_blocks, err);
    TSGS_TRACE_SPAN("sgd_settings_grid", 0, t_set);
    if (st != TSGS_OK) {
        run_free(&r);
        return st;
    }
    if ((st = start_run(&r, job, T, max_blocks, &m, &t_resumed, err)) !=
        TSGS_OK)
        goto fail;
    const tsgs_params *p = &r.p;
    tsgs__binding *pinned = tsgs__team_bind(&job->team);
    /* Every thread reads random rows: spread their pages over the NUMA
     * nodes the threads run on (a no-op on one node). They are the
     * caller's: moved only when the caller asked for a binding. */
    if (ds->x && (p->bind == TSGS_BIND_COMPACT || p->bind == TSGS_BIND_SCATTER))
        tsgs__place_interleaved(ds->x, ds->n * ds->d * sizeof(float),
                                r.threads, p->bind);
    TSGS_TRACE_START(t_steps);
    st = run_steps(&r, m, job->hooks, &job->stop, T, max_blocks,
                   t_resumed + 1, &t_done, &stopped, err);
    TSGS_TRACE_SPAN("sgd_steps", T, t_steps);
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
        tsgs__sgd_report_progress(&r, m, job->hooks, t_done, T,
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

/* The grid's feature sets when C or sigma is chosen (model_select.c: its
 * widths, or one set at a given sigma, on the first blocks), then the
 * steps' blocks, made for the feature cache and again where the
 * supervised start or the model's panels need them: counted by a
 * throwaway counter in features.c on a 300-wide CSV (every solver of this file: 9 first
 * blocks' worth chosen, 2 given). Directions regenerated every step
 * (--cache-mb 0) are not counted. */
static double sgd_directions(const tsgs_dataset *ds, const tsgs_params *p)
{
    const tsgs__fspec fs = tsgs__fspec_of(p, ds->d);
    const double first = (double)first_blocks(p, ds->d) * (double)fs.dirs;
    const long features = p->max_features == 0
                              ? sgd_steps(ds, p) * p->block_size
                              : tsgs__default_features(p, ds->n, ds->d);
    const double budget =
        (double)tsgs__blocks_for(p, features) * (double)fs.dirs;
    const int c_given = p->c > 0.0 || p->c_total > 0.0;
    const double grid = p->sigma > 0.0 ? (c_given ? 0.0 : 1.0) : 7.0;
    return grid * first + 2.0 * budget;
}

const tsgs__solver tsgs__solver_sgd = {sgd_train, sgd_steps,
                                       sgd_directions};
