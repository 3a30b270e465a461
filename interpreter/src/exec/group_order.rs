//! The order work-groups start in, generated index by index: a launch may have more groups
//! than memory could list (2^32 and more), so the order is never materialised.

use crate::schedule::Order;

/// Work-group `i`-th to start, for `i` below the launch's group count.
pub(super) struct GroupOrder {
    order: Order,
    n: u64,
    /// Random order: half the width of the permuted domain, and the round keys.
    half: u32,
    keys: [u64; 4],
}

impl GroupOrder {
    pub(super) fn new(order: Order, n: u64, seed: u64) -> GroupOrder {
        // The permutation runs on [0, 2^(2*half)), the smallest even power of two >= n.
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half = bits.div_ceil(2).max(1);
        let mut s = seed ^ 0x5EED_0F60_0D00;
        let keys = [0; 4].map(|_| {
            s = mix(s.wrapping_add(0x9E37_79B9_7F4A_7C15));
            s
        });
        GroupOrder {
            order,
            n,
            half,
            keys,
        }
    }

    pub(super) fn len(&self) -> u64 {
        self.n
    }

    /// The linear id of the group that starts `i`-th (`i < len()`).
    pub(super) fn get(&self, i: u64) -> u64 {
        match self.order {
            Order::InOrder => i,
            Order::Reverse => self.n - 1 - i,
            // A four-round Feistel network is a permutation of its domain; walking the
            // cycle until the value falls below n makes it one of 0..n (at most 4 steps
            // expected, the domain being under 4n).
            Order::Random => {
                let mut x = i;
                loop {
                    x = self.feistel(x);
                    if x < self.n {
                        return x;
                    }
                }
            }
        }
    }

    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for k in self.keys {
            (l, r) = (r, l ^ (mix(r ^ k) & mask));
        }
        (l << self.half) | r
    }
}

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn all(o: &GroupOrder) -> Vec<u64> {
        (0..o.len()).map(|i| o.get(i)).collect()
    }

    #[test]
    fn every_order_is_a_permutation() {
        for n in (1..=300).chain([1023, 1024, 1025, 4096]) {
            for order in [Order::InOrder, Order::Reverse, Order::Random] {
                for seed in [0, 1, 99] {
                    let mut v = all(&GroupOrder::new(order, n, seed));
                    v.sort_unstable();
                    assert!(v.iter().copied().eq(0..n), "{order:?} n={n} seed={seed}");
                }
            }
        }
        assert_eq!(all(&GroupOrder::new(Order::Reverse, 3, 0)), [2, 1, 0]);
    }

    #[test]
    fn random_orders_follow_the_seed_and_shuffle() {
        let a = all(&GroupOrder::new(Order::Random, 64, 7));
        assert_eq!(a, all(&GroupOrder::new(Order::Random, 64, 7)));
        assert_ne!(a, all(&GroupOrder::new(Order::Random, 64, 8)));
        assert_ne!(a, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn orders_of_more_groups_than_memory_holds_cost_nothing() {
        let n = 1u64 << 40;
        let o = GroupOrder::new(Order::Random, n, 3);
        let first: HashSet<u64> = (0..10_000).map(|i| o.get(i)).collect();
        assert_eq!(first.len(), 10_000);
        assert!(first.iter().all(|&g| g < n));
        assert_eq!(
            GroupOrder::new(Order::Reverse, u64::MAX, 0).get(0),
            u64::MAX - 1
        );
    }
}
