/* The losses of the objective and their (sub)derivatives in r = f(x).
 * Signs: a step moves f against the derivative, so for the unlabeled
 * losses u'(r) < 0 for small r > 0 and > 0 for small r < 0 pushes f(x_u)
 * away from 0, which is what they are for. */
#include "solvers/sgd/sgd.h"

#include <math.h>

double tsgs__hinge(double r, double y)
{
    double m = 1.0 - y * r;
    return m > 0.0 ? m : 0.0;
}

double tsgs__hinge_grad(double r, double y)
{
    return y * r < 1.0 ? -y : 0.0;
}

/* H_a(t) = max(0, a - t) and its derivative. */
static double hinge_at(double a, double t) { return a - t > 0.0 ? a - t : 0.0; }
static double hinge_at_grad(double a, double t) { return a - t > 0.0 ? -1.0 : 0.0; }

double tsgs__uloss(tsgs_uloss kind, double ramp_s, double r)
{
    double m = 1.0 - fabs(r);
    switch (kind) {
    case TSGS_ULOSS_SHG:
        return m > 0.0 ? m : 0.0;
    case TSGS_ULOSS_SSHG:
        return m > 0.0 ? 0.5 * m * m : 0.0;
    case TSGS_ULOSS_RAMP:
        return hinge_at(1.0, r) - hinge_at(ramp_s, r) + hinge_at(1.0, -r) -
               hinge_at(ramp_s, -r);
    case TSGS_ULOSS_DA:
        return exp(-5.0 * r * r);
    }
    return 0.0;
}

static inline double uloss_grad_of(tsgs_uloss kind, double ramp_s, double r)
{
    /* 1, -1 or 0 without branches (a nested ?: kept the batch loop from
     * vectorising) */
    double sign = (double)(r > 0.0) - (double)(r < 0.0);
    double m = 1.0 - fabs(r);
    switch (kind) {
    case TSGS_ULOSS_SHG:
        return m > 0.0 ? -sign : 0.0;
    case TSGS_ULOSS_SSHG:
        return m > 0.0 ? -m * sign : 0.0;
    case TSGS_ULOSS_RAMP:
        /* d/dr [R_s(r) + R_s(-r)] = R_s'(r) - R_s'(-r) */
        return (hinge_at_grad(1.0, r) - hinge_at_grad(ramp_s, r)) -
               (hinge_at_grad(1.0, -r) - hinge_at_grad(ramp_s, -r));
    case TSGS_ULOSS_DA:
        return -10.0 * r * exp(-5.0 * r * r);
    }
    return 0.0;
}

double tsgs__uloss_grad(tsgs_uloss kind, double ramp_s, double r)
{
    return uloss_grad_of(kind, ramp_s, r);
}

/* out[i] = weight * u'(g[i] + bias); inlined with a constant kind, the
 * loop is one body that vectorises (omp simd: the branches on the sign
 * become masks; as scalar code they mispredicted on half the rows), and
 * every value is the one tsgs__uloss_grad gives, by the same operations. */
static inline __attribute__((always_inline)) void
grads_of(tsgs_uloss kind, double ramp_s, const double *g, double bias,
         double weight, size_t n, double *out)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        out[i] = weight * uloss_grad_of(kind, ramp_s, g[i] + bias);
}

void tsgs__uloss_grads(tsgs_uloss kind, double ramp_s, const double *g,
                       double bias, double weight, size_t n, double *out)
{
    switch (kind) { /* the kind chosen once for the whole batch */
    case TSGS_ULOSS_SHG:
        grads_of(TSGS_ULOSS_SHG, ramp_s, g, bias, weight, n, out);
        return;
    case TSGS_ULOSS_SSHG:
        grads_of(TSGS_ULOSS_SSHG, ramp_s, g, bias, weight, n, out);
        return;
    default:
        grads_of(kind, ramp_s, g, bias, weight, n, out);
        return;
    }
}
