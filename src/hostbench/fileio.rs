//! sysbench's `fileio` test: `prepare` writes `--file-num` files
//! (test_file.N) of `--file-total-size` in all, `run` reads and writes
//! `--file-block-size` blocks of them (sequentially or at random blocks,
//! fsyncing every `--file-fsync-freq` requests), `cleanup` removes them.
//! Synchronous I/O (pread/pwrite), mmap'ed files (copies in and out of
//! a shared mapping, msync for fsync), or asynchronous requests with a
//! backlog per thread (fileio_async.rs, on io_uring).
//! Owns the files in the directory it is given and the I/O on them.

use super::driver::Worker;
use super::fileio_async::{AsyncIo, Kind};
use super::HostError;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// --file-test-mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Sequential write (creation).
    SeqWr,
    /// Sequential rewrite.
    SeqRewr,
    /// Sequential read.
    SeqRd,
    /// Random read.
    RndRd,
    /// Random write.
    RndWr,
    /// Random reads and writes (--file-rw-ratio reads per write).
    RndRw,
}

impl Mode {
    /// The mode named `s`.
    pub fn parse(s: &str) -> Result<Mode, HostError> {
        Ok(match s {
            "seqwr" => Mode::SeqWr,
            "seqrewr" => Mode::SeqRewr,
            "seqrd" => Mode::SeqRd,
            "rndrd" => Mode::RndRd,
            "rndwr" => Mode::RndWr,
            "rndrw" => Mode::RndRw,
            _ => return Err(HostError::FileTestMode(s.to_string())),
        })
    }

    /// Whether the blocks are picked at random.
    pub fn random(self) -> bool {
        matches!(self, Mode::RndRd | Mode::RndWr | Mode::RndRw)
    }

    /// Whether the mode writes.
    pub fn writes(self) -> bool {
        !matches!(self, Mode::SeqRd | Mode::RndRd)
    }
}

/// --file-extra-flags.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExtraFlags {
    /// O_SYNC.
    pub sync: bool,
    /// O_DSYNC.
    pub dsync: bool,
    /// O_DIRECT.
    pub direct: bool,
}

impl ExtraFlags {
    /// Reads the comma-separated list.
    pub fn parse(list: &[String]) -> Result<ExtraFlags, HostError> {
        let mut f = ExtraFlags::default();
        for w in list {
            match w.as_str() {
                "sync" => f.sync = true,
                "dsync" => f.dsync = true,
                "direct" => f.direct = true,
                _ => return Err(HostError::ExtraFlag(w.clone())),
            }
        }
        Ok(f)
    }

    fn open_flags(self) -> i32 {
        let mut f = 0;
        if self.sync {
            f |= libc::O_SYNC;
        }
        if self.dsync {
            f |= libc::O_DSYNC;
        }
        if self.direct {
            f |= libc::O_DIRECT;
        }
        f
    }
}

/// The fileio test's options.
#[derive(Debug, Clone)]
pub struct FileOptions {
    /// --file-num.
    pub num: u64,
    /// --file-block-size, bytes.
    pub block: u64,
    /// --file-total-size, bytes.
    pub total: u64,
    /// --file-test-mode (None: not given; `run` needs it).
    pub mode: Option<Mode>,
    /// --file-extra-flags.
    pub flags: ExtraFlags,
    /// --file-fsync-freq (0: none).
    pub fsync_freq: u64,
    /// --file-fsync-all.
    pub fsync_all: bool,
    /// --file-fsync-end.
    pub fsync_end: bool,
    /// --file-fsync-mode=fdatasync.
    pub fdatasync: bool,
    /// --file-rw-ratio.
    pub rw_ratio: f64,
    /// --file-io-mode=mmap (else sync).
    pub mmap: bool,
    /// --file-io-mode=async: requests in flight per thread
    /// (--file-async-backlog); None: not async.
    pub async_backlog: Option<u32>,
}

impl FileOptions {
    /// Bytes in each file.
    pub fn file_size(&self) -> u64 {
        self.total / self.num.max(1)
    }
}

/// The name of file `i`.
pub fn file_name(i: u64) -> String {
    format!("test_file.{i}")
}

/// What `prepare` did: each file and whether it was already there.
#[derive(Debug, Default)]
pub struct Prepared {
    /// (file name, reused).
    pub files: Vec<(String, bool)>,
    /// Bytes written.
    pub bytes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

fn io_err(name: &str, e: &std::io::Error) -> HostError {
    HostError::FileIo {
        name: name.to_string(),
        errno: e.raw_os_error().unwrap_or(0),
        why: os_text(e),
    }
}

/// An io::Error's text without Rust's " (os error N)".
pub fn os_text(e: &std::io::Error) -> String {
    let t = e.to_string();
    t.split(" (os error").next().unwrap_or("").to_string()
}

/// Writes the test files in `dir`: a file already as long is reused, a
/// shorter one is written on to its size.
pub fn prepare(o: &FileOptions, dir: &Path) -> Result<Prepared, HostError> {
    let start = std::time::Instant::now();
    let mut p = Prepared::default();
    let size = o.file_size();
    let buf = vec![0u8; o.block.max(1) as usize];
    for i in 0..o.num {
        let name = file_name(i);
        let f = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(dir.join(&name))
            .map_err(|e| io_err(&name, &e))?;
        let have = f.metadata().map_err(|e| io_err(&name, &e))?.len();
        p.files.push((name.clone(), have >= size));
        let mut at = have - have % o.block.max(1);
        while at < size {
            let n = (size - at).min(buf.len() as u64) as usize;
            f.write_all_at(&buf[..n], at)
                .map_err(|e| io_err(&name, &e))?;
            p.bytes += n as u64;
            at += n as u64;
        }
        f.sync_all().map_err(|e| io_err(&name, &e))?;
    }
    p.seconds = start.elapsed().as_secs_f64();
    Ok(p)
}

/// Removes the test files from `dir` (those missing are no error).
pub fn cleanup(o: &FileOptions, dir: &Path) -> Result<(), HostError> {
    for i in 0..o.num {
        let name = file_name(i);
        match std::fs::remove_file(dir.join(&name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err(&name, &e)),
            _ => {}
        }
    }
    Ok(())
}

/// Opens the test files for `run`; `on_open` hears each name first.
/// Every mode but seqwr needs them prepared, at their full size.
pub fn open(
    o: &FileOptions,
    mode: Mode,
    dir: &Path,
    mut on_open: impl FnMut(&str),
) -> Result<Vec<File>, HostError> {
    let mut files = Vec::new();
    for i in 0..o.num {
        let name = file_name(i);
        if mode == Mode::SeqWr {
            // (the creation test starts from no file, as sysbench's does)
            match std::fs::remove_file(dir.join(&name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_err(&name, &e));
                }
                _ => {}
            }
        }
        on_open(&name);
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(mode == Mode::SeqWr)
            .truncate(false)
            .custom_flags(o.flags.open_flags())
            .open(dir.join(&name))
            .map_err(|e| HostError::NoFile {
                name: name.clone(),
                errno: e.raw_os_error().unwrap_or(0),
                why: os_text(&e),
            })?;
        let have = f.metadata().map_err(|e| io_err(&name, &e))?.len();
        if mode != Mode::SeqWr && have < o.file_size() {
            return Err(HostError::ShortFile {
                name,
                have,
                want: o.file_size(),
            });
        }
        files.push(f);
    }
    Ok(files)
}

/// A test file mapped shared, read and write (--file-io-mode=mmap).
pub struct Map {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory, unmapped only on drop; the
// workers copy blocks in and out of it with raw copies.
unsafe impl Send for Map {}
// SAFETY: as above.
unsafe impl Sync for Map {}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: ptr/len are the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Maps each file's first `file_size` bytes (seqwr's files grown first).
pub fn map(o: &FileOptions, files: &[File]) -> Result<Vec<Map>, HostError> {
    use std::os::fd::AsRawFd;
    let len = o.file_size() as usize;
    let mut maps = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = file_name(i as u64);
        if f.metadata().map_err(|e| io_err(&name, &e))?.len() < len as u64 {
            f.set_len(len as u64).map_err(|e| io_err(&name, &e))?;
        }
        // SAFETY: a shared mapping of an open file of at least len bytes;
        // checked for failure below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io_err(&name, &std::io::Error::last_os_error()));
        }
        maps.push(Map {
            ptr: p.cast(),
            len: len.max(1),
        });
    }
    Ok(maps)
}

/// Operations done, for the interval lines and the result section.
#[derive(Debug, Default)]
pub struct FileCounters {
    /// Reads done.
    pub reads: AtomicU64,
    /// Writes done.
    pub writes: AtomicU64,
    /// fsyncs done.
    pub fsyncs: AtomicU64,
}

impl FileCounters {
    /// The counts so far.
    pub fn snapshot(&self) -> FileOps {
        FileOps {
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            fsyncs: self.fsyncs.load(Ordering::Relaxed),
        }
    }
}

/// Reads, writes and fsyncs (counts) in an interval or a run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FileOps {
    /// Reads.
    pub reads: u64,
    /// Writes.
    pub writes: u64,
    /// fsyncs.
    pub fsyncs: u64,
}

impl FileOps {
    /// The counts since `earlier`.
    pub fn since(self, earlier: FileOps) -> FileOps {
        FileOps {
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            fsyncs: self.fsyncs - earlier.fsyncs,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Read(usize, u64),
    Write(usize, u64),
    Fsync(usize),
}

/// Where the next request goes (shared by the threads).
#[derive(Default)]
struct Schedule {
    file: usize,
    pos: u64,
    requests: u64,
    fsyncs_due: usize,
}

/// One thread's I/O.
pub struct FileWorker {
    o: FileOptions,
    mode: Mode,
    files: Arc<Vec<File>>,
    maps: Arc<Vec<Map>>,
    schedule: Arc<Mutex<Schedule>>,
    counters: Arc<FileCounters>,
    buf: Vec<u8>,
    offset: usize,
    rng: SmallRng,
    op: Option<Op>,
    aio: Option<AsyncIo>,
}

/// One worker per thread over the open files.
pub fn workers(
    o: &FileOptions,
    mode: Mode,
    files: Arc<Vec<File>>,
    maps: Arc<Vec<Map>>,
    counters: Arc<FileCounters>,
    threads: u32,
    seed: u64,
) -> Vec<FileWorker> {
    let schedule = Arc::new(Mutex::new(Schedule::default()));
    (0..threads)
        .map(|t| {
            // O_DIRECT wants the buffer aligned: room to align it to 4 KiB
            let buf = vec![0x5a; o.block as usize + 4096];
            let offset = buf.as_ptr().align_offset(4096);
            FileWorker {
                o: o.clone(),
                mode,
                files: Arc::clone(&files),
                maps: Arc::clone(&maps),
                schedule: Arc::clone(&schedule),
                counters: Arc::clone(&counters),
                buf,
                offset,
                rng: SmallRng::seed_from_u64(seed.wrapping_add(u64::from(t))),
                op: None,
                aio: None,
            }
        })
        .collect()
}

/// `workers` for --file-io-mode=async: each with its ring.
pub fn async_workers(
    o: &FileOptions,
    mode: Mode,
    files: Arc<Vec<File>>,
    counters: Arc<FileCounters>,
    threads: u32,
    seed: u64,
) -> Result<Vec<FileWorker>, HostError> {
    let backlog = o.async_backlog.unwrap_or(128);
    let mut ws = workers(
        o,
        mode,
        files,
        Arc::new(Vec::new()),
        counters,
        threads,
        seed,
    );
    for w in &mut ws {
        w.aio = Some(AsyncIo::new(backlog, o.block as u32)?);
    }
    Ok(ws)
}

impl FileWorker {
    fn pick(&mut self, s: &mut Schedule) -> Op {
        let nfiles = self.files.len();
        if s.fsyncs_due > 0 {
            s.fsyncs_due -= 1;
            return Op::Fsync(nfiles - 1 - s.fsyncs_due);
        }
        let blocks = (self.o.file_size() / self.o.block).max(1);
        let (file, at) = if self.mode.random() {
            let f = self.rng.random_range(0..nfiles);
            (f, self.rng.random_range(0..blocks) * self.o.block)
        } else {
            if s.pos + self.o.block > self.o.file_size() {
                s.pos = 0;
                s.file = (s.file + 1) % nfiles;
            }
            let here = (s.file, s.pos);
            s.pos += self.o.block;
            here
        };
        s.requests += 1;
        if self.mode.writes()
            && self.o.fsync_freq > 0
            && s.requests.is_multiple_of(self.o.fsync_freq)
        {
            s.fsyncs_due = nfiles;
        }
        let write = match self.mode {
            Mode::SeqWr | Mode::SeqRewr | Mode::RndWr => true,
            Mode::SeqRd | Mode::RndRd => false,
            Mode::RndRw => {
                let r = self.o.rw_ratio.max(0.0);
                !self.rng.random_bool(r / (1.0 + r))
            }
        };
        if write {
            Op::Write(file, at)
        } else {
            Op::Read(file, at)
        }
    }

    fn sync(&self, f: usize) -> Result<(), HostError> {
        let file = &self.files[f];
        if let Some(m) = self.maps.get(f) {
            // SAFETY: msync of the whole live mapping.
            if unsafe { libc::msync(m.ptr.cast(), m.len, libc::MS_SYNC) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(io_err(&file_name(f as u64), &e));
            }
            self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let r = if self.o.fdatasync {
            file.sync_data()
        } else {
            file.sync_all()
        };
        r.map_err(|e| io_err(&file_name(f as u64), &e))?;
        self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Worker for FileWorker {
    fn finish(&mut self) -> Result<(), HostError> {
        // (async: every request in flight completes before the thread ends)
        let counters = Arc::clone(&self.counters);
        match self.aio.as_mut() {
            Some(aio) => aio.drain(&mut |k| count(&counters, k)),
            None => Ok(()),
        }
    }

    fn next_event(&mut self) -> bool {
        let schedule = Arc::clone(&self.schedule);
        let mut s = schedule.lock().unwrap_or_else(|p| p.into_inner());
        self.op = Some(self.pick(&mut s));
        true
    }

    fn execute(&mut self) -> Result<(), HostError> {
        if self.aio.is_some() {
            return self.submit();
        }
        let block = self.o.block as usize;
        let buf = &mut self.buf[self.offset..self.offset + block];
        match self.op.take() {
            Some(Op::Read(f, at)) if self.o.mmap => {
                let m = &self.maps[f];
                // SAFETY: at + block <= file_size = the mapping's length
                // (blocks are picked inside the file); buf is ours.
                unsafe {
                    std::ptr::copy_nonoverlapping(m.ptr.add(at as usize), buf.as_mut_ptr(), block)
                };
                self.counters.reads.fetch_add(1, Ordering::Relaxed);
            }
            Some(Op::Write(f, at)) if self.o.mmap => {
                let m = &self.maps[f];
                // SAFETY: as for reads; the block lies inside the mapping.
                unsafe {
                    std::ptr::copy_nonoverlapping(buf.as_ptr(), m.ptr.add(at as usize), block)
                };
                self.counters.writes.fetch_add(1, Ordering::Relaxed);
                if self.o.fsync_all {
                    self.sync(f)?;
                }
            }
            Some(Op::Read(f, at)) => {
                self.files[f]
                    .read_exact_at(buf, at)
                    .map_err(|e| io_err(&file_name(f as u64), &e))?;
                self.counters.reads.fetch_add(1, Ordering::Relaxed);
            }
            Some(Op::Write(f, at)) => {
                self.files[f]
                    .write_all_at(buf, at)
                    .map_err(|e| io_err(&file_name(f as u64), &e))?;
                self.counters.writes.fetch_add(1, Ordering::Relaxed);
                if self.o.fsync_all {
                    self.sync(f)?;
                }
            }
            Some(Op::Fsync(f)) => self.sync(f)?,
            None => {}
        }
        Ok(())
    }
}

impl FileWorker {
    /// --file-io-mode=async: the event's request (and, with
    /// --file-fsync-all, a write's fsync) queued on the thread's ring.
    fn submit(&mut self) -> Result<(), HostError> {
        let counters = Arc::clone(&self.counters);
        let mut done = |k: Kind| count(&counters, k);
        let buf = self.buf[self.offset..].as_mut_ptr();
        let (fsync_all, fdatasync) = (self.o.fsync_all, self.o.fdatasync);
        let Some(aio) = self.aio.as_mut() else {
            return Ok(());
        };
        let fd = |f: usize| self.files[f].as_raw_fd();
        match self.op.take() {
            Some(Op::Read(f, at)) => aio.submit(Kind::Read, fd(f), buf, at, fdatasync, &mut done),
            Some(Op::Write(f, at)) => {
                aio.submit(Kind::Write, fd(f), buf, at, fdatasync, &mut done)?;
                if fsync_all {
                    aio.submit(Kind::Fsync, fd(f), buf, 0, fdatasync, &mut done)?;
                }
                Ok(())
            }
            Some(Op::Fsync(f)) => aio.submit(Kind::Fsync, fd(f), buf, 0, fdatasync, &mut done),
            None => Ok(()),
        }
    }
}

/// A completed asynchronous request, counted.
fn count(c: &FileCounters, k: Kind) {
    let n = match k {
        Kind::Read => &c.reads,
        Kind::Write => &c.writes,
        Kind::Fsync => &c.fsyncs,
    };
    n.fetch_add(1, Ordering::Relaxed);
}

/// fsyncs every file (--file-fsync-end), as the run's last step.
pub fn sync_end(o: &FileOptions, files: &[File]) -> Result<(), HostError> {
    for (i, f) in files.iter().enumerate() {
        let r = if o.fdatasync {
            f.sync_data()
        } else {
            f.sync_all()
        };
        r.map_err(|e| io_err(&file_name(i as u64), &e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_flags_parse_as_sysbench_names_them() {
        assert_eq!(Mode::parse("rndrw").unwrap(), Mode::RndRw);
        assert!(Mode::parse("foo").is_err());
        assert!(Mode::RndWr.random() && Mode::RndWr.writes() && !Mode::SeqRd.writes());
        let f = ExtraFlags::parse(&["dsync".into(), "direct".into()]).unwrap();
        assert!(f.dsync && f.direct && !f.sync);
        assert!(ExtraFlags::parse(&["x".into()]).is_err());
    }
}
