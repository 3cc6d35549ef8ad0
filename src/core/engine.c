#include "engine.h"

#include <errno.h>

int engine_init(struct engine *e, unsigned window, long baseline, long in_force)
{
        *e = (struct engine){ 0 };
        policy_init(&e->policy, baseline, in_force);
        return window_init(&e->window, window);
}

void engine_free(struct engine *e)
{
        window_free(&e->window);
        forecast_free(&e->forecast);
}

int engine_resize(struct engine *e, unsigned window)
{
        return window_resize(&e->window, window);
}

void engine_restart(struct engine *e)
{
        window_clear(&e->window);
}

long engine_wsf(const struct engine *e)
{
        return e->policy.current;
}

long engine_baseline(const struct engine *e)
{
        return e->policy.baseline;
}

long engine_kernel_seen(const struct engine *e)
{
        return e->policy.kernel_seen;
}

bool engine_onset_watch(const struct engine *e, double *trigger_pages_per_sec)
{
        *trigger_pages_per_sec = e->policy.onset_trigger_pages_per_sec;
        return e->policy.onset_armed;
}

struct learned *engine_learned(struct engine *e)
{
        return &e->policy.learned;
}

void engine_write_failed(struct engine *e, const struct decision *d, bool keep_intent)
{
        policy_write_failed(&e->policy, d, keep_intent);
}

long engine_kernel_refused(struct engine *e, long accepted, long refused)
{
        return policy_kernel_refused(&e->policy, accepted, refused);
}

void engine_compaction_took(struct engine *e, int node, double seconds)
{
        policy_compaction_took(&e->policy, node, seconds);
}

int engine_step(struct engine *e, const struct engine_params *p, const struct sample *s,
                struct decision *d, bool *restarted)
{
        int r = window_push(&e->window, s);
        *restarted = r == 1;
        if (r < 0)
                return r;
        e->max_order = engine_max_order(p->max_order, s->nr_orders, p->page_size, p->thp_pmd_size);
        struct forecast_params fp = p->forecast;
        fp.max_order = e->max_order;
        r = forecast_compute(&e->window, &fp, &e->forecast);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;       /* too few samples, or no time between them */
        policy_decide(&e->policy, &p->policy, &e->forecast, d);
        d->onset = s->onset;
        return 1;
}

unsigned engine_thp_order(long page_size, long pmd_size)
{
        unsigned k = 0;
        if (pmd_size > page_size && page_size > 0)
                while (k < 62 && ((unsigned long)page_size << (k + 1)) <= (unsigned long)pmd_size)
                        k++;
        return k;
}

unsigned engine_max_order(int configured, unsigned nr_orders, long page_size, long pmd_size)
{
        unsigned top = nr_orders > 1 ? nr_orders - 1 : 1;
        if (configured != ENGINE_ORDER_AUTO)
                return (unsigned)configured < top ? (unsigned)configured : top;
        unsigned k = engine_thp_order(page_size, pmd_size);
        if (k > 0 && k <= top)
                return k;
        return top > 1 ? top - 1 : 1;
}
