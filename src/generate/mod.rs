//! Synthetic trace databases: the shipped samples and test fixtures.

pub mod large;
pub mod peri;
