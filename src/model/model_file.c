/* Model files: versioned text. A binary model's file is its first line
 * (format name and version), a header of "key value" lines (every
 * parameter, dimensions, scale, bias, labels, scaler, the data's layout),
 * then its kind's section (the coefficients of the random features, one
 * line per direction at full precision, or the support vectors) and
 * "end". One table of header keys drives both the writer and the reader.
 * Seeds are stored, never random features. */
#include "model/model_file.h"
#include "train.h" /* the parameter keys (params.c) */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2: "cost" is C per labeled row (LIBSVM's), with "c-total" and
 * "class-weight"; 1: "c" was the total C x n_l (read as c-total). */
#define FORMAT_VERSION 2

void tsgs__mfile_put(FILE *f, double v) { fprintf(f, "%.17g", v); }

/* ------------------------------------------------------------ reading */

/* Next line without its newline into *line (NULL at end of file). A NUL
 * byte inside a line is refused: the text after it would go unread. */
tsgs_status tsgs__mfile_line(tsgs__mfile *r, char **line, tsgs_error *err)
{
    *line = NULL;
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0)
        return TSGS_OK;
    r->line++;
    if (strlen(r->buf) != (size_t)n)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "a NUL byte inside the line: not a model file "
                          "as written by tsgs3vm");
    while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
        r->buf[--n] = '\0';
    *line = r->buf;
    return TSGS_OK;
}

/* Out of memory while reading field on the current line. */
tsgs_status tsgs__mfile_nomem(const tsgs__mfile *r, const char *field,
                              tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_NOMEM, r->path, r->line,
                      "%s: out of memory", field);
}

/* Bytes after the line just read. */
static double bytes_left(const tsgs__mfile *r)
{
    long at = ftell(r->f);
    return r->size - (at > 0 ? (double)at : 0.0);
}

/* Whether the rest of the file can hold the `count` items field announces
 * on the current line, each `each` bytes at least (`why` says so). */
tsgs_status tsgs__mfile_holds(const tsgs__mfile *r, const char *field,
                              double count, double each, const char *why,
                              tsgs_error *err)
{
    const double left = bytes_left(r);
    if (count * each <= left)
        return TSGS_OK;
    return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                      "%s: %.0f announced, but the %.0f bytes left in the "
                      "file hold %.0f at most (%s)",
                      field, count, left, floor(left / each), why);
}

/* Takes `bytes` from the memory the process may still hold, or refuses
 * the count that field declared on `line` (`what`: the counts, in
 * words). */
tsgs_status tsgs__mfile_take(tsgs__mfile *r, const char *field, long line,
                             double bytes, const char *what,
                             tsgs_error *err)
{
    if (bytes <= r->mem_left) {
        r->mem_left -= bytes;
        return TSGS_OK;
    }
    const double mib = 1048576.0;
    if (r->mem_left < r->mem_cap) /* a one-vs-rest file's later class */
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, line,
                          "%s: %s need about %.0f MiB to load and predict, "
                          "more than the %.0f MiB the classes before leave "
                          "of the %.0f MiB this process may hold (%s)",
                          field, what, bytes / mib, r->mem_left / mib,
                          r->mem_cap / mib, r->cap_what);
    return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, line,
                      "%s: %s need about %.0f MiB to load and predict, more "
                      "than the %.0f MiB this process may hold (%s)",
                      field, what, bytes / mib, r->mem_cap / mib,
                      r->cap_what);
}

/* The "end" line after the n items of a section, and, for the file's last
 * model, nothing after it but blank lines (what save wrote). */
tsgs_status tsgs__mfile_end(tsgs__mfile *r, long n, const char *what,
                            int last, tsgs_error *err)
{
    char *line;
    tsgs_status st = tsgs__mfile_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    if (!line || strcmp(line, "end") != 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "truncated: no \"end\" line after the %ld %s", n,
                          what);
    line = NULL;
    while (last) {
        if ((st = tsgs__mfile_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line || line[strspn(line, " \t")] != '\0')
            break;
    }
    if (line)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "text after the \"end\" line");
    return TSGS_OK;
}

/* n numbers of s into v, each finite and of magnitude at most max. */
tsgs_status tsgs__mfile_doubles(const tsgs__mfile *r, const char *field,
                                const char *s, double *v, size_t n,
                                double max, tsgs_error *err)
{
    char *end;
    for (size_t i = 0; i < n; i++) {
        errno = 0;
        v[i] = strtod(s, &end);
        if (end == s || !isfinite(v[i]))
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "%s: value %zu of %zu is missing or not a "
                              "finite number",
                              field, i + 1, n);
        if (fabs(v[i]) > max)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "%s: value %zu of %zu, %g, is beyond +-%g "
                              "(no trained model comes near)",
                              field, i + 1, n, v[i], max);
        s = end;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '\0')
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: unexpected text \"%.40s\" after %zu values",
                          field, s, n);
    return TSGS_OK;
}

tsgs_status tsgs__mfile_count(const tsgs__mfile *r, const char *field,
                              const char *s, long max, long *out,
                              tsgs_error *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < 0 || v > max)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: \"%s\" is not a count in [0, %ld]", field, s,
                          max);
    *out = v;
    return TSGS_OK;
}

/* ------------------------------------------------------------ headers */

/* The version of a first line "tsgs3vm-model N" (N digits as the
 * writer writes them: no sign, no leading zero, nothing else), or -1. */
static long magic_version(const char *line)
{
    const size_t m = strlen(TSGS__MODEL_MAGIC);
    if (!line || strncmp(line, TSGS__MODEL_MAGIC, m) != 0 || line[m] != ' ')
        return -1;
    const char *s = line + m + 1;
    long v = 0;
    if (!*s || (s[0] == '0' && s[1] != '\0'))
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 1000000)
            return -1;
        v = 10 * v + (*s - '0');
    }
    return v;
}

/* Whether key was seen before in this header (then refused); remembers
 * it. Headers have a few dozen keys. */
static int seen_before(char ***seen, size_t *n, const char *key, int *nomem)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*seen)[i], key) == 0)
            return 1;
    char **grown = realloc(*seen, sizeof(char *) * (*n + 1));
    char *copy = strdup(key);
    if (!grown || !copy) {
        if (grown)
            *seen = grown;
        free(copy);
        *nomem = 1;
        return 0;
    }
    *seen = grown;
    (*seen)[(*n)++] = copy;
    return 0;
}

/* Fields of s separated by blanks (as strtod skips them). */
#define BLANKS " \t\r\v\f"
static size_t count_fields(const char *s)
{
    size_t n = 0;
    for (s += strspn(s, BLANKS); *s; s += strspn(s, BLANKS)) {
        n++;
        s += strcspn(s, BLANKS);
    }
    return n;
}

/* "scaler-maxabs N c:m ..." (1-based ascending columns below d, finite
 * positive multipliers). */
static tsgs_status parse_maxabs(const tsgs__mfile *r, const char *val,
                                long d, size_t *n, uint32_t **cols,
                                double **muls, tsgs_error *err)
{
    char *end;
    if (d < 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "scaler-maxabs before features-in");
    unsigned long long cnt = strtoull(val, &end, 10);
    if (end == val || cnt > (unsigned long long)d)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "scaler-maxabs: bad count");
    /* the entries are on this line: no more than it holds is allocated */
    const size_t listed = count_fields(end);
    if (cnt > listed)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "scaler-maxabs: count %llu, but %zu entries on "
                          "the line",
                          cnt, listed);
    free(*cols);
    free(*muls);
    *cols = malloc(sizeof(uint32_t) * (cnt ? cnt : 1));
    *muls = malloc(sizeof(double) * (cnt ? cnt : 1));
    if (!*cols || !*muls)
        return tsgs__mfile_nomem(r, "scaler-maxabs", err);
    const char *p = end;
    for (size_t j = 0; j < cnt; j++) {
        unsigned long long c = strtoull(p, &end, 10);
        if (end == p || *end != ':' || c < 1 || c > (unsigned long long)d ||
            (j > 0 && c <= (*cols)[j - 1] + 1ull))
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "scaler-maxabs: entry %zu: expected "
                              "column:multiplier, columns ascending",
                              j + 1);
        p = end + 1;
        double m = strtod(p, &end);
        if (end == p || !isfinite(m) || !(m > 0.0) ||
            m > TSGS__MODEL_VALUE_MAX)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "scaler-maxabs: entry %zu: bad multiplier "
                              "(expected a number in (0, %g])",
                              j + 1, TSGS__MODEL_VALUE_MAX);
        p = end;
        (*cols)[j] = (uint32_t)(c - 1);
        (*muls)[j] = m;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    if (*p)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "scaler-maxabs: more entries than %llu", cnt);
    *n = (size_t)cnt;
    return TSGS_OK;
}

void tsgs__mheader_init(tsgs__mheader *h)
{
    memset(h, 0, sizeof *h);
    h->p = tsgs_params_default();
    /* Files written before the "directions" key existed used iid ones. */
    h->p.directions = TSGS_DIRECTIONS_IID;
    h->d = h->blocks = h->count = -1;
    h->scale = h->bias = NAN;
    h->labels[0] = h->labels[1] = h->prob_ab[0] = h->prob_ab[1] = NAN;
    h->scaling = TSGS_SCALE_NONE;
}

void tsgs__mheader_free(tsgs__mheader *h)
{
    for (size_t i = 0; i < h->nseen; i++)
        free(h->seen[i]);
    free(h->seen);
    free(h->shift);
    free(h->mul);
    free(h->scol);
    free(h->smul);
}

/* ------------------------------------------------ the header's keys */

/* What a header line writes and reads: one entry a key, in the order
 * written. */
typedef struct {
    const char *key;  /* NULL: every parameter key (params.c's table) */
    int ends;         /* the section line: the header's last */
    /* Writes the key's line when the model has one (NULL: its kind
     * writes it, before its section); lay: the layout to record. */
    void (*put)(FILE *f, const tsgs_model *m, const tsgs_data_layout *lay);
    /* Reads the value of the key's line into h. */
    tsgs_status (*get)(tsgs__mfile *r, tsgs__mheader *h, const char *key,
                       const char *val, tsgs_error *err);
} field_t;

/* --- parameters */

static void put_params(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)lay;
    /* Directions written as used, not "auto": the file says what it has. */
    tsgs_params saved = m->params;
    saved.directions = m->fs.orthogonal ? TSGS_DIRECTIONS_ORTHOGONAL
                                        : TSGS_DIRECTIONS_IID;
    char value[TSGS_PARAM_VALUE_MAX];
    const char *key;
    for (size_t i = 0; (key = tsgs_params_key(i, &saved, value,
                                              sizeof value, NULL));
         i++)
        fprintf(f, "%s %s\n", key, value);
}

/* A parameter line. sigma is checked here, so that its error names its
 * line: to training 0 means "choose it", but a model has chosen. */
static tsgs_status get_param(tsgs__mfile *r, tsgs__mheader *h,
                             const char *key, const char *val,
                             tsgs_error *err)
{
    tsgs_params *p = &h->p;
    tsgs_error perr;
    if (tsgs_params_set(p, key, val, &perr) != TSGS_OK)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line, "%s",
                          perr.message);
    if ((strcmp(key, "sigma") == 0 || strcmp(key, "gamma") == 0) &&
        !(p->sigma > 0.0 && p->sigma <= TSGS__MODEL_VALUE_MAX))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: %g: sigma must be positive (and at most %g)",
                          key, p->sigma, TSGS__MODEL_VALUE_MAX);
    return TSGS_OK;
}

/* --- dimensions, scale, bias, labels */

static void put_features_in(FILE *f, const tsgs_model *m,
                            const tsgs_data_layout *lay)
{
    (void)lay;
    fprintf(f, "features-in %zu\n", m->d);
}

static tsgs_status get_features_in(tsgs__mfile *r, tsgs__mheader *h,
                                   const char *key, const char *val,
                                   tsgs_error *err)
{
    h->d_line = r->line;
    return tsgs__mfile_count(r, key, val, 1L << 30, &h->d, err);
}

static void put_blocks(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)lay;
    fprintf(f, "blocks %ld\n", m->nblocks);
}

static tsgs_status get_blocks(tsgs__mfile *r, tsgs__mheader *h,
                              const char *key, const char *val,
                              tsgs_error *err)
{
    h->blocks_line = r->line;
    return tsgs__mfile_count(r, key, val, 1L << 40, &h->blocks, err);
}

/* "key v1 ... vn\n" */
static void put_values(FILE *f, const char *key, const double *v, size_t n)
{
    fputs(key, f);
    for (size_t i = 0; i < n; i++) {
        fputc(' ', f);
        tsgs__mfile_put(f, v[i]);
    }
    fputc('\n', f);
}

static void put_scale(FILE *f, const tsgs_model *m,
                      const tsgs_data_layout *lay)
{
    (void)lay;
    put_values(f, "lazy-scale", &m->scale, 1);
}

/* "lazy-scale": one positive number (the decision value's factor). */
static tsgs_status get_scale(tsgs__mfile *r, tsgs__mheader *h,
                             const char *key, const char *val,
                             tsgs_error *err)
{
    tsgs_status st = tsgs__mfile_doubles(r, key, val, &h->scale, 1,
                                         TSGS__MODEL_VALUE_MAX, err);
    if (st == TSGS_OK && !(h->scale > 0.0))
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "lazy-scale: %g: lazy-scale must be positive",
                        h->scale);
    return st;
}

static void put_bias(FILE *f, const tsgs_model *m,
                     const tsgs_data_layout *lay)
{
    (void)lay;
    put_values(f, "bias", &m->bias, 1);
}

static tsgs_status get_bias(tsgs__mfile *r, tsgs__mheader *h,
                            const char *key, const char *val,
                            tsgs_error *err)
{
    return tsgs__mfile_doubles(r, key, val, &h->bias, 1,
                               TSGS__MODEL_VALUE_MAX, err);
}

static void put_labels(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)lay;
    const double v[2] = {m->label_neg, m->label_pos};
    put_values(f, "labels", v, 2);
}

/* the user's labels: any finite */
static tsgs_status get_labels(tsgs__mfile *r, tsgs__mheader *h,
                              const char *key, const char *val,
                              tsgs_error *err)
{
    return tsgs__mfile_doubles(r, key, val, h->labels, 2, INFINITY, err);
}

/* Platt's sigmoid (probability.c) */
static void put_prob(FILE *f, const tsgs_model *m,
                     const tsgs_data_layout *lay)
{
    (void)lay;
    const double v[2] = {m->prob_a, m->prob_b};
    if (m->has_prob)
        put_values(f, "probability-ab", v, 2);
}

static tsgs_status get_prob(tsgs__mfile *r, tsgs__mheader *h,
                            const char *key, const char *val,
                            tsgs_error *err)
{
    return tsgs__mfile_doubles(r, key, val, h->prob_ab, 2,
                               TSGS__MODEL_VALUE_MAX, err);
}

/* --- the scaler */

static const struct {
    const char *name;
    tsgs_scaling kind;
} scalings[] = {{"zscore", TSGS_SCALE_ZSCORE}, {"minmax", TSGS_SCALE_MINMAX},
                {"class", TSGS_SCALE_CLASS},   {"none", TSGS_SCALE_NONE},
                {"maxabs", TSGS_SCALE_MAXABS}};
#define NSCALINGS (sizeof scalings / sizeof scalings[0])

static void put_scaling(FILE *f, const tsgs_model *m,
                        const tsgs_data_layout *lay)
{
    (void)lay;
    const char *name = "none";
    for (size_t i = 0; i < NSCALINGS; i++)
        if (scalings[i].kind == m->scaler.kind)
            name = scalings[i].name;
    fprintf(f, "scaler %s\n", name);
}

static tsgs_status get_scaling(tsgs__mfile *r, tsgs__mheader *h,
                               const char *key, const char *val,
                               tsgs_error *err)
{
    (void)key;
    for (size_t i = 0; i < NSCALINGS; i++)
        if (strcmp(val, scalings[i].name) == 0) {
            h->scaling = scalings[i].kind;
            h->have_scaling = 1;
            return TSGS_OK;
        }
    return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                      "scaler: unknown kind \"%s\"", val);
}

/* the columns whose multiplier is not 1: "count col:mul ..." */
static void put_maxabs(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)lay;
    if (m->scaler.kind != TSGS_SCALE_MAXABS)
        return;
    fprintf(f, "scaler-maxabs %zu", m->scaler.nsc);
    for (size_t j = 0; j < m->scaler.nsc; j++) {
        fprintf(f, " %u:", m->scaler.scol[j] + 1u);
        tsgs__mfile_put(f, m->scaler.smul[j]);
    }
    fputc('\n', f);
}

static tsgs_status get_maxabs(tsgs__mfile *r, tsgs__mheader *h,
                              const char *key, const char *val,
                              tsgs_error *err)
{
    (void)key;
    return parse_maxabs(r, val, h->d, &h->nsc, &h->scol, &h->smul, err);
}

/* A shift and a multiplier per feature, for the scalers but none and
 * maxabs. */
static int has_rows(const tsgs_model *m)
{
    return m->scaler.kind != TSGS_SCALE_NONE &&
           m->scaler.kind != TSGS_SCALE_MAXABS;
}

static void put_shift(FILE *f, const tsgs_model *m,
                      const tsgs_data_layout *lay)
{
    (void)lay;
    if (has_rows(m))
        put_values(f, "scaler-shift", m->scaler.shift, m->scaler.d);
}

static void put_mul(FILE *f, const tsgs_model *m,
                    const tsgs_data_layout *lay)
{
    (void)lay;
    if (has_rows(m))
        put_values(f, "scaler-mul", m->scaler.mul, m->scaler.d);
}

/* "scaler-shift" / "scaler-mul": exactly features-in values. */
static tsgs_status get_scaler_row(tsgs__mfile *r, tsgs__mheader *h,
                                  const char *key, const char *val,
                                  tsgs_error *err)
{
    if (h->d < 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s before features-in", key);
    /* counted on the line first: features-in does not size the row */
    const size_t n = count_fields(val);
    if (n != (size_t)h->d)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: %zu values, but features-in (line %ld) is "
                          "%ld",
                          key, n, h->d_line, h->d);
    double **dst = key[7] == 's' ? &h->shift : &h->mul;
    free(*dst);
    if (!(*dst = malloc(sizeof(double) * (n ? n : 1))))
        return tsgs__mfile_nomem(r, key, err);
    return tsgs__mfile_doubles(r, key, val, *dst, n, TSGS__MODEL_VALUE_MAX,
                               err);
}

/* --- the section line */

/* "coefficients N" (lines of 1 value, or 2 for PAIR features) or
 * "support-vectors N" (lines of features-in + 1 values), N no more than
 * the rest of the file holds. */
static tsgs_status get_section(tsgs__mfile *r, tsgs__mheader *h,
                               const char *key, const char *val,
                               tsgs_error *err)
{
    const int sv = strcmp(key, "support-vectors") == 0;
    tsgs_status st = tsgs__mfile_count(r, key, val, 1L << 40, &h->count,
                                       err);
    if (st != TSGS_OK)
        return st;
    if (!sv) {
        const int pair = h->p.feature_map == TSGS_FEATURES_PAIR;
        return tsgs__mfile_holds(r, key, (double)h->count, pair ? 4.0 : 2.0,
                                 pair ? "a line of 2 values takes 4 bytes "
                                        "at least"
                                      : "a line of 1 value takes 2 bytes "
                                        "at least",
                                 err);
    }
    if (h->d < 0) /* refused as missing once the header is read */
        return TSGS_OK;
    char why[96];
    snprintf(why, sizeof why, "a line of %ld values takes %.0f bytes at least",
             h->d + 1, 2.0 * ((double)h->d + 1.0));
    return tsgs__mfile_holds(r, key, (double)h->count,
                             2.0 * ((double)h->d + 1.0), why, err);
}

/* --- the training data's layout and the writer's version: optional
 * lines (files written before them load without a layout) */

static const char *const format_names[] = {"auto", "libsvm", "csv", "npy"};

/* The data-* lines besides data-format, as bits of
 * tsgs__mheader.layout_keys. */
enum { LK_LABEL = 1, LK_SKIP = 2, LK_HEADER = 4, LK_COLUMNS = 8,
       LK_UNLABELED = 16 };
#define COLUMN_MAX 999999 /* the tool's --label-column / --skip-columns */
#define VERSION_CHARS "0123456789abcdefghijklmnopqrstuvwxyz" \
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+-~_"

static void put_written_by(FILE *f, const tsgs_model *m,
                           const tsgs_data_layout *lay)
{
    (void)m;
    (void)lay;
    fprintf(f, "written-by tsgs3vm %s\n", TSGS_VERSION_STRING);
}

/* "written-by tsgs3vm VERSION": checked, not kept. */
static tsgs_status get_written_by(tsgs__mfile *r, tsgs__mheader *h,
                                  const char *key, const char *val,
                                  tsgs_error *err)
{
    (void)h;
    (void)key;
    const char *v = val + 8;
    if (strncmp(val, "tsgs3vm ", 8) != 0 || !*v || strlen(v) > 32 ||
        v[strspn(v, VERSION_CHARS)] != '\0')
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "written-by: \"%.40s\": expected \"tsgs3vm "
                          "VERSION\" (as \"tsgs3vm %s\")",
                          val, TSGS_VERSION_STRING);
    return TSGS_OK;
}

/* The layout's format when the file records one, else 0. */
static tsgs_format recorded(const tsgs_data_layout *L)
{
    if (!L->known || L->format < TSGS_FORMAT_LIBSVM ||
        L->format > TSGS_FORMAT_NPY)
        return (tsgs_format)0;
    return L->format;
}

/* Whether the recorded format has columns (all but LIBSVM's). */
static int has_columns(const tsgs_data_layout *L)
{
    return recorded(L) && L->format != TSGS_FORMAT_LIBSVM;
}

static void put_format(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)m;
    if (recorded(lay))
        fprintf(f, "data-format %s\n", format_names[lay->format]);
}

static tsgs_status get_format(tsgs__mfile *r, tsgs__mheader *h,
                              const char *key, const char *val,
                              tsgs_error *err)
{
    (void)key;
    for (int f = TSGS_FORMAT_LIBSVM; f <= TSGS_FORMAT_NPY; f++)
        if (strcmp(val, format_names[f]) == 0) {
            h->layout.known = 1;
            h->layout.format = (tsgs_format)f;
            return TSGS_OK;
        }
    return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                      "data-format: \"%.40s\": expected libsvm, csv or npy",
                      val);
}

static void put_label_column(FILE *f, const tsgs_model *m,
                             const tsgs_data_layout *lay)
{
    (void)m;
    if (!has_columns(lay))
        return;
    if (lay->label_column < 0)
        fputs("data-label-column last\n", f);
    else if (lay->label_column == 0)
        fputs("data-label-column none\n", f);
    else
        fprintf(f, "data-label-column %d\n", lay->label_column);
}

static tsgs_status get_label_column(tsgs__mfile *r, tsgs__mheader *h,
                                    const char *key, const char *val,
                                    tsgs_error *err)
{
    tsgs_data_layout *L = &h->layout;
    long v = 0;
    tsgs_error ignored;
    h->layout_keys |= LK_LABEL;
    if (strcmp(val, "last") == 0)
        L->label_column = -1;
    else if (strcmp(val, "none") == 0)
        L->label_column = 0;
    else if (tsgs__mfile_count(r, key, val, COLUMN_MAX, &v, &ignored) ==
                 TSGS_OK &&
             v >= 1)
        L->label_column = (int)v;
    else
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-label-column: \"%.40s\": expected last, "
                          "none or a column number in [1, %d]",
                          val, COLUMN_MAX);
    return TSGS_OK;
}

static void put_skip(FILE *f, const tsgs_model *m,
                     const tsgs_data_layout *lay)
{
    (void)m;
    if (has_columns(lay))
        fprintf(f, "data-skip-columns %d\n", lay->skip_columns);
}

static tsgs_status get_skip(tsgs__mfile *r, tsgs__mheader *h,
                            const char *key, const char *val,
                            tsgs_error *err)
{
    long v = 0;
    h->layout_keys |= LK_SKIP;
    tsgs_status st = tsgs__mfile_count(r, key, val, COLUMN_MAX, &v, err);
    h->layout.skip_columns = (int)v;
    return st;
}

static void put_header(FILE *f, const tsgs_model *m,
                       const tsgs_data_layout *lay)
{
    (void)m;
    if (recorded(lay) == TSGS_FORMAT_CSV)
        fprintf(f, "data-header %s\n", lay->header ? "yes" : "no");
}

static tsgs_status get_header(tsgs__mfile *r, tsgs__mheader *h,
                              const char *key, const char *val,
                              tsgs_error *err)
{
    (void)key;
    h->layout_keys |= LK_HEADER;
    if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-header: \"%.40s\": expected yes or no", val);
    h->layout.header = val[0] == 'y';
    return TSGS_OK;
}

static void put_columns(FILE *f, const tsgs_model *m,
                        const tsgs_data_layout *lay)
{
    (void)m;
    if (has_columns(lay))
        fprintf(f, "data-columns %zu\n", lay->columns);
}

static tsgs_status get_columns(tsgs__mfile *r, tsgs__mheader *h,
                               const char *key, const char *val,
                               tsgs_error *err)
{
    long v = 0;
    h->layout_keys |= LK_COLUMNS;
    tsgs_status st = tsgs__mfile_count(r, key, val, INT_MAX, &v, err);
    h->layout.columns = (size_t)v;
    return st;
}

static void put_unlabeled(FILE *f, const tsgs_model *m,
                          const tsgs_data_layout *lay)
{
    (void)m;
    if (recorded(lay) && lay->has_unlabeled_label &&
        isfinite(lay->unlabeled_label))
        put_values(f, "data-unlabeled-label", &lay->unlabeled_label, 1);
}

static tsgs_status get_unlabeled(tsgs__mfile *r, tsgs__mheader *h,
                                 const char *key, const char *val,
                                 tsgs_error *err)
{
    h->layout_keys |= LK_UNLABELED;
    h->layout.has_unlabeled_label = 1;
    return tsgs__mfile_doubles(r, key, val, &h->layout.unlabeled_label, 1,
                               INFINITY, err);
}

/* --- the table */

static const field_t fields[] = {
    {NULL, 0, put_params, get_param},
    {"features-in", 0, put_features_in, get_features_in},
    {"written-by", 0, put_written_by, get_written_by},
    {"data-format", 0, put_format, get_format},
    {"data-label-column", 0, put_label_column, get_label_column},
    {"data-skip-columns", 0, put_skip, get_skip},
    {"data-header", 0, put_header, get_header},
    {"data-columns", 0, put_columns, get_columns},
    {"data-unlabeled-label", 0, put_unlabeled, get_unlabeled},
    {"blocks", 0, put_blocks, get_blocks},
    {"lazy-scale", 0, put_scale, get_scale},
    {"bias", 0, put_bias, get_bias},
    {"labels", 0, put_labels, get_labels},
    {"probability-ab", 0, put_prob, get_prob},
    {"scaler", 0, put_scaling, get_scaling},
    {"scaler-maxabs", 0, put_maxabs, get_maxabs},
    {"scaler-shift", 0, put_shift, get_scaler_row},
    {"scaler-mul", 0, put_mul, get_scaler_row},
    /* written by the kinds (model.c, bs3vm_model.c) */
    {"coefficients", 1, NULL, get_section},
    {"support-vectors", 1, NULL, get_section},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

void tsgs__mheader_write(FILE *f, const tsgs_model *m,
                         const tsgs_data_layout *lay)
{
    fprintf(f, "%s %d\n", TSGS__MODEL_MAGIC, FORMAT_VERSION);
    for (size_t i = 0; i < NFIELDS; i++)
        if (fields[i].put)
            fields[i].put(f, m, lay);
}

/* The entry of key: its own, else the parameters'. */
static const field_t *field_of(const char *key)
{
    for (size_t i = 1; i < NFIELDS; i++)
        if (strcmp(key, fields[i].key) == 0)
            return &fields[i];
    return &fields[0];
}

/* One "key value" line of the header into h; *done after the line that
 * ends the header. */
static tsgs_status parse_header_line(tsgs__mfile *r, tsgs__mheader *h,
                                     char *line, int *done, tsgs_error *err)
{
    char *sp = strchr(line, ' ');
    if (!sp)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "header: \"%.40s\" is not a \"key value\" line",
                          line);
    *sp = '\0';
    const char *key = line, *val = sp + 1;
    int nomem = 0;
    /* gamma is sigma's other name, c cost's: one of them, once */
    if (seen_before(&h->seen, &h->nseen, tsgs__param_alias(key), &nomem))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%.40s given twice", key);
    if (nomem)
        return tsgs__mfile_nomem(r, key, err);
    const field_t *fd = field_of(key);
    if (fd->ends) {
        *done = 1;
        h->section = fd->key;
    }
    return fd->get(r, h, key, val, err);
}

/* A version-1 header's parameters in version 2's units: its "c" (read
 * as cost) was the total weight C x n_l, which the file cannot turn into
 * a per-row C (n_l is not in it): it becomes c-total, cost 0. Only the
 * recorded settings change; the predictions are the coefficients'. */
static void upgrade_v1(tsgs_params *p)
{
    p->c_total = p->c;
    p->c = 0.0;
}

/* The first line, "tsgs3vm-model 2" (or 1), and the header after it up
 * to and including its section line. */
static tsgs_status read_lines(tsgs__mfile *r, tsgs__mheader *h,
                              tsgs_error *err)
{
    char *line;
    tsgs_status st = tsgs__mfile_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    const long first = r->line > 0 ? r->line : 1;
    h->version = magic_version(line);
    if (h->version < 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, first,
                          "not a tsgs3vm model file (the first line should "
                          "be \"%s %d\")",
                          TSGS__MODEL_MAGIC, FORMAT_VERSION);
    if (h->version < 1 || h->version > FORMAT_VERSION)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, first,
                          "model format version %ld; this build reads "
                          "versions 1 to %d",
                          h->version, FORMAT_VERSION);
    for (int done = 0; !done;) {
        if ((st = tsgs__mfile_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "truncated: the header ends before the "
                              "\"coefficients\" line");
        if ((st = parse_header_line(r, h, line, &done, err)) != TSGS_OK)
            return st;
    }
    if (h->version == 1) /* its "c" was C x n_l, and n_l is not in it */
        upgrade_v1(&h->p);
    return TSGS_OK;
}

/* What the header must have and how its parts must agree, reported on
 * the line that ends it. */
static tsgs_status check_header(const tsgs__mfile *r, const tsgs__mheader *h,
                                tsgs_error *err)
{
    const tsgs_params *p = &h->p;
    const int sv = strcmp(h->section, "support-vectors") == 0;
    if (sv != (p->solver == TSGS_SOLVER_BS3VM))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: the bs3vm solver's models (only) list "
                          "support vectors",
                          h->section);
    if (p->probability != !isnan(h->prob_ab[0]))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "probability %d but %s \"probability-ab\" line",
                          p->probability, isnan(h->prob_ab[0]) ? "no" : "a");
    if (!isnan(h->labels[0]) && h->labels[0] == h->labels[1])
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "labels: both classes are labelled %g; the two "
                          "labels must differ",
                          h->labels[0]);
    const tsgs_scaling s = h->scaling;
    if (h->d < 1 || h->blocks < 0 || isnan(h->scale) || isnan(h->bias) ||
        isnan(h->labels[0]) || !h->have_scaling ||
        (s == TSGS_SCALE_MAXABS && !h->scol) ||
        (s != TSGS_SCALE_NONE && s != TSGS_SCALE_MAXABS &&
         (!h->shift || !h->mul)))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "header: missing one of features-in, blocks, "
                          "lazy-scale, bias, labels, scaler (and its "
                          "scaler-shift / scaler-mul)");
    tsgs_error perr;
    if (tsgs_params_check(p, &perr) != TSGS_OK || p->sigma <= 0.0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "header: inconsistent parameters: %s",
                          p->sigma <= 0.0 ? "no sigma line (sigma must be "
                                            "positive)"
                                          : perr.message);
    return TSGS_OK;
}

/* The data-* lines against each other and features-in: what a layout
 * of the data's format has, its columns holding its features. */
static tsgs_status check_layout(const tsgs__mfile *r, const tsgs__mheader *h,
                                tsgs_error *err)
{
    const tsgs_data_layout *L = &h->layout;
    const unsigned need = LK_LABEL | LK_SKIP | LK_COLUMNS;
    if (!L->known)
        return h->layout_keys
                   ? tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                                "header: data-* lines without a data-format "
                                "line")
                   : TSGS_OK;
    const char *fmt = format_names[L->format];
    if (L->format == TSGS_FORMAT_LIBSVM)
        return h->layout_keys & (need | LK_HEADER)
                   ? tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                                "data-format libsvm: a LIBSVM file has no "
                                "columns (no data-label-column, "
                                "data-skip-columns, data-header or "
                                "data-columns line)")
                   : TSGS_OK;
    if ((h->layout_keys & need) != need)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-format %s: needs the data-label-column, "
                          "data-skip-columns and data-columns lines",
                          fmt);
    if (L->format == TSGS_FORMAT_NPY && (h->layout_keys & LK_HEADER))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-format npy: a .npy has no header line (no "
                          "data-header line)");
    const size_t label = L->label_column < 0 ? L->columns
                                             : (size_t)L->label_column;
    const size_t skip = (size_t)L->skip_columns;
    if (label > L->columns)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-label-column %zu: beyond the %zu "
                          "data-columns",
                          label, L->columns);
    if (label > 0 && label <= skip)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-label-column %zu is among the %zu "
                          "data-skip-columns",
                          label, skip);
    const size_t taken = skip + (label > 0);
    if (L->columns <= taken)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-columns %zu: no feature left after %zu "
                          "skipped columns and %s label column",
                          L->columns, skip, label > 0 ? "the" : "no");
    if (L->columns - taken > (size_t)h->d)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-columns %zu: %zu features a row, more than "
                          "features-in (line %ld), %ld",
                          L->columns, L->columns - taken, h->d_line, h->d);
    return TSGS_OK;
}

tsgs_status tsgs__mheader_read(tsgs__mfile *r, tsgs__mheader *h,
                               tsgs_error *err)
{
    tsgs_status st = read_lines(r, h, err);
    if (st == TSGS_OK)
        st = check_header(r, h, err);
    if (st == TSGS_OK)
        st = check_layout(r, h, err);
    return st;
}

double tsgs__mheader_scaler_bytes(const tsgs__mheader *h)
{
    /* the scaler lines' arrays, already read, count too */
    const double row = (double)h->d * sizeof(double);
    return (h->shift ? row : 0.0) + (h->mul ? row : 0.0) +
           (double)h->nsc * (sizeof(double) + sizeof(uint32_t));
}
