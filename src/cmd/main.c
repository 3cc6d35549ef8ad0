/* memoptimizer — forecasts free-memory exhaustion and fragmentation and
 * moves vm.watermark_scale_factor and triggers compaction ahead of it.
 * This file: the command line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config.h"
#include "daemon.h"
#include "log.h"
#include "loop.h"
#include "record.h"
#include "replay.h"
#include "privilege.h"
#include "restore.h"
#include "state.h"
#include "status.h"
#include "util.h"

static void usage(FILE *out)
{
        fprintf(out,
                "Usage: memoptimizer [OPTIONS]            run in the foreground\n"
                "       memoptimizer status [--json] [-c FILE]\n"
                "                                         show the memory state, the baseline and the daemon's view\n"
                "       memoptimizer restore              put back the baseline a stopped daemon left\n"
                "       memoptimizer --check-config [-c FILE]\n"
                "       memoptimizer record [-o FILE|--output=FILE] [--interval=D] [--duration=D]\n"
                "                                         write a trace of the memory state, no root needed\n"
                "       memoptimizer replay FILE [-c FILE|--config=FILE] [--score] [--csv]\n"
                "                                         what the daemon would have done on a trace\n"
                "\n"
                "Forecasts free-memory exhaustion and fragmentation a few seconds ahead and\n"
                "moves vm.watermark_scale_factor and triggers compaction before allocations stall.\n"
                "\n"
                "Options:\n"
                "  -c, --config=FILE     configuration file (default " CONFIG_DEFAULT_PATH ")\n"
                "  -n, --dry-run         decide and log, never write to the kernel\n"
                "  -i, --interval=D      sampling interval with a unit, e.g. 500ms (" CONFIG_INTERVAL_RANGE ")\n"
                "  -v, --verbose         log at debug level\n"
                "      --record=FILE     also write a trace of samples and decisions to FILE\n"
                "      --check-config    validate the configuration and exit\n"
                "      --json            with status: one JSON document (docs/status-json.md)\n"
                "  -h, --help            show this help and exit\n"
                "  -V, --version         show the version and exit\n"
                "\n"
                "Configuration keys (memoptimizer.conf(5)):");
        for (const char *const *k = config_keys(); *k; k++)
                fprintf(out, " %s", *k);
        fprintf(out, "\n\nSee memoptimizer(8).\n");
}

struct cli {
        struct daemon_options opt;
        bool check_config, status, restore, json;
};

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct cli *c)
{
        enum { OPT_CHECK = 0x100, OPT_RECORD, OPT_JSON };
        static const struct option longopts[] = {
                { "config", required_argument, NULL, 'c' },
                { "dry-run", no_argument, NULL, 'n' },
                { "interval", required_argument, NULL, 'i' },
                { "verbose", no_argument, NULL, 'v' },
                { "check-config", no_argument, NULL, OPT_CHECK },
                { "record", required_argument, NULL, OPT_RECORD },
                { "json", no_argument, NULL, OPT_JSON },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int ch;
        while ((ch = getopt_long(argc, argv, "c:ni:vhV", longopts, NULL)) != -1) {
                switch (ch) {
                case 'c':
                        c->opt.config_path = optarg;
                        c->opt.config_must_exist = true;
                        break;
                case 'n':
                        c->opt.force_dry_run = true;
                        break;
                case 'i':
                        if (config_parse_interval(optarg, &c->opt.interval_override) < 0) {
                                fprintf(stderr, "memoptimizer: invalid --interval '%s'; allowed: " CONFIG_INTERVAL_RANGE ", with a unit (ms, s, min)\n", optarg);
                                return 1;
                        }
                        break;
                case 'v':
                        c->opt.force_debug = true;
                        break;
                case OPT_CHECK:
                        c->check_config = true;
                        break;
                case OPT_RECORD:
                        if (!*optarg || strlen(optarg) >= CONFIG_PATH_MAX) {
                                fprintf(stderr, "memoptimizer: invalid --record '%s'; a file name\n", optarg);
                                return 1;
                        }
                        c->opt.record_override = optarg;
                        break;
                case OPT_JSON:
                        c->json = true;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                case 'V':
                        printf("memoptimizer " PACKAGE_VERSION "\n");
                        return 0;
                default:
                        fprintf(stderr, "Try 'memoptimizer --help'.\n");
                        return 1;
                }
        }
        if (optind < argc && strcmp(argv[optind], "status") == 0) {
                c->status = true;
                optind++;
        } else if (optind < argc && strcmp(argv[optind], "restore") == 0) {
                c->restore = true;
                optind++;
        }
        if (optind < argc) {
                fprintf(stderr, "memoptimizer: unexpected argument '%s'\nTry 'memoptimizer --help'.\n", argv[optind]);
                return 1;
        }
        if (c->json && !c->status) {
                fprintf(stderr, "memoptimizer: --json goes with status only\nTry 'memoptimizer --help'.\n");
                return 1;
        }
        return -1;
}

int main(int argc, char **argv)
{
        /* Before anything can change the sysctl: a stop signal from now on
         * waits for the loop, which restores (loop.h). */
        struct loop_signals signals;
        loop_signals_take(&signals);
        /* Subcommands with options of their own. */
        if (argc > 1 && strcmp(argv[1], "record") == 0)
                return record_main(argc - 1, argv + 1);
        if (argc > 1 && strcmp(argv[1], "replay") == 0) {
                loop_signals_give_back(&signals);
                return replay_main(argc - 1, argv + 1);
        }
        const char *rt = getenv("RUNTIME_DIRECTORY");   /* set by systemd's RuntimeDirectory= */
        struct cli c = { .opt = {
                .config_path = CONFIG_DEFAULT_PATH, .root = "",
                .state_dir = rt && *rt ? rt : STATE_DIR,
        } };
        int r = parse_args(argc, argv, &c);
        if (r >= 0)
                return r;
        if (c.status)
                loop_signals_give_back(&signals);

        /* Nothing memoptimizer does needs a capability (see privilege.h). */
        r = privilege_drop();
        if (r < 0) {
                fprintf(stderr, "memoptimizer: cannot drop capabilities: %s\n", strerror(-r));
                return 2;
        }
        if (c.restore)
                return restore_main(c.opt.root, c.opt.state_dir);

        struct config cfg;
        char err[ERR_MSG_MAX];
        config_defaults(&cfg);
        if (config_load(&cfg, c.opt.config_path, c.opt.config_must_exist, err, sizeof(err)) < 0) {
                fprintf(stderr, "memoptimizer: %s\n", err);
                return 1;
        }
        if (c.check_config) {
                printf("%s: valid\n", c.opt.config_path);
                return 0;
        }
        if (c.status)
                return status_print(stdout, c.opt.root, c.opt.state_dir, &cfg, c.json);

        daemon_apply_overrides(&c.opt, &cfg);
        struct logger log;
        log_init(&log, cfg.log_level);
        return daemon_run(&c.opt, &cfg, &log);
}
