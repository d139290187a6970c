#!/usr/bin/env python3
"""A year of results, generated from real ones (issue 37 item 5).

Takes a template store written by qpslab (a monitored run and a sweep's
steps: bench/store_scale.sh makes one) and writes a new store with RUNS
runs spread over a year, each 60-600 s long, and CAMPAIGNS campaigns, the
first of them with BIG points: every row is a template row with its run id
and its per-second sequence moved (a run of d seconds repeats the
template's seconds until it has d of them), so the rows' sizes, the
monitor's snapshots and the histograms are qpslab's own. Throughput
figures are varied with the run's concurrency so that scalability tables
have a shape. Counters repeated from the template restart at each
repetition (the first snapshot of a source holds absolute values): pages
draw a step there; sizes and query times are what this measures.

Usage: store_scale_gen.py TEMPLATE OUT [--runs N] [--campaigns N]
       [--big N] [--min-s S] [--max-s S] [--seed N]
"""
import argparse, datetime, os, random, shutil, sqlite3, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("template"); ap.add_argument("out")
ap.add_argument("--runs", type=int, default=10000)
ap.add_argument("--campaigns", type=int, default=200)
ap.add_argument("--big", type=int, default=500)
ap.add_argument("--min-s", type=int, default=60)
ap.add_argument("--max-s", type=int, default=600)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rnd = random.Random(a.seed)

if os.path.exists(a.out):
    sys.exit(f"{a.out} exists; remove it first")
shutil.copyfile(a.template, a.out)
db = sqlite3.connect(a.out, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=OFF")
db.execute("PRAGMA foreign_keys=OFF")
db.execute("ATTACH ? AS tpl", (a.template,))

def cols(table):
    return [r[1] for r in db.execute(f"PRAGMA tpl.table_info({table})")]

# Per-run children and how their rows are moved: (table, seq column or None).
CHILDREN = [("samples", "seq"), ("sample_statements", "seq"), ("metric_snaps", "seq"),
            ("metric_keys", None), ("run_statements", None), ("histograms", None),
            ("monitor_notes", None), ("profile_stacks", None), ("profile_series", None)]
for t, _ in CHILDREN + [("run_tags", None), ("baselines", None)]:
    db.execute(f"DELETE FROM main.{t}")
db.execute("DELETE FROM main.runs"); db.execute("DELETE FROM main.campaigns")

tpl_runs = [r[0] for r in db.execute("SELECT id FROM tpl.runs WHERE status='ok' ORDER BY id")]
if not tpl_runs:
    sys.exit("the template store has no finished run")
# The template's seconds per run (its samples), to repeat, and each
# sequenced table's sequence span (a source polled every 2 s has fewer).
span = {r: max(1, db.execute("SELECT COUNT(*) FROM tpl.samples WHERE run_id=?", (r,)).fetchone()[0])
        for r in tpl_runs}
seqspan = {(r, t): 1 + (db.execute(f"SELECT MAX({q}) FROM tpl.{t} WHERE run_id=?", (r,)).fetchone()[0] or 0)
           for r in tpl_runs for t, q in [("samples", "seq"), ("sample_statements", "seq"), ("metric_snaps", "seq")]}
db.execute("CREATE TEMP TABLE reps(k INTEGER PRIMARY KEY)")
db.executemany("INSERT INTO reps VALUES (?)", [(k,) for k in range(a.max_s + 1)])

child_sql = {}
for t, seq in CHILDREN:
    c = cols(t)
    sel = []
    for name in c:
        if name == "run_id":
            sel.append(":new")
        elif seq and name == seq:
            sel.append(f"x.{name} + reps.k * :seqspan")
        elif seq and name == "t":
            sel.append("x.t + reps.k * :span")
        else:
            sel.append(f"x.{name}")
    # Cut at the run's length: by time where the table has one.
    clock = "x.t + reps.k * :span" if "t" in c else f"x.{seq} + reps.k * :seqspan"
    if seq:
        child_sql[t] = (f"INSERT INTO main.{t} ({','.join(c)}) SELECT {','.join(sel)} FROM tpl.{t} x, reps "
                        f"WHERE x.run_id = :tpl AND reps.k < :reps AND {clock} < :secs")
    else:
        child_sql[t] = f"INSERT INTO main.{t} ({','.join(c)}) SELECT {','.join(sel)} FROM tpl.{t} x WHERE x.run_id = :tpl"

run_cols = cols("runs")
THREADS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
LABELS = ["mariadb-10.11", "mariadb-11.4", "mysql-8.0", "mysql-8.4", "percona-8.0"]
year0 = datetime.datetime(2025, 11, 27, tzinfo=datetime.timezone.utc)

def speed(th):  # a USL-ish curve
    return th / (1 + 0.03 * (th - 1) + 0.0004 * th * (th - 1))

# Campaigns: the first has BIG points; the others share half the rest.
camp_of = [None] * a.runs
point = [None] * a.runs
for i in range(min(a.big, a.runs)):
    camp_of[i] = 1
rest = list(range(a.big, a.runs))
rnd.shuffle(rest)
in_camps = rest[: len(rest) // 2]
for j, i in enumerate(sorted(in_camps)):
    camp_of[i] = 2 + j % max(1, a.campaigns - 1)
for c in range(1, a.campaigns + 1):
    made = year0 + datetime.timedelta(days=365 * (c - 1) / a.campaigns)
    definition = '{"version":1,"workload":"oltp_read_write","threads":[1,2,4,8,16,32,64,128,256,512,1024],"repeat":3}'
    db.execute("INSERT INTO main.campaigns (id,name,kind,definition,created_at) VALUES (?,?,?,?,?)",
               (c, f"generated campaign {c}", "campaign" if c % 2 else "sweep", definition,
                made.strftime("%Y-%m-%dT%H:%M:%S.000Z")))
    if "uid" in cols("campaigns"):
        db.execute("UPDATE main.campaigns SET uid = ? WHERE id = ?", ("%032x" % rnd.getrandbits(128), c))

t0 = time.time()
seen = {}
db.execute("BEGIN")
for i in range(a.runs):
    rid = i + 1
    tpl = rnd.choice(tpl_runs)
    secs = rnd.randint(a.min_s, a.max_s)
    th = rnd.choice(THREADS)
    label = rnd.choice(LABELS)
    variant = rnd.choice(["", "", "buffer-pool-8G", "flush-2", "jemalloc"])
    camp = camp_of[i]
    ph = None
    if camp is not None:
        k = (camp, label, variant, th)
        seen[k] = seen.get(k, 0) + 1
        ph = f"oltp_read_write:{label}:{variant}:{th}:{seen[k]}"
    start = year0 + datetime.timedelta(seconds=365 * 86400 * i / a.runs)
    end = start + datetime.timedelta(seconds=secs)
    qps = 2000 * speed(th) * (0.9 + 0.2 * rnd.random()) * (1.1 if label.startswith("mysql") else 1.0)
    over = {"id": rid, "campaign_id": camp, "point_hash": ph, "label": label, "variant": variant or None,
            "threads": th, "started_at": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "ended_at": end.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "seconds": float(secs),
            "qps": qps, "tps": qps / 20, "queries": int(qps * secs), "transactions": int(qps * secs / 20),
            "status": "ok" if rnd.random() > 0.03 else "failed"}
    if "uid" in run_cols:  # schema v9: each run's identity across stores
        over["uid"] = "%032x" % rnd.getrandbits(128)
    sel = ",".join(f":{c}" if c in over else c for c in run_cols)
    db.execute(f"INSERT INTO main.runs ({','.join(run_cols)}) SELECT {sel} FROM tpl.runs WHERE id = :tpl",
               {**over, "tpl": tpl})
    n = span[tpl]
    reps = (secs + n - 1) // n
    for t, seq in CHILDREN:
        p = {"new": rid, "tpl": tpl}
        if seq:
            p.update(span=n, seqspan=seqspan[(tpl, t)], reps=reps, secs=secs)
        db.execute(child_sql[t], p)
    if rnd.random() < 0.1:
        db.execute("INSERT INTO main.run_tags VALUES (?, ?)", (rid, rnd.choice(["before-fix", "nightly", "jemalloc"])))
    if (i + 1) % 200 == 0:
        db.execute("COMMIT"); db.execute("BEGIN")
        el = time.time() - t0
        print(f"{i + 1} runs in {el:.0f} s ({os.path.getsize(a.out) / 1e9:.2f} GB)", file=sys.stderr, flush=True)
db.execute("COMMIT")
db.execute("DETACH tpl")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
print(f"generated {a.runs} runs, {a.campaigns} campaigns in {time.time() - t0:.0f} s: {os.path.getsize(a.out) / 1e9:.2f} GB",
      file=sys.stderr)
