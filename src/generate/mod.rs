//! Synthetic trace databases: the shipped samples and test fixtures.

pub mod peri;
