//! `vigil shader`: translate or reflect a WGSL file.

use std::io::Write as _;
use vigil_shader::{Module, SpirvOptions, msl};

const USAGE: &str = "usage: vigil shader FILE.wgsl --target spirv|msl [--entry NAME] [--sizes-slot N | --argument-table [--vertex-buffers N]] [-o OUT]
       vigil shader FILE.wgsl --reflect
  options for both:
       --features F1,F2,...   check for a device with these features enabled (names as
                              `vigil info` prints them, e.g. SHADER_F16,SUBGROUP; `all`
                              for every one); without it, for a device with none
       --constant KEY=VALUE   fix an override constant (by @id, else by name), as a
                              pipeline's constants do; repeat for each";

#[derive(Default)]
struct Args {
    file: Option<String>,
    target: Option<String>,
    entry: Option<String>,
    sizes_slot: Option<u8>,
    argument_table: bool,
    vertex_buffers: u32,
    out: Option<String>,
    reflect: bool,
    features: vigil::Features,
    constants: Vec<(String, f64)>,
}

/// Parses `--features`: names separated by commas, in any case, `-` for `_`, or `all`.
fn parse_features(list: &str) -> Result<vigil::Features, String> {
    let mut out = vigil::Features::empty();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let upper = name.to_ascii_uppercase().replace('-', "_");
        if upper == "ALL" {
            out |= vigil::Features::all();
            continue;
        }
        out |= vigil::Features::from_name(&upper).ok_or_else(|| {
            format!(
                "unknown feature '{name}'; known: {}",
                vigil::Features::all().names().join(", ")
            )
        })?;
    }
    Ok(out)
}

/// Parses `--constant KEY=VALUE`.
fn parse_constant(text: &str) -> Result<(String, f64), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--constant takes KEY=VALUE, not '{text}'"))?;
    let value = match value.trim() {
        "true" => 1.0,
        "false" => 0.0,
        v => v
            .parse()
            .map_err(|_| format!("--constant {key}: '{v}' is not a number"))?,
    };
    Ok((key.trim().to_owned(), value))
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = args.iter();
    let value = |it: &mut std::slice::Iter<'_, String>, flag: &str| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--target" => a.target = Some(value(&mut it, "--target")?),
            "--entry" => a.entry = Some(value(&mut it, "--entry")?),
            "--sizes-slot" => {
                let v = value(&mut it, "--sizes-slot")?;
                a.sizes_slot =
                    Some(v.parse().map_err(|_| {
                        format!("--sizes-slot takes a buffer index 0..=30, not '{v}'")
                    })?);
            }
            "--argument-table" => a.argument_table = true,
            "--vertex-buffers" => {
                let v = value(&mut it, "--vertex-buffers")?;
                a.vertex_buffers = v
                    .parse()
                    .map_err(|_| format!("--vertex-buffers takes a count, not '{v}'"))?;
            }
            "-o" | "--output" => a.out = Some(value(&mut it, "-o")?),
            "--reflect" => a.reflect = true,
            "--features" => a.features = parse_features(&value(&mut it, "--features")?)?,
            "--constant" => a
                .constants
                .push(parse_constant(&value(&mut it, "--constant")?)?),
            "-h" | "--help" => return Err(USAGE.into()),
            other if other.starts_with('-') => {
                return Err(format!("unknown option '{other}'\n{USAGE}"));
            }
            other => {
                if a.file.replace(other.to_owned()).is_some() {
                    return Err(format!("one input file at a time\n{USAGE}"));
                }
            }
        }
    }
    if a.sizes_slot.is_some() && a.argument_table {
        return Err(format!(
            "--sizes-slot and --argument-table choose different maps; give one\n{USAGE}"
        ));
    }
    Ok(a)
}

fn emit(out: Option<&str>, bytes: &[u8]) -> Result<(), String> {
    match out {
        Some(path) => std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}")),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| e.to_string()),
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let a = parse(args)?;
    let file = a.file.ok_or_else(|| format!("no input file\n{USAGE}"))?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    let source = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{file}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let mut module =
        Module::from_wgsl_with(&source, &file, a.features).map_err(|d| d.to_string())?;
    if !a.constants.is_empty() {
        let constants: Vec<(&str, f64)> =
            a.constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        module = module.specialize(&constants).map_err(|e| e.to_string())?;
    }
    if a.reflect {
        return emit(a.out.as_deref(), module.reflection().to_json().as_bytes());
    }
    match a.target.as_deref() {
        Some("spirv") => {
            let words = module
                .to_spirv_for(&SpirvOptions::default(), a.entry.as_deref())
                .map_err(|d| d.to_string())?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            emit(a.out.as_deref(), &bytes)
        }
        Some("msl") => {
            let map = if a.argument_table {
                msl::argument_table(&module, a.vertex_buffers)
            } else {
                msl::naga_numbering(&module, a.sizes_slot)
            }
            .map_err(|d| d.to_string())?;
            let source =
                msl::to_msl(&module, &map, a.entry.as_deref()).map_err(|d| d.to_string())?;
            let mut text = String::from("// vigil binding map\n");
            for line in map.describe().lines() {
                text.push_str("//   ");
                text.push_str(line);
                text.push('\n');
            }
            let fields = msl::runtime_array_bindings(&module);
            if !fields.is_empty() {
                let list: Vec<String> = fields
                    .iter()
                    .map(|(g, b)| format!("@group({g}) @binding({b})"))
                    .collect();
                text.push_str(&format!("//   _buffer_sizes fields: {}\n", list.join(", ")));
            }
            text.push_str(&source);
            emit(a.out.as_deref(), text.as_bytes())
        }
        Some(other) => Err(format!("unknown target '{other}' (spirv or msl)\n{USAGE}")),
        None => Err(format!("give --target spirv|msl or --reflect\n{USAGE}")),
    }
}
