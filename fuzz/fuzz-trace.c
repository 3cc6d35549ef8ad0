/* Trace lines (memoptimizer replay): any bytes are refused with a message or
 * parsed into records whose numbers stay within the format's bounds; the
 * samples of an input, one per line, then go through the daemon's engine as
 * replay feeds them, which must not crash on anything the parser accepted.
 * A header's start is mapped onto the samples' clock as replay maps it, and
 * a start read to the millisecond is written back exactly as it was read.
 * (For fuzz/meson.build's harness list: 'trace'.) */
#include <errno.h>
#include <math.h>

#include "config.h"
#include "engine.h"
#include "fuzz.h"
#include "trace.h"
#include "util.h"

static void check_sample(const struct sample *s)
{
        fuzz_check(isfinite(s->time) && s->time >= 0);
        fuzz_check(s->nr_orders >= 1 && s->nr_orders <= ORDER_CAP);
        fuzz_check(s->nr_zones >= 1 && s->nr_zones <= TRACE_ZONE_CAP && s->zones);
        for (size_t i = 0; i < s->nr_zones; i++) {
                const struct zone *z = &s->zones[i];
                fuzz_check(z->node >= 0 && z->managed_pages > 0);
                fuzz_check(z->name[0] && memchr(z->name, '\0', ZONE_NAME_MAX));
                fuzz_check(z->free_pages == z->free_at[0]);
                for (unsigned k = 1; k < s->nr_orders; k++)
                        fuzz_check(z->free_at[k] <= z->free_at[k - 1]);
        }
}

static void check_header(const struct trace_header *h)
{
        double offset = NAN;
        int r = trace_wall_offset(h, 0, &offset);
        fuzz_check(r == 0 || r == 1 || r == -EINVAL);
        fuzz_check(r < 0 || isfinite(offset));
        fuzz_check(r != 0 || h->has_started_mono);
        double started = utc_parse(h->started, true);
        if (started >= 0) {
                char again[UTC_MILLIS_SIZE];
                utc_format(started, again, sizeof(again));
                fuzz_check(strcmp(again, h->started) == 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct config cfg;
        config_defaults(&cfg);
        cfg.window = 3;
        struct engine e;
        if (engine_init(&e, cfg.window, 10, 10) < 0)
                abort();
        struct engine_params p;
        config_engine_params(&p, &cfg, true, 4096, 2 << 20);
        struct trace_record rec = { 0 };
        const char *text = (const char *)data, *end = text + size;
        while (text < end) {
                const char *nl = memchr(text, '\n', (size_t)(end - text));
                size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
                char err[256] = "";
                int r = trace_parse_line(text, len, &rec, err, sizeof(err));
                fuzz_check(r == 0 || ((r == -EBADMSG || r == -ENOMEM) && err[0]));
                if (r == 0 && rec.type == TRACE_HEADER)
                        check_header(&rec.header);
                if (r == 0 && rec.type == TRACE_SAMPLE) {
                        check_sample(&rec.sample);
                        struct decision d;
                        bool restarted;
                        rec.sample.wsf = engine_wsf(&e);      /* as replay does */
                        fuzz_check(engine_step(&e, &p, &rec.sample, &d, &restarted) >= 0);
                }
                text += len + 1;
        }
        trace_record_free(&rec);
        engine_free(&e);
        return 0;
}
