//! One HTTP request through wasi:http, the whole response: the host lets it through only to the
//! `host:port` the source was granted.

use ldp_plugin_sdk::PluginError;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingBody, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// Where the API is: `https://host[:port][/prefix]`.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub https: bool,
    pub authority: String,
    /// The path before `/bigquery/v2`, without a trailing `/` (usually empty).
    pub prefix: String,
}

impl Endpoint {
    pub fn parse(url: &str) -> Option<Endpoint> {
        let (https, rest) = match url.strip_prefix("https://") {
            Some(rest) => (true, rest),
            None => (false, url.strip_prefix("http://")?),
        };
        let (authority, prefix) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        (!authority.is_empty()).then(|| Endpoint {
            https,
            authority: authority.to_string(),
            prefix: prefix.to_string(),
        })
    }
}

/// A response: its status and body.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Sends `method path` with a bearer `token` and, for a POST, a JSON `body`.
pub fn send(
    endpoint: &Endpoint,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&[u8]>,
) -> Result<Response, PluginError> {
    let shown = format!("{method} {}{path}", endpoint.authority);
    let io = |what: &str| PluginError::io(format!("BigQuery API, {shown}: {what}"));
    let headers = Fields::new();
    let bearer = format!("Bearer {token}");
    headers
        .append("authorization", bearer.as_bytes())
        .and_then(|()| headers.append("accept", b"application/json"))
        .map_err(|e| io(&format!("a header was refused: {e:?}")))?;
    if let Some(body) = body {
        // A length, not chunks: every HTTP/1.1 server reads it.
        headers
            .append("content-type", b"application/json")
            .and_then(|()| headers.append("content-length", body.len().to_string().as_bytes()))
            .map_err(|e| io(&format!("a header was refused: {e:?}")))?;
    }
    let request = OutgoingRequest::new(headers);
    let scheme = if endpoint.https {
        Scheme::Https
    } else {
        Scheme::Http
    };
    let method = if body.is_some() {
        Method::Post
    } else {
        Method::Get
    };
    let full_path = format!("{}{path}", endpoint.prefix);
    request
        .set_method(&method)
        .and_then(|()| request.set_scheme(Some(&scheme)))
        .and_then(|()| request.set_authority(Some(&endpoint.authority)))
        .and_then(|()| request.set_path_with_query(Some(&full_path)))
        .map_err(|()| io("the request is not valid"))?;
    let outgoing = request.body().map_err(|()| io("no request body"))?;
    // Sent first, then the body streams to it: a body written before would wait for a reader.
    let pending = outgoing_handler::handle(request, None).map_err(|e| {
        io(&format!(
            "the request failed: {e:?} (is the address granted?)"
        ))
    })?;
    if let Some(body) = body {
        let stream = outgoing.write().map_err(|()| io("no request stream"))?;
        for chunk in body.chunks(4096) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| io(&format!("sending the body: {e:?}")))?;
        }
        drop(stream);
    }
    OutgoingBody::finish(outgoing, None).map_err(|e| io(&format!("sending: {e:?}")))?;
    pending.subscribe().block();
    let response = pending
        .get()
        .ok_or_else(|| io("no response"))?
        .map_err(|()| io("the response was taken"))?
        .map_err(|e| io(&format!("no answer: {e:?}")))?;
    let status = response.status();
    let body = response.consume().map_err(|()| io("no response body"))?;
    let stream = body.stream().map_err(|()| io("no response stream"))?;
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => bytes.extend(chunk),
            Err(StreamError::Closed) => break,
            Err(e) => return Err(io(&format!("reading the response: {e:?}"))),
        }
    }
    Ok(Response {
        status,
        body: bytes,
    })
}

/// `text` percent-encoded for a query string.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
