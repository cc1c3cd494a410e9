/* Config files: "key = value" lines, '#' comments. The keys are the long
 * option names; what a key means is up to the caller's function. */
#include "train.h"

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

/* Index of the first byte of s[0..n) that is not text (a control byte
 * other than tab / CR / LF, or a NUL), or n. */
static size_t first_binary_byte(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
            return i;
    }
    return n;
}

/* Index of the first byte of key that is not printable ASCII, or -1: such
 * a key is named by its byte, not echoed to the terminal. */
static long first_non_ascii(const char *key)
{
    for (long i = 0; key[i]; i++)
        if ((unsigned char)key[i] < 0x21 || (unsigned char)key[i] > 0x7e)
            return i;
    return -1;
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
    ssize_t n;
    while ((n = getline(&buf, &cap, f)) >= 0) {
        line++;
        char *text = buf;
        /* A UTF-8 byte order mark, as some editors write: skipped, as the
         * data reader does. */
        if (line == 1 && n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
            text += 3;
            n -= 3;
        }
        size_t bad = first_binary_byte(text, (size_t)n);
        if (bad < (size_t)n) {
            st = tsgs__fail(err, TSGS_ERR_PARSE, path, line,
                            "byte 0x%02x at column %zu is not text: a "
                            "config file has \"key = value\" lines",
                            (unsigned char)text[bad], bad + 1);
            break;
        }
        char *hash = strchr(text, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(text);
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
        long odd = first_non_ascii(key);
        if (odd >= 0) {
            st = tsgs__fail(err, TSGS_ERR_PARSE, path, line,
                            "the key has byte 0x%02x at column %ld: keys "
                            "are option names such as c or max-features",
                            (unsigned char)key[odd], odd + 1);
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
