/* tsgs3vm convert [options] IN OUT.npy: reads a data file once and writes
 * it as NumPy files that every later run maps without parsing. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const convert_keys[] = {
    "threads", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "quiet", "max-memory", NULL};

static void usage(void)
{
    printf("Usage: tsgs3vm convert [options] IN OUT.npy\n\n"
           "Reads IN (LIBSVM, CSV, plain or compressed, or .npy) once and "
           "writes its\nfeatures to OUT.npy (n x d float32) and its labels "
           "to OUT.labels.npy\n(n float64, NaN for unlabeled rows), as "
           "np.save would. train, predict and\ncv read OUT.npy by mapping "
           "it: no parsing, so thread sweeps read once.\nIN may be - "
           "(standard input).\n\n"
           "  --threads N     threads parsing IN (0: OMP_NUM_THREADS, else "
           "one per core)\n"
           "  --max-memory SIZE\n"
           "                  sparse IN (a wide LIBSVM file) is written "
           "dense: refuse when\n                  that takes more (auto, "
           "the default: the available memory;\n                  0: no "
           "limit)\n"
           "  -q, --quiet     no summary on stderr\n"
           "  --config FILE   read key = value options from FILE\n\n");
    cli_print_read_help(1);
}

int cmd_convert(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    tsgs_dataset *ds = NULL;
    int rc = 1;
    if (cli_parse(&o, argc, argv, convert_keys))
        goto done;
    if (o.help) {
        usage();
        rc = 0;
        goto done;
    }
    if (o.npositional != 2) {
        fprintf(stderr, "ERROR: convert needs IN and OUT.npy (see tsgs3vm "
                        "convert --help)\n");
        goto done;
    }
    const char *in = o.positional[0], *out = o.positional[1];
    size_t n = strlen(out);
    if (n < 4 || strcmp(out + n - 4, ".npy") != 0) {
        fprintf(stderr, "ERROR: %s: the output must end in .npy (its "
                        "labels go beside it as NAME.labels.npy)\n",
                out);
        goto done;
    }
    double t0 = cli_wall_s();
    if (cli_read(&o, in, &ds) || cli_check_dense_size(&o, in, ds))
        goto done;
    double t1 = cli_wall_s();
    tsgs_error err;
    if (tsgs_dataset_save_npy(ds, out, &err) != TSGS_OK) {
        cli_error(&err);
        goto done;
    }
    double t2 = cli_wall_s();
    if (!o.quiet) {
        char labels[4096];
        tsgs_npy_labels_path(out, labels, sizeof labels);
        fprintf(stderr,
                "convert: %zu rows x %zu features (%zu labeled) read from "
                "%s in %.2fs, written to %s and %s in %.2fs\n",
                tsgs_dataset_rows(ds), tsgs_dataset_features(ds),
                tsgs_dataset_labeled_count(ds), in, t1 - t0, out, labels,
                t2 - t1);
    }
    rc = 0;
done:
    tsgs_dataset_free(ds);
    cli_opts_free(&o);
    return rc;
}
