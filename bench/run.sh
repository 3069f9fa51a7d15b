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
