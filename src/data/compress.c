/* Input streams: a file read as plain bytes or through gzip, xz, bzip2 or
 * zstd, chosen by the magic bytes at its start (so pipes work: nothing
 * seeks); xz files of several blocks decoded by liblzma's threads. */
#include "data/data.h"

#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Compressed bytes read per fread (the fuzz build makes it small). */
#ifndef RAW_BUF
#define RAW_BUF (1u << 18)
#endif

struct tsgs__istream {
    FILE *f;
    char *path;
    tsgs__compression kind;
    unsigned char *raw;  /* compressed input not yet consumed */
    size_t raw_pos, raw_len;
    int raw_eof;         /* fread reported end of file */
    int done;            /* the decoder has ended: no more output */
    int live;            /* the decoder below is initialised */
    z_stream z;
    lzma_stream x;
    bz_stream b;
    ZSTD_DStream *zs;
    int zs_in_frame;     /* zstd: the last frame read is not complete */
    int threads;         /* xz decoder threads, 0: resolve */
};

static const char *kind_name(tsgs__compression k)
{
    switch (k) {
    case TSGS__COMP_GZIP: return "gzip";
    case TSGS__COMP_XZ: return "xz";
    case TSGS__COMP_BZIP2: return "bzip2";
    case TSGS__COMP_ZSTD: return "zstd";
    case TSGS__COMP_NONE: break;
    }
    return "plain";
}

const char *tsgs__istream_kind(const tsgs__istream *s)
{
    return kind_name(s->kind);
}

int tsgs__istream_plain_fd(const tsgs__istream *s)
{
    return s->kind == TSGS__COMP_NONE ? fileno(s->f) : -1;
}

static tsgs_status io_fail(tsgs__istream *s, tsgs_error *err, int e)
{
    return tsgs__fail(err, TSGS_ERR_IO, s->path, 0, "read failed: %s",
                      strerror(e));
}

static tsgs_status corrupt(tsgs__istream *s, tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_PARSE, s->path, 0,
                      "truncated or corrupt %s data", kind_name(s->kind));
}

/* Refills the raw buffer when it is empty. */
static tsgs_status raw_fill(tsgs__istream *s, tsgs_error *err)
{
    if (s->raw_pos < s->raw_len || s->raw_eof)
        return TSGS_OK;
    s->raw_pos = 0;
    s->raw_len = fread(s->raw, 1, RAW_BUF, s->f);
    if (s->raw_len < RAW_BUF) {
        if (ferror(s->f))
            return io_fail(s, err, errno ? errno : EIO);
        s->raw_eof = 1;
    }
    return TSGS_OK;
}

static void decoder_end(tsgs__istream *s)
{
    if (!s->live)
        return;
    switch (s->kind) {
    case TSGS__COMP_GZIP: inflateEnd(&s->z); break;
    case TSGS__COMP_XZ: lzma_end(&s->x); break;
    case TSGS__COMP_BZIP2: BZ2_bzDecompressEnd(&s->b); break;
    case TSGS__COMP_ZSTD: ZSTD_freeDStream(s->zs); s->zs = NULL; break;
    case TSGS__COMP_NONE: break;
    }
    s->live = 0;
}

/* liblzma's threaded decoder: blocks with their sizes in their headers
 * (xz -T writes them) are decoded side by side, in order; a stream of one
 * block is decoded on one thread as before. The threads may use up to a
 * quarter of the memory; past that liblzma decodes on fewer. */
static lzma_ret xz_decoder_mt(tsgs__istream *s)
{
    lzma_mt mt;
    memset(&mt, 0, sizeof mt);
    mt.flags = LZMA_CONCATENATED;
    mt.threads = (uint32_t)tsgs__threads_resolve(s->threads);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    mt.memlimit_threading = pages > 0 && page > 0
                                ? (uint64_t)pages * (uint64_t)page / 4
                                : (uint64_t)1 << 30;
    mt.memlimit_stop = UINT64_MAX; /* as the one-thread decoder: no limit */
    return lzma_stream_decoder_mt(&s->x, &mt);
}

static tsgs_status decoder_start(tsgs__istream *s, tsgs_error *err)
{
    int ok = 1, nomem = 0;
    switch (s->kind) {
    case TSGS__COMP_GZIP:
        memset(&s->z, 0, sizeof s->z);
        ok = inflateInit2(&s->z, 15 + 16) == Z_OK; /* gzip wrapper only */
        nomem = !ok;
        break;
    case TSGS__COMP_XZ: {
        lzma_stream init = LZMA_STREAM_INIT;
        s->x = init;
        /* CONCATENATED: .xz files may hold several streams (xz -T). */
        lzma_ret r = s->threads != 1
                         ? xz_decoder_mt(s)
                         : lzma_stream_decoder(&s->x, UINT64_MAX,
                                               LZMA_CONCATENATED);
        ok = r == LZMA_OK;
        nomem = r == LZMA_MEM_ERROR;
        break;
    }
    case TSGS__COMP_ZSTD:
        s->zs = ZSTD_createDStream();
        ok = s->zs != NULL && !ZSTD_isError(ZSTD_initDStream(s->zs));
        nomem = s->zs == NULL;
        s->zs_in_frame = 0;
        break;
    case TSGS__COMP_BZIP2:
        memset(&s->b, 0, sizeof s->b);
        ok = BZ2_bzDecompressInit(&s->b, 0, 0) == BZ_OK;
        nomem = !ok;
        break;
    case TSGS__COMP_NONE: break;
    }
    if (!ok)
        return nomem ? TSGS__NOMEM(err)
                     : tsgs__fail(err, TSGS_ERR_INTERNAL, s->path, 0,
                                  "cannot start the %s decoder",
                                  kind_name(s->kind));
    s->live = s->kind != TSGS__COMP_NONE;
    return TSGS_OK;
}

tsgs_status tsgs__istream_open(const char *path, int threads,
                               tsgs__istream **out, tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs__istream_open: NULL argument");
    tsgs_status st = TSGS_OK;
    tsgs__istream *s = calloc(1, sizeof *s);
    if (!s)
        return TSGS__NOMEM(err);
    size_t plen = strlen(path);
    s->path = malloc(plen + 1);
    s->raw = malloc(RAW_BUF);
    if (!s->path || !s->raw) {
        st = TSGS__NOMEM(err);
        goto fail;
    }
    memcpy(s->path, path, plen + 1);
    s->threads = threads > 0 ? threads : 0;
    s->f = fopen(path, "rb");
    if (!s->f) {
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot open: %s",
                        strerror(errno));
        goto fail;
    }
    /* Peek at the magic bytes: the first buffer stays for the decoder. */
    while (s->raw_len < 6 && !s->raw_eof) {
        size_t got = fread(s->raw + s->raw_len, 1, RAW_BUF - s->raw_len, s->f);
        s->raw_len += got;
        if (got == 0) {
            if (ferror(s->f)) {
                st = io_fail(s, err, errno ? errno : EIO);
                goto fail;
            }
            s->raw_eof = 1;
        }
    }
    const unsigned char *m = s->raw;
    static const unsigned char xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
    if (s->raw_len >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        s->kind = TSGS__COMP_GZIP;
    else if (s->raw_len >= 6 && memcmp(m, xz_magic, 6) == 0)
        s->kind = TSGS__COMP_XZ;
    else if (s->raw_len >= 4 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h' &&
             m[3] >= '1' && m[3] <= '9')
        s->kind = TSGS__COMP_BZIP2;
    else if (s->raw_len >= 4 && ((m[0] == 0x28 && m[1] == 0xb5 &&
                                  m[2] == 0x2f && m[3] == 0xfd) ||
                                 /* a skippable frame first */
                                 ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a &&
                                  m[2] == 0x4d && m[3] == 0x18)))
        s->kind = TSGS__COMP_ZSTD;
    else
        s->kind = TSGS__COMP_NONE;
    if ((st = decoder_start(s, err)) != TSGS_OK)
        goto fail;
    *out = s;
    return TSGS_OK;
fail:
    tsgs__istream_close(s);
    return st;
}

void tsgs__istream_close(tsgs__istream *s)
{
    if (!s)
        return;
    decoder_end(s);
    if (s->f)
        fclose(s->f);
    free(s->raw);
    free(s->path);
    free(s);
}

/* Whether only end of file follows the current position. */
static tsgs_status at_end(tsgs__istream *s, int *end, tsgs_error *err)
{
    tsgs_status st = raw_fill(s, err);
    *end = s->raw_pos == s->raw_len && s->raw_eof;
    return st;
}

/* The decoders' steps: avail bytes of input at s->raw + s->raw_pos, cap
 * bytes of room in buf, *got what they wrote. */

/* gzip; *member_end when a member ended (another may follow). */
static tsgs_status gzip_step(tsgs__istream *s, unsigned char *buf,
                             size_t cap, size_t avail, size_t *got,
                             int *member_end, tsgs_error *err)
{
    s->z.next_in = s->raw + s->raw_pos;
    s->z.avail_in = (uInt)avail;
    s->z.next_out = buf;
    s->z.avail_out = (uInt)cap;
    int r = inflate(&s->z, Z_NO_FLUSH);
    s->raw_pos += avail - s->z.avail_in;
    *got = cap - s->z.avail_out;
    if (r == Z_MEM_ERROR)
        return TSGS__NOMEM(err);
    if (r == Z_STREAM_END)
        *member_end = 1;
    else if (r == Z_BUF_ERROR && avail == 0 && s->raw_eof)
        return corrupt(s, err);
    else if (r != Z_OK && r != Z_BUF_ERROR)
        return corrupt(s, err);
    return TSGS_OK;
}

/* bzip2; *member_end when a stream ended (another may follow). */
static tsgs_status bzip2_step(tsgs__istream *s, unsigned char *buf,
                              size_t cap, size_t avail, size_t *got,
                              int *member_end, tsgs_error *err)
{
    s->b.next_in = (char *)s->raw + s->raw_pos;
    s->b.avail_in = (unsigned)avail;
    s->b.next_out = (char *)buf;
    s->b.avail_out = (unsigned)cap;
    int r = BZ2_bzDecompress(&s->b);
    s->raw_pos += avail - s->b.avail_in;
    *got = cap - s->b.avail_out;
    if (r == BZ_MEM_ERROR)
        return TSGS__NOMEM(err);
    if (r == BZ_STREAM_END)
        *member_end = 1;
    else if (r != BZ_OK)
        return corrupt(s, err);
    else if (*got == 0 && avail == 0 && s->raw_eof)
        return corrupt(s, err); /* input ended inside a stream */
    return TSGS_OK;
}

/* xz: s->done at the end of its stream. */
static tsgs_status xz_step(tsgs__istream *s, unsigned char *buf,
                           size_t cap, size_t avail, size_t *got,
                           tsgs_error *err)
{
    s->x.next_in = s->raw + s->raw_pos;
    s->x.avail_in = avail;
    s->x.next_out = buf;
    s->x.avail_out = cap;
    /* FINISH once the rest of the file is in the buffer. */
    lzma_ret r = lzma_code(&s->x, s->raw_eof ? LZMA_FINISH : LZMA_RUN);
    s->raw_pos += avail - s->x.avail_in;
    *got = cap - s->x.avail_out;
    if (r == LZMA_STREAM_END) {
        s->done = 1;
        return TSGS_OK;
    }
    if (r == LZMA_MEM_ERROR)
        return TSGS__NOMEM(err);
    if (r != LZMA_OK)
        return corrupt(s, err); /* BUF_ERROR at FINISH: truncated */
    return TSGS_OK;
}

/* zstd: frames one after another (zstd -T, cat a.zst b.zst) are decoded
 * in turn by the same context; input that ends inside a frame is
 * truncated. s->done at the end of the file. */
static tsgs_status zstd_step(tsgs__istream *s, unsigned char *buf,
                             size_t cap, size_t avail, size_t *got,
                             tsgs_error *err)
{
    ZSTD_inBuffer in = {s->raw + s->raw_pos, avail, 0};
    ZSTD_outBuffer out = {buf, cap, 0};
    size_t r = ZSTD_decompressStream(s->zs, &out, &in);
    s->raw_pos += in.pos;
    *got = out.pos;
    if (ZSTD_isError(r))
        return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation
                   ? TSGS__NOMEM(err)
                   : corrupt(s, err);
    if (in.pos > 0 || out.pos > 0) /* idle calls hint the next frame */
        s->zs_in_frame = r != 0;
    if (*got == 0 && s->raw_pos == s->raw_len && s->raw_eof) {
        if (s->zs_in_frame)
            return corrupt(s, err);
        s->done = 1;
    }
    return TSGS_OK;
}

/* After a gzip or bzip2 member: gzip and bzip2 files may be several
 * members one after another (pigz, pbzip2, cat a.gz b.gz): s->done at
 * the end of the file, else a decoder for the next one. */
static tsgs_status next_member(tsgs__istream *s, tsgs_error *err)
{
    int end;
    tsgs_status st = at_end(s, &end, err);
    if (st != TSGS_OK)
        return st;
    if (end) {
        s->done = 1;
        return TSGS_OK;
    }
    decoder_end(s);
    return decoder_start(s, err);
}

/* One decoder step into buf; *got may be 0 while input is consumed. */
static tsgs_status decode_step(tsgs__istream *s, unsigned char *buf,
                               size_t cap, size_t *got, tsgs_error *err)
{
    tsgs_status st = raw_fill(s, err);
    if (st != TSGS_OK)
        return st;
    size_t avail = s->raw_len - s->raw_pos;
    int member_end = 0;
    /* The decoders count in unsigned int: keep each step below that. */
    if (cap > (1u << 30))
        cap = 1u << 30;
    if (s->kind == TSGS__COMP_XZ)
        return xz_step(s, buf, cap, avail, got, err);
    if (s->kind == TSGS__COMP_ZSTD)
        return zstd_step(s, buf, cap, avail, got, err);
    st = s->kind == TSGS__COMP_GZIP
             ? gzip_step(s, buf, cap, avail, got, &member_end, err)
             : bzip2_step(s, buf, cap, avail, got, &member_end, err);
    if (st != TSGS_OK)
        return st;
    if (member_end)
        return next_member(s, err);
    if (*got == 0 && avail == 0 && s->raw_eof)
        return corrupt(s, err);
    return TSGS_OK;
}

tsgs_status tsgs__istream_read(tsgs__istream *s, void *buf, size_t cap,
                               size_t *got, tsgs_error *err)
{
    *got = 0;
    if (cap == 0 || s->done)
        return TSGS_OK;
    if (s->kind == TSGS__COMP_NONE) {
        size_t n = 0;
        if (s->raw_pos < s->raw_len) { /* the peeked bytes first */
            n = s->raw_len - s->raw_pos;
            if (n > cap)
                n = cap;
            memcpy(buf, s->raw + s->raw_pos, n);
            s->raw_pos += n;
        }
        if (n < cap && !s->raw_eof) {
            size_t want = cap - n;
            size_t k = fread((char *)buf + n, 1, want, s->f);
            n += k;
            if (k < want) {
                if (ferror(s->f))
                    return io_fail(s, err, errno ? errno : EIO);
                s->raw_eof = 1;
            }
        }
        if (n == 0 && s->raw_eof)
            s->done = 1;
        *got = n;
        return TSGS_OK;
    }
    /* Loop until some output: a step may only consume input. */
    while (*got == 0 && !s->done) {
        tsgs_status st = decode_step(s, buf, cap, got, err);
        if (st != TSGS_OK)
            return st;
    }
    return TSGS_OK;
}
