//! `qpslab run cpu|memory|threads|mutex|fileio …` (and fileio's `prepare`
//! and `cleanup`): sysbench's built-in host tests under qpslab's name,
//! run as sysbench mode runs them (the same options, the same output) and
//! recorded in the results store like any run. This file only rewrites
//! the words: qpslab's `--store FILE`, `--no-store` and `--label L`
//! become sysbench mode's `--qpslab-store=…` and `--qpslab-label=…`.

/// The commands a host test takes.
const COMMANDS: [&str; 4] = ["run", "prepare", "cleanup", "help"];

/// qpslab's options that take their value in the next word.
const VALUED: [&str; 2] = ["--store", "--label"];

/// The sysbench-mode command line for `argv` (program name first) when it
/// names a command and a built-in host test and nothing else positional;
/// None for any other command line.
pub fn wanted(argv: &[String]) -> Option<Vec<String>> {
    let (mut command, mut test, mut opts) = (None, None, Vec::new());
    let mut store = Some("on".to_string());
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (w.as_str(), None),
        };
        if VALUED.contains(&name) {
            let value = match inline {
                Some(v) => v,
                None => words.next()?.clone(),
            };
            match name {
                "--store" => store = Some(value),
                _ => opts.push(format!("--qpslab-label={value}")),
            }
        } else if w == "--no-store" {
            store = None;
        } else if w == "--help" || w == "-h" {
            command = Some("help".to_string());
        } else if w.starts_with('-') {
            opts.push(w.clone());
        } else if command.is_none() && COMMANDS.contains(&w.as_str()) {
            command = Some(w.clone());
        } else if test.is_none() && crate::hostbench::is_builtin(w) {
            test = Some(w.clone());
        } else {
            return None;
        }
    }
    let (command, test) = (command?, test?);
    let mut out = vec!["sysbench".to_string(), test];
    out.extend(opts);
    if let (Some(s), "run") = (store, command.as_str()) {
        out.push(format!("--qpslab-store={s}"));
    }
    out.push(command);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::wanted;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn host_tests_become_sysbench_mode_runs_that_are_stored() {
        assert_eq!(
            wanted(&words(
                "qpslab run cpu --time=2 --store /tmp/r.db --label box"
            ))
            .unwrap(),
            words("sysbench cpu --time=2 --qpslab-label=box --qpslab-store=/tmp/r.db run")
        );
        assert_eq!(
            wanted(&words("qpslab cpu --threads=2 run")).unwrap(),
            words("sysbench cpu --threads=2 --qpslab-store=on run")
        );
        assert_eq!(
            wanted(&words("qpslab run memory --no-store")).unwrap(),
            words("sysbench memory run")
        );
        assert_eq!(
            wanted(&words("qpslab prepare fileio --file-total-size=1G")).unwrap(),
            words("sysbench fileio --file-total-size=1G prepare")
        );
        assert_eq!(
            wanted(&words("qpslab run fileio --help")).unwrap(),
            words("sysbench fileio help")
        );
    }

    #[test]
    fn other_command_lines_are_left_to_qpslab() {
        for line in [
            "qpslab run oltp_read_write",
            "qpslab run cpu extra",
            "qpslab runs cpu",
            "qpslab cpu",
            "qpslab run --store",
            "qpslab show 3",
        ] {
            assert_eq!(wanted(&words(line)), None, "{line}");
        }
    }
}
