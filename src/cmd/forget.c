/* `memoptimizer forget`: what the daemon learnt, removed. */
#include "forget.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "learn-file.h"

int forget_main(const char *dir)
{
        bool removed;
        int r = learn_remove(dir, &removed);
        if (r < 0) {
                fprintf(stderr, "memoptimizer: cannot remove %s/" LEARN_FILE ": %s\n", dir, strerror(-r));
                return 1;
        }
        if (removed)
                printf("removed %s/" LEARN_FILE ": a running daemon forgets too and learns afresh\n", dir);
        else
                printf("nothing to forget: no %s/" LEARN_FILE "\n", dir);
        return 0;
}
