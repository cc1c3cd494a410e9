/* A caller's request to stop (tsgs_train_hooks.should_stop, and
 * tsgs_read_options' for a read), polled from the long loops of a
 * training run or a read on any of its threads. The hook is
 * called at most every TSGS__STOP_POLL_S and by one thread at a time (a
 * thread that finds it busy goes on); once it has asked, the answer
 * stays, with the time it was first seen, so that work a usable result
 * needs can end a grace period later and optional work at once. */
#include "train.h"

void tsgs__stop_init_fn(tsgs__stop *s, int (*ask)(void *), void *user)
{
    s->ask = ask;
    s->user = user;
    atomic_init(&s->asked_ns, 0);
    atomic_init(&s->next_ns, 0);
    atomic_flag_clear(&s->busy);
}

void tsgs__stop_init(tsgs__stop *s, const tsgs_train_hooks *h)
{
    tsgs__stop_init_fn(s, h ? h->should_stop : NULL, h ? h->user : NULL);
}

/* Polls the hook when its interval has passed and no other thread is in
 * it; records the time it first asked. */
static void poll_hook(tsgs__stop *s, long long now)
{
    if (now < atomic_load(&s->next_ns) || atomic_flag_test_and_set(&s->busy))
        return;
    if (atomic_load(&s->asked_ns) == 0 && s->ask(s->user))
        atomic_store(&s->asked_ns, now);
    atomic_store(&s->next_ns, now + (long long)(TSGS__STOP_POLL_S * 1e9));
    atomic_flag_clear(&s->busy);
}

int tsgs__stop_due(tsgs__stop *s, double grace)
{
    if (!s || !s->ask)
        return 0;
    const long long now = tsgs__now_ns();
    if (atomic_load(&s->asked_ns) == 0)
        poll_hook(s, now);
    const long long at = atomic_load(&s->asked_ns);
    return at != 0 && (double)(now - at) >= grace * 1e9;
}

tsgs_status tsgs__stopped(tsgs_error *err, const char *during)
{
    return tsgs__fail(err, TSGS_ERR_STOPPED, NULL, 0,
                      "stopped by the caller during %s, before a usable "
                      "model: none returned",
                      during);
}
