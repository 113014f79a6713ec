//! `vigil graph`: the demo's deferred frame as a render graph, as a plan or in Graphviz
//! DOT.

use vigil_examples::scene::{Deferred, Scene};

/// Runs `vigil graph [--dot] [-o FILE]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut dot = false;
    let mut out: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dot" => dot = true,
            "-o" => out = Some(it.next().ok_or("-o needs a file name")?.clone()),
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    let device = vigil_examples::open_device()?;
    let scene = Scene::new(&device, [320, 240])?;
    let deferred = Deferred::new(&device, &scene)?;
    let graph = deferred.graph(&device, &scene)?;
    let text = if dot {
        graph.to_dot()
    } else {
        let plan = graph.plan();
        let mut s = String::new();
        for p in &plan.passes {
            s.push_str(&format!(
                "{}: {} uses, {} barriers before it\n",
                p.name,
                p.scopes.len(),
                p.barriers.len()
            ));
            for b in &p.barriers {
                let name = graph.graph().describe(b.resource).map_or("?", |(n, _)| n);
                s.push_str(&format!(
                    "  {name}: {:?}/{:?} -> {:?}/{:?}{}\n",
                    b.src_stages,
                    b.src_access,
                    b.dst_stages,
                    b.dst_access,
                    if b.old_layout == b.new_layout {
                        String::new()
                    } else {
                        format!(", {:?} -> {:?}", b.old_layout, b.new_layout)
                    }
                ));
            }
        }
        s.push_str(&format!(
            "{} passes, {} barriers, {} culled; transients {} bytes unshared, {} shared\n",
            plan.passes.len(),
            plan.barrier_count(),
            plan.culled.len(),
            plan.transient_bytes_unaliased,
            plan.transient_bytes()
        ));
        s
    };
    match out {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{path}: {e}")),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
