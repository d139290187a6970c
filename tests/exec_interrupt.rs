//! The run engine's Ctrl-C path, in-process: with exec's handler
//! installed, a SIGINT raised once the run is counting events ends it as
//! aborted (stopped by the user), with what it measured kept. A binary of
//! its own: the interrupt flag stays set for the rest of the process.

mod common;
use common::probe::{self, Mode};
use qpslab::exec::{install_ctrl_c, interrupted, run_clocked};
use qpslab::stats::RunStatus;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

#[test]
fn ctrl_c_during_a_run_ends_it_as_aborted_with_its_figures() {
    let (mut cfg, _) = probe::config(common::lab().socket(), Mode::Select, 2, 120.0, 0);
    cfg.interval = 0.2;
    install_ctrl_c();
    assert!(!interrupted());
    let start = Instant::now();
    let mut raised = false;
    // The signal goes once an interval with events is in: the run is
    // counting (a readiness signal, not a sleep).
    let r = run_clocked(&cfg, &Arc::new(OnceLock::new()), |s| {
        if !raised && s.iv.events > 0 {
            raised = true;
            // SAFETY: kill(2) on this process with a signal whose handler
            // exec installed; no memory is involved.
            unsafe { libc::kill(libc::getpid(), libc::SIGINT) };
        }
    });
    assert!(raised, "no interval with events was seen");
    assert!(interrupted());
    assert!(matches!(r.status, RunStatus::Aborted(_)), "{:?}", r.status);
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "a 120 s run went on after Ctrl-C"
    );
    assert!(r.total.events > 0, "what was measured is kept");
    assert_eq!(r.total.failed, 0);
}
