//! Release while recording, on every interleaving: one thread records a command buffer
//! that uses a buffer, another destroys the buffer, and the destroy lands before each step
//! of the recording in turn (driven step by step, so every run is the same interleaving).
//! At each point the native buffer must live exactly as long as something may use it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::sync::mpsc::{Receiver, Sender, channel};
use vigil::*;

/// The recording thread's steps, in order.
const STEPS: [&str; 6] = ["encoder", "clear", "copy", "finish", "submit", "complete"];

/// What the recording thread saw at each step.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Ok,
    Refused(Rule),
}

fn recorder(d: &TDevice, x: Buffer, y: Buffer, go: Receiver<()>, done: Sender<Seen>) {
    let mut enc: Option<CommandEncoder<TestApi>> = None;
    let mut cb: Option<CommandBuffer<TestApi>> = None;
    for step in STEPS {
        go.recv().unwrap();
        let seen = match step {
            "encoder" => {
                enc = Some(encoder(d));
                Seen::Ok
            }
            "clear" => match enc.as_mut().unwrap().clear_buffer(x, 0, None) {
                Ok(()) => Seen::Ok,
                Err(e) => Seen::Refused(e.rule()),
            },
            "copy" => match enc.as_mut().unwrap().copy_buffer_to_buffer(x, 0, y, 0, 64) {
                Ok(()) => Seen::Ok,
                Err(e) => Seen::Refused(e.rule()),
            },
            "finish" => match enc.take().unwrap().finish() {
                Ok(c) => {
                    cb = Some(c);
                    Seen::Ok
                }
                Err(e) => Seen::Refused(e.rule()),
            },
            "submit" => match cb.take() {
                Some(c) => match d.submit([c]) {
                    Ok(_) => Seen::Ok,
                    Err(e) => Seen::Refused(e.rule()),
                },
                None => Seen::Ok,
            },
            _ => {
                d.test_backend().complete_through(d.last_submitted_serial());
                d.poll().unwrap();
                Seen::Ok
            }
        };
        done.send(seen).unwrap();
    }
}

/// Native objects of the device's own (pools and staging kept for reuse or in flight
/// excluded).
fn own(d: &TDevice) -> u64 {
    d.live_native_objects() - d.pooled_native_objects()
}

/// Whether the recording thread holds a native pool after `step` ran (an open encoder or an
/// unsubmitted command buffer).
fn holds_pool(step: usize, seen: &[Seen]) -> bool {
    match step {
        0..=2 => true,
        3 => seen.get(3) == Some(&Seen::Ok),
        _ => false,
    }
}

#[test]
fn a_destroyed_buffer_lives_exactly_as_long_as_a_recording_or_submission_may_use_it() {
    use Seen::*;
    for destroy_before in 0..=STEPS.len() {
        let d = device();
        d.test_backend().set_auto_complete(false);
        let (x, y) = (storage(&d, 64), storage(&d, 64));
        let without_x = own(&d) - 1;
        let (go_tx, go_rx) = channel();
        let (done_tx, done_rx) = channel();
        let (kill_tx, kill_rx) = channel::<()>();
        let (killed_tx, killed_rx) = channel::<Result<()>>();
        let mut seen: Vec<Seen> = Vec::new();
        // After each step (and right after the destroy): is x's native buffer alive?
        let mut alive_after: Vec<(String, bool)> = Vec::new();
        std::thread::scope(|s| {
            let dr = &d;
            s.spawn(move || recorder(dr, x, y, go_rx, done_tx));
            s.spawn(move || {
                if kill_rx.recv().is_ok() {
                    killed_tx.send(dr.destroy_buffer(x)).unwrap();
                }
            });
            let alive = |held: bool| {
                let extra = own(&d) - without_x - u64::from(held);
                assert!(extra <= 1, "{extra}");
                extra == 1
            };
            for (i, step) in STEPS.iter().enumerate() {
                if i == destroy_before {
                    kill_tx.send(()).unwrap();
                    killed_rx.recv().unwrap().unwrap();
                    let held = i > 0 && holds_pool(i - 1, &seen);
                    alive_after.push(("destroy".into(), alive(held)));
                }
                go_tx.send(()).unwrap();
                seen.push(done_rx.recv().unwrap());
                alive_after.push(((*step).into(), alive(holds_pool(i, &seen))));
            }
            if destroy_before == STEPS.len() {
                kill_tx.send(()).unwrap();
                killed_rx.recv().unwrap().unwrap();
                alive_after.push(("destroy".into(), alive(false)));
            }
        });
        let stale = Refused(Rule::HandleStale);
        let expected_seen: Vec<Seen> = match destroy_before {
            0 | 1 => vec![
                Ok,
                stale,
                Refused(Rule::EncoderPoisoned),
                Refused(Rule::HandleStale),
                Ok,
                Ok,
            ],
            2 => vec![Ok, Ok, stale, Refused(Rule::HandleStale), Ok, Ok],
            3 | 4 => vec![Ok, Ok, Ok, Ok, Refused(Rule::SubmitDestroyed), Ok],
            _ => vec![Ok; 6],
        };
        assert_eq!(seen, expected_seen, "destroy before step {destroy_before}");
        // The first moment x's native buffer is gone.
        let gone = alive_after
            .iter()
            .position(|(_, a)| !a)
            .map(|i| alive_after[i].0.clone());
        let expected_gone = match destroy_before {
            // Nothing had recorded x: it goes with the destroy.
            0 | 1 | 6 => "destroy",
            // The open encoder recorded it: it goes when the poisoned encoder is finished.
            2 => "finish",
            // The command buffer recorded it: it goes when its submission is refused.
            3 | 4 => "submit",
            // A submission uses it: it goes when that completes.
            _ => "complete",
        };
        assert_eq!(
            gone.as_deref(),
            Some(expected_gone),
            "destroy before step {destroy_before}: {alive_after:?}"
        );
        assert!(
            alive_after.iter().skip_while(|(_, a)| *a).all(|(_, a)| !a),
            "released once, for good: {alive_after:?}"
        );
        assert_eq!(d.buffer_size(x).unwrap_err().rule(), Rule::HandleStale);
    }
}
