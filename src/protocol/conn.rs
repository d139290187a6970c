//! One client session: connect, text queries, prepared statements and the
//! allocation-free execute path.

use super::auth::{handshake, Session};
use super::error::{ProtoError, ServerError};
use super::io::{lenenc_int, PacketIo, Stream};
use super::opts::{ConnOpts, Endpoint};
use super::rows::{column_type, lenenc_str, Rows};
use super::stmt::{Param, Stmt};
use mysql_common::constants::CapabilityFlags;
use std::future::Future;
use std::time::Duration;
use tokio::net::{TcpStream, UnixStream};
use tokio::time::Instant;

/// Largest packet accepted before login: a server greeting is ~100 bytes.
const HANDSHAKE_PACKET_LIMIT: usize = 64 * 1024;

const COM_QUIT: u8 = 0x01;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_CLOSE: u8 = 0x19;
const SERVER_MORE_RESULTS_EXISTS: u16 = 0x0008;

/// What a statement produced: a result set (rows counted, not decoded) or an
/// OK packet with the number of affected rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A result set of this many rows.
    Rows(u64),
    /// An OK packet with this many affected rows.
    Affected(u64),
}

/// A decoded text-protocol result: column names and rows of optional strings.
#[derive(Debug, Default, Clone)]
pub struct QueryResult {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows, each value as text (None for NULL).
    pub rows: Vec<Vec<Option<String>>>,
    /// Affected rows, for a statement without a result set.
    pub affected: u64,
}

/// Where a response's rows go.
enum Sink<'a> {
    /// Counted, not decoded (the hot path).
    Skip,
    /// Column names and rows as strings (the text protocol's `query`).
    Query(&'a mut QueryResult),
    /// Rows kept for a workload; `binary` for a COM_STMT_EXECUTE result.
    Rows(&'a mut Rows, bool),
}

/// One client connection to a server: handshake and auth done, then text
/// queries for the cold path and prepared statements for the hot path.
/// Not shared: one task drives it.
pub struct Conn {
    io: PacketIo,
    session: Session,
    read_timeout: Duration,
    /// Result sets come without column definitions (MySQL 8's
    /// `resultset_metadata = NONE`, see `skip_result_metadata`).
    metadata_off: bool,
}

/// The session settings behind `Conn::skip_result_metadata`.
const METADATA_NONE: &str = "SET SESSION resultset_metadata = NONE";
const METADATA_FULL: &str = "SET SESSION resultset_metadata = FULL";

/// Cuts a connection from outside its task so that a read stalled on it
/// returns at once (shutdown(2) of the socket). Valid while the `Conn` it
/// came from lives; exec's watchdog uses it instead of a timer per query.
#[derive(Clone, Copy, Debug)]
pub struct Breaker(std::os::fd::RawFd);

impl Breaker {
    /// Shuts the socket down: a read stalled on it returns at once.
    pub fn cut(&self) {
        if self.0 >= 0 {
            // SAFETY: shutdown(2) takes no memory; on a descriptor that is
            // closed or reused it fails or cuts that socket, a logic error
            // the `Conn`'s lifetime rules out, never undefined behaviour.
            // libc, not rustix: rustix wants a borrowed fd, which a Copy
            // breaker cannot hold.
            unsafe { libc::shutdown(self.0, libc::SHUT_RDWR) };
        }
    }
}

/// How many prepares one write of a batch carries at most
/// ([`Conn::prepare_like_batch`]).
const BATCH_PREPARES: usize = 32;

/// How many bytes of requests a write of a batch carries at most (unless
/// one request is longer): well under a socket's send buffer, so that the write never waits for
/// the server to read while the server waits for us to read its answers.
const BATCH_BYTES: usize = 64 * 1024;

/// Bytes of commands held back (`Conn::close_stmt`: 9 bytes a close) past which
/// they are sent at once.
const HELD_BYTES: usize = 16 * 1024;

/// A statement this long or longer is not framed by the batch itself (it
/// needs more than one packet).
const BATCH_FRAME_MAX: usize = 0xFF_FFFF;

/// The parameters `like` is prepared with: none where their types are
/// chosen at each execution.
fn params(like: &Stmt) -> Option<&[Param]> {
    like.dynamic.is_none().then_some(&like.params[..])
}

/// A statement's own server error apart from the connection's errors
/// (among them the server's "shutting down", "killed", "timed out").
fn split_server_error(
    r: Result<Stmt, ProtoError>,
) -> Result<Result<Stmt, ServerError>, ProtoError> {
    match r {
        Ok(s) => Ok(Ok(s)),
        Err(e) if e.is_connection_lost() => Err(e),
        Err(ProtoError::Server(se)) => Ok(Err(se)),
        Err(e) => Err(e),
    }
}

/// Runs `f`, turning "no answer within `limit`" into a timeout error.
async fn within<T>(
    limit: Duration,
    what: &'static str,
    f: impl Future<Output = Result<T, ProtoError>>,
) -> Result<T, ProtoError> {
    match tokio::time::timeout(limit, f).await {
        Ok(r) => r,
        Err(_) => Err(ProtoError::Timeout { what, after: limit }),
    }
}

/// Opens the socket, retrying a full accept backlog (EAGAIN on a unix
/// socket; and "refused" when `opts.retry_refused`) with backoff until
/// `deadline`.
async fn open_stream(opts: &ConnOpts, deadline: Instant) -> Result<Stream, ProtoError> {
    let mut backoff = Duration::from_millis(2);
    loop {
        let r = match &opts.endpoint {
            Endpoint::Tcp { host, port } => TcpStream::connect((host.as_str(), *port))
                .await
                .and_then(|s| s.set_nodelay(true).map(|_| Stream::Tcp(s))),
            Endpoint::Unix(path) => UnixStream::connect(path).await.map(Stream::Unix),
        };
        match r.map_err(ProtoError::Io) {
            Err(e)
                if e.is_backpressure(opts.retry_refused) && Instant::now() + backoff < deadline =>
            {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_millis(250));
            }
            other => return other,
        }
    }
}

impl Conn {
    /// Opens a connection and authenticates, all within
    /// `opts.connect_timeout`.
    pub async fn connect(opts: &ConnOpts) -> Result<Conn, ProtoError> {
        if !opts.reaches_server() {
            let stream = match opts.dry_run {
                true => Stream::DryRun(super::dry_run::DryRun::new()),
                false => Stream::Detached,
            };
            return Ok(Conn {
                io: PacketIo::new(stream),
                session: super::auth::Session {
                    server_version: String::new(),
                    capabilities: Default::default(),
                },
                read_timeout: opts.read_timeout,
                metadata_off: false,
            });
        }
        let limit = opts.connect_timeout;
        let deadline = Instant::now() + limit;
        let tls_host = match &opts.endpoint {
            Endpoint::Tcp { host, .. } => host.as_str(),
            Endpoint::Unix(_) => "localhost",
        };
        let stream = within(limit, "the connection to open", open_stream(opts, deadline)).await?;
        let mut io = PacketIo::new(stream);
        io.limit = HANDSHAKE_PACKET_LIMIT;
        let left = deadline.saturating_duration_since(Instant::now());
        let session = within(
            left,
            "the server's greeting and login",
            handshake(&mut io, opts, tls_host),
        )
        .await
        .map_err(|e| match e {
            ProtoError::Timeout { what, .. } => ProtoError::Timeout { what, after: limit },
            other => other,
        })?;
        io.limit = super::io::MAX_PACKET;
        Ok(Conn {
            io,
            session,
            read_timeout: opts.read_timeout,
            metadata_off: false,
        })
    }

    /// Whether result sets come without column definitions
    /// (`skip_result_metadata`).
    pub fn result_metadata_off(&self) -> bool {
        self.metadata_off
    }

    /// Asks the server to send result sets without their column
    /// definitions from now on, where it can (MySQL 8.0.3+'s
    /// CLIENT_OPTIONAL_RESULTSET_METADATA; MariaDB leaves out those of
    /// prepared statements by itself, MARIADB_CLIENT_CACHE_METADATA).
    /// For load connections whose statements are prepared: their column
    /// types were read at prepare time, and later prepares switch the
    /// definitions back on for their own response. Text results then carry
    /// no column names (`query` is for other connections);
    /// `result_metadata_off` says whether the server took it.
    pub async fn skip_result_metadata(&mut self) -> Result<(), ProtoError> {
        let offered = self
            .session
            .capabilities
            .contains(CapabilityFlags::CLIENT_OPTIONAL_RESULTSET_METADATA);
        if offered && !self.metadata_off {
            self.exec(METADATA_NONE).await?;
            self.metadata_off = true;
        }
        Ok(())
    }

    /// Changes the bound on waiting for a response (e.g. longer for an
    /// index build whose duration grows with the table).
    pub fn set_read_timeout(&mut self, d: Duration) {
        self.read_timeout = d;
    }

    /// How long a read waits for the server before the query fails.
    pub fn read_timeout(&self) -> Duration {
        self.read_timeout
    }

    /// Blocking send and receive for a connection with a thread to itself
    /// (Some), or back to the reactor (None); see `io::Direct`.
    pub fn set_direct(&mut self, direct: Option<super::Direct>) -> std::io::Result<()> {
        self.io.set_direct(direct)
    }

    /// Whether it sends and receives on its own thread (direct I/O).
    pub fn is_direct(&self) -> bool {
        self.io.is_direct()
    }

    /// Whether direct I/O goes through the connection's own io_uring ring.
    pub fn is_direct_ring(&self) -> bool {
        self.io.is_direct_ring()
    }

    /// Sends and receives through this thread's io_uring ring (true), or
    /// the reactor (false); see `uring`.
    pub fn set_uring(&mut self, on: bool) -> std::io::Result<()> {
        self.io.set_uring(on)
    }

    /// Whether it goes through its thread's io_uring ring.
    pub fn is_uring(&self) -> bool {
        self.io.is_uring()
    }

    /// A handle that can cut this connection from another task.
    pub fn breaker(&self) -> Breaker {
        Breaker(self.io.raw_fd())
    }

    /// The server's version string from the handshake.
    pub fn server_version(&self) -> &str {
        &self.session.server_version
    }

    fn deprecate_eof(&self) -> bool {
        self.session
            .capabilities
            .contains(CapabilityFlags::CLIENT_DEPRECATE_EOF)
    }

    /// Runs a text-protocol query and decodes its result.
    pub async fn query(&mut self, sql: &str) -> Result<QueryResult, ProtoError> {
        let limit = self.read_timeout;
        within(limit, "a query's result", async {
            self.send_query(sql).await?;
            let mut res = QueryResult::default();
            match self.read_response(Sink::Query(&mut res)).await? {
                Outcome::Affected(n) => res.affected = n,
                Outcome::Rows(_) => {}
            }
            Ok(res)
        })
        .await
    }

    /// Runs a text-protocol statement, discarding any rows.
    pub async fn exec(&mut self, sql: &str) -> Result<Outcome, ProtoError> {
        let limit = self.read_timeout;
        within(limit, "a statement's response", async {
            self.send_query(sql).await?;
            self.read_response(Sink::Skip).await
        })
        .await
    }

    /// Like `exec`, for a statement whose text is bytes rather than UTF-8
    /// (a latin1 payload in a multi-row INSERT).
    pub async fn exec_bytes(&mut self, sql: &[u8]) -> Result<Outcome, ProtoError> {
        let limit = self.read_timeout;
        within(limit, "a statement's response", async {
            self.io.write_command_with(COM_QUERY, sql).await?;
            self.read_response(Sink::Skip).await
        })
        .await
    }

    /// Runs a text-protocol query and keeps its rows in `rows` (cleared
    /// first), for a workload that reads what it selected.
    pub async fn query_into(&mut self, sql: &str, rows: &mut Rows) -> Result<Outcome, ProtoError> {
        rows.clear();
        rows.types.clear();
        self.send_query(sql).await?;
        self.read_response(Sink::Rows(rows, false)).await
    }

    /// Runs a text-protocol statement without a time bound of its own (the
    /// load's watchdog bounds it), discarding any rows.
    pub async fn exec_unbounded(&mut self, sql: &str) -> Result<Outcome, ProtoError> {
        self.send_query(sql).await?;
        self.read_response(Sink::Skip).await
    }

    async fn send_query(&mut self, sql: &str) -> Result<(), ProtoError> {
        self.io.write_command_with(COM_QUERY, sql.as_bytes()).await
    }

    /// Prepares `sql` with the given parameter types.
    pub async fn prepare(&mut self, sql: &str, params: &[Param]) -> Result<Stmt, ProtoError> {
        let limit = self.read_timeout;
        within(
            limit,
            "a prepare's response",
            self.prepare_untimed(sql, Some(params)),
        )
        .await
    }

    /// Prepares `sql` with parameter types chosen at each execution
    /// ([`Stmt::binder`]), as a script's statements are.
    pub async fn prepare_dynamic(&mut self, sql: &str) -> Result<Stmt, ProtoError> {
        let limit = self.read_timeout;
        within(
            limit,
            "a prepare's response",
            self.prepare_untimed(sql, None),
        )
        .await
    }

    /// Prepares on this connection the statement `old` (from another
    /// connection, or a text-protocol one): the same SQL and parameters.
    /// The new statement shares `old`'s text.
    pub async fn prepare_like(&mut self, old: &Stmt) -> Result<Stmt, ProtoError> {
        let s = if old.dynamic.is_some() {
            self.prepare_dynamic(&old.sql).await
        } else {
            self.prepare(&old.sql, &old.params).await
        };
        s.map(|s| s.with_sql(&old.sql))
    }

    /// Prepares with column definitions in the response, whatever the
    /// session's result metadata setting (their types decode binary rows).
    async fn prepare_untimed(
        &mut self,
        sql: &str,
        params: Option<&[Param]>,
    ) -> Result<Stmt, ProtoError> {
        if !self.metadata_off {
            return self.prepare_with_metadata(sql, params).await;
        }
        self.exec_unbounded(METADATA_FULL).await?;
        let prepared = self.prepare_with_metadata(sql, params).await;
        self.exec_unbounded(METADATA_NONE).await?;
        prepared
    }

    async fn prepare_with_metadata(
        &mut self,
        sql: &str,
        params: Option<&[Param]>,
    ) -> Result<Stmt, ProtoError> {
        let mut payload = Vec::with_capacity(sql.len() + 1);
        payload.push(COM_STMT_PREPARE);
        payload.extend_from_slice(sql.as_bytes());
        self.io.write_command(&payload).await?;
        let made = self.read_prepared_answer(sql, params).await;
        self.io.response_done();
        made
    }

    /// Prepares on this connection each of `likes` as
    /// [`Conn::prepare_like`] would (the same SQL and parameters, or
    /// parameter types chosen at each execution), in pipelined writes: up
    /// to [`BATCH_PREPARES`] requests a write, then their answers in turn
    /// (one send and a few receives for a connection's dozens of
    /// statements, not a round trip each). The outer error is the
    /// connection's (lost, timed out, a garbled answer); an inner one is
    /// that statement's own, which the server refused (the others are
    /// prepared all the same: each request stands alone).
    pub async fn prepare_like_batch(
        &mut self,
        likes: &[&Stmt],
    ) -> Result<Vec<Result<Stmt, ServerError>>, ProtoError> {
        let limit = self.read_timeout;
        if self.metadata_off {
            within(
                limit,
                "a SET's response",
                self.exec_unbounded(METADATA_FULL),
            )
            .await?;
        }
        let mut out = Vec::with_capacity(likes.len());
        let mut frames = Vec::new();
        let mut rest = likes;
        while !rest.is_empty() {
            // (a write's requests: at most BATCH_PREPARES, and at most
            // BATCH_BYTES unless it is one)
            let mut n = 0;
            let mut bytes = 0;
            while n < rest.len()
                && n < BATCH_PREPARES
                && (n == 0 || bytes + rest[n].sql.len() + 5 <= BATCH_BYTES)
            {
                bytes += rest[n].sql.len() + 5;
                n += 1;
            }
            let (chunk, more) = rest.split_at(n);
            rest = more;
            let answers = self.prepare_chunk(chunk, &mut frames);
            out.extend(within(limit, "a prepare's response", answers).await?);
        }
        if self.metadata_off {
            within(
                limit,
                "a SET's response",
                self.exec_unbounded(METADATA_NONE),
            )
            .await?;
        }
        Ok(out)
    }

    /// One write of `chunk`'s prepares (framed in `frames`), then their
    /// answers; one by one where a statement needs packets of its own or
    /// the stream is a dry run's.
    async fn prepare_chunk(
        &mut self,
        chunk: &[&Stmt],
        frames: &mut Vec<u8>,
    ) -> Result<Vec<Result<Stmt, ServerError>>, ProtoError> {
        let mut out = Vec::with_capacity(chunk.len());
        let whole = chunk.iter().all(|s| s.sql.len() + 1 < BATCH_FRAME_MAX);
        if !whole || self.io.is_dry_run() {
            for like in chunk {
                let made = self.prepare_with_metadata(&like.sql, params(like)).await;
                out.push(split_server_error(made.map(|s| s.with_sql(&like.sql)))?);
            }
            return Ok(out);
        }
        frames.clear();
        for like in chunk {
            let len = (like.sql.len() + 1) as u32;
            frames.extend_from_slice(&len.to_le_bytes()[..3]);
            frames.extend_from_slice(&[0, COM_STMT_PREPARE]);
            frames.extend_from_slice(like.sql.as_bytes());
        }
        self.io.write_raw(frames).await?;
        for like in chunk {
            let made = self.read_prepared_answer(&like.sql, params(like)).await;
            out.push(split_server_error(made.map(|s| s.with_sql(&like.sql)))?);
        }
        // (the readiness is cleared once the last answer is read: not
        // between answers, whose next may be in the socket already)
        self.io.response_done();
        Ok(out)
    }

    /// Reads the answer to a COM_STMT_PREPARE of `sql` sent (the caller
    /// then says the response is done).
    async fn read_prepared_answer(
        &mut self,
        sql: &str,
        params: Option<&[Param]>,
    ) -> Result<Stmt, ProtoError> {
        let pkt = self.io.read_packet().await?;
        if pkt.first() == Some(&0xFF) {
            return Err(ProtoError::Server(ServerError::parse(pkt)));
        }
        if pkt.len() < 12 || pkt[0] != 0 {
            return Err(ProtoError::Protocol("bad COM_STMT_PREPARE response".into()));
        }
        let id = u32::from_le_bytes([pkt[1], pkt[2], pkt[3], pkt[4]]);
        let ncols = u16::from_le_bytes([pkt[5], pkt[6]]);
        let nparams = u16::from_le_bytes([pkt[7], pkt[8]]);
        let eof = !self.deprecate_eof();
        let mut columns = Vec::with_capacity(usize::from(ncols));
        for (n, keep) in [(nparams, false), (ncols, true)] {
            if n > 0 {
                for _ in 0..n {
                    let def = self.io.read_packet().await?;
                    if keep {
                        columns.push(column_type(def));
                    }
                }
                if eof {
                    self.io.read_packet().await?;
                }
            }
        }
        let Some(params) = params else {
            return Ok(Stmt::new_dynamic(id, sql, usize::from(nparams)).with_columns(columns));
        };
        if usize::from(nparams) != params.len() {
            self.close_stmt(id).await?;
            return Err(ProtoError::Protocol(format!(
                "`{sql}` has {nparams} parameters, the workload declared {}",
                params.len()
            )));
        }
        Ok(Stmt::new(id, sql, params).with_columns(columns))
    }

    /// Executes a prepared statement: the hot path. Sends the template as it
    /// is and skips the result without decoding it.
    #[inline]
    pub async fn execute(&mut self, stmt: &mut Stmt) -> Result<Outcome, ProtoError> {
        if stmt.is_text() {
            self.io.write_raw(stmt.render_text()).await?;
        } else {
            self.io.write_raw(stmt.framed()).await?;
        }
        // (an OK already whole in the buffer, a dry run's always, is taken
        // without building the response reader's future)
        if let Some(o) = self.buffered_ok() {
            return Ok(o);
        }
        self.read_response(Sink::Skip).await
    }

    /// The answer when it is one OK packet, with nothing after it, whole in
    /// the buffer already: what `read_response` makes of it, without an
    /// await. None: anything else (nothing buffered yet, a result set, an
    /// error, more results), the buffer untouched.
    #[inline]
    fn buffered_ok(&mut self) -> Option<Outcome> {
        let pkt = self.io.peek_packet()?;
        if pkt.first() != Some(&0x00) {
            return None;
        }
        let (affected, status) = ok_fields(pkt);
        if status & SERVER_MORE_RESULTS_EXISTS != 0 {
            return None;
        }
        self.io.take_peeked();
        self.io.response_done();
        Some(Outcome::Affected(affected))
    }

    /// Executes a statement and keeps its rows in `rows` (cleared first),
    /// for a workload that reads what it selected.
    pub async fn execute_into(
        &mut self,
        stmt: &mut Stmt,
        rows: &mut Rows,
    ) -> Result<Outcome, ProtoError> {
        rows.clear();
        rows.types.clear();
        rows.types.extend_from_slice(stmt.columns());
        let binary = !stmt.is_text();
        if binary {
            self.io.write_raw(stmt.framed()).await?;
        } else {
            self.io.write_raw(stmt.render_text()).await?;
        }
        self.read_response(Sink::Rows(rows, binary)).await
    }

    /// Runs `LOAD DATA LOCAL INFILE …` and streams the rows that `fill`
    /// appends to the buffer it is given, until `fill` returns false.
    /// Returns the number of rows loaded. Each step (the server's request,
    /// each chunk sent, the final answer) is bounded by the read timeout.
    pub async fn load_data(
        &mut self,
        sql: &str,
        mut fill: impl FnMut(&mut Vec<u8>) -> bool,
    ) -> Result<u64, ProtoError> {
        let limit = self.read_timeout;
        within(
            limit,
            "the server's LOAD DATA request",
            self.send_query(sql),
        )
        .await?;
        let pkt = within(
            limit,
            "the server's LOAD DATA request",
            self.io.read_packet(),
        )
        .await?;
        match pkt.first() {
            Some(0xFB) => {}
            Some(0xFF) => return Err(ProtoError::Server(ServerError::parse(pkt))),
            _ => {
                return Err(ProtoError::Protocol(
                    "the server did not ask for LOAD DATA LOCAL contents".into(),
                ))
            }
        }
        let mut chunk = Vec::with_capacity(1 << 20);
        loop {
            chunk.clear();
            let more = fill(&mut chunk);
            if !chunk.is_empty() {
                within(
                    limit,
                    "the server to take rows",
                    self.io.write_packet(&chunk),
                )
                .await?;
            }
            if !more {
                break;
            }
        }
        within(limit, "the server to take rows", self.io.write_packet(&[])).await?;
        match within(limit, "LOAD DATA's result", self.read_response(Sink::Skip)).await? {
            Outcome::Affected(n) | Outcome::Rows(n) => Ok(n),
        }
    }

    /// Closes prepared statement `id` on the server with the connection's
    /// next command (COM_STMT_CLOSE has no answer): held back, and sent in
    /// front of that command's bytes, or now when HELD_BYTES are held. The
    /// server closes it before it runs the next command, as if sent
    /// alone; a connection that quits sends its held closes with the
    /// COM_QUIT.
    pub async fn close_stmt(&mut self, id: u32) -> Result<(), ProtoError> {
        let mut payload = [COM_STMT_CLOSE, 0, 0, 0, 0];
        payload[1..].copy_from_slice(&id.to_le_bytes());
        if self.io.hold_command(&payload) < HELD_BYTES {
            return Ok(());
        }
        let limit = self.read_timeout;
        within(limit, "the server to take a command", self.io.send_held()).await
    }

    /// Says goodbye (COM_QUIT, after the closes held back) to a connection
    /// about to be replaced, as a client library's close does: the server
    /// runs the closes and ends the session as closed, not aborted (its
    /// Aborted_clients). Errors are irrelevant (a lost connection's send
    /// fails), and a server that does not take the bytes within a second
    /// is not waited for.
    pub async fn say_goodbye(&mut self) {
        let _ =
            tokio::time::timeout(Duration::from_secs(1), self.io.write_command(&[COM_QUIT])).await;
    }

    /// Says goodbye and closes the connection ([`Conn::say_goodbye`]).
    pub async fn quit(mut self) {
        self.say_goodbye().await;
    }

    /// Reads one complete response: OK, ERR, or a result set (all of it,
    /// including further result sets announced by SERVER_MORE_RESULTS_EXISTS).
    async fn read_response(&mut self, mut sink: Sink<'_>) -> Result<Outcome, ProtoError> {
        let deprecate_eof = self.deprecate_eof();
        let mut total_rows = 0u64;
        loop {
            // (an answer already whole in the buffer is taken without an
            // await: a dry run's always, a result's later packets mostly)
            let pkt = match self.io.buffered_packet() {
                Some(p) => p,
                None => self.io.read_packet().await?,
            };
            let (ncols, used) = match pkt.first() {
                Some(0x00) => {
                    let (affected, status) = ok_fields(pkt);
                    if status & SERVER_MORE_RESULTS_EXISTS != 0 {
                        continue;
                    }
                    self.io.response_done();
                    return Ok(if total_rows > 0 {
                        Outcome::Rows(total_rows)
                    } else {
                        Outcome::Affected(affected)
                    });
                }
                Some(0xFF) => {
                    let e = ServerError::parse(pkt);
                    self.io.response_done();
                    return Err(ProtoError::Server(e));
                }
                Some(0xFB) => {
                    return Err(ProtoError::Protocol(
                        "LOAD DATA LOCAL is not supported".into(),
                    ))
                }
                _ => lenenc_int(pkt)
                    .ok_or_else(|| ProtoError::Protocol("bad column count".into()))?,
            };
            // With MARIADB_CLIENT_CACHE_METADATA or MySQL's
            // CLIENT_OPTIONAL_RESULTSET_METADATA one more byte says whether
            // column definitions follow.
            let metadata_follows = pkt.len() <= used || pkt[used] != 0;
            if let Sink::Rows(r, _) = &mut sink {
                r.start_result(ncols as usize);
                if metadata_follows {
                    r.types.clear();
                }
            }
            if metadata_follows {
                for _ in 0..ncols {
                    let col = self.io.read_packet().await?;
                    match &mut sink {
                        Sink::Skip => {}
                        Sink::Query(s) => s.columns.push(column_name(col)),
                        Sink::Rows(r, _) => r.types.push(column_type(col)),
                    }
                }
                if !deprecate_eof {
                    self.io.read_packet().await?;
                }
            }
            let status;
            loop {
                let pkt = self.io.read_packet().await?;
                match pkt.first() {
                    Some(0xFE) if pkt.len() < 0xFF_FFFF => {
                        status = if pkt.len() <= 5 {
                            pkt.get(3..5)
                                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                                .unwrap_or(0)
                        } else {
                            let (_, n) = lenenc_int(&pkt[1..]).unwrap_or((0, 1));
                            ok_status(&pkt[1 + n..])
                        };
                        break;
                    }
                    Some(0xFF) => {
                        let e = ServerError::parse(pkt);
                        self.io.response_done();
                        return Err(ProtoError::Server(e));
                    }
                    _ => {
                        total_rows += 1;
                        match &mut sink {
                            Sink::Skip => {}
                            Sink::Query(s) => s.rows.push(text_row(pkt, ncols as usize)?),
                            Sink::Rows(r, true) => r.push_binary_row(pkt)?,
                            Sink::Rows(r, false) => r.push_text_row(pkt)?,
                        }
                    }
                }
            }
            if status & SERVER_MORE_RESULTS_EXISTS == 0 {
                self.io.response_done();
                return Ok(Outcome::Rows(total_rows));
            }
            // Another result follows (e.g. CALL); decode only the first one.
            sink = Sink::Skip;
        }
    }
}

/// An OK packet's (`pkt`, its 0x00 header included) affected rows and
/// status flags.
#[inline]
fn ok_fields(pkt: &[u8]) -> (u64, u16) {
    let (affected, n) = lenenc_int(&pkt[1..]).unwrap_or((0, 0));
    (affected, ok_status(&pkt[1 + n..]))
}

/// Status flags of an OK packet body that starts after the affected-rows field.
pub(super) fn ok_status(b: &[u8]) -> u16 {
    let Some((_, n)) = lenenc_int(b) else {
        return 0;
    };
    b.get(n..n + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .unwrap_or(0)
}

pub(super) fn column_name(col: &[u8]) -> String {
    let mut pos = 0;
    for _ in 0..4 {
        match lenenc_str(&col[pos..]) {
            Some((_, n)) => pos += n,
            None => return String::new(),
        }
    }
    lenenc_str(&col[pos..])
        .and_then(|(s, _)| s)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_default()
}

/// A text-protocol row of `ncols` values. The column count comes from the
/// server: every value takes at least one byte, so a packet shorter than
/// the count is malformed, and the row never reserves more than the packet.
pub(super) fn text_row(pkt: &[u8], ncols: usize) -> Result<Vec<Option<String>>, ProtoError> {
    let mut row = Vec::with_capacity(ncols.min(pkt.len()));
    let mut pos = 0;
    for _ in 0..ncols {
        let rest = pkt.get(pos..).unwrap_or_default();
        let (v, n) =
            lenenc_str(rest).ok_or_else(|| ProtoError::Protocol("malformed result row".into()))?;
        row.push(v.map(|s| String::from_utf8_lossy(s).into_owned()));
        pos += n;
    }
    Ok(row)
}
