//! The `[precondition]` keys: how much of the device is aged and how the
//! aged pages lie in blocks.

use crate::error::ConfigError;
use crate::flash::geometry::Geometry;
use serde::{Deserialize, Serialize};

/// Direct preconditioning: fractions of all physical pages, and how they lie
/// in blocks (the layout decides what GC costs; DESIGN.md §3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Precondition {
    /// Fraction of physical pages holding valid data (data and parity).
    pub valid: f64,
    /// Fraction of physical pages left invalid (stale).
    pub invalid: f64,
    /// How valid and invalid pages lie in blocks.
    pub layout: AgeLayout,
    /// Which pages the trace needs mapped before time 0.
    pub map_trace: MapTrace,
    /// Free blocks per plane above the GC trigger at time 0 (invalid pages
    /// give way to make room); absent = whatever `valid` and `invalid` leave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_margin: Option<u32>,
    /// Steady-state layout: valid fraction of the hot pool's pages, in (0, 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_utilization: Option<f64>,
    /// Steady-state layout: valid pages of the greedy victim (the moves of
    /// the first GCs); sets the hot pool's utilisation instead of `hot_utilization`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_moves_per_gc: Option<f64>,
}

/// The defaults of a `[precondition]` table's keys, whether the table is
/// given or not (a table with one key once took 0 / 0 for the others: a
/// fresh device).
impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            valid: 0.5,
            invalid: 0.2,
            layout: AgeLayout::Uniform,
            map_trace: MapTrace::None,
            free_margin: None,
            hot_utilization: None,
            target_moves_per_gc: None,
        }
    }
}

/// How preconditioned pages lie in blocks.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AgeLayout {
    /// Valid pages scattered over every written block: each victim is nearly
    /// full (the worst case, not a real device).
    Uniform,
    /// Blocks all valid or all invalid, as after a sequential fill and
    /// whole-block invalidation (SSDsim's `make_aged`).
    Packed,
    /// Cold data in full blocks; a hot pool whose blocks' valid fractions
    /// follow greedy GC's steady state under uniform writes.
    SteadyState,
}

/// Pages mapped (with their stripes' parity) before time 0.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MapTrace {
    /// Nothing beyond the valid fraction.
    None,
    /// Every page the trace reads before it writes it (SSDsim's `pre_process_page`).
    Reads,
    /// Every page the trace touches.
    Footprint,
}

impl Precondition {
    /// Rejects layout keys that are out of range or mean nothing with the
    /// chosen layout.
    pub(crate) fn validate_layout(&self, g: &Geometry, gc_threshold: f64) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        let steady = self.layout == AgeLayout::SteadyState;
        if let Some(r) = self.hot_utilization {
            if !steady {
                return err(format!(
                    "precondition.hot_utilization applies only to precondition.layout = \"steady-state\", \
                     not \"{}\" (a preset may set it: --set precondition.hot_utilization=default removes it)",
                    super::layout_name(self.layout)
                ));
            }
            if !(r > 0.0 && r < 1.0) {
                return err(format!("precondition.hot_utilization = {r} must be in (0, 1)"));
            }
        }
        if let Some(m) = self.target_moves_per_gc {
            if !steady {
                return err(format!(
                    "precondition.target_moves_per_gc applies only to precondition.layout = \"steady-state\", \
                     not \"{}\" (a preset may set it: --set precondition.target_moves_per_gc=default removes it)",
                    super::layout_name(self.layout)
                ));
            }
            if self.hot_utilization.is_some() {
                return err(
                    "give precondition.hot_utilization or precondition.target_moves_per_gc, not both (a preset \
                            may set one: --set precondition.hot_utilization=default removes it)"
                        .into(),
                );
            }
            if !(m > 0.0 && m < g.pages_per_block as f64) {
                return err(format!(
                    "precondition.target_moves_per_gc = {m} must be above 0 and below geometry.pages_per_block = {}",
                    g.pages_per_block
                ));
            }
        }
        if let Some(m) = self.free_margin {
            let trigger = ((gc_threshold * g.blocks_per_plane as f64).floor() as u64).max(2);
            if trigger + m as u64 >= g.blocks_per_plane as u64 {
                return err(format!(
                    "precondition.free_margin = {m} plus the GC trigger's {trigger} free blocks leaves no room for data \
                     in a plane of {} blocks",
                    g.blocks_per_plane
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change to the steady-state defaults and the start of the error it
    /// must give (`None`: accepted).
    type Case<'a> = (&'a dyn Fn(&mut Precondition), Option<&'a str>);

    /// Each layout key at its bounds, on planes of 64 blocks of 16 pages
    /// with a 10 % trigger (6 free blocks).
    #[test]
    fn layout_keys_are_checked_at_their_bounds() {
        let g = Geometry { blocks_per_plane: 64, pages_per_block: 16, ..Geometry::default() };
        let check = |f: &dyn Fn(&mut Precondition)| {
            let mut p = Precondition { layout: AgeLayout::SteadyState, ..Precondition::default() };
            f(&mut p);
            p.validate_layout(&g, 0.1).map_err(|e| e.0)
        };
        let cases: [Case; 14] = [
            (&|p| p.hot_utilization = Some(0.999), None),
            (&|p| p.hot_utilization = Some(1.0), Some("precondition.hot_utilization = 1 must")),
            (&|p| p.hot_utilization = Some(0.0), Some("precondition.hot_utilization = 0 must")),
            (&|p| p.hot_utilization = Some(f64::NAN), Some("precondition.hot_utilization = NaN")),
            (
                &|p| (p.layout, p.hot_utilization) = (AgeLayout::Packed, Some(0.5)),
                Some(
                    "precondition.hot_utilization applies only to precondition.layout = \"steady-state\", not \
                     \"packed\" (a preset may set it: --set precondition.hot_utilization=default removes it)",
                ),
            ),
            (&|p| p.target_moves_per_gc = Some(15.9), None),
            (&|p| p.target_moves_per_gc = Some(16.0), Some("precondition.target_moves_per_gc = 16 must")),
            (&|p| p.target_moves_per_gc = Some(0.0), Some("precondition.target_moves_per_gc = 0 must")),
            (
                &|p| (p.layout, p.target_moves_per_gc) = (AgeLayout::Uniform, Some(4.0)),
                Some(
                    "precondition.target_moves_per_gc applies only to precondition.layout = \"steady-state\", \
                     not \"uniform\" (a preset may set it: --set precondition.target_moves_per_gc=default",
                ),
            ),
            (
                &|p| (p.hot_utilization, p.target_moves_per_gc) = (Some(0.5), Some(4.0)),
                Some("give precondition.hot_utilization"),
            ),
            (&|p| p.free_margin = Some(57), None),
            (&|p| p.free_margin = Some(58), Some("precondition.free_margin = 58 plus the GC trigger's 6")),
            (&|p| (p.layout, p.free_margin) = (AgeLayout::Packed, Some(0)), None),
            (&|_| {}, None),
        ];
        for (i, (f, want)) in cases.into_iter().enumerate() {
            match (check(f), want) {
                (Ok(()), None) => {}
                (Err(e), Some(w)) => assert!(e.starts_with(w), "case {i}: {e}"),
                (got, _) => panic!("case {i}: {got:?} against {want:?}"),
            }
        }
        // A trigger of fewer than 2 blocks counts as 2.
        let small = Geometry { blocks_per_plane: 8, ..g };
        let p = Precondition { free_margin: Some(5), ..Precondition::default() };
        assert!(p.validate_layout(&small, 0.1).is_ok());
        let p = Precondition { free_margin: Some(6), ..Precondition::default() };
        assert!(p.validate_layout(&small, 0.1).unwrap_err().0.contains("GC trigger's 2 free blocks"));
    }
}
