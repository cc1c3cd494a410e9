/* Reading datasets: LIBSVM/SVMlight sparse text and CSV, plain or
 * compressed, through a streaming line reader and a fast number parser.
 * Every error names the file, the line and what was wrong. */
#include "data/data.h"

#include <float.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The initial line buffer: 4 MiB. The fuzz build (tests/hardening.mk)
 * makes it small, so that short inputs reach the refill and growth paths. */
#ifndef READ_CHUNK
#define READ_CHUNK ((size_t)1 << 22)
#endif
#define MAX_INDEX 10000000UL         /* larger LIBSVM indexes are absurd */
#define SHOW_MAX 40                  /* token characters quoted in errors */
#define SPLIT_MIN_CHUNK ((size_t)1 << 24) /* 16 MiB: smaller reads stay serial */
#define SPLIT_PER_THREAD 8 /* chunks per thread of a parallel read */
/* The longest line read, in bytes before its '\n': 256 MiB. The widest
 * row the reader takes (MAX_INDEX features of ~25 bytes "index:value"
 * each) is under 240 MiB; without a cap a small compressed file of one
 * endless line would take all the memory (13 MB of gzip: 3 GB). */
#define LINE_MAX_DEFAULT ((size_t)256 << 20)

static size_t line_max = LINE_MAX_DEFAULT;

size_t tsgs__read_line_max(size_t max)
{
    size_t old = line_max;
    line_max = max ? max : LINE_MAX_DEFAULT;
    return old;
}

tsgs_read_options tsgs_read_options_default(void)
{
    tsgs_read_options o;
    memset(&o, 0, sizeof o);
    o.format = TSGS_FORMAT_AUTO;
    o.label_column = TSGS_LABEL_COLUMN_AUTO;
    o.skip_columns = 0;
    o.header = -1;
    o.has_unlabeled_label = 0;
    o.unlabeled_label = 0.0;
    o.min_features = 0;
    o.threads = 0;
    return o;
}

/* ------------------------------------------------------------ lines */

typedef struct {
    tsgs__istream *in;
    const char *path;
    char *buf;        /* cap + 1 bytes: room for a NUL after a last line */
    size_t cap;
    size_t pos, end;  /* unread bytes [pos, end) */
    size_t scanned;   /* [pos, pos + scanned) holds no '\n' */
    int eof;
    long line;        /* number of the line last returned */
    uint64_t base;    /* offset in the file of buf[0] */
    /* A byte range [at, stop) of a plain file read with pread (one chunk
     * of a parallel read) instead of the stream, when fd >= 0. */
    int fd;
    uint64_t at, stop;
    /* The caller's stop (tsgs_read_options.should_stop), shared by the
     * chunks of a parallel read; NULL: none. */
    tsgs__stop *halt;
} lreader;

/* Re-says a stream error with the line it happened at. */
static tsgs_status stream_fail(lreader *r, tsgs_status st, tsgs_error *err)
{
    if (!err || err->line != 0 || !err->file[0])
        return st;
    char msg[TSGS_ERROR_MESSAGE_MAX];
    size_t skip = strlen(err->file) + 2; /* "path: " */
    const char *m = strlen(err->message) >= skip ? err->message + skip : "";
    snprintf(msg, sizeof msg, "%s", m);
    return tsgs__fail(err, st, r->path, r->line + 1, "%s", msg);
}

static tsgs_status range_read(lreader *r, char *buf, size_t cap,
                              size_t *got, tsgs_error *err);

/* The line being read is longer than line_max. */
static tsgs_status too_long(const lreader *r, tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_PARSE, r->path, r->line + 1,
                      "line longer than %zu bytes (the reader's limit on "
                      "a line; is this a data file?)",
                      line_max);
}

/* The caller asked to stop: the read ends where it is, naming the line
 * that was being read. */
static tsgs_status stopped(const lreader *r, tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_STOPPED, r->path, r->line + 1,
                      "stopped by the caller while reading this line: no "
                      "rows returned");
}

/* Reads more bytes after [pos, end), moving or growing the buffer. The
 * caller's stop is polled here, once a buffer (READ_CHUNK bytes, or a
 * decoder step's worth): a read is mostly refills and the parsing of
 * what they brought, so a stop is seen within one buffer's parse. */
static tsgs_status fill(lreader *r, tsgs_error *err)
{
    if (tsgs__stop_due(r->halt, TSGS__STOP_OPTIONAL))
        return stopped(r, err);
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->base += r->pos;
        r->pos = 0;
    }
    if (r->end == r->cap) { /* one line fills the buffer: double it */
        if (r->cap > SIZE_MAX / 4)
            return TSGS__NOMEM(err);
        /* up to room for the longest line and its '\n' */
        size_t cap = 2 * r->cap < line_max + 1 ? 2 * r->cap : line_max + 1;
        if (cap <= r->cap)
            return too_long(r, err);
        char *b = realloc(r->buf, cap + 1);
        if (!b)
            return TSGS__NOMEM(err);
        r->buf = b;
        r->cap = cap;
    }
    size_t got = 0;
    tsgs_status st =
        r->fd >= 0 ? range_read(r, r->buf + r->end, r->cap - r->end, &got, err)
                   : tsgs__istream_read(r->in, r->buf + r->end,
                                        r->cap - r->end, &got, err);
    /* A signal that asked for the stop may have broken off a read that
     * was waiting (a pipe): that is the stop, not a failed read. */
    if (st != TSGS_OK && tsgs__stop_due(r->halt, TSGS__STOP_OPTIONAL))
        return stopped(r, err);
    if (st != TSGS_OK)
        return stream_fail(r, st, err);
    if (got == 0)
        r->eof = 1;
    r->end += got;
    return TSGS_OK;
}

/* The next line without its "\n" or "\r\n", NUL-terminated; *line = NULL
 * at the end of the file. */
static tsgs_status next_line(lreader *r, char **line, size_t *len,
                             tsgs_error *err)
{
    for (;;) {
        char *p = r->buf + r->pos;
        size_t avail = r->end - r->pos;
        char *nl = memchr(p + r->scanned, '\n', avail - r->scanned);
        size_t n;
        if (nl) {
            n = (size_t)(nl - p);
            r->pos += n + 1;
        } else if (r->eof) {
            if (avail == 0) {
                *line = NULL;
                *len = 0;
                return TSGS_OK;
            }
            n = avail; /* a last line without a newline */
            r->pos = r->end;
        } else {
            if (avail > line_max) /* before the buffer grows for it */
                return too_long(r, err);
            r->scanned = avail;
            tsgs_status st = fill(r, err);
            if (st != TSGS_OK)
                return st;
            continue;
        }
        r->scanned = 0;
        if (n > line_max)
            return too_long(r, err);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        p[n] = '\0';
        r->line++;
        *line = p;
        *len = n;
        return TSGS_OK;
    }
}

/* ---------------------------------------------------------- numbers */

static const double P10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                               1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                               1e18, 1e19, 1e20, 1e21, 1e22};

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* A decimal number: [+-] (D+ [. D*] | . D+) [(e|E) [+-] D+], read from p
 * up to *stop (before e). Keeps 19 significant digits: the value is
 * mant * 10^e10. Returns 0 when no number starts at p. */
typedef struct {
    uint64_t mant;
    int e10;
    int neg;
    int inexact; /* digits were dropped */
} decimal;

static int scan_decimal(const char *p, const char *e, decimal *dv,
                        const char **stop)
{
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    /* One pass accumulating every digit; redone below if over 19. */
    uint64_t m = 0;
    const char *is = p;
    for (; p < e && is_digit(*p); p++)
        m = m * 10 + (uint64_t)(*p - '0');
    const char *ie = p, *fs = p, *fe = p;
    if (p < e && *p == '.') {
        fs = ++p;
        for (; p < e && is_digit(*p); p++)
            m = m * 10 + (uint64_t)(*p - '0');
        fe = p;
    }
    size_t ni = (size_t)(ie - is), nf = (size_t)(fe - fs);
    if (ni + nf == 0)
        return 0;
    long ex = 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        if (q < e && (*q == '-' || *q == '+')) {
            eneg = *q == '-';
            q++;
        }
        if (q == e || !is_digit(*q))
            return 0; /* "1e" or "1e+": not a number */
        for (; q < e && is_digit(*q); q++)
            if (ex < 100000)
                ex = ex * 10 + (*q - '0');
        ex = eneg ? -ex : ex;
        p = q;
    }
    int adj = 0, inexact = 0;
    if (ni + nf <= 19) { /* the usual case: every digit fits */
        adj = -(int)nf;
    } else { /* keep 19 significant digits, skipping leading zeros */
        int nd = 0;
        m = 0;
        for (const char *q = is; q < ie; q++) {
            unsigned dg = (unsigned)(*q - '0');
            if (m == 0 && dg == 0)
                continue;
            if (nd < 19) {
                m = m * 10 + dg;
                nd++;
            } else {
                adj++;
                inexact |= dg != 0;
            }
        }
        for (const char *q = fs; q < fe; q++) {
            unsigned dg = (unsigned)(*q - '0');
            if (m == 0 && dg == 0) {
                adj--;
            } else if (nd < 19) {
                m = m * 10 + dg;
                nd++;
                adj--;
            } else {
                inexact |= dg != 0;
            }
        }
    }
    dv->mant = m;
    dv->e10 = (int)(adj + ex);
    dv->neg = neg;
    dv->inexact = inexact;
    *stop = p;
    return 1;
}

/* The value to double precision within a few ulps (plenty for floats). */
static double decimal_value(const decimal *dv)
{
    double v = (double)dv->mant;
    int x = dv->e10;
    if (dv->mant == 0)
        v = 0.0;
    else if (x > 400)
        v = INFINITY;
    else if (x < -400)
        v = 0.0;
    else if (x < 0) {
        for (; x < -22; x += 22)
            v /= 1e22;
        v /= P10[-x];
    } else {
        /* No early exit on infinity: x must end at 22 or below, as it
         * indexes P10 (an overflow stays infinite). */
        for (; x > 22; x -= 22)
            v *= 1e22;
        v *= P10[x];
    }
    return dv->neg ? -v : v;
}

/* Whether [p, e) says NaN or infinity as strtod would take it. */
static int names_nonfinite(const char *p, const char *e)
{
    if (p < e && (*p == '+' || *p == '-'))
        p++;
    size_t n = (size_t)(e - p);
    if (n >= 3 && (strncasecmp(p, "nan", 3) == 0))
        return 1;
    return (n == 3 && strncasecmp(p, "inf", 3) == 0) ||
           (n == 8 && strncasecmp(p, "infinity", 8) == 0);
}

enum { NUM_OK = 0, NUM_BAD, NUM_NONFINITE, NUM_RANGE };

/* A float feature value that must span exactly [p, e). */
static int parse_float(const char *p, const char *e, float *out)
{
    decimal dv;
    const char *stop;
    if (!scan_decimal(p, e, &dv, &stop) || stop != e)
        return names_nonfinite(p, e) ? NUM_NONFINITE : NUM_BAD;
    double v = decimal_value(&dv);
    if (!(fabs(v) <= FLT_MAX))
        return NUM_RANGE;
    *out = (float)v;
    return NUM_OK;
}

/* A label spanning exactly [p, e), exact to double precision. */
static int parse_label(const char *p, const char *e, double *out)
{
    decimal dv;
    const char *stop;
    if (!scan_decimal(p, e, &dv, &stop) || stop != e)
        return names_nonfinite(p, e) ? NUM_NONFINITE : NUM_BAD;
    double v;
    if (!dv.inexact && dv.mant < ((uint64_t)1 << 53) && dv.e10 >= -22 &&
        dv.e10 <= 22) {
        /* Exact: both operands are exact doubles, one rounding. */
        v = (double)dv.mant;
        v = dv.e10 < 0 ? v / P10[-dv.e10] : v * P10[dv.e10];
        v = dv.neg ? -v : v;
    } else {
        char tmp[512];
        size_t n = (size_t)(e - p);
        if (n >= sizeof tmp)
            return NUM_BAD;
        memcpy(tmp, p, n);
        tmp[n] = '\0';
        v = strtod(tmp, NULL);
    }
    if (!isfinite(v))
        return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

/* ---------------------------------------------------------- reading */

typedef struct {
    const char *path;
    const tsgs_read_options *opt;
    lreader lr;
    /* rows so far */
    size_t n, ycap;
    double *y;
    /* LIBSVM: sparse pairs, row i's are [rowend[i-1], rowend[i]) */
    uint32_t *idx;
    float *val;
    size_t np, pcap;
    size_t *rowend, rcap;
    size_t dmax;
    /* CSV: dense rows of d features */
    float *x;
    size_t xcap; /* floats */
    size_t d;
    int ncols, labcol; /* file columns, 1-based label column or 0 */
    int header_labcol; /* the header's label column by name, or 0 */
    int header_seen;   /* a header line was read */
    char delim;        /* ',' or ' ' (runs of blanks) */
    int blocks;        /* read a block at a time: LIBSVM storage by width */
} reader;

/* "token 3 \"5:abc\"" text for messages, cut to SHOW_MAX characters. */
static const char *show(const char *p, const char *e, char *buf)
{
    size_t n = (size_t)(e - p), k = 0;
    for (size_t i = 0; i < n && i < SHOW_MAX; i++)
        buf[k++] = (p[i] >= 32 && p[i] < 127) ? p[i] : '?';
    if (n > SHOW_MAX) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

/* Grows *arr (elements of size elem) to hold at least need elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap : 1024;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            return 0;
        c *= 2;
    }
    void *p = realloc(*arr, c * elem);
    if (!p)
        return 0;
    *arr = p;
    *cap = c;
    return 1;
}

/* The message for a bad number from parse_float / parse_label. */
static const char *num_problem(int rc, int is_label)
{
    switch (rc) {
    case NUM_NONFINITE:
        return is_label ? "label is NaN or infinite"
                        : "value is NaN or infinite";
    case NUM_RANGE:
        return is_label ? "label is out of range"
                        : "value is out of range for a float";
    default:
        return is_label ? "label is not a number" : "value is not a number";
    }
}

static tsgs_status num_fail(reader *R, int rc, int is_label,
                            const char *what, long k, const char *p,
                            const char *e, tsgs_error *err)
{
    char tok[SHOW_MAX + 4];
    return tsgs__fail(err, rc == NUM_BAD ? TSGS_ERR_PARSE : TSGS_ERR_DATA,
                      R->path, R->lr.line, "%s %ld \"%s\": %s", what, k,
                      show(p, e, tok), num_problem(rc, is_label));
}

static tsgs_status push_label(reader *R, double label, tsgs_error *err)
{
    if (!grow((void **)&R->y, &R->ycap, R->n + 1, sizeof(double)))
        return TSGS__NOMEM(err);
    if (R->opt->has_unlabeled_label && label == R->opt->unlabeled_label)
        label = TSGS_UNLABELED;
    R->y[R->n] = label;
    return TSGS_OK;
}

static const char *tok_end(const char *p, const char *e)
{
    while (p < e && !is_ws(*p))
        p++;
    return p;
}

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && is_ws(*p))
        p++;
    return p;
}

/* Token k of a LIBSVM line, from s, whose index did not read as one above
 * the previous index prev (p: where its digits stopped, ix their value):
 * an SVMlight query id ("qid:...", not a feature: TSGS_OK, *q at the
 * token's end), or an error naming the token. */
static tsgs_status bad_index(const reader *R, const char *s, const char *p,
                             const char *e, long k, unsigned long ix,
                             unsigned long prev, const char **q,
                             tsgs_error *err)
{
    char tok[SHOW_MAX + 4];
    *q = tok_end(s, e);
    if (p == e || *p != ':') {
        const char *colon = memchr(s, ':', (size_t)(*q - s));
        if (!colon)
            return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                              "token %ld \"%s\": expected index:value", k,
                              show(s, *q, tok));
        if (colon - s == 3 && strncmp(s, "qid", 3) == 0)
            return TSGS_OK; /* SVMlight query id: not a feature */
    }
    if (p == e || *p != ':' || p == s || ix == 0)
        return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                          "token %ld \"%s\": index is not a positive "
                          "integer",
                          k, show(s, *q, tok));
    if (ix > MAX_INDEX)
        return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                          "token %ld \"%s\": index is larger than %lu", k,
                          show(s, *q, tok), MAX_INDEX);
    return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                      "token %ld \"%s\": index %lu is not above the "
                      "previous index %lu (indexes must increase)",
                      k, show(s, *q, tok), ix, prev);
}

/* The value of token k (from s), after its ':' at v: a float (*fv), *q
 * where it ends. '#' right after a value starts a comment too (as in
 * SVMlight). */
static tsgs_status pair_value(reader *R, const char *s, const char *v,
                              const char *e, long k, float *fv,
                              const char **q, tsgs_error *err)
{
    decimal dv;
    const char *stop;
    if (scan_decimal(v, e, &dv, &stop) &&
        (stop == e || is_ws(*stop) || *stop == '#')) {
        double x = decimal_value(&dv);
        if (!(fabs(x) <= FLT_MAX)) {
            *q = tok_end(s, e);
            return num_fail(R, NUM_RANGE, 0, "token", k, s, *q, err);
        }
        *fv = (float)x;
        *q = stop;
        return TSGS_OK;
    }
    *q = tok_end(s, e);
    int rc = parse_float(v, *q, fv);
    return num_fail(R, rc == NUM_OK ? NUM_BAD : rc, 0, "token", k, s, *q,
                    err);
}

/* Appends the pair (ix, fv) to R's pairs. */
static tsgs_status push_pair(reader *R, unsigned long ix, float fv,
                             tsgs_error *err)
{
    if (R->np == R->pcap) {
        size_t c = R->pcap;
        if (!grow((void **)&R->idx, &c, R->np + 1, sizeof(uint32_t)) ||
            !grow((void **)&R->val, &R->pcap, R->np + 1, sizeof(float)))
            return TSGS__NOMEM(err);
    }
    R->idx[R->np] = (uint32_t)ix;
    R->val[R->np] = fv;
    R->np++;
    return TSGS_OK;
}

/* One LIBSVM / SVMlight line with at least one token. */
static tsgs_status libsvm_line(reader *R, const char *p, const char *e,
                               tsgs_error *err)
{
    char tok[SHOW_MAX + 4];
    const char *q = tok_end(p, e);
    if (memchr(p, ':', (size_t)(q - p)))
        return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                          "token 1 \"%s\": missing label (a line starts "
                          "with the label, then index:value pairs)",
                          show(p, q, tok));
    double label;
    int rc = parse_label(p, q, &label);
    if (rc != NUM_OK)
        return num_fail(R, rc, 1, "token", 1, p, q, err);
    tsgs_status st = push_label(R, label, err);
    if (st != TSGS_OK)
        return st;
    if (!grow((void **)&R->rowend, &R->rcap, R->n + 1, sizeof(size_t)))
        return TSGS__NOMEM(err);
    unsigned long prev = 0;
    long k = 1;
    for (;;) {
        p = skip_ws(q, e);
        if (p == e || *p == '#')
            break;
        k++;
        /* index: digits up to ':' */
        const char *s = p;
        unsigned long ix = 0;
        for (; p < e && is_digit(*p); p++)
            if (ix <= MAX_INDEX)
                ix = ix * 10 + (unsigned long)(*p - '0');
        if (p == e || *p != ':' || p == s || ix == 0 || ix > MAX_INDEX ||
            ix <= prev) {
            if ((st = bad_index(R, s, p, e, k, ix, prev, &q, err)) !=
                TSGS_OK)
                return st;
            continue; /* a query id */
        }
        prev = ix;
        float fv;
        if ((st = pair_value(R, s, p + 1, e, k, &fv, &q, err)) != TSGS_OK ||
            (st = push_pair(R, ix, fv, err)) != TSGS_OK)
            return st;
    }
    if (prev > R->dmax)
        R->dmax = prev;
    R->rowend[R->n] = R->np;
    R->n++;
    return TSGS_OK;
}

/* The next field of a CSV line from *cur, trimmed (and unquoted); 0 when
 * the line has no more. */
static int next_field(const char **cur, const char *e, char delim,
                      const char **fs, const char **fe)
{
    const char *p = *cur;
    if (delim == ',') {
        if (p > e)
            return 0;
        const char *c = memchr(p, ',', (size_t)(e - p));
        const char *end = c ? c : e;
        *cur = c ? c + 1 : e + 1;
        while (p < end && is_ws(*p))
            p++;
        while (end > p && is_ws(end[-1]))
            end--;
        if (end - p >= 2 && *p == '"' && end[-1] == '"') {
            p++;
            end--;
        }
        *fs = p;
        *fe = end;
        return 1;
    }
    p = skip_ws(p, e);
    if (p == e)
        return 0;
    *fs = p;
    *fe = tok_end(p, e);
    *cur = *fe;
    return 1;
}

static int count_fields(const char *p, const char *e, char delim)
{
    int n = 0;
    const char *fs, *fe;
    while (next_field(&p, e, delim, &fs, &fe))
        n++;
    return n;
}

/* Whether a line looks like a header: a field (outside the skipped
 * columns) that is not a number. */
static int looks_like_header(reader *R, const char *p, const char *e)
{
    const char *fs, *fe;
    float v;
    double lv;
    for (int c = 0; next_field(&p, e, R->delim, &fs, &fe); c++) {
        if (c < R->opt->skip_columns)
            continue;
        if (parse_float(fs, fe, &v) == NUM_BAD &&
            parse_label(fs, fe, &lv) == NUM_BAD)
            return 1;
    }
    return 0;
}

/* The 1-based column of a header whose name says it is the label
 * (label, target, class, y: any case, quotes and blanks aside), or 0. */
static int header_label_column(const reader *R, const char *p, const char *e)
{
    static const char *const names[] = {"label", "target", "class", "y"};
    const char *fs, *fe;
    for (int c = 1; next_field(&p, e, R->delim, &fs, &fe); c++) {
        while (fs < fe && (*fs == '"' || *fs == '\'' || *fs == ' '))
            fs++;
        while (fe > fs && (fe[-1] == '"' || fe[-1] == '\'' ||
                           fe[-1] == ' ' || fe[-1] == '\r'))
            fe--;
        const size_t n = (size_t)(fe - fs);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strlen(names[k]) == n && strncasecmp(fs, names[k], n) == 0)
                return c;
    }
    return 0;
}

/* The first CSV data line fixes the columns. */
static tsgs_status csv_setup(reader *R, const char *p, const char *e,
                             tsgs_error *err)
{
    const tsgs_read_options *o = R->opt;
    R->ncols = count_fields(p, e, R->delim);
    R->labcol = o->label_column == -1 ? R->ncols
                : o->label_column == TSGS_LABEL_COLUMN_AUTO
                    ? (R->header_labcol ? R->header_labcol : 1)
                    : o->label_column;
    if (R->labcol > R->ncols)
        return tsgs__fail(err, TSGS_ERR_PARAM, R->path, R->lr.line,
                          "label column %d: the line has only %d columns",
                          R->labcol, R->ncols);
    if (R->labcol > 0 && R->labcol <= o->skip_columns)
        return tsgs__fail(err, TSGS_ERR_PARAM, R->path, R->lr.line,
                          "label column %d is among the %d skipped columns",
                          R->labcol, o->skip_columns);
    if (o->skip_columns + (R->labcol > 0) > R->ncols)
        return tsgs__fail(err, TSGS_ERR_PARAM, R->path, R->lr.line,
                          "skip columns %d: the line has only %d columns",
                          o->skip_columns, R->ncols);
    R->d = (size_t)(R->ncols - o->skip_columns - (R->labcol > 0));
    return TSGS_OK;
}

static tsgs_status csv_line(reader *R, const char *p, const char *e,
                            tsgs_error *err)
{
    tsgs_status st;
    if (R->ncols == 0 && (st = csv_setup(R, p, e, err)) != TSGS_OK)
        return st;
    const size_t d = R->d;
    if (d > 0 && (R->n + 1) > SIZE_MAX / d)
        return TSGS__NOMEM(err);
    if (!grow((void **)&R->x, &R->xcap, (R->n + 1) * d + 1, sizeof(float)))
        return TSGS__NOMEM(err);
    float *row = R->x + R->n * d;
    double label = TSGS_UNLABELED;
    const int skip = R->opt->skip_columns;
    const char *fs, *fe;
    int c = 0;
    size_t f = 0;
    int more = 0;
    for (; next_field(&p, e, R->delim, &fs, &fe); c++) {
        if (c >= R->ncols) {
            more = 1;
            break;
        }
        if (c < skip)
            continue;
        if (c + 1 == R->labcol) {
            if (fs == fe)
                return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                                  "column %d: missing label", c + 1);
            int rc = parse_label(fs, fe, &label);
            if (rc != NUM_OK)
                return num_fail(R, rc, 1, "column", c + 1, fs, fe, err);
            continue;
        }
        if (fs == fe)
            return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                              "column %d: empty value", c + 1);
        int rc = parse_float(fs, fe, &row[f]);
        if (rc != NUM_OK)
            return num_fail(R, rc, 0, "column", c + 1, fs, fe, err);
        f++;
    }
    if (more || c != R->ncols)
        return tsgs__fail(err, TSGS_ERR_PARSE, R->path, R->lr.line,
                          "%s columns than the first data row (%d)",
                          more ? "more" : "fewer", R->ncols);
    if ((st = push_label(R, label, err)) != TSGS_OK)
        return st;
    R->n++;
    return TSGS_OK;
}

/* A blank line, or a comment line ('#' first). */
static int skippable(const char *p, const char *e)
{
    p = skip_ws(p, e);
    return p == e || *p == '#';
}

/* Looks at the buffered start of the file: a line with ',' means CSV,
 * "i:v" means LIBSVM; lines with one token say neither. Returns 0 when the
 * buffer ends before a line that tells and more can be read: a short read
 * (a compressed stream, a pipe) must not decide on part of a line, or the
 * same text would read differently compressed and plain. What decides is
 * the first DETECT_WINDOW bytes (or the whole file), whatever the reads
 * left in the buffer: deciding where a full buffer ended made a text read
 * as LIBSVM through xz and as CSV plain (a fuzz finding). */
#define DETECT_WINDOW READ_CHUNK
static int detect(reader *R, tsgs_format *fmt)
{
    const char *p = R->lr.buf + R->lr.pos, *end = R->lr.buf + R->lr.end;
    const size_t have = R->lr.end - R->lr.pos;
    if (have > DETECT_WINDOW)
        end = p + DETECT_WINDOW;
    int can_read_more = !R->lr.eof && have < DETECT_WINDOW;
    *fmt = TSGS_FORMAT_CSV;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        /* only what comes before a comment counts */
        const char *h = p;
        while (h < e && !(*h == '#' && (h == p || is_ws(h[-1]))))
            h++;
        if (memchr(p, ',', (size_t)(h - p)))
            return 1;
        if (!nl && can_read_more)
            return 0; /* the rest of this line may hold a ',' */
        if (memchr(p, ':', (size_t)(h - p))) {
            *fmt = TSGS_FORMAT_LIBSVM;
            return 1;
        }
        const char *t = skip_ws(p, h);
        if (t < h && skip_ws(tok_end(t, h), h) < h)
            return 1; /* two or more blank-separated numbers: CSV */
        p = e + 1;
    }
    return !can_read_more;
}

/* The rows do not fit in memory as dense floats: say which file, its
 * shape and the bytes (a feature index far beyond the others, or a model's
 * dimension imposed on a test file, is the usual cause). */
static tsgs_status rows_too_big(const reader *R, size_t d, tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_NOMEM, R->path, 0,
                      "out of memory: %zu rows x %zu features as dense "
                      "floats need %.3g bytes",
                      R->n, d, (double)R->n * (double)d * sizeof(float));
}

static tsgs_status no_features(const reader *R, tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_DATA, R->path, 0,
                      "no features: every row is empty");
}

/* The dataset's width for R's rows (R->n of them, R->dmax or R->d wide),
 * or why there is no dataset. */
static tsgs_status final_width(const reader *R, tsgs_format fmt, size_t *dw,
                               tsgs_error *err)
{
    if (R->n == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, R->path, 0,
                          "no data rows (the file is empty or holds only "
                          "blank lines, comments or a header)");
    size_t d = fmt == TSGS_FORMAT_LIBSVM ? R->dmax : R->d;
    if (R->opt->min_features > d)
        d = R->opt->min_features;
    if (d == 0)
        return no_features(R, err);
    if (R->n > SIZE_MAX / sizeof(float) / d)
        return rows_too_big(R, d, err);
    *dw = d;
    return TSGS_OK;
}

/* Sparse rows of the parts (LIBSVM pairs, 1-based) in file order: CSR
 * with 0-based columns. part[0 .. np) with first rows row0[]. */
static tsgs_status finish_sparse(reader *const *part, int np,
                                 const size_t *row0, size_t n, size_t d,
                                 int threads, tsgs_dataset **out,
                                 tsgs_error *err)
{
    size_t *nz0 = malloc(sizeof(size_t) * (size_t)(np + 1));
    if (!nz0)
        return TSGS__NOMEM(err);
    nz0[0] = 0;
    for (int c = 0; c < np; c++)
        nz0[c + 1] = nz0[c] + part[c]->np;
    const size_t nnz = nz0[np];
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * (nnz ? nnz : 1));
    float *val = malloc(sizeof(float) * (nnz ? nnz : 1));
    double *y = malloc(sizeof(double) * n);
    if (ptr && col && val && y) {
        (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
        for (int c = 0; c < np; c++) {
            const reader *K = part[c];
            if (K->n == 0)
                continue;
            memcpy(y + row0[c], K->y, sizeof(double) * K->n);
            for (size_t i = 0; i < K->n; i++)
                ptr[row0[c] + i + 1] = nz0[c] + K->rowend[i];
            for (size_t j = 0; j < K->np; j++) {
                col[nz0[c] + j] = K->idx[j] - 1;
                val[nz0[c] + j] = K->val[j];
            }
        }
        ptr[0] = 0;
    }
    free(nz0);
    return tsgs__dataset_from_csr(n, d, ptr, col, val, y, out, err);
}

static tsgs_status finish(reader *R, tsgs_format fmt, tsgs_dataset **out,
                          tsgs_error *err)
{
    size_t d = 0;
    tsgs_status st;
    if (fmt == TSGS_FORMAT_LIBSVM && R->n > 0) {
        d = R->dmax > R->opt->min_features ? R->dmax : R->opt->min_features;
        const int dense = R->blocks ? tsgs__keep_dense_width(d)
                                    : tsgs__keep_dense(R->n, d, R->np);
        if (d > 0 && !dense) {
            const size_t row0 = 0;
            return finish_sparse(&R, 1, &row0, R->n, d, 1, out, err);
        }
    }
    if ((st = final_width(R, fmt, &d, err)) != TSGS_OK)
        return st;
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        return TSGS__NOMEM(err);
    if (fmt == TSGS_FORMAT_CSV && d == R->d) {
        ds->x = R->x; /* already dense: hand the rows over */
        R->x = NULL;
        float *s = realloc(ds->x, sizeof(float) * R->n * d);
        if (s)
            ds->x = s;
    } else {
        ds->x = calloc(R->n * d, sizeof(float));
        if (!ds->x) {
            free(ds);
            return rows_too_big(R, d, err);
        }
        if (fmt == TSGS_FORMAT_CSV) {
            for (size_t i = 0; i < R->n; i++)
                memcpy(ds->x + i * d, R->x + i * R->d,
                       sizeof(float) * R->d);
        } else {
            size_t j = 0;
            for (size_t i = 0; i < R->n; i++) {
                float *row = ds->x + i * d;
                for (; j < R->rowend[i]; j++)
                    row[R->idx[j] - 1] = R->val[j];
            }
        }
    }
    ds->y = R->y;
    R->y = NULL;
    double *s = realloc(ds->y, sizeof(double) * R->n);
    if (s)
        ds->y = s;
    ds->n = ds->cap = R->n;
    ds->d = d;
    *out = ds;
    return TSGS_OK;
}

/* ------------------------------------------------- parallel reading */

/* A plain file is split at line starts into chunks (several per thread,
 * taken by the threads as they come free), each parsed by the same line
 * functions into a reader of its own; the chunks' rows are written into
 * the dataset in file order, so the dataset (and the first error, with its
 * line number) is the serial read's. */

typedef struct {
    int fd;
    uint64_t size;
    int threads;
    size_t min_chunk;
} split_plan;

/* Whether the rest of this file may be read in chunks: an uncompressed
 * regular file of at least two chunks, and more than one thread. */
static int plan_split(const reader *R, size_t min_chunk, split_plan *sp)
{
    memset(sp, 0, sizeof *sp);
    int fd = tsgs__istream_plain_fd(R->lr.in);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    if (min_chunk == 0)
        min_chunk = 1;
    if ((uint64_t)sb.st_size / min_chunk < 2)
        return 0;
    int t = tsgs__threads_resolve(R->opt->threads);
    if (t < 2)
        return 0;
    sp->fd = fd;
    sp->size = (uint64_t)sb.st_size;
    sp->threads = t;
    sp->min_chunk = min_chunk;
    return 1;
}

static tsgs_status range_read(lreader *r, char *buf, size_t cap,
                              size_t *got, tsgs_error *err)
{
    uint64_t left = r->stop - r->at;
    size_t want = left < cap ? (size_t)left : cap;
    *got = 0;
    while (*got < want) {
        ssize_t k = pread(r->fd, buf + *got, want - *got,
                          (off_t)(r->at + *got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                              "read failed: %s", strerror(errno));
        if (k == 0)
            return tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                              "read failed: the file ended at byte %llu, "
                              "before its size when opened (was it "
                              "changed while being read?)",
                              (unsigned long long)(r->at + *got));
        *got += (size_t)k;
    }
    r->at += want;
    return TSGS_OK;
}

/* The first line start at or after `from` (a line starts after each
 * '\n'), or size. */
static tsgs_status line_start_from(const split_plan *sp, const char *path,
                                   uint64_t from, uint64_t *start,
                                   tsgs_error *err)
{
    char buf[1 << 16];
    uint64_t at = from - 1; /* from >= 1: the byte before may end a line */
    while (at < sp->size) {
        lreader r;
        memset(&r, 0, sizeof r);
        r.path = path;
        r.fd = sp->fd;
        r.at = at;
        r.stop = sp->size - at < sizeof buf ? sp->size : at + sizeof buf;
        size_t got;
        tsgs_status st = range_read(&r, buf, sizeof buf, &got, err);
        if (st != TSGS_OK)
            return st;
        char *nl = memchr(buf, '\n', got);
        if (nl) {
            *start = at + (uint64_t)(nl - buf) + 1;
            return TSGS_OK;
        }
        at += got;
    }
    *start = sp->size;
    return TSGS_OK;
}

/* The lines of C's range, after its first data row has been read. */
static tsgs_status parse_lines(reader *C, tsgs_format fmt, tsgs_error *err)
{
    for (;;) {
        char *line;
        size_t len;
        tsgs_status st = next_line(&C->lr, &line, &len, err);
        if (st != TSGS_OK)
            return st;
        if (!line)
            return TSGS_OK;
        const char *p = line, *e = line + len;
        if (skippable(p, e))
            continue;
        st = fmt == TSGS_FORMAT_LIBSVM ? libsvm_line(C, skip_ws(p, e), e, err)
                                       : csv_line(C, p, e, err);
        if (st != TSGS_OK)
            return st;
    }
}

/* A thread's line buffer, kept from chunk to chunk (a new buffer for
 * every chunk would have its pages faulted in every time). */
typedef struct {
    char *buf; /* cap + 1 bytes */
    size_t cap;
} line_buffer;

/* One chunk: the lines of [from, to) parsed into C with R's settings,
 * through the thread's buffer b. C->lr.line counts the chunk's own lines. */
static tsgs_status parse_chunk(const reader *R, tsgs_format fmt,
                               const split_plan *sp, uint64_t from,
                               uint64_t to, line_buffer *b, reader *C,
                               tsgs_error *err)
{
    memset(C, 0, sizeof *C);
    C->path = R->path;
    C->opt = R->opt;
    C->ncols = R->ncols;
    C->labcol = R->labcol;
    C->d = R->d;
    C->delim = R->delim;
    C->lr.path = R->path;
    C->lr.fd = sp->fd;
    C->lr.at = from;
    C->lr.stop = to;
    C->lr.halt = R->lr.halt;
    if (from == to)
        return TSGS_OK;
    if (!b->buf) {
        b->cap = READ_CHUNK;
        if (!(b->buf = malloc(b->cap + 1)))
            return TSGS__NOMEM(err);
    }
    C->lr.buf = b->buf;
    C->lr.cap = b->cap;
    tsgs_status st = parse_lines(C, fmt, err);
    b->buf = C->lr.buf; /* grown for a long line, perhaps */
    b->cap = C->lr.cap;
    C->lr.buf = NULL;
    return st;
}

/* A chunk's rows freed (its counts kept). */
static void drop_rows(reader *C)
{
    free(C->y);
    free(C->idx);
    free(C->val);
    free(C->rowend);
    free(C->x);
    C->y = NULL;
    C->idx = NULL;
    C->val = NULL;
    C->rowend = NULL;
    C->x = NULL;
}

static void chunk_free(reader *C)
{
    free(C->lr.buf);
    drop_rows(C);
}

/* err says "path:LINE: ..." with the chunk's own line: say it again with
 * the file's line. */
static tsgs_status relocate_error(const char *path, long line_base,
                                  tsgs_status st, tsgs_error *err)
{
    if (!err || err->line <= 0)
        return st;
    int k = snprintf(NULL, 0, "%s:%ld: ", path, err->line);
    char msg[TSGS_ERROR_MESSAGE_MAX];
    size_t len = strlen(err->message);
    snprintf(msg, sizeof msg, "%s",
             k > 0 && (size_t)k <= len ? err->message + k : err->message);
    return tsgs__fail(err, st, path, line_base + err->line, "%s", msg);
}

/* Writes the rows of part K (LIBSVM pairs or CSV rows R->d wide) into x,
 * d wide, from row r0 on; y likewise. */
static void put_part(const reader *K, tsgs_format fmt, size_t d, size_t r0,
                     float *x, double *y)
{
    if (K->n == 0)
        return; /* an empty chunk allocated nothing */
    memcpy(y + r0, K->y, sizeof(double) * K->n);
    if (fmt == TSGS_FORMAT_LIBSVM) {
        size_t j = 0;
        for (size_t i = 0; i < K->n; i++) {
            float *row = x + (r0 + i) * d;
            for (; j < K->rowend[i]; j++)
                row[K->idx[j] - 1] = K->val[j];
        }
    } else if (d == K->d) {
        memcpy(x + r0 * d, K->x, sizeof(float) * K->n * d);
    } else {
        for (size_t i = 0; i < K->n; i++)
            memcpy(x + (r0 + i) * d, K->x + i * K->d, sizeof(float) * K->d);
    }
}

/* finish_parts for sparse rows: R's then the chunks' (row0[c]: the first
 * row of chunk c) into a dataset of n rows d wide (finish_sparse). */
static tsgs_status finish_parts_sparse(reader *R, reader *C, int nc,
                                       const size_t *row0, size_t n, size_t d,
                                       int threads, tsgs_dataset **out,
                                       tsgs_error *err)
{
    reader **part = malloc(sizeof(reader *) * (size_t)(nc + 1));
    size_t *first = malloc(sizeof(size_t) * (size_t)(nc + 1));
    tsgs_status st;
    if (!part || !first) {
        st = TSGS__NOMEM(err);
    } else {
        part[0] = R;
        first[0] = 0;
        for (int c = 0; c < nc; c++) {
            part[c + 1] = &C[c];
            first[c + 1] = row0[c];
        }
        st = finish_sparse(part, nc + 1, first, n, d, threads, out, err);
    }
    free(part);
    free(first);
    return st;
}

/* finish_parts for dense rows (all: R's settings with every part's
 * counts; d: the LIBSVM width so far): R's rows then the chunks', each
 * chunk written by a thread and let go once written. */
static tsgs_status finish_parts_dense(reader *R, tsgs_format fmt, reader *C,
                                      int nc, const size_t *row0,
                                      const reader *all, size_t d,
                                      int threads, tsgs_dataset **out,
                                      tsgs_error *err)
{
    tsgs_status st = final_width(all, fmt, &d, err);
    if (st != TSGS_OK)
        return st;
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->y = malloc(sizeof(double) * all->n))) {
        tsgs_dataset_free(ds);
        return TSGS__NOMEM(err);
    }
    /* zeros where rows are sparse or padded; written once otherwise */
    int zero = fmt == TSGS_FORMAT_LIBSVM || d != R->d;
    ds->x = zero ? calloc(all->n * d, sizeof(float))
                 : malloc(sizeof(float) * all->n * d);
    if (!ds->x) {
        tsgs_dataset_free(ds);
        return rows_too_big(all, d, err);
    }
    put_part(R, fmt, d, 0, ds->x, ds->y);
    (void)threads;
    /* Each chunk's rows are let go once written: the dataset's pages are
     * touched only as they are written, so the peak stays near one copy
     * of the rows plus the chunks in hand (both copies whole, 2.5 GB for
     * 10.5M x 28, against 1.5 GB before the split read). */
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (int c = 0; c < nc; c++) {
        put_part(&C[c], fmt, d, row0[c], ds->x, ds->y);
        drop_rows(&C[c]);
    }
    ds->n = ds->cap = all->n;
    ds->d = d;
    *out = ds;
    return TSGS_OK;
}

/* The dataset of R's rows then the chunks', in file order: each part
 * written straight into the rows by a thread (as finish does for one). */
static tsgs_status finish_parts(reader *R, tsgs_format fmt, reader *C,
                                int nc, int threads, tsgs_dataset **out,
                                tsgs_error *err)
{
    reader all = *R; /* R's settings with every part's counts */
    size_t *row0 = malloc(sizeof(size_t) * (size_t)(nc + 1));
    if (!row0)
        return TSGS__NOMEM(err);
    row0[0] = R->n;
    for (int c = 0; c < nc; c++) {
        row0[c + 1] = row0[c] + C[c].n;
        if (C[c].dmax > all.dmax)
            all.dmax = C[c].dmax;
    }
    all.n = row0[nc];
    size_t d = 0;
    tsgs_status st;
    if (fmt == TSGS_FORMAT_LIBSVM && all.n > 0) {
        size_t nnz = R->np;
        for (int c = 0; c < nc; c++)
            nnz += C[c].np;
        d = all.dmax > R->opt->min_features ? all.dmax
                                             : R->opt->min_features;
        if (d > 0 && !tsgs__keep_dense(all.n, d, nnz)) {
            st = finish_parts_sparse(R, C, nc, row0, all.n, d, threads, out,
                                     err);
            free(row0);
            return st;
        }
    }
    st = finish_parts_dense(R, fmt, C, nc, row0, &all, d, threads, out, err);
    free(row0);
    return st;
}

/* The dataset of R's rows (R has just read the first data row) and the
 * lines after them, split at line starts into chunks parsed side by
 * side. */
static tsgs_status read_range_split(reader *R, tsgs_format fmt,
                                    const split_plan *sp, uint64_t from,
                                    uint64_t to, size_t *pairs,
                                    tsgs_dataset **out, tsgs_error *err);

static tsgs_status read_rest_split(reader *R, tsgs_format fmt,
                                   const split_plan *sp, tsgs_dataset **out,
                                   tsgs_error *err)
{
    uint64_t from = R->lr.base + R->lr.pos;
    if (from >= sp->size)
        return finish(R, fmt, out, err);
    return read_range_split(R, fmt, sp, from, sp->size, NULL, out, err);
}

/* An empty dataset d wide (a share of a file with no rows in it). */
static tsgs_status empty_rows(size_t d, tsgs_dataset **out, tsgs_error *err)
{
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->y = malloc(sizeof(double))) ||
        !(ds->x = malloc(sizeof(float)))) {
        tsgs_dataset_free(ds);
        return TSGS__NOMEM(err);
    }
    ds->d = d;
    *out = ds;
    return TSGS_OK;
}

/* A share's LIBSVM pairs into *pairs; with no rows at all, an empty
 * dataset (*st its status): returns 1 then. */
static int share_counts(const reader *R, tsgs_format fmt, const reader *C,
                        int nc, size_t *pairs, tsgs_dataset **out,
                        tsgs_status *st, tsgs_error *err)
{
    size_t n = R->n, np = R->np, dmax = R->dmax;
    for (int c = 0; c < nc; c++) {
        n += C[c].n;
        np += C[c].np;
        dmax = C[c].dmax > dmax ? C[c].dmax : dmax;
    }
    *pairs = np;
    if (n > 0)
        return 0;
    size_t d = fmt == TSGS_FORMAT_LIBSVM ? dmax : R->d;
    *st = empty_rows(d > R->opt->min_features ? d : R->opt->min_features,
                     out, err);
    return 1;
}

/* R's rows then the lines of [from, to) (from at a line start), split
 * into chunks parsed side by side; *pairs (unless NULL): the LIBSVM pairs
 * read. With pairs, no rows at all give an empty dataset (a share). */
static tsgs_status read_range_split(reader *R, tsgs_format fmt,
                                    const split_plan *sp, uint64_t from,
                                    uint64_t to, size_t *pairs,
                                    tsgs_dataset **out, tsgs_error *err)
{
    uint64_t rest = to > from ? to - from : 0;
    /* Several chunks per thread, taken as threads come free: on a shared
     * machine one thread may get less of its core than another. */
    int nc = sp->threads > INT32_MAX / SPLIT_PER_THREAD
                 ? INT32_MAX
                 : sp->threads * SPLIT_PER_THREAD;
    if (rest / sp->min_chunk < (uint64_t)nc)
        nc = rest / sp->min_chunk > 0 ? (int)(rest / sp->min_chunk) : 1;
    if (sp->threads < 2)
        nc = 1;
    tsgs_status st = TSGS_OK;
    uint64_t *bound = malloc(sizeof(uint64_t) * (size_t)(nc + 1));
    reader *C = calloc((size_t)nc, sizeof *C);
    tsgs_error *errs = calloc((size_t)nc, sizeof *errs);
    tsgs_status *sts = calloc((size_t)nc, sizeof *sts);
    if (!bound || !C || !errs || !sts) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    bound[0] = from;
    bound[nc] = to;
    for (int c = 1; c < nc; c++) {
        uint64_t s = from + rest / (uint64_t)nc * (uint64_t)c;
        if ((st = line_start_from(sp, R->path, s, &bound[c], err)) !=
            TSGS_OK)
            goto done;
        if (bound[c] < bound[c - 1])
            bound[c] = bound[c - 1];
        if (bound[c] > to)
            bound[c] = to;
    }
    int threads = sp->threads < nc ? sp->threads : nc;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        line_buffer b = {NULL, 0};
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int c = 0; c < nc; c++)
            sts[c] = parse_chunk(R, fmt, sp, bound[c], bound[c + 1], &b,
                                 &C[c], &errs[c]);
        free(b.buf);
    }
    long line_base = R->lr.line;
    for (int c = 0; c < nc; c++) {
        if (sts[c] != TSGS_OK) {
            if (err)
                *err = errs[c];
            st = relocate_error(R->path, line_base, sts[c], err);
            goto done;
        }
        line_base += C[c].lr.line;
    }
    R->lr.line = line_base;
    if (!pairs || !share_counts(R, fmt, C, nc, pairs, out, &st, err))
        st = finish_parts(R, fmt, C, nc, threads, out, err);
done:
    for (int c = 0; C && c < nc; c++)
        chunk_free(&C[c]);
    free(C);
    free(errs);
    free(sts);
    free(bound);
    return st;
}

/* A .npy file: mapped by npy.c from its path, so only uncompressed. */
static tsgs_status read_npy(reader *R, tsgs_dataset **out, tsgs_error *err)
{
    if (strcmp(tsgs__istream_kind(R->lr.in), "plain") != 0)
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, R->path, 0,
                          "a %s-compressed .npy file: decompress it first "
                          "(a .npy is mapped, not parsed)",
                          tsgs__istream_kind(R->lr.in));
    return tsgs__npy_read(R->path, R->opt, out, err);
}

/* ------------------------------------------------ the lines in order */

/* A text read in progress: the reader, its format, and what the first
 * lines settle. */
typedef struct {
    reader R;
    tsgs_format fmt;
    int npy;            /* a .npy: npy.c reads it, not the lines */
    int header_pending; /* CSV: the header may still come */
    /* HEPMASS writes its header as a comment ("# label,f0,...,mass"): the
     * fields of a first line like that, to tell with header = yes whether
     * it was the header (0: none). */
    int hash_fields, first_line;
    tsgs__stop halt; /* the caller's stop: R.lr.halt points here */
} text_read;

static tsgs_status check_options(const char *path,
                                 const tsgs_read_options *opt,
                                 tsgs_error *err)
{
    if (opt->format != TSGS_FORMAT_AUTO && opt->format != TSGS_FORMAT_LIBSVM &&
        opt->format != TSGS_FORMAT_CSV && opt->format != TSGS_FORMAT_NPY)
        return tsgs__fail(err, TSGS_ERR_PARAM, path, 0,
                          "format: unknown value %d", (int)opt->format);
    if (opt->label_column < TSGS_LABEL_COLUMN_AUTO || opt->skip_columns < 0 ||
        opt->header < -1 || opt->header > 1)
        return tsgs__fail(err, TSGS_ERR_PARAM, path, 0,
                          "read options: label column %d, skip columns %d, "
                          "header %d (expected >= -1, >= 0, -1 .. 1)",
                          opt->label_column, opt->skip_columns, opt->header);
    if (opt->min_features > MAX_INDEX)
        return tsgs__fail(err, TSGS_ERR_PARAM, path, 0,
                          "min features %zu is larger than %lu",
                          opt->min_features, MAX_INDEX);
    return TSGS_OK;
}

/* Frees what t holds (again: nothing). */
static void text_close(text_read *t)
{
    reader *R = &t->R;
    tsgs__istream_close(R->lr.in);
    free(R->lr.buf);
    free(R->y);
    free(R->idx);
    free(R->val);
    free(R->rowend);
    free(R->x);
    R->lr.in = NULL;
    R->lr.buf = NULL;
    R->y = NULL;
    R->idx = NULL;
    R->val = NULL;
    R->rowend = NULL;
    R->x = NULL;
}

/* Opens path and reads enough of it to tell a .npy, a byte order mark and
 * the format. text_close frees t, on failure too. */
static tsgs_status text_open(text_read *t, const char *path,
                             const tsgs_read_options *opt, tsgs_error *err)
{
    memset(t, 0, sizeof *t);
    reader *R = &t->R;
    R->path = path;
    R->opt = opt;
    R->lr.path = path;
    R->lr.fd = -1;
    t->first_line = 1;
    tsgs__stop_init_fn(&t->halt, opt->should_stop, opt->stop_user);
    R->lr.halt = &t->halt;
    tsgs_status st = tsgs__istream_open(path, opt->threads, &R->lr.in, err);
    if (st != TSGS_OK)
        return st;
    R->lr.cap = READ_CHUNK;
    R->lr.buf = malloc(R->lr.cap + 1);
    if (!R->lr.buf)
        return TSGS__NOMEM(err);
    /* Enough bytes to tell a .npy magic or a byte order mark: a compressed
     * stream or a pipe may hand over fewer in its first read, and the
     * same text must read the same whichever way it comes. */
    do
        if ((st = fill(&R->lr, err)) != TSGS_OK)
            return st;
    while (R->lr.end < 8 && !R->lr.eof);
    if (tsgs__npy_magic(R->lr.buf, R->lr.end)) {
        t->npy = 1;
        return TSGS_OK;
    }
    /* A UTF-8 byte order mark (spreadsheet exports) is not data. */
    if (R->lr.end >= 3 && memcmp(R->lr.buf, "\xef\xbb\xbf", 3) == 0)
        R->lr.pos = 3;
    /* NPY asked of a text file: as AUTO (a .npy is told by its magic) */
    t->fmt = opt->format == TSGS_FORMAT_NPY ? TSGS_FORMAT_AUTO : opt->format;
    if (t->fmt == TSGS_FORMAT_AUTO)
        while (!detect(R, &t->fmt))
            if ((st = fill(&R->lr, err)) != TSGS_OK)
                return st;
    t->header_pending = t->fmt == TSGS_FORMAT_CSV && opt->header != 0;
    return TSGS_OK;
}

/* One line: a data row added to t's reader, or a line skipped (blank, a
 * comment, the CSV header). */
static tsgs_status text_line(text_read *t, const char *line, size_t len,
                             tsgs_error *err)
{
    reader *R = &t->R;
    const char *p = line, *e = line + len;
    if (skippable(p, e)) {
        const char *h = skip_ws(p, e);
        if (t->first_line && h < e && t->fmt == TSGS_FORMAT_CSV &&
            memchr(h, ',', (size_t)(e - h)))
            t->hash_fields = count_fields(h + 1, e, ',');
        t->first_line &= h == e;
        return TSGS_OK;
    }
    t->first_line = 0;
    if (t->fmt == TSGS_FORMAT_LIBSVM)
        return libsvm_line(R, skip_ws(p, e), e, err);
    if (R->delim == 0)
        R->delim = memchr(p, ',', len) ? ',' : ' ';
    if (t->header_pending) {
        t->header_pending = 0;
        int header_was_comment = t->hash_fields > 0 && R->delim == ',' &&
                                 t->hash_fields == count_fields(p, e, ',') &&
                                 !looks_like_header(R, p, e);
        if ((R->opt->header == 1 && !header_was_comment) ||
            looks_like_header(R, p, e)) {
            R->header_labcol = header_label_column(R, p, e);
            R->header_seen = 1;
            return TSGS_OK;
        }
    }
    return csv_line(R, p, e, err);
}

/* The layout t's options resolved to (its first data row settled it). */
static tsgs_data_layout text_layout(const text_read *t)
{
    const reader *R = &t->R;
    tsgs_data_layout L;
    memset(&L, 0, sizeof L);
    L.known = 1;
    L.format = t->fmt;
    if (t->fmt == TSGS_FORMAT_CSV) {
        L.label_column = R->opt->label_column == -1 ? -1 : R->labcol;
        L.skip_columns = R->opt->skip_columns;
        L.header = R->header_seen;
        L.columns = (size_t)R->ncols;
    }
    L.has_unlabeled_label = R->opt->has_unlabeled_label != 0;
    if (L.has_unlabeled_label)
        L.unlabeled_label = R->opt->unlabeled_label;
    return L;
}

/* Every line of t into one dataset. After the first data row (which
 * settles the format, the header and the columns), the rest of a large
 * plain file is parsed in parallel. */
static tsgs_status read_all(text_read *t, size_t min_chunk,
                            tsgs_dataset **out, tsgs_error *err)
{
    split_plan sp;
    int split = plan_split(&t->R, min_chunk, &sp);
    for (;;) {
        char *line;
        size_t len;
        tsgs_status st = next_line(&t->R.lr, &line, &len, err);
        if (st != TSGS_OK)
            return st;
        if (!line)
            break;
        if ((st = text_line(t, line, len, err)) != TSGS_OK)
            return st;
        if (split && t->R.n == 1)
            return read_rest_split(&t->R, t->fmt, &sp, out, err);
    }
    return finish(&t->R, t->fmt, out, err);
}

tsgs_status tsgs_dataset_read(const char *path, const tsgs_read_options *opt,
                              tsgs_dataset **out, tsgs_error *err)
{
    return tsgs__dataset_read_split(path, opt, SPLIT_MIN_CHUNK, out, err);
}

tsgs_status tsgs__dataset_read_split(const char *path,
                                     const tsgs_read_options *opt,
                                     size_t min_chunk, tsgs_dataset **out,
                                     tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_read: NULL argument");
    tsgs_read_options defaults = tsgs_read_options_default();
    if (!opt)
        opt = &defaults;
    tsgs_status st = check_options(path, opt, err);
    if (st != TSGS_OK)
        return st;
    text_read t;
    st = text_open(&t, path, opt, err);
    if (st == TSGS_OK)
        st = t.npy ? read_npy(&t.R, out, err)
                   : read_all(&t, min_chunk, out, err);
    if (st == TSGS_OK && !t.npy) /* npy.c gives a .npy's its layout */
        (*out)->layout = text_layout(&t);
    text_close(&t);
    return st;
}

/* ------------------------------------------------ a process's share */

tsgs_status tsgs__read_error_relocate(const char *path, long line_base,
                                      tsgs_status st, tsgs_error *err)
{
    return relocate_error(path, line_base, st, err);
}

/* The byte range of part `part` of `parts` of [from, size): split at
 * from + rest k / parts, each moved on to the next line start. */
static tsgs_status share_bound(const split_plan *sp, const char *path,
                               uint64_t from, int k, int parts,
                               uint64_t *at, tsgs_error *err)
{
    if (k <= 0) {
        *at = from;
        return TSGS_OK;
    }
    if (k >= parts) {
        *at = sp->size;
        return TSGS_OK;
    }
    const uint64_t rest = sp->size - from;
    /* rest x k without overflow: rest < 2^63, parts < 2^31 */
    const uint64_t s = from + rest / (uint64_t)parts * (uint64_t)k +
                       rest % (uint64_t)parts * (uint64_t)k / (uint64_t)parts;
    tsgs_status st = line_start_from(sp, path, s, at, err);
    if (st == TSGS_OK && *at < from)
        *at = from;
    return st;
}

/* A file that cannot be read by ranges (compressed, a pipe): read whole,
 * then rows [n part / parts, n (part + 1) / parts) kept. */
static tsgs_status share_of_whole(text_read *t, int part, int parts,
                                  tsgs__share *out, tsgs_error *err)
{
    tsgs_dataset *all = NULL;
    tsgs_status st = read_all(t, SIZE_MAX, &all, err);
    if (st != TSGS_OK)
        return st;
    const size_t n = all->n;
    const size_t lo = (size_t)((unsigned __int128)n * (unsigned)part /
                               (unsigned)parts);
    const size_t hi = (size_t)((unsigned __int128)n * (unsigned)(part + 1) /
                               (unsigned)parts);
    size_t *rows = malloc(sizeof(size_t) * (hi > lo ? hi - lo : 1));
    if (!rows) {
        tsgs_dataset_free(all);
        return TSGS__NOMEM(err);
    }
    for (size_t i = lo; i < hi; i++)
        rows[i - lo] = i;
    if (hi == lo)
        st = empty_rows(all->d, &out->ds, err);
    else
        st = tsgs_dataset_select(all, rows, hi - lo, &out->ds, err);
    free(rows);
    tsgs_dataset_free(all);
    if (st != TSGS_OK)
        return st;
    out->nnz = tsgs__dataset_nnz(out->ds);
    out->from = lo;
    out->to = hi;
    out->whole = 1;
    out->lines = t->R.lr.line;
    return TSGS_OK;
}

/* Every part reads the lines up to the first data row: they settle the
 * format, the header and the columns, as for one process; none is the
 * one-process read's error. */
static tsgs_status read_head(text_read *t, tsgs_error *err)
{
    tsgs_status st;
    for (;;) {
        char *line;
        size_t len;
        if ((st = next_line(&t->R.lr, &line, &len, err)) != TSGS_OK)
            return st;
        if (!line)
            break;
        if ((st = text_line(t, line, len, err)) != TSGS_OK)
            return st;
        if (t->R.n == 1)
            return TSGS_OK;
    }
    tsgs_dataset *none = NULL;
    st = finish(&t->R, t->fmt, &none, err);
    tsgs_dataset_free(none);
    return st;
}

/* One thread: the head's reader goes on through [lo, hi) and hands its
 * rows over whole (a parallel read's chunks are copied into the dataset:
 * twice the share's memory at the end). */
static tsgs_status read_range_serial(text_read *t, const split_plan *sp,
                                     uint64_t lo, uint64_t hi,
                                     tsgs__share *out, tsgs_error *err)
{
    lreader *lr = &t->R.lr;
    lr->fd = sp->fd;
    lr->at = lo;
    lr->stop = hi;
    lr->base = lo;
    lr->pos = lr->end = lr->scanned = 0;
    lr->eof = 0;
    tsgs_status st = parse_lines(&t->R, t->fmt, err);
    out->nnz = t->R.np;
    if (st != TSGS_OK)
        return st;
    if (t->R.n > 0)
        return finish(&t->R, t->fmt, &out->ds, err);
    size_t d = t->fmt == TSGS_FORMAT_LIBSVM ? t->R.dmax : t->R.d;
    const size_t least = t->R.opt->min_features;
    return empty_rows(d > least ? d : least, &out->ds, err);
}

/* Part `part`'s byte range of the lines after the head, parsed. */
static tsgs_status read_share_range(text_read *t, const split_plan *sp,
                                    int part, int parts, tsgs__share *out,
                                    tsgs_error *err)
{
    tsgs_status st;
    const uint64_t from = t->R.lr.base + t->R.lr.pos;
    uint64_t lo = from, hi = sp->size;
    if (from < sp->size &&
        ((st = share_bound(sp, t->R.path, from, part, parts, &lo, err)) !=
             TSGS_OK ||
         (st = share_bound(sp, t->R.path, from, part + 1, parts, &hi,
                           err)) != TSGS_OK))
        return st;
    if (hi < lo)
        hi = lo;
    if (part > 0) { /* the first data row is part 0's */
        reader *R = &t->R;
        drop_rows(R);
        R->n = R->np = R->ycap = R->pcap = R->rcap = R->xcap = 0;
        R->dmax = 0;
        R->lr.line = 0; /* errors: lines of this range */
        out->relative = 1;
    }
    st = sp->threads < 2
             ? read_range_serial(t, sp, lo, hi, out, err)
             : read_range_split(&t->R, t->fmt, sp, lo, hi, &out->nnz,
                                &out->ds, err);
    out->lines = t->R.lr.line;
    out->from = lo;
    out->to = hi;
    return st;
}

tsgs_status tsgs__dataset_read_share(const char *path,
                                     const tsgs_read_options *opt, int part,
                                     int parts, tsgs__share *out,
                                     tsgs_error *err)
{
    if (!path || !out || parts < 1 || part < 0 || part >= parts)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs__dataset_read_share: part %d of %d", part,
                          parts);
    memset(out, 0, sizeof *out);
    tsgs_read_options defaults = tsgs_read_options_default();
    if (!opt)
        opt = &defaults;
    tsgs_status st = check_options(path, opt, err);
    if (st != TSGS_OK)
        return st;
    text_read t;
    if ((st = text_open(&t, path, opt, err)) != TSGS_OK)
        goto done;
    if (t.npy) {
        if (strcmp(tsgs__istream_kind(t.R.lr.in), "plain") != 0)
            st = read_npy(&t.R, &out->ds, err); /* its error */
        else
            st = tsgs__npy_read_share(path, opt, part, parts, out, err);
        goto done;
    }
    if ((st = read_head(&t, err)) != TSGS_OK)
        goto done;
    split_plan sp;
    memset(&sp, 0, sizeof sp);
    struct stat sb;
    sp.fd = tsgs__istream_plain_fd(t.R.lr.in);
    if (sp.fd < 0 || fstat(sp.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = share_of_whole(&t, part, parts, out, err);
        goto done;
    }
    sp.size = (uint64_t)sb.st_size;
    sp.threads = tsgs__threads_resolve(opt->threads);
    sp.min_chunk = SPLIT_MIN_CHUNK;
    st = read_share_range(&t, &sp, part, parts, out, err);
done:
    if (st == TSGS_OK && !t.npy)
        out->ds->layout = text_layout(&t);
    text_close(&t);
    if (st != TSGS_OK) {
        tsgs_dataset_free(out->ds);
        out->ds = NULL;
    }
    return st;
}

/* ------------------------------------------------- reading in blocks */

struct tsgs_reader {
    text_read t;
    tsgs_read_options opt; /* the caller's, copied: t.R.opt points here */
    char *path;
    tsgs_dataset *whole;   /* a .npy, mapped whole, handed out in blocks */
    size_t next_row;       /* whole: the first row not yet handed out */
    size_t rows;           /* rows handed out so far */
    int any_pair;          /* LIBSVM: a row so far had an index:value */
    int at_end;            /* the last line has been read */
    tsgs_status failed;    /* what ended the read, or TSGS_OK */
};

/* A block's rows have gone into its dataset (which took y, and CSV's x,
 * where it could): the counts start again, the arrays still held are kept
 * for the next block, and so is the widest row (blocks never narrow). */
static void rows_reset(reader *R)
{
    if (!R->y)
        R->ycap = 0;
    if (!R->x)
        R->xcap = 0;
    R->n = R->np = 0;
}

/* Lines up to max_rows data rows (fewer at the end of the file) into a
 * block; *block NULL after the last row. */
static tsgs_status text_block(tsgs_reader *r, size_t max_rows,
                              tsgs_dataset **block, tsgs_error *err)
{
    reader *R = &r->t.R;
    tsgs_status st;
    while (!r->at_end && R->n < max_rows) {
        char *line;
        size_t len;
        if ((st = next_line(&R->lr, &line, &len, err)) != TSGS_OK)
            return st;
        if (!line)
            r->at_end = 1;
        else if ((st = text_line(&r->t, line, len, err)) != TSGS_OK)
            return st;
    }
    const int libsvm = r->t.fmt == TSGS_FORMAT_LIBSVM;
    r->any_pair |= R->np > 0;
    if (R->n == 0 && r->rows > 0) {
        /* empty rows only: the whole read fails, so this one does too */
        if (libsvm && !r->any_pair && R->opt->min_features == 0)
            return no_features(R, err);
        *block = NULL;
        return TSGS_OK;
    }
    /* Empty LIBSVM rows so far: a block one feature wide (of zeros), as
     * later rows may have features. */
    if (libsvm && R->dmax == 0 && R->n > 0)
        R->dmax = 1;
    /* (a file without rows fails here as tsgs_dataset_read does) */
    tsgs_dataset *b = NULL;
    st = finish(R, r->t.fmt, &b, err);
    rows_reset(R);
    if (st != TSGS_OK)
        return st;
    r->rows += b->n;
    b->layout = text_layout(&r->t);
    *block = b;
    return TSGS_OK;
}

/* The next rows of a .npy read whole, copied. */
static tsgs_status npy_block(tsgs_reader *r, size_t max_rows,
                             tsgs_dataset **block, tsgs_error *err)
{
    const tsgs_dataset *w = r->whole;
    size_t n = w->n - r->next_row < max_rows ? w->n - r->next_row : max_rows;
    if (n == 0) {
        *block = NULL;
        return TSGS_OK;
    }
    tsgs_status st = tsgs_dataset_from_dense(n, w->d,
                                             w->x + r->next_row * w->d,
                                             w->y + r->next_row, block, err);
    if (st == TSGS_OK) {
        (*block)->layout = w->layout;
        r->next_row += n;
        r->rows += n;
    }
    return st;
}

tsgs_status tsgs_reader_open(const char *path, const tsgs_read_options *opt,
                             tsgs_reader **out, tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_reader_open: NULL argument");
    tsgs_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return TSGS__NOMEM(err);
    }
    r->opt = opt ? *opt : tsgs_read_options_default();
    tsgs_status st = check_options(r->path, &r->opt, err);
    if (st == TSGS_OK)
        st = text_open(&r->t, r->path, &r->opt, err);
    r->t.R.blocks = 1;
    if (st == TSGS_OK && r->t.npy) {
        st = read_npy(&r->t.R, &r->whole, err);
        text_close(&r->t); /* the rows are in r->whole */
    }
    if (st != TSGS_OK) {
        tsgs_reader_close(r);
        return st;
    }
    *out = r;
    return TSGS_OK;
}

tsgs_status tsgs_reader_next(tsgs_reader *r, size_t max_rows,
                             tsgs_dataset **block, tsgs_error *err)
{
    if (!r || !block || max_rows == 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_reader_next: NULL argument or max_rows 0");
    if (r->failed != TSGS_OK)
        return tsgs__fail(err, r->failed, r->path, 0,
                          "the read stopped at an earlier error");
    tsgs_status st = r->whole ? npy_block(r, max_rows, block, err)
                              : text_block(r, max_rows, block, err);
    r->failed = st;
    return st;
}

void tsgs_reader_close(tsgs_reader *r)
{
    if (!r)
        return;
    text_close(&r->t);
    tsgs_dataset_free(r->whole);
    free(r->path);
    free(r);
}
