/* The configuration parser: any text is refused with "NAME:LINE: ..." on
 * a line the text has, or accepted with every value inside its documented
 * range and every key set by one line of it. */
#include <stdbool.h>
#include <syslog.h>

#include "config.h"
#include "fuzz.h"

static bool same(const struct config *a, const struct config *b)
{
        return a->interval == b->interval && a->window == b->window && a->horizon == b->horizon &&
               a->max_wsf == b->max_wsf && a->calm_period == b->calm_period &&
               a->kswapd_rate_prior == b->kswapd_rate_prior &&
               a->trend_min_r2 == b->trend_min_r2 && a->oom_headroom == b->oom_headroom &&
               a->compaction == b->compaction && a->compaction_max_order == b->compaction_max_order &&
               a->compaction_lead_time == b->compaction_lead_time && a->wake_kswapd == b->wake_kswapd &&
               a->dry_run == b->dry_run &&
               a->log_level == b->log_level && strcmp(a->record, b->record) == 0 &&
               a->record_max_size == b->record_max_size && strcmp(a->metrics_dir, b->metrics_dir) == 0 &&
               a->metrics_interval == b->metrics_interval &&
               memcmp(a->key_line, b->key_line, sizeof(a->key_line)) == 0;
}

static bool path_ok(const char *p)
{
        return p[0] == '\0' || p[0] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct config c, before;
        char err[512] = "";
        config_defaults(&c);
        before = c;
        unsigned lines = 1;     /* a line number the text has: 1 + its newlines */
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        int r = config_parse_buffer(&c, "fuzz.conf", (const char *)data, size, err, sizeof(err));
        if (r < 0) {
                char *end;
                fuzz_check(strncmp(err, "fuzz.conf:", 10) == 0);
                unsigned long line = strtoul(err + 10, &end, 10);
                fuzz_check(end > err + 10 && *end == ':' && line >= 1 && line <= lines);
                fuzz_check(same(&c, &before));
                return 0;
        }
        fuzz_check(c.interval >= 0.1 - 1e-9 && c.interval <= 60 + 1e-9);
        fuzz_check(c.window >= 3 && c.window <= 64);
        fuzz_check(c.horizon >= 1 - 1e-9 && c.horizon <= 600 + 1e-9);
        fuzz_check(c.max_wsf >= 1 && c.max_wsf <= 3000);
        fuzz_check(c.calm_period >= 1 - 1e-9 && c.calm_period <= 3600 + 1e-9);
        fuzz_check(c.kswapd_rate_prior == 0 ||
                   (c.kswapd_rate_prior >= (1ull << 20) && c.kswapd_rate_prior <= (1ull << 40)));
        fuzz_check(c.trend_min_r2 >= 0 - 1e-9 && c.trend_min_r2 <= 1 + 1e-9);
        fuzz_check(c.oom_headroom >= 0 - 1e-9 && c.oom_headroom <= 0.5 + 1e-9);
        fuzz_check(c.compaction_max_order == CONFIG_ORDER_AUTO ||
                   (c.compaction_max_order >= 1 && c.compaction_max_order <= 31));
        fuzz_check(c.compaction_lead_time >= 1 - 1e-9 && c.compaction_lead_time <= 600 + 1e-9);
        fuzz_check(c.log_level >= LOG_ERR && c.log_level <= LOG_DEBUG);
        fuzz_check(path_ok(c.record) && path_ok(c.metrics_dir));
        fuzz_check(c.record_max_size == 0 ||
                   (c.record_max_size >= 65536 && c.record_max_size <= (1ull << 40)));
        fuzz_check(c.metrics_interval >= 1 - 1e-9 && c.metrics_interval <= 600 + 1e-9);
        /* each key set once, by a line of its own */
        for (size_t i = 0; i < CONFIG_NR_KEYS; i++) {
                fuzz_check(c.key_line[i] <= lines);
                for (size_t j = 0; j < i; j++)
                        fuzz_check(!c.key_line[i] || c.key_line[i] != c.key_line[j]);
        }
        /* an accepted text has no byte the syntax refuses */
        fuzz_check(!memchr(data, '\0', size) && !memchr(data, '\r', size));
        return 0;
}
