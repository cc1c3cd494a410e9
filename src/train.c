/* Training, whatever the solver: resolve the data once (resolve: finite
 * values, a dense copy of sparse rows for a solver that needs one, the
 * classes, the labeled rows, the scaler), then train binary problems on
 * it (train_binary: the two-class training, one-vs-rest's classes, the
 * calibration folds of probability outputs), each handed to the solver
 * named by the parameters (solvers/solver.h). */
#include "model/ovr_train.h"
#include "select/model_select.h"
#include "common/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this the stochastic solvers fold the lazy scale into the
 * coefficients: far from double's limits, and rare. */
#define SCALE_FLOOR 1e-150

const tsgs__solver *tsgs__solver_of(tsgs_solver id)
{
    switch (id) {
    case TSGS_SOLVER_SAFE: return &tsgs__solver_safe;
    case TSGS_SOLVER_BS3VM: return &tsgs__solver_bs3vm;
    default: return &tsgs__solver_sgd; /* tsg, dsg, frs, cdsg */
    }
}

/* A training's data, resolved once (resolve): what every binary problem
 * trained from it reads (the two-class training itself, one-vs-rest's
 * classes, the calibration folds of probability outputs). */
typedef struct {
    const tsgs_dataset *ds; /* the rows the solvers read: the caller's, or
                               `dense` */
    tsgs_dataset *dense;    /* sparse rows' dense copy for a solver without
                               a sparse path (owned); else NULL */
    tsgs__omp_env env;      /* the OpenMP environment, read once by the
                               training's entry (tsgs__train_split) */
    int threads;            /* the team for the params' threads in env */
    tsgs_directions directions; /* auto: iid for sparse rows */
    tsgs_scaling scale;     /* auto resolved (by the classes, the solver) */
    int zero_cols;          /* the scaler's (scale auto: 1) */
    double *classes;        /* the labeled rows' classes, ascending (k) */
    size_t k, top;          /* top: the labeled rows of the largest */
    size_t *lidx, nl;       /* the labeled rows, ascending */
    int scaler_by_labels;   /* the class stretch: fitted per problem, on
                               its labels */
    tsgs__scaler scaler;    /* else fitted on ds once; each problem's model
                               takes a copy */
    long long stop_asked_ns; /* when the caller asked to stop during the
                                fit (0: not), which the problems carry */
} resolved;

/* One binary problem of a resolved training: its rows with labels of
 * two classes (the caller's, one class's +1 against the others' -1, a
 * fold's with its held-out rows unlabeled). */
typedef struct {
    const tsgs_dataset *ds; /* r->ds's rows, the problem's labels */
    double neg, pos;        /* its classes, neg < pos */
    size_t n_pos;           /* labeled rows of pos */
    const size_t *lidx;     /* its labeled rows, ascending */
    size_t nl;
} binary_problem;

static tsgs_status train_binary(const resolved *r, const binary_problem *b,
                                const tsgs_params *params,
                                const tsgs_train_hooks *hooks,
                                const tsgs__train_opts *opt,
                                const tsgs__class_job *cls, tsgs_model **out,
                                int *stopped_early, tsgs_error *err);

/* Labeled rows of fewer than two classes: the error that says which. */
static tsgs_status too_few_classes(size_t k, double only, tsgs_error *err)
{
    if (k == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "labels: no labeled rows to train on");
    return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                      "labels: every labeled row has label %g; training "
                      "needs two classes or more",
                      only);
}

/* The classes among the labeled rows (ascending): at least two. */
static tsgs_status find_classes(const tsgs_dataset *ds, int threads,
                                double **classes, size_t *k, size_t *top,
                                tsgs_error *err)
{
    tsgs_status st = tsgs__class_values(ds, threads, classes, k, top, err);
    if (st != TSGS_OK)
        return st;
    if (*k >= 2)
        return TSGS_OK;
    double only = *k ? (*classes)[0] : 0.0;
    free(*classes);
    *classes = NULL;
    return too_few_classes(*k, only, err);
}

static tsgs_status check_finite(const tsgs_dataset *ds, int threads,
                                tsgs_error *err)
{
    if (tsgs__sparse(ds)) {
        for (size_t i = 0; i < ds->n; i++)
            for (size_t j = ds->ptr[i]; j < ds->ptr[i + 1]; j++)
                if (!isfinite(ds->val[j]))
                    return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                      "row %zu, feature %u: value is not "
                                      "finite",
                                      i + 1, ds->col[j] + 1u);
        return TSGS_OK;
    }
    /* dense rows: the first non-finite value in row order */
    const size_t total = ds->n * ds->d;
    const tsgs__held *h = ds->held;
    size_t first = h ? total : tsgs__first_nonfinite(ds->x, total, threads);
    if (h) { /* rows held in shares: each process's, the first of them */
        const int P = h->size;
        size_t *at = malloc(sizeof(size_t) * (size_t)P),
               *k = malloc(sizeof(size_t) * (size_t)(P + 1));
        int failed = !at || !k;
        if (!failed) {
            const size_t lo = h->row0[h->rank] * ds->d,
                         hi = h->row0[h->rank + 1] * ds->d;
            const size_t j = tsgs__first_nonfinite(ds->x + lo, hi - lo,
                                                   threads);
            for (int q = 0; q <= P; q++)
                k[q] = (size_t)q;
            at[h->rank] = j < hi - lo ? lo + j : total;
        }
        failed = h->pieces(h->ctx, at, sizeof(size_t), k, failed);
        first = total;
        for (int q = 0; !failed && q < P; q++)
            first = at[q] < first ? at[q] : first;
        free(at);
        free(k);
        if (failed)
            return TSGS__NOMEM(err);
    }
    if (first < total)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "row %zu, feature %zu: value is not finite",
                          first / ds->d + 1, first % ds->d + 1);
    return TSGS_OK;
}

#define PROB_FOLDS 5 /* as LIBSVM's -b 1 */

/* The threads of a problem trained with p: p's (1 for classes side by
 * side), else the training's. */
static int team_threads(const resolved *r, const tsgs_params *p)
{
    return p->threads > 0 ? p->threads : r->threads;
}

/* m's decision values of the rows rows[0..n) of ds into out. */
static tsgs_status decisions_of_rows(const tsgs_model *m,
                                     const tsgs_dataset *ds,
                                     const size_t *rows, size_t n,
                                     int threads, double *out,
                                     tsgs_error *err)
{
    tsgs_dataset *sub = NULL;
    tsgs_status st = tsgs_dataset_select(ds, rows, n, &sub, err);
    if (st == TSGS_OK)
        st = tsgs_predict(m, sub, threads, out, err);
    tsgs_dataset_free(sub);
    return st;
}

/* Fold f of problem b's labeled rows held out (made unlabeled, so the fit
 * still sees every row) on a relabeled view of its rows, as *view and
 * *fb (its labeled rows in kept); their rows into held (nh). */
static tsgs_status hold_out(const binary_problem *b, const int *fold, int f,
                            tsgs_dataset **view, binary_problem *fb,
                            size_t *kept, size_t *held, size_t *nh,
                            tsgs_error *err)
{
    tsgs_status st = tsgs__label_view(b->ds, view, err);
    if (st != TSGS_OK)
        return st;
    size_t n_neg = 0, nk = 0;
    *nh = 0;
    for (size_t i = 0; i < b->nl; i++) {
        const size_t row = b->lidx[i];
        if (fold[i] == f) {
            (*view)->y[row] = NAN;
            held[(*nh)++] = row;
            continue;
        }
        kept[nk++] = row;
        n_neg += (*view)->y[row] != b->pos;
    }
    *fb = (binary_problem){*view, b->neg, b->pos, nk - n_neg, kept, nk};
    if (fb->n_pos && n_neg)
        return TSGS_OK;
    return too_few_classes(fb->n_pos || n_neg, fb->n_pos ? b->pos : b->neg,
                           err);
}

/* The decision values of the labeled rows held out of fit f (stratified
 * folds) into out[i] for each labeled row i of fold f. */
static tsgs_status fold_decisions(const resolved *r, const binary_problem *b,
                                  const tsgs_params *q,
                                  const tsgs__train_opts *opt,
                                  const int *fold, int f, double *out,
                                  tsgs_error *err)
{
    const size_t nl = b->nl;
    tsgs_dataset *view = NULL;
    tsgs_model *m = NULL;
    size_t *held = malloc(sizeof(size_t) * (nl ? nl : 1));
    size_t *kept = malloc(sizeof(size_t) * (nl ? nl : 1));
    double *dec = malloc(sizeof(double) * (nl ? nl : 1));
    tsgs_status st = TSGS_OK;
    if (!held || !kept || !dec) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    binary_problem fb;
    size_t nh = 0;
    if ((st = hold_out(b, fold, f, &view, &fb, kept, held, &nh, err)) ||
        (st = train_binary(r, &fb, q, NULL, opt, NULL, &m, NULL, err)) ||
        (st = decisions_of_rows(m, b->ds, held, nh, team_threads(r, q), dec,
                                err)))
        goto done;
    for (size_t i = 0, h = 0; i < nl; i++)
        if (fold[i] == f)
            out[i] = dec[h++];
done:
    tsgs_model_free(m);
    tsgs__view_free(view);
    free(held);
    free(kept);
    free(dec);
    return st;
}

/* Probability outputs for a binary model m trained on problem b: Platt's
 * sigmoid on decision values from PROB_FOLDS-fold cross-validation of the
 * same training on the labeled rows (probability.c). A class of one
 * labeled row cannot be held out: then m's own decision values stand in. */
static tsgs_status calibrate(const resolved *r, const binary_problem *b,
                             const tsgs_params *params,
                             const tsgs__train_opts *opt, tsgs_model *m,
                             tsgs_error *err)
{
    const size_t nl = b->nl;
    size_t npos = 0;
    size_t *scratch = malloc(sizeof(size_t) * (nl ? nl : 1));
    double *y = malloc(sizeof(double) * (nl ? nl : 1));
    double *f = malloc(sizeof(double) * (nl ? nl : 1));
    int *fold = malloc(sizeof(int) * (nl ? nl : 1));
    tsgs_status st = TSGS_OK;
    if (!scratch || !y || !f || !fold) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    for (size_t j = 0; j < nl; j++) {
        y[j] = b->ds->y[b->lidx[j]] == m->label_pos ? 1.0 : -1.0;
        npos += y[j] > 0.0;
    }
    const size_t least = npos < nl - npos ? npos : nl - npos;
    if (least >= 2) {
        const int k = least < PROB_FOLDS ? (int)least : PROB_FOLDS;
        tsgs__stratified_folds(y, nl, k, params->seed, 7, scratch, fold);
        /* The folds fit with the C and sigma the model resolved, so that
         * their decision values are on the model's scale. */
        tsgs_params q = *params;
        q.probability = 0;
        q.c = m->params.c;
        q.sigma = m->params.sigma;
        tsgs__train_opts own = *opt;
        own.ckpt_write = NULL; /* the main run's alone */
        own.resume = NULL;
        own.ckpt_settings = NULL;
        for (int fi = 0; fi < k && st == TSGS_OK; fi++)
            st = fold_decisions(r, b, &q, &own, fold, fi, f, err);
    } else {
        st = decisions_of_rows(m, b->ds, b->lidx, nl,
                               team_threads(r, params), f, err);
    }
    if (st == TSGS_OK) {
        tsgs__platt_fit(f, y, nl, &m->prob_a, &m->prob_b);
        m->has_prob = 1;
    }
done:
    free(scratch);
    free(y);
    free(f);
    free(fold);
    return st;
}

/* The job's monitor accuracy (solver.h), on the job's team. */
static double monitor_accuracy(const tsgs__train_job *job,
                               const tsgs_model *m)
{
    return tsgs__accuracy_on(m, job->hooks->monitor, job->team.threads,
                             NULL);
}

/* Problem b of r with params (r's resolved directions and scale), hooks
 * and opt (r's zero_cols), as one class of one-vs-rest where cls is not
 * NULL: the scaler (r's copy, or the class stretch fitted on b's labels),
 * the solver, and the calibration of probability outputs when asked and
 * the solver made none. */
static tsgs_status train_binary(const resolved *r, const binary_problem *b,
                                const tsgs_params *params,
                                const tsgs_train_hooks *hooks,
                                const tsgs__train_opts *opt,
                                const tsgs__class_job *cls, tsgs_model **out,
                                int *stopped_early, tsgs_error *err)
{
    tsgs__train_job job;
    memset(&job, 0, sizeof job);
    job.ds = b->ds;
    job.p = *params;
    job.hooks = hooks;
    tsgs__stop_init(&job.stop, hooks);
    atomic_store(&job.stop.asked_ns, r->stop_asked_ns);
    job.opt = *opt;
    job.cls = cls;
    job.label_neg = b->neg;
    job.label_pos = b->pos;
    job.n_pos = b->n_pos;
    job.lidx = b->lidx;
    job.nl = b->nl;
    job.team.threads = team_threads(r, params);
    job.team.bind = params->bind;
    job.team.omp_placed = r->env.placed;
    job.team.warn = hooks ? hooks->warn : NULL;
    job.team.user = hooks ? hooks->user : NULL;
    job.monitor_accuracy = monitor_accuracy;
    TSGS_TRACE_START(t_scaler);
    tsgs_status st =
        r->scaler_by_labels
            ? tsgs__scaler_fit_stop(b->ds, params->scale, opt->zero_cols,
                                    job.team.threads, &job.stop, &job.scaler,
                                    err)
            : tsgs__scaler_copy(&r->scaler, &job.scaler, err);
    if (st != TSGS_OK)
        return st;
    TSGS_TRACE_SPAN("scaler", 0, t_scaler);
    int stopped = 0;
    TSGS_TRACE_START(t_solver);
    st = tsgs__solver_of(params->solver)->train(&job, out, &stopped, err);
    TSGS_TRACE_SPAN("solver", 0, t_solver);
    tsgs__scaler_clear(&job.scaler); /* a no-op once a model took it */
    if (stopped_early)
        *stopped_early = stopped;
    /* the safe solver fits them from its own selection CV when it runs one */
    if (st == TSGS_OK && params->probability && !stopped &&
        !(*out)->has_prob &&
        (st = calibrate(r, b, params, opt, *out, err)) != TSGS_OK) {
        tsgs_model_free(*out);
        *out = NULL;
    }
    return st;
}

/* Dense rows of this many bytes at most are made for a solver that needs
 * them (bs3vm, frs, orthogonal directions) from sparse rows. */
#define DENSIFY_MAX (256.0 * 1048576.0)

/* Sparse rows: iid directions (`directions auto` resolves to them, and
 * the model records it: orthogonal groups need whole d-vectors); the
 * solvers that have no sparse path get a dense copy when it is small, else
 * an error naming the fix. */
static tsgs_status resolve_sparse(const tsgs_dataset *ds,
                                  const tsgs_params *p, resolved *r,
                                  tsgs_error *err)
{
    if (r->directions == TSGS_DIRECTIONS_AUTO)
        r->directions = TSGS_DIRECTIONS_IID;
    const char *who = p->solver == TSGS_SOLVER_BS3VM ? "solver bs3vm"
                      : p->solver == TSGS_SOLVER_FRS ? "solver frs"
                      : r->directions == TSGS_DIRECTIONS_ORTHOGONAL &&
                              p->kernel == TSGS_KERNEL_RBF
                          ? "directions orthogonal"
                          : NULL;
    if (!who)
        return TSGS_OK;
    size_t *all = malloc(sizeof(size_t) * ds->n);
    if (!all)
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < ds->n; i++)
        all[i] = i;
    tsgs_status st = tsgs_dataset_select(ds, all, ds->n, &r->dense, err);
    free(all);
    if (st == TSGS_OK)
        st = tsgs__dataset_densify(r->dense, DENSIFY_MAX, who, err);
    r->ds = r->dense;
    return st;
}

/* The rows: checked finite (dense rows that the scaler will fit are
 * checked by its first pass, with the same message for the same (first)
 * value: a pass of their own cost 6-10 ms of a 0.3 s training on 5M rows
 * and 16 threads), sparse ones resolved (resolve_sparse). */
static tsgs_status resolve_rows(const tsgs_dataset *ds, const tsgs_params *p,
                                int threads, resolved *r, tsgs_error *err)
{
    if (ds->n == 0 || ds->d == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "training data: %zu rows of %zu features: nothing "
                          "to train on",
                          ds->n, ds->d);
    const int scaler_checks =
        !tsgs__sparse(ds) && p->scale != TSGS_SCALE_NONE;
    tsgs_status st = TSGS_OK;
    if (!scaler_checks && (st = check_finite(ds, threads, err)) != TSGS_OK)
        return st;
    r->ds = ds;
    r->directions = p->directions;
    return tsgs__sparse(ds) ? resolve_sparse(ds, p, r, err) : TSGS_OK;
}

/* The labels: the classes (two or more), the labeled rows, and the scale
 * that `scale auto` stands for. */
static tsgs_status resolve_labels(const tsgs_params *p, int threads,
                                  resolved *r, tsgs_error *err)
{
    tsgs_status st =
        find_classes(r->ds, threads, &r->classes, &r->k, &r->top, err);
    if (st != TSGS_OK)
        return st;
    r->nl = tsgs__label_split(r->ds->y, r->ds->n, threads, NULL, NULL);
    r->lidx = malloc(sizeof(size_t) * (r->nl ? r->nl : 1));
    if (!r->lidx)
        return TSGS__NOMEM(err);
    tsgs__label_split(r->ds->y, r->ds->n, threads, r->lidx, NULL);
    /* scale auto: the class stretch for the safe solver on two classes
     * (it undoes the z-score's shrink of an informative feature:
     * docs/results.md, "Accuracy with default settings"), z-score for the
     * other solvers (not measured with it) and for one-vs-rest (measured
     * with z-score; a stretch per class would give the classes' models,
     * which share one sigma, different distances) */
    r->scale = p->scale;
    if (r->scale == TSGS_SCALE_AUTO) {
        r->scale = r->k == 2 && p->solver == TSGS_SOLVER_SAFE
                       ? TSGS_SCALE_CLASS
                       : TSGS_SCALE_ZSCORE;
        /* and mostly-zero columns by max |x| (scaler.c), also in the
         * one-vs-rest classes and the calibration fits */
        r->zero_cols = 1;
    }
    return TSGS_OK;
}

static void resolved_free(resolved *r)
{
    tsgs_dataset_free(r->dense);
    free(r->classes);
    free(r->lidx);
    tsgs__scaler_clear(&r->scaler);
}

/* ds and p (checked) resolved into *r (resolved_free it, failed or not):
 * the rows (finite; a dense copy of sparse ones for a solver that needs
 * it), the labels and the scaler, once for every binary problem. */
static tsgs_status resolve(const tsgs_dataset *ds, const tsgs_params *p,
                           const tsgs__omp_env *env,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, resolved *r,
                           tsgs_error *err)
{
    memset(r, 0, sizeof *r);
    r->env = *env;
    const int threads = r->threads = tsgs__threads_in(p->threads, env);
    TSGS_TRACE_START(t_fin);
    tsgs_status st = resolve_rows(ds, p, threads, r, err);
    if (st != TSGS_OK)
        return st;
    TSGS_TRACE_SPAN("finite", 0, t_fin);
    TSGS_TRACE_START(t_cls);
    r->zero_cols = opt->zero_cols;
    if ((st = resolve_labels(p, threads, r, err)) != TSGS_OK)
        return st;
    TSGS_TRACE_SPAN("classes", 0, t_cls);
    r->scaler_by_labels =
        r->scale == TSGS_SCALE_CLASS && !tsgs__sparse(r->ds);
    if (r->scaler_by_labels)
        return TSGS_OK;
    TSGS_TRACE_START(t_scaler);
    tsgs__stop stop;
    tsgs__stop_init(&stop, hooks);
    st = tsgs__scaler_fit_stop(r->ds, r->scale, r->zero_cols, threads, &stop,
                               &r->scaler, err);
    r->stop_asked_ns = atomic_load(&stop.asked_ns);
    TSGS_TRACE_SPAN("scaler", 0, t_scaler);
    return st;
}

/* One class of r's one-vs-rest (model/ovr_train.c): view's rows, +1 for
 * the class. */
static tsgs_status train_class_view(const void *ctx, const tsgs_dataset *view,
                                    size_t n_pos, const tsgs_params *p,
                                    const tsgs_train_hooks *hooks,
                                    const tsgs__train_opts *opt,
                                    const tsgs__class_job *cls,
                                    tsgs_model **out, int *stopped,
                                    tsgs_error *err)
{
    const resolved *r = ctx; /* the view's labeled rows are r's */
    const binary_problem b = {view, -1.0, 1.0, n_pos, r->lidx, r->nl};
    return train_binary(r, &b, p, hooks, opt, cls, out, stopped, err);
}

/* r's training with params (the solvers' unit) made concrete by r: one
 * binary problem, or one-vs-rest's. */
static tsgs_status train_resolved(const resolved *r, const tsgs_params *params,
                                  const tsgs_train_hooks *hooks,
                                  const tsgs__train_opts *opt,
                                  const tsgs__class_job *cls,
                                  tsgs_model **out, int *stopped_early,
                                  tsgs_error *err)
{
    tsgs_params p = *params;
    p.directions = r->directions;
    p.scale = r->scale;
    tsgs__train_opts o = *opt;
    o.zero_cols = r->zero_cols;
    if (r->k > 2) {
        const tsgs__ovr_data d = {r->ds,   r->classes, r->k, r->lidx,
                                  r->nl,   r->threads, train_class_view, r};
        return tsgs__train_ovr(&d, &p, hooks, &o, out, stopped_early, err);
    }
    const binary_problem b = {r->ds,  r->classes[0], r->classes[1],
                              r->top, r->lidx,       r->nl};
    return train_binary(r, &b, &p, hooks, &o, cls, out, stopped_early, err);
}

long tsgs_train_steps(const tsgs_dataset *ds, const tsgs_params *p)
{
    return tsgs__solver_of(p->solver)->steps(ds, p);
}

/* Cells of rows (non-zeros of sparse ones) from which a training whose
 * thread count is left to the library measures the cores' load first (a
 * 50 ms wait): smaller trainings end before it would pay. */
#define LOAD_MIN_CELLS 4194304.0

/* A team asked for (--threads, OMP_NUM_THREADS) is kept. Where it has
 * more threads than the cores other processes leave free, the threads
 * that share a busy core hold the team at every barrier (issue #33: with
 * one of two cores busy, 2 threads ran at 0.56-0.87x of 1 thread): the
 * caller is told, with the way out. Measured only for a listener. */
static void warn_busy_team(int team, const tsgs_train_hooks *hooks)
{
    if (team < 2 || !hooks || !hooks->warn)
        return;
    const int cores = tsgs__machine_cores();
    const int busy = tsgs__busy_cpus();
    const int free_cores = tsgs__free_team(cores, busy);
    if (busy <= 0 || team <= free_cores)
        return;
    char msg[320];
    snprintf(msg, sizeof msg,
             "%d of %d cores busy with other processes: the %d threads "
             "asked for wait at every step for those that share them, and "
             "may train slower than %d (leave --threads and "
             "OMP_NUM_THREADS unset to fit the team to the free cores)",
             cores - free_cores, cores, team, free_cores);
    hooks->warn(msg, hooks->user);
}

/* Where the thread count is left to the library (0, no OMP_NUM_THREADS)
 * and the rows are many, the team of the cores other processes leave
 * free (cpu_load.c), said through hooks->warn when it is smaller than one
 * per core; 1 when it set one, to clear after the training. A team asked
 * for is kept (warn_busy_team). */
static int fit_team_to_load(const tsgs_dataset *ds, const tsgs_params *p,
                            const tsgs__omp_env *env,
                            const tsgs_train_hooks *hooks)
{
    if (!ds || !p)
        return 0;
    const double cells = tsgs__sparse(ds) ? (double)tsgs__dataset_nnz(ds)
                                          : (double)ds->n * (double)ds->d;
    if (cells < LOAD_MIN_CELLS)
        return 0;
    const int asked = p->threads > 0 ? p->threads : env->threads;
    if (asked > 0) {
        warn_busy_team(asked, hooks);
        return 0;
    }
    const int cores = tsgs__threads_in(0, env);
    const int busy = tsgs__busy_cpus();
    const int team = tsgs__free_team(cores, busy);
    if (team >= cores)
        return 0;
    tsgs__set_auto_team(team);
    if (hooks && hooks->warn) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%d of %d cores busy with other processes: training on "
                 "%d thread%s (--threads N to choose)",
                 cores - team, cores, team, team == 1 ? "" : "s");
        hooks->warn(msg, hooks->user);
    }
    return 1;
}

/* The user's C per labeled row becomes the solvers' weight of the mean
 * hinge loss, class weights a weight per row (cost.c), and the model's C
 * per row again at the end. */
tsgs_status tsgs_train(const tsgs_dataset *ds, const tsgs_params *params,
                       const tsgs_train_hooks *hooks, tsgs_model **out,
                       int *stopped_early, tsgs_error *err)
{
    return tsgs__train_split(ds, params, hooks, NULL, NULL, out,
                             stopped_early, err);
}

tsgs_status tsgs_train_checkpointed(const tsgs_dataset *ds,
                                    const tsgs_params *params,
                                    const tsgs_train_hooks *hooks,
                                    const tsgs_checkpoint *ck,
                                    tsgs_model **out, int *stopped_early,
                                    tsgs_error *err)
{
    return tsgs__train_split(ds, params, hooks, NULL, ck, out,
                             stopped_early, err);
}

/* The checkpoint options ck (NULL: none) checked against params' solver,
 * and the checkpoint to resume from read (*resume; NULL: none). */
static tsgs_status open_checkpoints(const tsgs_params *params,
                                    const tsgs_checkpoint *ck,
                                    tsgs__ckpt **resume, tsgs_error *err)
{
    *resume = NULL;
    if (!ck || (!ck->path && !ck->resume))
        return TSGS_OK;
    if (params->solver == TSGS_SOLVER_SAFE ||
        params->solver == TSGS_SOLVER_BS3VM)
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, NULL, 0,
                          "checkpoints: solver %s is not checkpointed (the "
                          "stochastic solvers tsg, dsg, cdsg and frs are)",
                          params->solver == TSGS_SOLVER_SAFE ? "safe"
                                                             : "bs3vm");
    if (!(ck->every_seconds >= 0.0) || ck->every_steps < 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "checkpoints: every_seconds = %g and every_steps "
                          "= %ld must be >= 0",
                          ck->every_seconds, ck->every_steps);
    return ck->resume ? tsgs__ckpt_read(ck->resume, resume, err) : TSGS_OK;
}

tsgs_status tsgs__train_split(const tsgs_dataset *ds,
                              const tsgs_params *params,
                              const tsgs_train_hooks *hooks,
                              const tsgs__split *split,
                              const tsgs_checkpoint *ck, tsgs_model **out,
                              int *stopped_early, tsgs_error *err)
{
    if (!ds || !params || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train: NULL argument");
    tsgs_status st = tsgs_params_check(params, err);
    if (st != TSGS_OK)
        return st;
    tsgs__ckpt *resume = NULL;
    if ((st = open_checkpoints(params, ck, &resume, err)) != TSGS_OK)
        return st;
    char *settings = NULL;
    if (ck && (ck->path || ck->resume) &&
        !(settings = tsgs__ckpt_settings_text(params))) {
        tsgs__ckpt_free(resume);
        return TSGS__NOMEM(err);
    }
    const tsgs__omp_env env = tsgs__omp_env_read(); /* once a training */
    const int fitted = fit_team_to_load(ds, params, &env, hooks);
    /* (a run over processes: rank 0 writes) */
    tsgs__train_opts opt = {
        .scale_floor = SCALE_FLOOR, .labeled_cache = -1, .split = split,
        .ckpt_write = ck && ck->path && (!split || split->rank == 0) ? ck
                                                                     : NULL,
        .resume = resume, .ckpt_settings = settings};
    resolved r;
    double *row_w = NULL;
    tsgs_params q = *params;
    if ((st = resolve(ds, params, &env, hooks, &opt, &r, err)) == TSGS_OK) {
        tsgs__cost_to_solver(&q, r.nl);
        st = tsgs_params_check(&q, err);
    }
    if (st == TSGS_OK &&
        (st = tsgs__cost_row_weights(ds, params, &row_w, err)) == TSGS_OK) {
        opt.row_w = row_w;
        st = train_resolved(&r, &q, hooks, &opt, NULL, out, stopped_early,
                            err);
    }
    free(row_w);
    tsgs__ckpt_free(resume);
    free(settings);
    if (fitted)
        tsgs__set_auto_team(0);
    if (st == TSGS_OK) {
        tsgs__cost_to_user(*out, params, r.nl);
        (*out)->layout = ds->layout;
    }
    resolved_free(&r);
    return st;
}

tsgs_status tsgs__train_ex(const tsgs_dataset *ds, const tsgs_params *params,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, tsgs_model **out,
                           int *stopped_early, tsgs_error *err)
{
    return tsgs__train_class_ex(ds, params, hooks, opt, NULL, out,
                                stopped_early, err);
}

tsgs_status tsgs__train_class_ex(const tsgs_dataset *ds,
                                 const tsgs_params *params,
                                 const tsgs_train_hooks *hooks,
                                 const tsgs__train_opts *opt,
                                 const struct tsgs__class_job *cls,
                                 tsgs_model **out, int *stopped_early,
                                 tsgs_error *err)
{
    if (!ds || !params || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train: NULL argument");
    tsgs_status st = tsgs_params_check(params, err);
    if (st != TSGS_OK)
        return st;
    const tsgs__omp_env env = tsgs__omp_env_read();
    resolved r;
    if ((st = resolve(ds, params, &env, hooks, opt, &r, err)) == TSGS_OK)
        st = train_resolved(&r, params, hooks, opt, cls, out, stopped_early,
                            err);
    resolved_free(&r);
    return st;
}
