#include "thp.h"

#include <unistd.h>

#include "engine.h"
#include "fileio.h"

long thp_pmd_size(const char *root)
{
        long pmd;
        return read_long_at(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &pmd) == 0 ? pmd : 0;
}

unsigned resolve_max_order(const char *root, int configured, unsigned nr_orders)
{
        long pmd = configured == ENGINE_ORDER_AUTO ? thp_pmd_size(root) : 0;
        return engine_max_order(configured, nr_orders, sysconf(_SC_PAGESIZE), pmd);
}
