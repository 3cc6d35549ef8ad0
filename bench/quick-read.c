/* quick-read: what one check of free memory costs, each way the onset
 * watch could read it (issue 15 asked which is cheaper): sysinfo(2), the
 * first line of /proc/vmstat (nr_free_pages; the kernel still builds the
 * whole file for any read of it), and /proc/meminfo's first lines. Prints
 * CPU nanoseconds per call (CLOCK_PROCESS_CPUTIME_ID) over N calls of
 * each, back to back, and checks that every way read a number.
 *   usage: quick-read [N]      (default 100000) */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t by_sysinfo(int fd)
{
        (void)fd;
        struct sysinfo si;
        if (sysinfo(&si) < 0)
                return 0;
        return (uint64_t)si.freeram * si.mem_unit;
}

/* The first line of an open procfs file, re-read from offset 0. */
static uint64_t first_number(int fd)
{
        char buf[128];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        char *p = buf;
        while (*p && (*p < '0' || *p > '9'))
                p++;
        return strtoull(p, NULL, 10);
}

static void measure(const char *name, uint64_t (*fn)(int), int fd, long n)
{
        uint64_t v = 0;
        double t0 = cpu_ns();
        for (long i = 0; i < n; i++)
                v = fn(fd);
        double ns = (cpu_ns() - t0) / (double)n;
        printf("%-34s %8.0f ns per call  (last value %llu)\n", name, ns, (unsigned long long)v);
        if (v == 0)
                fprintf(stderr, "quick-read: %s read nothing\n", name);
}

int main(int argc, char **argv)
{
        long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
        int vm = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
        int mi = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
        if (n <= 0 || vm < 0 || mi < 0) {
                fprintf(stderr, "quick-read: %s\n", n <= 0 ? "N must be positive" : strerror(errno));
                return 1;
        }
        measure("sysinfo(2) freeram", by_sysinfo, -1, n);
        measure("/proc/vmstat nr_free_pages (pread)", first_number, vm, n / 10);
        measure("/proc/meminfo MemTotal (pread)", first_number, mi, n / 10);
        return 0;
}
