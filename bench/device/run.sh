#!/bin/bash
# On the lent 16-core machine (device tool: run "bash bench/device/run.sh", carry .dev):
# unpacks what bench/device/stage.sh packed (a bare machine has no MariaDB or sysbench)
# and runs bench/ab.sh (OLD vs NEW) and bench/vs_sysbench.sh at 1, 16, 64 threads.
[ -e /usr/bin/mariadb-install-db ] || { printf "#!/bin/sh\nexit 1\n" > /usr/bin/mariadb-install-db; chmod +x /usr/bin/mariadb-install-db; }  # the datadir comes initialised
REPO=$PWD
cd /tmp && tar -xzf "$REPO/.dev/st.tgz" && cd st || exit 1
cp bin/mariadbd /usr/sbin/; for b in sysbench mariadb bc time; do command -v $b >/dev/null || cp bin/$b /usr/bin/; done
mkdir -p /opt/qlib && cp lib/* /opt/qlib/ && export LD_LIBRARY_PATH=/opt/qlib
mkdir -p /usr/share/mysql && cp -r share/mysql/* /usr/share/mysql/ && cp -r share/sysbench /usr/share/
tar -C /tmp -xf qh.tar
export QPSLAB_HOME=/tmp/qh
Q=/tmp/st/bin/qpslab
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; cat /proc/loadavg; } | tee $OUT/host.txt
$Q server start --name bench --preset bench >$OUT/start.txt 2>&1 || { cp /tmp/qh/sandboxes/bench/error.log $OUT/; tail -20 $OUT/start.txt; exit 1; }
cd "$REPO"
SERVER=bench TABLES=4 ROWS=20000 THREADS="1 16 64" TIME=5 ROUNDS=3 timeout 200 bash bench/ab.sh /tmp/st/bin/qpslab-old $Q > $OUT/ab.txt 2>&1
tail -8 $OUT/ab.txt
mkdir -p target/release && cp $Q target/release/qpslab
$Q server start --name bench --preset bench >/dev/null 2>&1
SKIP_PREPARE=1 TABLES=4 ROWS=20000 THREADS="1 16 64" TIME=4 ROUNDS=3 BACKENDS=auto timeout 260 bash bench/vs_sysbench.sh > $OUT/vs.txt 2>&1
grep -A20 "== medians" $OUT/vs.txt
