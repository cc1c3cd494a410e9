/* Peer solver BS3VM: the Budgeted Semi-supervised SVM of Le, Duong, Dinh,
 * Nguyen, Nguyen and Phung (UAI 2016), implemented from the paper.
 *
 * Objective (their Eq. 4), for f(x) = w . Phi(x) with an exact kernel:
 *   1/2 |w|^2 + C/l sum_i hinge(y_i f(x_i))
 *             + C'/|E| sum_{(u,v) in E} mu_uv |f(x_u) - f(x_v)|
 * over the fully connected graph E of the rows less the labeled-labeled
 * pairs (section 2.1), edge weights mu_uv = exp(-|x_u - x_v|^2 / (2 w^2))
 * computed on the fly, and 1 / (2 w^2) = sigma by default (section 4).
 * The bias rho is dropped, as the paper's footnote 1 allows.
 *
 * Algorithm 1 (section 3.2), step t = 1 .. T with learning rate 1/t:
 *   sample a labeled row i and an edge (u, v) uniformly;
 *   w_{t+1} = (t-1)/t w_t + C/t alpha_t y_i Phi(x_i)
 *                         + C'/t mu_uv beta_t (Phi(x_u) - Phi(x_v)),
 *   alpha_t = 1 when y_i f_t(x_i) < 1, else 0; beta_t = -sign(f_t(x_u) -
 *   f_t(x_v)); then, while the labeled (unlabeled) portion of the support
 *   set is over its budget B_l (B_u), budget maintenance on that portion.
 * Output w_{T+1}.
 *
 * Derived where the extracted text is garbled or silent (said here once):
 *  - Eq. 5 writes alpha_t = -l'_o and then multiplies by y: with the hinge
 *    l'_o = -y when y o < 1, so the term that makes sense (a subgradient
 *    step on the hinge) is alpha_t in {0, 1} times y, as above.
 *  - Lines 8-9 of Algorithm 1 count every sampled vector as new (their
 *    online setting, m = n = p = 1). Here b_l and b_u are the true sizes
 *    of the two portions: a row already in the support set only has its
 *    coefficient updated, and maintenance runs until each portion is back
 *    within its budget (a step can add two vectors to a portion).
 *  - Uniform sampling over E: an unlabeled row a, then any other row b;
 *    when b is unlabeled too the pair is kept with probability 1/2 (it
 *    could have been drawn either way round), so every edge is equally
 *    likely.
 *  - Section 3.3 projects "onto k vectors of the support set" without
 *    naming the portion: the neighbours are drawn from the whole remaining
 *    support set (projection changes coefficients, never portion sizes).
 *    k is not given in the text; the default is 5. The projection solves
 *    K c = k_r with a tiny ridge (1e-8 of K's mean diagonal) so that
 *    near-duplicate neighbours cannot blow c up; if K is still not
 *    positive definite the vector is removed instead.
 *  - The paper's T = ceil(0.01 n) for its large sets is a choice of
 *    iterations; here iterations 0 means passes * n steps.
 *
 * Scaled coefficients: w_{t+1} = (1/t) sum_j a_j Phi(sv_j), with a_j the
 * plain sum of the increments (C alpha y, C' mu beta) that vector j got;
 * the (t-1)/t decay of every coefficient is then free, and removal of the
 * smallest |delta_j| = |a_j| / t is the smallest |a_j|. At the end
 * alpha_j = a_j / T. */
#include "solvers/solver.h"
#include "solvers/bs3vm/bs3vm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 256 /* support vectors per partial sum (fixed: determinism) */
#define RIDGE 1e-8

int tsgs__bs3vm_project(double *K, double *kr, size_t k)
{
    double tr = 0.0;
    for (size_t i = 0; i < k; i++)
        tr += K[i * k + i];
    const double ridge = k ? RIDGE * tr / (double)k : 0.0;
    /* Cholesky K + ridge I = L L^T, L in the lower triangle. */
    for (size_t j = 0; j < k; j++) {
        double s = K[j * k + j] + ridge;
        for (size_t q = 0; q < j; q++)
            s -= K[j * k + q] * K[j * k + q];
        if (!(s > 0.0))
            return -1;
        const double ljj = sqrt(s);
        K[j * k + j] = ljj;
        for (size_t i = j + 1; i < k; i++) {
            double v = K[i * k + j];
            for (size_t q = 0; q < j; q++)
                v -= K[i * k + q] * K[j * k + q];
            K[i * k + j] = v / ljj;
        }
    }
    for (size_t i = 0; i < k; i++) { /* L y = kr */
        double v = kr[i];
        for (size_t q = 0; q < i; q++)
            v -= K[i * k + q] * kr[q];
        kr[i] = v / K[i * k + i];
    }
    for (size_t i = k; i-- > 0;) { /* L^T c = y */
        double v = kr[i];
        for (size_t q = i + 1; q < k; q++)
            v -= K[q * k + i] * kr[q];
        kr[i] = v / K[i * k + i];
    }
    return 0;
}

/* ---------------------------------------------------------- training */

/* Its steps T when p->iterations is 0: ceil(p->passes * rows), one pass
 * when passes is 0 (auto). */
static long bs3vm_steps(const tsgs_dataset *ds, const tsgs_params *p)
{
    if (p->iterations > 0)
        return p->iterations;
    double T = ceil((p->passes > 0.0 ? p->passes : 1.0) * (double)ds->n);
    return T < 1.0 ? 1 : T > 1e15 ? (long)1e15 : (long)T;
}

typedef struct {
    const tsgs__train_job *job; /* its team, hooks and monitor */
    const tsgs_dataset *ds;
    const tsgs__scaler *sc;
    tsgs_params p;
    int threads;         /* the job's team's */
    size_t d, n, nl, nu;
    size_t *lidx, *uidx; /* labeled / unlabeled row indices */
    double pos;          /* raw label of the positive class */
    const double *row_w; /* each row's class weight (C x it); NULL: 1 */
    tsgs__bs3vm *b;      /* alpha holds the unscaled sums a_j */
    size_t *row;         /* data row of each support vector */
    unsigned char *lab;  /* 1: in the labeled portion */
    long *slot;          /* per row: its support vector, -1 if none */
    size_t size[2];      /* portion sizes: [0] unlabeled, [1] labeled */
    size_t budget[2];
    size_t P;            /* points evaluated per step: 1 + 2 edges */
    float *Q;            /* their scaled rows, P x d */
    size_t *qrow;        /* their data rows */
    double *S, *inc;     /* their sums and increments */
    double *part;        /* partial sums, chunks x P */
    size_t max_chunks;
    tsgs__bs3vm_scratch scr; /* projection: neighbours, K, k_r */
    double gamma_e;      /* edge weights exp(-gamma_e |xu - xv|^2) */
    double c_prime;
    uint64_t rc;         /* random draw counter */
} bs_t;

static void bs_clear(bs_t *s)
{
    free(s->lidx); free(s->uidx); free(s->row); free(s->lab); free(s->slot);
    free(s->Q); free(s->qrow); free(s->S); free(s->inc); free(s->part);
    free(s->scr.nb); free(s->scr.nd); free(s->scr.K); free(s->scr.kr);
}

static uint64_t draw(bs_t *s, uint64_t n)
{
    return tsgs__below(s->p.seed, TSGS__STREAM_BS3VM, s->rc++, n);
}

/* S[q] = sum_j a_j k(sv_j, Q_q) for the P points: fixed chunks of support
 * vectors, their partial sums added in chunk order. */
static void eval_points(bs_t *s)
{
    const tsgs__bs3vm *b = s->b;
    const size_t P = s->P, nch = (b->n_sv + CHUNK - 1) / CHUNK;
    const long nc = (long)nch;
    double *part = s->part;
    const int threads = s->threads;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    if (threads > 1 && nc > 1)
#endif
    for (long c = 0; c < nc; c++) {
        size_t j0 = (size_t)c * CHUNK, j1 = j0 + CHUNK;
        if (j1 > b->n_sv)
            j1 = b->n_sv;
        for (size_t q = 0; q < P; q++) {
            const float *xq = s->Q + q * s->d;
            double acc = 0.0;
            for (size_t j = j0; j < j1; j++)
                acc += b->alpha[j] * tsgs__bs3vm_kernel(b->kernel, b->sigma,
                                                        b->x + j * s->d, xq,
                                                        s->d);
            part[(size_t)c * P + q] = acc;
        }
    }
    for (size_t q = 0; q < P; q++) {
        double acc = 0.0;
        for (size_t c = 0; c < nch; c++)
            acc += part[c * P + q];
        s->S[q] = acc;
    }
}

/* Adds inc to the coefficient of row `row` (scaled row x), making it a
 * support vector of its portion when it is not one yet. */
static void add_to(bs_t *s, size_t row, const float *x, double inc)
{
    if (inc == 0.0)
        return;
    tsgs__bs3vm *b = s->b;
    long j = s->slot[row];
    if (j < 0) {
        j = (long)b->n_sv++; /* room: reserved for a whole step */
        memcpy(b->x + (size_t)j * s->d, x, sizeof(float) * s->d);
        b->alpha[j] = 0.0;
        s->row[j] = row;
        s->lab[j] = !isnan(s->ds->y[row]);
        s->size[s->lab[j]]++;
        s->slot[row] = j;
    }
    b->alpha[j] += inc;
}

/* Support vector j leaves: the last one takes its place. */
static void remove_sv(bs_t *s, size_t j)
{
    tsgs__bs3vm *b = s->b;
    size_t last = b->n_sv - 1;
    s->size[s->lab[j]]--;
    s->slot[s->row[j]] = -1;
    if (j != last) {
        memcpy(b->x + j * s->d, b->x + last * s->d, sizeof(float) * s->d);
        b->alpha[j] = b->alpha[last];
        s->row[j] = s->row[last];
        s->lab[j] = s->lab[last];
        s->slot[s->row[j]] = (long)j;
    }
    b->n_sv--;
}

/* The k nearest support vectors of b other than r (ties: lower slot
 * first) into nb; returns how many (fewer when b is small). */
static size_t nearest(const tsgs__bs3vm *b, size_t r, size_t k, size_t *nb,
                      double *nd)
{
    size_t have = 0;
    for (size_t j = 0; j < b->n_sv; j++) {
        if (j == r)
            continue;
        double dj = tsgs__bs3vm_sqdist(b->x + j * b->d, b->x + r * b->d, b->d);
        if (have == k && dj >= nd[k - 1])
            continue;
        size_t at = have < k ? have++ : k - 1;
        while (at > 0 && nd[at - 1] > dj) {
            nd[at] = nd[at - 1];
            nb[at] = nb[at - 1];
            at--;
        }
        nd[at] = dj;
        nb[at] = j;
    }
    return have;
}

/* k distinct support vectors other than r, uniformly (Floyd's sampling),
 * k <= n_sv - 1. */
static size_t random_others(const tsgs__bs3vm *b, size_t r, size_t k,
                            uint64_t seed, uint64_t *rc, size_t *nb)
{
    const size_t N = b->n_sv - 1; /* candidates: every slot but r */
    size_t have = 0;
    for (size_t j = N - k; j < N; j++) {
        size_t t = (size_t)tsgs__below(seed, TSGS__STREAM_BS3VM, (*rc)++,
                                       j + 1),
               pick = t;
        for (size_t q = 0; q < have; q++)
            if (nb[q] == t) {
                pick = j;
                break;
            }
        nb[have++] = pick;
    }
    for (size_t q = 0; q < have; q++) /* candidate index -> slot */
        if (nb[q] >= r)
            nb[q]++;
    return have;
}

size_t tsgs__bs3vm_maintain(tsgs__bs3vm *b, const unsigned char *lab,
                            int portion, tsgs_budget_rule rule, size_t k,
                            uint64_t seed, uint64_t *rc,
                            tsgs__bs3vm_scratch *sc, size_t *used)
{
    size_t r = 0;
    double best = INFINITY;
    for (size_t j = 0; j < b->n_sv; j++)
        if (lab[j] == portion && fabs(b->alpha[j]) < best) {
            best = fabs(b->alpha[j]);
            r = j;
        }
    *used = 0;
    if (k > b->n_sv - 1)
        k = b->n_sv - 1;
    if (rule == TSGS_BUDGET_REMOVE || k == 0 || best == 0.0)
        return r;
    k = rule == TSGS_BUDGET_NNP ? nearest(b, r, k, sc->nb, sc->nd)
                                : random_others(b, r, k, seed, rc, sc->nb);
    const float *xr = b->x + r * b->d;
    for (size_t i = 0; i < k; i++) {
        const float *xi = b->x + sc->nb[i] * b->d;
        sc->kr[i] = tsgs__bs3vm_kernel(b->kernel, b->sigma, xi, xr, b->d);
        for (size_t q = 0; q <= i; q++) {
            double v = tsgs__bs3vm_kernel(b->kernel, b->sigma, xi,
                                          b->x + sc->nb[q] * b->d, b->d);
            sc->K[i * k + q] = sc->K[q * k + i] = v;
        }
    }
    if (tsgs__bs3vm_project(sc->K, sc->kr, k) != 0)
        return r; /* not positive definite: plain removal */
    for (size_t i = 0; i < k; i++)
        b->alpha[sc->nb[i]] += b->alpha[r] * sc->kr[i];
    *used = k;
    return r;
}

/* Budget maintenance (section 3.3) of portion `lab`. */
static void maintain(bs_t *s, int lab)
{
    size_t used;
    size_t r = tsgs__bs3vm_maintain(s->b, s->lab, lab, s->p.maintenance,
                                    (size_t)s->p.neighbours, s->p.seed,
                                    &s->rc, &s->scr, &used);
    remove_sv(s, r);
}

/* One step of Algorithm 1 at iteration t (w_t = A_{t-1} / (t - 1)). */
static void step(bs_t *s, long t)
{
    const size_t d = s->d;
    const long m = s->p.edges_per_step;
    size_t i = s->lidx[draw(s, s->nl)];
    s->qrow[0] = i;
    for (long e = 0; e < m && s->nu > 0; e++) {
        size_t u, v;
        for (;;) {
            u = s->uidx[draw(s, s->nu)];
            v = (size_t)draw(s, s->n - 1);
            if (v >= u)
                v++;
            if (!isnan(s->ds->y[v]) || draw(s, 2) == 0)
                break;
        }
        s->qrow[1 + 2 * e] = u;
        s->qrow[2 + 2 * e] = v;
    }
    const size_t P = s->nu > 0 ? s->P : 1;
    for (size_t q = 0; q < P; q++)
        tsgs__scaler_apply(s->sc, s->ds->x + s->qrow[q] * d, d,
                           s->Q + q * d);
    const size_t Psave = s->P;
    s->P = P;
    if (s->b->n_sv > 0)
        eval_points(s);
    else
        memset(s->S, 0, sizeof(double) * P);
    s->P = Psave;
    /* hinge: f_t(x_i) = S / (t - 1), w_1 = 0 */
    const double y = s->ds->y[i] == s->pos ? 1.0 : -1.0;
    const double fi = t > 1 ? s->S[0] / (double)(t - 1) : 0.0;
    const double c = s->row_w ? s->p.c * s->row_w[i] : s->p.c;
    s->inc[0] = y * fi < 1.0 ? c * y : 0.0;
    for (size_t q = 1; q < P; q += 2) {
        double mu = exp(-s->gamma_e * tsgs__bs3vm_sqdist(s->Q + q * d, s->Q + (q + 1) * d,
                                            d));
        double diff = s->S[q] - s->S[q + 1];
        double beta = diff > 0.0 ? -1.0 : diff < 0.0 ? 1.0 : 0.0;
        double g = s->c_prime / (double)m * mu * beta;
        s->inc[q] = g;
        s->inc[q + 1] = -g;
    }
    for (size_t q = 0; q < P; q++)
        add_to(s, s->qrow[q], s->Q + q * d, s->inc[q]);
    while (s->size[1] > s->budget[1])
        maintain(s, 1);
    while (s->size[0] > s->budget[0])
        maintain(s, 0);
}

static void report(const bs_t *s, const tsgs_model *m, long t, long T,
                   double elapsed, int measure)
{
    const tsgs_train_hooks *hooks = s->job->hooks;
    tsgs_progress pr;
    memset(&pr, 0, sizeof pr); /* fields it does not set (stage) stay 0 */
    pr.iteration = t;
    pr.iterations = T;
    pr.elapsed_s = elapsed;
    pr.rows_per_s = (double)t * (double)s->P / (elapsed > 0 ? elapsed : 1e-9);
    pr.features = (long)s->b->n_sv;
    /* the sums a_j are w_t times t > 0: the signs, so the accuracy, are
     * those of the model */
    pr.monitor_accuracy = measure && hooks->monitor
                              ? s->job->monitor_accuracy(s->job, m)
                              : -1.0;
    hooks->progress(&pr, hooks->user);
}

/* This solver's settings resolved into s->p (the model records them) and
 * s: the steps, the budgets of both portions, C', the edge width. */
static void resolve_settings(bs_t *s)
{
    tsgs_params *p = &s->p;
    p->iterations = bs3vm_steps(s->ds, p);
    if (p->budget_labeled == 0)
        p->budget_labeled = (long)s->nl;
    if (p->budget_unlabeled == 0)
        p->budget_unlabeled = (long)ceil(0.2 * (double)s->nu);
    if (p->budget_unlabeled == 0)
        p->budget_unlabeled = 1; /* no unlabeled rows: never used */
    if (p->c_prime < 0.0)
        p->c_prime = p->c;
    if (p->edge_width <= 0.0) {
        s->gamma_e = p->sigma;
        p->edge_width = 1.0 / sqrt(2.0 * p->sigma);
    } else {
        s->gamma_e = 1.0 / (2.0 * p->edge_width * p->edge_width);
    }
    p->balance = 0; /* no bias in BS3VM */
    s->c_prime = p->c_prime;
    s->budget[1] = (size_t)p->budget_labeled < s->nl
                       ? (size_t)p->budget_labeled
                       : s->nl;
    s->budget[0] = (size_t)p->budget_unlabeled < s->nu
                       ? (size_t)p->budget_unlabeled
                       : s->nu;
    s->P = 1 + 2 * (size_t)p->edges_per_step;
}

/* s's buffers for `cap` support vectors and k neighbours, and its
 * labeled and unlabeled row lists; 0, or -1 when out of memory. */
static int bs_alloc(bs_t *s, size_t cap, size_t k)
{
    s->lidx = malloc(sizeof(size_t) * (s->nl ? s->nl : 1));
    s->uidx = malloc(sizeof(size_t) * (s->nu ? s->nu : 1));
    s->row = malloc(sizeof(size_t) * cap);
    s->lab = malloc(cap);
    s->slot = malloc(sizeof(long) * s->n);
    s->Q = malloc(sizeof(float) * s->P * s->d);
    s->qrow = malloc(sizeof(size_t) * s->P);
    s->S = malloc(sizeof(double) * s->P);
    s->inc = malloc(sizeof(double) * s->P);
    s->part = malloc(sizeof(double) * (s->max_chunks ? s->max_chunks : 1) *
                     s->P);
    s->scr.nb = malloc(sizeof(size_t) * k);
    s->scr.nd = malloc(sizeof(double) * k);
    s->scr.K = malloc(sizeof(double) * k * k);
    s->scr.kr = malloc(sizeof(double) * k);
    if (!s->lidx || !s->uidx || !s->row || !s->lab || !s->slot || !s->Q ||
        !s->qrow || !s->S || !s->inc || !s->part || !s->scr.nb ||
        !s->scr.nd || !s->scr.K || !s->scr.kr)
        return -1;
    for (size_t i = 0, a = 0, b = 0; i < s->n; i++) {
        s->slot[i] = -1;
        if (isnan(s->ds->y[i]))
            s->uidx[b++] = i;
        else
            s->lidx[a++] = i;
    }
    return 0;
}

/* Steps 1 .. T on the job's team, bound, reporting through its hooks;
 * then alpha_j = a_j / (the steps done). *stopped: the hooks asked to
 * stop. */
static void run_steps(bs_t *s, tsgs_model *m, long T, int *stopped)
{
    const tsgs_train_hooks *hooks = s->job->hooks;
    tsgs__binding *pinned = tsgs__team_bind(&s->job->team);
    const double t0 = tsgs__now_s();
    long t;
    *stopped = 0;
    for (t = 1; t <= T; t++) {
        step(s, t);
        if (hooks && hooks->should_stop && hooks->should_stop(hooks->user)) {
            *stopped = 1;
            break;
        }
        int rep = hooks && hooks->progress && hooks->progress_every > 0 &&
                  t % hooks->progress_every == 0;
        int mon = hooks && hooks->monitor && hooks->monitor_every > 0 &&
                  t % hooks->monitor_every == 0;
        if ((rep || mon) && t < T && hooks->progress)
            report(s, m, t, T, tsgs__now_s() - t0, mon);
    }
    const long done = *stopped ? t : T; /* w_{done+1} = A_done / done */
    for (size_t j = 0; j < s->b->n_sv; j++)
        s->b->alpha[j] /= (double)done;
    if (hooks && hooks->progress)
        report(s, m, done, T, tsgs__now_s() - t0, 1);
    tsgs__restore_binding(pinned); /* the caller's threads as they were */
}

/* Trains BS3VM on the job's rows (checked, two classes) with params
 * (its C and sigma resolved); takes the fitted scaler (cleared on
 * failure). */
static tsgs_status bs3vm_train(const tsgs__train_job *job,
                               const tsgs_params *params,
                               tsgs__scaler *scaler, tsgs_model **out,
                               int *stopped_early, tsgs_error *err)
{
    const tsgs_dataset *ds = job->ds;
    bs_t s;
    memset(&s, 0, sizeof s);
    s.job = job;
    s.ds = ds;
    s.row_w = job->opt.row_w;
    s.p = *params;
    s.d = ds->d;
    s.n = ds->n;
    s.pos = job->label_pos;
    s.threads = job->team.threads;
    s.nl = job->nl;
    s.nu = s.n - s.nl;
    resolve_settings(&s);
    const tsgs_params *p = &s.p;
    size_t cap = s.budget[0] + s.budget[1] + s.P;
    if (cap > s.n)
        cap = s.n;
    s.max_chunks = (cap + CHUNK - 1) / CHUNK;
    size_t k = (size_t)p->neighbours;
    if (k > cap)
        k = cap;
    if (k < 1)
        k = 1;

    tsgs_model *m = NULL;
    tsgs_status st = tsgs__model_new_sv(p, s.d, cap, &m, err);
    if (st != TSGS_OK) {
        tsgs__scaler_clear(scaler);
        return st;
    }
    /* the model owns the scaler from here */
    tsgs__model_adopt(m, job->label_neg, job->label_pos, scaler);
    s.sc = &m->scaler;
    s.b = m->bs3vm;
    if (bs_alloc(&s, cap, k) != 0) {
        bs_clear(&s);
        tsgs_model_free(m);
        return TSGS__NOMEM(err);
    }
    int stopped;
    run_steps(&s, m, p->iterations, &stopped);
    m->params = *p;
    bs_clear(&s);
    if (stopped_early)
        *stopped_early = stopped;
    *out = m;
    return TSGS_OK;
}

/* The job's C and sigma as the stochastic solvers resolve them (the
 * paper's protocol tunes both; C = 1000 and the spread width otherwise). */
static tsgs_status bs3vm_job(tsgs__train_job *job, tsgs_model **out,
                             int *stopped_early, tsgs_error *err)
{
    tsgs_params p = job->p;
    tsgs_status st;
    if (p.c <= 0.0)
        p.c = 1000.0;
    if (p.sigma <= 0.0 &&
        (st = tsgs__spread_sigma(job->ds, &job->scaler, &p.sigma, err)))
        return st;
    tsgs__scaler sc = job->scaler; /* bs3vm_train takes it */
    memset(&job->scaler, 0, sizeof job->scaler);
    return bs3vm_train(job, &p, &sc, out, stopped_early, err);
}

/* Support vectors: no random features. */
static double bs3vm_directions(const tsgs_dataset *ds, const tsgs_params *p)
{
    (void)ds;
    (void)p;
    return 0.0;
}

const tsgs__solver tsgs__solver_bs3vm = {bs3vm_job, bs3vm_steps,
                                         bs3vm_directions};
