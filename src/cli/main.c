/* tsgs3vm: the command-line tool. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace.h"

/* The OpenMP runtime reads OMP_NUM_THREADS itself, and 100,000 of them
 * overflowed its stack (SIGSEGV), so the variable is checked against
 * --threads' own cap (TSGS_MAX_THREADS) before the runtime starts a team. */

/* 0 when OMP_NUM_THREADS asks for more than TSGS_MAX_THREADS at any
 * level of its comma list (after printing why); other values are the
 * runtime's to take or refuse, as it does. */
static int thread_env_ok(void)
{
    const char *v = getenv("OMP_NUM_THREADS");
    for (const char *p = v; p && *p;) {
        char *end;
        errno = 0;
        const long n = strtol(p, &end, 10);
        if (end != p && (errno == ERANGE || n > TSGS_MAX_THREADS)) {
            fprintf(stderr, "ERROR: OMP_NUM_THREADS=%s: at most %d threads "
                            "(as --threads)\n",
                    v, TSGS_MAX_THREADS);
            return 0;
        }
        p = strchr(end, ',');
        p = p ? p + 1 : NULL;
    }
    return 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "tsgs3vm %s: semi-supervised kernel SVM by triply stochastic "
            "gradients\n\n"
            "Usage:\n"
            "  tsgs3vm train [options] TRAIN_FILE [MODEL_FILE]\n"
            "  tsgs3vm predict [options] MODEL_FILE TEST_FILE [OUTPUT_FILE]\n"
            "  tsgs3vm cv [options] --grid KEY=VALUES ... TRAIN_FILE\n"
            "  tsgs3vm synth [options] SAMPLE_FILE OUTPUT_FILE  (synthetic data)\n"
            "  tsgs3vm convert [options] IN OUT.npy  (read once, map later)\n"
            "  tsgs3vm topology [options]\n\n"
            "Each command takes --help.\n",
            TSGS_VERSION_STRING);
}

#ifdef TSGS_TRACE
/* A tracing build (src/common/trace.h) writes its spans to $TSGS3VM_TRACE. */
static void write_trace(void)
{
    const char *path = getenv("TSGS3VM_TRACE");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        tsgs__trace_write(f);
        fclose(f);
    }
}
#endif

int main(int argc, char **argv)
{
#ifdef TSGS_TRACE
    atexit(write_trace);
#endif
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    const char *cmd = argv[1];
    if (!thread_env_ok())
        return 1;
    if (strcmp(cmd, "train") == 0) {
        /* under mpirun (and MPI built in): one model over the job */
        cli_world_begin(&argc, &argv);
        return cli_world_end(cmd_train(argc - 1, argv + 1));
    }
    if (strcmp(cmd, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(cmd, "topology") == 0)
        return cmd_topology(argc - 1, argv + 1);
    if (strcmp(cmd, "cv") == 0)
        return cmd_cv(argc - 1, argv + 1);
    if (strcmp(cmd, "synth") == 0)
        return cmd_synth(argc - 1, argv + 1);
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tsgs3vm %s\n", TSGS_VERSION_STRING);
        return 0;
    }
    fprintf(stderr, "ERROR: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return 1;
}
