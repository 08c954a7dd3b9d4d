//! Quoting for the POSIX shell both clients run hook commands (and the agent runs our commands)
//! through.

/// Left alone when every byte is plainly safe, else single quotes with `'\''` for a quote.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        for (path, quoted) in [
            (
                "/usr/local/bin/handover-session-start",
                "/usr/local/bin/handover-session-start",
            ),
            ("/opt/my hooks/x", "'/opt/my hooks/x'"),
            ("/o'q/x", "'/o'\\''q/x'"),
            ("", "''"),
        ] {
            assert_eq!(shell_quote(path), quoted, "{path:?}");
        }
    }
}
