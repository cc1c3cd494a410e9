/* What the process can still allocate (memlimit.c): the cgroup limits of
 * v2 and v1 at every level of the process's cgroup (the smallest left
 * wins, "max" and v1's huge value are none, reclaimable page cache is not
 * counted as used, a level a container does not show is skipped), the
 * address-space limit less what is mapped, MemAvailable, and the smallest
 * of the three. The files are written here; RLIMIT_AS is set in a child. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

static char root[64];

/* A path under the scratch root (a ring of 8). */
static const char *at(const char *rel)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", root, rel);
    return p;
}

/* Writes text to root/rel, making the folders on its way. */
static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s", at(rel));
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    test_write_text(path, text);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/tsgs-memlimit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

/* v2: each level from the process's cgroup up to the root; the tightest
 * (limit less usage, inactive files not counted) wins, an ancestor's
 * included, and "max" is no limit. */
START_TEST(cgroup_v2_tightest_level)
{
    put("self", "0::/a/b\n");
    put("cg/a/b/memory.max", "1000000\n");
    put("cg/a/b/memory.current", "300000\n");
    put("cg/a/b/memory.stat", "anon 5\ninactive_file 100000\nfile 7\n");
    put("cg/a/memory.max", "max\n");
    put("cg/a/memory.current", "900000000\n");
    const char *cg = at("cg"), *self = at("self");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 800000.0);
    put("cg/a/memory.max", "500000\n");
    put("cg/a/memory.current", "100000\n");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 400000.0);
    /* used beyond the limit: nothing left, not a negative count */
    put("cg/a/memory.current", "700000\n");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 0.0);
    /* the root's own limit (a container's namespace) counts too */
    put("cg/a/memory.max", "max\n");
    put("cg/memory.max", "200000\n");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 200000.0);
}
END_TEST

/* A cgroup path the mount does not show (a container without a cgroup
 * namespace sees the host's path) falls back to the levels there are. */
START_TEST(cgroup_hidden_levels_skipped)
{
    put("self", "0::/docker/abc123\n");
    put("cg/memory.max", "7000000\n");
    put("cg/memory.current", "1000000\n");
    ck_assert_double_eq(tsgs__cgroup_headroom(at("cg"), at("self")),
                        6000000.0);
    /* no limit anywhere: none */
    put("cg/memory.max", "max\n");
    ck_assert(isinf(tsgs__cgroup_headroom(at("cg"), at("self"))));
    /* a limit that is not a number is no limit read */
    put("cg/memory.max", "lots\n");
    ck_assert(isinf(tsgs__cgroup_headroom(at("cg"), at("self"))));
    /* no /proc/self/cgroup (not Linux, no /proc): none */
    ck_assert(isinf(tsgs__cgroup_headroom(at("cg"), at("nothing"))));
    ck_assert(isinf(tsgs__cgroup_headroom(at("nothing"), at("self"))));
}
END_TEST

/* v1: the memory controller's hierarchy (named alone or in a list), its
 * huge "unlimited" value none, total_inactive_file not counted as used;
 * with v2's line beside it (hybrid), the smaller of the two. */
START_TEST(cgroup_v1_memory_controller)
{
    put("self", "5:cpu,cpuacct:/elsewhere\n"
                "4:memory:/job/step\n"
                "0::/\n");
    put("cg/memory/job/step/memory.limit_in_bytes", "9223372036854771712\n");
    put("cg/memory/job/memory.limit_in_bytes", "3000000\n");
    put("cg/memory/job/memory.usage_in_bytes", "1000000\n");
    put("cg/memory/job/memory.stat", "cache 9\ntotal_inactive_file 250000\n"
                                     "inactive_file 1\n");
    put("cg/memory/memory.limit_in_bytes", "9223372036854771712\n");
    /* the cpu hierarchy's files are not read as memory's */
    put("cg/elsewhere/memory.max", "10\n");
    const char *cg = at("cg"), *self = at("self");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 2250000.0);
    put("cg/memory.max", "1000000\n"); /* v2's root, hybrid */
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 1000000.0);
    /* memory among other controllers of one hierarchy */
    put("self", "3:cpuset,memory,pids:/job\n");
    ck_assert_double_eq(tsgs__cgroup_headroom(cg, self), 2250000.0);
    /* "memoryx" is not memory */
    put("self", "3:memoryx:/job\n");
    ck_assert(isinf(tsgs__cgroup_headroom(cg, self)));
}
END_TEST

/* MemAvailable of a meminfo file; the physical memory without one. */
START_TEST(meminfo_available)
{
    put("meminfo", "MemTotal:       1000 kB\nMemFree: 10 kB\n"
                   "MemAvailable:     50 kB\n");
    ck_assert_double_eq(tsgs__meminfo_available(at("meminfo")), 51200.0);
    put("meminfo", "MemTotal:       1000 kB\n");
    const double phys = (double)sysconf(_SC_PHYS_PAGES) *
                        (double)sysconf(_SC_PAGESIZE);
    ck_assert_double_eq(tsgs__meminfo_available(at("meminfo")), phys);
    ck_assert_double_eq(tsgs__meminfo_available(at("nothing")), phys);
}
END_TEST

/* What a child under RLIMIT_AS = limit reports, through a pipe:
 * tsgs__rlimit_headroom of the given statm and tsgs_memory_available. */
typedef struct {
    double rl, avail;
    char what[32];
} child_report;

static int child_under_limit(rlim_t limit, const char *statm,
                             child_report *rep)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        struct rlimit rl = {limit, limit};
        child_report c;
        memset(&c, 0, sizeof c);
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(2);
        const char *what = NULL;
        c.rl = tsgs__rlimit_headroom(statm);
        c.avail = tsgs_memory_available(&what);
        snprintf(c.what, sizeof c.what, "%s", what ? what : "(null)");
        _exit(write(fd[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 3);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], rep, sizeof *rep);
    close(fd[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
           got == (ssize_t)sizeof *rep;
}

/* RLIMIT_AS less the address space mapped (statm's first field, in
 * pages); tsgs_memory_available takes it where it is the smallest, and
 * names it. Without a limit: none. */
START_TEST(rlimit_less_mapped)
{
#if defined(__SANITIZE_ADDRESS__)
    test_skip("memlimit rlimit_less_mapped", "built with ASan");
    return;
#endif
    struct rlimit now;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &now), 0);
    if (now.rlim_max != RLIM_INFINITY && now.rlim_max < ((rlim_t)1 << 30)) {
        test_skip("memlimit rlimit_less_mapped", "hard RLIMIT_AS < 1 GiB");
        return;
    }
    const double page = (double)sysconf(_SC_PAGESIZE);
    put("statm", "1000 20 30 1 0 40 0\n");
    child_report rep;
    const rlim_t limit = (rlim_t)1 << 30;
    ck_assert(child_under_limit(limit, at("statm"), &rep));
    ck_assert_double_eq(rep.rl, (double)limit - 1000.0 * page);
    /* the process's own mapping: less than the limit, more than 0 */
    const double self_left = rep.avail;
    ck_assert_str_eq(rep.what, "RLIMIT_AS");
    ck_assert(self_left > 0.0 && self_left < (double)limit);
    /* a statm that cannot be read: the whole limit */
    ck_assert(child_under_limit(limit, at("nothing"), &rep));
    ck_assert_double_eq(rep.rl, (double)limit);
    /* more mapped than the limit: nothing left */
    put("statm", "999999999 1 1 1 0 1 0\n");
    ck_assert(child_under_limit(limit, at("statm"), &rep));
    ck_assert_double_eq(rep.rl, 0.0);
    if (now.rlim_cur == RLIM_INFINITY)
        ck_assert(isinf(tsgs__rlimit_headroom("/proc/self/statm")));
}
END_TEST

/* Without a limit of its own the process gets the smaller of the cgroup's
 * and the machine's, named; a NULL name pointer is allowed. */
START_TEST(available_names_its_limit)
{
    const char *what = NULL;
    const double b = tsgs_memory_available(&what);
    ck_assert_ptr_nonnull(what);
    ck_assert(b > 0.0);
    ck_assert(b <= tsgs__meminfo_available("/proc/meminfo"));
    ck_assert(b <= tsgs__cgroup_headroom("/sys/fs/cgroup",
                                         "/proc/self/cgroup"));
    ck_assert(strcmp(what, "available memory") == 0 ||
              strcmp(what, "cgroup memory limit") == 0 ||
              strcmp(what, "RLIMIT_AS") == 0);
    ck_assert(tsgs_memory_available(NULL) > 0.0);
}
END_TEST

Suite *memlimit_suite(void)
{
    Suite *s = suite_create("memlimit");
    TCase *tc = tcase_create("memlimit");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, cgroup_v2_tightest_level);
    tcase_add_test(tc, cgroup_hidden_levels_skipped);
    tcase_add_test(tc, cgroup_v1_memory_controller);
    tcase_add_test(tc, meminfo_available);
    tcase_add_test(tc, rlimit_less_mapped);
    tcase_add_test(tc, available_names_its_limit);
    suite_add_tcase(s, tc);
    return s;
}
