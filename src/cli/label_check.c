/* What the tool checks in the labels of a training file before any work:
 * a label column that holds a feature (a CSV whose label is elsewhere), and
 * SVMlight's transductive convention (0 = unlabeled) read as a class. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>

/* More distinct non-integer labels than this, or more distinct labels of
 * any kind than MAX_CLASSES, are a feature, not classes. */
#define MAX_FRACTIONAL_CLASSES 20
#define MAX_CLASSES 1000

static const char *column_hint(const tsgs_read_options *r)
{
    if (r->format == TSGS_FORMAT_LIBSVM)
        return "";
    return r->label_column == -1
               ? " (read from the last column)"
               : " (read from the first column, or the column named by "
                 "the header or --label-column)";
}

/* A class weight whose label no labeled row has is unused: said, as
 * svm-train says it, and training goes on (a rare class may be missing
 * from a sample of the rows). */
static void warn_unused_weights(const cli_opts *o, const char *path,
                                const double *v, size_t k)
{
    const tsgs_params *p = &o->params;
    for (int i = 0; i < p->n_class_weights; i++) {
        const tsgs_class_weight *w = &p->class_weights[i];
        size_t c = 0;
        while (c < k && v[c] != w->label)
            c++;
        if (c == k)
            fprintf(stderr, "warning: %s: no labeled row has label %g: its "
                            "class weight (-w%g %g) is unused\n",
                    path, w->label, w->label, w->weight);
    }
}

int cli_check_labels(const cli_opts *o, const char *path,
                     const tsgs_dataset *ds)
{
    double *v = NULL;
    size_t k = 0;
    tsgs_error err;
    if (tsgs_dataset_classes(ds, &v, &k, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    size_t fractional = 0;
    for (size_t i = 0; i < k; i++)
        fractional += v[i] != floor(v[i]);
    if (k > MAX_CLASSES || (fractional > 0 && k > MAX_FRACTIONAL_CLASSES)) {
        fprintf(stderr,
                "ERROR: %s: the labels%s take %zu distinct values (%g, %g, "
                "%g, ...): a feature, not classes. Name the label column: "
                "--label-column last, --label-column N, or a header column "
                "named label, target, class or y\n",
                path, column_hint(&o->read), k, v[0], v[k > 1 ? 1 : 0],
                v[k > 2 ? 2 : 0]);
        free(v);
        return 1;
    }
    warn_unused_weights(o, path, v, k);
    /* exactly -1, 0 and +1 without --unlabeled-label: SVMlight's files
     * mark their unlabeled rows with 0 */
    if (k == 3 && v[0] == -1.0 && v[1] == 0.0 && v[2] == 1.0 &&
        !o->read.has_unlabeled_label)
        fprintf(stderr,
                "warning: %s: labels -1, 0 and +1 are read as three classes; "
                "if 0 marks unlabeled rows (SVMlight's transductive files), "
                "say --unlabeled-label 0\n",
                path);
    free(v);
    return 0;
}
