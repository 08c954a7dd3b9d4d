//! Every text handover puts in front of an agent, in one place: the startup context, the
//! save-progress instructions, the compaction instructions. Golden-tested.
//! OWNER: lead.
