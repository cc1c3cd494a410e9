/* The memory this process can still allocate, by the tightest of the
 * limits that apply to it: its address-space limit (RLIMIT_AS, what
 * `ulimit -v` sets), its cgroup's memory limit (a container's, a systemd
 * unit's) and the machine's available memory. Each is read from the files
 * the kernel exports; the readers take their paths so that the tests can
 * hand them files of their own. */
#include "train.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* cgroup v1 writes "no limit" as the largest page count in bytes
 * (9223372036854771712 on 4 KiB pages); anything from 2^62 on is none. */
#define V1_UNLIMITED 4611686018427387904.0

/* The number on the first line of path: "max" is INFINITY; NAN when the
 * file cannot be read or holds no number. */
static double read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    char line[64];
    double v = NAN;
    if (fgets(line, sizeof line, f)) {
        char *end;
        if (strncmp(line, "max", 3) == 0)
            v = INFINITY;
        else if ((v = strtod(line, &end)) < 0.0 || end == line)
            v = NAN;
    }
    fclose(f);
    return v;
}

/* The value of the line "key N" of a memory.stat file, 0 when absent. */
static double stat_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0.0;
    char line[256];
    double v = 0.0;
    const size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            v = strtod(line + klen + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

/* A cgroup version's files: the limit, the usage, the statistics and the
 * line there of the page cache it could drop. */
typedef struct {
    const char *limit, *usage, *stat, *inactive;
} cgroup_files;

static const cgroup_files V2 = {"memory.max", "memory.current",
                                "memory.stat", "inactive_file"};
static const cgroup_files V1 = {"memory.limit_in_bytes",
                                "memory.usage_in_bytes", "memory.stat",
                                "total_inactive_file"};

/* What one cgroup folder leaves: its limit less its usage, the page cache
 * it could drop (inactive files) not counted as used; at least 0.
 * INFINITY without a limit there. */
static double level_headroom(const char *dir, const cgroup_files *cf)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, cf->limit);
    const double limit = read_number(path);
    if (!(limit < V1_UNLIMITED)) /* NAN, "max" or v1's none */
        return INFINITY;
    snprintf(path, sizeof path, "%s/%s", dir, cf->usage);
    double used = read_number(path);
    if (isnan(used))
        used = 0.0;
    snprintf(path, sizeof path, "%s/%s", dir, cf->stat);
    used -= stat_value(path, cf->inactive);
    const double left = limit - (used > 0.0 ? used : 0.0);
    return left > 0.0 ? left : 0.0;
}

/* The tightest headroom of the folders from base/rel up to base (each
 * ancestor's limit applies too; a folder that a container does not show
 * is skipped, and base itself is its own cgroup there). */
static double walk_up(const char *base, const char *rel,
                      const cgroup_files *cf)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s%s", base, rel) >= (int)sizeof dir)
        snprintf(dir, sizeof dir, "%s", base);
    const size_t blen = strlen(base);
    double best = INFINITY;
    for (;;) {
        size_t len = strlen(dir);
        while (len > blen && dir[len - 1] == '/')
            dir[--len] = '\0';
        const double h = level_headroom(dir, cf);
        best = h < best ? h : best;
        char *slash = strrchr(dir, '/');
        if (len <= blen || !slash || (size_t)(slash - dir) < blen)
            break;
        *slash = '\0';
    }
    return best;
}

/* Whether a /proc/self/cgroup controller list "a,b,c" names memory. */
static int names_memory(const char *list, size_t len)
{
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        if (stop - p == 6 && strncmp(p, "memory", 6) == 0)
            return 1;
        p = stop + 1;
    }
    return 0;
}

double tsgs__cgroup_headroom(const char *root, const char *self)
{
    FILE *f = fopen(self, "r");
    if (!f)
        return INFINITY;
    char line[PATH_MAX + 64], base[PATH_MAX];
    double best = INFINITY;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        /* "hierarchy:controllers:path"; v2's is "0::path" */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/')
            continue;
        const int v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
        double h = INFINITY;
        if (v2) {
            h = walk_up(root, c2 + 1, &V2);
        } else if (names_memory(c1 + 1, (size_t)(c2 - c1 - 1))) {
            snprintf(base, sizeof base, "%s/memory", root);
            h = walk_up(base, c2 + 1, &V1);
        }
        best = h < best ? h : best;
    }
    fclose(f);
    return best;
}

double tsgs__rlimit_headroom(const char *statm)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return INFINITY;
    /* the address space mapped now counts against the limit: statm's
     * first field, in pages */
    double used = 0.0;
    FILE *f = fopen(statm, "r");
    unsigned long long pages;
    if (f) {
        if (fscanf(f, "%llu", &pages) == 1)
            used = (double)pages * (double)sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    const double left = (double)rl.rlim_cur - used;
    return left > 0.0 ? left : 0.0;
}

double tsgs__meminfo_available(const char *meminfo)
{
    FILE *f = fopen(meminfo, "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                fclose(f);
                return (double)kb * 1024.0;
            }
        fclose(f);
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
}

double tsgs_memory_available(const char **what)
{
    const double rl = tsgs__rlimit_headroom("/proc/self/statm");
    const double cg =
        tsgs__cgroup_headroom("/sys/fs/cgroup", "/proc/self/cgroup");
    const double mem = tsgs__meminfo_available("/proc/meminfo");
    double best = mem;
    const char *name = isinf(mem) ? "no known limit" : "available memory";
    if (cg < best) {
        best = cg;
        name = "cgroup memory limit";
    }
    if (rl < best) {
        best = rl;
        name = "RLIMIT_AS";
    }
    if (what)
        *what = name;
    return best;
}
