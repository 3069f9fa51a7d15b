#!/bin/sh
# `make bench`: prints the benchmark figures. Speed lives here, never in tests.
# Usage: bench/run.sh BIN
bin=${1:-bin/factorysim}
set -e
echo "== engine: PHOLD, 1024 LPs x 16 start events (16,384 pending, ~16 M events)"
echo "   ROSS equivalent: phold --synch=1 --nlp=1024 --start-events=16 --end=2000 --mean=2 --lookahead=1"
$bin bench phold --lps 1024 --start-events 16 --end 2000 --remote 0.25 --mean 1 --lookahead 1 --seed 1
echo "== engine: PHOLD, 1024 LPs x 1024 start events (1,048,576 pending)"
$bin bench phold --lps 1024 --start-events 1024 --end 20 --remote 0.25 --mean 1 --lookahead 1 --seed 1
echo "== throughput model: tp_predict, given layouts, one core (target >= 1e5/s)"
$bin bench predict --n 1000000
echo "== site simulation: one year, 15-min steps, failures on (target <= 1 s per replication at 100 MW)"
$bin bench site bench/site-10mw.cfg --replications 5
$bin bench site bench/site-100mw.cfg --replications 5
echo "== power dynamics: the analysis' share of the 100 MW year (issue 21 limit: adds <= 20 %)"
echo "   bench/site-100mw.cfg, 5 replications, with and without (--no-power-dynamics), alternating;"
echo "   the fastest of 3 runs each (the least disturbed by other load)"
pd_time() {  # $1 = extra flag; prints seconds per replication
    $bin bench site bench/site-100mw.cfg --replications 5 --format json $1 |
        sed -n 's/.*"s_per_replication": *\([0-9.e+-]*\).*/\1/p'
}
on=""; off=""
for i in 1 2 3; do
    on="$on $(pd_time)"
    off="$off $(pd_time --no-power-dynamics)"
done
echo "$on|$off" | awk -F'|' '{
    n = split($1, a, " "); split($2, b, " "); mon = a[1]; moff = b[1]
    for (i = 2; i <= n; i++) { if (a[i] < mon) mon = a[i]; if (b[i] < moff) moff = b[i] }
    printf "   with the analysis %.3f s per replication, without %.3f s: +%.1f %%\n", mon, moff, 100 * (mon / moff - 1) }'
echo "== sweep: cases per second with 1 and 2 worker threads (target: 2 workers >= 1.8x on 2 cores)"
echo "   12 cases of bench/site-100mw.cfg (one year, 15-min steps, failures on), 1 replication each"
sweep_rate() {  # $1 = --jobs; prints cases/s
    db=$(mktemp -u /tmp/factorysim-bench-sweep-XXXXXX.db)
    t0=$(date +%s.%N)
    $bin sweep bench/site-100mw.cfg --set energy.battery.capacity_mwh=400:700:100 \
        --set energy.solar.capacity_mw=100,150,200 --replications 1 --jobs "$1" --quiet \
        --db "$db" >/dev/null
    t1=$(date +%s.%N)
    rm -f "$db" "$db-wal" "$db-shm"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", 12 / (b - a) }'
}
r1=$(sweep_rate 1)
r2=$(sweep_rate 2)
awk -v a="$r1" -v b="$r2" 'BEGIN { printf "   --jobs 1: %.2f cases/s   --jobs 2: %.2f cases/s   speed-up %.2fx\n", a, b, b / a }'
echo "== optimize: 3 variables of scenarios/nevada-solar.cfg, 180 days, 10 replications per design, --jobs 2 (target < 120 s on 2 cores)"
echo "   minimise site.co2_t.p50 subject to llama405b-fp8.time_to_train_days.p50 <= 32 over a 6 x 5 x 4 lattice (120 designs)"
db=$(mktemp -u /tmp/factorysim-bench-opt-XXXXXX.db)
t0=$(date +%s.%N)
tm=""; [ -x /usr/bin/time ] && tm="/usr/bin/time -f %U+%S -o $db.cpu"   # CPU time: less load-dependent
$tm $bin optimize scenarios/nevada-solar.cfg --vary energy.solar.capacity_mw=10:60:10 \
    --vary energy.battery.capacity_mwh=60:180:30 --vary modules.[0].count=3:6:1 \
    --objective site.co2_t.p50 --constraint 'llama405b-fp8.time_to_train_days.p50<=32' \
    --replications 10 --jobs 2 --quiet --format json --db "$db" >"$db.json"
t1=$(date +%s.%N)
ev=$(sed -n 's/^ *"evaluations": \([0-9]*\).*/\1/p' "$db.json")
cpu=$( [ -f "$db.cpu" ] && awk -F+ '{ printf "%.1f", $1 + $2 }' "$db.cpu" || echo "?")
rm -f "$db" "$db-wal" "$db-shm" "$db.json" "$db.cpu"
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v a="$t0" -v b="$t1" -v e="$ev" -v l="$load" -v c="$cpu" 'BEGIN { printf "   %s designs evaluated in %.1f s wall (%.2f s per design), %s s of CPU; load average at the end %s\n", e, b - a, (b - a) / e, c, l }'
