/* Model files: saving (through a temporary renamed over the target) and
 * loading (a file measured, or read whole, against the memory the process
 * may hold), and the choice of kind: a one-vs-rest file by its first
 * line, a binary model by its header's section line. Each kind reads and
 * writes its own model (its table's read and write); the binary kinds'
 * header is model_file.c's. */
#include "model/model_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kinds a binary model file may hold, told apart by the section
 * their header announces. */
static const tsgs__model_kind *const binary_kinds[] = {&tsgs__kind_rf,
                                                       &tsgs__kind_sv};

/* The folder a path names its file in: "." for a bare name, "/" for a
 * file at the root. malloc'd; NULL when out of memory. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* Renaming over a pipe, a device or a directory would replace it. */
static tsgs_status refuse_non_regular(const char *path, tsgs_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "exists and is not a regular file: a model is "
                          "written to a file");
    return TSGS_OK;
}

tsgs_status tsgs_model_check_path(const char *path, tsgs_error *err)
{
    if (!path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_check_path: NULL argument");
    tsgs_status st = refuse_non_regular(path, err);
    if (st != TSGS_OK)
        return st;
    /* The model is written beside itself and renamed: its folder must
     * exist and take new files. */
    char *dir = folder_of(path);
    if (!dir)
        return TSGS__NOMEM(err);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                        "the folder %s does not exist (checked before "
                        "training, so no run is lost)",
                        dir);
    else if (access(dir, W_OK | X_OK) != 0)
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                        "cannot create files in %s: %s (checked before "
                        "training, so no run is lost)",
                        dir, strerror(errno));
    free(dir);
    return st;
}

tsgs_status tsgs_model_save(const tsgs_model *m, const char *path,
                            tsgs_error *err)
{
    if (!m || !path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_save: NULL argument");
    tsgs_status st0 = refuse_non_regular(path, err);
    if (st0 != TSGS_OK)
        return st0;
    /* Written through a temporary beside the target, renamed over it
     * once complete (tempfile.c): an interrupted save never leaves a
     * half-written model, and the next save removes what it left. */
    FILE *f = NULL;
    char *tmp = NULL;
    tsgs_status st = tsgs_temp_open(path, &f, &tmp, err);
    if (st != TSGS_OK)
        return st;
    m->kind->write(f, m, &m->layout);
    int bad = ferror(f) != 0;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        free(tmp);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "writing the model failed: %s", strerror(e));
    }
    free(tmp);
    return TSGS_OK;
}

/* ------------------------------------------------------------- loading */

/* One binary model from r (its first line the magic); last: nothing but
 * blank lines may follow its "end". */
static tsgs_status read_binary(tsgs__mfile *r, int last, tsgs_model **out,
                               tsgs_error *err)
{
    tsgs__mheader h;
    tsgs__mheader_init(&h);
    tsgs_status st = tsgs__mheader_read(r, &h, err);
    const tsgs__model_kind *kind = NULL;
    for (size_t i = 0; st == TSGS_OK && !kind &&
                       i < sizeof binary_kinds / sizeof binary_kinds[0];
         i++)
        if (strcmp(h.section, binary_kinds[i]->section) == 0)
            kind = binary_kinds[i];
    if (st == TSGS_OK && !kind) /* the key table's sections are the kinds' */
        st = tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                        "%s: no kind of model has this section", h.section);
    if (st == TSGS_OK)
        st = kind->read(r, &h, last, out, err);
    tsgs__mheader_free(&h);
    return st;
}

/* A file that cannot be measured (a pipe): read whole, up to what the
 * process may hold, then read from memory, so that its counts meet the
 * same bound as a regular file's. */
static tsgs_status read_whole(tsgs__mfile *r, tsgs_error *err)
{
    size_t n = 0, cap = 0, got;
    char *text = NULL;
    do {
        if (n == cap) {
            const double room = r->mem_cap - (double)n;
            size_t more = cap ? cap : 65536;
            if (room < 1.0) {
                free(text);
                return tsgs__fail(err, TSGS_ERR_NOMEM, r->path, 0,
                                  "more than the %.0f MiB this process may "
                                  "hold (%s)",
                                  r->mem_cap / 1048576.0, r->cap_what);
            }
            if ((double)more > room)
                more = (size_t)room;
            char *grown = realloc(text, cap + more);
            if (!grown) {
                free(text);
                return tsgs__mfile_nomem(r, "reading the file", err);
            }
            text = grown;
            cap += more;
        }
        got = fread(text + n, 1, cap - n, r->f);
        n += got;
    } while (got > 0);
    int bad = ferror(r->f);
    fclose(r->f);
    r->f = NULL;
    if (bad || n == 0) {
        free(text);
        return bad ? tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                                "cannot read: %s", strerror(errno))
                   : tsgs__fail(err, TSGS_ERR_FORMAT, r->path, 0,
                                "not a tsgs3vm model file (it is empty)");
    }
    r->text = text;
    r->size = (double)n;
    if (!(r->f = fmemopen(text, n, "r")))
        return tsgs__mfile_nomem(r, "reading the file", err);
    return TSGS_OK;
}

/* Opens path into r: a regular file measured, any other read whole. */
static tsgs_status open_model(tsgs__mfile *r, tsgs_error *err)
{
    if (!(r->f = fopen(r->path, "r")))
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0, "cannot open: %s",
                          strerror(errno));
    struct stat sb;
    if (fstat(fileno(r->f), &sb) != 0)
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0, "cannot stat: %s",
                          strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return tsgs__fail(err, TSGS_ERR_IO, r->path, 0,
                          "is a directory: give the model file's path");
    if (!S_ISREG(sb.st_mode))
        return read_whole(r, err);
    r->size = (double)sb.st_size;
    return TSGS_OK;
}

/* tsgs_model_load, with the memory the model may commit the process to
 * (cap bytes; `what` names where that limit comes from). */
static tsgs_status load_within(const char *path, double cap, const char *what,
                               tsgs_model **out, tsgs_error *err)
{
    tsgs__mfile r = {.path = path, .mem_cap = cap, .cap_what = what,
                     .mem_left = cap, .read_binary = read_binary};
    tsgs_status st = open_model(&r, err);
    char *line;
    if (st == TSGS_OK)
        st = tsgs__mfile_line(&r, &line, err);
    if (st == TSGS_OK) {
        /* one-vs-rest by its first line, which each reader reads again */
        const int ovr = line && strncmp(line, TSGS__OVR_MAGIC " ",
                                        sizeof TSGS__OVR_MAGIC) == 0;
        rewind(r.f);
        r.line = 0;
        st = ovr ? tsgs__kind_ovr.read(&r, NULL, 1, out, err)
                 : read_binary(&r, 1, out, err);
    }
    if (r.f)
        fclose(r.f);
    free(r.text);
    free(r.buf);
    return st;
}

tsgs_status tsgs__model_load_within(const char *path, double max_bytes,
                                    tsgs_model **out, tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_load: NULL argument");
    return load_within(path, max_bytes, "the caller's limit", out, err);
}

tsgs_status tsgs_model_load(const char *path, tsgs_model **out,
                            tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_model_load: NULL argument");
    const char *what;
    const double cap = tsgs_memory_available(&what);
    return load_within(path, cap, what, out, err);
}
