/* publish: live.json, the metrics text, the counters, the files and the
 * lock. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "publish.h"
#include "util.h"

#include "json-alloc-fail.h"
#include "publish-fixture.h"

static void metrics_text(void **state)
{
        struct fixture *x = *state;
        struct publisher p;
        publish_init(&p);
        p.n.decisions[WSF_LOWER_CALM] = 4;
        p.n.samples = 9;
        char *t = publish_metrics_text(&p, &x->in, 1000.5, 1.25);
        assert_non_null(t);
        char want[160];
        long page = sysconf(_SC_PAGESIZE);
        snprintf(want, sizeof(want), "memoptimizer_zone_free_bytes{node=\"0\",zone=\"Normal\"} %ld", 12 * page);
        assert_true(has_line(t, want));
        snprintf(want, sizeof(want), "memoptimizer_zone_watermark_bytes{node=\"0\",zone=\"Normal\",watermark=\"low\"} %ld",
                 20 * page);
        assert_true(has_line(t, want));
        assert_true(has_line(t, "memoptimizer_zone_free_blocks{node=\"0\",zone=\"Normal\",order=\"1\"} 2"));
        assert_true(has_line(t, "memoptimizer_zone_free_blocks{node=\"1\",zone=\"Odd\\\"Zone\",order=\"0\"} 0"));
        assert_true(has_line(t, "memoptimizer_watermark_scale_factor 150"));
        assert_true(has_line(t, "memoptimizer_watermark_scale_factor_baseline 10"));
        assert_true(has_line(t, "memoptimizer_watermark_scale_factor_ceiling 900"));
        assert_true(has_line(t, "memoptimizer_forecast_low_watermark_seconds{node=\"0\",zone=\"Normal\"} 4.5"));
        assert_true(has_line(t, "memoptimizer_forecast_min_watermark_seconds{node=\"0\",zone=\"Normal\"} +Inf"));
        assert_true(has_line(t, "memoptimizer_forecast_order_exhaustion_seconds{node=\"0\",order=\"1\"} +Inf"));
        assert_true(has_line(t, "memoptimizer_forecast_order_exhaustion_seconds{node=\"0\",order=\"2\"} 12.25"));
        assert_true(has_line(t, "memoptimizer_decisions_total{kind=\"lower\"} 4"));
        assert_true(has_line(t, "memoptimizer_decisions_total{kind=\"raise\"} 0"));
        assert_true(has_line(t, "memoptimizer_samples_total 9"));
        assert_true(has_line(t, "memoptimizer_kernel_allocstalls_total 77"));
        assert_true(has_line(t, "memoptimizer_process_cpu_seconds_total 1.25"));
        assert_true(has_line(t, "memoptimizer_mode{mode=\"acting\"} 1"));
        assert_true(has_line(t, "memoptimizer_mode{mode=\"dry-run\"} 0"));
        assert_true(has_line(t, "# TYPE memoptimizer_samples_total counter"));
        free(t);
        /* Before the first forecast the forecast series and the ceiling are absent. */
        x->in.forecast = NULL;
        x->in.decision = NULL;
        t = publish_metrics_text(&p, &x->in, 1000.5, 1.25);
        assert_null(strstr(t, "memoptimizer_forecast_"));
        assert_null(strstr(t, "memoptimizer_watermark_scale_factor_ceiling"));
        free(t);
        x->in.sample = NULL;
        assert_null(publish_metrics_text(&p, &x->in, 1000.5, 1.25));
}

static json_object *live(const struct publisher *p, const struct publish_input *in)
{
        char *t = publish_live_json(p, in, 2000.25, 0.5);
        assert_non_null(t);
        json_object *o = json_tokener_parse(t);
        free(t);
        assert_non_null(o);
        return o;
}

static void live_document(void **state)
{
        struct fixture *x = *state;
        struct publisher p;
        publish_init(&p);
        /* 12 cycles of one decision and one compaction: the ring keeps the
         * newest 10 events, the counters count all. */
        for (int i = 0; i < 12; i++)
                publish_cycle(&p, &x->in);
        json_object *o = live(&p, &x->in);
        assert_int_equal(json_object_get_int(at(o, "schema_version")), LIVE_SCHEMA_VERSION);
        assert_string_equal(json_object_get_string(at(o, "mode")), "acting");
        assert_int_equal(json_object_get_int(at(o, "pid")), getpid());
        assert_int_equal(json_object_get_int(at(o, "watermark_scale_factor.kernel")), 150);
        assert_int_equal(json_object_get_int(at(o, "watermark_scale_factor.ceiling")), 900);
        assert_float_equal(json_object_get_double(at(o, "forecast.zones.0.seconds_to_low")), 4.5, 1e-9);
        assert_null(at(o, "forecast.zones.0.seconds_to_min"));         /* never: null */
        assert_int_equal(json_object_get_type(at(o, "forecast.zones.0")), json_type_object);
        assert_float_equal(json_object_get_double(at(o, "forecast.nodes.0.orders.1.seconds_to_exhaustion")),
                           12.25, 1e-9);
        assert_int_equal(json_object_get_int(at(o, "counters.decisions.raise-stall")), 12);
        assert_int_equal(json_object_get_int(at(o, "counters.compactions")), 12);
        assert_int_equal(json_object_get_int(at(o, "counters.samples")), 12);
        assert_int_equal(json_object_array_length(at(o, "recent_decisions")), PUBLISH_RECENT);
        assert_string_equal(json_object_get_string(at(o, "recent_decisions.9.kind")), "compact");
        assert_string_equal(json_object_get_string(at(o, "recent_decisions.8.kind")), "raise-stall");
        assert_non_null(strstr(json_object_get_string(at(o, "recent_decisions.8.reason")), "3 stalls"));
        json_object_put(o);
        /* A failed sample counts as an error; no forecast then. */
        x->in.sample = NULL;
        x->in.forecast = NULL;
        x->in.decision = NULL;
        publish_cycle(&p, &x->in);
        o = live(&p, &x->in);
        assert_int_equal(json_object_get_int(at(o, "counters.sample_errors")), 1);
        assert_null(at(o, "forecast"));
        assert_null(at(o, "watermark_scale_factor.kernel"));
        json_object_put(o);
        publish_stop(&p, x->dir);
}

static void files_and_lock(void **state)
{
        struct fixture *x = *state;
        char live_path[128], prom[128];
        snprintf(live_path, sizeof(live_path), "%s/" LIVE_FILE, x->dir);
        snprintf(prom, sizeof(prom), "%s/" METRICS_FILE, x->metrics);
        struct publisher a, b;
        publish_init(&a);
        publish_init(&b);
        publish_cycle(&a, &x->in);
        struct stat st;
        assert_int_equal(stat(live_path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0644);
        assert_int_equal(stat(prom, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0644);
        /* a second instance publishes nothing while the first holds the lock */
        x->in.mode = MODE_DRY_RUN;
        publish_cycle(&b, &x->in);
        json_object *o = json_object_from_file(live_path);
        assert_string_equal(json_object_get_string(at(o, "mode")), "acting");
        json_object_put(o);
        /* the first stops: files gone; the second takes over */
        publish_stop(&a, x->dir);
        assert_int_equal(access(live_path, F_OK), -1);
        assert_int_equal(access(prom, F_OK), -1);
        publish_cycle(&b, &x->in);
        o = json_object_from_file(live_path);
        assert_string_equal(json_object_get_string(at(o, "mode")), "dry-run");
        json_object_put(o);
        /* metrics_dir emptied on reload: the old file goes at once */
        assert_int_equal(access(prom, F_OK), 0);
        x->cfg.metrics_dir[0] = '\0';
        publish_cycle(&b, &x->in);
        assert_int_equal(access(prom, F_OK), -1);
        publish_stop(&b, x->dir);
        /* nothing but the lock file is left */
        char cmd[160];
        snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s | tr '\\n' ' ')\" = 'live.lock textfile '", x->dir);
        assert_int_equal(system(cmd), 0);
}

/* The file's inode: each write renames a new file over it. */
static ino_t live_inode(const struct fixture *x)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/" LIVE_FILE, x->dir);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        return st.st_ino;
}

/* live.json is written when there is news, else only as a heartbeat. */
static void live_written_on_news(void **state)
{
        struct fixture *x = *state;
        struct publisher p;
        publish_init(&p);
        struct decision keep = { .reason = WSF_KEEP, .wsf_old = 150, .wsf_new = 150, .node = -1 };
        x->in.decision = NULL;
        x->in.forecast = NULL;                  /* the first sample: no forecast yet */
        publish_cycle(&p, &x->in);              /* the first cycle always writes */
        ino_t i = live_inode(x);
        x->in.decision = &keep;
        x->in.forecast = &x->f;                 /* the first forecast is news */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        char path[128];
        snprintf(path, sizeof(path), "%s/" LIVE_FILE, x->dir);
        json_object *o = json_object_from_file(path);
        assert_float_equal(json_object_get_double(at(o, "heartbeat_seconds")), LIVE_HEARTBEAT, 0);
        json_object_put(o);
        publish_cycle(&p, &x->in);              /* nothing decided: not rewritten */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) == i);
        x->in.decision = &x->d;                 /* a raise and a compaction */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        x->in.decision = &keep;
        x->in.mode = MODE_MONITOR_ONLY;         /* the mode changed */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        x->in.sample = NULL;                    /* sampling fails... */
        x->in.decision = NULL;
        x->in.forecast = NULL;
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        publish_cycle(&p, &x->in);              /* ...and keeps failing: no news */
        assert_true(live_inode(x) == i);
        x->in.sample = &x->s;                   /* ...and works again */
        x->in.decision = &keep;
        x->in.forecast = &x->f;
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        publish_news(&p);                       /* say, a reload */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        i = live_inode(x);
        p.live_due = 1;                         /* the heartbeat is due */
        publish_cycle(&p, &x->in);
        assert_true(live_inode(x) != i);
        o = json_object_from_file(path);
        assert_int_equal(json_object_get_int(at(o, "counters.samples")), 9);     /* 2 of 11 failed */
        json_object_put(o);
        /* a long interval is its own heartbeat */
        x->cfg.interval = 30;
        assert_float_equal(publish_heartbeat(&x->cfg), 30, 0);
        publish_stop(&p, x->dir);
}

struct live_args {
        struct publisher p;
        const struct publish_input *in;
};

static void *live_text(void *arg)
{
        struct live_args *a = arg;
        return publish_live_json(&a->p, a->in, 1e9, 0.5);
}

/* Out of memory anywhere in live.json: nothing to write (publish says so
 * once), rather than a document with nulls that status would misread. */
static void live_dropped_when_out_of_memory(void **state)
{
        struct fixture *x = *state;
        struct live_args a = { .in = &x->in };
        publish_init(&a.p);
        publish_cycle(&a.p, &x->in);    /* a decision and a compaction among the recent ones */
        every_json_failure_drops(live_text, &a, free);
        publish_stop(&a.p, x->dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(metrics_text, setup, teardown),
                cmocka_unit_test_setup_teardown(live_document, setup, teardown),
                cmocka_unit_test_setup_teardown(files_and_lock, setup, teardown),
                cmocka_unit_test_setup_teardown(live_written_on_news, setup, teardown),
                cmocka_unit_test_setup_teardown(live_dropped_when_out_of_memory, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
