//! Synthetic trace databases: the shipped samples and test fixtures.

pub mod claude;
pub mod large;
pub mod peri;
