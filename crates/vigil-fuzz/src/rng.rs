//! A small deterministic random source (SplitMix64) and the edge-value pickers every
//! operation draws its arguments from.
//!
//! Determinism is the point: a seed names a whole run, so a failure replays exactly (up to
//! GPU timing, which only changes whether a mapping is ready at a given poll).

/// SplitMix64: fast, no dependencies, good enough spread for choosing calls.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed ^ 0x5EED_F00D_CAFE_D00D,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// An index into a collection of `len` items (0 when empty).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One item of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }

    /// A random subset of `bits`, as a mask.
    pub fn bits(&mut self, bits: u32) -> u32 {
        (self.next_u64() as u32) & bits
    }

    /// A byte offset or size biased to the edges of an object of `size` bytes with
    /// alignment `align`: 0, 1, 4, align ± 1, size − 1, size, size + 4, the extremes.
    pub fn edge_u64(&mut self, size: u64, align: u64) -> u64 {
        match self.below(16) {
            0 => 0,
            1 => 1,
            2 => 4,
            3 => align.saturating_sub(1),
            4 => align,
            5 => align.saturating_add(1),
            6 => size.saturating_sub(1),
            7 => size,
            8 => size.saturating_add(4),
            9 => u64::MAX,
            10 => u64::MAX - 3,
            11 => u64::from(u32::MAX),
            12 => size / 2 / align.max(1) * align.max(1),
            _ => self.below(size.saturating_add(1)) / 4 * 4,
        }
    }

    /// A count or index biased to the edges of a range of `n`: 0, 1, n − 1, n, n + 1, the
    /// extremes.
    pub fn edge_u32(&mut self, n: u32) -> u32 {
        match self.below(12) {
            0 => 0,
            1 => 1,
            2 => n.saturating_sub(1),
            3 => n,
            4 => n.saturating_add(1),
            5 => u32::MAX,
            6 => u32::MAX - 1,
            7 => 1 << 31,
            _ => self.below(u64::from(n) + 1) as u32,
        }
    }

    /// A float biased to the special values.
    pub fn edge_f32(&mut self, typical: f32) -> f32 {
        match self.below(12) {
            0 => 0.0,
            1 => -1.0,
            2 => f32::NAN,
            3 => f32::INFINITY,
            4 => f32::NEG_INFINITY,
            5 => f32::MAX,
            6 => -0.0,
            7 => 1e-30,
            _ => typical * (self.below(1000) as f32 / 500.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_sequence() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(8);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn pickers_stay_in_range() {
        let mut r = Rng::new(1);
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
            assert!(r.index(3) < 3);
            assert_eq!(r.bits(0b1010) & !0b1010, 0);
        }
        assert_eq!(r.below(0), 0);
    }
}
