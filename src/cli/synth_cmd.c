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

int cmd_synth(int argc, char **argv)
{
    static const char *const keys[] = {"seed", "threads", "format",
                                       "label-column", "skip-columns",
                                       "header", "quiet", NULL};
    cli_opts o;
    cli_opts_init(&o);
    synth_opts s = {1000000ULL, "susy", 8};
    tsgs_dataset *ds = NULL;
    tsgs_mixture *m = NULL;
    FILE *f = NULL;
    int to_stdout = 0, special = 0, rc = 1;
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
    if (o.npositional != 2) {
        fprintf(stderr, "ERROR: synth needs SAMPLE_FILE and OUTPUT_FILE "
                        "(see tsgs3vm synth --help)\n");
        goto done;
    }
    tsgs_error err;
    tsgs_layout layout;
    if (tsgs_layout_from_name(s.layout, &layout, &err) != TSGS_OK) {
        fprintf(stderr, "ERROR: --%s\n", err.message);
        goto done;
    }
    double t0 = cli_wall_s();
    if (cli_read(&o, o.positional[0], &ds))
        goto done;
    if (tsgs_mixture_fit(ds, (int)s.components, o.params.seed, &m, &err)) {
        fprintf(stderr, "ERROR: %s: %s\n", o.positional[0], err.message);
        goto done;
    }
    double t1 = cli_wall_s();
    if (!o.quiet)
        fprintf(stderr,
                "synth: SYNTHETIC data: %zu features, %ld Gaussians per "
                "class fitted to %zu rows of %s in %.2fs; class %g %.4f, "
                "class %g %.4f\n",
                tsgs_mixture_features(m), s.components,
                tsgs_dataset_labeled_count(ds), o.positional[0], t1 - t0,
                tsgs_mixture_class_label(m, 0),
                tsgs_mixture_class_fraction(m, 0),
                tsgs_mixture_class_label(m, 1),
                tsgs_mixture_class_fraction(m, 1));
    tsgs_dataset_free(ds);
    ds = NULL;
    const char *out = o.positional[1];
    to_stdout = strcmp(out, "-") == 0;
    if (!to_stdout && layout != TSGS_LAYOUT_LIBSVM) {
        /* Check the layout before creating the file. */
        size_t need = layout == TSGS_LAYOUT_SUSY ? 18 : 28;
        if (tsgs_mixture_features(m) != need) {
            fprintf(stderr, "ERROR: the %s layout has %zu features; %s has "
                            "%zu (use --layout libsvm, or check "
                            "--skip-columns / --label-column)\n",
                    s.layout, need, o.positional[0],
                    tsgs_mixture_features(m));
            goto done;
        }
    }
    /* A pipe or a device is written into and never removed. */
    special = !to_stdout && cli_is_special(out);
    f = to_stdout ? stdout : fopen(out, "wb");
    if (!f) {
        fprintf(stderr, "ERROR: %s: cannot open for writing: %s\n", out,
                strerror(errno));
        goto done;
    }
    if (tsgs_synth_write(m, o.params.seed, 0, s.rows, layout, 1,
                         o.params.threads, f, &err)) {
        fprintf(stderr, "ERROR: %s: %s\n", out, err.message);
        goto done;
    }
    long bytes = to_stdout ? -1 : ftell(f);
    if (!to_stdout) {
        FILE *g = f;
        f = NULL;
        if (fclose(g) != 0) {
            fprintf(stderr, "ERROR: %s: writing failed: %s\n", out,
                    strerror(errno));
            if (!special)
                remove(out);
            goto done;
        }
    }
    double t2 = cli_wall_s(), dt = t2 - t1 > 0 ? t2 - t1 : 1e-9;
    if (!o.quiet) {
        fprintf(stderr, "synth: wrote %llu SYNTHETIC rows (%s layout, seed "
                        "%llu) to %s in %.2fs: %.3g rows/s",
                s.rows, s.layout, (unsigned long long)o.params.seed, out, dt,
                (double)s.rows / dt);
        if (bytes >= 0)
            fprintf(stderr, ", %.1f MB, %.1f MB/s", (double)bytes / 1e6,
                    (double)bytes / 1e6 / dt);
        fputc('\n', stderr);
    }
    rc = 0;
done:
    if (f && !to_stdout) {
        fclose(f);
        if (!special) /* a partial file is not a data set */
            remove(o.positional[1]);
    }
    tsgs_mixture_free(m);
    tsgs_dataset_free(ds);
    cli_opts_free(&o);
    free(kept);
    return rc;
}
