#!/bin/sh
# tests/fuzz/run.sh SECONDS HARNESS...: runs each libFuzzer harness
# build-fuzz/fuzz/HARNESS for SECONDS on its working corpus
# build-fuzz/corpus/HARNESS (grown across runs) plus the seeds of
# tests/fuzz/seeds.sh, one after the other at nice 10. Crashes, leaks,
# timeouts (10 s per input) and out-of-memory inputs land in
# build-fuzz/artifacts/HARNESS/; the script exits 1 if any harness found one.
# Copy each such file into tests/data/fuzz-regress/HARNESS/ once fixed.
secs=$1
shift
B=build-fuzz
S=$B/seeds.$$      # per invocation, so two runs can go side by side
rm -rf "$S"
sh tests/fuzz/seeds.sh "$S"
# Third-party leaks only (tests/lsan.supp); UBSan stops at the first report.
LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS UBSAN_OPTIONS
# FUZZ_FORK=N runs N child processes that go on past a crash, collecting
# every artifact (for a first sweep); without it the first crash stops.
fork=
[ -n "$FUZZ_FORK" ] && fork="-fork=$FUZZ_FORK -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
rc=0
for h in "$@"; do
    mkdir -p "$B/corpus/$h" "$B/artifacts/$h"
    dict=
    [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
    maxlen=65536
    case $h in fuzz_epw|fuzz_profile) maxlen=2000000 ;; esac
    echo "fuzz: $h for $secs s"
    nice -n 10 "$B/fuzz/$h" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=$maxlen -print_final_stats=1 \
        -artifact_prefix="$B/artifacts/$h/" $dict $fork \
        "$B/corpus/$h" "$S/$h" > "$B/$h.log" 2>&1
    st=$?
    tail -n 12 "$B/$h.log" | grep -E '^(stat::|#[0-9]+.*DONE|==[0-9]+==|SUMMARY)' || true
    if [ "$st" -ne 0 ]; then
        echo "fuzz: $h FAILED (status $st), see $B/$h.log and $B/artifacts/$h/"
        rc=1
    fi
done
rm -rf "$S"
exit $rc
