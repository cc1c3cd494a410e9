/* Training, whatever the solver: check the data (finite values, two
 * classes), fit the scaler, and hand the job to the solver named by the
 * parameters (solvers/solver.h). */
#include "solvers/solver.h"
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
    if (*k == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "labels: no labeled rows to train on");
    return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                      "labels: every labeled row has label %g; training "
                      "needs two classes or more",
                      only);
}

/* One class of one-vs-rest: that class +1 against the others on a
 * relabeled view of ds, opt naming the class. */
static tsgs_status train_class(const tsgs_dataset *ds, double cls,
                               const tsgs_params *p,
                               const tsgs_train_hooks *hooks,
                               const tsgs__train_opts *opt, tsgs_model **out,
                               int *stopped, tsgs_error *err)
{
    tsgs_dataset *view = NULL;
    tsgs_status st = tsgs__ovr_view(ds, cls, &view, err);
    if (st == TSGS_OK)
        st = tsgs__train_ex(view, p, hooks, opt, out, stopped, err);
    tsgs__view_free(view);
    return st;
}

/* The caller's hooks, called by one class at a time when classes train
 * side by side. */
static void progress_one_at_a_time(const tsgs_progress *pr, void *user)
{
    const tsgs_train_hooks *h = user;
#ifdef _OPENMP
#pragma omp critical(tsgs_ovr_hooks)
#endif
    h->progress(pr, h->user);
}

static int should_stop_one_at_a_time(void *user)
{
    const tsgs_train_hooks *h = user;
    int stop;
#ifdef _OPENMP
#pragma omp critical(tsgs_ovr_hooks)
#endif
    stop = h->should_stop(h->user);
    return stop;
}

static void warn_one_at_a_time(const char *message, void *user)
{
    const tsgs_train_hooks *h = user;
#ifdef _OPENMP
#pragma omp critical(tsgs_ovr_hooks)
#endif
    h->warn(message, h->user);
}

/* Classes 1 .. k - 1 side by side, one thread each, `threads` at a time:
 * the first has made what they share, which they only read. Each model
 * records the caller's threads and binding, as when trained alone (the
 * model is the same bits on any number of threads). */
static tsgs_status train_side_by_side(const tsgs_dataset *ds,
                                      const tsgs_params *params,
                                      const tsgs_train_hooks *hooks,
                                      const tsgs__train_opts *opt,
                                      const double *classes, size_t k,
                                      int threads, tsgs_model **subs,
                                      int *stopped, tsgs_error *err)
{
    tsgs_status *sts = calloc(k, sizeof *sts);
    tsgs_error *errs = calloc(k, sizeof *errs);
    int *stops = calloc(k, sizeof *stops);
    if (!sts || !errs || !stops) {
        free(sts);
        free(errs);
        free(stops);
        return TSGS__NOMEM(err);
    }
    tsgs_params one = *params;
    one.threads = 1;
    one.bind = TSGS_BIND_NONE; /* the team's threads are the caller's */
    tsgs_train_hooks serial;
    if (hooks) {
        serial = *hooks;
        serial.user = (void *)hooks;
        serial.progress = hooks->progress ? progress_one_at_a_time : NULL;
        serial.should_stop =
            hooks->should_stop ? should_stop_one_at_a_time : NULL;
        serial.warn = hooks->warn ? warn_one_at_a_time : NULL;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (size_t c = 1; c < k; c++) {
        tsgs__train_opts mine = *opt;
        mine.ovr_class = c;
        sts[c] = train_class(ds, classes[c], &one, hooks ? &serial : NULL,
                             &mine, &subs[c], &stops[c], &errs[c]);
    }
    tsgs_status st = TSGS_OK;
    for (size_t c = 1; c < k; c++) {
        if (st == TSGS_OK && sts[c] != TSGS_OK) {
            st = sts[c]; /* the first failure in class order */
            if (err)
                *err = errs[c];
        }
        *stopped |= stops[c];
        if (subs[c]) {
            subs[c]->params.threads = params->threads;
            subs[c]->params.bind = params->bind;
        }
    }
    free(sts);
    free(errs);
    free(stops);
    return st;
}

/* K > 2 classes: one binary model per class on a relabeled view of the
 * rows (that class +1, the others -1), sharing one (sigma, C) chosen by
 * the multi-class CV and, with the default solver, the feature rows
 * (tsgs__ovr_share); hooks report each, without the monitor (its labels
 * are the file's, not +-1). The first class trains on every thread (it
 * makes the shared choices); with the safe solver the others side by
 * side, one thread each, when there are at least as many of them as
 * threads (a fit on a few hundred labeled rows uses many threads less
 * well than as many fits do; tsgs__ovr_at_once), else one after another
 * on every thread. The models are the same either way. */
static tsgs_status train_one_vs_rest(const tsgs_dataset *ds,
                                     const tsgs_params *params,
                                     const tsgs_train_hooks *hooks,
                                     const tsgs__train_opts *opt,
                                     const double *classes, size_t k,
                                     tsgs_model **out, int *stopped_early,
                                     tsgs_error *err)
{
    tsgs_model **subs = calloc(k, sizeof *subs);
    if (!subs)
        return TSGS__NOMEM(err);
    tsgs_train_hooks quiet;
    if (hooks) {
        quiet = *hooks;
        quiet.monitor = NULL;
    }
    tsgs__ovr_share share = {.y = ds->y, .nclass = k};
    tsgs__train_opts shared = *opt;
    shared.ovr = &share;
    shared.ovr_class = 0;
    shared.rows_checked = 1; /* the classes' views borrow ds's rows */
    const int threads = tsgs__threads_resolve(params->threads);
    int stopped = 0;
    size_t c = 1;
    tsgs_status st = train_class(ds, classes[0], params,
                                 hooks ? &quiet : NULL, &shared, &subs[0],
                                 &stopped, err);
    if (st == TSGS_OK && !stopped &&
        tsgs__ovr_at_once(k, threads, params->solver) > 1) {
        st = train_side_by_side(ds, params, hooks ? &quiet : NULL, &shared,
                                classes, k, threads, subs, &stopped, err);
        c = k;
    }
    for (; c < k && st == TSGS_OK && !stopped; c++) {
        shared.ovr_class = c;
        st = train_class(ds, classes[c], params, hooks ? &quiet : NULL,
                         &shared, &subs[c], &stopped, err);
    }
    if (st == TSGS_OK && stopped)
        st = tsgs__fail(err, TSGS_ERR_STOPPED, NULL, 0,
                        "stopped while training one-vs-rest's %zu classes: "
                        "a one-vs-rest model needs every class, so there is "
                        "none to keep",
                        k);
    const tsgs__solver *solver = tsgs__solver_of(params->solver);
    if (solver->ovr_finish) {
        tsgs_status fs = solver->ovr_finish(&share, classes,
                                            st == TSGS_OK ? subs : NULL, k,
                                            err);
        st = st == TSGS_OK ? fs : st;
    }
    if (st == TSGS_OK)
        st = tsgs__model_ovr(subs, classes, k, out, err);
    if (st != TSGS_OK) {
        for (size_t c = 0; c < k; c++)
            tsgs_model_free(subs[c]);
    }
    free(subs);
    if (stopped_early)
        *stopped_early = 0;
    return st;
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
    const size_t first = tsgs__first_nonfinite(ds->x, total, threads);
    if (first < total)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "row %zu, feature %zu: value is not finite",
                          first / ds->d + 1, first % ds->d + 1);
    return TSGS_OK;
}

static tsgs_status train_sparse(const tsgs_dataset *ds,
                                const tsgs_params *params,
                                const tsgs_train_hooks *hooks,
                                const tsgs__train_opts *opt,
                                tsgs_model **out, int *stopped_early,
                                tsgs_error *err);

#define PROB_FOLDS 5 /* as LIBSVM's -b 1 */

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

/* The decision values of the labeled rows held out of fit f (stratified
 * folds; held out = made unlabeled, so the fit still sees every row) into
 * out[i] for each labeled row i of fold f. */
static tsgs_status fold_decisions(const tsgs_dataset *ds,
                                  const tsgs_params *q,
                                  const tsgs__train_opts *opt,
                                  const size_t *lab, size_t nl,
                                  const int *fold, int f, double *out,
                                  tsgs_error *err)
{
    tsgs_dataset *view = NULL;
    tsgs_model *m = NULL;
    size_t *held = malloc(sizeof(size_t) * (nl ? nl : 1));
    double *dec = malloc(sizeof(double) * (nl ? nl : 1));
    tsgs_status st = TSGS_OK;
    if (!held || !dec) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    if ((st = tsgs__label_view(ds, &view, err)))
        goto done;
    size_t nh = 0;
    for (size_t i = 0; i < nl; i++)
        if (fold[i] == f) {
            view->y[lab[i]] = NAN;
            held[nh++] = lab[i];
        }
    if ((st = tsgs__train_ex(view, q, NULL, opt, &m, NULL, err)) ||
        (st = decisions_of_rows(m, ds, held, nh, q->threads, dec, err)))
        goto done;
    for (size_t i = 0, h = 0; i < nl; i++)
        if (fold[i] == f)
            out[i] = dec[h++];
done:
    tsgs_model_free(m);
    tsgs__view_free(view);
    free(held);
    free(dec);
    return st;
}

/* Probability outputs for a binary model m trained on ds: Platt's sigmoid
 * on decision values from PROB_FOLDS-fold cross-validation of the same
 * training on the labeled rows (probability.c). A class of one labeled row
 * cannot be held out: then m's own decision values stand in. */
static tsgs_status calibrate(const tsgs_dataset *ds, const tsgs_params *params,
                             const tsgs__train_opts *opt, tsgs_model *m,
                             tsgs_error *err)
{
    size_t nl = 0, npos = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (!isnan(ds->y[i])) {
            nl++;
            npos += ds->y[i] == m->label_pos;
        }
    size_t *lab = malloc(sizeof(size_t) * nl), *scratch = malloc(sizeof(size_t) * nl);
    double *y = malloc(sizeof(double) * nl), *f = malloc(sizeof(double) * nl);
    int *fold = malloc(sizeof(int) * nl);
    tsgs_status st = TSGS_OK;
    if (!lab || !scratch || !y || !f || !fold) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    for (size_t i = 0, j = 0; i < ds->n; i++)
        if (!isnan(ds->y[i])) {
            lab[j] = i;
            y[j++] = ds->y[i] == m->label_pos ? 1.0 : -1.0;
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
        own.ovr = NULL; /* nothing to choose: no grid to share */
        for (int fi = 0; fi < k && st == TSGS_OK; fi++)
            st = fold_decisions(ds, &q, &own, lab, nl, fold, fi, f, err);
    } else {
        st = decisions_of_rows(m, ds, lab, nl, params->threads, f, err);
    }
    if (st == TSGS_OK) {
        tsgs__platt_fit(f, y, nl, &m->prob_a, &m->prob_b);
        m->has_prob = 1;
    }
done:
    free(lab);
    free(scratch);
    free(y);
    free(f);
    free(fold);
    return st;
}

/* Dense rows of this many bytes at most are made for a solver that needs
 * them (bs3vm, frs, orthogonal directions) from sparse rows. */
#define DENSIFY_MAX (256.0 * 1048576.0)

/* Sparse rows: iid directions (`directions auto` resolves to them, and
 * the model records it: orthogonal groups need whole d-vectors); the
 * solvers that have no sparse path get a dense copy when it is small, else
 * an error naming the fix. */
static tsgs_status train_sparse(const tsgs_dataset *ds,
                                const tsgs_params *params,
                                const tsgs_train_hooks *hooks,
                                const tsgs__train_opts *opt,
                                tsgs_model **out, int *stopped_early,
                                tsgs_error *err)
{
    tsgs_params p = *params;
    if (p.directions == TSGS_DIRECTIONS_AUTO)
        p.directions = TSGS_DIRECTIONS_IID;
    const char *who = p.solver == TSGS_SOLVER_BS3VM ? "solver bs3vm"
                      : p.solver == TSGS_SOLVER_FRS ? "solver frs"
                      : p.directions == TSGS_DIRECTIONS_ORTHOGONAL &&
                              p.kernel == TSGS_KERNEL_RBF
                          ? "directions orthogonal"
                          : NULL;
    if (!who)
        return tsgs__train_ex(ds, &p, hooks, opt, out, stopped_early, err);
    tsgs_dataset *dense = NULL;
    size_t *all = malloc(sizeof(size_t) * ds->n);
    if (!all)
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < ds->n; i++)
        all[i] = i;
    tsgs_status st = tsgs_dataset_select(ds, all, ds->n, &dense, err);
    free(all);
    if (st == TSGS_OK &&
        (st = tsgs__dataset_densify(dense, DENSIFY_MAX, who, err)) == TSGS_OK)
        st = tsgs__train_ex(dense, &p, hooks, opt, out, stopped_early, err);
    tsgs_dataset_free(dense);
    return st;
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
                            const tsgs_train_hooks *hooks)
{
    if (!ds || !p)
        return 0;
    const double cells = tsgs__sparse(ds) ? (double)tsgs__dataset_nnz(ds)
                                          : (double)ds->n * (double)ds->d;
    if (cells < LOAD_MIN_CELLS)
        return 0;
    const int asked = p->threads > 0 ? p->threads : tsgs__env_threads();
    if (asked > 0) {
        warn_busy_team(asked, hooks);
        return 0;
    }
    const int cores = tsgs__threads_resolve(0);
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
    return tsgs__train_split(ds, params, hooks, NULL, out, stopped_early,
                             err);
}

tsgs_status tsgs__train_split(const tsgs_dataset *ds,
                              const tsgs_params *params,
                              const tsgs_train_hooks *hooks,
                              const tsgs__split *split, tsgs_model **out,
                              int *stopped_early, tsgs_error *err)
{
    if (!ds || !params || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train: NULL argument");
    tsgs_status st = tsgs_params_check(params, err);
    if (st != TSGS_OK)
        return st;
    const int fitted = fit_team_to_load(ds, params, hooks);
    const size_t nl = tsgs__label_split(
        ds->y, ds->n, tsgs__threads_resolve(params->threads), NULL, NULL);
    tsgs_params q = *params;
    tsgs__cost_to_solver(&q, nl);
    tsgs__train_opts opt = {0, SCALE_FLOOR, -1, NULL, 0, 0, 0, NULL, 0,
                            split, 0};
    double *row_w = NULL;
    st = tsgs__cost_row_weights(ds, params, &row_w, err);
    if (st == TSGS_OK) {
        opt.row_w = row_w;
        st = tsgs__train_ex(ds, &q, hooks, &opt, out, stopped_early, err);
    }
    free(row_w);
    if (fitted)
        tsgs__set_auto_team(0);
    if (st == TSGS_OK) {
        tsgs__cost_to_user(*out, params, nl);
        (*out)->layout = ds->layout;
    }
    return st;
}

tsgs_status tsgs__train_ex(const tsgs_dataset *ds, const tsgs_params *params,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, tsgs_model **out,
                           int *stopped_early, tsgs_error *err)
{
    if (!ds || !params || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train: NULL argument");
    tsgs_status st = tsgs_params_check(params, err);
    if (st != TSGS_OK)
        return st;
    if (ds->n == 0 || ds->d == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "training data: %zu rows of %zu features: nothing "
                          "to train on",
                          ds->n, ds->d);
    TSGS_TRACE_START(t_fin);
    /* Dense rows that the scaler will fit are checked by its first pass,
     * with the same message for the same (first) value: a pass of their
     * own cost 6-10 ms of a 0.3 s training on 5M rows and 16 threads. */
    const int scaler_checks =
        !tsgs__sparse(ds) && params->scale != TSGS_SCALE_NONE;
    if (!opt->rows_checked && !scaler_checks &&
        (st = check_finite(ds, tsgs__threads_resolve(params->threads),
                           err)) != TSGS_OK)
        return st;
    /* once: train_sparse calls back with iid directions */
    if (tsgs__sparse(ds) && params->directions == TSGS_DIRECTIONS_AUTO)
        return train_sparse(ds, params, hooks, opt, out, stopped_early, err);
    if (tsgs__sparse(ds) &&
        (params->solver == TSGS_SOLVER_BS3VM ||
         params->solver == TSGS_SOLVER_FRS ||
         (params->directions == TSGS_DIRECTIONS_ORTHOGONAL &&
          params->kernel == TSGS_KERNEL_RBF)))
        return train_sparse(ds, params, hooks, opt, out, stopped_early, err);
    TSGS_TRACE_SPAN("finite", 0, t_fin);
    TSGS_TRACE_START(t_cls);
    tsgs__train_job job;
    memset(&job, 0, sizeof job);
    job.ds = ds;
    job.p = *params;
    job.hooks = hooks;
    tsgs__stop_init(&job.stop, hooks);
    job.opt = *opt;
    double *classes = NULL;
    size_t k = 0;
    const int threads = tsgs__threads_resolve(params->threads);
    size_t top = 0; /* the rows of the largest label: on two classes, +1 */
    if ((st = find_classes(ds, threads, &classes, &k, &top, err)) != TSGS_OK)
        return st;
    /* scale auto: the class stretch for the safe solver on two classes (it
     * undoes the z-score's shrink of an informative feature:
     * docs/results.md, "Accuracy with default settings"), z-score for the other solvers
     * (not measured with it) and for one-vs-rest (measured with z-score;
     * a stretch per class would give the classes' models, which share one
     * sigma, different distances) */
    tsgs_params resolved = *params;
    tsgs__train_opts auto_opt = *opt;
    if (resolved.scale == TSGS_SCALE_AUTO) {
        resolved.scale = k == 2 && resolved.solver == TSGS_SOLVER_SAFE
                             ? TSGS_SCALE_CLASS
                             : TSGS_SCALE_ZSCORE;
        /* and mostly-zero columns by max |x| (scaler.c), also in the
         * one-vs-rest classes and the calibration fits, which see the
         * resolved kind */
        auto_opt.zero_cols = 1;
    }
    params = &resolved;
    opt = &auto_opt;
    job.p = resolved;
    job.opt = auto_opt;
    if (k > 2) {
        st = train_one_vs_rest(ds, params, hooks, opt, classes, k, out,
                               stopped_early, err);
        free(classes);
        return st;
    }
    job.label_neg = classes[0];
    job.label_pos = classes[1];
    free(classes);
    job.n_pos = top;
    TSGS_TRACE_SPAN("classes", 0, t_cls);
    TSGS_TRACE_START(t_scaler);
    if ((st = tsgs__scaler_fit_stop(ds, params->scale, opt->zero_cols,
                                    tsgs__threads_resolve(params->threads),
                                    &job.stop, &job.scaler, err)))
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
        (st = calibrate(ds, params, opt, *out, err)) != TSGS_OK) {
        tsgs_model_free(*out);
        *out = NULL;
    }
    return st;
}
