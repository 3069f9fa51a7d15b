#!/bin/sh
# Installs the Debian packages named in $PKGS that are missing (as root), or
# prints the exact apt-get line and fails. Called by `make deps`.
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
    echo "factorysim: missing packages:$missing" >&2
    echo "run as root: $line" >&2
    exit 1
fi
echo "deps: installing$missing" >&2
i=0
until sh -c "$line" >&2; do
    i=$((i + 1))
    [ $i -ge 5 ] && { echo "deps: apt-get failed" >&2; exit 1; }
    sleep 5   # another apt may hold the dpkg lock (deps-notes.md 1)
done
