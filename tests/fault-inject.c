/* fault-inject.c — an LD_PRELOAD shim for the fault-injection tests: it
 * makes the real daemon meet the failures of a real machine without
 * changing the machine.
 *
 *   MEMOPTIMIZER_FAULT_WRITE=PATH:ERRNO  opening PATH for writing fails with
 *                                        ERRNO (a number: 1 EPERM, 13 EACCES,
 *                                        30 EROFS)
 *   MEMOPTIMIZER_FAULT_REDIRECT=PATH=OTHER[;PATH=OTHER...]
 *                                        opening PATH for reading opens OTHER
 *                                        (which the test empties, truncates,
 *                                        garbles or removes)
 *
 * Only open()/open64() are wrapped: the daemon reads /proc files and writes
 * the sysctl and compaction triggers with them. Load it only into binaries
 * built without ASan (ASan's runtime must come first). */
/* Both symbols are defined below: keep the headers from renaming open. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);

/* Does env (a list of KEY SEP VALUE entries split by ';') name path? Copies
 * its value into out. */
static int lookup(const char *env, const char *path, char sep, char *out, size_t outsz)
{
        const char *v = getenv(env);
        size_t plen = strlen(path);
        while (v && *v) {
                const char *end = strchr(v, ';');
                size_t len = end ? (size_t)(end - v) : strlen(v);
                if (len > plen && strncmp(v, path, plen) == 0 && v[plen] == sep &&
                    len - plen - 1 < outsz) {
                        memcpy(out, v + plen + 1, len - plen - 1);
                        out[len - plen - 1] = '\0';
                        return 1;
                }
                v = end ? end + 1 : NULL;
        }
        return 0;
}

static int wrapped(const char *sym, const char *path, int flags, mode_t mode)
{
        open_fn real = (open_fn)dlsym(RTLD_NEXT, sym);
        char other[4096];
        if ((flags & O_ACCMODE) != O_RDONLY) {
                if (lookup("MEMOPTIMIZER_FAULT_WRITE", path, ':', other, sizeof(other))) {
                        errno = atoi(other);
                        return -1;
                }
        } else if (lookup("MEMOPTIMIZER_FAULT_REDIRECT", path, '=', other, sizeof(other))) {
                path = other;
        }
        return real(path, flags, mode);
}

/* open() and open64() are the same call under two names. */
#define WRAP(name)                                                              \
        int name(const char *path, int flags, ...)                              \
        {                                                                       \
                va_list ap;                                                     \
                va_start(ap, flags);                                            \
                mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0; \
                va_end(ap);                                                     \
                return wrapped(#name, path, flags, mode);                       \
        }

WRAP(open)
WRAP(open64)
