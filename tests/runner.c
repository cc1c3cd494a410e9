/* The one test runner: every tests/check_<name>.c suite, listed in the
 * generated suites.h. No OpenMP here: Check forks each test, and libgomp
 * does not survive a fork after its threads have started. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"

#define SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef SUITE

int main(void)
{
    remove(TEST_SKIP_LOG);
    SRunner *sr = srunner_create(NULL);
#define SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.h"
#undef SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    /* Skipped cases count as passed for Check: list them. */
    FILE *f = fopen(TEST_SKIP_LOG, "r");
    if (f) {
        char line[512];
        int n = 0;
        while (fgets(line, sizeof line, f))
            fprintf(stderr, "%s%s", n++ ? "" : "Skipped (ran no assertion):\n",
                    line);
        fclose(f);
        fprintf(stderr, "%d test case(s) skipped\n", n);
        remove(TEST_SKIP_LOG);
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
