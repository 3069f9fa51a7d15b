/* tests/test_install.c: `make install` and the man page (issue 12.3).
 * Installs with DESTDIR into a mkdtemp folder, runs the installed binary
 * from another folder (FACTORYSIM_HOME unset, so it must find its data
 * through its own install prefix), then `make uninstall`. The binary
 * installed is the one under test: FACTORYSIM_MAKEVARS (set by the
 * Makefile) names its BUILD and BIN, so `make asan` installs its own
 * build rather than relinking the plain one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>

#include "tests/cli_util.h"

static char root[64];          /* DESTDIR */
static char bin[PATH_MAX];     /* installed binary */
static char share[PATH_MAX];   /* installed data home */
static char manpage[PATH_MAX]; /* installed man page */
static char out[1 << 17], err[1 << 14];

/* snprintf that fails the test when the text does not fit (and keeps
 * GCC's truncation warnings, which cannot see the sizes, quiet). */
static void fmt(char *b, size_t n, const char *f, ...)
{
    va_list ap;
    int k;
    va_start(ap, f);
    k = vsnprintf(b, n, f, ap);
    va_end(ap);
    assert_true(k >= 0 && (size_t)k < n);
}

/* Runs the shell command cmd with stdout in out and stderr in err.
 * Returns the exit status, -1 if it did not exit. */
static int sh(const char *cmd)
{
    char full[8192], errpath[PATH_MAX];
    FILE *p, *f;
    size_t n;
    int st;
    fmt(errpath, sizeof errpath, "%s.stderr", root);
    fmt(full, sizeof full, "( %s ) 2>%s", cmd, errpath);
    p = popen(full, "r");
    if (!p)
        return -1;
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    while (fgetc(p) != EOF)
        ;
    st = pclose(p);
    f = fopen(errpath, "r");
    n = f ? fread(err, 1, sizeof err - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
    remove(errpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int is_file(const char *dir, const char *rel)
{
    char p[PATH_MAX];
    struct stat st;
    fmt(p, sizeof p, "%s/%s", dir, rel);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Installs once for the whole group. */
static int setup(void **state)
{
    char cmd[2048];
    const char *mv = getenv("FACTORYSIM_MAKEVARS");
    char *nl;
    (void)state;
    fmt(root, sizeof root, "/tmp/fsim-install-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    fmt(cmd, sizeof cmd, "make --no-print-directory -s install DESTDIR=%s %s",
        root, mv ? mv : "");
    if (sh(cmd) != 0) {
        fprintf(stderr, "make install failed:\n%s%s\n", out, err);
        return -1;
    }
    /* Where PREFIX put things under DESTDIR (PREFIX is the Makefile's). */
    fmt(cmd, sizeof cmd, "find %s -path '*/bin/factorysim' -type f", root);
    if (sh(cmd) != 0 || !out[0])
        return -1;
    if ((nl = strchr(out, '\n')))
        *nl = '\0';
    fmt(bin, sizeof bin, "%s", out);
    fmt(share, sizeof share, "%.*s/share/factorysim",
        (int)(strstr(bin, "/bin/factorysim") - bin), bin);
    fmt(manpage, sizeof manpage, "%.*s/share/man/man1/factorysim.1",
        (int)(strstr(bin, "/bin/factorysim") - bin), bin);
    return 0;
}

static int teardown(void **state)
{
    char cmd[256];
    (void)state;
    fmt(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void
test_install_puts_binary_data_and_man_page_under_prefix(void **state)
{
    static const char *const files[] = {
        "models/gpus.cfg",
        "models/llms.cfg",
        "models/systems.cfg",
        "models/modules.cfg",
        "models/sources.cfg",
        "models/calibration.cfg",
        "data/README.md",
        "data/weather/README.md",
        "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw",
        "data/calibration/megatron_throughput.csv",
        "data/catalog/gpu_specs.csv",
        "scenarios/nevada-solar.cfg",
        "scenarios/nevada-solar-tmy.cfg",
        "scenarios/include/las-vegas-tmy-site.cfg",
        NULL};
    (void)state;
    assert_int_equal(access(bin, X_OK), 0);
    for (int i = 0; files[i]; i++)
        if (!is_file(share, files[i]))
            fail_msg("not installed: %s/%s", share, files[i]);
    assert_int_equal(access(manpage, R_OK), 0);
}

/* The installed binary, run from an unrelated folder with no data in it,
 * checks and runs a bundled scenario whose weather file is found relative
 * to the installed scenario, with the installed catalog and calibration. */
static void
test_install_binary_runs_a_bundled_scenario_from_elsewhere(void **state)
{
    char cmd[4096];
    (void)state;
    fmt(cmd, sizeof cmd,
        "mkdir -p %s/elsewhere && cd %s/elsewhere && "
        "env -u FACTORYSIM_HOME %s check %s/scenarios/nevada-solar-tmy.cfg",
        root, root, bin, share);
    assert_int_equal(sh(cmd), 0);
    assert_non_null(strstr(out, "Las Vegas, NV"));
    assert_non_null(strstr(out, "TMY3.epw"));
    fmt(cmd, sizeof cmd,
        "cd %s/elsewhere && env -u FACTORYSIM_HOME %s run "
        "%s/scenarios/nevada-solar-tmy.cfg --replications 1 --no-db "
        "--format json",
        root, bin, share);
    if (sh(cmd) != 0)
        fail_msg("installed run failed: %s", err);
    assert_non_null(strstr(out, "\"scenario\": \"nevada-solar-tmy\""));
    assert_non_null(strstr(out, "\"name\": \"llama405b-fp8\""));
    assert_non_null(strstr(out, "\"finished\": 1"));
    assert_non_null(strstr(out, "time_to_train_days"));
    /* The calibration file comes from the data home too. */
    fmt(cmd, sizeof cmd,
        "cd %s/elsewhere && env -u FACTORYSIM_HOME %s predict --gpu B300 "
        "--model llama3.1-405b --precision fp8 --gpus 1024 --format json",
        root, bin);
    assert_int_equal(sh(cmd), 0);
    assert_non_null(strstr(out, "tokens_per_sec_per_gpu"));
}

/* Proof that the installed copy is what it reads, not the source tree: a
 * broken installed catalog file is named in the error. */
static void test_install_binary_reads_its_own_prefix(void **state)
{
    char cmd[4096], path[PATH_MAX + 32];
    (void)state;
    fmt(path, sizeof path, "%s/models/sources.cfg", share);
    fmt(cmd, sizeof cmd,
        "cp %s %s.good && echo 'sources = ( oops' > %s && "
        "cd %s/elsewhere && env -u FACTORYSIM_HOME %s catalog gpus; "
        "st=$?; mv %s.good %s; exit $st",
        path, path, path, root, bin, path, path);
    assert_int_equal(sh(cmd), 1);
    assert_non_null(strstr(err, path));
    /* With the file restored it lists the catalog again. */
    fmt(cmd, sizeof cmd,
        "cd %s/elsewhere && env -u FACTORYSIM_HOME %s catalog gpus", root, bin);
    assert_int_equal(sh(cmd), 0);
    assert_non_null(strstr(out, "B300"));
}

/* Every command of `factorysim --help` and every flag of every command's
 * --help (bench: each benchmark's) appears in the man page. */
static void test_install_man_page_names_every_command_and_flag(void **state)
{
    static char page[1 << 17], help[1 << 16];
    char cmds[64][32], cmd[512];
    int n_cmds = 0;
    FILE *f;
    size_t n;
    (void)state;
    f = fopen("docs/factorysim.1", "r");
    assert_non_null(f);
    n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    assert_int_equal(fs_run("--help", help, sizeof help, NULL, 0), 0);
    for (char *l = strtok(help, "\n"); l; l = strtok(NULL, "\n"))
        if (strncmp(l, "  ", 2) == 0 && l[2] >= 'a' && l[2] <= 'z' &&
            n_cmds < 64)
            sscanf(l, "%31s", cmds[n_cmds++]);
    assert_true(n_cmds >= 12);
    for (int i = 0; i < n_cmds; i++) {
        static const char *const bench[] = {"phold", "predict", "site"};
        int subs = strcmp(cmds[i], "bench") == 0 ? 3 : 1;
        char head[64];
        fmt(head, sizeof head, ".SS \"%s", cmds[i]);
        if (!strstr(page, head))
            fail_msg("man page has no section for %s", cmds[i]);
        for (int s = 0; s < subs; s++) {
            if (subs > 1)
                fmt(cmd, sizeof cmd, "%s %s --help", cmds[i], bench[s]);
            else
                fmt(cmd, sizeof cmd, "%s --help", cmds[i]);
            assert_int_equal(fs_run(cmd, help, sizeof help, NULL, 0), 0);
            /* Each "--flag" token of the help, as the page spells it. */
            for (char *p = strstr(help, "--"); p; p = strstr(p + 2, "--")) {
                char flag[64], man[128];
                size_t k = 0, m = 0;
                while (k < sizeof flag - 1 &&
                       (p[k] == '-' || (p[k] >= 'a' && p[k] <= 'z')))
                    flag[k] = p[k], k++;
                flag[k] = '\0';
                if (k <= 2)
                    continue;
                for (size_t j = 0; j < k && m < sizeof man - 2; j++) {
                    if (flag[j] == '-')
                        man[m++] = '\\';
                    man[m++] = flag[j];
                }
                man[m] = '\0';
                if (!strstr(page, man))
                    fail_msg("%s: %s is not in docs/factorysim.1", cmd, flag);
            }
        }
    }
    for (const char *s = ".SH EXIT STATUS\0.SH ENVIRONMENT\0.SH FILES\0"
                         "FACTORYSIM_HOME\0";
         *s; s += strlen(s) + 1)
        assert_non_null(strstr(page, s));
}

static void test_install_uninstall_removes_what_install_put(void **state)
{
    char cmd[2048];
    const char *mv = getenv("FACTORYSIM_MAKEVARS");
    struct stat st;
    (void)state;
    fmt(cmd, sizeof cmd, "make --no-print-directory -s uninstall DESTDIR=%s %s",
        root, mv ? mv : "");
    assert_int_equal(sh(cmd), 0);
    assert_int_not_equal(stat(bin, &st), 0);
    assert_int_not_equal(stat(share, &st), 0);
    assert_int_not_equal(stat(manpage, &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_install_puts_binary_data_and_man_page_under_prefix),
        cmocka_unit_test(
            test_install_binary_runs_a_bundled_scenario_from_elsewhere),
        cmocka_unit_test(test_install_binary_reads_its_own_prefix),
        cmocka_unit_test(test_install_man_page_names_every_command_and_flag),
        cmocka_unit_test(test_install_uninstall_removes_what_install_put),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
