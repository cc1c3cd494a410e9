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
    "max-memory", "max-time", "checkpoint", "checkpoint-every",
    "checkpoint-steps", "resume", NULL};

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
    char cls[96] = ""; /* one-vs-rest: which class */
    if (pr->classes > 0)
        snprintf(cls, sizeof cls, "class %ld/%ld (label %g): ",
                 pr->class_index, pr->classes, pr->class_label);
    if (pr->stage) { /* a stage of the default solver ended */
        fprintf(stderr, "%s%sstage %ld/%ld: %s done, elapsed %.1fs%s\n",
                ps->tty ? "\r\033[K" : "", cls, pr->iteration,
                pr->iterations, pr->stage, pr->elapsed_s, acc);
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
            "%s%siter %ld/%ld (%3.0f%%)  %.3g rows/s  features %ld  "
            "elapsed %.1fs  ETA %.1fs%s%s",
            ps->tty ? "\r" : "", cls, pr->iteration, pr->iterations,
            100.0 * frac,
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
           "  --max-time SECONDS       refuse to train (before it starts) when "
           "the estimated\n"
           "                           time to make the random features' "
           "directions, which\n"
           "                           grows with the columns, exceeds "
           "SECONDS (default %d;\n"
           "                           0 or none: no limit)\n"
           "  --checkpoint FILE        save the run's state to FILE as it "
           "goes (tsg, dsg, cdsg,\n"
           "                           frs; written whole or not at all), and "
           "when stopped\n"
           "  --checkpoint-every SECONDS  how often (default 60; 0: not by "
           "time)\n"
           "  --checkpoint-steps N     every N steps too (default 0: not by "
           "steps)\n"
           "  --resume FILE            go on from a checkpoint (the same "
           "data and options;\n"
           "                           the model is the one the run would "
           "have made)\n"
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
           TEST_SAMPLE_MAX, CLI_MAX_TIME_DEFAULT);
    cli_print_read_help(1);
    printf("\nModel options (key, default, meaning):\n");
    cli_print_param_help(&o->params);
}

/* What a train command holds, freed by run_free. */
typedef struct {
    tsgs_dataset *train, *test;
    tsgs_dataset *sample; /* test's rows for the accuracies during training,
                             NULL: all of them */
    tsgs_model *model;
} train_run;

static void run_free(train_run *r)
{
    tsgs_dataset_free(r->train);
    tsgs_dataset_free(r->sample);
    tsgs_dataset_free(r->test);
    tsgs_model_free(r->model);
}

/* The model file: MODEL_FILE, or without one TRAIN_FILE's base name +
 * ".model" in the current folder, as svm-train names it (written into
 * buf); NULL with -v K (svm-train's cross-validation), which writes no
 * model. Returns 0, or 1 after an error (printed). */
static int model_path_of(const cli_opts *o, char *buf, size_t size,
                         const char **out)
{
    const char *train_path = o->positional[0];
    if (o->cv_folds || o->positional[1]) {
        *out = o->cv_folds ? NULL : o->positional[1];
        return 0;
    }
    if (strcmp(train_path, "-") == 0) {
        fprintf(stderr, "ERROR: train - (standard input) needs a "
                        "MODEL_FILE\n");
        return 1;
    }
    const char *base = strrchr(train_path, '/');
    base = base ? base + 1 : train_path;
    if (snprintf(buf, size, "%s.model", base) >= (int)size) {
        fprintf(stderr, "ERROR: %s: name too long for a model file\n",
                train_path);
        return 1;
    }
    *out = buf;
    return 0;
}

/* What can be checked before any read: TRAIN_FILE [MODEL_FILE], a model
 * file that can be written (*model_path; NULL with -v K) and parameters
 * that pass tsgs_params_check. Returns 0, or 1 after an error (printed). */
static int check_arguments(const cli_opts *o, char *buf, size_t size,
                           const char **model_path)
{
    tsgs_error err;
    if (o->npositional < 1 || o->npositional > 2) {
        fprintf(stderr, "ERROR: train needs TRAIN_FILE [MODEL_FILE] "
                        "(see tsgs3vm train --help)\n");
        return 1;
    }
    if (model_path_of(o, buf, size, model_path))
        return 1;
    const tsgs_solver s = o->params.solver;
    if ((o->checkpoint_file || o->resume_file) &&
        (s == TSGS_SOLVER_SAFE || s == TSGS_SOLVER_BS3VM)) {
        /* (the library says the same once the rows are read) */
        fprintf(stderr, "ERROR: checkpoints: solver %s is not checkpointed "
                        "(the stochastic solvers tsg, dsg, cdsg and frs are: "
                        "--solver tsg)\n",
                s == TSGS_SOLVER_SAFE ? "safe" : "bs3vm");
        return 1;
    }
    if ((*model_path &&
         tsgs_model_check_path(*model_path, &err) != TSGS_OK) ||
        (o->checkpoint_file &&
         tsgs_model_check_path(o->checkpoint_file, &err) != TSGS_OK) ||
        tsgs_params_check(&o->params, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    return 0;
}

/* --test FILE into r->test, read as wide as the training rows at least
 * and with no unlabeled label, the features the training rows lack
 * dropped (with a warning); then r->sample, the seeded sample that the
 * accuracies during training use. Returns 0, or 1 after an error
 * (printed). */
static int read_test_set(const cli_opts *o, const char *train_path,
                         train_run *r)
{
    const size_t d = tsgs_dataset_features(r->train);
    tsgs_read_options ro = o->read;
    ro.min_features = d;
    ro.threads = o->params.threads;
    ro.has_unlabeled_label = 0;
    tsgs_error err;
    if (tsgs_dataset_read(cli_path(o->test_file, 0), &ro, &r->test, &err)) {
        cli_error(&err);
        return 1;
    }
    tsgs_data_layout layout;
    tsgs_dataset_layout(r->train, &layout);
    if (cli_check_narrow(o->test_file, r->test, d, &layout) ||
        cli_drop_unseen(o->test_file, r->test, d))
        return 1;
    if (tsgs_dataset_features(r->test) != d) {
        fprintf(stderr, "ERROR: %s: %zu features per row, but %s has "
                        "%zu\n",
                o->test_file, tsgs_dataset_features(r->test), train_path, d);
        return 1;
    }
    if (tsgs_dataset_labeled_count(r->test) == 0) {
        fprintf(stderr, "ERROR: %s: no labeled rows to measure the "
                        "accuracy on\n",
                o->test_file);
        return 1;
    }
    return test_sample(r->test, TEST_SAMPLE_MAX, o->params.seed, &r->sample);
}

/* The training rows (cli_read_training) and --test FILE's, then a line
 * that says what was read (unless quiet). Returns 0, or 1 after an error
 * (printed). */
static int read_data(const cli_opts *o, train_run *r)
{
    const char *path = o->positional[0];
    double t0 = cli_wall_s();
    if (cli_read_training(o, path, o->cv_folds == 0, &r->train) ||
        (o->test_file && read_test_set(o, path, r)))
        return 1;
    size_t n = tsgs_dataset_rows(r->train),
           nl = tsgs_dataset_labeled_count(r->train);
    if (!o->quiet)
        fprintf(stderr, "read %zu rows x %zu features (%zu labeled, %zu "
                        "unlabeled) in %.2fs\n",
                n, tsgs_dataset_features(r->train), nl, n - nl,
                cli_wall_s() - t0);
    return 0;
}

/* The training's hooks: progress and warnings on stderr (ps), a stop on
 * SIGINT or SIGTERM, and the test accuracy (on r's sample, or the whole
 * test file) every --test-every steps, ten times a run when 0. */
static void set_hooks(tsgs_train_hooks *hooks, progress_state *ps,
                      const cli_opts *o, const train_run *r)
{
    memset(hooks, 0, sizeof *hooks);
    hooks->progress = on_progress;
    hooks->progress_every = 1;
    hooks->should_stop = cli_should_stop;
    hooks->user = ps;
    hooks->warn = on_warn;
    hooks->monitor = r->sample ? r->sample : r->test;
    hooks->monitor_every = o->test_every;
    if (r->test && o->test_every == 0) {
        long T = tsgs_train_steps(r->train, &o->params);
        hooks->monitor_every = T / 10 > 0 ? T / 10 : 1;
    }
}

/* A training that returned no model: stopped by a signal before there was
 * one (said; the exit status 128 + the signal), or an error (printed;
 * 1). */
static int training_failed(const char *train_path, const tsgs_dataset *train,
                           const char *model_path, const tsgs_error *err)
{
    if (err->code == TSGS_ERR_STOPPED && cli_stop_signal) {
        fprintf(stderr, "interrupted: %s; %s untouched\n", err->message,
                model_path);
        return 128 + cli_stop_signal;
    }
    cli_training_error(train_path, train, err);
    return 1;
}

/* Says where the model went (path; `asked` the MODEL_FILE a stopped run
 * left untouched): always after a stop, else unless quiet; then the
 * solver's note unless quiet. */
static void report_saved(const cli_opts *o, const tsgs_model *m,
                         const char *path, const char *asked, int stopped,
                         double train_s)
{
    const char *what = tsgs_model_params(m)->solver == TSGS_SOLVER_BS3VM
                           ? "support vectors" : "random features";
    if (stopped)
        fprintf(stderr, "interrupted: %ld %s, %.3fs; model of the "
                        "iterations done written to %s (%s untouched)\n",
                tsgs_model_feature_count(m), what, train_s, path, asked);
    else if (!o->quiet)
        fprintf(stderr, "trained: %ld %s, %.3fs; model written to %s\n",
                tsgs_model_feature_count(m), what, train_s, path);
    if (!o->quiet && tsgs_model_note(m)[0])
        fprintf(stderr, "%s\n", tsgs_model_note(m));
}

/* Writes the model to model_path, and says so. A stopped run's model is a
 * partial one: it goes beside, to MODEL_FILE.partial, and MODEL_FILE
 * keeps the model it held (a good one is not replaced). Returns 0, or 1
 * after an error (printed). */
static int save_model(const cli_opts *o, const tsgs_model *m,
                      const char *model_path, int stopped, double train_s)
{
    char partial[4096 + 16];
    const char *path = model_path;
    tsgs_error err;
    if (stopped) {
        if (snprintf(partial, sizeof partial, "%s.partial", model_path) >=
            (int)sizeof partial) {
            fprintf(stderr, "ERROR: %s: name too long\n", model_path);
            return 1;
        }
        path = partial;
    }
    if (tsgs_model_save(m, path, &err)) {
        cli_error(&err);
        return 1;
    }
    cli_default_mode(path);
    report_saved(o, m, path, model_path, stopped, train_s);
    return 0;
}

/* The model's accuracy on the whole --test file, on standard output.
 * Returns 0, or 1 after an error (printed). */
static int print_test_accuracy(const cli_opts *o, const tsgs_model *m,
                               const tsgs_dataset *test)
{
    size_t nt = tsgs_dataset_rows(test);
    double *dec = malloc(sizeof(double) * tsgs_model_score_columns(m) *
                         (nt ? nt : 1));
    tsgs_error err;
    int rc = 1;
    if (!dec) {
        fprintf(stderr, "ERROR: out of memory\n");
    } else if (tsgs_predict_scores(m, test, 0, dec, &err)) {
        cli_error(&err);
    } else {
        cli_print_accuracy(stdout, "Test accuracy", o->test_file, m, test,
                           dec, o->quiet);
        rc = 0;
    }
    free(dec);
    return rc;
}

/* Trains on r's rows (Ctrl-C or SIGTERM stops it cleanly: the model of
 * the iterations done is kept), writes the model and, with --test, its
 * final accuracy. Returns the exit status: 128 + the signal after a
 * stop. */
static int train_and_save(const cli_opts *o, train_run *r,
                          const char *model_path)
{
    progress_state ps = {o->quiet, isatty(2), 0.0,
                         r->sample ? tsgs_dataset_rows(r->sample) : 0};
    tsgs_train_hooks hooks;
    set_hooks(&hooks, &ps, o, r);
    int stopped = 0;
    tsgs_error err;
    double t1 = cli_wall_s();
    /* An MPI job's processes stop at the same step where the steps
     * exchange values (tsg: the stop rides on each step's exchange, and
     * rank 0 writes the model of the steps done); elsewhere a signal ends
     * them at once (docs/mpi.md) */
    cli_catch_stops(cli_world_size() > 1 &&
                            o->params.solver != TSGS_SOLVER_TSG
                        ? "interrupted: MPI job ended, no model written\n"
                        : NULL);
    const tsgs_checkpoint ck = {o->checkpoint_file, o->checkpoint_every,
                                o->checkpoint_steps, o->resume_file};
    if (cli_world_train(r->train, &o->params, &hooks, &ck, &r->model,
                        &stopped, &err))
        return training_failed(o->positional[0], r->train, model_path, &err);
    if (stopped && o->checkpoint_file && cli_world_rank() == 0)
        fprintf(stderr, "interrupted: the run's state saved to %s (go on "
                        "with --resume %s)\n",
                o->checkpoint_file, o->checkpoint_file);
    double train_s = cli_wall_s() - t1;
    if (cli_world_rank() != 0) /* rank 0 writes and reports */
        return 0;
    if (save_model(o, r->model, model_path, stopped, train_s) ||
        (r->test && print_test_accuracy(o, r->model, r->test)))
        return 1;
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        return 1;
    }
    return stopped ? 128 + (cli_stop_signal ? cli_stop_signal : SIGINT) : 0;
}

int cmd_train(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    train_run r = {NULL, NULL, NULL, NULL};
    char default_model[4096];
    const char *model_path = NULL;
    int rc = 1;
    if (cli_parse(&o, argc, argv, train_keys))
        goto done;
    if (cli_world_rank() != 0) /* an MPI job: rank 0 says what happens */
        o.quiet = 1;
    if (o.help) {
        usage(&o);
        rc = 0;
        goto done;
    }
    if (check_arguments(&o, default_model, sizeof default_model,
                        &model_path))
        goto done;
    /* From here on Ctrl-C (or SIGTERM) ends the run: at once before
     * training, where nothing is written that a stop could leave half
     * done (a read of a huge file or a wide row is not waited for), and
     * during it cleanly (train_and_save). A second one ends the
     * process. */
    cli_catch_stops("interrupted before training: no model written\n");
    if (read_data(&o, &r) ||
        cli_check_memory(&o, o.positional[0], r.train, &o.params) ||
        cli_check_time(&o, o.positional[0], r.train, &o.params))
        goto done;
    /* -v K in an MPI job: rank 0 alone (the folds are not shared out) */
    if (o.cv_folds)
        rc = cli_world_rank() ? 0
                              : cross_validate(&o, o.positional[0], r.train);
    else
        rc = train_and_save(&o, &r, model_path);
done:
    run_free(&r);
    cli_opts_free(&o);
    return rc;
}
