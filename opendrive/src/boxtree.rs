//! A static, packed R-tree over axis-aligned boxes (sort-tile-recursive packing), built once
//! per map: the window index of map matching.
//!
//! Packing sorts the boxes by centre x, cuts them into vertical slices, sorts each slice by
//! centre y and groups runs of [`FANOUT`] into leaves; upper levels group runs of the level
//! below the same way. The answer of a query — every box containing (or intersecting) a given
//! box — does not depend on the packing, only the work to find it does.

/// Children per node.
const FANOUT: usize = 8;

/// `[min x, min y, max x, max y]`.
pub(crate) type Aabb = [f64; 4];

fn intersects(a: &Aabb, b: &Aabb) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

fn union(a: &Aabb, b: &Aabb) -> Aabb {
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[2].max(b[2]),
        a[3].max(b[3]),
    ]
}

const EMPTY: Aabb = [
    f64::INFINITY,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
];

/// The tree: `levels[0]` are the item boxes in packed order (`items` names each one's data),
/// each further level holds the bounding boxes of runs of [`FANOUT`] entries of the level
/// below; the last level has one entry (or none for an empty tree).
#[derive(Debug, Default)]
pub(crate) struct BoxTree {
    levels: Vec<Vec<Aabb>>,
    items: Vec<u32>,
}

impl BoxTree {
    /// Packs `boxes` (finite; item i carries data i).
    pub(crate) fn build(boxes: &[Aabb]) -> BoxTree {
        let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
        let centre = |i: u32, k: usize| {
            boxes
                .get(i as usize)
                .map_or(0.0, |b| 0.5 * (b[k] + b[k + 2]))
        };
        order.sort_unstable_by(|&a, &b| centre(a, 0).total_cmp(&centre(b, 0)));
        let leaves = boxes.len().div_ceil(FANOUT);
        let slices = (leaves as f64).sqrt().ceil().max(1.0) as usize;
        let per_slice = (slices * FANOUT).max(1);
        for slice in order.chunks_mut(per_slice) {
            slice.sort_unstable_by(|&a, &b| centre(a, 1).total_cmp(&centre(b, 1)));
        }
        let level0: Vec<Aabb> = order
            .iter()
            .map(|&i| boxes.get(i as usize).copied().unwrap_or(EMPTY))
            .collect();
        let mut levels = vec![level0];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().map(Vec::as_slice).unwrap_or(&[]);
            let up: Vec<Aabb> = below
                .chunks(FANOUT)
                .map(|c| c.iter().fold(EMPTY, |acc, b| union(&acc, b)))
                .collect();
            levels.push(up);
        }
        BoxTree {
            levels,
            items: order,
        }
    }

    /// Calls `f(data)` for every item whose box intersects `q` (a point is a box with
    /// min == max), in no particular order.
    pub(crate) fn query(&self, q: &Aabb, mut f: impl FnMut(u32)) {
        let Some(top) = self.levels.len().checked_sub(1) else {
            return;
        };
        // Depth-first; a path holds at most FANOUT entries per level.
        let mut stack: smallvec::SmallVec<[(usize, usize); 64]> = smallvec::SmallVec::new();
        stack.push((top, 0));
        while let Some((level, i)) = stack.pop() {
            let Some(b) = self.levels.get(level).and_then(|l| l.get(i)) else {
                continue;
            };
            if !intersects(b, q) {
                continue;
            }
            if level == 0 {
                if let Some(&d) = self.items.get(i) {
                    f(d);
                }
                continue;
            }
            let below = self.levels.get(level - 1).map_or(0, Vec::len);
            let first = i * FANOUT;
            for c in (first..(first + FANOUT).min(below)).rev() {
                stack.push((level - 1, c));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_finds_exactly_the_intersecting_boxes() {
        // A pseudo-random scatter of boxes, queried at points and boxes, against a linear scan.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [0usize, 1, 7, 8, 9, 65, 1000] {
            let boxes: Vec<Aabb> = (0..n)
                .map(|_| {
                    let (x, y) = (rnd() * 500.0, rnd() * 500.0);
                    [x, y, x + rnd() * 20.0, y + rnd() * 20.0]
                })
                .collect();
            let tree = BoxTree::build(&boxes);
            for _ in 0..300 {
                let (x, y) = (rnd() * 520.0 - 10.0, rnd() * 520.0 - 10.0);
                let q = if rnd() < 0.5 {
                    [x, y, x, y]
                } else {
                    [x, y, x + 15.0, y + 3.0]
                };
                let mut got = Vec::new();
                tree.query(&q, |d| got.push(d));
                got.sort_unstable();
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| intersects(&boxes[i as usize], &q))
                    .collect();
                assert_eq!(got, want, "n = {n}, q = {q:?}");
            }
        }
    }
}
