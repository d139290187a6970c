//! Typed errors of the protocol layer.

use std::fmt;

/// An error packet sent by the server: code, SQLSTATE and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// The server's error number (1062, 2013, …).
    pub code: u16,
    /// The SQLSTATE (5 characters; "HY000" when the server gives none).
    pub state: String,
    /// The server's message.
    pub message: String,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl ServerError {
    /// Parses the payload of an ERR packet (first byte 0xFF).
    pub fn parse(payload: &[u8]) -> ServerError {
        let code = if payload.len() >= 3 {
            u16::from_le_bytes([payload[1], payload[2]])
        } else {
            0
        };
        let rest = payload.get(3..).unwrap_or(&[]);
        let (state, msg) = if rest.first() == Some(&b'#') && rest.len() >= 6 {
            (
                String::from_utf8_lossy(&rest[1..6]).into_owned(),
                &rest[6..],
            )
        } else {
            ("HY000".to_string(), rest)
        };
        ServerError {
            code,
            state,
            message: escape_controls(&String::from_utf8_lossy(msg)),
        }
    }
}

/// Server-supplied text with its control characters escaped (`\u{1b}`,
/// `\n`, ...): a hostile or broken server cannot recolour the terminal,
/// move its cursor or forge lines in what qpslab prints. Nothing is cut:
/// the text stays whole (in the store too), only made inert; printing
/// bounds its length.
pub(crate) fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Everything that can go wrong talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    /// The server answered with an error packet.
    #[error("{0}")]
    Server(ServerError),
    /// The connection failed or was lost.
    #[error("connection error: {0}")]
    Io(#[from] std::io::Error),
    /// The server sent something this client does not understand.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// Authentication could not be carried out by the client.
    #[error("authentication: {0}")]
    Auth(String),
    /// TLS could not be set up as asked.
    #[error("TLS: {0}")]
    Tls(String),
    /// The server did not answer in time; the connection is unusable.
    #[error("timed out after {} waiting for {what}", secs(*.after))]
    Timeout {
        /// What was awaited, in words ("the handshake").
        what: &'static str,
        /// How long it was waited for.
        after: std::time::Duration,
    },
}

fn secs(d: std::time::Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The client-side code counted for a timed-out or stalled query: the
/// MySQL client library's CR_SERVER_LOST ("Lost connection to server
/// during query"), which is what its own read timeout returns.
pub const CR_SERVER_LOST: u16 = 2013;

impl ProtoError {
    /// The server error code, if this is a server error.
    pub fn code(&self) -> Option<u16> {
        match self {
            ProtoError::Server(e) => Some(e.code),
            _ => None,
        }
    }

    /// True when the connection is gone and must be re-established
    /// (I/O failure or the server-side "connection killed"/"server shutdown" codes).
    pub fn is_connection_lost(&self) -> bool {
        match self {
            // (a detached connection was never there to lose: its
            // requests fail, the run with them)
            ProtoError::Io(e) => e.kind() != std::io::ErrorKind::Unsupported,
            ProtoError::Timeout { .. } => true,
            // 1053 shutdown in progress, 1927 connection killed, 2006/2013 client codes
            ProtoError::Server(e) => matches!(e.code, 1053 | 1927 | 2006 | 2013 | 4031),
            _ => false,
        }
    }

    /// True for a timeout (the server stalled) rather than a refusal.
    pub fn is_timeout(&self) -> bool {
        matches!(self, ProtoError::Timeout { .. })
    }

    /// True when retrying the connect later may work: the accept backlog
    /// was full (EAGAIN on a unix socket) or, when asked, nobody listened.
    pub fn is_backpressure(&self, refused_too: bool) -> bool {
        match self {
            ProtoError::Io(e) => {
                e.kind() == std::io::ErrorKind::WouldBlock
                    || (refused_too && e.kind() == std::io::ErrorKind::ConnectionRefused)
            }
            _ => false,
        }
    }
}

/// Server errors at prepare time after which a statement runs over the
/// text protocol: 1461 ER_MAX_PREPARED_STMT_COUNT_REACHED, 1295
/// ER_UNSUPPORTED_PS.
pub const TEXT_FALLBACK_CODES: [u16; 2] = [1461, 1295];

#[cfg(test)]
mod escape_tests {
    use super::*;

    #[test]
    fn server_text_is_made_inert_but_kept_whole() {
        let mut pkt = vec![0xff, 0x28, 0x04, b'#'];
        pkt.extend_from_slice(b"42000");
        pkt.extend_from_slice(b"bad\x1b[31mred\r\nqpslab: forged\x07");
        let e = ServerError::parse(&pkt);
        assert_eq!(e.message, "bad\\u{1b}[31mred\\r\\nqpslab: forged\\u{7}");
        assert!(!e.to_string().chars().any(char::is_control));
        assert_eq!(escape_controls("plain ü"), "plain ü");
    }
}
