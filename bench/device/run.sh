#!/bin/bash
# On the lent 16-core machine (device tool: run "bash bench/device/run.sh", carry .dev):
# unpacks what bench/device/stage.sh packed (a bare machine has no MariaDB or sysbench)
# and runs bench/ab.sh (OLD vs NEW) and bench/vs_sysbench.sh at 1, 16, 64 threads.
REPO=$PWD
source "$REPO/bench/device/unpack.sh"
$Q server start --name bench --preset bench >$OUT/start.txt 2>&1 || { cp /tmp/qh/sandboxes/bench/error.log $OUT/; tail -20 $OUT/start.txt; exit 1; }
cd "$REPO"
SERVER=bench TABLES=4 ROWS=20000 THREADS="1 16 64" TIME=5 ROUNDS=3 timeout 200 bash bench/ab.sh /tmp/st/bin/qpslab-old $Q > $OUT/ab.txt 2>&1
tail -8 $OUT/ab.txt
mkdir -p target/release && cp $Q target/release/qpslab
$Q server start --name bench --preset bench >/dev/null 2>&1
SKIP_PREPARE=1 TABLES=4 ROWS=20000 THREADS="1 16 64" TIME=4 ROUNDS=3 BACKENDS=auto timeout 260 bash bench/vs_sysbench.sh > $OUT/vs.txt 2>&1
grep -A20 "== medians" $OUT/vs.txt
