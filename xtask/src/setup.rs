//! Set-up: a Vulkan driver, the Khronos validation layer, vulkan-tools, spirv-tools, glslc
//! and spirv-cross (the GPU-pointer tier's shaders), and valgrind (the instruction-count
//! guard counts with callgrind).
//!
//! On Debian (as root, or with password-less sudo) whatever is missing is installed. When
//! no GPU driver is present, Mesa's lavapipe comes from the backports suite of the Debian
//! mirror the machine's apt sources already use (Debian 12's own Mesa lacks descriptor
//! indexing, descriptor buffers and mesh shaders). Nothing is installed when everything is
//! already there, so running it twice costs a few `dpkg-query` calls.

use std::path::Path;
use std::process::Command;

/// Packages needed everywhere.
const TOOLS: &[&str] = &[
    "vulkan-validationlayers",
    "vulkan-tools",
    "libvulkan-dev",
    "spirv-tools",
    // GPU-pointer shaders: GLSL with buffer references to SPIR-V, and SPIR-V to MSL.
    "glslc",
    "spirv-cross",
    "valgrind",
    // The window example's tests: a virtual X server, a headless Wayland compositor, and
    // the X libraries winit loads.
    "xvfb",
    "weston",
    "libx11-xcb1",
    "libxcursor1",
    "libxrandr2",
    "libxi6",
    "libxkbcommon-x11-0",
];
/// Mesa's Vulkan drivers, lavapipe among them.
const MESA: &str = "mesa-vulkan-drivers";
/// Oldest Mesa major version accepted for lavapipe.
const MESA_MIN_MAJOR: u32 = 25;

fn installed_version(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f", "${Status}|${Version}", package])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (status, version) = text.split_once('|')?;
    (status.ends_with("installed") && !status.contains("not-installed")).then(|| version.to_owned())
}

fn major(version: &str) -> u32 {
    let v = version.split(':').next_back().unwrap_or(version);
    v.split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// Vulkan devices the loader sees, as `(type, name)`, via vulkaninfo when it exists.
fn vulkan_devices() -> Vec<(String, String)> {
    let Ok(out) = Command::new("vulkaninfo")
        .arg("--summary")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
    else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut devices = Vec::new();
    let mut ty = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(v) = line.strip_prefix("deviceType") {
            ty = v.trim_start_matches([' ', '=']).trim().to_owned();
        } else if let Some(v) = line.strip_prefix("deviceName") {
            devices.push((
                ty.clone(),
                v.trim_start_matches([' ', '=']).trim().to_owned(),
            ));
        }
    }
    devices
}

fn layer_present() -> bool {
    let mut dirs: Vec<String> = [
        "/usr/share/vulkan/explicit_layer.d",
        "/etc/vulkan/explicit_layer.d",
        "/usr/local/share/vulkan/explicit_layer.d",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for var in ["VK_ADD_LAYER_PATH", "VK_LAYER_PATH"] {
        if let Ok(v) = std::env::var(var) {
            dirs.extend(v.split(':').map(str::to_owned));
        }
    }
    dirs.iter().any(|d| {
        Path::new(d)
            .join("VkLayer_khronos_validation.json")
            .exists()
    })
}

fn os_release(key: &str) -> Option<String> {
    let text = std::fs::read_to_string("/etc/os-release").ok()?;
    text.lines().find_map(|l| {
        l.strip_prefix(&format!("{key}="))
            .map(|v| v.trim_matches('"').to_owned())
    })
}

/// A `deb` source for `codename`: `(uri, signed_by)`, read from the machine's own apt
/// configuration (deb822 `.sources` files and one-line `.list` files).
fn mirror_for(codename: &str) -> Option<(String, Option<String>)> {
    let mut files = vec![std::path::PathBuf::from("/etc/apt/sources.list")];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        let mut more: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        more.sort();
        files.extend(more);
    }
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let name = file.to_string_lossy();
        if name.ends_with(".sources") {
            for stanza in text.split("\n\n") {
                let field = |k: &str| {
                    stanza.lines().find_map(|l| {
                        l.strip_prefix(&format!("{k}:"))
                            .map(|v| v.trim().to_owned())
                    })
                };
                let is_deb =
                    field("Types").is_some_and(|t| t.split_whitespace().any(|t| t == "deb"));
                let has_suite =
                    field("Suites").is_some_and(|s| s.split_whitespace().any(|s| s == codename));
                if is_deb
                    && has_suite
                    && let Some(uri) =
                        field("URIs").and_then(|u| u.split_whitespace().next().map(str::to_owned))
                {
                    return Some((uri, field("Signed-By")));
                }
            }
        } else if name.ends_with(".list") {
            for line in text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("deb "))
            {
                let words: Vec<&str> = line.split_whitespace().collect();
                let mut i = 1;
                if words.get(1).is_some_and(|w| w.starts_with('[')) {
                    while i < words.len() && !words[i].ends_with(']') {
                        i += 1;
                    }
                    i += 1;
                }
                if let (Some(uri), Some(suite)) = (words.get(i), words.get(i + 1))
                    && *suite == codename
                {
                    return Some(((*uri).to_owned(), None));
                }
            }
        }
    }
    None
}

fn backports_configured(codename: &str) -> bool {
    let wanted = format!("{codename}-backports");
    let mut files = vec![std::path::PathBuf::from("/etc/apt/sources.list")];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        files.extend(dir.filter_map(|e| e.ok().map(|e| e.path())));
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .any(|t| t.split_whitespace().any(|w| w == wanted))
}

fn privileged() -> Option<Vec<String>> {
    // SAFETY-free check: `id -u` prints 0 for root.
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if uid.as_deref() == Some("0") {
        return Some(Vec::new());
    }
    let sudo = Command::new("sudo")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    sudo.then(|| vec!["sudo".to_owned(), "-n".to_owned()])
}

fn apt(prefix: &[String], args: &[&str]) -> Result<(), String> {
    let mut cmd = match prefix.first() {
        Some(p) => {
            let mut c = Command::new(p);
            c.args(&prefix[1..]).arg("apt-get");
            c
        }
        None => Command::new("apt-get"),
    };
    cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("apt-get could not start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("apt-get {} failed ({status})", args.join(" ")))
    }
}

const ELSEWHERE: &str = "On other systems install: a Vulkan 1.3 driver (your GPU vendor's, or Mesa >= 25 for \
the lavapipe CPU driver), the Vulkan loader, the Khronos validation layer (VK_LAYER_KHRONOS_validation, \
e.g. from the LunarG Vulkan SDK), vulkaninfo and spirv-val (SPIRV-Tools); then re-run.";

/// Makes sure everything is installed; installs what is missing where it can.
pub fn ensure() -> Result<(), String> {
    let devices = vulkan_devices();
    let has_gpu = devices.iter().any(|(ty, _)| !ty.contains("CPU"));
    let is_debian = Path::new("/etc/debian_version").exists()
        && Command::new("dpkg-query").arg("--version").output().is_ok();
    if !is_debian {
        if devices.is_empty() || !layer_present() {
            return Err(format!(
                "no usable Vulkan device or validation layer found. {ELSEWHERE}"
            ));
        }
        return Ok(());
    }
    let mut missing: Vec<&str> = TOOLS
        .iter()
        .copied()
        .filter(|p| installed_version(p).is_none())
        .collect();
    let mesa_ok = installed_version(MESA).is_some_and(|v| major(&v) >= MESA_MIN_MAJOR);
    let need_mesa = !has_gpu && !mesa_ok;
    if need_mesa {
        missing.push(MESA);
    }
    if missing.is_empty() && !devices.is_empty() && layer_present() {
        eprintln!(
            "xtask: Vulkan set-up present ({} device(s): {})",
            devices.len(),
            devices
                .iter()
                .map(|d| d.1.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(());
    }
    let Some(prefix) = privileged() else {
        return Err(format!(
            "missing: {}. Run as root (or with password-less sudo) so set-up can install them with apt-get. {ELSEWHERE}",
            if missing.is_empty() {
                "a working Vulkan device".to_owned()
            } else {
                missing.join(", ")
            }
        ));
    };
    let codename = os_release("VERSION_CODENAME").unwrap_or_else(|| "bookworm".into());
    let mut target = Vec::new();
    if need_mesa {
        if !backports_configured(&codename) {
            let Some((uri, signed_by)) = mirror_for(&codename) else {
                return Err(format!(
                    "no apt source for '{codename}' found to derive its backports suite from. {ELSEWHERE}"
                ));
            };
            let mut stanza = format!(
                "Types: deb\nURIs: {uri}\nSuites: {codename}-backports\nComponents: main\n"
            );
            if let Some(key) = signed_by {
                stanza.push_str(&format!("Signed-By: {key}\n"));
            }
            let path = "/etc/apt/sources.list.d/vigil-backports.sources";
            eprintln!(
                "xtask: adding the {codename}-backports suite of the configured mirror ({path})"
            );
            if prefix.is_empty() {
                std::fs::write(path, stanza).map_err(|e| format!("writing {path}: {e}"))?;
            } else {
                let mut tee = Command::new(&prefix[0]);
                tee.args(&prefix[1..])
                    .args(["tee", path])
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::null());
                let mut child = tee.spawn().map_err(|e| format!("sudo tee: {e}"))?;
                if let Some(mut stdin) = child.stdin.take() {
                    use std::io::Write;
                    stdin
                        .write_all(stanza.as_bytes())
                        .map_err(|e| format!("sudo tee: {e}"))?;
                }
                child.wait().map_err(|e| format!("sudo tee: {e}"))?;
            }
        }
        target = vec!["-t".to_owned(), format!("{codename}-backports")];
    }
    apt(&prefix, &["-qq", "update"])?;
    let mut args: Vec<&str> = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend(target.iter().map(String::as_str));
    // Installing the whole set from backports keeps the loader and drivers consistent.
    let all: Vec<&str> = TOOLS
        .iter()
        .copied()
        .chain(need_mesa.then_some(MESA))
        .collect();
    args.extend(all);
    apt(&prefix, &args)?;
    let devices = vulkan_devices();
    if devices.is_empty() {
        return Err(format!(
            "Vulkan still reports no device after installing. {ELSEWHERE}"
        ));
    }
    if !layer_present() {
        return Err(format!(
            "the Khronos validation layer is still missing. {ELSEWHERE}"
        ));
    }
    eprintln!(
        "xtask: Vulkan set-up ready: {}",
        devices
            .iter()
            .map(|d| d.1.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
