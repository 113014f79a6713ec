//! Straight-line code run between the driver's calls, for measuring what code the CPU
//! must fetch again costs on a host (an experiment, off unless asked for).
//!
//! A hypothesis since session 43: vigil's gap to raw ash on some rows is not its
//! instructions but its code, which shares the first-level instruction cache with the
//! driver's; on lavapipe, callgrind's cache model puts churn's code run once per buffer +
//! group at ~42 KB through vigil against ~24 KB through raw ash. Hosts without hardware
//! counters cannot count instruction-cache misses, so this measures their cost instead:
//! with `VIGIL_BENCH_CODE_KIB=N` (a multiple of [`BLOCK_KIB`], at most
//! [`BLOCKS`] × [`BLOCK_KIB`]) each unit of churn, on every path, also runs N KiB of
//! straight-line arithmetic no other code shares. Run alone, back to back, the same code
//! stays in the caches (raw ash's path prints that time, [`hot_ns`], before it runs); run
//! between a unit's driver calls, it is fetched again each time if the caches cannot hold
//! both. The difference, per unit, is what fetching N KiB of code again costs there. On
//! the development VM it was close to nothing (`docs/performance.md`, "Churn's code per
//! unit").

use std::hint::black_box;

/// Size of one block of code, KiB, about: 128 steps of 30 bytes on x86-64, each two 64-bit
/// constants loaded, an exclusive or, a rotate and an add (3,839 bytes a block in the
/// release build, by `nm -S`).
pub const BLOCK_KIB: u64 = 4;
/// Blocks there are.
pub const BLOCKS: usize = 8;

/// One step: a rotate, an exclusive or and an add, with constants of their own, on one of
/// four values in turn, so four chains run side by side and the core asks its fetch for
/// code about as fast as it can decode it (one chain alone would wait on each result and
/// leave the fetch time to catch up, hiding what a fetch from farther away costs).
macro_rules! step {
    ($x:ident, $k:expr) => {
        $x[($k) % 4] = ($x[($k) % 4] ^ (($k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1))
            .rotate_left((($k % 61) + 1) as u32)
            .wrapping_add(($k as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    };
}
macro_rules! x2 {
    ($m:ident, $x:ident, $k:expr) => {
        $m!($x, ($k) * 2);
        $m!($x, ($k) * 2 + 1);
    };
}
macro_rules! s2 {
    ($x:ident, $k:expr) => {
        x2!(step, $x, $k)
    };
}
macro_rules! s4 {
    ($x:ident, $k:expr) => {
        x2!(s2, $x, $k)
    };
}
macro_rules! s8 {
    ($x:ident, $k:expr) => {
        x2!(s4, $x, $k)
    };
}
macro_rules! s16 {
    ($x:ident, $k:expr) => {
        x2!(s8, $x, $k)
    };
}
macro_rules! s32 {
    ($x:ident, $k:expr) => {
        x2!(s16, $x, $k)
    };
}
macro_rules! s64 {
    ($x:ident, $k:expr) => {
        x2!(s32, $x, $k)
    };
}
macro_rules! s128 {
    ($x:ident, $k:expr) => {
        x2!(s64, $x, $k)
    };
}

macro_rules! blocks {
    ($($name:ident = $base:expr;)*) => {
        $(
            #[inline(never)]
            fn $name(seed: u64) -> u64 {
                let mut x = [seed, seed ^ 1, seed ^ 2, seed ^ 3];
                s128!(x, $base);
                x[0] ^ x[1] ^ x[2] ^ x[3]
            }
        )*
        const TABLE: [fn(u64) -> u64; BLOCKS] = [$($name),*];
    };
}

blocks! {
    b0 = 1000;
    b1 = 2000;
    b2 = 3000;
    b3 = 4000;
    b4 = 5000;
    b5 = 6000;
    b6 = 7000;
    b7 = 8000;
}

/// Blocks each unit runs, from `VIGIL_BENCH_CODE_KIB` (0 when unset or not a multiple of
/// [`BLOCK_KIB`] up to the blocks there are).
pub fn blocks_chosen() -> usize {
    crate::number_setting("VIGIL_BENCH_CODE_KIB")
        .filter(|k| k % BLOCK_KIB == 0 && k / BLOCK_KIB <= BLOCKS as u64)
        .map_or(0, |k| (k / BLOCK_KIB) as usize)
}

/// Runs the first `blocks` blocks once each.
#[inline]
pub fn run(blocks: usize) {
    if blocks == 0 {
        return;
    }
    let mut x = black_box(blocks as u64);
    for f in TABLE.iter().take(blocks) {
        x = f(x);
    }
    black_box(x);
}

/// Nanoseconds one [`run`] of `blocks` takes with its code in the caches: the median of
/// 31 batches of 2,000 runs back to back.
pub fn hot_ns(blocks: usize) -> f64 {
    let mut batches: Vec<f64> = (0..31)
        .map(|_| {
            let t = std::time::Instant::now();
            for _ in 0..2_000 {
                run(blocks);
            }
            t.elapsed().as_nanos() as f64 / 2_000.0
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    batches[batches.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_computes_its_own_value() {
        let values: Vec<u64> = TABLE.iter().map(|f| f(7)).collect();
        for (i, a) in values.iter().enumerate() {
            for b in &values[i + 1..] {
                assert_ne!(a, b, "two blocks folded to the same code");
            }
        }
    }
}
