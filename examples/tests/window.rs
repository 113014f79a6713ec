//! The window example under Xvfb (a virtual X server, installed by the set-up) on the
//! device: 120 frames presented through a surface, the window resized twice (each time the
//! surface is reconfigured), the validation layer silent, and the last presented frame
//! equal, pixel for pixel, to the same frame rendered off-screen.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use vigil_examples::image::Image;
use vigil_examples::scene::Scene;

/// An X server of our own, stopped when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        // A display number nobody holds.
        let n = (100..200)
            .map(|k| k + std::process::id() % 50)
            .find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())
            .unwrap();
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
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
        let start = Instant::now();
        while !socket.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "Xvfb :{n} did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Xvfb {
            child,
            display: format!(":{n}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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

#[test]
fn the_window_example_presents_resizes_and_matches_an_offscreen_frame() {
    let x = Xvfb::start();
    let shot = std::env::temp_dir().join(format!("vigil-window-{}.png", std::process::id()));
    let mut child = Command::new(example())
        .args(["--frames", "120", "--screenshot"])
        .arg(&shot)
        .env("DISPLAY", &x.display)
        .env("VIGIL_VALIDATION", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            panic!("the window example did not finish in 240 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("window: 120 frames presented"), "{stdout}");
    assert!(
        stdout.contains("reconfigured 2 times ([[400, 300], [256, 192]])"),
        "{stdout}"
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
        "the presented frame differs from the off-screen one"
    );
    drop(scene);
    drop(device);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}
