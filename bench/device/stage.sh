#!/usr/bin/env bash
# Packs what bench/device/run.sh needs on a bare lent machine into
# .dev/st.tgz (ignored; the device tool carries it): the two qpslab builds
# (stripped), Debian's mariadbd, sysbench, mariadb client, bc and time with
# their shared libraries (glibc's own left out), MariaDB's error messages
# and charsets, sysbench's Lua files, and a stopped sandbox 'bench' with
# 4 x 20000 rows prepared (QPSLAB_HOME=/tmp/qh, the same path there).
# Usage: bench/device/stage.sh OLD_QPSLAB NEW_QPSLAB   (< 64 MiB in all)
set -euo pipefail
OLD=$1 NEW=$2
cd "$(dirname "$0")/../.."
mkdir -p .git/info .dev && grep -qx "/.dev/" .git/info/exclude 2>/dev/null || echo "/.dev/" >> .git/info/exclude
cp bench/device/run.sh .dev/run.sh
export QPSLAB_HOME=/tmp/qh
rm -rf /tmp/qh /tmp/st && mkdir -p /tmp/st/bin /tmp/st/lib /tmp/st/share/mysql
"$NEW" server start --name bench --preset bench >/dev/null
"$NEW" prepare oltp_read_write --server bench --tables 4 --table-size 20000 >/dev/null
"$NEW" server stop --name bench >/dev/null
strip -o /tmp/st/bin/qpslab-old "$OLD"
strip -o /tmp/st/bin/qpslab "$NEW"
BINS="/usr/sbin/mariadbd /usr/bin/sysbench /usr/bin/mariadb /usr/bin/bc /usr/bin/time"
cp $BINS /tmp/st/bin/
for b in $BINS; do ldd "$b" | awk '$3 ~ /^\// {print $3}'; done | sort -u \
  | grep -v -E 'libc\.so|libm\.so|libpthread|libstdc|libgcc_s|libresolv|libdl|librt' | xargs -I{} cp -L {} /tmp/st/lib/
cp -r /usr/share/mysql/english /usr/share/mysql/charsets /tmp/st/share/mysql/
cp -r /usr/share/sysbench /tmp/st/share/
tar -C /tmp -cf /tmp/st/qh.tar qh
tar -C /tmp -czf .dev/st.tgz st
ls -la .dev/st.tgz
