//! The configuration error every component's parameters may raise (a leaf
//! module, so that parameter structs live beside their components).

/// A configuration that cannot be simulated, with what to change.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(pub String);
