//! The hook's stdin (handover_clients::HookInput: one JSON object, every field optional), read
//! with a size cap and a time limit so that a huge or never-closed stdin can neither exhaust memory nor hang the hook.

use std::io::Read;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The most of stdin that is kept and parsed. Real payloads are a few KiB; a longer one (a
/// pasted 100 MB prompt) is read past and ignored, never buffered whole.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

pub use handover_clients::HookInput;

/// What came in on stdin.
#[derive(Debug, Default)]
pub struct Payload {
    pub bytes: Vec<u8>,
    /// More than `MAX_INPUT_BYTES` arrived: `bytes` is a prefix, not a whole document.
    pub truncated: bool,
}

enum Msg {
    Payload(Payload),
    Drained,
}

/// Reads stdin on a helper thread: the first `cap` bytes are handed over, the rest is read and
/// thrown away so the client's write does not fail with a broken pipe.
pub struct StdinReader {
    rx: Receiver<Msg>,
}

impl StdinReader {
    pub fn spawn<R: Read + Send + 'static>(mut reader: R, cap: usize) -> StdinReader {
        let (tx, rx) = mpsc::channel();
        // If no thread can be started, the payload is empty: the hook then says nothing.
        let _ = std::thread::Builder::new().spawn(move || {
            let mut bytes = Vec::new();
            let mut chunk = vec![0u8; 64 * 1024];
            let mut truncated = false;
            loop {
                match reader.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(bytes.len());
                        bytes.extend_from_slice(&chunk[..n.min(room)]);
                        if n > room {
                            truncated = true;
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            let _ = tx.send(Msg::Payload(Payload { bytes, truncated }));
            if truncated {
                loop {
                    match reader.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            }
            let _ = tx.send(Msg::Drained);
        });
        StdinReader { rx }
    }

    /// The payload, or an empty one if stdin is not closed within `wait` (a terminal, a client
    /// that never closes the pipe).
    pub fn payload(&self, wait: Duration) -> Payload {
        match self.rx.recv_timeout(wait) {
            Ok(Msg::Payload(p)) => p,
            _ => Payload::default(),
        }
    }

    /// Waits, at most until `deadline`, for the rest of stdin to be read past.
    pub fn finish(&self, deadline: Instant) {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Msg::Drained) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Msg::Payload(_)) => continue,
                Err(RecvTimeoutError::Timeout) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn a_long_stdin_is_capped_and_drained() {
        let data = vec![b'x'; 1000];
        let reader = StdinReader::spawn(Cursor::new(data), 100);
        let p = reader.payload(Duration::from_secs(5));
        assert_eq!(p.bytes.len(), 100);
        assert!(p.truncated);
        reader.finish(Instant::now() + Duration::from_secs(5));
    }

    #[test]
    fn a_short_stdin_is_read_whole() {
        let reader = StdinReader::spawn(Cursor::new(b"{}".to_vec()), 100);
        let p = reader.payload(Duration::from_secs(5));
        assert_eq!(p.bytes, b"{}");
        assert!(!p.truncated);
    }

    #[test]
    fn a_stdin_that_never_closes_gives_an_empty_payload_in_time() {
        struct Never;
        impl Read for Never {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
        }
        let start = Instant::now();
        let reader = StdinReader::spawn(Never, 100);
        let p = reader.payload(Duration::from_millis(100));
        assert!(p.bytes.is_empty());
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
