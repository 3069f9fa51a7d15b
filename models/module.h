/* models/module.h: a module type: a prefabricated unit (Crusoe Spark, Spark
 * Liquid, or a user's own) with an IT power budget, a cooling kind and the
 * systems it can host (models/modules.cfg, or a scenario's catalog.modules).
 *
 * All quantities in SI (watts). max_units[i] = floor(it_power_w /
 * max_power_w of hosts[i]): how many units of that system fit in the power,
 * computed by the loader from the system catalog, never typed in.
 */
#ifndef MODELS_MODULE_H
#define MODELS_MODULE_H

#include <stddef.h>

#define MODULE_MAX_HOSTS 8

typedef struct module_type {
    char name[32];          /* catalog id, e.g. "spark-air" */
    double it_power_w;      /* IT power budget of one module [W], > 0 */
    int liquid;             /* 1 liquid-cooled, 0 air-cooled */
    int containers;         /* shipping-container modules per unit */
    double pue_ref;         /* reference annual PUE for its cooling */
    double capex_usd_per_w; /* capital cost per W of IT budget (shell,
                               power, cooling; models/cost.h) [USD/W] */
    size_t n_hosts;         /* entries in hosts, 1..MODULE_MAX_HOSTS */
    char hosts[MODULE_MAX_HOSTS][32]; /* system names it can host */
    int max_units[MODULE_MAX_HOSTS];  /* units of hosts[i] that fit, >= 0 */
} module_type;

#endif
