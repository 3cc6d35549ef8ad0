/* forget.h — `memoptimizer forget`: remove what the daemon learnt. */
#pragma once

/* Remove the learnt state's file (and a set-aside learned.bad) from dir. A
 * running daemon watches the directory and forgets too. Returns an exit
 * status. */
int forget_main(const char *dir);
