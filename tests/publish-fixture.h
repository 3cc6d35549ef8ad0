/* publish-fixture.h — a publisher's input (configuration, sample,
 * forecast, decision, policy) in a temporary runtime directory, for the
 * tests of publish and of status, which reads what publish wrote. */
#pragma once

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include <json-c/json.h>

#include "publish.h"
#include "tmp-tree.h"

struct fixture {
        char dir[64];           /* runtime directory */
        char metrics[80];       /* metrics_dir */
        struct config cfg;
        struct logger log;
        struct zone zones[2];
        struct sample s;
        struct zone_forecast zf[2];
        struct node_forecast nf;
        struct forecast f;
        struct decision d;
        struct policy_state ps;
        struct publish_input in;
};

static inline int setup(void **state)
{
        struct fixture *x = calloc(1, sizeof(*x));
        assert_non_null(x);
        snprintf(x->dir, sizeof(x->dir), "/tmp/memoptimizer-pub-XXXXXX");
        assert_non_null(mkdtemp(x->dir));
        snprintf(x->metrics, sizeof(x->metrics), "%s/textfile", x->dir);
        assert_int_equal(mkdir(x->metrics, 0755), 0);
        config_defaults(&x->cfg);
        snprintf(x->cfg.metrics_dir, sizeof(x->cfg.metrics_dir), "%s", x->metrics);
        log_init(&x->log, LOG_ERR);
        /* order 0..2: Normal has 4 single pages, 2 order-1 and 1 order-2 block = 12 pages */
        x->zones[0] = (struct zone){ .node = 0, .name = "Normal", .nr_free = { 4, 2, 1 },
                                     .wmark_min = 10, .wmark_low = 20, .wmark_high = 30, .managed_pages = 1000 };
        x->zones[1] = (struct zone){ .node = 1, .name = "Odd\"Zone", .managed_pages = 100 };
        x->s = (struct sample){ .wsf = 150, .nr_orders = 3, .nr_zones = 2, .zones = x->zones };
        x->s.vm.allocstall = 77;
        x->s.vm.compact_stall = 5;
        for (size_t i = 0; i < 2; i++)
                zone_sum_orders(&x->zones[i], 3);
        x->zf[0] = (struct zone_forecast){ .node = 0, .name = "Normal", .secs_to_low = 4.5, .secs_to_min = INFINITY };
        x->zf[1] = (struct zone_forecast){ .node = 1, .name = "Odd\"Zone", .secs_to_low = 0, .secs_to_min = 0 };
        x->nf = (struct node_forecast){ .node = 0, .secs_to_exhaust = { 0, INFINITY, 12.25 } };
        x->f = (struct forecast){ .max_order = 2, .nr_orders = 3, .nr_zones = 2, .zones = x->zf, .nr_nodes = 1,
                                  .nodes = &x->nf };
        policy_init(&x->ps, 10, 10);
        x->ps.current = 150;
        x->d = (struct decision){ .reason = WSF_RAISE_STALL, .wsf_old = 10, .wsf_new = 150, .ceiling = 900,
                                  .node = -1, .stalls = 3, .nr_compact = 1,
                                  .compact = { { .node = 0, .order = 2, .secs_to_exhaust = 3 } } };
        x->in = (struct publish_input){ .cfg = &x->cfg, .state_dir = x->dir, .log = &x->log, .mode = MODE_ACTING,
                                        .sample = &x->s, .forecast = &x->f, .decision = &x->d, .policy = &x->ps };
        *state = x;
        return 0;
}

static inline int teardown(void **state)
{
        struct fixture *x = *state;
        assert_int_equal(tmp_tree_remove(x->dir), 0);
        free(x);
        return 0;
}

static inline bool has_line(const char *text, const char *line)
{
        size_t n = strlen(line);
        for (const char *p = text; (p = strstr(p, line)); p += n)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static inline json_object *at(json_object *o, const char *path)
{
        char buf[128];
        snprintf(buf, sizeof(buf), "%s", path);
        for (char *save, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
                char *end;
                long i = strtol(k, &end, 10);
                if (*end == '\0')
                        o = json_object_array_get_idx(o, (size_t)i);
                else if (!json_object_object_get_ex(o, k, &o))
                        return NULL;
        }
        return o;
}

