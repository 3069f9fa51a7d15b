#!/bin/sh
# Runs every cmocka binary given, stderr captured (cmocka prints its summary
# there, deps-notes.md 6), and ends with one line "N passed, N failed[, N skipped]".
# $VALGRIND, when set, prefixes each binary.
pass=0; fail=0; skip=0; rc=0
for t in "$@"; do
    out=$($VALGRIND "$t" 2>&1); st=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\.$/\1/p' | awk '{s+=$1} END{print s+0}')
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:$/\1/p' | awk '{s+=$1} END{print s+0}')
    k=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:$/\1/p' | awk '{s+=$1} END{print s+0}')
    if [ "$st" -ne 0 ]; then
        rc=1
        [ "$f" -eq 0 ] && { f=1; echo "$t: exited with status $st outside cmocka"; }
    fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
done
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
exit $rc
