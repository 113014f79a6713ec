//! The compiled graph in Graphviz DOT: passes as boxes (culled ones dashed), resources as
//! ellipses, an edge per use (resource to pass for reads, pass to resource for writes),
//! and each pass's barriers listed in its box.

use crate::compile::CompiledGraph;
use crate::graph::writes;
use std::fmt::Write as _;
use vigil::Api;

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

impl<A: Api> CompiledGraph<A> {
    /// The graph in DOT.
    pub fn to_dot(&self) -> String {
        let g = self.graph();
        let mut out = String::from(
            "digraph vigil_graph {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n",
        );
        for (i, r) in g.resources.iter().enumerate() {
            let backing = self
                .plan()
                .aliases
                .iter()
                .find(|(id, _)| id.0 as usize == i)
                .map(|(_, slot)| *slot);
            let note = match (r.transient.is_some(), backing) {
                (true, Some(slot)) => format!("\\n(transient, backing {slot})"),
                (true, None) => "\\n(transient, unused)".to_owned(),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  r{i} [shape=ellipse label=\"{}{note}\"];",
                quote(&r.name),
            );
        }
        for p in &self.plan().passes {
            let kind = g
                .passes
                .get(p.pass.0 as usize)
                .map_or("", |e| match e.kind {
                    crate::graph::PassKind::Compute => "compute",
                    crate::graph::PassKind::Render => "render",
                    crate::graph::PassKind::Copy => "copy",
                });
            let mut label = format!("{}\\n({kind})", quote(&p.name));
            for b in &p.barriers {
                let (name, _) = g.describe(b.resource).unwrap_or(("?", Default::default()));
                let part = match b.range {
                    crate::graph::Range::Subresources {
                        base_mip_level,
                        mip_level_count: 1,
                        ..
                    } => format!(" (mip {base_mip_level})"),
                    crate::graph::Range::Subresources {
                        base_mip_level,
                        mip_level_count,
                        ..
                    } => format!(
                        " (mips {base_mip_level}-{})",
                        base_mip_level
                            .saturating_add(mip_level_count)
                            .saturating_sub(1)
                    ),
                    _ => String::new(),
                };
                let _ = write!(
                    label,
                    "\\nbarrier {}{part}: {:?}/{:?} -> {:?}/{:?}",
                    quote(name),
                    b.src_stages,
                    b.src_access,
                    b.dst_stages,
                    b.dst_access
                );
                if b.old_layout != b.new_layout {
                    let _ = write!(label, " {:?} -> {:?}", b.old_layout, b.new_layout);
                }
            }
            let _ = writeln!(out, "  p{} [shape=box label=\"{label}\"];", p.pass.0);
            for s in &p.scopes {
                if writes(&s.state) {
                    let _ = writeln!(out, "  p{} -> r{};", p.pass.0, s.resource.0);
                }
                if !crate::state::reads_of(s.state.access).is_empty() {
                    let _ = writeln!(out, "  r{} -> p{};", s.resource.0, p.pass.0);
                }
            }
        }
        for id in &self.plan().culled {
            let name = g.passes.get(id.0 as usize).map_or("", |p| p.name.as_str());
            let _ = writeln!(
                out,
                "  p{} [shape=box style=dashed label=\"{} (culled)\"];",
                id.0,
                quote(name)
            );
        }
        out.push_str("}\n");
        out
    }
}
