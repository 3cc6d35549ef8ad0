#include "actuate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"
#include "util.h"

static int write_text(const char *root, const char *path, const char *text)
{
        char full[PATH_MAX];
        int r = path_join(full, sizeof(full), root, path);
        if (r < 0)
                return r;
        /* No O_CREAT: a missing sysctl is an error, not a file to make. */
        _cleanup_close_ int fd = open(full, O_WRONLY | O_CLOEXEC | O_TRUNC);
        if (fd < 0)
                return -errno;
        size_t len = strlen(text);
        ssize_t n;
        do
                n = write(fd, text, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return (size_t)n == len ? 0 : -EIO;
}

int actuate_write_wsf(const char *root, long wsf)
{
        char buf[32];
        snprintf(buf, sizeof(buf), "%ld\n", wsf);
        return write_text(root, WSF_PATH, buf);
}

int actuate_probe(const char *root, long current)
{
        return actuate_write_wsf(root, current);
}

bool actuate_denied(int err)
{
        return err == -EACCES || err == -EPERM || err == -EROFS;
}

int actuate_compact_node(const char *root, int node, bool *all)
{
        char path[64];
        snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact", node);
        *all = false;
        int r = write_text(root, path, "1\n");
        if (r != -ENOENT)
                return r;
        *all = true;
        return write_text(root, COMPACT_ALL_PATH, "1\n");
}

int actuate_restore(const char *root, long baseline, long ours, bool *restored)
{
        long now;
        *restored = false;
        int r = read_long_at(root, WSF_PATH, &now);
        if (r < 0)
                return r;
        if (now != ours || now == baseline)
                return 0;
        r = actuate_write_wsf(root, baseline);
        if (r == 0)
                *restored = true;
        return r;
}

int actuate_state_save(const char *dir, long baseline, long written)
{
        char path[PATH_MAX], tmp[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/" STATE_FILE, dir) >= (int)sizeof(path) ||
            snprintf(tmp, sizeof(tmp), "%s/." STATE_FILE ".tmp", dir) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* 0644 whatever the umask: `status` reads it without root, and
         * nobody but us may write what `restore` will act on as root. */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        _cleanup_fclose_ FILE *f = fdopen(fd, "we");
        if (!f || fchmod(fd, 0644) < 0) {
                int e = -errno;
                if (!f)
                        close(fd);
                unlink(tmp);
                return e;
        }
        fprintf(f, "baseline=%ld\nwritten=%ld\npid=%ld\n", baseline, written, (long)getpid());
        if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
                int e = -errno;
                unlink(tmp);
                return e;
        }
        if (rename(tmp, path) < 0) {
                int e = -errno;
                unlink(tmp);
                return e;
        }
        return 0;
}

int actuate_state_load(const char *dir, long *baseline, long *written)
{
        char path[PATH_MAX], line[128];
        if (snprintf(path, sizeof(path), "%s/" STATE_FILE, dir) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        /* A file somebody else could have written is not acted on: it must
         * be root's (the daemon's; `status` reads it as any user) or ours. */
        struct stat st;
        if (fstat(fileno(f), &st) < 0)
                return -errno;
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
                return -EPERM;
        bool got_b = false, got_w = false;
        while (fgets(line, sizeof(line), f)) {
                long v;
                char *eq = strchr(line, '=');
                if (!eq || parse_long(eq + 1, 0, 100000, &v) < 0)
                        return -EBADMSG;
                *eq = '\0';
                if (strcmp(line, "baseline") == 0)
                        *baseline = v, got_b = true;
                else if (strcmp(line, "written") == 0)
                        *written = v, got_w = true;
        }
        return got_b && got_w ? 0 : -EBADMSG;
}

int actuate_state_remove(const char *dir)
{
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/" STATE_FILE, dir) >= (int)sizeof(path))
                return -ENAMETOOLONG;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int actuate_restore_from_state(const char *root, const char *dir, long *baseline, bool *restored)
{
        long written = 0;
        *restored = false;
        int r = actuate_state_load(dir, baseline, &written);
        if (r == -ENOENT)
                return r;
        if (r == 0)
                r = actuate_restore(root, *baseline, written, restored);
        /* A corrupt file cannot be acted on; a stale one is done with. */
        if (r == 0 || r == -EBADMSG) {
                int e = actuate_state_remove(dir);
                if (r == 0)
                        r = e;
        }
        return r;
}

int actuate_lock(const char *dir)
{
        return lock_in_dir(dir, "lock", O_RDWR, 0600);
}
