/* floor: what any 1 s sampler of these files costs on this machine. Wakes
 * every second from a timerfd, as the daemon's event loop does, and reads
 * each file given (whole, no parsing), then sleeps again. Its CPU time,
 * measured from outside (bench/daemon-cost), is the floor under the
 * daemon's cost per cycle.   usage: floor FILE...
 * Writes nothing; runs until killed. */
#include <fcntl.h>
#include <unistd.h>

#include "tick.h"

static char buf[1 << 16];

static void slurp(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        close(fd);
}

static void slurp_all(void *arg)
{
        for (char **path = arg; *path; path++)
                slurp(*path);
}

int main(int argc, char **argv)
{
        (void)argc;
        return tick_run("floor", 1000, slurp_all, argv + 1);
}
