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
