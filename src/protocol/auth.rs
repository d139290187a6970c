//! Handshake and authentication: reads the server greeting, negotiates
//! capabilities and runs the auth plugin exchange (mysql_native_password,
//! caching_sha2_password with fast and full auth, sha256_password,
//! client_ed25519, unix_socket) until the server says OK.

use super::error::{ProtoError, ServerError};
use super::io::PacketIo;
use super::opts::ConnOpts;
use super::pubkey;
use super::tls::{self, SslMode};
use mysql_common::auth::plugins::{AuthProc, ChallengeResponsePlugin, Context, Response};
use mysql_common::constants::{CapabilityFlags, MariadbCapabilities};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{AuthPlugin, AuthSwitchRequest, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;

/// What the handshake learned about the server and the session.
pub struct Session {
    pub server_version: String,
    pub capabilities: CapabilityFlags,
}

struct AuthCtx<'a> {
    opts: &'a ConnOpts,
    scramble: &'a [u8],
    ipc: bool,
    tls: bool,
}

impl Context for &AuthCtx<'_> {
    fn pass(&self) -> &[u8] {
        self.opts.password.as_bytes()
    }
    fn is_ipc_transport(&self) -> bool {
        self.ipc
    }
    fn is_tls_transport(&self) -> bool {
        self.tls
    }
    fn scramble(&self) -> &[u8] {
        self.scramble
    }
    fn server_key_pem(&self) -> Option<&[u8]> {
        self.opts.server_public_key.as_deref()
    }
}

/// A plugin the client runs: one of mysql_common's, or unix_socket, which
/// needs no data because the server checks the peer's OS user.
enum Plugin {
    /// `awaiting_key`: the last step asked the server for its RSA public
    /// key, so the next challenge is one (see `pubkey`).
    Proc {
        proc: AuthProc,
        awaiting_key: bool,
    },
    UnixSocket,
}

impl Plugin {
    fn init(plugin: &AuthPlugin<'_>) -> Result<Plugin, ProtoError> {
        if plugin.as_bytes() == b"unix_socket" {
            return Ok(Plugin::UnixSocket);
        }
        match AuthProc::init(plugin) {
            Ok(proc) => Ok(Plugin::Proc {
                proc,
                awaiting_key: false,
            }),
            Err(_) => Err(ProtoError::Auth(format!(
                "the server asks for auth plugin '{}', which qpslab does not support; \
                 use an account with mysql_native_password, caching_sha2_password, ed25519 or unix_socket",
                String::from_utf8_lossy(plugin.as_bytes())
            ))),
        }
    }

    fn run(&mut self, ctx: &AuthCtx<'_>, challenge: &[u8]) -> Result<Response, ProtoError> {
        let Plugin::Proc { proc, awaiting_key } = self else {
            return Ok(Response::last_empty());
        };
        // The byte that asks the server for its key, for the plugins that
        // encrypt the password with one.
        let key_request = match proc {
            AuthProc::CachingSha2Password(_) => 0x02,
            AuthProc::Sha256Password(_) => 0x01,
            _ => return proc.run(ctx, challenge).map_err(auth_err),
        };
        if *awaiting_key {
            pubkey::check(challenge, ctx.opts.password.len()).map_err(|why| {
                ProtoError::Auth(format!("the server sent an unusable RSA public key: {why}"))
            })?;
        }
        if let Some(key) = ctx.opts.server_public_key.as_deref() {
            if !ctx.opts.password.is_empty() && !ctx.tls && !ctx.ipc {
                pubkey::check(key, ctx.opts.password.len()).map_err(|why| {
                    ProtoError::Auth(format!("the key in --server-public-key is unusable: {why}"))
                })?;
            }
        }
        let r = proc.run(ctx, challenge).map_err(auth_err)?;
        *awaiting_key = matches!(&r, Response::Next { packet: Some(p) } if p[..] == [key_request]);
        Ok(r)
    }
}

fn auth_err(e: mysql_common::auth::plugins::Error) -> ProtoError {
    ProtoError::Auth(e.to_string())
}

fn wanted_capabilities(opts: &ConnOpts) -> CapabilityFlags {
    let mut c = CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_LONG_FLAG
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
        | CapabilityFlags::CLIENT_DEPRECATE_EOF
        // (metadata is still sent until a session turns it off)
        | CapabilityFlags::CLIENT_OPTIONAL_RESULTSET_METADATA;
    if opts.db.is_some() {
        c |= CapabilityFlags::CLIENT_CONNECT_WITH_DB;
    }
    if opts.local_infile {
        c |= CapabilityFlags::CLIENT_LOCAL_FILES;
    }
    c
}

/// Runs the handshake on a fresh connection.
pub(crate) async fn handshake(
    io: &mut PacketIo,
    opts: &ConnOpts,
    tls_host: &str,
) -> Result<Session, ProtoError> {
    let greeting = read_greeting(io).await?;
    let hp: HandshakePacket<'_> = ParseBuf(&greeting)
        .parse(())
        .map_err(|e| ProtoError::Protocol(format!("bad server greeting: {e}")))?;
    let server_caps = hp.capabilities();
    // MariaDB prefixes its version with "5.5.5-" for old clients' sake.
    let raw_version = hp.server_version_str();
    let server_version =
        super::error::escape_controls(raw_version.strip_prefix("5.5.5-").unwrap_or(&raw_version));
    let version = hp.server_version_parsed().unwrap_or((5, 7, 0));
    let nonce = hp.nonce();

    let mut caps = wanted_capabilities(opts) & server_caps;
    let mut mariadb_caps = MariadbCapabilities::empty();
    // MariaDB clears CLIENT_LONG_PASSWORD ("CLIENT_MYSQL") to announce its
    // extended capability flags, which a client may then request.
    if !server_caps.contains(CapabilityFlags::CLIENT_LONG_PASSWORD) {
        mariadb_caps =
            hp.mariadb_ext_capabilities() & MariadbCapabilities::MARIADB_CLIENT_CACHE_METADATA;
        caps.remove(CapabilityFlags::CLIENT_LONG_PASSWORD);
    }
    negotiate_tls(io, opts, tls_host, server_caps, &mut caps, mariadb_caps).await?;
    let plugin_name = hp
        .auth_plugin()
        .map(|p| p.into_owned())
        .unwrap_or(AuthPlugin::MysqlNativePassword);

    let ctx = AuthCtx {
        opts,
        scramble: &nonce,
        ipc: io.is_unix(),
        tls: io.is_tls(),
    };
    let mut plugin = Plugin::init(&plugin_name)?;
    let first = plugin.run(&ctx, &nonce)?;
    let data = first.data().map(|d| d.to_vec()).unwrap_or_default();
    let resp = HandshakeResponse::new(
        Some(data),
        version,
        Some(opts.user.as_bytes().to_vec()),
        opts.db.as_ref().map(|d| d.as_bytes().to_vec()),
        Some(plugin_name.clone()),
        caps,
        None,
        16 * 1024 * 1024,
    )
    .with_mariadb_ext_capabilities(mariadb_caps);
    let mut payload = Vec::new();
    resp.serialize(&mut payload);
    io.write_packet(&payload).await?;
    let caps = resp.capabilities();

    authenticate(io, opts, plugin, nonce).await?;
    Ok(Session {
        server_version,
        capabilities: caps,
    })
}

/// The server's greeting packet (protocol version 10), or its error.
async fn read_greeting(io: &mut PacketIo) -> Result<Vec<u8>, ProtoError> {
    let greeting = io.read_packet().await?.to_vec();
    match greeting.first() {
        Some(&0xFF) => return Err(ProtoError::Server(ServerError::parse(&greeting))),
        // Protocol version 10: every server since MySQL 3.21.
        Some(&10) => {}
        other => {
            return Err(ProtoError::Protocol(format!(
                "not a MySQL/MariaDB greeting (first byte {other:?}, expected protocol version 10)"
            )))
        }
    }
    Ok(greeting)
}

/// Upgrades the connection to TLS when the server offers it and
/// `--ssl-mode` wants it (adding CLIENT_SSL to `caps`); fails when TLS is
/// required and cannot be had.
async fn negotiate_tls(
    io: &mut PacketIo,
    opts: &ConnOpts,
    tls_host: &str,
    server_caps: CapabilityFlags,
    caps: &mut CapabilityFlags,
    mariadb_caps: MariadbCapabilities,
) -> Result<(), ProtoError> {
    if opts.ssl_mode == SslMode::Disabled {
        return Ok(());
    }
    if server_caps.contains(CapabilityFlags::CLIENT_SSL) && !io.is_unix() {
        *caps |= CapabilityFlags::CLIENT_SSL;
        // SSLRequest: the first 32 bytes of a handshake response.
        let mut req = Vec::with_capacity(32);
        req.extend_from_slice(&caps.bits().to_le_bytes());
        req.extend_from_slice(&(16u32 * 1024 * 1024).to_le_bytes());
        req.push(45); // utf8mb4_general_ci
        req.extend_from_slice(&[0; 19]);
        req.extend_from_slice(&mariadb_caps.bits().to_le_bytes());
        io.write_packet(&req).await?;
        let config = tls::client_config(opts.ssl_mode, opts.ssl_ca.as_deref())?;
        io.upgrade_tls(config, tls::server_name(tls_host)?).await?;
    } else if opts.ssl_mode >= SslMode::Required {
        return Err(ProtoError::Tls(if io.is_unix() {
            "TLS was required but this is a unix socket connection; connect over TCP or use --ssl-mode PREFERRED".into()
        } else {
            "TLS was required but the server does not offer it (see its ssl_cert/ssl_key settings)"
                .into()
        }));
    }
    Ok(())
}

/// The authentication exchange after the handshake response: more data
/// for the plugin, or a switch to another plugin, until the server says
/// ok (or refuses).
async fn authenticate(
    io: &mut PacketIo,
    opts: &ConnOpts,
    mut plugin: Plugin,
    nonce: Vec<u8>,
) -> Result<(), ProtoError> {
    let mut scramble = nonce;
    loop {
        let pkt = io.read_packet().await?.to_vec();
        match pkt.first() {
            Some(0x00) => break,
            Some(0xFF) => return Err(ProtoError::Server(ServerError::parse(&pkt))),
            Some(0xFE) => {
                let sw: AuthSwitchRequest<'_> = ParseBuf(&pkt)
                    .parse(())
                    .map_err(|e| ProtoError::Protocol(format!("bad auth switch: {e}")))?;
                let data = sw.plugin_data();
                // A 20-byte scramble comes NUL-terminated; ed25519's 32-byte
                // nonce does not, and may itself end in a zero byte (1 in 256).
                let data = match data {
                    [head @ .., 0] if head.len() == 20 => head.to_vec(),
                    _ => data.to_vec(),
                };
                plugin = Plugin::init(&sw.auth_plugin().into_owned())?;
                scramble = data.clone();
                let ctx = AuthCtx {
                    opts,
                    scramble: &scramble,
                    ipc: io.is_unix(),
                    tls: io.is_tls(),
                };
                let r = plugin.run(&ctx, &data)?;
                io.write_packet(r.data().unwrap_or(&[])).await?;
            }
            Some(0x01) => {
                let ctx = AuthCtx {
                    opts,
                    scramble: &scramble,
                    ipc: io.is_unix(),
                    tls: io.is_tls(),
                };
                let r = plugin.run(&ctx, &pkt[1..])?;
                if let Some(d) = r.data() {
                    io.write_packet(d).await?;
                }
            }
            _ => {
                return Err(ProtoError::Protocol(
                    "unexpected packet during authentication".into(),
                ))
            }
        }
    }
    Ok(())
}
