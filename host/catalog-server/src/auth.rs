//! The bearer token: when the server has one, every request must present it as
//! `Authorization: Bearer <token>`; a missing or different token is a 401 before anything else
//! is looked at.

use hyper::HeaderMap;
use hyper::header::AUTHORIZATION;

use crate::error::{Error, ErrorKind, Result};

/// Checks the request's `Authorization` header against `token` (no token: every request
/// passes).
pub(crate) fn check(token: Option<&str>, headers: &HeaderMap) -> Result<()> {
    let Some(expected) = token else {
        return Ok(());
    };
    let Some(value) = headers.get(AUTHORIZATION) else {
        return Err(unauthorized(
            "this catalog needs a bearer token: send Authorization: Bearer <token> \
             (pyiceberg: token=..., DuckDB: TOKEN '...')",
        ));
    };
    let presented = value
        .to_str()
        .ok()
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    match presented {
        Some(token) if same(token.as_bytes(), expected.as_bytes()) => Ok(()),
        Some(_) => Err(unauthorized(
            "the bearer token is not valid for this catalog",
        )),
        None => Err(unauthorized(
            "the Authorization header must be 'Bearer <token>'",
        )),
    }
}

fn unauthorized(message: &str) -> Error {
    Error::request(ErrorKind::Unauthorized, "NotAuthorizedException", message)
}

/// Compares in time independent of where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(value: Option<&str>) -> HeaderMap {
        let mut map = HeaderMap::new();
        if let Some(value) = value {
            map.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn tokens() {
        assert!(check(None, &headers(None)).is_ok());
        assert!(check(Some("s3cr3t"), &headers(Some("Bearer s3cr3t"))).is_ok());
        assert!(check(Some("s3cr3t"), &headers(Some("bearer s3cr3t"))).is_ok());
        for wrong in [
            None,
            Some("Bearer nope"),
            Some("Basic s3cr3t"),
            Some("s3cr3t"),
        ] {
            let e = check(Some("s3cr3t"), &headers(wrong)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unauthorized, "{wrong:?}");
        }
    }
}
