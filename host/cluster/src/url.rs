//! `df://HOST:PORT`, the address of a Ballista scheduler.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::error::{Error, Result};

/// The port of a `df://HOST` URL without one (Ballista's default).
const DEFAULT_PORT: u16 = 50050;

/// How long connecting to the scheduler may take before it counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A scheduler's address, from `df://HOST:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterUrl {
    host: String,
    port: u16,
}

impl ClusterUrl {
    /// Parses `df://HOST:PORT` (`df://HOST` is port 50050; an IPv6 host is in brackets).
    ///
    /// # Errors
    ///
    /// [`Error::Url`] for another scheme, no host, a bad port, or a path, user or query.
    pub fn parse(text: &str) -> Result<ClusterUrl> {
        let fail = |reason: &str| Error::Url {
            url: text.to_string(),
            reason: reason.to_string(),
        };
        let rest = text
            .strip_prefix("df://")
            .ok_or_else(|| fail("the scheme is not df://"))?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '@', '?', '#']) {
            return Err(fail("a scheduler URL has only a host and a port"));
        }
        let (host, port) = match rest.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6
                    .split_once(']')
                    .ok_or_else(|| fail("an IPv6 host lacks its ']'"))?;
                match after {
                    "" => (host, None),
                    _ => (
                        host,
                        Some(
                            after
                                .strip_prefix(':')
                                .ok_or_else(|| fail("':' must follow the IPv6 host"))?,
                        ),
                    ),
                }
            }
            None => match rest.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (rest, None),
            },
        };
        if host.is_empty() {
            return Err(fail("it has no host"));
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| fail("the port is not a number from 1 to 65535"))?,
        };
        Ok(ClusterUrl {
            host: host.to_string(),
            port,
        })
    }

    /// The scheduler's host.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The scheduler's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The host as it goes in a URL (an IPv6 address in brackets).
    fn url_host(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        }
    }

    /// The scheduler's gRPC endpoint, `http://HOST:PORT`.
    pub(crate) fn grpc(&self) -> String {
        format!("http://{}:{}", self.url_host(), self.port)
    }

    /// Connects once to the scheduler's port.
    ///
    /// # Errors
    ///
    /// [`Error::Unreachable`] when the host does not resolve or nothing accepts the connection
    /// within 5 s.
    pub(crate) fn connect(&self) -> Result<TcpStream> {
        let unreachable = |reason: String| Error::Unreachable {
            url: self.to_string(),
            reason,
        };
        let addresses = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| unreachable(e.to_string()))?;
        let mut last = "the host has no address".to_string();
        for address in addresses {
            match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = e.to_string(),
            }
        }
        Err(unreachable(last))
    }
}

impl std::fmt::Display for ClusterUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "df://{}:{}", self.url_host(), self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_print() {
        let url = ClusterUrl::parse("df://10.0.0.5:50050").unwrap();
        assert_eq!((url.host(), url.port()), ("10.0.0.5", 50050));
        assert_eq!(url.grpc(), "http://10.0.0.5:50050");
        assert_eq!(ClusterUrl::parse("df://sched").unwrap().port(), 50050);
        let v6 = ClusterUrl::parse("df://[::1]:7000/").unwrap();
        assert_eq!((v6.host(), v6.port()), ("::1", 7000));
        assert_eq!(v6.to_string(), "df://[::1]:7000");
        for bad in [
            "http://h:1",
            "df://",
            "df://:1",
            "df://h:0",
            "df://h:x",
            "df://h:1/path",
            "df://u@h:1",
        ] {
            let error = ClusterUrl::parse(bad).unwrap_err();
            assert!(
                error.to_string().contains("df://HOST:PORT"),
                "{bad}: {error}"
            );
        }
    }
}
