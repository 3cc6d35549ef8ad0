/* /proc/buddyinfo parser: any text is refused or parsed into a table the
 * rest of the daemon can index safely. */
#include "fuzz.h"
#include "sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_text(data, size);
        struct buddyinfo b;
        if (buddyinfo_parse(text, &b) == 0) {
                fuzz_check(b.nr_zones > 0 && b.zones);
                fuzz_check(b.nr_orders >= 1 && b.nr_orders <= ORDER_CAP);
                for (size_t i = 0; i < b.nr_zones; i++) {
                        fuzz_check(b.zones[i].node >= 0);
                        fuzz_check(memchr(b.zones[i].name, '\0', ZONE_NAME_MAX));
                        fuzz_check(b.zones[i].name[0] != '\0');
                }
                buddyinfo_free(&b);
        } else {
                fuzz_check(!b.zones && b.nr_zones == 0);
        }
        free(text);
        return 0;
}
