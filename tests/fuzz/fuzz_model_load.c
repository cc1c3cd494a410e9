/* The model loader on any bytes. A model it accepts must predict (two
 * rows: zeros and ones, when the model is small enough to be quick), save,
 * and load again, and saving that reloaded model must give the same bytes:
 * whatever the loader accepts, it keeps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "internal.h"
#include "tsgs3vm.h"

/* The memory a model may commit the process to, in place of RLIMIT_AS or
 * the physical memory (ulimit -v cannot be used under ASan, whose shadow
 * takes terabytes of address space). Far below -malloc_limit_mb and
 * -rss_limit_mb: an allocation the loader's estimate misses is then a
 * finding. */
#define LOAD_MAX_BYTES (64.0 * 1048576.0)

/* Above these a prediction is slow (seconds) and says nothing new. */
#define PREDICT_MAX_FEATURES_IN 4096
#define PREDICT_MAX_RANDOM_FEATURES 65536

static void predict_two_rows(const tsgs_model *m)
{
    size_t d = tsgs_model_features_in(m), k = tsgs_model_score_columns(m);
    if (d == 0 || d > PREDICT_MAX_FEATURES_IN ||
        tsgs_model_feature_count(m) > PREDICT_MAX_RANDOM_FEATURES)
        return;
    float *x = calloc(2 * d, sizeof *x);
    double *scores = malloc(2 * k * sizeof *scores);
    double *proba = malloc(2 * (k > 1 ? k : 2) * sizeof *proba);
    if (!x || !scores || !proba)
        abort();
    for (size_t j = 0; j < d; j++)
        x[d + j] = 1.0f;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    if (tsgs_dataset_from_dense(2, d, x, NULL, &ds, &err) != TSGS_OK)
        abort();
    if (tsgs_predict_scores(m, ds, 1, scores, &err) == TSGS_OK)
        for (int i = 0; i < 2; i++)
            (void)tsgs_model_label_of(m, scores + (size_t)i * k);
    if (tsgs_model_has_probability(m))
        (void)tsgs_predict_proba(m, ds, 1, proba, &err);
    tsgs_dataset_free(ds);
    free(proba);
    free(scores);
    free(x);
}

/* The bytes of a model saved at path, after loading: the model's text
 * form. malloc'd, *len set. */
static char *saved_text(const tsgs_model *m, const char *path, size_t *len)
{
    tsgs_error err;
    if (tsgs_model_save(m, path, &err) != TSGS_OK) {
        fprintf(stderr, "fuzz_model_load: save: %s\n", err.message);
        abort();
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    char *text = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap && !(text = realloc(text, cap = cap * 2 + 4096)))
            abort();
        got = fread(text + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return text;
}

static void save_round_trip(const tsgs_model *m, const char *path)
{
    char saved[4200];
    snprintf(saved, sizeof saved, "%s.saved", path);
    size_t n1, n2;
    char *t1 = saved_text(m, saved, &n1);
    tsgs_model *again = NULL;
    tsgs_error err;
    if (tsgs__model_load_within(saved, LOAD_MAX_BYTES, &again, &err) !=
        TSGS_OK) {
        fprintf(stderr, "fuzz_model_load: a saved model does not load: "
                        "%s\n", err.message);
        abort();
    }
    char *t2 = saved_text(again, saved, &n2);
    if (n1 != n2 || memcmp(t1, t2, n1) != 0) {
        fprintf(stderr, "fuzz_model_load: save(load(save(m))) differs\n");
        abort();
    }
    remove(saved);
    tsgs_model_free(again);
    free(t2);
    free(t1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    tsgs_model *m = NULL;
    tsgs_error err;
    tsgs_status st = tsgs__model_load_within(path, LOAD_MAX_BYTES, &m, &err);
    if (st != TSGS_OK) {
        if (m)
            abort();
        fuzz_check_failure(st, &err, path);
        return 0;
    }
    predict_two_rows(m);
    save_round_trip(m, path);
    tsgs_model_free(m);
    return 0;
}
