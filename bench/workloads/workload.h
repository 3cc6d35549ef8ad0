/* workload.h — what the benchmark's workload programs share: sizes with
 * K/M/G suffixes, durations with units, 2 MiB-aligned anonymous mappings,
 * how much of the process is backed by transparent huge pages, the
 * monotonic clock, and latency percentiles. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_2M ((size_t)2 << 20)
#define NSEC_PER_SEC 1000000000LL

/* "512M", "9G", "4096": a non-zero size in bytes, 1024-based suffixes. */
static inline bool workload_parse_size(const char *s, size_t *out)
{
        if (*s < '0' || *s > '9')
                return false;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        int shift = 0;
        switch (*end) {
        case '\0': break;
        case 'k': case 'K': shift = 10; end++; break;
        case 'm': case 'M': shift = 20; end++; break;
        case 'g': case 'G': shift = 30; end++; break;
        default: return false;
        }
        if (errno == ERANGE || *end != '\0' || v == 0 || v > (SIZE_MAX >> shift))
                return false;
        *out = (size_t)v << shift;
        return true;
}

/* Map len bytes aligned to 2 MiB: over-allocate, then trim both ends. */
static inline char *workload_map_aligned(size_t len)
{
        size_t span = len + HUGE_2M;
        char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
                return NULL;
        size_t head = (HUGE_2M - (uintptr_t)raw % HUGE_2M) % HUGE_2M;
        size_t tail = span - head - len;
        if (head)
                munmap(raw, head);
        if (tail)
                munmap(raw + head + len, tail);
        return raw + head;
}

/* AnonHugePages of the whole process in kB; -1 if unreadable. */
static inline long workload_anon_huge_kb(void)
{
        FILE *f = fopen("/proc/self/smaps_rollup", "re");
        if (!f)
                return -1;
        char line[256];
        long kb = -1;
        while (kb < 0 && fgets(line, sizeof(line), f))
                if (sscanf(line, "AnonHugePages: %ld kB", &kb) != 1)
                        kb = -1;
        fclose(f);
        return kb;
}

/* A decimal unsigned integer; *end points after it. */
static inline bool workload_parse_u64(const char *s, char **end, uint64_t *out)
{
        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        unsigned long long v = strtoull(s, end, 10);
        if (errno == ERANGE)
                return false;
        *out = v;
        return true;
}

static inline int64_t workload_unit_ns(const char *unit)
{
        static const struct { const char *name; int64_t ns; } units[] = {
                { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
                { "s", NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
                { "h", 3600 * NSEC_PER_SEC },
        };
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (strcmp(unit, units[i].name) == 0)
                        return units[i].ns;
        return 0;
}

/* "500ms", "2s", "1min": a duration in nanoseconds; the unit is required. */
static inline bool workload_parse_duration(const char *s, int64_t *out)
{
        char *end;
        uint64_t v;
        if (!workload_parse_u64(s, &end, &v))
                return false;
        int64_t mult = workload_unit_ns(end);
        if (mult == 0 || v > (uint64_t)(INT64_MAX / mult))
                return false;
        *out = (int64_t)v * mult;
        return true;
}

static inline int64_t workload_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Summary of n latencies (any unit); sorts them in place. */
struct workload_latency {
        size_t n;
        double mean, p50, p90, p99, max;
};

static inline int workload_cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static inline double workload_percentile(const double *sorted, size_t n, double p)
{
        size_t i = (size_t)(p * (double)(n - 1) + 0.5);
        return sorted[i < n ? i : n - 1];
}

static inline struct workload_latency workload_latency_summary(double *lat, size_t n)
{
        struct workload_latency s = { .n = n };
        if (n == 0)
                return s;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += lat[i];
        qsort(lat, n, sizeof(*lat), workload_cmp_double);
        s.mean = sum / (double)n;
        s.p50 = workload_percentile(lat, n, 0.50);
        s.p90 = workload_percentile(lat, n, 0.90);
        s.p99 = workload_percentile(lat, n, 0.99);
        s.max = lat[n - 1];
        return s;
}
