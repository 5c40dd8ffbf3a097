//! Who may read the page.
//!
//! * On loopback without a token, a request is answered only when its `Host` names a loopback
//!   address (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`): a web page elsewhere that
//!   points a name of its own at 127.0.0.1 (DNS rebinding) gets 403.
//! * With a token (required beyond loopback), every request carries it: as
//!   `Authorization: Bearer TOKEN`, or as the `ldp_ui_token` cookie that `GET /?token=TOKEN`
//!   sets (HttpOnly, SameSite=Strict) before sending the browser to `/` without it.

use hyper::HeaderMap;
use hyper::header::{AUTHORIZATION, COOKIE, HOST};

use crate::error::{UiError, UiErrorKind};

/// The cookie that carries the token.
pub const COOKIE_NAME: &str = "ldp_ui_token";

/// Checks a request's headers, and the token of its address (`/?token=`) when it has one,
/// which counts before any header.
///
/// # Errors
///
/// `Unauthorized` without the token (or with another), `ForbiddenHost` for a `Host` that is not
/// loopback on a server without a token.
pub fn check(
    token: Option<&str>,
    headers: &HeaderMap,
    query_token: Option<&str>,
) -> Result<(), UiError> {
    match token {
        None => {
            let host = headers
                .get(HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            if is_loopback_host(host) {
                Ok(())
            } else {
                Err(UiError::new(
                    UiErrorKind::ForbiddenHost,
                    format!(
                        "this page answers on a loopback address only, not for Host '{host}'; open it as http://127.0.0.1:PORT/"
                    ),
                ))
            }
        }
        Some(expected) => {
            let bearer = query_token.or_else(|| {
                headers
                    .get(AUTHORIZATION)
                    .and_then(|h| h.to_str().ok())
                    .and_then(|h| h.strip_prefix("Bearer "))
            });
            let cookie = headers
                .get_all(COOKIE)
                .iter()
                .filter_map(|h| h.to_str().ok())
                .flat_map(|h| h.split(';'))
                .filter_map(|pair| pair.trim().strip_prefix(COOKIE_NAME)?.strip_prefix('='))
                .next();
            match bearer.or(cookie) {
                Some(given) if same(given.trim(), expected) => Ok(()),
                _ => Err(UiError::new(
                    UiErrorKind::Unauthorized,
                    "this page needs its token: open the address ldp ui printed (…/?token=…), or send Authorization: Bearer TOKEN",
                )),
            }
        }
    }
}

/// Whether `host` (a `Host` header: `name[:port]`) names a loopback address.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Compares in time that does not depend on where the texts differ.
fn same(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let mut diff = a.len() ^ b.len();
    for (i, byte) in b.iter().enumerate() {
        diff |= usize::from(a.get(i).copied().unwrap_or(0) ^ byte);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(hyper::header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_refused() {
        for host in ["127.0.0.1:8765", "localhost:1", "[::1]:8765", "127.0.0.1"] {
            assert!(
                check(None, &headers(&[(HOST, host)]), None).is_ok(),
                "{host}"
            );
        }
        for host in ["evil.example:8765", "", "10.0.0.1:8765"] {
            let error = check(None, &headers(&[(HOST, host)]), None).unwrap_err();
            assert_eq!(error.kind(), UiErrorKind::ForbiddenHost, "{host}");
        }
    }

    #[test]
    fn a_token_comes_as_a_bearer_or_a_cookie() {
        let token = Some("0123456789abcdef");
        assert!(
            check(
                token,
                &headers(&[(AUTHORIZATION, "Bearer 0123456789abcdef")]),
                None
            )
            .is_ok()
        );
        assert!(
            check(
                token,
                &headers(&[(COOKIE, "a=b; ldp_ui_token=0123456789abcdef")]),
                None
            )
            .is_ok()
        );
        for bad in [
            headers(&[]),
            headers(&[(AUTHORIZATION, "Bearer 0123456789abcdeX")]),
            headers(&[(COOKIE, "ldp_ui_token=0123")]),
        ] {
            assert_eq!(
                check(token, &bad, None).unwrap_err().kind(),
                UiErrorKind::Unauthorized
            );
        }
    }
}
