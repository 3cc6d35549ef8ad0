#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "util.h"

/* Decimal units, as the messages spell them (GB/s, MB/s). */
#define BYTES_PER_GB 1e9
#define BYTES_PER_MB 1e6
_Static_assert(REPORT_FIELDS_MAX + 4 <= LOG_EVENT_FIELDS_MAX,
               "log_event() adds MESSAGE, MESSAGE_ID, PRIORITY and SYSLOG_IDENTIFIER");

static double pages_mb(uint64_t pages, long page_size)
{
        return (double)pages * (double)page_size / BYTES_PER_MB;
}

void format_rate(char *buf, size_t size, double pages_per_sec)
{
        double bytes_per_sec = pages_per_sec * (double)sysconf(_SC_PAGESIZE);
        if (bytes_per_sec >= BYTES_PER_GB)
                snprintf(buf, size, "%.1f GB/s", bytes_per_sec / BYTES_PER_GB);
        else
                snprintf(buf, size, "%.0f MB/s", bytes_per_sec / BYTES_PER_MB);
}

void format_secs(char *buf, size_t size, double secs)
{
        if (isinf(secs))
                snprintf(buf, size, "never");
        else
                snprintf(buf, size, "%.1f s", secs);
}

/* The journal fields of one event. Bounded: a field past the capacity is
 * dropped rather than written past the end. */
struct fields {
        struct log_field f[REPORT_FIELDS_MAX];
        size_t n;
};

static struct log_field *field_add(struct fields *fs, const char *name)
{
        if (fs->n == ARRAY_SIZE(fs->f))
                return NULL;
        fs->f[fs->n].name = name;
        return &fs->f[fs->n++];
}

/* A numeric field with `decimals` digits after the point. */
static void field(struct fields *fs, const char *name, int decimals, double v)
{
        struct log_field *f = field_add(fs, name);
        if (!f)
                return;
        if (isinf(v))
                snprintf(f->value, sizeof(f->value), "inf");
        else
                snprintf(f->value, sizeof(f->value), "%.*f", decimals, v);
}

static void field_str(struct fields *fs, const char *name, const char *v)
{
        struct log_field *f = field_add(fs, name);
        if (f)
                snprintf(f->value, sizeof(f->value), "%s", v);
}

/* When a recurring episode is due: "is due in 1.0 s", or, for one that is
 * late but still within its pattern's tolerance, "was due 0.5 s ago". */
static void format_due(char *buf, size_t size, double due_in)
{
        if (due_in < 0)
                snprintf(buf, size, "was due %.1f s ago", -due_in);
        else
                snprintf(buf, size, "is due in %.1f s", due_in);
}

/* "THP " for a class of episodes mostly in huge pages (learn.h). */
static const char *kind_prefix(enum learn_kind kind)
{
        return kind == LEARN_THP ? "THP " : "";
}

void report_reason(char *buf, size_t size, const struct decision *d)
{
        char ksw[32], peak[32], drain[32], direct[32], thp[32], due[48];
        format_due(due, sizeof(due), d->recur_due_in);
        format_rate(thp, sizeof(thp), d->thp);
        format_rate(ksw, sizeof(ksw), d->reclaim);
        format_rate(peak, sizeof(peak), d->reclaim_peak);
        format_rate(drain, sizeof(drain), d->drain);
        format_rate(direct, sizeof(direct), d->direct);
        switch (d->reason) {
        case WSF_RAISE_FORECAST:
                if (d->thp > 0)
                        snprintf(buf, size, "a pressure episode the value in force does not cover: demand %s, %s of it huge pages, which kswapd's reclaim (%s) does not make; the gap covers %.3g s of them, and %.3g s of the rest of the shortfall",
                                 drain, thp, peak, d->thp_cover, d->cover);
                else
                        snprintf(buf, size, "a pressure episode the value in force does not cover: demand %s, more than kswapd can reclaim (%s); the gap grows by %.3g s of the shortfall",
                                 drain, peak, d->cover);
                break;
        case WSF_RAISE_LEARNED:
                /* a class not seen borrows a neighbour's value, or the
                 * other kind's: say whose */
                if (d->learned_above != 0 || d->learned_kind != d->demand_kind)
                        snprintf(buf, size, "a pressure episode of a kind not seen (demand %s, %sclass %d), %s earlier ones (%sclass %d): what they needed, %ld",
                                 drain, kind_prefix(d->demand_kind), d->demand_class,
                                 d->learned_above > 0 ? "slower than" : d->learned_above < 0 ? "faster than" :
                                 "in other pages than", kind_prefix(d->learned_kind),
                                 d->demand_class + d->learned_above, d->learned_wsf);
                else
                        snprintf(buf, size, "a pressure episode like earlier ones (demand %s, %sclass %d): they needed %ld",
                                 drain, kind_prefix(d->demand_kind), d->demand_class, d->learned_wsf);
                break;
        case WSF_RAISE_RECUR:
                snprintf(buf, size, "a recurring pressure episode (every %.1f s, %u in a row) %s; its kind needs %ld",
                         d->recur.period, d->recur.episodes, due, d->learned_wsf);
                break;
        case WSF_RAISE_STALL:
                snprintf(buf, size, "%llu stalls in the last interval; direct reclaim %s, kswapd %s: the gap grows by %.3g times the shortfall",
                         (unsigned long long)d->stalls, direct, ksw, POLICY_STALL_GAIN);
                break;
        case WSF_LOWER_CALM:
                /* policy.c gives back only to what a recurring episode due
                 * within the lead needs: the pattern is in d->recur */
                if (d->recur_overdue)
                        snprintf(buf, size, "the recurring pressure episode it was raised for has not come a quarter period after it was due");
                else if (d->recur_came)
                        snprintf(buf, size, "the recurring pressure episode it was raised for came and stopped taking memory; a quarter period after it was due, the raise for it ends");
                else if (d->recur.episodes > 0 && d->learned_wsf == d->wsf_new)
                        snprintf(buf, size, "the workload stopped taking memory: no demand, stall or raise for the calm period; a recurring pressure episode (every %.1f s, %u in a row) %s and its kind needs %ld",
                                 d->recur.period, d->recur.episodes, due, d->learned_wsf);
                else
                        snprintf(buf, size, "the workload stopped taking memory: no demand, stall or raise for the calm period");
                break;
        case WSF_LOWER_GUARD:
                snprintf(buf, size, "the OOM guard allows at most %ld now", d->ceiling);
                break;
        case WSF_ADOPT:
                snprintf(buf, size, "another process set it; adopted as the new baseline");
                break;
        case WSF_KEEP:
        case _WSF_REASONS:
                buf[0] = '\0';
                break;
        }
}

void report_wsf_message(char *msg, size_t size, const struct decision *d, bool acting)
{
        char reason[REPORT_REASON_MAX];
        report_reason(reason, sizeof(reason), d);
        const char *verb = d->reason == WSF_ADOPT ? "adopt" :
                           d->wsf_new > d->wsf_old ? "raise" : "lower";
        char paced[128] = "", capped[160] = "";
        if (d->paced)
                snprintf(paced, sizeof(paced), "; lifted %s the pace floor (%d): below it kswapd, once woken, "
                         "sleeps again after one pass", d->wsf_new < POLICY_PACE_FLOOR ? "towards" : "to",
                         POLICY_PACE_FLOOR);
        if (d->reclaim_capped)
                snprintf(capped, sizeof(capped), "; no higher: kswapd could reclaim only %.0f MB (page cache, and "
                         "what swap has room for), the OOM headroom left aside",
                         pages_mb(d->kswapd_reclaimable, sysconf(_SC_PAGESIZE)));
        snprintf(msg, size, "%s%s vm.watermark_scale_factor %ld -> %ld%s: %s%s%s%s",
                 acting || d->reason == WSF_ADOPT ? "" : "would ", verb, d->wsf_old, d->wsf_new,
                 d->onset ? " at onset" : "", reason,
                 d->wake_capped ? "; no more than puts low at free memory (kswapd wakes at once; a wider gap would only have it reclaim longer)" : "",
                 paced, capped);
}

void report_wsf(const struct logger *l, const struct decision *d, bool acting)
{
        if (d->reason == WSF_KEEP)
                return;
        char msg[REPORT_MSG_MAX];
        report_wsf_message(msg, sizeof(msg), d, acting);
        struct log_field f[REPORT_FIELDS_MAX];
        size_t n = report_wsf_fields(f, d, acting);
        const char *id = d->reason == WSF_ADOPT ? MSGID_ADOPT :
                         d->wsf_new > d->wsf_old ? MSGID_RAISE : MSGID_LOWER;
        int prio = d->reason == WSF_RAISE_STALL || d->reason == WSF_LOWER_GUARD ? LOG_NOTICE : LOG_INFO;
        if (d->reason == WSF_ADOPT)
                prio = LOG_NOTICE;
        log_event(l, prio, id, msg, f, n);
}

size_t report_wsf_fields(struct log_field f[REPORT_FIELDS_MAX], const struct decision *d, bool acting)
{
        struct fields fs = { .n = 0 };
        field(&fs, "WSF_OLD", 0, (double)d->wsf_old);
        field(&fs, "WSF_NEW", 0, (double)d->wsf_new);
        field(&fs, "WSF_CEILING", 0, (double)d->ceiling);
        field_str(&fs, "REASON", wsf_reason_str(d->reason));
        field_str(&fs, "TRIGGER", d->onset ? "onset" : "sample");
        field(&fs, "ACTING", 0, acting);
        if (d->node >= 0) {
                field(&fs, "NODE", 0, d->node);
                field_str(&fs, "ZONE", d->zone);
                field(&fs, "SECONDS_TO_LOW", 3, d->secs_to_low);
                field(&fs, "SECONDS_TO_MIN", 3, d->secs_to_min);
                field(&fs, "DRAIN_PAGES_PER_SEC", 0, d->drain);
                field(&fs, "THP_PAGES_PER_SEC", 0, d->thp);
        }
        field(&fs, "RECLAIM_PAGES_PER_SEC", 0, d->reclaim);
        if (d->reason == WSF_RAISE_FORECAST)
                field(&fs, "COVER_SECONDS", 3, d->cover);
        if (d->demand_class >= 0) {
                field(&fs, "DEMAND_CLASS", 0, d->demand_class);
                field_str(&fs, "DEMAND_KIND", learn_kind_name(d->demand_kind));
        }
        if (d->learned_wsf >= 0)
                field(&fs, "LEARNED_WSF", 0, (double)d->learned_wsf);
        /* only with raise-learned, which has no COVER_SECONDS: within
         * REPORT_FIELDS_MAX */
        if (d->reason == WSF_RAISE_LEARNED && (d->learned_above != 0 || d->learned_kind != d->demand_kind)) {
                field(&fs, "LEARNED_CLASS", 0, d->demand_class + d->learned_above);
                field_str(&fs, "LEARNED_KIND", learn_kind_name(d->learned_kind));
        }
        if (d->paced)
                field(&fs, "PACE_FLOOR", 0, POLICY_PACE_FLOOR);
        if (d->reclaim_capped) {
                field(&fs, "RECLAIM_CAP", 0, (double)d->reclaim_cap);
                field(&fs, "KSWAPD_RECLAIMABLE_PAGES", 0, (double)d->kswapd_reclaimable);
        }
        if (d->recur_overdue)
                field(&fs, "RECUR_OVERDUE", 0, 1);
        if (d->recur_came)
                field(&fs, "RECUR_CAME", 0, 1);
        field(&fs, "STALLS", 0, (double)d->stalls);
        memcpy(f, fs.f, fs.n * sizeof(fs.f[0]));
        return fs.n;
}

void report_hold_message(char *msg, size_t size, const struct decision *d)
{
        char scan[32], steal[32];
        switch (d->hold) {
        case HOLD_NODE_UNRECLAIMABLE:
                snprintf(msg, size,
                         "holding back raises of vm.watermark_scale_factor: kswapd gave up reclaiming on node %d (node_unreclaimable in /proc/zoneinfo); a higher watermark cannot wake it until an allocation reclaims memory itself",
                         d->hold_node);
                break;
        case HOLD_NOTHING_TO_RECLAIM:
                snprintf(msg, size,
                         "holding back raises of vm.watermark_scale_factor: a raise is called for, but kswapd could reclaim only %.0f MB (page cache, and what swap has room for): with the OOM headroom left aside, too little for any value above %ld; a higher watermark would have it evict that and then give up on the node",
                         pages_mb(d->kswapd_reclaimable, sysconf(_SC_PAGESIZE)), d->wsf_old);
                break;
        case HOLD_KSWAPD_FAILING:
                format_rate(scan, sizeof(scan), d->hold_scan);
                format_rate(steal, sizeof(steal), d->hold_steal);
                snprintf(msg, size,
                         "holding back raises of vm.watermark_scale_factor: kswapd scans %s and reclaims %s of it, under a tenth; a higher watermark would only make it burn more CPU",
                         scan, steal);
                break;
        default:
                snprintf(msg, size, "raises of vm.watermark_scale_factor no longer held back: %s",
                         d->hold_was == HOLD_NOTHING_TO_RECLAIM ?
                         "no raise is called for, or kswapd has enough to reclaim for one" : "kswapd reclaims again");
                break;
        }
}

void report_hold(const struct logger *l, const struct decision *d)
{
        if (!d->hold_changed)
                return;
        char msg[REPORT_MSG_MAX];
        report_hold_message(msg, sizeof(msg), d);
        struct fields fs = { .n = 0 };
        field_str(&fs, "HOLD", raise_hold_str(d->hold));
        field_str(&fs, "REASON", "guard");
        if (d->hold == HOLD_NODE_UNRECLAIMABLE)
                field(&fs, "NODE", 0, d->hold_node);
        if (d->hold == HOLD_NOTHING_TO_RECLAIM)
                field(&fs, "KSWAPD_RECLAIMABLE_PAGES", 0, (double)d->kswapd_reclaimable);
        if (d->hold == HOLD_KSWAPD_FAILING) {
                field(&fs, "KSWAPD_SCAN_PAGES_PER_SEC", 0, d->hold_scan);
                field(&fs, "RECLAIM_PAGES_PER_SEC", 0, d->hold_steal);
        }
        field(&fs, "WSF", 0, (double)d->wsf_new);
        log_event(l, d->hold == HOLD_NONE ? LOG_INFO : LOG_WARNING, MSGID_HOLD, msg, fs.f, fs.n);
}

void report_episode_message(char *msg, size_t size, const struct decision *d)
{
        const struct episode_stats *e = &d->episode;
        char peak[32], ksw[32];
        format_rate(peak, sizeof(peak), e->peak_demand_pages_per_sec);
        format_rate(ksw, sizeof(ksw), e->kswapd_peak_pages_per_sec);
        double mb = (double)sysconf(_SC_PAGESIZE) / 1e6;
        unsigned long long stalls = (unsigned long long)e->allocstalls + (unsigned long long)e->compact_stalls;
        int n = snprintf(msg, size,
                         "pressure episode over after %.1f s: demand up to %s, %.0f MB in all; kswapd up to %s; closest to min %.0f MB (gap %.0f MB); %llu stalls, %.0f MB reclaimed directly",
                         e->end - e->start, peak, e->demand_pages * mb, ksw, e->min_margin_pages * mb,
                         e->gap_pages * mb, stalls, e->direct_pages * mb);
        if (n >= 0 && (size_t)n < size && d->learned_wsf >= 0)
                snprintf(msg + n, size - (size_t)n, "; its kind now needs %ld", d->learned_wsf);
}

void report_episode(const struct logger *l, const struct decision *d)
{
        if (!d->episode_ended)
                return;
        char msg[REPORT_MSG_MAX];
        report_episode_message(msg, sizeof(msg), d);
        const struct episode_stats *e = &d->episode;
        struct fields fs = { .n = 0 };
        field(&fs, "EPISODE_SECONDS", 1, e->end - e->start);
        field(&fs, "DEMAND_PEAK_PAGES_PER_SEC", 0, e->peak_demand_pages_per_sec);
        field(&fs, "DEMAND_PAGES", 0, e->demand_pages);
        field(&fs, "KSWAPD_PEAK_PAGES_PER_SEC", 0, e->kswapd_peak_pages_per_sec);
        field(&fs, "MIN_MARGIN_PAGES", 0, e->min_margin_pages);
        field(&fs, "GAP_PAGES", 0, e->gap_pages);
        field(&fs, "WSF_MAX", 0, (double)e->wsf_max);
        field(&fs, "ALLOCSTALLS", 0, (double)e->allocstalls);
        field(&fs, "COMPACT_STALLS", 0, (double)e->compact_stalls);
        field(&fs, "DIRECT_PAGES", 0, e->direct_pages);
        if (d->learned_wsf >= 0)
                field(&fs, "LEARNED_WSF", 0, (double)d->learned_wsf);
        log_event(l, LOG_INFO, MSGID_EPISODE, msg, fs.f, fs.n);
}

void report_compact_why(char *buf, size_t size, const struct compact_order *c)
{
        if (c->stalled) {
                snprintf(buf, size, "the last episode's compaction stalls asked for order-%u blocks", c->order);
        } else if (c->released) {
                snprintf(buf, size, "the workload let go of memory in single pages after taking order-%u blocks",
                         c->order);
        } else {
                char secs[32];
                format_secs(secs, sizeof(secs), c->secs_to_exhaust);
                snprintf(buf, size, "order-%u blocks run out in %s", c->order, secs);
        }
}

void report_backoff_why(char *buf, size_t size, const struct compact_backoff *b)
{
        if (b->too_slow)
                snprintf(buf, size, "for order %u took longer than %g s, holding allocations up", b->order,
                         POLICY_COMPACT_MAX_SECS);
        else if (b->faulted_blocks > 0)
                snprintf(buf, size, "did not help order %u: the huge pages faulted in after it stalled %llu times for %.0f blocks",
                         b->order, (unsigned long long)b->fault_stalls, b->faulted_blocks);
        else
                snprintf(buf, size, "did not help order %u", b->order);
}

void report_compact_message(char *msg, size_t size, const struct compact_order *c, bool acting,
                            bool all_nodes, int err)
{
        char why[REPORT_WHY_MAX];
        report_compact_why(why, sizeof(why), c);
        snprintf(msg, size,
                 "%scompact %s%d: %s (%.0f pages in blocks >= order %u, %.0f%% of free memory fragmented)%s%s",
                 acting ? "" : "would ", all_nodes ? "all nodes, asked for node" : "node", c->node,
                 why, c->free_at_order, c->order, c->extfrag * PERCENT,
                 err ? ": failed: " : "", err ? strerror(-err) : "");
}

void report_compact(const struct logger *l, const struct compact_order *c, bool acting,
                    bool all_nodes, double seconds, int err)
{
        char msg[REPORT_MSG_MAX];
        report_compact_message(msg, sizeof(msg), c, acting, all_nodes, err);
        struct fields fs = { .n = 0 };
        field(&fs, "NODE", 0, c->node);
        field(&fs, "ORDER", 0, c->order);
        field(&fs, "SECONDS_TO_EXHAUST", 3, c->secs_to_exhaust);
        field_str(&fs, "COMPACT_REASON", c->stalled ? "stalls" : c->released ? "release" : "forecast");
        field(&fs, "EXTFRAG_PERCENT", 1, c->extfrag * PERCENT);
        field(&fs, "COMPACT_SECONDS", 3, seconds);
        log_event(l, err ? LOG_WARNING : LOG_INFO, MSGID_COMPACT, msg, fs.f, fs.n);
}

void report_backoff_message(char *msg, size_t size, const struct compact_backoff *b)
{
        char why[REPORT_WHY_MAX];
        report_backoff_why(why, sizeof(why), b);
        snprintf(msg, size, "compaction of node%d %s (%.0f -> %.0f pages in blocks >= order %u); next try in %.3g s",
                 b->node, why, b->before, b->after, b->order, b->retry_in);
}

void report_backoff(const struct logger *l, const struct compact_backoff *b)
{
        char msg[REPORT_MSG_MAX];
        report_backoff_message(msg, sizeof(msg), b);
        struct fields fs = { .n = 0 };
        field(&fs, "NODE", 0, b->node);
        field(&fs, "ORDER", 0, b->order);
        field(&fs, "DEFER_SHIFT", 0, b->defer_shift);
        field(&fs, "RETRY_SECONDS", 1, b->retry_in);
        field(&fs, "TOO_SLOW", 0, b->too_slow);
        if (b->faulted_blocks > 0) {
                field(&fs, "FAULT_STALLS", 0, (double)b->fault_stalls);
                field(&fs, "FAULTED_BLOCKS", 0, b->faulted_blocks);
        }
        log_event(l, LOG_NOTICE, MSGID_BACKOFF, msg, fs.f, fs.n);
}

void report_wake_message(char *msg, size_t size, const struct wake_pulse *p, long page_size, bool acting)
{
        char huge[128] = "";
        if (p->huge_order > 0)
                snprintf(huge, sizeof(huge), ", or, as huge pages are faulted in, until its huge blocks (%.0f MB) are spent",
                         pages_mb(p->normal_free_huge, page_size));
        snprintf(msg, size,
                 "%swake kswapd: DMA32 would be empty in %.1f s (%.0f MB fell in %.2f s, %.0f MB free) while node%d Normal sits at its low (%.0f MB free, low %.0f MB) and kswapd sleeps; the zones below Normal %s closed to it until Normal is at its high (%.0f MB)%s",
                 acting ? "" : "would ", p->dma32_left, pages_mb(p->dma32_fell, page_size), p->interval,
                 pages_mb(p->dma32_free, page_size), p->node, pages_mb(p->normal_free, page_size),
                 pages_mb(p->normal_low, page_size), acting ? "are" : "would be",
                 pages_mb(p->end_high, page_size), huge);
}

void report_wake(const struct logger *l, const struct wake_pulse *p, long page_size, bool acting)
{
        char msg[REPORT_MSG_MAX];
        report_wake_message(msg, sizeof(msg), p, page_size, acting);
        struct fields fs = { .n = 0 };
        field(&fs, "NODE", 0, p->node);
        field(&fs, "DMA32_SECONDS_LEFT", 2, p->dma32_left);
        field(&fs, "DMA32_FREE_PAGES", 0, (double)p->dma32_free);
        field(&fs, "DMA32_FELL_PAGES", 0, (double)p->dma32_fell);
        field(&fs, "NORMAL_FREE_PAGES", 0, (double)p->normal_free);
        field(&fs, "NORMAL_WMARK_LOW", 0, (double)p->normal_low);
        field(&fs, "NORMAL_WMARK_HIGH", 0, (double)p->normal_high);
        if (p->huge_order > 0) {
                field(&fs, "HUGE_ORDER", 0, p->huge_order);
                field(&fs, "NORMAL_FREE_HUGE_PAGES", 0, (double)p->normal_free_huge);
        }
        log_event(l, LOG_INFO, MSGID_WAKE, msg, fs.f, fs.n);
}

void report_wake_end(const struct logger *l, const struct wake_pulse *p, enum wake_end e, uint64_t normal_free,
                     uint64_t normal_free_huge, double held, long page_size, int err)
{
        char msg[REPORT_MSG_MAX], free_mb[64] = "";
        bool known = e != WAKE_END_UNREADABLE;
        if (known && p->huge_order > 0)
                snprintf(free_mb, sizeof(free_mb), " (%.0f MB free, %.0f MB in huge blocks)",
                         pages_mb(normal_free, page_size), pages_mb(normal_free_huge, page_size));
        else if (known)
                snprintf(free_mb, sizeof(free_mb), " (%.0f MB free)", pages_mb(normal_free, page_size));
        snprintf(msg, sizeof(msg), "%s after %.0f ms: %s%s%s%s",
                 err ? "could not open the zones below Normal again" : "zones below Normal open again",
                 held * 1000, wake_end_name(e), free_mb, err ? ": " : "", err ? strerror(-err) : "");
        struct fields fs = { .n = 0 };
        field(&fs, "NODE", 0, p->node);
        field(&fs, "HELD_SECONDS", 3, held);
        if (known)
                field(&fs, "NORMAL_FREE_PAGES", 0, (double)normal_free);
        if (known && p->huge_order > 0)
                field(&fs, "NORMAL_FREE_HUGE_PAGES", 0, (double)normal_free_huge);
        field_str(&fs, "WAKE_END", wake_end_field(e));
        log_event(l, err ? LOG_ERR : LOG_INFO, MSGID_WAKE_END, msg, fs.f, fs.n);
}
