#!/bin/sh
# tests/fuzz/seeds.sh DIR: writes the seed corpus of every harness into
# DIR/<harness>/ from the test data (tests/data/**, scenarios/) and from
# data/ (weather and calibration files: copies and truncated copies, made
# at fuzz time, never committed). Run from the repository root.
set -e
out=$1
LV=data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw
RENO=data/weather/USA_NV_Reno-Tahoe.Intl.AP.724880_TMY3.epw
TP=data/calibration/megatron_throughput.csv
mkdir -p "$out/fuzz_scenario" "$out/fuzz_csv" "$out/fuzz_epw" "$out/fuzz_profile" \
         "$out/fuzz_sweep" "$out/fuzz_calibfile"

# Scenarios: every .cfg the tests and examples use, good and bad.
i=0
for f in scenarios/*.cfg scenarios/include/*.cfg tests/data/good/*.cfg \
         tests/data/good/inc/*.cfg tests/data/bad/*.cfg tests/data/run/*.cfg \
         tests/data/catalog-bad/*.cfg; do
    [ -f "$f" ] && cp "$f" "$out/fuzz_scenario/seed-$i.cfg" && i=$((i + 1))
done
# One seed exercises the "//set" overrides of the harness.
{ printf '//set modules.[0].count=3\n//set simulation.seed=7\n'
  cat tests/data/good/minimal.cfg; } > "$out/fuzz_scenario/seed-set.cfg"

# Throughput CSVs: the test files, the header plus 1, 10 and 60 rows of the
# shared table, and the whole table.
for f in tests/data/tp_*.csv; do cp "$f" "$out/fuzz_csv/"; done
if [ -f "$TP" ]; then
    for n in 2 11 61; do head -n $n "$TP" > "$out/fuzz_csv/tp-head-$n.csv"; done
    cp "$TP" "$out/fuzz_csv/tp-all.csv"
fi

# EPW: the test files, a file cut after 2 days and after the header, and
# the two whole years.
for f in tests/data/epw_*.epw; do cp "$f" "$out/fuzz_epw/"; done
if [ -f "$LV" ]; then
    head -n 56 "$LV" > "$out/fuzz_epw/lv-2days.epw"
    head -n 8 "$LV" > "$out/fuzz_epw/lv-header.epw"
    cp "$LV" "$out/fuzz_epw/lv.epw"
fi
[ -f "$RENO" ] && cp "$RENO" "$out/fuzz_epw/reno.epw"

# Hourly profiles in io/profile.h's format, made from the Las Vegas EPW:
# by hour with every column, by timestamp with rh and ghi only, by hour
# with the dry bulb alone, and short cuts of each.
if [ -f "$LV" ]; then
    awk -F, 'NR > 8 { printf "%d,%s,%s,%s,%s,%s,%s,%s\n", NR - 9, $7, $8, $10, $14, $15, $16, $22 }' "$LV" |
        { echo "hour,dry_bulb_c,dew_point_c,pressure_pa,ghi_w_m2,dni_w_m2,dhi_w_m2,wind_m_s"; cat; } \
        > "$out/fuzz_profile/full.csv"
    awk -F, 'NR > 8 { printf "2021-%02d-%02d %02d:00,%s,%s,%s\n", $2, $3, $4 - 1, $7, $9, $14 }' "$LV" |
        { echo "timestamp,dry_bulb_c,rh_pct,ghi_w_m2"; cat; } > "$out/fuzz_profile/ts.csv"
    awk -F, 'NR > 8 { printf "%d,\"%s\"\n", NR - 9, $7 }' "$LV" |
        { echo "hour,dry_bulb_c"; cat; } > "$out/fuzz_profile/tdb.csv"
    for f in full ts tdb; do
        head -n 50 "$out/fuzz_profile/$f.csv" > "$out/fuzz_profile/$f-short.csv"
    done
fi

# Sweep specs: the forms docs/sweeps.md shows, one spec a line.
printf 'modules.[0].count=1,2,4\n' > "$out/fuzz_sweep/list"
printf 'energy.battery.capacity_mwh=0:120:40\nsimulation.seed=1,2\n' > "$out/fuzz_sweep/range"
printf 'x=0.5:2:0.5\ny=true,false\nz="a",b,12L\n' > "$out/fuzz_sweep/kinds"

# Calibration files: the committed one and the test copies.
for f in models/calibration.cfg tests/data/*calib*.cfg; do
    [ -f "$f" ] && cp "$f" "$out/fuzz_calibfile/$(basename "$f")"
done

# Every input that ever failed stays in the corpus.
for h in fuzz_scenario fuzz_csv fuzz_epw fuzz_profile fuzz_sweep fuzz_calibfile; do
    if [ -d "tests/data/fuzz-regress/$h" ]; then
        for f in tests/data/fuzz-regress/$h/*; do
            [ -f "$f" ] && cp "$f" "$out/$h/regress-$(basename "$f")"
        done
    fi
done
exit 0
