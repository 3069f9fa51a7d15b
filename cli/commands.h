/* cli/commands.h: the command table, one line per command (X-macro):
 * CMD(name, one-line summary). cli/main.c and cli/cli.h expand it. */
CMD(bench, "benchmarks: phold (engine), predict (throughput model), site (one "
           "year of a site)")
CMD(check, "validate a scenario file and summarize it")
CMD(catalog,
    "list the component catalog: GPUs, systems, modules, models, sources")
CMD(solar, "annual yield and capacity factor of a PV plant at a site")
CMD(battery, "how long second-life battery packs last: capacity retained "
             "and cycles per year")
CMD(power, "site power of a scenario at nominal load: energy mix, shortage, "
           "PUE, carbon, cost")
CMD(calibrate,
    "fit the throughput model to measured rows; accuracy table, parity plot")
CMD(predict, "predict training throughput (step time, tokens/s/GPU) for a "
             "configuration or a CSV")
CMD(run, "simulate a scenario: time, energy, carbon and cost per training job")
CMD(report, "write a site-proposal bundle for a stored run: charts, "
            "summary.md, summary.csv")
CMD(merge, "combine results databases (one per Slurm task) into one; "
           "idempotent, kill-safe")
CMD(compare, "stored runs side by side (by id, scenario or sweep case): "
             "P10-P90 per job and site, differences from the first")
CMD(export, "export stored results (jobs, time series, runs) as CSV or JSON")
CMD(exemplar, "check measured throughput against the Exemplar bar (95% of "
              "reference); diagnose shortfalls")
CMD(sweep, "what-if sweep: a grid of scenario overrides on every core (and MPI "
           "ranks), resumable")
CMD(optimize, "the best design of a lattice of overrides under constraints "
              "(coarse lattice + compass search on the sweep machinery)")
CMD(schema, "list every result field: database/export name and SI unit, "
            "run/sweep name and unit")
