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

/* Everything a run needs besides the model. */
typedef struct {
    const tsgs__train_job *job; /* the caller's: its team, hooks, monitor */
    const tsgs_dataset *ds;
    tsgs_params p;      /* resolved */
    int threads;        /* the job's team's */
    size_t d;
    size_t nl, nu;      /* labeled and unlabeled rows */
    size_t *lidx;       /* labeled row indices (in batch order) */
    size_t *uidx;       /* unlabeled row indices, reshuffled each pass */
    size_t *ubatch;     /* the rows of the current unlabeled mini-batch */
    tsgs__rows XL;      /* scaled labeled rows, nl x d (dense or sparse) */
    double *yl;         /* +1 / -1 */
    double *cwl;        /* class weights of the labeled rows (C x cwl[i]);
                           NULL: every one 1 */
    double *hl;         /* cached unscaled sums of the labeled rows */
    double *wl;         /* loss derivative weights of the labeled rows */
    tsgs__rows XU;      /* scaled unlabeled mini-batch, bu x d */
    double *gu;         /* its decision values */
    double *wu;
    size_t bl, bu;      /* mini-batch sizes */
    size_t upos;        /* position in the current pass over uidx */
    long epoch;
    float *Wb, *Pb;     /* packed directions of the block being updated */
    float *cl, *sl;     /* block features of the labeled rows */
    float *cu, *su;     /* block features of the unlabeled mini-batch */
    double *dac, *das;  /* coefficient increments of the block */
    int lcache;         /* labeled sums cached (n_l small), else the
                           labeled mini-batch is predicted every step */
    tsgs__rows XLb;     /* no cache: the labeled mini-batch's rows */
    double *gl;         /* no cache: its decision values */
    int pair;           /* PAIR features: cos and sin per direction */
    long ngb;           /* packed groups per block */
    size_t wb;          /* their width, ngb * LANES */
    double *gc, *gs;    /* gradient of the block being written */
    double *cgc, *cgs;  /* the checking rule's candidate gradient */
    double *qc, *qs;    /* block_sums' sums of squares */
    float *bcl, *bsl;   /* the best candidate's labeled features */
    int frs;            /* FRS3VM: one fixed set of features */
    long frs_dirs;      /* its directions */
    long frs_groups;    /* and packed groups */
    float *fcl, *fsl;   /* FRS: features of every labeled row, fixed */
    double *sorted;     /* balance: the mini-batch's sorted decisions */
    double mean_ema;    /* balance: running threshold */
    tsgs__train_opts opt;
    double t_start;     /* when the steps started */
    double monitor_s;   /* time spent measuring the monitor set since */
    size_t *ubatch_next; /* the next mini-batch's rows, read ahead */
    /* rows held in shares (ds->held): the last HELD_BATCHES mini-batches
     * fetched (bu rows each, a ring), let go of as new ones come */
    size_t *held_ring;
    long held_count;    /* mini-batches fetched so far */
    tsgs__rows XU_next; /* and their scaled copies */
    tsgs__featcache *fc; /* sparse rows: every unlabeled row's features
                            (then XU and XU_next are not gathered) */
    size_t *lrow;       /* with the labeled cache: the labeled rows' rows
                           in the dataset, XL's order (also in fc) */
    long next_t;        /* the step whose rows ubatch_next holds (0: none) */
    long plan_t;        /* the step planned (its rows in XU; on the fast
                           path its block chosen too), 0: none */
    int fast;           /* the fast path: a step's block is chosen before
                           its predictions (no checking rule, labeled
                           cache, not FRS) */
    int big_update;     /* the labeled-cache update is worth a team */
    int split_step;     /* fast path, learned bias, small labeled cache,
                           one process (not a run split over processes):
                           the labeled rows' part of a step (the cache's
                           update, their block features, loss weights and
                           gradient sums, the bias's gradient) is one
                           task beside the kernel, not serial */
    int hl_pending;     /* split: the labeled cache still lacks the last
                           step's block (dac / das over cl / sl), which
                           the next step's labeled task adds first */
    double bias_g;      /* split: the learned bias's gradient, sum wl */
    int *tile_count;    /* split: the kernel's row tiles' written group
                           tiles (tsgs__rows_done), bu / 12 + 1 */
    long view_blocks;   /* fast path: the blocks the predictions see */
    const tsgs_train_hooks *hooks;
    /* The caller's stop, polled inside a step where its work grows with
     * the rows' width (the sparse kernels, the column cache's new
     * directions; NULL: between steps only): a step that sees it is
     * abandoned, the state back to r->mark. */
    tsgs__stop *halt;
    step_mark mark;
    long T, t1;         /* the run's steps; the last of this stretch */
    long max_blocks;
    size_t *draws;      /* the shuffle's draws: two chunks */
    int *chunks_taken;  /* fast path, a team: per worker, the chunks of its
                           share of the rows read ahead taken so far */
    size_t master_rows; /* of them, the rows the master gathered in the
                           step before: the ones it asks the memory for */
    double *part;       /* the kernel's partial sums, shared by the team */
    size_t npart;       /* their size */
    /* Shared by the team within a step: what one thread decided for all. */
    tsgs_error *err;    /* where a failure is described */
    int failed;         /* the kernel could not generate directions */
    int stop;           /* the hooks asked to stop */
    long t_last;        /* the last step run */
    tsgs_status run_st; /* TSGS_OK, or why a step failed */
    long blk;           /* the block this step writes */
    double blk_eta;     /* and its step */
    int blk_checked;    /* its gradient is the checking rule's */
    double var;         /* block_gradient's sampling variance */
    long best;          /* the checking rule's best candidate */
    double best_eta;    /* and its step */
    /* Checkpoints (checkpoint.c; opt.ckpt_write, opt.resume) */
    char *ck_settings;  /* the run's settings as the file keeps them */
    uint64_t ck_data[4]; /* its rows: n, d, labeled, hash */
    double ck_next_s;   /* when the next one is due (every_seconds) */
    long t_begin;       /* the steps done before this process's (resumed
                           from a checkpoint; else 0) */
    int pause;          /* the master: one is due after step t_last (the
                           stretch ends there) */
} run_t;

/* What each thread of the team keeps for itself. */
typedef struct {
    tsgs__kernel_ws ws; /* scratch for regenerated directions */
} lane_t;

/* Step t (1-based) by the run's path: the fast one (r->fast), FRS
 * (r->frs) or the general one; called by every thread of the team (or
 * outside a parallel region, by one). TSGS_OK, or why the step failed;
 * r->stop when the hooks asked to stop: at the step's end, or inside it
 * (r->halt), which abandons it: the model and the run as step t - 1 left
 * them (r->mark), r->t_last unchanged. */
tsgs_status tsgs__sgd_step(run_t *r, tsgs_model *m, long t, lane_t *me);

/* Serial: r->mark from the model and the run as they are (the end of the
 * step before the next one; sgd.c before a stretch's first step). */
void tsgs__sgd_mark(run_t *r, const tsgs_model *m);

/* Serial, after a stretch's team: the labeled cache made current (a
 * split run's last step leaves its block's update pending). */
void tsgs__sgd_flush(run_t *r, const tsgs_model *m);

/* A new random order of the unlabeled rows for pass r->epoch (team). */
void tsgs__sgd_shuffle_pass(run_t *r);
/* Rows held in shares (ds->held): mini-batches fetched, each kept while
 * the steps may still read it (the one read ahead, the one predicted),
 * then let go of. */
#define TSGS__HELD_BATCHES 3
/* Serial, every process in the same order: a new mini-batch's rows (bu)
 * fetched, the one HELD_BATCHES before let go of. A no-op when every row
 * is here. */
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
