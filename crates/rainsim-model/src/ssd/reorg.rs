//! GC-time stripe reorganisation (rep-raid §3.3, Fig. 7, Alg. 1): the GC
//! hook that classes a victim's pages and matches copies with stale slots,
//! and the bookkeeping of a match once the victim's pages have moved.
//!
//! Case (a): a semi-valid page's stripe s has a stale slot whose channel
//! holds the *other* copy of a copy X in the victim: X is dropped and that
//! other copy takes the slot. Case (b): a copy Y and a stale slot Z are both
//! in the victim (so on one channel): Z is dropped, Y moves and takes Z's
//! slot. Under `same-chunk` matching the copy must be the stale slot's own
//! chunk's; under `any-chunk` (Alg. 1 compares channels only) it may be any
//! replicated chunk's, and the two chunks swap slots first
//! (`raid/stripe_map.rs`), which turns the match into a same-chunk one. A
//! conversion job then recomputes the parity and hands the slot its copy.

use crate::flash::address::Layout;
use crate::ftl::gc_hook::GcHook;
use crate::ftl::mapping::Mapping;
use crate::raid::replica::{Copy, ReplicaTable};
use rustc_hash::FxHashMap;

/// One GC-time reorganisation: the copy of `chunk`'s entry takes slot
/// `chunk` of `stripe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Match {
    pub(super) stripe: u32,
    pub(super) chunk: u32,
    /// Case (b): the old slot (at `z_ppn`) was in the victim and is dropped.
    pub(super) case_b: bool,
    pub(super) z_ppn: u32,
    /// Verify mode: the token the old slot held when the GC read it, taken
    /// before this GC's moves (a wear-levelling swap may refill the victim
    /// block, `z_ppn` included, in the same GC).
    pub(super) z_token: u32,
    /// The slot whose entry (and logical owner) swaps with `chunk`'s first;
    /// `chunk` itself for a same-chunk match.
    pub(super) other: u32,
    /// After the swap, the copy taking the slot is copy B: relabel it A.
    pub(super) flip: bool,
}

/// A victim page's role (rep-raid §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Valid,
    SemiValid(u32),
    SemiInvalid(u32),
    Replica(u32, Copy),
}

/// The GC hook of a replicating device: classifies the victim's pages and,
/// under Rep-RAID, matches them (semi-valid pages first, then copies).
pub(super) struct ReorgHook<'a> {
    pub(super) table: &'a ReplicaTable,
    pub(super) layout: &'a Layout,
    pub(super) width: u32,
    pub(super) reorganize: bool,
    /// Any-chunk matching, with the slots that have a host read in flight
    /// (their logical owner must not change under it).
    pub(super) any_chunk: Option<&'a FxHashMap<u32, u32>>,
    pub(super) matches: Vec<Match>,
    pub(super) moves: [u32; 4],
}

impl ReorgHook<'_> {
    fn role(&self, owner: u32) -> Role {
        let t = self.table;
        if t.is_copy(owner) {
            return t.owner_of(owner).map_or(Role::Valid, |(c, k)| Role::Replica(c, k));
        }
        if t.get(owner).is_some() {
            return Role::SemiInvalid(owner);
        }
        let s = owner / self.width;
        if (0..self.width).any(|p| t.get(s * self.width + p).is_some()) {
            Role::SemiValid(s)
        } else {
            Role::Valid
        }
    }

    /// Whether no match of this GC and no stripe job holds `chunk`'s stripe.
    fn stripe_free(&self, chunk: u32, taken: &[u32]) -> bool {
        let s = chunk / self.width;
        !taken.contains(&s) && !self.table.locked.contains(&s)
    }

    /// Whether a same-chunk reorganisation may take `chunk`'s stripe now.
    fn can_take(&self, chunk: u32, taken: &[u32]) -> bool {
        self.stripe_free(chunk, taken)
            && self.table.get(chunk).is_some_and(|e| !e.converting && !e.gone[Copy::A as usize])
    }

    /// Whether an any-chunk reorganisation may use replicated slot `slot`:
    /// its stripe free, its entry settled, no host read on its way to it.
    fn free(&self, slot: u32, taken: &[u32]) -> bool {
        self.stripe_free(slot, taken)
            && !self.any_chunk.is_some_and(|r| r.contains_key(&slot))
            && self.table.get(slot).is_some_and(|e| !e.converting && e.gone == [false; 2])
    }

    fn take(&self, taken: &mut Vec<u32>, a: u32, b: u32) {
        taken.push(a / self.width);
        if b / self.width != a / self.width {
            taken.push(b / self.width);
        }
    }

    /// The ablation's rule: a chunk's own copy and its own old slot.
    fn match_same_chunk(&mut self, roles: &[Role], valid: &[(u32, u32)], dropped: &mut Vec<usize>) {
        let mut used = vec![false; roles.len()];
        let mut taken = Vec::new();
        // Case (a): a semi-valid page's stripe takes back a chunk whose
        // copy B is in the victim: B is dropped, copy A takes the slot.
        for r in roles {
            let Role::SemiValid(s) = *r else { continue };
            let hit = roles.iter().enumerate().position(|(j, q)| {
                matches!(*q, Role::Replica(y, Copy::B) if !used[j] && y / self.width == s && self.can_take(y, &taken))
            });
            if let Some(j) = hit {
                let Role::Replica(y, _) = roles[j] else { unreachable!() };
                used[j] = true;
                dropped.push(j);
                taken.push(s);
                self.matches.push(Match {
                    stripe: s,
                    chunk: y,
                    case_b: false,
                    z_ppn: 0,
                    z_token: 0,
                    other: y,
                    flip: false,
                });
            }
        }
        // Case (b): a copy A and the old slot it replaces are both here:
        // the copy moves and takes the slot, the old slot is dropped.
        let slots: FxHashMap<u32, usize> = roles
            .iter()
            .enumerate()
            .filter_map(|(i, r)| if let Role::SemiInvalid(c) = *r { Some((c, i)) } else { None })
            .collect();
        for j in 0..roles.len() {
            let Role::Replica(y, Copy::A) = roles[j] else { continue };
            let Some(&i) = slots.get(&y) else { continue };
            if used[j] || used[i] || !self.can_take(y, &taken) {
                continue;
            }
            used[i] = true;
            dropped.push(i);
            taken.push(y / self.width);
            let z_ppn = valid[i].0;
            self.matches.push(Match {
                stripe: y / self.width,
                chunk: y,
                case_b: true,
                z_ppn,
                z_token: 0,
                other: y,
                flip: false,
            });
        }
    }

    /// Alg. 1's rule: matches compare channels, whichever chunks the copy
    /// and the stale slot belong to (the slot's own chunk first).
    fn match_any_chunk(&mut self, roles: &[Role], valid: &[(u32, u32)], map: &Mapping, dropped: &mut Vec<usize>) {
        let (t, w) = (self.table, self.width);
        let mut used = vec![false; roles.len()];
        let mut taken = Vec::new();
        let channel = |id: u32| map.get(id).map(|p| self.layout.channel_of(p));
        // Case (a): copy X of chunk b is in the victim and b's other copy sits
        // on the channel of stale slot a of the semi-valid page's stripe.
        for r in roles {
            let Role::SemiValid(s) = *r else { continue };
            if taken.contains(&s) {
                continue;
            }
            let mut hit = None;
            'copies: for (j, q) in roles.iter().enumerate() {
                let Role::Replica(b, k) = *q else { continue };
                if used[j] || !self.free(b, &taken) {
                    continue;
                }
                let pair = t.get(b).expect("a copy's chunk is replicated").pair;
                let keep = if k == Copy::A { Copy::B } else { Copy::A };
                let Some(ch) = channel(t.copy_id(pair, keep)) else { continue };
                // The copy's own slot first (a same-chunk match), then the others.
                let own = (b / w == s).then_some(b);
                for a in own.into_iter().chain((s * w..(s + 1) * w).filter(|&a| a != b)) {
                    if t.get(a).is_some() && self.free(a, &taken) && channel(a) == Some(ch) {
                        hit = Some((j, a, b, keep == Copy::B));
                        break 'copies;
                    }
                }
            }
            if let Some((j, a, b, flip)) = hit {
                used[j] = true;
                dropped.push(j);
                self.take(&mut taken, a, b);
                self.matches.push(Match { stripe: s, chunk: a, case_b: false, z_ppn: 0, z_token: 0, other: b, flip });
            }
        }
        // Case (b): a copy Y of chunk b and a stale slot Z of chunk a are both
        // here: Z is dropped, Y moves and takes slot a.
        let stale: Vec<usize> = (0..roles.len()).filter(|&i| matches!(roles[i], Role::SemiInvalid(_))).collect();
        for j in 0..roles.len() {
            let Role::Replica(b, k) = roles[j] else { continue };
            if used[j] || !self.free(b, &taken) {
                continue;
            }
            let slot_of = |i: usize| if let Role::SemiInvalid(a) = roles[i] { a } else { unreachable!() };
            let pick = stale
                .iter()
                .copied()
                .filter(|&i| !used[i] && (slot_of(i) == b || self.free(slot_of(i), &taken)))
                .min_by_key(|&i| slot_of(i) != b);
            let Some(i) = pick else { continue };
            let a = slot_of(i);
            used[i] = true;
            used[j] = true;
            dropped.push(i);
            self.take(&mut taken, a, b);
            let flip = k == Copy::B;
            self.matches.push(Match {
                stripe: a / w,
                chunk: a,
                case_b: true,
                z_ppn: valid[i].0,
                z_token: 0,
                other: b,
                flip,
            });
        }
    }
}

impl GcHook for ReorgHook<'_> {
    fn drop_pages(&mut self, _plane: u32, valid: &[(u32, u32)], map: &Mapping, dropped: &mut Vec<usize>) {
        let roles: Vec<Role> = valid.iter().map(|&(_, o)| self.role(o)).collect();
        if self.reorganize {
            if self.any_chunk.is_some() {
                self.match_any_chunk(&roles, valid, map, dropped);
            } else {
                self.match_same_chunk(&roles, valid, dropped);
            }
            dropped.sort_unstable();
        }
        for (i, r) in roles.iter().enumerate() {
            if dropped.binary_search(&i).is_err() {
                let k = match r {
                    Role::Valid => 0,
                    Role::SemiValid(_) => 1,
                    Role::SemiInvalid(_) => 2,
                    Role::Replica(..) => 3,
                };
                self.moves[k] += 1;
            }
        }
    }
}

#[cfg(test)]
#[path = "reorg_hook_tests.rs"]
mod hook_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raid::replica::Replica;

    /// 3 channels of 16 pages (channel = page / 16); 2+1 stripes (width 3),
    /// copy ids from 30.
    pub(super) fn layout() -> Layout {
        Layout::of(3, 1, 1, 4, 4, 4096)
    }

    pub(super) fn hook<'a>(t: &'a ReplicaTable, l: &'a Layout, any: Option<&'a FxHashMap<u32, u32>>) -> ReorgHook<'a> {
        ReorgHook {
            table: t,
            layout: l,
            width: 3,
            reorganize: true,
            any_chunk: any,
            matches: Vec::new(),
            moves: [0; 4],
        }
    }

    pub(super) fn mapped(pages: &[(u32, u32)]) -> Mapping {
        let mut m = Mapping::new(40, 48);
        for &(id, p) in pages {
            m.set(id, p);
        }
        m
    }

    /// A page's role comes from its own stripe (width 3: chunks 3s..3s+2):
    /// with chunk 3 replicated, chunk 3's slot is semi-invalid, chunks 4 and
    /// 5 (stripe 1) semi-valid, chunks 1 (stripe 0) and 6 (stripe 2) valid,
    /// and chunk 3's copy B a replica; plain GC moves each by its role.
    #[test]
    fn roles_follow_the_stripe_each_page_belongs_to() {
        let mut t = ReplicaTable::new(30, 4);
        let e3 = t.insert(3, 1).unwrap();
        let b3 = t.copy_id(e3.pair, Copy::B);
        let l = layout();
        let mut h = hook(&t, &l, None);
        let roles: Vec<Role> = [3, 4, 5, 1, 6, b3].into_iter().map(|o| h.role(o)).collect();
        let want = [
            Role::SemiInvalid(3),
            Role::SemiValid(1),
            Role::SemiValid(1),
            Role::Valid,
            Role::Valid,
            Role::Replica(3, Copy::B),
        ];
        assert_eq!(roles, want);
        h.reorganize = false;
        let victim = [(100, 3), (101, 4), (102, 5), (103, 1), (104, 6), (105, b3)];
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &Mapping::new(40, 200), &mut dropped);
        assert!(dropped.is_empty());
        assert_eq!(h.moves, [2, 2, 1, 1], "valid, semi-valid, semi-invalid, replica");
    }

    /// Fig. 7 by hand, same-chunk: victim d1 (semi-valid: stripe 0 holds
    /// replicated d0), copy B of d0, copy A of chunk 4 (stripe 1) beside 4's
    /// old slot, and an ordinary page. Case (a) drops d0's copy B (its copy A
    /// takes d0's slot); case (b) drops 4's old slot (its copy A moves and
    /// takes it); the rest moves.
    #[test]
    fn fig7_same_chunk_cases_drop_the_matched_pages_and_move_the_rest() {
        let mut t = ReplicaTable::new(30, 4);
        let e0 = t.insert(0, 1).unwrap();
        let e4 = t.insert(4, 2).unwrap();
        let b0 = t.copy_id(e0.pair, Copy::B);
        let a4 = t.copy_id(e4.pair, Copy::A);
        let victim = [(100, 1), (101, b0), (102, a4), (103, 4), (104, 7)];
        let l = layout();
        let map = Mapping::new(40, 200);
        let mut h = hook(&t, &l, None);
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert_eq!(dropped, vec![1, 3], "d0's copy B (case a) and chunk 4's old slot (case b)");
        let m: Vec<(u32, u32, bool)> = h.matches.iter().map(|m| (m.stripe, m.chunk, m.case_b)).collect();
        assert_eq!(m, vec![(0, 0, false), (1, 4, true)]);
        assert_eq!(h.matches[1].z_ppn, 103);
        assert!(h.matches.iter().all(|m| m.other == m.chunk && !m.flip));
        // Moved: page 104 (valid), d1 (semi-valid), 4's copy A (replica).
        assert_eq!(h.moves, [1, 1, 0, 1]);
        // A locked stripe is not matched; plain GC drops nothing.
        t.locked.insert(1);
        let mut h = hook(&t, &l, None);
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert_eq!(dropped, vec![1]);
        let mut h = hook(&t, &l, None);
        h.reorganize = false;
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty() && h.matches.is_empty());
        assert_eq!(h.moves, [1, 1, 1, 2], "valid, semi-valid, semi-invalid, replica");
    }

    /// Fig. 7(b) with two chunks: the victim (channel 0) holds D0's stale
    /// slot (chunk 0, stripe 0) and R1, copy B of chunk 4 (stripe 1), plus an
    /// ordinary page. Any-chunk: D0 is dropped, R1 moves and takes slot 0
    /// (chunks 0 and 4 swap slots; R1 becomes copy A), the ordinary page
    /// moves. Same-chunk: nothing matches, all three move.
    #[test]
    fn fig7b_any_chunk_pairs_a_copy_with_another_chunks_stale_slot() {
        let mut t = ReplicaTable::new(30, 4);
        t.insert(0, 1).unwrap();
        let e4 = t.insert(4, 2).unwrap();
        let r1 = t.copy_id(e4.pair, Copy::B);
        let victim = [(1, 0), (2, r1), (3, 7)];
        let l = layout();
        let map = mapped(&[(0, 1), (r1, 2), (7, 3)]);
        let reads = FxHashMap::default();
        let mut h = hook(&t, &l, Some(&reads));
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert_eq!(dropped, vec![0], "D0 dropped, not moved");
        let want = Match { stripe: 0, chunk: 0, case_b: true, z_ppn: 1, z_token: 0, other: 4, flip: true };
        assert_eq!(h.matches, vec![want]);
        assert_eq!(h.moves, [1, 0, 0, 1], "the ordinary page and R1 move");
        let mut h = hook(&t, &l, None);
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty() && h.matches.is_empty());
        assert_eq!(h.moves, [1, 0, 1, 1]);
        // A host read on its way to slot 4, or a job on stripe 1, blocks it.
        let busy: FxHashMap<u32, u32> = [(4, 1)].into_iter().collect();
        let mut h = hook(&t, &l, Some(&busy));
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty());
        t.locked.insert(1);
        let mut h = hook(&t, &l, Some(&reads));
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty());
    }

    /// Each match takes the stripes of both chunks it touches (the stale
    /// slot's and the copy's): the victim holds stale slot x, copy B of
    /// chunk y, stale slot z and copy B of chunk u, so y could pair with x
    /// or z and u with z. y takes x (the first stale slot); u's pairing
    /// with z is then refused, z sharing x's stripe or u sharing y's. The
    /// chunks are chosen so that a stripe mixed up with a position (`%`) or
    /// a scaled id (`*`) names another stripe.
    #[test]
    fn a_match_takes_both_stripes_it_touches() {
        // (x, y, z, u): z beside x (stripe 1), u beside y (stripe 2), and
        // both ways round for chunks whose stripe is another's id times 3.
        let cases = [(5, 7, 3, 9), (5, 7, 9, 8), (1, 9, 5, 10), (9, 1, 5, 2)];
        let l = layout();
        let reads = FxHashMap::default();
        for (x, y, z, u) in cases {
            let mut t = ReplicaTable::new(30, 4);
            let (ey, eu) = (t.insert(y, 1).unwrap(), t.insert(u, 1).unwrap());
            let (by, bu) = (t.copy_id(ey.pair, Copy::B), t.copy_id(eu.pair, Copy::B));
            t.insert(x, 1).unwrap();
            t.insert(z, 1).unwrap();
            let victim = [(100, x), (101, by), (102, z), (103, bu)];
            let mut h = hook(&t, &l, Some(&reads));
            let mut dropped = Vec::new();
            h.drop_pages(0, &victim, &Mapping::new(40, 200), &mut dropped);
            let want = Match { stripe: x / 3, chunk: x, case_b: true, z_ppn: 100, z_token: 0, other: y, flip: true };
            assert_eq!(
                (h.matches.as_slice(), dropped.as_slice()),
                ([want].as_slice(), [0].as_slice()),
                "{x} {y} {z} {u}"
            );
            assert_eq!(h.moves, [0, 0, 1, 2], "z and both copies move");
        }
    }

    /// A replicated chunk whose conversion is under way, or which gave up a
    /// copy, is not matched even where its stripe is not (yet) locked: the
    /// hook checks the entry itself, not only the stripe lock.
    #[test]
    fn an_unsettled_entry_is_not_matched() {
        let l = layout();
        let reads = FxHashMap::default();
        // Same-chunk, Fig. 7's case (b): chunk 4's copy A beside its old slot.
        let mut t = ReplicaTable::new(30, 4);
        let e4 = t.insert(4, 2).unwrap();
        let a4 = t.copy_id(e4.pair, Copy::A);
        let victim = [(102, a4), (103, 4)];
        let map = Mapping::new(40, 200);
        let mut h = hook(&t, &l, None);
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert_eq!(dropped, vec![1], "settled: matched");
        t.get_mut(4).unwrap().converting = true;
        let mut h = hook(&t, &l, None);
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty() && h.matches.is_empty(), "converting");
        // Any-chunk, Fig. 7(b): D0 and R1 (copy B of chunk 4).
        let unsettle: [fn(&mut Replica); 2] = [|e| e.converting = true, |e| e.gone[Copy::B as usize] = true];
        for unsettle in unsettle {
            let mut t = ReplicaTable::new(30, 4);
            t.insert(0, 1).unwrap();
            let e4 = t.insert(4, 2).unwrap();
            let r1 = t.copy_id(e4.pair, Copy::B);
            let victim = [(1, 0), (2, r1)];
            let map = mapped(&[(0, 1), (r1, 2)]);
            let mut h = hook(&t, &l, Some(&reads));
            let mut dropped = Vec::new();
            h.drop_pages(0, &victim, &map, &mut dropped);
            assert_eq!(dropped, vec![0], "settled: matched");
            for c in [0, 4] {
                let mut t = t.clone();
                unsettle(t.get_mut(c).unwrap());
                let mut h = hook(&t, &l, Some(&reads));
                let mut dropped = Vec::new();
                h.drop_pages(0, &victim, &map, &mut dropped);
                assert!(dropped.is_empty() && h.matches.is_empty(), "chunk {c} unsettled");
            }
        }
    }

    /// Fig. 7(a) with two chunks: the victim (channel 1) holds d1 (chunk 1,
    /// semi-valid: stripe 0 holds replicated chunk 0, stale on channel 0)
    /// and copy A of chunk 4, whose copy B is on channel 0. Copy A is
    /// dropped; copy B (relabelled A) takes slot 0; d1 moves.
    #[test]
    fn fig7a_any_chunk_uses_the_mirror_on_the_stale_slots_channel() {
        let mut t = ReplicaTable::new(30, 4);
        t.insert(0, 1).unwrap();
        let e4 = t.insert(4, 2).unwrap();
        let (a4, b4) = (t.copy_id(e4.pair, Copy::A), t.copy_id(e4.pair, Copy::B));
        let victim = [(17, 1), (18, a4)];
        let l = layout();
        let reads = FxHashMap::default();
        let map = mapped(&[(0, 6), (1, 17), (a4, 18), (b4, 5)]);
        let mut h = hook(&t, &l, Some(&reads));
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert_eq!(dropped, vec![1]);
        let want = Match { stripe: 0, chunk: 0, case_b: false, z_ppn: 0, z_token: 0, other: 4, flip: true };
        assert_eq!(h.matches, vec![want]);
        assert_eq!(h.moves, [0, 1, 0, 0]);
        // The mirror on another channel than the stale slot's: no match.
        let map = mapped(&[(0, 6), (1, 17), (a4, 18), (b4, 40)]);
        let mut h = hook(&t, &l, Some(&reads));
        let mut dropped = Vec::new();
        h.drop_pages(0, &victim, &map, &mut dropped);
        assert!(dropped.is_empty() && h.matches.is_empty());
    }
}
