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
 * over the processes (dense rows); the other solvers run whole on every
 * process (the same model, no speed-up yet).
 *
 * MPI must be initialised with MPI_THREAD_SERIALIZED or more when the
 * training runs more than one thread per process. The hooks' progress,
 * warn and monitor run on every process (print from one); should_stop is
 * not called: a stop must come at the same step on every process, which
 * this version does not do. Errors: as tsgs_train, on every process
 * (a failure on one, such as memory, fails every one). */
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
