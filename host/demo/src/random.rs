//! MT19937 seeded and consumed exactly as CPython's `random.Random` does it.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The Mersenne Twister (MT19937) as CPython's `random.Random(seed)` seeds and uses it, so the
/// same seed gives the same numbers as the Python tool.
///
/// ```
/// let mut rng = ldp_demo::Random::new(42);
/// // Python: random.Random(42).getrandbits(32) == 2746317213
/// assert_eq!(rng.u32(), 2_746_317_213);
/// ```
#[derive(Clone)]
pub struct Random {
    state: Box<[u32; N]>,
    index: usize,
}

impl std::fmt::Debug for Random {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Random")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl Random {
    /// Seeds like CPython's `random.Random(seed)` for a non-negative integer seed:
    /// `init_by_array` of the 32-bit words of the seed, least significant first (`[0]` for 0).
    pub fn new(seed: u64) -> Self {
        // Truncations intended: the seed is split into its 32-bit words.
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        if high == 0 {
            Self::from_key(&[low])
        } else {
            Self::from_key(&[low, high])
        }
    }

    /// `init_genrand(19650218)` followed by `init_by_array(key)`; `key` is never empty.
    fn from_key(key: &[u32]) -> Self {
        let mut mt = Box::new([0u32; N]);
        mt[0] = 19_650_218;
        for j in 1..N {
            let prev = mt[j - 1];
            mt[j] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1];
            mt[i] =
                (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        Random {
            state: mt,
            index: N,
        }
    }

    fn twist(&mut self) {
        let mt = &mut self.state;
        for k in 0..N {
            let y = (mt[k] & UPPER_MASK) | (mt[(k + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            mt[k] = mt[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// The next tempered 32-bit output (CPython's `genrand_uint32`, `getrandbits(32)`).
    pub fn u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// A float in `[0, 1)` with 53 random bits, from two outputs: `random.random()`.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.u32() >> 5);
        let b = f64::from(self.u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `a + (b - a) * random()`: `random.uniform(a, b)`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }

    /// An integer in `[0, n)` by rejection, as CPython's `_randbelow_with_getrandbits` (used by
    /// `randrange` and `choice`): with `k` the bit length of `n`, draw `u32() >> (32 - k)`
    /// until it is below `n`. `below(0)` returns 0 without drawing (Python would never return).
    pub fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let shift = n.leading_zeros(); // 32 - bit length of n
        loop {
            let r = self.u32() >> shift;
            if r < n {
                return r;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Random;

    // Expected outputs printed by CPython 3.11 (`random.Random(s).getrandbits(32)`) and by an
    // independent Python reimplementation of the Mersenne Twister (`MT(s).u32()`), which agree.
    #[test]
    fn first_outputs_match_cpython() {
        let mut rng = Random::new(42);
        assert_eq!(
            [rng.u32(), rng.u32(), rng.u32()],
            [2_746_317_213, 478_163_327, 107_420_369]
        );
        assert_eq!(Random::new(0).u32(), 3_626_764_237);
        assert_eq!(Random::new((1 << 40) + 5).u32(), 2_166_296_868);
        assert_eq!(Random::new(u64::MAX).u32(), 93_740_670);
    }

    #[test]
    fn primitives_stay_in_range() {
        let mut rng = Random::new(7);
        for _ in 0..10_000 {
            let x = rng.random();
            assert!((0.0..1.0).contains(&x));
            assert!(rng.below(86_400) < 86_400);
            assert!(rng.below(4) < 4);
            assert_eq!(rng.below(1), 0);
            let u = rng.uniform(0.5, 25.0);
            assert!((0.5..=25.0).contains(&u));
        }
        assert_eq!(rng.below(0), 0);
    }
}
