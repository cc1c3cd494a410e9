/* The tool in an MPI job (issue #34, docs/mpi.md): `mpirun -np N tsgs3vm
 * train ...` trains one model over N processes. A build with MPI
 * (Makefile: TSGS_WITH_MPI) joins the job when a launcher started it (its
 * variables in the environment) and trains through tsgs_train_mpi; started
 * any other way, and in a build without MPI, the tool is one process as
 * it always was (MPI is not even initialised). */
#include "cli.h"

#include <stdlib.h>

#ifdef TSGS_WITH_MPI
#include "tsgs3vm_mpi.h"

static int world_on = 0; /* MPI initialised by cli_world_begin */
static int world_rank = 0, world_size = 1;

/* Whether a launcher started this process: Open MPI's mpirun, or a PMI /
 * PMIx launcher (srun, MPICH's hydra). */
static int launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_SIZE");
}

void cli_world_begin(int *argc, char ***argv)
{
    int provided;
    if (!launched())
        return;
    /* serialized: the solver's threads take turns in MPI calls */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS)
        return;
    world_on = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
}

int cli_world_end(int rc)
{
    if (!world_on)
        return rc;
    if (rc != 0 && world_size > 1) {
        /* this process printed why: the others, perhaps waiting for it in
         * a step, end with it */
        fprintf(stderr, "ERROR: rank %d of %d failed: ending the MPI job\n",
                world_rank, world_size);
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    MPI_Finalize();
    return rc;
}

int cli_world_rank(void)
{
    return world_rank;
}

int cli_world_size(void)
{
    return world_size;
}

tsgs_status cli_world_train(const tsgs_dataset *ds, const tsgs_params *p,
                            const tsgs_train_hooks *hooks,
                            const tsgs_checkpoint *ck, tsgs_model **out,
                            int *stopped, tsgs_error *err)
{
    if (!world_on)
        return tsgs_train_checkpointed(ds, p, hooks, ck, out, stopped, err);
    tsgs_mpi_stats ms;
    tsgs_status st = tsgs_train_mpi_checkpointed(MPI_COMM_WORLD, ds, p, hooks,
                                                 ck, out, stopped, &ms, err);
    /* TSGS3VM_MPI_STATS=1: each process says what its exchanges cost
     * (tests/mpi/run.sh, bench/scripts/mpi_steps.sh) */
    const char *say = getenv("TSGS3VM_MPI_STATS");
    if (st == TSGS_OK && say && say[0] == '1')
        fprintf(stderr, "mpi: rank %d of %d: %ld exchanges, %.0f bytes "
                        "sent, %.0f received, %.6f s\n",
                world_rank, ms.processes, ms.exchanges, ms.bytes_sent,
                ms.bytes_received, ms.seconds);
    return st;
}

#else /* one process */

void cli_world_begin(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

int cli_world_end(int rc)
{
    return rc;
}

int cli_world_rank(void)
{
    return 0;
}

int cli_world_size(void)
{
    return 1;
}

tsgs_status cli_world_train(const tsgs_dataset *ds, const tsgs_params *p,
                            const tsgs_train_hooks *hooks,
                            const tsgs_checkpoint *ck, tsgs_model **out,
                            int *stopped, tsgs_error *err)
{
    return tsgs_train_checkpointed(ds, p, hooks, ck, out, stopped, err);
}

#endif
