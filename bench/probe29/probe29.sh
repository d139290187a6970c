#!/usr/bin/env bash
# Replays issue 29's hostile probe against a qpslab binary ($Q, default
# target/release/qpslab). One line per case: PASS|FAIL Pnn <what> — <evidence>,
# then "N passed, N failed". Everything it starts (sandboxes, fake servers,
# the UI, bind mounts, stopped processes) is undone by the EXIT trap.
# Loopback only; every load is a few seconds with <= 8 users (one case
# opens 256 connections at a fixed low rate).
#
# P01-P36 replay issue 29 (F1..F8, WARN, the "also" list, and the cases that
# passed then); P37-P45 are variations of the fixed findings (other shards,
# other commands, other script steps, other stores). ONLY="c01 c12" runs
# some cases alone (after the setup). Needs root (bind mounts, tmpfs),
# python3, curl, the mysql client and Debian's mariadbd.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)   # fake.py, slowloris.py
Q=${Q:-$HERE/../../target/release/qpslab}
PB=${PB:-$HERE/../../target/probe29}  # everything this script writes
H=$PB/home                # QPSLAB_HOME: sandboxes and the default store
W=$PB/work                # scratch: outputs, stores, scripts
export QPSLAB_HOME=$H
S=p29a                    # the main sandbox (data: 2 x 10000)
S2=p29b                   # the sandbox the pid-file cases abuse
PASSN=0; FAILN=0
BG=()                     # background pids to kill at exit
STOPPED=()                # pids we SIGSTOPped (SIGCONT at exit)
MOUNTS=()                 # bind mounts to undo
T0=$(date +%s)

cleanup() {
  disown -a 2>/dev/null
  for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
  for p in "${BG[@]}"; do kill -9 "$p" 2>/dev/null; done
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
  if [ -d "$H/sandboxes" ]; then
    for d in "$H"/sandboxes/*/; do
      [ -d "$d" ] || continue
      n=$(basename "$d")
      timeout 60 "$Q" server stop --name "$n" >/dev/null 2>&1
      timeout 60 "$Q" server destroy --name "$n" >/dev/null 2>&1
      # a server destroy refused or missed: kill what runs on its my.cnf
      for p in $(pgrep -x mariadbd); do
        grep -q "$H/sandboxes/$n/my.cnf" /proc/$p/cmdline 2>/dev/null && kill -9 "$p" 2>/dev/null
      done
    done
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

res() { # res PASS|FAIL id what evidence
  local ev=${4//$'\n'/ }
  printf '%s %s %s — %s\n' "$1" "$2" "$3" "${ev:0:400}"
  if [ "$1" = PASS ]; then PASSN=$((PASSN + 1)); else FAILN=$((FAILN + 1)); fi
}
verdict() { if [ "$1" = 0 ]; then res PASS "${@:2}"; else res FAIL "${@:2}"; fi; }
now() { date +%s.%N; }
since() { python3 -c "import sys;print('%.1f'%(float(sys.argv[2])-float(sys.argv[1])))" "$1" "$(now)"; }
le() { python3 -c "import sys;sys.exit(0 if float(sys.argv[1])<=float(sys.argv[2]) else 1)" "$1" "$2"; }

# bgrun NAME LIMIT cmd... : runs cmd in the background (SIGINT back to
# default, as a foreground command has it), out/err in $W/NAME.{out,err},
# killed after LIMIT s; sets BGPID and BGT0.
bgrun() {
  local name=$1 limit=$2; shift 2
  BGT0=$(now)
  python3 -c 'import os,signal,sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    "$@" >"$W/$name.out" 2>"$W/$name.err" &
  BGPID=$!
  BG+=("$BGPID")
  (sleep "$limit"; kill -9 "$BGPID" 2>/dev/null) >/dev/null 2>&1 &
  BG+=("$!"); disown "$!"
}
# waitrc PID -> sets RC and WALL (since BGT0)
waitrc() { { wait "$1"; RC=$?; } 2>/dev/null; WALL=$(since "$BGT0"); }
# endwatch PID SECS: sleeps SECS, noting in ENDW when PID exited (since BGT0)
endwatch() {
  local until; until=$(python3 -c "import time;print(time.time()+$2)"); ENDW=""
  while le "$(now)" "$until"; do
    if [ -z "$ENDW" ]; then
      local s; s=$(awk '{print $3}' /proc/$1/stat 2>/dev/null)
      { [ -z "$s" ] || [ "$s" = Z ]; } && ENDW=$(since "$BGT0")
    fi
    sleep 0.2
  done
}

mpid() { # the mariadbd of sandbox $1, found by its my.cnf
  local p
  for p in $(pgrep -x mariadbd); do
    grep -q "$H/sandboxes/$1/my.cnf" /proc/$p/cmdline 2>/dev/null && { echo "$p"; return; }
  done
}
sql() { mysql -S "$H/sandboxes/$S/mysqld.sock" -uroot -N -B -e "$1" 2>&1; }
port_of() { python3 -c "import json;print(json.load(open('$H/sandboxes/$1/meta.json'))['port'])"; }
panicked() { grep -l -i -E "panicked|RUST_BACKTRACE" "$@" >/dev/null 2>&1; }
# jq-lite: jget FILE EXPR (python expression over d)
jget() { python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print($2)" "$1" 2>/dev/null; }
# last stored run's field in store $1 ("" for the default)
lastrun() {
  local st=()
  [ -n "$1" ] && st=(--store "$1")
  timeout 30 "$Q" runs "${st[@]}" --format json 2>/dev/null |
    python3 -c "import json,sys;r=max(json.load(sys.stdin),key=lambda r:r['id']);print(r['$2'])" 2>/dev/null
}
STOPQ() { kill -STOP "$1"; STOPPED+=("$1"); }
CONTQ() { kill -CONT "$1"; }
RUN=(run oltp_point_select --server "$S" --table-size 10000 --tables 2)

setup() {
  for p in $(pgrep -x mariadbd); do
    grep -q "$H/sandboxes/" /proc/$p/cmdline 2>/dev/null && kill -9 "$p"
  done
  rm -rf "$PB"; mkdir -p "$H" "$W"
  timeout 120 "$Q" server start --name "$S" >"$W/setup.out" 2>&1 || { cat "$W/setup.out"; exit 1; }
  timeout 120 "$Q" prepare oltp_point_select --server "$S" --tables 2 --table-size 10000 >>"$W/setup.out" 2>&1 ||
    { cat "$W/setup.out"; exit 1; }
  PORT=$(port_of "$S")
  cat >"$W/loop_event.lua" <<'EOF'
function event()
  local x = 0
  while true do x = x + 1 end
end
EOF
  cat >"$W/loop_init.lua" <<'EOF'
function thread_init()
  local x = 0
  while true do x = x + 1 end
end
function event() end
EOF
  cat >"$W/exit_init.lua" <<'EOF'
function thread_init() os.exit(0) end
function event() end
EOF
  cat >"$W/opt_xss.lua" <<'EOF'
sysbench.cmdline.options = { tag = {"a tag", "none"} }
function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end
function event() con:query("SELECT 1") end
function thread_done() con:disconnect() end
EOF
}

# ---------------------------------------------------------------- F1
c01() { # server SIGSTOPped across the run's end
  bgrun c01 40 "$Q" "${RUN[@]}" --threads 4 --time 5 --store "$W/c01.db"
  sleep 3; local m; m=$(mpid "$S"); STOPQ "$m"
  endwatch "$BGPID" 11; CONTQ "$m"
  waitrc "$BGPID"; WALL=${ENDW:-$WALL}
  local st; st=$(lastrun "$W/c01.db" status)
  local bad=0 why=""
  panicked "$W/c01.out" "$W/c01.err" && { bad=1; why+="panic; "; }
  [ "$RC" = 3 ] || [ "$RC" = 1 ] || { bad=1; why+="rc=$RC (want 3 degraded or 1); "; }
  [ "$st" != ok ] || { bad=1; why+="stored ok; "; }
  le "$WALL" 9 || { bad=1; why+="took ${WALL}s for a 5 s run (stall 3..14 s; limit 9 = 5 s + 2 s stop grace + 2 s); "; }
  local tt; tt=$(grep -m1 'total time:' "$W/c01.out" | awk '{print $3}')
  le "${tt%s}" 5.5 || { bad=1; why+="measured window ${tt} for --time 5; "; }
  verdict $bad P01 "F1 server stalled across run end (4 users)" "${why}rc=$RC stored=$st wall=${WALL}s total time=${tt} panics=$(cat "$W/c01.out" "$W/c01.err" | grep -c -i panick) $(grep -h -i -m1 -E 'failed events:' "$W/c01.out" | tr -s ' ' | head -c 100)"
}
# ---------------------------------------------------------------- F2
c02() { # closed stdout
  local t; t=$(now)
  timeout -k 3 30 "$Q" "${RUN[@]}" --threads 2 --time 3 --store "$W/c02.db" 2>"$W/c02.err" | head -14 >/dev/null
  local rc=${PIPESTATUS[0]} w; w=$(since "$t")
  local st; st=$(lastrun "$W/c02.db" status)
  local bad=0
  [ "$rc" = 0 ] && [ "$st" = ok ] && ! panicked "$W/c02.err" || bad=1
  verdict $bad P02 "F2 run | head -14" "rc=$rc stored=$st wall=${w}s stderr=$(head -c 200 "$W/c02.err")"
}
c03() { # full stdout
  timeout 20 "$Q" runs --store "$W/c02.db" >/dev/full 2>"$W/c03a.err"; local rc1=$?
  timeout 20 "$Q" show 1 --store "$W/c02.db" >/dev/full 2>"$W/c03b.err"; local rc2=$?
  timeout -k 3 30 "$Q" "${RUN[@]}" --threads 2 --time 2 --store "$W/c02.db" >/dev/full 2>"$W/c03c.err"; local rc3=$?
  local st; st=$(lastrun "$W/c02.db" status)
  local bad=0
  [ "$rc1" = 5 ] && [ "$rc2" = 5 ] && [ "$rc3" = 5 ] && [ "$st" = ok ] || bad=1
  panicked "$W"/c03?.err && bad=1
  for f in "$W"/c03?.err; do [ "$(grep -c . "$f")" -le 2 ] || bad=1; done
  verdict $bad P03 "F2 stdout on /dev/full (runs, show, run)" "rc runs=$rc1 show=$rc2 run=$rc3 (want 5) run stored=$st; stderr: $(head -c 150 "$W/c03a.err") | $(head -c 150 "$W/c03c.err")"
}
# ---------------------------------------------------------------- F3
c04() { # memory growth with run length, --report-interval 0.1
  bgrun c04 60 "$Q" "${RUN[@]}" --threads 2 --time 22 --report-interval 0.1 --store "$W/c04.db"
  local rss=() i r
  for i in $(seq 1 30); do
    sleep 1
    r=$(awk '/VmRSS/{print $2}' /proc/$BGPID/status 2>/dev/null)
    [ -n "$r" ] || break
    rss+=("$r")
  done
  waitrc "$BGPID"
  # slope from second 5 to the last sample (KB/s)
  local n=${#rss[@]}; local a=${rss[4]:-0} b=${rss[$((n - 1))]:-0}
  local span=$(( n - 5 )); [ "$span" -gt 0 ] || span=1
  local slope=$(( (b - a) / span ))
  local bad=0
  [ "$a" -gt 0 ] && [ "$n" -ge 15 ] && [ "$slope" -lt 50 ] && [ "$RC" = 0 ] || bad=1
  verdict $bad P04 "F3 memory vs run length (--report-interval 0.1, 22 s)" "RSS ${a} KB at 5 s -> ${b} KB at ${n} s = ${slope} KB/s (limit 50; issue: 3700) rc=$RC; samples: ${rss[*]}"
}
# ---------------------------------------------------------------- F4
c05() { # endless loop in event()
  bgrun c05 40 "$Q" run "$W/loop_event.lua" --server "$S" --threads 2 --time 3 --store "$W/c05.db"
  waitrc "$BGPID"
  local bad=0
  [ "$RC" = 1 ] && le "$WALL" 9 && grep -q -i "event" "$W/c05.out" "$W/c05.err" || bad=1
  panicked "$W/c05.out" "$W/c05.err" && bad=1
  verdict $bad P05 "F4 Lua event() endless loop, --time 3" "rc=$RC wall=${WALL}s: $(grep -h -i -m2 -E 'loop|yield|event|stopped' "$W/c05.err" "$W/c05.out" | head -c 250)"
}
c06() { # endless loop in thread_init
  bgrun c06 40 "$Q" run "$W/loop_init.lua" --server "$S" --threads 2 --time 3 --store "$W/c06.db"
  waitrc "$BGPID"
  local bad=0
  [ "$RC" = 1 ] && le "$WALL" 9 && grep -q -i "thread_init" "$W/c06.out" "$W/c06.err" || bad=1
  panicked "$W/c06.out" "$W/c06.err" && bad=1
  verdict $bad P06 "F4 Lua thread_init endless loop, --time 3" "rc=$RC wall=${WALL}s: $(grep -h -i -m2 -E 'thread_init|loop|yield' "$W/c06.err" "$W/c06.out" | head -c 250)"
}
c07() { # first SIGTERM / SIGINT honoured inside a looping script
  bgrun c07a 40 "$Q" run "$W/loop_event.lua" --server "$S" --threads 2 --time 30 --store "$W/c07.db"
  sleep 2; local t; t=$(now); kill -TERM "$BGPID"; waitrc "$BGPID"; local rc1=$RC w1; w1=$(since "$t")
  bgrun c07b 40 "$Q" run "$W/loop_init.lua" --server "$S" --threads 2 --time 30 --store "$W/c07.db"
  sleep 2; t=$(now); kill -INT "$BGPID"; waitrc "$BGPID"; local rc2=$RC w2; w2=$(since "$t")
  local bad=0
  le "$w1" 3.5 && le "$w2" 3.5 && [ "$rc1" != 137 ] && [ "$rc2" != 137 ] && [ "$rc1" != 143 ] || bad=1
  verdict $bad P07 "F4 first SIGTERM (event loop) / SIGINT (thread_init loop) stop the run" "SIGTERM: rc=$rc1 after ${w1}s; SIGINT: rc=$rc2 after ${w2}s (137 = killed by the probe's watchdog)"
}
c08() { # os.exit(0) in thread_init
  bgrun c08 30 "$Q" run "$W/exit_init.lua" --server "$S" --threads 2 --time 3 --store "$W/c08.db"
  waitrc "$BGPID"
  local st; st=$(lastrun "$W/c08.db" status)
  local bad=0
  [ "$RC" = 1 ] && grep -q "os.exit(0)" "$W/c08.out" "$W/c08.err" || bad=1
  verdict $bad P08 "F4 os.exit(0) in thread_init" "rc=$RC stored=$st: $(grep -h -m1 'os.exit' "$W/c08.err" "$W/c08.out" | head -c 200)"
}
# ---------------------------------------------------------------- F5
c09_11() { # stale pid file naming an unrelated process
  timeout 90 "$Q" server start --name "$S2" >"$W/c09.start" 2>&1
  local m; m=$(mpid "$S2"); local p2; p2=$(port_of "$S2")
  sleep 600 & local decoy=$!; BG+=("$decoy"); disown "$decoy"
  echo "$decoy" >"$H/sandboxes/$S2/mysqld.pid"
  # P09 status
  local out; out=$(timeout 30 "$Q" server status --name "$S2" 2>&1); local rc=$?
  local bad=0
  { echo "$out" | grep -q running && echo "$out" | grep -q "$m"; } || bad=1
  verdict $bad P09 "F5 stale pid file: server status" "mariadbd pid $m, pid file says $decoy (sleep); status rc=$rc: $(echo "$out" | head -c 200)"
  # P10 start again, then destroy must refuse while it runs
  local t; t=$(now)
  out=$(timeout 60 "$Q" server start --name "$S2" 2>&1); local rcs=$? ws; ws=$(since "$t")
  local p2b; p2b=$(port_of "$S2"); local m2; m2=$(mpid "$S2")
  out2=$(timeout 60 "$Q" server destroy --name "$S2" 2>&1); local rcd=$?
  bad=0
  [ "$rcs" = 0 ] && [ "$p2b" = "$p2" ] && [ "$m2" = "$m" ] && le "$ws" 10 || bad=1
  [ "$rcd" != 0 ] && [ -d "$H/sandboxes/$S2/data/mysql" ] && kill -0 "$m" 2>/dev/null && kill -0 "$decoy" 2>/dev/null || bad=1
  verdict $bad P10 "F5 stale pid file: server start again, then destroy while running" "start rc=$rcs in ${ws}s port $p2->$p2b pid $m->$m2 ($(echo "$out" | tail -1 | head -c 120)); destroy rc=$rcd datadir $([ -d "$H/sandboxes/$S2/data/mysql" ] && echo kept || echo DELETED) mariadbd $(kill -0 "$m" 2>/dev/null && echo alive || echo gone): $(echo "$out2" | head -c 160)"
  # P11 stop signals the real mariadbd only; start comes back on its port
  echo "$decoy" >"$H/sandboxes/$S2/mysqld.pid"
  out=$(timeout 60 "$Q" server stop --name "$S2" 2>&1); local rcst=$?
  local alive=no; kill -0 "$m" 2>/dev/null && alive="yes, state $(awk '{print $3}' /proc/$m/stat 2>/dev/null)"
  local gone_after=""; local i
  for i in $(seq 50); do kill -0 "$m" 2>/dev/null || { gone_after="$(( i * 100 )) ms"; break; }; sleep 0.1; done
  local dalive=no; kill -0 "$decoy" 2>/dev/null && dalive=yes
  t=$(now); timeout 90 "$Q" server start --name "$S2" >"$W/c11.start" 2>&1; rcs=$?; ws=$(since "$t")
  p2b=$(port_of "$S2")
  bad=0
  [ "$rcst" = 0 ] && { [ "$alive" = no ] || [ "$alive" = "yes, state Z" ]; } && [ $dalive = yes ] && [ "$rcs" = 0 ] && [ "$p2b" = "$p2" ] || bad=1
  verdict $bad P11 "F5 stale pid file: server stop, then start" "stop rc=$rcst ($(echo "$out" | tail -1 | head -c 100)) mariadbd alive when stop returned: $alive (gone ${gone_after:-never within 5 s} later), decoy: $dalive; start rc=$rcs in ${ws}s port $p2->$p2b: $(tail -1 "$W/c11.start" | head -c 150)"
  kill -9 "$decoy" 2>/dev/null
  timeout 60 "$Q" server stop --name "$S2" >/dev/null 2>&1
  timeout 60 "$Q" server destroy --name "$S2" >/dev/null 2>&1
}
# ---------------------------------------------------------------- F6
c12() { # the same campaign file run twice at once
  cat >"$W/camp.toml" <<EOT
name = "p29-twice"
threads = [1, 2]
time = 2
[data]
tables = 2
table_size = 10000
[[server]]
label = "p29"
dsn = "mysql://root@127.0.0.1:$PORT/sbtest"
[[workload]]
name = "oltp_point_select"
EOT
  bgrun c12a 120 "$Q" campaign run "$W/camp.toml" --store "$W/c12.db"; local a=$BGPID
  sleep 0.3
  bgrun c12b 120 "$Q" campaign run "$W/camp.toml" --store "$W/c12.db"; local b=$BGPID
  waitrc "$b"; local rcb=$RC; waitrc "$a"; local rca=$RC
  local n; n=$(timeout 30 "$Q" runs --store "$W/c12.db" --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))')
  local bad=0
  [ "$rca" = 0 ] && [ "$rcb" != 0 ] && [ "$n" = 2 ] || bad=1
  verdict $bad P12 "F6 same campaign twice at once" "first rc=$rca, second rc=$rcb: $(grep -v '^\s*$' "$W/c12b.err" | head -1 | head -c 160); runs stored=$n (want 2)"
}
# ---------------------------------------------------------------- F7
c13() { # a server's error text: escapes, CR/LF, 3 KB
  rm -f "$W/fp.err"; python3 "$HERE/fake.py" errgreet "$W/fp.err" & BG+=("$!"); disown "$!"
  local i; for i in $(seq 50); do [ -s "$W/fp.err" ] && break; sleep 0.1; done
  timeout 20 "$Q" run oltp_point_select --host 127.0.0.1 --port "$(cat "$W/fp.err")" --time 1 --no-store >"$W/c13a.out" 2>"$W/c13a.err"; local rc1=$?
  timeout 30 "$Q" run oltp_point_select --host 127.0.0.1 --port "$PORT" --user root --db "$(printf 'x\033[31mRED\r\nFAKE-INJECTED-LINE')" --time 1 --no-store >"$W/c13b.out" 2>"$W/c13b.err"; local rc2=$?
  local esc cr long inj
  esc=$(cat "$W"/c13?.out "$W"/c13?.err | grep -c $'\x1b')
  cr=$(cat "$W"/c13?.out "$W"/c13?.err | grep -c $'\r')
  long=$(cat "$W"/c13?.out "$W"/c13?.err | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
  inj=$(cat "$W"/c13?.out "$W"/c13?.err | grep -c '^FAKE-INJECTED-LINE')
  local bad=0
  [ "$esc" = 0 ] && [ "$cr" = 0 ] && [ "$long" -le 1100 ] && [ "$inj" = 0 ] && [ "$rc1" != 0 ] && [ "$rc2" != 0 ] || bad=1
  verdict $bad P13 "F7 server error text (fake ERR greeting; real 'Unknown database' with escapes)" "rc fake=$rc1 real=$rc2; lines with ESC=$esc CR=$cr injected=$inj longest=$long chars (limit 1100); fake: $(head -c 160 "$W/c13a.err" | cat -v); real: $(head -c 160 "$W/c13b.err" | cat -v)"
}
# ---------------------------------------------------------------- F8
c14() { # read commands create nothing beside a writable store
  local st=$W/c02.db pre
  pre=$(ls "$st"-wal "$st"-shm 2>/dev/null | wc -l)
  local rcs=""
  timeout 30 "$Q" runs --store "$st" >/dev/null 2>&1; rcs+="runs=$? "
  timeout 30 "$Q" show 1 --store "$st" >/dev/null 2>&1; rcs+="show=$? "
  timeout 30 "$Q" compare 1 2 --store "$st" >/dev/null 2>&1; rcs+="compare=$? "
  timeout 30 "$Q" metrics 1 --store "$st" >/dev/null 2>&1; rcs+="metrics=$? "
  timeout 30 "$Q" scalability --store "$st" >/dev/null 2>&1; rcs+="scalability=$? "
  timeout 30 "$Q" best --store "$st" >/dev/null 2>&1; rcs+="best=$? "
  timeout 30 "$Q" report 1 --store "$st" -o "$W/c14.html" >/dev/null 2>&1; rcs+="report=$? "
  timeout 30 "$Q" chart 1 --store "$st" -o "$W/c14.svg" >/dev/null 2>&1; rcs+="chart=$? "
  timeout 30 "$Q" runs --store "$W/none.db" >/dev/null 2>&1; rcs+="runs(missing store)=$? "
  [ "$rcs" = "runs=0 show=0 compare=0 metrics=0 scalability=0 best=0 report=0 chart=0 runs(missing store)=2 " ] || pre="$pre (some read command failed)"
  local side; side=$(ls "$st"-wal "$st"-shm "$st"-journal "$W/none.db" 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')
  local bad=0
  [ -z "$side" ] && [ "$pre" = 0 ] || bad=1
  verdict $bad P14 "F8 read commands create no -wal/-shm (and no missing store)" "before: $pre side files; after: '${side}'; $rcs"
}
romount() { # romount SRC MNT: a read-only bind mount
  mkdir -p "$2"; mount --bind "$1" "$2" && MOUNTS+=("$2") && mount -o remount,bind,ro "$2"
}
c15() { # a hot WAL on read-only media
  local d=$W/hot; mkdir -p "$d"
  timeout 30 "$Q" "${RUN[@]}" --threads 1 --time 1 --store "$d/s.db" >/dev/null 2>&1
  bgrun c15 30 "$Q" "${RUN[@]}" --threads 1 --time 20 --store "$d/s.db"
  sleep 3.5; kill -9 "$BGPID"; wait "$BGPID" 2>/dev/null
  local walsz; walsz=$(stat -c %s "$d/s.db-wal" 2>/dev/null || echo 0)
  mkdir -p "$W/ro1src" "$W/ro2src"
  cp "$d/s.db" "$d/s.db-wal" "$d/s.db-shm" "$W/ro1src/" 2>/dev/null
  cp "$d/s.db" "$d/s.db-wal" "$W/ro2src/" 2>/dev/null
  romount "$W/ro1src" "$W/ro1" ; romount "$W/ro2src" "$W/ro2"
  local rw ro1 ro2
  rw=$(timeout 30 "$Q" runs --store "$d/s.db" 2>&1)
  ro1=$(timeout 30 "$Q" runs --store "$W/ro1/s.db" 2>&1); local rc1=$?
  ro2=$(timeout 30 "$Q" runs --store "$W/ro2/s.db" 2>&1); local rc2=$?
  local st2; st2=$(lastrun "$d/s.db" status)
  has2() { echo "$1" | grep -q -E '^ *2 '; }
  local bad=0
  [ "$walsz" -gt 0 ] || bad=1
  has2 "$ro1" || bad=1
  { has2 "$ro2" || echo "$ro2" | grep -q -i "missing"; } || bad=1
  [ "$st2" = failed ] || bad=1
  verdict $bad P15 "F8 hot WAL (writer killed -9) read on read-only media" "wal=${walsz}B; writable: killed run 2 stored=$st2; ro+shm rc=$rc1 run2 $(has2 "$ro1" && echo listed || echo MISSING); ro no-shm rc=$rc2 run2 $(has2 "$ro2" && echo listed || (echo "$ro2" | grep -q -i missing && echo 'missing, with a note' || echo 'MISSING silently')); $(echo "$ro2" | grep -i -m1 missing | head -c 150)"
}
c16() { # garbage in the middle of a store, then a writer
  [ -s "$W/c04.db" ] || timeout 40 "$Q" "${RUN[@]}" --threads 1 --time 4 --report-interval 0.1 --store "$W/c04.db" >/dev/null 2>&1
  cp "$W/c04.db" "$W/c16.db"
  local sz; sz=$(stat -c %s "$W/c16.db")
  # a leaf page of the samples table in the middle of the file (a free page would be harmless)
  local pg; pg=$(python3 -c "
import sqlite3,sys;c=sqlite3.connect(sys.argv[1])
p=[r[0] for r in c.execute(\"select pageno from dbstat where name='samples' and pagetype='leaf' order by pageno\")]
print(p[len(p)//2])" "$W/c16.db" 2>/dev/null)
  [ -n "$pg" ] || pg=$(( sz / 4096 / 2 + 1 ))
  head -c 4096 /dev/urandom | dd of="$W/c16.db" bs=4096 seek="$(( pg - 1 ))" conv=notrunc status=none
  local qc; qc=$(python3 -c "import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);print(c.execute('pragma quick_check(1)').fetchone()[0])" "$W/c16.db" 2>&1 | head -c 80)
  timeout 40 "$Q" "${RUN[@]}" --threads 1 --time 1 --store "$W/c16.db" >"$W/c16.out" 2>"$W/c16.err"; local rc=$?
  local bad=0
  [ "$rc" != 0 ] && grep -q -i -E "damaged|corrupt|malformed" "$W/c16.err" "$W/c16.out" || bad=1
  panicked "$W/c16.err" && bad=1
  verdict $bad P16 "F8 garbage in the middle of a store, then run" "samples leaf page $pg of $((sz / 4096)) overwritten (sqlite quick_check: $qc); run rc=$rc: $(grep -h -i -m1 -E 'damaged|corrupt|malformed|store' "$W/c16.err" "$W/c16.out" | head -c 200)"
}
# ---------------------------------------------------------------- WARN
c17() { # qpslab itself SIGSTOPped 4 s
  bgrun c17 40 "$Q" "${RUN[@]}" --threads 2 --time 8 --store "$W/c17.db"
  sleep 2.5; STOPQ "$BGPID"; sleep 4; CONTQ "$BGPID"
  waitrc "$BGPID"
  local v; v=$(grep -m1 '^Bottleneck' "$W/c17.out")
  local st; st=$(lastrun "$W/c17.db" status)
  local bad=0
  [ "$RC" = 3 ] && echo "$v" | grep -q "client-stalled" && [ "$st" = degraded ] || bad=1
  verdict $bad P17 "WARN qpslab SIGSTOPped 4 s mid-run" "rc=$RC stored=$st; $v"
}
# ---------------------------------------------------------------- also
c18() { # 256 threads on a default sandbox
  timeout -k 3 90 "$Q" "${RUN[@]}" --threads 256 --time 3 --rate 1000 --store "$W/c18.db" >"$W/c18.out" 2>"$W/c18.err"; local rc=$?
  local bad=0
  [ "$rc" = 0 ] && ! grep -q -E "1040|[Tt]oo many" "$W/c18.out" "$W/c18.err" || bad=1
  verdict $bad P18 "256 threads on a default sandbox (--rate 1000)" "rc=$rc $(grep -h -m1 -E '1040|[Tt]oo many|transactions:' "$W/c18.err" "$W/c18.out" | head -c 200)"
}
c19() { # kill -9 of the server mid-run, restart: reconnects, degraded, 2013 not "ignored"
  bgrun c19 60 "$Q" "${RUN[@]}" --threads 4 --time 10 --format json --store "$W/c19.db"
  sleep 2.5; kill -9 "$(mpid "$S")"; sleep 1
  timeout 60 "$Q" server start --name "$S" >"$W/c19.start" 2>&1; local rcs=$?
  waitrc "$BGPID"
  local j=$W/c19.out
  local ign fe rec un codes
  ign=$(jget "$j" "d['totals']['ignored_errors']"); fe=$(jget "$j" "d['totals']['failed_events']")
  rec=$(jget "$j" "d['totals']['reconnects']"); un=$(jget "$j" "d['totals']['unreachable_seconds']")
  codes=$(jget "$j" "d['totals']['errors_by_code']" | tr -d ' ')
  local st; st=$(lastrun "$W/c19.db" status)
  local bad=0
  [ "$RC" = 3 ] && [ "$ign" = 0 ] && [ "$st" = degraded ] && [ "${rec:-0}" != 0 ] || bad=1
  panicked "$W/c19.err" && bad=1
  verdict $bad P19 "kill -9 server mid-run + restart; 2013 not under ignored errors" "rc=$RC stored=$st restart rc=$rcs; ignored=$ign failed_events=$fe reconnects=$rec unreachable_s=$un errors_by_code=$codes $(tail -1 "$W/c19.err" | head -c 120)"
}
c20() { # no phantom transactions: oltp_insert, kill -9 + restart, rows vs reported
  local io=(--server "$S" --db ins29 --tables 1 --table-size 100)
  sql "CREATE DATABASE IF NOT EXISTS ins29" >/dev/null
  timeout 60 "$Q" prepare oltp_insert "${io[@]}" >"$W/c20.prep" 2>&1
  local before; before=$(sql "SELECT COUNT(*) FROM ins29.sbtest1")
  bgrun c20 60 "$Q" run oltp_insert "${io[@]}" --threads 4 --time 8 --format json --store "$W/c20.db"
  sleep 2.5; kill -9 "$(mpid "$S")"; sleep 1
  timeout 60 "$Q" server start --name "$S" >"$W/c20.start" 2>&1
  waitrc "$BGPID"
  local after; after=$(sql "SELECT COUNT(*) FROM ins29.sbtest1")
  local tx fe; tx=$(jget "$W/c20.out" "d['totals']['transactions']"); fe=$(jget "$W/c20.out" "d['totals']['failed_events']")
  local delta=$(( ${after:-0} - ${before:-0} ))
  local bad=0
  [[ "$tx" =~ ^[0-9]+$ ]] && [ "$tx" -gt 0 ] && [ "$tx" -le "$delta" ] && [ "$delta" -le $(( tx + ${fe:-0} + 4 )) ] && [ "$RC" = 3 ] || bad=1
  verdict $bad P20 "no phantom transactions (oltp_insert, kill -9 + restart)" "rc=$RC reported tx=$tx failed_events=$fe; rows inserted=$delta (want tx <= rows <= tx+failed+4)"
  sql "DROP DATABASE ins29" >/dev/null
}
c21() { # --monitor-interval 0
  timeout 20 "$Q" "${RUN[@]}" --time 1 --monitor-interval 0 --no-store >"$W/c21.out" 2>"$W/c21.err"; local rc=$?
  local n; n=$(grep -c . "$W/c21.err")
  local bad=0
  [ "$rc" = 2 ] && [ "$n" -le 2 ] || bad=1
  verdict $bad P21 "--monitor-interval 0 refused" "rc=$rc stderr lines=$n: $(head -c 160 "$W/c21.err")"
}
# ---------------------------------------------------------------- XSS data + UI
L1='<script>alert("lbl")</script>'
V1='"><img src=x onerror=alert(2)>'
C1='<svg onload=alert(3)>'
O1='</title><script>alert(4)</script>'
RAW_RE='<script>alert\(|<img src=x|<svg onload|</title><script>'
xss_data() {
  local x=$W/xss.db
  timeout 30 "$Q" "${RUN[@]}" --threads 1 --time 1 --label "$L1" --variant "$V1" --store "$x" >/dev/null 2>"$W/xss1.err"
  timeout 30 "$Q" run "$W/opt_xss.lua" --server "$S" --threads 1 --time 1 --tag "$O1" --label "$O1" --store "$x" >/dev/null 2>"$W/xss2.err"
  cat >"$W/xss.toml" <<EOT
name = '$C1 camp'
description = '$L1'
threads = [1]
time = 1
[data]
tables = 2
table_size = 10000
[[server]]
label = '$V1'
dsn = "mysql://root@127.0.0.1:$PORT/sbtest"
[[variant]]
name = '$L1'
[[workload]]
name = "oltp_point_select"
EOT
  timeout 60 "$Q" campaign run "$W/xss.toml" --store "$x" >/dev/null 2>"$W/xss3.err"
  XSS_NOTE="stored runs: $(timeout 20 "$Q" runs --store "$x" --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))'); errs: $(cat "$W"/xss?.err | grep -v '^\s*$' | head -2 | head -c 200)"
}
ui_start() {
  UIPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  bgrun ui 400 "$Q" ui --port "$UIPORT" --store "$W/xss.db"; UIPID=$BGPID
  local i; for i in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$UIPORT/" && break; sleep 0.2; done
}
c22() { # slowloris
  local r; r=$(timeout 40 python3 "$HERE/slowloris.py" "$UIPORT" 30)
  local tr=${r#trickle=}; tr=${tr%% *}; local id=${r##*idle=}
  local bad=0
  le "$tr" 15 && le "$id" 15 || bad=1
  verdict $bad P22 "UI slowloris: header-read timeout" "seconds held open: $r (limit 15; 30 = never cut)"
}
c23() { # Host header (DNS rebinding)
  local evil ok
  evil=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: evil.example:$UIPORT" "http://127.0.0.1:$UIPORT/")
  ok=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$UIPORT/")
  local bad=0
  [ "$evil" != 200 ] && [ "$evil" != 000 ] && [ "$ok" = 200 ] || bad=1
  verdict $bad P23 "UI refuses a foreign Host header" "Host evil.example -> $evil; Host 127.0.0.1 -> $ok"
}
c24() { # nosniff + CSP
  local hdr miss=""
  for path in / /run/1 /campaign/1 /nonexistent; do
    hdr=$(curl -s -D - -o /dev/null "http://127.0.0.1:$UIPORT$path" | tr -d '\r')
    echo "$hdr" | grep -q -i '^x-content-type-options: nosniff' || miss+="$path:nosniff "
    echo "$hdr" | grep -q -i '^content-security-policy:' || miss+="$path:csp "
  done
  local bad=0; [ -z "$miss" ] || bad=1
  verdict $bad P24 "UI nosniff and CSP headers" "missing: '${miss}' (checked / /run/1 /campaign/1 /nonexistent)"
}
c34() { # XSS in pages: UI and report
  local found="" f
  for path in / /run/1 /run/2 /run/3 /campaign/1 "/overlay?runs=1,2,3"; do
    curl -s "http://127.0.0.1:$UIPORT$path" >"$W/xss_page.html"
    grep -q -E "$RAW_RE" "$W/xss_page.html" && found+="ui$path "
  done
  for id in 1 2 3; do
    timeout 30 "$Q" report "$id" --store "$W/xss.db" -o "$W/xss_r$id.html" >/dev/null 2>&1
  done
  timeout 30 "$Q" report --campaign 1 --store "$W/xss.db" -o "$W/xss_c.html" >/dev/null 2>&1
  for f in "$W"/xss_r?.html "$W/xss_c.html"; do
    [ -s "$f" ] || { found+="$(basename "$f"):not-written "; continue; }
    grep -q -E "$RAW_RE" "$f" && found+="$(basename "$f") "
  done
  # reflected: a payload in the URL may come back only as text/plain (nosniff)
  local u
  for u in '/run/%3Cscript%3Ealert(1)%3C%2Fscript%3E' '/campaign/%3Csvg%20onload=alert(1)%3E' \
           '/overlay?runs=%3Cscript%3Ealert(1)%3C%2Fscript%3E' '/?workload=%3Cscript%3Ealert(1)%3C%2Fscript%3E' \
           '/run/1/flame/%3Cscript%3Ealert(1)%3C%2Fscript%3E' '/flame/diff?a=%3Cscript%3Ealert(1)%3C%2Fscript%3E&b=1'; do
    local ct; ct=$(curl -s -o "$W/xss_page.html" -w '%{content_type}' "http://127.0.0.1:$UIPORT$u")
    case $ct in text/html*) grep -q -E "$RAW_RE" "$W/xss_page.html" && found+="ui-reflected$u ";; esac
  done
  local esc; esc=$(cat "$W"/xss_r?.html "$W/xss_c.html" 2>/dev/null | grep -c -E '&lt;script&gt;alert|&lt;svg onload|&lt;img src=x')
  local bad=0; [ -z "$found" ] && [ "$esc" -gt 0 ] || bad=1
  verdict $bad P25 "XSS in label/variant/campaign/script option escaped (ui, report; 6 reflected URLs)" "raw payload in: '${found}'; escaped payload lines seen: $esc; $XSS_NOTE"
}
# ---------------------------------------------------------------- also (cont.)
c25() { # --store ''
  timeout 20 "$Q" runs --store '' >"$W/c25.out" 2>"$W/c25.err"; local rc=$?
  local bad=0
  [ "$rc" = 2 ] && [ "$(grep -c . "$W/c25.err")" -le 2 ] && ! grep -q "is not one of" "$W/c25.err" || bad=1
  verdict $bad P26 "--store '' gets a clear line" "rc=$rc: $(head -c 200 "$W/c25.err")"
}
c26() { # QPSLAB_HOME is a file
  : >"$W/homefile"
  QPSLAB_HOME=$W/homefile timeout 20 "$Q" runs >"$W/c26a.out" 2>"$W/c26a.err"; local rc1=$?
  QPSLAB_HOME=$W/homefile timeout 20 "$Q" server list >"$W/c26b.out" 2>"$W/c26b.err"; local rc2=$?
  QPSLAB_HOME=$W/homefile timeout 20 "$Q" run oltp_point_select --time 1 >"$W/c26c.out" 2>"$W/c26c.err"; local rc3=$?
  local bad=0
  for f in "$W"/c26?.err; do grep -q "$W/homefile" "$f" || bad=1; done
  [ "$rc1" != 0 ] && [ "$rc2" != 0 ] && [ "$rc3" != 0 ] || bad=1
  verdict $bad P27 "QPSLAB_HOME that is a file: error names the path" "rc runs=$rc1 list=$rc2 run=$rc3; $(head -c 120 "$W/c26a.err") | $(head -c 120 "$W/c26b.err") | $(head -c 120 "$W/c26c.err")"
}
c27() { # monitor --time 5, server silent after login
  bgrun c27 80 "$Q" monitor --server "$S" --time 5 --quiet --store "$W/c27.db"
  sleep 1.5; local m; m=$(mpid "$S"); STOPQ "$m"
  waitrc "$BGPID"; CONTQ "$m"
  local st sec cpu
  st=$(lastrun "$W/c27.db" status); sec=$(lastrun "$W/c27.db" seconds)
  cpu=$(timeout 20 "$Q" metrics 1 --store "$W/c27.db" 2>/dev/null | grep '^cpu,' | cut -d, -f2)
  local bad=0
  le "$WALL" 10 && ! panicked "$W/c27.err" || bad=1
  verdict $bad P28 "monitor --time 5, server SIGSTOPped at 1.5 s" "rc=$RC wall=${WALL}s (limit 10); stored status=$st seconds=$sec, cpu (/proc) snapshots=$cpu; last line: $(grep -v '^\s*$' "$W/c27.err" | tail -1 | head -c 160)"
}
# ---------------------------------------------------------------- passed in issue 29
c28() { # fake servers: garbage, nothing, truncated greeting
  local mode ev="" bad=0
  for mode in garbage silent trunc; do
    rm -f "$W/fp.$mode"; python3 "$HERE/fake.py" "$mode" "$W/fp.$mode" & BG+=("$!"); disown "$!"
    local i; for i in $(seq 50); do [ -s "$W/fp.$mode" ] && break; sleep 0.1; done
    local t; t=$(now)
    timeout 30 "$Q" run oltp_point_select --host 127.0.0.1 --port "$(cat "$W/fp.$mode")" --connect-timeout 3 --read-timeout 3 --time 2 --no-store >"$W/c28$mode.out" 2>"$W/c28$mode.err"
    local rc=$? w; w=$(since "$t")
    local n; n=$(cat "$W/c28$mode.out" "$W/c28$mode.err" | grep -c .)
    { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && [ "$n" -le 2 ] && le "$w" 8 && ! panicked "$W/c28$mode.err" || bad=1
    ev+="$mode: rc=$rc ${w}s lines=$n '$(head -1 "$W/c28$mode.err" | head -c 110)'; "
  done
  verdict $bad P29 "fake servers give one line in time" "$ev"
}
c29() { # corrupt stores
  head -c 65536 /dev/urandom >"$W/garbage.db"
  head -c 3000 "$W/c02.db" >"$W/trunc.db"
  echo "not a database at all" >"$W/text.db"
  local f ev="" bad=0
  for f in garbage trunc text; do
    timeout 20 "$Q" runs --store "$W/$f.db" >"$W/c29$f.out" 2>"$W/c29$f.err"; local rc1=$?
    timeout 40 "$Q" "${RUN[@]}" --threads 1 --time 1 --store "$W/$f.db" >"$W/c29$f.run.out" 2>"$W/c29$f.run.err"; local rc2=$?
    [ "$rc1" != 0 ] && [ "$rc2" != 0 ] && [ "$(grep -c . "$W/c29$f.err")" -le 2 ] && grep -q "$W/$f.db" "$W/c29$f.err" || bad=1
    panicked "$W/c29$f.err" "$W/c29$f.run.err" && bad=1
    ev+="$f: runs rc=$rc1 run rc=$rc2 '$(head -1 "$W/c29$f.err" | head -c 100)'; "
  done
  verdict $bad P30 "corrupt stores: clear errors" "$ev"
}
c30() { # 8 concurrent writers to one store
  local i pids=() rcs=""
  for i in $(seq 8); do
    bgrun "c30_$i" 60 "$Q" "${RUN[@]}" --threads 1 --time 2 --store "$W/c30.db"; pids+=("$BGPID")
  done
  for i in "${pids[@]}"; do waitrc "$i"; rcs+="$RC "; done
  local n; n=$(timeout 20 "$Q" runs --store "$W/c30.db" --status ok --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))')
  local bad=0; [ "$n" = 8 ] || bad=1
  verdict $bad P31 "8 concurrent writers to one store" "ok runs stored=$n (want 8); rcs: $rcs"
}
c31() { # passwords appear nowhere
  local pw=S3cretProbe29x u=pw29
  sql "CREATE USER IF NOT EXISTS '$u'@'127.0.0.1' IDENTIFIED BY '$pw'; CREATE USER IF NOT EXISTS '$u'@'localhost' IDENTIFIED BY '$pw'; GRANT ALL ON *.* TO '$u'@'127.0.0.1'; GRANT ALL ON *.* TO '$u'@'localhost'" >/dev/null
  local st=$W/pw.db ps1=$W/c31.ps rcs=""
  : >"$ps1"
  local how
  for how in opt dsn env; do
    case $how in
      opt) bgrun "c31$how" 40 "$Q" run oltp_point_select --host 127.0.0.1 --port "$PORT" --user $u --mysql-password "$pw" --tables 2 --table-size 10000 --threads 1 --time 2 --store "$st" ;;
      dsn) bgrun "c31$how" 40 "$Q" run oltp_point_select --dsn "mysql://$u:$pw@127.0.0.1:$PORT/sbtest" --tables 2 --table-size 10000 --threads 1 --time 2 --store "$st" ;;
      env) MYSQL_PWD=$pw bgrun "c31$how" 40 "$Q" run oltp_point_select --host 127.0.0.1 --port "$PORT" --user $u --tables 2 --table-size 10000 --threads 1 --time 2 --store "$st" ;;
    esac
    sleep 1; ps -eo pid,args >>"$ps1"; cat /proc/"$BGPID"/cmdline >>"$ps1" 2>/dev/null; echo >>"$ps1"
    waitrc "$BGPID"; rcs+="$how=$RC "
  done
  local ids; ids=$(timeout 20 "$Q" runs --store "$st" --format json 2>/dev/null | python3 -c 'import json,sys;print(" ".join(str(r["id"]) for r in json.load(sys.stdin)))')
  timeout 20 "$Q" runs --store "$st" >"$W/c31.runs" 2>&1
  for id in $ids; do
    timeout 20 "$Q" show "$id" --store "$st" >>"$W/c31.show" 2>&1
    timeout 20 "$Q" show "$id" --store "$st" --format json >>"$W/c31.show" 2>&1
    timeout 30 "$Q" report "$id" --store "$st" -o "$W/c31_r$id.html" >/dev/null 2>&1
  done
  # the ps lines of our own bgrun wrapper are python's argv before exec: only qpslab's title counts
  local hits; hits=$(grep -l -a "$pw" "$st" "$st"-wal "$W"/c31*.out "$W"/c31*.err "$W/c31.runs" "$W/c31.show" "$W"/c31_r*.html "$H"/sandboxes/*/error.log 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')
  local pshits; pshits=$(grep -a "$pw" "$ps1" | grep -v -c "python3 -c")
  local bad=0; [ -z "$hits" ] && [ "$pshits" = 0 ] && [ "$rcs" = "opt=0 dsn=0 env=0 " ] || bad=1
  verdict $bad P32 "passwords (--mysql-password, --dsn, MYSQL_PWD) appear nowhere" "rcs: $rcs runs: $ids; found in: '${hits}'; ps/cmdline lines with it: $pshits $(grep -a -m1 "$pw" "$ps1" | grep -v 'python3 -c' | head -c 120)"
}
c32() { # KILL storm against qpslab's connections
  bgrun c32 60 "$Q" "${RUN[@]}" --threads 4 --time 7 --format json --store "$W/c32.db"
  sleep 1.5
  local i killed=0 id
  for i in $(seq 10); do
    for id in $(sql "SELECT id FROM information_schema.processlist WHERE user='root' AND id<>CONNECTION_ID() AND command<>'Daemon'"); do
      [[ "$id" =~ ^[0-9]+$ ]] && sql "KILL $id" >/dev/null && killed=$((killed + 1))
    done
    sleep 0.3
  done
  waitrc "$BGPID"
  local j=$W/c32.out ign fe rec tx codes
  ign=$(jget "$j" "d['totals']['ignored_errors']"); fe=$(jget "$j" "d['totals']['failed_events']")
  rec=$(jget "$j" "d['totals']['reconnects']"); tx=$(jget "$j" "d['totals']['transactions']")
  codes=$(jget "$j" "d['totals']['errors_by_code']" | tr -d ' ')
  local st; st=$(lastrun "$W/c32.db" status)
  local bad=0
  [ "$RC" = 3 ] && [ "$st" = degraded ] && [ "$ign" = 0 ] && [ "${fe:-0}" -gt 0 ] && [ "${rec:-0}" -gt 0 ] || bad=1
  panicked "$W/c32.err" && bad=1
  verdict $bad P33 "KILL storm (10 rounds, every qpslab connection)" "KILLs sent=$killed; rc=$RC stored=$st tx=$tx failed_events=$fe reconnects=$rec ignored=$ign errors_by_code=$codes"
}
c33() { # SIGINT / SIGTERM mid-run: ends it, samples kept, marked
  local sig ev="" bad=0
  for sig in INT TERM; do
    bgrun "c33$sig" 40 "$Q" "${RUN[@]}" --threads 2 --time 15 --store "$W/c33$sig.db"
    sleep 3; local t; t=$(now); kill -"$sig" "$BGPID"; waitrc "$BGPID"; local w; w=$(since "$t")
    local st q; st=$(lastrun "$W/c33$sig.db" status); q=$(lastrun "$W/c33$sig.db" queries)
    [ "$RC" = 130 ] && le "$w" 3 && [ "$st" != ok ] && [ -n "$st" ] && [ "${q:-0}" != 0 ] && [ "$q" != None ] && grep -q "transactions:" "$W/c33$sig.out" || bad=1
    ev+="SIG$sig: rc=$RC after ${w}s stored=$st queries=$q summary=$(grep -c 'transactions:' "$W/c33$sig.out"); "
  done
  verdict $bad P34 "SIGINT/SIGTERM mid-run end it, samples kept and marked" "$ev"
}
c36() { # the store's disk full: measured and printed, exit 4
  mkdir -p "$W/full"
  mount -t tmpfs -o size=160k tmpfs "$W/full" && MOUNTS+=("$W/full")
  timeout 40 "$Q" "${RUN[@]}" --threads 2 --time 3 --report-interval 0.1 --store "$W/full/s.db" >"$W/c36.out" 2>"$W/c36.err"; local rc=$?
  local bad=0
  [ "$rc" = 4 ] && grep -q "transactions:" "$W/c36.out" && ! panicked "$W/c36.err" || bad=1
  verdict $bad P36 "store on a full disk (160 KB tmpfs): printed, exit 4" "rc=$rc summary printed: $(grep -c 'transactions:' "$W/c36.out"); $(grep -v '^\s*$' "$W/c36.err" | tail -1 | head -c 200)"
  umount "$W/full" 2>/dev/null
}
c35() { # bad command lines: one clear line each, exit 2
  printf 'this is = = not toml [[[\n' >"$W/bad.toml"
  printf 'name = "x"\nthreads = [1]\nbogus_key = 3\n[[server]]\nlabel = "a"\n[[workload]]\nname = "oltp_point_select"\n' >"$W/unknownkey.toml"
  local st=(--store "$W/c02.db") R=(run oltp_point_select --server "$S" --no-store)
  local -a C=(
    "${R[*]} --time 1 --threads abc" "${R[*]} --time 1 --threads -1" "${R[*]} --time 1 --threads 0"
    "${R[*]} --time -5" "${R[*]} --time 1e99" "${R[*]} --time 1 --rate -3" "${R[*]} --time 1 --bogus-option"
    "${R[*]} --time 1 --threads" "run no_such_workload --server $S --time 1" "run /nonexistent/script.lua --server $S --time 1"
    "${R[*]} --time 1 --percentile 0" "${R[*]} --time 1 --percentile 101" "${R[*]} --time 1 --report-interval -1"
    "${R[*]} --time 1 --format xml" "${R[*]} --time 1 --rand-type bogus" "run oltp_point_select --dsn notaurl --time 1 --no-store"
    "run oltp_point_select --dsn mysql://u@127.0.0.1:99999/db --time 1 --no-store" "run oltp_point_select --port 70000 --time 1 --no-store"
    "${R[*]} --time 1 --ssl-mode VERIFY_CA --ssl-ca /nonexistent.pem" "run oltp_point_select --server no_such_sandbox --time 1 --no-store"
    "${R[*]} --time 1 --tables 0" "${R[*]} --time 1 --table-size -1" "${R[*]} --time 1 --events -1"
    "${R[*]} --time 1 --read-timeout abc" "${R[*]} --time 1 --client-cpus 999-1000" "${R[*]} --time 1 --validate"
    "${R[*]} --time 1 --mysql-dry-run" "${R[*]} --time 1 --config-file /nonexistent" "${R[*]} --time 1 --time 2"
    "${R[*]} --time 1 --store $W/x.db" "${R[*]} --time 1 --monitor-rates status=abc" "${R[*]} --time 1 --histogram maybe"
    "${R[*]} --time 1 --connect-timeout -1" "show 999999 ${st[*]}" "show abc ${st[*]}" "compare 1 ${st[*]}"
    "report 999999 ${st[*]} -o $W/r.html" "campaign run /nonexistent.toml ${st[*]}" "campaign run $W/bad.toml ${st[*]}"
    "campaign run $W/unknownkey.toml ${st[*]}" "server start --name a/b" "server start --name p29c --set novalue"
    "runs --status bogus ${st[*]}" "sweep oltp_point_select --server $S --threads 1,x --no-store" "monitor --server $S --time -1"
    "ui --port 99999 ${st[*]}" "chart 1 --metric nosuch ${st[*]} -o $W/c.svg" "metrics 1 --source nosuch ${st[*]}"
    "oltp_point_select --threads=2 --mysql-socket=$H/sandboxes/$S/mysqld.sock bogus_cmd" "nosuchcommand"
  )
  local i=0 offenders="" n=${#C[@]}
  for c in "${C[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    timeout -k 2 15 "$Q" $c >"$W/c35.out" 2>"$W/c35.err"; local rc=$?
    local lines; lines=$(cat "$W/c35.out" "$W/c35.err" | grep -c .)
    local why=""
    [ "$rc" = 2 ] || why+="rc=$rc "
    [ "$lines" -le 2 ] || why+="lines=$lines "
    grep -q "^Usage:" "$W/c35.err" "$W/c35.out" && why+="usage-dump "
    panicked "$W/c35.err" && why+="PANIC "
    [ -n "$why" ] && offenders+="#$i [qpslab $c] ${why}'$(grep -v '^\s*$' "$W/c35.err" "$W/c35.out" | head -1 | head -c 90)'; "
  done
  local bad=0; [ -z "$offenders" ] || bad=1
  [ -n "$offenders" ] && printf '%s\n' "$offenders" >"$W/c35.offenders"
  verdict $bad P35 "$n bad command lines: one line, exit 2" "${offenders:-all $n ok}"
  [ -n "$offenders" ] && sed 's/; #/;\n  #/g' "$W/c35.offenders" | sed 's/^/    /'
}

# ---------------------------------------------------------------- beyond issue 29: variations of the fixed findings
c37() { # F1 again with 8 users (event-loop shards) and with --io-backend uring
  local v ev="" bad=0
  for v in "8 epoll" "8 uring"; do
    set -- $v
    local name="c37$2"
    bgrun "$name" 60 "$Q" "${RUN[@]}" --threads "$1" --io-backend "$2" --time 5 --store "$W/$name.db"
    sleep 3; local m; m=$(mpid "$S"); STOPQ "$m"
    endwatch "$BGPID" 11; CONTQ "$m"
    waitrc "$BGPID"; WALL=${ENDW:-$WALL}
    local st; st=$(lastrun "$W/$name.db" status)
    local tt; tt=$(grep -m1 'total time:' "$W/$name.out" | awk '{print $3}')
    { [ "$RC" = 3 ] || [ "$RC" = 1 ]; } && [ "$st" != ok ] && le "$WALL" 9 && le "${tt%s}" 5.5 && ! panicked "$W/$name.out" "$W/$name.err" || bad=1
    ev+="$1 users $2: rc=$RC stored=$st wall=${WALL}s (limit 9) total time=${tt} (limit 5.5) $(grep -h -i -m1 panick "$W/$name.err" | head -c 150); "
    sleep 1
  done
  verdict $bad P37 "F1 stall across the end, 8 users on epoll / uring shards" "$ev"
}
c38() { # F2 again: sweep, campaign, json, monitor into a closed pipe
  local ev="" bad=0 rc n
  timeout -k 3 60 "$Q" sweep oltp_point_select --server "$S" --tables 2 --table-size 10000 --threads 1,2 --time 2 --warmup-time 0 --store "$W/c38s.db" 2>"$W/c38s.err" | head -3 >/dev/null
  rc=${PIPESTATUS[0]}
  n=$(timeout 20 "$Q" runs --store "$W/c38s.db" --status ok --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))')
  [ "$rc" = 0 ] && [ "$n" = 2 ] || bad=1; ev+="sweep|head -3: rc=$rc ok runs=$n/2; "
  timeout -k 3 30 "$Q" "${RUN[@]}" --threads 2 --time 2 --format json --store "$W/c38j.db" 2>"$W/c38j.err" | head -c 40 >/dev/null
  rc=${PIPESTATUS[0]}; local st; st=$(lastrun "$W/c38j.db" status)
  [ "$rc" = 0 ] && [ "$st" = ok ] || bad=1; ev+="run --format json|head -c 40: rc=$rc stored=$st; "
  sed -e 's/p29-twice/p29-pipe/' "$W/camp.toml" >"$W/camp_pipe.toml"
  timeout -k 3 60 "$Q" campaign run "$W/camp_pipe.toml" --store "$W/c38c.db" 2>"$W/c38c.err" | head -2 >/dev/null
  rc=${PIPESTATUS[0]}
  n=$(timeout 20 "$Q" runs --store "$W/c38c.db" --status ok --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))')
  [ "$rc" = 0 ] && [ "$n" = 2 ] || bad=1; ev+="campaign run|head -2: rc=$rc ok runs=$n/2; "
  timeout -k 3 30 "$Q" monitor --server "$S" --time 3 --store "$W/c38m.db" 2>"$W/c38m.err" | head -1 >/dev/null
  rc=${PIPESTATUS[0]}; st=$(lastrun "$W/c38m.db" status)
  [ "$rc" = 0 ] && [ "$st" = ok ] || bad=1; ev+="monitor|head -1: rc=$rc stored=$st; "
  panicked "$W"/c38?.err && { bad=1; ev+="PANIC; "; }
  verdict $bad P38 "F2 closed stdout on sweep, campaign, json run, monitor" "$ev"
}
c39() { # F4 again: thread_done loop, os.exit in event, os.exit(7) in prepare, loop in prepare + SIGINT, loop at load + SIGTERM
  cat >"$W/loop_done.lua" <<'EOT'
function event() end
function thread_done() local x = 0 while true do x = x + 1 end end
EOT
  cat >"$W/exit_event.lua" <<'EOT'
function event() os.exit(0) end
EOT
  cat >"$W/exit_done.lua" <<'EOT'
function event() end
function thread_done() os.exit(0) end
EOT
  cat >"$W/exit_prepare.lua" <<'EOT'
function prepare() os.exit(7) end
function event() end
EOT
  cat >"$W/loop_prepare.lua" <<'EOT'
function prepare() local x = 0 while true do x = x + 1 end end
function event() end
EOT
  cat >"$W/loop_load.lua" <<'EOT'
local x = 0
while true do x = x + 1 end
function event() end
EOT
  local ev="" bad=0
  bgrun c39a 40 "$Q" run "$W/loop_done.lua" --server "$S" --threads 2 --time 3 --store "$W/c39.db"; waitrc "$BGPID"
  local tt; tt=$(grep -m1 'total time:' "$W/c39a.out" | awk '{print $3}')
  [ "$RC" = 1 ] && le "$WALL" 9 && grep -q thread_done "$W/c39a.err" || bad=1; ev+="thread_done loop (--time 3): rc=$RC ${WALL}s stored=$(lastrun "$W/c39.db" status) total time=$tt mentions thread_done: $(grep -c thread_done "$W/c39a.err" "$W/c39a.out" | tr '\n' ' '); "
  bgrun c39f 40 "$Q" run "$W/exit_done.lua" --server "$S" --threads 2 --time 2 --store "$W/c39.db"; waitrc "$BGPID"
  [ "$RC" = 1 ] && grep -q "os.exit(0)" "$W/c39f.out" "$W/c39f.err" || bad=1; ev+="os.exit(0) in thread_done: rc=$RC stored=$(lastrun "$W/c39.db" status); "
  bgrun c39b 40 "$Q" run "$W/exit_event.lua" --server "$S" --threads 2 --time 3 --store "$W/c39.db"; waitrc "$BGPID"
  [ "$RC" = 1 ] && grep -q "os.exit(0)" "$W/c39b.out" "$W/c39b.err" || bad=1; ev+="os.exit(0) in event: rc=$RC; "
  bgrun c39c 40 "$Q" prepare "$W/exit_prepare.lua" --server "$S"; waitrc "$BGPID"
  [ "$RC" = 7 ] || bad=1; ev+="os.exit(7) in prepare: rc=$RC; "
  local t
  bgrun c39d 40 "$Q" prepare "$W/loop_prepare.lua" --server "$S"; sleep 2; t=$(now); kill -INT "$BGPID"; waitrc "$BGPID"; local w; w=$(since "$t")
  [ "$RC" = 130 ] && le "$w" 3 || bad=1; ev+="prepare loop + SIGINT: rc=$RC after ${w}s; "
  bgrun c39e 40 "$Q" run "$W/loop_load.lua" --server "$S" --threads 1 --time 3 --store "$W/c39.db"; sleep 2; t=$(now); kill -TERM "$BGPID"; waitrc "$BGPID"; w=$(since "$t")
  { [ "$RC" = 130 ] || [ "$RC" = 143 ] || [ "$RC" = 2 ] || [ "$RC" = 1 ]; } && le "$w" 3 || bad=1; ev+="loop at load + SIGTERM: rc=$RC after ${w}s; "
  panicked "$W"/c39?.err && { bad=1; ev+="PANIC; "; }
  verdict $bad P39 "F4 more script hangs and exits" "$ev"
}
c40() { # F5 again: a sandbox's pid file naming ANOTHER sandbox's mariadbd
  timeout 90 "$Q" server start --name "$S2" >"$W/c40.start" 2>&1
  timeout 60 "$Q" server stop --name "$S2" >/dev/null 2>&1
  local m; m=$(mpid "$S")
  echo "$m" >"$H/sandboxes/$S2/mysqld.pid"
  local out1 out2 rc1 rc2 rc3
  out1=$(timeout 30 "$Q" server status --name "$S2" 2>&1); rc1=$?
  out2=$(timeout 30 "$Q" server stop --name "$S2" 2>&1); rc2=$?
  sleep 1
  local alive=no; kill -0 "$m" 2>/dev/null && alive=yes
  echo "$m" >"$H/sandboxes/$S2/mysqld.pid"
  timeout 30 "$Q" server destroy --name "$S2" >"$W/c40.destroy" 2>&1; rc3=$?
  local alive2=no; kill -0 "$m" 2>/dev/null && alive2=yes
  local bad=0
  echo "$out1" | grep -q -i "stopped\|not running" && [ $alive = yes ] && [ $alive2 = yes ] || bad=1
  verdict $bad P40 "F5 pid file naming another sandbox's mariadbd" "status rc=$rc1 '$(echo "$out1" | head -1 | head -c 120)'; stop rc=$rc2 '$(echo "$out2" | head -1 | head -c 100)'; $S's mariadbd after stop: $alive, after destroy (rc=$rc3): $alive2"
  [ -n "$(mpid "$S")" ] || timeout 60 "$Q" server start --name "$S" >/dev/null 2>&1
}
c41() { # F6 again: a copy of the campaign file (same name) run at once
  sed -e 's/p29-twice/p29-copies/' "$W/camp.toml" >"$W/campA.toml"
  mkdir -p "$W/other"; cp "$W/campA.toml" "$W/other/campB.toml"
  bgrun c41a 120 "$Q" campaign run "$W/campA.toml" --store "$W/c41.db"; local a=$BGPID
  sleep 0.3
  bgrun c41b 120 "$Q" campaign run "$W/other/campB.toml" --store "$W/c41.db"; local b=$BGPID
  waitrc "$b"; local rcb=$RC; waitrc "$a"; local rca=$RC
  local n; n=$(timeout 30 "$Q" runs --store "$W/c41.db" --format json 2>/dev/null | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))')
  local bad=0
  [ "$n" = 2 ] || bad=1
  verdict $bad P41 "F6 two copies of one campaign (same name, other path) at once" "rcs $rca/$rcb: $(grep -v '^\s*$' "$W/c41b.err" | head -1 | head -c 150); runs stored=$n (want 2)"
}
c42() { # secrets again: sweep --mysql-password, campaign dsn password, URL-encoded
  local pw=S3cretProbe29x u=pw29 st=$W/pw2.db
  cat >"$W/camp_pw.toml" <<EOT
name = "p29-pw"
threads = [1]
time = 1
[data]
tables = 2
table_size = 10000
[[server]]
label = "pw"
dsn = "mysql://$u:S3cret%50robe29x@127.0.0.1:$PORT/sbtest"
[[workload]]
name = "oltp_point_select"
EOT
  bgrun c42a 60 "$Q" sweep oltp_point_select --host 127.0.0.1 --port "$PORT" --user $u --mysql-password "$pw" --tables 2 --table-size 10000 --threads 1,2 --time 1 --warmup-time 0 --store "$st"
  sleep 1.5; cat /proc/"$BGPID"/cmdline >"$W/c42.ps" 2>/dev/null; waitrc "$BGPID"; local rca=$RC
  bgrun c42b 60 "$Q" campaign run "$W/camp_pw.toml" --store "$st"
  sleep 1.5; cat /proc/"$BGPID"/cmdline >>"$W/c42.ps" 2>/dev/null; waitrc "$BGPID"; local rcb=$RC
  timeout 20 "$Q" campaign status "$W/camp_pw.toml" --store "$st" >"$W/c42.status" 2>&1
  timeout 20 "$Q" runs --store "$st" >"$W/c42.runs" 2>&1
  timeout 30 "$Q" report --campaign 1 --store "$st" -o "$W/c42_c1.html" >/dev/null 2>&1
  timeout 30 "$Q" report --campaign 2 --store "$st" -o "$W/c42_c2.html" >/dev/null 2>&1
  local id; for id in 1 2 3; do timeout 20 "$Q" show "$id" --store "$st" >>"$W/c42.show" 2>&1; done
  local hits; hits=$(grep -l -a -E "$pw|S3cret%50robe29x" "$st" "$st"-wal "$W"/c42* 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')
  local bad=0; [ -z "$hits" ] && [ "$rca" = 0 ] && [ "$rcb" = 0 ] || bad=1
  verdict $bad P42 "secrets in sweep --mysql-password and a campaign dsn (URL-encoded)" "rc sweep=$rca campaign=$rcb; found in: '${hits}' $(grep -h -a -o -m1 -E ".{40}(S3cretProbe29x|S3cret%50robe29x).{0,20}" "$W"/c42* "$st" 2>/dev/null | head -1 | tr -cd '[:print:]' | head -c 120)"
}
c43() { # XSS again: a script's SQL text and the server's error text, a sandbox name
  cat >"$W/xss_sql.lua" <<'EOT'
function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end
function event()
  con:query("SELECT '<script>alert(7)</script>'")
  con:query("SELECT * FROM `<img src=x onerror=alert(8)>`")
end
function thread_done() con:disconnect() end
EOT
  timeout 40 "$Q" run "$W/xss_sql.lua" --server "$S" --threads 1 --time 1 --io-backend epoll --mysql-ignore-errors all --store "$W/xss2.db" >"$W/c43.out" 2>"$W/c43.err"; local rc=$?
  timeout 30 "$Q" report 1 --store "$W/xss2.db" -o "$W/c43.html" >/dev/null 2>&1
  local n; n=$(timeout 20 "$Q" server start --name '<img src=x onerror=alert(9)>' 2>&1 | head -1 | head -c 120); local rcn=$?
  local raw; raw=$(grep -c -E '<script>alert\(7|<img src=x' "$W/c43.html" 2>/dev/null)
  local esc; esc=$(grep -c -E '&lt;script&gt;alert\(7|&lt;img src=x' "$W/c43.html" 2>/dev/null)
  local bad=0; [ "$raw" = 0 ] && [ -s "$W/c43.html" ] || bad=1
  verdict $bad P43 "XSS in a script's SQL text and in a server error (report)" "run rc=$rc; raw payload lines in report: $raw, escaped: $esc; sandbox name '<img…>': $n"
}
c44() { # F8 again: a store over the 256 MB full-check size, garbage in a samples page
  [ -s "$W/c04.db" ] || timeout 40 "$Q" "${RUN[@]}" --threads 1 --time 4 --report-interval 0.1 --store "$W/c04.db" >/dev/null 2>&1
  cp "$W/c04.db" "$W/c44.db"
  local pg; pg=$(python3 -c "
import sqlite3,sys;c=sqlite3.connect(sys.argv[1])
p=[r[0] for r in c.execute(\"select pageno from dbstat where name='metric_snaps' and pagetype='leaf' order by pageno\")]
print(p[0])" "$W/c44.db" 2>/dev/null)
  # grow the file past 256 MB with a table of blobs (sparse-free, real pages)
  python3 -c "
import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);c.execute('create table zz_pad(b blob)')
c.executemany('insert into zz_pad values (zeroblob(1048576))',[()]*270);c.commit()" "$W/c44.db"
  head -c 4096 /dev/urandom | dd of="$W/c44.db" bs=4096 seek="$(( pg - 1 ))" conv=notrunc status=none
  timeout 60 "$Q" "${RUN[@]}" --threads 1 --time 1 --store "$W/c44.db" >"$W/c44.out" 2>"$W/c44.err"; local rc=$?
  local sz; sz=$(( $(stat -c %s "$W/c44.db") >> 20 ))
  local st; st=$(lastrun "$W/c44.db" status)
  rm -f "$W/c44.db" "$W/c44.db-wal" "$W/c44.db-shm"
  local bad=0
  [ "$rc" != 0 ] && grep -q -i -E "damaged|corrupt|malformed" "$W/c44.err" || bad=1
  verdict $bad P44 "F8 garbage in an old run's page of a ${sz} MB store, then run" "first metric_snaps leaf page $pg overwritten (the store padded past 256 MB with a blob table); run rc=$rc, stored as '$st'; stderr: '$(grep -h -v '^\s*$' "$W/c44.err" | tail -1 | head -c 200)'"
}

c45() { # a script event that never ends but yields on every query: --time 2 must still end
  cat >"$W/qloop.lua" <<'EOT'
function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end
function event() while true do con:query("SELECT 1") end end
EOT
  cat >"$W/ign.lua" <<'EOT'
function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end
function event() con:query("SELECT * FROM nosuch_tbl") end
EOT
  local v ev="" bad=0
  for v in "qloop auto" "qloop epoll" "ign auto"; do
    set -- $v
    local name="c45$1$2"
    bgrun "$name" 40 "$Q" run "$W/$1.lua" --server "$S" --threads 1 --time 2 --mysql-ignore-errors 1146 --io-backend "$2" --store "$W/c45.db"
    endwatch "$BGPID" 10
    local how="ended by itself"
    [ -z "$ENDW" ] && { kill -TERM "$BGPID"; how="STILL RUNNING at 10 s, SIGTERM sent"; }
    waitrc "$BGPID"; WALL=${ENDW:-$WALL}
    { [ "$RC" = 3 ] || [ "$RC" = 1 ] || [ "$RC" = 0 ]; } && [ -n "$ENDW" ] && le "$WALL" 6 || bad=1
    ev+="$1.lua, $2 ($(grep -m1 'client threads' "$W/$name.out" | sed 's/.*(//;s/).*//')): $how, rc=$RC after ${WALL}s; "
  done
  verdict $bad P45 "Lua event() looping over queries / restarted by an ignored error (1146), --time 2" "$ev"
}

main() {
  echo "probe29 against $Q ($("$Q" --version 2>&1)) at $(date +%T)"
  setup
  c01; c02; c03; c04; c05; c06; c07; c08
  c09_11; c12; c13; c14; c15; c16; c17; c18; c19; c20; c21
  xss_data; ui_start; c22; c23; c24; c34
  kill "$UIPID" 2>/dev/null
  c25; c26; c27; c28; c29; c30; c31; c32; c33; c35; c36
  c37; c38; c39; c40; c41; c42; c43; c44; c45
  echo "$PASSN passed, $FAILN failed ($(( $(date +%s) - T0 )) s)"
}
if [ -n "${ONLY:-}" ]; then setup; for c in $ONLY; do $c; done; echo "$PASSN passed, $FAILN failed"; else main; fi
