#include "engine.h"

int engine_init(struct engine *e, unsigned window, long baseline)
{
        *e = (struct engine){ 0 };
        policy_init(&e->policy, baseline);
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

void engine_params_from(struct engine_params *p, const struct config *c, unsigned max_order,
                        bool writes)
{
        *p = (struct engine_params){
                .forecast = {
                        .min_r2 = c->trend_min_r2,
                        .min_points = c->window,
                        .max_order = max_order,
                },
                .policy = {
                        .interval = c->interval, .horizon = c->horizon,
                        .calm_period = c->calm_period, .lead_time = c->compaction_lead_time,
                        .max_wsf = c->max_wsf, .oom_headroom = c->oom_headroom,
                        .compaction = c->compaction, .writes = writes,
                },
        };
}

int engine_step(struct engine *e, const struct engine_params *p, const struct sample *s,
                struct decision *d, bool *restarted)
{
        int r = window_push(&e->window, s);
        *restarted = r == 1;
        if (r < 0)
                return r;
        if (forecast_compute(&e->window, &p->forecast, &e->forecast) < 0)
                return 0;
        policy_decide(&e->policy, &p->policy, &e->forecast, d);
        return 1;
}

unsigned engine_max_order(int configured, unsigned nr_orders, long page_size, long pmd_size)
{
        unsigned top = nr_orders > 1 ? nr_orders - 1 : 1;
        if (configured != CONFIG_ORDER_AUTO)
                return (unsigned)configured < top ? (unsigned)configured : top;
        if (pmd_size > page_size && page_size > 0) {
                unsigned k = 0;
                while (k < 62 && ((unsigned long)page_size << (k + 1)) <= (unsigned long)pmd_size)
                        k++;
                if (k <= top)
                        return k;
        }
        return top > 1 ? top - 1 : 1;
}
