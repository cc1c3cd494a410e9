/* Compresses bytes in memory as gzip, xz or bzip2 files are written, so a
 * target can mutate plain text and still feed it through a decompressor. */
#ifndef TSGS_FUZZ_PACK_H
#define TSGS_FUZZ_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef enum { FUZZ_GZIP = 0, FUZZ_XZ, FUZZ_BZIP2 } fuzz_codec;

/* Appends one complete gzip member / xz stream / bzip2 stream holding
 * in[0..n) to *out (malloc'd, grown as needed; *out_len updated). Aborts
 * on failure: a harness fault, not a finding. */
void fuzz_pack(fuzz_codec codec, const uint8_t *in, size_t n, uint8_t **out,
               size_t *out_len);

#endif
