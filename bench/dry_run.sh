#!/usr/bin/env bash
# sysbench vs qpslab-as-sysbench in a dry run (--mysql-dry-run: no server,
# every statement answered in the client), the client's own cost alone:
# oltp_read_write for TIME seconds at each thread count, ROUNDS rounds
# interleaved (sysbench, then qpslab, per round), printing per run the
# events/s and the whole process's CPU (user+sys, /usr/bin/time), then the
# medians and qpslab's ratio to sysbench. Issue 31's goal: qpslab's dry-run
# event rate at least 1.5x sysbench's on the same host.
#
# Usage: bench/dry_run.sh [--threads "1 2"]   (env: TIME=10 ROUNDS=3)
# qpslab runs as `sysbench` through a symlink to target/release/qpslab.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS="1 2"
if [ "${1:-}" = "--threads" ]; then THREADS=$2; fi
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
command -v sysbench >/dev/null || { echo "sysbench is needed: apt-get install sysbench" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
ln -s "$Q" "$tmp/bin/sysbench"
# The socket is never opened in a dry run: point it at nothing.
ARGS=(oltp_read_write --mysql-socket="$tmp/none.sock" --mysql-dry-run --time="$TIME" --events=0)

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(sysbench --version) vs $("$Q" --version), oltp_read_write --mysql-dry-run --time=$TIME, $ROUNDS rounds"

one() { # tool threads -> "events/s cpu_s"
  local bin=sysbench
  [ "$1" = qpslab ] && bin="$tmp/bin/sysbench"
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$bin" "${ARGS[@]}" --threads="$2" run >"$tmp/out" 2>&1 \
    || { echo "failed: $1 --threads=$2" >&2; tail -5 "$tmp/out" >&2; exit 1; }
  local eps cpu
  eps=$(awk '/transactions:/{gsub(/\(/,"",$3); print $3}' "$tmp/out")
  cpu=$(awk '{print $1 + $2}' "$tmp/time")
  echo "$eps $cpu"
}

printf "%-8s %7s %5s %14s %8s\n" tool threads round "events/s" "CPU s"
for t in $THREADS; do
  for r in $(seq 1 "$ROUNDS"); do
    for tool in sysbench qpslab; do
      read -r eps cpu < <(one "$tool" "$t")
      printf "%-8s %7s %5s %14.0f %8.2f\n" "$tool" "$t" "$r" "$eps" "$cpu"
      echo "$tool $t $eps $cpu" >>"$tmp/all"
    done
  done
done

echo
python3 - "$tmp/all" <<'PY'
import sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    tool, t, eps, cpu = line.split()
    runs.setdefault((int(t), tool), []).append((float(eps), float(cpu)))
print(f"{'threads':>7} {'sysbench ev/s':>14} {'qpslab ev/s':>12} {'ratio':>6} {'sysbench CPU s':>15} {'qpslab CPU s':>13}")
for t in sorted({k[0] for k in runs}):
    s, q = runs[(t, "sysbench")], runs[(t, "qpslab")]
    se, qe = st.median(e for e, _ in s), st.median(e for e, _ in q)
    sc, qc = st.median(c for _, c in s), st.median(c for _, c in q)
    print(f"{t:>7} {se:>14.0f} {qe:>12.0f} {qe / se:>5.2f}x {sc:>15.2f} {qc:>13.2f}")
PY
