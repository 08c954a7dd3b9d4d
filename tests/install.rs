//! Installing handover for the clients without the clients themselves: the `install` command's
//! parsing and reports, and the plugin's files. The installer's edits, file by file, are the
//! installer crate's own tests (installer/tests/); installs checked against the real clients are
//! in tests/clients/. One test binary; where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

/// The tests, one file each in tests/install/.
mod install {
    mod plugin_files;
}
