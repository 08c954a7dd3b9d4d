//! Writing a run's edits: every target checked before the first write (`preflight`), backups
//! outside the repository (`backup`), all files replaced or none (`transaction`), and what an
//! install added that its entries do not show (`manifest`).

pub mod backup;
pub mod manifest;
pub mod preflight;
pub mod transaction;
