//! `--listen ADDR:PORT`: a tiny HTTP/1.1 server. `GET /metrics` answers
//! the Prometheus text of everything watch has judged so far; any other
//! path is 404, any other method 405.
//!
//! Each connection is served on a thread of its own, at most
//! `MAX_CONNECTIONS` at once (one more is told `503` and closed), and each
//! is closed at a deadline counted from its accept, whatever the client
//! does: its request must be in within `REQUEST_DEADLINE` and the answer
//! written within `CONNECTION_DEADLINE`. Every read and write waits at most
//! until that deadline, so a client that trickles a byte now and then (a
//! per-read timeout would never fire) or never reads its answer holds one
//! thread for a few seconds, never the scrapes of others.
//!
//! Why not an HTTP crate: tiny_http has no deadline for a request, only
//! none or (in forks) per-read timeouts, and a thread pool without bound;
//! hyper has a whole-header deadline but needs the tokio runtime, a large
//! build for one path. What this needs is the few lines below.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The largest request read (request line and headers).
const MAX_REQUEST: usize = 8 * 1024;

/// How long a connection may be held, from its accept.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Connections served at once; one more is answered 503 and closed.
    pub connections: usize,
    /// The whole request (request line and headers) is in by then.
    pub request: Duration,
    /// The answer is written by then; the connection is closed.
    pub connection: Duration,
}

/// The limits `--listen` serves with (docs/watch.md).
pub(super) const LIMITS: Limits =
    Limits { connections: 32, request: Duration::from_secs(5), connection: Duration::from_secs(10) };

/// The address `--listen` names, refused when it is not loopback unless
/// `any` (`--listen-any`).
pub(super) fn address(spec: &str, any: bool) -> Result<SocketAddr> {
    let usage = |m: String| Error::Usage(format!("--listen {spec:?}: {m}"));
    let addr = spec
        .to_socket_addrs()
        .map_err(|e| usage(format!("not an ADDR:PORT ({e})")))?
        .next()
        .ok_or_else(|| usage("names no address".into()))?;
    if !any && !addr.ip().is_loopback() {
        return Err(usage(
            "is not a loopback address; the metrics name your tools and their errors, so pass --listen-any \
             to serve them beyond this machine"
                .into(),
        ));
    }
    Ok(addr)
}

/// Bind `addr` and answer requests, each connection on a thread of its
/// own within `limits`; `metrics` makes the text of one scrape. Returns
/// the address bound (port 0 picks one).
pub(super) fn start(
    addr: SocketAddr,
    limits: Limits,
    metrics: Arc<dyn Fn() -> String + Send + Sync>,
) -> Result<SocketAddr> {
    let listener =
        TcpListener::bind(addr).map_err(|e| Error::Usage(format!("--listen {addr}: cannot listen there: {e}")))?;
    let bound = listener.local_addr().unwrap_or(addr);
    let open = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("falseok-metrics".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let accepted = Instant::now();
                let Some(slot) = Slot::take(&open, limits.connections) else {
                    busy(stream);
                    continue;
                };
                let metrics = metrics.clone();
                // Without a thread to be had, the closure (the connection and
                // its slot) is dropped: closed, and the slot freed.
                let _ = std::thread::Builder::new().name("falseok-metrics-conn".into()).spawn(move || {
                    let _slot = slot;
                    let _ = answer(stream, accepted, limits, metrics.as_ref());
                });
            }
        })
        .map_err(|e| Error::Internal(format!("cannot start the metrics server: {e}")))?;
    Ok(bound)
}

/// One of the `Limits::connections` slots, given back when dropped (the
/// connection's thread ends, panics, or never starts).
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(open: &Arc<AtomicUsize>, most: usize) -> Option<Slot> {
        let taken = open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < most).then_some(n + 1)).is_ok();
        taken.then(|| Slot(open.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Every connection slot is taken: say so and close, without reading.
fn busy(mut stream: TcpStream) {
    // The answer fits in the socket's buffer; never wait for the client.
    let _ = stream.set_nonblocking(true);
    let body = "busy: too many connections\n";
    let _ = write!(
        stream,
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Retry-After: 1\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.shutdown(Shutdown::Both);
}

/// What is left until `deadline`, or a timed-out error when nothing is.
fn left(deadline: Instant) -> std::io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the connection's deadline passed"));
    }
    Ok(left)
}

fn answer(
    mut stream: TcpStream,
    accepted: Instant,
    limits: Limits,
    metrics: &dyn Fn() -> String,
) -> std::io::Result<()> {
    let request_by = accepted + limits.request;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let complete = loop {
        if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.windows(2).any(|w| w == b"\n\n") {
            break true;
        }
        if buf.len() > MAX_REQUEST {
            break false;
        }
        // Each read waits only for what is left of the whole request's time.
        stream.set_read_timeout(Some(left(request_by)?))?;
        match stream.read(&mut chunk) {
            // Nothing asked: nothing to answer.
            Ok(0) if buf.is_empty() => return Ok(()),
            Ok(0) => break true,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    let (status, kind, body) = if !complete {
        ("431 Request Header Fields Too Large", "text/plain; charset=utf-8", "request too large\n".to_string())
    } else {
        let head = String::from_utf8_lossy(&buf);
        let mut words = head.lines().next().unwrap_or("").split_whitespace();
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let path = target.split('?').next().unwrap_or("");
        match (method, path) {
            ("GET" | "HEAD", "/metrics") => ("200 OK", "text/plain; version=0.0.4; charset=utf-8", metrics()),
            ("GET" | "HEAD", _) => ("404 Not Found", "text/plain; charset=utf-8", "not found: try /metrics\n".into()),
            _ => ("405 Method Not Allowed", "text/plain; charset=utf-8", "only GET\n".into()),
        }
    };
    let head_only = buf.starts_with(b"HEAD ");
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if !head_only {
        response.extend_from_slice(body.as_bytes());
    }
    // Written in pieces, each waiting only for what is left of the
    // connection's time: a client that does not read is dropped then.
    let close_by = accepted + limits.connection;
    for piece in response.chunks(64 * 1024) {
        stream.set_write_timeout(Some(left(close_by)?))?;
        stream.write_all(piece)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_without_listen_any() {
        assert!(address("127.0.0.1:9464", false).is_ok());
        assert!(address("[::1]:9464", false).is_ok());
        assert!(address("0.0.0.0:9464", false).is_err());
        assert!(address("0.0.0.0:9464", true).is_ok());
        assert!(address("nonsense", false).is_err());
    }

    fn serve(limits: Limits) -> SocketAddr {
        start("127.0.0.1:0".parse().unwrap(), limits, Arc::new(|| "x_total 1\n".to_string())).unwrap()
    }

    /// One request on a fresh connection; what came back before it closed.
    fn get(addr: SocketAddr, req: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        // Far beyond every deadline here: a hang fails, it does not block the suite.
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(req).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn answers_metrics_and_refuses_the_rest() {
        let addr = serve(LIMITS);
        let ok = get(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n") && ok.contains("version=0.0.4") && ok.ends_with("x_total 1\n"));
        assert!(get(addr, b"GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(addr, b"POST /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        let mut big = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        // Exactly one byte over: the server reads it all, so the close is clean.
        big.resize(MAX_REQUEST + 1, b'a');
        assert!(get(addr, &big).starts_with("HTTP/1.1 431"));
    }

    /// A client that sends a byte of its request now and then, faster
    /// than any per-read timeout, holds one connection only: a scrape
    /// meanwhile is answered, and the slow one is closed at the request
    /// deadline, counted from its accept. (With one connection at a time
    /// and a timeout per read, neither happened: the scrape waited for as
    /// long as the client kept trickling.)
    #[test]
    fn a_trickling_client_blocks_no_scrape_and_is_closed_at_the_deadline() {
        let limits = Limits { request: Duration::from_secs(1), ..LIMITS };
        let addr = serve(limits);
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(b"GET /metrics HTTP/1.1\r\nX: ").unwrap();
        let closed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let trickle = {
            let (mut slow, closed) = (slow.try_clone().unwrap(), closed.clone());
            std::thread::spawn(move || {
                // Until the server closes it, or for 120 s at most: longer
                // than the scrape waits, so a server it holds fails the test.
                for _ in 0..600 {
                    if slow.write_all(b"a").is_err() {
                        closed.store(true, Ordering::SeqCst);
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
        };
        assert!(get(addr, b"GET /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 200"));
        // The server closes it (the client sees the end, then its writes fail).
        slow.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut rest = Vec::new();
        let _ = slow.read_to_end(&mut rest);
        trickle.join().unwrap();
        assert!(closed.load(Ordering::SeqCst), "the trickling client was never closed");
        assert!(rest.is_empty(), "an incomplete request gets no answer: {rest:?}");
    }

    /// Connections past the bound are told 503 at once and closed: idle
    /// clients cannot pile up threads. A slot freed is served again.
    #[test]
    fn connections_past_the_bound_are_refused_at_once() {
        let limits = Limits { connections: 3, request: Duration::from_secs(60), connection: Duration::from_secs(60) };
        let addr = serve(limits);
        let idle: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
        // The accept thread takes connections in order: the idle three hold
        // every slot. (The refused client sends nothing: a request the server
        // never reads could make its close a reset that loses the answer.)
        let mut refused = String::new();
        let mut fourth = TcpStream::connect(addr).unwrap();
        fourth.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        fourth.read_to_string(&mut refused).unwrap();
        assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
        drop(idle);
        // Their threads see the close and free the slots; a scrape is served again.
        let mut answered = String::new();
        for _ in 0..600 {
            answered = get(addr, b"GET /metrics HTTP/1.1\r\n\r\n");
            if answered.starts_with("HTTP/1.1 200") {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    }
}
