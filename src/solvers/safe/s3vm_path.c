/* The semi-supervised phase of the safe solver. On explicit feature rows
 * phi (a random-feature map), with f(x) = w . phi(x) + b:
 *
 *   J_T(w, b) = 1/2 |w|^2 + sum_L c_i h(y_i f(x_i)) + sum_U c_i u_T(f(x_i))
 *
 * h the hinge (smoothed so that L-BFGS sees a gradient), u_T a soft
 * minimum of the two hinges h(r) and h(-r) at temperature T: nearly the
 * convex mean of the two when T is large, the non-convex symmetric hinge
 * as T -> 0. Lowering T in steps, each solve starting from the last,
 * follows a continuation path instead of falling into the nearest local
 * minimum (deterministic annealing). The balance constraint holds the
 * mean unlabeled output at 2p - 1 by eliminating the bias:
 * b = target - w . mean_U phi, so no step can move every unlabeled row to
 * one class. */
#include "solvers/safe/s3vm_path.h"

#include "kernel/dense.h"
#include "solvers/safe/lbfgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Width of the quadratic piece that smooths the hinge's kink. */
#define HINGE_SMOOTH 0.2

double tsgs__smooth_hinge(double z, double *dz)
{
    const double h = HINGE_SMOOTH;
    if (z >= 1.0) {
        *dz = 0.0;
        return 0.0;
    }
    if (z <= 1.0 - h) {
        *dz = -1.0;
        return 1.0 - z - 0.5 * h;
    }
    double e = 1.0 - z;
    *dz = -e / h;
    return 0.5 * e * e / h;
}

double tsgs__softmin_loss(double r, double T, double *dr)
{
    double da, db;
    double a = tsgs__smooth_hinge(r, &da);  /* as if the label were +1 */
    double b = tsgs__smooth_hinge(-r, &db); /* as if it were -1 */
    db = -db;
    double lo = a < b ? a : b;
    double ea = exp(-(a - lo) / T), eb = exp(-(b - lo) / T);
    double z = ea + eb;
    *dr = (ea * da + eb * db) / z;
    /* + T log 2: the same gradient, but no offset of size C n_u T that
     * would swamp L-BFGS's relative stopping test at high T */
    return lo - T * log(0.5 * z);
}

double tsgs__s3vm_balance_bias(const tsgs__s3vm_problem *pb, const double *w)
{
    double s = 0.0;
    for (size_t j = 0; j < pb->D; j++)
        s += w[j] * pb->mphi[j];
    return pb->target - s;
}

/* The objective's one pass over the rows, ROW_BLOCK rows at a time: the
 * block's outputs z = Phi w, its losses and their derivatives v, then
 * g += Phi^T v over the same block while its rows are still in cache
 * (a pass for z and another for g read every row twice from memory).
 * Rows split over the threads for z, columns for g; every sum is taken
 * in the same order whatever the thread count (g: in float over the
 * block's rows in order, four at a time, then added in double), so the
 * result does not depend on it. */
#define COL_CHUNK 256
#define ROW_BLOCK 128

/* acc[0 .. w) = sum over rows i0 .. i1 of v[i] Phi[i][j0 + ..], in
 * float, the rows in order, four at a time. */
static void column_acc(const tsgs__s3vm_problem *pb, const double *v,
                       size_t i0, size_t i1, size_t j0, size_t w, float *acc)
{
    const size_t D = pb->D;
    memset(acc, 0, sizeof(float) * w);
    size_t row[4];
    float a[4];
    int k = 0;
    for (size_t i = i0; i < i1; i++) { /* nonzero weights, four at a time */
        if (v[i] == 0.0)
            continue;
        row[k] = i;
        a[k++] = (float)v[i];
        if (k == 4) {
            tsgs__axpy4_f(a, pb->Phi + row[0] * D + j0,
                          pb->Phi + row[1] * D + j0, pb->Phi + row[2] * D + j0,
                          pb->Phi + row[3] * D + j0, acc, w);
            k = 0;
        }
    }
    for (int q = 0; q < k; q++)
        tsgs__axpy_f(a[q], pb->Phi + row[q] * D + j0, acc, w);
}

/* g[j0 .. j0 + w) += sum over rows i0 .. i1 of v[i] Phi[i][j]. */
static void block_gradient(const tsgs__s3vm_problem *pb, const double *v,
                           size_t i0, size_t i1, size_t j0, size_t w,
                           double *g)
{
    float acc[COL_CHUNK];
    column_acc(pb, v, i0, i1, j0, w, acc);
    for (size_t j = 0; j < w; j++)
        g[j0 + j] += acc[j];
}

/* z[i] = Phi[i] . w for the four rows from i (fewer at i1). */
static void quad_outputs(const tsgs__s3vm_problem *pb, const float *wf,
                         size_t i, size_t i1, double *z)
{
    const size_t D = pb->D;
    const float *x = pb->Phi + i * D;
    if (i + 4 <= i1)
        tsgs__dot4_f(x, x + D, x + 2 * D, x + 3 * D, wf, D, z + i);
    else
        for (size_t r = i; r < i1; r++)
            z[r] = tsgs__dot_f(pb->Phi + r * D, wf, D);
}

/* z for rows i0 .. i1, four rows at a time (the team's loop). */
static void block_outputs(const tsgs__s3vm_problem *pb, const float *wf,
                          size_t i0, size_t i1, double *z)
{
    const long quads = (long)((i1 - i0 + 3) / 4);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long q = 0; q < quads; q++)
        quad_outputs(pb, wf, i0 + 4 * (size_t)q, i1, z);
}

typedef struct {
    double loss, vsum;
} pass_sums;

/* Row i's weighted loss, its derivative into v[i]; a row left out
 * (weight 0) has none, and z[i] = v[i] = 0. */
static double row_loss(const tsgs__s3vm_problem *pb, double T, double bias,
                       size_t i, double *z, double *v)
{
    v[i] = 0.0;
    if (pb->cw[i] == 0.0) {
        z[i] = 0.0;
        return 0.0;
    }
    double f = z[i] + bias, d, loss;
    if (pb->y[i] != 0.0) {
        loss = pb->cw[i] * tsgs__smooth_hinge(pb->y[i] * f, &d);
        v[i] = pb->cw[i] * pb->y[i] * d;
    } else {
        loss = pb->cw[i] * tsgs__softmin_loss(f, T, &d);
        v[i] = pb->cw[i] * d;
    }
    return loss;
}

/* The losses of rows i0 .. i1 summed in row order, their derivatives
 * into v. */
static void block_losses(const tsgs__s3vm_problem *pb, double T, double bias,
                         size_t i0, size_t i1, double *z, double *v,
                         pass_sums *ps)
{
    for (size_t i = i0; i < i1; i++) {
        const double loss = row_loss(pb, T, bias, i, z, v);
        if (pb->cw[i] == 0.0)
            continue;
        ps->loss += loss;
        ps->vsum += v[i];
    }
}

void tsgs__path_started(tsgs__path_team *team)
{
#ifdef _OPENMP
#pragma omp atomic update
#endif
    team->waiting--;
#ifdef _OPENMP
#pragma omp atomic update
#endif
    team->running++;
}

void tsgs__path_finished(tsgs__path_team *team)
{
#ifdef _OPENMP
#pragma omp atomic update
#endif
    team->running--;
}

int tsgs__path_team_idle(const tsgs__path_team *team)
{
    int waiting, running;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    waiting = team->waiting;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    running = team->running;
    return waiting > 0 || running >= team->threads ? 0
                                                   : team->threads - running;
}

/* A pass's scratch: the rows' outputs and derivatives, w as floats and,
 * for a pass split into tasks, each row's weighted loss and each row
 * block's float gradient sums. */
typedef struct {
    double *z, *v; /* n each */
    float *wf;     /* D */
    double *loss;  /* n, or NULL: the pass is not split */
    float *acc;    /* row blocks x D, or NULL */
} pass_scratch;

static int scratch_init(pass_scratch *sc, const tsgs__s3vm_problem *pb)
{
    const size_t n = pb->n ? pb->n : 1, D = pb->D ? pb->D : 1;
    const size_t blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK;
    sc->z = malloc(sizeof(double) * n);
    sc->v = malloc(sizeof(double) * n);
    sc->wf = malloc(sizeof(float) * D);
    sc->loss = pb->team ? malloc(sizeof(double) * n) : NULL;
    sc->acc = pb->team ? malloc(sizeof(float) * blocks * D) : NULL;
    return sc->z && sc->v && sc->wf && (!pb->team || (sc->loss && sc->acc));
}

static void scratch_free(pass_scratch *sc)
{
    free(sc->z);
    free(sc->v);
    free(sc->wf);
    free(sc->loss);
    free(sc->acc);
}

/* The tasks a pass is split into: none unless threads of the path's team
 * have no path (tsgs__path_team_idle); then about two per thread that may
 * take part (its own and its share of the idle ones, shared by the
 * running paths), so that the shares balance, but not so many that 16
 * threads contend for the task queue. */
static long pass_tasks(const tsgs__path_team *team, size_t n)
{
    const int idle = team ? tsgs__path_team_idle(team) : 0;
    if (idle <= 0)
        return 0;
    int running;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    running = team->running;
    const long blocks = (long)((n + ROW_BLOCK - 1) / ROW_BLOCK);
    const long share = 1 + (idle + running - 1) / (running > 0 ? running : 1);
    return 2 * share < blocks ? 2 * share : blocks;
}

/* rows_pass as `tasks` tasks for the idle threads of the path's team (a
 * path's task runs it): a task takes row blocks, and for each computes
 * its outputs, its rows' losses and derivatives, and its float gradient
 * sums while the rows are in cache; this thread then sums the losses in
 * row order and adds the blocks' sums to g in block order: every sum as
 * rows_pass takes it, so the same bits. */
static pass_sums rows_pass_tasks(const tsgs__s3vm_problem *pb, double T,
                                 double bias, pass_scratch *sc, double *g,
                                 long tasks)
{
    const size_t n = pb->n, D = pb->D;
    const long blocks = (long)((n + ROW_BLOCK - 1) / ROW_BLOCK);
    (void)tasks; /* without OpenMP: one loop */
#ifdef _OPENMP
#pragma omp taskloop num_tasks(tasks)
#endif
    for (long b = 0; b < blocks; b++) {
        const size_t i0 = (size_t)b * ROW_BLOCK;
        const size_t i1 = i0 + ROW_BLOCK < n ? i0 + ROW_BLOCK : n;
        for (size_t i = i0; i < i1; i += 4)
            quad_outputs(pb, sc->wf, i, i1, sc->z);
        for (size_t i = i0; i < i1; i++)
            sc->loss[i] = row_loss(pb, T, bias, i, sc->z, sc->v);
        for (size_t j0 = 0; j0 < D; j0 += COL_CHUNK)
            column_acc(pb, sc->v, i0, i1, j0,
                       j0 + COL_CHUNK < D ? COL_CHUNK : D - j0,
                       sc->acc + (size_t)b * D + j0);
    }
    pass_sums ps = {0.0, 0.0};
    for (size_t i = 0; i < n; i++) {
        if (pb->cw[i] == 0.0)
            continue;
        ps.loss += sc->loss[i];
        ps.vsum += sc->v[i];
    }
    for (long b = 0; b < blocks; b++) {
        const float *acc = sc->acc + (size_t)b * D;
        for (size_t j = 0; j < D; j++)
            g[j] += acc[j];
    }
    return ps;
}

/* z, v over every row and g += Phi^T v (g holds w on entry). */
static pass_sums rows_pass(const tsgs__s3vm_problem *pb, double T,
                           double bias, pass_scratch *sc, double *g)
{
    const size_t n = pb->n, D = pb->D;
    const long tasks = pass_tasks(pb->team, n);
    if (tasks > 0)
        return rows_pass_tasks(pb, T, bias, sc, g, tasks);
    const float *wf = sc->wf;
    double *z = sc->z, *v = sc->v;
    const long chunks = (long)((D + COL_CHUNK - 1) / COL_CHUNK);
    pass_sums ps = {0.0, 0.0};
#ifdef _OPENMP
#pragma omp parallel num_threads(pb->threads) if (n * D > 200000)
#endif
    for (size_t i0 = 0; i0 < n; i0 += ROW_BLOCK) {
        const size_t i1 = i0 + ROW_BLOCK < n ? i0 + ROW_BLOCK : n;
        block_outputs(pb, wf, i0, i1, z);
#ifdef _OPENMP
#pragma omp single
#endif
        block_losses(pb, T, bias, i0, i1, z, v, &ps);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (long c = 0; c < chunks; c++) {
            const size_t j0 = (size_t)c * COL_CHUNK;
            block_gradient(pb, v, i0, i1, j0,
                           j0 + COL_CHUNK < D ? COL_CHUNK : D - j0, g);
        }
    }
    return ps;
}

typedef struct {
    const tsgs__s3vm_problem *pb;
    double T;
    pass_scratch sc;
} eval_t;

static double objective(const tsgs__s3vm_problem *pb, double T,
                        const double *w, double b, double *gw, double *gb,
                        pass_scratch *sc)
{
    const size_t D = pb->D;
    double reg = 0.0;
    for (size_t j = 0; j < D; j++) {
        sc->wf[j] = (float)w[j];
        reg += w[j] * w[j];
        gw[j] = w[j];
    }
    const double bias = pb->balance ? tsgs__s3vm_balance_bias(pb, w) : b;
    const pass_sums ps = rows_pass(pb, T, bias, sc, gw);
    if (pb->balance) { /* d bias / d w = -mphi */
        for (size_t j = 0; j < D; j++)
            gw[j] -= ps.vsum * pb->mphi[j];
        *gb = 0.0;
    } else {
        *gb = ps.vsum;
    }
    return 0.5 * reg + ps.loss;
}

double tsgs__s3vm_objective(const tsgs__s3vm_problem *pb, double T,
                            const double *w, double b, double *gw,
                            double *gb)
{
    pass_scratch sc;
    double f = NAN;
    if (scratch_init(&sc, pb))
        f = objective(pb, T, w, b, gw, gb, &sc);
    scratch_free(&sc);
    return f;
}

/* The L-BFGS objective over x = (w, b): b is the last entry. */
static double lbfgs_fn(const double *x, double *grad, void *user)
{
    eval_t *e = user;
    const size_t D = e->pb->D;
    return objective(e->pb, e->T, x, x[D], grad, grad + D, &e->sc);
}

tsgs_status tsgs__s3vm_anneal(const tsgs__s3vm_problem *pb,
                              const double *temps, int ntemps, long iters,
                              double *w, double *b, double *cand_w,
                              double *cand_b, tsgs_error *err)
{
    const size_t D = pb->D;
    double *x = malloc(sizeof(double) * (D + 1));
    eval_t e = {pb, 1.0, {0}};
    tsgs_status st = TSGS_OK;
    if (!scratch_init(&e.sc, pb) || !x) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    memcpy(x, w, sizeof(double) * D);
    x[D] = pb->balance ? 0.0 : *b;
    tsgs__lbfgs_opts lo = {10, iters, 1e-7, pb->stop};
    for (int k = 0; k < ntemps; k++) {
        e.T = temps[k];
        /* after a stop: the last solution for the rest */
        if (!tsgs__stop_due(pb->stop, TSGS__STOP_OPTIONAL) &&
            tsgs__lbfgs(D + 1, x, lbfgs_fn, &e, &lo) < 0) {
            st = TSGS__NOMEM(err);
            goto done;
        }
        memcpy(cand_w + (size_t)k * D, x, sizeof(double) * D);
        cand_b[k] = pb->balance ? tsgs__s3vm_balance_bias(pb, x) : x[D];
    }
    memcpy(w, x, sizeof(double) * D);
    *b = pb->balance ? tsgs__s3vm_balance_bias(pb, x) : x[D];
done:
    free(x);
    scratch_free(&e.sc);
    return st;
}
