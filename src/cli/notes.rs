//! Where the layers' warnings and notes go: the library logs them (the
//! `log` crate: `log::warn!`, `log::info!`) and the command line prints
//! them on stderr, as one line each — `qpslab: warning: …` and `note: …`.
//! Only qpslab's own records are printed (not its dependencies').

use log::{Level, LevelFilter, Log, Metadata, Record};

struct StderrNotes;

impl Log for StderrNotes {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= Level::Info && m.target().starts_with("qpslab")
    }

    fn log(&self, r: &Record) {
        if !self.enabled(r.metadata()) {
            return;
        }
        match r.level() {
            Level::Error | Level::Warn => errln!("qpslab: warning: {}", r.args()),
            _ => errln!("note: {}", r.args()),
        }
    }

    fn flush(&self) {}
}

/// Installs the printer (once, at start; a second call changes nothing).
pub fn install() {
    static NOTES: StderrNotes = StderrNotes;
    if log::set_logger(&NOTES).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}
