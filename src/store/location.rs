//! What a store argument names: a SQLite file, or a URL (`scheme://…`),
//! which is never taken for a path (a `mysql://` value once became a
//! SQLite file in a folder named "mysql:"). Owns recognising URL-shaped
//! values and masking their password for messages; it opens nothing.

use std::path::Path;

/// The scheme of a URL-shaped store argument (`mysql` in
/// `mysql://u@h/db`), or None for a path. A scheme is a letter followed
/// by letters, digits, `+`, `-` or `.`, then `://`.
pub fn url_scheme(arg: &str) -> Option<&str> {
    let (scheme, _) = arg.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// `arg` with the password of a `scheme://user:password@host…` URL
/// replaced by `***` (anything else unchanged): the only form in which a
/// store URL may appear in a message.
pub fn masked(arg: &str) -> String {
    let Some((scheme, rest)) = arg.split_once("://") else {
        return arg.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return arg.to_string();
    };
    match rest[..at].split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
        None => arg.to_string(),
    }
}

/// Refuses a URL-shaped store argument in one line (with its password
/// masked): the store opens SQLite files only; a server store is reached
/// through its local spool and mirror (lab's `server_store`), and a
/// command that hands a URL here does not support one.
pub fn refuse_url(path: &Path) -> anyhow::Result<()> {
    let arg = path.to_string_lossy();
    if let Some(scheme) = url_scheme(&arg) {
        anyhow::bail!(
            "--store {}: this command does not work with a {scheme}:// server store; pass a SQLite file path",
            masked(&arg)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        assert_eq!(url_scheme("mysql://u:p@h:3306/db"), Some("mysql"));
        assert_eq!(url_scheme("mariadb+tls://h/db"), Some("mariadb+tls"));
        for path in [
            "results.db",
            "/tmp/a://b",
            "./mysql:/x",
            "://x",
            "1a://x",
            "",
        ] {
            assert_eq!(url_scheme(path), None, "{path}");
        }
    }

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            masked("mysql://u:s3cret@h:3306/db"),
            "mysql://u:***@h:3306/db"
        );
        assert_eq!(masked("mysql://u:p@ss@h/db"), "mysql://u:***@h/db");
        assert_eq!(masked("mysql://u@h/db"), "mysql://u@h/db");
        assert_eq!(masked("mysql://h/db@x"), "mysql://h/db@x");
        assert_eq!(masked("results.db"), "results.db");
        let e = refuse_url(Path::new("mysql://u:s3cret@h/db"))
            .unwrap_err()
            .to_string();
        assert!(
            !e.contains("s3cret") && e.contains("mysql://u:***@h/db") && !e.contains('\n'),
            "{e}"
        );
        assert!(refuse_url(Path::new("/tmp/r.db")).is_ok());
    }
}
