//! server: private sandbox servers.
//!
//! Owns the state directory, my.cnf generation from named profiles, datadir
//! initialisation for each server flavour (MariaDB or MySQL, from the
//! distribution or a tarball `--basedir`), start with readiness checks and CPU
//! pinning, stop, status and destroy. It checks readiness by the server's
//! greeting on its socket and does not speak the client protocol beyond
//! that (lab builds connection options for a sandbox); it knows nothing
//! about workloads, databases in it, or results. It also fetches server
//! builds by name into a cache (`server get`, builds.rs and fetch.rs).

mod builds;
mod checksum;
mod cnf;
mod cnf_presets;
mod cpus;
mod download;
mod fetch;
mod flavor;
mod paths;
mod ports;
mod process;
mod progress_events;
mod sandbox;
mod unpack;
mod versions;

pub use builds::{list_cached, maven_names, BuildName};
pub use fetch::{get, GetOptions};
pub use flavor::{server_label, Flavor, Release};

/// The tree of build `name` (`mysql-5.5.9`) for `--version`: the cached
/// one, else fetched now where that needs nothing from the user (Maven
/// Central builds, MariaDB's published checksums); `progress` is told each
/// step of a fetch.
pub fn build_tree(
    name: &str,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<std::path::PathBuf> {
    let b = BuildName::parse(name)?;
    get(&b, &GetOptions::default(), progress)
}
pub use cnf_presets::{render_presets_help, CnfPreset};
pub use cpus::parse_cpu_list;
pub use paths::state_dir;
pub use process::process_alive;
pub use progress_events::Progress;
pub use sandbox::Sandbox;
