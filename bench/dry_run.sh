#!/usr/bin/env bash
# sysbench vs qpslab-as-sysbench in a dry run (--mysql-dry-run: no server,
# every statement answered in the client), the client's own cost alone:
# oltp_read_write for TIME seconds at each thread count, ROUNDS rounds
# interleaved (sysbench, then qpslab, per round), printing per run the
# events/s and the whole process's CPU (user+sys, /usr/bin/time), then the
# medians and qpslab's ratio to sysbench, of events/s and of events per
# CPU second (the fair figure on a shared host, where a run gets what CPU
# share it gets). Issue 31's goal: qpslab's dry-run
# event rate at least 1.5x sysbench's on the same host.
#
# Usage: bench/dry_run.sh [--threads "1 2"]   (env: TIME=10 ROUNDS=3 OLD= QPSLAB_BIN=)
# qpslab runs as `sysbench` through a symlink to target/release/qpslab
# (or QPSLAB_BIN);
# OLD=path/to/another/qpslab adds that build to each round (a before/after
# figure in the same rounds).
# Example: OLD=/tmp/qpslab-main TIME=5 bash bench/dry_run.sh --threads 1
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS="1 2"
if [ "${1:-}" = "--threads" ]; then THREADS=$2; fi
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
Q=${QPSLAB_BIN:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
command -v sysbench >/dev/null || { echo "sysbench is needed: apt-get install sysbench" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/old"
ln -s "$Q" "$tmp/bin/sysbench"
TOOLS="sysbench qpslab"
if [ -n "${OLD:-}" ]; then
  ln -s "$(realpath "$OLD")" "$tmp/old/sysbench"
  TOOLS="sysbench qpslab_old qpslab"
fi
# The socket is never opened in a dry run: point it at nothing.
ARGS=(oltp_read_write --mysql-socket="$tmp/none.sock" --mysql-dry-run --time="$TIME" --events=0)

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(sysbench --version) vs $("$Q" --version), oltp_read_write --mysql-dry-run --time=$TIME, $ROUNDS rounds"

one() { # tool threads -> "events/s cpu_s"
  local bin=sysbench
  [ "$1" = qpslab ] && bin="$tmp/bin/sysbench"
  [ "$1" = qpslab_old ] && bin="$tmp/old/sysbench"
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
    for tool in $TOOLS; do
      read -r eps cpu < <(one "$tool" "$t")
      printf "%-8s %7s %5s %14.0f %8.2f\n" "$tool" "$t" "$r" "$eps" "$cpu"
      echo "$tool $t $eps $cpu" >>"$tmp/all"
    done
  done
done

echo
python3 - "$tmp/all" "$TIME" <<'PY'
import sys, statistics as st
time_s = float(sys.argv[2])
runs = {}
for line in open(sys.argv[1]):
    tool, t, eps, cpu = line.split()
    runs.setdefault((int(t), tool), []).append((float(eps), float(cpu)))
tools = [x for x in ("qpslab_old", "qpslab") if any(k[1] == x for k in runs)]
# events per CPU second: what a run's event rate would be on a CPU of its
# own (on a shared host each run gets what share it gets)
per_cpu = lambda r: r[0] * time_s / r[1]
print(f"{'threads':>7} {'tool':>10} {'sysbench ev/s':>14} {'qpslab ev/s':>12} {'ratio':>6} {'sysbench CPU s':>15} {'qpslab CPU s':>13} {'sb ev/CPU-s':>12} {'q ev/CPU-s':>11} {'ratio':>6}")
for t in sorted({k[0] for k in runs}):
    s = runs[(t, "sysbench")]
    se, sc = st.median(e for e, _ in s), st.median(c for _, c in s)
    for tool in tools:
        q = runs[(t, tool)]
        qe, qc = st.median(e for e, _ in q), st.median(c for _, c in q)
        # (the ratio of each round's pair, then their median)
        ratio = st.median(a[0] / b[0] for a, b in zip(q, s))
        sp, qp = st.median(map(per_cpu, s)), st.median(map(per_cpu, q))
        pratio = st.median(per_cpu(a) / per_cpu(b) for a, b in zip(q, s))
        print(f"{t:>7} {tool:>10} {se:>14.0f} {qe:>12.0f} {ratio:>5.2f}x {sc:>15.2f} {qc:>13.2f} {sp:>12.0f} {qp:>11.0f} {pratio:>5.2f}x")
PY
