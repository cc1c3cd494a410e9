/* Files written whole or not at all: through a temporary beside the
 * target, "<name>.tmp.<pid>.<n>", renamed over it once complete. The pid
 * in the name tells a temporary that a killed process left (removed by
 * the next write of the same target) from one being written now. The tool
 * before these names wrote mkstemp's "<name>.tmp.XXXXXX", which names no
 * process: one of those is removed only when all it shows says a killed
 * writer left it (mkstemp's mode, the user's own, untouched for an hour). */
#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The pid of a temporary's name "<base>.tmp.<pid>.<n>", or 0 when name
 * is not one of base's temporaries. */
static long temp_pid(const char *name, const char *base)
{
    const size_t blen = strlen(base);
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5))
        return 0;
    const char *p = name + blen + 5;
    if (*p < '1' || *p > '9')
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(p, &end, 10);
    if (errno || pid > INT32_MAX || *end != '.' || end[1] < '0' ||
        end[1] > '9')
        return 0; /* (a pid_t holds it: kill never sees a group's -pid) */
    for (end++; *end; end++) /* the counter: digits to the end */
        if (*end < '0' || *end > '9')
            return 0;
    return pid;
}

/* Whether no process has this pid (not: one we may not signal). */
static int pid_gone(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* An mkstemp temporary left this long unmodified is no write in progress:
 * a writer appends its output as it goes. */
#define OLD_TEMP_STALE_S 3600

/* Whether name is base's temporary of the old naming, "<base>.tmp." and
 * six letters or digits (mkstemp's XXXXXX). */
static int old_temp_name(const char *name, const char *base)
{
    const size_t blen = strlen(base);
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5))
        return 0;
    const char *x = name + blen + 5;
    for (int i = 0; i < 6; i++)
        if (!((x[i] >= 'a' && x[i] <= 'z') || (x[i] >= 'A' && x[i] <= 'Z') ||
              (x[i] >= '0' && x[i] <= '9')))
            return 0;
    return x[6] == '\0';
}

/* Whether the old-named temporary `name` in folder dfd is what a killed
 * writer left: a regular file (not a link) of this user with mkstemp's
 * mode 0600, unmodified for OLD_TEMP_STALE_S. */
static int old_temp_stale(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    return S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 07777) == 0600 &&
           difftime(time(NULL), st.st_mtime) > OLD_TEMP_STALE_S;
}

/* Whether directory entry `name` (of folder dfd) is one of base's
 * temporaries that no write in progress holds. */
static int stale_temp(int dfd, const char *name, const char *base)
{
    const long pid = temp_pid(name, base);
    if (pid > 0)
        return pid_gone(pid);
    return old_temp_name(name, base) && old_temp_stale(dfd, name);
}

size_t tsgs_temp_remove_stale(const char *path)
{
    if (!path)
        return 0;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    /* the folder: "." for a bare name, "/" for a file at the root */
    char *dir = !slash ? strdup(".")
                       : strndup(path, slash == path ? 1
                                                     : (size_t)(slash - path));
    DIR *dh = dir ? opendir(dir) : NULL;
    const int dfd = dh ? dirfd(dh) : -1;
    size_t removed = 0;
    struct dirent *e;
    while (dfd >= 0 && (e = readdir(dh)))
        if (stale_temp(dfd, e->d_name, base))
            removed += unlinkat(dfd, e->d_name, 0) == 0;
    if (dh)
        closedir(dh);
    free(dir);
    return removed;
}

tsgs_status tsgs_temp_open(const char *path, FILE **f, char **tmp_path,
                           tsgs_error *err)
{
    if (!path || !f || !tmp_path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_temp_open: NULL argument");
    tsgs_temp_remove_stale(path);
    const size_t cap = strlen(path) + 48;
    char *tmp = malloc(cap);
    if (!tmp)
        return TSGS__NOMEM(err);
    static atomic_uint counter; /* names of this process's temporaries */
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1u));
        /* 0666: the umask applies, as to any file the user writes */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        tsgs_status st = tsgs__fail(err, TSGS_ERR_IO, path, 0,
                                    "cannot create a temporary file: %s",
                                    strerror(errno));
        free(tmp);
        return st;
    }
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0, "cannot write: %s",
                          strerror(e));
    }
    *f = fp;
    *tmp_path = tmp;
    return TSGS_OK;
}
