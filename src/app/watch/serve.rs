//! `--listen ADDR:PORT`: a tiny HTTP/1.1 server on one thread. `GET
//! /metrics` answers the Prometheus text of everything watch has judged so
//! far; any other path is 404, any other method 405. One connection at a
//! time, each with a read timeout and a request size limit, so a slow or
//! hostile client costs at most a few seconds and a few KiB.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};

/// The largest request read (request line and headers).
const MAX_REQUEST: usize = 8 * 1024;
/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

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

/// Bind `addr` and answer requests on a thread of its own; `metrics` makes
/// the text of one scrape. Returns the address bound (port 0 picks one).
pub(super) fn start(addr: SocketAddr, metrics: Arc<dyn Fn() -> String + Send + Sync>) -> Result<SocketAddr> {
    let listener =
        TcpListener::bind(addr).map_err(|e| Error::Usage(format!("--listen {addr}: cannot listen there: {e}")))?;
    let bound = listener.local_addr().unwrap_or(addr);
    std::thread::Builder::new()
        .name("falseok-metrics".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = answer(stream, metrics.as_ref());
            }
        })
        .map_err(|e| Error::Internal(format!("cannot start the metrics server: {e}")))?;
    Ok(bound)
}

fn answer(mut stream: TcpStream, metrics: &dyn Fn() -> String) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let complete = loop {
        if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.windows(2).any(|w| w == b"\n\n") {
            break true;
        }
        if buf.len() > MAX_REQUEST {
            break false;
        }
        match stream.read(&mut chunk) {
            Ok(0) => break !buf.is_empty(),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(()),
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
    stream.write_all(&response)?;
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

    #[test]
    fn answers_metrics_and_refuses_the_rest() {
        let addr = start("127.0.0.1:0".parse().unwrap(), Arc::new(|| "x_total 1\n".to_string())).unwrap();
        let get = |req: &[u8]| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(req).unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        let ok = get(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n") && ok.contains("version=0.0.4") && ok.ends_with("x_total 1\n"));
        assert!(get(b"GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(b"POST /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        let mut big = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        // Exactly one byte over: the server reads it all, so the close is clean.
        big.resize(MAX_REQUEST + 1, b'a');
        assert!(get(&big).starts_with("HTTP/1.1 431"));
    }
}
