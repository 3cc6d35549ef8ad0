/* fileio.h — the kernel side's file primitives: reading a small /proc or
 * /sys file whole, reading one integer from a sysctl-like file, writing a
 * file atomically, and taking a lock file. Paths of kernel files are below a
 * root prefix ("" for the real system) so tests can use fixture trees. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Join root and path into out (PATH_MAX). Returns 0 or -ENAMETOOLONG. */
int path_join(char *out, size_t outsz, const char *root, const char *path);

/* Read the file at root + path (root may be NULL or "" for "/") into a
 * NUL-terminated buffer of *size bytes, growing *buf as needed.
 * Returns the number of bytes read, or a negative errno. */
ssize_t read_file_at(const char *root, const char *path, char **buf, size_t *size);

/* Read a single integer from a sysctl-like file at root + path. */
int read_long_at(const char *root, const char *path, long *out);

/* A kernel file read every cycle. On procfs and sysfs its fd is kept and
 * read again from offset 0 (the kernel makes the text anew): no open,
 * path walk and close each time. Anywhere else (a fixture tree, whose
 * files tests replace) it is opened for each read. Start with
 * KFILE_INIT; kfile_close() when done. */
struct kfile {
        int fd;
};
#define KFILE_INIT ((struct kfile){ .fd = -1 })

/* What read_file_at() and read_long_at() do (they are these on a kfile
 * closed at once), through f. A failed read closes a kept fd: the next
 * read opens the file again. */
ssize_t kfile_read(struct kfile *f, const char *root, const char *path, char **buf, size_t *size);
int kfile_read_long(struct kfile *f, const char *root, const char *path, long *out);
void kfile_close(struct kfile *f);

/* 0 when dir is a directory owned by root or by this process's user that
 * neither its group nor others can write: nobody else can put a file in
 * it or take one away. -EPERM when not; -ENOTDIR; -ENOENT. */
int dir_is_safe(const char *dir);

/* Take an exclusive flock(2) on dir/name without waiting, creating dir
 * (0755) and the file (`mode`, whatever the umask) as needed. dir must be
 * safe (dir_is_safe()); a lock file of another user's or with a looser
 * mode is replaced by a new one. Returns the fd to keep open, or a
 * negative errno: -EWOULDBLOCK when another process holds it, -EPERM when
 * dir is not safe. */
int lock_in_dir(const char *dir, const char *name, int open_flags, mode_t mode);

/* Replace dir/name with `len` bytes of data, atomically for readers: written
 * to a temporary file in the same directory (whose name does not end like
 * `name`), given `mode`, then renamed over `name`. With `durable` the data
 * is fsync()ed before the rename (a file a restart acts on); without, readers
 * get the newest state and nothing more. Returns 0 or a negative errno. */
int write_file_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode,
                      bool durable);

/* Files written by root into places others may share (a trace named by the
 * configuration), so never through a planted symbolic link, never another's
 * file. */

/* Create path anew, `mode` whatever the umask: an existing file (-EEXIST)
 * or symbolic link (-EEXIST, not followed) is never opened. Takes an
 * exclusive flock(2) on it at once. Returns the write-only fd. */
int file_create_locked(const char *path, mode_t mode);

/* Open an existing path that this process may treat as its own and take
 * its exclusive flock(2) without waiting. Returns a read-only fd, or
 * -ENOENT; -ELOOP: a symbolic link (not followed); -EISDIR; -EINVAL: not a
 * regular file; -EPERM: another user's; -EMLINK: it has other hard links;
 * -EWOULDBLOCK: another process holds its lock; -EAGAIN: it was replaced
 * while being opened. */
int file_lock_own(const char *path);

/* What file_lock_own()'s -ELOOP, -EISDIR, -EINVAL and -EMLINK say about
 * the file, as the words after its name ("is a directory"); NULL for other
 * errors. */
const char *file_strerror(int err);

/* 0 when path (not followed) is still the file open as fd; -ESTALE when
 * something else is there now. */
int file_same(const char *path, int fd);
