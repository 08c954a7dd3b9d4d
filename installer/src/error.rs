//! Errors that name the file and the position, and say how to fix the problem.

use std::fmt;
use std::path::PathBuf;

/// A file we refused to edit. Nothing was written when this is returned.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    pub file: PathBuf,
    /// 1-based line and column of the problem, when the parser knows it.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl EditError {
    pub fn new(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        EditError {
            file: file.into(),
            position: None,
            message: message.into(),
        }
    }

    pub fn at(
        file: impl Into<PathBuf>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        EditError {
            file: file.into(),
            position: Some((line, column)),
            message: message.into(),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((l, c)) => write!(f, "{}:{}:{}: {}", self.file.display(), l, c, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for EditError {}
