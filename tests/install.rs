//! Installing handover for the clients without the clients themselves: the status, install and
//! uninstall screens whole, and the plugin's files. The installer's edits, file by file, are the
//! installer crate's own tests (installer/tests/), the `install` command's parsing is unit-tested
//! beside it (src/cli/install/tests.rs); installs checked against the real clients are in
//! tests/clients/. One test binary; where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

/// The tests, one file each in tests/install/.
mod install {
    mod plugin_files;
    mod screens;
}
