/* NumPy .npy files: the header checked field by field (magic, version,
 * descr, fortran_order, shape, data size), features mapped and used in
 * place when they are native float32 in C order (else converted), labels
 * from the companion NAME.labels.npy or a column; and writing that pair.
 * Every error names the file and the field or element at fault. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "data/data.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define NPY_MAGIC "\x93NUMPY"
#define NPY_PREAMBLE_MAX 12            /* magic, version, header length */
#define NPY_HEADER_MAX ((size_t)1 << 20) /* numpy's own headers are tiny */
#define NPY_ALIGN 64                   /* numpy pads the header to this */
#define NPY_MAX_DIMS 32

typedef struct {
    char kind; /* 'f' float, 'i' signed, 'u' unsigned integer */
    int size;  /* bytes per element */
    int swap;  /* stored in the other byte order than this machine's */
} npy_type;

typedef struct {
    char descr[32];
    npy_type type;
    int fortran;
    int ndim;
    uint64_t shape[NPY_MAX_DIMS];
    uint64_t data_off; /* the array's first byte */
    uint64_t count;    /* elements */
} npy_header;

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

int tsgs__npy_magic(const void *buf, size_t len)
{
    return len >= 6 && memcmp(buf, NPY_MAGIC, 6) == 0;
}

size_t tsgs_npy_labels_path(const char *features_path, char *out, size_t size)
{
    size_t n = strlen(features_path);
    int stem = n >= 4 && strcmp(features_path + n - 4, ".npy") == 0;
    int k = snprintf(out, size, "%.*s.labels.npy", (int)(stem ? n - 4 : n),
                     features_path);
    return k < 0 ? 0 : (size_t)k;
}

/* ------------------------------------------------------------ header */

/* "(5, 18)" for messages. */
static const char *shape_text(const npy_header *h, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < h->ndim && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%llu", i ? ", " : "",
                              (unsigned long long)h->shape[i]);
    if (k < size)
        snprintf(buf + k, size - k, h->ndim == 1 ? ",)" : ")");
    return buf;
}

/* A dtype string of one number per element: [<>|=] (f|i|u) size. */
static int parse_descr(const char *s, npy_type *t)
{
    char order = s[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return 0;
    char kind = s[1];
    if (kind != 'f' && kind != 'i' && kind != 'u')
        return 0;
    if (strcmp(s + 2, "1") && strcmp(s + 2, "2") && strcmp(s + 2, "4") &&
        strcmp(s + 2, "8"))
        return 0;
    int size = s[2] - '0';
    if (kind == 'f' && size != 4 && size != 8)
        return 0;
    if ((order == '|') != (size == 1)) /* numpy writes '|' for bytes only */
        return 0;
    t->kind = kind;
    t->size = size;
    t->swap = size > 1 && ((order == '<' && !host_little()) ||
                           (order == '>' && host_little()));
    return 1;
}

typedef struct {
    const char *p, *e;
    const char *path;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' ||
                           *c->p == '\r'))
        c->p++;
}

static int take(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A Python string literal without escapes, 'abc' or "abc". */
static int py_string(cursor *c, char *out, size_t size)
{
    skip_space(c);
    if (c->p >= c->e || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->e && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= size)
            return 0;
        out[n++] = *c->p++;
    }
    if (c->p >= c->e)
        return 0;
    c->p++;
    out[n] = '\0';
    return 1;
}

static int py_word(cursor *c, const char *w)
{
    skip_space(c);
    size_t n = strlen(w);
    if ((size_t)(c->e - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A shape tuple: "()", "(5,)", "(5, 18)", Python 2's "(5L, 18L)". */
static int py_shape(cursor *c, npy_header *h)
{
    if (!take(c, '('))
        return 0;
    h->ndim = 0;
    for (;;) {
        if (take(c, ')'))
            return 1;
        skip_space(c);
        if (c->p >= c->e || (unsigned)(*c->p - '0') > 9u ||
            h->ndim == NPY_MAX_DIMS)
            return 0;
        uint64_t v = 0;
        for (; c->p < c->e && (unsigned)(*c->p - '0') <= 9u; c->p++) {
            if (v > (UINT64_MAX - 9) / 10)
                return 0;
            v = v * 10 + (uint64_t)(*c->p - '0');
        }
        if (c->p < c->e && *c->p == 'L')
            c->p++;
        h->shape[h->ndim++] = v;
        if (!take(c, ',')) /* the tuple ends after its last number */
            return take(c, ')');
    }
}

static tsgs_status header_fail(const char *path, const char *what,
                               tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_PARSE, path, 0, "header: %s", what);
}

/* The header dictionary: exactly 'descr', 'fortran_order' and 'shape'. */
static tsgs_status parse_dict(const char *path, const char *text, size_t len,
                              npy_header *h, tsgs_error *err)
{
    cursor c = {text, text + len, path};
    if (len == 0 || text[len - 1] != '\n')
        return header_fail(path, "does not end with a newline", err);
    if (!take(&c, '{'))
        return header_fail(path, "expected a dictionary \"{...}\"", err);
    int seen[3] = {0, 0, 0};
    char key[32];
    while (!take(&c, '}')) {
        if (!py_string(&c, key, sizeof key) || !take(&c, ':'))
            return header_fail(path, "expected 'key': value", err);
        if (strcmp(key, "descr") == 0 && !seen[0]) {
            seen[0] = 1;
            skip_space(&c);
            if (c.p < c.e && *c.p == '[')
                return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                                  "header field 'descr': a structured "
                                  "dtype; expected one number per element "
                                  "(e.g. '<f4')");
            if (!py_string(&c, h->descr, sizeof h->descr))
                return header_fail(path, "field 'descr': expected a dtype "
                                         "string such as '<f4'", err);
            if (!parse_descr(h->descr, &h->type))
                return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                                  "header field 'descr' = '%s': not a "
                                  "float32/64 or integer dtype",
                                  h->descr);
        } else if (strcmp(key, "fortran_order") == 0 && !seen[1]) {
            seen[1] = 1;
            if (py_word(&c, "True"))
                h->fortran = 1;
            else if (py_word(&c, "False"))
                h->fortran = 0;
            else
                return header_fail(path, "field 'fortran_order': expected "
                                         "True or False", err);
        } else if (strcmp(key, "shape") == 0 && !seen[2]) {
            seen[2] = 1;
            if (!py_shape(&c, h))
                return header_fail(path, "field 'shape': expected a tuple "
                                         "of sizes such as (1000, 18)", err);
        } else {
            return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                              "header: key '%s' is %s", key,
                              strcmp(key, "descr") == 0 ||
                                      strcmp(key, "fortran_order") == 0 ||
                                      strcmp(key, "shape") == 0
                                  ? "given twice"
                                  : "not one of descr, fortran_order, "
                                    "shape");
        }
        if (!take(&c, ',')) {
            if (!take(&c, '}'))
                return header_fail(path, "expected ',' or '}' after a "
                                         "value", err);
            break;
        }
    }
    skip_space(&c);
    if (c.p != c.e)
        return header_fail(path, "text after the dictionary", err);
    static const char *const names[3] = {"descr", "fortran_order", "shape"};
    for (int i = 0; i < 3; i++)
        if (!seen[i])
            return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                              "header: field '%s' is missing", names[i]);
    return TSGS_OK;
}

/* Reads exactly n bytes at off; 0 when the file ends first. */
static int read_at(int fd, void *buf, size_t n, uint64_t off, int *e)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, (char *)buf + got, n - got,
                          (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            *e = errno;
        if (k <= 0)
            return 0;
        got += (size_t)k;
    }
    return 1;
}

/* The size of the file open as f, which must be a regular one. */
static tsgs_status regular_size(int f, const char *path, uint64_t *size,
                                tsgs_error *err)
{
    struct stat sb;
    if (fstat(f, &sb) != 0)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot stat: %s",
                          strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, path, 0,
                          "a .npy file is mapped, so it must be a regular "
                          "file (not a pipe or a device)");
    *size = (uint64_t)sb.st_size;
    return TSGS_OK;
}

/* The preamble of the file open as f (size bytes): the magic, version
 * 1.0, 2.0 or 3.0, and the header's length (*hlen), which follows in
 * *lenbytes bytes; h->data_off, where the data start, within the file. */
static tsgs_status read_preamble(int f, const char *path, uint64_t size,
                                 npy_header *h, size_t *lenbytes,
                                 uint64_t *hlen, tsgs_error *err)
{
    unsigned char pre[NPY_PREAMBLE_MAX];
    int e = 0;
    size_t have = size < sizeof pre ? (size_t)size : sizeof pre;
    if (!read_at(f, pre, have, 0, &e))
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "read failed: %s",
                          strerror(e ? e : EIO));
    if (!tsgs__npy_magic(pre, have))
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "magic: not a NumPy .npy file (it does not start "
                          "with \"\\x93NUMPY\")");
    if (have < 8)
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "truncated: the file ends inside the version");
    int major = pre[6], minor = pre[7];
    if ((major < 1 || major > 3) || minor != 0)
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "version %d.%d: expected 1.0, 2.0 or 3.0", major,
                          minor);
    *lenbytes = major == 1 ? 2 : 4;
    if (have < 8 + *lenbytes)
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "truncated: the file ends inside the header "
                          "length");
    *hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
    if (*lenbytes == 4)
        *hlen |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
    if (*hlen > NPY_HEADER_MAX)
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "header length %llu: larger than %zu bytes",
                          (unsigned long long)*hlen, NPY_HEADER_MAX);
    h->data_off = 8 + *lenbytes + *hlen;
    if (h->data_off > size)
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "truncated: the header needs %llu bytes, the file "
                          "has %llu",
                          (unsigned long long)h->data_off,
                          (unsigned long long)size);
    return TSGS_OK;
}

/* The header's dict (hlen bytes after the preamble's lenbytes length
 * bytes), read and parsed into h. */
static tsgs_status read_header(int f, const char *path, size_t lenbytes,
                               uint64_t hlen, npy_header *h, tsgs_error *err)
{
    char *text = malloc((size_t)hlen + 1);
    if (!text)
        return TSGS__NOMEM(err);
    int e = 0;
    tsgs_status st;
    if (!read_at(f, text, (size_t)hlen, 8 + lenbytes, &e)) {
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0, "read failed: %s",
                        strerror(e ? e : EIO));
    } else {
        text[hlen] = '\0';
        st = parse_dict(path, text, (size_t)hlen, h, err);
    }
    free(text);
    return st;
}

/* h->count, the elements of h's shape, which the size - h->data_off
 * bytes after the header must hold exactly. */
static tsgs_status check_data_size(const char *path, uint64_t size,
                                   npy_header *h, tsgs_error *err)
{
    uint64_t count = 1;
    for (int i = 0; i < h->ndim; i++) {
        if (h->shape[i] != 0 && count > UINT64_MAX / h->shape[i])
            return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                              "header field 'shape': the sizes overflow");
        count *= h->shape[i];
    }
    h->count = count;
    uint64_t data = size - h->data_off;
    char sh[96];
    if (count > UINT64_MAX / (uint64_t)h->type.size ||
        data != count * (uint64_t)h->type.size) {
        int trunc = count > UINT64_MAX / (uint64_t)h->type.size ||
                    data < count * (uint64_t)h->type.size;
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "%s: shape %s of '%s' needs %llu bytes of data "
                          "after the header, the file has %llu",
                          trunc ? "truncated" : "bytes after the array",
                          shape_text(h, sh, sizeof sh), h->descr,
                          (unsigned long long)(count *
                                               (uint64_t)h->type.size),
                          (unsigned long long)data);
    }
    return TSGS_OK;
}

/* Opens path and checks its header against its size: *fd open on
 * success. */
static tsgs_status npy_open(const char *path, int *fd, npy_header *h,
                            uint64_t *file_size, tsgs_error *err)
{
    memset(h, 0, sizeof *h);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot open: %s",
                          strerror(errno));
    uint64_t size = 0, hlen = 0;
    size_t lenbytes = 0;
    tsgs_status st = regular_size(f, path, &size, err);
    if (st == TSGS_OK)
        st = read_preamble(f, path, size, h, &lenbytes, &hlen, err);
    if (st == TSGS_OK)
        st = read_header(f, path, lenbytes, hlen, h, err);
    if (st == TSGS_OK)
        st = check_data_size(path, size, h, err);
    if (st != TSGS_OK) {
        close(f);
        return st;
    }
    *fd = f;
    *file_size = size;
    return TSGS_OK;
}

/* ---------------------------------------------------------- elements */

static double elem_value(const unsigned char *p, const npy_type *t)
{
    unsigned char b[8];
    if (t->swap) { /* into native order; the usual case reads p as it is */
        for (int i = 0; i < t->size; i++)
            b[i] = p[t->size - 1 - i];
        p = b;
    }
    if (t->kind == 'f') {
        if (t->size == 8) {
            double d;
            memcpy(&d, p, 8);
            return d;
        }
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    uint64_t u = 0;
    memcpy(&u, p, (size_t)t->size); /* native order */
    if (!host_little())
        u >>= 8 * (8 - t->size);
    if (t->kind == 'u')
        return (double)u;
    int shift = 64 - 8 * t->size; /* sign-extend */
    int64_t s = (int64_t)(u << shift) >> shift;
    return (double)s;
}

/* Offset of element (i, k) of an n x m array in bytes. */
static uint64_t elem_at(const npy_header *h, uint64_t i, uint64_t k)
{
    uint64_t n = h->shape[0], m = h->ndim == 2 ? h->shape[1] : 1;
    uint64_t e = h->fortran ? k * n + i : i * m + k;
    return e * (uint64_t)h->type.size;
}

static int threads_for(const tsgs_read_options *opt, uint64_t elems)
{
    int t = tsgs__threads_resolve(opt->threads);
    if (elems < ((uint64_t)1 << 16))
        return 1; /* too little work to start a team for */
    return t < 1 ? 1 : t;
}

/* ---------------------------------------------------------- reading */

typedef struct {
    const char *path;
    npy_header h;
    int fd;
    uint64_t size;
    unsigned char *map; /* the whole file */
} npy_file;

static void npy_file_close(npy_file *f)
{
    if (f->map)
        munmap(f->map, (size_t)f->size);
    if (f->fd >= 0)
        close(f->fd);
    f->map = NULL;
    f->fd = -1;
}

/* Maps the whole file (private: writes stay in this process); populated
 * read-only first, so that no page is copied until written. */
static tsgs_status npy_map(npy_file *f, int writable, tsgs_error *err)
{
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    void *m = mmap(NULL, (size_t)f->size, PROT_READ, flags, f->fd, 0);
    if (m == MAP_FAILED)
        return tsgs__fail(err, errno == ENOMEM ? TSGS_ERR_NOMEM : TSGS_ERR_IO,
                          f->path, 0, "cannot map the file: %s",
                          strerror(errno));
    f->map = m;
    if (writable && mprotect(m, (size_t)f->size, PROT_READ | PROT_WRITE))
        return tsgs__fail(err, TSGS_ERR_IO, f->path, 0,
                          "cannot map the file writable: %s",
                          strerror(errno));
    return TSGS_OK;
}

static tsgs_status npy_file_open(const char *path, npy_file *f,
                                 tsgs_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = path;
    return npy_open(path, &f->fd, &f->h, &f->size, err);
}

/* The label of a row: NaN is unlabeled (as np.nan is), an infinity is an
 * error, the unlabeled marker applies. Returns 0 on an infinity. */
static int take_label(double v, const tsgs_read_options *opt, double *out)
{
    if (isinf(v))
        return 0;
    if (isnan(v) || (opt->has_unlabeled_label && v == opt->unlabeled_label))
        v = TSGS_UNLABELED;
    *out = v;
    return 1;
}

/* Labels from the companion file: n numbers, shape (n,) or (n, 1). */
static tsgs_status read_companion_rows(const char *path, uint64_t n,
                                       uint64_t i0, uint64_t i1,
                                       const tsgs_read_options *opt,
                                       double *y, tsgs_error *err);

static tsgs_status read_companion(const char *path, uint64_t n,
                                  const tsgs_read_options *opt, double *y,
                                  tsgs_error *err)
{
    return read_companion_rows(path, n, 0, n, opt, y, err);
}

/* Labels [i0, i1) of the companion into y[0 .. i1 - i0). */
static tsgs_status read_companion_rows(const char *path, uint64_t n,
                                       uint64_t i0, uint64_t i1,
                                       const tsgs_read_options *opt,
                                       double *y, tsgs_error *err)
{
    npy_file f;
    char sh[96];
    tsgs_status st = npy_file_open(path, &f, err);
    if (st != TSGS_OK)
        return st;
    if (!(f.h.ndim == 1 || (f.h.ndim == 2 && f.h.shape[1] == 1)) ||
        f.h.shape[0] != n) {
        st = tsgs__fail(err, TSGS_ERR_DIM, path, 0,
                        "header field 'shape' = %s: expected (%llu,), one "
                        "label per row of the features",
                        shape_text(&f.h, sh, sizeof sh),
                        (unsigned long long)n);
        goto done;
    }
    if ((st = npy_map(&f, 0, err)) != TSGS_OK)
        goto done;
    const unsigned char *data = f.map + f.h.data_off;
    for (uint64_t i = i0; i < i1; i++) {
        double v = elem_value(data + i * (uint64_t)f.h.type.size, &f.h.type);
        if (!take_label(v, opt, &y[i - i0])) {
            st = tsgs__fail(err, TSGS_ERR_DATA, path, 0,
                            "element [%llu] = %g: label is infinite",
                            (unsigned long long)i, v);
            goto done;
        }
    }
done:
    npy_file_close(&f);
    return st;
}

/* Which columns of the features file are what. */
typedef struct {
    uint64_t n, ncols;
    int skip;     /* leading columns dropped */
    int labcol;   /* 1-based label column of the file, 0: none */
    size_t d;     /* features kept from the file */
    size_t d_out; /* with the zero padding of min_features */
} npy_layout;

static tsgs_status plan_layout(const npy_file *f, int companion,
                               const tsgs_read_options *o, npy_layout *L,
                               tsgs_error *err)
{
    char sh[96];
    const npy_header *h = &f->h;
    if (h->type.kind != 'f')
        return tsgs__fail(err, TSGS_ERR_PARSE, f->path, 0,
                          "header field 'descr' = '%s': features must be "
                          "float32 ('<f4') or float64 ('<f8')",
                          h->descr);
    if (h->ndim != 2)
        return tsgs__fail(err, TSGS_ERR_PARSE, f->path, 0,
                          "header field 'shape' = %s: expected 2 "
                          "dimensions (rows, features)",
                          shape_text(h, sh, sizeof sh));
    L->n = h->shape[0];
    L->ncols = h->shape[1];
    if (L->n == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, f->path, 0,
                          "no data rows (shape %s)",
                          shape_text(h, sh, sizeof sh));
    if (L->ncols > INT32_MAX)
        return tsgs__fail(err, TSGS_ERR_PARSE, f->path, 0,
                          "header field 'shape' = %s: too many columns",
                          shape_text(h, sh, sizeof sh));
    int ncols = (int)L->ncols;
    L->skip = o->skip_columns;
    L->labcol = companion ? 0
                          : o->label_column == -1 ? ncols
                          : o->label_column == TSGS_LABEL_COLUMN_AUTO
                              ? 1 /* no header to name it */
                              : o->label_column;
    if (L->labcol > ncols)
        return tsgs__fail(err, TSGS_ERR_PARAM, f->path, 0,
                          "label column %d: the array has only %d columns",
                          L->labcol, ncols);
    if (L->labcol > 0 && L->labcol <= L->skip)
        return tsgs__fail(err, TSGS_ERR_PARAM, f->path, 0,
                          "label column %d is among the %d skipped columns",
                          L->labcol, L->skip);
    if (L->skip + (L->labcol > 0) > ncols)
        return tsgs__fail(err, TSGS_ERR_PARAM, f->path, 0,
                          "skip columns %d: the array has only %d columns",
                          L->skip, ncols);
    L->d = (size_t)(ncols - L->skip - (L->labcol > 0));
    L->d_out = o->min_features > L->d ? o->min_features : L->d;
    if (L->d_out == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, f->path, 0,
                          "no features: shape %s",
                          shape_text(h, sh, sizeof sh));
    if (L->n > SIZE_MAX / sizeof(double) ||
        L->n > SIZE_MAX / sizeof(float) / L->d_out)
        return tsgs__fail(err, TSGS_ERR_NOMEM, f->path, 0,
                          "out of memory: %llu rows x %zu features",
                          (unsigned long long)L->n, L->d_out);
    return TSGS_OK;
}

/* Whether the features can be used where they lie in the file. */
static int in_place(const npy_file *f, const npy_layout *L)
{
    const npy_header *h = &f->h;
    return h->type.kind == 'f' && h->type.size == 4 && !h->type.swap &&
           !h->fortran && L->skip == 0 && L->labcol == 0 &&
           L->d_out == L->d && h->data_off % sizeof(float) == 0;
}

/* Copies the feature columns into x (n x d_out floats, zero padded) and
 * the label column into y; element (i, k) is reported as the file's
 * [i, k] when it is not usable. */
static tsgs_status convert_rows(const npy_file *f, const npy_layout *L,
                                const tsgs_read_options *opt, uint64_t i0,
                                uint64_t n, float *x, double *y, int threads,
                                tsgs_error *err);

static tsgs_status convert(const npy_file *f, const npy_layout *L,
                           const tsgs_read_options *opt, float *x, double *y,
                           int threads, tsgs_error *err)
{
    return convert_rows(f, L, opt, 0, L->n, x, y, threads, err);
}

/* The same for the file's rows [i0, i0 + n), into x and y from their
 * start (reported as the file's [i, k]). */
static tsgs_status convert_rows(const npy_file *f, const npy_layout *L,
                                const tsgs_read_options *opt, uint64_t i0,
                                uint64_t n, float *x, double *y, int threads,
                                tsgs_error *err)
{
    const unsigned char *data = f->map + f->h.data_off;
    const uint64_t ncols = L->ncols, none = UINT64_MAX;
    uint64_t first_bad = none;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    reduction(min : first_bad)
#endif
    for (uint64_t i = 0; i < n; i++) {
        float *row = x + i * L->d_out;
        size_t j = 0;
        uint64_t bad = none;
        const uint64_t fi = i0 + i; /* the file's row */
        for (uint64_t k = (uint64_t)L->skip; k < ncols; k++) {
            double v = elem_value(data + elem_at(&f->h, fi, k), &f->h.type);
            if (k + 1 == (uint64_t)L->labcol) {
                if (!take_label(v, opt, &y[i]) && bad == none)
                    bad = fi * ncols + k;
                continue;
            }
            if (!(fabs(v) <= FLT_MAX) && bad == none)
                bad = fi * ncols + k;
            row[j++] = (float)v;
        }
        if (bad < first_bad)
            first_bad = bad;
        for (; j < L->d_out; j++)
            row[j] = 0.0f;
    }
    if (first_bad == none)
        return TSGS_OK;
    uint64_t i = first_bad / ncols, k = first_bad % ncols;
    double v = elem_value(data + elem_at(&f->h, i, k), &f->h.type);
    int is_label = k + 1 == (uint64_t)L->labcol;
    return tsgs__fail(err, TSGS_ERR_DATA, f->path, 0,
                      "element [%llu, %llu] = %g: %s", (unsigned long long)i,
                      (unsigned long long)k, v,
                      is_label      ? "label is infinite"
                      : isfinite(v) ? "value is out of range for a float"
                                    : "value is NaN or infinite");
}

/* ds's rows from f (laid out by L): the mapping itself when it holds
 * them as they are (keep; f's mapping then ds's), checked finite, else
 * converted into an allocation of ds's own (labels of a label column
 * into ds->y). */
static tsgs_status fill_rows(npy_file *f, const npy_layout *L,
                             const tsgs_read_options *opt, int keep,
                             int threads, tsgs_dataset *ds, tsgs_error *err)
{
    if (!keep) {
        ds->x = malloc(sizeof(float) * (size_t)L->n * L->d_out);
        if (!ds->x)
            return tsgs__fail(err, TSGS_ERR_NOMEM, f->path, 0,
                              "out of memory: %llu rows x %zu features as "
                              "floats",
                              (unsigned long long)L->n, L->d_out);
        return convert(f, L, opt, ds->x, ds->y, threads, err);
    }
    ds->x = (float *)(void *)(f->map + f->h.data_off);
    size_t count = (size_t)L->n * L->d;
    size_t bad = tsgs__first_nonfinite(ds->x, count, threads);
    if (bad < count) {
        tsgs_status st = tsgs__fail(err, TSGS_ERR_DATA, f->path, 0,
                                    "element [%zu, %zu] = %g: value is NaN "
                                    "or infinite",
                                    bad / L->d, bad % L->d,
                                    (double)ds->x[bad]);
        ds->x = NULL;
        return st;
    }
    ds->map = f->map;
    ds->map_len = (size_t)f->size;
    f->map = NULL; /* the dataset owns the mapping now */
    return TSGS_OK;
}

/* The layout ds records (a model keeps it): the format, the label and
 * skipped columns as read, the unlabeled label. */
static void record_layout(tsgs_dataset *ds, const npy_layout *L,
                          const tsgs_read_options *opt)
{
    ds->layout.known = 1;
    ds->layout.format = TSGS_FORMAT_NPY;
    ds->layout.label_column =
        L->labcol > 0 && opt->label_column == -1 ? -1 : L->labcol;
    ds->layout.skip_columns = L->skip;
    ds->layout.columns = (size_t)L->ncols;
    ds->layout.has_unlabeled_label = opt->has_unlabeled_label != 0;
    if (opt->has_unlabeled_label)
        ds->layout.unlabeled_label = opt->unlabeled_label;
}

/* The file opened and its layout planned: the companion labels file's
 * path (*lpath, the caller frees it) and whether it is there. On failure
 * nothing stays open or allocated. */
static tsgs_status open_planned(const char *path, const tsgs_read_options *opt,
                                npy_file *f, npy_layout *L, char **lpath,
                                int *companion, tsgs_error *err)
{
    tsgs_status st = npy_file_open(path, f, err);
    if (st != TSGS_OK)
        return st;
    const size_t need = tsgs_npy_labels_path(path, NULL, 0) + 1;
    struct stat sb;
    if (!(*lpath = malloc(need))) {
        st = TSGS__NOMEM(err);
    } else {
        tsgs_npy_labels_path(path, *lpath, need);
        *companion = stat(*lpath, &sb) == 0;
        st = plan_layout(f, *companion, opt, L, err);
    }
    if (st != TSGS_OK) {
        npy_file_close(f);
        free(*lpath);
        *lpath = NULL;
    }
    return st;
}

tsgs_status tsgs__npy_read(const char *path, const tsgs_read_options *opt,
                           tsgs_dataset **out, tsgs_error *err)
{
    npy_file f;
    npy_layout L;
    tsgs_dataset *ds = NULL;
    char *lpath = NULL;
    int companion = 0;
    tsgs_status st = open_planned(path, opt, &f, &L, &lpath, &companion, err);
    if (st != TSGS_OK)
        return st;
    int threads = threads_for(opt, f.h.count);
    int keep = in_place(&f, &L);
    if ((st = npy_map(&f, keep, err)) != TSGS_OK)
        goto fail;
    ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->y = malloc(sizeof(double) * (size_t)L.n))) {
        st = TSGS__NOMEM(err);
        goto fail;
    }
    for (uint64_t i = 0; i < L.n; i++)
        ds->y[i] = TSGS_UNLABELED;
    ds->n = ds->cap = (size_t)L.n;
    ds->d = L.d_out;
    if ((st = fill_rows(&f, &L, opt, keep, threads, ds, err)) != TSGS_OK)
        goto fail;
    npy_file_close(&f);
    if (companion &&
        (st = read_companion(lpath, L.n, opt, ds->y, err)) != TSGS_OK)
        goto fail;
    free(lpath);
    record_layout(ds, &L, opt);
    *out = ds;
    return TSGS_OK;
fail:
    npy_file_close(&f);
    free(lpath);
    tsgs_dataset_free(ds);
    return st;
}

/* A share of the rows: [n part / parts, n (part + 1) / parts), converted
 * from a mapping that is not populated (only the share's pages are read)
 * and let go; labels from the companion's same rows. */
tsgs_status tsgs__npy_read_share(const char *path,
                                 const tsgs_read_options *opt, int part,
                                 int parts, tsgs__share *out,
                                 tsgs_error *err)
{
    npy_file f;
    npy_layout L;
    tsgs_dataset *ds = NULL;
    char *lpath = NULL;
    int companion = 0;
    tsgs_status st = open_planned(path, opt, &f, &L, &lpath, &companion, err);
    if (st != TSGS_OK)
        return st;
    const uint64_t lo = (uint64_t)((unsigned __int128)L.n * (unsigned)part /
                                   (unsigned)parts);
    const uint64_t hi = (uint64_t)((unsigned __int128)L.n *
                                   (unsigned)(part + 1) / (unsigned)parts);
    const size_t m = (size_t)(hi - lo);
    void *map = mmap(NULL, (size_t)f.size, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (map == MAP_FAILED) {
        st = tsgs__fail(err, errno == ENOMEM ? TSGS_ERR_NOMEM : TSGS_ERR_IO,
                        path, 0, "cannot map the file: %s", strerror(errno));
        goto fail;
    }
    f.map = map;
    ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->y = malloc(sizeof(double) * (m ? m : 1))) ||
        !(ds->x = malloc(sizeof(float) * (m ? m * L.d_out : 1)))) {
        st = tsgs__fail(err, TSGS_ERR_NOMEM, path, 0,
                        "out of memory: %zu rows x %zu features as floats",
                        m, L.d_out);
        goto fail;
    }
    for (size_t i = 0; i < m; i++)
        ds->y[i] = TSGS_UNLABELED;
    ds->n = ds->cap = m;
    ds->d = L.d_out;
    if ((st = convert_rows(&f, &L, opt, lo, m, ds->x, ds->y,
                           threads_for(opt, (uint64_t)m * L.ncols), err)) !=
        TSGS_OK)
        goto fail;
    npy_file_close(&f);
    if (companion && (st = read_companion_rows(lpath, L.n, lo, hi, opt,
                                               ds->y, err)) != TSGS_OK)
        goto fail;
    free(lpath);
    record_layout(ds, &L, opt);
    out->ds = ds;
    out->from = lo;
    out->to = hi;
    out->nnz = m * L.d_out;
    return TSGS_OK;
fail:
    npy_file_close(&f);
    free(lpath);
    tsgs_dataset_free(ds);
    return st;
}

/* ---------------------------------------------------------- writing */

/* Header of an array of this descr and shape text, padded with spaces so
 * that the data starts at a multiple of NPY_ALIGN; version 1.0 while the
 * length fits in two bytes. Returns the bytes written into buf. */
static size_t make_header(const char *descr, const char *shape,
                          unsigned char *buf, size_t size)
{
    char dict[256];
    int k = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    if (k < 0 || (size_t)k >= sizeof dict)
        return 0;
    size_t pre = 10, total = pre + (size_t)k + 1;
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total > size)
        return 0;
    size_t hlen = total - pre;
    memcpy(buf, NPY_MAGIC, 6);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + pre, dict, (size_t)k);
    memset(buf + pre + k, ' ', hlen - (size_t)k - 1);
    buf[total - 1] = '\n';
    return total;
}

/* The features of sparse rows written as dense ones, a row at a time
 * through one d-float buffer: memory O(d), whatever n x d comes to. */
static int write_sparse_rows(const tsgs_dataset *ds, float *row, FILE *f)
{
    for (size_t i = 0; i < ds->n; i++) {
        tsgs__row_dense(ds, i, row);
        if (fwrite(row, sizeof(float), ds->d, f) != ds->d)
            return 0;
    }
    return 1;
}

/* The array's header, then `bytes` of data, or (rows not NULL) the
 * sparse rows of `rows` made dense. */
static tsgs_status write_array(const char *path, const char *descr,
                               const char *shape, const void *data,
                               size_t bytes, const tsgs_dataset *rows,
                               tsgs_error *err)
{
    unsigned char head[512];
    size_t hn = make_header(descr, shape, head, sizeof head);
    if (hn == 0)
        return tsgs__fail(err, TSGS_ERR_INTERNAL, path, 0,
                          "the header does not fit");
    float *row = NULL;
    if (rows && !(row = malloc(sizeof(float) * (rows->d ? rows->d : 1))))
        return TSGS__NOMEM(err);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(row);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "cannot open for writing: %s", strerror(errno));
    }
    int ok = fwrite(head, 1, hn, f) == hn &&
             (rows ? write_sparse_rows(rows, row, f)
                   : bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    int e = errno;
    free(row);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(path); /* a partial file is not a data set */
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "writing failed: %s",
                          strerror(e ? e : EIO));
    }
    return TSGS_OK;
}

tsgs_status tsgs_dataset_save_npy(const tsgs_dataset *ds, const char *path,
                                  tsgs_error *err)
{
    if (!ds || !path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_save_npy: NULL argument");
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".npy") != 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, path, 0,
                          "the features file must end in .npy (its labels "
                          "go beside it as NAME.labels.npy)");
    /* sparse rows are written dense (np.load has no sparse .npy) */
    if (ds->d && ds->n > SIZE_MAX / sizeof(float) / ds->d)
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, path, 0,
                          "%zu rows x %zu features as dense float32 take "
                          "%.3g bytes, more than this machine can address",
                          ds->n, ds->d,
                          (double)ds->n * (double)ds->d * sizeof(float));
    size_t need = tsgs_npy_labels_path(path, NULL, 0) + 1;
    char *lpath = malloc(need);
    if (!lpath)
        return TSGS__NOMEM(err);
    tsgs_npy_labels_path(path, lpath, need);
    const char order = host_little() ? '<' : '>';
    char descr[8], shape[64];
    snprintf(descr, sizeof descr, "%cf4", order);
    snprintf(shape, sizeof shape, "(%zu, %zu)", ds->n, ds->d);
    tsgs_status st = write_array(path, descr, shape, ds->x,
                                 sizeof(float) * ds->n * ds->d,
                                 tsgs__sparse(ds) ? ds : NULL, err);
    if (st == TSGS_OK) {
        snprintf(descr, sizeof descr, "%cf8", order);
        snprintf(shape, sizeof shape, "(%zu,)", ds->n);
        st = write_array(lpath, descr, shape, ds->y,
                         sizeof(double) * ds->n, NULL, err);
        if (st != TSGS_OK)
            remove(path);
    }
    free(lpath);
    return st;
}
