/* Class weights (svm-train's -wi): the (label, weight) list of tsgs_params,
 * its text form "LABEL:W,..." ("none": empty) for keys, config and model
 * files, and its checks. */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a (label, weight) pair cannot be a class weight, or NULL. */
static const char *pair_fault(double label, double weight)
{
    if (!isfinite(label))
        return "the label must be a finite number";
    if (!isfinite(weight) || !(weight > 0.0))
        return "the weight must be a positive finite number";
    return NULL;
}

/* The entry of p for label, or -1. */
static int find_label(const tsgs_params *p, double label)
{
    for (int i = 0; i < p->n_class_weights; i++)
        if (p->class_weights[i].label == label)
            return i;
    return -1;
}

tsgs_status tsgs_params_set_class_weight(tsgs_params *p, double label,
                                         double weight, tsgs_error *err)
{
    if (!p)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_params_set_class_weight: NULL params");
    const char *why = pair_fault(label, weight);
    if (why)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "class-weight %g:%g: %s", label, weight, why);
    int at = find_label(p, label);
    if (at < 0 && p->n_class_weights >= TSGS_MAX_CLASS_WEIGHTS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "class-weight %g:%g: at most %d class weights",
                          label, weight, TSGS_MAX_CLASS_WEIGHTS);
    if (at < 0)
        at = p->n_class_weights++;
    p->class_weights[at].label = label;
    p->class_weights[at].weight = weight;
    return TSGS_OK;
}

/* One number of s, up to `stop` (':' or ','; ',' may also be the end):
 * *s moves to that character. */
static int parse_number(const char **s, int stop, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*s, &end);
    if (end == *s || errno || (*end != stop && !(stop == ',' && !*end)))
        return -1;
    *out = v;
    *s = end;
    return 0;
}

/* Why the next entry "LABEL:WEIGHT" of *s cannot be added to q, or NULL
 * once added (*s then at its ',' or the end). */
static const char *parse_entry(tsgs_params *q, const char **s)
{
    double label, weight;
    if (parse_number(s, ':', &label))
        return "expected LABEL:WEIGHT (e.g. 1:5,-1:0.5), or none";
    ++*s;
    if (parse_number(s, ',', &weight))
        return "expected LABEL:WEIGHT (e.g. 1:5,-1:0.5), or none";
    const char *why = pair_fault(label, weight);
    if (!why && find_label(q, label) >= 0)
        why = "the label is given twice";
    if (!why && q->n_class_weights >= TSGS_MAX_CLASS_WEIGHTS)
        why = "more entries than TSGS_MAX_CLASS_WEIGHTS";
    if (why)
        return why;
    q->class_weights[q->n_class_weights].label = label;
    q->class_weights[q->n_class_weights++].weight = weight;
    return NULL;
}

tsgs_status tsgs__class_weights_parse(tsgs_params *p, const char *text,
                                      tsgs_error *err)
{
    tsgs_params q = *p;
    q.n_class_weights = 0;
    const char *s = text;
    for (int k = 1; strcmp(text, "none") != 0; k++) {
        const char *why = parse_entry(&q, &s);
        if (why)
            return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                              "class-weight = \"%.200s\": entry %d: %s",
                              text, k, why);
        if (*s++ == '\0')
            break;
    }
    p->n_class_weights = q.n_class_weights;
    memcpy(p->class_weights, q.class_weights, sizeof q.class_weights);
    return TSGS_OK;
}

/* The shortest %g of v that reads back the same. */
static void shortest(double v, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void tsgs__class_weights_format(const tsgs_params *p, char *buf, size_t size)
{
    if (size == 0)
        return;
    snprintf(buf, size, "%s", p->n_class_weights > 0 ? "" : "none");
    for (int i = 0; i < p->n_class_weights; i++) {
        char label[32], weight[32];
        shortest(p->class_weights[i].label, label, sizeof label);
        shortest(p->class_weights[i].weight, weight, sizeof weight);
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s:%s", i ? "," : "", label,
                 weight);
    }
}

tsgs_status tsgs__class_weights_check(const tsgs_params *p, tsgs_error *err)
{
    if (p->n_class_weights < 0 || p->n_class_weights > TSGS_MAX_CLASS_WEIGHTS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "class-weight: %d entries; expected 0 to %d",
                          p->n_class_weights, TSGS_MAX_CLASS_WEIGHTS);
    for (int i = 0; i < p->n_class_weights; i++) {
        const tsgs_class_weight *w = &p->class_weights[i];
        const char *why = pair_fault(w->label, w->weight);
        if (!why && find_label(p, w->label) != i)
            why = "the label is given twice";
        if (why)
            return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                              "class-weight entry %d (%g:%g): %s", i + 1,
                              w->label, w->weight, why);
    }
    return TSGS_OK;
}

double tsgs__class_weight_of(const tsgs_params *p, double label)
{
    const int at = find_label(p, label);
    return at < 0 ? 1.0 : p->class_weights[at].weight;
}
