/* Step sizes and the annealing of the unlabeled weight. */
#include "solvers/sgd/sgd.h"

#include <math.h>

double tsgs__step_size(const tsgs_params *p, long t, long T)
{
    switch (p->step) {
    case TSGS_STEP_CONSTANT:
        return 1.0 / p->eta;
    case TSGS_STEP_THEORY:
        return p->theta * pow((double)(T > 0 ? T : 1), -0.75);
    case TSGS_STEP_DECAYING:
        return p->theta / (1.0 + (double)t / p->t0);
    }
    return 1.0 / p->eta;
}

double tsgs__anneal_factor(const tsgs_params *p, long t, long T)
{
    /* The unlabeled loss is non-convex: before the labeled fit is
     * reasonable it pushes rows to whichever side they start on. */
    if (p->anneal <= 0.0)
        return 1.0;
    double ramp = p->anneal * (double)T;
    if (ramp < 1.0 || (double)t >= ramp)
        return 1.0;
    return (double)t / ramp;
}
