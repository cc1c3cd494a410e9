/* lbfgs.c: a small limited-memory BFGS minimiser for the smooth
 * objectives of the safe solver's semi-supervised phase. */
#ifndef TSGS_LBFGS_H
#define TSGS_LBFGS_H

#include "common/common.h"

/* f(x), with its gradient written to grad (n doubles). */
typedef double (*tsgs__objective)(const double *x, double *grad, void *user);

typedef struct {
    int memory;        /* correction pairs kept */
    long max_iter;     /* iterations at most */
    double rel_tol;    /* stop when an iteration lowers f by less than
                          rel_tol * max(1, |f|) */
    tsgs__stop *stop;  /* or NULL: polled each iteration, a stop asked
                          ends the minimisation where it is */
} tsgs__lbfgs_opts;

/* Minimises fn from x (n doubles, overwritten with the result) by
 * L-BFGS with a backtracking Armijo line search. Returns the iterations
 * run, or -1 when out of memory. Deterministic: a pure function of fn and
 * the start. */
long tsgs__lbfgs(size_t n, double *x, tsgs__objective fn, void *user,
                 const tsgs__lbfgs_opts *opt);

#endif
