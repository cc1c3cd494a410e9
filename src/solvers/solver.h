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
#include "select/model_select.h"

/* One-vs-rest (model/ovr_train.c, above the solvers): what the classes'
 * runs share, owned by that layer, made by the first class's run and
 * only read by the others (which may train side by side). */
typedef struct tsgs__class_share {
    const double *y;      /* the multi-class labels, per row */
    int chosen;           /* grid below is set */
    tsgs__grid_choice grid; /* (sigma, C) for every class (issue #8: one
                               per class puts the argmax's decision values
                               on different scales) */
    void *kept;           /* a solver's own rows for the later classes */
    void (*kept_free)(void *kept); /* set with kept */
    int fresh_features;   /* every class computes its own feature rows
                             (tests compare the two) */
    size_t features_reused; /* classes that took kept's feature rows
                               (updated atomically) */
} tsgs__class_share;

/* A class's candidate models and their held-out decision values, which a
 * solver hands back for the joint choice over all classes (malloc'd
 * arrays the layer frees); n 0: none (the run made no selection). */
typedef struct tsgs__class_candidates {
    int n;            /* candidates, 0 the supervised model; candidate c
                         of every class is comparable (one temperature) */
    int kept;         /* the one the class's model holds */
    size_t D;         /* each one's weights, for tsgs__model_set_weights */
    long nblocks;
    double *w, *b;    /* n x D, n */
    double c_star;    /* the model's C* for a candidate other than 0 */
    size_t nl;        /* labeled rows, in row order */
    int repeats;      /* of the held-out folds, the same for every class */
    double *oof;      /* [(c * repeats + r) * nl + i]: candidate c's
                         decision value of row i held out in repeat r */
    int few_labels;   /* fewer labeled rows of the class than folds: the
                         records cannot show what its candidates do */
} tsgs__class_candidates;

/* One class of one-vs-rest, as the layer hands it to a solver. */
typedef struct tsgs__class_job {
    tsgs__class_share *share;
    size_t index;                 /* 0: the first, which fills share */
    tsgs__class_candidates *out;  /* the solver's candidates (or none) */
} tsgs__class_job;

typedef struct tsgs__train_job tsgs__train_job;
struct tsgs__train_job {
    const tsgs_dataset *ds;        /* checked: finite, two classes */
    tsgs_params p;                 /* checked, not yet resolved */
    tsgs__scaler scaler;           /* fitted on ds; a solver's model takes
                                      it (zeroing this copy) */
    double label_neg, label_pos;   /* raw labels, neg < pos */
    size_t n_pos;                  /* labeled rows of label_pos */
    const size_t *lidx;            /* ds's labeled rows, ascending (nl):
                                      resolved once by train.c */
    size_t nl;
    const tsgs_train_hooks *hooks; /* may be NULL */
    tsgs__stop stop;               /* hooks' should_stop, for long loops */
    tsgs__train_opts opt;          /* test switches (stochastic solvers) */
    const tsgs__class_job *cls;    /* one class of one-vs-rest; NULL:
                                      binary data */
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
