//! Tests of how a lockstep operation's lanes are grouped into block runs and lane sets.

use super::*;
use shadowcl_interpreter::{AllocId, InstId, WorkItem};

/// `block_runs` of reads at `offsets` by lanes in order, `order` the lanes that made one
/// (all when empty).
fn runs(offsets: &[u64], order: &[usize]) -> Vec<(u64, usize)> {
    let items: Vec<WorkItem> = (0..offsets.len() as u32)
        .map(|l| WorkItem {
            global: [l as u64, 0, 0],
            local: [l, 0, 0],
            group: [0; 3],
            local_linear: l,
        })
        .collect();
    let all: Vec<usize> = (0..offsets.len()).collect();
    let lanes = LaneAccesses {
        space: AddressSpace::Global,
        alloc: AllocId(7),
        size: 4,
        kind: AccessKind::Read,
        inst: InstId(0),
        items: &items,
        order: if order.is_empty() { &all } else { order },
        offsets,
        values: &[],
        previous: &[],
        component: 0,
        known_span: None,
    };
    let runs = block_runs(&lanes);
    runs.iter()
        .filter(|_| !runs.shared)
        .map(|first| (offsets[first], first))
        .collect()
}

#[test]
fn lane_sets_hold_the_ranges_inserted() {
    let mut set = LaneSet::default();
    for r in [0..16, 56..72, 127..128, 1000..1024] {
        set.insert(r);
    }
    let held: Vec<usize> = (0..LaneSet::LANES).filter(|&l| set.contains(l)).collect();
    let want: Vec<usize> = (0..16)
        .chain(56..72)
        .chain([127])
        .chain(1000..1024)
        .collect();
    assert_eq!(held, want);
    assert_eq!(set.len, want.len());
    // The next member from any lane on is the first held lane not before it.
    for l in 0..LaneSet::LANES + 2 {
        let next = want.iter().copied().find(|&w| w >= l);
        assert_eq!(set.next_from(l), next, "from {l}");
    }
}

#[test]
fn block_runs_cover_whole_blocks_of_consecutive_lanes_only() {
    let words = |from: u64, n: u64| (0..n).map(|l| from + 4 * l).collect::<Vec<_>>();
    assert_eq!(runs(&words(0, 32), &[]), [(0, 0), (64, 16)]);
    // Shifted by a word: one whole block, from lane 15; the others go one by one.
    assert_eq!(runs(&words(4, 32), &[]), [(64, 15)]);
    // Rows of a 2-D group, each over its own row of the buffer.
    let rows: Vec<u64> = words(0, 16).into_iter().chain(words(256, 16)).collect();
    assert_eq!(runs(&rows, &[]), [(0, 0), (256, 16)]);
    // Two rows over the same words: none (the schedule's order matters there).
    let same: Vec<u64> = words(0, 16).into_iter().chain(words(0, 16)).collect();
    assert_eq!(runs(&same, &[]), []);
    // Another lane touching a run's block: none.
    let mut near = words(0, 17);
    near[16] = 8;
    assert_eq!(runs(&near, &[]), []);
    // A lane that made no access breaks its run only.
    let order: Vec<usize> = (0..32).filter(|&l| l != 20).collect();
    assert_eq!(runs(&words(0, 32), &order), [(0, 0)]);
    // Words at an offset of 2: never a block's.
    assert_eq!(runs(&words(2, 64), &[]), []);
    // A row that stops short of a block, then a whole one: the run after it is found.
    let short: Vec<u64> = words(0, 8).into_iter().chain(words(64, 16)).collect();
    assert_eq!(runs(&short, &[]), [(64, 8)]);
    // A lane out of step inside the first block: the next block's run still is one.
    let mut skewed = words(0, 32);
    skewed[5] = 400;
    assert_eq!(runs(&skewed, &[]), [(64, 16)]);
    // Idle lanes before, between and after runs (a reduction's lanes below a bound).
    let order: Vec<usize> = (3..7).chain(32..48).chain(64..80).collect();
    assert_eq!(runs(&words(0, 100), &order), [(128, 32), (256, 64)]);
    assert_eq!(runs(&words(0, 100), &[80, 81, 82]), []);
}
