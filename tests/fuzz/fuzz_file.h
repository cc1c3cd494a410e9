/* The fuzzer's bytes as a file: the reader, the model loader and the config
 * parser take paths, not memory. */
#ifndef TSGS_FUZZ_FILE_H
#define TSGS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes data[0..size) to this process's one scratch file (created on the
 * first call in $TMPDIR, /dev/shm or /tmp; removed at
 * exit) and returns its path.
 * Aborts when the file cannot be written: a harness failure, not a finding
 * in the library. */
const char *fuzz_file_write(const uint8_t *data, size_t size);

#endif
