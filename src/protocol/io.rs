//! Packet framing over a socket with one reusable read buffer and one write
//! buffer per connection: no allocation once warmed up.
//!
//! A connection with a thread to itself can switch to direct I/O
//! (`PacketIo::set_direct`): the socket made blocking, each send and
//! receive one system call, as sysbench does, instead of a send, an
//! epoll_wait and a receive through the reactor. Waits are cut into
//! `DIRECT_SLICE` slices (SO_RCVTIMEO) so that a read timeout and a
//! stopping run are still noticed.

use super::error::ProtoError;
use std::io;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;

const MAX_PAYLOAD: usize = 0xFF_FFFF;
/// Largest logical packet accepted once logged in (MariaDB's and MySQL's
/// max_allowed_packet ceiling).
pub const MAX_PACKET: usize = 1 << 30;

pub enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<TlsStream<TcpStream>>),
    /// Transitional state while the TCP stream is being wrapped in TLS.
    Upgrading,
}

fn upgrading() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "TLS upgrade in progress")
}

impl Stream {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf).await,
            Stream::Unix(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
            Stream::Upgrading => Err(upgrading()),
        }
    }

    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf).await,
            Stream::Unix(s) => s.write_all(buf).await,
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
            Stream::Upgrading => Err(upgrading()),
        }
    }

    fn raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tls(s) => s.get_ref().0.as_raw_fd(),
            Stream::Upgrading => -1,
        }
    }

    /// Forgets cached read readiness without a system call, so that the next
    /// read waits for the reactor instead of first trying a read that would
    /// return EAGAIN. Only call it when no bytes can be pending (a response
    /// has been consumed and the next request not yet sent).
    fn clear_read_ready(&self) {
        let would_block = || -> io::Result<()> { Err(io::ErrorKind::WouldBlock.into()) };
        // (TLS may hold decrypted bytes of its own: leave its readiness alone.)
        let _ = match self {
            Stream::Tcp(s) => s.try_io(Interest::READABLE, would_block),
            Stream::Unix(s) => s.try_io(Interest::READABLE, would_block),
            Stream::Tls(_) | Stream::Upgrading => Ok(()),
        };
    }
}

/// How long a direct read blocks before it looks at its limits again.
pub const DIRECT_SLICE: Duration = Duration::from_millis(100);

/// Direct (blocking) I/O's limits.
pub struct Direct {
    /// The longest wait for the server's bytes: then the connection is cut
    /// (shut down) and the read fails with TimedOut, as the reactor path's
    /// watchdog would have done.
    pub limit: Duration,
    /// Asked after each slice with the time waited: true to give up now
    /// (the run is stopping and its grace is over).
    pub give_up: Box<dyn Fn(Duration) -> bool + Send + Sync>,
}

/// A framed connection: reads whole packets, writes whole packets.
pub struct PacketIo {
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Scratch for payloads split over several 16 MiB packets.
    big: Vec<u8>,
    /// Sequence id the next packet we write must carry.
    pub seq: u8,
    pub wbuf: Vec<u8>,
    /// Largest logical packet accepted: small during the handshake, so
    /// that a peer that is not a MySQL server is told apart at once.
    pub limit: usize,
    /// Set: blocking send and receive on the socket (see the module doc).
    direct: Option<Direct>,
    /// Set: sends and receives go through the thread's io_uring ring.
    uring: Option<super::uring::UringSock>,
}

impl PacketIo {
    pub fn new(stream: Stream) -> PacketIo {
        PacketIo {
            stream,
            buf: vec![0; 16 * 1024],
            start: 0,
            end: 0,
            big: Vec::new(),
            seq: 0,
            wbuf: Vec::with_capacity(1024),
            limit: MAX_PACKET,
            direct: None,
            uring: None,
        }
    }

    pub fn is_direct(&self) -> bool {
        self.direct.is_some()
    }

    /// Switches to direct I/O (Some) or back to the reactor (None). Plain
    /// TCP and unix sockets only: Err leaves the connection as it was.
    pub fn set_direct(&mut self, direct: Option<Direct>) -> io::Result<()> {
        if !matches!(self.stream, Stream::Tcp(_) | Stream::Unix(_)) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "direct I/O needs a plain TCP or unix socket",
            ));
        }
        let fd = self.raw_fd();
        let on = direct.is_some();
        let slice = if on { DIRECT_SLICE } else { Duration::ZERO };
        let tv = libc::timeval {
            tv_sec: slice.as_secs() as libc::time_t,
            tv_usec: slice.subsec_micros() as libc::suseconds_t,
        };
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 {
                return Err(io::Error::last_os_error());
            }
            let flags = if on {
                flags & !libc::O_NONBLOCK
            } else {
                flags | libc::O_NONBLOCK
            };
            if libc::fcntl(fd, libc::F_SETFL, flags) != 0
                || libc::setsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_RCVTIMEO,
                    (&tv as *const libc::timeval).cast(),
                    std::mem::size_of::<libc::timeval>() as libc::socklen_t,
                ) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
        self.direct = direct;
        Ok(())
    }

    /// Moves the socket onto this thread's io_uring ring (true) or back to
    /// the reactor. Plain TCP and unix sockets only, and not with direct
    /// I/O: Err leaves the connection as it was.
    pub fn set_uring(&mut self, on: bool) -> io::Result<()> {
        if !on {
            self.uring = None;
            return Ok(());
        }
        if !matches!(self.stream, Stream::Tcp(_) | Stream::Unix(_)) || self.direct.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring needs a plain TCP or unix socket not on direct I/O",
            ));
        }
        if !super::uring::installed() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "no io_uring ring on this thread",
            ));
        }
        self.uring = Some(super::uring::UringSock::register(self.raw_fd()));
        Ok(())
    }

    pub fn is_uring(&self) -> bool {
        self.uring.is_some()
    }

    /// Sends all of `buf` (the stream's own path unless direct or io_uring).
    async fn send(
        stream: &mut Stream,
        direct: bool,
        uring: Option<&super::uring::UringSock>,
        buf: &[u8],
    ) -> io::Result<()> {
        if let Some(u) = uring {
            return u.send(buf).await;
        }
        if !direct {
            return stream.write_all(buf).await;
        }
        let fd = stream.raw_fd();
        let mut sent = 0;
        while sent < buf.len() {
            let rest = &buf[sent..];
            let n = unsafe { libc::send(fd, rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            sent += n as usize;
        }
        Ok(())
    }

    /// The socket's descriptor (for `Breaker`).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        self.stream.raw_fd()
    }

    pub fn is_unix(&self) -> bool {
        matches!(self.stream, Stream::Unix(_))
    }

    pub fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// Wraps the TCP stream in TLS (after the SSLRequest packet was sent).
    pub async fn upgrade_tls(
        &mut self,
        config: std::sync::Arc<rustls::ClientConfig>,
        name: rustls::pki_types::ServerName<'static>,
    ) -> Result<(), ProtoError> {
        let Stream::Tcp(tcp) = std::mem::replace(&mut self.stream, Stream::Upgrading) else {
            return Err(ProtoError::Tls(
                "TLS is only supported over TCP connections".into(),
            ));
        };
        let tls = tokio_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await
            .map_err(|e| ProtoError::Tls(format!("handshake failed: {e}")))?;
        self.stream = Stream::Tls(Box::new(tls));
        Ok(())
    }

    async fn fill(&mut self, need: usize) -> Result<(), ProtoError> {
        while self.end - self.start < need {
            if self.start > 0 && self.start + need > self.buf.len() {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if need > self.buf.len() {
                self.buf.resize(need.next_power_of_two(), 0);
            }
            let end = self.end;
            let n = match (&self.direct, &self.uring) {
                (Some(d), _) => direct_read(self.raw_fd(), &mut self.buf[end..], d)?,
                (None, Some(u)) => u.recv(&mut self.buf[end..]).await?,
                (None, None) => self.stream.read(&mut self.buf[end..]).await?,
            };
            if n == 0 {
                return Err(ProtoError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "server closed the connection",
                )));
            }
            self.end += n;
        }
        Ok(())
    }

    /// Reads one logical packet and returns its payload. The slice is valid
    /// until the next call.
    pub async fn read_packet(&mut self) -> Result<&[u8], ProtoError> {
        self.fill(4).await?;
        let h = &self.buf[self.start..self.start + 4];
        let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
        self.seq = h[3].wrapping_add(1);
        if len == MAX_PAYLOAD {
            return self.read_split_packet().await;
        }
        if len > self.limit {
            return Err(self.oversized(len));
        }
        self.fill(4 + len).await?;
        let s = self.start + 4;
        self.start = s + len;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(&self.buf[s..s + len])
    }

    async fn read_split_packet(&mut self) -> Result<&[u8], ProtoError> {
        self.big.clear();
        loop {
            self.fill(4).await?;
            let h = &self.buf[self.start..self.start + 4];
            let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
            self.seq = h[3].wrapping_add(1);
            if self.big.len() + len > self.limit {
                return Err(self.oversized(self.big.len() + len));
            }
            self.fill(4 + len).await?;
            let s = self.start + 4;
            self.big.extend_from_slice(&self.buf[s..s + len]);
            self.start = s + len;
            if len < MAX_PAYLOAD {
                break;
            }
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(&self.big)
    }

    fn oversized(&self, len: usize) -> ProtoError {
        ProtoError::Protocol(format!(
            "the peer announced a packet of {len} bytes (limit {}): not a MySQL/MariaDB server, or a corrupted stream",
            self.limit
        ))
    }

    /// True when a whole response has been consumed; clears read readiness.
    pub fn response_done(&mut self) {
        if self.start == self.end {
            self.stream.clear_read_ready();
        }
    }

    /// Writes `payload` as one or more packets starting at sequence `self.seq`.
    pub async fn write_packet(&mut self, payload: &[u8]) -> Result<(), ProtoError> {
        self.wbuf.clear();
        let mut chunks = payload.chunks(MAX_PAYLOAD).peekable();
        if payload.is_empty() {
            self.wbuf.extend_from_slice(&[0, 0, 0, self.seq]);
            self.seq = self.seq.wrapping_add(1);
        }
        while let Some(chunk) = chunks.next() {
            let len = chunk.len() as u32;
            self.wbuf.extend_from_slice(&len.to_le_bytes()[..3]);
            self.wbuf.push(self.seq);
            self.seq = self.seq.wrapping_add(1);
            self.wbuf.extend_from_slice(chunk);
            if chunks.peek().is_none() && chunk.len() == MAX_PAYLOAD {
                self.wbuf.extend_from_slice(&[0, 0, 0, self.seq]);
                self.seq = self.seq.wrapping_add(1);
            }
        }
        self.send_wbuf().await
    }

    /// Sends what `wbuf` holds.
    async fn send_wbuf(&mut self) -> Result<(), ProtoError> {
        Self::send(
            &mut self.stream,
            self.direct.is_some(),
            self.uring.as_ref(),
            &self.wbuf,
        )
        .await?;
        Ok(())
    }

    /// Starts a new command: resets the sequence and writes the payload.
    pub async fn write_command(&mut self, payload: &[u8]) -> Result<(), ProtoError> {
        self.seq = 0;
        self.write_packet(payload).await
    }

    /// Starts a new command of one byte followed by `body` (COM_QUERY and
    /// its SQL) without copying them into a payload first.
    pub async fn write_command_with(&mut self, cmd: u8, body: &[u8]) -> Result<(), ProtoError> {
        if body.len() + 1 >= MAX_PAYLOAD {
            let mut payload = Vec::with_capacity(body.len() + 1);
            payload.push(cmd);
            payload.extend_from_slice(body);
            return self.write_command(&payload).await;
        }
        self.seq = 1;
        self.wbuf.clear();
        let len = (body.len() + 1) as u32;
        self.wbuf.extend_from_slice(&len.to_le_bytes()[..3]);
        self.wbuf.extend_from_slice(&[0, cmd]);
        self.wbuf.extend_from_slice(body);
        self.send_wbuf().await
    }

    /// Writes bytes that already carry packet headers (a prepared template).
    pub async fn write_raw(&mut self, framed: &[u8]) -> Result<(), ProtoError> {
        Self::send(
            &mut self.stream,
            self.direct.is_some(),
            self.uring.as_ref(),
            framed,
        )
        .await?;
        Ok(())
    }
}

/// One blocking receive on a direct socket, in `DIRECT_SLICE` waits; past
/// `d.limit` (or when `d.give_up` says so) the socket is shut down and the
/// read fails with TimedOut.
fn direct_read(fd: std::os::fd::RawFd, buf: &mut [u8], d: &Direct) -> io::Result<usize> {
    let mut waited = Duration::ZERO;
    loop {
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => {
                waited += DIRECT_SLICE;
                if waited >= d.limit || (d.give_up)(waited) {
                    unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no answer from the server in {:.1} s", waited.as_secs_f64()),
                    ));
                }
            }
            _ => return Err(e),
        }
    }
}

/// Reads a length-encoded integer; returns (value, bytes used).
pub fn lenenc_int(b: &[u8]) -> Option<(u64, usize)> {
    let first = *b.first()?;
    match first {
        0..=0xFA => Some((u64::from(first), 1)),
        0xFC if b.len() >= 3 => Some((u64::from(u16::from_le_bytes([b[1], b[2]])), 3)),
        0xFD if b.len() >= 4 => Some((
            u64::from(b[1]) | u64::from(b[2]) << 8 | u64::from(b[3]) << 16,
            4,
        )),
        0xFE if b.len() >= 9 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[1..9]);
            Some((u64::from_le_bytes(a), 9))
        }
        _ => None,
    }
}

/// Appends a length-encoded integer.
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xFC);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xFD);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xFE);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_roundtrip() {
        for v in [
            0u64,
            250,
            251,
            65535,
            65536,
            (1 << 24) - 1,
            1 << 24,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_lenenc_int(&mut b, v);
            assert_eq!(lenenc_int(&b), Some((v, b.len())));
        }
    }
}
