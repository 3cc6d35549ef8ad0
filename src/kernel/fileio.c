#define _GNU_SOURCE /* mkostemp */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/statfs.h>
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

/* Read all of fd from offset 0 into *buf (NUL-terminated), growing it. */
static ssize_t read_whole(int fd, char **buf, size_t *size)
{
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
                /* /proc files must be read in one pass: a short read is not
                 * EOF. pread from 0 makes a held seq_file's text anew. */
                ssize_t n = pread(fd, *buf + len, *size - len - 1, (off_t)len);
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

/* The kernel makes these files' text anew at each read from offset 0, and
 * nothing renames or unlinks them: an fd may be kept. */
static bool kernel_made(int fd)
{
        struct statfs fs;
        return fstatfs(fd, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC);
}

/* The fd to read f's file through: the held one, or one opened now --
 * kept in f when the kernel makes the file, else returned in *once for
 * the caller to close. */
static int kfile_fd(struct kfile *f, const char *root, const char *path, int *once)
{
        *once = -1;
        if (f->fd >= 0)
                return f->fd;
        char full[PATH_MAX];
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;
        int fd = open(full, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (kernel_made(fd))
                return f->fd = fd;
        return *once = fd;
}

ssize_t kfile_read(struct kfile *f, const char *root, const char *path, char **buf, size_t *size)
{
        _cleanup_close_ int once = -1;
        int fd = kfile_fd(f, root, path, &once);
        if (fd < 0)
                return fd;
        ssize_t n = read_whole(fd, buf, size);
        if (n < 0)
                kfile_close(f);         /* the next read opens it again */
        return n;
}

int kfile_read_long(struct kfile *f, const char *root, const char *path, long *out)
{
        _cleanup_close_ int once = -1;
        int fd = kfile_fd(f, root, path, &once);
        if (fd < 0)
                return fd;
        /* a sysctl's value is one short line, read whole in one call */
        char buf[64];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n < 0) {
                int e = -errno;
                kfile_close(f);
                return e;
        }
        if (n == 0)
                return -ENODATA;
        buf[n] = '\0';
        return parse_long(buf, -0x7fffffffL, 0x7fffffffL, out);
}

void kfile_close(struct kfile *f)
{
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -1;
}

/* The one-shot reads: a kfile closed again at once. */
ssize_t read_file_at(const char *root, const char *path, char **buf, size_t *size)
{
        struct kfile f = KFILE_INIT;
        ssize_t n = kfile_read(&f, root, path, buf, size);
        kfile_close(&f);
        return n;
}

int read_long_at(const char *root, const char *path, long *out)
{
        struct kfile f = KFILE_INIT;
        int r = kfile_read_long(&f, root, path, out);
        kfile_close(&f);
        return r;
}

/* Give an fd just opened `mode` whatever the umask (as for a file that
 * already existed) and its exclusive flock(2) without waiting. Returns fd,
 * or a negative errno with fd closed. */
static int mode_and_lock(int fd, mode_t mode)
{
        if (fd < 0)
                return -errno;
        if (fchmod(fd, mode) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        return fd;
}

int dir_is_safe(const char *dir)
{
        struct stat st;
        if (stat(dir, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        return (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)) ? -EPERM : 0;
}

int lock_in_dir(const char *dir, const char *name, int open_flags, mode_t mode)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        int r = dir_is_safe(dir);
        if (r < 0)
                return r;
        int fd = open(path, open_flags | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_uid != geteuid() || (st.st_mode & 07777 & ~mode))) {
                /* Another user's, or looser than `mode` (an older version's
                 * 0644): whoever opened it then may hold it open still and
                 * take the lock, so a new file replaces it. */
                close(fd);
                if (unlink(path) < 0)
                        return -errno;
                fd = open(path, open_flags | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        }
        return mode_and_lock(fd, mode);
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

int file_create_locked(const char *path, mode_t mode)
{
        /* O_EXCL: never an existing file, and no symbolic link followed */
        return mode_and_lock(open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode),
                             mode);
}

/* Why an existing file at path is not one this process may treat as its
 * own: 0, or the negative errno file_lock_own() documents. */
static int not_own(const struct stat *st)
{
        if (S_ISLNK(st->st_mode))
                return -ELOOP;
        if (S_ISDIR(st->st_mode))
                return -EISDIR;
        if (!S_ISREG(st->st_mode))
                return -EINVAL;
        if (st->st_uid != geteuid())
                return -EPERM;
        return st->st_nlink != 1 ? -EMLINK : 0;
}

int file_lock_own(const char *path)
{
        struct stat before, st;
        if (lstat(path, &before) < 0)
                return -errno;
        int r = not_own(&before);
        if (r < 0)
                return r;
        /* O_NONBLOCK: should it have become a FIFO meanwhile, no waiting */
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (st.st_dev != before.st_dev || st.st_ino != before.st_ino)
                r = -EAGAIN;    /* replaced between the two looks */
        else
                r = not_own(&st);
        if (r == 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

const char *file_strerror(int err)
{
        switch (err) {
        case -ELOOP:
                return "is a symbolic link, which is not followed";
        case -EISDIR:
                return "is a directory";
        case -EINVAL:
                return "is not a regular file";
        case -EMLINK:
                return "has other hard links";
        default:
                return NULL;
        }
}

int file_same(const char *path, int fd)
{
        struct stat a, b;
        if (lstat(path, &a) < 0 || fstat(fd, &b) < 0)
                return -errno;
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 0 : -ESTALE;
}
