/* Model files: versioned text. A header of "key value" lines (format name
 * and version, every parameter, dimensions, scale, bias, labels, scaler),
 * then one line of coefficients per direction at full precision, then
 * "end". Seeds are stored, never random features. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "tsgs3vm-model"
#define FORMAT_VERSION 1

static void put_double(FILE *f, double v) { fprintf(f, "%.17g", v); }

static const char *scaling_name(tsgs_scaling s)
{
    return s == TSGS_SCALE_ZSCORE   ? "zscore"
           : s == TSGS_SCALE_MINMAX ? "minmax"
           : s == TSGS_SCALE_CLASS  ? "class"
           : s == TSGS_SCALE_MAXABS ? "maxabs"
                                    : "none";
}

static void write_model(FILE *f, const tsgs_model *m)
{
    fprintf(f, "%s %d\n", MAGIC, FORMAT_VERSION);
    /* Directions written as used, not "auto": the file says what it has. */
    tsgs_params saved = m->params;
    saved.directions = m->fs.orthogonal ? TSGS_DIRECTIONS_ORTHOGONAL
                                        : TSGS_DIRECTIONS_IID;
    char value[64];
    const char *key;
    for (size_t i = 0; (key = tsgs_params_key(i, &saved, value,
                                              sizeof value, NULL));
         i++)
        fprintf(f, "%s %s\n", key, value);
    fprintf(f, "features-in %zu\n", m->d);
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

/* Temporary files "<name>.tmp.<pid>.<n>" beside path left by a save that
 * was killed (its process is gone) are removed: only this format's own
 * names, only for a dead pid, so a save running elsewhere keeps its file. */
static void remove_stale_temporaries(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const size_t blen = strlen(base);
    char *dir = folder_of(path);
    if (!dir)
        return;
    DIR *dh = opendir(dir);
    if (!dh) {
        free(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dh))) {
        const char *name = e->d_name;
        if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5))
            continue;
        char *end;
        errno = 0;
        long pid = strtol(name + blen + 5, &end, 10);
        if (errno || pid <= 0 || *end != '.' || end[1] < '0' || end[1] > '9')
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to know */
        size_t need = strlen(dir) + strlen(name) + 2;
        char *full = malloc(need);
        if (full) {
            snprintf(full, need, "%s/%s", dir, name);
            unlink(full);
            free(full);
        }
    }
    closedir(dh);
    free(dir);
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
        write_model(f, m->ovr[k]);
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
    remove_stale_temporaries(path);
    /* A temporary file beside the target, renamed over it once complete:
     * an interrupted save never leaves a half-written model. Created with
     * mode 0666 so the umask applies, as for any file the user writes. */
    size_t len = strlen(path);
    char *tmp = malloc(len + 48);
    if (!tmp)
        return TSGS__NOMEM(err);
    static atomic_uint counter;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(tmp, len + 48, "%s.tmp.%ld.%u", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1u));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        tsgs_status st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                                    "cannot create a temporary file: %s",
                                    strerror(errno));
        free(tmp);
        return st;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        free(tmp);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot write: %s",
                          strerror(errno));
    }
    if (m->nclass > 2)
        write_ovr(f, m);
    else
        write_model(f, m);
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

typedef struct {
    FILE *f;
    const char *path;
    long line;
    char *buf;
    size_t cap;
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
    free(*cols);
    free(*muls);
    *cols = malloc(sizeof(uint32_t) * (cnt ? cnt : 1));
    *muls = malloc(sizeof(double) * (cnt ? cnt : 1));
    if (!*cols || !*muls)
        return TSGS__NOMEM(err);
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
        if (end == p || !isfinite(m) || !(m > 0.0))
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "scaler-maxabs: entry %zu: bad multiplier",
                              j + 1);
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

static tsgs_status parse_doubles(reader_t *r, const char *field,
                                 const char *s, double *v, size_t n,
                                 tsgs_error *err)
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

/* One binary model from r (its first line the magic); last: nothing but
 * blank lines may follow its "end". */
static tsgs_status load_binary(reader_t *r, int last, tsgs_model **out,
                               tsgs_error *err)
{
    tsgs_status st = TSGS_OK;
    tsgs_model *m = NULL;
    tsgs_params p = tsgs_params_default();
    /* Files written before the "directions" key existed used iid ones. */
    p.directions = TSGS_DIRECTIONS_IID;
    long d = -1, blocks = -1, ncoef = -1, nsv = -1;
    double scale = NAN, bias = NAN, labels[2] = {NAN, NAN};
    double prob_ab[2] = {NAN, NAN};
    tsgs_scaling scaling = TSGS_SCALE_NONE;
    int have_scaling = 0;
    double *shift = NULL, *mul = NULL, *smul = NULL;
    uint32_t *scol = NULL;
    size_t nsc = 0;
    char **seen = NULL;
    size_t nseen = 0;

    char *line;
    if ((st = next_line(r, &line, err)))
        goto fail;
    long version = magic_version(line);
    if (version < 0) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 1,
                        "not a tsgs3vm model file (the first line should be "
                        "\"%s %d\")",
                        MAGIC, FORMAT_VERSION);
        goto fail;
    }
    if (version != FORMAT_VERSION) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 1,
                        "model format version %ld; this build reads version "
                        "%d",
                        version, FORMAT_VERSION);
        goto fail;
    }
    /* Header: key value lines until "coefficients N", each key once. */
    for (;;) {
        if ((st = next_line(r, &line, err)))
            goto fail;
        if (!line)
            break;
        char *sp = strchr(line, ' ');
        if (!sp) {
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "header: \"%.40s\" is not a \"key value\" line",
                            line);
            goto fail;
        }
        *sp = '\0';
        const char *key = line, *val = sp + 1;
        int nomem = 0;
        if (seen_before(&seen, &nseen, key, &nomem)) {
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "%.40s given twice", key);
            goto fail;
        }
        if (nomem) {
            st = TSGS__NOMEM(err);
            goto fail;
        }
        if (strcmp(key, "coefficients") == 0) {
            if ((st = parse_count(r, key, val, 1L << 40, &ncoef, err)))
                goto fail;
            break;
        } else if (strcmp(key, "support-vectors") == 0) { /* bs3vm */
            if ((st = parse_count(r, key, val, 1L << 40, &nsv, err)))
                goto fail;
            break;
        } else if (strcmp(key, "features-in") == 0) {
            /* (once, as every key: scaler-shift / scaler-mul are sized by
             * it) */
            if ((st = parse_count(r, key, val, 1L << 30, &d, err)))
                goto fail;
        } else if (strcmp(key, "blocks") == 0) {
            if ((st = parse_count(r, key, val, 1L << 40, &blocks, err)))
                goto fail;
        } else if (strcmp(key, "lazy-scale") == 0) {
            if ((st = parse_doubles(r, key, val, &scale, 1, err)))
                goto fail;
        } else if (strcmp(key, "bias") == 0) {
            if ((st = parse_doubles(r, key, val, &bias, 1, err)))
                goto fail;
        } else if (strcmp(key, "labels") == 0) {
            if ((st = parse_doubles(r, key, val, labels, 2, err)))
                goto fail;
        } else if (strcmp(key, "probability-ab") == 0) {
            if ((st = parse_doubles(r, key, val, prob_ab, 2, err)))
                goto fail;
        } else if (strcmp(key, "scaler") == 0) {
            have_scaling = 1;
            if (strcmp(val, "zscore") == 0)
                scaling = TSGS_SCALE_ZSCORE;
            else if (strcmp(val, "minmax") == 0)
                scaling = TSGS_SCALE_MINMAX;
            else if (strcmp(val, "class") == 0)
                scaling = TSGS_SCALE_CLASS;
            else if (strcmp(val, "none") == 0)
                scaling = TSGS_SCALE_NONE;
            else if (strcmp(val, "maxabs") == 0)
                scaling = TSGS_SCALE_MAXABS;
            else {
                st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                                "scaler: unknown kind \"%s\"", val);
                goto fail;
            }
        } else if (strcmp(key, "scaler-maxabs") == 0) {
            if ((st = parse_maxabs(r, val, d, &nsc, &scol, &smul, err)))
                goto fail;
        } else if (strcmp(key, "scaler-shift") == 0 ||
                   strcmp(key, "scaler-mul") == 0) {
            if (d < 0) {
                st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                                "%s before features-in", key);
                goto fail;
            }
            double **dst = key[7] == 's' ? &shift : &mul;
            free(*dst);
            *dst = malloc(sizeof(double) * (size_t)(d ? d : 1));
            if (!*dst) {
                st = TSGS__NOMEM(err);
                goto fail;
            }
            if ((st = parse_doubles(r, key, val, *dst, (size_t)d, err)))
                goto fail;
        } else {
            tsgs_error perr;
            if (tsgs_params_set(&p, key, val, &perr) != TSGS_OK) {
                st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line, "%s",
                                perr.message);
                goto fail;
            }
        }
    }
    if (ncoef < 0 && nsv < 0) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "truncated: the header ends before the "
                        "\"coefficients\" line");
        goto fail;
    }
    if ((nsv >= 0) != (p.solver == TSGS_SOLVER_BS3VM)) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "%s: the bs3vm solver's models (only) list "
                        "support vectors",
                        nsv >= 0 ? "support-vectors" : "coefficients");
        goto fail;
    }
    if (p.probability != !isnan(prob_ab[0])) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "probability %d but %s \"probability-ab\" line",
                        p.probability, isnan(prob_ab[0]) ? "no" : "a");
        goto fail;
    }
    if (!isnan(labels[0]) && labels[0] == labels[1]) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "labels: both classes are labelled %g; the two "
                        "labels must differ",
                        labels[0]);
        goto fail;
    }
    if (d < 1 || blocks < 0 || isnan(scale) || isnan(bias) ||
        isnan(labels[0]) || !have_scaling ||
        (scaling == TSGS_SCALE_MAXABS && !scol) ||
        (scaling != TSGS_SCALE_NONE && scaling != TSGS_SCALE_MAXABS &&
         (!shift || !mul))) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "header: missing one of features-in, blocks, "
                        "lazy-scale, bias, labels, scaler (and its "
                        "scaler-shift / scaler-mul)");
        goto fail;
    }
    tsgs_error perr;
    if (tsgs_params_check(&p, &perr) != TSGS_OK || p.sigma <= 0.0 ||
        !(scale > 0.0)) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "header: inconsistent parameters: %s",
                        p.sigma <= 0.0 ? "sigma must be positive"
                        : !(scale > 0.0) ? "lazy-scale must be positive"
                                         : perr.message);
        goto fail;
    }
    /* Before allocating: a corrupt "blocks" must not size the model. */
    const long dirs = tsgs__fspec_of(&p, 0).dirs;
    if (nsv < 0 && ncoef != blocks * dirs) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "coefficients: %ld lines announced, but %ld blocks "
                        "of %ld directions need %ld",
                        ncoef, blocks, dirs, blocks * dirs);
        goto fail;
    }
    if ((st = tsgs__model_new(&p, (size_t)d, blocks, &m, err)))
        goto fail;
    m->nblocks = blocks;
    m->scale = scale;
    m->bias = bias;
    m->label_neg = labels[0];
    m->label_pos = labels[1];
    m->has_prob = !isnan(prob_ab[0]);
    m->prob_a = prob_ab[0];
    m->prob_b = prob_ab[1];
    m->scaler.kind = scaling;
    m->scaler.d = (size_t)d;
    m->scaler.shift = shift;
    m->scaler.mul = mul;
    shift = mul = NULL;
    if (scaling == TSGS_SCALE_MAXABS) {
        m->scaler.nsc = nsc;
        m->scaler.scol = scol;
        m->scaler.smul = smul;
        scol = NULL;
        smul = NULL;
    }
    if (nsv >= 0) {
        if ((st = tsgs__bs3vm_read(r->f, r->path, &r->line, nsv, (size_t)d,
                                   p.kernel, p.sigma, &m->bs3vm, err)))
            goto fail;
        goto loaded;
    }
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;
    for (long g = 0; g < ncoef; g++) {
        if ((st = next_line(r, &line, err)))
            goto fail;
        if (!line) {
            st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                            "truncated: %ld of %ld coefficient lines", g,
                            ncoef);
            goto fail;
        }
        double v[2];
        if ((st = parse_doubles(r, "coefficient", line, v, pair ? 2 : 1,
                                err)))
            goto fail;
        m->ac[g] = v[0];
        if (pair)
            m->as[g] = v[1];
    }
    if ((st = next_line(r, &line, err)))
        goto fail;
    if (!line || strcmp(line, "end") != 0) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "truncated: no \"end\" line after the %ld "
                        "coefficients",
                        ncoef);
        goto fail;
    }
    /* Nothing after "end" but blank lines: a file with more is not what
     * save wrote (the last model of the file only). */
    line = NULL;
    while (last) {
        if ((st = next_line(r, &line, err)))
            goto fail;
        if (!line || line[strspn(line, " \t")] != '\0')
            break;
    }
    if (line) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "text after the \"end\" line");
        goto fail;
    }
loaded:
    if ((st = tsgs__model_cache_sync(m, err)))
        goto fail;
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    /* a scaler-maxabs line beside another scaler kind: parsed, unused */
    free(scol);
    free(smul);
    *out = m;
    return TSGS_OK;
fail:
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    free(shift);
    free(mul);
    free(scol);
    free(smul);
    tsgs_model_free(m);
    return st;
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
    tsgs_status st = next_line(r, &line, err);
    if (st)
        return st;
    if (!line || strncmp(line, "classes ", 8) != 0 ||
        parse_count(r, "classes", line + 8, 1L << 20, &k, err) || k < 3)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "classes: expected \"classes K\" with K >= 3");
    double *classes = malloc(sizeof(double) * (size_t)k);
    tsgs_model **subs = calloc((size_t)k, sizeof *subs);
    if (!classes || !subs) {
        free(classes);
        free(subs);
        return TSGS__NOMEM(err);
    }
    if ((st = next_line(r, &line, err)))
        goto done;
    if (!line || strncmp(line, "labels ", 7) != 0 ||
        (st = parse_doubles(r, "labels", line + 7, classes, (size_t)k, err))) {
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

tsgs_status tsgs_model_load(const char *path, tsgs_model **out,
                            tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_load: NULL argument");
    reader_t r = {fopen(path, "r"), path, 0, NULL, 0};
    if (!r.f)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot open: %s",
                          strerror(errno));
    struct stat sb;
    if (fstat(fileno(r.f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(r.f);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "is a directory: give the model file's path");
    }
    char *line;
    tsgs_status st = next_line(&r, &line, err);
    if (st == TSGS_OK && line && strncmp(line, OVR_MAGIC " ", 12) == 0) {
        st = load_ovr(&r, line, out, err);
    } else if (st == TSGS_OK) {
        rewind(r.f); /* the binary loader reads its own first line */
        r.line = 0;
        st = load_binary(&r, 1, out, err);
    }
    fclose(r.f);
    free(r.buf);
    return st;
}
