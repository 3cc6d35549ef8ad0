/* The pure half of the sample module: parsers and assembly, no I/O. */
#include "sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* How a zone's line (buddyinfo) or section (zoneinfo) starts:
 * "Node N, zone NAME". */
#define NODE_WORD "Node "
#define NODE_WORD_LEN (sizeof(NODE_WORD) - 1)
#define ZONE_WORD ", zone"
#define ZONE_WORD_LEN (sizeof(ZONE_WORD) - 1)
/* Zones a parser makes room for at first; doubled as needed. */
#define ZONES_FIRST 8

/* ---- buddyinfo ------------------------------------------------------- */

/* Parse "Node N, zone NAME" at the start of a line; returns chars consumed. */
static int parse_zone_head(const char *line, int *node, char name[ZONE_NAME_MAX])
{
        if (strncmp(line, NODE_WORD, NODE_WORD_LEN) != 0 || line[NODE_WORD_LEN] < '0' ||
            line[NODE_WORD_LEN] > '9')
                return -EBADMSG;
        char *end;
        errno = 0;
        long n = strtol(line + NODE_WORD_LEN, &end, 10);
        if (errno || n > NODE_ID_MAX || strncmp(end, ZONE_WORD, ZONE_WORD_LEN) != 0)
                return -EBADMSG;
        const char *p = end + ZONE_WORD_LEN;
        while (*p == ' ')
                p++;
        size_t len = strcspn(p, " \t\n");
        if (len == 0 || len >= ZONE_NAME_MAX)
                return -EBADMSG;
        memcpy(name, p, len);
        name[len] = '\0';
        *node = (int)n;
        return (int)(p + len - line);
}

static int buddy_line(const char *line, const char *eol, struct buddy_zone *z, unsigned *nr)
{
        int used = parse_zone_head(line, &z->node, z->name);
        if (used < 0)
                return used;
        const char *p = line + used;
        unsigned n = 0;
        for (;;) {
                while (p < eol && (*p == ' ' || *p == '\t'))
                        p++;
                if (p >= eol)
                        break;
                if (*p < '0' || *p > '9')
                        return -EBADMSG;
                if (n >= ORDER_CAP)
                        return -E2BIG;
                char *end;
                errno = 0;
                z->nr_free[n++] = strtoull(p, &end, 10);
                if (errno || (end < eol && *end != ' ' && *end != '\t'))
                        return -EBADMSG;
                p = end;
        }
        *nr = n;
        return n ? 0 : -EBADMSG;
}

int buddyinfo_parse(const char *text, struct buddyinfo *out)
{
        *out = (struct buddyinfo){ 0 };
        size_t cap = 0;
        for (const char *line = text; *line; ) {
                const char *eol = strchr(line, '\n');
                if (!eol)       /* every kernel line ends in '\n': this one was cut */
                        goto bad;
                if (out->nr_zones == cap) {
                        cap = cap ? cap * 2 : ZONES_FIRST;
                        struct buddy_zone *nz = realloc(out->zones, cap * sizeof(*nz));
                        if (!nz) {
                                buddyinfo_free(out);
                                return -ENOMEM;
                        }
                        out->zones = nz;
                }
                struct buddy_zone *z = &out->zones[out->nr_zones];
                *z = (struct buddy_zone){ 0 };
                unsigned n;
                int r = buddy_line(line, eol, z, &n);
                if (r < 0) {
                        buddyinfo_free(out);
                        return r;
                }
                if (out->nr_zones > 0 && n != out->nr_orders)
                        goto bad;
                out->nr_orders = n;
                out->nr_zones++;
                line = eol + 1;
        }
        if (out->nr_zones == 0)
                goto bad;
        return 0;
bad:
        buddyinfo_free(out);
        return -EBADMSG;
}

void buddyinfo_free(struct buddyinfo *b)
{
        free(b->zones);
        *b = (struct buddyinfo){ 0 };
}

/* ---- zoneinfo -------------------------------------------------------- */

enum zi_field { ZI_FREE, ZI_MIN, ZI_LOW, ZI_HIGH, ZI_MANAGED, ZI_UNRECLAIMABLE, _ZI_MAX };
#define ZI_REQUIRED ((1u << ZI_FREE) | (1u << ZI_MIN) | (1u << ZI_LOW) | \
                     (1u << ZI_HIGH) | (1u << ZI_MANAGED))

static const struct { const char *key; enum zi_field f; } zi_keys[] = {
        { "pages free", ZI_FREE },  { "min", ZI_MIN }, { "low", ZI_LOW },
        { "high", ZI_HIGH }, { "managed", ZI_MANAGED },
        /* optional: printed since Linux 4.13 */
        { "node_unreclaimable:", ZI_UNRECLAIMABLE },
};

static uint64_t *zi_slot(struct zoneinfo_zone *z, enum zi_field f)
{
        switch (f) {
        case ZI_FREE: return &z->pages_free;
        case ZI_MIN: return &z->wmark_min;
        case ZI_LOW: return &z->wmark_low;
        case ZI_HIGH: return &z->wmark_high;
        case ZI_UNRECLAIMABLE: return &z->node_unreclaimable;
        default: return &z->managed_pages;
        }
}

/* Match "   KEY   VALUE" exactly; returns 1 on a match, 0 if another key,
 * -EBADMSG if KEY matched but VALUE is not a number. */
static int zi_field_line(const char *line, const char *eol, struct zoneinfo_zone *z, unsigned *seen)
{
        while (line < eol && *line == ' ')
                line++;
        for (size_t i = 0; i < ARRAY_SIZE(zi_keys); i++) {
                size_t kl = strlen(zi_keys[i].key);
                if ((size_t)(eol - line) < kl || strncmp(line, zi_keys[i].key, kl) != 0)
                        continue;
                const char *p = line + kl;
                if (p < eol && *p != ' ')
                        continue;       /* a longer key, e.g. "high_min:" */
                while (p < eol && *p == ' ')
                        p++;
                if (p >= eol || *p < '0' || *p > '9')
                        return -EBADMSG;
                char *end;
                errno = 0;
                uint64_t v = strtoull(p, &end, 10);
                if (errno || end != eol || (zi_keys[i].f == ZI_UNRECLAIMABLE && v > 1))
                        return -EBADMSG;
                *zi_slot(z, zi_keys[i].f) = v;
                *seen |= 1u << zi_keys[i].f;
                return 1;
        }
        return 0;
}

static int zi_push(struct zoneinfo *out, size_t *cap)
{
        if (out->nr_zones == *cap) {
                *cap = *cap ? *cap * 2 : ZONES_FIRST;
                struct zoneinfo_zone *nz = realloc(out->zones, *cap * sizeof(*nz));
                if (!nz)
                        return -ENOMEM;
                out->zones = nz;
        }
        out->zones[out->nr_zones++] = (struct zoneinfo_zone){ 0 };
        return 0;
}

int zoneinfo_parse(const char *text, struct zoneinfo *out)
{
        *out = (struct zoneinfo){ 0 };
        size_t cap = 0;
        unsigned seen = 0;
        int r = 0;
        for (const char *line = text; *line; ) {
                const char *eol = strchr(line, '\n');
                if (!eol) {
                        r = -EBADMSG;
                        break;
                }
                if (strncmp(line, NODE_WORD, NODE_WORD_LEN) == 0) {
                        if (out->nr_zones > 0 && (seen & ZI_REQUIRED) != ZI_REQUIRED) {
                                r = -EBADMSG;
                                break;
                        }
                        if ((r = zi_push(out, &cap)) < 0)
                                break;
                        struct zoneinfo_zone *z = &out->zones[out->nr_zones - 1];
                        if ((r = parse_zone_head(line, &z->node, z->name)) < 0)
                                break;
                        r = 0;
                        seen = 0;
                } else if (out->nr_zones > 0) {
                        r = zi_field_line(line, eol, &out->zones[out->nr_zones - 1], &seen);
                        if (r < 0)
                                break;
                }
                line = eol + 1;
        }
        if (r >= 0 && (out->nr_zones == 0 || (seen & ZI_REQUIRED) != ZI_REQUIRED))
                r = -EBADMSG;
        if (r < 0) {
                zoneinfo_free(out);
                return r;
        }
        return 0;
}

void zoneinfo_free(struct zoneinfo *z)
{
        free(z->zones);
        *z = (struct zoneinfo){ 0 };
}

/* ---- assembly -------------------------------------------------------- */

double wmark_gap(uint64_t managed_pages, uint64_t wmark_min, long wsf)
{
        double gap = dfloor((double)managed_pages * (double)wsf / PERMYRIAD);
        uint64_t quarter = wmark_min / 4;       /* the kernel's integer division */
        return dmax(gap, (double)quarter);
}

double meminfo_held(const struct meminfo *m)
{
        return (double)(m->anon_pages + m->shmem) + (double)(m->dirty + m->writeback);
}

void zone_sum_orders(struct zone *z, unsigned nr_orders)
{
        uint64_t sum = 0;
        memset(z->free_at, 0, sizeof(z->free_at));
        for (unsigned o = nr_orders < ORDER_CAP ? nr_orders : ORDER_CAP; o-- > 0; ) {
                sum += z->nr_free[o] << o;
                z->free_at[o] = sum;
        }
        z->free_pages = z->free_at[0];
}

uint64_t zone_free_at_order(const struct zone *z, unsigned nr_orders, unsigned k)
{
        return k < nr_orders && k < ORDER_CAP ? z->free_at[k] : 0;
}

static const struct zoneinfo_zone *zi_find(const struct zoneinfo *zi, int node, const char *name)
{
        for (size_t i = 0; i < zi->nr_zones; i++)
                if (zi->zones[i].node == node && strcmp(zi->zones[i].name, name) == 0)
                        return &zi->zones[i];
        return NULL;
}

int sample_assemble(struct sample *s, const struct buddyinfo *b, const struct zoneinfo *zi)
{
        struct zone *zones = calloc(b->nr_zones ? b->nr_zones : 1, sizeof(*zones));
        if (!zones)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < b->nr_zones; i++) {
                const struct buddy_zone *bz = &b->zones[i];
                const struct zoneinfo_zone *z = zi_find(zi, bz->node, bz->name);
                if (!z || z->managed_pages == 0)
                        continue;
                struct zone *out = &zones[n++];
                out->node = bz->node;
                memcpy(out->name, bz->name, sizeof(out->name));
                memcpy(out->nr_free, bz->nr_free, sizeof(out->nr_free));
                out->wmark_min = z->wmark_min;
                out->wmark_low = z->wmark_low;
                out->wmark_high = z->wmark_high;
                out->managed_pages = z->managed_pages;
                out->node_unreclaimable = z->node_unreclaimable != 0;
                zone_sum_orders(out, b->nr_orders);
        }
        if (n == 0) {
                free(zones);
                return -ENODATA;
        }
        free(s->zones);
        s->zones = zones;
        s->nr_zones = n;
        s->nr_orders = b->nr_orders;
        return 0;
}

void sample_free(struct sample *s)
{
        free(s->zones);
        s->zones = NULL;
        s->nr_zones = 0;
}

int sample_copy(struct sample *dst, const struct sample *src)
{
        struct zone *zones = malloc(src->nr_zones * sizeof(*zones));
        if (!zones)
                return -ENOMEM;
        memcpy(zones, src->zones, src->nr_zones * sizeof(*zones));
        free(dst->zones);
        *dst = *src;
        dst->zones = zones;
        return 0;
}

const char *const vmstat_counters[NR_VMSTAT_COUNTERS] = {
        "pgsteal_kswapd", "pgsteal_direct", "pgscan_kswapd", "pgscan_direct",
        "allocstall_dma", "allocstall_dma32", "allocstall_normal", "allocstall_movable", "allocstall_high",
        "compact_stall", "compact_success", "compact_fail",
        "pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_movable", "pgalloc_high",
        "kswapd_low_wmark_hit_quickly", "nr_free_pages", "oom_kill",
};

/* The line of text that starts with name and then ' ' or ':', or NULL. */
static const char *field_line(const char *text, const char *name)
{
        size_t n = strlen(name);
        for (const char *p = text; p && *p;) {
                if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == ':'))
                        return p;
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        return NULL;
}

bool proc_has_field(const char *text, const char *name)
{
        return field_line(text, name) != NULL;
}

const char *vmstat_counter_cut(const char *first, const char *whole)
{
        for (size_t i = 0; i < NR_VMSTAT_COUNTERS; i++) {
                if (!proc_has_field(whole, vmstat_counters[i]))
                        continue;       /* the kernel has none: libproc2's 0 is right */
                /* a line without its end may have lost digits */
                const char *line = field_line(first, vmstat_counters[i]);
                if (!line || !strchr(line, '\n'))
                        return vmstat_counters[i];
        }
        return NULL;
}

bool sample_same_layout(const struct sample *a, const struct sample *b)
{
        if (a->nr_zones != b->nr_zones || a->nr_orders != b->nr_orders)
                return false;
        for (size_t i = 0; i < a->nr_zones; i++)
                if (a->zones[i].node != b->zones[i].node ||
                    strcmp(a->zones[i].name, b->zones[i].name) != 0)
                        return false;
        return true;
}

double unusable_index(double free_pages, double free_at_order)
{
        if (!(free_pages > 0))
                return 1;
        return (free_pages - free_at_order) / free_pages;
}

double zone_unusable_index(const struct zone *z, unsigned nr_orders, unsigned k)
{
        return unusable_index((double)z->free_pages, (double)zone_free_at_order(z, nr_orders, k));
}

int zoneinfo_zone_index(const char *zoneinfo, const char *name)
{
        int index = 0;
        for (const char *line = zoneinfo; *line;) {
                int node;
                char zone[ZONE_NAME_MAX];
                if (parse_zone_head(line, &node, zone) >= 0 && node == 0) {
                        if (strcmp(zone, name) == 0)
                                return index;
                        index++;
                }
                const char *nl = strchr(line, '\n');
                if (!nl)
                        break;
                line = nl + 1;
        }
        return -ENOENT;
}
