//! The Kubernetes manifests under deploy/ (issue 36 item 7): every YAML
//! file parses, every document names its apiVersion, kind and name, and
//! the fields the agents rely on are there: an Indexed Job whose pods
//! repel each other per node (one agent a node), its token from a Secret
//! defined beside it and mounted where the agent's --token-file reads,
//! and a headless Service selecting the Job's pods on the agent's port.
//! No cluster needed.

use yaml_rust2::{Yaml, YamlLoader};

fn docs() -> Vec<(String, Yaml)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no YAML under deploy/");
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let parsed = YamlLoader::load_from_str(&text)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", f.display()));
        for d in parsed.into_iter().filter(|d| !d.is_null()) {
            out.push((f.display().to_string(), d));
        }
    }
    out
}

fn s<'a>(y: &'a Yaml, what: &str) -> &'a str {
    y.as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {y:?}"))
}

#[test]
fn every_manifest_parses_and_names_itself() {
    for (file, d) in docs() {
        for key in ["apiVersion", "kind"] {
            s(&d[key], &format!("{file}: {key}"));
        }
        s(&d["metadata"]["name"], &format!("{file}: metadata.name"));
    }
}

#[test]
fn the_agents_job_is_indexed_one_per_node_with_its_token_from_a_secret() {
    let docs = docs();
    let of_kind = |k: &str| -> Vec<&Yaml> {
        docs.iter()
            .map(|(_, d)| d)
            .filter(|d| d["kind"].as_str() == Some(k))
            .collect()
    };
    let jobs = of_kind("Job");
    assert_eq!(jobs.len(), 1, "one agents Job");
    let job = jobs[0];
    let spec = &job["spec"];
    assert_eq!(s(&spec["completionMode"], "completionMode"), "Indexed");
    let n = spec["completions"].as_i64().expect("completions");
    assert!(n >= 1);
    assert_eq!(spec["parallelism"].as_i64(), Some(n), "every agent at once");
    let pod = &spec["template"]["spec"];
    let labels = &spec["template"]["metadata"]["labels"];
    let app = s(&labels["app.kubernetes.io/name"], "the pods' label");

    // one agent per node: required anti-affinity against its own pods
    let terms = pod["affinity"]["podAntiAffinity"]
        ["requiredDuringSchedulingIgnoredDuringExecution"]
        .as_vec()
        .expect("required pod anti-affinity");
    assert!(terms.iter().any(|t| {
        t["topologyKey"].as_str() == Some("kubernetes.io/hostname")
            && t["labelSelector"]["matchLabels"]["app.kubernetes.io/name"].as_str() == Some(app)
    }));

    // the agent, its token file under a mount of the Secret's volume
    let c = &pod["containers"][0];
    let cmd: Vec<&str> = c["command"]
        .as_vec()
        .expect("command")
        .iter()
        .map(|w| s(w, "command word"))
        .collect();
    assert_eq!(&cmd[..2], ["qpslab", "agent"], "{cmd:?}");
    let at = |o: &str| cmd[cmd.iter().position(|w| *w == o).unwrap() + 1];
    assert!(at("--listen").starts_with("0.0.0.0:"), "{cmd:?}");
    let port: i64 = at("--listen")[8..].parse().unwrap();
    let token_file = at("--token-file");
    let mount = c["volumeMounts"]
        .as_vec()
        .expect("volumeMounts")
        .iter()
        .find(|m| token_file.starts_with(s(&m["mountPath"], "mountPath")))
        .expect("the token file is under a mount");
    let volume = pod["volumes"]
        .as_vec()
        .expect("volumes")
        .iter()
        .find(|v| v["name"] == mount["name"])
        .expect("the mount's volume");
    let secret = s(&volume["secret"]["secretName"], "the volume's secretName");
    let secrets = of_kind("Secret");
    let defined = secrets
        .iter()
        .find(|d| d["metadata"]["name"].as_str() == Some(secret))
        .unwrap_or_else(|| panic!("Secret {secret} is not defined under deploy/"));
    let key = s(&volume["secret"]["items"][0]["key"], "the Secret's key");
    assert!(
        !defined["stringData"][key].is_badvalue() || !defined["data"][key].is_badvalue(),
        "Secret {secret} has no key {key}"
    );
    assert!(token_file.ends_with(s(&volume["secret"]["items"][0]["path"], "path")));

    // a headless Service selecting the agents, on the agent's port
    let svc = of_kind("Service");
    let svc = svc
        .iter()
        .find(|d| d["spec"]["selector"]["app.kubernetes.io/name"].as_str() == Some(app))
        .expect("a Service selecting the agents");
    assert_eq!(
        s(&svc["spec"]["clusterIP"], "clusterIP"),
        "None",
        "headless"
    );
    assert_eq!(svc["spec"]["ports"][0]["port"].as_i64(), Some(port));
    assert_eq!(
        pod["subdomain"].as_str(),
        svc["metadata"]["name"].as_str(),
        "pods named under the Service"
    );
}
