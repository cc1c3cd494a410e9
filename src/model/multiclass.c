/* Multi-class data, one-vs-rest (as LIBLINEAR and scikit-learn): one
 * binary model per class, that class +1 against every other -1, trained
 * by train.c on a relabeled view of the rows; a row goes to the class
 * whose model gives the largest decision value. Each binary problem keeps
 * its own class ratio, so the semi-supervised balance of class k holds
 * the share of unlabeled rows that class k has among the labeled ones. */
#include "model/model_file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

tsgs_status tsgs__label_view(const tsgs_dataset *ds, tsgs_dataset **out,
                             tsgs_error *err)
{
    tsgs_dataset *v = calloc(1, sizeof *v);
    double *y = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    if (!v || !y) {
        free(v);
        free(y);
        return TSGS__NOMEM(err);
    }
    memcpy(y, ds->y, sizeof(double) * ds->n);
    v->n = v->cap = ds->n;
    v->d = ds->d;
    v->x = ds->x; /* borrowed, as the sparse rows */
    v->ptr = ds->ptr;
    v->col = ds->col;
    v->val = ds->val;
    v->y = y;
    *out = v;
    return TSGS_OK;
}

tsgs_status tsgs__ovr_view(const tsgs_dataset *ds, double positive,
                           tsgs_dataset **out, tsgs_error *err)
{
    tsgs_status st = tsgs__label_view(ds, out, err);
    if (st != TSGS_OK)
        return st;
    double *y = (*out)->y;
    for (size_t i = 0; i < ds->n; i++)
        if (!isnan(y[i]))
            y[i] = y[i] == positive ? 1.0 : -1.0;
    return TSGS_OK;
}

void tsgs__view_free(tsgs_dataset *view)
{
    if (!view)
        return;
    free(view->y);
    free(view);
}

tsgs_status tsgs__model_ovr(tsgs_model **subs, const double *classes,
                            size_t k, tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m = calloc(1, sizeof *m);
    tsgs_model **ovr = malloc(sizeof *ovr * k);
    double *cl = malloc(sizeof *cl * k);
    if (!m || !ovr || !cl) {
        free(m);
        free(ovr);
        free(cl);
        return TSGS__NOMEM(err);
    }
    memcpy(ovr, subs, sizeof *ovr * k);
    memcpy(cl, classes, sizeof *cl * k);
    m->kind = &tsgs__kind_ovr;
    m->nclass = (int)k;
    m->ovr = ovr;
    m->classes = cl;
    m->d = subs[0]->d;
    m->params = subs[0]->params;
    m->layout = subs[0]->layout; /* a loaded file's (each class's alike) */
    m->label_neg = cl[0];
    m->label_pos = cl[k - 1];
    snprintf(m->note, sizeof m->note, "one-vs-rest over %zu classes; class "
             "%g: %.150s", k, cl[0], subs[0]->note);
    *out = m;
    return TSGS_OK;
}

size_t tsgs_model_classes(const tsgs_model *m, double *labels)
{
    if (m->kind->per_class) {
        if (labels)
            memcpy(labels, m->classes, sizeof *labels * (size_t)m->nclass);
        return (size_t)m->nclass;
    }
    if (labels) {
        labels[0] = m->label_neg;
        labels[1] = m->label_pos;
    }
    return 2;
}

size_t tsgs_model_score_columns(const tsgs_model *m)
{
    return m->kind->per_class ? (size_t)m->nclass : 1;
}

tsgs_status tsgs_predict_scores(const tsgs_model *m, const tsgs_dataset *ds,
                                int threads, double *scores, tsgs_error *err)
{
    if (!m || !ds || !scores)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_predict_scores: NULL argument");
    if (!m->kind->per_class)
        return tsgs_predict(m, ds, threads, scores, err);
    return m->kind->decision(m, ds, threads, 0.0, scores, err);
}

double tsgs_model_label_of(const tsgs_model *m, const double *scores)
{
    if (!m->kind->per_class)
        return tsgs_model_label(m, scores[0]);
    int best = 0; /* ties to the first class, as LIBLINEAR */
    for (int c = 1; c < m->nclass; c++)
        if (scores[c] > scores[best])
            best = c;
    return m->classes[best];
}

double tsgs_accuracy(const tsgs_model *m, const tsgs_dataset *ds,
                     const double *scores, size_t *n_labeled)
{
    const size_t k = tsgs_model_score_columns(m);
    size_t n = 0, right = 0;
    for (size_t i = 0; i < ds->n; i++) {
        if (isnan(ds->y[i]))
            continue;
        n++;
        right += tsgs_model_label_of(m, scores + i * k) == ds->y[i];
    }
    if (n_labeled)
        *n_labeled = n;
    return n ? (double)right / (double)n : 0.0;
}

double tsgs__accuracy_on(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, tsgs_error *err)
{
    const size_t k = tsgs_model_score_columns(m);
    double *s = malloc(sizeof(double) * k * (ds->n ? ds->n : 1));
    if (!s) {
        TSGS__NOMEM(err);
        return -1.0;
    }
    double acc = -1.0;
    if (tsgs_predict_scores(m, ds, threads, s, err) == TSGS_OK)
        acc = tsgs_accuracy(m, ds, s, NULL);
    free(s);
    return acc;
}

size_t tsgs__ovr_at_once(size_t k, int threads, tsgs_solver solver)
{
    if (solver != TSGS_SOLVER_SAFE || k < 3 || threads < 2 ||
        k - 1 < (size_t)threads)
        return 1;
    return (size_t)threads;
}

/* ------------------------------------------------ the one-vs-rest kind */

/* One decision value per class and row: each class's model on the rows
 * (each scales them its own way), the cache budget shared. */
static tsgs_status ovr_decision(const tsgs_model *m, const tsgs_dataset *ds,
                                int threads, double cache_bytes,
                                double *scores, tsgs_error *err)
{
    (void)cache_bytes;
    const size_t k = (size_t)m->nclass;
    double *dec = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    if (!dec)
        return TSGS__NOMEM(err);
    tsgs_status st = TSGS_OK;
    for (size_t c = 0; c < k && st == TSGS_OK; c++) {
        st = tsgs__predict_within(m->ovr[c], ds, threads,
                                  m->ovr[c]->params.cache_mb * 1048576.0 /
                                      (double)k,
                                  dec, err);
        for (size_t i = 0; st == TSGS_OK && i < ds->n; i++)
            scores[i * k + c] = dec[i];
    }
    free(dec);
    return st;
}

/* One-vs-rest files: a header naming the classes, then each class's
 * binary model as its kind writes it, in the classes' order. */
#define OVR_VERSION 1

static void ovr_write(FILE *f, const tsgs_model *m,
                      const tsgs_data_layout *lay)
{
    fprintf(f, "%s %d\nclasses %d\nlabels", TSGS__OVR_MAGIC, OVR_VERSION,
            m->nclass);
    for (int k = 0; k < m->nclass; k++) {
        fputc(' ', f);
        tsgs__mfile_put(f, m->classes[k]);
    }
    fputc('\n', f);
    /* each class records the top model's layout */
    for (int k = 0; k < m->nclass; k++)
        m->ovr[k]->kind->write(f, m->ovr[k], lay);
}

/* "classes K" of a one-vs-rest file: K >= 3, and no more classes than
 * the rest of the file holds (a label and a model each). */
static tsgs_status read_class_count(tsgs__mfile *r, long *k, tsgs_error *err)
{
    char *line;
    tsgs_status st = tsgs__mfile_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    if (!line || strncmp(line, "classes ", 8) != 0 ||
        tsgs__mfile_count(r, "classes", line + 8, 1L << 20, k, err) || *k < 3)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "classes: expected \"classes K\" with K >= 3");
    return tsgs__mfile_holds(r, "classes", (double)*k,
                            2.0 + sizeof TSGS__MODEL_MAGIC " 1",
                            "a class takes a label and a model, whose "
                            "first line alone is 16 bytes",
                            err);
}

static int same_layout(const tsgs_data_layout *a, const tsgs_data_layout *b)
{
    return a->known == b->known && a->format == b->format &&
           a->label_column == b->label_column &&
           a->skip_columns == b->skip_columns && a->header == b->header &&
           a->columns == b->columns &&
           a->has_unlabeled_label == b->has_unlabeled_label &&
           a->unlabeled_label == b->unlabeled_label;
}

/* The first line, "tsgs3vm-ovr 1". */
static tsgs_status ovr_read_first(tsgs__mfile *r, tsgs_error *err)
{
    char *line, *end;
    tsgs_status st = tsgs__mfile_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    errno = 0;
    long version = strtol(line + strlen(TSGS__OVR_MAGIC) + 1, &end, 10);
    if (errno || *end != '\0' || version != OVR_VERSION)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 1,
                          "one-vs-rest model format \"%.40s\"; this build "
                          "reads \"%s %d\"",
                          line, TSGS__OVR_MAGIC, OVR_VERSION);
    return TSGS_OK;
}

/* "labels ...": the k class labels, distinct and ascending. */
static tsgs_status ovr_read_labels(tsgs__mfile *r, long k, double *classes,
                                   tsgs_error *err)
{
    char *line;
    tsgs_status st = tsgs__mfile_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    if (!line || strncmp(line, "labels ", 7) != 0 ||
        (st = tsgs__mfile_doubles(r, "labels", line + 7, classes, (size_t)k,
                                  INFINITY, err))) {
        if (st == TSGS_OK)
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "labels: expected the %ld class labels", k);
        return st;
    }
    for (long c = 1; c < k; c++)
        if (!(classes[c] > classes[c - 1]))
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "labels: the class labels must be distinct "
                              "and ascending");
    return TSGS_OK;
}

/* The k classes' binary models, alike in features-in and layout; last:
 * nothing but blank lines may follow the last one. */
static tsgs_status ovr_read_classes(tsgs__mfile *r, long k, int last,
                                    tsgs_model **subs, tsgs_error *err)
{
    tsgs_status st = TSGS_OK;
    for (long c = 0; c < k && st == TSGS_OK; c++)
        st = r->read_binary(r, last && c == k - 1, &subs[c], err);
    for (long c = 0; c < k && st == TSGS_OK; c++)
        if (subs[c]->d != subs[0]->d)
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "class %ld's model has %zu features-in, class "
                            "1's %zu",
                            c + 1, subs[c]->d, subs[0]->d);
        else if (!same_layout(&subs[c]->layout, &subs[0]->layout))
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "class %ld's model has other data-* lines than "
                            "class 1's (one file trained them all)",
                            c + 1);
    return st;
}

/* A one-vs-rest file: its header, then one binary model per class. */
static tsgs_status ovr_read(tsgs__mfile *r, tsgs__mheader *h, int last,
                            tsgs_model **out, tsgs_error *err)
{
    (void)h;
    long k = -1;
    tsgs_status st = ovr_read_first(r, err);
    if (st == TSGS_OK)
        st = read_class_count(r, &k, err);
    if (st != TSGS_OK)
        return st;
    double *classes = malloc(sizeof(double) * (size_t)k);
    tsgs_model **subs = calloc((size_t)k, sizeof *subs);
    if (!classes || !subs) {
        free(classes);
        free(subs);
        return tsgs__mfile_nomem(r, "classes", err);
    }
    st = ovr_read_labels(r, k, classes, err);
    if (st == TSGS_OK)
        st = ovr_read_classes(r, k, last, subs, err);
    if (st == TSGS_OK)
        st = tsgs__model_ovr(subs, classes, (size_t)k, out, err);
    if (st != TSGS_OK)
        for (long c = 0; c < k; c++)
            tsgs_model_free(subs[c]);
    free(subs);
    free(classes);
    return st;
}

/* What the classes own (tsgs_model_free the rest). */
static void ovr_free(tsgs_model *m)
{
    for (int k = 0; k < m->nclass && m->ovr; k++)
        tsgs_model_free(m->ovr[k]);
    free(m->ovr);
    free(m->classes);
}

static long ovr_feature_count(const tsgs_model *m)
{
    long total = 0;
    for (int k = 0; k < m->nclass; k++)
        total += m->ovr[k]->kind->feature_count(m->ovr[k]);
    return total;
}

const tsgs__model_kind tsgs__kind_ovr = {
    .name = "one-vs-rest",
    .section = NULL,
    .per_class = 1,
    .decision = ovr_decision,
    .write = ovr_write,
    .read = ovr_read,
    .free = ovr_free,
    .feature_count = ovr_feature_count,
};
