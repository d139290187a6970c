//! A sandbox's lifecycle: one private server with its own datadir, socket,
//! port, my.cnf and error log under `<state dir>/sandboxes/<name>/`, opened,
//! initialised, started, stopped, saved as a template and destroyed. Its
//! my.cnf is cnf.rs's, its port ports.rs's, its CPU list cpus.rs's.

use super::cnf_presets::CnfPreset;
use super::cpus::parse_cpu_list;
use super::flavor::{Init, Install};
use super::paths::{sandboxes_dir, socket_path};
use super::ports::{free_port, release_port};
use super::process::{copy_tree, greets, output_within, process_alive};
use super::progress_events::Progress;
use super::versions::init_args;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a sandbox is made of; kept in `meta.json` beside the datadir.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SandboxSpec {
    pub name: String,
    pub basedir: Option<PathBuf>,
    /// Written as `profile`, its older name, so that an older qpslab
    /// still opens the sandbox (`bench/ab.sh` runs two builds on one).
    #[serde(rename = "profile", alias = "preset")]
    pub preset: CnfPreset,
    /// `--set` overrides, applied after the preset.
    pub sets: Vec<(String, String)>,
    /// CPU list the server is pinned to (taskset syntax: `0-3,6`).
    pub cpus: Option<String>,
    pub port: u16,
}

/// A sandbox: its recorded settings and its directory under the sandboxes
/// directory (the directory may not exist yet).
pub struct Sandbox {
    /// Its settings, as recorded in `meta.json`.
    pub spec: SandboxSpec,
    /// Its directory: my.cnf, data, socket, logs.
    pub dir: PathBuf,
}

impl Sandbox {
    fn dir_of(name: &str) -> PathBuf {
        sandboxes_dir().join(name)
    }

    /// Opens an existing sandbox by name.
    pub fn open(name: &str) -> Result<Option<Sandbox>> {
        validate_name(name)?;
        let dir = Self::dir_of(name);
        let meta = dir.join("meta.json");
        if !meta.exists() {
            return Ok(None);
        }
        let spec: SandboxSpec = serde_json::from_slice(&fs::read(&meta)?)
            .with_context(|| format!("corrupt sandbox metadata {}", meta.display()))?;
        Ok(Some(Sandbox { spec, dir }))
    }

    /// Opens the sandbox, or describes a new one with a free port.
    pub fn open_or_new(name: &str) -> Result<Sandbox> {
        validate_name(name)?;
        if let Some(s) = Self::open(name)? {
            return Ok(s);
        }
        Ok(Sandbox {
            spec: SandboxSpec {
                name: name.to_string(),
                basedir: None,
                preset: CnfPreset::Default,
                sets: Vec::new(),
                cpus: None,
                port: free_port(&taken_ports()?)?,
            },
            dir: Self::dir_of(name),
        })
    }

    /// Every sandbox under the sandboxes directory, by name; a corrupt
    /// `meta.json` is an error.
    pub fn list() -> Result<Vec<Sandbox>> {
        let mut out = Vec::new();
        if let Ok(rd) = fs::read_dir(sandboxes_dir()) {
            for e in rd.flatten() {
                // Only sandbox directories: the folder also holds other
                // files (the port reservations, `.ports`).
                let name = e.file_name().to_string_lossy().into_owned();
                if validate_name(&name).is_err() {
                    continue;
                }
                if let Some(s) = Self::open(&name)? {
                    out.push(s);
                }
            }
        }
        out.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
        Ok(out)
    }

    /// The server's data directory.
    pub fn datadir(&self) -> PathBuf {
        self.dir.join("data")
    }
    /// The server's own temporary directory (not the host's /tmp, which
    /// other servers' temporary tables share).
    pub fn tmpdir(&self) -> PathBuf {
        self.dir.join("tmp")
    }
    /// The only directory the server reads and writes files in (its
    /// secure_file_priv, unless a --set names another): where a prepare's
    /// named pipes go (workload::bulk_load).
    pub fn files_dir(&self) -> PathBuf {
        self.dir.join("files")
    }
    /// The server's Unix socket.
    pub fn socket(&self) -> PathBuf {
        socket_path(&self.dir)
    }
    /// The server's error log.
    pub(crate) fn error_log(&self) -> PathBuf {
        self.dir.join("error.log")
    }
    pub(super) fn pid_file(&self) -> PathBuf {
        self.dir.join("mysqld.pid")
    }
    /// Where its files are: datadir, my.cnf, error log (one per line).
    pub fn paths(&self) -> String {
        format!(
            "  datadir   {}\n  my.cnf    {}\n  error log {}",
            self.datadir().display(),
            self.cnf_path().display(),
            self.error_log().display()
        )
    }

    /// The running server's pid, if it is up: the process running a
    /// mysqld/mariadbd with this sandbox's my.cnf, whatever the pid file
    /// says (after a reboot, or a server started by hand, its pid may
    /// belong to anything, or to nothing).
    pub fn running_pid(&self) -> Option<i32> {
        self.find_server().0
    }

    /// The pid the pid file names, if it holds one.
    fn pid_file_pid(&self) -> Option<i32> {
        fs::read_to_string(self.pid_file())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// The server's pid, and whether the pid file failed to name it (a
    /// stale pid file: missing, or naming another process). The pid file's
    /// process is checked first; else every process's command line is read
    /// for `--defaults-file=<this my.cnf>`.
    fn find_server(&self) -> (Option<i32>, bool) {
        let named = self.pid_file_pid();
        if let Some(pid) = named.filter(|p| *p > 0) {
            if process_alive(i64::from(pid)) && self.is_our_server(pid) {
                return (Some(pid), false);
            }
        }
        let found = procfs::process::all_processes().ok().and_then(|all| {
            all.flatten()
                .map(|p| p.pid)
                .find(|&pid| process_alive(i64::from(pid)) && self.is_our_server(pid))
        });
        (found, found.is_some())
    }

    /// True when `pid` runs a MySQL/MariaDB server with `--defaults-file`
    /// pointing at this sandbox's my.cnf.
    fn is_our_server(&self, pid: i32) -> bool {
        let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        let server = ["mysqld", "mariadbd"]
            .iter()
            .any(|n| comm.trim().contains(n));
        let want = format!("--defaults-file={}", self.cnf_path().display());
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        server && cmdline.split(|b| *b == 0).any(|arg| arg == want.as_bytes())
    }

    /// Initialises the datadir if needed, writes my.cnf, starts the server
    /// and waits until it accepts connections; `progress` is told what it
    /// does.
    pub fn start(&mut self, timeout: Duration, progress: &mut dyn FnMut(Progress)) -> Result<()> {
        if let Some(pid) = self.running_pid() {
            progress(Progress::AlreadyRunning {
                name: self.spec.name.clone(),
                pid,
            });
            return Ok(());
        }
        let install = Install::find(self.spec.basedir.as_deref())?;
        progress(Progress::Starting {
            name: self.spec.name.clone(),
            version: install.version.clone(),
        });
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        for d in [self.tmpdir(), self.files_dir()] {
            fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        if let Some(parent) = self.socket().parent() {
            fs::create_dir_all(parent)?;
        }
        if std::net::TcpListener::bind(("127.0.0.1", self.spec.port)).is_err() {
            // Taken since it was reserved (e.g. by a sandbox of another
            // state directory): move to a free one.
            let old = self.spec.port;
            self.spec.port = free_port(&taken_ports()?)?;
            release_port(old);
            progress(Progress::PortMoved {
                name: self.spec.name.clone(),
                old,
                new: self.spec.port,
            });
        }
        fs::write(
            self.dir.join("meta.json"),
            serde_json::to_vec_pretty(&self.spec)?,
        )?;
        fs::write(self.cnf_path(), self.render_cnf(&install))?;
        if !self.datadir().join("mysql").is_dir() {
            self.initialise(&install, timeout)?;
        }
        let _ = fs::remove_file(self.socket());
        let log_len = fs::metadata(self.error_log()).map(|m| m.len()).unwrap_or(0);
        let mut cmd = Command::new(&install.mysqld);
        cmd.arg(format!("--defaults-file={}", self.cnf_path().display()));
        self.detach(&mut cmd)?;
        let mut child = cmd
            .spawn()
            .with_context(|| format!("cannot start {}", install.mysqld.display()))?;
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "sandbox '{}' failed to start ({status}); error log {}:\n{}",
                    self.spec.name,
                    self.error_log().display(),
                    self.log_tail(log_len, 20)
                );
            }
            if self.socket().exists() && greets(&self.socket()) {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!(
                    "sandbox '{}' not ready after {}s; error log {}:\n{}",
                    self.spec.name,
                    timeout.as_secs(),
                    self.error_log().display(),
                    self.log_tail(log_len, 20)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    /// Runs the program in its own session, output appended to the error
    /// log, pinned to the sandbox's CPU set.
    fn detach(&self, cmd: &mut Command) -> Result<()> {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.error_log())?;
        cmd.stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let cpus = match &self.spec.cpus {
            Some(c) => Some(parse_cpu_list(c)?),
            None => None,
        };
        // SAFETY: the closure runs in the forked child before exec and
        // calls only async-signal-safe functions (setsid, getrlimit,
        // setrlimit, sched_setaffinity) on memory it owns.
        unsafe {
            cmd.pre_exec(move || {
                libc::setsid();
                // The server sizes open_files_limit from max_connections,
                // up to what it may open: give it the hard limit.
                let mut files: libc::rlimit = std::mem::zeroed();
                if libc::getrlimit(libc::RLIMIT_NOFILE, &mut files) == 0
                    && files.rlim_cur < files.rlim_max
                {
                    files.rlim_cur = files.rlim_max;
                    libc::setrlimit(libc::RLIMIT_NOFILE, &files);
                }
                if let Some(cpus) = &cpus {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    for &c in cpus {
                        libc::CPU_SET(c, &mut set);
                    }
                    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        Ok(())
    }

    fn initialise(&self, install: &Install, timeout: Duration) -> Result<()> {
        fs::create_dir_all(self.datadir())?;
        let defaults = format!("--defaults-file={}", self.cnf_path().display());
        let datadir = format!("--datadir={}", self.datadir().display());
        let basedir = install
            .basedir
            .as_ref()
            .map(|b| format!("--basedir={}", b.display()));
        let mut cmd = match &install.init {
            Init::Template(t) => return self.init_from_template(t),
            Init::MariaDbInstallDb(script) => {
                let mut c = Command::new(script);
                c.arg(&defaults).arg(&datadir);
                c.args(init_args(install.flavor, install.release));
                c.args(&basedir);
                c
            }
            Init::MySqlInstallDb(script) => {
                let mut c = Command::new(script);
                c.arg(&defaults).arg(&datadir).args(&basedir);
                // The script runs from the tree's top (it finds its
                // share/ files relative to the current directory).
                if let Some(b) = &install.basedir {
                    c.current_dir(b);
                }
                c
            }
            Init::Initialize => {
                let mut c = Command::new(&install.mysqld);
                c.arg(&defaults).arg("--initialize-insecure").arg(&datadir);
                c
            }
        };
        let out = output_within(&mut cmd, timeout)
            .with_context(|| "cannot run the datadir initialisation")?;
        if !out.status.success() {
            let _ = fs::remove_dir_all(self.datadir());
            bail!(
                "initialising the datadir of '{}' failed:\n{}{}\nerror log {}:\n{}",
                self.spec.name,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                self.error_log().display(),
                self.log_tail(0, 20)
            );
        }
        Ok(())
    }

    /// A datadir from a build's shipped system schema (MXJ builds): its
    /// folders copied in; InnoDB makes its files at first start.
    fn init_from_template(&self, template: &Path) -> Result<()> {
        for e in
            fs::read_dir(template).with_context(|| format!("cannot read {}", template.display()))?
        {
            copy_tree(&e?.path(), &self.datadir())?;
        }
        Ok(())
    }

    /// Stops the server (SIGTERM, then SIGKILL after `timeout`).
    pub fn stop(&self, timeout: Duration) -> Result<bool> {
        let Some(pid) = self.running_pid() else {
            return Ok(false);
        };
        let target = rustix::process::Pid::from_raw(pid.max(0));
        let signal = |s| target.map(|p| rustix::process::kill_process(p, s));
        let _ = signal(rustix::process::Signal::TERM);
        let deadline = Instant::now() + timeout;
        while process_alive(i64::from(pid)) {
            if Instant::now() > deadline {
                let _ = signal(rustix::process::Signal::KILL);
                std::thread::sleep(Duration::from_millis(200));
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = fs::remove_file(self.pid_file());
        Ok(true)
    }

    fn template_dir(&self) -> PathBuf {
        self.dir.join("template")
    }

    /// True when a template datadir was saved.
    pub fn has_template(&self) -> bool {
        self.template_dir().join("mysql").is_dir()
    }

    /// Saves the (stopped) server's datadir as the template that
    /// `restore_template` starts from: data prepared once, reused by every
    /// variant of a campaign.
    pub fn save_template(&self) -> Result<()> {
        if self.running_pid().is_some() {
            bail!(
                "sandbox '{}' must be stopped to save its template datadir",
                self.spec.name
            );
        }
        let _ = fs::remove_dir_all(self.template_dir());
        copy_tree(&self.datadir(), &self.template_dir())
    }

    /// Replaces the (stopped) server's datadir with a copy of the template.
    pub fn restore_template(&self) -> Result<()> {
        if self.running_pid().is_some() {
            bail!(
                "sandbox '{}' must be stopped to restore its template datadir",
                self.spec.name
            );
        }
        fs::remove_dir_all(self.datadir())
            .with_context(|| format!("cannot remove {}", self.datadir().display()))?;
        copy_tree(&self.template_dir(), &self.datadir())
    }

    /// Removes everything the (stopped) sandbox had. Refused while its
    /// server runs (found by its command line, whatever the pid file
    /// says): the datadir is never removed under a server.
    pub fn destroy(self) -> Result<()> {
        if let Some(pid) = self.running_pid() {
            bail!(
                "sandbox '{0}' is running (pid {pid}); stop it first: qpslab server stop --name {0}",
                self.spec.name
            );
        }
        release_port(self.spec.port);
        let _ = fs::remove_file(self.socket());
        fs::remove_dir_all(&self.dir)
            .with_context(|| format!("cannot remove {}", self.dir.display()))?;
        Ok(())
    }

    fn log_tail(&self, from: u64, lines: usize) -> String {
        let text = fs::read(self.error_log()).unwrap_or_default();
        let text = String::from_utf8_lossy(text.get(from as usize..).unwrap_or(&text));
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// One line describing the sandbox, for `status` and `list`.
    pub fn describe(&self) -> String {
        let (pid, stale) = self.find_server();
        let state = match pid {
            Some(pid) => format!("running (pid {pid})"),
            None => "stopped".into(),
        };
        let mut s = format!(
            "{:<12} {:<18} port {:<5} socket {}  preset {}",
            self.spec.name,
            state,
            self.spec.port,
            self.socket().display(),
            self.spec.preset.name()
        );
        if let Some(b) = &self.spec.basedir {
            match super::builds::name_of_tree(b) {
                Some(n) => s.push_str(&format!("  build {n}")),
                None => s.push_str(&format!("  basedir {}", b.display())),
            }
        }
        if let Some(c) = &self.spec.cpus {
            s.push_str(&format!("  cpus {c}"));
        }
        if stale {
            let named = match self.pid_file_pid() {
                Some(p) => format!("named pid {p}"),
                None => "was missing".into(),
            };
            s.push_str(&format!(
                "  (note: the pid file was stale: it {named}; the server was found by its my.cnf)"
            ));
        }
        s
    }
}

fn validate_name(name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!("invalid sandbox name '{name}': use letters, digits, '-' and '_'");
    }
    Ok(())
}

/// The ports this state directory's sandboxes have.
fn taken_ports() -> Result<Vec<u16>> {
    Ok(Sandbox::list()?.iter().map(|s| s.spec.port).collect())
}
