/* tsgs3vm_mpi.h: training over an MPI communicator (issue #34). Built and
 * installed only where MPI is found (libtsgs3vm_mpi.a, linked before the
 * static libtsgs3vm.a, whose internal functions it calls, and the MPI
 * library); docs/mpi.md says what is carried.
 *
 * tsgs_train_mpi is collective over comm: every process of it calls it with
 * the same rows and parameters, and each gets the same model, bit for bit
 * the model tsgs_train makes of those rows in one process, for any number
 * of processes and threads. The stochastic solvers (tsg and the others of
 * the sgd family) share each step's unlabeled mini-batch predictions out
 * over the processes (dense rows); the default solver (safe) spreads its
 * grid's CV tasks and its selection's path tasks over them (each runs
 * its share, the records then broadcast from each task's runner), its
 * other stages run whole on every process; the other solvers run whole on every process (the same
 * model, no speed-up yet).
 *
 * The rows may be every row on every process, or a dataset that
 * tsgs_dataset_read_mpi read over the same comm, each process holding its
 * share: tsgs_train_mpi then pins every labeled row on every process and
 * fetches each mini-batch's rows from their holders (solver tsg on two
 * classes, scale none, zscore, minmax or auto; the same bits). Training
 * such a dataset with another solver, one-vs-rest or probabilities reads
 * rows that are not held (zeros): not supported.
 *
 * MPI must be initialised with MPI_THREAD_SERIALIZED or more when the
 * training runs more than one thread per process. The hooks' progress,
 * warn and monitor run on every process (print from one). should_stop is
 * asked on every process once per step of tsg, as the step's values are
 * exchanged: a stop asked on any one is taken by every process after that
 * same step (the model of the steps done, *stopped_early set, on every
 * process; never inside a step). The other solvers, and tsg's work
 * before its steps, exchange nothing per step and never stop. Errors: as
 * tsgs_train, on every process (a failure on one, such as memory, fails
 * every one). */
#ifndef TSGS3VM_MPI_H
#define TSGS3VM_MPI_H

#include <mpi.h>

#include "tsgs3vm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a training's exchanges between the processes cost this process
 * (tsgs_train_mpi fills it when not NULL, on success or not). */
typedef struct {
    int processes;      /* the communicator's size */
    long exchanges;     /* mini-batch gathers (one per step that has
                           unlabeled rows) */
    double bytes_sent;  /* this process's share, values and flags */
    double bytes_received; /* the others' */
    double seconds;     /* wall time inside the exchanges' MPI calls
                           (the wait for the slowest process included) */
} tsgs_mpi_stats;

/* What tsgs_dataset_read_mpi read on this process. */
typedef struct {
    size_t rows;           /* the dataset's, every process's */
    size_t row_lo, row_hi; /* the rows this process read and holds */
    unsigned long long from, to; /* a text file's bytes it parsed; a
                                    .npy's (or a file read whole's) rows */
    int whole;             /* it read the whole file: a compressed one (cut
                              by rows after), or sparse LIBSVM rows (held
                              whole by every process) */
    double read_seconds;   /* wall time of the read, collectives included */
} tsgs_mpi_read_stats;

/* A training file read over comm (collective; every process passes the
 * same path and options): each process parses only its share of it (a
 * text file's lines in byte ranges split at line starts, a .npy's rows in
 * row ranges) and holds those rows, the labels of every row and, once a
 * training over comm starts, every labeled row; tsgs_train_mpi fetches
 * the rows a step needs from their holders. The dataset reads as the one
 * tsgs_dataset_read gives (rows, labels, dimension, layout) to the
 * functions of this header, to tsgs_dataset_keep_labels and to the
 * counts (rows, features, labels); other functions that read features
 * see zeros where the rows are not held: train it with tsgs_train_mpi
 * over the same comm only. Errors: the first failing process's (the
 * one-process read's message and file line), on every process. Sparse
 * LIBSVM rows are read whole by every process (stats->whole). */
tsgs_status tsgs_dataset_read_mpi(MPI_Comm comm, const char *path,
                                  const tsgs_read_options *opt,
                                  tsgs_dataset **out,
                                  tsgs_mpi_read_stats *stats,
                                  tsgs_error *err);

/* Whether ds was read in shares (tsgs_dataset_read_mpi); *resident
 * (unless NULL): about how many rows' features this process has in
 * memory now (its pages in core, mincore); *fetched_bytes (unless NULL):
 * the bytes of rows it has received from the others so far (the labeled
 * rows, the mini-batches, the scaler's chunks, the samples). */
int tsgs_dataset_rows_held(const tsgs_dataset *ds, size_t *resident,
                           double *fetched_bytes);

tsgs_status tsgs_train_mpi(MPI_Comm comm, const tsgs_dataset *train,
                           const tsgs_params *params,
                           const tsgs_train_hooks *hooks, tsgs_model **out,
                           int *stopped_early, tsgs_mpi_stats *stats,
                           tsgs_error *err);

/* tsgs_train_mpi with checkpoints (tsgs3vm.h, tsgs_train_checkpointed):
 * rank 0 alone writes ck->path; every process reads ck->resume (a path
 * every process can read). */
tsgs_status tsgs_train_mpi_checkpointed(MPI_Comm comm,
                                        const tsgs_dataset *train,
                                        const tsgs_params *params,
                                        const tsgs_train_hooks *hooks,
                                        const tsgs_checkpoint *ck,
                                        tsgs_model **out, int *stopped_early,
                                        tsgs_mpi_stats *stats,
                                        tsgs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TSGS3VM_MPI_H */
