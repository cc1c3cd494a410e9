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
    "unlabeled-label", "labeled", "unlabeled", "quiet", "max-memory", NULL};

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

int cmd_cv(int argc, char **argv)
{
    axis_t axes[MAX_AXES];
    int naxes = 0, folds = 5;
    tsgs_cv_parallel mode = TSGS_CV_PARALLEL_GRID;
    const char *write_config = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int nrest = 0, bad = 0;
    /* Take the cv options out before the common parser sees them. */
    for (int i = 0; i < argc && !bad; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (i > 0 && strcmp(a, "--grid") == 0 && val) {
            if (naxes == MAX_AXES) {
                fprintf(stderr, "ERROR: at most %d --grid axes\n", MAX_AXES);
                bad = 1;
            } else {
                bad = parse_axis(val, &axes[naxes++]);
            }
            i++;
        } else if (i > 0 && (strcmp(a, "--folds") == 0 ||
                             strcmp(a, "-v") == 0) && val) { /* svm-train */
            bad = cli_parse_folds(a, val, &folds);
            i++;
        } else if (i > 0 && strcmp(a, "--cv-parallel") == 0 && val) {
            if (strcmp(val, "grid") == 0)
                mode = TSGS_CV_PARALLEL_GRID;
            else if (strcmp(val, "fit") == 0)
                mode = TSGS_CV_PARALLEL_FIT;
            else {
                fprintf(stderr, "ERROR: --cv-parallel \"%s\": grid or fit\n", val);
                bad = 1;
            }
            i++;
        } else if (i > 0 && strcmp(a, "--write-config") == 0 && val) {
            write_config = val;
            i++;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    cli_opts o;
    cli_opts_init(&o);
    if (bad || cli_parse(&o, nrest, rest, cv_keys)) {
        free(rest);
        cli_opts_free(&o);
        return 1;
    }
    free(rest);
    if (o.help) {
        usage(&o);
        cli_opts_free(&o);
        return 0;
    }
    if (o.npositional != 1) {
        fprintf(stderr, "ERROR: cv needs TRAIN_FILE (see tsgs3vm cv --help)\n");
        cli_opts_free(&o);
        return 1;
    }
    /* the config's folder before the CV, not after it */
    tsgs_error perr;
    if (write_config && tsgs_model_check_path(write_config, &perr) != TSGS_OK) {
        fprintf(stderr, "ERROR: --write-config %s\n", perr.message);
        cli_opts_free(&o);
        return 1;
    }
    size_t npoints = 1;
    for (int a = 0; a < naxes; a++)
        npoints *= (size_t)axes[a].nvalues;
    tsgs_params *points = calloc(npoints, sizeof *points);
    double *mean = calloc(npoints, sizeof(double));
    double *sd = calloc(npoints, sizeof(double));
    tsgs_dataset *train = NULL, *extra = NULL;
    tsgs_error err;
    int rc = 1;
    if (!points || !mean || !sd) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i < npoints; i++) {
        int pick[MAX_AXES];
        point_values(axes, naxes, i, pick);
        points[i] = o.params;
        for (int a = 0; a < naxes; a++)
            if (tsgs_params_set(&points[i], axes[a].key,
                                axes[a].values[pick[a]], &err) != TSGS_OK) {
                fprintf(stderr, "ERROR: --grid: %s\n", err.message);
                goto done;
            }
        if (tsgs_params_check(&points[i], &err) != TSGS_OK) {
            fprintf(stderr, "ERROR: grid point %zu: %s\n", i + 1, err.message);
            goto done;
        }
    }
    /* cv writes no file: Ctrl-C (or SIGTERM) ends it at once, in the read
     * or in the fits */
    cli_catch_stops("interrupted: cross-validation stopped, no results\n");
    if (cli_read(&o, o.positional[0], &train) || cli_check_labels(&o, o.positional[0], train))
        goto done;
    if (o.unlabeled_file) {
        if (cli_read(&o, o.unlabeled_file, &extra))
            goto done;
        if (tsgs_dataset_append_unlabeled(train, extra, &err)) {
            cli_error(&err);
            goto done;
        }
    }
    if (o.labeled > 0 && tsgs_dataset_keep_labels(train, (size_t)o.labeled,
                                                  o.params.seed, &err)) {
        cli_error(&err);
        goto done;
    }
    for (size_t i = 0; i < npoints; i++)
        if (cli_check_memory(&o, o.positional[0], train, &points[i]))
            goto done;
    report_ctx ctx = {axes, naxes, o.quiet, cli_wall_s()};
    if (!o.quiet)
        fprintf(stderr, "%zu grid points x %d folds on %zu labeled rows "
                        "(%s-parallel)\n",
                npoints, folds, tsgs_dataset_labeled_count(train),
                mode == TSGS_CV_PARALLEL_GRID ? "grid" : "fit");
    if (tsgs_cv(train, points, npoints, folds, o.params.seed,
                o.params.threads, mode, mean, sd, on_done, &ctx, &err)) {
        cli_training_error(o.positional[0], train, &err);
        goto done;
    }
    size_t best = best_point(axes, naxes, mean, npoints);
    for (int a = 0; a < naxes; a++)
        printf("%s\t", axes[a].key);
    printf("cv_accuracy\tcv_sd\n");
    for (size_t i = 0; i < npoints; i++) {
        int pick[MAX_AXES];
        point_values(axes, naxes, i, pick);
        for (int a = 0; a < naxes; a++)
            printf("%s\t", axes[a].values[pick[a]]);
        printf("%.6f\t%.6f\n", mean[i], sd[i]);
    }
    int pick[MAX_AXES];
    point_values(axes, naxes, best, pick);
    printf("# best:");
    for (int a = 0; a < naxes; a++)
        printf(" --%s %s", axes[a].key, axes[a].values[pick[a]]);
    printf("  (%d-fold accuracy %.2f%%, sd %.2f)\n", folds, 100 * mean[best],
           100 * sd[best]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ERROR: writing the table to standard output "
                        "failed: %s\n",
                strerror(errno));
        goto done;
    }
    if (write_config) {
        FILE *f = fopen(write_config, "w");
        if (!f) {
            fprintf(stderr, "ERROR: %s: %s\n", write_config, strerror(errno));
            goto done;
        }
        fprintf(f, "# written by tsgs3vm cv on %s: best of %zu grid points, "
                   "%d-fold accuracy %.4f (sd %.4f)\n",
                o.positional[0], npoints, folds, mean[best], sd[best]);
        char value[TSGS_PARAM_VALUE_MAX];
        const char *key;
        for (size_t k = 0; (key = tsgs_params_key(k, &points[best], value,
                                                  sizeof value, NULL)); k++)
            fprintf(f, "%s = %s\n", key, value);
        if (fclose(f) != 0) {
            fprintf(stderr, "ERROR: %s: %s\n", write_config, strerror(errno));
            goto done;
        }
    }
    rc = 0;
done:
    free(points);
    free(mean);
    free(sd);
    tsgs_dataset_free(train);
    tsgs_dataset_free(extra);
    cli_opts_free(&o);
    return rc;
}
