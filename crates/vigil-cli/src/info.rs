//! `vigil info`: every adapter, with what it supports.

use vigil::{Instance, InstanceDescriptor};

/// `vigil info [--json]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let json = match args {
        [] => false,
        [a] if a == "--json" => true,
        _ => return Err("usage: vigil info [--json]".into()),
    };
    let instance = Instance::<vigil::DefaultApi>::new(&InstanceDescriptor::default())
        .map_err(|e| e.to_string())?;
    let adapters = instance.adapters();
    if adapters.is_empty() {
        return Err("no Vulkan 1.3 adapter found (run `cargo xtask setup`)".into());
    }
    let default = instance
        .default_adapter()
        .ok()
        .map(|a| a.info().name.clone());
    if json {
        print!("{}", to_json(&adapters, default.as_deref()));
        return Ok(());
    }
    for (i, a) in adapters.iter().enumerate() {
        let info = a.info();
        let mark = if Some(&info.name) == default.as_ref() {
            "  (default)"
        } else {
            ""
        };
        println!("adapter {i}: {}{mark}", info.name);
        println!("  type:        {}", info.device_type);
        println!("  backend:     {}", info.backend);
        println!("  driver:      {} ({})", info.driver, info.driver_info);
        println!(
            "  API version: {}.{}.{}",
            info.api_version.0, info.api_version.1, info.api_version.2
        );
        println!(
            "  vendor/device id: {:#06x}/{:#06x}",
            info.vendor_id, info.device_id
        );
        println!("  timestamp period: {} ns", info.timestamp_period_ns);
        println!("  features:    {}", a.features().names().join(", "));
        println!("  limits:");
        for (name, value) in a.limits().entries() {
            println!("    {name:<50} {value}");
        }
    }
    if let Ok(name) = std::env::var("VIGIL_ADAPTER") {
        println!("VIGIL_ADAPTER={name} selects the default adapter by name");
    }
    Ok(())
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Every adapter as JSON: `{"default": name|null, "adapters": [{name, type, backend,
/// driver, driver_info, api_version, vendor_id, device_id, timestamp_period_ns, default,
/// features: [..], limits: {..}}]}`.
fn to_json(adapters: &[vigil::Adapter<vigil::DefaultApi>], default: Option<&str>) -> String {
    let mut out = format!(
        "{{\"default\":{},\"adapters\":[",
        default.map_or_else(|| "null".to_owned(), json_str)
    );
    for (i, a) in adapters.iter().enumerate() {
        let info = a.info();
        if i > 0 {
            out.push(',');
        }
        let features: Vec<String> = a.features().names().iter().map(|n| json_str(n)).collect();
        let limits: Vec<String> = a
            .limits()
            .entries()
            .into_iter()
            .map(|(name, value)| format!("{}:{value}", json_str(name)))
            .collect();
        out.push_str(&format!(
            "{{\"name\":{},\"type\":{},\"backend\":{},\"driver\":{},\"driver_info\":{},\"api_version\":\"{}.{}.{}\",\"vendor_id\":{},\"device_id\":{},\"timestamp_period_ns\":{},\"default\":{},\"features\":[{}],\"limits\":{{{}}}}}",
            json_str(&info.name),
            json_str(&info.device_type.to_string()),
            json_str(info.backend),
            json_str(&info.driver),
            json_str(&info.driver_info),
            info.api_version.0,
            info.api_version.1,
            info.api_version.2,
            info.vendor_id,
            info.device_id,
            info.timestamp_period_ns,
            Some(info.name.as_str()) == default,
            features.join(","),
            limits.join(",")
        ));
    }
    out.push_str("]}\n");
    out
}
