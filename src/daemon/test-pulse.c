/* pulse: the daemon's side of waking kswapd, on a fake kernel (a fixture's
 * /proc under a temporary root, its lowmem_reserve_ratio and buddyinfo
 * written by the test) and a real sd-event loop: what is written, kept and
 * put back when a pulse starts, ends, is stopped, meets somebody else's
 * value, or was left by an instance that died mid-pulse. */
#include <errno.h>
#include <fcntl.h>
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

#include "fixture-tree.h"
#include "actuate.h"
#include "pulse.h"
#include "state.h"
#include "tmp-tree.h"

#define NORMAL_MANAGED 5394266
#define DMA32_MANAGED 772917
#define NORMAL_MIN 14769
#define LOW100 (NORMAL_MIN + NORMAL_MANAGED / 100)      /* Normal's low at wsf 100 */
#define HIGH100 (NORMAL_MIN + 2 * (NORMAL_MANAGED / 100))

static const struct lowmem_ratio boot_ratio = { 5, { 256, 256, 32, 0, 0 } };
static const struct lowmem_ratio closed_ratio = { 5, { 1, 1, 32, 0, 0 } };
static const struct lowmem_ratio theirs = { 5, { 64, 64, 32, 0, 0 } };     /* an administrator's */

struct fake {
        char root[64], state[96];
        struct logger log;
        struct sample_reader *reader;
        sd_event *e;
        struct pulse w;
        struct zone zones[2];
};

static void put(const struct fake *f, const char *rel, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s%s", f->root, rel);
        FILE *out = fopen(path, "we");     /* in place: the reader keeps its file open */
        assert_non_null(out);
        assert_true(fputs(text, out) >= 0);
        assert_int_equal(fclose(out), 0);
}

static void lowmem_is(const struct fake *f, const struct lowmem_ratio *want)
{
        struct lowmem_ratio now;
        assert_int_equal(actuate_read_lowmem(f->root, &now), 0);
        assert_true(lowmem_ratio_equal(&now, want));
}

static bool lowmem_file_kept(const struct fake *f)
{
        struct lowmem_ratio boot, written;
        return state_load_lowmem(f->state, &boot, &written) == 0;
}

/* Normal's free pages as /proc/buddyinfo says them (order-0 blocks only). */
static void normal_free(const struct fake *f, uint64_t pages)
{
        char text[512];
        snprintf(text, sizeof(text),
                 "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
                 "Node 0, zone    DMA32      2      2      4      2      5      4      3      3      4      2    752 \n"
                 "Node 0, zone   Normal %llu      0      0      0      0      0      0      0      0      0      0 \n",
                 (unsigned long long)pages);
        put(f, "/proc/buddyinfo", text);
}

static int setup(void **state)
{
        struct fake *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        strcpy(f->root, "/tmp/test-pulse.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        assert_int_equal(fixture_tree(f->root, "x86-1node", 100), 0);
        snprintf(f->state, sizeof(f->state), "%s/run", f->root);
        assert_int_equal(mkdir(f->state, 0755), 0);
        put(f, LOWMEM_PATH, "256\t256\t32\t0\t0\n");
        normal_free(f, LOW100);
        f->log = (struct logger){ .level = LOG_DEBUG, .journal = false };
        assert_int_equal(sample_reader_new(&f->reader, f->root), 0);
        assert_true(sd_event_new(&f->e) >= 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fake *f = *state;
        pulse_stop(&f->w);
        sd_event_unref(f->e);
        sample_reader_free(f->reader);
        assert_int_equal(tmp_tree_remove(f->root), 0);
        free(f);
        return 0;
}

static void zone_at(struct zone *z, const char *name, uint64_t managed, uint64_t min, uint64_t free)
{
        memset(z, 0, sizeof(*z));
        strcpy(z->name, name);
        z->managed_pages = managed;
        uint64_t gap = managed / 100;   /* wsf 100 */
        z->wmark_min = min;
        z->wmark_low = min + gap;
        z->wmark_high = min + 2 * gap;
        z->nr_free[0] = free;
        zone_sum_orders(z, 11);
}

static struct sample at(struct fake *f, double t, uint64_t dma32_free)
{
        zone_at(&f->zones[0], "DMA32", DMA32_MANAGED, 2116, dma32_free);
        zone_at(&f->zones[1], "Normal", NORMAL_MANAGED, NORMAL_MIN, LOW100);
        struct sample s = { .time = t, .wsf = 100, .nr_orders = 11, .nr_zones = 2, .zones = f->zones };
        s.vm.pgscan_kswapd = 500;
        return s;
}

/* Two samples a second apart with a raise in force, Normal at its low and
 * DMA32 losing 80,000 pages with 1.5 s of that fall left, kswapd asleep:
 * the second calls for a pulse. */
static void two_samples(struct fake *f, bool acting)
{
        uint64_t d32 = 120000 + 2116 + DMA32_MANAGED / 100 + NORMAL_MANAGED / 256;
        struct sample s = at(f, 0, d32 + 80000);
        pulse_sample(&f->w, f->e, &s, 10, acting);
        s = at(f, 1, d32);
        pulse_sample(&f->w, f->e, &s, 10, acting);
}

static void init(struct fake *f, bool acting)
{
        pulse_init(&f->w, f->root, f->state, &f->log, f->reader, 4096, 9, true, acting);
}

/* A pulse made and in progress. */
static void started(struct fake *f)
{
        init(f, true);
        assert_true(f->w.usable);
        two_samples(f, true);
        assert_non_null(f->w.poll);
        lowmem_is(f, &closed_ratio);
        assert_true(lowmem_file_kept(f));
}

/* No pulse in progress, the ratio `want` in force, no lowmem file. */
static void none(const struct fake *f, const struct lowmem_ratio *want)
{
        assert_null(f->w.poll);
        lowmem_is(f, want);
        assert_false(lowmem_file_kept(f));
}

/* Run the loop until the pulse is over (at most ~3 s). */
static void until_open(struct fake *f)
{
        for (int i = 0; i < 60 && f->w.poll; i++)
                assert_true(sd_event_run(f->e, 50000) >= 0);
}

static void closes_keeps_and_opens_at_high(void **state)
{
        struct fake *f = *state;
        started(f);
        assert_true(sd_event_run(f->e, 50000) >= 0);   /* Normal still at its low: held */
        assert_non_null(f->w.poll);
        normal_free(f, HIGH100);                        /* kswapd did its work */
        until_open(f);
        none(f, &boot_ratio);
        assert_true(f->w.usable);                       /* the next one may come */
}

static void opens_near_min(void **state)
{
        struct fake *f = *state;
        started(f);
        normal_free(f, NORMAL_MIN + 100);
        until_open(f);
        none(f, &boot_ratio);
}

/* Normal between its floor and its high the whole time: open after
 * WAKE_MAX_SECONDS, never left closed. */
static void opens_at_timeout(void **state)
{
        struct fake *f = *state;
        started(f);
        until_open(f);
        none(f, &boot_ratio);
}

static void opens_when_buddyinfo_unreadable(void **state)
{
        struct fake *f = *state;
        started(f);
        put(f, "/proc/buddyinfo", "garbage\n");
        assert_true(sd_event_run(f->e, 100000) >= 0);  /* the first read opens them */
        none(f, &boot_ratio);
}

static void stop_opens(void **state)
{
        struct fake *f = *state;
        started(f);
        pulse_stop(&f->w);
        none(f, &boot_ratio);
}

/* An administrator's value set after the start is never closed around. */
static void another_value_is_not_fought(void **state)
{
        struct fake *f = *state;
        init(f, true);
        put(f, LOWMEM_PATH, "64 64 32 0 0\n");
        two_samples(f, true);
        none(f, &theirs);
        assert_false(f->w.usable);
}

/* ... nor replaced when it comes during a pulse: theirs stays, no more pulses. */
static void a_change_during_a_pulse_stays(void **state)
{
        struct fake *f = *state;
        started(f);
        put(f, LOWMEM_PATH, "64 64 32 0 0\n");
        normal_free(f, HIGH100);
        until_open(f);
        none(f, &theirs);
        assert_false(f->w.usable);
}

static void dry_run_writes_nothing(void **state)
{
        struct fake *f = *state;
        init(f, false);
        two_samples(f, false);
        none(f, &boot_ratio);
}

/* A previous instance died mid-pulse: its boot value back at the next
 * start while its closed value is still in force; not in a dry run. */
static void leftover_restored_at_start(void **state)
{
        struct fake *f = *state;
        put(f, LOWMEM_PATH, "1 1 32 0 0\n");
        assert_int_equal(state_save_lowmem(f->state, &boot_ratio, &closed_ratio), 0);
        init(f, false);
        lowmem_is(f, &closed_ratio);
        assert_true(lowmem_file_kept(f));
        init(f, true);
        none(f, &boot_ratio);
        assert_true(f->w.usable);
}

/* ... but a value changed since is somebody else's: left, file removed. */
static void leftover_of_a_changed_value_left(void **state)
{
        struct fake *f = *state;
        put(f, LOWMEM_PATH, "64 64 32 0 0\n");
        assert_int_equal(state_save_lowmem(f->state, &boot_ratio, &closed_ratio), 0);
        init(f, true);
        none(f, &theirs);
}

/* Where the lowmem file cannot be kept (here a file is where the state
 * directory should be), no pulse at all: a crash could not be undone. */
static void no_pulse_without_its_file(void **state)
{
        struct fake *f = *state;
        init(f, true);
        assert_int_equal(rmdir(f->state), 0);
        put(f, "/run", "not a directory\n");
        two_samples(f, true);
        none(f, &boot_ratio);
        assert_false(f->w.usable);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(closes_keeps_and_opens_at_high, setup, teardown),
                cmocka_unit_test_setup_teardown(opens_near_min, setup, teardown),
                cmocka_unit_test_setup_teardown(opens_at_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(opens_when_buddyinfo_unreadable, setup, teardown),
                cmocka_unit_test_setup_teardown(stop_opens, setup, teardown),
                cmocka_unit_test_setup_teardown(another_value_is_not_fought, setup, teardown),
                cmocka_unit_test_setup_teardown(a_change_during_a_pulse_stays, setup, teardown),
                cmocka_unit_test_setup_teardown(dry_run_writes_nothing, setup, teardown),
                cmocka_unit_test_setup_teardown(leftover_restored_at_start, setup, teardown),
                cmocka_unit_test_setup_teardown(leftover_of_a_changed_value_left, setup, teardown),
                cmocka_unit_test_setup_teardown(no_pulse_without_its_file, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
