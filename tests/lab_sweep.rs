//! lab's sweep and run recording, in-process, with the probe workload
//! family (tests/common/probe.rs) on the shared sandbox and a store of
//! each test's own: a sweep plans one recorded run per concurrency and
//! repeat, in order, all in its campaign, and gives each concurrency its
//! medians; a run that fails is recorded failed with its reason and keeps
//! the samples it measured, and it ends the sweep with its exit code.

mod common;
use common::probe::{self, Mode, GIVE_UP};
use qpslab::campaign::SweepDefinition;
use qpslab::lab::{new_sweep, sweep, Environment, RunTags, SweepPlan};
use qpslab::store::Store;
use std::time::Duration;

fn environment() -> Environment {
    Environment {
        flavor: "MariaDB".into(),
        version: "probe".into(),
        variables: serde_json::json!({}),
        cnf: None,
        nondefault: None,
        sandbox: None,
        host: Default::default(),
    }
}

/// A store of the test's own in the shared lab's state directory.
fn store(name: &str) -> Store {
    let path = common::lab().home.join(format!("{name}.db"));
    Store::open(&path).expect("open a fresh store")
}

#[test]
fn a_sweep_runs_each_concurrency_and_repeat_in_order_in_its_campaign() {
    let store = store("lab_sweep_ok");
    let env = environment();
    let campaign = new_sweep(
        &store,
        "probe",
        &SweepDefinition {
            threads: vec![1, 2],
            ..Default::default()
        },
    )
    .expect("a sweep's campaign");
    let plan = SweepPlan {
        env: &env,
        store: &store,
        campaign,
        workload: "probe",
        threads: &[1, 2],
        repeat: 2,
        cooldown: 0.0,
        tags: RunTags::default(),
    };
    let mut steps = Vec::new();
    let out = sweep(
        &plan,
        |th| {
            let (cfg, _) = probe::config(common::lab().socket(), Mode::Select, th, 0.0, 200);
            Ok((cfg, None, None, None))
        },
        |s| steps.push((s.threads, s.repeat, s.run_id, s.status.word())),
    )
    .expect("the sweep");
    assert_eq!(out.code, 0);
    let order: Vec<(u32, u32)> = steps.iter().map(|s| (s.0, s.1)).collect();
    // Repeats are rounds: every concurrency once, then again.
    assert_eq!(order, [(1, 1), (2, 1), (1, 2), (2, 2)]);
    assert!(steps.iter().all(|s| s.3 == "ok"), "{steps:?}");
    assert_eq!(out.medians.len(), 2, "one median per concurrency");
    for (_, _, id, _) in &steps {
        let d = store
            .run_detail(*id)
            .expect("read the store")
            .expect("the step's run is stored");
        assert_eq!(d.run.status, "ok");
        assert_eq!(d.run.campaign_id, Some(campaign));
        assert_eq!(d.run.workload, "probe");
        assert_eq!(d.run.queries, Some(200), "{:?}", d.run);
    }
    let threads: Vec<i64> = steps
        .iter()
        .map(|s| store.run_detail(s.2).unwrap().unwrap().run.threads)
        .collect();
    assert_eq!(threads, [1, 2, 1, 2]);
}

#[test]
fn a_failed_run_is_recorded_failed_with_its_samples_and_ends_the_sweep() {
    let store = store("lab_sweep_failed");
    let env = environment();
    let campaign = new_sweep(&store, "probe", &SweepDefinition::default()).expect("a campaign");
    let plan = SweepPlan {
        env: &env,
        store: &store,
        campaign,
        workload: "probe",
        threads: &[1, 2],
        repeat: 1,
        cooldown: 0.0,
        tags: RunTags::default(),
    };
    let mut steps = Vec::new();
    let out = sweep(
        &plan,
        |th| {
            // gives up 1.5 s in: several 0.25 s intervals are measured first
            let mode = Mode::GiveUpAfter(Duration::from_millis(1500));
            let (cfg, _) = probe::config(common::lab().socket(), mode, th, 60.0, 0);
            Ok((cfg, None, None, None))
        },
        |s| steps.push((s.threads, s.run_id, s.status.word())),
    )
    .expect("the sweep");
    assert_eq!(steps.len(), 1, "a failed step ends the sweep: {steps:?}");
    assert_eq!(steps[0].2, "failed");
    assert_ne!(out.code, 0);
    let d = store
        .run_detail(steps[0].1)
        .expect("read the store")
        .expect("the failed run is stored");
    assert_eq!(d.run.status, "failed");
    let reason = d.run.reason.clone().unwrap_or_default();
    assert!(reason.contains(GIVE_UP), "{reason}");
    assert!(
        !d.samples.is_empty() && d.samples.iter().any(|s| s.events > 0),
        "the samples measured before the failure are kept: {} samples",
        d.samples.len()
    );
}
