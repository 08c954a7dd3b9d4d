//! Standard input and output as rmcp's transport (one JSON-RPC message per line), with one
//! thing added: a line that is not JSON at all gets JSON-RPC's parse error (-32700, id null)
//! instead of silence. rmcp drops such a line unanswered (so does every official SDK), and a
//! client that sent it would wait for a reply until its own timeout; a line that is JSON but
//! not a message is rmcp's to answer (Invalid Request). Nothing here ends the server: only the
//! end of standard input does.

use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest message read, rmcp's own bound on a line: a longer one is dropped (and answered
/// with an error) without being held in memory.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// rmcp's ends of the two pipes, and the task that writes its output to standard output
/// (done once rmcp has closed its end and everything reached standard output).
pub fn transport() -> ((DuplexStream, DuplexStream), JoinHandle<()>) {
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(64 * 1024);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(64 * 1024);
    let (said, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
    // The reader's errors go out only while the server's output does: a weak sender, so the
    // writer ends with rmcp.
    tokio::spawn(read_input(tokio::io::stdin(), to_rmcp, said.downgrade()));
    tokio::spawn(forward_output(from_rmcp, said));
    let written = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = outbox.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    ((rmcp_reads, rmcp_writes), written)
}

/// Each line rmcp writes, whole, to the writer.
async fn forward_output(from_rmcp: DuplexStream, said: mpsc::UnboundedSender<Vec<u8>>) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if said.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// Standard input, line by line: JSON goes on to rmcp, anything else is answered here.
async fn read_input(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: DuplexStream,
    said: mpsc::WeakUnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    loop {
        let line = match next_line(&mut input).await {
            Line::End => return,
            Line::Oversized => {
                answer(&said, &format!("the message is longer than {} MiB: each message is one JSON-RPC object on one line", MAX_LINE / (1024 * 1024)));
                continue;
            }
            Line::Text(line) => line,
        };
        match check(&line) {
            Ok(()) => {
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
            Err(problem) => answer(&said, &problem),
        }
    }
}

enum Line {
    Text(Vec<u8>),
    Oversized,
    End,
}

/// The next line (with its newline), read without holding more than [`MAX_LINE`] bytes.
async fn next_line(input: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> Line {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let available = match input.fill_buf().await {
            Ok(available) => available,
            Err(_) => return Line::End,
        };
        if available.is_empty() {
            // The end of input: a last line without a newline is still a message.
            return match (oversized, line.is_empty()) {
                (true, _) => Line::Oversized,
                (false, true) => Line::End,
                (false, false) => {
                    line.push(b'\n');
                    Line::Text(line)
                }
            };
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !oversized && line.len() + take <= MAX_LINE {
            line.extend_from_slice(&available[..take]);
        } else {
            oversized = true;
            line = Vec::new();
        }
        input.consume(take);
        if newline.is_some() {
            return if oversized {
                Line::Oversized
            } else {
                Line::Text(line)
            };
        }
    }
}

/// Ok when the line is JSON (or blank, which rmcp skips); else what is wrong with it.
fn check(line: &[u8]) -> Result<(), String> {
    // A byte order mark is not part of the text (rmcp drops it too).
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
        Ok(_) => Ok(()),
        Err(e) if e.is_syntax() || e.is_eof() => Err(format!(
            "not JSON ({e}): each message is one JSON-RPC object on one line"
        )),
        // Not reached for IgnoredAny; rmcp answers anything else that is JSON.
        Err(_) => Ok(()),
    }
}

/// JSON-RPC's parse error, id null (the request's id could not be read).
fn answer(said: &mpsc::WeakUnboundedSender<Vec<u8>>, problem: &str) {
    let response = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {problem}")},
    });
    if let Some(said) = said.upgrade() {
        let _ = said.send(format!("{response}\n").into_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_that_is_not_json_is_answered_here() {
        assert!(check(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").is_ok());
        // JSON that is not a message is rmcp's to answer.
        assert!(check(b"[1, 2]\n").is_ok());
        assert!(check(b"\xEF\xBB\xBF{}\n").is_ok());
        assert!(check(b"  \r\n").is_ok());
        let e = check(b"{\"jsonrpc\": \"2.0\", \"id\": 1,\n").unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        assert!(check(b"\xff\xfe\n").is_err());
    }
}
