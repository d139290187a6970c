#!/bin/bash
# On the lent 16-core machine (device tool: run "bash bench/device/run31.sh",
# carry .dev), after bench/device/stage.sh: issue 31's figures — the dry
# run (bench/dry_run.sh, sysbench vs qpslab as `sysbench`, no server) and
# sysbench mode against the staged sandbox (oltp_read_write, sysbench vs
# qpslab as `sysbench`, the whole process's CPU per event), at 1 and 16
# threads, medians of interleaved rounds.
REPO=$PWD
source "$REPO/bench/device/unpack.sh"
mkdir -p target/release && cp $Q target/release/qpslab
TIME=5 ROUNDS=3 timeout 150 bash bench/dry_run.sh --threads "1 16" > $OUT/dry.txt 2>&1
tail -6 $OUT/dry.txt
$Q server start --name bench --preset bench >$OUT/start.txt 2>&1 || { tail -20 $OUT/start.txt; exit 1; }
SOCK=$(ls /tmp/qh/sandboxes/bench/mysqld.sock)
mkdir -p /tmp/sbq && ln -sf $Q /tmp/sbq/sysbench
for r in 1 2 3; do for th in 1 16; do for tool in /usr/bin/sysbench /tmp/sbq/sysbench; do
  /usr/bin/time -f "%U %S" -o /tmp/t.txt $tool oltp_read_write --mysql-socket=$SOCK --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=20000 --threads=$th --time=5 run > /tmp/o.txt 2>&1
  ev=$(grep 'total number of events' /tmp/o.txt | awk '{print $NF}')
  echo "round $r threads $th $tool events $ev cpu $(cat /tmp/t.txt)"
done; done; done | tee $OUT/mode.txt
