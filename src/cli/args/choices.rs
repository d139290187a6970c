//! The closed sets of values (clap `ValueEnum`s): output formats, ps-mode,
//! rand-type, ssl-mode, client scheduling; a wrong value is an error that
//! lists the choices.

use clap::ValueEnum;

/// Output of a run: sysbench's text, or one JSON document.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunFormat {
    Text,
    Json,
}

/// Output of a table.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TableFormat {
    Text,
    #[value(alias = "md")]
    Markdown,
    Csv,
    Json,
}

impl From<TableFormat> for crate::report::table::Format {
    fn from(f: TableFormat) -> Self {
        use crate::report::table::Format;
        match f {
            TableFormat::Text => Format::Text,
            TableFormat::Markdown => Format::Markdown,
            TableFormat::Csv => Format::Csv,
            TableFormat::Json => Format::Json,
        }
    }
}

/// Output of raw series.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DumpFormat {
    Csv,
    Json,
}

/// sysbench's --db-ps-mode.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PsModeArg {
    /// Prepared statements (text protocol where the server refuses one).
    Auto,
    /// The text protocol for everything.
    Disable,
}

impl From<PsModeArg> for crate::exec::PsMode {
    fn from(m: PsModeArg) -> Self {
        match m {
            PsModeArg::Auto => crate::exec::PsMode::Auto,
            PsModeArg::Disable => crate::exec::PsMode::Disable,
        }
    }
}

/// sysbench's --rand-type.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RandTypeArg {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

impl From<RandTypeArg> for crate::workload::RandType {
    fn from(t: RandTypeArg) -> Self {
        use crate::workload::RandType;
        match t {
            RandTypeArg::Uniform => RandType::Uniform,
            RandTypeArg::Gaussian => RandType::Gaussian,
            RandTypeArg::Special => RandType::Special,
            RandTypeArg::Pareto => RandType::Pareto,
            RandTypeArg::Zipfian => RandType::Zipfian,
        }
    }
}

/// How a prepare's LOAD DATA statements get their rows.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoadViaArg {
    /// A named pipe the server reads when it is on this host and may read
    /// files there (secure_file_priv), else LOAD DATA LOCAL.
    Auto,
    /// The named pipe only (fails, saying why, when it cannot be used).
    Pipe,
    /// LOAD DATA LOCAL: the rows sent over the connection.
    Local,
}

impl From<LoadViaArg> for crate::protocol::LoadVia {
    fn from(v: LoadViaArg) -> Self {
        use crate::protocol::LoadVia;
        match v {
            LoadViaArg::Auto => LoadVia::Auto,
            LoadViaArg::Pipe => LoadVia::Pipe,
            LoadViaArg::Local => LoadVia::Local,
        }
    }
}

/// TLS mode (MySQL's names; sysbench's --mysql-ssl on|off too).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SslModeArg {
    #[value(name = "DISABLED", alias = "off", alias = "0")]
    Disabled,
    #[value(name = "PREFERRED")]
    Preferred,
    #[value(name = "REQUIRED", alias = "on", alias = "1")]
    Required,
    #[value(name = "VERIFY_CA")]
    VerifyCa,
    #[value(name = "VERIFY_IDENTITY")]
    VerifyIdentity,
}

impl From<SslModeArg> for crate::protocol::SslMode {
    fn from(m: SslModeArg) -> Self {
        use crate::protocol::SslMode;
        match m {
            SslModeArg::Disabled => SslMode::Disabled,
            SslModeArg::Preferred => SslMode::Preferred,
            SslModeArg::Required => SslMode::Required,
            SslModeArg::VerifyCa => SslMode::VerifyCa,
            SslModeArg::VerifyIdentity => SslMode::VerifyIdentity,
        }
    }
}

/// How a load connection's socket is driven.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoBackend {
    /// Blocking send and receive for a connection alone on its client
    /// thread (closed model, no TLS); the reactor (epoll) otherwise.
    Auto,
    /// Always the reactor (epoll).
    Epoll,
    /// Each client thread's connections on one io_uring ring: the sends
    /// and receives of all ready connections in one system call (falls
    /// back to epoll with a note where the kernel refuses io_uring); a
    /// connection alone on its thread goes direct, as with auto.
    Uring,
}

/// How the client threads are scheduled.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClientSched {
    /// SCHED_BATCH above one connection per CPU.
    Auto,
    Batch,
    Normal,
}

/// How `--profile waits` treats the Performance Schema's setup.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProfileWaits {
    /// As it is set up.
    Use,
    /// Every wait instrument enabled and timed for the run, put back after.
    Enable,
}
