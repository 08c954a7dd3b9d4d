//! Positions in a text, for error messages that name a line and column.

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
