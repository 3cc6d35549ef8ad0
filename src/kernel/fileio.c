#define _GNU_SOURCE /* mkostemp */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

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

int read_long_at(const char *root, const char *path, long *out)
{
        char buf[64], full[4096];
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;
        _cleanup_fclose_ FILE *f = fopen(full, "re");
        if (!f)
                return -errno;
        if (!fgets(buf, sizeof(buf), f))
                return ferror(f) ? -EIO : -ENODATA;
        /* cppcheck-suppress resourceLeak ; f is closed by _cleanup_fclose_ */
        return parse_long(buf, -0x7fffffffL, 0x7fffffffL, out);
}

int lock_in_dir(const char *dir, const char *name, int open_flags, mode_t mode)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        int fd = open(path, open_flags | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return -errno;
        /* the mode whatever the umask, as for a file that already existed */
        if (fchmod(fd, mode) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        return fd;
}

int write_file_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode,
                      bool durable)
{
        char path[PATH_MAX], tmp[PATH_MAX];
        /* ".name.XXXXXX": hidden, and never matches a reader's "*.prom". */
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
            snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        const char *p = data;
        int r = fchmod(fd, mode) < 0 ? -errno : 0;
        while (r == 0 && len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        r = -errno;
                else
                        p += n, len -= (size_t)n;
        }
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}
