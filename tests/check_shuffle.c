/* Seeded shuffles (shuffle.c) against Fisher-Yates written out here with
 * the same draws: one chunk of draws or less (one loop), and several
 * chunks (a team draws while one thread swaps) on 1, 2 and 3 threads. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void reference(size_t *idx, size_t n, uint64_t seed, uint64_t tag)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)tsgs__below(seed, TSGS__STREAM_SAFE,
                                       (tag << 40) ^ i, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

START_TEST(seeded_shuffle_equals_fisher_yates)
{
    const size_t C = TSGS__SHUFFLE_CHUNK;
    const size_t sizes[] = {0, 1, 2, 3, 1000, C, C + 1, C + 2, 3 * C + 7};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        size_t *want = malloc(sizeof(size_t) * (n ? n : 1));
        size_t *got = malloc(sizeof(size_t) * (n ? n : 1));
        unsigned char *seen = calloc(n ? n : 1, 1);
        for (size_t i = 0; i < n; i++)
            want[i] = 10 * i + 3; /* any values: they are moved, not made */
        reference(want, n, 42, 7);
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) {
            moved += want[i] != 10 * i + 3;
            seen[(want[i] - 3) / 10]++;
        }
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(seen[i], 1); /* a permutation */
        if (n >= 1000)
            ck_assert_uint_gt(moved, n / 2);
        for (int threads = 1; threads <= 3; threads++) {
            for (size_t i = 0; i < n; i++)
                got[i] = 10 * i + 3;
            tsgs__seeded_shuffle(got, n, 42, 7, threads);
            size_t first = n;
            for (size_t i = 0; i < n && first == n; i++)
                if (got[i] != want[i])
                    first = i;
            ck_assert_msg(first == n, "n %zu, %d threads: entry %zu differs",
                          n, threads, first);
        }
        free(want);
        free(got);
        free(seen);
    }
}
END_TEST

Suite *shuffle_suite(void)
{
    Suite *s = suite_create("shuffle");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, seeded_shuffle_equals_fisher_yates);
    suite_add_tcase(s, tc);
    return s;
}
