//! Plain text helpers: positions for error messages that name a line and column, and
//! shortening a text to a width at a word boundary.

/// 1-based line and column (in characters) of a byte offset. An offset past the end or inside a
/// multi-byte character is moved back to the nearest character boundary, so a parser's offset
/// never panics here.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// At most `max` characters, cut at a word boundary with an ellipsis; mid-word only when the
/// boundary would waste a third of the room or more (a long path or URL: `Goal:…` with most of
/// the budget unused helps no one).
pub fn shorten(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    if max <= 1 {
        return "…".chars().take(max).collect();
    }
    let cut: String = text.chars().take(max - 1).collect();
    let at_boundary = text.chars().nth(max - 1).is_some_and(char::is_whitespace);
    let kept = if at_boundary {
        cut.trim_end()
    } else {
        match cut.rfind(char::is_whitespace) {
            Some(i) if i > 0 && cut[..i].chars().count() * 3 >= (max - 1) * 2 => {
                cut[..i].trim_end()
            }
            _ => cut.as_str(),
        }
    };
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters_and_survive_bad_offsets() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 8), (3, 1));
        // Offset 6 falls inside "é" (bytes 5..7): moved back to its start.
        assert_eq!(line_column(text, 6), (2, 3));
        assert_eq!(line_column(text, 999), (3, 2));
    }
}
