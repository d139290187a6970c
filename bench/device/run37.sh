#!/bin/bash
# On the lent 16-core machine (device tool: run "bash bench/device/run37.sh",
# carry .dev), after bench/device/stage.sh: issue 37 item 1's peak QPS —
# bench/peak_qps.sh with the client threading variants, first with the
# server and both clients pinned to 2 CPUs (a 2-CPU host, quiet), then on
# all 16 CPUs.
REPO=$PWD
source "$REPO/bench/device/unpack.sh"
mkdir -p target/release && cp $Q target/release/qpslab
V2="auto:|normal:--client-sched normal|perconn:--client-shards {T} --client-sched normal|cores:--client-shards 2"
CPUS=0-1 THREADS="1 4 16 64" TIME=3 ROUNDS=3 VARIANTS="$V2" timeout 260 bash bench/peak_qps.sh > $OUT/peak2.txt 2>&1
sed -n '/== medians/,$p' $OUT/peak2.txt
V16="auto:|normal:--client-sched normal|perconn:--client-shards {T} --client-sched normal|cores:--client-shards 16"
THREADS="16 64 256" TIME=3 ROUNDS=3 VARIANTS="$V16" timeout 200 bash bench/peak_qps.sh > $OUT/peak16.txt 2>&1
sed -n '/== medians/,$p' $OUT/peak16.txt
