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
//! split and merged, and agents over TLS (--tls-cert, --agent-ca). The
//! tests take
//! the sandbox one at a time (its Com_commit is server-wide). Needs root
//! and `ip netns`: fails saying so otherwise.

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
        assert!(i < 12, "at most 12 namespaces a test process");
        let pid = std::process::id();
        let net = (pid % 20) * 12 + i;
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
    let sock = l.home.join("sandboxes/ag/mysqld.sock");
    let o = Command::new("mariadb")
        .args(["-uroot", &format!("--socket={}", sock.display())])
        .args(["-e", "CREATE DATABASE agt; CREATE USER 'qa'@'%' IDENTIFIED BY 'pw'; GRANT ALL ON *.* TO 'qa'@'%'"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
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
    let mut c = lab().command();
    c.args([
        "run",
        "oltp_read_write",
        "--mysql-host",
        host,
        "--mysql-user",
        "qa",
    ])
    .args([
        "--mysql-password",
        "pw",
        "--db",
        "agt",
        "--threads",
        "6",
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

/// The sandbox's connections from the agents' namespaces (10.201.N.2),
/// from its processlist.
fn agent_connections() -> usize {
    let sock = lab().home.join("sandboxes/ag/mysqld.sock");
    let o = Command::new("mariadb")
        .args([
            "-uroot",
            "-N",
            "-B",
            &format!("--socket={}", sock.display()),
        ])
        .args([
            "-e",
            "SELECT COUNT(*) FROM information_schema.processlist WHERE host LIKE '10.201.%.2:%'",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
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
    let sock = lab().home.join("sandboxes/ag/mysqld.sock");
    let o = Command::new("mariadb")
        .args(["-uroot", &format!("--socket={}", sock.display())])
        .args(["-e", "CREATE DATABASE IF NOT EXISTS agc"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let file = lab().home.join("agents-campaign.toml");
    std::fs::write(
        &file,
        format!(
            r#"
name = "on-agents"
threads = [2]
time = 1
[data]
tables = 1
table_size = 300
[agents]
addresses = ["{}", "{}"]
token_file = "{}"
[[server]]
label = "db"
dsn = "mysql://qa:pw@{}:{port}/agc"
[[workload]]
name = "oltp_read_only"
"#,
            agents[0].addr,
            agents[1].addr,
            token.display(),
            nss[0].host_ip()
        ),
    )
    .unwrap();
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

/// Item 5: the controller in a namespace of its own (another host, as
/// far as it can tell), the server on the host side with an agent beside
/// it: the stored run has the server host's OS sources (its CPU, the
/// mariadbd process, its threads, disks, the host side's network
/// interfaces, memory) and the server's on-CPU stacks, read and recorded
/// by that agent. Without perf this fails with the reason.
#[test]
fn a_remote_servers_insides_through_the_agent_beside_it() {
    let _alone = common::measuring();
    let port = sandbox();
    let token = token_file();
    let ns = Netns::new();
    let agent = host_agent(&ns, 7090, &token);
    let store = lab().home.join("server-agent.db");
    let o = Command::new("ip")
        .args(["netns", "exec", &ns.name, common::bin()])
        .env("QPSLAB_HOME", &lab().home)
        .env_remove("MYSQL_PWD")
        .args(["run", "oltp_read_only", "--mysql-host", &ns.host_ip()])
        .args(["--mysql-port", &port.to_string(), "--mysql-user", "qa"])
        .args(["--mysql-password", "pw", "--db", "agt", "--threads", "2"])
        .args(["--time", "7", "--profile", "cpu", "--format", "json"])
        .args(["--server-agent", &agent.addr, "--token-file"])
        .arg(&token)
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
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let run = count("SELECT MAX(id) FROM runs");
    for source in ["cpu", "server_proc", "server_tasks", "disk", "net", "mem"] {
        let n = count(&format!(
            "SELECT COUNT(*) FROM metric_snaps WHERE run_id = {run} AND source = '{source}'"
        ));
        assert!(n >= 2, "{source}: {n} snapshots");
    }
    // the network is the server host's: the veth's host end, which the
    // controller's namespace does not have
    let host_end = format!("qh{}x", std::process::id() % 100_000);
    let n = count(&format!(
        "SELECT COUNT(*) FROM metric_keys WHERE run_id = {run} AND source = 'net' AND name LIKE '{host_end}%'"
    ));
    assert!(
        n > 0,
        "net has no {host_end}* interface: not the server's host"
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
    let said = count(&format!(
        "SELECT COUNT(*) FROM monitor_notes WHERE run_id = {run} AND text LIKE '%read on the server''s host by the agent at {}%'",
        agent.addr
    ));
    assert_eq!(said, 1, "the note naming the agent");
    let stacks = count(&format!(
        "SELECT COUNT(*) FROM profile_stacks WHERE run_id = {run} AND kind = 'cpu' AND stack LIKE '%dispatch_command%'"
    ));
    assert!(stacks > 0, "no dispatch_command stack of mariadbd stored");
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
