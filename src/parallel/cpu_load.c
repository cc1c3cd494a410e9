/* Cores kept busy by other processes, from two readings of /proc/stat.
 *
 * A team that takes a core another process keeps busy waits, at every
 * barrier, for its thread there: with one core of two busy, two threads
 * trained slower than one (issue #33). So a large training whose thread
 * count is left to the library (no --threads, no OMP_NUM_THREADS) runs on
 * the cores that are free; an explicit count is kept. The model does not
 * depend on the thread count, so this changes only the time. */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs this process may use */
#include "parallel/parallel.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A CPU is busy when other work took at least this share of it. */
#define BUSY_SHARE 0.5
/* The window between the two readings: /proc/stat counts in 10 ms ticks. */
#define WINDOW_S 0.05

/* The team the library takes for "one per core" while a training that
 * measured the load runs (0: the cores, unmeasured). */
static atomic_int auto_team;

int tsgs__cpu_ticks_parse(const char *text, unsigned long long *busy,
                          unsigned long long *total, int n)
{
    int seen = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        unsigned cpu;
        unsigned long long v[8] = {0};
        if (strncmp(p, "cpu", 3) != 0 || p[3] < '0' || p[3] > '9')
            continue;
        /* user nice system idle iowait irq softirq steal */
        int got = sscanf(p, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu",
                         &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                         &v[6], &v[7]);
        if (got < 5)
            return -1;
        if ((int)cpu >= n)
            continue;
        busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        total[cpu] = busy[cpu] + v[3] + v[4];
        seen++;
    }
    return seen;
}

int tsgs__busy_cpus_between(const char *before, const char *after, int n,
                            const unsigned char *allowed)
{
    unsigned long long *b0 = calloc((size_t)n, sizeof *b0);
    unsigned long long *t0 = calloc((size_t)n, sizeof *t0);
    unsigned long long *b1 = calloc((size_t)n, sizeof *b1);
    unsigned long long *t1 = calloc((size_t)n, sizeof *t1);
    int busy = -1;
    if (b0 && t0 && b1 && t1 &&
        tsgs__cpu_ticks_parse(before, b0, t0, n) > 0 &&
        tsgs__cpu_ticks_parse(after, b1, t1, n) > 0) {
        busy = 0;
        for (int c = 0; c < n; c++) {
            if ((allowed && !allowed[c]) || t1[c] <= t0[c] || b1[c] < b0[c])
                continue; /* not counted in the window, or offline */
            const double share =
                (double)(b1[c] - b0[c]) / (double)(t1[c] - t0[c]);
            busy += share >= BUSY_SHARE;
        }
    }
    free(b0);
    free(t0);
    free(b1);
    free(t1);
    return busy;
}

/* The whole of a small text file (NULL where it cannot be read). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 65536, len = 0;
    char *s = malloc(cap);
    while (s) {
        len += fread(s + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *t = realloc(s, cap * 2);
        if (!t) {
            free(s);
            s = NULL;
            break;
        }
        s = t;
        cap *= 2;
    }
    if (s)
        s[len] = '\0';
    fclose(f);
    return s;
}

/* allowed[c] = whether this process may run on CPU c (all where the
 * mask cannot be read). */
static void allowed_cpus(unsigned char *allowed, int n)
{
    cpu_set_t set;
    const int known = sched_getaffinity(0, sizeof set, &set) == 0;
    for (int c = 0; c < n; c++)
        allowed[c] = !known || (c < CPU_SETSIZE && CPU_ISSET(c, &set));
}

int tsgs__busy_cpus(void)
{
    const long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n <= 0 || n > 1 << 16)
        return -1;
    unsigned char *allowed = malloc((size_t)n);
    char *before = allowed ? read_text("/proc/stat") : NULL;
    if (!before) {
        free(allowed);
        return -1;
    }
    allowed_cpus(allowed, (int)n);
    struct timespec w = {0, (long)(WINDOW_S * 1e9)};
    nanosleep(&w, NULL);
    char *after = read_text("/proc/stat");
    const int busy =
        after ? tsgs__busy_cpus_between(before, after, (int)n, allowed) : -1;
    free(allowed);
    free(before);
    free(after);
    return busy;
}

int tsgs__free_team(int cores, int busy)
{
    if (cores < 1)
        return 1;
    if (busy <= 0)
        return cores;
    return busy >= cores ? 1 : cores - busy;
}

void tsgs__set_auto_team(int team) { atomic_store(&auto_team, team); }

int tsgs__auto_team(void) { return atomic_load(&auto_team); }
