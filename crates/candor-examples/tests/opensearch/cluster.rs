//! A stand-in for a search cluster: an HTTP/1.1 server on a loopback
//! port, in the test's own process, that answers each request the
//! example sends through the official client, and keeps every request
//! with its answer, so that a test can check what was sent, page after
//! page. Plain `std` (a listener, a thread per connection): the client
//! needs no more than one request at a time, with keep-alive.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;

/// A request as it came over the wire.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    /// The request target as sent: the path, percent-encoded, and the
    /// query string if any.
    pub target: String,
    /// The headers, names in lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    /// The value of header `name` (lower case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The path, percent-decoded, without the query string.
    pub fn path(&self) -> String {
        let path = self.target.split('?').next().unwrap_or("");
        percent_decode(path)
    }

    /// The query string, if the target has one.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }

    /// The body as JSON, or why it is not.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| {
            format!(
                "the body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// What the stand-in does with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// An HTTP response: its status, content type and body.
    Http {
        status: u16,
        content_type: &'static str,
        body: String,
    },
    /// Closes the connection without answering.
    Close,
    /// Sends the status line, the headers (with the whole body's length)
    /// and the first half of the body, then closes the connection.
    Cut { status: u16, body: String },
}

impl Answer {
    /// A JSON response: status 200 for a search response, or the HTTP
    /// status an error response states in its `status` field, as the
    /// engines send it.
    pub fn json(text: &str) -> Answer {
        let value: Value = serde_json::from_str(text).expect("a recorded response is JSON");
        let status = match (
            value.get("error"),
            value.get("status").and_then(Value::as_u64),
        ) {
            (Some(_), Some(status)) => u16::try_from(status).expect("an HTTP status"),
            _ => 200,
        };
        Answer::Http {
            status,
            content_type: "application/json; charset=UTF-8",
            body: text.to_owned(),
        }
    }

    /// The body this answer sends whole, if it sends one.
    pub fn body(&self) -> Option<&str> {
        match self {
            Answer::Http { body, .. } => Some(body),
            Answer::Close | Answer::Cut { .. } => None,
        }
    }
}

/// One request and what the stand-in answered.
pub type Exchange = (Received, Answer);

/// How a stand-in answers: called with each request, in the order they
/// come, and with the exchanges before it.
type Respond = dyn FnMut(&Received, &[Exchange]) -> Answer + Send;

/// A running stand-in; [`finish`](Self::finish) stops it.
pub struct Cluster {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    acceptor: Option<JoinHandle<()>>,
}

impl Cluster {
    /// Starts a stand-in on a free loopback port; `respond` answers each
    /// request.
    pub fn start(
        respond: impl FnMut(&Received, &[Exchange]) -> Answer + Send + 'static,
    ) -> Cluster {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        let stop = Arc::new(AtomicBool::new(false));
        let exchanges = Arc::new(Mutex::new(Vec::new()));
        let respond: Arc<Mutex<Box<Respond>>> = Arc::new(Mutex::new(Box::new(respond)));
        let acceptor = {
            let stop = Arc::clone(&stop);
            let exchanges = Arc::clone(&exchanges);
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let exchanges = Arc::clone(&exchanges);
                    let respond = Arc::clone(&respond);
                    // Detached: it ends when the client closes the
                    // connection (the example exits), or after a minute
                    // without a byte.
                    thread::spawn(move || {
                        let _ = serve(stream, &respond, &exchanges);
                    });
                }
            })
        };
        Cluster {
            address,
            stop,
            exchanges,
            acceptor: Some(acceptor),
        }
    }

    /// Starts a stand-in that gives `answers` in order; a request past
    /// them is answered with an error response saying so (and the test
    /// sees one exchange more than it scripted).
    pub fn scripted(answers: Vec<Answer>) -> Cluster {
        Cluster::start(move |_, before| {
            answers.get(before.len()).cloned().unwrap_or_else(|| {
                Answer::json(
                    r#"{"error":{"type":"test_script_exhausted","reason":"no answer scripted for this request"},"status":500}"#,
                )
            })
        })
    }

    /// The address to give the example's `--url`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Stops the stand-in, and returns every request it received with
    /// its answer, in order. Call it once the example has exited: every
    /// request it sent was recorded before its answer was written.
    pub fn finish(mut self) -> Vec<Exchange> {
        self.stop_accepting();
        std::mem::take(&mut *self.exchanges.lock().expect("no thread panicked"))
    }

    fn stop_accepting(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            // Wakes the acceptor, which sees the flag and returns.
            let _ = TcpStream::connect(self.address);
            let _ = acceptor.join();
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop_accepting();
    }
}

/// Serves the requests of one connection until the client closes it or
/// an answer closes it.
fn serve(
    stream: TcpStream,
    respond: &Mutex<Box<Respond>>,
    exchanges: &Mutex<Vec<Exchange>>,
) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader)? {
        let answer = {
            let mut exchanges = exchanges.lock().expect("no thread panicked");
            let answer = (respond.lock().expect("no thread panicked"))(&request, &exchanges);
            exchanges.push((request.clone(), answer.clone()));
            answer
        };
        match answer {
            Answer::Http {
                status,
                content_type,
                body,
            } => {
                write_head(&mut writer, status, content_type, body.len())?;
                writer.write_all(body.as_bytes())?;
                writer.flush()?;
                if request
                    .header("connection")
                    .is_some_and(|v| v.eq_ignore_ascii_case("close"))
                {
                    return Ok(());
                }
            }
            Answer::Close => return Ok(()),
            Answer::Cut { status, body } => {
                write_head(&mut writer, status, "application/json", body.len())?;
                writer.write_all(&body.as_bytes()[..body.len() / 2])?;
                writer.flush()?;
                return Ok(());
            }
        }
    }
    Ok(())
}

fn write_head(
    out: &mut impl Write,
    status: u16,
    content_type: &str,
    length: usize,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {length}\r\n\r\n"
    )
}

/// Reads one request; `None` when the client closed the connection
/// before sending one.
fn read_request(reader: &mut impl BufRead) -> io::Result<Option<Received>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
    let mut parts = line.split_whitespace();
    let method = parts.next().ok_or_else(|| bad("no method"))?.to_owned();
    let target = parts.next().ok_or_else(|| bad("no target"))?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(bad("the headers end early"));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| bad("a header without ':'"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Received {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    if request
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = size.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16).map_err(|_| bad("a chunk size"))?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            request.body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length.parse().map_err(|_| bad("a content length"))?;
        request.body = vec![0; length];
        reader.read_exact(&mut request.body)?;
    }
    Ok(Some(request))
}

/// `%XX` escapes decoded (the client escapes an index name's other
/// characters in the path).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
