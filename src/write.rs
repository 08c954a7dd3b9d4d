//! `handover write`: content in, redacted, checked, stamped with git facts, stored.
//! OWNER: lead.
