//! `StdioGuard`: a stdio server's input read line by line in front of
//! rmcp, so that every request line gets an answer.

mod line;
mod precheck;

#[cfg(test)]
mod tests;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use line::{ReadOutcome, read_line};
use precheck::{parse_error, precheck, too_long};

/// The longest line rmcp reads (`DEFAULT_MAX_LINE_LENGTH` of its
/// `transport-async-rw`, 16 MiB, counts the `\n`); it drops a longer one
/// without a reply.
const SDK_MAX_LINE: usize = (16 << 20) - 1;

/// A guard between a stdio server's standard streams and rmcp: every
/// request line gets a JSON-RPC answer, and the server keeps serving.
///
/// rmcp's own stdio transport drops a line that is not JSON, or longer
/// than its cap, without a reply (a client waiting for it hangs), and
/// reads a `tools/call` whose `arguments` is not an object as an unknown
/// method. The guard reads each line first, holding at most
/// [`max_line_bytes`](Self::max_line_bytes) of it, and answers:
///
/// - a line longer than that: an invalid-request error (-32600) with the
///   request's `id`, read as the line streams past (`null` when it cannot
///   be read);
/// - a line that is not UTF-8 or not JSON: a parse error (-32700), `id`
///   `null`;
/// - a `tools/call` whose `params` or `arguments` is not an object: an
///   invalid-params error (-32602) with the request's `id`.
///
/// Other lines go on to the server, whose output goes out one line at a
/// time among the guard's answers.
///
/// # Example
///
/// ```no_run
/// # async fn serve(server: impl rmcp::ServerHandler) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
/// let (transport, output) = candor_mcp::StdioGuard::new().stdio();
/// let service = server.serve(transport).await?;
/// service.waiting().await?;
/// output.finish().await; // what the server wrote last is out
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdioGuard {
    max_line_bytes: usize,
}

impl Default for StdioGuard {
    fn default() -> Self {
        StdioGuard::new()
    }
}

impl StdioGuard {
    /// A guard that reads lines of up to 1 MiB.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::StdioGuard::new().get_max_line_bytes(), 1 << 20);
    /// ```
    #[must_use]
    pub fn new() -> StdioGuard {
        StdioGuard {
            max_line_bytes: 1 << 20,
        }
    }

    /// The longest request line read, not counting its line ending; a
    /// longer one is answered with an error without being held. Default:
    /// 1 MiB (a request is a few hundred bytes; a cursor, a few dozen).
    /// At most just under 16 MiB, rmcp's own cap, past which rmcp would
    /// drop the line unanswered: a larger value is lowered to it.
    ///
    /// # Example
    ///
    /// ```
    /// let guard = candor_mcp::StdioGuard::new().max_line_bytes(64 * 1024);
    /// assert_eq!(guard.get_max_line_bytes(), 64 * 1024);
    /// let most = candor_mcp::StdioGuard::new().max_line_bytes(usize::MAX);
    /// assert_eq!(most.get_max_line_bytes(), (16 << 20) - 1);
    /// ```
    #[must_use]
    pub fn max_line_bytes(mut self, max_line_bytes: usize) -> StdioGuard {
        self.max_line_bytes = max_line_bytes.min(SDK_MAX_LINE);
        self
    }

    /// The longest request line read; see
    /// [`max_line_bytes`](Self::max_line_bytes).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_mcp::StdioGuard::new().max_line_bytes(10).get_max_line_bytes(), 10);
    /// ```
    #[must_use]
    pub fn get_max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Starts the guard on standard input and output: see
    /// [`start`](Self::start).
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime, as `tokio::spawn` does.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # #[tokio::main] async fn main() {
    /// let (transport, output) = candor_mcp::StdioGuard::new().stdio();
    /// # drop((transport, output)); }
    /// ```
    #[must_use = "the transport is what the server serves on"]
    pub fn stdio(self) -> (DuplexStream, GuardOutput) {
        self.start(tokio::io::stdin(), tokio::io::stdout())
    }

    /// Starts the guard between `input` and `output` (the client's side)
    /// and the stream it returns (the server's side: serve on it, as
    /// rmcp's `serve` takes any `AsyncRead + AsyncWrite`). The guard runs
    /// in two tokio tasks until the input ends and the server's side is
    /// dropped; the [`GuardOutput`] waits for the second.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime, as `tokio::spawn` does.
    ///
    /// # Example
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # tokio::runtime::Runtime::new()?.block_on(async {
    /// let (mut client, client_side) = tokio::io::duplex(1 << 16);
    /// let (input, output) = tokio::io::split(client_side);
    /// let (server_side, guard) = candor_mcp::StdioGuard::new().max_line_bytes(100).start(input, output);
    /// let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\"}}}}\n", "x".repeat(200));
    /// client.write_all(line.as_bytes()).await?;
    /// let mut replies = BufReader::new(&mut client).lines();
    /// let reply: serde_json::Value = serde_json::from_str(&replies.next_line().await?.unwrap())?;
    /// assert_eq!(reply["id"], 7);
    /// assert_eq!(reply["error"]["code"], -32600);
    /// drop(server_side);
    /// guard.finish().await;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use = "the transport is what the server serves on"]
    pub fn start<R, W>(self, input: R, output: W) -> (DuplexStream, GuardOutput)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (from_server, to_server) = tokio::io::split(ours);
        // Bounded: a client that floods bad lines waits for its answers.
        let (replies, pending) = mpsc::channel::<Value>(64);
        tokio::spawn(read_requests(
            input,
            to_server,
            replies,
            self.max_line_bytes,
        ));
        let writer = tokio::spawn(write_output(from_server, pending, output));
        (theirs, GuardOutput(writer))
    }
}

/// The task that writes the server's output and the guard's answers; see
/// [`StdioGuard::start`].
#[derive(Debug)]
pub struct GuardOutput(JoinHandle<()>);

impl GuardOutput {
    /// Waits until everything the server wrote is out: call it once the
    /// service has ended (rmcp's `waiting()`), before the process exits.
    ///
    /// # Example
    ///
    /// ```
    /// # tokio::runtime::Runtime::new()?.block_on(async {
    /// let (server_side, output) = candor_mcp::StdioGuard::new().start(tokio::io::empty(), tokio::io::sink());
    /// drop(server_side); // the service ended
    /// output.finish().await;
    /// # });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn finish(self) {
        // A panic in the task is the only error, and it has nothing left
        // to write.
        let _ = self.0.await;
    }
}

/// Reads the client's lines: answers those the guard answers, forwards
/// the others to the server, and ends the server's input at the end of
/// its own.
async fn read_requests<R: AsyncRead + Unpin>(
    input: R,
    mut to_server: tokio::io::WriteHalf<DuplexStream>,
    replies: mpsc::Sender<Value>,
    max: usize,
) {
    let mut input = BufReader::new(input);
    let mut raw = Vec::new();
    loop {
        let reply = match read_line(&mut input, &mut raw, max).await {
            ReadOutcome::End => break,
            ReadOutcome::TooLong { id } => Some(too_long(id, max)),
            ReadOutcome::Read => match std::str::from_utf8(&raw) {
                // A line that is not UTF-8 is a parse error like any
                // other that is not JSON: answered, and the session goes
                // on.
                Err(e) => Some(parse_error(&raw, &format!("the line is not UTF-8 ({e})"))),
                Ok(line) => {
                    let line = line.trim_end_matches(['\n', '\r']);
                    if line.trim().is_empty() {
                        continue;
                    }
                    match precheck(line) {
                        Some(reply) => Some(reply),
                        None => {
                            let sent = async {
                                to_server.write_all(line.as_bytes()).await?;
                                to_server.write_all(b"\n").await
                            };
                            if sent.await.is_err() {
                                break;
                            }
                            None
                        }
                    }
                }
            },
        };
        if let Some(reply) = reply {
            if replies.send(reply).await.is_err() {
                break;
            }
        }
    }
    // End of input: the server reads the end of its input too, and the
    // session ends. (Dropping `to_server` alone would not: the stream's
    // other half lives on in the writer.)
    let _ = to_server.shutdown().await;
}

/// Writes the server's lines and the guard's answers to `output`, a whole
/// line at a time, until the server's side is dropped.
async fn write_output<W: AsyncWrite + Unpin>(
    from_server: tokio::io::ReadHalf<DuplexStream>,
    mut pending: mpsc::Receiver<Value>,
    output: W,
) {
    // A large result is one long line: it goes out through a buffer as it
    // is, never copied into another string to add its newline.
    let mut output = tokio::io::BufWriter::with_capacity(64 * 1024, output);
    let mut server_lines = BufReader::new(from_server).lines();
    let mut bytes = Vec::new();
    loop {
        tokio::select! {
            line = server_lines.next_line() => match line {
                Ok(Some(line)) => bytes = line.into_bytes(),
                _ => break,
            },
            Some(reply) = pending.recv() => {
                bytes.clear();
                if serde_json::to_writer(&mut bytes, &reply).is_err() {
                    continue;
                }
            }
        }
        let written = async {
            output.write_all(&bytes).await?;
            output.write_all(b"\n").await?;
            output.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
}
