//! Packet framing over a socket with one reusable read buffer and one write
//! buffer per connection: no allocation once warmed up.
//!
//! A connection with a thread to itself can switch to direct I/O
//! (`PacketIo::set_direct`, direct.rs): it waits for its server in a
//! system call instead of a send, an epoll_wait and a receive through the
//! reactor.

use super::direct::{Direct, DirectIo};
use super::dry_run::DryRun;
use super::error::ProtoError;
use std::io;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;

const MAX_PAYLOAD: usize = 0xFF_FFFF;
/// Largest logical packet accepted once logged in (MariaDB's and MySQL's
/// max_allowed_packet ceiling).
pub(crate) const MAX_PACKET: usize = 1 << 30;

pub(crate) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<TlsStream<TcpStream>>),
    /// Transitional state while the TCP stream is being wrapped in TLS.
    Upgrading,
    /// No server (`ConnOpts::detached`): every read and write fails.
    Detached,
    /// No server (`ConnOpts::dry_run`): every request is answered in the
    /// process, as if it ran and returned nothing (dry_run.rs).
    DryRun(Box<DryRun>),
}

/// The error every request on a detached connection gets.
pub(crate) fn detached() -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, "connection creation failed")
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
            Stream::Detached => Err(detached()),
            Stream::DryRun(d) => d.read(buf),
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
            Stream::Detached => Err(detached()),
            Stream::DryRun(d) => {
                d.write(buf);
                Ok(())
            }
        }
    }

    fn raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tls(s) => s.get_ref().0.as_raw_fd(),
            Stream::Upgrading | Stream::Detached | Stream::DryRun(_) => -1,
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
            Stream::Tls(_) | Stream::Upgrading | Stream::Detached | Stream::DryRun(_) => Ok(()),
        };
    }
}

/// A framed connection: reads whole packets, writes whole packets.
pub(crate) struct PacketIo {
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Scratch for payloads split over several 16 MiB packets.
    big: Vec<u8>,
    /// Sequence id the next packet we write must carry.
    pub seq: u8,
    pub wbuf: Vec<u8>,
    /// Whole commands that have no answer (COM_STMT_CLOSE), held back
    /// and sent in front of the next command's bytes: a script's
    /// tear-down closes dozens of statements, one write (and one wake-up
    /// of the server's thread) for all of them rather than one each.
    /// Empty except between two commands.
    held: Vec<u8>,
    /// Largest logical packet accepted: small during the handshake, so
    /// that a peer that is not a MySQL server is told apart at once.
    pub limit: usize,
    /// Set: the socket on direct I/O (see the module doc).
    direct: Option<DirectIo>,
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
            // (grown on demand: a load connection's statements are prepared,
            // so it holds no more than its handshake and prepares)
            wbuf: Vec::new(),
            held: Vec::new(),
            limit: MAX_PACKET,
            direct: None,
            uring: None,
        }
    }

    /// The bytes its buffers hold (read, split-packet scratch, write, the
    /// commands held back): a thousand connections hold a thousand of them
    /// (footprint.rs).
    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        self.buf.capacity() + self.big.capacity() + self.wbuf.capacity() + self.held.capacity()
    }

    /// Whether this is a dry run's stream (`--mysql-dry-run`), which
    /// answers one request a write.
    pub(crate) fn is_dry_run(&self) -> bool {
        matches!(self.stream, Stream::DryRun(_))
    }

    pub fn is_direct(&self) -> bool {
        self.direct.is_some()
    }

    /// Switches to direct I/O (Some) or back to the reactor (None). Plain
    /// TCP and unix sockets only: Err leaves the connection as it was.
    pub fn set_direct(&mut self, direct: Option<Direct>) -> io::Result<()> {
        if !matches!(self.stream, Stream::Tcp(_) | Stream::Unix(_)) || self.uring.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "direct I/O needs a plain TCP or unix socket not on io_uring",
            ));
        }
        // The socket stays non-blocking: direct waits are poll()s or the
        // connection's own ring.
        self.direct = direct.map(|d| DirectIo::new(self.raw_fd(), d));
        Ok(())
    }

    /// Whether direct I/O goes through the connection's own io_uring ring
    /// (one system call a round trip).
    pub fn is_direct_ring(&self) -> bool {
        self.direct.as_ref().is_some_and(DirectIo::uses_ring)
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

    /// Sends all of `buf` (the stream's own path unless direct or
    /// io_uring). `then_reply`: the answer is read next (direct I/O on a
    /// ring sends the bytes with that read).
    async fn send(
        stream: &mut Stream,
        direct: Option<&mut DirectIo>,
        uring: Option<&super::uring::UringSock>,
        buf: &[u8],
        then_reply: bool,
    ) -> io::Result<()> {
        if let Some(u) = uring {
            return u.send(buf).await;
        }
        match direct {
            Some(d) => d.send(buf, then_reply),
            None => stream.write_all(buf).await,
        }
    }

    /// The socket's descriptor (for `Breaker`).
    pub(crate) fn raw_fd(&self) -> std::os::fd::RawFd {
        self.stream.raw_fd()
    }

    pub(crate) fn is_unix(&self) -> bool {
        matches!(self.stream, Stream::Unix(_))
    }

    pub(crate) fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// Wraps the TCP stream in TLS (after the SSLRequest packet was sent).
    pub(crate) async fn upgrade_tls(
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
            make_room(&mut self.buf, &mut self.start, &mut self.end, need);
            let end = self.end;
            let n = match (&mut self.direct, &self.uring) {
                (Some(d), _) => d.recv(&mut self.buf[end..])?,
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
    /// until the next call. A packet already whole in the buffer (most of a
    /// response's, after its first receive) is taken without awaiting.
    pub(crate) async fn read_packet(&mut self) -> Result<&[u8], ProtoError> {
        if !self.whole_packet_buffered() {
            self.fill(4).await?;
            let len = self.header_len();
            if len == MAX_PAYLOAD {
                self.seq = self.buf[self.start + 3].wrapping_add(1);
                return self.read_split_packet().await;
            }
            if len > self.limit {
                return Err(self.oversized(len));
            }
            self.fill(4 + len).await?;
        }
        Ok(self.take_packet())
    }

    /// The next packet's payload when it is whole in the buffer already,
    /// taken without an await (a dry run's answers always are; a server's
    /// first packet of an answer never is, its later ones mostly are).
    #[inline]
    pub(crate) fn buffered_packet(&mut self) -> Option<&[u8]> {
        if self.whole_packet_buffered() {
            Some(self.take_packet())
        } else {
            None
        }
    }

    /// The next packet's payload when it is whole in the buffer, left
    /// there (`buffered_packet` then takes it).
    #[inline]
    pub(crate) fn peek_packet(&self) -> Option<&[u8]> {
        if !self.whole_packet_buffered() {
            return None;
        }
        let s = self.start + 4;
        Some(&self.buf[s..s + self.header_len()])
    }

    /// Takes the packet `peek_packet` just returned (whole in the
    /// buffer: no check again).
    #[inline]
    pub(crate) fn take_peeked(&mut self) {
        self.take_packet();
    }

    /// Takes the packet whole in the buffer at `start`.
    #[inline]
    fn take_packet(&mut self) -> &[u8] {
        let len = self.header_len();
        self.seq = self.buf[self.start + 3].wrapping_add(1);
        let s = self.start + 4;
        self.start = s + len;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        &self.buf[s..s + len]
    }

    /// The payload length in the header at `start` (4 bytes buffered).
    #[inline]
    fn header_len(&self) -> usize {
        let h = &self.buf[self.start..self.start + 4];
        usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16
    }

    /// Whether the next packet is all in the buffer, not split over
    /// several and within the limit: it can be taken without a read.
    #[inline]
    fn whole_packet_buffered(&self) -> bool {
        let avail = self.end - self.start;
        if avail < 4 {
            return false;
        }
        let len = self.header_len();
        len < MAX_PAYLOAD && len <= self.limit && avail >= 4 + len
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
    #[inline]
    pub(crate) fn response_done(&mut self) {
        if self.start == self.end {
            self.stream.clear_read_ready();
        }
    }

    /// Writes `payload` as one or more packets starting at sequence `self.seq`.
    pub(crate) async fn write_packet(&mut self, payload: &[u8]) -> Result<(), ProtoError> {
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
        self.send_wbuf(false).await
    }

    /// A dry run's request (`Stream::DryRun`): answered at once, the
    /// answer put in the read buffer as a server's bytes would be received
    /// (and then framed and parsed as those), without a read call. False:
    /// a real stream, nothing done.
    #[inline(always)]
    fn dry_run_exchange(&mut self, request: Option<&[u8]>) -> bool {
        if !matches!(self.stream, Stream::DryRun(_)) {
            return false;
        }
        self.dry_run_answer(request);
        true
    }

    /// `dry_run_exchange`'s work, out of the real streams' way.
    #[inline(never)]
    fn dry_run_answer(&mut self, request: Option<&[u8]>) {
        let Stream::DryRun(d) = &mut self.stream else {
            return;
        };
        let answer = d.exchange(request.unwrap_or(&self.wbuf));
        let n = answer.len();
        let need = self.end - self.start + n;
        make_room(&mut self.buf, &mut self.start, &mut self.end, need);
        self.buf[self.end..self.end + n].copy_from_slice(answer);
        self.end += n;
    }

    /// Holds back command `payload`, which has no answer, until the next
    /// command is written (or `send_held`); a dry run's is dropped, as
    /// its fake server answers nothing to it. Returns the bytes held.
    pub(crate) fn hold_command(&mut self, payload: &[u8]) -> usize {
        if !self.is_dry_run() {
            let len = payload.len() as u32;
            self.held.extend_from_slice(&len.to_le_bytes()[..3]);
            self.held.push(0);
            self.held.extend_from_slice(payload);
        }
        self.held.len()
    }

    /// Sends the commands held back, if any, on their own.
    pub(crate) async fn send_held(&mut self) -> Result<(), ProtoError> {
        if self.held.is_empty() {
            return Ok(());
        }
        self.wbuf.clear();
        self.send_wbuf(false).await
    }

    /// Sends what `wbuf` holds (`then_reply`: see `send`), after the
    /// commands held back.
    async fn send_wbuf(&mut self, then_reply: bool) -> Result<(), ProtoError> {
        if self.dry_run_exchange(None) {
            return Ok(());
        }
        if !self.held.is_empty() {
            // (the held commands, then wbuf's, moved into wbuf: nothing
            // stays held while the send is awaited, so a send cut short
            // (a timeout, the run's stop) sends none of it again later)
            self.held.extend_from_slice(&self.wbuf);
            std::mem::swap(&mut self.held, &mut self.wbuf);
            self.held.clear();
        }
        Self::send(
            &mut self.stream,
            self.direct.as_mut(),
            self.uring.as_ref(),
            &self.wbuf,
            then_reply,
        )
        .await?;
        Ok(())
    }

    /// Starts a new command: resets the sequence and writes the payload.
    pub(crate) async fn write_command(&mut self, payload: &[u8]) -> Result<(), ProtoError> {
        self.seq = 0;
        self.write_packet(payload).await
    }

    /// Starts a new command of one byte followed by `body` (COM_QUERY and
    /// its SQL) without copying them into a payload first; its answer is
    /// read next.
    pub(crate) async fn write_command_with(
        &mut self,
        cmd: u8,
        body: &[u8],
    ) -> Result<(), ProtoError> {
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
        self.send_wbuf(true).await
    }

    /// Writes a request that already carries its packet headers (a
    /// prepared template) and whose answer is read next.
    pub(crate) async fn write_raw(&mut self, framed: &[u8]) -> Result<(), ProtoError> {
        if self.dry_run_exchange(Some(framed)) {
            return Ok(());
        }
        if !self.held.is_empty() {
            return self.send_held_with(framed).await;
        }
        Self::send(
            &mut self.stream,
            self.direct.as_mut(),
            self.uring.as_ref(),
            framed,
            true,
        )
        .await?;
        Ok(())
    }

    /// `write_raw`'s send when commands are held back: theirs and
    /// `framed` in one write (out of the hot path's way).
    #[inline(never)]
    async fn send_held_with(&mut self, framed: &[u8]) -> Result<(), ProtoError> {
        self.wbuf.clear();
        self.wbuf.extend_from_slice(framed);
        self.send_wbuf(true).await
    }
}

/// Reads a length-encoded integer; returns (value, bytes used).
pub(crate) fn lenenc_int(b: &[u8]) -> Option<(u64, usize)> {
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

/// Makes the read buffer `buf` (its bytes at `start..end`) hold `need`
/// bytes from `start`: what is buffered moved to the front when it would
/// not fit after it, the buffer grown when it would not fit at all. (A
/// function of the fields, not a method: a dry run's answer, which
/// borrows the stream, is copied in after it.)
#[inline]
fn make_room(buf: &mut Vec<u8>, start: &mut usize, end: &mut usize, need: usize) {
    if *start > 0 && *start + need > buf.len() {
        buf.copy_within(*start..*end, 0);
        *end -= *start;
        *start = 0;
    }
    if need > buf.len() {
        buf.resize(need.next_power_of_two(), 0);
    }
}

/// Appends a length-encoded integer.
pub(crate) fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
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
