/* publish (live.json, the metrics text, the counters, writing atomically)
 * and status (one report, two renderings; the daemon's state). */
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
#include "status.h"
#include "util.h"

#include "fixture-tree.h"

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

static int setup(void **state)
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
        policy_init(&x->ps, 10);
        x->ps.current = 150;
        x->d = (struct decision){ .reason = WSF_RAISE_STALL, .wsf_old = 10, .wsf_new = 150, .ceiling = 900,
                                  .node = -1, .stalls = 3, .nr_compact = 1,
                                  .compact = { { .node = 0, .order = 2, .secs_to_exhaust = 3 } } };
        x->in = (struct publish_input){ .cfg = &x->cfg, .state_dir = x->dir, .log = &x->log, .mode = MODE_ACTING,
                                        .sample = &x->s, .forecast = &x->f, .decision = &x->d, .policy = &x->ps };
        *state = x;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *x = *state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
        assert_int_equal(system(cmd), 0);
        free(x);
        return 0;
}

static bool has_line(const char *text, const char *line)
{
        size_t n = strlen(line);
        for (const char *p = text; (p = strstr(p, line)); p += n)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static void unusable_index(void **state)
{
        struct fixture *x = *state;
        /* 12 free pages; blocks >= order 1: 2*2 + 4 = 8 pages; >= order 2: 4 */
        assert_float_equal(zone_unusable_index(&x->zones[0], 3, 1), 4.0 / 12, 1e-12);
        assert_float_equal(zone_unusable_index(&x->zones[0], 3, 2), 8.0 / 12, 1e-12);
        assert_float_equal(zone_unusable_index(&x->zones[1], 3, 1), 1, 0);     /* nothing free */
}

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

static json_object *at(json_object *o, const char *path)
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

static void atomic_write(void **state)
{
        struct fixture *x = *state;
        assert_int_equal(write_file_atomic(x->dir, "f", "abc", 3, 0600), 0);
        char *buf = NULL;
        size_t sz = 0;
        char path[128];
        snprintf(path, sizeof(path), "%s/f", x->dir);
        assert_int_equal(read_file_at(NULL, path, &buf, &sz), 3);
        assert_string_equal(buf, "abc");
        free(buf);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        assert_int_equal(write_file_atomic("/nonexistent-dir", "f", "abc", 3, 0644), -ENOENT);
}

/* A fixture kernel: the text and the JSON show the same numbers, and the
 * daemon's state follows live.json and its lock. */
static void status_report(void **state)
{
        struct fixture *x = *state;
        char root[128];
        snprintf(root, sizeof(root), "%s/root", x->dir);
        assert_int_equal(fixture_tree(root, "x86-2node", 42), 0);
        struct status_report r;
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_NOT_RUNNING);
        json_object *o = status_report_json(&r);
        assert_int_equal(json_object_get_int(at(o, "schema_version")), STATUS_SCHEMA_VERSION);
        assert_int_equal(json_object_get_int(at(o, "watermark_scale_factor.current")), 42);
        assert_string_equal(json_object_get_string(at(o, "watermark_scale_factor.baseline_source")), "unchanged");
        assert_int_equal(json_object_array_length(at(o, "zones")), r.s.nr_zones);
        assert_string_equal(json_object_get_string(at(o, "daemon.state")), "not-running");
        assert_null(at(o, "daemon.live"));
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        status_report_text(f, &r);
        fclose(f);
        for (size_t i = 0; i < r.s.nr_zones; i++) {
                char path[64], line[160];
                snprintf(path, sizeof(path), "zones.%zu", i);
                json_object *z = at(o, path);
                snprintf(line, sizeof(line), "node%d %s: managed %" PRId64 " pages, free %" PRId64 " pages",
                         json_object_get_int(at(z, "node")), json_object_get_string(at(z, "zone")),
                         json_object_get_int64(at(z, "managed_pages")), json_object_get_int64(at(z, "free_pages")));
                assert_true(has_line(text, line));
        }
        free(text);
        json_object_put(o);
        status_report_free(&r);

        struct publisher p;
        publish_init(&p);
        publish_cycle(&p, &x->in);
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_RUNNING);
        o = status_report_json(&r);
        assert_string_equal(json_object_get_string(at(o, "daemon.mode")), "acting");
        assert_int_equal(json_object_get_int(at(o, "daemon.live.counters.samples")), 1);
        json_object_put(o);
        status_report_free(&r);
        /* written within the heartbeat (10 s) and 6 s: running, though
         * many 1 s intervals ago; silent for longer: stale */
        char live_path[128];
        snprintf(live_path, sizeof(live_path), "%s/" LIVE_FILE, x->dir);
        o = json_object_from_file(live_path);
        json_object_object_add(o, "updated", json_object_new_double(r.time - 14));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_RUNNING);
        status_report_free(&r);
        json_object_object_add(o, "updated", json_object_new_double(r.time - 17));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_STALE);
        status_report_free(&r);
        json_object_object_add(o, "updated", json_object_new_double(1000));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_STALE);
        status_report_free(&r);
        /* the lock released (the daemon killed) with the file left: not running */
        close(p.lock_fd);
        p.lock_fd = -1;
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_NOT_RUNNING);
        assert_non_null(strstr(r.daemon_detail, "has exited"));
        status_report_free(&r);
        json_object_put(o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(unusable_index, setup, teardown),
                cmocka_unit_test_setup_teardown(metrics_text, setup, teardown),
                cmocka_unit_test_setup_teardown(live_document, setup, teardown),
                cmocka_unit_test_setup_teardown(files_and_lock, setup, teardown),
                cmocka_unit_test_setup_teardown(live_written_on_news, setup, teardown),
                cmocka_unit_test_setup_teardown(atomic_write, setup, teardown),
                cmocka_unit_test_setup_teardown(status_report, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
