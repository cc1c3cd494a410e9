/* The parameter setter by name: the input is "key=value" (split at the
 * first '='). Parameters it accepts must read back: formatting every key
 * (tsgs_params_key, as --help and model files do) and setting each
 * formatted value on fresh defaults gives the same parameters. Rebuilding
 * every key, not just the one set, covers aliases (gamma for sigma). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsgs3vm.h"

/* Every key's value as text, one after another in buf. */
static void format_all(const tsgs_params *p, char *buf, size_t size)
{
    char value[TSGS_PARAM_VALUE_MAX];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; tsgs_params_key(i, p, value, sizeof value, NULL); i++)
        used += (size_t)snprintf(buf + used, size - used, "%s;", value);
    if (used >= size)
        abort(); /* buffer too small for the table: harness fault */
}

/* q = defaults with each of p's keys set from its formatted value. */
static void rebuild(const tsgs_params *p, tsgs_params *q)
{
    char value[TSGS_PARAM_VALUE_MAX];
    const char *key;
    tsgs_error err;
    *q = tsgs_params_default();
    for (size_t i = 0; (key = tsgs_params_key(i, p, value, sizeof value,
                                              NULL));
         i++)
        if (tsgs_params_set(q, key, value, &err) != TSGS_OK) {
            fprintf(stderr, "%s = \"%s\" (formatted) refused: %s\n", key,
                    value, err.message);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *eq = strchr(text, '=');
    const char *key = text, *value = eq ? eq + 1 : "";
    if (eq)
        *eq = '\0';

    tsgs_params p = tsgs_params_default(), q;
    tsgs_error err;
    tsgs_status st = tsgs_params_set(&p, key, value, &err);
    if (st != TSGS_OK) {
        if (err.code != st || err.message[0] == '\0')
            abort();
        free(text);
        return 0;
    }
    rebuild(&p, &q);
    static char a[16384], b[16384];
    format_all(&p, a, sizeof a);
    format_all(&q, b, sizeof b);
    if (strcmp(a, b) != 0) {
        fprintf(stderr, "%s = \"%s\" does not read back the same\n", key,
                value);
        abort();
    }
    (void)tsgs_params_check(&p, &err);
    free(text);
    return 0;
}
