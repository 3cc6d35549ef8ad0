/* status: one report, two renderings that agree, and the daemon's state
 * from live.json and its lock. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "status-render.h"
#include "status.h"

#include "fixture-tree.h"
#include "json-alloc-fail.h"
#include "publish-fixture.h"

/* A fixture kernel (scale factor 42) in x's directory; its root in root. */
static void kernel_tree(const struct fixture *x, char *root, size_t size)
{
        snprintf(root, size, "%s/root", x->dir);
        assert_int_equal(fixture_tree(root, "x86-2node", 42), 0);
}

/* A fixture kernel: the text and the JSON show the same numbers, and the
 * daemon's state follows live.json and its lock. */
static void status_report(void **state)
{
        struct fixture *x = *state;
        char root[128];
        kernel_tree(x, root, sizeof(root));
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

static void *report_json(void *r) { return status_report_json(r); }
static void put(void *o) { json_object_put(o); }

/* Out of memory anywhere in the --json document: an error (exit 2), not a
 * document with nulls a script would take for "unknown". */
static void json_dropped_when_out_of_memory(void **state)
{
        struct fixture *x = *state;
        char root[128];
        kernel_tree(x, root, sizeof(root));
        struct publisher p;
        publish_init(&p);
        publish_cycle(&p, &x->in);      /* live.json, so the daemon's part is there too */
        struct status_report r;
        assert_int_equal(status_report_read(&r, root, x->dir, &x->cfg), 0);
        assert_non_null(r.live);
        every_json_failure_drops(report_json, &r, put);
        status_report_free(&r);
        publish_stop(&p, x->dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(status_report, setup, teardown),
                cmocka_unit_test_setup_teardown(json_dropped_when_out_of_memory, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
