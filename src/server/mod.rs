//! server: private sandbox servers.
//!
//! Owns the state directory, my.cnf generation from named profiles, datadir
//! initialisation for each server flavour (MariaDB or MySQL, from the
//! distribution or a tarball `--basedir`), start with readiness checks and CPU
//! pinning, stop, status and destroy. It checks readiness by the server's
//! greeting on its socket and does not speak the client protocol beyond
//! that (lab builds connection options for a sandbox); it knows nothing
//! about workloads, databases in it, or results.

mod flavor;
mod paths;
mod profiles;
mod sandbox;

pub use flavor::{Flavor, Release};
pub use paths::state_dir;
pub use profiles::{render_profiles_help, Profile};
pub use sandbox::{parse_cpu_list, process_alive, Sandbox};
