#include "learn-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

int learn_dir_resolve(const char *env, char *out, size_t size)
{
        if (!env || !*env)
                env = LEARN_DIR;
        size_t n = strcspn(env, ":");
        if (n >= size)
                return -ENAMETOOLONG;
        if (env[0] != '/')
                return -EINVAL;
        memcpy(out, env, n);
        out[n] = '\0';
        return 0;
}

/* What learn_load() asks of the directory and of the file: root's (the
 * daemon's; `status` reads it as any user) or the caller's, and writable by
 * nobody else: its numbers size the scale factor root writes. */
static int trusted(const struct stat *st, const char *path, char *err, size_t errsz)
{
        const char *what = S_ISDIR(st->st_mode) ? "directory " : "";
        if (st->st_uid != 0 && st->st_uid != geteuid()) {
                snprintf(err, errsz, "%s%s: owned by uid %lu, not root; refusing what another user can change (chown root %s)",
                         what, path, (unsigned long)st->st_uid, path);
                return -EPERM;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                snprintf(err, errsz, "%s%s: writable by %s (mode %04o); refusing what others can change (chmod go-w %s)",
                         what, path, st->st_mode & S_IWOTH ? "everyone" : "its group",
                         (unsigned)(st->st_mode & 07777), path);
                return -EPERM;
        }
        return 0;
}

/* The whole file, at most LEARN_TEXT_MAX bytes, into buf (LEARN_TEXT_MAX + 1). */
static ssize_t read_bounded(int fd, char *buf)
{
        size_t len = 0;
        while (len <= LEARN_TEXT_MAX) {
                ssize_t n = read(fd, buf + len, LEARN_TEXT_MAX + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        return len > LEARN_TEXT_MAX ? -EFBIG : (ssize_t)len;
}

static int open_checked(const char *dir, const char *path, char *err, size_t errsz)
{
        struct stat st;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fstat(dfd, &st) < 0) {
                int r = -errno;
                snprintf(err, errsz, "%s: %s", dir, strerror(-r));
                return r;
        }
        int r = trusted(&st, dir, err, errsz);
        if (r < 0)
                return r;
        /* O_NONBLOCK: a FIFO put there must not hang the daemon's start */
        int fd = openat(dfd, LEARN_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                snprintf(err, errsz, "%s: %s", path, r == -ELOOP ? file_strerror(r) : strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0) {
                r = -errno;
                snprintf(err, errsz, "%s: %s", path, strerror(-r));
        } else if (!S_ISREG(st.st_mode)) {
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
                snprintf(err, errsz, "%s: %s", path, file_strerror(r));
        } else if (st.st_size > LEARN_TEXT_MAX) {
                snprintf(err, errsz, "%s: longer than %d bytes", path, LEARN_TEXT_MAX);
                r = -EFBIG;
        } else {
                r = trusted(&st, path, err, errsz);
        }
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

int learn_load(const char *dir, struct learned *l, double wall_offset, char *err, size_t errsz)
{
        char path[PATH_MAX], line_err[256];
        learn_init(l);
        snprintf(err, errsz, "%s", "");
        if (snprintf(path, sizeof(path), "%s/" LEARN_FILE, dir) >= (int)sizeof(path)) {
                snprintf(err, errsz, "%s: %s", dir, strerror(ENAMETOOLONG));
                return -ENAMETOOLONG;
        }
        _cleanup_close_ int fd = open_checked(dir, path, err, errsz);
        if (fd < 0)
                return fd;
        _cleanup_free_ char *text = malloc(LEARN_TEXT_MAX + 1);
        if (!text)
                return -ENOMEM;
        ssize_t len = read_bounded(fd, text);
        if (len < 0) {
                if (len == -EFBIG)
                        snprintf(err, errsz, "%s: longer than %d bytes", path, LEARN_TEXT_MAX);
                else
                        snprintf(err, errsz, "%s: %s", path, strerror((int)-len));
                return (int)len;
        }
        int r = learn_parse(l, text, (size_t)len, wall_offset, line_err, sizeof(line_err));
        if (r < 0)
                snprintf(err, errsz, "%s:%s", path, line_err);
        return r;
}

int learn_save(const char *dir, const struct learned *l, double wall_offset)
{
        _cleanup_free_ char *text = NULL;
        int r = learn_format(l, wall_offset, &text);
        if (r < 0)
                return r;
        /* 0755 whatever the umask when we make it: `status` reads it as
         * any user */
        if (mkdir(dir, 0755) == 0)
                r = chmod(dir, 0755) < 0 ? -errno : 0;
        else if (errno != EEXIST)
                r = -errno;
        if (r < 0)
                return r;
        /* 0644 whatever the umask: `status` reads it as any user, nobody
         * else may write it. Durable: the next boot starts from it. */
        return write_file_atomic(dir, LEARN_FILE, text, strlen(text), 0644, true);
}

int learn_set_aside(const char *dir)
{
        char from[PATH_MAX], to[PATH_MAX];
        if (snprintf(from, sizeof(from), "%s/" LEARN_FILE, dir) >= (int)sizeof(from) ||
            snprintf(to, sizeof(to), "%s/" LEARN_FILE_BAD, dir) >= (int)sizeof(to))
                return -ENAMETOOLONG;
        /* rename(2) moves a symbolic link itself, never what it points to */
        return rename(from, to) < 0 ? -errno : 0;
}

int learn_remove(const char *dir, bool *removed)
{
        char path[PATH_MAX];
        *removed = false;
        if (snprintf(path, sizeof(path), "%s/" LEARN_FILE_BAD, dir) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        snprintf(path, sizeof(path), "%s/" LEARN_FILE, dir);
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        *removed = true;
        return 0;
}
