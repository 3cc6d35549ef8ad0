/* workload.h — what the benchmark's workload programs share: sizes with
 * K/M/G suffixes, 2 MiB-aligned anonymous mappings, and how much of the
 * process is backed by transparent huge pages. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_2M ((size_t)2 << 20)

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
