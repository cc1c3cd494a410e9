/* tsgs3vm predict [options] MODEL_FILE TEST_FILE [OUTPUT_FILE] */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const predict_keys[] = {
    "threads", "bind", "format", "label-column", "skip-columns", "header",
    "quiet", NULL};

static void usage(void)
{
    printf("Usage: tsgs3vm predict [options] MODEL_FILE TEST_FILE "
           "[OUTPUT_FILE]\n\n"
           "Writes one line per row of TEST_FILE to OUTPUT_FILE: the "
           "predicted label and the\ndecision value. When TEST_FILE has "
           "labels, prints the accuracy as svm-predict does.\n\n"
           "  --threads N     threads (0: OMP_NUM_THREADS, else one per "
           "core)\n"
           "  --bind POLICY   auto, compact, scatter or none\n"
           "  -q, --quiet     no accuracy line\n"
           "  -c FILE         read key = value options from FILE\n\n");
    cli_print_read_help();
}

static void on_warn(const char *msg, void *user)
{
    if (!*(int *)user)
        fprintf(stderr, "warning: %s\n", msg);
}

int cmd_predict(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    if (cli_parse(&o, argc, argv, predict_keys))
        return 1;
    if (o.help) {
        usage();
        return 0;
    }
    if (o.npositional < 2 || o.npositional > 3) {
        fprintf(stderr, "ERROR: predict needs MODEL_FILE TEST_FILE "
                        "[OUTPUT_FILE] (see tsgs3vm predict --help)\n");
        return 1;
    }
    tsgs_error err;
    tsgs_model *model = NULL;
    tsgs_dataset *test = NULL;
    double *dec = NULL;
    FILE *out = NULL;
    int rc = 1;
    if (tsgs_model_load(o.positional[0], &model, &err)) {
        cli_error(&err);
        goto done;
    }
    o.read.min_features = tsgs_model_features_in(model);
    if (cli_read(&o, o.positional[1], &test))
        goto done;
    if (tsgs_dataset_features(test) != tsgs_model_features_in(model)) {
        fprintf(stderr, "ERROR: %s: %zu features per row, but the model "
                        "was trained on %zu\n",
                o.positional[1], tsgs_dataset_features(test),
                tsgs_model_features_in(model));
        goto done;
    }
    size_t n = tsgs_dataset_rows(test);
    dec = malloc(sizeof(double) * (n ? n : 1));
    if (!dec) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    tsgs_bind_threads(o.params.threads, o.params.bind, on_warn, &o.quiet);
    if (tsgs_predict(model, test, o.params.threads, dec, &err)) {
        cli_error(&err);
        goto done;
    }
    if (o.npositional == 3) {
        out = fopen(o.positional[2], "w");
        if (!out) {
            fprintf(stderr, "ERROR: %s: cannot open for writing: %s\n",
                    o.positional[2], strerror(errno));
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            fprintf(out, "%.17g %.17g\n", tsgs_model_label(model, dec[i]),
                    dec[i]);
        if (fclose(out) != 0) {
            out = NULL;
            fprintf(stderr, "ERROR: %s: write failed: %s\n", o.positional[2],
                    strerror(errno));
            goto done;
        }
        out = NULL;
    }
    size_t nlab;
    double acc = tsgs_accuracy(model, test, dec, &nlab);
    if (nlab > 0 && !o.quiet)
        printf("Accuracy = %.2f%% (%.0f/%zu)\n", 100.0 * acc,
               acc * (double)nlab, nlab);
    rc = 0;
done:
    if (out)
        fclose(out);
    free(dec);
    tsgs_dataset_free(test);
    tsgs_model_free(model);
    return rc;
}
