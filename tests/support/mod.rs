//! Shared harness of the end-to-end tests: the fake model server and the client runners.
#![allow(dead_code)]

pub mod fake_server;
