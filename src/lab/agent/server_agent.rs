//! The controller's client of the agent beside the database server
//! (`--server-agent HOST:PORT`): the monitor's `HostReader` (the server's
//! process found there, each host source read there), and perf recordings
//! of the server started and stopped there, their outcomes shipped back.
//! Same token, same HTTP and JSON as the load agents (wire.rs).

use super::controller::{call, REQUEST_TIMEOUT};
use super::wire::{
    HostPollRequest, HostValues, LocateRequest, ProfileStart, ProfileStarted, WireOutcome,
};
use crate::monitor::{HostReader, Located, SourceId, Values};
use crate::profiler::{Kind, Outcome};
use anyhow::{anyhow, bail, Result};
use std::path::Path;
use std::time::Duration;

/// How long reading a recording back may take (perf script over a long
/// run's samples).
const PROFILE_READ_TIMEOUT: Duration = Duration::from_secs(300);

/// How long one host poll may take: a second's source must not hold the
/// monitor's tick.
const POLL_TIMEOUT: Duration = Duration::from_millis(800);

/// The agent beside the database server.
#[derive(Clone)]
pub struct ServerAgent {
    /// host:port.
    pub addr: String,
    link: super::Link,
    http: ureq::Agent,
}

impl std::fmt::Debug for ServerAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServerAgent({})", self.addr)
    }
}

impl ServerAgent {
    /// The agent at `addr` (HOST:PORT) reached through `link` (its
    /// token, TLS); nothing is sent yet.
    pub fn new(addr: &str, link: super::Link) -> Result<ServerAgent> {
        match addr.rsplit_once(':') {
            Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => {}
            _ => bail!("--server-agent: '{addr}' is not HOST:PORT (the address the agent beside the server listens on)"),
        }
        Ok(ServerAgent {
            addr: addr.to_string(),
            http: link.client(POLL_TIMEOUT),
            link,
        })
    }

    fn post<T: serde::de::DeserializeOwned>(
        &self,
        http: &ureq::Agent,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, String> {
        let body = serde_json::to_string(body).map_err(|e| e.to_string())?;
        let text = call(http, &self.link, &self.addr, path, Some(body))?;
        serde_json::from_str(&text).map_err(|e| format!("its answer to {path} does not parse: {e}"))
    }

    /// The server's pid on its host, found by the agent (its pid file,
    /// datadir or port); refused in one line when the agent cannot.
    pub fn server_pid(&self, datadir: &str, pid_file: &str, port: u16) -> Result<i32> {
        let l = self
            .locate(
                (!datadir.is_empty()).then(|| Path::new(datadir)),
                pid_file,
                port,
            )
            .map_err(|e| anyhow!("--server-agent {}: {e}", self.addr))?;
        l.pid.ok_or_else(|| {
            anyhow!(
                "--server-agent {}: finds no mariadbd/mysqld by the pid file {pid_file}, the datadir {datadir} or port {port}: run the agent on the server's host, as a user that may read its process",
                self.addr
            )
        })
    }

    /// Starts recording `pid` there with perf (kinds other than waits);
    /// the agent drops it after `max_s` if never stopped.
    pub fn start_profile(
        &self,
        pid: i32,
        kinds: &[Kind],
        hz: u32,
        max_s: f64,
    ) -> Result<u64, String> {
        let req = ProfileStart {
            pid,
            kinds: kinds.iter().map(|k| k.name().to_string()).collect(),
            hz,
            max_s,
        };
        let http = self.link.client(REQUEST_TIMEOUT);
        let s: ProfileStarted = self.post(&http, "/v1/profile/start", &req)?;
        Ok(s.id)
    }

    /// Stops recording `id` and brings back what each kind gathered.
    pub fn stop_profile(&self, id: u64) -> Result<Vec<Outcome>, String> {
        let http = self.link.client(PROFILE_READ_TIMEOUT);
        let w: Vec<WireOutcome> = self.post(
            &http,
            &format!("/v1/profile/{id}/stop"),
            &serde_json::json!({}),
        )?;
        Ok(w.into_iter()
            .filter_map(super::host_serve::from_wire)
            .collect())
    }
}

impl HostReader for ServerAgent {
    fn name(&self) -> String {
        format!("the agent at {}", self.addr)
    }

    fn locate(&self, datadir: Option<&Path>, pid_file: &str, port: u16) -> Result<Located, String> {
        let req = LocateRequest {
            datadir: datadir.map(|d| d.display().to_string()),
            pid_file: pid_file.to_string(),
            port,
        };
        let http = self.link.client(REQUEST_TIMEOUT);
        self.post(&http, "/v1/host/locate", &req)
    }

    fn poll(
        &self,
        source: SourceId,
        pid: Option<i32>,
        disk: Option<&str>,
    ) -> Result<Values, String> {
        let req = HostPollRequest {
            source: source.name().to_string(),
            pid,
            disk: disk.map(str::to_string),
        };
        let v: HostValues = self
            .post(&self.http, "/v1/host/poll", &req)
            .map_err(|e| format!("{}: {e}", self.name()))?;
        match v.error {
            Some(e) => Err(format!("on the server's host: {e}")),
            None => Ok(v.values),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_agent_is_host_and_port() {
        assert!(ServerAgent::new("db1:7070", crate::lab::agent::Link::plain("t")).is_ok());
        let e = ServerAgent::new("db1", crate::lab::agent::Link::plain("t"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--server-agent") && e.contains("HOST:PORT"),
            "{e}"
        );
        assert!(ServerAgent::new(":7070", crate::lab::agent::Link::plain("t")).is_err());
    }

    #[test]
    fn an_agent_that_does_not_answer_is_said_in_one_line() {
        // nothing listens on port 1
        let a = ServerAgent::new("127.0.0.1:1", crate::lab::agent::Link::plain("t")).unwrap();
        let e = a.poll(SourceId::Cpu, None, None).unwrap_err();
        assert!(
            e.starts_with("the agent at 127.0.0.1:1: cannot reach it"),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
