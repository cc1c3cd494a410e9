/* The tool in an MPI job (issue #34, docs/mpi.md): `mpirun -np N tsgs3vm
 * train ...` trains one model over N processes. A build with MPI
 * (Makefile: TSGS_WITH_MPI) joins the job when a launcher started it (its
 * variables in the environment) and trains through tsgs_train_mpi; started
 * any other way, and in a build without MPI, the tool is one process as
 * it always was (MPI is not even initialised). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

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
    /* 128 + a signal: a stop every process took at the same step
     * (train_cmd.c), rank 0 having written the model of the steps done:
     * the job ends as it would have, with that status */
    if (rc != 0 && rc <= 128 && world_size > 1) {
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

/* Whether o's training carries rows read in shares (cli.h). */
static int shares_carried(const cli_opts *o, const char *path)
{
    const char *how = getenv("TSGS3VM_MPI_READ");
    const tsgs_scaling sc = o->params.scale;
    return !(how && strcmp(how, "whole") == 0) &&
           o->params.solver == TSGS_SOLVER_TSG && !o->unlabeled_file &&
           strcmp(path, "-") != 0 && !o->params.probability &&
           (sc == TSGS_SCALE_AUTO || sc == TSGS_SCALE_ZSCORE ||
            sc == TSGS_SCALE_MINMAX || sc == TSGS_SCALE_NONE);
}

int cli_world_read(const cli_opts *o, const char *path, tsgs_dataset **out)
{
    if (!world_on || !shares_carried(o, path))
        return -1;
    tsgs_read_options ro = cli_read_options(o);
    tsgs_mpi_read_stats rs;
    tsgs_error err;
    tsgs_dataset *ds = NULL;
    if (tsgs_dataset_read_mpi(MPI_COMM_WORLD, cli_path(path, 0), &ro, &ds,
                              &rs, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    /* one-vs-rest (three classes or more) over shares: not carried */
    double *labels = NULL;
    size_t k = 0;
    if (tsgs_dataset_classes(ds, &labels, &k, &err) != TSGS_OK) {
        cli_error(&err);
        tsgs_dataset_free(ds);
        return 1;
    }
    free(labels);
    if (k > 2 && tsgs_dataset_rows_held(ds, NULL, NULL)) {
        tsgs_dataset_free(ds);
        return -1;
    }
    const char *say = getenv("TSGS3VM_MPI_STATS");
    if (say && say[0] == '1') {
        size_t resident = 0;
        tsgs_dataset_rows_held(ds, &resident, NULL);
        tsgs_data_layout layout;
        tsgs_dataset_layout(ds, &layout);
        fprintf(stderr, "mpi: rank %d of %d: read rows [%zu, %zu) of %zu "
                        "(%s [%llu, %llu)%s) in %.3f s, ~%zu rows "
                        "resident\n",
                world_rank, world_size, rs.row_lo, rs.row_hi, rs.rows,
                rs.whole || layout.format == TSGS_FORMAT_NPY ? "rows"
                                                              : "bytes",
                rs.from, rs.to, rs.whole ? ", read whole" : "",
                rs.read_seconds, resident);
    }
    *out = ds;
    return 0;
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
    if (st == TSGS_OK && say && say[0] == '1') {
        fprintf(stderr, "mpi: rank %d of %d: %ld exchanges, %.0f bytes "
                        "sent, %.0f received, %.6f s\n",
                world_rank, ms.processes, ms.exchanges, ms.bytes_sent,
                ms.bytes_received, ms.seconds);
        size_t resident = 0;
        double fetched = 0.0;
        if (tsgs_dataset_rows_held(ds, &resident, &fetched))
            fprintf(stderr, "mpi: rank %d of %d: %.0f bytes of rows "
                            "fetched; trained on rows held in shares, ~%zu "
                            "of %zu rows resident\n",
                    world_rank, world_size, fetched, resident,
                    tsgs_dataset_rows(ds));
    }
    return st;
}

#else /* one process */

int cli_world_read(const cli_opts *o, const char *path, tsgs_dataset **out)
{
    (void)o;
    (void)path;
    (void)out;
    return -1;
}

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
