/* The learned state's text: what learn_format() writes learn_parse() reads
 * back (within the printed precision, across a reboot's other clock
 * offset), and every other text is refused with its line and why, leaving
 * nothing half-read. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "learn.h"
#include "util.h"

#include "fixture-tree.h"
#include "sim.h"

/* A wall-clock offset as the daemon has it: booted at 2026-11-23 12:00 UTC. */
#define BOOT_WALL 1795435200.0
#define DAY (24 * 3600.0)

static const struct learned empty;

/* What a few days of episodes teach the lead's learner: classes grown by
 * stalls and shrunk by calm episodes, more episodes than the history keeps;
 * every third one mostly in huge pages. n: how many episodes. */
static void learnt_n(struct learned *l, int n)
{
        learn_init(l);
        for (int i = 0; i < n; i++) {
                struct episode_stats e = {
                        .start = 1000.0 + i * 3600.25, .end = 1000.0 + i * 3600.25 + 7.5 + i,
                        .peak_demand_pages_per_sec = 600.0 * (1 << (i % 12)) + i / 7.0,
                        .peak_thp_pages_per_sec = i % 3 == 2 ? 512.0 * (1 << (i % 12)) : 0,
                        .demand_pages = 262144.0 * (i + 1) / 3.0,
                        .kswapd_peak_pages_per_sec = 150000.0 + 1000.0 * i,
                        .kswapd_pressed_pages_per_sec = 150000.0 + 1000.0 * i,
                        .direct_pages = i % 5 == 0 ? 4096 : 0,
                        .min_margin_pages = 20000.0 - 3000.0 * (i % 9),
                        .gap_pages = 6000.0 + 100 * i, .wsf_max = 10 + 37 * i,
                        .allocstalls = (uint64_t)(i % 5 == 0 ? 3 * i : 0), .compact_stalls = (uint64_t)(i % 3),
                        .managed_pages = 6170000,
                };
                learn_episode(l, &e);
        }
}

static void learnt(struct learned *l)
{
        learnt_n(l, 40);
}

static void assert_close(double a, double b)
{
        if (!(fabs(a - b) <= 0.0005 + fabs(b) * 1e-12)) {
                print_error("%.6f != %.6f\n", a, b);
                fail();
        }
}

static void assert_same(const struct learned *a, const struct learned *b)
{
        assert_int_equal(a->managed_pages, b->managed_pages);
        assert_close(a->kswapd_capacity_pages_per_sec, b->kswapd_capacity_pages_per_sec);
        if (b->kswapd_capacity_pages_per_sec > 0)
                assert_close(a->kswapd_updated, b->kswapd_updated);
        for (int c = 0; c < LEARN_KINDS * LEARN_CLASSES; c++) {
                const struct learn_class *x = &a->classes[c / LEARN_CLASSES][c % LEARN_CLASSES],
                                         *y = &b->classes[c / LEARN_CLASSES][c % LEARN_CLASSES];
                assert_int_equal(x->known, y->known);
                if (!y->known)
                        continue;
                assert_close(x->wsf, y->wsf);
                assert_int_equal(x->episodes, y->episodes);
                assert_int_equal(x->stalled, y->stalled);
                assert_close(x->updated, y->updated);
        }
        assert_int_equal(a->nr_history, b->nr_history);
        for (size_t i = 0; i < b->nr_history; i++) {
                const struct learn_episode *x = &a->history[i], *y = &b->history[i];
                assert_close(x->start, y->start);
                assert_close(x->duration, y->duration);
                assert_close(x->peak_demand_pages_per_sec, y->peak_demand_pages_per_sec);
                assert_close(x->peak_thp_pages_per_sec, y->peak_thp_pages_per_sec);
                assert_close(x->demand_pages, y->demand_pages);
                assert_close(x->min_margin_pages, y->min_margin_pages);
                assert_int_equal(x->wsf_max, y->wsf_max);
                assert_int_equal(x->stalls, y->stalls);
        }
}

static int parse_text(struct learned *l, const char *text, double off, char *err, size_t errsz)
{
        return learn_parse(l, text, strlen(text), off, err, errsz);
}

/* parse(format(x)) == x, and formatting what was parsed gives the same
 * text again. */
static void round_trip(void **state)
{
        (void)state;
        struct learned l, back;
        learnt(&l);
        assert_int_equal(l.nr_history, LEARN_HISTORY);
        assert_true(learn_nr_classes(&l) >= 8);
        int thp = 0;
        for (int c = 0; c < LEARN_CLASSES; c++)
                thp += l.classes[LEARN_THP][c].known;
        assert_true(thp >= 4);
        assert_true(l.kswapd_capacity_pages_per_sec > 0);
        char *text, *again, err[256] = "";
        assert_int_equal(learn_format(&l, BOOT_WALL, &text), 0);
        assert_int_equal(parse_text(&back, text, BOOT_WALL, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_false(back.dirty);
        assert_same(&back, &l);
        assert_int_equal(learn_format(&back, BOOT_WALL, &again), 0);
        assert_string_equal(again, text);
        assert_true(strlen(text) < LEARN_TEXT_MAX / 4);
        free(again);
        free(text);

        /* nothing learnt yet */
        assert_int_equal(learn_format(&empty, BOOT_WALL, &text), 0);
        assert_non_null(strstr(text, "\nversion 3\nmachine managed_pages 0\nkswapd unknown\n"));
        assert_int_equal(parse_text(&back, text, BOOT_WALL, err, sizeof(err)), 0);
        assert_same(&back, &empty);
        free(text);
}

/* The file outlives the boot: times are written as UTC and read back with
 * the next boot's offset, so ages count in wall-clock time. */
static void ages_across_a_reboot(void **state)
{
        (void)state;
        struct learned l, back;
        learnt(&l);
        double last = l.history[LEARN_HISTORY - 1].start;
        char *text, err[256];
        assert_int_equal(learn_format(&l, BOOT_WALL, &text), 0);
        assert_non_null(strstr(text, "episode start 2026-11-25T03:"));
        /* rebooted 5 days after the last episode: the new boot's monotonic
         * clock starts again near 0; the oldest episode kept is 6.3 days
         * old */
        double off2 = BOOT_WALL + last + 5 * DAY - 30;
        assert_int_equal(parse_text(&back, text, off2, err, sizeof(err)), 0);
        assert_close(back.history[LEARN_HISTORY - 1].start, -5 * DAY + 30);
        learn_expire(&back, 30, 0);
        assert_int_equal(back.nr_history, LEARN_HISTORY);
        assert_true(back.kswapd_capacity_pages_per_sec > 0);
        /* a day later everything older than a week is gone */
        learn_expire(&back, 30 + 1.0 * DAY, 0);
        assert_true(back.nr_history < LEARN_HISTORY);
        assert_true(back.nr_history > 0);
        for (size_t i = 0; i < back.nr_history; i++)
                assert_true(30 + 1.0 * DAY - back.history[i].start <= LEARN_MAX_AGE);
        free(text);
}

/* learn_tick(), the aging the daemon and a replay of it share: at the
 * first forecast what another machine's size learnt is forgotten; then it
 * ages at once and every LEARN_AGE_EVERY, not in between. */
static void ticks_as_the_daemon_ages(void **state)
{
        (void)state;
        struct learned l;
        learnt(&l);
        struct learn_clock c = { .aged = -INFINITY };
        double now = l.history[LEARN_HISTORY - 1].start + 60;
        assert_true(learn_tick(&l, &c, now, 6170000 + 100000));        /* within 10 % */
        assert_true(c.sized);
        assert_int_equal(l.nr_history, LEARN_HISTORY);
        size_t kept = l.nr_history;
        /* a week later, but within a minute of the last aging: nothing yet */
        c.aged = now + LEARN_MAX_AGE - 1;
        assert_false(learn_tick(&l, &c, now + LEARN_MAX_AGE, 1));
        assert_int_equal(l.nr_history, kept);
        assert_true(learn_tick(&l, &c, now + LEARN_MAX_AGE - 1 + LEARN_AGE_EVERY, 1));
        assert_true(l.nr_history < kept);
        /* the size is compared once, at the first forecast only */
        assert_true(l.managed_pages > 0);
        struct learn_clock fresh = { .aged = -INFINITY };
        learnt(&l);
        learn_tick(&l, &fresh, now, 3000000);
        assert_int_equal(l.managed_pages, 0);
        assert_int_equal(l.nr_history, 0);
}

/* Our calendar agrees with the C library's over the years the file allows. */
static void utc_times(void **state)
{
        (void)state;
        struct learned l = { .managed_pages = 1, .kswapd_capacity_pages_per_sec = 1 }, back;
        srand(14);
        for (int i = 0; i < 20000; i++) {
                time_t t = i == 0 ? 0 : i == 1 ? 951782400 /* 2000-02-29 */ :
                           i == 2 ? 253402300799 : (time_t)((double)rand() / RAND_MAX * 253402300799.0);
                struct tm tm;
                char want[128], *text, err[256];
                gmtime_r(&t, &tm);
                strftime(want, sizeof(want), "kswapd capacity_pages_per_sec 1.000 at %Y-%m-%dT%H:%M:%S.250Z\n", &tm);
                l.kswapd_updated = (double)t + 0.25 - BOOT_WALL;
                assert_int_equal(learn_format(&l, BOOT_WALL, &text), 0);
                if (!strstr(text, want)) {
                        print_error("%lld: want %s in %s\n", (long long)t, want, text);
                        fail();
                }
                assert_int_equal(parse_text(&back, text, BOOT_WALL, err, sizeof(err)), 0);
                assert_close(back.kswapd_updated, l.kswapd_updated);
                free(text);
                /* the same parser reads a trace header's start, whole seconds */
                strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%SZ", &tm);
                assert_float_equal(utc_parse(want, false), (double)t, 0);
        }
        assert_true(utc_parse("2026-02-29T00:00:00Z", false) < 0);     /* not a leap year */
        assert_true(utc_parse("2026-11-24 17:38:01", false) < 0);
        assert_true(utc_parse("2026-11-24T17:38:01Z", true) < 0);      /* the other form */
        assert_true(utc_parse("2026-11-24T17:38:01.000Z", false) < 0);
}

/* Values the learner should never have still make a text that is read
 * back: at the bounds, never NaN. */
static void out_of_range_written_at_bounds(void **state)
{
        (void)state;
        struct learned l = { .managed_pages = UINT64_MAX, .kswapd_capacity_pages_per_sec = INFINITY,
                             .kswapd_updated = -1e12, .nr_history = LEARN_HISTORY + 5 }, back;
        l.classes[LEARN_BASE][3] = (struct learn_class){ .known = true, .wsf = 1e9, .episodes = 2, .stalled = 7,
                                                         .updated = NAN };
        l.classes[LEARN_THP][4] = (struct learn_class){ .known = true, .wsf = NAN, .updated = 1e300 };
        l.history[0] = (struct learn_episode){ .duration = -5, .peak_demand_pages_per_sec = NAN,
                                               .peak_thp_pages_per_sec = -1,
                                               .demand_pages = 1e30, .min_margin_pages = -1e30,
                                               .wsf_max = -3, .stalls = UINT64_MAX };
        char *text, err[256] = "";
        assert_int_equal(learn_format(&l, BOOT_WALL, &text), 0);
        assert_int_equal(parse_text(&back, text, BOOT_WALL, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_int_equal(back.managed_pages, 1000000000000000ull);
        assert_close(back.kswapd_capacity_pages_per_sec, 1e12);
        assert_close(back.classes[LEARN_BASE][3].wsf, 10000);
        assert_int_equal(back.classes[LEARN_BASE][3].stalled, 2);
        assert_false(back.classes[LEARN_THP][3].known);
        assert_close(back.classes[LEARN_THP][4].wsf, 0);
        assert_close(back.classes[LEARN_THP][4].updated + BOOT_WALL, 253402300799.999);
        assert_close(back.history[0].peak_thp_pages_per_sec, 0);
        assert_int_equal(back.nr_history, LEARN_HISTORY);
        assert_close(back.history[0].demand_pages, 1e15);
        assert_close(back.history[0].min_margin_pages, -1e15);
        assert_int_equal(back.history[0].wsf_max, 0);
        assert_int_equal(back.history[0].stalls, 1000000000000000ull);
        free(text);
}

#define HEAD "# a comment\nversion 1\nmachine managed_pages 6170000\n"
#define KSWAPD "kswapd capacity_pages_per_sec 150000.000 at 2026-11-23T12:41:10.123Z\n"
#define CLASS "class 10 wsf 123.456 episodes 3 stalled 1 updated 2026-11-23T12:41:10.123Z\n"
#define EPISODE "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 demand_pages 1048576.000 min_margin_pages -123.000 wsf_max 1000 stalls 12\n"
/* version 3: the kinds apart */
#define HEAD2 "# a comment\nversion 3\nmachine managed_pages 6170000\n"
#define THP_CLASS "thp_class 10 wsf 321.000 episodes 2 stalled 0 updated 2026-11-23T12:41:10.123Z\n"
#define EPISODE2 "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 peak_thp_pages_per_sec 200000.000 demand_pages 1048576.000 min_margin_pages -123.000 wsf_max 1000 stalls 12\n"

static void good_text_accepted(void **state)
{
        (void)state;
        struct learned l;
        char err[256] = "";
        assert_int_equal(parse_text(&l, HEAD KSWAPD CLASS EPISODE, 0, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_int_equal(l.managed_pages, 6170000);
        assert_close(l.kswapd_updated, 1795437670.123);
        /* version 1: a class stands for both kinds; no huge pages known */
        assert_true(l.classes[LEARN_BASE][10].known);
        assert_close(l.classes[LEARN_BASE][10].wsf, 123.456);
        assert_true(l.classes[LEARN_THP][10].known);
        assert_close(l.classes[LEARN_THP][10].wsf, 123.456);
        assert_int_equal(l.nr_history, 1);
        assert_close(l.history[0].min_margin_pages, -123);
        assert_close(l.history[0].peak_thp_pages_per_sec, 0);
        assert_int_equal(l.history[0].stalls, 12);
        /* version 3: each kind its own */
        assert_int_equal(parse_text(&l, HEAD2 KSWAPD CLASS THP_CLASS EPISODE2, 0, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_close(l.classes[LEARN_BASE][10].wsf, 123.456);
        assert_close(l.classes[LEARN_THP][10].wsf, 321);
        assert_close(l.history[0].peak_thp_pages_per_sec, 200000);
        assert_close(l.history[0].demand_pages, 1048576);
        assert_int_equal(parse_text(&l, HEAD2 KSWAPD THP_CLASS, 0, err, sizeof(err)), 0);
        assert_false(l.classes[LEARN_BASE][10].known);
        assert_true(l.classes[LEARN_THP][10].known);
        /* leap days */
        assert_int_equal(parse_text(&l, HEAD "kswapd capacity_pages_per_sec 1.000 at 2028-02-29T00:00:00.000Z\n",
                                    0, err, sizeof(err)), 0);
        assert_int_equal(parse_text(&l, HEAD "kswapd capacity_pages_per_sec 1.000 at 2000-02-29T23:59:59.999Z\n",
                                    0, err, sizeof(err)), 0);
}

struct bad {
        const char *text, *error;
};

static const struct bad bad_texts[] = {
        { "", "1: the text ends before its 'version' line" },
        { "# only a comment\n", "2: the text ends before its 'version' line" },
        { "version 1\nmachine managed_pages 5\n", "3: the text ends before its 'kswapd' line" },
        { "version 2\n", "1: version 2; this memoptimizer reads versions 1 and 3" },
        { "version 4\n", "1: version 4; this memoptimizer reads versions 1 and 3" },
        { "version 0\n", "1: version 0; this memoptimizer reads versions 1 and 3" },
        { "version one\n", "1: version one; this memoptimizer reads versions 1 and 3" },
        { "version 1", "1: no newline at its end: the text was cut short" },
        { HEAD "kswapd unknown", "4: no newline at its end" },
        { "VERSION 1\n", "1: expected the 'version' line, not 'VERSION'" },
        { "version 1\n# late comment\n", "2: expected the 'machine' line, not '#'" },
        { "version 1\n\n", "2: an empty line" },
        { "version  1\n", "1: a space too many" },
        { "version 1 \n", "1: a space too many" },
        { " version 1\n", "1: a space too many" },
        { "version\t1\n", "1: a byte 0x09 that is not printable ASCII" },
        { "version 1\r\n", "1: a byte 0x0d that is not printable ASCII" },
        { "# caf\xc3\xa9\n", "1: a byte 0xc3 that is not printable ASCII" },
        { "version 1\nmachine managed_pages -5\n", "2: managed_pages: '-5' is not a number written as a whole number" },
        { "version 1\nmachine managed_pages 05\n", "2: managed_pages: '05' is not a number" },
        { "version 1\nmachine managed_pages 5.000\n", "2: managed_pages: '5.000' is not a number" },
        { "version 1\nmachine managed_pages 1e6\n", "2: managed_pages: '1e6' is not a number" },
        { "version 1\nmachine managed_pages 1000000000000001\n", "2: managed_pages 1000000000000001 out of range (0 to 1000000000000000)" },
        { "version 1\nmachine managed_pages 99999999999999999999\n", "2: managed_pages: '99999999999999999999' is not a number" },
        { "version 1\nmachine pages 5\n", "2: expected 'machine managed_pages N'" },
        { "version 1\nmachine managed_pages 5 6\n", "2: expected 'machine managed_pages N'" },
        { HEAD "kswapd capacity_pages_per_sec nan at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: 'nan' is not a number written as a decimal" },
        { HEAD "kswapd capacity_pages_per_sec inf at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: 'inf' is not" },
        { HEAD "kswapd capacity_pages_per_sec 0x10.000 at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: '0x10.000' is not" },
        { HEAD "kswapd capacity_pages_per_sec +1.000 at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: '+1.000' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.00 at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: '1.00' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1. at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec: '1.' is not" },
        { HEAD "kswapd capacity_pages_per_sec -1.000 at 2026-11-23T12:41:10.123Z\n", "4: capacity_pages_per_sec -1.000 out of range (0 to 1000000000000)" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-02-29T12:41:10.123Z\n", "4: at: '2026-02-29T12:41:10.123Z' is not a UTC time" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2100-02-29T12:41:10.123Z\n", "4: at: '2100-02-29T12:41:10.123Z' is not a UTC time" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-13-01T12:41:10.123Z\n", "4: at: '2026-13-01T12:41:10.123Z' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-11-23T24:00:00.000Z\n", "4: at: '2026-11-23T24:00:00.000Z' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-12-31T23:59:60.000Z\n", "4: at: '2026-12-31T23:59:60.000Z' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 1969-12-31T23:59:59.000Z\n", "4: at: '1969-12-31T23:59:59.000Z' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-11-23T12:41:10Z\n", "4: at: '2026-11-23T12:41:10Z' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-11-23T12:41:10.123+00:00\n", "4: at: '2026-11-23T12:41:10.123+00:00' is not" },
        { HEAD "kswapd capacity_pages_per_sec 1.000 at 2026-11-23 12:41:10.123Z\n", "4: expected 'kswapd capacity_pages_per_sec X at TIME'" },
        { HEAD "kswapd\n", "4: expected 'kswapd capacity_pages_per_sec X at TIME'" },
        { HEAD KSWAPD "class 24 wsf 1.000 episodes 1 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "5: class 24 out of range (0 to 23)" },
        { HEAD KSWAPD "class 10 wsf 10000.001 episodes 1 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "5: wsf 10000.001 out of range (0 to 10000)" },
        { HEAD KSWAPD "class 10 wsf -0.001 episodes 1 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "5: wsf -0.001 out of range" },
        { HEAD KSWAPD "class 10 wsf 1.000 episodes 4294967296 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "5: episodes 4294967296 out of range" },
        { HEAD KSWAPD "class 10 wsf 1.000 episodes 2 stalled 3 updated 2026-11-23T12:41:10.123Z\n", "5: stalled 3 of only 2 episodes" },
        { HEAD KSWAPD CLASS CLASS, "6: class 10 after class 10: classes come once each, in increasing order" },
        { HEAD KSWAPD CLASS "class 9 wsf 1.000 episodes 1 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "6: class 9 after class 10" },
        { HEAD KSWAPD CLASS "class 11 wsf 1.000 episodes 1 stalled 0\n", "6: expected 'class N wsf X episodes N stalled N updated TIME'" },
        { HEAD KSWAPD EPISODE CLASS, "6: a 'class' line after an 'episode' line" },
        { HEAD KSWAPD "bogus 1\n", "5: expected a 'class' or 'episode' line, not 'bogus'" },
        { HEAD KSWAPD "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 demand_pages 1048576.000 min_margin_pages -1000000000000001.000 wsf_max 1000 stalls 12\n",
          "5: min_margin_pages -1000000000000001.000 out of range" },
        { HEAD KSWAPD "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 demand_pages 1048576.000 min_margin_pages -123.000 wsf_max 10001 stalls 12\n",
          "5: wsf_max 10001 out of range" },
        { HEAD KSWAPD "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 demand_pages 1048576.000 min_margin_pages -123.000 wsf_max 1000 stalls 12 extra 1\n",
          "5: expected 'episode start TIME duration X peak_demand_pages_per_sec X demand_pages X min_margin_pages X wsf_max N stalls N'" },
        { HEAD KSWAPD "a b c d e f g h i j k l m n o p q r s t u v w x y\n", "5: too many words" },
        /* version 1 knew no kinds */
        { HEAD KSWAPD THP_CLASS, "5: expected a 'class' or 'episode' line, not 'thp_class'" },
        { HEAD KSWAPD EPISODE2, "5: expected 'episode start TIME duration X peak_demand_pages_per_sec X demand_pages X" },
        /* version 3 */
        { HEAD2 KSWAPD EPISODE, "5: expected 'episode start TIME duration X peak_demand_pages_per_sec X peak_thp_pages_per_sec X demand_pages X" },
        { HEAD2 KSWAPD THP_CLASS CLASS, "6: a 'class' line after a 'thp_class' line: class lines come first" },
        { HEAD2 KSWAPD THP_CLASS THP_CLASS, "6: thp_class 10 after thp_class 10: classes come once each" },
        { HEAD2 KSWAPD EPISODE2 THP_CLASS, "6: a 'thp_class' line after an 'episode' line" },
        { HEAD2 KSWAPD "thp_class 24 wsf 1.000 episodes 1 stalled 0 updated 2026-11-23T12:41:10.123Z\n", "5: class 24 out of range (0 to 23)" },
        { HEAD2 KSWAPD "bogus 1\n", "5: expected a 'class', 'thp_class' or 'episode' line, not 'bogus'" },
        { HEAD2 KSWAPD "episode start 2026-11-23T12:40:58.000Z duration 12.345 peak_demand_pages_per_sec 262144.000 peak_thp_pages_per_sec -1.000 demand_pages 1048576.000 min_margin_pages -123.000 wsf_max 1000 stalls 12\n",
          "5: peak_thp_pages_per_sec -1.000 out of range" },
};

static void bad_texts_refused(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
                struct learned l;
                char err[256] = "";
                int r = parse_text(&l, bad_texts[i].text, 0, err, sizeof(err));
                if (r != -EBADMSG || strncmp(err, bad_texts[i].error, strlen(bad_texts[i].error)) != 0) {
                        print_error("text %zu: got %d '%s', want '%s'\n", i, r, err, bad_texts[i].error);
                        fail();
                }
                assert_memory_equal(&l, &empty, sizeof(l));     /* nothing half-read */
        }
}

/* A NUL inside, more episodes than are kept, a line or a text too long. */
static void bounds_refused(void **state)
{
        (void)state;
        struct learned l;
        char err[256];
        static const char nul[] = "version 1\nmachine managed_pages 5\0\nkswapd unknown\n";
        assert_int_equal(learn_parse(&l, nul, sizeof(nul) - 1, 0, err, sizeof(err)), -EBADMSG);
        assert_string_equal(err, "2: a byte 0x00 that is not printable ASCII");

        size_t size = LEARN_TEXT_MAX + 2;
        char *text = malloc(size);
        assert_non_null(text);
        int n = snprintf(text, size, HEAD KSWAPD);
        for (int i = 0; i <= LEARN_HISTORY; i++)
                n += snprintf(text + n, size - (size_t)n, EPISODE);
        assert_int_equal(parse_text(&l, text, 0, err, sizeof(err)), -EBADMSG);
        assert_string_equal(err, "37: more than 32 episodes");
        assert_memory_equal(&l, &empty, sizeof(l));

        n = snprintf(text, size, "# ");
        memset(text + n, 'x', 600);
        strcpy(text + n + 600, "\nversion 1\n");
        assert_int_equal(parse_text(&l, text, 0, err, sizeof(err)), -EBADMSG);
        assert_string_equal(err, "1: longer than 512 bytes");

        memset(text, '\n', size - 1);
        text[size - 1] = '\0';
        assert_int_equal(learn_parse(&l, text, size - 1, 0, err, sizeof(err)), -EBADMSG);
        assert_string_equal(err, "1: the text is longer than 65536 bytes");
        free(text);
        /* a tiny error buffer is filled as far as it goes */
        char small[8];
        assert_int_equal(parse_text(&l, "version 2\n", 0, small, sizeof(small)), -EBADMSG);
        assert_string_equal(small, "1: vers");
}

/* Files written by version 1 (tests/fixtures/learned/, learn_format()'s
 * output when that format was made) are read by every later memoptimizer:
 * each class stands for both kinds, no episode's huge pages are known, and
 * the state is written again as the current version, which reads back the
 * same. */
static void version_1_files(void **state)
{
        (void)state;
        static const struct {
                const char *name;
                uint64_t managed;
                size_t classes, episodes;
        } files[] = {
                { "learned/v1-empty", 0, 0, 0 },
                { "learned/v1-three", 6170000, 2, 3 },
                { "learned/v1-full", 6170000, 11, LEARN_HISTORY },
        };
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char *text = fixture_text(files[i].name), *again, err[256] = "";
                assert_non_null(text);
                struct learned l, back;
                assert_int_equal(parse_text(&l, text, BOOT_WALL, err, sizeof(err)), 0);
                assert_int_equal(l.managed_pages, files[i].managed);
                assert_int_equal(learn_nr_classes(&l), 2 * files[i].classes);
                for (int c = 0; c < LEARN_CLASSES; c++)
                        assert_memory_equal(&l.classes[LEARN_BASE][c], &l.classes[LEARN_THP][c],
                                            sizeof(l.classes[0][0]));
                assert_int_equal(l.nr_history, files[i].episodes);
                for (size_t k = 0; k < l.nr_history; k++)
                        assert_true(l.history[k].peak_thp_pages_per_sec == 0);
                assert_int_equal(learn_format(&l, BOOT_WALL, &again), 0);
                assert_non_null(strstr(again, "\nversion 3\n"));
                assert_int_equal(parse_text(&back, again, BOOT_WALL, err, sizeof(err)), 0);
                assert_same(&back, &l);
                free(again);
                free(text);
        }
}

/* Files written by version 3 (tests/fixtures/learned/: learnt_n() of 0, 3
 * and 40 episodes, formatted when the format was made) are read by every
 * later memoptimizer and written again byte for byte: a change of the
 * format that needs a new LEARN_VERSION fails here first. */
static void version_3_files(void **state)
{
        (void)state;
        static const struct {
                const char *name;
                int episodes;
        } files[] = { { "learned/v3-empty", 0 }, { "learned/v3-three", 3 }, { "learned/v3-full", 40 } };
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char *text = fixture_text(files[i].name), *again, err[256] = "";
                assert_non_null(text);
                struct learned l, want;
                assert_int_equal(parse_text(&l, text, BOOT_WALL, err, sizeof(err)), 0);
                learnt_n(&want, files[i].episodes);
                want.dirty = false;
                assert_same(&l, &want);
                assert_int_equal(learn_format(&l, BOOT_WALL, &again), 0);
                assert_string_equal(again, text);
                free(again);
                free(text);
        }
}

/* test-policy's dip: an episode at 600000 pages/s then 300000 that dips to
 * 500000 free pages of 6000000 and recovers. */
static uint64_t dip(int t)
{
        static const uint64_t at[] = { 1400000, 800000, 500000 };
        return t >= 5 && t <= 7 ? at[t - 5] : 2000000;
}

/* Steps the sim over dip() from t0 to t1; the reason of the first
 * decision other than keep, into *d. */
static enum wsf_reason run_dip(struct sim *s, int t0, int t1, struct decision *d)
{
        enum wsf_reason first = WSF_KEEP;
        for (int t = t0; t <= t1; t++) {
                struct synth_zone z = { .managed = 6000000, .wmark_min = 16000, .free_pages = dip(t) };
                struct decision step;
                if (sim_step(s, t, &z, 1, NULL, 20000000, &step) && step.reason != WSF_KEEP &&
                    first == WSF_KEEP) {
                        first = step.reason;
                        *d = step;
                }
        }
        return first;
}

/* What one engine learnt, written and read by the next after a reboot (its
 * clock started an hour later), sizes the same kind of episode at once
 * (raise-learned), where an engine that learnt nothing sizes it by kswapd's
 * shortfall. */
static void survives_a_restart(void **state)
{
        (void)state;
        struct sim a, b, fresh;
        struct decision d;
        sim_init(&a, 10);
        run_dip(&a, 0, 14, &d);
        struct learned *la = engine_learned(&a.e);
        assert_int_equal(la->nr_history, 1);
        assert_true(la->dirty);
        long need = learn_wsf_for(la, LEARN_BASE, 600000, 6000000);
        assert_true(need > 10);
        char *text, err[256] = "";
        assert_int_equal(learn_format(la, BOOT_WALL, &text), 0);

        sim_init(&b, 10);
        assert_int_equal(parse_text(engine_learned(&b.e), text, BOOT_WALL + 3600, err, sizeof(err)), 0);
        assert_int_equal(run_dip(&b, 0, 5, &d), WSF_RAISE_LEARNED);
        assert_int_equal(d.wsf_new, need);
        sim_init(&fresh, 10);
        assert_int_equal(run_dip(&fresh, 0, 5, &d), WSF_RAISE_FORECAST);
        free(text);
        sim_free(&a);
        sim_free(&b);
        sim_free(&fresh);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(round_trip),
                cmocka_unit_test(ages_across_a_reboot),
                cmocka_unit_test(ticks_as_the_daemon_ages),
                cmocka_unit_test(utc_times),
                cmocka_unit_test(out_of_range_written_at_bounds),
                cmocka_unit_test(good_text_accepted),
                cmocka_unit_test(bad_texts_refused),
                cmocka_unit_test(bounds_refused),
                cmocka_unit_test(version_1_files),
                cmocka_unit_test(version_3_files),
                cmocka_unit_test(survives_a_restart),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
