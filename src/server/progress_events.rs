//! What the server layer tells its caller while it works (a sandbox
//! starting, a build fetched and unpacked): typed events handed to a sink
//! the caller passes in; the server layer never prints. Each event's
//! `Display` is the line cli prints for it.

use std::fmt;
use std::path::PathBuf;

/// One step of a sandbox start or a build fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// The sandbox's server was already up: nothing started.
    AlreadyRunning {
        /// The sandbox's name.
        name: String,
        /// The running server's process id.
        pid: i32,
    },
    /// The sandbox's server is being started.
    Starting {
        /// The sandbox's name.
        name: String,
        /// The server's version, as its install reports it.
        version: String,
    },
    /// The sandbox's port was taken by something else: it moved.
    PortMoved {
        /// The sandbox's name.
        name: String,
        /// The port it had, now taken.
        old: u16,
        /// The free port it moved to.
        new: u16,
    },
    /// An archive given by the user was taken without a checksum to verify.
    NotVerified {
        /// The archive.
        file: PathBuf,
        /// Its SHA-256 (hex), recorded so it can be checked by hand.
        sha256: String,
    },
    /// An archive is being unpacked.
    Unpacking(PathBuf),
    /// A Maven Central artifact is being fetched with `mvn` (its coordinates).
    FetchingMaven(String),
    /// A download begins.
    Downloading(String),
    /// The download's size, when the server said it.
    DownloadSize(Option<u64>),
    /// Bytes downloaded so far.
    Downloaded(u64),
    /// The download is complete.
    DownloadDone,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::AlreadyRunning { name, pid } => {
                write!(f, "sandbox '{name}' already running (pid {pid})")
            }
            Progress::Starting { name, version } => {
                write!(f, "starting sandbox '{name}': {version}")
            }
            Progress::PortMoved { name, old, new } => write!(
                f,
                "port {old} is in use by something else: sandbox '{name}' moves to port {new}"
            ),
            Progress::NotVerified { file, sha256 } => write!(
                f,
                "note: {} is not verified (no --checksum given); its SHA-256 is {sha256}",
                file.display()
            ),
            Progress::Unpacking(archive) => write!(f, "unpacking {} ...", archive.display()),
            Progress::FetchingMaven(coords) => {
                write!(f, "fetching {coords} from Maven Central with mvn ...")
            }
            Progress::Downloading(url) => write!(f, "downloading {url} ..."),
            Progress::DownloadSize(Some(n)) => write!(f, "{n} bytes to download"),
            Progress::DownloadSize(None) => write!(f, "download of unknown size"),
            Progress::Downloaded(n) => write!(f, "{n} bytes downloaded"),
            Progress::DownloadDone => write!(f, "download complete"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_wording() {
        let starting = Progress::Starting {
            name: "default".into(),
            version: "mariadbd 11.4.5".into(),
        };
        assert_eq!(
            starting.to_string(),
            "starting sandbox 'default': mariadbd 11.4.5"
        );
        let moved = Progress::PortMoved {
            name: "a".into(),
            old: 13306,
            new: 13307,
        };
        assert_eq!(
            moved.to_string(),
            "port 13306 is in use by something else: sandbox 'a' moves to port 13307"
        );
        assert_eq!(
            Progress::Unpacking("/x/y.tar.gz".into()).to_string(),
            "unpacking /x/y.tar.gz ..."
        );
    }
}
