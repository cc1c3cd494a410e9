/* Error reporting: statuses, their names and the message format. */
#include "common/common.h"

#include <stdio.h>
#include <string.h>

const char *tsgs_status_name(tsgs_status s)
{
    switch (s) {
    case TSGS_OK: return "success";
    case TSGS_ERR_NOMEM: return "out of memory";
    case TSGS_ERR_IO: return "i/o error";
    case TSGS_ERR_PARSE: return "parse error";
    case TSGS_ERR_PARAM: return "bad parameter";
    case TSGS_ERR_DIM: return "dimension mismatch";
    case TSGS_ERR_DATA: return "unusable data";
    case TSGS_ERR_FORMAT: return "bad model file";
    case TSGS_ERR_UNSUPPORTED: return "unsupported";
    case TSGS_ERR_STOPPED: return "stopped";
    case TSGS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

tsgs_status tsgs__fail(tsgs_error *err, tsgs_status code, const char *file,
                       long line, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = line;
    err->file[0] = '\0';
    if (file)
        snprintf(err->file, sizeof err->file, "%s", file);
    size_t used = 0;
    int k = 0;
    if (file && line > 0)
        k = snprintf(err->message, sizeof err->message, "%s:%ld: ", file,
                     line);
    else if (file)
        k = snprintf(err->message, sizeof err->message, "%s: ", file);
    if (k > 0)
        used = (size_t)k < sizeof err->message ? (size_t)k
                                               : sizeof err->message - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + used, sizeof err->message - used, fmt, ap);
    va_end(ap);
    return code;
}

void tsgs__error_clear(tsgs_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
}

const char *tsgs_version(void) { return TSGS_VERSION_STRING; }
