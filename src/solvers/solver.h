/* The one interface every solver sits behind. train.c checks the data
 * (finite values, two classes), fits the scaler, resolves the team (its
 * threads and binding) and hands the solver a job; the solver resolves
 * its own settings, trains, and returns a model that owns the scaler.
 * The model then predicts for every solver alike (model.c), so no solver
 * is called after training and none calls back into train.c: what
 * belongs to the caller (the team, the monitor's accuracy in progress
 * reports) comes with the job.
 *
 * The interface is train + steps, not setup / step / finish: the
 * stochastic solvers step, but the safe solver runs stages (grid, paths,
 * selection) and bs3vm steps over support vectors; each file keeps its own
 * loop and reports progress through the job's hooks. */
#ifndef TSGS_SOLVER_H
#define TSGS_SOLVER_H

#include "train.h"

typedef struct tsgs__train_job tsgs__train_job;
struct tsgs__train_job {
    const tsgs_dataset *ds;        /* checked: finite, two classes */
    tsgs_params p;                 /* checked, not yet resolved */
    tsgs__scaler scaler;           /* fitted on ds; a solver's model takes
                                      it (zeroing this copy) */
    double label_neg, label_pos;   /* raw labels, neg < pos */
    size_t n_pos;                  /* labeled rows of label_pos */
    const tsgs_train_hooks *hooks; /* may be NULL */
    tsgs__stop stop;               /* hooks' should_stop, for long loops */
    tsgs__train_opts opt;          /* test switches (stochastic solvers) */
    tsgs__team team;               /* the threads to train on (p.threads
                                      resolved), p's binding, hooks' warn */
    /* The accuracy of m on the hooks' monitor rows (hooks->monitor not
     * NULL), measured by the caller on the team's threads: a progress
     * report's monitor_accuracy. */
    double (*monitor_accuracy)(const tsgs__train_job *job,
                               const tsgs_model *m);
};

typedef struct {
    /* Trains; on an early stop the partial model is returned and
     * *stopped_early (if not NULL) set. */
    tsgs_status (*train)(tsgs__train_job *job, tsgs_model **out,
                         int *stopped_early, tsgs_error *err);
    /* The progress steps a run reports (its `iterations`). */
    long (*steps)(const tsgs_dataset *ds, const tsgs_params *p);
    /* One-vs-rest, after every class trained (NULL: nothing to do): a
     * choice made over all classes at once, from what each class's run
     * left in the share; subs NULL (a failed run): only frees that. */
    tsgs_status (*ovr_finish)(struct tsgs__ovr_share *share,
                              const double *classes, tsgs_model **subs,
                              size_t k, tsgs_error *err);
    /* The random feature directions a run makes, counted over its stages
     * (a grid's widths, refits, paths; each direction as wide as the
     * input, or as its sparse rows' columns): train_time.c's estimate of
     * what grows with the width. 0: no random features. */
    double (*directions)(const tsgs_dataset *ds, const tsgs_params *p);
} tsgs__solver;

/* The solver that trains p's solver setting. */
const tsgs__solver *tsgs__solver_of(tsgs_solver id);

extern const tsgs__solver tsgs__solver_sgd;   /* tsg, dsg, cdsg, frs */
extern const tsgs__solver tsgs__solver_bs3vm; /* bs3vm */
extern const tsgs__solver tsgs__solver_safe;  /* safe */

#endif
