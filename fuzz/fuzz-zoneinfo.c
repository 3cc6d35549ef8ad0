/* /proc/zoneinfo parser: any text is refused or parsed into zones that
 * each carry the fields the daemon needs. */
#include "fuzz.h"
#include "sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_text(data, size);
        struct zoneinfo z;
        if (zoneinfo_parse(text, &z) == 0) {
                fuzz_check(z.nr_zones > 0 && z.zones);
                for (size_t i = 0; i < z.nr_zones; i++) {
                        fuzz_check(z.zones[i].node >= 0);
                        fuzz_check(memchr(z.zones[i].name, '\0', ZONE_NAME_MAX));
                }
                zoneinfo_free(&z);
        } else {
                fuzz_check(!z.zones && z.nr_zones == 0);
        }
        free(text);
        return 0;
}
