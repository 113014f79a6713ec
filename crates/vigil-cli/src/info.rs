//! `vigil info`: every adapter, with what it supports.

use vigil::{Instance, InstanceDescriptor};

pub fn run() -> Result<(), String> {
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
