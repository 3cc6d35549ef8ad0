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
#include "forget.h"
#include "learn-file.h"
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
                "                                         show the memory state, the baseline, the daemon's view and what it learnt\n"
                "       memoptimizer restore              put back the baseline a stopped daemon left\n"
                "       memoptimizer forget               remove what the daemon learnt; it learns afresh\n"
                "       memoptimizer --check-config [-c FILE]\n"
                "       memoptimizer record [-o FILE|--output=FILE] [--interval=D] [--duration=D]\n"
                "                                         write a trace of the memory state, no root needed\n"
                "       memoptimizer replay FILE [-c FILE|--config=FILE] [--learned=DIR] [--score] [--csv]\n"
                "                                         what the daemon would have done on a trace\n"
                "A command (status, restore, forget, record, replay) is the first argument, its options\n"
                "follow it; a command's name anywhere else is refused.\n"
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
                "                        (an absolute name; an earlier trace there moves to FILE.1)\n"
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

enum command { CMD_DAEMON, CMD_STATUS, CMD_RESTORE, CMD_FORGET };

/* The words that name a command; one must come first on the line. */
static const char *const command_words[] = { "status", "restore", "forget", "record", "replay", NULL };

struct cli {
        enum command cmd;
        struct daemon_options opt;
        bool check_config, json;
};

enum { OPT_CHECK = 0x100, OPT_RECORD, OPT_JSON };
#define OPT_CONFIG { "config", required_argument, NULL, 'c' }
#define OPT_HELP { "help", no_argument, NULL, 'h' }
static const struct option daemon_opts[] = {
        OPT_CONFIG,
        { "dry-run", no_argument, NULL, 'n' },
        { "interval", required_argument, NULL, 'i' },
        { "verbose", no_argument, NULL, 'v' },
        { "check-config", no_argument, NULL, OPT_CHECK },
        { "record", required_argument, NULL, OPT_RECORD },
        OPT_HELP,
        { "version", no_argument, NULL, 'V' },
        {}
};
static const struct option status_opts[] = { OPT_CONFIG, { "json", no_argument, NULL, OPT_JSON }, OPT_HELP, {} };
static const struct option restore_opts[] = { OPT_HELP, {} };    /* restore's and forget's */

/* Each command's options; "+": the first word that is not an option ends
 * them, and is refused below. */
static const struct {
        const char *shortopts;
        const struct option *longopts;
} cmd_opts[] = {
        [CMD_DAEMON] = { "+c:ni:vhV", daemon_opts },
        [CMD_STATUS] = { "+c:h", status_opts },
        [CMD_RESTORE] = { "+h", restore_opts },
        [CMD_FORGET] = { "+h", restore_opts },
};

static bool is_command_word(const char *w)
{
        for (const char *const *c = command_words; *c; c++)
                if (strcmp(w, *c) == 0)
                        return true;
        return false;
}

/* --record: what `record =` in the file accepts, an absolute name. */
static int set_record(struct cli *c, const char *path)
{
        if (path[0] != '/' || strlen(path) >= CONFIG_PATH_MAX) {
                fprintf(stderr, "memoptimizer: invalid --record '%s'; an absolute file name\n", path);
                return 1;
        }
        c->opt.record_override = path;
        return -1;
}

/* One option; -1 to go on, else an exit status. */
static int take_option(struct cli *c, int ch)
{
        switch (ch) {
        case 'c':
                c->opt.config_path = optarg;
                c->opt.config_must_exist = true;
                return -1;
        case 'n':
                c->opt.force_dry_run = true;
                return -1;
        case 'i':
                if (config_parse_interval(optarg, &c->opt.interval_override) < 0) {
                        fprintf(stderr, "memoptimizer: invalid --interval '%s'; allowed: " CONFIG_INTERVAL_RANGE ", with a unit (ms, s, min)\n", optarg);
                        return 1;
                }
                return -1;
        case 'v':
                c->opt.force_debug = true;
                return -1;
        case OPT_CHECK:
                c->check_config = true;
                return -1;
        case OPT_RECORD:
                return set_record(c, optarg);
        case OPT_JSON:
                c->json = true;
                return -1;
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

/* argv[0] is the program or the command word. Returns -1 to go on, else
 * an exit status. A command word after options is refused, never taken
 * for another command: `memoptimizer --check-config restore` once ran a
 * restore. */
static int parse_args(int argc, char **argv, struct cli *c)
{
        int ch;
        while ((ch = getopt_long(argc, argv, cmd_opts[c->cmd].shortopts, cmd_opts[c->cmd].longopts,
                                 NULL)) != -1) {
                int r = take_option(c, ch);
                if (r >= 0)
                        return r;
        }
        if (optind < argc && is_command_word(argv[optind])) {
                fprintf(stderr, "memoptimizer: '%s' is a command and must come first: memoptimizer %s ...\nTry 'memoptimizer --help'.\n",
                        argv[optind], argv[optind]);
                return 1;
        }
        if (optind < argc) {
                fprintf(stderr, "memoptimizer: unexpected argument '%s'\nTry 'memoptimizer --help'.\n", argv[optind]);
                return 1;
        }
        return -1;
}

/* --check-config after the file loaded: its compaction_max_order against
 * this kernel's orders too, when /proc/buddyinfo can be read. */
static int check_config(const char *path, const char *root, const struct config *cfg)
{
        char err[ERR_MSG_MAX];
        int r = config_check_kernel_orders(cfg, path, root, err, sizeof(err));
        if (r == -ERANGE) {
                fprintf(stderr, "memoptimizer: %s\n", err);
                return 1;
        }
        if (r < 0)
                printf("%s: valid (compaction_max_order not checked against the kernel: %s)\n", path, err);
        else
                printf("%s: valid\n", path);
        return 0;
}

/* What needs the configuration: --check-config, status and the daemon. */
static int run_configured(struct cli *c)
{
        struct config cfg;
        char err[ERR_MSG_MAX];
        config_defaults(&cfg);
        /* --check-config checks a file: a missing one is not valid, even
         * the default one the daemon could start without */
        int r = config_load(&cfg, c->opt.config_path, c->opt.config_must_exist || c->check_config,
                            err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "memoptimizer: %s%s\n", err, r == -ENOENT && !c->opt.config_must_exist ?
                        " (the daemon would start on the built-in defaults)" : "");
                return 1;
        }
        if (c->check_config)
                return check_config(c->opt.config_path, c->opt.root, &cfg);
        if (c->cmd == CMD_STATUS)
                return status_print(stdout, c->opt.root, c->opt.state_dir, c->opt.learn_dir, &cfg, c->json);

        daemon_apply_overrides(&c->opt, &cfg);
        struct logger log;
        log_init(&log, cfg.log_level);
        return daemon_run(&c->opt, &cfg, &log);
}

int main(int argc, char **argv)
{
        /* Before anything can change the sysctl: a stop signal from now on
         * waits for the loop, which restores (loop.h). */
        struct loop_signals signals;
        loop_signals_take(&signals);
        const char *word = argc > 1 ? argv[1] : "";
        /* A command's argv[0], which getopt() names in its messages */
        char prog[32];
        if (is_command_word(word)) {
                snprintf(prog, sizeof(prog), "memoptimizer %s", word);
                argv[1] = prog;
        }
        /* Commands with options of their own. */
        if (strcmp(word, "record") == 0)
                return record_main(argc - 1, argv + 1);
        if (strcmp(word, "replay") == 0) {
                loop_signals_give_back(&signals);
                return replay_main(argc - 1, argv + 1);
        }
        const char *rt = getenv("RUNTIME_DIRECTORY");   /* set by systemd's RuntimeDirectory= */
        struct cli c = { .opt = {
                .config_path = CONFIG_DEFAULT_PATH, .root = "",
                .state_dir = rt && *rt ? rt : STATE_DIR,
        } };
        c.cmd = strcmp(word, "status") == 0 ? CMD_STATUS : strcmp(word, "restore") == 0 ? CMD_RESTORE :
                strcmp(word, "forget") == 0 ? CMD_FORGET : CMD_DAEMON;
        int r = c.cmd == CMD_DAEMON ? parse_args(argc, argv, &c) : parse_args(argc - 1, argv + 1, &c);
        if (r >= 0)
                return r;
        if (c.cmd == CMD_STATUS || c.cmd == CMD_FORGET)
                loop_signals_give_back(&signals);
        /* set by systemd's StateDirectory= */
        char learn_dir[PATH_MAX];
        r = learn_dir_resolve(getenv("STATE_DIRECTORY"), learn_dir, sizeof(learn_dir));
        if (r < 0) {
                fprintf(stderr, "memoptimizer: STATE_DIRECTORY: %s\n", r == -EINVAL ? "not an absolute path" : strerror(-r));
                return 1;
        }
        c.opt.learn_dir = learn_dir;

        /* Nothing memoptimizer does needs a capability (see privilege.h). */
        r = privilege_drop();
        if (r < 0) {
                fprintf(stderr, "memoptimizer: cannot drop capabilities: %s\n", strerror(-r));
                return 2;
        }
        if (c.cmd == CMD_RESTORE)
                return restore_main(c.opt.root, c.opt.state_dir);
        if (c.cmd == CMD_FORGET)
                return forget_main(c.opt.learn_dir);
        return run_configured(&c);
}
