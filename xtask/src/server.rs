//! A small static file server for `dist/`: what any static host does, on 127.0.0.1 only.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;

/// `dist/` is served at `/` and again under this prefix (the sub-path hosting test).
pub const SUB_PATH: &str = "/static-host/sub/path";

/// Binds 127.0.0.1:`port` (0 = any free port) and serves `root` on a background thread.
/// Returns the bound port.
pub fn spawn(root: PathBuf, port: u16) -> Result<u16, String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            thread::spawn(move || {
                let _ = handle(stream, &root);
            });
        }
    });
    Ok(port)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

fn handle(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let raw_path = target.split(['?', '#']).next().unwrap_or("/");
    // The same site is also served under a sub-path, as static hosts often place it.
    let raw_path = raw_path
        .strip_prefix(SUB_PATH)
        .map_or(raw_path, |rest| rest);
    let mut file = root.to_path_buf();
    for c in Path::new(raw_path.trim_start_matches('/')).components() {
        match c {
            Component::Normal(n) => file.push(n),
            Component::CurDir => {}
            _ => {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    "text/plain",
                    b"bad path",
                    method,
                )
            }
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    match std::fs::read(&file) {
        Ok(body) => respond(&mut stream, "200 OK", content_type(&file), &body, method),
        Err(_) => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found",
            method,
        ),
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    method: &str,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        stream.write_all(body)?;
    }
    stream.flush()
}
