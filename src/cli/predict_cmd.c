/* tsgs3vm predict [options] MODEL_FILE TEST_FILE [OUTPUT_FILE] */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const predict_keys[] = {
    "threads", "bind", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "quiet", NULL};

static void usage(void)
{
    printf("Usage: tsgs3vm predict [options] MODEL_FILE TEST_FILE "
           "[OUTPUT_FILE]\n\n"
           "Writes one line per row of TEST_FILE to OUTPUT_FILE: the "
           "predicted label and the\ndecision value (a model of K > 2 "
           "classes: each class's one-vs-rest decision\nvalue, classes in "
           "ascending order). When TEST_FILE has labels, prints the\n"
           "accuracy as svm-predict does.\n\n"
           "  --threads N     threads (0: OMP_NUM_THREADS, else one per "
           "core)\n"
           "  --bind POLICY   auto, compact, scatter or none\n"
           "  -q, --quiet     no accuracy line\n"
           "  -b 0|1          1: write each class's probability instead of the\n"
           "                  decision values, after a \"labels\" line, as\n"
           "                  svm-predict -b 1 (the model trained with -b 1)\n"
           "  --config FILE   read key = value options from FILE\n"
           "TEST_FILE may be - (standard input), OUTPUT_FILE - (standard "
           "output; the\naccuracy line then goes to standard error).\n\n");
    cli_print_read_help(1);
}

static void on_warn(const char *msg, void *user)
{
    if (!*(int *)user)
        fprintf(stderr, "warning: %s\n", msg);
}

/* Writes "label decision" lines to a temporary file beside `path` and
 * renames it over `path` once complete, so that a failed or interrupted
 * write never leaves a partial file. Returns 0, or 1 after an error. */
/* What predict writes: scores (n x score columns) and, with -b 1,
 * probabilities (n x classes). */
typedef struct {
    const tsgs_model *model;
    const double *scores, *proba;
    size_t n;
} predictions;

/* "label score..." per row: the label, then the decision value (binary)
 * or each class's one-vs-rest decision value; with probabilities, LIBSVM's
 * -b 1 layout: a "labels ..." line, then the label and each class's
 * probability per row. */
static void put_rows(FILE *out, const predictions *pr)
{
    const tsgs_model *m = pr->model;
    const size_t k = tsgs_model_score_columns(m);
    const size_t nc = tsgs_model_classes(m, NULL);
    if (pr->proba) {
        double *labels = malloc(sizeof(double) * nc);
        if (labels) {
            tsgs_model_classes(m, labels);
            fputs("labels", out);
            for (size_t c = 0; c < nc; c++)
                fprintf(out, " %.17g", labels[c]);
            fputc('\n', out);
            free(labels);
        }
    }
    for (size_t i = 0; i < pr->n; i++) {
        fprintf(out, "%.17g", tsgs_model_label_of(m, pr->scores + i * k));
        if (pr->proba)
            for (size_t c = 0; c < nc; c++)
                fprintf(out, " %.17g", pr->proba[i * nc + c]);
        else
            for (size_t c = 0; c < k; c++)
                fprintf(out, " %.17g", pr->scores[i * k + c]);
        fputc('\n', out);
    }
}

static int write_output(const char *path, const predictions *pr)
{
    if (strcmp(path, "-") == 0) {
        put_rows(stdout, pr);
        return 0; /* predict checks stdout once done */
    }
    struct stat lst;
    if (cli_is_special(path) ||
        (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))) {
        /* A pipe, a device, or a link (/dev/stdout is one, even when it
         * leads to a file): write through it; a rename would replace the
         * link itself. */
        FILE *out = fopen(path, "w");
        if (!out) {
            fprintf(stderr, "ERROR: %s: cannot open for writing: %s\n", path,
                    strerror(errno));
            return 1;
        }
        put_rows(out, pr);
        int bad = ferror(out) != 0;
        bad |= fclose(out) != 0;
        if (bad)
            fprintf(stderr, "ERROR: %s: write failed\n", path);
        return bad;
    }
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "ERROR: out of memory\n");
        return 1;
    }
    snprintf(tmp, len, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "ERROR: %s: cannot create a temporary file: %s\n",
                path, strerror(errno));
        free(tmp);
        return 1;
    }
    FILE *out = fdopen(fd, "w");
    if (!out) {
        fprintf(stderr, "ERROR: %s: cannot write: %s\n", path,
                strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return 1;
    }
    put_rows(out, pr);
    int bad = ferror(out) != 0, e = 0;
    if (fflush(out) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(out) != 0) {
        bad = 1;
        if (!e)
            e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "ERROR: %s: write failed: %s\n", path,
                e ? strerror(e) : "I/O error");
        unlink(tmp);
        free(tmp);
        return 1;
    }
    free(tmp);
    cli_default_mode(path);
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    tsgs_error err;
    tsgs_model *model = NULL;
    tsgs_dataset *test = NULL;
    double *dec = NULL, *proba = NULL;
    int rc = 1;
    if (cli_parse(&o, argc, argv, predict_keys))
        goto done;
    if (o.help) {
        usage();
        rc = 0;
        goto done;
    }
    if (o.npositional < 2 || o.npositional > 3) {
        fprintf(stderr, "ERROR: predict needs MODEL_FILE TEST_FILE "
                        "[OUTPUT_FILE] (see tsgs3vm predict --help)\n");
        goto done;
    }
    if (tsgs_model_load(o.positional[0], &model, &err)) {
        cli_error(&err);
        goto done;
    }
    if (o.probability_out && !tsgs_model_has_probability(model)) {
        fprintf(stderr, "ERROR: %s: -b 1: the model has no probability "
                        "outputs; train it with -b 1 (--probability 1)\n",
                o.positional[0]);
        goto done;
    }
    o.read.min_features = tsgs_model_features_in(model);
    if (cli_read(&o, o.positional[1], &test))
        goto done;
    if (cli_drop_unseen(o.positional[1], test, tsgs_model_features_in(model)))
        goto done;
    if (tsgs_dataset_features(test) != tsgs_model_features_in(model)) {
        fprintf(stderr, "ERROR: %s: %zu features per row, but the model "
                        "was trained on %zu\n",
                o.positional[1], tsgs_dataset_features(test),
                tsgs_model_features_in(model));
        goto done;
    }
    size_t n = tsgs_dataset_rows(test);
    dec = malloc(sizeof(double) * tsgs_model_score_columns(model) * (n ? n : 1));
    if (!dec) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    tsgs_bind_threads(o.params.threads, o.params.bind, on_warn, &o.quiet);
    if (tsgs_predict_scores(model, test, o.params.threads, dec, &err)) {
        cli_error(&err);
        goto done;
    }
    if (o.probability_out) {
        proba = malloc(sizeof(double) * tsgs_model_classes(model, NULL) *
                       (n ? n : 1));
        if (!proba) {
            fprintf(stderr, "ERROR: out of memory\n");
            goto done;
        }
        if (tsgs_predict_proba(model, test, o.params.threads, proba, &err)) {
            cli_error(&err);
            goto done;
        }
    }
    const predictions pr = {model, dec, proba, n};
    const int to_stdout = o.npositional == 3 && strcmp(o.positional[2], "-") == 0;
    if (o.npositional == 3 && write_output(o.positional[2], &pr))
        goto done;
    if (!o.quiet)
        cli_print_accuracy(to_stdout ? stderr : stdout, "Accuracy",
                           o.positional[1], model, test, dec, 0);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        goto done;
    }
    rc = 0;
done:
    free(dec);
    free(proba);
    tsgs_dataset_free(test);
    tsgs_model_free(model);
    cli_opts_free(&o);
    return rc;
}
