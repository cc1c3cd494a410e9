/* train.h: parameters, class weights, training's entry and the memory
 * estimate of a run.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_TRAIN_H
#define TSGS_TRAIN_H

#include "model/model.h"

/* ----------------------------------------------------------- params.c */

/* The key a parameter's other name stands for ("c": "cost", "gamma":
 * "sigma"); any other key as it is. */
const char *tsgs__param_alias(const char *key);

/* ----------------------------------------------------- class_weight.c */

/* The "class-weight" key's text: "LABEL:W,..." or "none" into p (nothing
 * changed on error, which names the entry). */
tsgs_status tsgs__class_weights_parse(tsgs_params *p, const char *text,
                                      tsgs_error *err);
/* p's class weights as that text (shortest numbers that read back). */
void tsgs__class_weights_format(const tsgs_params *p, char *buf, size_t size);
/* Their count, labels and weights checked (tsgs_params_check). */
tsgs_status tsgs__class_weights_check(const tsgs_params *p, tsgs_error *err);
/* The weight of class `label` in p: 1 when it is not listed. */
double tsgs__class_weight_of(const tsgs_params *p, double label);

/* tsgs_params.balance: -1 auto, 0 off, and: */
#define TSGS__BALANCE_HOLD 1    /* hold the unlabeled class ratio (safe: the
                                   mean output; stochastic: a quantile) */
#define TSGS__BALANCE_CENTRED 2 /* stochastic: centred unlabeled weights */

/* -------------------------------------------------------- core: train.c */

/* A run split over processes (src/mpi/, issue #34): every process holds
 * the same rows and runs the same steps; the stochastic solvers'
 * unlabeled mini-batch predictions are shared out by position
 * (tsgs__split_range) and gathered back whole (`gather`), the default
 * solver's grid and path tasks run each on one process and their records
 * are sent to the others (`share`), so every process ends with the same bits
 * as one process would. */
typedef struct tsgs__split {
    int rank, size;     /* this process, of size (size >= 1) */
    /* Called by one thread at a time (all processes in the same order):
     * own 1: v[lo, hi) of this process's range (tsgs__split_range) into
     * every process's v[0, n), others' ranges from them; own 0: v is not
     * touched. Returns the largest `failed` of all processes (0: none
     * failed), or 1 where the exchange itself failed. */
    int (*gather)(void *ctx, double *v, size_t n, int own, int failed);
    void *ctx;
    /* The default solver's grid and path tasks spread over the
     * processes (each runs its own; safe.c): called by one thread at a
     * time, every process in the same order with the same bytes and
     * root: process root's buf[0, bytes) into every process's buf.
     * Returns 0, or 1 where the exchange failed. NULL: the solver runs
     * whole on every process. */
    int (*share)(void *ctx, void *buf, size_t bytes, int root);
} tsgs__split;

/* Initialised by field name (.scale_floor = ..., the rest 0 / NULL), so
 * that a new field touches no existing initialiser. */
typedef struct {
    int explicit_decay; /* decay every coefficient each step (reference) */
    double scale_floor; /* fold the lazy scale in when it falls below */
    int labeled_cache;  /* -1: by cost; 0: predict the labeled batch; 1:
                           cache the labeled sums */
    int zero_cols;      /* scale auto: columns zero on half the rows or
                           more scaled by max |x| (tsgs__scaler_fit_threads) */
    const double *row_w; /* each row's class weight, multiplying C (rows
                            of the data tsgs_train was given, which every
                            view keeps; tsgs__cost_row_weights); NULL: 1 */
    int steps_unpolled; /* stochastic solvers: the stop polled between
                           steps only, never inside one (tests: a stop at
                           a step's end to compare a cut step with) */
    const tsgs__split *split; /* NULL: one process */
    int serial_labeled; /* stochastic solvers' fast path: the labeled rows'
                           part of a step in the serial section, as before
                           it became a task beside the kernel (tests: the
                           reference the split step must equal bit for
                           bit) */
    /* Checkpoints (tsgs_train_checkpointed; the stochastic solvers'
     * main run only: calibration folds and one-vs-rest never see them):
     * ckpt_write's path written (NULL: none), resume's state restored
     * (NULL: a fresh run). */
    const tsgs_checkpoint *ckpt_write;
    const struct tsgs__ckpt *resume;
    const char *ckpt_settings; /* the caller's settings as a checkpoint
                                  keeps them (NULL: the job's) */
} tsgs__train_opts;

/* ------------------------------------------- solvers/sgd/checkpoint.c */

/* A checkpoint read and checked (its format, version, checksum and the
 * fields' sizes): what a run resumes from once its settings and rows
 * match (the solver checks them). */
typedef struct tsgs__ckpt tsgs__ckpt;
tsgs_status tsgs__ckpt_read(const char *path, tsgs__ckpt **out,
                            tsgs_error *err);
void tsgs__ckpt_free(tsgs__ckpt *c);
/* p's settings as a checkpoint keeps them ("key value" lines; threads,
 * bind and cache-mb, which leave the model alone, left out); malloc'd,
 * NULL when out of memory. */
char *tsgs__ckpt_settings_text(const tsgs_params *p);

/* tsgs_train split over processes (split NULL: tsgs_train itself), with
 * checkpoints (ck NULL: none; split: rank 0 writes them). */
tsgs_status tsgs__train_split(const tsgs_dataset *ds,
                              const tsgs_params *params,
                              const tsgs_train_hooks *hooks,
                              const tsgs__split *split,
                              const tsgs_checkpoint *ck, tsgs_model **out,
                              int *stopped_early, tsgs_error *err);

/* ------------------------------------------------- solvers/sgd/split.c */

/* This process's rows [*lo, *hi) of n shared out by position (split NULL:
 * all of them). */
void tsgs__split_range(const tsgs__split *split, size_t n, size_t *lo,
                       size_t *hi);
/* split's gather (NULL: returns failed as it is). */
int tsgs__split_gather(const tsgs__split *split, double *v, size_t n,
                       int own, int failed);

/* ------------------------------------------------------------ cost.c */

/* The user's C (per labeled row, or c-total) as the solvers take it: the
 * weight of the mean hinge loss over the nl labeled rows (C x nl), in
 * q->c; q->c_total cleared. */
void tsgs__cost_to_solver(tsgs_params *q, size_t nl);
/* A model trained on nl labeled rows from the solver's params back to the
 * user's unit (per-row C; `given`: the params tsgs_train was called
 * with), its one-vs-rest classes too. m NULL: nothing. */
void tsgs__cost_to_user(tsgs_model *m, const tsgs_params *given, size_t nl);
/* Each row's class weight (p's class_weights; 1 for unlabeled rows and
 * unlisted classes) into *out (n, malloc'd), or *out = NULL when every
 * labeled row's is 1. */
tsgs_status tsgs__cost_row_weights(const tsgs_dataset *ds,
                                   const tsgs_params *p, double **out,
                                   tsgs_error *err);

/* tsgs_train with the stochastic solvers' test switches; params in the
 * solvers' unit (c: the weight of the mean hinge loss, C x n_l), as
 * tsgs__cost_to_solver makes them. Resolves ds once and trains its
 * binary problems (train.c); never called back by them. */
tsgs_status tsgs__train_ex(const tsgs_dataset *ds, const tsgs_params *params,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, tsgs_model **out,
                           int *stopped_early, tsgs_error *err);
/* The same as one class of one-vs-rest (cls, solvers/solver.h; NULL: as
 * tsgs__train_ex) on ds's two classes: tests train the classes by hand. */
struct tsgs__class_job;
tsgs_status tsgs__train_class_ex(const tsgs_dataset *ds,
                                 const tsgs_params *params,
                                 const tsgs_train_hooks *hooks,
                                 const tsgs__train_opts *opt,
                                 const struct tsgs__class_job *cls,
                                 tsgs_model **out, int *stopped_early,
                                 tsgs_error *err);

/* ---------------------------------------------------------- memlimit.c */

/* The parts of tsgs_memory_available (memlimit.c), their files given
 * (tests): the tightest of the cgroup limits (v2 and v1, from the paths in
 * `self`, as /proc/self/cgroup, under `root`, as /sys/fs/cgroup, up to the
 * root) less their usage; RLIMIT_AS less the address space `statm` (as
 * /proc/self/statm) shows mapped; MemAvailable of `meminfo`. INFINITY
 * where there is no limit. */
double tsgs__cgroup_headroom(const char *root, const char *self);
double tsgs__rlimit_headroom(const char *statm);
double tsgs__meminfo_available(const char *meminfo);

/* Whether the estimates (tsgs_train_memory, tsgs_train_seconds) take ds's
 * rows as sparse ones trained on their non-zeros (memory.c): sparse rows,
 * a solver with a sparse path, directions other than orthogonal. */
int tsgs__estimate_sparse(const tsgs_dataset *ds, const tsgs_params *p);

#endif /* TSGS_TRAIN_H */
