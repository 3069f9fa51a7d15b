/* tests/test_source.c: the source registry (models/source.h) is the one
 * place a source kind is named: its rows reach the result fields, the
 * catalog, the dispatch classes and the scenario's energy groups. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "io/catalog_cfg.h"
#include "models/catalog.h"
#include "models/dispatch.h"
#include "models/resfield.h"
#include "models/source.h"

static int has_field(const resfield *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return 1;
    return 0;
}

/* Names, labels and colours are unique; a name parses back to its kind. */
static void test_source_registry_rows_are_unique(void **state)
{
    (void)state;
    for (int k = 0; k < SRC_N; k++) {
        assert_int_equal(source_table[k].kind, k);
        assert_int_equal(source_kind_parse(source_table[k].name), k);
        assert_string_equal(source_name((source_kind)k), source_table[k].name);
        for (int j = 0; j < k; j++) {
            assert_string_not_equal(source_table[j].name, source_table[k].name);
            assert_string_not_equal(source_table[j].label,
                                    source_table[k].label);
            assert_true(source_table[j].rgb != source_table[k].rgb);
        }
    }
    assert_int_equal(source_kind_parse("no-such-source"), -1);
    assert_string_equal(source_name(SRC_N), "?");
}

/* Every kind has its per-source result columns (job, site and step) named
 * from the registry, in registry order. */
static void test_source_every_kind_has_its_result_fields(void **state)
{
    (void)state;
    size_t last = 0;
    for (int k = 0; k < SRC_N; k++) {
        char e[64], w[64];
        snprintf(e, sizeof e, "energy_%s_j", source_table[k].name);
        snprintf(w, sizeof w, "%s_w", source_table[k].name);
        assert_true(has_field(resfield_job, resfield_n_job, e));
        assert_true(has_field(resfield_site, resfield_n_site, e));
        assert_true(has_field(resfield_step, resfield_n_step, w));
        for (size_t i = 0; i < resfield_n_site; i++)
            if (strcmp(resfield_site[i].name, e) == 0) {
                assert_true(k == 0 || i > last);
                last = i;
            }
    }
}

/* The catalog has defaults for every kind under the registry's name. */
static void test_source_catalog_has_every_kind(void **state)
{
    (void)state;
    catalog *cat;
    sim_err e;
    assert_int_equal(catalog_load("models", &cat, &e), SIM_OK);
    for (int k = 0; k < SRC_N; k++) {
        const source_defaults *d = catalog_source(cat, (source_kind)k);
        assert_non_null(d);
        assert_string_equal(d->name, source_table[k].name);
        assert_int_equal(catalog_source_kind(source_table[k].name), k);
    }
    assert_non_null(
        catalog_turbine(cat, catalog_source(cat, SRC_WIND)->turbine));
    catalog_free(cat);
}

/* Dispatch classes follow the roles: variable and must-run kinds are
 * must-take, the grid is last, other firm kinds are firm. */
static void test_source_dispatch_class_follows_role(void **state)
{
    (void)state;
    assert_int_equal(dispatch_role_of(SRC_SOLAR), DISPATCH_MUST_TAKE);
    assert_int_equal(dispatch_role_of(SRC_WIND), DISPATCH_MUST_TAKE);
    assert_int_equal(dispatch_role_of(SRC_GEOTHERMAL), DISPATCH_MUST_TAKE);
    assert_int_equal(dispatch_role_of(SRC_HYDRO), DISPATCH_FIRM);
    assert_int_equal(dispatch_role_of(SRC_GRID), DISPATCH_GRID);
    for (int k = 0; k < SRC_N; k++)
        assert_int_equal(source_must_take((source_kind)k),
                         source_table[k].role == SOURCE_VARIABLE ||
                             source_table[k].must_run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_registry_rows_are_unique),
        cmocka_unit_test(test_source_every_kind_has_its_result_fields),
        cmocka_unit_test(test_source_catalog_has_every_kind),
        cmocka_unit_test(test_source_dispatch_class_follows_role),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
