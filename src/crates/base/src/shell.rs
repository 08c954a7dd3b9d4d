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
        assert_eq!(
            shell_quote("/usr/local/bin/handover-session-start"),
            "/usr/local/bin/handover-session-start"
        );
        assert_eq!(shell_quote("/opt/my hooks/x"), "'/opt/my hooks/x'");
        assert_eq!(shell_quote("/o'q/x"), "'/o'\\''q/x'");
        assert_eq!(shell_quote(""), "''");
    }
}
