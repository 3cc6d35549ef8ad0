#include "actuate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
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

int actuate_read_lowmem(const char *root, struct lowmem_ratio *out)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        ssize_t n = read_file_at(root, LOWMEM_PATH, &buf, &size);
        if (n < 0)
                return (int)n;
        return lowmem_ratio_parse(buf, out);
}

int actuate_write_lowmem(const char *root, const struct lowmem_ratio *v)
{
        char buf[LOWMEM_MAX_ZONES * 12 + 2];
        lowmem_ratio_format(v, buf, sizeof(buf));
        return write_text(root, LOWMEM_PATH, buf);
}

int actuate_restore_lowmem(const char *root, const struct lowmem_ratio *boot, const struct lowmem_ratio *ours,
                           bool *restored)
{
        struct lowmem_ratio now;
        *restored = false;
        int r = actuate_read_lowmem(root, &now);
        if (r < 0)
                return r;
        if (!lowmem_ratio_equal(&now, ours) || lowmem_ratio_equal(&now, boot))
                return 0;
        r = actuate_write_lowmem(root, boot);
        if (r == 0)
                *restored = true;
        return r;
}
