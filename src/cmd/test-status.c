/* status: one report, two renderings that agree, the daemon's state from
 * live.json and its lock, and what it learnt from the state directory. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "learn-file.h"
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

static int exited_pid(void);

/* A fixture kernel: the text and the JSON show the same numbers, and the
 * daemon's state follows live.json and the process that wrote it. */
/* Text of a report's rendering for a person (caller frees). */
static char *text_of(const struct status_report *r)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        status_report_text(f, r);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void status_report(void **state)
{
        struct fixture *x = *state;
        char root[128];
        kernel_tree(x, root, sizeof(root));
        struct status_report r;
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
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
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_RUNNING);
        o = status_report_json(&r);
        assert_string_equal(json_object_get_string(at(o, "daemon.mode")), "acting");
        assert_int_equal(json_object_get_int(at(o, "daemon.live.counters.samples")), 1);
        assert_string_equal(json_object_get_string(at(o, "daemon.live.watermark_scale_factor.raises_held")), "none");
        json_object_put(o);
        text = text_of(&r);
        assert_null(strstr(text, "raises held back"));
        free(text);
        status_report_free(&r);
        /* kswapd gave up on a node: the daemon says it holds raises back */
        x->ps.hold = HOLD_NODE_UNRECLAIMABLE;
        publish_cycle(&p, &x->in);
        x->ps.hold = HOLD_NONE;
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        text = text_of(&r);
        assert_non_null(strstr(text, "raises held back (node-unreclaimable)"));
        free(text);
        status_report_free(&r);
        /* written within the heartbeat (10 s) and 6 s: running, though
         * many 1 s intervals ago; silent for longer: stale */
        char live_path[128];
        snprintf(live_path, sizeof(live_path), "%s/" LIVE_FILE, x->dir);
        o = json_object_from_file(live_path);
        json_object_object_add(o, "updated", json_object_new_double(r.time - 14));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_RUNNING);
        status_report_free(&r);
        json_object_object_add(o, "updated", json_object_new_double(r.time - 17));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_STALE);
        status_report_free(&r);
        json_object_object_add(o, "updated", json_object_new_double(1000));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_STALE);
        status_report_free(&r);
        /* the daemon killed with the file left (its pid gone, or another
         * process's now): not running; status takes no lock to know */
        json_object_object_add(o, "updated", json_object_new_double(r.time - 1));
        json_object_object_add(o, "pid", json_object_new_int(exited_pid()));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_NOT_RUNNING);
        assert_non_null(strstr(r.daemon_detail, "has exited"));
        status_report_free(&r);
        json_object *ticks = NULL;
        assert_true(json_object_object_get_ex(o, "pid_start_ticks", &ticks) && ticks);
        json_object_object_add(o, "pid", json_object_new_int(getpid()));
        json_object_object_add(o, "pid_start_ticks", json_object_new_int64(json_object_get_int64(ticks) + 1));
        assert_int_equal(json_object_to_file(live_path, o), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
        assert_int_equal(r.daemon, DAEMON_NOT_RUNNING);
        status_report_free(&r);
        json_object_put(o);
        close(p.lock_fd);
}

/* The pid of a process that has exited and been reaped. */
static int exited_pid(void)
{
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(0);
        assert_int_equal(waitpid(child, NULL, 0), child);
        return child;
}

/* The daemon's locks are its own: live.lock is 0600, so no other user can
 * open it to hold it and stop the publishing. */
static void live_lock_is_private(void **state)
{
        struct fixture *x = *state;
        struct publisher p;
        publish_init(&p);
        mode_t old = umask(0);
        publish_cycle(&p, &x->in);
        umask(old);
        char path[128];
        snprintf(path, sizeof(path), "%s/" LIVE_LOCK, x->dir);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        publish_stop(&p, x->dir);
        /* an older version's 0644 lock is replaced, not reused: whoever
         * opened it then and holds its lock does not stop the publishing */
        assert_int_equal(chmod(path, 0644), 0);
        int held = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(held >= 0);
        assert_int_equal(flock(held, LOCK_EX | LOCK_NB), 0);
        publish_init(&p);
        publish_cycle(&p, &x->in);
        assert_true(p.lock_fd >= 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        snprintf(path, sizeof(path), "%s/" LIVE_FILE, x->dir);
        assert_int_equal(access(path, F_OK), 0);
        publish_stop(&p, x->dir);
        close(held);
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
        /* and a learned state, so its part is there too */
        char lib[128];
        snprintf(lib, sizeof(lib), "%s/lib", x->dir);
        struct learned l;
        learn_init(&l);
        struct episode_stats e = {
                .start = 1795435200, .end = 1795435212.5, .peak_demand_pages_per_sec = 262144,
                .demand_pages = 1 << 20, .kswapd_pressed_pages_per_sec = 150000, .gap_pages = 10000,
                .wsf_max = 200, .managed_pages = 6170000,
        };
        learn_episode(&l, &e);
        assert_int_equal(learn_save(lib, &l, 0), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, lib, &x->cfg), 0);
        assert_non_null(r.live);
        assert_int_equal(r.learned_state, LEARNED_OK);
        every_json_failure_drops(report_json, &r, put);
        status_report_free(&r);
        publish_stop(&p, x->dir);
}

/* What status computes from or prints of live.json is checked first: an
 * absurd value makes it "not running" with the field named, never a
 * 300-digit age or a garbled line. */
static void absurd_live_json(void **state)
{
        struct fixture *x = *state;
        char root[128], live_path[128];
        kernel_tree(x, root, sizeof(root));
        snprintf(live_path, sizeof(live_path), "%s/" LIVE_FILE, x->dir);
        struct publisher p;
        publish_init(&p);
        publish_cycle(&p, &x->in);
        json_object *good = json_object_from_file(live_path);
        assert_non_null(good);
        static const struct {
                const char *key, *json, *why;
        } cases[] = {
                { "updated", "1e308", "updated is 1e+308, not within" },
                { "updated", "-5", "updated is -5, not within" },
                { "updated", "\"soon\"", "updated is not a number" },
                { "started", "1e308", "started is 1e+308" },
                { "pid", "-1", "pid is -1, not within 1..4194304" },
                { "pid", "99999999999", "pid is 99999999999" },
                { "pid", "1.5", "pid is not an integer" },
                { "mode", "\"root\"", "mode is not a value the daemon writes" },
                { "interval_seconds", "1e308", "interval_seconds is 1e+308" },
                { "heartbeat_seconds", "0", "heartbeat_seconds is 0" },
                { "counters", "{\"samples\": -3}", "samples is -3" },
                { "counters", "{\"samples\": 1e308}", "samples is not an integer" },
                { "watermark_scale_factor", "{\"decided\": 100000, \"baseline\": 10}", "decided is 100000" },
                { "watermark_scale_factor", "{\"decided\": 10, \"baseline\": 10, \"raises_held\": \"panic\"}",
                  "raises_held is not a value the daemon writes" },
                { "watermark_scale_factor", "{\"decided\": 10, \"baseline\": 10, \"raises_held\": 1}",
                  "raises_held is not a string" },
                { "recent_decisions", "[{\"time\": 1e308}]", "time is 1e+308" },
                { "recent_decisions", "[3]", "recent_decisions[] is not an object" },
                { "forecast", "{\"zones\": [{\"node\": -7}], \"nodes\": []}", "node is -7" },
                { "forecast", "[]", "forecast is not an object" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                json_object *o = json_tokener_parse(json_object_to_json_string(good));
                json_object_object_add(o, cases[i].key, json_tokener_parse(cases[i].json));
                assert_int_equal(json_object_to_file(live_path, o), 0);
                json_object_put(o);
                struct status_report r;
                assert_int_equal(status_report_read(&r, root, x->dir, x->dir, &x->cfg), 0);
                if (r.daemon != DAEMON_NOT_RUNNING || !strstr(r.daemon_detail, cases[i].why))
                        fail_msg("%s = %s: %s", cases[i].key, cases[i].json, r.daemon_detail);
                assert_null(r.live);
                char *text = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&text, &len);
                status_report_text(f, &r);
                fclose(f);
                /* no absurdly long number: nothing the file said was printed */
                for (const char *c = text; *c; c++)
                        assert_true(strspn(c, "0123456789") < 24);
                free(text);
                status_report_free(&r);
        }
        json_object_put(good);
        publish_stop(&p, x->dir);
}

/* Nothing learnt, what was learnt (as any user), and a file the daemon
 * would not use, with why. */
static void learned_shown(void **state)
{
        struct fixture *x = *state;
        char root[128], lib[128], line[512];
        kernel_tree(x, root, sizeof(root));
        snprintf(lib, sizeof(lib), "%s/lib", x->dir);
        struct status_report r;
        assert_int_equal(status_report_read(&r, root, x->dir, lib, &x->cfg), 0);
        assert_int_equal(r.learned_state, LEARNED_NONE);
        json_object *o = status_report_json(&r);
        assert_string_equal(json_object_get_string(at(o, "learned.state")), "none");
        assert_int_equal(json_object_array_length(at(o, "learned.classes")), 0);
        assert_null(at(o, "learned.managed_pages"));
        json_object_put(o);
        char *text = text_of(&r);
        snprintf(line, sizeof(line), "learnt: nothing yet (no %s/learned)", lib);
        assert_true(has_line(text, line));
        free(text);
        status_report_free(&r);

        /* an episode learnt at Unix time 1795435200 (2026-11-23 12:00 UTC) */
        struct learned l;
        learn_init(&l);
        struct episode_stats e = {
                .start = 1795435200, .end = 1795435212.5, .peak_demand_pages_per_sec = 262144,
                .peak_thp_pages_per_sec = 200000,
                .demand_pages = 1 << 20, .kswapd_pressed_pages_per_sec = 150000, .direct_pages = 512,
                .allocstalls = 3, .gap_pages = 10000, .wsf_max = 200, .managed_pages = 6170000,
        };
        learn_episode(&l, &e);
        int c = learn_class_of(e.peak_demand_pages_per_sec, e.managed_pages);
        assert_true(c >= 0);
        assert_int_equal(learn_save(lib, &l, 0), 0);
        if (geteuid() == 0) {   /* any user reads root's file */
                assert_int_equal(chmod(x->dir, 0755), 0);
                assert_int_equal(seteuid(65534), 0);
        }
        int rr = status_report_read(&r, root, x->dir, lib, &x->cfg);
        if (geteuid() != getuid())
                assert_int_equal(seteuid(0), 0);
        assert_int_equal(rr, 0);
        assert_int_equal(r.learned_state, LEARNED_OK);
        o = status_report_json(&r);
        assert_string_equal(json_object_get_string(at(o, "learned.state")), "learned");
        assert_int_equal(json_object_get_int(at(o, "learned.version")), LEARN_VERSION);     /* as read */
        assert_int_equal(json_object_get_int64(at(o, "learned.managed_pages")), 6170000);
        assert_true(json_object_get_double(at(o, "learned.saved")) > 1.7e9);
        assert_int_equal(json_object_array_length(at(o, "learned.classes")), 1);
        assert_int_equal(json_object_get_int(at(o, "learned.classes.0.class")), c);
        assert_string_equal(json_object_get_string(at(o, "learned.classes.0.kind")), "thp");
        assert_int_equal(json_object_get_int(at(o, "learned.classes.0.stalled")), 1);
        assert_float_equal(json_object_get_double(at(o, "learned.classes.0.wsf")), l.classes[LEARN_THP][c].wsf,
                           1e-3);
        assert_float_equal(json_object_get_double(at(o, "learned.classes.0.updated")), 1795435212.5, 1e-3);
        assert_int_equal(json_object_array_length(at(o, "learned.episodes")), 1);
        assert_float_equal(json_object_get_double(at(o, "learned.episodes.0.start")), 1795435200, 1e-3);
        assert_int_equal(json_object_get_int(at(o, "learned.episodes.0.stalls")), 3);
        assert_float_equal(json_object_get_double(at(o, "learned.episodes.0.peak_thp_pages_per_sec")), 200000, 1e-3);
        assert_float_equal(json_object_get_double(at(o, "learned.kswapd_capacity_pages_per_sec")), 150000, 1e-3);
        text = text_of(&r);
        snprintf(line, sizeof(line), ", mostly huge pages: wsf %.0f, after 1 episodes (1 stalled)",
                 ceil(l.classes[LEARN_THP][c].wsf));
        assert_non_null(strstr(text, line));
        assert_non_null(strstr(text, "on a machine of 6170000 managed pages"));
        assert_non_null(strstr(text, "1 episodes kept; the last"));
        free(text);
        json_object_put(o);
        status_report_free(&r);

        /* a file version 1 wrote: shown as it is, each class once of each kind */
        char path[160];
        snprintf(path, sizeof(path), "%s/learned", lib);
        char *v1 = fixture_text("learned/v1-three");
        assert_non_null(v1);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(v1, f);
        assert_int_equal(fclose(f), 0);
        free(v1);
        assert_int_equal(status_report_read(&r, root, x->dir, lib, &x->cfg), 0);
        assert_int_equal(r.learned_state, LEARNED_OK);
        o = status_report_json(&r);
        assert_int_equal(json_object_get_int(at(o, "learned.version")), 1);
        assert_int_equal(json_object_array_length(at(o, "learned.classes")), 4);
        assert_string_equal(json_object_get_string(at(o, "learned.classes.0.kind")), "base");
        assert_string_equal(json_object_get_string(at(o, "learned.classes.2.kind")), "thp");
        json_object_put(o);
        status_report_free(&r);

        /* another version: unusable, and why */
        f = fopen(path, "we");
        assert_non_null(f);
        fputs("version 7\n", f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(status_report_read(&r, root, x->dir, lib, &x->cfg), 0);
        assert_int_equal(r.learned_state, LEARNED_UNUSABLE);
        o = status_report_json(&r);
        snprintf(line, sizeof(line), "%s:1: version 7; this memoptimizer reads versions 1 and 3", path);
        assert_string_equal(json_object_get_string(at(o, "learned.error")), line);
        assert_int_equal(json_object_array_length(at(o, "learned.episodes")), 0);
        text = text_of(&r);
        assert_non_null(strstr(text, "learnt: unusable, the daemon starts from nothing"));
        assert_non_null(strstr(text, line));
        free(text);
        json_object_put(o);
        status_report_free(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(status_report, setup, teardown),
                cmocka_unit_test_setup_teardown(json_dropped_when_out_of_memory, setup, teardown),
                cmocka_unit_test_setup_teardown(live_lock_is_private, setup, teardown),
                cmocka_unit_test_setup_teardown(absurd_live_json, setup, teardown),
                cmocka_unit_test_setup_teardown(learned_shown, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
