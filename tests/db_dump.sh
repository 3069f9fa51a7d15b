#!/bin/sh
# tests/db_dump.sh DB RUN_ID: every row a results database holds for one
# run, one line per row in primary-key order, each value through SQLite's
# quote() (a REAL is printed with enough digits to read back the same
# double). Ids and the wall-clock time are left out (runs.id, run_id,
# runs.scenario_id, runs.created_utc); the run's scenario row (name, hash,
# configuration text) stands in for scenario_id. Two dumps are equal when
# the stored results are byte for byte the same. Used by
# tests/test_determinism.c and tests/test_faults.c.
db=$1
id=$2
q() { sqlite3 -batch -noheader "$db" "$1"; }
q "SELECT 'scenario:'||quote(s.name)||','||quote(s.config_hash)||','||quote(s.config_text)
   FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE r.id = $id" || exit 1
for t in $(q "SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'scenarios' ORDER BY name"); do
    if [ "$t" = runs ]; then key=id; else key=run_id; fi
    [ "$(q "SELECT count(*) FROM pragma_table_info('$t') WHERE name = '$key'")" = 1 ] || continue
    cols=$(q "SELECT group_concat('quote(' || name || ')', '||'',''||') FROM pragma_table_info('$t')
              WHERE name NOT IN ('id', 'run_id', 'scenario_id', 'created_utc')")
    order=$(q "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('$t')
               WHERE pk > 0 AND name NOT IN ('id', 'run_id') ORDER BY pk)")
    echo "table $t"
    q "SELECT $cols FROM $t WHERE $key = $id${order:+ ORDER BY $order}" || exit 1
done
