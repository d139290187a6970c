# Set-up shared by the bench scripts (sourced, not run): the release
# binary, a private state dir, the 'bench' sandbox started and WORKLOAD's
# TABLES x ROWS prepared once; proc_cpu PID gives a process's CPU seconds.
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
"$Q" server start --name bench --preset bench >/dev/null
if ! "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --events 1 --no-store --no-monitor >/dev/null 2>&1; then
  "$Q" prepare "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" >/dev/null
fi
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /,""); print ($12+$13)/hz}' "/proc/$1/stat"; }
