/* tsgs3vm train [options] TRAIN_FILE MODEL_FILE */
#include "cli.h"

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const train_keys[] = {
    "@params", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "labeled", "unlabeled", "test", "test-every", "quiet",
    "max-memory", NULL};

/* Intermediate test accuracies use at most this many labeled test rows (a
 * fixed, seeded sample); the final line uses the whole file. */
#define TEST_SAMPLE_MAX 20000

typedef struct {
    int quiet, tty;
    double last_print;
    size_t sample_rows; /* rows of the monitor set, when it is a sample */
} progress_state;

static void on_progress(const tsgs_progress *pr, void *user)
{
    progress_state *ps = user;
    if (ps->quiet)
        return;
    int measured = pr->monitor_accuracy >= 0.0;
    char acc[96] = "";
    if (measured && ps->sample_rows)
        snprintf(acc, sizeof acc, "  test accuracy (%zu-row sample) %.2f%%",
                 ps->sample_rows, 100.0 * pr->monitor_accuracy);
    else if (measured)
        snprintf(acc, sizeof acc, "  test accuracy %.2f%%",
                 100.0 * pr->monitor_accuracy);
    if (pr->stage) { /* a stage of the default solver ended */
        fprintf(stderr, "%sstage %ld/%ld: %s done, elapsed %.1fs%s\n",
                ps->tty ? "\r\033[K" : "", pr->iteration, pr->iterations,
                pr->stage, pr->elapsed_s, acc);
        return;
    }
    double now = cli_wall_s();
    int last = pr->iteration == pr->iterations;
    /* At most a few lines a second on a terminal; on a pipe or log file,
     * one line every 5 s and one per test measurement. */
    if (!last && !measured && now - ps->last_print < (ps->tty ? 0.25 : 5.0))
        return;
    ps->last_print = now;
    double frac = (double)pr->iteration / (double)pr->iterations;
    double eta = frac > 0 ? pr->elapsed_s * (1.0 - frac) / frac : 0.0;
    fprintf(stderr,
            "%siter %ld/%ld (%3.0f%%)  %.3g rows/s  features %ld  "
            "elapsed %.1fs  ETA %.1fs%s%s",
            ps->tty ? "\r" : "", pr->iteration, pr->iterations, 100.0 * frac,
            pr->rows_per_s, pr->features, pr->elapsed_s, eta, acc,
            ps->tty && !last && !measured ? "\033[K" : "\n");
    fflush(stderr);
}

static void on_warn(const char *msg, void *user)
{
    progress_state *ps = user;
    if (!ps->quiet)
        fprintf(stderr, "warning: %s\n", msg);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* train -v K: svm-train's k-fold cross-validation of these settings on
 * the labeled rows (the unlabeled ones in every fit), its line on
 * standard output, so that LIBSVM's grid.py and easy.py can drive the
 * tool. Returns the exit status. */
static int cross_validate(const cli_opts *o, const char *path,
                          const tsgs_dataset *ds)
{
    tsgs_error err;
    double mean = 0.0, sd = 0.0;
    if (tsgs_cv(ds, &o->params, 1, o->cv_folds, o->params.seed,
                o->params.threads, TSGS_CV_PARALLEL_FIT, &mean, &sd, NULL,
                NULL, &err) != TSGS_OK) {
        cli_training_error(path, ds, &err);
        return 1;
    }
    printf("Cross Validation Accuracy = %g%%\n", 100.0 * mean);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        return 1;
    }
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* A fixed sample of at most `max` labeled rows of `test`, chosen by `seed`
 * and kept in file order; *out = NULL when every labeled row fits (then
 * the whole file is the monitor set). Returns 0, or 1 after an error. */
static int test_sample(const tsgs_dataset *test, size_t max, uint64_t seed,
                       tsgs_dataset **out)
{
    *out = NULL;
    size_t n = tsgs_dataset_rows(test), d = tsgs_dataset_features(test);
    size_t nl = tsgs_dataset_labeled_count(test);
    if (nl <= max)
        return 0;
    size_t *idx = malloc(sizeof *idx * nl);
    float *x = malloc(sizeof *x * max * (d ? d : 1));
    double *y = malloc(sizeof *y * max);
    int rc = 1;
    if (!idx || !x || !y) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!tsgs_is_unlabeled(tsgs_dataset_label(test, i)))
            idx[k++] = i;
    /* partial Fisher-Yates: the first `max` entries become the sample */
    uint64_t state = seed ^ 0x7465737473616d70ULL;
    for (size_t i = 0; i < max; i++) {
        size_t j = i + (size_t)(splitmix64(&state) % (uint64_t)(nl - i));
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    qsort(idx, max, sizeof *idx, cmp_size);
    for (size_t i = 0; i < max; i++) {
        memcpy(x + i * d, tsgs_dataset_row(test, idx[i]), sizeof *x * d);
        y[i] = tsgs_dataset_label(test, idx[i]);
    }
    tsgs_error err;
    if (tsgs_dataset_from_dense(max, d, x, y, out, &err) != TSGS_OK) {
        cli_error(&err);
        goto done;
    }
    rc = 0;
done:
    free(idx);
    free(x);
    free(y);
    return rc;
}

static void usage(const cli_opts *o)
{
    printf("Usage: tsgs3vm train [options] TRAIN_FILE [MODEL_FILE]\n\n"
           "MODEL_FILE defaults to TRAIN_FILE's base name + \".model\", as "
           "svm-train names it.\n"
           "Trains a semi-supervised kernel SVM (TSGS3VM). Labeled rows enter "
           "the hinge loss,\nunlabeled rows the unlabeled loss. Which rows "
           "are unlabeled:\n"
           "  --unlabeled FILE         every row of FILE (labels ignored)\n"
           "  --labeled N              keep the labels of N rows (stratified, "
           "by --seed), hide the rest\n"
           "  --unlabeled-label V      rows labeled V\n\n"
           "Run options:\n"
           "  --test FILE              report accuracy on FILE during and "
           "after training\n"
           "  --test-every N           iterations between test accuracies "
           "(0: ten times a run);\n"
           "                           they use a seeded sample of at most "
           "%d labeled rows\n"
           "  -q, --quiet              no progress on stderr\n"
           "  --max-memory SIZE        refuse to train (before it starts) when "
           "the estimated\n"
           "                           memory exceeds SIZE: auto (the "
           "machine's available\n"
           "                           memory, the default), 0 (no limit), "
           "8G, 512M, ...\n"
           "  --config FILE            read key = value options from FILE "
           "(command line wins;\n"
           "                           a file's c is C x the labeled rows, "
           "its cost per row)\n"
           "TRAIN_FILE, --unlabeled and --test may be - (standard input).\n\n"
           "svm-train's options that mean the same here:\n"
           "  -c C                     cost C per labeled row (--cost, --c)\n"
           "  -wLABEL W                C x W for the rows of class LABEL "
           "(-w1 5 -w-1 0.5;\n"
           "                           --class-weight 1:5,-1:0.5)\n"
           "  -g GAMMA                 kernel gamma (--sigma)\n"
           "  -b 0|1                   1: fit probability outputs "
           "(--probability)\n"
           "  -t 2, -s 0               rbf kernel, C-SVC (the only choices)\n"
           "  -m MB, -h 0|1            accepted and ignored (LIBSVM's cache "
           "and shrinking)\n"
           "  -v K                     see tsgs3vm cv --folds K\n\n",
           TEST_SAMPLE_MAX);
    cli_print_read_help(1);
    printf("\nModel options (key, default, meaning):\n");
    cli_print_param_help(&o->params);
}

int cmd_train(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    int rc = 1;
    tsgs_dataset *train = NULL, *extra = NULL, *test = NULL, *sample = NULL;
    tsgs_model *model = NULL;
    double *dec = NULL;
    tsgs_error err;
    char default_model[4096];
    if (cli_parse(&o, argc, argv, train_keys))
        goto done;
    if (o.help) {
        usage(&o);
        rc = 0;
        goto done;
    }
    if (o.npositional < 1 || o.npositional > 2) {
        fprintf(stderr, "ERROR: train needs TRAIN_FILE [MODEL_FILE] "
                        "(see tsgs3vm train --help)\n");
        goto done;
    }
    /* -v K (svm-train's cross-validation) writes no model; without a
     * MODEL_FILE the model is TRAIN_FILE's base name + ".model" in the
     * current folder, as svm-train names it */
    const char *train_path = o.positional[0],
               *model_path = o.cv_folds ? NULL : o.positional[1];
    if (!model_path && !o.cv_folds) {
        if (strcmp(train_path, "-") == 0) {
            fprintf(stderr, "ERROR: train - (standard input) needs a "
                            "MODEL_FILE\n");
            goto done;
        }
        const char *base = strrchr(train_path, '/');
        base = base ? base + 1 : train_path;
        if (snprintf(default_model, sizeof default_model, "%s.model",
                     base) >= (int)sizeof default_model) {
            fprintf(stderr, "ERROR: %s: name too long for a model file\n",
                    train_path);
            goto done;
        }
        model_path = default_model;
    }
    if ((model_path && tsgs_model_check_path(model_path, &err) != TSGS_OK) ||
        tsgs_params_check(&o.params, &err) != TSGS_OK) {
        cli_error(&err);
        goto done;
    }

    /* From here on Ctrl-C (or SIGTERM) ends the run: at once before
     * training, where nothing is written that a stop could leave half
     * done (a read of a huge file or a wide row is not waited for), and
     * during it cleanly: the model of the iterations done so far is
     * saved, or none where a stop came before there was one. A second
     * one ends the process. */
    cli_catch_stops("interrupted before training: no model written\n");

    double t0 = cli_wall_s();
    if (cli_read(&o, train_path, &train) || cli_check_labels(&o, train_path, train))
        goto done;
    if (o.unlabeled_file) {
        if (cli_read(&o, o.unlabeled_file, &extra))
            goto done;
        if (tsgs_dataset_append_unlabeled(train, extra, &err)) {
            cli_error(&err);
            goto done;
        }
        tsgs_dataset_free(extra);
        extra = NULL;
    }
    if (o.labeled > 0 &&
        tsgs_dataset_keep_labels(train, (size_t)o.labeled, o.params.seed,
                                 &err)) {
        cli_error(&err);
        goto done;
    }
    if (o.test_file) {
        tsgs_read_options ro = o.read;
        ro.min_features = tsgs_dataset_features(train);
        ro.threads = o.params.threads;
        ro.has_unlabeled_label = 0;
        if (tsgs_dataset_read(cli_path(o.test_file, 0), &ro, &test, &err)) {
            cli_error(&err);
            goto done;
        }
        tsgs_data_layout layout;
        tsgs_dataset_layout(train, &layout);
        if (cli_check_narrow(o.test_file, test, tsgs_dataset_features(train),
                             &layout) ||
            cli_drop_unseen(o.test_file, test, tsgs_dataset_features(train)))
            goto done;
        if (tsgs_dataset_features(test) != tsgs_dataset_features(train)) {
            fprintf(stderr, "ERROR: %s: %zu features per row, but %s has "
                            "%zu\n",
                    o.test_file, tsgs_dataset_features(test), train_path,
                    tsgs_dataset_features(train));
            goto done;
        }
        if (tsgs_dataset_labeled_count(test) == 0) {
            fprintf(stderr, "ERROR: %s: no labeled rows to measure the "
                            "accuracy on\n",
                    o.test_file);
            goto done;
        }
        if (test_sample(test, TEST_SAMPLE_MAX, o.params.seed, &sample))
            goto done;
    }
    size_t n = tsgs_dataset_rows(train), nl = tsgs_dataset_labeled_count(train);
    if (!o.quiet)
        fprintf(stderr, "read %zu rows x %zu features (%zu labeled, %zu "
                        "unlabeled) in %.2fs\n",
                n, tsgs_dataset_features(train), nl, n - nl, cli_wall_s() - t0);
    if (cli_check_memory(&o, train_path, train, &o.params))
        goto done;
    if (o.cv_folds) {
        rc = cross_validate(&o, train_path, train);
        goto done;
    }

    progress_state ps = {o.quiet, isatty(2), 0.0,
                         sample ? tsgs_dataset_rows(sample) : 0};
    tsgs_train_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.progress = on_progress;
    hooks.progress_every = 1;
    hooks.should_stop = cli_should_stop;
    hooks.user = &ps;
    hooks.warn = on_warn;
    hooks.monitor = sample ? sample : test;
    hooks.monitor_every = o.test_every;
    if (test && o.test_every == 0) {
        /* Ten measurements a run. */
        long T = tsgs_train_steps(train, &o.params);
        hooks.monitor_every = T / 10 > 0 ? T / 10 : 1;
    }

    int stopped = 0;
    double t1 = cli_wall_s();
    cli_catch_stops(NULL);
    if (tsgs_train(train, &o.params, &hooks, &model, &stopped, &err)) {
        if (err.code == TSGS_ERR_STOPPED && cli_stop_signal) {
            /* stopped before there was a model to keep */
            fprintf(stderr, "interrupted: %s; %s untouched\n", err.message,
                    model_path);
            rc = 128 + cli_stop_signal;
        } else {
            cli_training_error(train_path, train, &err);
        }
        goto done;
    }
    double train_s = cli_wall_s() - t1;
    /* a stopped run's model is a partial one: it goes beside MODEL_FILE,
     * which keeps the model it held (a good one is not replaced) */
    char partial[4096 + 16];
    const char *asked = model_path;
    if (stopped) {
        if (snprintf(partial, sizeof partial, "%s.partial", model_path) >=
            (int)sizeof partial) {
            fprintf(stderr, "ERROR: %s: name too long\n", model_path);
            goto done;
        }
        model_path = partial;
    }
    if (tsgs_model_save(model, model_path, &err)) {
        cli_error(&err);
        goto done;
    }
    cli_default_mode(model_path);
    const char *what = tsgs_model_params(model)->solver == TSGS_SOLVER_BS3VM
                           ? "support vectors" : "random features";
    if (stopped)
        fprintf(stderr, "interrupted: %ld %s, %.3fs; model of the "
                        "iterations done written to %s (%s untouched)\n",
                tsgs_model_feature_count(model), what, train_s, model_path,
                asked);
    else if (!o.quiet)
        fprintf(stderr, "trained: %ld %s, %.3fs; model written to %s\n",
                tsgs_model_feature_count(model), what, train_s, model_path);
    if (!o.quiet && tsgs_model_note(model)[0])
        fprintf(stderr, "%s\n", tsgs_model_note(model));
    if (test) {
        size_t nt = tsgs_dataset_rows(test);
        dec = malloc(sizeof(double) * tsgs_model_score_columns(model) *
                     (nt ? nt : 1));
        if (!dec) {
            fprintf(stderr, "ERROR: out of memory\n");
            goto done;
        }
        if (tsgs_predict_scores(model, test, 0, dec, &err)) {
            cli_error(&err);
            goto done;
        }
        cli_print_accuracy(stdout, "Test accuracy", o.test_file, model, test, dec,
                           o.quiet);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        goto done;
    }
    rc = stopped ? 128 + (cli_stop_signal ? cli_stop_signal : SIGINT) : 0;
done:
    free(dec);
    tsgs_dataset_free(train);
    tsgs_dataset_free(extra);
    tsgs_dataset_free(sample);
    tsgs_dataset_free(test);
    tsgs_model_free(model);
    cli_opts_free(&o);
    return rc;
}
