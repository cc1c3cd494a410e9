/* Limited-memory BFGS (Nocedal, 1980): the two-loop recursion over the
 * last `memory` steps and gradient changes, a backtracking line search
 * that keeps the Armijo condition, and pairs with no positive curvature
 * skipped so the implied Hessian stays positive definite. */
#include "solvers/safe/lbfgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* dir = -H g by the two-loop recursion over the `stored` pairs of the
 * ring (S, Y, rho; the newest at head - 1 of m); al: m of scratch. */
static void two_loop(size_t n, int m, const double *S, const double *Y,
                     const double *rho, int stored, int head,
                     const double *g, double *al, double *dir)
{
    for (size_t i = 0; i < n; i++)
        dir[i] = -g[i];
    for (int k = 0; k < stored; k++) {
        int j = (head - 1 - k + m) % m;
        al[j] = rho[j] * dot(S + (size_t)j * n, dir, n);
        for (size_t i = 0; i < n; i++)
            dir[i] -= al[j] * Y[(size_t)j * n + i];
    }
    if (stored > 0) {
        int j = (head - 1 + m) % m;
        double yy = dot(Y + (size_t)j * n, Y + (size_t)j * n, n);
        double gam = yy > 0.0 ? 1.0 / (rho[j] * yy) : 1.0;
        for (size_t i = 0; i < n; i++)
            dir[i] *= gam;
    } else {
        double gg = sqrt(dot(g, g, n));
        for (size_t i = 0; i < n; i++)
            dir[i] /= gg > 1.0 ? gg : 1.0;
    }
    for (int k = stored - 1; k >= 0; k--) {
        int j = (head - 1 - k + m) % m;
        double b = rho[j] * dot(Y + (size_t)j * n, dir, n);
        for (size_t i = 0; i < n; i++)
            dir[i] += (al[j] - b) * S[(size_t)j * n + i];
    }
}

long tsgs__lbfgs(size_t n, double *x, tsgs__objective fn, void *user,
                 const tsgs__lbfgs_opts *opt)
{
    const int m = opt->memory > 0 ? opt->memory : 1;
    double *S = malloc(sizeof(double) * n * (size_t)m);
    double *Y = malloc(sizeof(double) * n * (size_t)m);
    double *rho = malloc(sizeof(double) * (size_t)m);
    double *al = malloc(sizeof(double) * (size_t)m);
    double *g = malloc(sizeof(double) * n), *gn = malloc(sizeof(double) * n);
    double *dir = malloc(sizeof(double) * n), *xn = malloc(sizeof(double) * n);
    long it = -1;
    if (!S || !Y || !rho || !al || !g || !gn || !dir || !xn)
        goto done;
    double f = fn(x, g, user);
    int stored = 0, head = 0; /* ring of correction pairs */
    for (it = 0; it < opt->max_iter; it++) {
        if (tsgs__stop_due(opt->stop, TSGS__STOP_OPTIONAL))
            break;
        two_loop(n, m, S, Y, rho, stored, head, g, al, dir);
        double slope = dot(g, dir, n);
        if (!(slope < 0.0)) { /* not a descent direction: restart */
            for (size_t i = 0; i < n; i++)
                dir[i] = -g[i];
            slope = -dot(g, g, n);
            stored = 0;
            if (!(slope < 0.0))
                break; /* zero gradient: a stationary point */
        }
        double step = 1.0, fn_new = f;
        int accepted = 0;
        for (int ls = 0; ls < 30; ls++) {
            for (size_t i = 0; i < n; i++)
                xn[i] = x[i] + step * dir[i];
            fn_new = fn(xn, gn, user);
            if (fn_new <= f + 1e-4 * step * slope) {
                accepted = 1;
                break;
            }
            step *= 0.5;
        }
        if (!accepted)
            break; /* no decrease along dir within float noise */
        double *s = S + (size_t)head * n, *yv = Y + (size_t)head * n;
        for (size_t i = 0; i < n; i++) {
            s[i] = xn[i] - x[i];
            yv[i] = gn[i] - g[i];
        }
        double sy = dot(s, yv, n);
        if (sy > 1e-12 * dot(yv, yv, n)) {
            rho[head] = 1.0 / sy;
            head = (head + 1) % m;
            stored = stored < m ? stored + 1 : m;
        }
        double drop = f - fn_new;
        memcpy(x, xn, sizeof(double) * n);
        memcpy(g, gn, sizeof(double) * n);
        f = fn_new;
        if (drop < opt->rel_tol * (fabs(f) > 1.0 ? fabs(f) : 1.0)) {
            it++;
            break;
        }
    }
done:
    free(S); free(Y); free(rho); free(al); free(g); free(gn); free(dir);
    free(xn);
    return it;
}
