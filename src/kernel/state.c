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

int state_load(const char *dir, long *baseline, long *written)
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
        if (r == 0)
                r = actuate_restore(root, *baseline, written, restored);
        /* A corrupt file cannot be acted on; a stale one is done with. */
        if (r == 0 || r == -EBADMSG) {
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
