/* The state of a run of the stochastic solvers, shared by sgd.c (setup,
 * the run loop, finish) and sgd_step.c (the steps); included by those two
 * files only. */
#ifndef TSGS_SGD_STEP_H
#define TSGS_SGD_STEP_H

#include "solvers/solver.h"
#include "solvers/sgd/sgd.h"

/* What a step cut by a stop puts back (sgd_step.c, abandon_step): the
 * state the end of the step before left, taken there (tsgs__sgd_mark)
 * before the next step is planned. The rest a step changes before it can
 * be cut (the rows read ahead and the plan, the labeled batch's order,
 * the loss weights, the features) is the run's scratch for later steps,
 * which a cut run never reads again. */
typedef struct {
    long nblocks;       /* the model's blocks (a new one is dropped) */
    long cached_dirs;   /* its direction cache */
    long cc_filled;     /* its column cache's directions */
    long fc_filled;     /* the rows' feature cache's */
    double bias;        /* the balance rule's bias and its threshold */
    double mean_ema;
    size_t upos;        /* the pass: its position, number and order */
    long epoch;
    long next_t;        /* the step whose rows were taken ahead */
} step_mark;

/* The run's settings, resolved before its first step (sgd.c), read by
 * every step. */
typedef struct {
    int cos_sin;        /* PAIR features: cos and sin per direction */
    long groups_per_block; /* packed groups per block */
    size_t block_width; /* their width, groups_per_block * LANES */
    int labeled_cache;  /* labeled sums cached (n_l small), else the
                           labeled mini-batch is predicted every step */
    int fast;           /* the fast path: a step's block is chosen before
                           its predictions (no checking rule, labeled
                           cache, not FRS) */
    int team_updates_cache; /* the labeled-cache update is worth a team */
    int split_step;     /* fast path, learned bias, small labeled cache,
                           one process (not a run split over processes):
                           the labeled rows' part of a step (the cache's
                           update, their block features, loss weights and
                           gradient sums, the bias's gradient) is one
                           task beside the kernel, not serial */
    long max_blocks;
} run_settings;

/* The labeled rows: all of them (cached sums) or a mini-batch a step. */
typedef struct {
    size_t n;
    size_t *order;      /* labeled row indices (in batch order) */
    size_t *dataset_rows; /* with the labeled cache: the labeled rows'
                           rows in the dataset, rows' order (also in
                           the unlabeled feature cache) */
    tsgs__rows rows;    /* scaled labeled rows, n x d (dense or sparse) */
    double *y;          /* +1 / -1 */
    double *class_weight; /* C x class_weight[i]; NULL: every one 1 */
    double *sums;       /* cached unscaled sums of the labeled rows */
    double *loss_weight; /* loss derivative weights */
    float *block_cos, *block_sin; /* block features */
    tsgs__rows batch_rows; /* no cache: the labeled mini-batch's rows */
    double *batch_decision; /* no cache: its decision values */
    size_t batch_size;
    int sums_pending;   /* split: the cache still lacks the last step's
                           block (the block's increments over block_cos /
                           block_sin), which the next step's labeled task
                           adds first */
    double bias_gradient; /* split: the learned bias's gradient, sum of
                             loss_weight */
} run_labeled;

/* The unlabeled rows: passes in a shuffled order, a mini-batch a step. */
typedef struct {
    size_t n;
    size_t *order;      /* unlabeled row indices, reshuffled each pass */
    size_t pass_position; /* position in the current pass over order */
    long pass;
    size_t *shuffle_draws; /* the shuffle's draws: two chunks */
    size_t *batch;      /* the rows of the current mini-batch */
    tsgs__rows batch_rows; /* their scaled copies, batch_size x d */
    double *decision;   /* their decision values */
    double *loss_weight;
    float *block_cos, *block_sin; /* block features of the mini-batch */
    size_t batch_size;
    tsgs__featcache *feature_cache; /* sparse rows: every unlabeled row's
                            features (then batch_rows and the read-ahead's
                            are not gathered) */
    double *sorted_decisions; /* balance: the mini-batch's, sorted */
    double balance_threshold; /* balance: running threshold (an EMA) */
} run_unlabeled;

/* The next mini-batch, read ahead by the team during a step. */
typedef struct {
    size_t *batch;      /* its rows */
    tsgs__rows batch_rows; /* and their scaled copies */
    long step;          /* the step whose rows batch holds (0: none) */
    int *chunks_taken;  /* fast path, a team: per worker, the chunks of its
                           share of the rows read ahead taken so far */
    size_t master_rows; /* of them, the rows the master gathered in the
                           step before: the ones it asks the memory for */
    /* rows held in shares (ds->held): the last HELD_BATCHES mini-batches
     * fetched (batch_size rows each, a ring), let go of as new ones come */
    size_t *held_batches;
    long batches_fetched; /* mini-batches fetched so far */
} run_read_ahead;

/* FRS3VM: one fixed set of features. */
typedef struct {
    int on;
    long dirs;          /* its directions */
    long groups;        /* and packed groups */
    float *labeled_cos, *labeled_sin; /* features of every labeled row,
                                         fixed */
} run_frs;

/* The block being written this step: its directions, gradient and
 * coefficient increments. */
typedef struct {
    float *panel, *phase; /* its packed directions */
    double *increment_cos, *increment_sin; /* coefficient increments */
    double *gradient_cos, *gradient_sin; /* gradient of the block */
    double *check_gradient_cos, *check_gradient_sin; /* the checking
                                               rule's candidate gradient */
    double *squares_cos, *squares_sin; /* block_sums' sums of squares */
    float *best_labeled_cos, *best_labeled_sin; /* the best candidate's
                                                   labeled features */
} run_block;

/* Checkpoints (checkpoint.c; opt.ckpt_write, opt.resume). */
typedef struct {
    char *settings;     /* the run's settings as the file keeps them */
    uint64_t data[4];   /* its rows: n, d, labeled, hash */
    double next_due_s;  /* when the next one is due (every_seconds) */
    long steps_resumed; /* the steps done before this process's (resumed
                           from a checkpoint; else 0) */
    int due;            /* the master: one is due after step
                           step.last_done (the stretch ends there) */
} run_checkpoint;

/* Shared by the team within a step: what one thread decided for all. */
typedef struct {
    tsgs_error *err;    /* where a failure is described */
    int failed;         /* the kernel could not generate directions */
    int stop;           /* the hooks asked to stop */
    long last_done;     /* the last step run */
    tsgs_status status; /* TSGS_OK, or why a step failed */
    long planned;       /* the step planned (its rows in the unlabeled
                           batch; on the fast path its block chosen too),
                           0: none */
    long view_blocks;   /* fast path: the blocks the predictions see */
    long block;         /* the block this step writes */
    double block_eta;   /* and its step */
    double variance;    /* block_gradient's sampling variance */
    long best;          /* the checking rule's best candidate */
    double best_eta;    /* and its step */
    double *partial_sums; /* the kernel's, shared by the team */
    size_t n_partial;   /* their size */
    int *tile_count;    /* split: the kernel's row tiles' written group
                           tiles (tsgs__rows_done), batch_size / 12 + 1 */
    int runs_taken;     /* split: the gradient columns' runs taken after
                           the kernel (split_columns), set to 0 before it */
} run_step;

/* Everything a run needs besides the model. */
typedef struct {
    const tsgs__train_job *job; /* the caller's: its team, hooks, monitor */
    const tsgs_dataset *ds;
    tsgs_params p;      /* resolved */
    tsgs__train_opts opt;
    int threads;        /* the job's team's */
    size_t d;
    run_settings settings;
    run_labeled labeled;
    run_unlabeled unlabeled;
    run_read_ahead ahead;
    run_frs frs;
    run_block block;
    run_step step;
    run_checkpoint ckpt;
    const tsgs_train_hooks *hooks;
    /* The caller's stop, polled inside a step where its work grows with
     * the rows' width (the sparse kernels, the column cache's new
     * directions; NULL: between steps only): a step that sees it is
     * abandoned, the state back to r->mark. */
    tsgs__stop *halt;
    step_mark mark;
    long T, t1;         /* the run's steps; the last of this stretch */
    double t_start;     /* when the steps started */
    double monitor_s;   /* time spent measuring the monitor set since */
} run_t;

/* What each thread of the team keeps for itself. */
typedef struct {
    tsgs__kernel_ws ws; /* scratch for regenerated directions */
} lane_t;

/* Step t (1-based) by the run's path: the fast one (r->settings.fast), FRS
 * (r->frs.on) or the general one; called by every thread of the team (or
 * outside a parallel region, by one). TSGS_OK, or why the step failed;
 * r->step.stop when the hooks asked to stop: at the step's end, or inside it
 * (r->halt), which abandons it: the model and the run as step t - 1 left
 * them (r->mark), r->step.last_done unchanged. */
tsgs_status tsgs__sgd_step(run_t *r, tsgs_model *m, long t, lane_t *me);

/* Serial: r->mark from the model and the run as they are (the end of the
 * step before the next one; sgd.c before a stretch's first step). */
void tsgs__sgd_mark(run_t *r, const tsgs_model *m);

/* Serial, after a stretch's team: the labeled cache made current (a
 * split run's last step leaves its block's update pending). */
void tsgs__sgd_flush(run_t *r, const tsgs_model *m);

/* A new random order of the unlabeled rows for pass r->unlabeled.pass
 * (team). */
void tsgs__sgd_shuffle_pass(run_t *r);
/* Rows held in shares (ds->held): mini-batches fetched, each kept while
 * the steps may still read it (the one read ahead, the one predicted),
 * then let go of. */
#define TSGS__HELD_BATCHES 3
/* Serial, every process in the same order: a new mini-batch's rows
 * (unlabeled.batch_size) fetched, the one HELD_BATCHES before let go of.
 * A no-op when every row is here. */
void tsgs__held_batch(run_t *r, const size_t *rows);
/* The mini-batches still held let go of (the run's end). */
void tsgs__held_batch_end(run_t *r);

/* The decision value below which a share (1 - ratio) of v lies (v is
 * reordered). */
double tsgs__sgd_quantile(double *v, size_t n, double ratio);

/* A progress report at step t of T through the hooks (the monitor set
 * measured when `measure`), and whether the hooks ask for a monitor
 * measurement after step t. */
void tsgs__sgd_report_progress(run_t *r, const tsgs_model *m,
                               const tsgs_train_hooks *hooks, long t, long T,
                               int measure);
int tsgs__sgd_measure_due(const tsgs_train_hooks *hooks, long t);

/* ---------------------------------------------------- checkpoint.c */

/* The run's fingerprint (settings, rows) into r when it writes or resumes
 * checkpoints; resuming, checked against opt.resume's (an error names
 * what differs) and the checkpoint's C and sigma into r->p. */
tsgs_status tsgs__ckpt_match(run_t *r, const tsgs__train_job *job,
                             tsgs_error *err);
/* opt.resume's state into the model (its blocks made) and the run, once
 * both are set up for T steps and max_blocks blocks; *t_done: the steps
 * it had run. */
tsgs_status tsgs__ckpt_restore(run_t *r, tsgs_model *m, long T,
                               long max_blocks, long *t_done,
                               tsgs_error *err);
/* The state after step t (r between two stretches) written to
 * opt.ckpt_write's path. */
tsgs_status tsgs__ckpt_write(const run_t *r, const tsgs_model *m, long t,
                             tsgs_error *err);

#endif
