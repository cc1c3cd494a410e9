/* The semi-supervised phase's maths: the smoothed hinge and the annealed
 * loss against finite differences and their limits, the objective's
 * gradient against finite differences (balanced and free bias), and the
 * balance constraint holding along the path. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "solvers/safe/s3vm_path.h"

START_TEST(smooth_hinge_and_softmin_derivatives)
{
    const double h = 1e-6;
    const double temps[] = {10, 1, 0.1};
    for (double r = -2.5; r <= 2.5; r += 0.0137) {
        double d, dp, dm;
        tsgs__smooth_hinge(r, &d);
        double fd = (tsgs__smooth_hinge(r + h, &dp) -
                     tsgs__smooth_hinge(r - h, &dm)) / (2 * h);
        ck_assert_double_eq_tol(d, fd, 1e-5);
        for (int t = 0; t < 3; t++) {
            tsgs__softmin_loss(r, temps[t], &d);
            fd = (tsgs__softmin_loss(r + h, temps[t], &dp) -
                  tsgs__softmin_loss(r - h, temps[t], &dm)) / (2 * h);
            ck_assert_double_eq_tol(d, fd, 1e-5);
        }
    }
}
END_TEST

/* Symmetric, pushes away from 0, and tends to min(h(r), h(-r)) as T
 * falls: the symmetric hinge 1 - |r| away from the smoothing. */
START_TEST(softmin_limits)
{
    for (double r = 0.05; r <= 2.0; r += 0.05) {
        double dp, dm;
        ck_assert_double_eq_tol(tsgs__softmin_loss(r, 0.3, &dp),
                                tsgs__softmin_loss(-r, 0.3, &dm), 1e-12);
        ck_assert_double_eq_tol(dp, -dm, 1e-12);
        if (r < 1.0)
            ck_assert_double_lt(dp, 0.0); /* descent moves r up, away */
        double lim = tsgs__softmin_loss(r, 1e-4, &dp);
        if (r < 0.75)
            ck_assert_double_eq_tol(lim, 1.0 - r - 0.1, 1e-3);
        if (r > 1.0)
            ck_assert_double_eq_tol(lim, 0.0, 1e-3);
    }
}
END_TEST

typedef struct {
    size_t n, D;
    float *Phi;
    double *y, *cw, *mphi;
} prob_t;

static void make_problem(prob_t *p, size_t nl, size_t nu, size_t D)
{
    p->n = nl + nu;
    p->D = D;
    p->Phi = malloc(sizeof(float) * p->n * D);
    p->y = malloc(sizeof(double) * p->n);
    p->cw = malloc(sizeof(double) * p->n);
    p->mphi = calloc(D, sizeof(double));
    for (size_t i = 0; i < p->n; i++) {
        for (size_t j = 0; j < D; j++)
            p->Phi[i * D + j] = (float)sin(1.3 * (double)i + 0.7 * (double)j * j);
        p->y[i] = i < nl ? (i % 2 ? 1.0 : -1.0) : 0.0;
        p->cw[i] = i < nl ? 2.0 : 0.7;
        if (i >= nl)
            for (size_t j = 0; j < D; j++)
                p->mphi[j] += p->Phi[i * D + j] / (double)nu;
    }
}

static void free_problem(prob_t *p)
{
    free(p->Phi); free(p->y); free(p->cw); free(p->mphi);
}

START_TEST(objective_gradient_matches_finite_differences)
{
    prob_t q;
    make_problem(&q, 12, 30, 7);
    for (int balance = 0; balance <= 1; balance++) {
        tsgs__s3vm_problem pb = {q.n, q.D, q.Phi, q.y, q.cw, q.mphi, balance,
                                 0.2, 1, NULL, NULL};
        double w[7], g[7], gp[7], gb, gbp;
        for (int j = 0; j < 7; j++)
            w[j] = 0.3 * cos(j + 0.5);
        double b = 0.1, T = 0.7, h = 1e-5;
        tsgs__s3vm_objective(&pb, T, w, b, g, &gb);
        for (int j = 0; j < 7; j++) {
            double s = w[j];
            w[j] = s + h;
            double fp = tsgs__s3vm_objective(&pb, T, w, b, gp, &gbp);
            w[j] = s - h;
            double fm = tsgs__s3vm_objective(&pb, T, w, b, gp, &gbp);
            w[j] = s;
            /* float feature rows: the tolerance of their rounding */
            ck_assert_double_eq_tol(g[j], (fp - fm) / (2 * h), 2e-3);
        }
        if (!balance) {
            double fp = tsgs__s3vm_objective(&pb, T, w, b + h, gp, &gbp);
            double fm = tsgs__s3vm_objective(&pb, T, w, b - h, gp, &gbp);
            ck_assert_double_eq_tol(gb, (fp - fm) / (2 * h), 2e-3);
        }
    }
    free_problem(&q);
}
END_TEST

/* The objective's blocked pass (rows in blocks, columns in chunks, the
 * gradient summed in float per block) against the objective written out
 * in double, on a problem of several row blocks and column chunks with
 * held-out rows (weight 0); and 1 against 2 threads, bit for bit. */
START_TEST(objective_matches_plain_sums_and_thread_counts)
{
    enum { NL = 90, NU = 610, D = 300 }; /* n D > the threads' threshold */
    prob_t q;
    make_problem(&q, NL, NU, D);
    for (size_t i = 0; i < NL; i += 7)
        q.cw[i] = 0.0;
    double w[D], g1[D], g2[D], gb1, gb2;
    for (int j = 0; j < D; j++)
        w[j] = 0.05 * cos(0.3 * j + 0.5);
    for (int balance = 0; balance <= 1; balance++) {
        tsgs__s3vm_problem pb = {q.n, q.D, q.Phi, q.y, q.cw, q.mphi, balance,
                                 0.2, 1, NULL, NULL};
        const double b = 0.1, T = 0.5;
        const double f1 = tsgs__s3vm_objective(&pb, T, w, b, g1, &gb1);
        pb.threads = 2;
        const double f2 = tsgs__s3vm_objective(&pb, T, w, b, g2, &gb2);
        ck_assert_mem_eq(&f1, &f2, sizeof f1);
        ck_assert_mem_eq(g1, g2, sizeof g1);
        ck_assert_mem_eq(&gb1, &gb2, sizeof gb1);
        /* written out: f = |w|^2 / 2 + sum_i cw_i loss_i */
        const double bias = balance ? tsgs__s3vm_balance_bias(&pb, w) : b;
        double f = 0.0, vsum = 0.0, g[D];
        for (int j = 0; j < D; j++) {
            f += 0.5 * w[j] * w[j];
            g[j] = w[j];
        }
        for (size_t i = 0; i < q.n; i++) {
            if (q.cw[i] == 0.0)
                continue;
            double z = bias, d, v;
            for (int j = 0; j < D; j++)
                z += (double)q.Phi[i * D + j] * (float)w[j];
            if (q.y[i] != 0.0) {
                f += q.cw[i] * tsgs__smooth_hinge(q.y[i] * z, &d);
                v = q.cw[i] * q.y[i] * d;
            } else {
                f += q.cw[i] * tsgs__softmin_loss(z, T, &d);
                v = q.cw[i] * d;
            }
            vsum += v;
            for (int j = 0; j < D; j++)
                g[j] += v * q.Phi[i * D + j];
        }
        ck_assert_double_eq_tol(f1, f, 1e-6 * fabs(f));
        for (int j = 0; j < D; j++)
            ck_assert_double_eq_tol(
                g1[j], (balance ? g[j] - vsum * q.mphi[j] : g[j]), 1e-4);
        ck_assert_double_eq_tol(gb1, (balance ? 0.0 : vsum), 1e-6);
    }
    free_problem(&q);
}
END_TEST

/* Under balance every candidate's mean unlabeled output is the target;
 * each temperature's solve does not raise its own objective. */
START_TEST(balance_holds_along_the_path)
{
    prob_t q;
    make_problem(&q, 10, 60, 9);
    tsgs__s3vm_problem pb = {q.n, q.D, q.Phi, q.y, q.cw, q.mphi, 1, -0.4, 1,
                             NULL, NULL};
    const double temps[] = {3, 1, 0.3};
    double w[9] = {0}, b = 0.0, cw[27], cb[3], g[9], gb;
    double start = tsgs__s3vm_objective(&pb, 3, w, b, g, &gb);
    ck_assert_int_eq(tsgs__s3vm_anneal(&pb, temps, 3, 50, w, &b, cw, cb, NULL),
                     TSGS_OK);
    ck_assert_double_le(tsgs__s3vm_objective(&pb, 3, cw, cb[0], g, &gb), start);
    for (int k = 0; k < 3; k++) {
        double mean = 0.0;
        for (size_t i = 10; i < q.n; i++) {
            double f = cb[k];
            for (size_t j = 0; j < 9; j++)
                f += cw[k * 9 + j] * q.Phi[i * 9 + j];
            mean += f / 60.0;
        }
        ck_assert_double_eq_tol(mean, -0.4, 1e-5);
    }
    free_problem(&q);
}
END_TEST

/* The objective inside a team's single thread, as a path task runs it,
 * with `team` saying that its other threads have no path: each pass is
 * split into tasks for them (rows_pass_tasks). */
static double objective_in_team(const tsgs__s3vm_problem *pb, int threads,
                                double T, const double *w, double b,
                                double *g, double *gb)
{
    double f = NAN;
#pragma omp parallel num_threads(threads)
#pragma omp single
    f = tsgs__s3vm_objective(pb, T, w, b, g, gb);
    return f;
}

/* A pass split into tasks for a team's idle threads gives the bits of
 * the pass on one thread: the objective and its gradient on 2 and 3
 * threads, with held-out rows, a last row block of 61 rows (a part
 * quad) and a part column chunk; and a whole annealed path. */
START_TEST(split_pass_same_bits)
{
    enum { NL = 90, NU = 611, D = 300 };
    prob_t q;
    make_problem(&q, NL, NU, D);
    for (size_t i = 0; i < q.n; i += 11)
        q.cw[i] = 0.0;
    double w[D], g1[D], g2[D], gb1, gb2;
    for (int j = 0; j < D; j++)
        w[j] = 0.05 * cos(0.3 * j + 0.5);
    for (int balance = 0; balance <= 1; balance++) {
        tsgs__s3vm_problem pb = {q.n, q.D, q.Phi, q.y, q.cw, q.mphi, balance,
                                 0.2, 1, NULL, NULL};
        const double f1 = tsgs__s3vm_objective(&pb, 0.5, w, 0.1, g1, &gb1);
        for (int threads = 2; threads <= 3; threads++) {
            /* every path started, one running: threads - 1 idle */
            tsgs__path_team team = {threads, 0, 1};
            ck_assert_int_eq(tsgs__path_team_idle(&team), threads - 1);
            pb.team = &team;
            const double f2 =
                objective_in_team(&pb, threads, 0.5, w, 0.1, g2, &gb2);
            ck_assert_mem_eq(&f1, &f2, sizeof f1);
            ck_assert_mem_eq(g1, g2, sizeof g1);
            ck_assert_mem_eq(&gb1, &gb2, sizeof gb1);
        }
    }
    /* the path: the same candidates with the team as alone */
    const double temps[] = {3, 0.3};
    double wa[D] = {0}, wb[D] = {0}, ba = 0.0, bb = 0.0;
    double *ca = malloc(sizeof(double) * 2 * D),
           *cb = malloc(sizeof(double) * 2 * D), cba[2], cbb[2];
    tsgs__s3vm_problem pa = {q.n, q.D, q.Phi, q.y, q.cw, q.mphi, 1, 0.2, 1,
                             NULL, NULL};
    tsgs__path_team team = {2, 0, 1};
    tsgs__s3vm_problem pt = pa;
    pt.team = &team;
    ck_assert_int_eq(tsgs__s3vm_anneal(&pa, temps, 2, 20, wa, &ba, ca, cba,
                                       NULL), TSGS_OK);
    tsgs_status st = TSGS_ERR_NOMEM;
#pragma omp parallel num_threads(2)
#pragma omp single
    st = tsgs__s3vm_anneal(&pt, temps, 2, 20, wb, &bb, cb, cbb, NULL);
    ck_assert_int_eq(st, TSGS_OK);
    ck_assert_mem_eq(ca, cb, sizeof(double) * 2 * D);
    ck_assert_mem_eq(cba, cbb, sizeof cba);
    free(ca);
    free(cb);
    free_problem(&q);
}
END_TEST

/* Idle threads only once no path waits, and as many as run none. */
START_TEST(path_team_counts_idle_threads)
{
    tsgs__path_team team = {4, 3, 0};
    tsgs__path_started(&team);
    tsgs__path_started(&team);
    ck_assert_int_eq(tsgs__path_team_idle(&team), 0); /* one waits */
    tsgs__path_started(&team);
    ck_assert_int_eq(tsgs__path_team_idle(&team), 1);
    tsgs__path_finished(&team);
    tsgs__path_finished(&team);
    ck_assert_int_eq(tsgs__path_team_idle(&team), 3);
    tsgs__path_team full = {2, 0, 2};
    ck_assert_int_eq(tsgs__path_team_idle(&full), 0);
}
END_TEST

Suite *s3vm_path_suite(void)
{
    Suite *s = suite_create("s3vm_path");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, smooth_hinge_and_softmin_derivatives);
    tcase_add_test(tc, softmin_limits);
    tcase_add_test(tc, objective_gradient_matches_finite_differences);
    tcase_add_test(tc, objective_matches_plain_sums_and_thread_counts);
    tcase_add_test(tc, balance_holds_along_the_path);
    tcase_add_test(tc, split_pass_same_bits);
    tcase_add_test(tc, path_team_counts_idle_threads);
    suite_add_tcase(s, tc);
    return s;
}
