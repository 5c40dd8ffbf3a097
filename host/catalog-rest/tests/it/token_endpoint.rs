//! A fake OAuth2 token endpoint (rustberg issues no tokens: it points clients at an identity
//! provider). It exchanges one client id and secret for rustberg's API key, and refuses any other
//! secret with an answer that quotes the secret it got, as a careless server might.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A running endpoint at `<uri>`; it stops when dropped.
pub struct TokenEndpoint {
    /// `http://127.0.0.1:<port>/oauth/token`.
    pub uri: String,
    /// The form bodies it received.
    pub requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl TokenEndpoint {
    /// Hands out `token` for `client_id`:`secret`, valid for `expires_in` seconds.
    pub fn start(client_id: &str, secret: &str, token: &str, expires_in: u64) -> TokenEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let expected = form_of(client_id, secret);
        let (seen, stopped, token) = (requests.clone(), stop.clone(), token.to_string());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = answer(stream, &expected, &token, expires_in, &seen);
            }
        });
        TokenEndpoint {
            uri: format!("http://127.0.0.1:{port}/oauth/token"),
            requests,
            stop,
            port,
        }
    }

    /// How many token requests it answered.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl Drop for TokenEndpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The fields a correct request carries.
fn form_of(client_id: &str, secret: &str) -> Vec<(String, String)> {
    vec![
        ("grant_type".into(), "client_credentials".into()),
        ("client_id".into(), client_id.into()),
        ("client_secret".into(), secret.into()),
        ("scope".into(), "catalog".into()),
    ]
}

fn answer(
    stream: TcpStream,
    expected: &[(String, String)],
    token: &str,
    expires_in: u64,
    seen: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    seen.lock().unwrap().push(body.clone());
    let fields: Vec<(String, String)> = body
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (decode(key), decode(value)))
        .collect();
    let accepted = expected.iter().all(|field| fields.contains(field));
    let (status, json) = if accepted {
        (
            "200 OK",
            format!(
                r#"{{"access_token":"{token}","token_type":"bearer","expires_in":{expires_in},"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}}"#
            ),
        )
    } else {
        let got = fields
            .iter()
            .find(|(key, _)| key == "client_secret")
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        (
            "401 Unauthorized",
            format!(
                r#"{{"error":"invalid_client","error_description":"unknown client secret {got}"}}"#
            ),
        )
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{json}",
        json.len()
    )?;
    stream.flush()
}

/// `application/x-www-form-urlencoded` decoding.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
