//! cohost-fakellm (placeholder, being built).
