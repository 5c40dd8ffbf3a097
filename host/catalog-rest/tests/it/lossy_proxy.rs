//! A proxy in front of the server that loses the answers to the first table commits: it
//! forwards the commit, reads the server's answer, and closes the client's connection instead of
//! passing the answer on (a network failure after the catalog applied the commit). Every other
//! request passes. Requests and answers are framed by `Content-Length`, which is all rustberg
//! and this client use.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A running proxy; its threads end with the test process.
pub struct LossyProxy {
    /// `http://127.0.0.1:<port>`.
    pub uri: String,
    /// The `Idempotency-Key` of every commit it saw (empty when the commit had none).
    pub commit_keys: Arc<Mutex<Vec<String>>>,
}

struct Message {
    head: String,
    body: Vec<u8>,
}

impl LossyProxy {
    /// Forwards to `127.0.0.1:upstream`, losing the answers to the first `lose` commits.
    pub fn start(upstream: u16, lose: usize) -> LossyProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().unwrap().port();
        let lost = Arc::new(AtomicUsize::new(0));
        let commit_keys = Arc::new(Mutex::new(Vec::new()));
        let keys = commit_keys.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (lost, keys) = (lost.clone(), keys.clone());
                std::thread::spawn(move || {
                    let _ = serve(client, upstream, lose, &lost, &keys);
                });
            }
        });
        LossyProxy {
            uri: format!("http://127.0.0.1:{port}"),
            commit_keys,
        }
    }
}

fn serve(
    client: TcpStream,
    upstream: u16,
    lose: usize,
    lost: &AtomicUsize,
    keys: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let server = TcpStream::connect(("127.0.0.1", upstream))?;
    let mut from_client = BufReader::new(client.try_clone()?);
    let mut from_server = BufReader::new(server.try_clone()?);
    let (mut to_client, mut to_server) = (client, server);
    while let Some(request) = read_message(&mut from_client, true)? {
        to_server.write_all(request.head.as_bytes())?;
        to_server.write_all(&request.body)?;
        // The answer to a HEAD has a Content-Length and no body.
        let has_body = !request.head.starts_with("HEAD ");
        let Some(answer) = read_message(&mut from_server, has_body)? else {
            break;
        };
        if is_commit(&request.head) {
            keys.lock()
                .unwrap()
                .push(header(&request.head, "idempotency-key"));
            if lost.fetch_add(1, Ordering::SeqCst) < lose {
                to_client.shutdown(Shutdown::Both)?;
                break;
            }
        }
        to_client.write_all(answer.head.as_bytes())?;
        to_client.write_all(&answer.body)?;
    }
    Ok(())
}

/// `POST .../namespaces/<ns>/tables/<table>`.
fn is_commit(head: &str) -> bool {
    let line = head.lines().next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (method, path) = (parts.next(), parts.next().unwrap_or_default());
    let segments: Vec<&str> = path
        .split('?')
        .next()
        .unwrap_or_default()
        .split('/')
        .collect();
    let n = segments.len();
    method == Some("POST")
        && n >= 4
        && segments[n - 2] == "tables"
        && segments[n - 4] == "namespaces"
}

fn header(head: &str, name: &str) -> String {
    head.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| key.trim().eq_ignore_ascii_case(name))
        .map(|(_, value)| value.trim().to_string())
        .unwrap_or_default()
}

/// One request or answer: its head (through the blank line) and, when it `has_body`, its
/// `Content-Length` body; `None` at the end of the stream.
fn read_message(
    reader: &mut BufReader<TcpStream>,
    has_body: bool,
) -> std::io::Result<Option<Message>> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let length: usize = match has_body {
        true => header(&head, "content-length").parse().unwrap_or(0),
        false => 0,
    };
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Message { head, body }))
}
