/* tsgs3vm train [options] TRAIN_FILE MODEL_FILE */
#include "cli.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const train_keys[] = {
    "@params", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "labeled", "unlabeled", "test", "test-every", "quiet",
    NULL};

static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int should_stop(void *user)
{
    (void)user;
    return interrupted;
}

typedef struct {
    int quiet, tty;
    double last_print;
} progress_state;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_progress(const tsgs_progress *pr, void *user)
{
    progress_state *ps = user;
    if (ps->quiet)
        return;
    double now = wall();
    int last = pr->iteration == pr->iterations;
    int measured = pr->monitor_accuracy >= 0.0;
    /* At most a few lines a second on a terminal; on a pipe or log file,
     * one line every 5 s and one per test measurement. */
    if (!last && !measured && now - ps->last_print < (ps->tty ? 0.25 : 5.0))
        return;
    ps->last_print = now;
    double frac = (double)pr->iteration / (double)pr->iterations;
    double eta = frac > 0 ? pr->elapsed_s * (1.0 - frac) / frac : 0.0;
    char acc[48] = "";
    if (measured)
        snprintf(acc, sizeof acc, "  test accuracy %.2f%%",
                 100.0 * pr->monitor_accuracy);
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

static void usage(const cli_opts *o)
{
    printf("Usage: tsgs3vm train [options] TRAIN_FILE MODEL_FILE\n\n"
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
           "(0: ten times a run)\n"
           "  -q, --quiet              no progress on stderr\n"
           "  -c FILE                  read key = value options from FILE "
           "(command line wins)\n\n");
    cli_print_read_help();
    printf("\nModel options (key, default, meaning):\n");
    cli_print_param_help(&o->params);
}

int cmd_train(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    if (cli_parse(&o, argc, argv, train_keys))
        return 1;
    if (o.help) {
        usage(&o);
        return 0;
    }
    if (o.npositional != 2) {
        fprintf(stderr, "ERROR: train needs TRAIN_FILE and MODEL_FILE "
                        "(see tsgs3vm train --help)\n");
        return 1;
    }
    const char *train_path = o.positional[0], *model_path = o.positional[1];
    tsgs_error err;
    if (tsgs_params_check(&o.params, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    tsgs_dataset *train = NULL, *extra = NULL, *test = NULL;
    tsgs_model *model = NULL;
    int rc = 1;
    double t0 = wall();
    if (cli_read(&o, train_path, &train))
        goto done;
    if (o.unlabeled_file) {
        if (cli_read(&o, o.unlabeled_file, &extra))
            goto done;
        if (tsgs_dataset_append_unlabeled(train, extra, &err)) {
            cli_error(&err);
            goto done;
        }
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
        ro.has_unlabeled_label = 0;
        tsgs_error e2;
        if (tsgs_dataset_read(o.test_file, &ro, &test, &e2)) {
            cli_error(&e2);
            goto done;
        }
        if (tsgs_dataset_features(test) != tsgs_dataset_features(train)) {
            fprintf(stderr, "ERROR: %s has %zu features but %s has %zu\n",
                    o.test_file, tsgs_dataset_features(test), train_path,
                    tsgs_dataset_features(train));
            goto done;
        }
    }
    size_t n = tsgs_dataset_rows(train), nl = tsgs_dataset_labeled_count(train);
    if (!o.quiet)
        fprintf(stderr, "read %zu rows x %zu features (%zu labeled, %zu "
                        "unlabeled) in %.2fs\n",
                n, tsgs_dataset_features(train), nl, n - nl, wall() - t0);

    progress_state ps = {o.quiet, isatty(2), 0.0};
    tsgs_train_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.progress = on_progress;
    hooks.progress_every = 1;
    hooks.should_stop = should_stop;
    hooks.user = &ps;
    hooks.warn = on_warn;
    hooks.monitor = test;
    hooks.monitor_every = o.test_every;
    if (test && o.test_every == 0) {
        /* Ten measurements a run: estimate T as tsgs_train will. */
        tsgs_params p = o.params;
        size_t nu = p.solver == TSGS_SOLVER_DSG ? 0 : n - nl;
        double rows = nu ? (double)nu : (double)nl;
        double batch = nu ? (double)(p.batch_unlabeled < (long)nu ? p.batch_unlabeled : (long)nu)
                          : (double)(p.batch_labeled < (long)nl ? p.batch_labeled : (long)nl);
        long T = p.iterations ? p.iterations : (long)ceil(p.passes * rows / (batch > 0 ? batch : 1));
        hooks.monitor_every = T / 10 > 0 ? T / 10 : 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the process */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int stopped = 0;
    double t1 = wall();
    if (tsgs_train(train, &o.params, &hooks, &model, &stopped, &err)) {
        cli_error(&err);
        goto done;
    }
    double train_s = wall() - t1;
    if (tsgs_model_save(model, model_path, &err)) {
        cli_error(&err);
        goto done;
    }
    if (!o.quiet)
        fprintf(stderr, "%s: %ld random features, %.2fs; model written to %s\n",
                stopped ? "interrupted" : "trained",
                tsgs_model_feature_count(model), train_s, model_path);
    if (test) {
        size_t nt = tsgs_dataset_rows(test), nlab;
        double *dec = malloc(sizeof(double) * (nt ? nt : 1));
        if (!dec) {
            fprintf(stderr, "ERROR: out of memory\n");
            goto done;
        }
        if (tsgs_predict(model, test, 0, dec, &err)) {
            free(dec);
            cli_error(&err);
            goto done;
        }
        double acc = tsgs_accuracy(model, test, dec, &nlab);
        printf("Test accuracy = %.2f%% (%.0f/%zu)\n", 100.0 * acc,
               acc * (double)nlab, nlab);
        free(dec);
    }
    rc = stopped ? 130 : 0;
done:
    tsgs_dataset_free(train);
    tsgs_dataset_free(extra);
    tsgs_dataset_free(test);
    tsgs_model_free(model);
    return rc;
}
