#!/bin/bash
# On the lent machine, after bench/device/run37.sh: the shard count above
# two connections per CPU, settled with more rounds (bench/peak_qps.sh,
# server and clients pinned to 2, then 4 CPUs).
REPO=$PWD
source "$REPO/bench/device/unpack.sh"
cat /sys/fs/cgroup/cpu.max 2>/dev/null | sed 's/^/cpu.max: /'
mkdir -p target/release && cp $Q target/release/qpslab
CPUS=0-1 THREADS="16 64 256" TIME=3 ROUNDS=5 VARIANTS="auto:|s2:--client-shards 2|s2n:--client-shards 2 --client-sched normal" \
  timeout 250 bash bench/peak_qps.sh > $OUT/peak2b.txt 2>&1
sed -n '/== medians/,$p' $OUT/peak2b.txt
CPUS=0-3 THREADS="64" TIME=3 ROUNDS=3 VARIANTS="auto:|s2:--client-shards 2|s4:--client-shards 4" \
  timeout 70 bash bench/peak_qps.sh > $OUT/peak4.txt 2>&1
sed -n '/== medians/,$p' $OUT/peak4.txt
