//! The one pseudo-random generator of every synthetic trace: splitmix64, small,
//! fast and the same on every platform, so a seed gives the same bytes
//! everywhere. Each generator salts its seed with its own constant, so one
//! seed does not make the same choices in two generators.

pub struct Rng(u64);

impl Rng {
    /// A generator whose state starts at `state` (a seed, already salted).
    pub fn new(state: u64) -> Self {
        Rng(state)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-and-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// `next_u64() % n` (`0` when `n` is 0): slightly biased for large `n`, but
    /// what the benchmark generators have always drawn, so their output for a
    /// seed stays the same.
    pub fn modulo(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<'a, T>(&mut self, s: &'a [T]) -> &'a T {
        &s[self.below(s.len())]
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }

    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| A[self.below(A.len())] as char).collect()
    }

    pub fn hex(&mut self, n: usize) -> String {
        const H: &[u8] = b"0123456789abcdef";
        (0..n).map(|_| H[self.below(16)] as char).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs of splitmix64 from state 0 (Vigna's reference code).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut r = Rng::new(42);
        for n in 1..200 {
            assert!(r.below(n) < n);
            assert!(r.modulo(n as u64) < n as u64);
            let x = r.range(-3, n as i64);
            assert!((-3..=n as i64).contains(&x));
            assert!((0.0..1.0).contains(&r.unit()));
        }
        assert_eq!(r.modulo(0), 0);
    }
}
