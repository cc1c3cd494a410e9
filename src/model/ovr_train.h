/* ovr_train.c: multi-class training above the solver interface. One
 * binary problem per class (that class +1, the rest -1), trained through
 * the caller's binary training (train.c), the classes sharing what the
 * first one chose (tsgs__class_share); then one choice over all classes
 * at once among the candidates each class's solver handed back.
 * Internal (tsgs__ names), not installed. */
#ifndef TSGS_MODEL_OVR_TRAIN_H
#define TSGS_MODEL_OVR_TRAIN_H

#include "solvers/solver.h"

/* A training of k > 2 classes as train.c resolved it, and its training of
 * one binary problem. */
typedef struct tsgs__ovr_data {
    const tsgs_dataset *ds;   /* the rows, their multi-class labels */
    const double *classes;    /* the labeled rows' classes, ascending */
    size_t k;
    const size_t *lidx;       /* the labeled rows, ascending */
    size_t nl;
    int threads;              /* the training's team */
    /* view's rows (labels +1, -1 or unlabeled; n_pos labeled +1) trained
     * as class job cls (NULL: a plain binary problem) */
    tsgs_status (*train_binary)(const void *ctx, const tsgs_dataset *view,
                                size_t n_pos, const tsgs_params *p,
                                const tsgs_train_hooks *hooks,
                                const tsgs__train_opts *opt,
                                const tsgs__class_job *cls, tsgs_model **out,
                                int *stopped, tsgs_error *err);
    const void *ctx;
} tsgs__ovr_data;

/* One-vs-rest over d's classes with params (the solvers' unit): the first
 * class on every thread (it fills the share), the others side by side or
 * one after another (tsgs__ovr_at_once; the same models either way), then
 * the joint choice. hooks report each class, without the monitor. */
tsgs_status tsgs__train_ovr(const tsgs__ovr_data *d, const tsgs_params *params,
                            const tsgs_train_hooks *hooks,
                            const tsgs__train_opts *opt, tsgs_model **out,
                            int *stopped_early, tsgs_error *err);

/* The joint choice over the k classes' candidates cands (each class's
 * model subs[c] for classes[c]; labels: the nl labeled rows' multi-class
 * labels in row order), applied to subs: nothing where a class handed
 * back none. */
tsgs_status tsgs__ovr_joint_choice(const tsgs__class_candidates *cands,
                                   size_t k, const double *classes,
                                   const double *labels, tsgs_model **subs,
                                   tsgs_error *err);

/* Frees what a class's candidates and the share hold (not the structs). */
void tsgs__class_candidates_clear(tsgs__class_candidates *c);
void tsgs__class_share_clear(tsgs__class_share *sh);

/* The joint choice among `options` options (each an assignment of
 * candidates to the classes), option `sup` giving every class its
 * supervised model: ok[o * n + i] is 1 where option o got held-out answer
 * i right (n answers over the repeats), right[o] their counts. The option
 * with the most right, ties to sup, then the lowest index; an option other
 * than sup only where it beats sup by margin_sd * sqrt(the answers where
 * exactly one of the two is right). */
int tsgs__joint_best(const unsigned char *ok, const size_t *right,
                     int options, int sup, size_t n, double margin_sd);

#endif
