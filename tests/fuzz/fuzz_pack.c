/* In-memory gzip (zlib), xz (liblzma) and bzip2 (libbzip2) compression at
 * the fastest level: the targets want many inputs a second. */
#include "fuzz_pack.h"

#include <bzlib.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

static void die(const char *what)
{
    fprintf(stderr, "fuzz_pack: %s failed\n", what);
    abort();
}

static uint8_t *grow(uint8_t **out, size_t *out_len, size_t more)
{
    uint8_t *p = realloc(*out, *out_len + more);
    if (!p)
        die("realloc");
    *out = p;
    return p + *out_len;
}

static size_t pack_gzip(const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    z_stream zs = {0};
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        die("deflateInit2");
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = dst;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        die("deflate");
    size_t used = zs.total_out;
    deflateEnd(&zs);
    return used;
}

static size_t pack_xz(const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    size_t used = 0;
    if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, in, n, dst, &used,
                                cap) != LZMA_OK)
        die("lzma_easy_buffer_encode");
    return used;
}

static size_t pack_bzip2(const uint8_t *in, size_t n, uint8_t *dst,
                         size_t cap)
{
    unsigned int used = (unsigned int)cap;
    if (BZ2_bzBuffToBuffCompress((char *)dst, &used, (char *)in,
                                 (unsigned int)n, 1, 0, 0) != BZ_OK)
        die("BZ2_bzBuffToBuffCompress");
    return used;
}

void fuzz_pack(fuzz_codec codec, const uint8_t *in, size_t n, uint8_t **out,
               size_t *out_len)
{
    /* Bounds: zlib's deflateBound is for its default header; gzip adds 18
     * bytes; bzip2 documents 1% + 600. */
    size_t cap = n + n / 100 + 1024;
    if (codec == FUZZ_XZ)
        cap = lzma_stream_buffer_bound(n);
    uint8_t *dst = grow(out, out_len, cap);
    size_t used = codec == FUZZ_GZIP ? pack_gzip(in, n, dst, cap)
                  : codec == FUZZ_XZ ? pack_xz(in, n, dst, cap)
                                     : pack_bzip2(in, n, dst, cap);
    *out_len += used;
}
