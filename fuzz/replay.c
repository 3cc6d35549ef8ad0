/* Runs a harness over files and directories of inputs, as libFuzzer would
 * replay a corpus, for builds without libFuzzer (gcc, CI): every input is
 * passed to LLVMFuzzerTestOneInput() once. A sanitizer report or a broken
 * invariant aborts; an empty corpus is a failure too (the test would prove
 * nothing). */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "fileio.h"
#include "util.h"

static int run_file(const char *path)
{
        char *buf = NULL;
        size_t size = 0;
        ssize_t n = read_file_at(NULL, path, &buf, &size);
        if (n < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror((int)-n));
                free(buf);
                return -1;
        }
        LLVMFuzzerTestOneInput((const uint8_t *)buf, (size_t)n);
        free(buf);
        return 1;
}

static int run_path(const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        if (!S_ISDIR(st.st_mode))
                return run_file(path);
        DIR *d = opendir(path);
        if (!d) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        int count = 0;
        const struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char full[4096];
                snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
                int r = run_file(full);
                if (r < 0) {
                        count = -1;
                        break;
                }
                count += r;
        }
        closedir(d);
        return count;
}

int main(int argc, char **argv)
{
        int total = 0;
        for (int i = 1; i < argc; i++) {
                int r = run_path(argv[i]);
                if (r < 0)
                        return 1;
                total += r;
        }
        printf("%d inputs, no crash\n", total);
        return total > 0 ? 0 : 1;
}
