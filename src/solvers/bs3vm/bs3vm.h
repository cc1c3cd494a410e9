/* bs3vm.h: the BS3VM solver's entry points.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_SOLVERS_BS3VM_BS3VM_H
#define TSGS_SOLVERS_BS3VM_BS3VM_H

#include "model/model.h"

/* ---------------------------------------------------- solvers/bs3vm.c */

/* Projection coefficients of the NNP / RNP step: solves K c = kr for the
 * k x k kernel matrix K of the chosen vectors (overwritten by its Cholesky
 * factor) and kr[j] = k(x_j, x_r); c = kr on return. Returns 0, or -1 when
 * K is not positive definite (the caller then falls back to removal). */
int tsgs__bs3vm_project(double *K, double *kr, size_t k);
/* Budget maintenance (section 3.3) on the support vectors j of b with
 * lab[j] == portion: r = the one of smallest |alpha|; NNP / RNP add
 * alpha_r * c to k others (its nearest, or drawn from counter *rc of the
 * seed's bs3vm stream), c the projection of Phi(sv_r) on their span,
 * listed in sc->nb[0 .. *used); REMOVE (or a failed projection) changes
 * nothing (*used = 0). Returns r, which the caller then removes. sc holds
 * k entries (K: k * k). */
typedef struct {
    size_t *nb;
    double *nd, *K, *kr;
} tsgs__bs3vm_scratch;
size_t tsgs__bs3vm_maintain(tsgs__bs3vm *b, const unsigned char *lab,
                            int portion, tsgs_budget_rule rule, size_t k,
                            uint64_t seed, uint64_t *rc,
                            tsgs__bs3vm_scratch *sc, size_t *used);

#endif /* TSGS_SOLVERS_BS3VM_BS3VM_H */
