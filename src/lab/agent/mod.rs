//! Agents: several client hosts driving one server, their results merged
//! exactly into one run. The agent's side (`worker`: one run at a time for
//! the controller with the token; served over HTTP by ui/agent_api.rs),
//! the wire's JSON messages (`wire`, documented in docs/AGENTS.md), the
//! agents' addresses (`addresses`: a list, a file, a DNS name), the
//! controller's preflight (`controller`: greeting, clock offsets, the
//! split, the reach check), the run (`drive`) and the merging (`merge`).
//! Beside the database server, an agent serves its host's OS sources
//! and perf recordings to the controller's monitor and profiler
//! (`host_serve`; the controller's client is `server_agent`). How the
//! controller reaches agents (token, HTTPS with a CA) is `link`.
//! A run on agents goes through the same `run_once` as a local one: only
//! the load's source differs (`lab::watch::run_watched`).

mod addresses;
mod controller;
mod drive;
mod host_serve;
mod link;
mod merge;
mod server_agent;
pub mod wire;
mod worker;

pub use addresses::resolve_agents;
pub use controller::{
    hex, parse_agents, script_text, split, AgentAddr, Fleet, FleetPlan, Member, MAX_OFFSET_MS,
};
pub(crate) use drive::drive;
pub use host_serve::HostCore;
pub use link::Link;
pub use merge::CLIENT_BOUND_BUSY;
pub use server_agent::ServerAgent;
pub use worker::{token_of, unix_now, AgentCore, Builder, Refusal, DEADLINE_GRACE};
