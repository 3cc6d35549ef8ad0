/* tmp-tree.h — remove a unit test's temporary directory tree, without a
 * shell: the path is never word-split or globbed by sh, and a symlink in
 * the tree is removed, not followed (unlinkat(), O_NOFOLLOW). */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* name, relative to the directory dir_fd, and all below it. */
static inline int tmp_tree_remove_at(int dir_fd, const char *name)
{
        if (unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT)
                return 0;
        if (errno != EISDIR) {
                perror(name);
                return -1;
        }
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                perror(name);
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        int r = 0;
        for (struct dirent *e; (e = readdir(d));)
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                    tmp_tree_remove_at(dirfd(d), e->d_name) < 0)
                        r = -1;
        closedir(d);
        if (r == 0 && unlinkat(dir_fd, name, AT_REMOVEDIR) < 0) {
                perror(name);
                r = -1;
        }
        return r;
}

/* 0 when root and all below it are gone (or root never existed: a test
 * that failed before making it), -1 with what stayed printed. */
static inline int tmp_tree_remove(const char *root)
{
        return tmp_tree_remove_at(AT_FDCWD, root);
}
