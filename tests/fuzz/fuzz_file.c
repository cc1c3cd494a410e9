/* One scratch file per fuzzing process, rewritten for every input. */
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char scratch[4096];

static void remove_scratch(void)
{
    if (scratch[0])
        unlink(scratch);
}

/* $TMPDIR, else memory (/dev/shm): rewriting a file on a disk file system
 * can cost milliseconds (ext4 flushes a truncated file), 40 times the
 * parse itself. */
static const char *scratch_dir(void)
{
    const char *dir = getenv("TMPDIR");
    if (dir && *dir)
        return dir;
    return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

static void make_scratch(void)
{
    snprintf(scratch, sizeof scratch, "%s/tsgs_fuzz_XXXXXX", scratch_dir());
    int fd = mkstemp(scratch);
    if (fd < 0) {
        perror("fuzz_file: mkstemp");
        abort();
    }
    close(fd);
    atexit(remove_scratch);
}

const char *fuzz_file_write(const uint8_t *data, size_t size)
{
    if (!scratch[0])
        make_scratch();
    FILE *f = fopen(scratch, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror("fuzz_file: writing the input");
        abort();
    }
    return scratch;
}
