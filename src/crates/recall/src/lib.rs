//! Recall: the repository's history read back for people (`handover log`, `show`, `search`)
//! and for agents (the MCP server). Everything it reads — archived and fetched handoffs,
//! session records, the journal — is untrusted input: reads are bounded, and text is sanitized
//! and labelled by where it came from before anything shows it.

pub mod search;
