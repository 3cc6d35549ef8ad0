#include "privilege.h"

#include <errno.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "util.h"

static void cap_freep(cap_t *c)
{
        if (*c)
                cap_free(*c);
}

int privilege_drop(void)
{
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        _cleanup_(cap_freep) cap_t none = cap_init();
        _cleanup_(cap_freep) cap_t now = cap_get_proc();
        if (!none || !now)
                return -errno;
        if (cap_compare(now, none) == 0)
                return 0;
        /* The bounding set first: dropping from it needs CAP_SETPCAP, which
         * cap_set_proc() below gives up. Without it (not root) there is
         * nothing to gain from the bounding set: no_new_privs is set. */
        cap_flag_value_t setpcap = CAP_CLEAR;
        if (cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap) < 0)
                return -errno;
        for (cap_value_t c = 0; setpcap == CAP_SET && c < cap_max_bits(); c++)
                if (cap_get_bound(c) > 0 && cap_drop_bound(c) < 0)
                        return -errno;
        if (cap_reset_ambient() < 0 || cap_set_proc(none) < 0)
                return -errno;
        return 0;
}
