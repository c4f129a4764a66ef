//! A uniform grid over axis-aligned boxes, built once per map: the window index of map
//! matching.
//!
//! Every box is listed in each cell it overlaps (cells stored contiguously, CSR style). A point
//! query tests the boxes of one cell; a box query tests the boxes of the cells it overlaps. The
//! cell size follows the boxes' density (about one box per cell, a cell count bounded by a
//! multiple of the box count), so sparse giant maps do not blow up the table. The answers —
//! every box intersecting the query — do not depend on the cell size, only the work does.

/// `[min x, min y, max x, max y]`.
pub(crate) type Aabb = [f64; 4];

fn intersects(a: &Aabb, b: &Aabb) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// The grid.
#[derive(Debug, Default)]
pub(crate) struct BoxGrid {
    boxes: Vec<Aabb>,
    /// Lower left corner of cell (0, 0) and the cell size.
    origin: [f64; 2],
    cell: f64,
    cols: usize,
    rows: usize,
    /// Cell k lists `items[start[k]..start[k + 1]]` (cells row by row).
    start: Vec<u32>,
    items: Vec<u32>,
}

impl BoxGrid {
    /// Indexes `boxes` (item i carries data i; boxes with a non-finite corner are left out).
    pub(crate) fn build(boxes: &[Aabb]) -> BoxGrid {
        let finite = |b: &Aabb| b.iter().all(|v| v.is_finite()) && b[0] <= b[2] && b[1] <= b[3];
        let mut all = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut n = 0usize;
        for b in boxes.iter().filter(|b| finite(b)) {
            all = [
                all[0].min(b[0]),
                all[1].min(b[1]),
                all[2].max(b[2]),
                all[3].max(b[3]),
            ];
            n += 1;
        }
        if n == 0 {
            return BoxGrid::default();
        }
        let (w, h) = ((all[2] - all[0]).max(1e-9), (all[3] - all[1]).max(1e-9));
        // About one cell per box; at most 4 n + 16 cells whatever the shape, and at most
        // 16 n + 64 listings in all: boxes much larger than the cell (a lane offset polynomial
        // running away on a long road) would otherwise be listed in millions of cells each. A
        // single cell lists every box once, so growing the cell always ends.
        let mut cell = (w * h / n as f64).sqrt().max(1e-6);
        // Cells along each side (capped well below usize::MAX: a 1e300 m map in µm cells must
        // not wrap to zero columns).
        let side = |len: f64, c: f64| (len / c).floor().clamp(0.0, 1e15) as usize + 1;
        let dims = |c: f64| (side(w, c), side(h, c));
        let listings = |c: f64| -> usize {
            let per_axis = |lo: f64, hi: f64, origin: f64| {
                let a = ((lo - origin) / c).floor().max(0.0);
                let b = ((hi - origin) / c).floor().max(0.0);
                // Cells overlapped along one axis (saturating: a count, not an index).
                (b - a + 1.0).min(usize::MAX as f64) as usize
            };
            boxes
                .iter()
                .filter(|b| finite(b))
                .map(|b| per_axis(b[0], b[2], all[0]).saturating_mul(per_axis(b[1], b[3], all[1])))
                .fold(0usize, usize::saturating_add)
        };
        while {
            let (c, r) = dims(cell);
            c.saturating_mul(r) > 4 * n + 16 || listings(cell) > 16 * n + 64
        } {
            cell *= 1.5;
        }
        let (cols, rows) = dims(cell);
        let mut grid = BoxGrid {
            boxes: boxes.to_vec(),
            origin: [all[0], all[1]],
            cell,
            cols,
            rows,
            start: vec![0; cols * rows + 1],
            items: Vec::new(),
        };
        // Two passes: count per cell, then fill.
        for b in boxes.iter().filter(|b| finite(b)) {
            let (c0, r0, c1, r1) = grid.span(b);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    if let Some(n) = grid.start.get_mut(r * cols + c + 1) {
                        *n += 1;
                    }
                }
            }
        }
        for k in 1..grid.start.len() {
            grid.start[k] += grid.start[k - 1];
        }
        let mut fill = grid.start.clone();
        grid.items = vec![0; grid.start.last().map_or(0, |&v| v as usize)];
        for (i, b) in boxes.iter().enumerate().filter(|(_, b)| finite(b)) {
            let (c0, r0, c1, r1) = grid.span(b);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let k = r * cols + c;
                    if let (Some(f), Some(_)) = (fill.get_mut(k), grid.start.get(k + 1)) {
                        if let Some(slot) = grid.items.get_mut(*f as usize) {
                            *slot = i as u32;
                        }
                        *f += 1;
                    }
                }
            }
        }
        grid
    }

    /// Column and row of the cell holding (x, y), clamped to the grid (monotone in x and y, so a
    /// box's cells are those between its corners' cells).
    fn cell_of(&self, x: f64, y: f64) -> (usize, usize) {
        let c = ((x - self.origin[0]) / self.cell).floor();
        let r = ((y - self.origin[1]) / self.cell).floor();
        let clamp = |v: f64, n: usize| {
            if v.is_nan() || v < 0.0 {
                0
            } else {
                (v as usize).min(n.saturating_sub(1))
            }
        };
        (clamp(c, self.cols), clamp(r, self.rows))
    }

    /// First and last column and row overlapped by `b`.
    fn span(&self, b: &Aabb) -> (usize, usize, usize, usize) {
        let (c0, r0) = self.cell_of(b[0], b[1]);
        let (c1, r1) = self.cell_of(b[2], b[3]);
        (c0, r0, c1, r1)
    }

    /// Calls `f(data)` for every item whose box intersects `q` (a point is a box with
    /// min == max). A point query names each item once; a box query spanning several cells may
    /// name an item more than once (callers fold the answers idempotently).
    pub(crate) fn query(&self, q: &Aabb, mut f: impl FnMut(u32)) {
        self.query_while(q, |i| {
            f(i);
            true
        });
    }

    /// [`BoxGrid::query`] that stops as soon as `f` returns `false`.
    pub(crate) fn query_while(&self, q: &Aabb, mut f: impl FnMut(u32) -> bool) {
        if self.items.is_empty() || !(q[0] <= q[2] && q[1] <= q[3]) {
            return;
        }
        let (c0, r0, c1, r1) = self.span(q);
        for r in r0..=r1 {
            for c in c0..=c1 {
                let k = r * self.cols + c;
                let (Some(&a), Some(&b)) = (self.start.get(k), self.start.get(k + 1)) else {
                    continue;
                };
                for &i in self.items.get(a as usize..b as usize).unwrap_or(&[]) {
                    if self
                        .boxes
                        .get(i as usize)
                        .is_some_and(|bx| intersects(bx, q))
                        && !f(i)
                    {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_boxes_among_small_ones_keep_the_table_small() {
        // Thousands of small boxes along a line, and boxes a million times larger: every box
        // is still found, and the table stays within its bound.
        let mut boxes: Vec<Aabb> = (0..5000)
            .map(|i| {
                let x = i as f64 * 2.0;
                [x, 0.0, x + 2.0, 3.0]
            })
            .collect();
        for k in 0..200 {
            let e = 1e7 + k as f64;
            boxes.push([-e, -e, e, e]);
        }
        let grid = BoxGrid::build(&boxes);
        assert!(
            grid.items.len() <= 16 * boxes.len() + 64,
            "{}",
            grid.items.len()
        );
        // Boxes at the ends of the f64 range, with small ones between.
        let far = [
            [-1e300, -1e300, -1e300, -1e300],
            [1e300, 1e300, 1e300, 1e300],
            [0.0, 0.0, 1.0, 1.0],
        ];
        let g = BoxGrid::build(&far);
        let mut got = Vec::new();
        g.query(&[0.5, 0.5, 0.5, 0.5], |d| got.push(d));
        assert_eq!(got, vec![2]);
        // A flat map 1e30 m wide: its first cell guess is over 2^64 cells across.
        let far = [
            [1e30, 0.0, 1e30, 0.0],
            [1e30, 0.0, 1e30, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ];
        let g = BoxGrid::build(&far);
        let mut got = Vec::new();
        g.query(&[0.5, 0.0, 0.5, 0.0], |d| got.push(d));
        assert_eq!(got, vec![2]);
        let mut got = Vec::new();
        grid.query(&[101.0, 1.0, 101.0, 1.0], |d| got.push(d));
        got.sort_unstable();
        let want: Vec<u32> = [50u32]
            .into_iter()
            .chain((5000..5200).map(|i| i as u32))
            .collect();
        assert_eq!(got, want);
    }

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
            let tree = BoxGrid::build(&boxes);
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
                if q[0] == q[2] {
                    let n = got.len();
                    got.dedup();
                    assert_eq!(got.len(), n, "a point query names an item once");
                }
                got.dedup();
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| intersects(&boxes[i as usize], &q))
                    .collect();
                assert_eq!(got, want, "n = {n}, q = {q:?}");
            }
        }
    }
}
