/* `memoptimizer replay`: the trace's samples, one by one, through
 * engine_step() as the daemon would have seen them. The only simulation is
 * the scale factor: the value in force is the one the replayed decisions
 * set, not the recorded one. */
#include "replay.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "learn-file.h"
#include "pulse.h"
#include "report.h"
#include "score.h"
#include "trace-file.h"
#include "util.h"

struct replay_opts {
        const char *trace, *config;
        const char *learned_dir;        /* --learned: start from what a daemon had learnt */
        bool config_must_exist, score, csv;
};

enum { ACT_RAISE = 1, ACT_LOWER = 2, ACT_ADOPT = 3, ACT_COMPACT = 4 };

/* Room for one entry of the summary's "scale factor over time"
 * (", +123456789.0 s 1000000") or its ", ... (see --csv)" ending. */
#define CHANGE_ENTRY_MAX 40

struct replay {
        struct replay_opts o;
        struct config cfg;
        FILE *out;                      /* the text report */
        struct trace_header header;
        struct engine engine;
        bool started;
        bool bad_learned;               /* --learned was refused: bad input, exit 1 */
        struct learn_clock learn_clock; /* the daemon's aging of what it learnt */
        long sim_wsf;                   /* in force in the simulation */
        long rec_wsf;                   /* in the last recorded sample */
        long rec_value;                 /* the recording daemon's value, by its decisions */
        long rec_written;               /* what its last acting decision wrote, or -1 */
        int rep_action, rec_action;     /* ACT_* of the current sample */
        double t0, t_last;
        size_t samples;
        struct score score;
        uint64_t prev_allocstall, prev_compact_stall;
        struct meminfo prev_mem;
        /* the summary */
        size_t raises, lowers, adopts, compactions, backoffs;
        size_t onset_samples;           /* taken early by the recording daemon's fast path */
        size_t rec_decisions, rec_raises, rec_lowers, rec_compactions;
        size_t acted, same, differ;
        long max_diff, wsf_max;
        double sum_diff, wsf_max_t, above;
        char changes[2048];             /* the scale factor over time */
        struct wake_state wake;         /* pulses that wake kswapd (wake.h) */
        size_t wakes;
};

/* vm.lowmem_reserve_ratio of DMA and DMA32, for the pulses and for a
 * node's room in the score: a trace does not record it, so the kernel's
 * default is taken. */
#define REPLAY_LOWMEM_RATIO 256

static int action_of(const struct decision *d)
{
        int a = d->reason == WSF_KEEP ? 0 :
                d->reason == WSF_ADOPT ? ACT_ADOPT :
                d->wsf_new > d->wsf_old ? ACT_RAISE : ACT_LOWER;
        return a | (d->nr_compact ? ACT_COMPACT : 0);
}

static void note_change(struct replay *rp, double t, long wsf)
{
        size_t n = strlen(rp->changes);
        if (n + CHANGE_ENTRY_MAX >= sizeof(rp->changes)) {
                if (!strstr(rp->changes, ", ..."))
                        snprintf(rp->changes + n, sizeof(rp->changes) - n, ", ... (see --csv)");
                return;
        }
        snprintf(rp->changes + n, sizeof(rp->changes) - n, "%s+%.1f s %ld", n ? ", " : "", t - rp->t0, wsf);
}

/* Compare the sample just finished with what the recording daemon did on it. */
static void finish_sample(struct replay *rp)
{
        if (rp->rep_action && !rp->rec_action && strcmp(rp->header.source, "daemon") == 0)
                fprintf(rp->out, "%+8.1f s  (the recording daemon did nothing here)\n", rp->t_last - rp->t0);
        if (rp->rep_action || rp->rec_action) {
                rp->acted++;
                rp->same += rp->rep_action == rp->rec_action;
        }
        long diff = labs(rp->sim_wsf - rp->rec_value);
        if (diff) {
                rp->differ++;
                rp->sum_diff += (double)diff;
                if (diff > rp->max_diff)
                        rp->max_diff = diff;
        }
        rp->rep_action = rp->rec_action = 0;
}

static void print_decision(struct replay *rp, double t, const struct decision *d)
{
        char msg[REPORT_MSG_MAX];
        if (d->episode_ended) {
                report_episode_message(msg, sizeof(msg), d);
                fprintf(rp->out, "%+8.1f s  %s\n", t - rp->t0, msg);
        }
        if (d->reason != WSF_KEEP) {
                report_wsf_message(msg, sizeof(msg), d, false);
                fprintf(rp->out, "%+8.1f s  %s\n", t - rp->t0, msg);
        }
        if (d->hold_changed) {
                report_hold_message(msg, sizeof(msg), d);
                fprintf(rp->out, "%+8.1f s  %s\n", t - rp->t0, msg);
        }
        for (size_t i = 0; i < d->nr_backoff; i++) {
                report_backoff_message(msg, sizeof(msg), &d->backoff[i]);
                fprintf(rp->out, "%+8.1f s  %s\n", t - rp->t0, msg);
        }
        for (size_t i = 0; i < d->nr_compact; i++) {
                report_compact_message(msg, sizeof(msg), &d->compact[i], false, false, 0);
                fprintf(rp->out, "%+8.1f s  %s\n", t - rp->t0, msg);
        }
}

static const struct zone_forecast *zone_fc(const struct forecast *f, int node, const char *name)
{
        for (size_t i = 0; i < f->nr_zones; i++)
                if (f->zones[i].node == node && strcmp(f->zones[i].name, name) == 0)
                        return &f->zones[i];
        return NULL;
}

static int take_decision(struct replay *rp, const struct sample *s, const struct decision *d)
{
        const struct forecast *f = &rp->engine.forecast;
        rp->rep_action = action_of(d);
        rp->compactions += d->nr_compact;
        rp->backoffs += d->nr_backoff;
        if (trace_decision_worth(d) || d->episode_ended || d->hold_changed)
                print_decision(rp, s->time, d);
        if (d->reason == WSF_KEEP)
                return 0;
        rp->sim_wsf = d->wsf_new;
        note_change(rp, s->time, d->wsf_new);
        if (d->reason == WSF_ADOPT)
                rp->adopts++;
        else if (d->wsf_new > d->wsf_old)
                rp->raises++;
        else
                rp->lowers++;
        if (d->wsf_new > rp->wsf_max)
                rp->wsf_max = d->wsf_new, rp->wsf_max_t = s->time;
        const struct zone_forecast *z = d->node >= 0 ? zone_fc(f, d->node, d->zone) : forecast_largest_zone(f);
        bool raise = d->reason == WSF_RAISE_FORECAST || d->reason == WSF_RAISE_LEARNED ||
                     d->reason == WSF_RAISE_STALL || d->reason == WSF_RAISE_RECUR;
        if (raise && z)
                return score_raise(&rp->score, s->time, d->onset ? SCORE_ONSET : (int)d->reason, z->node,
                                   score_node_room(s, z->node, engine_baseline(&rp->engine), REPLAY_LOWMEM_RATIO));
        return 0;
}

/* What the workload took since the sample before, for score_taken():
 * what its anonymous, shared and dirty memory grew by -- memory no clean
 * eviction gives back -- less what it gave back, so that a train of bursts
 * each freed before the next counts once; where the trace lacks those
 * counters, the fall of free memory less a clean fill of the page cache
 * (fc: the forecast of this sample, NULL when there is none). */
static double taken_pages(const struct sample *s, const struct meminfo *before, const struct forecast *fc)
{
        if (s->mem.parts_known && before->parts_known)
                return meminfo_held(&s->mem) - meminfo_held(before);
        if (!fc)
                return 0;
        struct pressure p;
        pressure_of(fc, &p);
        return pressure_taken(&p) * fc->dt;
}

/* Every series of this sample into the score. */
static int score_sample(struct replay *rp, const struct sample *s, bool fc)
{
        const struct forecast *f = &rp->engine.forecast;
        int r = 0;
        for (size_t i = 0; i < s->nr_zones && r == 0; i++) {
                const struct zone *z = &s->zones[i];
                const struct zone_forecast *zf = fc ? zone_fc(f, z->node, z->name) : NULL;
                double v = (double)z->free_pages;
                r = score_point(&rp->score, SCORE_LOW, z->node, z->name, s->time, v, (double)z->wmark_low,
                                zf ? zf->secs_to_low : INFINITY, zf != NULL);
                if (r == 0)
                        r = score_point(&rp->score, SCORE_MIN, z->node, z->name, s->time, v, (double)z->wmark_min,
                                        zf ? zf->secs_to_min : INFINITY, zf != NULL);
        }
        unsigned k = rp->engine.max_order;
        for (size_t i = 0; i < s->nr_zones && r == 0; i++) {
                const struct zone *z = &s->zones[i];
                const struct zone_forecast *zf = fc && k <= f->max_order ? zone_fc(f, z->node, z->name) : NULL;
                r = score_point(&rp->score, SCORE_ORDER, z->node, z->name, s->time,
                                (double)zone_free_at_order(z, s->nr_orders, k), (double)(1ull << k),
                                zf ? zf->secs_to_exhaust[k] : INFINITY, zf != NULL);
        }
        for (size_t i = 0; i < s->nr_zones && r == 0; i++) {
                int node = s->zones[i].node;
                if (i == 0 || s->zones[i - 1].node != node)     /* once a node: its zones are listed together */
                        score_room(&rp->score, s->time, node,
                                   score_node_room(s, node, engine_baseline(&rp->engine), REPLAY_LOWMEM_RATIO));
        }
        return r;
}

static uint64_t increase(uint64_t before, uint64_t after)
{
        return after > before ? after - before : 0;
}

static void csv_row(struct replay *rp, const struct sample *s, long recorded, bool fc,
                    const struct decision *d)
{
        double free = 0, low = 0, soonest = INFINITY;
        for (size_t i = 0; i < s->nr_zones; i++) {
                free += (double)s->zones[i].free_pages;
                low += (double)s->zones[i].wmark_low;
        }
        for (size_t i = 0; fc && i < rp->engine.forecast.nr_zones; i++)
                soonest = dmin(soonest, rp->engine.forecast.zones[i].secs_to_low);
        char secs[32] = "";
        if (isfinite(soonest))
                snprintf(secs, sizeof(secs), "%.3f", soonest);
        const char *what = !fc || d->reason == WSF_KEEP ? "" : wsf_reason_str(d->reason);
        printf("%.3f,%ld,%ld,%s,%zu,%.0f,%.0f,%s,%llu,%llu\n", s->time - rp->t0, rp->sim_wsf, recorded, what,
               fc ? d->nr_compact : 0, free, low, secs,
               (unsigned long long)increase(rp->prev_allocstall, s->vm.allocstall),
               (unsigned long long)increase(rp->prev_compact_stall, s->vm.compact_stall));
}

static void first_sample(struct replay *rp, const struct sample *s)
{
        rp->started = true;
        rp->sim_wsf = rp->rec_wsf = rp->rec_value = rp->wsf_max = s->wsf;
        rp->rec_written = -1;
        rp->t0 = rp->wsf_max_t = s->time;
        rp->prev_allocstall = s->vm.allocstall;
        rp->prev_compact_stall = s->vm.compact_stall;
        note_change(rp, s->time, s->wsf);
        if (rp->o.csv)
                printf("t,wsf,wsf_recorded,decision,compactions,free_pages,low_pages,secs_to_low,allocstall,compact_stall\n");
}

/* --learned DIR: what a daemon had learnt when the trace began (a warm
 * daemon's), read with the daemon's own checks (learn-file.h). Its times
 * are wall-clock; the trace's header says how they map onto the samples. */
static int load_learned(struct replay *rp, const struct sample *first, char *err, size_t errsz)
{
        double offset;
        int exact = trace_wall_offset(&rp->header, first->time, &offset);
        if (exact < 0) {
                snprintf(err, errsz, "%s: the header's start time \"%s\" is not UTC as the daemon writes it; "
                         "--learned needs it", rp->o.trace, rp->header.started);
                rp->bad_learned = true;
                return -EINVAL;
        }
        if (exact == 1)
                fprintf(rp->out, "the trace gives its start to the second only (made before 0.4.8): what was learnt "
                        "is placed up to about a second off, and a recurrence due may be replayed that much off\n");
        struct learned *l = engine_learned(&rp->engine);
        int r = learn_load(rp->o.learned_dir, l, offset, err, errsz);
        if (r == -ENOENT)
                snprintf(err, errsz, "%s/" LEARN_FILE ": %s", rp->o.learned_dir, strerror(ENOENT));
        if (r < 0) {
                rp->bad_learned = r != -ENOMEM;
                return r;
        }
        size_t classes = learn_nr_classes(l);
        fprintf(rp->out, "learned state: %s/" LEARN_FILE ": %zu classes, %zu episodes, kswapd capacity %s\n",
                rp->o.learned_dir, classes, l->nr_history,
                l->kswapd_capacity_pages_per_sec > 0 ? "measured" : "unknown");
        return 0;
}

/* After a forecast, age what was learnt as the daemon does (learn_tick()). */
static void age_learned(struct replay *rp, double now)
{
        struct learned *l = engine_learned(&rp->engine);
        struct pressure p;
        pressure_of(&rp->engine.forecast, &p);
        uint64_t was = l->managed_pages;
        learn_tick(l, &rp->learn_clock, now, p.managed_pages);
        if (was && !l->managed_pages)
                fprintf(rp->out, "%+8.1f s  the learned state is of a machine with %llu managed pages, this one has %llu: forgotten\n",
                        now - rp->t0, (unsigned long long)was, (unsigned long long)p.managed_pages);
}

static int on_sample(struct replay *rp, struct sample *s, char *err, size_t errsz)
{
        if (!rp->started) {
                int r = engine_init(&rp->engine, rp->cfg.window, s->wsf, s->wsf);
                if (r < 0)
                        return r;
                if (rp->o.learned_dir && (r = load_learned(rp, s, err, errsz)) < 0)
                        return r;
                rp->learn_clock = (struct learn_clock){ .aged = -INFINITY };
                first_sample(rp, s);
        } else {
                finish_sample(rp);
                if (rp->sim_wsf > engine_baseline(&rp->engine)) {
                        rp->above += s->time - rp->t_last;
                        if (rp->o.score)
                                score_in_force(&rp->score, s->time);
                }
                /* A change no recorded decision wrote: somebody else's, which
                 * the daemon would have seen too. */
                if (s->wsf != rp->rec_wsf && s->wsf != rp->rec_written) {
                        fprintf(rp->out, "%+8.1f s  vm.watermark_scale_factor set to %ld by another process (recorded)\n",
                                s->time - rp->t0, s->wsf);
                        rp->sim_wsf = s->wsf;
                }
        }
        long recorded = s->wsf;
        rp->rec_wsf = recorded;
        rp->onset_samples += s->onset;
        rp->rec_written = -1;
        /* The policy must see its own value in force, or it would take the
         * recorded one for another process's and adopt it. The watermarks
         * stay as recorded, as a daemon in --dry-run sees them. */
        s->wsf = rp->sim_wsf;
        struct engine_params p;
        config_engine_params(&p, &rp->cfg, true, rp->header.page_size, rp->header.thp_pmd_size);
        struct decision d = { .reason = WSF_KEEP };
        bool restarted;
        int r = engine_step(&rp->engine, &p, s, &d, &restarted);
        if (r < 0)
                return r;
        if (restarted)
                fprintf(rp->out, "%+8.1f s  zone layout changed; window restarted\n", s->time - rp->t0);
        if (r == 1)
                age_learned(rp, s->time);
        if (rp->o.score && rp->samples > 0)
                score_stalls(&rp->score, s->time,
                             increase(rp->prev_allocstall, s->vm.allocstall) +
                             increase(rp->prev_compact_stall, s->vm.compact_stall));
        if (rp->o.score && rp->samples > 0)
                score_taken(&rp->score, s->time, taken_pages(s, &rp->prev_mem, r == 1 ? &rp->engine.forecast : NULL));
        if ((rp->o.score && score_sample(rp, s, r == 1) < 0) || (r == 1 && take_decision(rp, s, &d) < 0))
                return -ENOMEM;
        struct wake_params wp = { .baseline = engine_baseline(&rp->engine), .lead = PULSE_LEAD_SECONDS,
                                  .dma32_ratio = REPLAY_LOWMEM_RATIO,
                                  .huge_order = engine_thp_order(rp->header.page_size, rp->header.thp_pmd_size) };
        struct wake_pulse pulse;
        if (rp->cfg.wake_kswapd && wake_step(&rp->wake, s, &wp, &pulse)) {
                char msg[REPORT_MSG_MAX];
                report_wake_message(msg, sizeof(msg), &pulse, rp->header.page_size, false);
                fprintf(rp->out, "%+8.1f s  %s\n", s->time - rp->t0, msg);
                rp->wakes++;
        }
        if (rp->o.csv)
                csv_row(rp, s, recorded, r == 1, &d);
        rp->prev_allocstall = s->vm.allocstall;
        rp->prev_compact_stall = s->vm.compact_stall;
        rp->prev_mem = s->mem;
        rp->t_last = s->time;
        rp->samples++;
        return 0;
}

/* A recorded decision the replay did not take alike: say what it was. */
static void print_recorded(struct replay *rp, const struct trace_decision *td)
{
        char msg[REPORT_MSG_MAX];
        const struct decision *d = &td->d;
        bool sized_by_why = d->reason == WSF_RAISE_FORECAST || d->reason == WSF_RAISE_LEARNED ||
                            d->reason == WSF_RAISE_RECUR;
        if (d->reason != WSF_KEEP && (td->why_recorded || !sized_by_why)) {
                report_wsf_message(msg, sizeof(msg), d, td->acting);
                fprintf(rp->out, "%+8.1f s  (recorded: %s)\n", td->time - rp->t0, msg);
        } else if (d->reason != WSF_KEEP) {
                /* a trace from before 0.2: what sized the raise is not in it */
                fprintf(rp->out, "%+8.1f s  (recorded: %sraise vm.watermark_scale_factor %ld -> %ld: %s; why is not in the trace)\n",
                        td->time - rp->t0, td->acting ? "" : "would ", d->wsf_old, d->wsf_new,
                        wsf_reason_str(d->reason));
        }
        for (size_t i = 0; i < d->nr_compact; i++) {
                report_compact_message(msg, sizeof(msg), &d->compact[i], td->acting, false, 0);
                fprintf(rp->out, "%+8.1f s  (recorded: %s)\n", td->time - rp->t0, msg);
        }
}

static void on_recorded(struct replay *rp, const struct trace_decision *td)
{
        const struct decision *d = &td->d;
        rp->rec_decisions++;
        rp->rec_action = action_of(d);
        if (rp->rec_action != rp->rep_action || (d->reason != WSF_KEEP && d->wsf_new != rp->sim_wsf))
                print_recorded(rp, td);
        rp->rec_compactions += d->nr_compact;
        if (d->reason == WSF_KEEP)
                return;
        rp->rec_raises += d->reason != WSF_ADOPT && d->wsf_new > d->wsf_old;
        rp->rec_lowers += d->reason != WSF_ADOPT && d->wsf_new < d->wsf_old;
        rp->rec_value = d->wsf_new;
        if (td->acting)
                rp->rec_written = d->wsf_new;
}

static void print_summary(struct replay *rp)
{
        FILE *o = rp->out;
        double span = rp->t_last - rp->t0;
        fprintf(o, "\nsummary: %zu samples over %.1f s; trace made by %s (%s) on Linux %s, started %s, interval %.3g s\n",
                rp->samples, span, rp->header.source, rp->header.program, rp->header.kernel,
                rp->header.started, rp->header.interval);
        fprintf(o, "  replayed decisions: %zu raises, %zu lowers, %zu compactions, %zu compaction back-offs, %zu adoptions of another process's value\n",
                rp->raises, rp->lowers, rp->compactions, rp->backoffs, rp->adopts);
        fprintf(o, "  scale factor: baseline %ld, highest %ld at %+.1f s, %ld at the end; above the baseline for %.1f of %.1f s\n",
                engine_baseline(&rp->engine), rp->wsf_max, rp->wsf_max_t - rp->t0, rp->sim_wsf, rp->above, span);
        fprintf(o, "  scale factor over time: %s\n", rp->changes);
        if (rp->cfg.wake_kswapd)
                fprintf(o, "  pulses to wake kswapd before DMA32 runs out: %zu (their starts only: when each would end depends on reads between samples, which a trace does not carry; DMA32's lowmem_reserve_ratio taken as the kernel's default, %d)\n",
                        rp->wakes, REPLAY_LOWMEM_RATIO);
        fprintf(o, "  samples taken early at an onset: %zu (replayed as recorded; when to take one is the daemon's: a trace of 'memoptimizer record' has none)\n",
                rp->onset_samples);
        if (strcmp(rp->header.source, "daemon") != 0) {
                fprintf(o, "  recorded decisions: none (a trace of 'memoptimizer record' has only samples)\n");
                return;
        }
        fprintf(o, "  recorded decisions: %zu (%zu raises, %zu lowers, %zu compactions); the same action on %zu of the %zu samples where either acted\n",
                rp->rec_decisions, rp->rec_raises, rp->rec_lowers, rp->rec_compactions, rp->same, rp->acted);
        if (rp->differ)
                fprintf(o, "  replayed scale factor differs from the recorded daemon's on %zu of %zu samples: by %.0f on average there, at most %ld\n",
                        rp->differ, rp->samples, rp->sum_diff / (double)rp->differ, rp->max_diff);
        else
                fprintf(o, "  replayed scale factor equals the recorded daemon's on every sample\n");
}

/* Every false alarm, so that each can be looked up in the decisions above. */
static void print_false_alarms(const struct replay *rp)
{
        double mb = (double)rp->header.page_size / 1e6;
        for (size_t i = 0; i < rp->score.nr_raises; i++) {
                const struct score_raise *r = &rp->score.raises[i];
                if (r->verdict != SCORE_FALSE_ALARM)
                        continue;
                fprintf(rp->out, "%+8.1f s  %s for node%d: false alarm (at the baseline its zones kept at least %.0f MB above their lows, and nothing stalled, for %.3g s)\n",
                        r->t - rp->t0,
                        r->reason == SCORE_ONSET ? "raise at onset" : wsf_reason_str((enum wsf_reason)r->reason),
                        r->node, r->least * mb, r->deadline - r->t);
        }
}

static int print_score(struct replay *rp)
{
        struct score_summary m;
        if (score_summarize(&rp->score, &m) < 0)
                return -ENOMEM;
        FILE *o = rp->out;
        fprintf(o, "\nscore (defined in memoptimizer(8), SCORES):\n");
        fprintf(o, "  crossings: %zu of low, %zu of min, %zu order-%u exhaustions; %zu seen coming, %zu missed; %zu before the first forecast (not counted)\n",
                m.events[SCORE_LOW], m.events[SCORE_MIN], m.events[SCORE_ORDER], rp->engine.max_order,
                m.seen, m.missed, m.unscored);
        if (m.seen) {
                fprintf(o, "  lead time: median %.1f s\n", m.lead_median);
                fprintf(o, "  predicted time error: median %.1f s, %.0fth percentile %.1f s; within +-%.0f %%: %.0f %% (%zu of %zu)\n",
                        m.error_median, SCORE_ERROR_PERCENTILE * 100, m.error_p90, SCORE_WITHIN_SHARE * 100,
                        m.within20 * 100, m.within20_n, m.seen);
        } else {
                fprintf(o, "  lead time, predicted time error: none (no crossing was seen coming)\n");
        }
        fprintf(o, "  false alarms: %zu of %zu raises; %zu more held (the node kept room above its lows, but the workload took more than it had); %zu not judged (the trace ends within the horizon, or with the value still raised)\n",
                m.false_alarms, m.raises, m.held, m.unjudged);
        static const int judged[] = { WSF_RAISE_FORECAST, WSF_RAISE_LEARNED, WSF_RAISE_RECUR,
                                      WSF_RAISE_STALL, SCORE_ONSET };
        for (size_t i = 0; i < ARRAY_SIZE(judged); i++) {
                const struct score_reason_summary *r = &m.reasons[judged[i]];
                char lead[48] = "no crossing came";
                if (!isnan(r->lead_median))
                        snprintf(lead, sizeof(lead), "median lead %.1f s", r->lead_median);
                fprintf(o, "    %-16s %zu raises, %zu false alarms, %zu held, %zu not judged; %s\n",
                        judged[i] == SCORE_ONSET ? "at onset" : wsf_reason_str((enum wsf_reason)judged[i]),
                        r->raises, r->false_alarms, r->held, r->unjudged, lead);
        }
        for (size_t i = 0; i < rp->score.nr_events; i++) {
                const struct score_event *e = &rp->score.events[i];
                char what[64], seen[96] = "missed";
                if (e->kind == SCORE_ORDER)
                        snprintf(what, sizeof(what), "node%d %s ran out of order-%u blocks", e->node, e->name,
                                 rp->engine.max_order);
                else
                        snprintf(what, sizeof(what), "node%d %s fell below %s", e->node, e->name,
                                 e->kind == SCORE_LOW ? "low" : "min");
                if (e->seen)
                        snprintf(seen, sizeof(seen), "seen %.1f s ahead, predicted at %+.1f s (error %.1f s)",
                                 e->lead, e->predicted - rp->t0, e->error);
                fprintf(o, "%+8.1f s  %s: %s\n", e->t - rp->t0, what, seen);
        }
        print_false_alarms(rp);
        return 0;
}

static void replay_usage(FILE *out)
{
        fprintf(out, "Usage: memoptimizer replay FILE [-c FILE|--config=FILE] [--learned=DIR] [--score] [--csv]\n"
                     "Feed a trace of `memoptimizer record` (or of the daemon's record = FILE)\n"
                     "through the daemon's decision code with a configuration; FILE '-' is standard\n"
                     "input. Prints each decision and a summary; --score adds the forecast accuracy,\n"
                     "--csv writes the scale factor over time as CSV to standard output (the report\n"
                     "then goes to standard error); --learned starts from DIR/learned, what a daemon\n"
                     "with that state directory had learnt (a warm daemon's trace). Needs no root.\n"
                     "See memoptimizer(8).\n");
}

/* Returns -1 to go on, else an exit status. */
static int replay_args(int argc, char **argv, struct replay_opts *o)
{
        enum { OPT_SCORE = 0x100, OPT_CSV, OPT_LEARNED };
        static const struct option longopts[] = {
                { "config", required_argument, NULL, 'c' },
                { "score", no_argument, NULL, OPT_SCORE },
                { "csv", no_argument, NULL, OPT_CSV },
                { "learned", required_argument, NULL, OPT_LEARNED },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int ch;
        while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
                switch (ch) {
                case 'c':
                        o->config = optarg;
                        o->config_must_exist = true;
                        break;
                case OPT_SCORE:
                        o->score = true;
                        break;
                case OPT_CSV:
                        o->csv = true;
                        break;
                case OPT_LEARNED:
                        o->learned_dir = optarg;
                        break;
                case 'h':
                        replay_usage(stdout);
                        return 0;
                default:
                        fprintf(stderr, "Try 'memoptimizer replay --help'.\n");
                        return 1;
                }
        }
        if (optind != argc - 1) {
                fprintf(stderr, "memoptimizer replay: %s\nTry 'memoptimizer replay --help'.\n",
                        optind >= argc ? "which trace? FILE is missing" : "only one trace at a time");
                return 1;
        }
        o->trace = argv[optind];
        return -1;
}

static int run(struct replay *rp, struct trace_reader *tr)
{
        char err[ERR_MSG_MAX] = "";    /* the reader's, or the learned file's */
        struct trace_record rec = { 0 };
        int r;
        while ((r = trace_reader_next(tr, &rec, err, sizeof(err))) > 0) {
                if (rec.type == TRACE_HEADER) {
                        rp->header = rec.header;
                        /* the samples are as far apart as they were recorded */
                        rp->cfg.interval = rec.header.interval;
                } else if (rec.type == TRACE_SAMPLE) {
                        /* as the daemon at its first sample */
                        if (!rp->started &&
                            config_check_orders(&rp->cfg, rp->o.config, rec.sample.nr_orders, err, sizeof(err)) < 0) {
                                fprintf(stderr, "memoptimizer replay: %s (in %s)\n", err, rp->o.trace);
                                trace_record_free(&rec);
                                return 1;
                        }
                        if ((r = on_sample(rp, &rec.sample, err, sizeof(err))) < 0)
                                break;
                } else {
                        on_recorded(rp, &rec.decision);
                }
        }
        trace_record_free(&rec);
        if (r == -EBADMSG || rp->bad_learned) {
                fprintf(stderr, "memoptimizer replay: %s\n", err);
                return 1;
        }
        if (r < 0) {
                fprintf(stderr, "memoptimizer replay: %s\n", err[0] ? err : strerror(-r));
                return 2;
        }
        if (!rp->started) {
                fprintf(stderr, "memoptimizer replay: %s: no samples in the trace\n", rp->o.trace);
                return 1;
        }
        finish_sample(rp);
        print_summary(rp);
        if (rp->o.score && print_score(rp) < 0) {
                fprintf(stderr, "memoptimizer replay: the score: %s\n", strerror(ENOMEM));
                return 2;
        }
        return 0;
}

int replay_main(int argc, char **argv)
{
        struct replay rp = { .o = { .config = CONFIG_DEFAULT_PATH } };
        int r = replay_args(argc, argv, &rp.o);
        if (r >= 0)
                return r;
        char err[ERR_MSG_MAX];
        config_defaults(&rp.cfg);
        if (config_load(&rp.cfg, rp.o.config, rp.o.config_must_exist, err, sizeof(err)) < 0) {
                fprintf(stderr, "memoptimizer replay: %s\n", err);
                return 1;
        }
        struct trace_reader *tr;
        if (trace_reader_open(&tr, rp.o.trace, err, sizeof(err)) < 0) {
                fprintf(stderr, "memoptimizer replay: %s\n", err);
                return 1;
        }
        rp.out = rp.o.csv ? stderr : stdout;
        score_init(&rp.score, rp.cfg.horizon, rp.cfg.compaction_lead_time);
        int status = run(&rp, tr);
        if (fflush(stdout) != 0 && status == 0) {
                fprintf(stderr, "memoptimizer replay: writing standard output: %s\n", strerror(errno));
                status = 2;
        }
        score_free(&rp.score);
        engine_free(&rp.engine);
        trace_reader_free(tr);
        return status;
}
