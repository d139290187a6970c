//! What every response of `qpslab ui` goes through: the Host check that
//! keeps DNS-rebinding pages of other sites from reading the UI through a
//! browser, and the headers that stop content sniffing and confine each
//! page to its own scripts and styles (a Content-Security-Policy).

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The policy of the UI's HTML pages: their scripts and styles are the
/// served `/assets/` files, charts are inline SVG, the flame graphs are
/// same-origin frames, and a live page fetches itself.
pub(crate) const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'";

/// Which Host headers the UI answers: loopback names and the address it
/// was bound to, each with its port.
pub(crate) struct Hosts {
    names: Vec<String>,
    port: u16,
    /// Bound to every address (0.0.0.0 or ::): any IP address is this
    /// host's (DNS rebinding needs a name, never an address).
    any_address: bool,
}

impl Hosts {
    pub fn new(bind: &str, port: u16) -> Hosts {
        let bare = bind.trim_start_matches('[').trim_end_matches(']');
        let any_address = bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|a| a.is_unspecified());
        let mut names: Vec<String> = ["127.0.0.1", "localhost", "::1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.push(bare.to_ascii_lowercase());
        Hosts {
            names,
            port,
            any_address,
        }
    }

    /// Whether `host` (a Host header's value) names this UI.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = match host.strip_prefix('[') {
            Some(rest) => match rest.split_once(']') {
                Some((n, p)) => (n.to_string(), p.strip_prefix(':')),
                None => return false,
            },
            None => match host.rsplit_once(':') {
                Some((n, p)) if !n.contains(':') => (n.to_string(), Some(p)),
                _ => (host.clone(), None),
            },
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.port),
            None => self.port == 80,
        };
        let name = name.trim_end_matches('.');
        port_ok
            && (self.names.iter().any(|n| n == name)
                || (self.any_address && name.parse::<std::net::IpAddr>().is_ok()))
    }
}

/// Refuses requests whose Host is not this UI's (421, one line), and adds
/// the security headers to every response, refusals and errors included.
pub async fn guard(State(hosts): State<Arc<Hosts>>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let mut resp = match host {
        Some(h) if hosts.allows(&h) => next.run(req).await,
        other => (
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "refused: Host '{}' is not this UI's address; open it as http://127.0.0.1:{}/\n",
                other.as_deref().unwrap_or("").escape_default(),
                hosts.port
            ),
        )
            .into_response(),
    };
    secure(resp.headers_mut());
    resp
}

/// Adds nosniff, a no-referrer policy and the CSP (a page's own, unless
/// the handler set one, as an SVG with inline script does).
fn secure(h: &mut HeaderMap) {
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_CSP),
        );
    }
}

/// The CSP of a standalone SVG (a flame graph): its own inline `<style>`
/// and `<script>` blocks, allowed by hash, and nothing else.
pub(crate) fn svg_csp(svg: &str) -> String {
    let hashes = |tag: &str| -> String {
        blocks(svg, tag)
            .iter()
            .map(|b| format!(" 'sha256-{}'", sha256_b64(b)))
            .collect()
    };
    // The root's onload="init(evt)" handler (inferno's), by hash too.
    let handlers: String = attr_values(svg, "onload")
        .iter()
        .map(|h| format!(" 'sha256-{}'", sha256_b64(h)))
        .collect();
    let unsafe_hashes = if handlers.is_empty() {
        ""
    } else {
        " 'unsafe-hashes'"
    };
    format!(
        "default-src 'none'; script-src{unsafe_hashes}{}{handlers}; style-src{}; img-src 'self' data:; frame-ancestors 'self'",
        hashes("script"),
        hashes("style"),
    )
}

/// The text content of each `<tag ...>...</tag>` block, CDATA markers
/// removed (what a browser hashes).
fn blocks(doc: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(gt) = after.find('>') else { break };
        let body_start = &after[gt + 1..];
        let Some(end) = body_start.find(&close) else {
            break;
        };
        out.push(
            body_start[..end]
                .replace("<![CDATA[", "")
                .replace("]]>", ""),
        );
        rest = &body_start[end + close.len()..];
    }
    out
}

/// Every value of attribute `name` (double-quoted, as inferno writes it).
fn attr_values(doc: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    doc.match_indices(&key)
        .filter_map(|(i, _)| {
            let v = &doc[i + key.len()..];
            v.find('"').map(|e| v[..e].to_string())
        })
        .collect()
}

fn sha256_b64(text: &str) -> String {
    use base64::Engine;
    let d = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(d.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_loopback_or_the_bind_address_with_the_port() {
        let h = Hosts::new("127.0.0.1", 8080);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "LOCALHOST.:8080",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "evil.example",
            "127.0.0.1:8081",
            "127.0.0.1",
            "[::1",
            "10.0.0.1:8080",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
        let any = Hosts::new("0.0.0.0", 80);
        assert!(
            any.allows("10.0.0.1") && any.allows("[fe80::1]:80") && !any.allows("evil.example")
        );
        assert!(Hosts::new("lab.local", 9000).allows("lab.local:9000"));
    }

    #[test]
    fn an_svg_policy_hashes_its_own_blocks() {
        let svg = "<svg onload=\"init(evt)\"><style type=\"text/css\">a{}</style><script type=\"text/ecmascript\"><![CDATA[var x;]]><![CDATA[f()]]></script></svg>";
        let csp = svg_csp(svg);
        assert!(csp.contains(&sha256_b64("var x;f()")), "{csp}");
        assert!(
            csp.contains(&sha256_b64("a{}")) && csp.contains(&sha256_b64("init(evt)")),
            "{csp}"
        );
        assert!(
            csp.contains("'unsafe-hashes'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
    }
}
