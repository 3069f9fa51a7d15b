/* tests/test_datadir.c: the one data-home search (io/datadir.h): each rule
 * on a fake tree under a mkdtemp folder (datadir_resolve takes the
 * executable's path as an argument), the order between rules, and the
 * real search from this test binary, which lives in the source tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/catalog_cfg.h"
#include "io/datadir.h"
#include "io/datadir_int.h"
#include "models/catalog.h"

static char root[64];

/* mkdir -p of root/rel. */
static void mkdirs(const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* An empty file root/rel (its folders made first). */
static void touch(const char *rel)
{
    char d[PATH_MAX], p[PATH_MAX];
    FILE *f;
    snprintf(d, sizeof d, "%s", rel);
    *strrchr(d, '/') = '\0';
    mkdirs(d);
    snprintf(p, sizeof p, "%s/%s", root, rel);
    f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
}

static const char *at(const char *rel)
{
    static char p[4][PATH_MAX];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
    return p[k];
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/fsim-datadir-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_datadir_home_env_wins_and_is_not_probed(void **state)
{
    char buf[PATH_MAX];
    (void)state;
    touch("co/models/gpus.cfg");
    /* The checkout beside the executable would match rule 2; the
     * explicit override wins even though it holds no catalog. */
    assert_int_equal(datadir_resolve("/nonexistent/fsim-home",
                                     at("co/bin/factorysim"), NULL, buf,
                                     sizeof buf),
                     1);
    assert_string_equal(buf, "/nonexistent/fsim-home");
    /* An empty FACTORYSIM_HOME counts as unset. */
    assert_int_equal(
        datadir_resolve("", at("co/bin/factorysim"), NULL, buf, sizeof buf), 2);
}

static void test_datadir_checkout_is_found_beside_bin(void **state)
{
    char buf[PATH_MAX];
    (void)state;
    touch("co/models/gpus.cfg");
    assert_int_equal(
        datadir_resolve(NULL, at("co/bin/factorysim"), NULL, buf, sizeof buf),
        2);
    assert_string_equal(buf, at("co"));
    /* build/tests/test_x: two levels up. */
    assert_int_equal(datadir_resolve(NULL, at("co/build/tests/test_x"), NULL,
                                     buf, sizeof buf),
                     2);
    assert_string_equal(buf, at("co"));
}

static void test_datadir_install_prefix_share_is_found(void **state)
{
    char buf[PATH_MAX];
    (void)state;
    touch("pfx/share/factorysim/models/gpus.cfg");
    mkdirs("pfx/bin");
    assert_int_equal(
        datadir_resolve(NULL, at("pfx/bin/factorysim"), NULL, buf, sizeof buf),
        3);
    assert_string_equal(buf, at("pfx/share/factorysim"));
    /* A binary elsewhere falls to the compiled-in prefix. */
    assert_int_equal(datadir_resolve(NULL, at("elsewhere/bin/factorysim"),
                                     at("pfx/share/factorysim"), buf,
                                     sizeof buf),
                     3);
    assert_string_equal(buf, at("pfx/share/factorysim"));
}

static void test_datadir_checkout_beats_install_share(void **state)
{
    char buf[PATH_MAX];
    (void)state;
    touch("both/models/gpus.cfg");
    touch("both/share/factorysim/models/gpus.cfg");
    touch("pfx2/share/factorysim/models/gpus.cfg");
    assert_int_equal(datadir_resolve(NULL, at("both/bin/factorysim"),
                                     at("pfx2/share/factorysim"), buf,
                                     sizeof buf),
                     2);
    assert_string_equal(buf, at("both"));
}

static void test_datadir_falls_back_to_working_dir(void **state)
{
    char buf[PATH_MAX];
    (void)state;
    mkdirs("bare/bin");
    /* A share folder without the marker does not count. */
    mkdirs("bare/share/factorysim/models");
    assert_int_equal(datadir_resolve(NULL, at("bare/bin/factorysim"),
                                     at("bare/share/factorysim"), buf,
                                     sizeof buf),
                     4);
    assert_string_equal(buf, ".");
    assert_int_equal(datadir_resolve(NULL, NULL, NULL, buf, sizeof buf), 4);
    assert_string_equal(buf, ".");
}

static void test_datadir_too_long_is_refused(void **state)
{
    char buf[8];
    (void)state;
    assert_int_equal(
        datadir_resolve("/opt/factorysim", NULL, NULL, buf, sizeof buf), -1);
}

/* This binary is build/tests/test_datadir inside the source tree, run from
 * its root: with FACTORYSIM_HOME unset the search finds the source tree. */
static void test_datadir_this_binary_finds_the_source_tree(void **state)
{
    char here[PATH_MAX], buf[PATH_MAX];
    const char *old = getenv("FACTORYSIM_HOME");
    char *saved = old ? strdup(old) : NULL;
    (void)state;
    unsetenv("FACTORYSIM_HOME");
    assert_non_null(getcwd(here, sizeof here));
    assert_string_equal(datadir_home(), here);
    assert_int_equal(datadir_path("models/calibration.cfg", buf, sizeof buf),
                     0);
    assert_true(strncmp(buf, here, strlen(here)) == 0);
    assert_string_equal(buf + strlen(here), "/models/calibration.cfg");
    assert_int_equal(access(buf, R_OK), 0);
    if (saved) {
        setenv("FACTORYSIM_HOME", saved, 1);
        free(saved);
    }
}

/* The loader asks the same function: an explicit home without a catalog
 * is an error naming the file, never a silent fall back. */
static void test_datadir_catalog_loader_follows_home(void **state)
{
    catalog *c = NULL;
    sim_err e;
    char path[PATH_MAX];
    (void)state;
    setenv("FACTORYSIM_HOME", at("empty-home"), 1);
    assert_int_equal(datadir_path("models/calibration.cfg", path, sizeof path),
                     0);
    assert_string_equal(path, at("empty-home/models/calibration.cfg"));
    assert_int_equal(catalog_load(NULL, &c, &e), SIM_EIO);
    assert_null(c);
    assert_non_null(strstr(e.file, "empty-home/models/gpus.cfg"));
    unsetenv("FACTORYSIM_HOME");
    assert_int_equal(catalog_load(NULL, &c, &e), SIM_OK);
    assert_non_null(catalog_gpu(c, "B300"));
    catalog_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datadir_home_env_wins_and_is_not_probed),
        cmocka_unit_test(test_datadir_checkout_is_found_beside_bin),
        cmocka_unit_test(test_datadir_install_prefix_share_is_found),
        cmocka_unit_test(test_datadir_checkout_beats_install_share),
        cmocka_unit_test(test_datadir_falls_back_to_working_dir),
        cmocka_unit_test(test_datadir_too_long_is_refused),
        cmocka_unit_test(test_datadir_this_binary_finds_the_source_tree),
        cmocka_unit_test(test_datadir_catalog_loader_follows_home),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
