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
static int open_state(const char *dir, const char *name)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
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

/* dir/name whole into text (STATE_SIZE_MAX + 1), NUL-terminated: whole
 * lines, as the save functions write them, and nothing more. */
static int read_lines(const char *dir, const char *name, char *text)
{
        _cleanup_close_ int fd = open_state(dir, name);
        if (fd < 0)
                return fd;
        ssize_t n;
        do
                n = read(fd, text, STATE_SIZE_MAX + 1);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if (n == 0 || (size_t)n > STATE_SIZE_MAX || text[n - 1] != '\n' || memchr(text, '\0', (size_t)n))
                return -EBADMSG;
        text[n] = '\0';
        return 0;
}

static int state_read(const char *dir, struct state_values *s)
{
        char text[STATE_SIZE_MAX + 1];
        int r = read_lines(dir, STATE_FILE, text);
        if (r < 0)
                return r;
        unsigned seen = 0;
        *s = (struct state_values){ 0 };
        for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                *nl = '\0';
                r = parse_line(line, s, &seen);
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

static int remove_file(const char *dir, const char *name)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int state_remove(const char *dir)
{
        return remove_file(dir, STATE_FILE);
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

int state_save_lowmem(const char *dir, const struct lowmem_ratio *boot, const struct lowmem_ratio *written)
{
        char b[LOWMEM_MAX_ZONES * 12 + 2], w[sizeof(b)], text[2 * sizeof(b) + 64];
        lowmem_ratio_format(boot, b, sizeof(b));
        lowmem_ratio_format(written, w, sizeof(w));
        int n = snprintf(text, sizeof(text), "boot=%swritten=%spid=%ld\n", b, w, (long)getpid());
        if (n < 0 || (size_t)n >= sizeof(text) || (size_t)n > STATE_SIZE_MAX)
                return -ENAMETOOLONG;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic(dir, STATE_LOWMEM_FILE, text, (size_t)n, 0644, true);
}

int state_load_lowmem(const char *dir, struct lowmem_ratio *boot, struct lowmem_ratio *written)
{
        char text[STATE_SIZE_MAX + 1];
        int r = read_lines(dir, STATE_LOWMEM_FILE, text);
        if (r < 0)
                return r;
        struct lowmem_ratio v[2];
        unsigned seen = 0;
        for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                *nl = '\0';
                char *eq = strchr(line, '=');
                if (!eq)
                        return -EBADMSG;
                *eq = '\0';
                unsigned k = strcmp(line, "boot") == 0 ? 0 : strcmp(line, "written") == 0 ? 1 :
                             strcmp(line, "pid") == 0 ? 2 : 3;
                if (k == 3 || (seen & (1u << k)))
                        return -EBADMSG;
                seen |= 1u << k;
                long pid;
                if (k == 2 ? parse_long(eq + 1, 1, PROCESS_PID_MAX, &pid) < 0 :
                             lowmem_ratio_parse(eq + 1, &v[k]) < 0)
                        return -EBADMSG;
        }
        if (seen != 7 || v[0].n != v[1].n)
                return -EBADMSG;
        *boot = v[0];
        *written = v[1];
        return 0;
}

int state_remove_lowmem(const char *dir)
{
        return remove_file(dir, STATE_LOWMEM_FILE);
}

int state_restore_lowmem_held(const char *root, const char *dir, bool *restored)
{
        struct lowmem_ratio boot, written;
        *restored = false;
        int r = state_load_lowmem(dir, &boot, &written);
        if (r == 0)
                r = actuate_restore_lowmem(root, &boot, &written, restored);
        if (r == 0 || r == -EBADMSG) {
                int e = state_remove_lowmem(dir);
                if (r == 0)
                        r = e;
        }
        return r;
}

int state_restore_lowmem(const char *root, const char *dir, bool *restored)
{
        struct lowmem_ratio boot, written;
        *restored = false;
        int r = state_load_lowmem(dir, &boot, &written);
        if (r == -ENOENT)
                return r;
        _cleanup_close_ int lock = state_lock(dir);
        if (lock < 0)
                return lock == -EWOULDBLOCK ? -EBUSY : lock;
        return state_restore_lowmem_held(root, dir, restored);
}

int state_lock(const char *dir)
{
        return lock_in_dir(dir, "lock", O_RDWR, 0600);
}
