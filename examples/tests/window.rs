//! The window example on the device, once per way onto a window system vigil presents to —
//! X11 through Xlib and through XCB (under Xvfb, a virtual X server) and Wayland (under a
//! headless Weston), both installed by the set-up: 120 frames presented through a surface,
//! the window resized twice (each time the surface is reconfigured), the validation layer
//! silent, and the last presented frame equal, pixel for pixel, to the same frame rendered
//! off-screen.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use vigil_examples::image::Image;
use vigil_examples::scene::Scene;

/// A display server of our own (Xvfb or a headless Weston), stopped when dropped, and the
/// environment a client needs to reach it.
struct Server {
    child: Child,
    env: Vec<(&'static str, String)>,
    _runtime: Option<PathBuf>,
    /// Files the server leaves behind when killed (an X server's lock and socket).
    leftovers: Vec<PathBuf>,
}

/// An X display's lock file and socket.
fn x_files(n: u32) -> [PathBuf; 2] {
    [
        PathBuf::from(format!("/tmp/.X{n}-lock")),
        PathBuf::from(format!("/tmp/.X11-unix/X{n}")),
    ]
}

/// Whether display `n` is held: its lock file names a process that is running (an
/// unreadable lock counts as held; one left by a killed server does not).
fn x_display_held(n: u32) -> bool {
    let [lock, _] = x_files(n);
    match std::fs::read_to_string(&lock) {
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        Ok(text) => text
            .trim()
            .parse::<u32>()
            .map_or(true, |pid| Path::new(&format!("/proc/{pid}")).exists()),
    }
}

/// Waits for a server's socket to appear.
fn wait_for(socket: &Path, what: &str) {
    let start = Instant::now();
    while !socket.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Server {
    /// An X server on a display number nobody holds; `slot` keeps the tests of one run
    /// (which start their servers at once) on different numbers. A number whose lock a
    /// killed server left behind is taken, its stale lock and socket removed first (a stale
    /// socket would let `wait_for` return before the new server listens).
    fn xvfb(slot: u32) -> Server {
        let n = (0..50)
            .map(|k| 100 + slot * 100 + (std::process::id() + k) % 50)
            .find(|&n| !x_display_held(n))
            .expect("displays 100-149 (or 200-249) are all held by running X servers");
        for f in x_files(n) {
            let _ = std::fs::remove_file(f);
        }
        let child = Command::new("Xvfb")
            .args([
                &format!(":{n}"),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is not installed: run `cargo xtask setup` (the README's set-up)");
        wait_for(&PathBuf::from(format!("/tmp/.X11-unix/X{n}")), "Xvfb");
        Server {
            child,
            env: vec![("DISPLAY", format!(":{n}"))],
            _runtime: None,
            leftovers: x_files(n).to_vec(),
        }
    }

    fn weston() -> Server {
        use std::os::unix::fs::PermissionsExt;
        let runtime = std::env::temp_dir().join(format!("vigil-weston-{}", std::process::id()));
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = format!("wayland-vigil-{}", std::process::id());
        let child = Command::new("weston")
            .args([
                "--backend=headless-backend.so",
                &format!("--socket={socket}"),
                "--idle-time=0",
            ])
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("weston is not installed: run `cargo xtask setup` (the README's set-up)");
        wait_for(&runtime.join(&socket), "Weston");
        Server {
            child,
            env: vec![
                ("XDG_RUNTIME_DIR", runtime.display().to_string()),
                ("WAYLAND_DISPLAY", socket),
            ],
            _runtime: Some(runtime),
            leftovers: Vec::new(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self._runtime {
            let _ = std::fs::remove_dir_all(dir);
        }
        // Killed, the server removed none of its files: without this every run left a
        // display's lock behind, and after fifty runs on one machine no number was free.
        for f in &self.leftovers {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// The example's binary, built next to this test by `cargo test`.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let bin = dir.join("examples").join("window");
    assert!(
        bin.is_file(),
        "{} is missing: `cargo test -p vigil-examples` builds it",
        bin.display()
    );
    bin
}

/// Runs the example against `server` (with `extra` arguments) and checks what it did
/// against an off-screen render.
fn presents_resizes_and_matches(server: &Server, extra: &[&str], name: &str) {
    let shot = std::env::temp_dir().join(format!("vigil-window-{name}-{}.png", std::process::id()));
    let mut cmd = Command::new(example());
    cmd.args(["--frames", "120", "--screenshot"])
        .arg(&shot)
        .args(extra)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("VIGIL_VALIDATION", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &server.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            panic!("the window example ({name}) did not finish in 240 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {stdout}\n{stderr}");
    assert!(stdout.contains("window: 120 frames presented"), "{stdout}");
    assert!(
        stdout.contains("reconfigured 2 times ([[400, 300], [256, 192]])"),
        "{name}: {stdout}"
    );
    assert!(stdout.contains("validation: 0 message(s)"), "{stdout}");
    assert!(
        stdout.contains("(256x192, frame 119)"),
        "the screenshot is the last frame, at the last size: {stdout}"
    );
    let presented = Image::load(&shot).unwrap();
    let _ = std::fs::remove_file(&shot);
    // The same frame off-screen, in this process.
    let (device, log) = common::device();
    let scene = Scene::new(&device, [256, 192]).unwrap();
    let offscreen = scene.frame(&device, 119).unwrap().image;
    assert_eq!(
        (presented.width, presented.height),
        (offscreen.width, offscreen.height)
    );
    assert!(
        presented.rgba == offscreen.rgba,
        "{name}: the presented frame differs from the off-screen one"
    );
    drop(scene);
    drop(device);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn on_x11_through_xlib() {
    presents_resizes_and_matches(&Server::xvfb(0), &[], "xlib");
}

#[test]
fn on_x11_through_xcb() {
    presents_resizes_and_matches(&Server::xvfb(1), &["--xcb"], "xcb");
}

#[test]
fn on_wayland() {
    presents_resizes_and_matches(&Server::weston(), &[], "wayland");
}
