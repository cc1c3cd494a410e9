/* Model files: versioned text. A header of "key value" lines (format name
 * and version, every parameter, dimensions, scale, bias, labels, scaler),
 * then one line of coefficients per direction at full precision, then
 * "end". Seeds are stored, never random features. */
#include "train.h" /* the model file's parameter keys (params.c) */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "tsgs3vm-model"
/* 2: "cost" is C per labeled row (LIBSVM's), with "c-total" and
 * "class-weight"; 1: "c" was the total C x n_l (read as c-total). */
#define FORMAT_VERSION 2

static void put_double(FILE *f, double v) { fprintf(f, "%.17g", v); }

static const char *scaling_name(tsgs_scaling s)
{
    return s == TSGS_SCALE_ZSCORE   ? "zscore"
           : s == TSGS_SCALE_MINMAX ? "minmax"
           : s == TSGS_SCALE_CLASS  ? "class"
           : s == TSGS_SCALE_MAXABS ? "maxabs"
                                    : "none";
}

/* ------------------------------------------------- the data's layout */

/* The training data's layout and the version of the writer: optional
 * lines (files written before them load without a layout). */
static const char *const format_names[] = {"auto", "libsvm", "csv", "npy"};

static void write_layout(FILE *f, const tsgs_data_layout *L)
{
    fprintf(f, "written-by tsgs3vm %s\n", TSGS_VERSION_STRING);
    if (!L->known || L->format < TSGS_FORMAT_LIBSVM ||
        L->format > TSGS_FORMAT_NPY)
        return;
    fprintf(f, "data-format %s\n", format_names[L->format]);
    if (L->format != TSGS_FORMAT_LIBSVM) {
        if (L->label_column < 0)
            fputs("data-label-column last\n", f);
        else if (L->label_column == 0)
            fputs("data-label-column none\n", f);
        else
            fprintf(f, "data-label-column %d\n", L->label_column);
        fprintf(f, "data-skip-columns %d\n", L->skip_columns);
        if (L->format == TSGS_FORMAT_CSV)
            fprintf(f, "data-header %s\n", L->header ? "yes" : "no");
        fprintf(f, "data-columns %zu\n", L->columns);
    }
    if (L->has_unlabeled_label && isfinite(L->unlabeled_label)) {
        fputs("data-unlabeled-label ", f);
        put_double(f, L->unlabeled_label);
        fputc('\n', f);
    }
}

/* A binary model; lay: the layout to record (a one-vs-rest file's
 * classes record the top model's). */
static void write_model(FILE *f, const tsgs_model *m,
                        const tsgs_data_layout *lay)
{
    fprintf(f, "%s %d\n", MAGIC, FORMAT_VERSION);
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
    fprintf(f, "features-in %zu\n", m->d);
    write_layout(f, lay);
    fprintf(f, "blocks %ld\n", m->nblocks);
    fputs("lazy-scale ", f);
    put_double(f, m->scale);
    fputs("\nbias ", f);
    put_double(f, m->bias);
    fputs("\nlabels ", f);
    put_double(f, m->label_neg);
    fputc(' ', f);
    put_double(f, m->label_pos);
    if (m->has_prob) { /* Platt's sigmoid (probability.c) */
        fputs("\nprobability-ab ", f);
        put_double(f, m->prob_a);
        fputc(' ', f);
        put_double(f, m->prob_b);
    }
    fprintf(f, "\nscaler %s\n", scaling_name(m->scaler.kind));
    if (m->scaler.kind == TSGS_SCALE_MAXABS) {
        /* the columns whose multiplier is not 1: "count col:mul ..." */
        fprintf(f, "scaler-maxabs %zu", m->scaler.nsc);
        for (size_t j = 0; j < m->scaler.nsc; j++) {
            fprintf(f, " %u:", m->scaler.scol[j] + 1u);
            put_double(f, m->scaler.smul[j]);
        }
        fputc('\n', f);
    } else if (m->scaler.kind != TSGS_SCALE_NONE) {
        fputs("scaler-shift", f);
        for (size_t k = 0; k < m->scaler.d; k++) {
            fputc(' ', f);
            put_double(f, m->scaler.shift[k]);
        }
        fputs("\nscaler-mul", f);
        for (size_t k = 0; k < m->scaler.d; k++) {
            fputc(' ', f);
            put_double(f, m->scaler.mul[k]);
        }
        fputc('\n', f);
    }
    if (m->bs3vm) { /* bs3vm: support vectors instead */
        tsgs__bs3vm_write(f, m->bs3vm);
        return;
    }
    long ndirs = m->nblocks * m->fs.dirs;
    fprintf(f, "coefficients %ld\n", ndirs);
    for (long g = 0; g < ndirs; g++) {
        put_double(f, m->ac[g]);
        if (m->fs.map == TSGS_FEATURES_PAIR) {
            fputc(' ', f);
            put_double(f, m->as[g]);
        }
        fputc('\n', f);
    }
    fputs("end\n", f);
}

/* The folder a path names its file in: "." for a bare name, "/" for a
 * file at the root. malloc'd; NULL when out of memory. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* Renaming over a pipe, a device or a directory would replace it. */
static tsgs_status refuse_non_regular(const char *path, tsgs_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "exists and is not a regular file: a model is "
                          "written to a file");
    return TSGS_OK;
}

tsgs_status tsgs_model_check_path(const char *path, tsgs_error *err)
{
    if (!path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_check_path: NULL argument");
    tsgs_status st = refuse_non_regular(path, err);
    if (st != TSGS_OK)
        return st;
    /* The model is written beside itself and renamed: its folder must
     * exist and take new files. */
    char *dir = folder_of(path);
    if (!dir)
        return TSGS__NOMEM(err);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                        "the folder %s does not exist (checked before "
                        "training, so no run is lost)",
                        dir);
    else if (access(dir, W_OK | X_OK) != 0)
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                        "cannot create files in %s: %s (checked before "
                        "training, so no run is lost)",
                        dir, strerror(errno));
    free(dir);
    return st;
}

/* One-vs-rest: a header naming the classes, then each class's binary
 * model as write_model writes it, in the classes' order. */
#define OVR_MAGIC "tsgs3vm-ovr"
#define OVR_VERSION 1

static void write_ovr(FILE *f, const tsgs_model *m)
{
    fprintf(f, "%s %d\nclasses %d\nlabels", OVR_MAGIC, OVR_VERSION,
            m->nclass);
    for (int k = 0; k < m->nclass; k++) {
        fputc(' ', f);
        put_double(f, m->classes[k]);
    }
    fputc('\n', f);
    for (int k = 0; k < m->nclass; k++)
        write_model(f, m->ovr[k], &m->layout);
}

tsgs_status tsgs_model_save(const tsgs_model *m, const char *path,
                            tsgs_error *err)
{
    if (!m || !path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_save: NULL argument");
    tsgs_status st0 = refuse_non_regular(path, err);
    if (st0 != TSGS_OK)
        return st0;
    /* Written through a temporary beside the target, renamed over it
     * once complete (tempfile.c): an interrupted save never leaves a
     * half-written model, and the next save removes what it left. */
    FILE *f = NULL;
    char *tmp = NULL;
    tsgs_status st = tsgs_temp_open(path, &f, &tmp, err);
    if (st != TSGS_OK)
        return st;
    if (m->nclass > 2)
        write_ovr(f, m);
    else
        write_model(f, m, &m->layout);
    int bad = ferror(f) != 0;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        free(tmp);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "writing the model failed: %s", strerror(e));
    }
    free(tmp);
    return TSGS_OK;
}

/* ------------------------------------------------------------- loading */

/* A model file's counts are checked before anything is sized by them:
 * against the bytes left in the file (a stored value takes 2 bytes at
 * least, "0 " or "0\n"), against each other, and against the memory the
 * process may hold (random features are regenerated from the seed, so a
 * small file may declare a model that needs much memory to use). */
typedef struct {
    FILE *f;
    const char *path;
    long line;
    char *buf;
    size_t cap;
    char *text;           /* a file that cannot be measured, read whole */
    double size;          /* the file's bytes */
    double mem_cap;       /* what the process may hold, */
    const char *cap_what; /* where that limit comes from, */
    double mem_left;      /* and what the models read so far left of it */
} reader_t;

/* Next line without its newline into *line (NULL at end of file). A NUL
 * byte inside a line is refused: the text after it would go unread. */
static tsgs_status next_line(reader_t *r, char **line, tsgs_error *err)
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
static tsgs_status nomem_at(const reader_t *r, const char *field,
                            tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_NOMEM, r->path, r->line,
                      "%s: out of memory", field);
}

/* Bytes after the line just read. */
static double bytes_left(const reader_t *r)
{
    long at = ftell(r->f);
    return r->size - (at > 0 ? (double)at : 0.0);
}

/* Whether the rest of the file can hold the `count` items field announces
 * on the current line, each `each` bytes at least (`why` says so). */
static tsgs_status check_file_holds(const reader_t *r, const char *field,
                                    double count, double each,
                                    const char *why, tsgs_error *err)
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
static tsgs_status take_memory(reader_t *r, const char *field, long line,
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

/* The version of a first line "tsgs3vm-model N" (N digits as the
 * writer writes them: no sign, no leading zero, nothing else), or -1. */
static long magic_version(const char *line)
{
    const size_t m = strlen(MAGIC);
    if (!line || strncmp(line, MAGIC, m) != 0 || line[m] != ' ')
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
static tsgs_status parse_maxabs(reader_t *r, const char *val, long d,
                                size_t *n, uint32_t **cols, double **muls,
                                tsgs_error *err)
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
        return nomem_at(r, "scaler-maxabs", err);
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

/* n numbers of s into v, each finite and of magnitude at most max. */
static tsgs_status parse_doubles(reader_t *r, const char *field,
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

static tsgs_status parse_count(reader_t *r, const char *field, const char *s,
                               long max, long *out, tsgs_error *err)
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

/* What a binary model's header declares, as it is read. */
typedef struct {
    tsgs_params p;
    long d, blocks, ncoef, nsv;
    long d_line, blocks_line; /* where features-in and blocks were */
    double scale, bias, labels[2], prob_ab[2];
    tsgs_scaling scaling;
    int have_scaling;
    double *shift, *mul, *smul;
    uint32_t *scol;
    size_t nsc;
    char **seen; /* the keys read: each is given once */
    size_t nseen;
    tsgs_data_layout layout; /* the data-* lines (known: data-format) */
    unsigned layout_keys;    /* which of the other data-* lines (LK_) */
} header_t;

static void header_init(header_t *h)
{
    memset(h, 0, sizeof *h);
    h->p = tsgs_params_default();
    /* Files written before the "directions" key existed used iid ones. */
    h->p.directions = TSGS_DIRECTIONS_IID;
    h->d = h->blocks = h->ncoef = h->nsv = -1;
    h->scale = h->bias = NAN;
    h->labels[0] = h->labels[1] = h->prob_ab[0] = h->prob_ab[1] = NAN;
    h->scaling = TSGS_SCALE_NONE;
}

static void header_free(header_t *h)
{
    for (size_t i = 0; i < h->nseen; i++)
        free(h->seen[i]);
    free(h->seen);
    free(h->shift);
    free(h->mul);
    free(h->scol);
    free(h->smul);
}

/* "scaler-shift" / "scaler-mul": exactly features-in values. */
static tsgs_status parse_scaler_row(reader_t *r, header_t *h, const char *key,
                                    const char *val, tsgs_error *err)
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
        return nomem_at(r, key, err);
    return parse_doubles(r, key, val, *dst, n, TSGS__MODEL_VALUE_MAX, err);
}

static tsgs_status parse_scaling(reader_t *r, header_t *h, const char *val,
                                 tsgs_error *err)
{
    static const struct {
        const char *name;
        tsgs_scaling kind;
    } kinds[] = {{"zscore", TSGS_SCALE_ZSCORE}, {"minmax", TSGS_SCALE_MINMAX},
                 {"class", TSGS_SCALE_CLASS},   {"none", TSGS_SCALE_NONE},
                 {"maxabs", TSGS_SCALE_MAXABS}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(val, kinds[i].name) == 0) {
            h->scaling = kinds[i].kind;
            h->have_scaling = 1;
            return TSGS_OK;
        }
    return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                      "scaler: unknown kind \"%s\"", val);
}

/* A parameter line. sigma is checked here, so that its error names its
 * line: to training 0 means "choose it", but a model has chosen. */
static tsgs_status parse_param(reader_t *r, tsgs_params *p, const char *key,
                               const char *val, tsgs_error *err)
{
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

/* "lazy-scale": one positive number (the decision value's factor). */
static tsgs_status parse_scale(reader_t *r, header_t *h, const char *val,
                               tsgs_error *err)
{
    tsgs_status st = parse_doubles(r, "lazy-scale", val, &h->scale, 1,
                                   TSGS__MODEL_VALUE_MAX, err);
    if (st == TSGS_OK && !(h->scale > 0.0))
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "lazy-scale: %g: lazy-scale must be positive",
                        h->scale);
    return st;
}

/* The line that ends the header: "coefficients N" (lines of 1 value, or
 * 2 for PAIR features) or "support-vectors N" (lines of features-in + 1
 * values), N no more than the rest of the file holds. */
static tsgs_status parse_announced(reader_t *r, header_t *h, const char *key,
                                   const char *val, tsgs_error *err)
{
    const int sv = strcmp(key, "support-vectors") == 0;
    tsgs_status st = parse_count(r, key, val, 1L << 40,
                                 sv ? &h->nsv : &h->ncoef, err);
    if (st != TSGS_OK)
        return st;
    if (!sv) {
        const int pair = h->p.feature_map == TSGS_FEATURES_PAIR;
        return check_file_holds(r, key, (double)h->ncoef, pair ? 4.0 : 2.0,
                                pair ? "a line of 2 values takes 4 bytes "
                                       "at least"
                                     : "a line of 1 value takes 2 bytes at "
                                       "least",
                                err);
    }
    if (h->d < 0) /* refused as missing once the header is read */
        return TSGS_OK;
    char why[96];
    snprintf(why, sizeof why, "a line of %ld values takes %.0f bytes at least",
             h->d + 1, 2.0 * ((double)h->d + 1.0));
    return check_file_holds(r, key, (double)h->nsv,
                            2.0 * ((double)h->d + 1.0), why, err);
}

/* The data-* lines besides data-format, as bits of header_t.layout_keys. */
enum { LK_LABEL = 1, LK_SKIP = 2, LK_HEADER = 4, LK_COLUMNS = 8,
       LK_UNLABELED = 16 };
#define COLUMN_MAX 999999 /* the tool's --label-column / --skip-columns */
#define VERSION_CHARS "0123456789abcdefghijklmnopqrstuvwxyz" \
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+-~_"

/* "written-by tsgs3vm VERSION": checked, not kept. */
static tsgs_status parse_written_by(reader_t *r, const char *val,
                                    tsgs_error *err)
{
    const char *v = val + 8;
    if (strncmp(val, "tsgs3vm ", 8) != 0 || !*v || strlen(v) > 32 ||
        v[strspn(v, VERSION_CHARS)] != '\0')
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "written-by: \"%.40s\": expected \"tsgs3vm "
                          "VERSION\" (as \"tsgs3vm %s\")",
                          val, TSGS_VERSION_STRING);
    return TSGS_OK;
}

/* A data-* line (write_layout's) into h->layout; 1 in *mine when key is
 * one (else the line is not for this function). */
static tsgs_status parse_layout(reader_t *r, header_t *h, const char *key,
                                const char *val, int *mine, tsgs_error *err)
{
    tsgs_data_layout *L = &h->layout;
    long v = 0;
    tsgs_error ignored;
    *mine = 1;
    if (strcmp(key, "data-format") == 0) {
        for (int f = TSGS_FORMAT_LIBSVM; f <= TSGS_FORMAT_NPY; f++)
            if (strcmp(val, format_names[f]) == 0) {
                L->known = 1;
                L->format = (tsgs_format)f;
                return TSGS_OK;
            }
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "data-format: \"%.40s\": expected libsvm, csv or "
                          "npy",
                          val);
    }
    if (strcmp(key, "data-label-column") == 0) {
        h->layout_keys |= LK_LABEL;
        if (strcmp(val, "last") == 0)
            L->label_column = -1;
        else if (strcmp(val, "none") == 0)
            L->label_column = 0;
        else if (parse_count(r, key, val, COLUMN_MAX, &v, &ignored) ==
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
    if (strcmp(key, "data-skip-columns") == 0) {
        h->layout_keys |= LK_SKIP;
        tsgs_status st = parse_count(r, key, val, COLUMN_MAX, &v, err);
        L->skip_columns = (int)v;
        return st;
    }
    if (strcmp(key, "data-header") == 0) {
        h->layout_keys |= LK_HEADER;
        if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "data-header: \"%.40s\": expected yes or no",
                              val);
        L->header = val[0] == 'y';
        return TSGS_OK;
    }
    if (strcmp(key, "data-columns") == 0) {
        h->layout_keys |= LK_COLUMNS;
        tsgs_status st = parse_count(r, key, val, INT_MAX, &v, err);
        L->columns = (size_t)v;
        return st;
    }
    if (strcmp(key, "data-unlabeled-label") == 0) {
        h->layout_keys |= LK_UNLABELED;
        L->has_unlabeled_label = 1;
        return parse_doubles(r, key, val, &L->unlabeled_label, 1, INFINITY,
                             err);
    }
    *mine = 0;
    return TSGS_OK;
}

/* One "key value" line of the header into h; *done after the line that
 * ends the header. */
static tsgs_status parse_header_line(reader_t *r, header_t *h, char *line,
                                     int *done, tsgs_error *err)
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
        return nomem_at(r, key, err);
    const double vmax = TSGS__MODEL_VALUE_MAX;
    if (strcmp(key, "coefficients") == 0 ||
        strcmp(key, "support-vectors") == 0) {
        *done = 1;
        return parse_announced(r, h, key, val, err);
    }
    if (strcmp(key, "features-in") == 0) {
        h->d_line = r->line;
        return parse_count(r, key, val, 1L << 30, &h->d, err);
    }
    if (strcmp(key, "blocks") == 0) {
        h->blocks_line = r->line;
        return parse_count(r, key, val, 1L << 40, &h->blocks, err);
    }
    if (strcmp(key, "lazy-scale") == 0)
        return parse_scale(r, h, val, err);
    if (strcmp(key, "bias") == 0)
        return parse_doubles(r, key, val, &h->bias, 1, vmax, err);
    if (strcmp(key, "labels") == 0) /* the user's labels: any finite */
        return parse_doubles(r, key, val, h->labels, 2, INFINITY, err);
    if (strcmp(key, "probability-ab") == 0)
        return parse_doubles(r, key, val, h->prob_ab, 2, vmax, err);
    if (strcmp(key, "scaler") == 0)
        return parse_scaling(r, h, val, err);
    if (strcmp(key, "scaler-maxabs") == 0)
        return parse_maxabs(r, val, h->d, &h->nsc, &h->scol, &h->smul, err);
    if (strcmp(key, "scaler-shift") == 0 || strcmp(key, "scaler-mul") == 0)
        return parse_scaler_row(r, h, key, val, err);
    if (strcmp(key, "written-by") == 0)
        return parse_written_by(r, val, err);
    int layout = 0;
    tsgs_status st = parse_layout(r, h, key, val, &layout, err);
    if (layout)
        return st;
    return parse_param(r, &h->p, key, val, err);
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

/* The first line, "tsgs3vm-model 2" (or 1), and the header after it up to and
 * including its "coefficients" or "support-vectors" line. */
static tsgs_status read_header(reader_t *r, header_t *h, tsgs_error *err)
{
    char *line;
    tsgs_status st = next_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    const long first = r->line > 0 ? r->line : 1;
    long version = magic_version(line);
    if (version < 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, first,
                          "not a tsgs3vm model file (the first line should "
                          "be \"%s %d\")",
                          MAGIC, FORMAT_VERSION);
    if (version < 1 || version > FORMAT_VERSION)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, first,
                          "model format version %ld; this build reads "
                          "versions 1 to %d",
                          version, FORMAT_VERSION);
    for (int done = 0; !done;) {
        if ((st = next_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "truncated: the header ends before the "
                              "\"coefficients\" line");
        if ((st = parse_header_line(r, h, line, &done, err)) != TSGS_OK)
            return st;
    }
    if (version == 1) /* its "c" was C x n_l, and n_l is not in the file */
        upgrade_v1(&h->p);
    return TSGS_OK;
}

/* What the header must have and how its parts must agree, reported on
 * the line that ends it. */
static tsgs_status check_header(const reader_t *r, const header_t *h,
                                tsgs_error *err)
{
    const tsgs_params *p = &h->p;
    if ((h->nsv >= 0) != (p->solver == TSGS_SOLVER_BS3VM))
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "%s: the bs3vm solver's models (only) list "
                          "support vectors",
                          h->nsv >= 0 ? "support-vectors" : "coefficients");
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
static tsgs_status check_layout(const reader_t *r, const header_t *h,
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

/* The counts against each other and the memory they commit the process
 * to, before anything is sized by them. */
static tsgs_status check_counts(reader_t *r, const header_t *h,
                                tsgs_error *err)
{
    /* the scaler lines' arrays, already read, count too */
    const double row = (double)h->d * sizeof(double);
    const double scaler = (h->shift ? row : 0.0) + (h->mul ? row : 0.0) +
                          (double)h->nsc * (sizeof(double) + sizeof(uint32_t));
    char what[160];
    if (h->nsv >= 0) {
        /* support vectors in place of random features */
        if (h->blocks != 0)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, h->blocks_line,
                              "blocks: %ld, but a bs3vm model has support "
                              "vectors, no random-feature blocks (0)",
                              h->blocks);
        snprintf(what, sizeof what, "%ld support vectors of %ld features",
                 h->nsv, h->d);
        return take_memory(r, "support-vectors", r->line,
                           scaler + tsgs__bs3vm_bytes(h->nsv, (size_t)h->d),
                           what, err);
    }
    const tsgs__fspec fs = tsgs__fspec_of(&h->p, (size_t)h->d);
    if (h->ncoef != h->blocks * fs.dirs)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "coefficients: %ld lines announced, but %ld "
                          "blocks of %ld directions need %ld",
                          h->ncoef, h->blocks, fs.dirs, h->blocks * fs.dirs);
    snprintf(what, sizeof what,
             "%ld features-in x %ld random features (%ld blocks, %s "
             "directions, cache-mb %g)",
             h->d, h->blocks * fs.block_size, h->blocks,
             fs.orthogonal ? "orthogonal" : "iid", h->p.cache_mb);
    return take_memory(r, "features-in", h->d_line,
                       scaler + tsgs__model_bytes(&h->p, (size_t)h->d,
                                                  h->blocks),
                       what, err);
}

/* The model the header describes, taking its scaler; no coefficients
 * read yet. */
static tsgs_status model_of_header(header_t *h, tsgs_model **out,
                                   tsgs_error *err)
{
    const long blocks = h->nsv >= 0 ? 0 : h->blocks;
    tsgs_model *m;
    tsgs_status st = tsgs__model_new(&h->p, (size_t)h->d, blocks, &m, err);
    if (st != TSGS_OK)
        return st;
    m->nblocks = blocks;
    m->scale = h->scale;
    m->bias = h->bias;
    m->has_prob = !isnan(h->prob_ab[0]);
    m->prob_a = h->prob_ab[0];
    m->prob_b = h->prob_ab[1];
    tsgs__scaler sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = h->scaling;
    sc.d = (size_t)h->d;
    sc.shift = h->shift;
    sc.mul = h->mul;
    h->shift = h->mul = NULL;
    /* a scaler-maxabs line beside another scaler kind: parsed, unused */
    if (h->scaling == TSGS_SCALE_MAXABS) {
        sc.nsc = h->nsc;
        sc.scol = h->scol;
        sc.smul = h->smul;
        h->scol = NULL;
        h->smul = NULL;
    }
    tsgs__model_adopt(m, h->labels[0], h->labels[1], &sc);
    *out = m;
    return TSGS_OK;
}

/* The ncoef coefficient lines into m (its lazy scale already read). */
static tsgs_status read_coefficients(reader_t *r, tsgs_model *m, long ncoef,
                                     tsgs_error *err)
{
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;
    /* A file stores the coefficients divided by the lazy scale, which a
     * run stopped before it folds the scale in leaves tiny (an interrupted
     * tsg run saved 4e114 beside its scale), so the bound is on their
     * product with it: what the decision value sums. */
    const double cmax = TSGS__MODEL_VALUE_MAX / m->scale;
    char *line;
    tsgs_status st;
    for (long g = 0; g < ncoef; g++) {
        if ((st = next_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "truncated: %ld of %ld coefficient lines", g,
                              ncoef);
        double v[2];
        if ((st = parse_doubles(r, "coefficient", line, v, pair ? 2 : 1,
                                cmax, err)) != TSGS_OK)
            return st;
        m->ac[g] = v[0];
        if (pair)
            m->as[g] = v[1];
    }
    return TSGS_OK;
}

/* The "end" line after ncoef coefficients; last: nothing but blank lines
 * may follow it (what save wrote, for the last model of the file). */
static tsgs_status read_end(reader_t *r, long ncoef, int last,
                            tsgs_error *err)
{
    char *line;
    tsgs_status st = next_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    if (!line || strcmp(line, "end") != 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "truncated: no \"end\" line after the %ld "
                          "coefficients",
                          ncoef);
    line = NULL;
    while (last) {
        if ((st = next_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line || line[strspn(line, " \t")] != '\0')
            break;
    }
    if (line)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "text after the \"end\" line");
    return TSGS_OK;
}

/* The coefficients or support vectors after the header, into m. */
static tsgs_status read_body(reader_t *r, const header_t *h, int last,
                             tsgs_model *m, tsgs_error *err)
{
    tsgs_status st;
    if (h->nsv >= 0)
        st = tsgs__bs3vm_read(r->f, r->path, &r->line, h->nsv, (size_t)h->d,
                              h->p.kernel, h->p.sigma, &m->bs3vm, err);
    else if ((st = read_coefficients(r, m, h->ncoef, err)) == TSGS_OK)
        st = read_end(r, h->ncoef, last, err);
    /* the direction panel only where dense rows are predicted
     * (tsgs__predict_within): sparse rows read the column cache, and a
     * panel of 200,000 columns x 1,024 directions took 6 s to make */
    return st;
}

/* One binary model from r (its first line the magic); last: nothing but
 * blank lines may follow its "end". */
static tsgs_status load_binary(reader_t *r, int last, tsgs_model **out,
                               tsgs_error *err)
{
    header_t h;
    header_init(&h);
    tsgs_model *m = NULL;
    tsgs_status st = read_header(r, &h, err);
    if (st == TSGS_OK)
        st = check_header(r, &h, err);
    if (st == TSGS_OK)
        st = check_layout(r, &h, err);
    if (st == TSGS_OK)
        st = check_counts(r, &h, err);
    if (st == TSGS_OK)
        st = model_of_header(&h, &m, err);
    if (st == TSGS_OK)
        m->layout = h.layout;
    if (st == TSGS_OK)
        st = read_body(r, &h, last, m, err);
    header_free(&h);
    if (st != TSGS_OK) {
        tsgs_model_free(m);
        return st;
    }
    *out = m;
    return TSGS_OK;
}

/* "classes K" of a one-vs-rest file: K >= 3, and no more classes than
 * the rest of the file holds (a label and a model each). */
static tsgs_status read_class_count(reader_t *r, long *k, tsgs_error *err)
{
    char *line;
    tsgs_status st = next_line(r, &line, err);
    if (st != TSGS_OK)
        return st;
    if (!line || strncmp(line, "classes ", 8) != 0 ||
        parse_count(r, "classes", line + 8, 1L << 20, k, err) || *k < 3)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "classes: expected \"classes K\" with K >= 3");
    return check_file_holds(r, "classes", (double)*k,
                            2.0 + sizeof MAGIC " 1",
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

/* A one-vs-rest file: the header after its first line (`first`), then
 * one binary model per class. */
static tsgs_status load_ovr(reader_t *r, const char *first, tsgs_model **out,
                            tsgs_error *err)
{
    long version = -1;
    char *end;
    errno = 0;
    version = strtol(first + strlen(OVR_MAGIC) + 1, &end, 10);
    if (errno || *end != '\0' || version != OVR_VERSION)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 1,
                          "one-vs-rest model format \"%.40s\"; this build "
                          "reads \"%s %d\"",
                          first, OVR_MAGIC, OVR_VERSION);
    char *line;
    long k = -1;
    tsgs_status st = read_class_count(r, &k, err);
    if (st)
        return st;
    double *classes = malloc(sizeof(double) * (size_t)k);
    tsgs_model **subs = calloc((size_t)k, sizeof *subs);
    if (!classes || !subs) {
        free(classes);
        free(subs);
        return nomem_at(r, "classes", err);
    }
    if ((st = next_line(r, &line, err)))
        goto done;
    if (!line || strncmp(line, "labels ", 7) != 0 ||
        (st = parse_doubles(r, "labels", line + 7, classes, (size_t)k,
                            INFINITY, err))) {
        if (st == TSGS_OK)
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "labels: expected the %ld class labels", k);
        goto done;
    }
    for (long c = 1; c < k; c++)
        if (!(classes[c] > classes[c - 1])) {
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "labels: the class labels must be distinct and "
                            "ascending");
            goto done;
        }
    for (long c = 0; c < k && st == TSGS_OK; c++)
        st = load_binary(r, c == k - 1, &subs[c], err);
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
    if (st == TSGS_OK)
        st = tsgs__model_ovr(subs, classes, (size_t)k, out, err);
done:
    if (st != TSGS_OK)
        for (long c = 0; c < k; c++)
            tsgs_model_free(subs[c]);
    free(subs);
    free(classes);
    return st;
}

/* A file that cannot be measured (a pipe): read whole, up to what the
 * process may hold, then read from memory, so that its counts meet the
 * same bound as a regular file's. */
static tsgs_status read_whole(reader_t *r, tsgs_error *err)
{
    size_t n = 0, cap = 0, got;
    char *text = NULL;
    do {
        if (n == cap) {
            const double room = r->mem_cap - (double)n;
            size_t more = cap ? cap : 65536;
            if (room < 1.0) {
                free(text);
                return tsgs__fail(err, TSGS_ERR_NOMEM, r->path, 0,
                                  "more than the %.0f MiB this process may "
                                  "hold (%s)",
                                  r->mem_cap / 1048576.0, r->cap_what);
            }
            if ((double)more > room)
                more = (size_t)room;
            char *grown = realloc(text, cap + more);
            if (!grown) {
                free(text);
                return nomem_at(r, "reading the file", err);
            }
            text = grown;
            cap += more;
        }
        got = fread(text + n, 1, cap - n, r->f);
        n += got;
    } while (got > 0);
    int bad = ferror(r->f);
    fclose(r->f);
    r->f = NULL;
    if (bad || n == 0) {
        free(text);
        return bad ? tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                                "cannot read: %s", strerror(errno))
                   : tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 0,
                                "not a tsgs3vm model file (it is empty)");
    }
    r->text = text;
    r->size = (double)n;
    if (!(r->f = fmemopen(text, n, "r")))
        return nomem_at(r, "reading the file", err);
    return TSGS_OK;
}

/* Opens path into r: a regular file measured, any other read whole. */
static tsgs_status open_model(reader_t *r, tsgs_error *err)
{
    if (!(r->f = fopen(r->path, "r")))
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0, "cannot open: %s",
                          strerror(errno));
    struct stat sb;
    if (fstat(fileno(r->f), &sb) != 0)
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0, "cannot stat: %s",
                          strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                          "is a directory: give the model file's path");
    if (!S_ISREG(sb.st_mode))
        return read_whole(r, err);
    r->size = (double)sb.st_size;
    return TSGS_OK;
}

/* tsgs_model_load, with the memory the model may commit the process to
 * (cap bytes; `what` names where that limit comes from). */
static tsgs_status load_within(const char *path, double cap, const char *what,
                               tsgs_model **out, tsgs_error *err)
{
    reader_t r = {NULL, path, 0, NULL, 0, NULL, 0.0, cap, what, cap};
    tsgs_status st = open_model(&r, err);
    char *line;
    if (st == TSGS_OK)
        st = next_line(&r, &line, err);
    if (st == TSGS_OK && line && strncmp(line, OVR_MAGIC " ", 12) == 0) {
        st = load_ovr(&r, line, out, err);
    } else if (st == TSGS_OK) {
        rewind(r.f); /* the binary loader reads its own first line */
        r.line = 0;
        st = load_binary(&r, 1, out, err);
    }
    if (r.f)
        fclose(r.f);
    free(r.text);
    free(r.buf);
    return st;
}

tsgs_status tsgs__model_load_within(const char *path, double max_bytes,
                                    tsgs_model **out, tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_load: NULL argument");
    return load_within(path, max_bytes, "the caller's limit", out, err);
}

tsgs_status tsgs_model_load(const char *path, tsgs_model **out,
                            tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_load: NULL argument");
    const char *what;
    const double cap = tsgs_memory_available(&what);
    return load_within(path, cap, what, out, err);
}
