//! Agents on one machine: each agent in its own network namespace (a veth
//! pair, addresses made here, removed on drop), the sandbox on the host
//! side listening on 0.0.0.0; a controller drives them. Checks the exact
//! merge (the merged percentiles equal those of the union of what the
//! agents sent, recomputed here), the transactions against Com_commit,
//! the per-second lines, an agent killed mid-run (degraded, named), a
//! wrong token (refused in one line), an injected clock offset (refused,
//! named), an agent that never starts (refused before the start, named),
//! Ctrl-C on the controller (every agent's connections gone), the
//! controller killed (every agent stops at the run's deadline on its
//! own), a sweep and a campaign (`[agents]`) whose every step is
//! split and merged, `--events` and `--rate` split across agents (the
//! events' total exact, the rate's near its target, the schedule lag
//! merged), agents over TLS (--tls-cert, --agent-ca), and the agent
//! beside the server (`--server-agent`) for run, monitor, iostat, top,
//! profile and a campaign's `[[server]] agent`. The tests take the
//! sandbox one at a time (its Com_commit is server-wide). Needs root and
//! `ip netns`: fails saying so otherwise.

mod common;
use common::{json, lab, text};
use qpslab::stats::Hist;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A network namespace with a veth pair to the host: host side
/// 10.201.N.1/30, namespace side 10.201.N.2/30, default route to the host.
struct Netns {
    name: String,
    net: u32,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// Namespaces made so far by this process (each test takes its own).
static MADE: AtomicU32 = AtomicU32::new(0);

impl Netns {
    fn new() -> Netns {
        let i = MADE.fetch_add(1, Ordering::SeqCst);
        // (10.201.N.0/30 for N below 256: 15 processes' blocks of 16)
        assert!(i < 16, "at most 16 namespaces a test process");
        let pid = std::process::id();
        let net = (pid % 15) * 16 + i;
        let name = format!("qa{}x{i}", pid % 100_000);
        let ns = Netns { name, net };
        let (h, n) = (
            format!("qh{}x{i}", pid % 100_000),
            format!("qn{}x{i}", pid % 100_000),
        );
        let host_addr = format!("10.201.{net}.1/30");
        let ns_addr = format!("10.201.{net}.2/30");
        let gw = format!("10.201.{net}.1");
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", &ns.name],
            vec!["link", "add", &h, "type", "veth", "peer", "name", &n],
            vec!["link", "set", &n, "netns", &ns.name],
            vec!["addr", "add", &host_addr, "dev", &h],
            vec!["link", "set", &h, "up"],
            vec!["-n", &ns.name, "addr", "add", &ns_addr, "dev", &n],
            vec!["-n", &ns.name, "link", "set", &n, "up"],
            vec!["-n", &ns.name, "link", "set", "lo", "up"],
            vec!["-n", &ns.name, "route", "add", "default", "via", &gw],
        ];
        for s in steps {
            if let Err(e) = ip(&s) {
                panic!("this test needs root and network namespaces (ip netns): {e}");
            }
        }
        ns
    }

    fn host_ip(&self) -> String {
        format!("10.201.{}.1", self.net)
    }

    fn agent_ip(&self) -> String {
        format!("10.201.{}.2", self.net)
    }

    /// `qpslab` run inside this namespace (another host, as far as it can
    /// tell), on the lab's state directory.
    fn qpslab(&self) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name, common::bin()])
            .env("QPSLAB_HOME", &lab().home)
            .env_remove("MYSQL_PWD");
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // deleting the namespace deletes the veth pair with it
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// An agent process inside a namespace, killed on drop.
struct Agent {
    child: Child,
    addr: String,
    dump: std::path::PathBuf,
}

impl Agent {
    fn start(ns: &Netns, port: u16, token: &std::path::Path, extra: &[&str]) -> Agent {
        let addr = format!("{}:{port}", ns.agent_ip());
        let dump = lab().home.join(format!("dump-{}-{port}.json", ns.name));
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &ns.name, common::bin()]);
        let mut more = vec!["--dump", dump.to_str().unwrap()];
        more.extend(extra);
        Agent::spawn(c, addr, token, &more, dump.clone())
    }

    /// `qpslab` (the command `c` starts) as `agent --listen ADDR
    /// --token-file TOKEN EXTRA…`, once it says it listens.
    fn spawn(
        mut c: Command,
        addr: String,
        token: &std::path::Path,
        extra: &[&str],
        dump: std::path::PathBuf,
    ) -> Agent {
        let mut child = c
            .args(["agent", "--listen", &addr])
            .arg("--token-file")
            .arg(token)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start an agent");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("agent's first line");
        assert!(line.contains("listening"), "agent did not start: {line}");
        Agent { child, addr, dump }
    }

    fn sent(&self) -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(&self.dump).expect("agent's dump")).expect("dump")
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hist(b64: &str) -> Hist {
    use base64::Engine;
    let b = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    Hist::from_v2_bytes(&b).unwrap()
}

/// The sandbox on 0.0.0.0 with a user for TCP and sbtest data; its port
/// (started once for every test here).
fn sandbox() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(start_sandbox)
}

fn start_sandbox() -> u16 {
    let l = lab();
    let o = l.qpslab(&[
        "server",
        "start",
        "--name",
        "ag",
        "--set",
        "bind_address=0.0.0.0",
        "--set",
        "max_connections=300",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    sandbox_sql(
        "CREATE DATABASE agt; CREATE USER 'qa'@'%' IDENTIFIED BY 'pw'; GRANT ALL ON *.* TO 'qa'@'%'",
    );
    let o = l.qpslab(&[
        "prepare",
        "oltp_read_write",
        "--server",
        "ag",
        "--db",
        "agt",
        "--table-size",
        "2000",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(l.home.join("sandboxes/ag/meta.json")).unwrap())
            .unwrap();
    meta["port"].as_u64().unwrap() as u16
}

fn run(
    host: &str,
    port: u16,
    agents: &str,
    token: &std::path::Path,
    time: &str,
) -> std::process::Output {
    controller(host, port, agents, token, time)
        .output()
        .unwrap()
}

/// The controller's command line (a run of 6 connections on the agents).
fn controller(host: &str, port: u16, agents: &str, token: &std::path::Path, time: &str) -> Command {
    controller_of("oltp_read_write", "6", host, port, agents, token, time)
}

/// The controller's command line: `workload` on `threads` connections.
fn controller_of(
    workload: &str,
    threads: &str,
    host: &str,
    port: u16,
    agents: &str,
    token: &std::path::Path,
    time: &str,
) -> Command {
    let mut c = lab().command();
    c.args(["run", workload, "--mysql-host", host, "--mysql-user", "qa"])
        .args([
            "--mysql-password",
            "pw",
            "--db",
            "agt",
            "--threads",
            threads,
            "--time",
            time,
        ])
        .args([
            "--mysql-port",
            &port.to_string(),
            "--agents",
            agents,
            "--no-store",
            "--format",
            "json",
        ])
        .arg("--token-file")
        .arg(token);
    c
}

/// What the sandbox answers `sql` with (as root, on its socket; no
/// column names).
fn sandbox_sql(sql: &str) -> String {
    let sock = lab().home.join("sandboxes/ag/mysqld.sock");
    let o = Command::new("mariadb")
        .args([
            "-uroot",
            "-N",
            "-B",
            &format!("--socket={}", sock.display()),
        ])
        .args(["-e", sql])
        .output()
        .unwrap();
    assert!(o.status.success(), "{sql}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A number the sandbox answers `sql` with.
fn sandbox_number(sql: &str) -> i64 {
    sandbox_sql(sql).parse().unwrap()
}

/// The sandbox's connections from the agents' namespaces (10.201.N.2),
/// from its processlist.
fn agent_connections() -> usize {
    sandbox_number(
        "SELECT COUNT(*) FROM information_schema.processlist WHERE host LIKE '10.201.%.2:%'",
    ) as usize
}

/// Polls `cond` every 200 ms until it holds; fails naming `what` after
/// `limit` (a bound, not a measure).
fn wait_for(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !cond() {
        assert!(
            Instant::now() < end,
            "{what}: not within {} s",
            limit.as_secs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// An agent's hello (its clock, whether it is busy).
fn hello(addr: &str, token: &str) -> serde_json::Value {
    let mut r = ureq::get(&format!("http://{addr}/v1/hello"))
        .header("Authorization", &format!("Bearer {token}"))
        .call()
        .unwrap_or_else(|e| panic!("hello {addr}: {e}"));
    serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap()
}

/// The token file every agent here is started with.
/// Two agents, each in a namespace of its own, started with `token`:
/// the namespaces, the agents and their `--agents` list.
fn two_agents(token: &std::path::Path) -> (Vec<Netns>, Vec<Agent>, String) {
    let nss: Vec<Netns> = (0..2).map(|_| Netns::new()).collect();
    let agents: Vec<Agent> = nss
        .iter()
        .map(|n| Agent::start(n, 7070, token, &[]))
        .collect();
    let list = format!("{},{}", agents[0].addr, agents[1].addr);
    (nss, agents, list)
}

fn token_file() -> std::path::PathBuf {
    let token = lab().home.join("token");
    std::fs::write(&token, "s3cret-token\n").unwrap();
    token
}

#[test]
fn agents_in_namespaces() {
    let _alone = common::measuring();
    let port = sandbox();
    let nss: Vec<Netns> = (0..3).map(|_| Netns::new()).collect();
    let token = token_file();
    let agents: Vec<Agent> = nss
        .iter()
        .map(|n| Agent::start(n, 7070, &token, &[]))
        .collect();
    let list: Vec<String> = agents.iter().map(|a| a.addr.clone()).collect();
    let list = list.join(",");
    let host = nss[0].host_ip();

    // 3 agents x 2 connections: one run, merged exactly.
    let o = run(&host, port, &list, &token, "3");
    assert!(o.status.success(), "{}", text(&o));
    let doc = json(&o);
    let mut union = Hist::new();
    let mut seconds = 0;
    let mut events_all = 0;
    for a in &agents {
        let sent = a.sent();
        union.merge(&hist(sent["done"]["total"]["hist"].as_str().unwrap()));
        events_all += sent["done"]["events_all"].as_u64().unwrap();
        seconds = seconds.max(sent["samples"].as_array().unwrap().len());
    }
    let lat = &doc["totals"]["latency_ms"];
    for (key, q) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
        let merged = lat[key].as_f64().unwrap();
        assert!(
            (merged - union.quantile_ms(q)).abs() < 1e-9,
            "{key}: merged {merged}, union {}",
            union.quantile_ms(q)
        );
    }
    assert_eq!(
        doc["totals"]["transactions"].as_u64().unwrap(),
        union.count()
    );
    assert_eq!(
        doc["intervals"].as_array().unwrap().len(),
        seconds,
        "per-second lines"
    );
    let block = &doc["agents"];
    assert_eq!(block["agents"].as_array().unwrap().len(), 3);
    let server = block["server_commits"].as_i64().unwrap();
    assert_eq!(block["client_transactions"].as_u64().unwrap(), events_all);
    assert!(
        (server - events_all as i64).abs() <= 12,
        "Com_commit {server} vs {events_all}"
    );
    assert!(block["commit_mismatch"].is_null());

    // A wrong token: refused in one line naming the agent.
    let wrong = lab().home.join("wrong-token");
    std::fs::write(&wrong, "nope\n").unwrap();
    let o = run(&host, port, &list, &wrong, "3");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    let line = err
        .lines()
        .find(|l| l.contains("wrong token"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains(&agents[0].addr), "{line}");

    // A clock 400 ms off: refused, naming the agent.
    let skewed = Agent::start(&nss[1], 7071, &token, &["--fake-clock-offset-ms", "400"]);
    let o = run(
        &host,
        port,
        &format!("{},{}", agents[0].addr, skewed.addr),
        &token,
        "3",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains(&skewed.addr) && err.contains("clock"), "{err}");
    drop(skewed);

    // An agent killed mid-run: degraded, named, the others' figures kept.
    let mut agents = agents;
    let victim = agents[2].addr.clone();
    let child = std::thread::spawn({
        let list = list.clone();
        let host = host.clone();
        let token = token.clone();
        move || run(&host, port, &list, &token, "5")
    });
    std::thread::sleep(std::time::Duration::from_millis(4500));
    let _ = agents[2].child.kill();
    let o = child.join().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["status"]["status"], "degraded");
    let why = doc["status"]["reason"].as_str().unwrap();
    assert!(why.contains(&victim) && why.contains("33%"), "{why}");
    assert!(doc["totals"]["transactions"].as_u64().unwrap() > 0);
}

#[test]
fn the_controller_refused_interrupted_or_killed() {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let (nss, agents, list) = two_agents(&token);
    let host = nss[0].host_ip();

    // An agent that never started (nothing listens there): refused
    // before the start, naming it; the other agent got no work.
    let absent = format!("{}:7099", nss[1].agent_ip());
    let o = run(
        &host,
        port,
        &format!("{},{absent}", agents[0].addr),
        &token,
        "3",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{}", text(&o));
    let line = err
        .lines()
        .find(|l| l.contains("refused before it starts"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains(&absent), "{line}");
    assert!(
        !line.contains(&format!("agent {}:", agents[0].addr)),
        "{line}"
    );
    assert_eq!(hello(&agents[0].addr, "s3cret-token")["busy"], false);

    // Ctrl-C on the controller: every agent stops (its connections to
    // the sandbox vanish long before the run's 60 s), what they measured
    // merged into an aborted run.
    let child = controller(&host, port, &list, &token, "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(Duration::from_secs(30), "the agents' 6 connections", || {
        agent_connections() >= 6
    });
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    wait_for(
        Duration::from_secs(20),
        "the agents' connections gone after Ctrl-C on the controller",
        || agent_connections() == 0,
    );
    let o = child.wait_with_output().unwrap();
    let doc = json(&o);
    assert_eq!(doc["status"]["status"], "aborted", "{}", text(&o));
    let rows = doc["agents"]["agents"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["status"] == "aborted"), "{rows:?}");

    // The controller killed: every agent goes on to the run's deadline
    // and stops there on its own (no load left behind), free again.
    let time = 4.0;
    let mut child = controller(&host, port, &list, &token, "4")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(Duration::from_secs(30), "the agents' 6 connections", || {
        agent_connections() >= 6
    });
    child.kill().unwrap();
    let _ = child.wait();
    // the deadline (2 s of lead, the run's time) and the agent's own
    // grace after it bound when the load is gone
    let bound = Duration::from_secs_f64(2.0 + time + 30.0 + 5.0 + 10.0);
    wait_for(
        bound,
        "the agents' load gone after the controller was killed",
        || agent_connections() == 0,
    );
    for a in &agents {
        wait_for(Duration::from_secs(10), "the agent free again", || {
            hello(&a.addr, "s3cret-token")["busy"] == false
        });
    }
    // each agent ran its whole share: its run ended at its deadline, not
    // stopped
    for a in &agents {
        let sent = a.sent();
        assert_eq!(sent["done"]["status"]["status"], "ok", "{}", a.addr);
        let t = sent["done"]["elapsed"].as_f64().unwrap();
        assert!(t >= time - 0.5, "{}: ran {t} s of {time}", a.addr);
    }
}

#[test]
fn a_sweep_and_a_campaign_on_agents() {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let (nss, agents, list) = two_agents(&token);
    let store = lab().home.join("sweep-agents.db");
    let store = store.to_str().unwrap();
    let o = lab()
        .command()
        .args(["sweep", "oltp_read_only", "--mysql-host"])
        .arg(nss[0].host_ip())
        .args(["--mysql-port", &port.to_string(), "--mysql-user", "qa"])
        .args(["--mysql-password", "pw", "--db", "agt", "--threads", "2,4"])
        .args(["--time", "2", "--warmup-time", "0", "--repeat", "1"])
        .args(["--agents", &list, "--store", store])
        .arg("--token-file")
        .arg(&token)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // each step a run of its own, merged from both agents
    let runs = json(&lab().qpslab(&["runs", "--store", store, "--format", "json"]));
    let runs = runs.as_array().expect("runs");
    let mut threads: Vec<u64> = runs
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "ok", "{r}");
            assert!(r["queries"].as_u64().unwrap() > 0, "{r}");
            r["threads"].as_u64().unwrap()
        })
        .collect();
    threads.sort();
    assert_eq!(threads, [2, 4]);
    // the last step's 4 connections split 2 and 2: what each agent ran
    for a in &agents {
        let done = &a.sent()["done"];
        assert_eq!(done["status"]["status"], "ok", "{}", a.addr);
        assert_eq!(
            done["thread_events"].as_array().unwrap().len(),
            2,
            "{}",
            a.addr
        );
    }

    // A campaign whose [agents] drive its point (a dsn server the agents
    // reach over TCP): the point's 2 connections split 1 and 1.
    let file = campaign_file(
        "agc",
        "time = 1",
        &format!(
            "addresses = [\"{}\", \"{}\"]\ntoken_file = \"{}\"",
            agents[0].addr,
            agents[1].addr,
            token.display()
        ),
        &format!("dsn = \"mysql://qa:pw@{}:{port}/agc\"", nss[0].host_ip()),
    );
    let cstore = lab().home.join("campaign-agents.db");
    let cstore = cstore.to_str().unwrap();
    let o = lab().qpslab(&["campaign", "run", file.to_str().unwrap(), "--store", cstore]);
    assert!(o.status.success(), "{}", text(&o));
    let runs = json(&lab().qpslab(&["runs", "--store", cstore, "--format", "json"]));
    let runs = runs.as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "ok");
    for a in &agents {
        let done = &a.sent()["done"];
        assert_eq!(
            done["thread_events"].as_array().unwrap().len(),
            1,
            "{}",
            a.addr
        );
    }
}

/// An agent beside the sandbox, on the host side (listening on the veth's
/// host address), killed on drop.
fn host_agent(ns: &Netns, port: u16, token: &std::path::Path) -> Agent {
    let addr = format!("{}:{port}", ns.host_ip());
    Agent::spawn(lab().command(), addr, token, &[], std::path::PathBuf::new())
}

/// The sandbox taken alone, with an agent beside it on `agent_port` and a
/// namespace for the controller (another host).
struct ServerSide {
    _alone: std::sync::RwLockWriteGuard<'static, ()>,
    port: u16,
    token: std::path::PathBuf,
    ns: Netns,
    agent: Agent,
}

impl ServerSide {
    /// `qpslab ARGS` in the namespace against the sandbox over TCP (user
    /// qa), through the agent beside it when `via_agent`.
    fn remote(&self, args: &[&str], via_agent: bool) -> Command {
        let mut c = self.ns.qpslab();
        c.args(args)
            .args(["--mysql-host", &self.ns.host_ip(), "--mysql-port"])
            .arg(self.port.to_string())
            .args(["--mysql-user", "qa", "--mysql-password", "pw"]);
        if via_agent {
            c.args(["--server-agent", &self.agent.addr, "--token-file"])
                .arg(&self.token);
        }
        c
    }

    /// `remote(args, via_agent)` run to its end.
    fn output(&self, args: &[&str], via_agent: bool) -> std::process::Output {
        self.remote(args, via_agent).output().unwrap()
    }
}

fn server_side(agent_port: u16) -> ServerSide {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let ns = Netns::new();
    let agent = host_agent(&ns, agent_port, &token);
    ServerSide {
        _alone,
        port,
        token,
        ns,
        agent,
    }
}

/// Item 5: the controller in a namespace of its own (another host, as
/// far as it can tell), the server on the host side with an agent beside
/// it: the stored run has the server host's OS sources (its CPU, the
/// mariadbd process, its threads, disks, the host side's network
/// interfaces, memory) and the server's on-CPU stacks, read and recorded
/// by that agent. Without perf this fails with the reason.
#[test]
fn a_remote_servers_insides_through_the_agent_beside_it() {
    let side = server_side(7090);
    let store = lab().home.join("server-agent.db");
    let o = side
        .remote(
            &["run", "oltp_read_only", "--db", "agt", "--threads", "2"],
            true,
        )
        .args(["--time", "7", "--profile", "cpu", "--format", "json"])
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let doc = json(&o);
    let cpu = &doc["profile"]["kinds"][0];
    assert_eq!(cpu["kind"], "cpu", "{doc}");
    assert!(
        cpu["weight"].as_u64().unwrap_or(0) > 0,
        "no on-CPU stacks of the server came back from its agent (is perf usable on this host?): {cpu}"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let run = read_on_the_servers_host(
        &db,
        &side.agent.addr,
        &["cpu", "server_proc", "server_tasks", "disk", "net", "mem"],
    );
    // the server's CPU per query, from its process on that host
    let us: Option<f64> = db
        .query_row(
            &format!("SELECT server_us_per_q FROM runs WHERE id = {run}"),
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(us.is_some_and(|u| u > 0.0), "server CPU per query: {us:?}");
    has_dispatch_command_stacks(&db, run);
}

/// The last run of store `db` has the server host's OS sources (each of
/// `sources` twice at least), read there by the agent at `agent` (the
/// note naming it once), and the host side's veth ends among its network
/// interfaces, which a controller in a namespace does not have; its id.
fn read_on_the_servers_host(db: &rusqlite::Connection, agent: &str, sources: &[&str]) -> i64 {
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let run = count("SELECT MAX(id) FROM runs");
    for source in sources {
        let n = count(&format!(
            "SELECT COUNT(*) FROM metric_snaps WHERE run_id = {run} AND source = '{source}'"
        ));
        assert!(n >= 2, "{source}: {n} snapshots");
    }
    let host_end = format!("qh{}x", std::process::id() % 100_000);
    let n = count(&format!(
        "SELECT COUNT(*) FROM metric_keys WHERE run_id = {run} AND source = 'net' AND name LIKE '{host_end}%'"
    ));
    assert!(
        n > 0,
        "net has no {host_end}* interface: not the server's host"
    );
    let said = count(&format!(
        "SELECT COUNT(*) FROM monitor_notes WHERE run_id = {run} AND text LIKE '%read on the server''s host by the agent at {agent}%'"
    ));
    assert_eq!(said, 1, "the note naming the agent");
    run
}

/// Run `run` of `db` kept mariadbd's on-CPU `dispatch_command` stacks.
fn has_dispatch_command_stacks(db: &rusqlite::Connection, run: i64) {
    let stacks: i64 = db
        .query_row(
            &format!(
                "SELECT COUNT(*) FROM profile_stacks WHERE run_id = {run} AND kind = 'cpu' AND stack LIKE '%dispatch_command%'"
            ),
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(stacks > 0, "no dispatch_command stack of mariadbd stored");
}

/// A campaign file named after database `db` (made on the sandbox): 2
/// connections of oltp_read_only on one table of 300 rows, with `top`'s
/// keys, `[agents]` holding `agents` and the one `[[server]]` `server`.
fn campaign_file(db: &str, top: &str, agents: &str, server: &str) -> std::path::PathBuf {
    sandbox_sql(&format!("CREATE DATABASE IF NOT EXISTS {db}"));
    let file = lab().home.join(format!("{db}-campaign.toml"));
    let text = format!(
        "name = \"{db}\"\nthreads = [2]\n{top}\n[data]\ntables = 1\ntable_size = 300\n[agents]\n{agents}\n[[server]]\nlabel = \"db\"\n{server}\n[[workload]]\nname = \"oltp_read_only\"\n"
    );
    std::fs::write(&file, text).unwrap();
    file
}

/// A process killed (and reaped) on drop: a load beside a test.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `--server-agent` beyond run and sweep: `monitor` (a stored session
/// with the server host's sources), `iostat` (the device columns, said
/// to come from the agent), `top` (the server's CPU share) and `profile`
/// (mariadbd's stacks recorded there), each from a namespace of its own
/// (another host) against the sandbox with its agent beside it; without
/// the agent, the host sources are skipped with a note as before; a lone
/// --token-file is refused in one line.
#[test]
fn monitor_iostat_top_and_profile_through_the_server_agent() {
    let side = server_side(7091);
    let addr = &side.agent.addr;
    let ok = |o: std::process::Output| {
        assert!(o.status.success(), "{}", text(&o));
        o
    };

    let store = lab().home.join("monitor-agent.db");
    let store_arg = store.to_str().unwrap();
    ok(side.output(
        &["monitor", "--time", "4", "--quiet", "--store", store_arg],
        true,
    ));
    let db = rusqlite::Connection::open(&store).unwrap();
    read_on_the_servers_host(&db, addr, &["cpu", "server_proc", "disk", "net"]);

    // without the agent: the remote server's host sources skipped, said
    let o = ok(side.output(&["monitor", "--time", "2", "--quiet", "--no-store"], false));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("is not on this host; only its SQL counters are read"),
        "{err}"
    );

    let o = ok(side.output(&["iostat", "--count", "2"], true));
    let err = String::from_utf8_lossy(&o.stderr);
    let said = format!("on the server's host (read by the agent at {addr})");
    assert!(err.contains(&said), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("util%"), "no device columns: {out}");

    let o = ok(side.output(&["top", "--count", "3"], true));
    let out = String::from_utf8_lossy(&o.stdout);
    let cpu = out
        .lines()
        .rfind(|l| l.starts_with("CPU ("))
        .unwrap_or_else(|| panic!("no CPU line: {out}"));
    let server = cpu.split("server ").nth(1).unwrap_or("");
    assert!(
        server.starts_with(|ch: char| ch.is_ascii_digit()),
        "the server's CPU share not read through the agent: {cpu}"
    );

    // profile: a load on the sandbox meanwhile (its 2 connections seen
    // before recording), the stacks recorded on the server's host
    let _load = Killed(
        lab()
            .command()
            .args(["run", "oltp_point_select", "--server", "ag", "--db", "agt"])
            .args(["--threads", "2", "--time", "120", "--no-store"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for(Duration::from_secs(30), "the load's 2 connections", || {
        sandbox_number(
            "SELECT COUNT(*) FROM information_schema.processlist WHERE db = 'agt' AND host = 'localhost'",
        ) >= 2
    });
    let folded = lab().home.join("agent-profile.folded");
    let o = ok(side.output(
        &[
            "profile",
            "--kind",
            "cpu",
            "--time",
            "3",
            "--db",
            "agt",
            "--folded",
            folded.to_str().unwrap(),
        ],
        true,
    ));
    let said = format!("through the agent at {addr}");
    assert!(text(&o).contains(&said), "{}", text(&o));
    let stacks = std::fs::read_to_string(&folded).expect("the folded stacks");
    assert!(
        stacks.contains("dispatch_command"),
        "no dispatch_command stack of mariadbd came back from its agent (is perf usable on this host?)"
    );

    // --token-file with no agent to give it to: one line, said why
    let token = side.token.to_str().unwrap();
    let o = side.output(&["monitor", "--time", "1", "--token-file", token], false);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.trim().lines().count() == 1 && err.contains("--token-file goes with --server-agent"),
        "{err}"
    );
}

/// A server restarted during a monitor session from another host: the
/// agent beside it finds its new process (the note says pid A -> B) and
/// the server's /proc figures go on from that one.
#[test]
fn a_restarted_server_is_found_again_by_its_agent() {
    let side = server_side(7093);
    let store = lab().home.join("restart-agent.db");
    let said = lab().home.join("restart-monitor.err");
    let mut monitor = Killed(
        side.remote(
            &["monitor", "--quiet", "--store", store.to_str().unwrap()],
            true,
        )
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&said).unwrap())
        .spawn()
        .unwrap(),
    );
    let said = || std::fs::read_to_string(&said).unwrap_or_default();
    let count = |sql: &str| -> i64 {
        let Ok(db) = rusqlite::Connection::open_with_flags(
            &store,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        ) else {
            return 0;
        };
        db.query_row(sql, [], |r| r.get(0)).unwrap_or(0)
    };
    let server_procs = || count("SELECT COUNT(*) FROM metric_snaps WHERE source = 'server_proc'");
    wait_for(
        Duration::from_secs(30),
        "the server's /proc read through its agent",
        || {
            let n = server_procs();
            assert!(
                n > 0 || monitor.0.try_wait().unwrap().is_none(),
                "the monitor ended: {}",
                said()
            );
            n >= 2
        },
    );
    for step in ["stop", "start"] {
        let o = lab().qpslab(&["server", step, "--name", "ag"]);
        assert!(o.status.success(), "server {step}: {}", text(&o));
    }
    let changed = "SELECT COUNT(*) FROM monitor_notes WHERE text LIKE '%the server''s process changed (pid %'";
    wait_for(
        Duration::from_secs(60),
        "the new process found by the agent",
        || count(changed) == 1,
    );
    let after = server_procs();
    wait_for(
        Duration::from_secs(30),
        "the new process's /proc read",
        || server_procs() >= after + 2,
    );
    let sent = Command::new("kill")
        .args(["-INT", &monitor.0.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = monitor.0.wait().unwrap();
    assert!(status.success(), "monitor: {status}: {}", said());
    let db = rusqlite::Connection::open(&store).unwrap();
    let note: String = db
        .query_row(
            "SELECT text FROM monitor_notes WHERE text LIKE '%process changed%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let pids: Vec<&str> = note
        .split("(pid ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .map(|p| p.split(" -> ").collect())
        .unwrap_or_default();
    assert!(pids.len() == 2 && pids[0] != pids[1], "{note}");
}

/// A campaign whose dsn server names the agent beside it (`[[server]]
/// agent`, the token from `[agents]` without addresses: the load runs
/// here), run from a namespace: its point has the server host's sources
/// and mariadbd's stacks (`profile = ["cpu"]`) recorded there.
#[test]
fn a_campaign_servers_agent() {
    let side = server_side(7092);
    let file = campaign_file(
        "agsrv",
        "time = 4\nprofile = [\"cpu\"]",
        &format!("token_file = \"{}\"", side.token.display()),
        &format!(
            "dsn = \"mysql://qa:pw@{}:{}/agsrv\"\nagent = \"{}\"",
            side.ns.host_ip(),
            side.port,
            side.agent.addr
        ),
    );
    let store = lab().home.join("server-agent-campaign.db");
    let o = side
        .ns
        .qpslab()
        .args(["campaign", "run", file.to_str().unwrap(), "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let db = rusqlite::Connection::open(&store).unwrap();
    let run = read_on_the_servers_host(
        &db,
        &side.agent.addr,
        &["cpu", "server_proc", "disk", "net"],
    );
    has_dispatch_command_stacks(&db, run);

    // a sandbox server has no agent of its own: refused, said why
    let bad = lab().home.join("server-agent-sandbox.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\nthreads = [1]\n[agents]\ntoken_file = \"/t\"\n[[server]]\nlabel = \"s\"\nagent = \"db1:7070\"\n[[workload]]\nname = \"oltp_read_only\"\n",
    )
    .unwrap();
    let o = lab().qpslab(&["campaign", "status", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("agent goes with dsn"), "{}", text(&o));
}

/// `--events N` and `--rate R` on 3 agents (weights 1, 1, 2: 2, 2 and 4
/// of 8 connections): the events split so that the merged total is N
/// exactly (the remainder to the first agent); the rate split by the
/// connections' shares, the merged event rate near R over the run (a
/// bound of 30%, R far below what the sandbox does) and each agent's near
/// its share, the schedule lag the union of the agents' lags; too few
/// events for the agents and no --time are refused in one line.
#[test]
fn events_and_rate_split_across_agents() {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let nss: Vec<Netns> = (0..3).map(|_| Netns::new()).collect();
    let agents: Vec<Agent> = nss
        .iter()
        .map(|n| Agent::start(n, 7070, &token, &[]))
        .collect();
    let list = format!("{},{},{}=2", agents[0].addr, agents[1].addr, agents[2].addr);
    let host = nss[0].host_ip();
    let load = |time: &str, extra: &[&str]| {
        controller_of("oltp_point_select", "8", &host, port, &list, &token, time)
            .args(extra)
            .output()
            .unwrap()
    };

    let o = load("60", &["--events", "301"]);
    assert!(o.status.success(), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["status"]["status"], "ok", "{doc}");
    assert_eq!(doc["totals"]["transactions"].as_u64(), Some(301), "{doc}");
    // floors 75, 75, 150 of 301 x 2/8, 2/8, 4/8: the one left to the first
    let each: Vec<u64> = agents
        .iter()
        .map(|a| a.sent()["done"]["total"]["events"].as_u64().unwrap())
        .collect();
    assert_eq!(each, [76, 75, 150]);

    let (rate, secs) = (120.0, 5.0);
    let o = load("5", &["--rate", "120"]);
    assert!(o.status.success(), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["status"]["status"], "ok", "{doc}");
    let tps = doc["totals"]["tps"].as_f64().unwrap();
    assert!(
        (tps - rate).abs() <= 0.3 * rate,
        "merged rate {tps:.1} events/s, target {rate}"
    );
    let mut lag = Hist::new();
    for (a, share) in agents.iter().zip([0.25, 0.25, 0.5]) {
        let total = &a.sent()["done"]["total"];
        let n = total["events"].as_f64().unwrap();
        let want = rate * share * secs;
        assert!(
            (n - want).abs() <= 0.4 * want,
            "agent {}: {n} events, its share {want}",
            a.addr
        );
        lag.merge(&hist(
            total["lag"].as_str().expect("the agent's schedule lag"),
        ));
    }
    let merged = &doc["totals"]["schedule_lag_ms"];
    assert!(
        (merged["max"].as_f64().unwrap() - lag.max_ms()).abs() < 1e-9,
        "schedule lag: merged {merged}, union max {}",
        lag.max_ms()
    );
    assert!(
        (merged["p95"].as_f64().unwrap() - lag.quantile_ms(0.95)).abs() < 1e-9,
        "schedule lag: merged {merged}, union p95 {}",
        lag.quantile_ms(0.95)
    );

    for (time, extra, why) in [
        (
            "5",
            &["--events", "2"][..],
            "--events 2 is too few for the agents",
        ),
        (
            "0",
            &["--events", "100"][..],
            "--agents needs --time above 0",
        ),
    ] {
        let o = load(time, extra);
        assert!(!o.status.success(), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        let line = err
            .lines()
            .find(|l| l.contains(why))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(!line.is_empty());
    }
}

/// A self-signed certificate naming `ip`, made with openssl into the lab's
/// home as NAME.crt and NAME.key (the test fails saying so without it).
fn self_signed(name: &str, ip: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let (crt, key) = (
        lab().home.join(format!("{name}.crt")),
        lab().home.join(format!("{name}.key")),
    );
    let o = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
        .args(["ec_paramgen_curve:P-256", "-nodes", "-days", "2"])
        .args(["-subj", "/CN=qpslab-test-agent", "-addext"])
        .arg(format!("subjectAltName=IP:{ip}"))
        // an end entity's: rustls refuses a CA certificate as the server's
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&crt)
        .output()
        .unwrap_or_else(|e| panic!("this test needs openssl to make a certificate: {e}"));
    assert!(o.status.success(), "openssl: {}", text(&o));
    (crt, key)
}

/// Issue 36 item 1's optional TLS: an agent started with --tls-cert and
/// --tls-key answers HTTPS only; a controller with --agent-ca (that
/// certificate) drives it as over HTTP; without --agent-ca, or trusting
/// another certificate, the run is refused before it starts, in one line
/// that says why; and the certificate's key never shows in what is said.
#[test]
fn agents_over_tls() {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let ns = Netns::new();
    let (crt, key) = self_signed("agent-tls", &ns.agent_ip());
    let (other, _) = self_signed("other-tls", &ns.agent_ip());
    let agent = Agent::start(
        &ns,
        7071,
        &token,
        &[
            "--tls-cert",
            crt.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    let host = ns.host_ip();
    let o = controller(&host, port, &agent.addr, &token, "2")
        .arg("--agent-ca")
        .arg(&crt)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["status"]["status"], "ok", "{doc}");
    let rows = doc["agents"]["agents"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        doc["totals"]["transactions"].as_u64().unwrap_or(0) > 0,
        "{doc}"
    );

    for (extra, why) in [
        (None, "give --agent-ca"),
        (Some(&other), "does not chain to --agent-ca"),
    ] {
        let mut c = controller(&host, port, &agent.addr, &token, "2");
        if let Some(ca) = extra {
            c.arg("--agent-ca").arg(ca);
        }
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{}", text(&o));
        let line = err
            .lines()
            .find(|l| l.contains("refused before it starts"))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains(why), "{line}");
        assert!(!err.contains("PRIVATE KEY"), "{err}");
    }
}
