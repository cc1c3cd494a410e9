/* Temporaries of files written whole (tsgs_temp_*): a killed writer's
 * "<name>.tmp.<pid>.<n>" is removed, a live one's kept, and nothing else
 * of the folder is touched; the earlier tool's mkstemp temporaries
 * "<name>.tmp.XXXXXX" are removed only when mode 0600 and an hour old; a
 * new temporary gets the pid, a fresh counter and the umask's mode. */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "tsgs3vm.h"

static char dir[64];

static void setup(void)
{
    test_make_dir(dir, sizeof dir, "temp");
}

static void teardown(void)
{
    test_remove_dir(dir);
}

/* A pid no process has: a child's, once it has exited and been reaped. */
static long dead_pid(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(0);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return (long)pid;
}

static const char *in_dir(const char *name)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%.400s", dir, name);
    return p;
}

static void touch(const char *name)
{
    FILE *f = fopen(in_dir(name), "w");
    ck_assert_ptr_nonnull(f);
    fputs("x\n", f);
    ck_assert_int_eq(fclose(f), 0);
}

static int exists(const char *name)
{
    return access(in_dir(name), F_OK) == 0;
}

START_TEST(stale_removed_live_and_others_kept)
{
    const long dead = dead_pid(), live = (long)getpid();
    char stale[2][96], keep[8][96];
    snprintf(stale[0], 96, "out.txt.tmp.%ld.0", dead);
    snprintf(stale[1], 96, "out.txt.tmp.%ld.12", dead);
    snprintf(keep[0], 96, "out.txt.tmp.%ld.0", live);    /* running */
    snprintf(keep[1], 96, "out.txt.tmp.%ld.x", dead);    /* not a counter */
    snprintf(keep[2], 96, "out.txt.tmp.%ld", dead);      /* no counter */
    snprintf(keep[3], 96, "other.txt.tmp.%ld.0", dead);  /* another file */
    snprintf(keep[4], 96, "out.txt.tmp.a1b2c3");         /* mkstemp's */
    snprintf(keep[5], 96, "out.txt");
    snprintf(keep[6], 96, "out.txt.tmp.99999999999.0");  /* not a pid */
    snprintf(keep[7], 96, "xout.txt.tmp.%ld.0", dead);
    for (int i = 0; i < 2; i++)
        touch(stale[i]);
    for (int i = 0; i < 8; i++)
        touch(keep[i]);
    ck_assert_uint_eq(tsgs_temp_remove_stale(in_dir("out.txt")), 2);
    for (int i = 0; i < 2; i++)
        ck_assert_msg(!exists(stale[i]), "%s kept", stale[i]);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(exists(keep[i]), "%s removed", keep[i]);
    ck_assert_uint_eq(tsgs_temp_remove_stale(in_dir("out.txt")), 0);
    ck_assert_uint_eq(tsgs_temp_remove_stale(NULL), 0);
    /* a bare name: the current folder */
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    touch(stale[0]);
    ck_assert_int_eq(chdir(dir), 0);
    size_t removed = tsgs_temp_remove_stale("out.txt");
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_uint_eq(removed, 1);
    ck_assert(!exists(stale[0]));
}
END_TEST

/* An mkstemp-named file of the given mode, last modified `age` s ago. */
static void old_temp(const char *name, mode_t mode, long age)
{
    touch(name);
    ck_assert_int_eq(chmod(in_dir(name), mode), 0);
    struct timespec t[2];
    ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &t[0]), 0);
    t[0].tv_sec -= age;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, in_dir(name), t, 0), 0);
}

/* The earlier tool's temporaries, "<name>.tmp.XXXXXX" from mkstemp, name
 * no process: removed only when what a killed writer leaves (mode 0600,
 * untouched for over an hour), so one being written (fresh), a file of
 * another mode, another length of suffix, a link or a folder are kept. */
START_TEST(old_mkstemp_temporaries_removed_when_stale)
{
    const long hours = 2 * 3600;
    old_temp("out.txt.tmp.Ab3xQ9", 0600, hours);  /* stale */
    old_temp("out.txt.tmp.zzzzzz", 0600, hours);  /* stale */
    old_temp("out.txt.tmp.Zq81wE", 0600, 60);     /* written a minute ago */
    old_temp("out.txt.tmp.Kp02Lm", 0644, hours);  /* not mkstemp's mode */
    old_temp("out.txt.tmp.Ab3xQ", 0600, hours);   /* five */
    old_temp("out.txt.tmp.Ab3xQ9z", 0600, hours); /* seven */
    old_temp("out.txt.tmp.Ab-xQ9", 0600, hours);  /* not a letter or digit */
    old_temp("other.txt.tmp.Ab3xQ9", 0600, hours);
    ck_assert_int_eq(mkdir(in_dir("out.txt.tmp.Dir123"), 0700), 0);
    ck_assert_int_eq(symlink("out.txt.tmp.Ab3xQ9", in_dir("out.txt.tmp.Lnk123")),
                     0);
    ck_assert_uint_eq(tsgs_temp_remove_stale(in_dir("out.txt")), 2);
    ck_assert(!exists("out.txt.tmp.Ab3xQ9"));
    ck_assert(!exists("out.txt.tmp.zzzzzz"));
    static const char *const kept[] = {
        "out.txt.tmp.Zq81wE", "out.txt.tmp.Kp02Lm", "out.txt.tmp.Ab3xQ",
        "out.txt.tmp.Ab3xQ9z", "out.txt.tmp.Ab-xQ9", "other.txt.tmp.Ab3xQ9",
        "out.txt.tmp.Dir123"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        ck_assert_msg(exists(kept[i]), "%s removed", kept[i]);
    struct stat st; /* the link itself is kept (dangling now) */
    ck_assert_int_eq(lstat(in_dir("out.txt.tmp.Lnk123"), &st), 0);
    unlink(in_dir("out.txt.tmp.Lnk123"));
    rmdir(in_dir("out.txt.tmp.Dir123"));
    /* the next write of the target removes both namings' stale ones */
    const long dead = dead_pid();
    char stale[96];
    snprintf(stale, sizeof stale, "out.txt.tmp.%ld.7", dead);
    touch(stale);
    old_temp("out.txt.tmp.Old999", 0600, hours);
    FILE *f;
    char *tmp;
    tsgs_error err;
    ck_assert_int_eq(tsgs_temp_open(in_dir("out.txt"), &f, &tmp, &err),
                     TSGS_OK);
    ck_assert(!exists(stale));
    ck_assert(!exists("out.txt.tmp.Old999"));
    ck_assert(exists("out.txt.tmp.Zq81wE"));
    fclose(f);
    unlink(tmp);
    free(tmp);
}
END_TEST

START_TEST(open_names_cleans_and_applies_umask)
{
    const long dead = dead_pid();
    char stale[96];
    snprintf(stale, sizeof stale, "p.txt.tmp.%ld.3", dead);
    touch(stale);
    mode_t old = umask(027);
    FILE *f[2];
    char *tmp[2];
    tsgs_error err;
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tsgs_temp_open(in_dir("p.txt"), &f[i], &tmp[i], &err),
                         TSGS_OK);
    umask(old);
    ck_assert(!exists(stale));
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s.tmp.%ld.", in_dir("p.txt"),
             (long)getpid());
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(strncmp(tmp[i], prefix, strlen(prefix)) == 0, "%s",
                      tmp[i]);
        struct stat st;
        ck_assert_int_eq(stat(tmp[i], &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0640);
    }
    ck_assert_str_ne(tmp[0], tmp[1]);
    /* a live writer's temporary (this process) is kept by the next one */
    FILE *g;
    char *t2;
    ck_assert_int_eq(tsgs_temp_open(in_dir("p.txt"), &g, &t2, &err), TSGS_OK);
    ck_assert_int_eq(access(tmp[0], F_OK), 0);
    fputs("1 0.5\n", g);
    ck_assert_int_eq(fclose(g), 0);
    ck_assert_int_eq(rename(t2, in_dir("p.txt")), 0);
    free(t2);
    for (int i = 0; i < 2; i++) {
        fclose(f[i]);
        unlink(tmp[i]);
        free(tmp[i]);
    }
    ck_assert(exists("p.txt"));
    /* a folder that does not exist: the path and the cause named */
    ck_assert_int_eq(tsgs_temp_open(in_dir("no/p.txt"), &g, &t2, &err),
                     TSGS_ERR_IO);
    ck_assert_msg(strstr(err.message, "no/p.txt: cannot create a temporary "
                                      "file: No such file"),
                  "%s", err.message);
    ck_assert_int_eq(tsgs_temp_open(NULL, &g, &t2, &err), TSGS_ERR_PARAM);
}
END_TEST

Suite *tempfile_suite(void)
{
    Suite *s = suite_create("tempfile");
    TCase *tc = tcase_create("tempfile");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, stale_removed_live_and_others_kept);
    tcase_add_test(tc, open_names_cleans_and_applies_umask);
    tcase_add_test(tc, old_mkstemp_temporaries_removed_when_stale);
    suite_add_tcase(s, tc);
    return s;
}
