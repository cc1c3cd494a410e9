/* tsgs3vm cv [options] --grid KEY=VALUES ... TRAIN_FILE */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AXES 8
#define MAX_VALUES 64

typedef struct {
    char key[64];
    int nvalues;
    char values[MAX_VALUES][32];
} axis_t;

static const char *const cv_keys[] = {
    "@params", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "labeled", "unlabeled", "quiet", "max-memory",
    "max-time", NULL};

/* "c=1,10,100" or "sigma=log:-3:3" (10^-3 .. 10^3 by factors of 10) or
 * "sigma=log:-3:3:0.5". */
static int parse_axis(const char *spec, axis_t *ax)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof ax->key) {
        fprintf(stderr, "ERROR: --grid \"%s\": expected KEY=VALUES\n", spec);
        return 1;
    }
    memcpy(ax->key, spec, (size_t)(eq - spec));
    ax->key[eq - spec] = '\0';
    const char *v = eq + 1;
    ax->nvalues = 0;
    if (strncmp(v, "log:", 4) == 0) {
        char *end;
        double lo = strtod(v + 4, &end), hi = NAN, step = 1.0;
        if (*end == ':')
            hi = strtod(end + 1, &end);
        if (*end == ':')
            step = strtod(end + 1, &end);
        if (*end != '\0' || !isfinite(lo) || !isfinite(hi) || !(step > 0) ||
            hi < lo || (hi - lo) / step + 1 > MAX_VALUES) {
            fprintf(stderr, "ERROR: --grid \"%s\": expected "
                            "KEY=log:LO:HI[:STEP] with at most %d values\n",
                    spec, MAX_VALUES);
            return 1;
        }
        for (double e = lo; e <= hi + 1e-9; e += step)
            snprintf(ax->values[ax->nvalues++], 32, "%.6g", pow(10.0, e));
        return 0;
    }
    const char *p = v;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= 32 || ax->nvalues == MAX_VALUES) {
            fprintf(stderr, "ERROR: --grid \"%s\": bad value list\n", spec);
            return 1;
        }
        memcpy(ax->values[ax->nvalues], p, len);
        ax->values[ax->nvalues++][len] = '\0';
        p += len;
        if (*p == ',' && *++p == '\0') { /* "1,2," lacks a value */
            fprintf(stderr, "ERROR: --grid \"%s\": bad value list\n", spec);
            return 1;
        }
    }
    if (ax->nvalues == 0) {
        fprintf(stderr, "ERROR: --grid \"%s\": no values\n", spec);
        return 1;
    }
    return 0;
}

static void usage(const cli_opts *o)
{
    printf("Usage: tsgs3vm cv [options] --grid KEY=VALUES [--grid ...] "
           "TRAIN_FILE\n\n"
           "k-fold cross-validation over a grid of any model options, on the "
           "labeled rows:\neach fit hides one fold's labels (those rows join "
           "the unlabeled ones) and is\nscored on that fold. Prints one "
           "tab-separated line per grid point, then the best.\n\n"
           "  --grid KEY=V1,V2,...     values of one option (repeatable, at "
           "most %d axes);\n"
           "                           c=... is C per labeled row, as -c "
           "and svm-grid's C\n"
           "  --grid KEY=log:LO:HI[:S] 10^LO .. 10^HI in steps of S "
           "(default 1)\n"
           "  --folds K, -v K          folds (default 5)\n"
           "  --cv-parallel MODE       grid: fits side by side, one thread "
           "each (default);\n"
           "                           fit: one fit at a time on all "
           "threads\n"
           "  --write-config FILE      write the best point as a config "
           "file\n"
           "  --labeled N, --unlabeled FILE, --unlabeled-label V, --config "
           "FILE, -c C, -g GAMMA,\n"
           "  -wLABEL W, -q,\n"
           "  --max-memory SIZE        (checked for every grid point)\n"
           "  --max-time SECONDS       (checked for every grid point: one "
           "fold's training)\n"
           "                           as for train\n\n",
           MAX_AXES);
    cli_print_read_help(1);
    printf("\nModel options (key, default, meaning):\n");
    cli_print_param_help(&o->params);
}

typedef struct {
    const axis_t *axes;
    int naxes;
    int quiet;
    double t0;
} report_ctx;

static void point_values(const axis_t *axes, int naxes, size_t i, int *pick)
{
    for (int a = naxes - 1; a >= 0; a--) {
        pick[a] = (int)(i % (size_t)axes[a].nvalues);
        i /= (size_t)axes[a].nvalues;
    }
}

/* Mean accuracy of point i and its neighbours one step along each axis:
 * on a few hundred labels single CV scores are noisy, and a point in a
 * good region beats an isolated peak. */
static double neighbourhood(const axis_t *axes, int naxes, const double *mean,
                            size_t i)
{
    int pick[MAX_AXES];
    point_values(axes, naxes, i, pick);
    double s = mean[i];
    int n = 1;
    size_t stride = 1;
    for (int a = naxes - 1; a >= 0; a--) {
        if (pick[a] > 0) {
            s += mean[i - stride];
            n++;
        }
        if (pick[a] + 1 < axes[a].nvalues) {
            s += mean[i + stride];
            n++;
        }
        stride *= (size_t)axes[a].nvalues;
    }
    return s / n;
}

/* Whether an axis is C's: per labeled row (c, cost) or in total. */
static int is_c_axis(const char *key)
{
    return strcmp(key, "c") == 0 || strcmp(key, "cost") == 0 ||
           strcmp(key, "c-total") == 0;
}

/* The best point: the highest accuracy; among ties (common on few labels:
 * many settings reach 100%), the best neighbourhood, then the largest C
 * when C is an axis (a small C ties by predicting one class), then the
 * first. */
static size_t best_point(const axis_t *axes, int naxes, const double *mean,
                         size_t npoints)
{
    int c_axis = -1;
    for (int a = 0; a < naxes; a++)
        if (is_c_axis(axes[a].key))
            c_axis = a;
    size_t best = 0;
    for (size_t i = 1; i < npoints; i++) {
        if (mean[i] > mean[best] + 1e-12) {
            best = i;
            continue;
        }
        if (mean[i] < mean[best] - 1e-12)
            continue;
        double ni = neighbourhood(axes, naxes, mean, i);
        double nb = neighbourhood(axes, naxes, mean, best);
        if (ni > nb + 1e-12) {
            best = i;
        } else if (ni >= nb - 1e-12 && c_axis >= 0) {
            int pi[MAX_AXES], pb[MAX_AXES];
            point_values(axes, naxes, i, pi);
            point_values(axes, naxes, best, pb);
            if (strtod(axes[c_axis].values[pi[c_axis]], NULL) >
                strtod(axes[c_axis].values[pb[c_axis]], NULL))
                best = i;
        }
    }
    return best;
}

static void on_done(size_t i, double mean, double sd, void *user)
{
    report_ctx *c = user;
    if (c->quiet)
        return;
    int pick[MAX_AXES];
    point_values(c->axes, c->naxes, i, pick);
    fprintf(stderr, "point %zu:", i + 1);
    for (int a = 0; a < c->naxes; a++)
        fprintf(stderr, " %s=%s", c->axes[a].key, c->axes[a].values[pick[a]]);
    fprintf(stderr, "  accuracy %.2f%% (sd %.2f)  elapsed %.1fs\n",
            100 * mean, 100 * sd, cli_wall_s() - c->t0);
}

/* The cv command's own options, which cli_parse does not know. */
typedef struct {
    axis_t axes[MAX_AXES];
    int naxes, folds;
    tsgs_cv_parallel mode;
    const char *write_config;
} cv_opts;

/* The value of --cv-parallel: 0, or 1 after an error (printed). */
static int parse_mode(const char *value, tsgs_cv_parallel *mode)
{
    if (strcmp(value, "grid") == 0)
        *mode = TSGS_CV_PARALLEL_GRID;
    else if (strcmp(value, "fit") == 0)
        *mode = TSGS_CV_PARALLEL_FIT;
    else {
        fprintf(stderr, "ERROR: --cv-parallel \"%s\": grid or fit\n", value);
        return 1;
    }
    return 0;
}

/* Takes cv's options (--grid, --folds or -v, --cv-parallel,
 * --write-config) out of argv into cv, the others into rest[*nrest] for
 * cli_parse. Returns 0, or 1 after an error (printed). */
static int take_cv_options(int argc, char **argv, cv_opts *cv, char **rest,
                           int *nrest)
{
    int bad = 0;
    for (int i = 0; i < argc && !bad; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (i > 0 && strcmp(a, "--grid") == 0 && val) {
            if (cv->naxes == MAX_AXES) {
                fprintf(stderr, "ERROR: at most %d --grid axes\n", MAX_AXES);
                bad = 1;
            } else {
                bad = parse_axis(val, &cv->axes[cv->naxes++]);
            }
            i++;
        } else if (i > 0 && (strcmp(a, "--folds") == 0 ||
                             strcmp(a, "-v") == 0) && val) { /* svm-train */
            bad = cli_parse_folds(a, val, &cv->folds);
            i++;
        } else if (i > 0 && strcmp(a, "--cv-parallel") == 0 && val) {
            bad = parse_mode(val, &cv->mode);
            i++;
        } else if (i > 0 && strcmp(a, "--write-config") == 0 && val) {
            cv->write_config = val;
            i++;
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    return bad;
}

/* cv's options, then the common ones (cli_parse). Returns 0, or 1 after an
 * error (printed). */
static int parse_arguments(int argc, char **argv, cv_opts *cv, cli_opts *o)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int nrest = 0;
    int bad = take_cv_options(argc, argv, cv, rest, &nrest) ||
              cli_parse(o, nrest, rest, cv_keys);
    free(rest);
    return bad;
}

/* What can be checked before the grid is built: TRAIN_FILE, and a
 * --write-config file that can be written (its folder before the CV, not
 * after it). Returns 0, or 1 after an error (printed). */
static int check_arguments(const cv_opts *cv, const cli_opts *o)
{
    tsgs_error err;
    if (o->npositional != 1) {
        fprintf(stderr, "ERROR: cv needs TRAIN_FILE (see tsgs3vm cv "
                        "--help)\n");
        return 1;
    }
    if (cv->write_config &&
        tsgs_model_check_path(cv->write_config, &err) != TSGS_OK) {
        fprintf(stderr, "ERROR: --write-config %s\n", err.message);
        return 1;
    }
    return 0;
}

/* The grid's points (base with one value of each axis, the last axis
 * fastest) and their results. */
typedef struct {
    size_t npoints;
    tsgs_params *points;
    double *mean, *sd;
} grid_t;

static void grid_free(grid_t *g)
{
    free(g->points);
    free(g->mean);
    free(g->sd);
}

/* Fills g with the points of cv's axes over base, each checked. Returns
 * 0, or 1 after an error (printed). */
static int grid_build(grid_t *g, const cv_opts *cv, const tsgs_params *base)
{
    tsgs_error err;
    g->npoints = 1;
    for (int a = 0; a < cv->naxes; a++)
        g->npoints *= (size_t)cv->axes[a].nvalues;
    g->points = calloc(g->npoints, sizeof *g->points);
    g->mean = calloc(g->npoints, sizeof(double));
    g->sd = calloc(g->npoints, sizeof(double));
    if (!g->points || !g->mean || !g->sd) {
        fprintf(stderr, "ERROR: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < g->npoints; i++) {
        int pick[MAX_AXES];
        point_values(cv->axes, cv->naxes, i, pick);
        g->points[i] = *base;
        for (int a = 0; a < cv->naxes; a++)
            if (tsgs_params_set(&g->points[i], cv->axes[a].key,
                                cv->axes[a].values[pick[a]],
                                &err) != TSGS_OK) {
                fprintf(stderr, "ERROR: --grid: %s\n", err.message);
                return 1;
            }
        if (tsgs_params_check(&g->points[i], &err) != TSGS_OK) {
            fprintf(stderr, "ERROR: grid point %zu: %s\n", i + 1,
                    err.message);
            return 1;
        }
    }
    return 0;
}

/* The cross-validation of every point of g on train (path: its file),
 * after --max-memory's and --max-time's checks of each; a line per point on stderr unless
 * quiet. Returns 0, or 1 after an error (printed). */
static int run_grid(const cv_opts *cv, const cli_opts *o, const char *path,
                    const tsgs_dataset *train, grid_t *g)
{
    tsgs_error err;
    for (size_t i = 0; i < g->npoints; i++)
        if (cli_check_memory(o, path, train, &g->points[i]) ||
            cli_check_time(o, path, train, &g->points[i]))
            return 1;
    report_ctx ctx = {cv->axes, cv->naxes, o->quiet, cli_wall_s()};
    if (!o->quiet)
        fprintf(stderr, "%zu grid points x %d folds on %zu labeled rows "
                        "(%s-parallel)\n",
                g->npoints, cv->folds, tsgs_dataset_labeled_count(train),
                cv->mode == TSGS_CV_PARALLEL_GRID ? "grid" : "fit");
    if (tsgs_cv(train, g->points, g->npoints, cv->folds, o->params.seed,
                o->params.threads, cv->mode, g->mean, g->sd, on_done, &ctx,
                &err)) {
        cli_training_error(path, train, &err);
        return 1;
    }
    return 0;
}

/* The table on standard output: a tab-separated line per point, then the
 * best one as options. Returns 0, or 1 after an error (printed). */
static int print_table(const cv_opts *cv, const grid_t *g, size_t best)
{
    const axis_t *axes = cv->axes;
    int pick[MAX_AXES];
    for (int a = 0; a < cv->naxes; a++)
        printf("%s\t", axes[a].key);
    printf("cv_accuracy\tcv_sd\n");
    for (size_t i = 0; i < g->npoints; i++) {
        point_values(axes, cv->naxes, i, pick);
        for (int a = 0; a < cv->naxes; a++)
            printf("%s\t", axes[a].values[pick[a]]);
        printf("%.6f\t%.6f\n", g->mean[i], g->sd[i]);
    }
    point_values(axes, cv->naxes, best, pick);
    printf("# best:");
    for (int a = 0; a < cv->naxes; a++)
        printf(" --%s %s", axes[a].key, axes[a].values[pick[a]]);
    printf("  (%d-fold accuracy %.2f%%, sd %.2f)\n", cv->folds,
           100 * g->mean[best], 100 * g->sd[best]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ERROR: writing the table to standard output "
                        "failed: %s\n",
                strerror(errno));
        return 1;
    }
    return 0;
}

/* --write-config FILE: the best point's parameters as a config file, every
 * key, under a comment naming the data and the score. Returns 0, or 1
 * after an error (printed). */
static int write_best_config(const cv_opts *cv, const char *train_path,
                             const grid_t *g, size_t best)
{
    const char *path = cv->write_config;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "ERROR: %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "# written by tsgs3vm cv on %s: best of %zu grid points, "
               "%d-fold accuracy %.4f (sd %.4f)\n",
            train_path, g->npoints, cv->folds, g->mean[best], g->sd[best]);
    char value[TSGS_PARAM_VALUE_MAX];
    const char *key;
    for (size_t k = 0; (key = tsgs_params_key(k, &g->points[best], value,
                                              sizeof value, NULL)); k++)
        fprintf(f, "%s = %s\n", key, value);
    if (fclose(f) != 0) {
        fprintf(stderr, "ERROR: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int cmd_cv(int argc, char **argv)
{
    cv_opts cv = {.folds = 5, .mode = TSGS_CV_PARALLEL_GRID};
    cli_opts o;
    cli_opts_init(&o);
    grid_t g = {0, NULL, NULL, NULL};
    tsgs_dataset *train = NULL;
    int rc = 1;
    if (parse_arguments(argc, argv, &cv, &o))
        goto done;
    if (o.help) {
        usage(&o);
        rc = 0;
        goto done;
    }
    if (check_arguments(&cv, &o) || grid_build(&g, &cv, &o.params))
        goto done;
    /* cv writes no file: Ctrl-C (or SIGTERM) ends it at once, in the read
     * or in the fits */
    cli_catch_stops("interrupted: cross-validation stopped, no results\n");
    const char *path = o.positional[0];
    if (cli_read_training(&o, path, 0, &train) ||
        run_grid(&cv, &o, path, train, &g))
        goto done;
    size_t best = best_point(cv.axes, cv.naxes, g.mean, g.npoints);
    if (print_table(&cv, &g, best) ||
        (cv.write_config && write_best_config(&cv, path, &g, best)))
        goto done;
    rc = 0;
done:
    grid_free(&g);
    tsgs_dataset_free(train);
    cli_opts_free(&o);
    return rc;
}
