#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int path_join(char *out, size_t outsz, const char *root, const char *path)
{
        int n = snprintf(out, outsz, "%s%s", root ? root : "", path);
        if (n < 0 || (size_t)n >= outsz)
                return -ENAMETOOLONG;
        return 0;
}

ssize_t read_file_at(const char *root, const char *path, char **buf, size_t *size)
{
        char full[PATH_MAX];
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;

        _cleanup_close_ int fd = open(full, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;

        size_t len = 0;
        for (;;) {
                if (!*buf || *size - len < 2) {
                        size_t nsz = *size ? *size * 2 : 16384;
                        char *nb = realloc(*buf, nsz);
                        if (!nb)
                                return -ENOMEM;
                        *buf = nb;
                        *size = nsz;
                }
                /* /proc files must be read in one pass: a short read is not EOF. */
                ssize_t n = read(fd, *buf + len, *size - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        (*buf)[len] = '\0';
        return (ssize_t)len;
}

int parse_long(const char *s, long min, long max, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s)
                return -EINVAL;
        while (*end == ' ' || *end == '\t' || *end == '\n')
                end++;
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}
