/* The data reader through each decompressor: the input after its first
 * byte is plain text; the first byte picks gzip, xz or bzip2 and whether
 * the text is split into two concatenated members at a chosen point. The
 * compressed file must read exactly as the plain text does: same status
 * and line on failure, the same rows bit for bit on success. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "fuzz_pack.h"
#include "tsgs3vm.h"

/* Text that itself starts like an archive (or a .npy file, which is read
 * only when plain) is read as that format when plain, so the two reads
 * would differ by design. */
static int looks_compressed(const uint8_t *p, size_t n)
{
    return (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) ||
           (n >= 3 && memcmp(p, "BZh", 3) == 0) ||
           (n >= 6 && memcmp(p, "\xfd" "7zXZ", 6) == 0) ||
           (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0) || /* zstd */
           (n >= 4 && (p[0] & 0xf0) == 0x50 &&         /* zstd skippable */
            memcmp(p + 1, "\x2a\x4d\x18", 3) == 0) ||
           (n >= 6 && memcmp(p, "\x93NUMPY", 6) == 0); /* .npy, plain only */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || looks_compressed(data + 1, size - 1))
        return 0;
    unsigned opts = data[0];
    fuzz_codec codec = (fuzz_codec)(opts % 3);
    const uint8_t *text = data + 1;
    size_t n = size - 1;
    size_t split = (opts >> 2) & 1 ? n * (opts >> 3) / 31 : n;

    tsgs_dataset *plain = NULL, *packed = NULL;
    tsgs_error err_plain, err_packed;
    tsgs_status st_plain =
        fuzz_read_checked(fuzz_file_write(text, n), NULL, &plain, &err_plain);

    uint8_t *z = NULL;
    size_t zn = 0;
    fuzz_pack(codec, text, split, &z, &zn);
    if (split < n)
        fuzz_pack(codec, text + split, n - split, &z, &zn);
    tsgs_status st_packed =
        fuzz_read_checked(fuzz_file_write(z, zn), NULL, &packed,
                          &err_packed);
    free(z);

    if (st_plain != st_packed)
        abort();
    if (st_plain != TSGS_OK) {
        if (err_plain.line != err_packed.line)
            abort();
        return 0;
    }
    fuzz_check_same_dataset(plain, packed);
    tsgs_dataset_free(plain);
    tsgs_dataset_free(packed);
    return 0;
}
