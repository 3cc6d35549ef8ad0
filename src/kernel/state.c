#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuate.h"
#include "fileio.h"
#include "process.h"
#include "util.h"

int state_save(const char *dir, long baseline, long written)
{
        char text[96];
        int n = snprintf(text, sizeof(text), "baseline=%ld\nwritten=%ld\npid=%ld\n", baseline, written,
                         (long)getpid());
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* 0644 whatever the umask: `status` reads it without root, and
         * nobody but us may write what `restore` will act on as root. Made
         * durable: after a crash, the next start acts on it. */
        return write_file_atomic(dir, STATE_FILE, text, (size_t)n, 0644, true);
}

/* A state file is at most this long. */
#define STATE_SIZE_MAX 256

struct state_values {
        long baseline, written;         /* WSF_MIN..WSF_MAX_ANY_KERNEL */
        long pid;                       /* of the daemon that wrote it */
};

/* Open dir/state for reading without following a symbolic link or
 * blocking on a FIFO; only a regular file that nobody else could have
 * written will do. */
static int open_state(const char *dir)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/" STATE_FILE, dir) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return -errno;
        struct stat st;
        int r = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : !S_ISREG(st.st_mode) ? -EINVAL : 0;
        /* root's (the daemon's; `status` reads it as any user) or ours */
        if (r == 0 && ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))))
                r = -EPERM;
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

/* One "key=value" line of the state file into *s. */
static int parse_line(char *line, struct state_values *s, unsigned *seen)
{
        static const char *const keys[] = { "baseline", "written", "pid" };
        char *eq = strchr(line, '=');
        if (!eq)
                return -EBADMSG;
        *eq = '\0';
        for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
                if (strcmp(line, keys[k]) != 0)
                        continue;
                if (*seen & (1u << k))
                        return -EBADMSG;        /* twice */
                *seen |= 1u << k;
                long v;
                int r = k == 2 ? parse_long(eq + 1, 1, PROCESS_PID_MAX, &v) :
                                 parse_long(eq + 1, WSF_MIN, WSF_MAX_ANY_KERNEL, &v);
                if (r == -ERANGE && k < 2)
                        return -ERANGE;
                if (r < 0)
                        return -EBADMSG;
                *(k == 0 ? &s->baseline : k == 1 ? &s->written : &s->pid) = v;
                return 0;
        }
        return -EBADMSG;
}

static int state_read(const char *dir, struct state_values *s)
{
        _cleanup_close_ int fd = open_state(dir);
        if (fd < 0)
                return fd;
        char text[STATE_SIZE_MAX + 1];
        ssize_t n;
        do
                n = read(fd, text, sizeof(text));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        /* whole lines, as state_save() writes them, and nothing more */
        if (n == 0 || (size_t)n > STATE_SIZE_MAX || text[n - 1] != '\n' || memchr(text, '\0', (size_t)n))
                return -EBADMSG;
        text[n] = '\0';
        unsigned seen = 0;
        *s = (struct state_values){ 0 };
        for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                *nl = '\0';
                int r = parse_line(line, s, &seen);
                if (r < 0)
                        return r;
        }
        return (seen & 3) == 3 ? 0 : -EBADMSG;
}

int state_load(const char *dir, long *baseline, long *written)
{
        struct state_values s = { 0 };
        int r = state_read(dir, &s);
        if (r == 0)
                *baseline = s.baseline, *written = s.written;
        return r;
}

const char *state_strerror(int err)
{
        switch (err) {
        case -EPERM:
                return "is owned by neither root nor this user, or others can write it";
        case -EBADMSG:
                return "is not in the format memoptimizer writes";
        case -ERANGE:
                return "records a scale factor outside " WSF_RANGE_TEXT ", which no kernel accepts";
        default:
                return file_strerror(err) ? file_strerror(err) : strerror(-err);
        }
}

int state_remove(const char *dir)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/" STATE_FILE, dir) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int state_restore(const char *root, const char *dir, long *baseline, bool *restored)
{
        long written = 0;
        *restored = false;
        int r = state_load(dir, baseline, &written);
        if (r == -ENOENT)
                return r;
        /* Only for a daemon that is gone: a running one holds the lock and
         * restores by itself when it stops. Read again under the lock: a
         * daemon that stopped meanwhile removed or rewrote the file. */
        _cleanup_close_ int lock = state_lock(dir);
        if (lock < 0)
                return lock == -EWOULDBLOCK ? -EBUSY : lock;
        r = state_load(dir, baseline, &written);
        if (r == 0)
                r = actuate_restore(root, *baseline, written, restored);
        /* A corrupt file cannot be acted on; a stale one is done with. What
         * is not a file of ours (a link, a directory) is left alone. */
        if (r == 0 || r == -EBADMSG || r == -ERANGE) {
                int e = state_remove(dir);
                if (r == 0)
                        r = e;
        }
        return r;
}

int state_lock(const char *dir)
{
        return lock_in_dir(dir, "lock", O_RDWR, 0600);
}
