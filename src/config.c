/* Config files: "key = value" lines, '#' comments. The keys are the long
 * option names; what a key means is up to the caller's function. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

tsgs_status tsgs_config_read(const char *path, tsgs_config_fn fn, void *user,
                             tsgs_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot open: %s",
                          strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    long line = 0;
    tsgs_status st = TSGS_OK;
    while (getline(&buf, &cap, f) >= 0) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(buf);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            st = tsgs__fail(err, TSGS_ERR_PARSE, path, line,
                            "\"%.60s\": expected \"key = value\"", s);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        if (*key == '\0' || *value == '\0') {
            st = tsgs__fail(err, TSGS_ERR_PARSE, path, line,
                            "%s: empty %s", *key ? key : "(no key)",
                            *key ? "value" : "key");
            break;
        }
        tsgs_error inner;
        memset(&inner, 0, sizeof inner);
        st = fn(key, value, user, &inner);
        if (st != TSGS_OK) {
            tsgs__fail(err, st, path, line, "%s", inner.message);
            break;
        }
    }
    if (st == TSGS_OK && ferror(f))
        st = tsgs__fail(err, TSGS_ERR_IO, path, line, "read error");
    free(buf);
    fclose(f);
    return st;
}
