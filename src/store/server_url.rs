//! A server store's address: `mysql://user[:password]@host[:port]/db`
//! (or `mariadb://`) parsed into its parts. The password comes from the
//! URL, else `MYSQL_PWD`, else the caller's prompt; it is never kept in a
//! message, a log or the store (`Debug` and `shown` leave it out). It
//! connects to nothing.

use super::location::masked;

/// A parsed server store URL.
pub struct ServerUrl {
    /// The account's user name.
    pub user: String,
    /// The URL's password, if it has one.
    password: Option<String>,
    /// The server's host name or address.
    pub host: String,
    /// Its port (3306 when the URL names none).
    pub port: u16,
    /// The database that holds the store.
    pub db: String,
}

impl std::fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServerUrl({})", self.shown())
    }
}

/// A store URL this qpslab cannot use, said in one line (password masked).
#[derive(Debug, thiserror::Error)]
#[error("--store {url}: {why} (expected mysql://user[:password]@host[:port]/db)")]
pub struct UrlError {
    url: String,
    why: &'static str,
}

/// `s` with its `%XX` escapes decoded (a URL's user and password).
fn percent_decoded(s: &str) -> Option<String> {
    let (bytes, mut out, mut i) = (s.as_bytes(), Vec::new(), 0);
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl ServerUrl {
    /// Parses `arg`; any problem is one line naming the URL, masked.
    pub fn parse(arg: &str) -> Result<ServerUrl, UrlError> {
        let fail = |why| UrlError {
            url: masked(arg),
            why,
        };
        let url = url::Url::parse(arg).map_err(|_| fail("not a URL"))?;
        if !matches!(url.scheme(), "mysql" | "mariadb") {
            return Err(fail("only mysql:// and mariadb:// server stores exist"));
        }
        let user = percent_decoded(url.username()).ok_or_else(|| fail("a bad user name"))?;
        if user.is_empty() {
            return Err(fail("no user"));
        }
        let password = match url.password() {
            Some(p) => Some(percent_decoded(p).ok_or_else(|| fail("a bad password"))?),
            None => None,
        };
        let host = url.host_str().filter(|h| !h.is_empty());
        let host = host.ok_or_else(|| fail("no host"))?.to_string();
        let db = url.path().trim_start_matches('/');
        if db.is_empty() || db.contains('/') || url.query().is_some() {
            return Err(fail("the path must be one database name"));
        }
        Ok(ServerUrl {
            user,
            password,
            host,
            port: url.port().unwrap_or(3306),
            db: db.to_string(),
        })
    }

    /// The URL without its password (for messages).
    pub fn shown(&self) -> String {
        format!(
            "mysql://{}@{}:{}/{}",
            self.user, self.host, self.port, self.db
        )
    }

    /// The password: the URL's, else `env` (MYSQL_PWD's value), else
    /// what `ask` returns (a prompt).
    pub fn password(
        &self,
        env: Option<String>,
        ask: impl FnOnce() -> std::io::Result<String>,
    ) -> std::io::Result<String> {
        match (&self.password, env) {
            (Some(p), _) => Ok(p.clone()),
            (None, Some(p)) => Ok(p),
            (None, None) => ask(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_url_is_parsed_and_never_shows_its_password() {
        let u = ServerUrl::parse("mysql://lab:p%40ss@db.example:3307/results").unwrap();
        assert_eq!(
            (u.user.as_str(), u.host.as_str(), u.port, u.db.as_str()),
            ("lab", "db.example", 3307, "results")
        );
        assert_eq!(u.password(None, || unreachable!()).unwrap(), "p@ss");
        assert_eq!(u.shown(), "mysql://lab@db.example:3307/results");
        assert!(!format!("{u:?}").contains("p@ss"));
        let bare = ServerUrl::parse("mariadb://lab@10.0.0.1/r").unwrap();
        assert_eq!(bare.port, 3306);
        assert_eq!(
            bare.password(Some("env".into()), || unreachable!())
                .unwrap(),
            "env"
        );
        assert_eq!(bare.password(None, || Ok("asked".into())).unwrap(), "asked");
    }

    #[test]
    fn bad_urls_are_one_line_without_the_password() {
        for bad in [
            "postgres://u:s3cret@h/db",
            "mysql://:s3cret@h/db",
            "mysql://u:s3cret@h/",
            "mysql://u:s3cret@h/a/b",
            "mysql://u:s3cret@h/db?x=1",
        ] {
            let e = ServerUrl::parse(bad).unwrap_err().to_string();
            assert!(!e.contains("s3cret") && !e.contains('\n'), "{bad}: {e}");
        }
    }
}
