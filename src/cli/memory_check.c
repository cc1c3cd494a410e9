/* --max-memory: refuse a training run whose estimated memory
 * (tsgs_train_memory) will not fit, or a conversion of sparse rows whose
 * dense copy will not, before it starts, naming the file, its shape and
 * the bytes; and an allocation that fails all the same names them too. */
#include "cli.h"

#include <stdio.h>

/* The limit --max-memory sets: the bytes given, or (auto) what this
 * process can still allocate, *what naming the limit that decided. */
static double limit_of(const cli_opts *o, const char **what)
{
    if (o->max_memory >= 0.0) {
        *what = "allowed (--max-memory)";
        return o->max_memory;
    }
    const char *which;
    const double bytes = tsgs_memory_available(&which);
    static char text[96];
    snprintf(text, sizeof text, "this process can still allocate (%s; "
                                "--max-memory auto)", which);
    *what = text;
    return bytes;
}

static void print_bytes(FILE *to, double b)
{
    const char *unit[] = {"bytes", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    fprintf(to, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

int cli_check_memory(const cli_opts *o, const char *path,
                     const tsgs_dataset *ds, const tsgs_params *p)
{
    if (o->max_memory == 0.0)
        return 0;
    tsgs_error err;
    double need;
    if (tsgs_train_memory(ds, p, &need, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    const char *what;
    const double limit = limit_of(o, &what);
    if (need <= limit)
        return 0;
    size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    fprintf(stderr, "ERROR: %s: %zu rows x %zu features: training needs "
                    "about ",
            path, n, d);
    print_bytes(stderr, need);
    fprintf(stderr, " beyond the rows' ");
    print_bytes(stderr, tsgs_dataset_is_sparse(ds)
                            ? 8.0 * (double)tsgs_dataset_nonzeros(ds)
                            : (double)n * (double)d * sizeof(float));
    fprintf(stderr, ", more than the ");
    print_bytes(stderr, limit);
    fprintf(stderr, " %s. Most of it grows with the %zu features (a CSV's "
                    "columns; a LIBSVM file's largest feature index, where "
                    "one index far beyond the others is the usual cause); "
                    "--max-memory 0 tries anyway.\n",
            what, d);
    return 1;
}

int cli_check_dense_size(const cli_opts *o, const char *path,
                         const tsgs_dataset *ds)
{
    if (o->max_memory == 0.0 || !tsgs_dataset_is_sparse(ds))
        return 0;
    size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    const double need = (double)n * (double)d * sizeof(float);
    const char *what;
    const double limit = limit_of(o, &what);
    if (need <= limit)
        return 0;
    fprintf(stderr, "ERROR: %s: %zu rows x %zu features are sparse (%zu "
                    "non-zeros); as dense float32 rows they take ",
            path, n, d, tsgs_dataset_nonzeros(ds));
    print_bytes(stderr, need);
    fprintf(stderr, " (%.0f bytes), more than the ", need);
    print_bytes(stderr, limit);
    fprintf(stderr, " %s, and every run maps the .npy whole. Train on %s "
                    "directly (sparse rows), or --max-memory 0 writes it "
                    "anyway.\n",
            what, path);
    return 1;
}

/* The library sees rows, not files: a fault in the data (one class, no
 * labeled rows) or an allocation that failed is named here by the file it
 * came from. */
void cli_training_error(const char *path, const tsgs_dataset *ds,
                        const tsgs_error *err)
{
    if (err->code == TSGS_ERR_DATA && err->file[0] == '\0') {
        fprintf(stderr, "ERROR: %s: %s\n", path, err->message);
        return;
    }
    if (err->code != TSGS_ERR_NOMEM || err->file[0] != '\0') {
        cli_error(err);
        return;
    }
    const char *which;
    const double left = tsgs_memory_available(&which);
    fprintf(stderr, "ERROR: %s: %zu rows x %zu features: %s; this process "
                    "can still allocate ",
            path, tsgs_dataset_rows(ds), tsgs_dataset_features(ds),
            err->message);
    print_bytes(stderr, left);
    fprintf(stderr, " (%s). Fewer rows or features, or a smaller "
                    "--max-features or --cache-mb, need less.\n",
            which);
}
