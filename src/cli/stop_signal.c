/* The tool's SIGINT and SIGTERM. A command ends at once where a stop
 * would leave nothing half written (a signal there need not wait for a
 * read or a fit); otherwise the signal is kept for the library's stop
 * hooks (tsgs_read_options.should_stop, tsgs_train_hooks.should_stop),
 * so that the command can clean up and say what it kept. */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t cli_stop_signal = 0;

/* What the handler writes before it ends the process; NULL: keep the
 * signal instead. Set before the handler is installed. */
static const char *volatile exit_message = NULL;

static void on_signal(int sig)
{
    const char *m = exit_message;
    if (m) {
        ssize_t w = write(2, m, strlen(m)); /* async-signal-safe, both */
        (void)w;
        _exit(128 + sig);
    }
    cli_stop_signal = sig;
}

void cli_catch_stops(const char *exit_now)
{
    exit_message = exit_now;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* A second signal ends the process. No SA_RESTART: a read waiting on
     * a pipe returns, and the reader takes that for the stop. */
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_should_stop(void *user)
{
    (void)user;
    return cli_stop_signal != 0;
}
