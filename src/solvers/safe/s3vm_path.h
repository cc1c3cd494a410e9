/* s3vm_path.c: the semi-supervised phase of the safe solver, on explicit
 * random-feature rows: the S3VM objective with a deterministically
 * annealed unlabeled loss, minimised at each temperature in turn. */
#ifndef TSGS_S3VM_PATH_H
#define TSGS_S3VM_PATH_H

#include "kernel/kernel.h"

/* Paths that run side by side as tasks of one team (the safe solver's
 * selection): the team's size and how many paths wait and run. While
 * some of its threads have no path left to start, a path splits each of
 * its passes over the rows into tasks that they take (the same sums). */
typedef struct {
    int threads; /* the team's */
    int waiting; /* paths not started */
    int running; /* paths started and not finished */
} tsgs__path_team;

/* A path of the team starts, or finishes (atomic: any thread). */
void tsgs__path_started(tsgs__path_team *team);
void tsgs__path_finished(tsgs__path_team *team);
/* The team's threads with no path to run or start (0 while a path
 * waits). */
int tsgs__path_team_idle(const tsgs__path_team *team);

typedef struct {
    size_t n, D;       /* rows and features */
    const float *Phi;  /* n x D feature rows */
    const double *y;   /* +1 / -1 labeled, 0 unlabeled */
    const double *cw;  /* weight of each row's loss; 0 leaves it out */
    const double *mphi; /* balance: mean feature row of the unlabeled rows */
    int balance;       /* 1: mean unlabeled output held at `target`, bias
                          eliminated; 0: the bias is a free variable */
    double target;     /* 2 p - 1, p the positive share wanted */
    int threads;       /* a team of its own for each pass */
    tsgs__path_team *team; /* or NULL: the path runs as a task of it */
    tsgs__stop *stop;  /* or NULL: a stop asked ends the annealing (the
                          candidates not reached take the last solution) */
} tsgs__s3vm_problem;

/* The smoothed hinge max(0, 1 - z) (quadratic within HINGE_SMOOTH of the
 * kink) and its derivative in z; exposed for tests. */
double tsgs__smooth_hinge(double z, double *dz);
/* The annealed unlabeled loss -T log((exp(-h(r)/T) + exp(-h(-r)/T)) / 2), h the
 * smoothed hinge (Sindhwani, Keerthi and Chapelle, ICML 2006), and its
 * derivative in r. */
double tsgs__softmin_loss(double r, double T, double *dr);

/* The objective at temperature T for w (D doubles) and bias b (used only
 * when balance is 0); gradient into gw (D) and *gb. Exposed for tests. */
double tsgs__s3vm_objective(const tsgs__s3vm_problem *pb, double T,
                            const double *w, double b, double *gw,
                            double *gb);

/* From (w, *b) (with balance the start's bias is ignored), minimises the
 * objective at temps[0], temps[1], ... in turn, each from the previous
 * solution, by at most `iters` L-BFGS iterations each; candidate k's
 * weights go to cand_w + k * D and its bias (the effective one under
 * balance) to cand_b[k]. On return (w, *b) is the last candidate. */
tsgs_status tsgs__s3vm_anneal(const tsgs__s3vm_problem *pb,
                              const double *temps, int ntemps, long iters,
                              double *w, double *b, double *cand_w,
                              double *cand_b, tsgs_error *err);

/* The effective bias of w under the balance constraint. */
double tsgs__s3vm_balance_bias(const tsgs__s3vm_problem *pb, const double *w);

#endif
