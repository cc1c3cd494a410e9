/* tsgs3vm synth [options] SAMPLE_FILE OUTPUT_FILE: a SYNTHETIC set of any
 * size drawn from a class-conditional Gaussian mixture fitted to a real
 * sample. */
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options of this command alone; the rest go to cli_parse. */
typedef struct {
    unsigned long long rows;
    const char *layout;
    long components;
} synth_opts;

static void help(void)
{
    printf("Usage: tsgs3vm synth [options] SAMPLE_FILE OUTPUT_FILE\n\n"
           "Writes a SYNTHETIC data set: --rows rows drawn from a Gaussian "
           "mixture\n(--components Gaussians with diagonal covariances per "
           "class, fitted by EM)\nfitted to the labeled rows of a real "
           "sample, so it has the sample's\ndimension, class balance and "
           "class overlap, but it is NOT real data: say so\nwherever "
           "results on it are reported. Row i depends only on (--seed, i).\n"
           "OUTPUT_FILE - writes to standard output (e.g. | gzip).\n\n"
           "Options:\n"
           "  --rows N          1000000    rows to write\n"
           "  --layout L        susy       susy: UCI SUSY.csv (no header, "
           "label first as\n"
           "                               1.000000000000000000e+00, 18 "
           "features)\n"
           "                               hepmass: HEPMASS all_train.csv "
           "(header \"# label,\n"
           "                               f0,...,f26,mass\", label 1 / 0, "
           "28 features)\n"
           "                               libsvm: label i:v ... (any "
           "number of features)\n"
           "  --components K    8          Gaussians per class\n"
           "  --seed S          1          fit and sampling seed\n"
           "  --threads N       0          formatting threads (0: one per "
           "core)\n"
           "  --quiet                      no summary on stderr\n");
    cli_print_read_help(1);
    printf("\nExamples:\n"
           "  tsgs3vm synth --skip-columns 1 --label-column 2 --rows 5000000 "
           "\\\n      SUSY_test.csv.xz SUSY_synthetic.csv\n"
           "  tsgs3vm synth --label-column last --layout hepmass --rows "
           "10500000 \\\n      higgs.csv.xz hepmass_shaped_synthetic.csv\n");
}

/* Takes --rows / --layout / --components (with "=value" or the next
 * argument) out of argv; the rest is left in kept[0 .. *nkept). */
static int take_own(int argc, char **argv, synth_opts *s, char **kept,
                    int *nkept)
{
    int n = 0;
    kept[n++] = argv[0];
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        static const char *const own[] = {"rows", "layout", "components"};
        int which = -1;
        const char *value = NULL;
        if (!only_positional && strcmp(a, "--") == 0)
            only_positional = 1;
        for (int t = 0; !only_positional && t < 3 && which < 0; t++) {
            size_t l = strlen(own[t]);
            if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, own[t], l) == 0 &&
                (a[2 + l] == '\0' || a[2 + l] == '=')) {
                which = t;
                if (a[2 + l] == '=') {
                    value = a + 3 + l;
                } else if (i + 1 < argc) {
                    value = argv[++i];
                } else {
                    fprintf(stderr, "ERROR: option --%s needs a value\n",
                            own[t]);
                    return 1;
                }
            }
        }
        if (which < 0) {
            kept[n++] = argv[i];
            continue;
        }
        char *end;
        errno = 0;
        if (which == 0) {
            unsigned long long v = strtoull(value, &end, 10);
            if (end == value || *end || errno || value[0] == '-') {
                fprintf(stderr, "ERROR: --rows = \"%s\": expected a number "
                                "of rows >= 0\n",
                        value);
                return 1;
            }
            s->rows = v;
        } else if (which == 1) {
            s->layout = value;
        } else {
            long v = strtol(value, &end, 10);
            if (end == value || *end || errno || v < 1 ||
                v > TSGS_MIXTURE_MAX_COMPONENTS) {
                fprintf(stderr, "ERROR: --components = \"%s\": expected "
                                "1 .. %d\n",
                        value, TSGS_MIXTURE_MAX_COMPONENTS);
                return 1;
            }
            s->components = v;
        }
    }
    *nkept = n;
    return 0;
}

/* SAMPLE_FILE and OUTPUT_FILE given, and --layout a layout's name
 * (*layout). Returns 0, or 1 after an error (printed). */
static int check_arguments(const cli_opts *o, const synth_opts *s,
                           tsgs_layout *layout)
{
    tsgs_error err;
    if (o->npositional != 2) {
        fprintf(stderr, "ERROR: synth needs SAMPLE_FILE and OUTPUT_FILE "
                        "(see tsgs3vm synth --help)\n");
        return 1;
    }
    if (tsgs_layout_from_name(s->layout, layout, &err) != TSGS_OK) {
        fprintf(stderr, "ERROR: --%s\n", err.message);
        return 1;
    }
    return 0;
}

/* The mixture fitted to SAMPLE_FILE's labeled rows, said in a line
 * unless quiet; *t_fitted: when the fit ended. Returns 0, or 1 after an
 * error (printed). */
static int fit_sample(const cli_opts *o, const synth_opts *s,
                      tsgs_mixture **out, double *t_fitted)
{
    const char *path = o->positional[0];
    tsgs_dataset *ds = NULL;
    tsgs_mixture *m = NULL;
    tsgs_error err;
    double t0 = cli_wall_s();
    if (cli_read(o, path, &ds))
        return 1;
    if (tsgs_mixture_fit(ds, (int)s->components, o->params.seed, &m, &err)) {
        fprintf(stderr, "ERROR: %s: %s\n", path, err.message);
        tsgs_dataset_free(ds);
        return 1;
    }
    double t1 = cli_wall_s();
    if (!o->quiet)
        fprintf(stderr,
                "synth: SYNTHETIC data: %zu features, %ld Gaussians per "
                "class fitted to %zu rows of %s in %.2fs; class %g %.4f, "
                "class %g %.4f\n",
                tsgs_mixture_features(m), s->components,
                tsgs_dataset_labeled_count(ds), path, t1 - t0,
                tsgs_mixture_class_label(m, 0),
                tsgs_mixture_class_fraction(m, 0),
                tsgs_mixture_class_label(m, 1),
                tsgs_mixture_class_fraction(m, 1));
    tsgs_dataset_free(ds);
    *out = m;
    *t_fitted = t1;
    return 0;
}

/* A file of a fixed layout (susy: 18 features, higgs: 28) takes a
 * mixture of that width: checked before the file is created. Returns 0,
 * or 1 after an error (printed). */
static int check_width(const cli_opts *o, const synth_opts *s,
                       tsgs_layout layout, const tsgs_mixture *m)
{
    if (strcmp(o->positional[1], "-") == 0 || layout == TSGS_LAYOUT_LIBSVM)
        return 0;
    size_t need = layout == TSGS_LAYOUT_SUSY ? 18 : 28;
    if (tsgs_mixture_features(m) == need)
        return 0;
    fprintf(stderr, "ERROR: the %s layout has %zu features; %s has "
                    "%zu (use --layout libsvm, or check "
                    "--skip-columns / --label-column)\n",
            s->layout, need, o->positional[0], tsgs_mixture_features(m));
    return 1;
}

/* Says what was written (unless quiet): the rows, the layout, the seed,
 * the rate since the fit ended (t_fitted) and, for a file (bytes >= 0),
 * its size. */
static void report_written(const cli_opts *o, const synth_opts *s,
                           const char *out, long bytes, double t_fitted)
{
    double t2 = cli_wall_s(), dt = t2 - t_fitted > 0 ? t2 - t_fitted : 1e-9;
    if (o->quiet)
        return;
    fprintf(stderr, "synth: wrote %llu SYNTHETIC rows (%s layout, seed "
                    "%llu) to %s in %.2fs: %.3g rows/s",
            s->rows, s->layout, (unsigned long long)o->params.seed, out, dt,
            (double)s->rows / dt);
    if (bytes >= 0)
        fprintf(stderr, ", %.1f MB, %.1f MB/s", (double)bytes / 1e6,
                (double)bytes / 1e6 / dt);
    fputc('\n', stderr);
}

/* Writes --rows rows drawn from m to OUTPUT_FILE ("-": standard output)
 * and says so. A file that fails is removed (a partial file is not a data
 * set); a pipe or a device is written into and never removed. Returns 0,
 * or 1 after an error (printed). */
static int write_rows(const cli_opts *o, const synth_opts *s,
                      tsgs_layout layout, const tsgs_mixture *m,
                      double t_fitted)
{
    const char *out = o->positional[1];
    const int to_stdout = strcmp(out, "-") == 0;
    const int special = !to_stdout && cli_is_special(out);
    FILE *f = to_stdout ? stdout : fopen(out, "wb");
    tsgs_error err;
    if (!f) {
        fprintf(stderr, "ERROR: %s: cannot open for writing: %s\n", out,
                strerror(errno));
        return 1;
    }
    if (tsgs_synth_write(m, o->params.seed, 0, s->rows, layout, 1,
                         o->params.threads, f, &err)) {
        fprintf(stderr, "ERROR: %s: %s\n", out, err.message);
        if (!to_stdout) {
            fclose(f);
            if (!special)
                remove(out);
        }
        return 1;
    }
    long bytes = to_stdout ? -1 : ftell(f);
    if (!to_stdout && fclose(f) != 0) {
        fprintf(stderr, "ERROR: %s: writing failed: %s\n", out,
                strerror(errno));
        if (!special)
            remove(out);
        return 1;
    }
    report_written(o, s, out, bytes, t_fitted);
    return 0;
}

int cmd_synth(int argc, char **argv)
{
    static const char *const keys[] = {"seed", "threads", "format",
                                       "label-column", "skip-columns",
                                       "header", "quiet", NULL};
    cli_opts o;
    cli_opts_init(&o);
    synth_opts s = {1000000ULL, "susy", 8};
    tsgs_mixture *m = NULL;
    tsgs_layout layout;
    double t_fitted;
    int rc = 1;
    char **kept = malloc(sizeof(char *) * ((size_t)argc + 1));
    int nkept = 0;
    if (!kept) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    if (take_own(argc, argv, &s, kept, &nkept) ||
        cli_parse(&o, nkept, kept, keys))
        goto done;
    if (o.help) {
        help();
        rc = 0;
        goto done;
    }
    if (check_arguments(&o, &s, &layout) ||
        fit_sample(&o, &s, &m, &t_fitted) ||
        check_width(&o, &s, layout, m) ||
        write_rows(&o, &s, layout, m, t_fitted))
        goto done;
    rc = 0;
done:
    tsgs_mixture_free(m);
    cli_opts_free(&o);
    free(kept);
    return rc;
}
